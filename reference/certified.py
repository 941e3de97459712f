"""Certified values (SPEC.md REQ-REF-MP, REQ-GOLDEN-ROUND): DEF-PE enclosed by mpmath interval
arithmetic, correctly rounded by Ziv's strategy.

Each value PE_P(p)[j] is enclosed in an interval [lo, hi] by evaluating the spec's own
:func:`~sinpe.spec.definition.phase` and :func:`~sinpe.spec.definition.value` on an interval
backend built on mpmath's low-level ``libmpi`` functions (``mpi_log``, ``mpi_exp``, ``mpi_mul``,
``mpi_cos_sin``; rational inputs are kept exact until they meet an irrational factor). Both
ends are rounded to nearest (ties to even) in the target format, exactly as
:func:`sinpe.reference.rounding.round_to_format` does; if they differ the precision doubles
(Ziv) until they agree. The 40-digit decimals are certified the same way.

sin(1), cos(1), sin(1/100), cos(1/100) to binary64 (d = 4, position 1; the last two are
``sin(1 * 10000^(-2/4))``):

>>> from sinpe.spec import get_profile
>>> vas = get_profile("vaswani")
>>> rounded_table(vas, 4, [1], "binary64").tolist()
[[0.8414709848078965, 0.5403023058681398, 0.009999833334166664, 0.9999500004166653]]

40 significant digits of sin(1) (Abramowitz & Stegun 4.3 tabulate sin 1 = 0.84147 09848 07896 50665 25023;
python-flint's Arb agrees to all 40 digits):

>>> decimal(vas, 4, 1, 0)
'8.414709848078965066525023216302989996226e-1'

cos(10^7) correctly rounded to binary16 is -0.9072265625 (Arb: cos 1e7 = -0.9072700...):

>>> rounded_table(vas, 2, [10**7], "binary16").tolist()
[[0.420654296875, -0.9072265625]]
>>> lo, hi = enclose(vas, 512, 10**7, 3, prec=200)
>>> 0 < mpmath.fsub(hi, lo, exact=True) < mpmath.mpf(2) ** -150   # |theta| ~ 1e7 costs about 24 of the 200 bits
True
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterable, Sequence

import mpmath
import numpy as np
from mpmath.libmp import (fnone, fone, from_int, from_rational, fzero, mpf_abs, mpf_add, mpf_cos_sin, mpf_gt,
                          mpf_lt, mpf_pos, mpf_shift, mpf_sub, mpi_add, mpi_exp, mpi_log, mpi_mul, round_ceiling,
                          round_floor, to_float)

from sinpe.spec.definition import Column, columns, exponent, frequency, phase, value
from sinpe.spec.formats import Format, get_format
from sinpe.spec.profiles import Number, Profile, get_profile, to_fraction

from .rounding import round_to_format

MAX_PREC = 1 << 14  # bits; only a value within ~2^-16000 of a rounding boundary would need more
DIGITS = 40  # significant decimal digits in the golden files (REQ-GOLDEN-SCHEMA)


class Iv:
    """An interval [a, b] of mpmath raw floats at ``prec`` bits; ``q`` is its exact rational value
    when it has one (then a, b are ``q`` rounded down and up)."""

    __slots__ = ("a", "b", "q", "prec", "cs")

    def __init__(self, a: tuple, b: tuple, prec: int, q: Fraction | None = None) -> None:
        self.a, self.b, self.prec, self.q, self.cs = a, b, prec, q, None

    @classmethod
    def exact(cls, q: Fraction, prec: int) -> "Iv":
        if q.denominator == 1:
            t = from_int(q.numerator)
            if t[3] <= prec:
                return cls(t, t, prec, q)
        return cls(from_rational(q.numerator, q.denominator, prec, round_floor),
                   from_rational(q.numerator, q.denominator, prec, round_ceiling), prec, q)

    def __add__(self, other: "Iv") -> "Iv":
        if self.q is not None and other.q is not None:
            return Iv.exact(self.q + other.q, self.prec)
        return Iv(*mpi_add((self.a, self.b), (other.a, other.b), self.prec), self.prec)

    def __mul__(self, other: "Iv") -> "Iv":
        if self.q is not None and other.q is not None:
            return Iv.exact(self.q * other.q, self.prec)
        if self.q == 1:
            return other
        if other.q == 1:
            return self
        return Iv(*mpi_mul((self.a, self.b), (other.a, other.b), self.prec), self.prec)

    __rmul__ = __mul__

    def cos_sin(self) -> tuple["Iv", "Iv"]:
        """Enclosures of (cos, sin) over the interval; computed once (sin and cos share it)."""
        if self.cs is None:
            if self.q == 0:
                self.cs = (Iv.exact(Fraction(1), self.prec), Iv.exact(Fraction(0), self.prec))
            else:
                c, s = cos_sin_enclosure(self.a, self.b, self.prec)
                self.cs = (Iv(*c, self.prec), Iv(*s, self.prec))
        return self.cs

    def mpi(self) -> tuple[mpmath.mpf, mpmath.mpf]:
        return mpmath.mp.make_mpf(self.a), mpmath.mp.make_mpf(self.b)  # exact: mpf(tuple) would round


def cos_sin_enclosure(a: tuple, b: tuple, prec: int) -> tuple[tuple, tuple]:
    """Intervals containing cos and sin over [a, b]: one evaluation at the midpoint m, widened.

    |cos x - cos m| <= |x - m| and |sin x - sin m| <= |x - m| (both are 1-Lipschitz), so with
    r >= max(b - m, m - a) and an evaluation of (cos m, sin m) at ``wp = prec + 20`` bits
    accurate to a relative 2^(10 - wp), ``[c - |c| 2^(10-wp) - r, c + |c| 2^(10-wp) + r]``
    contains cos([a, b]) (sin likewise); ends are rounded outward and clamped to [-1, 1].
    This is the accuracy assumption and perturbation of mpmath's own ``mpi_cos_sin``, with one
    evaluation instead of two; ``tests/test_certified.py`` checks that it contains sin and cos
    computed at 400 bits by ``mpmath.sin``/``mpmath.cos`` and is no wider than r + 2^(14 - prec).

    >>> from mpmath.libmp import from_int
    >>> (c_lo, c_hi), (s_lo, s_hi) = cos_sin_enclosure(from_int(1), from_int(1), 60)
    >>> with mpmath.workprec(200):
    ...     mpmath.mp.make_mpf(s_lo) < mpmath.sin(1) < mpmath.mp.make_mpf(s_hi)
    True
    """
    wp = prec + 20
    if a == b:
        m, r = a, fzero
    else:
        m = mpf_add(a, b, wp)
        m = (m[0], m[1], m[2] - 1, m[3]) if m[1] else m  # exact halving
        r = mpf_max_abs(mpf_sub(b, m, 0), mpf_sub(m, a, 0))  # exact
    c, s = mpf_cos_sin(m, wp)
    out = []
    # Sums are formed exactly (prec 0) and rounded once: mpmath's mpf_add with a directed
    # rounding mode takes a shortcut for a much smaller addend that can round the wrong way
    # when the larger operand has more than ``prec`` bits (found by tests/test_certified.py).
    for v in (c, s):
        err = mpf_add(mpf_shift(mpf_abs(v), 10 - wp), r, 0) if v[1] else r
        lo = mpf_pos(mpf_sub(v, err, 0), prec, round_floor)
        hi = mpf_pos(mpf_add(v, err, 0), prec, round_ceiling)
        if mpf_lt(lo, fnone):
            lo = fnone
        if mpf_gt(hi, fone):
            hi = fone
        out.append((lo, hi))
    return out[0], out[1]


def mpf_max_abs(x: tuple, y: tuple) -> tuple:
    x, y = mpf_abs(x), mpf_abs(y)
    return y if mpf_lt(x, y) else x


class IntervalBackend:
    """A :class:`sinpe.spec.definition.Backend` whose values are :class:`Iv` enclosures at ``prec`` bits."""

    def __init__(self, prec: int) -> None:
        self.prec = prec
        self.zero = Iv.exact(Fraction(0), prec)

    def num(self, x: Fraction) -> Iv:
        return Iv.exact(Fraction(x), self.prec)

    @staticmethod
    def sin(x: Iv) -> Iv:
        return x.cos_sin()[1]

    @staticmethod
    def cos(x: Iv) -> Iv:
        return x.cos_sin()[0]

    def pow(self, base: Iv, e: Iv) -> Iv:
        """base ** e = exp(e * log(base)) for base > 0, as an interval."""
        if e.q == 0:
            return self.num(Fraction(1))
        wp = self.prec + 10
        lg = mpi_log((base.a, base.b), wp)
        return Iv(*mpi_exp(mpi_mul(lg, (e.a, e.b), wp), self.prec), self.prec)


# --- rounding of raw mpmath floats -------------------------------------------------------------

def round_raw(t: tuple, f: Format) -> float:
    """:func:`~sinpe.reference.rounding.round_to_format` on a raw mpmath float ``(sign, man, exp, bc)``.

    The same integer algorithm without building an ``mpf`` (this runs four times per end of every
    golden value); ``tests/test_certified.py`` checks the two agree bit for bit.

    >>> round_raw(mpmath.mpf(1.00048828125)._mpf_, get_format("binary16"))  # a tie: to even
    1.0
    """
    sign, man, exp, bc = t
    if not man:
        return round_to_format(mpmath.mpf(t), f)  # zero, inf, nan
    top = exp + bc - 1
    q = (top if top > f.emin else f.emin) - (f.precision - 1)
    if exp >= q:
        m, e = int(man), exp
    else:
        shift = q - exp
        m = int(man >> shift)
        rem = int(man) & ((1 << shift) - 1)
        half = 1 << (shift - 1)
        if rem > half or (rem == half and m & 1):
            m += 1
        e = q
    if m == 0:
        return -0.0 if sign else 0.0
    if m.bit_length() + e - 1 > f.emax:
        return -math.inf if sign else math.inf
    return -math.ldexp(m, e) if sign else math.ldexp(m, e)


def round_interval(lo: tuple, hi: tuple, f: Format) -> float | None:
    """RN_f of every point of [lo, hi] if they all round alike, else None (the Ziv loop retries).

    Equivalent to comparing ``round_raw(lo, f)`` with ``round_raw(hi, f)`` bitwise (+0.0 and
    -0.0 differ); tests check the equivalence.
    """
    return round_interval_all(lo, hi, (f,))[0]


def round_interval_all(lo: tuple, hi: tuple, formats: Sequence[Format]) -> list[float | None]:
    """:func:`round_interval` for several formats, sharing the alignment of the two ends."""
    s1, m1, e1, b1 = lo
    s2, m2, e2, b2 = hi
    out: list[float | None] = []
    if m1 and m2 and s1 == s2 and e1 + b1 == e2 + b2:
        m1, m2 = int(m1), int(m2)
        if e1 > e2:
            m1 <<= e1 - e2
            e = e2
        else:
            m2 <<= e2 - e1
            e = e1
        top = e1 + b1 - 1
        for f in formats:
            q = (top if top > f.emin else f.emin) - (f.precision - 1)
            shift = q - e
            if shift > 0:
                a, b = m1 >> (shift - 1), m2 >> (shift - 1)  # the format's bits plus the round bit
                mask = (1 << (shift - 1)) - 1
                if a == b and not (a & 1 and (not m1 & mask or not m2 & mask)):  # no tie in sight
                    g = (a + 1) >> 1
                    if g.bit_length() + q - 1 > f.emax:
                        out.append(-math.inf if s1 else math.inf)
                    else:
                        out.append(-math.ldexp(g, q) if s1 else math.ldexp(g, q))
                    continue
            out.append(_round_general(lo, hi, f))
        return out
    return [_round_general(lo, hi, f) for f in formats]


def _round_general(lo: tuple, hi: tuple, f: Format) -> float | None:
    # signs, zeros, a power of two inside the interval, exact values, ties
    g = round_raw(lo, f)
    return g if _same(g, round_raw(hi, f)) else None


def _same(x: float, y: float) -> bool:
    """Bitwise equality of two floats (distinguishes +0.0 from -0.0)."""
    return x == y and math.copysign(1.0, x) == math.copysign(1.0, y) or (x != x and y != y)


def decimal_raw(t: tuple, digits: int = DIGITS) -> str:
    """The exact dyadic ``t`` rounded to ``digits`` significant decimal digits (ties to even),
    as ``d.ddd...e[+-]E``; exact zero is ``'0'``.

    >>> decimal_raw(mpmath.mpf(0.1)._mpf_, 20)   # the binary64 nearest to 0.1, exactly 0.1000000000000000055511151...
    '1.0000000000000000555e-1'
    """
    sign, man, exp, bc = t
    if not man:
        if exp:
            raise ValueError("no decimal for inf or nan")
        return "0"
    num, den = (int(man) << exp, 1) if exp >= 0 else (int(man), 1 << -exp)
    E = math.floor((exp + bc - 1) * 0.30102999566398120)  # log10(2): E is exact or one too small
    if _pow10_le(E + 1, num, den):
        E += 1
    # n = round(v / 10^(E - digits + 1)), ties to even, computed exactly
    s = E - digits + 1
    if s >= 0:
        nn, dd = num, den * 10 ** s
    else:
        nn, dd = num * 10 ** (-s), den
    n, r = divmod(nn, dd)
    if 2 * r > dd or (2 * r == dd and n & 1):
        n += 1
    if n == 10 ** digits:  # rounded up to the next power of ten
        n //= 10
        E += 1
    ds = str(n)
    return f"{'-' if sign else ''}{ds[0]}.{ds[1:]}e{E:+d}".replace("e+", "e")


def _pow10_le(E: int, num: int, den: int) -> bool:
    """10**E <= num/den, exactly."""
    return 10 ** E * den <= num if E >= 0 else den <= num * 10 ** (-E)


# --- the certifier ------------------------------------------------------------------------------

class Pair:
    """The certified (sin, cos) of one phase: one float per format (in the certifier's order),
    the final enclosures (raw mpmath floats) and whether the Ziv loop had to raise the precision."""

    __slots__ = ("sin", "cos", "enc", "theta_lo", "theta_zero", "prec", "escalated")

    def __init__(self, sin: tuple, cos: tuple, enc: dict, theta_lo: tuple, theta_zero: bool,
                 prec: int, escalated: bool) -> None:
        self.sin, self.cos, self.enc, self.theta_lo = sin, cos, enc, theta_lo
        self.theta_zero, self.prec, self.escalated = theta_zero, prec, escalated

    @property
    def theta(self) -> float:
        """The phase to about float64 accuracy (for flags)."""
        return to_float(self.theta_lo)


@dataclass
class Stats:
    pairs: int = 0          # distinct (phase -> sin, cos) enclosures computed
    reused: int = 0         # lookups answered from the cache (phases shared across presets)
    escalations: int = 0    # pairs whose Ziv loop needed more than the starting precision
    decimals: int = 0
    decimal_escalations: int = 0
    values: int = 0         # table entries filled (each format counted)
    max_prec: int = 0

    def to_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


class _Plan:
    """What a (profile, d) table needs, computed once: column plan, exponents, cache keys."""

    __slots__ = ("profile", "d", "cols", "exps", "sin", "cos", "pkey")

    def __init__(self, profile: Profile, d: int) -> None:
        self.profile, self.d = profile, d
        self.cols = columns(profile, d)
        ks = sorted({c.k for c in self.cols if c.kind != "zero"})
        self.exps = {k: exponent(profile, d, k) for k in ks}
        self.sin = {k: Column("sin", k) for k in ks}
        self.cos = {k: Column("cos", k) for k in ks}
        self.pkey = tuple((x.numerator, x.denominator) for x in
                          (profile.base, profile.phase_scale, profile.offset, profile.amplitude))


class Certifier:
    """Correctly rounded values of DEF-PE, with a cache keyed by everything a value depends on.

    Two columns (of any preset, any d) with the same base, phase scale, offset, amplitude,
    exponent e_k and position have the same phase, hence the same certified sin and cos: the
    cache is what makes golden generation fast (presets that differ only by layout share values).

    >>> c = Certifier()
    >>> vas = get_profile("vaswani")
    >>> c.pair(vas, 2, 0, 3).sin   # sin 3 in binary64, binary32, binary16, bfloat16
    (0.1411200080598672, 0.14112000167369843, 0.14111328125, 0.1416015625)
    """

    def __init__(self, formats: Sequence[str | Format] = ("binary64", "binary32", "binary16", "bfloat16")) -> None:
        self.formats = tuple(f if isinstance(f, Format) else get_format(f) for f in formats)
        self.index = {f.name: i for i, f in enumerate(self.formats)}
        self.stats = Stats()
        self._pairs: dict[tuple, Pair] = {}
        self._freq: dict[tuple, Iv] = {}
        self._dec: dict[tuple, str] = {}
        self._plans: dict[tuple, _Plan] = {}
        self._ops: dict[int, IntervalBackend] = {}
        self._pos: dict[tuple, Iv] = {}
        self._prec0: dict[tuple, int] = {}

    def plan(self, profile: Profile, d: int) -> _Plan:
        key = (profile, d)
        pl = self._plans.get(key)
        if pl is None:
            pl = self._plans[key] = _Plan(profile, d)
        return pl

    @staticmethod
    def start_prec(profile: Profile, e: Fraction, p: Fraction, extra: int = 0) -> int:
        """Working bits: 80 plus the bits the argument reduction of theta eats (|theta| in binary)."""
        mag = abs(profile.phase_scale * (p + profile.offset)) if profile.phase_scale != 1 or profile.offset else abs(p)
        bits = int(mag).bit_length()
        lw = 0 if profile.base > 1 else math.ceil(-float(e) * math.log2(float(profile.base)))  # log2 w_k
        return -(-(80 + extra + bits + lw) // 64) * 64  # whole 64-bit steps: w_k is reused across positions

    def _theta(self, pl: _Plan, k: int, p: Fraction, prec: int) -> tuple[IntervalBackend, Iv]:
        ops = self._ops.get(prec)
        if ops is None:
            ops = self._ops[prec] = IntervalBackend(prec)
        e = pl.exps[k]
        key = (pl.pkey[0], e.numerator, e.denominator, prec)
        w = self._freq.get(key)
        if w is None:
            w = self._freq[key] = frequency(pl.profile, pl.d, k, ops)
        pkey = (p.numerator, p.denominator, prec)
        pos = self._pos.get(pkey)  # the position as an exact interval, shared by all frequencies
        if pos is None:
            if len(self._pos) > 4096:
                self._pos.clear()
            pos = self._pos[pkey] = ops.num(p)
        return ops, phase(pl.profile, pl.d, k, pos, ops, w=w)

    def pair(self, profile: Profile, d: int, k: int, p: Number) -> Pair:
        """Certified sin and cos of the phase of frequency k at position p (Ziv loop)."""
        return self._pair(self.plan(profile, d), k, to_fraction(p, "position"))

    def _pair(self, pl: _Plan, k: int, p: Fraction) -> Pair:
        e = pl.exps[k]
        key = (pl.pkey, e.numerator, e.denominator, p.numerator, p.denominator)
        hit = self._pairs.get(key)
        if hit is not None:
            self.stats.reused += 1
            return hit
        profile = pl.profile
        if profile.base > 1:  # the start precision depends on p only: cache it
            prec0 = self._prec0.get((p.numerator, p.denominator, pl.pkey))
            if prec0 is None:
                prec0 = self._prec0[(p.numerator, p.denominator, pl.pkey)] = self.start_prec(profile, e, p)
        else:
            prec0 = self.start_prec(profile, e, p)
        prec = prec0
        while True:
            ops, th = self._theta(pl, k, p, prec)
            s = value(pl.sin[k], th, profile, ops)
            c = value(pl.cos[k], th, profile, ops)
            out_s = round_interval_all(s.a, s.b, self.formats)
            out_c = round_interval_all(c.a, c.b, self.formats)
            if None not in out_s and None not in out_c:
                break
            prec *= 2
            if prec > MAX_PREC:
                raise ArithmeticError(f"Ziv loop did not settle at {MAX_PREC} bits: {profile.cli_flags()} "
                                      f"d={pl.d} k={k} position={p}")
        st = self.stats
        st.pairs += 1
        if prec > st.max_prec:
            st.max_prec = prec
        if prec != prec0:
            st.escalations += 1
        res = Pair(tuple(out_s), tuple(out_c), {"sin": (s.a, s.b), "cos": (c.a, c.b)}, th.a, th.q == 0,
                   prec, prec != prec0)
        self._pairs[key] = res
        return res

    def decimal(self, profile: Profile, d: int, p: Number, j: int, digits: int = DIGITS) -> str:
        """PE_P(p)[j] to ``digits`` significant digits, correctly rounded (both interval ends agree)."""
        p = to_fraction(p, "position")
        pl = self.plan(profile, d)
        col = pl.cols[j]
        if col.kind == "zero":
            return decimal_raw(value(col, None, profile, IntervalBackend(64)).a, digits)
        e = pl.exps[col.k]
        key = (pl.pkey, e.numerator, e.denominator, p.numerator, p.denominator, col.kind, digits)
        hit = self._dec.get(key)
        if hit is not None:
            return hit
        prec0 = prec = self.start_prec(profile, e, p, extra=int(digits * 3.33) + 16)
        while True:
            ops, th = self._theta(pl, col.k, p, prec)
            v = value(col, th, profile, ops)
            lo, hi = decimal_raw(v.a, digits), decimal_raw(v.b, digits)
            if lo == hi:
                break
            prec *= 2
            if prec > MAX_PREC:
                raise ArithmeticError(f"decimal Ziv loop did not settle at {MAX_PREC} bits")
        self.stats.decimals += 1
        self.stats.decimal_escalations += prec != prec0
        self._dec[key] = lo
        return lo

    def tables(self, profile: Profile, d: int, positions: Iterable[Number],
               fmts: Sequence[str | Format] | None = None, cols: Sequence[int] | None = None,
               progress: Any = None) -> dict[str, np.ndarray]:
        """Correctly rounded tables ``{format name: float64 array (rows, columns)}`` (all columns by default).

        float64 holds every binary64/32/16 and bfloat16 value exactly.
        """
        formats = self.formats if fmts is None else tuple(f if isinstance(f, Format) else get_format(f) for f in fmts)
        missing = [f.name for f in formats if f.name not in self.index]
        if missing:
            raise ValueError(f"certifier was built for {[f.name for f in self.formats]}, not {missing}")
        pos = [to_fraction(p, "position") for p in positions]
        pl = self.plan(profile, d)
        js = list(range(d)) if cols is None else [int(j) for j in cols]
        for j in js:
            if not 0 <= j < d:
                raise ValueError(f"column {j} out of range for d={d}")
        ks = sorted({pl.cols[j].k for j in js if pl.cols[j].kind != "zero"})
        kpos = {k: i for i, k in enumerate(ks)}
        # each output column j reads entry (row, kpos) of the sin or cos block, or the zero value
        src = np.array([0 if pl.cols[j].kind == "zero" else 1 + kpos[pl.cols[j].k] + (len(ks) if pl.cols[j].kind == "cos" else 0)
                        for j in js], dtype=np.intp)
        zero_col = next((pl.cols[j] for j in js if pl.cols[j].kind == "zero"), None)
        zero = value(zero_col, None, profile, IntervalBackend(64)) if zero_col is not None else None
        out = {}
        block = np.empty((len(pos), len(self.formats), 1 + 2 * len(ks)), dtype=np.float64)
        for r, p in enumerate(pos):
            prs = [self._pair(pl, k, p) for k in ks]
            for fi, f in enumerate(self.formats):
                if f.name not in (g.name for g in formats):
                    continue
                row = block[r, fi]
                if zero is not None:
                    row[0] = round_raw(zero.a, f)
                row[1:1 + len(ks)] = [pr.sin[fi] for pr in prs]
                row[1 + len(ks):] = [pr.cos[fi] for pr in prs]
            if progress is not None:
                progress(1)
        for f in formats:
            out[f.name] = np.ascontiguousarray(block[:, self.index[f.name], :][:, src])
        self.stats.values += len(pos) * len(js) * len(formats)
        return out


def rounded_tables(profile: Profile, d: int, positions: Sequence[Number],
                   fmts: Sequence[str | Format]) -> dict[str, np.ndarray]:
    """Correctly rounded tables, one per format: ``{format name: float64 array (rows, d)}``."""
    formats = tuple(f if isinstance(f, Format) else get_format(f) for f in fmts)
    return Certifier(formats).tables(profile, d, positions)


def rounded_table(profile: Profile, d: int, positions: Sequence[Number], fmt: str | Format) -> np.ndarray:
    """The correctly rounded table in one format (a float64 array holding the format's values exactly)."""
    f = fmt if isinstance(fmt, Format) else get_format(fmt)
    return rounded_tables(profile, d, positions, [f])[f.name]


def enclose(profile: Profile, d: int, position: Number, j: int, prec: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """An interval [lo, hi] containing PE_P(position)[j], computed at ``prec`` bits."""
    col = columns(profile, d)[j]
    ops = IntervalBackend(prec)
    th = None if col.kind == "zero" else phase(profile, d, col.k, to_fraction(position, "position"), ops)
    return value(col, th, profile, ops).mpi()


def decimal(profile: Profile, d: int, position: Number, j: int, digits: int = DIGITS) -> str:
    """PE_P(position)[j] correctly rounded to ``digits`` significant decimal digits."""
    return Certifier().decimal(profile, d, position, j, digits)
