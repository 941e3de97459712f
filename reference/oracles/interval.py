"""Certified values (SPEC.md REQ-REF-MP, REQ-GOLDEN-ROUND): DEF-PE enclosed by mpmath interval
arithmetic, correctly rounded by Ziv's strategy.

Each value PE_P(p)[j] is enclosed in an interval [lo, hi] by evaluating the spec's own
:func:`~sinpe.spec.definition.phase` and :func:`~sinpe.spec.definition.value` on an interval
backend built on mpmath's low-level ``libmpi`` functions (``mpi_log``, ``mpi_exp``, ``mpi_mul``,
``mpi_cos_sin``; rational inputs are kept exact until they meet an irrational factor). Both
ends are rounded to nearest (ties to even) in the target format, exactly as
:func:`sinpe.reference.numerics.rounding.round_to_format` does; if they differ the precision doubles
(Ziv) until they agree. The 40-digit decimals are certified the same way.

The tables (:class:`Certifier`) take a faster route to the same values: intervals are pairs of
Python integers over one power of two (:class:`FixedIv`, :func:`scale_fixed`), so the phase
f * w_k is exact integer products (w_k comes from ``mpi_log``/``mpi_exp`` once per (base, e_k,
precision)); sin and cos of a phase share one ``mpf_cos_sin`` with the error model of
:func:`cos_sin_enclosure` (:func:`cos_sin_fixed`); the factor f = phase_scale * (p + offset)
and the amplitude are read off ``phase`` and ``value`` by evaluating them on formal units
(:class:`_Linear`), per position rather than per entry; and the two ends of a row's enclosures
are rounded together with NumPy (:func:`round_fixed_batch`), exact cases (a binary64 value that
is itself a rounding boundary, ends that differ, zeros, subnormals) going to the integer rounding
of :func:`round_interval_all`.

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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from mpmath.libmp import (
    fnone,
    fone,
    from_int,
    from_man_exp,
    from_rational,
    fzero,
    mpf_abs,
    mpf_add,
    mpf_cos_sin,
    mpf_gt,
    mpf_lt,
    mpf_pos,
    mpf_shift,
    mpf_sub,
    mpi_add,
    mpi_exp,
    mpi_log,
    mpi_mul,
    round_ceiling,
    round_floor,
    to_float,
)

from sinpe.reference.numerics.rounding import round_to_format
from sinpe.spec.definition import ColumnData, column_data, frequency, phase, value
from sinpe.spec.formats import Format, get_format
from sinpe.spec.profiles import Number, Profile, to_fraction

MAX_PREC = 1 << 14  # bits; only a value within ~2^-16000 of a rounding boundary would need more
DIGITS = 40  # significant decimal digits in the golden files (REQ-GOLDEN-SCHEMA)


class Iv:
    """An interval [a, b] of mpmath raw floats at ``prec`` bits; ``q`` is its exact rational value
    when it has one (then a, b are ``q`` rounded down and up)."""

    __slots__ = ("a", "b", "q", "prec", "cs")

    def __init__(self, a: tuple, b: tuple, prec: int, q: Fraction | None = None) -> None:
        self.a, self.b, self.prec, self.q = a, b, prec, q
        self.cs: tuple[Iv, Iv] | None = None

    @classmethod
    def exact(cls, q: Fraction, prec: int) -> Iv:
        if q.denominator == 1:
            t = from_int(q.numerator)
            if t[3] <= prec:
                return cls(t, t, prec, q)
        return cls(from_rational(q.numerator, q.denominator, prec, round_floor),
                   from_rational(q.numerator, q.denominator, prec, round_ceiling), prec, q)

    def __add__(self, other: Iv) -> Iv:
        if self.q is not None and other.q is not None:
            return Iv.exact(self.q + other.q, self.prec)
        lo, hi = mpi_add((self.a, self.b), (other.a, other.b), self.prec)
        return Iv(lo, hi, self.prec)

    def __mul__(self, other: Iv) -> Iv:
        if self.q is not None and other.q is not None:
            return Iv.exact(self.q * other.q, self.prec)
        if self.q == 1:
            return other
        if other.q == 1:
            return self
        lo, hi = mpi_mul((self.a, self.b), (other.a, other.b), self.prec)
        return Iv(lo, hi, self.prec)

    __rmul__ = __mul__

    def cos_sin(self) -> tuple[Iv, Iv]:
        """Enclosures of (cos, sin) over the interval; computed once (sin and cos share it)."""
        if self.cs is None:
            if self.q == 0:
                self.cs = (Iv.exact(Fraction(1), self.prec), Iv.exact(Fraction(0), self.prec))
            else:
                c, s = cos_sin_enclosure(self.a, self.b, self.prec)
                self.cs = (Iv(c[0], c[1], self.prec), Iv(s[0], s[1], self.prec))
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


# --- the fixed-point path (the certifier's hot loop) -------------------------------------------
# An interval is a pair of Python integers (lo, hi) and one exponent e: [lo * 2^e, hi * 2^e].
# Products and sums of such ends are exact integer arithmetic, so no directed rounding is needed
# until a rational factor with an odd denominator (floor/ceil division, outward).

def scale_fixed(lo: int, hi: int, e: int, q: Fraction, guard: int) -> tuple[int, int, int]:
    """An integer interval containing q * [lo, hi] * 2^e (exact when q is dyadic; else the ends
    are divided with ``guard`` extra bits, rounded outward).

    >>> scale_fixed(3, 5, -2, Fraction(-1, 2), 8)   # -1/2 * [3/4, 5/4] = [-5/8, -3/8], exactly
    (-5, -3, -3)
    >>> scale_fixed(1, 1, 0, Fraction(1, 3), 8)     # [1/3 rounded down, 1/3 rounded up] at 2^-8
    (85, 86, -8)
    """
    n, den = q.numerator, q.denominator
    a, b = lo * n, hi * n
    if n < 0:
        a, b = b, a
    if den == 1:
        return a, b, e
    if den & (den - 1) == 0:  # a power of two: move the exponent
        return a, b, e - den.bit_length() + 1
    return (a << guard) // den, -((-b << guard) // den), e - guard


def cos_sin_fixed(tl: int, th: int, x: int, prec: int,
                  exact: bool = False) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """Integer intervals ``((c_lo, c_hi, ec), (s_lo, s_hi, es))`` containing cos and sin over
    theta in [tl * 2^x, th * 2^x].

    The model of :func:`cos_sin_enclosure` without mpf arithmetic: one ``mpf_cos_sin`` at the
    exact midpoint m = (tl + th) 2^(x-1), at wp = prec + 20 bits, assumed accurate to
    |v| 2^(10 - wp); the mantissa v is scaled to exactly wp bits, so that bound is below 2^10
    units of its last place; the half-width r = (th - tl) 2^(x-1) is added (sin and cos are
    1-Lipschitz), rounded up to whole units. Ends are clamped to [-1, 1]. ``exact`` (theta is
    exactly the rational 0) gives the points cos = 1, sin = 0; otherwise theta = [0, 0] keeps the
    error bound on cos, as :func:`cos_sin_enclosure` does. A zero result for a nonzero m (no
    relative accuracy to rely on) gives [-1, 1], which no format rounds alike.
    ``tests/test_certified.py`` checks containment against ``mpmath.sin``/``cos`` at 400 bits.

    >>> (c_lo, c_hi, ec), (s_lo, s_hi, es) = cos_sin_fixed(1, 1, 0, 60)   # theta = 1 exactly
    >>> with mpmath.workprec(200):
    ...     s_lo * mpmath.mpf(2) ** es < mpmath.sin(1) < s_hi * mpmath.mpf(2) ** es
    True
    """
    M, R = tl + th, th - tl
    if exact and not M and not R:
        return (1, 1, 0), (0, 0, 0)
    wp = prec + 20
    y = x - 1
    c, s = mpf_cos_sin(from_man_exp(M, y), wp)
    out = []
    for sign, man, exp, bc in (c, s):
        if not man:  # sin 0 = 0; elsewhere a zero has no relative accuracy
            out.append((-R, R, y) if not M else (-1, 1, 0))
            continue
        v = int(man)
        if bc < wp:
            v <<= wp - bc
            exp -= wp - bc
            bc = wp
        err = 1 << (bc + 10 - wp)
        sh = y - exp
        if R:
            err += R << sh if sh >= 0 else -((-R) >> -sh)
        if sign:
            v = -v
        lo, hi = v - err, v + err
        if exp < 0:
            one = 1 << -exp
            if lo < -one:
                lo = -one
            if hi > one:
                hi = one
        out.append((lo, hi, exp))
    return out[0], out[1]


_TINY = 2.0 ** -1022  # smallest normal binary64: above it, ldexp(float(n), e) is RN64(n 2^e) exactly


def round_fixed_all(lo: int, hi: int, e: int, formats: Sequence[Format]) -> list[float | None]:
    """:func:`round_interval_all` on the interval [lo * 2^e, hi * 2^e] of integers.

    Fast path: both ends round (``float(int)`` is correctly rounded in CPython) to one normal
    binary64 value a. Then every point of the interval lies in a's binary64 rounding cell; for a
    format of at most 52 bits inside binary64's normal range every rounding boundary (a midpoint
    between neighbours, the overflow threshold) is itself a binary64 number, so the only one the
    cell can hold is a. If a is not a boundary (``a / 2^q`` is not an odd multiple of 1/2 for
    the format's quantum 2^q at a), the whole interval rounds to RN_f(a), computed exactly with
    ``round``/``ldexp``. Otherwise (and for ends that differ, zero, subnormal or huge values) the
    ends are built as mpmath raw floats and :func:`round_interval_all` decides.
    ``tests/test_certified.py`` checks the result equals rounding both ends, including ties.

    >>> round_fixed_all(2 ** 60 + 2 ** 49 + 1, 2 ** 60 + 2 ** 49 + 3, -60, [get_format("binary16")])  # just above a tie
    [1.0009765625]
    """
    if not lo and not hi:
        return [0.0] * len(formats)
    vals, ok = _fast_round([(lo, hi, e)], formats)
    return list(vals[0]) if ok[0] else _round_exact_ends(lo, hi, e, formats)


def _round_exact_ends(lo: int, hi: int, e: int, formats: Sequence[Format]) -> list[float | None]:
    """The slow path: both ends as mpmath raw floats, rounded and compared (:func:`round_interval_all`)."""
    if not lo and not hi:
        return [0.0] * len(formats)
    return round_interval_all(from_man_exp(lo, e), from_man_exp(hi, e), formats)


class IntervalBackend:
    """A :class:`sinpe.spec.definition.Backend` whose values are :class:`Iv` enclosures at ``prec`` bits."""

    def __init__(self, prec: int) -> None:
        self.prec = prec
        self.zero = Iv.exact(Fraction(0), prec)
        self._logs: dict[tuple, tuple] = {}  # log(base) per base interval: one per table, not per k

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
        lg = self._logs.get((base.a, base.b))
        if lg is None:
            lg = self._logs[(base.a, base.b)] = mpi_log((base.a, base.b), wp)
        lo, hi = mpi_exp(mpi_mul(lg, (e.a, e.b), wp), self.prec)
        return Iv(lo, hi, self.prec)


def round_fixed_batch(ends: Sequence[tuple[int, int, int]], formats: Sequence[Format]) -> list[tuple | None]:
    """:func:`round_fixed_all` for many intervals ``(lo, hi, e)`` at once: the same fast path,
    vectorised with NumPy (``frexp``, ``ldexp`` and ``rint`` are exact on these operands; ``rint``
    rounds ties to even); each interval it cannot decide goes to :func:`round_fixed_all`.
    Returns one tuple of floats per interval (formats in order), or None where the ends round
    differently (the Ziv loop retries that one).

    >>> round_fixed_batch([(1, 1, 0), (-3, -3, -2), (0, 0, 0)], [get_format("binary16")])
    [(1.0,), (-0.75,), (0.0,)]
    """
    if not ends:
        return []
    vals, ok = _fast_round(ends, formats)
    return [tuple(v) if k else _tuple_or_none(_round_exact_ends(*t, formats)) for v, k, t in zip(vals, ok, ends, strict=False)]


def _fast_round(ends: Sequence[tuple[int, int, int]], formats: Sequence[Format]) -> tuple[list[list[float]], list[bool]]:
    """The fast path of :func:`round_fixed_all`, vectorised: (values per interval, decided?). An interval is
    decided when both ends round (``float(int)`` and ``ldexp`` are correctly rounded) to one normal binary64
    value a that is not itself a rounding boundary of any format asked for (``rint`` rounds ties to even)."""
    n = len(ends)
    try:
        lo = np.array([float(t[0]) for t in ends])
        hi = np.array([float(t[1]) for t in ends])
    except OverflowError:  # ends of more than 1024 bits (a deep Ziv escalation): the exact path decides
        return [[]] * n, [False] * n
    ex = np.array([t[2] for t in ends], dtype=np.int64)
    with np.errstate(over="ignore"):
        a = np.ldexp(lo, ex)
        b = np.ldexp(hi, ex)
    mag = np.abs(a)
    ok = (a == b) & (mag >= _TINY) & (mag < math.inf)
    cols = []
    E = np.frexp(a)[1].astype(np.int64) - 1
    for f in formats:
        P = f.precision
        if P == 53 and f.emin == -1022 and f.emax == 1023:
            cols.append(a)
            continue
        if P > 52 or f.emin < -1022 or f.emax > 1023:
            ok[:] = False
            cols.append(a)
            continue
        q = np.maximum(E, f.emin) - (P - 1)
        with np.errstate(invalid="ignore", over="ignore"):  # inf/nan rows are not ok already
            s = np.ldexp(a, -q)
            r = np.rint(s)
            ok &= np.abs(s - r) != 0.5  # a itself on a boundary: the exact ends decide
            v = np.ldexp(r, q)
        cols.append(np.where(np.abs(v) > f.max_finite, np.copysign(math.inf, a), v))
    return np.stack(cols, axis=1).tolist(), ok.tolist()


def _tuple_or_none(xs: list[float | None]) -> tuple | None:
    return None if None in xs else tuple(xs)


class FixedIv:
    """An interval [lo * 2^e, hi * 2^e] of integers (see :func:`scale_fixed`); ``prec`` is the
    working precision (guard bits for odd denominators, accuracy of sin and cos); ``exact``: the
    value is a dyadic rational known exactly (not an enclosure), as :class:`Iv`'s ``q``."""

    __slots__ = ("lo", "hi", "e", "prec", "cs", "exact")

    def __init__(self, lo: int, hi: int, e: int, prec: int, exact: bool = False) -> None:
        self.lo, self.hi, self.e, self.prec, self.exact = lo, hi, e, prec, exact
        self.cs: tuple[FixedIv, FixedIv] | None = None

    @classmethod
    def of(cls, q: Fraction, prec: int) -> FixedIv:
        """The rational q (exact if dyadic, else rounded outward at ``prec`` bits below its top)."""
        g = max(0, prec - q.numerator.bit_length() + q.denominator.bit_length())
        den = q.denominator
        return cls(*scale_fixed(1, 1, 0, q, g), prec, den & (den - 1) == 0)

    def __mul__(self, other: Any) -> FixedIv:
        if isinstance(other, FixedIv):
            a, b, c, d = self.lo, self.hi, other.lo, other.hi
            ps: tuple[int, ...]
            if a == b and a >= 0:  # an exact nonnegative factor (a position): two products
                ps = (a * c, a * d)
            elif c == d and c >= 0:
                ps = (a * c, b * c)
            else:
                ps = (a * c, a * d, b * c, b * d)
            return FixedIv(min(ps), max(ps), self.e + other.e, max(self.prec, other.prec),
                           self.exact and other.exact)
        if isinstance(other, (int, Fraction)):
            q = other if type(other) is Fraction else Fraction(other)
            den = q.denominator
            return FixedIv(*scale_fixed(self.lo, self.hi, self.e, q, self.prec), self.prec,
                           self.exact and den & (den - 1) == 0)
        return NotImplemented

    def __add__(self, other: Any) -> FixedIv:
        if isinstance(other, (int, Fraction)):
            other = FixedIv.of(Fraction(other), self.prec + max(0, self.hi.bit_length() + self.e))
        if not isinstance(other, FixedIv):
            return NotImplemented
        e = min(self.e, other.e)
        a, b = self.e - e, other.e - e
        return FixedIv((self.lo << a) + (other.lo << b), (self.hi << a) + (other.hi << b), e,
                       max(self.prec, other.prec), self.exact and other.exact)

    __radd__ = __add__
    __rmul__ = __mul__

    def cos_sin(self) -> tuple[FixedIv, FixedIv]:
        """Enclosures of (cos, sin) over the interval (:func:`cos_sin_fixed`), computed once."""
        if self.cs is None:
            c, s = cos_sin_fixed(self.lo, self.hi, self.e, self.prec, self.exact)
            self.cs = (FixedIv(*c, self.prec), FixedIv(*s, self.prec))
        return self.cs


class FixedBackend:
    """A :class:`sinpe.spec.definition.Backend` on exact Fractions and :class:`FixedIv` intervals:
    the spec's ``phase`` and ``value`` run unchanged; rational factors stay exact, ``pow`` comes
    from :class:`IntervalBackend` (mpmath ``mpi_log``/``mpi_exp``) at the same precision."""

    def __init__(self, prec: int) -> None:
        self.prec = prec
        self.zero = Fraction(0)
        self._iv = IntervalBackend(prec)

    @staticmethod
    def num(x: Fraction) -> Fraction:
        return x if type(x) is Fraction else Fraction(x)

    def fixed(self, x: Any) -> FixedIv:
        return x if isinstance(x, FixedIv) else FixedIv.of(Fraction(x), self.prec)

    def sin(self, x: Any) -> FixedIv:
        return self.fixed(x).cos_sin()[1]

    def cos(self, x: Any) -> FixedIv:
        return self.fixed(x).cos_sin()[0]

    def pow(self, base: Fraction, e: Fraction) -> Any:
        if e == 0:
            return Fraction(1)
        ops = self._iv
        iv = ops.pow(ops.num(base), ops.num(e))
        (s1, m1, e1, _), (s2, m2, e2, _) = iv.a, iv.b
        x = min(e1, e2) if m1 and m2 else (e2 if m2 else e1)
        lo = int(m1) << (e1 - x) if m1 else 0
        hi = int(m2) << (e2 - x) if m2 else 0
        return FixedIv(-lo if s1 else lo, -hi if s2 else hi, x, self.prec)  # an enclosure: not exact


class _Linear:
    """c * u for a formal unit u. Evaluating the spec's ``phase`` with w = u (or ``value`` with
    sin = cos = u) on :data:`_TRACE` reads off the rational factor c that the spec applies; any
    other use of u (a sum, a power) raises TypeError, and the caller takes the general path."""

    __slots__ = ("c",)

    def __init__(self, c: Fraction) -> None:
        self.c = c

    def __mul__(self, other: Any) -> _Linear:
        if isinstance(other, (int, Fraction)):
            return _Linear(self.c * other)
        return NotImplemented

    __rmul__ = __mul__


class _TraceBackend:
    """Exact Fractions; ``sin`` and ``cos`` of anything are the formal unit."""

    zero = Fraction(0)

    @staticmethod
    def num(x: Fraction) -> Fraction:
        return x if type(x) is Fraction else Fraction(x)

    @staticmethod
    def sin(x: Any) -> _Linear:
        return _Linear(Fraction(1))

    cos = sin

    @staticmethod
    def pow(base: Any, e: Any) -> Any:
        raise TypeError("no power in a traced phase")


_TRACE = _TraceBackend()


def _traced_factor(fn: Any, *args: Any) -> Fraction | None:
    try:
        r = fn(*args)
    except TypeError:
        return None
    return r.c if isinstance(r, _Linear) else None


# --- rounding of raw mpmath floats -------------------------------------------------------------

def round_raw(t: tuple, f: Format) -> float:
    """:func:`~sinpe.reference.numerics.rounding.round_to_format` on a raw mpmath float ``(sign, man, exp, bc)``.

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
    the final enclosures (raw mpmath floats) and whether the Ziv loop had to raise the precision.

    The fixed-point path passes ``enc=None`` and ``raw`` = ``(sin (lo, hi, e), cos (lo, hi, e),
    (theta_lo, x))`` instead; ``enc`` and ``theta_lo`` are then built from the integers when read.
    """

    __slots__ = ("sin", "cos", "_enc", "_theta_lo", "theta_zero", "prec", "escalated", "_raw")

    def __init__(self, sin: tuple, cos: tuple, enc: dict | None, theta_lo: tuple | None, theta_zero: bool,
                 prec: int, escalated: bool, raw: tuple | None = None) -> None:
        self.sin, self.cos, self._enc, self._theta_lo = sin, cos, enc, theta_lo
        self.theta_zero, self.prec, self.escalated, self._raw = theta_zero, prec, escalated, raw

    @property
    def enc(self) -> dict:
        if self._enc is None:
            assert self._raw is not None, "a Pair holds its enclosures or the integers they come from"
            (sl, sh, se), (cl, ch, ce), _ = self._raw
            self._enc = {"sin": (from_man_exp(sl, se), from_man_exp(sh, se)),
                         "cos": (from_man_exp(cl, ce), from_man_exp(ch, ce))}
        return self._enc

    @property
    def theta_lo(self) -> tuple:
        if self._theta_lo is None:
            assert self._raw is not None, "a Pair holds its phase or the integers it comes from"
            tl, x = self._raw[2]
            self._theta_lo = from_man_exp(tl, x)
        return self._theta_lo

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

    def to_json(self) -> dict[str, int]:
        return dict(self.__dict__)


class _Plan:
    """What a table needs, computed once from its :class:`ColumnData` (the only input): cache keys."""

    __slots__ = ("cd", "d", "cols", "exps", "pkey", "base_gt1")

    def __init__(self, cd: ColumnData) -> None:
        self.cd, self.d = cd, cd.d
        self.cols = cd.columns
        self.exps = dict(enumerate(cd.exponents))
        self.pkey = tuple((x.numerator, x.denominator) for x in (cd.base, cd.scale, cd.offset, cd.amplitude))
        self.base_gt1 = cd.base > 1  # then start_prec does not depend on e_k


class Certifier:
    """Correctly rounded values of DEF-PE, with a cache keyed by everything a value depends on.

    Two columns (of any preset, any d) with the same base, phase scale, offset, amplitude,
    exponent e_k and position have the same phase, hence the same certified sin and cos: the
    cache is what makes golden generation fast (presets that differ only by layout share values).

    >>> from sinpe.spec.profiles import get_profile
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
        self._plans: dict[ColumnData, _Plan] = {}
        self._ops: dict[int, IntervalBackend] = {}
        self._pos: dict[tuple, Iv] = {}
        self._prec0: dict[tuple, int] = {}
        self._fops: dict[int, FixedBackend] = {}
        self._wfix: dict[tuple, Any] = {}
        self._fpos: dict[tuple, Any] = {}
        self._lin: dict[tuple, Any] = {}

    def plan(self, profile: Profile, d: int) -> _Plan:
        cd = column_data(profile, d)
        pl = self._plans.get(cd)
        if pl is None:
            pl = self._plans[cd] = _Plan(cd)
        return pl

    @staticmethod
    def start_prec(cd: ColumnData, e: Fraction, p: Fraction, extra: int = 0) -> int:
        """Working bits: 80 plus the bits the argument reduction of theta eats (|theta| in binary)."""
        mag = abs(cd.scale * (p + cd.offset)) if cd.scale != 1 or cd.offset else abs(p)
        bits = int(mag).bit_length()
        lw = 0 if cd.base > 1 else math.ceil(-float(e) * math.log2(float(cd.base)))  # log2 w_k
        return -(-(80 + extra + bits + lw) // 64) * 64  # whole 64-bit steps: w_k is reused across positions

    def _theta(self, pl: _Plan, k: int, p: Fraction, prec: int) -> tuple[IntervalBackend, Iv]:
        ops = self._ops.get(prec)
        if ops is None:
            ops = self._ops[prec] = IntervalBackend(prec)
        e = pl.exps[k]
        key = (pl.pkey[0], e.numerator, e.denominator, prec)
        w = self._freq.get(key)
        if w is None:
            w = self._freq[key] = frequency(pl.cd, k, ops)
        pkey = (p.numerator, p.denominator, prec)
        pos = self._pos.get(pkey)  # the position as an exact interval, shared by all frequencies
        if pos is None:
            if len(self._pos) > 4096:
                self._pos.clear()
            pos = self._pos[pkey] = ops.num(p)
        return ops, phase(pl.cd, k, pos, ops, w=w)

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
        cd = pl.cd
        prec0 = self._start(pl, e, p)
        prec = prec0
        while True:
            ops, th = self._theta_fixed(pl, k, p, prec)
            s = value(cd, "sin", th, ops)
            c = value(cd, "cos", th, ops)
            out_s = round_fixed_all(s.lo, s.hi, s.e, self.formats)
            out_c = round_fixed_all(c.lo, c.hi, c.e, self.formats)
            if None not in out_s and None not in out_c:
                break
            prec *= 2
            if prec > MAX_PREC:
                raise ArithmeticError(f"Ziv loop did not settle at {MAX_PREC} bits: {cd.name} "
                                      f"d={pl.d} k={k} position={p}")
        st = self.stats
        st.pairs += 1
        if prec > st.max_prec:
            st.max_prec = prec
        if prec != prec0:
            st.escalations += 1
        res = Pair(tuple(out_s), tuple(out_c), None, None, th.exact and th.lo == th.hi == 0, prec, prec != prec0,
                   raw=((s.lo, s.hi, s.e), (c.lo, c.hi, c.e), (th.lo, th.e)))
        self._pairs[key] = res
        return res

    def _row(self, pl: _Plan, ks: Sequence[int], p: Fraction) -> list[Pair]:
        """:meth:`_pair` for frequencies ``ks`` at one position: the enclosures one by one, their
        rounding in one vectorised :func:`round_fixed_batch`; a pair it leaves undecided goes
        through :meth:`_pair`'s Ziv loop."""
        out: list[Any] = [None] * len(ks)
        todo = []
        cd = pl.cd
        pairs, pn, pd = self._pairs, p.numerator, p.denominator
        lin = self._linear(pl, p)
        prec_row = self._start(pl, Fraction(0), p) if pl.base_gt1 else None
        for i, k in enumerate(ks):
            e = pl.exps[k]
            key = (pl.pkey, e.numerator, e.denominator, pn, pd)
            hit = pairs.get(key)
            if hit is not None:
                out[i] = hit
                continue
            prec = prec_row or self._start(pl, e, p)
            if lin is None:  # the spec evaluated on FixedBackend
                ops, th = self._theta_fixed(pl, k, p, prec)
                s = value(cd, "sin", th, ops)
                c = value(cd, "cos", th, ops)
                todo.append((i, k, key, prec, (th.lo, th.e), th.exact and th.lo == th.hi == 0,
                             (s.lo, s.hi, s.e), (c.lo, c.hi, c.e)))
                continue
            # theta = f * w_k and value = a * sin/cos, with f and a read off the spec by tracing
            f, a_sin, a_cos = lin
            w = self._w_fixed(pl, k, prec)
            if type(w) is FixedIv:
                tl, th_, x = scale_fixed(w.lo, w.hi, w.e, f, prec)
                exact = w.exact and f.denominator & (f.denominator - 1) == 0
            else:
                t = FixedIv.of(f * w, prec)
                tl, th_, x, exact = t.lo, t.hi, t.e, t.exact
            cs, sn = cos_sin_fixed(tl, th_, x, prec, exact)
            if a_sin != 1:
                sn = scale_fixed(*sn, a_sin, prec)
            if a_cos != 1:
                cs = scale_fixed(*cs, a_cos, prec)
            todo.append((i, k, key, prec, (tl, x), exact and tl == th_ == 0, sn, cs))
        self.stats.reused += len(ks) - len(todo)
        if not todo:
            return out
        n = len(todo)
        got = round_fixed_batch([t[6] for t in todo] + [t[7] for t in todo], self.formats)
        st = self.stats
        for j, (i, k, key, prec, theta_lo, zero, sn, cs) in enumerate(todo):
            rs, rc = got[j], got[n + j]
            if rs is None or rc is None:
                out[i] = self._pair(pl, k, p)  # the Ziv loop, from the start precision
                continue
            st.pairs += 1
            if prec > st.max_prec:
                st.max_prec = prec
            out[i] = pairs[key] = Pair(rs, rc, None, None, zero, prec, False, raw=(sn, cs, theta_lo))
        return out

    def _linear(self, pl: _Plan, p: Fraction) -> tuple[Fraction, Fraction, Fraction] | None:
        """(f, a_sin, a_cos): the spec's phase at p is f * w_k and its values are a * sin(theta),
        a * cos(theta), read by evaluating ``phase`` and ``value`` on :data:`_TRACE` (at k = 0
        and 1, which must agree); None if they are not of that form."""
        key = (pl.cd, p.numerator, p.denominator)
        hit = self._lin.get(key, False)
        if hit is not False:
            return hit
        u = _Linear(Fraction(1))
        fs = {_traced_factor(phase, pl.cd, k, p, _TRACE, u) for k in range(min(2, len(pl.exps)))}
        a_sin = _traced_factor(value, pl.cd, "sin", u, _TRACE)
        a_cos = _traced_factor(value, pl.cd, "cos", u, _TRACE)
        f = fs.pop() if len(fs) == 1 else None
        res = None if f is None or a_sin is None or a_cos is None else (f, a_sin, a_cos)
        if len(self._lin) > 4096:
            self._lin.clear()
        self._lin[key] = res
        return res

    def _w_fixed(self, pl: _Plan, k: int, prec: int) -> Any:
        """w_k on :class:`FixedBackend` (a FixedIv, or the exact Fraction 1 for e_k = 0), cached per (base, e_k, prec)."""
        e = pl.exps[k]
        key = (pl.pkey[0], e.numerator, e.denominator, prec)
        w = self._wfix.get(key)
        if w is None:
            w = self._wfix[key] = frequency(pl.cd, k, self._fixed_ops(prec))
        return w

    def _fixed_ops(self, prec: int) -> FixedBackend:
        ops = self._fops.get(prec)
        if ops is None:
            ops = self._fops[prec] = FixedBackend(prec)
        return ops

    def _start(self, pl: _Plan, e: Fraction, p: Fraction) -> int:
        """start_prec, cached per position when it does not depend on e (base > 1)."""
        if pl.base_gt1:
            key = (p.numerator, p.denominator, pl.pkey)
            prec0 = self._prec0.get(key)
            if prec0 is None:
                prec0 = self._prec0[key] = self.start_prec(pl.cd, e, p)
            return prec0
        return self.start_prec(pl.cd, e, p)

    def _theta_fixed(self, pl: _Plan, k: int, p: Fraction, prec: int) -> tuple[FixedBackend, FixedIv]:
        """The spec's phase on :class:`FixedBackend`: w_k cached per (base, e_k, prec)."""
        ops = self._fixed_ops(prec)
        w = self._w_fixed(pl, k, prec)
        pkey = (p.numerator, p.denominator, prec)
        pos = self._fpos.get(pkey)  # a dyadic position as an exact FixedIv; any other stays a Fraction
        if pos is None:
            if len(self._fpos) > 4096:
                self._fpos.clear()
            den = p.denominator
            pos = self._fpos[pkey] = FixedIv.of(p, prec) if den & (den - 1) == 0 else p
        return ops, ops.fixed(phase(pl.cd, k, pos, ops, w=w))

    def decimal(self, profile: Profile, d: int, p: Number, j: int, digits: int = DIGITS) -> str:
        """PE_P(p)[j] to ``digits`` significant digits, correctly rounded (both interval ends agree)."""
        p = to_fraction(p, "position")
        pl = self.plan(profile, d)
        col = pl.cols[j]
        if col.kind == "zero":
            return decimal_raw(value(pl.cd, "zero", None, IntervalBackend(64)).a, digits)
        e = pl.exps[col.k]
        key = (pl.pkey, e.numerator, e.denominator, p.numerator, p.denominator, col.kind, digits)
        hit = self._dec.get(key)
        if hit is not None:
            return hit
        prec0 = prec = self.start_prec(pl.cd, e, p, extra=int(digits * 3.33) + 16)
        while True:
            ops, th = self._theta(pl, col.k, p, prec)
            v = value(pl.cd, col.kind, th, ops)
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
        has_zero = any(pl.cols[j].kind == "zero" for j in js)
        zero = value(pl.cd, "zero", None, IntervalBackend(64)) if has_zero else None
        out = {}
        block = np.empty((len(pos), len(self.formats), 1 + 2 * len(ks)), dtype=np.float64)
        if zero is not None:
            block[:, :, 0] = [round_raw(zero.a, f) for f in self.formats]
        nk = len(ks)
        for r, p in enumerate(pos):
            prs = self._row(pl, ks, p)
            if nk:
                block[r, :, 1:1 + nk] = np.array([pr.sin for pr in prs]).T
                block[r, :, 1 + nk:] = np.array([pr.cos for pr in prs]).T
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
    cd = column_data(profile, d)
    kind, k = cd.kinds[j], cd.labels[j]
    ops = IntervalBackend(prec)
    th = None if kind == "zero" else phase(cd, k, to_fraction(position, "position"), ops)
    return value(cd, kind, th, ops).mpi()


def decimal(profile: Profile, d: int, position: Number, j: int, digits: int = DIGITS) -> str:
    """PE_P(position)[j] correctly rounded to ``digits`` significant decimal digits."""
    return Certifier().decimal(profile, d, position, j, digits)
