"""Fast accurate reference for big tables (SPEC.md REQ-CHECK-FASTREF): PE in NumPy to about 1 ulp of binary64.

The certified oracle (:mod:`sinpe.reference.oracles.arb`) costs milliseconds per entry; a
32768 x 4096 table needs nanoseconds. This module evaluates the same definition
(:mod:`sinpe.spec.definition`: the column plan, the exact exponents) with error-free float64
transformations instead of wide numbers:

1. The constant of each frequency, ``g_k = phase_scale * w_k / (2 pi)`` (turns per unit of
   position), is stored as four words ``g1 + g2 + g3 + g4``, g1, g2 and g3 of 27 significant bits each: the
   roundings mpmath at 320 bits gives, read off 50-digit decimals where those decide them
   (:func:`frequency_words`).
2. The position ``P = p + offset`` is a double-double ``P_hi + P_lo``; P_hi is split (Dekker) into two
   halves of at most 26 bits. Every product ``half * g1`` and ``half * g2`` is then exact
   (26 + 27 <= 53 bits) and so is subtracting its nearest integer (likewise the small products with g3). The whole turns are dropped
   exactly: this is argument reduction modulo 2 pi with a multi-word constant, no rounding in the
   big part. What is left, ``t`` in [-1/2, 1/2] turns, is summed as a double-double.
3. ``r = t * 2 pi`` as a double-double (Dekker product with a two-word 2 pi), then
   ``sin(P w) = sin(r_hi) + cos(r_hi) r_lo`` and ``cos(P w) = cos(r_hi) - sin(r_hi) r_lo``
   (libm's sin/cos on [-pi, pi] are accurate to within an ulp).

The result is within 1 ulp of binary64 of the exact value on every sample checked against the Arb
oracle (``tests/test_fastref.py``: every preset, positions up to 2^53 - 1; a wider run of 201 950
entries, d in {64, 513}, positions up to 2^40: max 1 ulp, 78.6 % correctly rounded); the bound
:func:`error_bound` that decisions rely on allows 4 ulp plus a term for huge positions. Integer
positions below 2^26 take a shorter exact path (P_hi has one half).

>>> from sinpe.spec.profiles import get_profile
>>> import numpy as np
>>> v, th = table_f64(get_profile("vaswani"), 4, np.array([0.0, 1.0, 1e7]))
>>> v[1].tolist()   # sin 1, cos 1, sin 0.01, cos 0.01 (correctly rounded: see oracles/arb.py's doctest)
[0.8414709848078965, 0.5403023058681398, 0.009999833334166664, 0.9999500004166653]
>>> float(v[2, 0])  # sin(10^7); mpmath at 50 digits: 0.42054779319078249129...
0.4205477931907825
>>> th[2].tolist()
[10000000.0, 10000000.0, 100000.0, 100000.0]
"""
from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any, TypeVar

import numpy as np

from sinpe.spec.definition import ColumnData, column_data
from sinpe.spec.profiles import Profile

_F = TypeVar("_F", np.ndarray, float)  # what :func:`_split` splits: an array or a number
_SPLIT = 134217729.0  # 2^27 + 1: Dekker's splitter for binary64 (hi gets 26 bits, lo 26 bits)
_BLOCK = 1 << 15  # entries per inner block: the temporaries stay in L2 cache
ERROR_ULPS = 4.0  # decisions allow this many binary64 ulps of reference error (measured: <= 1)


