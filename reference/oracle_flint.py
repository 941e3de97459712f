"""The second oracle (SPEC.md REQ-GOLDEN-ORACLE): DEF-PE in python-flint Arb ball arithmetic.

Arb balls are rigorous: the true value lies in [mid - rad, mid + rad]. A value is *correctly
rounded* to a format once both ends of its ball round to the same format value (Ziv's strategy:
raise the precision until they do). Independent of mpmath: different library, different
argument reduction, different precision schedule.

>>> from fractions import Fraction
>>> from sinpe.spec import get_profile
>>> vas = get_profile("vaswani")
>>> rounded_table(vas, 4, [1], "binary64").tolist()   # sin 1, cos 1, sin 0.01, cos 0.01
[[0.8414709848078965, 0.5403023058681398, 0.009999833334166664, 0.9999500004166653]]
>>> rounded_table(vas, 2, [65504, 10**7], "binary16").tolist()  # mpmath: sin 65504 = 0.975376..., cos 1e7 = -0.907270...
[[0.9755859375, -0.2205810546875], [0.420654296875, -0.9072265625]]
>>> ball = enclose(vas, 512, Fraction(10**7), 3, prec=200)
>>> ball.rad() < arb(2) ** -150   # |theta| ~ 1e7 costs about 24 of the 200 bits
True
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Iterable, Sequence

import mpmath
import numpy as np
from flint import arb, ctx

from sinpe.spec.definition import columns, frequency, phase, value
from sinpe.spec.formats import Format, get_format
from sinpe.spec.profiles import Profile, to_fraction

from .rounding import exact_mpf, round_to_format, ulp

MAX_PREC = 1 << 14  # bits; reached only by values within 2^-16000 of a rounding boundary


class ArbBackend:
    """Arb at the current ``flint.ctx.prec``."""

    zero = arb(0)

    @staticmethod
    def num(x: Fraction) -> Any:
        return arb(x.numerator) / x.denominator if x.denominator != 1 else arb(x.numerator)

    @staticmethod
    def sin(x: Any) -> Any:
        return x.sin()

    @staticmethod
    def cos(x: Any) -> Any:
        return x.cos()

    @staticmethod
    def pow(base: Any, e: Any) -> Any:
        return base ** e


ARB = ArbBackend()


def _guess(m: float, f: Format) -> float:
    """A cheap candidate for RN_f(x) from a float64 near x (possibly wrong: it is verified)."""
    if f.name == "binary64":
        return m
    if f.name in ("binary32", "binary16"):
        with np.errstate(over="ignore"):  # an overflow guess (inf) is rejected and redone exactly
            return float(np.float32(m) if f.name == "binary32" else np.float16(m))
    return round_to_format(m, f)


def _rounds_to(v: arb, g: float, f: Format) -> bool:
    """True iff every point of ball ``v`` rounds to ``g`` in format ``f`` (ties excluded: retried)."""
    import math
    if not math.isfinite(g):
        return False
    up = ulp(g, f)
    # below a power of two the gap halves (except in the subnormal range)
    down = up / 2 if (g != 0 and math.frexp(abs(g))[0] == 0.5 and abs(g) > 2.0 ** f.emin) else up
    lo_gap, hi_gap = (down, up) if g > 0 else (up, down) if g < 0 else (up, up)
    diff = v - arb(g)
    return bool(diff > -arb(lo_gap) / 2 and diff < arb(hi_gap) / 2)


def _endpoints(x: arb) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The ball's ends as exact mpmath numbers (mid -/+ rad, computed without rounding)."""
    man, exp = x.mid().man_exp()
    rman, rexp = x.rad().man_exp()
    mid = exact_mpf(int(man), int(exp))
    rad = exact_mpf(int(rman), int(rexp))
    return mpmath.fsub(mid, rad, exact=True), mpmath.fadd(mid, rad, exact=True)


def _positions(positions: Iterable[Any]) -> list[Fraction]:
    out = []
    for p in np.asarray(positions, dtype=object).ravel().tolist() if isinstance(positions, np.ndarray) else positions:
        out.append(to_fraction(p, "position"))
    return out


def _start_prec(p: Fraction, profile: Profile) -> int:
    # guard bits for the argument reduction: |theta| up to ~|sigma (p+o)|, plus headroom
    mag = abs(profile.phase_scale * (p + profile.offset))
    return 96 + max(0, int(mag).bit_length())


