"""Fitted numbers snapped to simple ones (SPEC.md REQ-DETECT-FIT): a parameter is reported as the simple fraction or
integer it is within a relative tolerance of, and a detection names a profile only with simple parameters.

>>> _snap(10000.02, 2e-6, 1), _is_simple(0.5), _str_num(0.1)
(10000.0, True, '1/10')
"""
from __future__ import annotations

import math
from fractions import Fraction


def _snap(x: float, rel: float, max_den: int = 64, absolute: float = 0.0) -> float:
    if not math.isfinite(x) or x == 0:
        return x
    if absolute:
        q = round(x * max_den) / max_den
        return q if abs(q - x) <= absolute else x
    if _is_simple(x, max_den):  # x * max_den is an integer: the nearest fraction is x itself (no Fraction needed)
        return x
    n = float(round(x))
    if abs(x - n) < 0.5 / max_den:  # any other fraction of denominator <= max_den is >= 1/max_den from the integer n,
        return n if abs(n - x) <= rel * abs(x) else x  # so n is the nearest: the steps below give this
    f = Fraction(x).limit_denominator(max_den)
    if abs(float(f) - x) <= rel * abs(x):
        return float(f)
    r = float(round(x))
    if r and abs(r - x) <= rel * abs(x):
        return r
    return x


def _is_simple(x: float, max_den: int = 64) -> bool:
    """Is x a fraction with denominator at most ``max_den``? A finite float is n / 2^k in lowest terms, so for a
    power of two ``max_den`` it is one exactly when x * max_den is an integer (a product by a power of two: exact,
    and an x large enough to overflow it is an integer already); any other ``max_den`` asks Fraction.

    >>> [_is_simple(v) for v in (0.5, 3.0, 1 / 128, 0.1, float("inf"), 1e308, 5e-324)]
    [True, True, False, False, False, True, False]
    >>> _is_simple(0.75, 6), _is_simple(0.75, 3)
    (True, False)
    """
    x = float(x)
    if not math.isfinite(x):
        return False
    if max_den & (max_den - 1):
        return Fraction(x).limit_denominator(max_den) == x
    return x.is_integer() or (x * max_den).is_integer()


def _str_num(x: float) -> str:
    f = Fraction(x).limit_denominator(64)
    if float(f) == x:
        return str(f)
    return repr(float(x))
