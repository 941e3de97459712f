"""The second oracle's word on a decimal (SPEC.md REQ-GOLDEN-ORACLE): does the Arb ball of an entry lie within half
a unit of the last digit of its 40-digit ``decimal``? Used when the files are generated and when they are
self-certified."""
from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

from sinpe.reference.oracles.interval import DIGITS
from sinpe.spec.profiles import Profile


def decimal_confirmed(profile: Profile, d: int, p: Fraction, j: int, dec: str) -> bool:
    """Does the Arb ball of PE(p)[j] lie within half a unit of the last digit of ``dec``?"""
    from sinpe.reference.oracles import arb as of
    if dec == "0":
        ball = of.enclose(profile, d, p, j, prec=128)
        return ball.is_zero() if hasattr(ball, "is_zero") else (ball.mid() == 0 and ball.rad() == 0)
    mant, ex = dec.split("e")
    E = int(ex)
    digits = mant.lstrip("-").replace(".", "")
    if len(digits) == DIGITS:
        return _decimal_ok_int(profile, d, p, j, -int(digits) if mant.startswith("-") else int(digits),
                               E - DIGITS + 1)
    target = Fraction(Decimal(mant)) * Fraction(10) ** E
    half = Fraction(1, 2) * Fraction(10) ** (E - DIGITS + 1)
    prec = 200 + int(abs(p)).bit_length()
    for _ in range(3):
        ball = of.enclose(profile, d, p, j, prec=prec)
        mid = Fraction(*_man_exp_frac(ball.mid()))
        rad = Fraction(*_man_exp_frac(ball.rad()))
        if target - half < mid - rad and mid + rad < target + half:
            return True
        prec *= 2
    return False


def _decimal_ok_int(profile: Profile, d: int, p: Fraction, j: int, N: int, s: int) -> bool:
    """:func:`decimal_confirmed` for the decimal N 10^s in integers: is the Arb ball
    [mid - rad, mid + rad] strictly inside ((N - 1/2) 10^s, (N + 1/2) 10^s)?"""
    from sinpe.reference.oracles import arb as of
    prec = 200 + int(abs(p)).bit_length()
    for _ in range(3):
        ball = of.enclose(profile, d, p, j, prec=prec)
        mm, me = (int(x) for x in ball.mid().man_exp())
        rm, re_ = (int(x) for x in ball.rad().man_exp())
        e0 = min(me, re_)
        M, R = mm << (me - e0), rm << (re_ - e0)  # mid = M 2^e0, rad = R 2^e0
        # A 10^s < B 2^e0  <=>  A 10^max(s,0) 2^max(-e0,0) < B 10^max(-s,0) 2^max(e0,0)
        ls, rs = 10 ** max(s, 0) << max(-e0, 0), 10 ** max(-s, 0) << max(e0, 0)
        if (2 * N - 1) * ls < 2 * (M - R) * rs and 2 * (M + R) * rs < (2 * N + 1) * ls:
            return True
        prec *= 2
    return False


def _man_exp_frac(x: Any) -> tuple[int, int]:
    man, exp = x.man_exp()
    man, exp = int(man), int(exp)
    return (man << exp, 1) if exp >= 0 else (man, 1 << -exp)