@lru_cache(maxsize=64)
def frequency_words(cd: ColumnData) -> np.ndarray:
    """Array (7, n_freq): rows g1, g2, g3, g4 (g_k = scale * w_k / (2 pi), w_k = base^(-e_k) of the column
    data), w_hi = fl(scale * w_k), fl(g3 + g4), fl(g1 + g2).

    g1, g2, g3 are g_k's successive roundings to 27 bits and g4 the rest's to 53, w_hi scale * w_k's (to nearest,
    ties to even): the roundings of g_k and scale * w_k themselves, as mpmath at 320 bits gives them
    (:func:`_words_mp`). They are read off 50-digit decimals (:func:`_words_decimal`: Python's decimal module, whose
    ln and exp are correctly rounded) wherever the decimals' error bound leaves every rounding decided, and come
    from mpmath otherwise (a value within about 10^-45 of its own of a rounding boundary): the same words, without
    importing mpmath for nearly every table (issue 28.1).

    >>> from sinpe.spec.definition import column_data
    >>> from sinpe.spec.profiles import get_profile
    >>> fw = frequency_words(column_data(get_profile("vaswani"), 4))
    >>> fw[4].tolist()
    [1.0, 0.01]
    >>> import mpmath; mpmath.mp.prec = 200
    >>> g = mpmath.mpf("0.005") / mpmath.pi   # w_1 / (2 pi) at d = 4
    >>> abs(sum(mpmath.mpf(x) for x in fw[:4, 1]) - g) < g * mpmath.mpf(2) ** -130
    True
    >>> mpmath.mp.prec = 53
    """
    n = cd.n_frequencies
    out = np.empty((7, n), dtype=np.float64)
    for k, e in enumerate(cd.exponents):
        out[:5, k] = _words_decimal(cd.scale, cd.base, e) or _words_mp(cd.scale, cd.base, e)
    out[5] = out[2] + out[3]  # g3 + g4 and g1 + g2: the tails' multipliers
    out[6] = out[0] + out[1]
    out.setflags(write=False)
    return out


_DIGITS = 50
# 1/(2 pi) to 80 digits (mpmath at 300 bits; tests/test_fastref.py recomputes it)
_INV_TWO_PI = "0.15915494309189533576888376337251436203445964574045644874766734405889679763422654"


def _words_decimal(scale: Fraction, base: Fraction, e: Fraction) -> tuple[float, ...] | None:
    """(g1, g2, g3, g4, w_hi) of one frequency from decimals at 50 digits, or None where a rounding is not decided.

    Each operation rounds correctly, to within u = 10^-49 / 2 of itself: with t = |e ln base|, w = base^-e is
    within 6 u (|e| + t + 2) of itself, and so are scale * w and g (two more products and 1/(2 pi), to 80 digits);
    the bound taken is twice that.

    Every field of the context is set here (the caller's decimal.DefaultContext is not read), and a result beyond
    its range or below its normal range (a subnormal keeps fewer than 50 digits) raises: mpmath decides then."""
    from decimal import ROUND_HALF_EVEN, Context, Decimal, DivisionByZero, InvalidOperation, Overflow, Subnormal, Underflow

    ctx = Context(prec=_DIGITS, rounding=ROUND_HALF_EVEN, Emin=-999_999, Emax=999_999, capitals=1, clamp=0, flags=[],
                  traps=[InvalidOperation, DivisionByZero, Overflow, Underflow, Subnormal])
    dec = lambda x: ctx.divide(Decimal(x.numerator), Decimal(x.denominator))
    try:  # (a value beyond the decimals' range, a power that overflows or underflows, an exponent beyond
        # binary64 in the bound: mpmath decides)
        te = ctx.multiply(ctx.minus(dec(e)), ctx.ln(dec(base))) if e != 0 else Decimal(0)
        sw = ctx.multiply(dec(scale), ctx.exp(te))
        g = ctx.multiply(sw, Decimal(_INV_TWO_PI))
        bound = 12 * (10.0 ** (1 - _DIGITS) / 2) * (abs(float(e)) + abs(float(te)) + 2)
    except ArithmeticError:
        return None
    if not math.isfinite(bound) or not g.is_finite() or g == 0:
        return None
    words: list[float] = []
    rest, fix = _fixed(*g.as_integer_ratio())
    err = _err_units(rest, bound)
    for bits in (27, 27, 27, 53):
        word = _word(rest, fix, bits, err)
        if word is None:
            return None
        words.append(math.ldexp(word, -fix))
        rest -= word
    sw_n, sw_fix = _fixed(*sw.as_integer_ratio())
    w_hi = _word(sw_n, sw_fix, 53, _err_units(sw_n, bound))
    return None if w_hi is None else (*words, math.ldexp(w_hi, -sw_fix))


_FIX = 280  # bits of the fixed point below a value's leading bit: its truncation (one unit) is below 2^-279 of it


