"""The references that say what the numbers are: mpmath at any precision (:mod:`.mp`), certified
mpmath intervals with Ziv rounding (:mod:`.interval`), python-flint Arb balls (:mod:`.arb`, the second
oracle) and the fast NumPy double-double reference for big tables (:mod:`.fast`).
"""
