"""Correct rounding of exact and high-precision values to a binary format (SPEC.md REQ-GOLDEN-ROUND).

Round-to-nearest, ties-to-even, straight from the mpmath value's exact binary expansion into
the target format, subnormals and overflow included. Never through float64 first: that would
round twice (and ``float()`` of an mpmath interval endpoint rounds toward zero).

>>> import mpmath
>>> round_to_format(mpmath.mpf(1) / 3, "binary64") == 1 / 3
True
>>> round_to_format(mpmath.mpf("1.00048828125"), "binary16")  # exactly halfway: ties to even
1.0
>>> round_to_format(mpmath.mpf(2) ** 100 * 3, "bfloat16") == 3 * 2.0 ** 100   # binary16 would overflow
True
>>> round_to_format(mpmath.mpf(2) ** -149, "binary32"), round_to_format(mpmath.mpf(2) ** -151, "binary32")
(1.401298464324817e-45, 0.0)
>>> round_to_format(mpmath.mpf(70000), "binary16")
inf
>>> ulp(1.0, "binary32") == 2.0 ** -23
True
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from sinpe.spec.formats import Format, get_format

if TYPE_CHECKING:
    import mpmath
    import numpy as np

Fmt = str | Format


def _fmt(fmt: Fmt) -> Format:
    return fmt if isinstance(fmt, Format) else get_format(fmt)


def round_to_format(x: mpmath.mpf | float | int, fmt: Fmt) -> float:
    """The value of ``fmt`` nearest to ``x`` (ties to even), as the Python float holding it exactly.

    ``x`` is taken exactly, whatever ``mp.prec`` is (an mpf is never re-rounded on the way in).

    Every binary16, bfloat16 and binary32 value is a binary64 value, so the returned float is exact.
    (mpmath is imported by the functions that take its numbers: a check of binary tables the fast path decides
    does not import it, issue 28.1.)
    """
    import mpmath

    f = _fmt(fmt)
    if isinstance(x, int):
        x = exact_mpf(x, 0)  # mpf(int) would round to mp.prec
    elif not isinstance(x, mpmath.mpf):
        x = mpmath.mpf(x)  # floats convert exactly
    if mpmath.isnan(x):
        return math.nan
    if mpmath.isinf(x):
        return math.inf if x > 0 else -math.inf
    if x == 0:
        return -0.0 if x._mpf_[0] else 0.0
    neg, man, exp, _ = x._mpf_  # x = (-1)^neg * man * 2^exp exactly
    sign = -1 if neg else 1
    man = int(man)
    top = exp + man.bit_length() - 1  # x in [2^top, 2^(top+1))
    # quantum of the target format at this magnitude (fixed at the subnormal floor)
    q = max(top, f.emin) - (f.precision - 1)
    if exp >= q:
        m, e = man, exp
    else:
        shift = q - exp
        m, rem = divmod(man, 1 << shift)
        half = 1 << (shift - 1)
        if rem > half or (rem == half and m & 1):
            m += 1
        e = q
    if m == 0:
        return -0.0 if sign < 0 else 0.0
    if m.bit_length() + e - 1 > f.emax:
        return -math.inf if sign < 0 else math.inf
    return sign * math.ldexp(m, e)


def exact_mpf(man: int, exp: int) -> mpmath.mpf:
    """The mpf equal to ``man * 2**exp`` exactly (``mpmath.mpf((man, exp))`` rounds to mp.prec).

    >>> exact_mpf(2**70 + 1, -70)._mpf_[1] == 2**70 + 1
    True
    """
    import mpmath
    from mpmath.libmp import from_man_exp

    return mpmath.mp.make_mpf(from_man_exp(int(man), int(exp)))


def ulp(y: float, fmt: Fmt) -> float:
    """The gap between consecutive ``fmt`` values at the magnitude of ``y`` (ulp(0) = min subnormal)."""
    f = _fmt(fmt)
    if not math.isfinite(y):
        return math.nan
    if y == 0:
        return f.min_subnormal
    top = math.frexp(abs(y))[1] - 1
    return math.ldexp(1.0, max(top, f.emin) - (f.precision - 1))


def ulp_error(y: float, exact: mpmath.mpf | float, fmt: Fmt) -> float:
    """|y - exact| in units of the ulp of ``fmt`` at the exact value's magnitude."""
    import mpmath

    f = _fmt(fmt)
    exact = mpmath.mpf(exact)
    ref = round_to_format(exact, f)
    if not math.isfinite(y):
        return math.inf
    return float(abs(mpmath.mpf(y) - exact) / ulp(ref if ref != 0 else 0.0, f))