def _fixed(num: int, den: int) -> tuple[int, int]:
    """(n, f) with n = num / den 2^f truncated (one unit at most) and |n| about 2^_FIX (den > 0, num != 0)."""
    f = _FIX - (abs(num).bit_length() - den.bit_length())
    a = (abs(num) << f) // den if f >= 0 else abs(num) // (den << -f)
    return (a if num > 0 else -a), f


def _err_units(n: int, rel: float) -> int:
    """An integer bound, in units, on |v - n| for every v within ``rel`` of n's value (taken to one unit)."""
    return int(rel * (abs(n) + 1) * (1 + 2.0 ** -40)) + 2


def _word(n: int, fix: int, bits: int, err: int) -> int | None:
    """:func:`_nearest` of n (units of 2^-fix) where its value is a normal binary64 magnitude, 2^-1000 to 2^1000."""
    k = abs(n).bit_length() - 1 - fix  # 2^k <= |n| 2^-fix < 2^(k + 1)
    return _nearest(n, bits, err) if -1000 <= k < 1000 else None


def _nearest(n: int, bits: int, err: int) -> int | None:
    """n rounded to ``bits`` significant bits (to nearest, ties to even) when every value within ``err`` of n (an
    integer, as n) rounds to it; else None. (Just above 2^k the grid below is twice as fine: a value more than a
    quarter of n's ulp under 2^k rounds down, so err may not reach that far.)

    >>> _nearest(41, 3, 1), _nearest(44, 3, 1), _nearest(-33, 3, 2), _nearest(33, 3, 3)
    (40, None, -32, None)
    """
    a = abs(n)
    sh = a.bit_length() - bits  # a >> sh in [2^(bits-1), 2^bits)
    if a <= err or sh <= 0:  # (sh <= 0: one unit is an ulp or more, and err >= 1)
        return None
    q, r, half = a >> sh, a & ((1 << sh) - 1), 1 << (sh - 1)
    if abs(r - half) <= err or q == 1 << (bits - 1) and 4 * (r - err) <= -(1 << sh):
        return None  # a rounding boundary within err, or values below 2^k that round down (the finer grid)
    q += r > half
    return (q if n > 0 else -q) << sh


def _words_mp(scale: Fraction, base: Fraction, e: Fraction) -> tuple[float, ...]:
    """(g1, g2, g3, g4, w_hi) of one frequency by mpmath at 320 bits: the definition :func:`_words_decimal` agrees
    with wherever it answers."""
    import mpmath

    with mpmath.workprec(320):
        inv_two_pi = 1 / (2 * mpmath.pi)
        sigma = mpmath.mpf(scale.numerator) / scale.denominator
        b = mpmath.mpf(base.numerator) / base.denominator
        w = sigma * (mpmath.power(b, -mpmath.mpf(e.numerator) / e.denominator) if e != 0 else 1)
        rest = w * inv_two_pi
        words = []
        for i in range(4):
            word = _round_bits(rest, 27) if i < 3 else mpmath.mpf(float(rest))
            words.append(float(word))
            rest = rest - word
        return (*words, float(w))


def _round_bits(x: Any, bits: int) -> Any:
    import mpmath
    if x == 0:
        return mpmath.mpf(0)
    with mpmath.workprec(bits):
        return +x


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, e


def _split(a: _F) -> tuple[_F, _F]:
    """a = hi + lo exactly, each half of 26 bits (Veltkamp), for an array or a number."""
    c = _SPLIT * a
    hi = c - (c - a)
    return hi, a - hi


def split_into(x: np.ndarray, hi: np.ndarray, lo: np.ndarray) -> None:
    """:func:`_split` in place: x = hi + lo exactly, each half of 26 bits (Veltkamp; ``hi`` and ``lo`` are
    preallocated buffers of x's shape, distinct from x)."""
    np.multiply(x, _SPLIT, out=hi)  # c
    np.subtract(hi, x, out=lo)      # c - x
    np.subtract(hi, lo, out=hi)     # hi = c - (c - x)
    np.subtract(x, hi, out=lo)      # lo = x - hi


