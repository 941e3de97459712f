"""The one executable definition of the formula (SPEC.md DEF-FAMILY, DEF-CHANNELS, DEF-LAYOUT, DEF-ODD,
DEF-SCHEDULE-*).

:func:`definition` turns a profile into a :class:`Definition` for every width of one parity: the channel plan
(segments whose bounds are linear forms in n = floor(d/2)), the schedule (D(n) linear in n, e_i = i / D(n)) and
the family's parameters (base b, phase scale sigma, offset o, amplitude alpha). :meth:`Definition.at` evaluates
it at one width as :class:`ColumnData`, which is everything a kernel reads (the fast and correctly rounded
tables, the oracles, the checker's references); the proofs read the same Definition with n a symbol. Column j
of PE(p) is::

    alpha * f_j(sigma * (p + o) * b ** (-e_k)),   (f_j, k) = (kinds[j], labels[j])

Backends (SymPy for the proofs, mpmath intervals, Arb balls, mpmath at high precision) evaluate
:func:`phase` and :func:`value` on ColumnData: a backend has ``num(Fraction)``, ``sin``, ``cos``,
``pow(base, exponent)`` and ``zero``.

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
>>> cd = column_data(get_profile("vaswani"), 4)
>>> [value(cd, kind, phase(cd, k, sympy.Symbol("p"), SYMPY), SYMPY) for kind, k in zip(cd.kinds, cd.labels)]
[sin(p), cos(p), sin(p/100), cos(p/100)]
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache, cached_property, lru_cache
from typing import Any, Generic, Protocol, TypeVar

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


def _rational(n: Any) -> Any:
    """How a Fraction is written beside ``n``: a Fraction for an int n, a SymPy Rational for a SymPy n."""
    return Fraction if isinstance(n, int) else SYMPY.num


@dataclass(frozen=True)
class Schedule:
    """DEF-SCHEDULE-*: the denominator D(n) = q*n + r of the exponents e_i = i / D(n), d = 2n (+1).

    DEF-SCHEDULE-HALF (Vaswani): D = d/2, i.e. n (even d) or n + 1/2 (odd d); DEF-SCHEDULE-SHIFT with shift s:
    D = floor(d/2) - s = n - s. ``n`` may be an int (Fractions come back) or a SymPy expression (the proofs).

    >>> import sympy
    >>> n = sympy.Symbol("n", positive=True, integer=True)
    >>> Schedule(Fraction(1), Fraction(1, 2)).denominator(n), Schedule(Fraction(1), Fraction(-1)).exponent(5, 2)
    (n + 1/2, Fraction(1, 2))
    """

    q: Fraction
    r: Fraction

    def denominator(self, n: Any) -> Any:
        conv = _rational(n)
        return conv(self.q) * n + conv(self.r)

    def exponent(self, n: Any, i: Any) -> Any:
        """e_i = i / D(n); exactly 0 for i == 0 (every schedule: w_0 = 1, even where D(n) <= 0)."""
        return self._over(i, self.denominator(n))

    def exponents(self, n: int, count: int) -> tuple[Fraction, ...]:
        """(e_0, ..., e_(count-1)) at an integer n: :meth:`exponent` with D(n) computed once."""
        den = self.denominator(n)
        over = self._over
        return tuple([over(i, den) for i in range(count)])

    @staticmethod
    def _over(i: Any, den: Any) -> Any:
        """i / den: exactly 0 for i = 0; a Fraction for int i over a Fraction den, else SymPy's quotient."""
        if isinstance(i, int) and i == 0:
            return Fraction(0)
        if isinstance(i, int) and isinstance(den, Fraction):
            return Fraction(i * den.denominator, den.numerator)  # = i / den, one normalisation
        return i / den


def schedule(profile: Profile, odd: bool) -> Schedule:
    """The schedule of ``profile`` for widths of one parity (DEF-SCHEDULE-HALF / DEF-SCHEDULE-SHIFT)."""
    if profile.shift is None:
        return Schedule(Fraction(1), Fraction(1, 2) if odd else Fraction(0))
    return Schedule(Fraction(1), -profile.shift)


