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


def columns(profile: Profile, d: int) -> tuple[Column, ...]:
    """The column plan of DEF-LAYOUT and DEF-ODD: ``columns(P, d)[j]`` is what column j holds."""
    check_width(d)  # before the cache: True == 1 would hit it
    return _columns(profile, d)


@lru_cache(maxsize=4096)
def _columns(profile: Profile, d: int) -> tuple[Column, ...]:
    n_freq = n_frequencies(profile, d)
    n = d // 2  # complete (sin, cos) pairs
    if profile.layout == "interleaved":
        cols = [Column("sin" if j % 2 == 0 else "cos", j // 2) for j in range(2 * n)]
        if d % 2:
            cols.append(Column("zero", 0) if n_freq == n else Column("sin", n))
        return tuple(cols)
    first, second = ("sin", "cos") if profile.layout == "sin-cos" else ("cos", "sin")
    if d % 2 and profile.odd == "ceil-split":
        m = n_freq  # ceil(d/2) in the first half, one fewer in the second
        return tuple([Column(first, k) for k in range(m)] + [Column(second, k) for k in range(m - 1)])
    cols = [Column(first, k) for k in range(n)] + [Column(second, k) for k in range(n)]
    if d % 2:
        cols.append(Column("zero", 0) if profile.odd == "zero-pad" else Column("sin", n))
    return tuple(cols)


class Backend(Protocol):
    zero: Any

    def num(self, x: Fraction) -> Any: ...
    def sin(self, x: Any) -> Any: ...
    def cos(self, x: Any) -> Any: ...
    def pow(self, base: Any, e: Any) -> Any: ...


def frequency(profile: Profile, d: int, k: int, ops: Backend) -> Any:
    """w_k = base ** (-e_k) in the backend."""
    e = exponent(profile, d, k)
    if e == 0:
        return ops.num(Fraction(1))
    return ops.pow(ops.num(profile.base), ops.num(-e))


def phase(profile: Profile, d: int, k: int, p: Any, ops: Backend, w: Any = None) -> Any:
    """theta = phase_scale * (p + offset) * w_k; ``p`` is a backend value or a Fraction.

    ``w`` may pass a precomputed ``frequency(profile, d, k, ops)`` (callers that loop over positions).
    """
    if isinstance(p, (int, Fraction)):
        p = ops.num(Fraction(p))
    pos = p + ops.num(profile.offset) if profile.offset != 0 else p
    if w is None:
        w = frequency(profile, d, k, ops)
    th = pos * w
    return ops.num(profile.phase_scale) * th if profile.phase_scale != 1 else th


def value(col: Column, theta: Any, profile: Profile, ops: Backend) -> Any:
    """amplitude * f(theta) for the column's f."""
    if col.kind == "zero":
        return ops.zero
    v = ops.sin(theta) if col.kind == "sin" else ops.cos(theta)
    return ops.num(profile.amplitude) * v if profile.amplitude != 1 else v


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