def two_product_into(a: np.ndarray, ah: np.ndarray, al: np.ndarray, b: np.ndarray | float, bh: np.ndarray | float,
                     bl: np.ndarray | float, p: np.ndarray, err: np.ndarray, t: np.ndarray) -> None:
    """p + err = a * b exactly (Dekker; ah + al and bh + bl the 26-bit halves of :func:`split_into`; ``t`` a
    scratch buffer; broadcasting)."""
    np.multiply(a, b, out=p)
    np.multiply(ah, bh, out=err)
    err -= p
    np.multiply(ah, bl, out=t)
    err += t
    np.multiply(al, bh, out=t)
    err += t
    np.multiply(al, bl, out=t)
    err += t


# 2 pi = TWO_PI_HI + TWO_PI_LO within 2^-106 (each rounded to nearest: mpmath at 200 bits gives these bits, and
# tests/test_tables.py recomputes them)
TWO_PI_HI = float.fromhex("0x1.921fb54442d18p+2")
TWO_PI_LO = float.fromhex("0x1.1a62633145c07p-52")
_TWO_PI_HALVES = _split(TWO_PI_HI)
_TWO_PI = (TWO_PI_HI, TWO_PI_LO, *_TWO_PI_HALVES)


def _two_pi() -> tuple[float, float, float, float]:
    """2 pi as hi + lo, and hi split into two 26-bit halves."""
    return _TWO_PI


def positions_dd(positions: Any, offset: Fraction) -> tuple[np.ndarray, np.ndarray]:
    """P = p + offset as a double-double (hi, lo); ``positions`` float64/int array or Fractions.

    >>> [float(x[0]) for x in positions_dd([Fraction(1, 3)], Fraction(0))]
    [0.3333333333333333, 1.850371707708594e-17]
    """
    if isinstance(positions, np.ndarray) and positions.dtype.kind in "fiu":
        p_hi = positions.astype(np.float64, copy=False).ravel()
        if positions.dtype.kind in "iu" and np.any(p_hi.astype(positions.dtype) != positions.ravel()):
            raise ValueError("integer positions beyond 2^53 are not exact in binary64")
        p_lo = np.zeros_like(p_hi)
    else:
        fr = [Fraction(x) for x in np.asarray(positions, dtype=object).ravel().tolist()]
        p_hi = np.array([float(x) for x in fr], dtype=np.float64)
        p_lo = np.array([float(x - Fraction(float(x))) for x in fr], dtype=np.float64)
    if offset != 0:
        o_hi = float(offset)
        o_lo = float(offset - Fraction(o_hi))
        p_hi, e = _two_sum(p_hi, np.full_like(p_hi, o_hi))
        p_lo = p_lo + e + o_lo
        p_hi, p_lo = _two_sum(p_hi, p_lo)
    if not np.all(np.isfinite(p_hi)):
        raise ValueError("positions must be finite")
    return p_hi, p_lo


def _two_sum_into(a: np.ndarray, b: np.ndarray, s: np.ndarray, e: np.ndarray, t: np.ndarray) -> None:
    """s + e = a + b exactly (Knuth); s, e, t distinct from a; t distinct from everything."""
    np.add(a, b, out=s)
    np.subtract(s, a, out=t)
    np.subtract(b, t, out=e)
    np.subtract(s, t, out=t)
    np.subtract(a, t, out=t)
    e += t


