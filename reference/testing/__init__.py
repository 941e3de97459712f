"""Test fixtures shipped for users' own suites: the catalogue of realistic buggy implementations
(:mod:`.bugs`) that the checker must reject.
"""