def round_array(x: np.ndarray, fmt: Fmt) -> np.ndarray:
    """float64 values rounded to ``fmt`` (ties to even, subnormals, overflow to inf), as float64.

    Vectorised ``round_to_format`` for values that are already binary64: with x = m 2^e (frexp,
    1/2 <= |m| < 1) the spacing of ``fmt`` there is q = 2^max(e - t, emin - t + 1), and x/q, rint
    and the product by q are exact. Used to test whether a table holds values of the format it claims.

    >>> import numpy as np
    >>> # ties to even: 1 + 2^-11 -> 1, 1 + 3*2^-11 -> 1 + 2^-9; 65520 = max + ulp/2 -> inf; 1.5*2^-24 -> 2^-23
    >>> round_array(np.array([1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 65520.0, 2.0 ** -25 * 3]), "binary16").tolist()
    [1.0, 1.001953125, inf, 1.1920928955078125e-07]
    >>> round_array(np.array([1 / 3]), "bfloat16").tolist()   # 0.333984375 = 171/512, 8 significant bits
    [0.333984375]
    """
    import numpy as np
    f = _fmt(fmt)
    x = np.asarray(x, dtype=np.float64)
    if f.precision >= 53:
        return x.copy()
    _, e = np.frexp(x)
    q = np.ldexp(1.0, np.maximum(e - f.precision, f.emin - f.precision + 1))
    with np.errstate(invalid="ignore"):
        r = np.rint(x / q) * q
        r[np.abs(r) > f.max_finite] = np.inf * np.sign(r[np.abs(r) > f.max_finite])
    return r


NARROW_MIN_DISTINCT = 16  # distinct non-zero values a table needs before its values can say it is a narrower one


def narrowest_format(x: np.ndarray, candidates: tuple[str, ...] = ("bfloat16", "float16", "float32"),
                     step: int = 1 << 16) -> str | None:
    """The first of ``candidates`` (narrowest first) of which every finite value of ``x`` is a value, or None.
    bfloat16 and float16 are named only for arrays with at least :data:`NARROW_MIN_DISTINCT` distinct non-zero
    values (a few round numbers say nothing). Read in row chunks of about ``step`` entries, after a first one of
    about 1/16 of that (a wider format's table is told at once); the first value that is in no candidate stops it.

    >>> import numpy as np
    >>> t = np.linspace(-1, 1, 64)
    >>> narrowest_format(round_array(t, "bfloat16")), narrowest_format(round_array(t, "binary16")), narrowest_format(t)
    ('bfloat16', 'float16', None)
    """
    import numpy as np
    x = np.asarray(x)
    x2 = x.reshape(x.shape[0], -1) if x.ndim > 1 else x.reshape(-1, 1)
    rows = max(1, step // max(1, x2.shape[1]))
    first = max(1, rows // 16)
    left, distinct = list(candidates), set[float]()
    for a, b in [(0, first)] + [(a, a + rows) for a in range(first, x2.shape[0], rows)]:
        y = np.asarray(x2[a:b], dtype=np.float64)
        left = [f for f in left if bool(np.all((round_array(y, f) == y) | ~np.isfinite(y)))]
        if not left:
            return None
        if len(distinct) < NARROW_MIN_DISTINCT:
            distinct.update(np.unique(y[np.isfinite(y) & (y != 0)])[:NARROW_MIN_DISTINCT].tolist())
    few = len(distinct) < NARROW_MIN_DISTINCT
    return next((f for f in left if not (few and _fmt(f).precision < 24)), None)
