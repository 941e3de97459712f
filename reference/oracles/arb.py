"""The second oracle (SPEC.md REQ-GOLDEN-ORACLE): DEF-PE in python-flint Arb ball arithmetic.

Arb balls are rigorous: the true value lies in [mid - rad, mid + rad]. A value is *correctly
rounded* to a format once both ends of its ball round to the same format value (Ziv's strategy:
raise the precision until they do). Independent of mpmath: different library, different
argument reduction, different precision schedule. Tables are settled a row at a time: a NumPy
guess per format, then a rigorous test that the ball lies strictly between the rounding
boundaries around the guess (:func:`_decide`); the exact comparison of both ends decides the rest.

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

from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from flint import arb, ctx

from sinpe.reference.numerics.rounding import exact_mpf, round_to_format
from sinpe.spec.definition import ColumnData, column_data, frequency, phase, value
from sinpe.spec.formats import Format, get_format
from sinpe.spec.profiles import Profile, to_fraction

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


def _start_prec(p: Fraction, cd: ColumnData) -> int:
    # guard bits for the argument reduction: |theta| up to ~|sigma (p+o)|, plus headroom
    mag = abs(cd.scale * (p + cd.offset))
    return 96 + max(0, int(mag).bit_length())


def enclose(profile: Profile, d: int, p: Fraction, j: int, prec: int) -> arb:
    """A ball containing PE_profile(p)[j], computed at ``prec`` bits."""
    cd = column_data(profile, d)
    kind, k = cd.kinds[j], cd.labels[j]
    old = ctx.prec
    ctx.prec = prec
    try:
        if kind == "zero":
            return arb(0)
        return value(cd, kind, phase(cd, k, p, ARB, w=_frequency(cd, k, prec)), ARB)
    finally:
        ctx.prec = old


def _half_gaps(g: np.ndarray, f: Format) -> tuple[np.ndarray, np.ndarray]:
    """Half the distances from each candidate g of format f to its neighbours below and above
    (powers of two): every x with g - below < x < g + above rounds to g (round to nearest).

    The gap above |g| is ulp(g); below |g| it is ulp(g)/2 when |g| is a power of two above the
    subnormal range (mirrored for g < 0). Mirrors ``rounding.ulp`` in NumPy.
    """
    P, emin = f.precision, f.emin
    m, e = np.frexp(g)
    E = np.maximum(e.astype(np.int64) - 1, emin)
    up = np.ldexp(1.0, E - P)  # ulp / 2
    down = np.where((np.abs(m) == 0.5) & (np.abs(g) > 2.0 ** emin), up / 2, up)
    neg = g < 0
    return np.where(neg, up, down), np.where(neg, down, up)


def _candidates(m: np.ndarray, f: Format) -> np.ndarray:
    """A cheap guess at RN_f for float64 values m (ties to even at f's precision; it is only a
    guess: :func:`_decide` verifies it)."""
    if f.precision >= 53:
        return m.copy()
    mm, e = np.frexp(m)
    E = np.maximum(e.astype(np.int64) - 1, f.emin)
    q = E - (f.precision - 1)
    with np.errstate(over="ignore", invalid="ignore"):
        v = np.ldexp(np.rint(np.ldexp(m, -q)), q)
        return np.where(np.abs(v) > f.max_finite, np.copysign(np.inf, m), v)


def _decide(vals: Sequence[arb], formats: Sequence[Format]) -> tuple[np.ndarray, np.ndarray]:
    """Correctly rounded values of the balls ``vals`` in each format, where a cheap rigorous test
    suffices: ``(out (n, formats), ok (n,))``; rows with ``ok`` False need :func:`_slow`.

    The test never relies on how ``float(arb)`` rounds, only that it is monotone and exact on
    float64 numbers: for a float64 boundary B, ``float(lower) > B`` implies ``lower > B``. So
    for a format of at most 52 bits (its boundaries are float64 numbers) the ball lies strictly
    between the boundaries around the candidate when ``float(lower) > B_lo`` and
    ``float(upper) < B_hi``. For binary64 (boundaries need 54 bits) the same test runs on the
    Arb difference ball - g, against +-gap/2, which are powers of two.
    """
    n = len(vals)
    out = np.empty((n, len(formats)))
    los = [v.lower() for v in vals]
    his = [v.upper() for v in vals]
    lf = np.array([float(x) for x in los])
    hf = np.array([float(x) for x in his])
    finite = np.isfinite(lf) & np.isfinite(hf)
    mid = np.where(finite, (lf * 0.5 + hf * 0.5), 0.0)
    ok = finite & (mid != 0)  # zeros (signed) and non-finite values: the exact path
    for i, f in enumerate(formats):
        g = _candidates(mid, f)
        out[:, i] = g
        ok &= np.isfinite(g) & (g != 0)
        if f.precision <= 52 and f.emin >= -1022 and f.emax <= 1023:
            with np.errstate(invalid="ignore"):
                below, above = _half_gaps(g, f)
                ok &= (lf > g - below) & (hf < g + above)  # g -+ gap/2 have at most 53 bits: exact
        elif f.precision == 53 and f.emin == -1022 and f.emax == 1023:
            ok &= np.abs(g) >= 2.0 ** -1022
            idx = np.flatnonzero(ok)
            if idx.size:
                gi = g[idx]
                below, above = (x.tolist() for x in _half_gaps(gi, f))
                gl = gi.tolist()
                for t, r in enumerate(idx.tolist()):
                    dlt = vals[r] - arb(gl[t])  # a ball containing v - g exactly (Arb's subtraction is rigorous)
                    if not (float(dlt.lower()) > -below[t] and float(dlt.upper()) < above[t]):
                        ok[r] = False
        else:
            ok[:] = False
    return out, ok


def _slow(v: arb, formats: Sequence[Format]) -> list[float] | None:
    """The exact path: both ends of the ball as mpmath numbers, rounded by round_to_format;
    None if some format rounds them differently (the Ziv loop raises the precision). As before
    the fast path existed, ends that round to -0.0 and +0.0 count as equal and the zero takes the
    sign of the midpoint (+0.0 for a midpoint 0): a ball around an exact zero (p + offset = 0 with
    a non-dyadic offset) never shrinks to a point. That sign is not certified by the ball; the
    bitwise comparison with the primary is what checks it."""
    lo, hi = _endpoints(v)
    res = []
    for f in formats:
        g = round_to_format(lo, f)
        if g != round_to_format(hi, f):
            return None
        if g == 0:
            g = -0.0 if float(v.mid()) < 0 else 0.0
        res.append(g)
    return res


class _Theta:
    """A phase ball whose sin and cos are computed together (``arb.sin_cos``) on first use."""

    __slots__ = ("x", "sc")

    def __init__(self, x: arb) -> None:
        self.x = x
        self.sc: tuple[arb, arb] | None = None

    def sin_cos(self) -> tuple[arb, arb]:
        if self.sc is None:
            self.sc = self.x.sin_cos()
        return self.sc


class _SinCosBackend(ArbBackend):
    """ARB whose sin and cos of a :class:`_Theta` share one ``sin_cos``."""

    @staticmethod
    def sin(x: Any) -> Any:
        return x.sin_cos()[0] if isinstance(x, _Theta) else x.sin()

    @staticmethod
    def cos(x: Any) -> Any:
        return x.sin_cos()[1] if isinstance(x, _Theta) else x.cos()


_SC = _SinCosBackend()


_FREQS: dict[tuple, dict[int, arb]] = {}


def _frequencies(cd: ColumnData, prec: int) -> dict[int, arb]:
    """The cache of w_k balls at ``prec`` bits for the column data: ``{k: w_k}`` (arb values are immutable)."""
    key = (cd, prec)
    ws = _FREQS.get(key)
    if ws is None:
        if len(_FREQS) > 2000:
            _FREQS.clear()
        ws = _FREQS[key] = {}
    return ws


def _frequency(cd: ColumnData, k: int, prec: int, ws: dict[int, arb] | None = None) -> arb:
    """w_k as an Arb ball at ``prec`` bits, cached; ``ws``: the :func:`_frequencies` dict, if at hand."""
    if ws is None:
        ws = _frequencies(cd, prec)
    w = ws.get(k)
    if w is None:
        old = ctx.prec
        ctx.prec = prec
        try:
            w = ws[k] = frequency(cd, k, ARB)
        finally:
            ctx.prec = old
    return w


def rounded_tables(profile: Profile, d: int, positions: Sequence[Any],
                   fmts: Sequence[str | Format], only: Sequence[int] | None = None) -> dict[str, np.ndarray]:
    """Correctly rounded tables, one per format: ``{format name: float64 array (rows, d)}``.

    Each entry is the format value nearest to PE(p)[j] (ties to even); float64 holds it exactly.
    ``only`` restricts the output to those columns, in that order (shape (rows, len(only))).
    Each distinct (frequency, sin/cos) of a row is one Arb ball; :func:`_decide` settles the
    balls of a row at once, :func:`_slow` the rest, and the Ziv loop raises the precision for
    the ones neither settles.
    """
    formats = [f if isinstance(f, Format) else get_format(f) for f in fmts]
    pos = _positions(positions)
    cd = column_data(profile, d)
    plan = cd.columns
    js = list(range(d)) if only is None else [int(j) for j in only]
    cols = [plan[j] for j in js]
    need = sorted({(c.k, c.kind) for c in cols if c.kind != "zero"})
    out = {f.name: np.empty((len(pos), len(js)), dtype=np.float64) for f in formats}
    old = ctx.prec
    # w_k at the highest start precision the call needs (a more accurate w only tightens the balls)
    wprec = max((_start_prec(p, cd) for p in pos), default=96)
    ws0 = _frequencies(cd, wprec)
    freqs0: dict[int, arb] | None = None
    zero_vals = None
    try:
        for r, p in enumerate(pos):
            prec = _start_prec(p, cd)
            pending = need
            got: dict[tuple[int, str], list[float]] = {}
            while pending:
                wp = max(prec, wprec)
                if wp == wprec:  # the first pass of every row: w_k from one dict for the whole call
                    if freqs0 is None:
                        freqs0 = {k: _frequency(cd, k, wp, ws0) for k in {k for k, _ in need}}
                    freqs = freqs0
                else:
                    ws = _frequencies(cd, wp)
                    freqs = {k: _frequency(cd, k, wp, ws) for k in {k for k, _ in pending}}
                ctx.prec = prec
                pa = ARB.num(p)
                ths: dict[int, _Theta] = {}
                vals = []
                for k, kind in pending:
                    th = ths.get(k)
                    if th is None:
                        th = ths[k] = _Theta(phase(cd, k, pa, ARB, w=freqs[k]))
                    vals.append(value(cd, kind, th, _SC))
                res, ok = _decide(vals, formats)
                rows = res.tolist()
                retry = []
                for i, key in enumerate(pending):
                    if ok[i]:
                        got[key] = rows[i]
                        continue
                    if vals[i].is_zero():  # exactly 0 (sin 0): +0.0 in every format
                        got[key] = [0.0] * len(formats)
                        continue
                    slow = _slow(vals[i], formats)
                    if slow is None:
                        retry.append(key)
                    else:
                        got[key] = slow
                pending = retry
                if pending:
                    prec *= 2
                    if prec > MAX_PREC:
                        raise ArithmeticError(f"Ziv loop did not settle at {MAX_PREC} bits for position {p}, "
                                              f"values {pending[:5]}")
            rows_r = []
            for col in cols:
                if col.kind == "zero":
                    if zero_vals is None:
                        zero_vals = _slow(value(cd, "zero", None, ARB), formats)
                    rows_r.append(zero_vals)
                else:
                    rows_r.append(got[(col.k, col.kind)])
            if rows_r:
                block = np.array(rows_r, dtype=np.float64)
                for fi, f in enumerate(formats):
                    out[f.name][r] = block[:, fi]
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
    cd = column_data(profile, d)
    cols = cd.columns
    out = np.zeros((len(pos), d), dtype=np.float64)
    old = ctx.prec
    try:
        for r, p in enumerate(pos):
            ctx.prec = _start_prec(p, cd) + 64
            th: dict[int, float] = {}
            for j, col in enumerate(cols):
                if col.kind == "zero":
                    continue
                if col.k not in th:
                    lo, hi = _endpoints(phase(cd, col.k, p, ARB))
                    th[col.k] = round_to_format(lo, "binary64")
                out[r, j] = th[col.k]
    finally:
        ctx.prec = old
    return out
