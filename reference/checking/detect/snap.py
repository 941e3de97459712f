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
    f = Fraction(x).limit_denominator(max_den)
    if abs(float(f) - x) <= rel * abs(x):
        return float(f)
    r = float(round(x))
    if r and abs(r - x) <= rel * abs(x):
        return r
    return x


def _is_simple(x: float) -> bool:
    return math.isfinite(x) and Fraction(x).limit_denominator(64) == Fraction(x)


def _str_num(x: float) -> str:
    f = Fraction(x).limit_denominator(64)
    if float(f) == x:
        return str(f)
    return repr(float(x))