def pairs_denominator(profile: Profile, n: Any, odd: bool) -> Any:
    """D for d = 2n (+1 if ``odd``): the schedule's D(n) (``n`` an int or a SymPy expression).

    >>> import sympy
    >>> from sinpe.spec.profiles import get_profile
    >>> n = sympy.Symbol("n", positive=True, integer=True)
    >>> pairs_denominator(get_profile("vaswani"), n, True), pairs_denominator(get_profile("t2t"), n, False)
    (n + 1/2, n - 1)
    """
    return schedule(profile, odd).denominator(n)


def pairs_exponent(profile: Profile, n: Any, odd: bool, k: Any) -> Any:
    """e_k = k / D for d = 2n (+1 if ``odd``); ``n`` and ``k`` may be SymPy expressions (the proofs).

    >>> import sympy
    >>> from sinpe.spec.profiles import get_profile
    >>> n, i = sympy.symbols("n i", positive=True, integer=True)
    >>> pairs_exponent(get_profile("t2t"), n, False, i), pairs_exponent(get_profile("vaswani"), 4, True, Fraction(2))
    (i/(n - 1), Fraction(4, 9))
    """
    return schedule(profile, odd).exponent(n, k)


def pairs_n_frequencies(profile: Profile, n: Any, odd: bool) -> Any:
    """N, the number of frequencies for d = 2n (+1 if ``odd``), read off the channel plan: n, plus one when the
    odd column is an unpaired sin/cos column (THM-LIFT decides that the plan holds exactly these labels)."""
    plan = channel_plan(profile.layout, profile.odd if odd else "trailing-sin", odd)
    return plan.n_labels(n)