def enclose(profile: Profile, d: int, p: Fraction, j: int, prec: int) -> arb:
    """A ball containing PE_profile(p)[j], computed at ``prec`` bits."""
    col = columns(profile, d)[j]
    old = ctx.prec
    ctx.prec = prec
    try:
        if col.kind == "zero":
            return arb(0)
        return value(col, phase(profile, d, col.k, p, ARB), profile, ARB)
    finally:
        ctx.prec = old


def rounded_tables(profile: Profile, d: int, positions: Sequence[Any],
                   fmts: Sequence[str | Format], only: Sequence[int] | None = None) -> dict[str, np.ndarray]:
    """Correctly rounded tables, one per format: ``{format name: float64 array (rows, d)}``.

    Each entry is the format value nearest to PE(p)[j] (ties to even); float64 holds it exactly.
    ``only`` restricts the output to those columns, in that order (shape (rows, len(only))).
    """
    formats = [f if isinstance(f, Format) else get_format(f) for f in fmts]
    pos = _positions(positions)
    plan = columns(profile, d)
    js = list(range(d)) if only is None else [int(j) for j in only]
    cols = [plan[j] for j in js]
    out = {f.name: np.empty((len(pos), len(js)), dtype=np.float64) for f in formats}
    old = ctx.prec
    freqs: dict[tuple[int, int], arb] = {}  # (prec, k) -> w_k: computed once, not per position
    try:
        for r, p in enumerate(pos):
            prec = _start_prec(p, profile)
            pending = list(range(len(js)))
            while pending:
                ctx.prec = prec
                cache: dict[int, tuple[arb, arb]] = {}
                retry = []
                for j in pending:
                    col = cols[j]
                    if col.kind == "zero":
                        for f in formats:
                            out[f.name][r, j] = 0.0
                        continue
                    if col.k not in cache:
                        w = freqs.get((prec, col.k))
                        if w is None:
                            w = freqs[(prec, col.k)] = frequency(profile, d, col.k, ARB)
                        th = phase(profile, d, col.k, p, ARB, w=w)
                        s, c = th.sin_cos()
                        cache[col.k] = (s, c)
                    s, c = cache[col.k]
                    v = s if col.kind == "sin" else c
                    if profile.amplitude != 1:
                        v = ARB.num(profile.amplitude) * v
                    m = float(v.mid())
                    ok = True
                    for f in formats:
                        g = _guess(m, f)
                        if not _rounds_to(v, g, f):
                            lo, hi = _endpoints(v)  # slow exact path: the guess was off or the ball too wide
                            g = round_to_format(lo, f)
                            if g != round_to_format(hi, f):
                                ok = False
                                break
                        out[f.name][r, j] = g
                    if not ok:
                        retry.append(j)
                pending = retry
                if pending:
                    prec *= 2
                    if prec > MAX_PREC:
                        raise ArithmeticError(f"Ziv loop did not settle at {MAX_PREC} bits for position {p}, "
                                              f"columns {pending[:5]}")
    finally:
        ctx.prec = old
    return out


def rounded_table(profile: Profile, d: int, positions: Sequence[Any], fmt: str | Format) -> np.ndarray:
    """The correctly rounded table in one format (float64 array holding the format's values exactly)."""
    f = fmt if isinstance(fmt, Format) else get_format(fmt)
    return rounded_tables(profile, d, positions, [f])[f.name]


def reference_f64(profile: Profile, d: int, positions: Sequence[Any]) -> np.ndarray:
    """PE correctly rounded to binary64."""
    return rounded_table(profile, d, positions, "binary64")


def phases_f64(profile: Profile, d: int, positions: Sequence[Any]) -> np.ndarray:
    """theta for each entry, correctly rounded to binary64 (0 where the column is identically zero)."""
    pos = _positions(positions)
    cols = columns(profile, d)
    out = np.zeros((len(pos), d), dtype=np.float64)
    old = ctx.prec
    try:
        for r, p in enumerate(pos):
            ctx.prec = _start_prec(p, profile) + 64
            th: dict[int, float] = {}
            for j, col in enumerate(cols):
                if col.kind == "zero":
                    continue
                if col.k not in th:
                    lo, hi = _endpoints(phase(profile, d, col.k, p, ARB))
                    th[col.k] = round_to_format(lo, "binary64")
                out[r, j] = th[col.k]
    finally:
        ctx.prec = old
    return out
