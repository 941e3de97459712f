"""The one definition of the formula (SPEC.md DEF-PE, DEF-LAYOUT, DEF-ODD, DEF-SCHEDULE-*).

Everything else in sinpe evaluates these functions with a *backend*: SymPy (proofs), mpmath
intervals and high precision (reference), python-flint Arb balls (second oracle). A backend
is any object with ``num(Fraction)``, ``sin``, ``cos``, ``pow(base, exponent)`` and ``zero``.

Column j of PE(p) for a profile P and width d is ``P.amplitude * f(theta)``, where
``(f, k) = columns(P, d)[j]`` and::

    theta = P.phase_scale * (p + P.offset) * w_k,    w_k = P.base ** (-exponent(P, d, k))

>>> from sinpe.spec.profiles import get_profile
>>> [c.label for c in columns(get_profile("vaswani"), 5)]
['sin0', 'cos0', 'sin1', 'cos1', 'sin2']
>>> [c.label for c in columns(get_profile("vaswani-concat"), 5)]
['sin0', 'sin1', 'sin2', 'cos0', 'cos1']
>>> [c.label for c in columns(get_profile("t2t"), 5)]
['sin0', 'sin1', 'cos0', 'cos1', 'zero']
>>> exponent(get_profile("vaswani"), 5, 2), exponent(get_profile("t2t"), 8, 3)
(Fraction(4, 5), Fraction(1, 1))
>>> import sympy
>>> p = sympy.Symbol("p")
>>> [value(c, phase(get_profile("vaswani"), 4, c.k, p, SYMPY), get_profile("vaswani"), SYMPY)
...  for c in columns(get_profile("vaswani"), 4)]
[sin(p), cos(p), sin(p/100), cos(p/100)]
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Protocol

from .profiles import Profile


@dataclass(frozen=True)
class Column:
    """What column j holds: ``kind`` in {'sin', 'cos', 'zero'} of frequency index ``k``."""

    kind: str
    k: int

    @property
    def label(self) -> str:
        return "zero" if self.kind == "zero" else f"{self.kind}{self.k}"


def check_width(d: int) -> None:
    if isinstance(d, bool) or not isinstance(d, int) or d < 1:
        raise ValueError(f"d must be an integer >= 1; got {d!r}")


def n_frequencies(profile: Profile, d: int) -> int:
    """How many distinct frequencies the table uses (DEF-ODD).

    >>> from sinpe.spec.profiles import get_profile
    >>> n_frequencies(get_profile("vaswani"), 7), n_frequencies(get_profile("t2t"), 7)
    (4, 3)
    """
    check_width(d)
    if d % 2 and profile.odd == "error":
        raise ValueError(f"profile {profile.name or profile.describe()!r} is not defined for odd d={d} (odd rule 'error')")
    return pairs_n_frequencies(profile, d // 2, bool(d % 2))


def pairs_n_frequencies(profile: Profile, n: Any, odd: bool) -> Any:
    """The number of frequencies for d = 2n (+1 if ``odd``); ``n`` may be a SymPy symbol (the proofs)."""
    return n + 1 if odd and profile.odd != "zero-pad" else n


def pairs_denominator(profile: Profile, n: Any, odd: bool) -> Any:
    """D for d = 2n (+1 if ``odd``): n (+ 1/2 when odd) for DEF-SCHEDULE-HALF, n - s for DEF-SCHEDULE-SHIFT.

    ``n`` is an int (Fractions come back) or a SymPy expression (SymPy comes back).

    >>> import sympy
    >>> from sinpe.spec.profiles import get_profile
    >>> n = sympy.Symbol("n", positive=True, integer=True)
    >>> pairs_denominator(get_profile("vaswani"), n, True), pairs_denominator(get_profile("t2t"), n, False)
    (n + 1/2, n - 1)
    """
    conv = Fraction if isinstance(n, int) else SYMPY.num
    if profile.shift is None:
        return n + conv(Fraction(1, 2)) if odd else n + conv(Fraction(0))
    return n - conv(profile.shift)


def pairs_exponent(profile: Profile, n: Any, odd: bool, k: Any) -> Any:
    """e_k = k / D for d = 2n (+1 if ``odd``); ``n`` and ``k`` may be SymPy expressions (the proofs).

    >>> import sympy
    >>> from sinpe.spec.profiles import get_profile
    >>> n, i = sympy.symbols("n i", positive=True, integer=True)
    >>> pairs_exponent(get_profile("t2t"), n, False, i), pairs_exponent(get_profile("vaswani"), 4, True, Fraction(2))
    (i/(n - 1), Fraction(4, 9))
    """
    return k / pairs_denominator(profile, n, odd)


def denominator(profile: Profile, d: int) -> Fraction:
    """D in ``w_k = b^(-k/D)``: d/2 (DEF-SCHEDULE-HALF) or floor(d/2) - s (DEF-SCHEDULE-SHIFT).

    >>> from sinpe.spec.profiles import get_profile
    >>> denominator(get_profile("vaswani"), 5), denominator(get_profile("t2t"), 64)
    (Fraction(5, 2), Fraction(31, 1))
    """
    check_width(d)
    return pairs_denominator(profile, d // 2, bool(d % 2))


def exponent(profile: Profile, d: int, k: int) -> Fraction:
    """The exact rational e_k with ``w_k = base ** (-e_k)``; e_0 = 0 for every schedule.

    A shifted schedule whose denominator is <= 0 is defined only when it has a single
    frequency (tensor2tensor guards ``n - 1`` with ``max(n - 1, 1)``; e.g. t2t at d = 2).
    """
    if k == 0:
        return Fraction(0)
    D = denominator(profile, d)
    if D <= 0:
        raise ValueError(f"frequency schedule undefined: D = floor(d/2) - shift = {D} <= 0 at d={d} "
                         f"with {n_frequencies(profile, d)} frequencies")
    return pairs_exponent(profile, d // 2, bool(d % 2), Fraction(k))


# ---------------------------------------------------------------- DEF-CHANNELS: the one column plan

@dataclass(frozen=True)
class Lin:
    """``q*n + r``: a bound or column offset of the plan, linear in n = floor(d/2).

    Calling it evaluates it at ``n``, an int (the kernels) or a SymPy symbol (the proofs), so the
    numbers and the theorems read the same data.

    >>> import sympy
    >>> Lin(1, 1)(5), Lin(2, 0)(sympy.Symbol("n"))
    (6, 2*n)
    """

    q: int = 0
    r: int = 0

    def __call__(self, n: Any) -> Any:
        return self.q * n + self.r


@dataclass(frozen=True)
class Segment:
    """Columns ``a*i + c(n)`` hold label ``(kind, i)`` for ``lo(n) <= i < hi(n)``; ``a`` is 0 only for a
    single column (the zero column)."""

    kind: str
    lo: Lin
    hi: Lin
    a: int
    c: Lin

    def columns(self, n: int) -> range:
        """The table columns this segment fills at n (a range: every kernel copies it as a slice)."""
        lo, hi, c = self.lo(n), self.hi(n), self.c(n)
        return range(c + self.a * lo, c + self.a * hi, self.a) if self.a else range(c, c + max(hi - lo, 0))

    def labels(self, n: int) -> range:
        return range(self.lo(n), self.hi(n))


@dataclass(frozen=True)
class ChannelPlan:
    """DEF-LAYOUT and DEF-ODD as data, symbolic in n: d = 2n (+1 if ``odd``).

    ``paired``: the segments of sin_i and cos_i for 0 <= i < n; ``extra``: the odd column (sin_n, cos_n
    or zero). This is the only place the plan is written: :func:`columns` evaluates it at n = floor(d/2),
    the kernels copy its segments as slices (:func:`column_index`), and the proofs read the same segments
    with n a symbol (``sinpe.spec.theorems``, THM-LIFT decides that they are a bijection for every n).

    >>> plan = channel_plan("sin-cos", "ceil-split", True)
    >>> [c.label for c in plan.at(2)]
    ['sin0', 'sin1', 'sin2', 'cos0', 'cos1']
    """

    layout: str
    odd_rule: str
    odd: bool
    paired: tuple[Segment, ...]
    extra: Segment | None

    @property
    def name(self) -> str:
        return f"{self.layout}, {'odd d (' + self.odd_rule + ')' if self.odd else 'even d'}"

    def d(self, n: Any) -> Any:
        return 2 * n + int(self.odd)

    def segments(self) -> tuple[Segment, ...]:
        return self.paired + ((self.extra,) if self.extra else ())

    def unpaired(self) -> str | None:
        """'sin' or 'cos' if the odd column is an unpaired frequency n, 'zero', or None (even d)."""
        return None if self.extra is None else self.extra.kind

    def at(self, n: int) -> tuple[Column, ...]:
        """What each of the d = 2n (+1) columns holds (ValueError if the segments do not tile [0, d))."""
        out: list[Column | None] = [None] * self.d(n)
        for s in self.segments():
            for i, j in zip(s.labels(n), s.columns(n)):
                if not 0 <= j < len(out) or out[j] is not None:
                    raise ValueError(f"plan {self.name}: segment {s.kind} writes column {j} at n={n}")
                out[j] = Column(s.kind, 0 if s.kind == "zero" else i)
        if None in out:
            raise ValueError(f"plan {self.name}: column {out.index(None)} unset at n={n}")
        return tuple(c for c in out if c is not None)


_ZERO, _ONE, _N = Lin(0, 0), Lin(0, 1), Lin(1, 0)
LAYOUTS = ("interleaved", "sin-cos", "cos-sin")
ODD_RULES = ("trailing-sin", "zero-pad", "ceil-split")


@lru_cache(maxsize=None)
def channel_plan(layout: str, odd_rule: str, odd: bool) -> ChannelPlan:
    """The column plan of ``layout`` under ``odd_rule`` (DEF-LAYOUT, DEF-ODD) for d = 2n (+1 if ``odd``).

    interleaved: sin_i at 2i, cos_i at 2i+1; sin-cos / cos-sin: the first function's n columns, then the
    second's. Odd d: zero-pad puts a zero column at 2n; trailing-sin puts sin_n there; ceil-split gives the
    first half the extra frequency n (at column n, the second half moves one right); for interleaved
    tables ceil-split is trailing-sin (the same table).
    """
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}; got {layout!r}")
    if odd and odd_rule not in ODD_RULES:
        raise ValueError(f"odd rule must be one of {', '.join(ODD_RULES)}; got {odd_rule!r}")
    if layout == "interleaved":
        paired = (Segment("sin", _ZERO, _N, 2, _ZERO), Segment("cos", _ZERO, _N, 2, _ONE))
        first, ceil = "sin", False
    else:
        first, second = ("sin", "cos") if layout == "sin-cos" else ("cos", "sin")
        ceil = odd and odd_rule == "ceil-split"
        paired = (Segment(first, _ZERO, _N, 1, _ZERO), Segment(second, _ZERO, _N, 1, Lin(1, 1) if ceil else _N))
    extra = None
    if odd and odd_rule == "zero-pad":
        extra = Segment("zero", _ZERO, _ONE, 0, Lin(2, 0))
    elif ceil:  # the first half holds the extra frequency n at column n
        extra = Segment(first, _N, Lin(1, 1), 1, _ZERO)
    elif odd:  # trailing-sin (and ceil-split interleaved): sin_n in the last column 2n
        extra = Segment("sin", _N, Lin(1, 1), 2, _ZERO) if layout == "interleaved" else Segment("sin", _N, Lin(1, 1), 1, _N)
    return ChannelPlan(layout, odd_rule, odd, paired, extra)


def plan_of(profile: Profile, d: int) -> ChannelPlan:
    """The channel plan of ``profile`` at width d (DEF-ODD's 'error' rule refuses odd d)."""
    check_width(d)
    n_frequencies(profile, d)  # the odd rule 'error' raises here
    return channel_plan(profile.layout, profile.odd if d % 2 else "trailing-sin", bool(d % 2))


def columns(profile: Profile, d: int) -> tuple[Column, ...]:
    """The column plan of DEF-LAYOUT and DEF-ODD: ``columns(P, d)[j]`` is what column j holds."""
    check_width(d)  # before the cache: True == 1 would hit it
    return _columns(profile, d)


@lru_cache(maxsize=4096)
def _columns(profile: Profile, d: int) -> tuple[Column, ...]:
    return plan_of(profile, d).at(d // 2)


# DEF-ROPE-LAYOUT as channel plans: a duplicated rotary layout of dim = 2n columns rotates, for each label i,
# the pair (first member, second member) by the angle p * w_i; the pairs sit where the 1-D plan puts
# (sin_i, cos_i): rotate-every-two ('pairs') is the interleaved plan, rotate-half ('halves') the sin-cos plan.
ROTARY_PAIRING = {"pairs": "interleaved", "halves": "sin-cos"}


def rotary_pairs(layout: str) -> ChannelPlan:
    """The channel plan of a duplicated rotary layout (DEF-ROPE-LAYOUT): its 'sin' segment holds the first
    member of each rotated pair, its 'cos' segment the second, both of frequency label i.

    >>> [(c.kind, c.k) for c in rotary_pairs("halves").at(2)]
    [('sin', 0), ('sin', 1), ('cos', 0), ('cos', 1)]
    """
    if layout not in ROTARY_PAIRING:
        raise ValueError(f"a duplicated rotary layout is one of {', '.join(ROTARY_PAIRING)}; got {layout!r}")
    return channel_plan(ROTARY_PAIRING[layout], "trailing-sin", False)


@dataclass(frozen=True)
class ColumnIndex:
    """The plan at one width as copy instructions: column ``dst[f]`` of the table takes frequency ``src[f]``
    of function f ('sin', 'cos'); ``zero`` lists the zero columns. Each is a slice when the plan's segments
    of that function form one arithmetic run (every layout but concatenated odd d), else an index array."""

    dst: dict[str, Any]
    src: dict[str, Any]
    zero: tuple[int, ...]


def column_index(profile: Profile, d: int) -> ColumnIndex:
    """:class:`ColumnIndex` of ``plan_of(profile, d)`` at n = floor(d/2), straight from its segments.

    >>> from sinpe.spec.profiles import get_profile
    >>> ci = column_index(get_profile("vaswani"), 5)
    >>> ci.dst["sin"], ci.src["sin"], ci.dst["cos"], ci.zero
    (slice(0, 5, 2), slice(0, 3, 1), slice(1, 4, 2), ())
    """
    check_width(d)
    return _column_index(profile, d)


@lru_cache(maxsize=256)
def _column_index(profile: Profile, d: int) -> ColumnIndex:
    n, dst, src = d // 2, {}, {}
    segs = plan_of(profile, d).segments()
    for f in ("sin", "cos"):
        runs = [(s.columns(n), s.labels(n)) for s in segs if s.kind == f and len(s.labels(n))]
        dst[f], src[f] = _joined([r for r, _ in runs]), _joined([r for _, r in runs])
    zero = tuple(j for s in segs if s.kind == "zero" for j in s.columns(n))
    return ColumnIndex(dst, src, zero)


def _joined(runs: list[range]) -> Any:
    """One slice for runs that continue each other with one step, else an index array (NumPy)."""
    if not runs:
        return slice(0, 0)
    step = runs[0].step if len(runs[0]) > 1 else (runs[1].step if len(runs) > 1 else 1)
    start, stop = runs[0].start, runs[0].start
    for r in runs:
        if r.start != stop or (len(r) > 1 and r.step != step):
            import numpy as np
            return np.array([j for q in runs for j in q], dtype=np.intp)
        stop = r.start + step * len(r)
    return slice(start, stop - step + 1 if step > 0 else stop, step)


class Backend(Protocol):
    zero: Any

    def num(self, x: Fraction) -> Any: ...
    def sin(self, x: Any) -> Any: ...
    def cos(self, x: Any) -> Any: ...
    def pow(self, base: Any, e: Any) -> Any: ...


def geometric(e: Any, power: Any, one: Any = 1) -> Any:
    """w = base**(-e) as ``power(-e)``, and exactly ``one`` when e == 0 (DEF-SCHEDULE-*): ``e`` a Fraction
    or a SymPy expression (the proofs' symbolic i/D)."""
    return one if e == 0 else power(-e)


def angle(p: Any, w: Any, offset: Any = None, scale: Any = None) -> Any:
    """theta = scale * (p + offset) * w (DEF-FAMILY); ``None`` for offset 0 / scale 1 (no rounding step)."""
    th = (p if offset is None else p + offset) * w
    return th if scale is None else scale * th


def channel_value(kind: str, theta: Any, ops: Any, amplitude: Any = None) -> Any:
    """amplitude * f(theta), f = sin, cos or the zero function (DEF-FAMILY); ``None`` for amplitude 1."""
    if kind == "zero":
        return ops.zero
    v = ops.sin(theta) if kind == "sin" else ops.cos(theta)
    return v if amplitude is None else amplitude * v


def frequency(profile: Profile, d: int, k: int, ops: Backend) -> Any:
    """w_k = base ** (-e_k) in the backend."""
    return geometric(exponent(profile, d, k), lambda e: ops.pow(ops.num(profile.base), ops.num(e)), ops.num(Fraction(1)))


def phase(profile: Profile, d: int, k: int, p: Any, ops: Backend, w: Any = None) -> Any:
    """theta = phase_scale * (p + offset) * w_k; ``p`` is a backend value or a Fraction.

    ``w`` may pass a precomputed ``frequency(profile, d, k, ops)`` (callers that loop over positions).
    """
    if isinstance(p, (int, Fraction)):
        p = ops.num(Fraction(p))
    return angle(p, frequency(profile, d, k, ops) if w is None else w,
                 ops.num(profile.offset) if profile.offset != 0 else None,
                 ops.num(profile.phase_scale) if profile.phase_scale != 1 else None)


def value(col: Column, theta: Any, profile: Profile, ops: Backend) -> Any:
    """amplitude * f(theta) for the column's f."""
    return channel_value(col.kind, theta, ops, ops.num(profile.amplitude) if profile.amplitude != 1 else None)


def row(profile: Profile, d: int, p: Any, ops: Backend) -> list[Any]:
    """PE(p) as a list of d backend values (each frequency's phase computed once)."""
    thetas: dict[int, Any] = {}
    out = []
    for col in columns(profile, d):
        if col.kind != "zero" and col.k not in thetas:
            thetas[col.k] = phase(profile, d, col.k, p, ops)
        out.append(value(col, thetas.get(col.k), profile, ops))
    return out


class _Sympy:
    """Exact symbolic backend (used by the proofs)."""

    def __init__(self) -> None:
        import sympy
        self._s = sympy
        self.zero = sympy.Integer(0)

    def num(self, x: Fraction) -> Any:
        return self._s.Rational(x.numerator, x.denominator)

    def sin(self, x: Any) -> Any:
        return self._s.sin(x)

    def cos(self, x: Any) -> Any:
        return self._s.cos(x)

    def pow(self, base: Any, e: Any) -> Any:
        return self._s.Pow(base, e)


class _LazySympy:
    _impl: _Sympy | None = None

    def __getattr__(self, name: str) -> Any:
        if _LazySympy._impl is None:
            _LazySympy._impl = _Sympy()
        return getattr(_LazySympy._impl, name)


SYMPY: Backend = _LazySympy()  # type: ignore[assignment]