def turns_block(P_hi: np.ndarray, P_lo: np.ndarray | None, P2: np.ndarray | None, fw: np.ndarray,
                ws: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Steps 1-2 for a block: ``(x, y)``, views into ``ws``, with x + y = P * g_k mod 1 in [-1/2, 1/2] turns.

    P_* have shape (rows, 1), fw (7, nf); P_hi must already be the 26-bit high half when P2 (the low
    half) is given. ``ws`` holds six scratch arrays (rows, nf); x and y live in two of them and the
    other four are free again on return. |y| <= ulp(x) / 2.
    """
    g1, g2, g3, g4, g34, g12 = fw[0], fw[1], fw[2], fw[3], fw[5], fw[6]
    x, y, s, e, t, u = ws
    # whole turns of the exact products: x - rint(x) is exact (x and rint(x) share the ulp grid)
    np.multiply(P_hi, g1, out=x)
    np.rint(x, out=t)
    x -= t
    np.multiply(P_hi, g2, out=y)
    np.rint(y, out=t)
    y -= t
    _two_sum_into(x, y, s, e, t)
    if P2 is not None:
        # exact products, each below one turn after reduction; summed error-free into (s, e)
        for half, g, reduce in ((P2, g1, True), (P_hi, g3, False), (P2, g2, False)):
            np.multiply(half, g, out=x)
            if reduce:
                np.rint(x, out=t)
                x -= t
            _two_sum_into(s, x, y, u, t)
            e += u
            s, y = y, s
        np.multiply(P2, g34, out=u)
        e += u
        np.multiply(P_hi, g4, out=u)
    else:
        np.multiply(P_hi, g34, out=u)
    e += u
    if P_lo is not None:
        np.multiply(P_lo, g12, out=u)
        e += u
    np.rint(s, out=t)
    s -= t
    _two_sum_into(s, e, x, y, t)  # t = x + y turns, |t| <= 1/2
    return x, y


def _sincos_block(P_hi: np.ndarray, P_lo: np.ndarray | None, P2: np.ndarray | None, fw: np.ndarray,
                  S: np.ndarray, C: np.ndarray, ws: list[np.ndarray]) -> None:
    """S, C = sin and cos of P * w for a block, in place; P_* have shape (rows, 1), fw (7, nf).

    P_hi must already be the 26-bit high half when P2 (the low half) is given. ``ws`` holds six
    scratch arrays of S's shape: every step writes into them (no allocation inside the loop).
    """
    x, y = turns_block(P_hi, P_lo, P2, fw, ws)
    s, e, t, u = [w for w in ws if w is not x and w is not y]
    # r = t * 2pi in [-pi, pi] as a double-double (Dekker product with a two-word 2pi)
    H, Hlo, Hh, Hl = _two_pi()
    np.multiply(x, H, out=s)  # r_hi
    split_into(x, e, t)  # high and low halves of t_hi
    np.multiply(e, Hh, out=u)
    u -= s
    e *= Hl
    u += e
    np.multiply(t, Hh, out=e)
    u += e
    t *= Hl
    u += t
    np.multiply(x, Hlo, out=e)
    u += e
    np.multiply(y, H, out=e)
    u += e  # r_lo
    np.sin(s, out=S)
    np.cos(s, out=C)
    # first-order correction for r_lo (|r_lo| <= 2^-51 pi: the second-order term is below 2^-103)
    np.multiply(C, u, out=x)
    np.multiply(S, u, out=y)
    S += x
    C -= y


def sincos(cd: ColumnData, positions: Any, out: tuple[np.ndarray, np.ndarray] | None = None,
           theta: bool = True, workspace: dict[str, Any] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``(S, C, theta)``, arrays (rows, n_freq): sin and cos of theta_k(p) to ~1 ulp, theta ~ fl(theta).

    Column j of the table is ``amplitude * S[:, k_j]`` or ``... C[:, k_j]`` or 0 (``cd.kinds``, ``cd.labels``).
    ``out`` may pass preallocated (S, C) arrays; ``theta=False`` skips theta (returned as None);
    ``workspace`` (a dict kept by the caller) keeps the scratch arrays between calls.
    """
    fw = frequency_words(cd)
    P_hi, P_lo = positions_dd(positions, cd.offset)
    P1, P2 = _split(P_hi)
    two_halves = bool(np.any(P2))
    has_lo = bool(np.any(P_lo))
    nf = fw.shape[1]
    rows = P_hi.shape[0]
    S, C = out if out is not None else (np.empty((rows, nf)), np.empty((rows, nf)))
    step = max(1, _BLOCK // max(nf, 1))
    ws_full = None if workspace is None else workspace.get("fastref")
    if ws_full is None or ws_full[0].shape[0] < min(step, rows) or ws_full[0].shape[1] != nf:
        ws_full = [np.empty((min(step, rows), nf)) for _ in range(6)]
        if workspace is not None:
            workspace["fastref"] = ws_full
    for a in range(0, rows, step):
        b = min(rows, a + step)
        ws = ws_full if b - a == ws_full[0].shape[0] else [w[: b - a] for w in ws_full]
        hi = (P1 if two_halves else P_hi)[a:b, None]
        _sincos_block(hi, P_lo[a:b, None] if has_lo else None, P2[a:b, None] if two_halves else None,
                      fw, S[a:b], C[a:b], ws)
    th = P_hi[:, None] * fw[4][None, :] if theta else None
    return S, C, th


@lru_cache(maxsize=64)
def column_plan(cd: ColumnData) -> tuple[np.ndarray, np.ndarray]:
    """``(kind, k)`` int arrays of length d: kind 0 sin, 1 cos, 2 zero (``cd.kinds``, ``cd.labels``)."""
    kind = np.array([{"sin": 0, "cos": 1, "zero": 2}[f] for f in cd.kinds], dtype=np.int8)
    return kind, np.array(cd.labels, dtype=np.intp)


def assemble(cd: ColumnData, S: np.ndarray, C: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Place sin/cos/zero columns as the column data says (``cd.index``) and apply its amplitude:
    ``(values, theta)`` (rows, d)."""
    ci = cd.index
    rows = S.shape[0]
    vals = np.zeros((rows, cd.d))
    th = np.zeros((rows, cd.d))
    for f, src in (("sin", S), ("cos", C)):
        vals[:, ci.dst[f]] = src[:, ci.src[f]]
        th[:, ci.dst[f]] = theta[:, ci.src[f]]
    if cd.amplitude != 1:
        vals *= float(cd.amplitude)
    return vals, th


def table_f64(profile: Profile, d: int, positions: Any) -> tuple[np.ndarray, np.ndarray]:
    """The table PE_profile(positions) in binary64 (each entry within 1 ulp on every tested sample) and theta,
    evaluated from ``column_data(profile, d)``.

    Returns ``(values, theta)``, both float64 arrays (rows, d); theta is 0 in identically-zero columns.
    """
    cd = column_data(profile, d)
    S, C, theta = sincos(cd, positions)
    assert theta is not None  # sincos computes theta unless asked not to
    return assemble(cd, S, C, theta)


def decide_band(pe_abs: Any, reduction: Any, out: np.ndarray | None = None) -> Any:
    """REQ-CHECK-DECIDE's band, the error bound the 1-D checker allows this reference where |PE| <= ``pe_abs``:
    ERROR_ULPS binary64 ulps of ``pe_abs`` (relative, 2^-52 each), plus ``reduction`` = |P| max|w| 2^-100 (the
    argument reduction's: :func:`reduction_band`), plus 2^-1000. Scalars or arrays (``out``: written in place, the
    same operations in the same order); :func:`error_bound` is the tighter per-entry form (the ulp of each value,
    its own |theta|).

    >>> decide_band(1.0, reduction_band(0.0, 1.0)) == ERROR_ULPS * 2.0 ** -52 + 2.0 ** -1000
    True
    >>> x = np.array([0.5, 1.0]); bool((decide_band(x, 1e-30, out=np.empty(2)) == decide_band(x, 1e-30)).all())
    True
    """
    if out is None:
        return ERROR_ULPS * 2.0 ** -52 * pe_abs + reduction + 2.0 ** -1000
    np.multiply(ERROR_ULPS * 2.0 ** -52, pe_abs, out=out)
    out += reduction
    out += 2.0 ** -1000
    return out


def reduction_band(p_abs: Any, w_max: float) -> Any:
    """|P| max|w| 2^-100: the bound on the argument reduction's error in :func:`decide_band`."""
    return p_abs * (w_max * 2.0 ** -100)


def error_bound(values: np.ndarray, theta: np.ndarray | None = None) -> np.ndarray:
    """A bound on |values - PE| used to decide: ERROR_ULPS binary64 ulps, plus 2^-100 |theta| for the reduction.

    >>> error_bound(np.array([1.0, 0.0])).tolist()
    [8.881784197001252e-16, 8.900295434028808e-308]
    """
    b = ERROR_ULPS * np.spacing(np.abs(values)) + 2.0 ** -1020
    if theta is not None:
        b = b + np.abs(theta) * 2.0 ** -100
    return b