def n_frequencies(profile: Profile, d: int) -> int:
    """How many distinct frequencies the table uses (DEF-ODD).

    >>> from sinpe.spec.profiles import get_profile
    >>> n_frequencies(get_profile("vaswani"), 7), n_frequencies(get_profile("t2t"), 7)
    (4, 3)
    """
    return plan_of(profile, d).n_labels(d // 2)


def denominator(profile: Profile, d: int) -> Fraction:
    """D in ``w_k = b^(-k/D)``: d/2 (DEF-SCHEDULE-HALF) or floor(d/2) - s (DEF-SCHEDULE-SHIFT).

    >>> from sinpe.spec.profiles import get_profile
    >>> denominator(get_profile("vaswani"), 5), denominator(get_profile("t2t"), 64)
    (Fraction(5, 2), Fraction(31, 1))
    """
    check_width(d)
    return pairs_denominator(profile, d // 2, bool(d % 2))


def exponent(profile: Profile, d: int, k: int) -> Fraction:
    """The exact rational e_k with ``w_k = base ** (-e_k)``: ``column_data(profile, d).exponents[k]``.

    A shifted schedule whose denominator is <= 0 is defined only when it has a single
    frequency (tensor2tensor guards ``n - 1`` with ``max(n - 1, 1)``; e.g. t2t at d = 2).
    """
    es = column_data(profile, d).exponents
    if not 0 <= k < len(es):
        raise ValueError(f"frequency index {k} out of range: d={d} has {len(es)} frequencies")
    return es[k]


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


class _Labelled(Protocol):
    """A segment of a plan, as the plan itself reads it: which function its labels belong to."""

    @property
    def kind(self) -> str: ...


_Seg = TypeVar("_Seg", bound=_Labelled)


@dataclass(frozen=True)
class ChannelPlan(Generic[_Seg]):
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
    paired: tuple[_Seg, ...]  # :class:`Segment` here; the proofs' SymPy segments in sinpe.spec.theorems.SymbolicPlan
    extra: _Seg | None

    @property
    def name(self) -> str:
        return f"{self.layout}, {'odd d (' + self.odd_rule + ')' if self.odd else 'even d'}"

    def d(self, n: Any) -> Any:
        return 2 * n + int(self.odd)

    def segments(self) -> tuple[_Seg, ...]:
        return self.paired + ((self.extra,) if self.extra else ())

    def n_labels(self, n: Any) -> Any:
        """N, the frequency labels the plan holds at n: n, plus one for an unpaired sin/cos odd column (label n)."""
        return n + int(self.unpaired() in ("sin", "cos"))

    def unpaired(self) -> str | None:
        """'sin' or 'cos' if the odd column is an unpaired frequency n, 'zero', or None (even d)."""
        return None if self.extra is None else self.extra.kind

    def at(self: ChannelPlan[Segment], n: int) -> tuple[Column, ...]:
        """What each of the d = 2n (+1) columns holds (ValueError if the segments do not tile [0, d))."""
        kinds, labels = self.tables(n)
        return tuple(Column(kind, k) for kind, k in zip(kinds, labels, strict=True))

    def tables(self: ChannelPlan[Segment], n: int) -> tuple[tuple[str, ...], tuple[int, ...]]:
        """``(kinds, labels)`` of the d = 2n (+1) columns, each segment copied as a slice (ValueError if the
        segments do not tile [0, d): a column written twice, outside, or not at all)."""
        d = self.d(n)
        kinds: list[str | None] = [None] * d
        labels = [0] * d
        for s in self.segments():
            cols, labs = s.columns(n), s.labels(n)
            if len(cols) and (cols.start < 0 or cols[-1] >= d or cols[-1] < 0):
                raise ValueError(f"plan {self.name}: segment {s.kind} writes column {cols[-1] if cols[-1] >= d else cols.start} "
                                 f"at n={n}")
            sl = slice(cols.start, cols.stop if cols.stop >= 0 else None, cols.step)
            if len(cols) and kinds[sl].count(None) != len(cols):  # kinds[sl] is kinds[j] for j in cols (bounds checked)
                j = next(j for j in cols if kinds[j] is not None)
                raise ValueError(f"plan {self.name}: segment {s.kind} writes column {j} at n={n}")
            kinds[sl] = [s.kind] * len(cols)
            labels[sl] = [0] * len(cols) if s.kind == "zero" else list(labs)
        if None in kinds:
            raise ValueError(f"plan {self.name}: column {kinds.index(None)} unset at n={n}")
        return tuple(kinds), tuple(labels)  # type: ignore[arg-type]


_ZERO, _ONE, _N = Lin(0, 0), Lin(0, 1), Lin(1, 0)
LAYOUTS = ("interleaved", "sin-cos", "cos-sin")
ODD_RULES = ("trailing-sin", "zero-pad", "ceil-split")


@cache
def channel_plan(layout: str, odd_rule: str, odd: bool) -> ChannelPlan[Segment]:
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


def plan_of(profile: Profile, d: int) -> ChannelPlan[Segment]:
    """The channel plan of ``profile`` at width d (DEF-ODD's 'error' rule refuses odd d)."""
    check_width(d)
    if d % 2 and profile.odd == "error":
        raise ValueError(f"profile {profile.name or profile.describe()!r} is not defined for odd d={d} (odd rule 'error')")
    return channel_plan(profile.layout, profile.odd if d % 2 else "trailing-sin", bool(d % 2))


# DEF-ROPE-LAYOUT as channel plans: a duplicated rotary layout of dim = 2n columns rotates, for each label i,
# the pair (first member, second member) by the angle p * w_i; the pairs sit where the 1-D plan puts
# (sin_i, cos_i): rotate-every-two ('pairs') is the interleaved plan, rotate-half ('halves') the sin-cos plan.
ROTARY_PAIRING = {"pairs": "interleaved", "halves": "sin-cos"}


def rotary_pairs(layout: str) -> ChannelPlan[Segment]:
    """The channel plan of a duplicated rotary layout (DEF-ROPE-LAYOUT): its 'sin' segment holds the first
    member of each rotated pair, its 'cos' segment the second, both of frequency label i.

    >>> [(c.kind, c.k) for c in rotary_pairs("halves").at(2)]
    [('sin', 0), ('sin', 1), ('cos', 0), ('cos', 1)]
    """
    if layout not in ROTARY_PAIRING:
        raise ValueError(f"a duplicated rotary layout is one of {', '.join(ROTARY_PAIRING)}; got {layout!r}")
    return channel_plan(ROTARY_PAIRING[layout], "trailing-sin", False)


# ---------------------------------------------------------------- the executable definition: plan + schedule + family

@dataclass(frozen=True)
class Definition:
    """DEF-FAMILY for every width of one parity, as data symbolic in n = floor(d/2): column j of PE(p) is
    ``amplitude * f_j(scale * (p + offset) * base ** (-schedule.exponent(n, k_j)))`` with (f_j, k_j) the label
    the channel plan puts in column j. The kernels evaluate :meth:`at` (an int n: :class:`ColumnData`); the
    proofs read the same object with n a SymPy symbol (``sinpe.spec.theorems``), the parameters as given or
    replaced by symbols (:meth:`generic`).

    >>> from sinpe.spec.profiles import get_profile
    >>> df = definition(get_profile("t2t"), False)
    >>> df.plan.name, df.schedule.denominator(4), df.at(8).exponents
    ('sin-cos, even d', Fraction(3, 1), (Fraction(0, 1), Fraction(1, 3), Fraction(2, 3), Fraction(1, 1)))
    """

    plan: ChannelPlan[Segment]
    schedule: Schedule
    base: Any
    scale: Any
    offset: Any
    amplitude: Any
    name: str = ""

    def value(self, kind: str, i: Any, n: Any, p: Any, ops: Backend) -> Any:
        """The value of label (kind, i) at position p for d = 2n (+1): what :func:`value` of :meth:`at` gives,
        with i, n, p and the parameters possibly SymPy expressions (the proofs)."""
        w = weight(self.schedule.exponent(n, i), self.base, ops)
        return entry(kind, theta(p, w, self.offset, self.scale, ops), self.amplitude, ops)

    def at(self, d: int) -> ColumnData:
        """The column data at width d (its parity must be the plan's)."""
        check_width(d)
        if d % 2 != int(self.plan.odd):
            raise ValueError(f"plan {self.plan.name} read at d={d}")
        n = d // 2
        kinds, labels = self.plan.tables(n)
        nf = self.plan.n_labels(n)
        if nf > 1 and self.schedule.denominator(n) <= 0:
            raise ValueError(f"frequency schedule undefined: D = floor(d/2) - shift = {self.schedule.denominator(n)} "
                             f"<= 0 at d={d} with {nf} frequencies")
        return ColumnData(d, kinds, labels, nf, self.schedule, self.base, self.scale, self.offset, self.amplitude,
                          self.name)


@lru_cache(maxsize=1024)
def definition(profile: Profile, odd: bool) -> Definition:
    """The :class:`Definition` of ``profile`` for even (``odd`` False) or odd widths."""
    if odd and profile.odd == "error":
        raise ValueError(f"profile {profile.name or profile.describe()!r} is not defined for odd d (odd rule 'error')")
    plan = channel_plan(profile.layout, profile.odd if odd else "trailing-sin", bool(odd))
    return Definition(plan, schedule(profile, bool(odd)), profile.base, profile.phase_scale, profile.offset,
                      profile.amplitude, profile.cli_flags())


@dataclass(frozen=True)
class ColumnData:
    """The definition at one width: all a kernel reads (SPEC.md DEF-CHANNELS).

    Column j holds ``amplitude * f(scale * (p + offset) * base ** (-exponents[labels[j]]))`` with
    f = ``kinds[j]`` (sin, cos or the zero function); ``partner[j]`` is the column of the other function
    with the same label (the pair M_k rotates; a rotary layout's rotated pair), None for a zero or an
    unpaired column. ``name`` says where it came from (the profile's flags), for messages only.

    >>> from sinpe.spec.profiles import get_profile
    >>> cd = column_data(get_profile("vaswani"), 5)
    >>> cd.kinds, cd.labels, cd.partner, cd.exponents[2]
    (('sin', 'cos', 'sin', 'cos', 'sin'), (0, 0, 1, 1, 2), (1, 0, 3, 2, None), Fraction(4, 5))
    """

    d: int
    kinds: tuple[str, ...]
    labels: tuple[int, ...]
    n_frequencies: int
    schedule: Schedule
    base: Fraction
    scale: Fraction
    offset: Fraction
    amplitude: Fraction
    name: str = field(default="", compare=False)

    @cached_property
    def exponents(self) -> tuple[Fraction, ...]:
        """e_0 .. e_(N-1) of the schedule at n = floor(d/2)."""
        return self.schedule.exponents(self.d // 2, self.n_frequencies)

    @cached_property
    def partner(self) -> tuple[int | None, ...]:
        """Per column, the column of the other function with the same label (None: a zero or unpaired column)."""
        where = {(f, k): j for j, (f, k) in enumerate(zip(self.kinds, self.labels, strict=True))}
        return tuple(where.get(("cos" if f == "sin" else "sin", k)) if f != "zero" else None
                     for f, k in zip(self.kinds, self.labels, strict=True))

    @cached_property
    def columns(self) -> tuple[Column, ...]:
        return tuple(Column(kind, 0 if kind == "zero" else k) for kind, k in zip(self.kinds, self.labels, strict=True))

    @cached_property
    def index(self) -> ColumnIndex:
        """The columns as copy instructions (:class:`ColumnIndex`)."""
        dst, src = {}, {}
        for f in ("sin", "cos"):
            js = [j for j, kind in enumerate(self.kinds) if kind == f]
            dst[f], src[f] = _as_slice(js), _as_slice([self.labels[j] for j in js])
        return ColumnIndex(dst, src, tuple(j for j, kind in enumerate(self.kinds) if kind == "zero"))


def column_data(profile: Profile, d: int) -> ColumnData:
    """:class:`ColumnData` of ``profile`` at width d: ``definition(profile, d % 2).at(d)``."""
    check_width(d)  # before the cache: True == 1 would hit it
    return _column_data(profile, d)


@lru_cache(maxsize=4096)
def _column_data(profile: Profile, d: int) -> ColumnData:
    plan_of(profile, d)  # DEF-ODD's 'error' rule refuses odd d, naming d
    return definition(profile, bool(d % 2)).at(d)


def rotary_definition(layout: str) -> Definition:
    """A duplicated rotary layout as a :class:`Definition` (DEF-ROPE-LAYOUT, DEF-ROPE-FREQ-DEFAULT): the pairing
    plan of :func:`rotary_pairs` ('sin' = the first member of each rotated pair, 'cos' = the second) and
    DEF-SCHEDULE-HALF's schedule at even dim (D = n, e_k = 2k/dim). The rotary profile's rule (spec/rotary.py)
    makes the frequencies from these exponents; base, scale, offset and amplitude here are placeholders."""
    return Definition(rotary_pairs(layout), Schedule(Fraction(1), Fraction(0)), Fraction(10000), Fraction(1),
                      Fraction(0), Fraction(1), f"rotary {layout}")


@lru_cache(maxsize=256)
def rotary_data(layout: str, dim: int) -> ColumnData:
    """:func:`rotary_definition` at head dimension ``dim`` (``partner``: the other member of each pair).

    >>> cd = rotary_data("halves", 8)
    >>> cd.labels, cd.partner[:2], cd.exponents[1]
    ((0, 1, 2, 3, 0, 1, 2, 3), (4, 5), Fraction(1, 4))
    """
    if isinstance(dim, bool) or not isinstance(dim, int) or dim < 2 or dim % 2:
        raise ValueError(f"rotary dim must be an even integer >= 2; got {dim!r}")
    return rotary_definition(layout).at(dim)

def columns(profile: Profile, d: int) -> tuple[Column, ...]:
    """The column plan of DEF-LAYOUT and DEF-ODD: ``columns(P, d)[j]`` is what column j holds."""
    return column_data(profile, d).columns


@dataclass(frozen=True)
class ColumnIndex:
    """The plan at one width as copy instructions: column ``dst[f]`` of the table takes frequency ``src[f]``
    of function f ('sin', 'cos'); ``zero`` lists the zero columns. Each is a slice when the columns (labels)
    of that function form one arithmetic run (every layout but concatenated odd d), else an index array."""

    dst: dict[str, Any]
    src: dict[str, Any]
    zero: tuple[int, ...]


def column_index(profile: Profile, d: int) -> ColumnIndex:
    """``column_data(profile, d).index``.

    >>> from sinpe.spec.profiles import get_profile
    >>> ci = column_index(get_profile("vaswani"), 5)
    >>> ci.dst["sin"], ci.src["sin"], ci.dst["cos"], ci.zero
    (slice(0, 5, 2), slice(0, 3, 1), slice(1, 4, 2), ())
    """
    return column_data(profile, d).index


def _as_slice(js: list[int]) -> Any:
    """One slice for an arithmetic run of indices (step > 0), else an index array (NumPy)."""
    if not js:
        return slice(0, 0)
    step = js[1] - js[0] if len(js) > 1 else 1
    if step > 0 and js == list(range(js[0], js[-1] + 1, step)):  # every consecutive difference is step
        return slice(js[0], js[-1] + 1, step)
    import numpy as np
    return np.array(js, dtype=np.intp)


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


def _num(ops: Backend, x: Any) -> Any:
    """A parameter in the backend: an exact rational converted, a SymPy symbol (the proofs' generic parameters)
    taken as it is."""
    return ops.num(Fraction(x)) if isinstance(x, (int, Fraction)) and not isinstance(x, bool) else x


def weight(e: Any, base: Any, ops: Backend) -> Any:
    """w = base ** (-e) in the backend (DEF-SCHEDULE-*), exactly 1 for e = 0."""
    return geometric(e, lambda x: ops.pow(_num(ops, base), _num(ops, x)), _num(ops, Fraction(1)))


def theta(p: Any, w: Any, offset: Any, scale: Any, ops: Backend) -> Any:
    """scale * (p + offset) * w (DEF-FAMILY), no rounding step for offset 0 or scale 1."""
    return angle(_num(ops, p), w, _num(ops, offset) if offset != 0 else None, _num(ops, scale) if scale != 1 else None)


def entry(kind: str, th: Any, amplitude: Any, ops: Backend) -> Any:
    """amplitude * f(th), f = sin, cos or the zero function (DEF-FAMILY)."""
    return channel_value(kind, th, ops, _num(ops, amplitude) if amplitude != 1 else None)


def frequency(cd: ColumnData, k: int, ops: Backend) -> Any:
    """w_k = base ** (-e_k) in the backend (exactly 1 for e_k = 0)."""
    return weight(cd.exponents[k], cd.base, ops)


def phase(cd: ColumnData, k: int, p: Any, ops: Backend, w: Any = None) -> Any:
    """theta = scale * (p + offset) * w_k; ``p`` is a backend value or a Fraction.

    ``w`` may pass a precomputed ``frequency(cd, k, ops)`` (callers that loop over positions).
    """
    return theta(p, frequency(cd, k, ops) if w is None else w, cd.offset, cd.scale, ops)


def value(cd: ColumnData, kind: str, theta: Any, ops: Backend) -> Any:
    """amplitude * f(theta), f the function ``kind`` names ('sin', 'cos', 'zero')."""
    return entry(kind, theta, cd.amplitude, ops)


def row(cd: ColumnData, p: Any, ops: Backend) -> list[Any]:
    """PE(p) as a list of d backend values (each frequency's phase computed once)."""
    thetas: dict[int, Any] = {}
    out = []
    for kind, k in zip(cd.kinds, cd.labels, strict=True):
        if kind != "zero" and k not in thetas:
            thetas[k] = phase(cd, k, p, ops)
        out.append(value(cd, kind, thetas.get(k), ops))
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


SYMPY: Backend = _LazySympy()
