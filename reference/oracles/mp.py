"""The mpmath high-precision reference (SPEC.md REQ-REF-MP): DEF-PE evaluated at any precision.

This is the spec's definition (:mod:`sinpe.spec.definition`) run on an mpmath backend.
It is accurate to about the working precision; the *certified* values (enclosures and
correctly rounded goldens) are in :mod:`sinpe.reference.oracles.interval`.

>>> from sinpe.spec import get_profile
>>> import mpmath
>>> with mpmath.workdps(30):
...     [mpmath.nstr(v, 25) for v in pe_row(get_profile("vaswani"), 4, 1)]
['0.8414709848078965066525023', '0.5403023058681397174009366', '0.009999833334166664682542438', '0.9999500004166652777802579']
>>> with mpmath.workdps(40):
...     mpmath.nstr(pe_value(get_profile("t2t"), 8, 3, 5), 30)   # t2t, d=8, position 3, column 5 = cos1 = cos(3 * 10^(-4/3))
'0.990320699135674976574832838231'
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath

from sinpe.spec.definition import column_data, phase, row, value
from sinpe.spec.profiles import Number, Profile, to_fraction


class MpBackend:
    """mpmath at the current ``mp.prec`` (guard bits are the caller's choice)."""

    zero = mpmath.mpf(0)

    @staticmethod
    def num(x: Fraction) -> Any:
        return mpmath.mpf(x.numerator) / x.denominator

    sin = staticmethod(mpmath.sin)
    cos = staticmethod(mpmath.cos)

    @staticmethod
    def pow(base: Any, e: Any) -> Any:
        return mpmath.power(base, e)


MP = MpBackend()


def pe_row(profile: Profile, d: int, position: Number) -> list[mpmath.mpf]:
    """PE(position) in mpmath at the current working precision."""
    with mpmath.extraprec(20):
        vals = row(column_data(profile, d), to_fraction(position, "position"), MP)
    return [+v for v in vals]


def pe_value(profile: Profile, d: int, position: Number, j: int) -> mpmath.mpf:
    """Column ``j`` of PE(position) in mpmath at the current working precision."""
    cd = column_data(profile, d)
    if not 0 <= j < d:
        raise IndexError(f"column {j} out of range for d={d}")
    kind, k = cd.kinds[j], cd.labels[j]
    with mpmath.extraprec(20):
        th = None if kind == "zero" else phase(cd, k, to_fraction(position, "position"), MP)
        v = value(cd, kind, th, MP)
    return +v
