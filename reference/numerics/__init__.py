"""Exact numerics shared by every oracle and checker: correct rounding to a binary format
(:mod:`.rounding`) and position specs (:mod:`.positions`).
"""
