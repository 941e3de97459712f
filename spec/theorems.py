"""The theorems of SPEC.md section 5 (THM-*): IDs, plain-text statements and symbolic statements.

Every symbolic statement is built from :mod:`sinpe.spec.definition` (``columns``, ``phase``,
``value``), never re-typed: a theorem about :class:`Instance` ``(profile, d)`` is a theorem about
exactly the table the spec defines. Positions ``p``, ``q``, shifts ``k``, ``a``, ``b`` are symbols.
The *generic pair* instances evaluate the definition with :class:`OpaqueFrequency`, a SymPy
backend in which ``w_k = base**(-e_k)`` is one opaque positive symbol ``omega``: an identity
proven there holds for every frequency, hence for every schedule and base (THM-LIFT carries it
to every width d).

A statement is a list of :class:`Obligation` ``lhs == rhs`` (optionally at a substitution);
``sinpe.proofs`` decides them.

>>> from sinpe.spec.profiles import get_profile
>>> inst = Instance(get_profile("vaswani-concat-cos"), 4)
>>> [c.label for c in inst.cols()], inst.pairs()
(['cos0', 'cos1', 'sin0', 'sin1'], [(0, 2, 0), (1, 3, 1)])
>>> inst.shift_matrix(K)[:2, :]   # rows of cos0, cos1: rotation blocks conjugated by the layout
Matrix([
[cos(k),          0, -sin(k),           0],
[     0, cos(k/100),       0, -sin(k/100)]])
>>> GENERIC[0].pe(P)
[sin(omega*p), cos(omega*p)]
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import sympy as sp

from .definition import (
    LAYOUTS,
    ChannelPlan,
    Column,
    Definition,
    Schedule,
    Segment as DefinitionSegment,
    channel_plan,
    column_data,
    frequency,
    pairs_denominator,
    pairs_n_frequencies,
    phase,
    row,
    theta,
    value,
    weight,
)
from .profiles import PRESETS, Profile, get_profile

P, Q, K, A, B = sp.symbols("p q k s t", real=True)  # s, t: the shifts of M_s M_t = M_(s+t)
# The shift -k as a symbol of its own, substituted by the procedure after its rewrite to exponentials
# (``at=((KNEG, -K),)``): built with -k, cos(-x) would become cos(x) before any procedure ran.
KNEG = sp.Symbol("k_neg", real=True)
AT_NEG = ((KNEG, -K),)
OMEGA = sp.Symbol("omega", positive=True)

# id -> title, in SPEC.md section 5's order. A statement's text is not typed: each theorem's is printed from the
# claims its obligations are built from (Claim.text, statement_text), with the symbols they quantify over.
STATEMENTS: dict[str, str] = {
    "THM-LIFT": "lifting lemma",
    "THM-SHIFT": "shift is linear",
    "THM-DOT": "dot product",
    "THM-EVEN": "even symmetry",
    "THM-ROT": "M_k is a rotation group",
    "THM-NORM": "constant norm",
    "THM-BOUND": "bound and origin",
    "THM-WAVE": "wavelengths",
    "THM-INJ": "injective on rationals",
    "THM-LAYOUT": "layouts are column permutations",
    "THM-NONPERM": "schedules are not permutations",
    "THM-ATTN": "attention",
    "THM-DIR": "direction",
    "THM-CPLX": "complex form",
    # rotary (spec/theorems_rotary.py): SPEC.md section 9
    "THM-ROPE-REL": "rotations compose",
    "THM-ROPE-ATTN": "rotary attention is relative",
}


@dataclass(frozen=True)
class Obligation:
    """``lhs == rhs`` (after ``at`` is substituted); ``method`` names the decision procedure."""

    name: str
    lhs: sp.Expr
    rhs: sp.Expr
    method: str = "laurent"  # 'laurent' | 'groebner' | 'sos' | 'normal'
    at: tuple[tuple[sp.Symbol, sp.Expr], ...] = ()
    plan: str = ""  # the channel plan it is about ("" for a per-label or a concrete-table statement)


class StrictSympy:
    """The SymPy backend the proofs read the definition with (the definition's own, ``SYMPY``, but strict): what
    the definition hands to ``sin``, ``cos`` and ``pow`` must already be a backend value, never a Python number.
    The numeric backends (mpmath, Arb, intervals) accept only their own values, so a definition that skips
    ``num`` somewhere breaks the kernels; SymPy would convert the number silently, and the proofs would not see it."""

    zero = sp.Integer(0)

    @staticmethod
    def _backend(x: Any, where: str) -> Any:
        if not isinstance(x, sp.Basic):
            raise TypeError(f"the definition passed {type(x).__name__} {x!r} to the backend's {where}, not a backend value")
        return x

    def num(self, x: Fraction) -> Any:
        return sp.Rational(x.numerator, x.denominator)

    def sin(self, x: Any) -> Any:
        return sp.sin(self._backend(x, "sin"))

    def cos(self, x: Any) -> Any:
        return sp.cos(self._backend(x, "cos"))

    def pow(self, base: Any, e: Any) -> Any:
        return sp.Pow(self._backend(base, "pow"), self._backend(e, "pow"))


STRICT = StrictSympy()


class OpaqueFrequency:
    """SymPy backend of the definition in which every ``base**(-e)`` is the opaque symbol ``omega``."""

    def __init__(self, symbol: sp.Symbol = OMEGA) -> None:
        self.symbol = symbol
        self.zero = sp.Integer(0)

    def num(self, x: Fraction) -> Any:
        return sp.Rational(x.numerator, x.denominator)

    def sin(self, x: Any) -> Any:
        return sp.sin(x)

    def cos(self, x: Any) -> Any:
        return sp.cos(x)

    def pow(self, base: Any, e: Any) -> Any:
        return self.symbol


@dataclass(frozen=True)
class Instance:
    """The table of ``profile`` at width ``d`` (optionally only frequency indices ``only_k``)."""

    profile: Profile
    d: int
    ops: Any = field(default=STRICT, compare=False)
    only_k: frozenset[int] | None = None
    label: str = ""

    @property
    def name(self) -> str:
        return self.label or f"{self.profile.name or self.profile.describe()} d={self.d}"

    @property
    def data(self) -> Any:
        """The definition's column data at this width (what the kernels evaluate)."""
        return column_data(self.profile, self.d)

    def cols(self) -> list[Column]:
        return [c for c in self.data.columns if self.only_k is None or (c.kind != "zero" and c.k in self.only_k)]

    def theta(self, k: int, p: sp.Expr) -> sp.Expr:
        return phase(self.data, k, p, self.ops)

    def pe(self, p: sp.Expr) -> list[sp.Expr]:
        """PE(p) from the definition (DEF-FAMILY)."""
        return [value(self.data, c.kind, self.theta(c.k, p) if c.kind != "zero" else None, self.ops) for c in self.cols()]

    def pairs(self) -> list[tuple[int, int, int]]:
        """(k, column of sin_k, column of cos_k) for every complete pair."""
        where = {(c.kind, c.k): j for j, c in enumerate(self.cols())}
        return [(k, where[("sin", k)], where[("cos", k)]) for (kind, k) in sorted(where) if kind == "sin" and ("cos", k) in where]

    def unpaired(self) -> list[int]:
        paired = {j for _, js, jc in self.pairs() for j in (js, jc)}
        return [j for j, c in enumerate(self.cols()) if c.kind != "zero" and j not in paired]

    def zeros(self) -> list[int]:
        return [j for j, c in enumerate(self.cols()) if c.kind == "zero"]

    def increment(self, k: int, shift: sp.Expr) -> sp.Expr:
        """theta_k(p + shift) - theta_k(p): sigma * w_k * shift, independent of p."""
        return sp.expand(self.theta(k, P + shift) - self.theta(k, P))

    def shift_matrix(self, shift: sp.Expr) -> sp.Matrix:
        """M_shift: rotation blocks on (sin_k, cos_k) columns, 1 on zero columns, 0 rows on unpaired ones."""
        n = len(self.cols())
        M = sp.zeros(n, n)
        for k, js, jc in self.pairs():
            phi = self.increment(k, shift)
            M[js, js], M[js, jc], M[jc, js], M[jc, jc] = sp.cos(phi), sp.sin(phi), -sp.sin(phi), sp.cos(phi)
        for j in self.zeros():
            M[j, j] = 1
        return M

    def direction_matrix(self) -> sp.Matrix:
        """J: per pair, x^T J y = x_cos*y_sin - x_sin*y_cos (the 90-degree block rotation)."""
        n = len(self.cols())
        J = sp.zeros(n, n)
        for _, js, jc in self.pairs():
            J[js, jc], J[jc, js] = -1, 1
        return J

    def dot(self, p: sp.Expr, q: sp.Expr) -> sp.Expr:
        return sp.Add(*[x * y for x, y in zip(self.pe(p), self.pe(q), strict=True)])


# Generic pairs: frequency index 1 of d = 4, the frequency replaced by the symbol omega, for each layout.
GENERIC: tuple[Instance, ...] = tuple(
    Instance(get_profile(name), 4, OpaqueFrequency(), frozenset({1}), f"generic pair ({get_profile(name).layout})")
    for name in ("vaswani", "vaswani-concat", "vaswani-concat-cos"))

WIDTHS: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9)
CONCRETE: tuple[Instance, ...] = tuple(Instance(PRESETS[name], d) for name in PRESETS for d in WIDTHS)


def fully_paired(inst: Instance) -> bool:
    """No unpaired sin/cos column (every even d; odd d under zero-pad)."""
    return not inst.unpaired()


# ---------------------------------------------------------------- obligations, per theorem family

def shift_obligations(inst: Instance) -> list[Obligation]:  # THM-SHIFT
    M, x, y = inst.shift_matrix(K), inst.pe(P), inst.pe(P + K)
    skip = set(inst.unpaired())
    return [Obligation(f"{inst.name}: PE(p+k)[{j}] = (M_k PE(p))[{j}]", y[j], sum((M[j, i] * x[i] for i in range(len(x))), sp.Integer(0)))
            for j in range(len(x)) if j not in skip]


def dot_rhs(inst: Instance, shift: sp.Expr = K) -> sp.Expr:
    a2 = sp.Rational(inst.profile.amplitude) ** 2
    x, y = inst.pe(P), inst.pe(P + shift)
    return sp.Add(*[a2 * sp.cos(inst.increment(k, shift)) for k, _, _ in inst.pairs()],
                  *[x[j] * y[j] for j in inst.unpaired()])


def dot_obligations(inst: Instance) -> list[Obligation]:  # THM-DOT
    return [Obligation(f"{inst.name}: PE(p).PE(p+k) = sum cos(w_i k)", inst.dot(P, P + K), dot_rhs(inst))]


def even_obligations(inst: Instance) -> list[Obligation]:  # THM-EVEN (fully paired instances)
    return [Obligation(f"{inst.name}: f(-k) = f(k)", dot_rhs(inst, -K), dot_rhs(inst, K)),
            Obligation(f"{inst.name}: PE(p).PE(p-k) = PE(p).PE(p+k)", inst.dot(P, P - K), inst.dot(P, P + K))]


def rotation_obligations(inst: Instance) -> list[Obligation]:  # THM-ROT (fully paired instances)
    M, n = inst.shift_matrix(K), len(inst.cols())
    out = []
    MtM = M.T * M
    for i in range(n):
        for j in range(i, n):
            out.append(Obligation(f"{inst.name}: (M_k^T M_k)[{i},{j}] = {int(i == j)}", MtM[i, j], sp.Integer(int(i == j)), "groebner"))
    out.append(Obligation(f"{inst.name}: det M_k = 1", M.det(method="berkowitz"), sp.Integer(1), "groebner"))
    Ma, Mb, Mab, Mneg = inst.shift_matrix(A), inst.shift_matrix(B), inst.shift_matrix(A + B), inst.shift_matrix(-K)
    MaMb, MMneg = Ma * Mb, M * Mneg
    for i in range(n):
        for j in range(n):
            out.append(Obligation(f"{inst.name}: (M_s M_t)[{i},{j}] = M_(s+t)[{i},{j}]", MaMb[i, j], Mab[i, j]))
            out.append(Obligation(f"{inst.name}: M_0[{i},{j}] = {int(i == j)}", M[i, j], sp.Integer(int(i == j)), at=((K, sp.Integer(0)),)))
            out.append(Obligation(f"{inst.name}: M_(-k)[{i},{j}] = M_k^T[{i},{j}]", Mneg[i, j], M[j, i]))
            out.append(Obligation(f"{inst.name}: (M_k M_(-k))[{i},{j}] = {int(i == j)}", MMneg[i, j], sp.Integer(int(i == j))))
    return out


def norm_obligations(inst: Instance) -> list[Obligation]:  # THM-NORM
    x = inst.pe(P)
    a2 = sp.Rational(inst.profile.amplitude) ** 2
    rhs = a2 * len(inst.pairs()) + sp.Add(*[x[j] ** 2 for j in inst.unpaired()])
    if inst.d % 2 == 0 and inst.only_k is None:
        rhs = a2 * sp.Rational(inst.d, 2)  # even d: exactly d/2 (times amplitude^2)
    return [Obligation(f"{inst.name}: |PE(p)|^2 = {rhs}", sp.Add(*[v**2 for v in x]), rhs, "groebner")]


def bound_obligations(inst: Instance) -> list[Obligation]:  # THM-BOUND
    x, amp = inst.pe(P), sp.Rational(inst.profile.amplitude)
    out = [Obligation(f"{inst.name}: PE(0)[{j}] = {amp * (c.kind == 'cos')}", x[j], amp * int(c.kind == "cos"), at=((P, sp.Integer(0)),))
           for j, c in enumerate(inst.cols())]
    out += [Obligation(f"{inst.name}: |PE(p)[{j}]| <= {abs(amp)}", x[j], abs(amp), "sos") for j in range(len(x))]
    return out


def family_obligations(inst: Instance) -> list[Obligation]:  # DEF-FAMILY, cross-check of THM-BOUND
    """Each column of the definition's table is alpha * f(sigma * (p + o) * b**(-k/D)) with the profile's own
    fields and DEF-SCHEDULE's D (``schedule_rule``), written here apart from ``Definition``/``ColumnData``:
    a parameter of the profile read into the wrong place changes a table and fails this. Each column is read as
    every kernel reads it: ``phase`` with its frequency computed (the mpmath oracle) and passed in (the interval
    and Arb oracles), and ``row`` (a whole row, each phase once)."""
    prof, n = inst.profile, inst.d // 2
    D = schedule_rule(prof.shift, bool(inst.d % 2)).subs(N, n)
    a, s, o, b = (sp.Rational(x.numerator, x.denominator) for x in (prof.amplitude, prof.phase_scale, prof.offset, prof.base))
    out = []
    cd, ops = inst.data, inst.ops
    with_w = [value(cd, c.kind, phase(cd, c.k, P, ops, w=frequency(cd, c.k, ops)) if c.kind != "zero" else None, ops)
              for c in inst.cols()]
    for j, (c, x, xw, xr) in enumerate(zip(inst.cols(), inst.pe(P), with_w, row(cd, P, ops), strict=True)):
        want = sp.Integer(0) if c.kind == "zero" else a * getattr(sp, c.kind)(s * (P + o) * b ** (-sp.Integer(c.k) / D if c.k else 0))
        out += [Obligation(f"{inst.name}: PE(p)[{j}]{how} = alpha {c.kind}(sigma (p + o) b^(-{c.k}/D)), D = {D}", v, want)
                for how, v in (("", x), (" (phase given its frequency)", xw), (" (row)", xr))]
    return out


# Profiles away from the presets' alpha = sigma = 1, o = 0, b = 10^4: the cross-check of DEF-FAMILY's parameters
FAMILY_VARIANTS: tuple[Instance, ...] = tuple(
    Instance(get_profile(name, amplitude=Fraction(1, 8), phase_scale=Fraction(3, 2), offset=Fraction(-7, 2), base=500), d)
    for name in PRESETS for d in (1, 2, 3, 4, 5, 6)) + tuple(  # a negative scale and amplitude, an offset 1/3
    Instance(get_profile(name, amplitude=Fraction(-3, 4), phase_scale=-1, offset=Fraction(1, 3), base=Fraction(7, 2)), d)
    for name in ("vaswani", "vaswani-concat-cos") for d in (1, 2, 3, 4, 5))


def direction_obligations(inst: Instance) -> list[Obligation]:  # THM-DIR
    J, x = inst.direction_matrix(), sp.Matrix(inst.pe(P))

    def g(shift: sp.Expr) -> sp.Expr:
        return (x.T * J * sp.Matrix(inst.pe(P + shift)))[0, 0]

    a2 = sp.Rational(inst.profile.amplitude) ** 2
    rhs = sp.Add(*[a2 * sp.sin(inst.increment(k, K)) for k, _, _ in inst.pairs()])
    return [Obligation(f"{inst.name}: PE(p)^T J PE(p+k) = sum sin(w_i k)", g(K), rhs),
            Obligation(f"{inst.name}: g(-k) = -g(k)", g(-K), -g(K))]


def complex_obligations(inst: Instance) -> list[Obligation]:  # THM-CPLX
    out = []
    amp = sp.Rational(inst.profile.amplitude)
    for k, js, jc in inst.pairs():
        z = lambda pos, jc=jc, js=js: inst.pe(pos)[jc] + sp.I * inst.pe(pos)[js]
        out.append(Obligation(f"{inst.name}: cos + i sin = exp(i theta_{k})", z(P), amp * sp.exp(sp.I * inst.theta(k, P))))
        out.append(Obligation(f"{inst.name}: z_{k}(p+k) = exp(i w_{k} k) z_{k}(p)", z(P + K), sp.exp(sp.I * inst.increment(k, K)) * z(P)))
    return out


# ---------------------------------------------------------------- the schedule, symbolically in n = floor(d/2)

N = sp.Symbol("n", integer=True, positive=True)


def symbolic_denominator(profile: Profile, n: sp.Expr = N, odd: bool = False) -> sp.Expr:
    """D of DEF-SCHEDULE-HALF / DEF-SCHEDULE-SHIFT for d = 2n (or 2n+1): n (n + 1/2), or n - s.

    The same function as :func:`sinpe.spec.definition.denominator` uses, here with a symbolic n.
    """
    return pairs_denominator(profile, n, odd)


def symbolic_n_frequencies(profile: Profile, n: sp.Expr = N, odd: bool = False) -> sp.Expr:
    """N of DEF-ODD: n for even d and for zero-pad, n + 1 otherwise (odd d)."""
    return pairs_n_frequencies(profile, n, odd)


# ---------------------------------------------------------------- every d: the symbolic Definition and statements

# Symbols of the every-d statements: n = floor(d/2) pairs, i a frequency index, alpha, sigma, o the profile's
# amplitude, phase scale and offset, b the base and D > 0 the schedule's denominator (every schedule with one
# frequency or D > 0: w_i = b**(-i/D), w_0 = 1).
I_ = sp.Symbol("i", integer=True, nonnegative=True)
ALPHA = sp.Symbol("alpha", real=True)
SIGMA = sp.Symbol("sigma", real=True)
OFFSET = sp.Symbol("o", real=True)
BASE = sp.Symbol("b", positive=True)
DEN = sp.Symbol("D", positive=True)
# the statement's parameters by name (a scope lists exactly those its obligations use, with their assumptions)
PARAMETERS = ("alpha", "sigma", "o", "b", "D", "log_b")


@dataclass(frozen=True)
class Segment:
    """A segment of the definition's plan read with n = N: columns ``a*i + c`` hold ``(kind, i)`` for
    ``lo <= i < hi`` (SymPy expressions in n)."""

    kind: str
    lo: sp.Expr
    hi: sp.Expr
    a: int
    c: sp.Expr


@dataclass(frozen=True)
class SymbolicPlan(ChannelPlan[Segment]):
    """:class:`sinpe.spec.definition.ChannelPlan` with n the symbol N (DEF-LAYOUT, DEF-ODD): the same
    segments the kernels copy, read as SymPy expressions in n. d = 2n (+1 if ``odd``).

    >>> from sinpe.spec.definition import columns
    >>> plan = symbolic_plan("sin-cos", "ceil-split", True)
    >>> plan.at(2), [c.label for c in columns(get_profile("vaswani-concat"), 5)]
    (['sin0', 'sin1', 'sin2', 'cos0', 'cos1'], ['sin0', 'sin1', 'sin2', 'cos0', 'cos1'])
    """

    def d(self, n: sp.Expr = N) -> sp.Expr:
        return 2 * n + int(self.odd)

    def at(self, n: int) -> list[str]:  # type: ignore[override]
        """The column labels at n, by substituting n into the symbolic segments (the cross-check against
        ``columns``, which evaluates the definition's integer forms instead)."""
        out: dict[int, str] = {}
        for s in self.segments():
            lo, hi, a, c = (int(sp.sympify(x).subs(N, n)) for x in (s.lo, s.hi, s.a, s.c))
            for i in range(lo, hi):
                out[a * i + c] = "zero" if s.kind == "zero" else f"{s.kind}{i}"
        return [out[j] for j in sorted(out)]


def symbolic(plan: ChannelPlan[DefinitionSegment]) -> SymbolicPlan:
    """The definition's plan with n = N (its linear forms called on the symbol)."""
    seg = lambda s: Segment(s.kind, sp.sympify(s.lo(N)), sp.sympify(s.hi(N)), s.a, sp.sympify(s.c(N)))
    return SymbolicPlan(plan.layout, plan.odd_rule, plan.odd, tuple(seg(s) for s in plan.paired),
                        seg(plan.extra) if plan.extra else None)


def symbolic_plan(layout: str, odd_rule: str, odd: bool) -> SymbolicPlan:
    """The column plan of ``layout`` with ``odd_rule`` (DEF-LAYOUT, DEF-ODD) for d = 2n (+1), from the definition."""
    return symbolic(channel_plan(layout, odd_rule, odd))


PLANS: tuple[SymbolicPlan, ...] = tuple(
    symbolic_plan(layout, rule, odd) for layout in LAYOUTS
    for rule, odd in (("trailing-sin", False), ("trailing-sin", True), ("zero-pad", True), ("ceil-split", True)))
ALL_PLANS: tuple[str, ...] = tuple(pl.name for pl in PLANS)
PAIRED_PLANS: tuple[str, ...] = tuple(pl.name for pl in PLANS if pl.unpaired() in (None, "zero"))


class OpaqueSchedule:
    """DEF-SCHEDULE-* for every schedule at once: e_i = i / D with D a positive symbol (the definition's own
    :meth:`~sinpe.spec.definition.Schedule._over`, so e_0 = 0 exactly)."""

    def exponent(self, n: Any, i: Any) -> Any:
        return Schedule._over(i, DEN)


# The definition with every parameter a symbol: the proofs evaluate the same `Definition.value` the kernels'
# ColumnData evaluates (weight, theta, entry), for every schedule, base, amplitude, phase scale and offset.
GENERIC_DEFINITION = Definition(channel_plan("interleaved", "trailing-sin", False), OpaqueSchedule(),  # type: ignore[arg-type]
                                BASE, SIGMA, OFFSET, ALPHA, "every profile")


def omega(i: sp.Expr = I_) -> sp.Expr:
    """w_i = b**(-i/D) (w_0 = 1), by the definition's ``weight`` with a symbolic exponent."""
    return weight(OpaqueSchedule().exponent(N, i), BASE, STRICT)


def theta_sym(i: sp.Expr, p: sp.Expr) -> sp.Expr:
    """theta_i(p) = sigma*(p + o)*w_i: the definition's ``theta`` with symbolic offset and scale."""
    return theta(p, omega(i), OFFSET, SIGMA, STRICT)


def val(kind: str, i: sp.Expr, p: sp.Expr) -> sp.Expr:
    """The value of label (kind, i) at p: alpha*sin(theta), alpha*cos(theta) or 0 (``Definition.value`` of the
    generic definition)."""
    return GENERIC_DEFINITION.value(kind, i, N, p, STRICT)


def plan_sum(plan: SymbolicPlan, f: Any) -> sp.Expr:
    """sum over the columns j < d of f(column j), reindexed along the plan (RULE-REINDEX):
    one Sum over i per paired segment, plus the odd column's single term."""
    j = sp.Symbol("i", integer=True)
    out = sp.Add(*[sp.Sum(f(s.kind, j), (j, s.lo, s.hi - 1)) for s in plan.paired])
    if plan.extra is not None:
        out += f(plan.extra.kind, N)
    return out


def pair_sum(f: Any) -> sp.Expr:
    """sum_{i=0}^{n-1} f(i): the per-pair side of the every-d statements."""
    j = sp.Symbol("i", integer=True)
    return sp.Sum(f(j), (j, 0, N - 1))


# ---------------------------------------------------------------- statements are claims, printed from their objects

def show(e: Any) -> str:
    """A claimed value as the statement prints it (SymPy's ``sstr``; dummy names without their underscore)."""
    return sp.sstr(e).replace("_Dummy", "")


@dataclass(frozen=True)
class Claim:
    """One clause of a theorem's statement: ``says`` (what is computed from the definition, in notation)
    ``relation`` ``rhs`` (the claimed value: a SymPy expression or Matrix, printed as it is, or described by
    ``rhs_says`` when the right side is itself computed from the definition), at the substitution ``at``, for
    the plan ``plan`` ("" for a per-label claim, lifted to every plan by RULE-REINDEX). The obligations are
    built from the claim (:meth:`obligations`) and the statement printed from it (:meth:`text`): one source."""

    says: str
    lhs: Any
    rhs: Any
    method: str = "normal"
    at: tuple[tuple[sp.Symbol, sp.Expr], ...] = ()
    plan: str = ""
    relation: str = "="
    rhs_says: str = ""

    def text(self) -> str:
        at = ", ".join(f"{show(s)} = {show(v)}" for s, v in self.at if s is not KNEG)
        return f"{self.says} {self.relation} {self.rhs_says or show(self.rhs)}" + (f" at {at}" if at else "")

    def obligations(self) -> list[Obligation]:
        if isinstance(self.rhs, sp.MatrixBase):
            return [Obligation(f"{self.plan + ': ' if self.plan else ''}{self.says}[{r},{c}] {self.relation} "
                               f"{self.rhs_says or 'the claimed matrix'}[{r},{c}]", self.lhs[r, c], self.rhs[r, c],
                               self.method, self.at, self.plan)
                    for r in range(self.rhs.rows) for c in range(self.rhs.cols)]
        return [Obligation(f"{self.plan + ': ' if self.plan else ''}{self.text()}", self.lhs, self.rhs, self.method,
                           self.at, self.plan)]


def statement_text(claims: Sequence[Claim], plans: Sequence[str] = ()) -> str:
    """The statement, clause by clause: each distinct clause once, with the plans it is claimed for (every plan
    of ``plans`` for a per-label clause)."""
    where: dict[str, list[str]] = {}
    for c in claims:
        where.setdefault(c.text(), [])
        if c.plan and c.plan not in where[c.text()]:
            where[c.text()].append(c.plan)
    out = []
    for text, ps in where.items():
        if ps and set(ps) != set(plans):
            text += f" [{'; '.join(ps)}]"
        out.append(text)
    return "; ".join(out)


# ---------------------------------------------------------------- every-d claims (method 'normal': RULE-SUM-LINEARITY)

def _row(kind: str, i: sp.Expr, shift: sp.Expr) -> sp.Expr:
    """(M_shift PE(p))[label (kind, i)] for a paired label: the rotation block R(sigma w_i shift)."""
    phi = SIGMA * omega(i) * shift
    if kind == "sin":
        return sp.cos(phi) * val("sin", i, P) + sp.sin(phi) * val("cos", i, P)
    return -sp.sin(phi) * val("sin", i, P) + sp.cos(phi) * val("cos", i, P)


def every_d_shift() -> list[Claim]:  # THM-SHIFT, every d: one block identity per kind, i symbolic
    return ([Claim(f"PE(p+k)[{kind}_i]", val(kind, I_, P + K), _row(kind, I_, K)) for kind in ("sin", "cos")]
            + [Claim("PE(p+k)[zero]", val("zero", I_, P + K), val("zero", I_, P))])


def dot_lhs(plan: SymbolicPlan, shift: sp.Expr = K) -> sp.Expr:
    return plan_sum(plan, lambda kind, i: val(kind, i, P) * val(kind, i, P + shift))


def dot_rhs_sym(plan: SymbolicPlan, shift: sp.Expr = K) -> sp.Expr:
    u = plan.unpaired()
    extra = val(u, N, P) * val(u, N, P + shift) if u in ("sin", "cos") else sp.Integer(0)
    return pair_sum(lambda i: ALPHA**2 * sp.cos(SIGMA * omega(i) * shift)) + extra


def every_d_dot(plan: SymbolicPlan) -> list[Claim]:  # THM-DOT
    return [Claim("PE(p).PE(p+k)", dot_lhs(plan), dot_rhs_sym(plan), plan=plan.name)]


def every_d_even(plan: SymbolicPlan) -> list[Claim]:  # THM-EVEN
    f = lambda s: pair_sum(lambda i: ALPHA**2 * sp.cos(SIGMA * omega(i) * s))
    out = [Claim("f(-k)", f(KNEG), f(K), "normal", AT_NEG, plan.name, rhs_says=f"f(k), f(k) = {show(f(K))}")]
    if plan.unpaired() in (None, "zero"):
        out.append(Claim("PE(p).PE(p-k)", dot_lhs(plan, KNEG), dot_lhs(plan, K), "normal", AT_NEG, plan.name,
                         rhs_says="PE(p).PE(p+k)"))
    return out


def every_d_rotation() -> list[Claim]:  # THM-ROT: the 2x2 block R(sigma w_i k), i symbolic
    def R(s: sp.Expr) -> sp.Matrix:
        phi = SIGMA * omega(I_) * s
        return sp.Matrix([[sp.cos(phi), sp.sin(phi)], [-sp.sin(phi), sp.cos(phi)]])
    eye = sp.eye(2)
    return [Claim("R_k^T R_k", R(K).T * R(K), eye, "groebner"),
            Claim("R_s R_t", R(A) * R(B), R(A + B), rhs_says="R_(s+t)"),
            Claim("R_k", R(K), eye, at=((K, sp.Integer(0)),)),
            Claim("R_(-k)", R(KNEG), R(K).T, at=AT_NEG, rhs_says="R_k^T"),
            Claim("R_k R_(-k)", R(K) * R(KNEG), eye, at=AT_NEG),
            Claim("det R_k", R(K).det(), sp.Integer(1), "groebner")]


def norm_rhs_sym(plan: SymbolicPlan) -> sp.Expr:
    u = plan.unpaired()
    return ALPHA**2 * N + (val(u, N, P) ** 2 if u in ("sin", "cos") else 0)


def every_d_norm(plan: SymbolicPlan) -> list[Claim]:  # THM-NORM
    return [Claim("|PE(p)|^2", plan_sum(plan, lambda kind, i: val(kind, i, P) ** 2), norm_rhs_sym(plan), plan=plan.name)]


def every_d_bound() -> list[Claim]:  # THM-BOUND: |value| <= |alpha|, and the origin p = -o
    out = [Claim(f"|PE(p)[{kind}_i]|", val(kind, I_, P), sp.Abs(ALPHA), "sos", relation="<=") for kind in ("sin", "cos")]
    out.append(Claim("PE(p)[zero]", val("zero", I_, P), sp.Integer(0)))
    out += [Claim(f"PE(p)[{kind}_i]", val(kind, I_, P), ALPHA if kind == "cos" else sp.Integer(0), at=((P, -OFFSET),))
            for kind in ("sin", "cos", "zero")]
    return out


def every_d_direction(plan: SymbolicPlan) -> list[Claim]:  # THM-DIR: J pairs the sin_i and cos_i columns
    g = lambda s: pair_sum(lambda i: val("cos", i, P) * val("sin", i, P + s) - val("sin", i, P) * val("cos", i, P + s))
    rhs = lambda s: pair_sum(lambda i: ALPHA**2 * sp.sin(SIGMA * omega(i) * s))
    return [Claim("PE(p)^T J PE(p+k)", g(K), rhs(K), plan=plan.name),
            Claim("g(-k)", rhs(KNEG), -rhs(K), "normal", AT_NEG, plan.name, rhs_says="-g(k)")]


def every_d_complex() -> list[Claim]:  # THM-CPLX
    z = lambda pos: val("cos", I_, pos) + sp.I * val("sin", I_, pos)
    step = sp.exp(sp.I * SIGMA * omega(I_) * K)
    return [Claim("z_i(p) = PE(p)[cos_i] + I*PE(p)[sin_i]", z(P), ALPHA * sp.exp(sp.I * theta_sym(I_, P))),
            Claim("z_i(p+k)", z(P + K), step * z(P), rhs_says=f"{show(step)}*z_i(p)")]


def every_d_layout(plan: SymbolicPlan) -> list[Claim]:  # THM-LAYOUT: a concatenated plan vs the interleaved one
    inter = symbolic_plan("interleaved", plan.odd_rule, plan.odd)
    sq = lambda kind, i: val(kind, i, P) ** 2
    return [Claim("PE(p).PE(p+k)", dot_lhs(plan), dot_lhs(inter), plan=plan.name, rhs_says="the interleaved table's"),
            Claim("|PE(p)|^2", plan_sum(plan, sq), plan_sum(inter, sq), plan=plan.name, rhs_says="the interleaved table's")]


# ---------------------------------------------------------------- what SPEC.md section 1 says, typed apart

# DEF-LAYOUT and DEF-ODD as SPEC.md section 1 words them, written here independently of spec/definition.py:
# per layout and odd rule, "column a*i + c holds label (kind, i) for lo <= i < hi" (SymPy in n). THM-LIFT
# decides that the definition's plan places every label where this says, for every n: an edit of the
# definition (or of this table) alone fails it.
_n = N
LAYOUT_RULES: dict[tuple[str, str, bool], tuple[tuple[str, Any, Any, int, Any], ...]] = {}
for _lay, (_f, _g) in {"sin-cos": ("sin", "cos"), "cos-sin": ("cos", "sin")}.items():
    _even = ((_f, 0, _n, 1, 0), (_g, 0, _n, 1, _n))  # the first function in columns 0..n-1, the second in n..2n-1
    LAYOUT_RULES[(_lay, "trailing-sin", False)] = _even
    LAYOUT_RULES[(_lay, "trailing-sin", True)] = _even + (("sin", _n, _n + 1, 1, _n),)  # sin_n in column 2n
    LAYOUT_RULES[(_lay, "zero-pad", True)] = _even + (("zero", 0, 1, 0, 2 * _n),)     # a zero column 2n
    LAYOUT_RULES[(_lay, "ceil-split", True)] = ((_f, 0, _n + 1, 1, 0), (_g, 0, _n, 1, _n + 1))  # first half n + 1
_inter = (("sin", 0, _n, 2, 0), ("cos", 0, _n, 2, 1))  # interleaved: sin_i in column 2i, cos_i in 2i + 1
LAYOUT_RULES[("interleaved", "trailing-sin", False)] = _inter
LAYOUT_RULES[("interleaved", "trailing-sin", True)] = _inter + (("sin", _n, _n + 1, 2, 0),)
LAYOUT_RULES[("interleaved", "ceil-split", True)] = _inter + (("sin", _n, _n + 1, 2, 0),)  # the same table
LAYOUT_RULES[("interleaved", "zero-pad", True)] = _inter + (("zero", 0, 1, 0, 2 * _n),)

# DEF-ROPE-LAYOUT: the rotated pairs of a duplicated rotary layout of dim = 2n columns, (first, second member)
ROTARY_RULES: dict[str, tuple[tuple[str, Any, Any, int, Any], ...]] = {
    "halves": (("sin", 0, _n, 1, 0), ("cos", 0, _n, 1, _n)),  # rotate-half: (i, i + n)
    "pairs": (("sin", 0, _n, 2, 0), ("cos", 0, _n, 2, 1)),    # rotate-every-two: (2i, 2i + 1)
}

def rule_text(rules: tuple) -> str:
    """A rule table (a ``LAYOUT_RULES`` or ``ROTARY_RULES`` entry) as the statement prints it."""
    i = sp.Symbol("i")
    return ", ".join(f"column {sp.sstr(a * i + c) if a else sp.sstr(c)} holds {kind if kind == 'zero' else kind + '_i'}"
                     + ("" if kind == "zero" else f" ({sp.sstr(lo)} <= i < {sp.sstr(hi)})") for kind, lo, hi, a, c in rules)


def layout_rules_text() -> str:
    """``LAYOUT_RULES`` as SPEC.md's DEF-CHANNELS block prints it (one line per layout and odd rule)."""
    return "\n".join(f"- `{lay}`, " + (f"odd d, {rule}" if odd else "even d") + ": " + rule_text(r)
                     for (lay, rule, odd), r in LAYOUT_RULES.items())


_d = sp.Symbol("d", integer=True, positive=True)


_m = sp.Symbol("m", integer=True, nonnegative=True)  # floor(d/2), the number of pairs, as DEF-SCHEDULE-SHIFT names it


def schedule_statement(shift: Fraction | None, odd: bool) -> tuple[sp.Expr, tuple[tuple[sp.Symbol, sp.Expr], ...]]:
    """D of DEF-SCHEDULE-HALF (d/2) or DEF-SCHEDULE-SHIFT (floor(d/2) - s) as SPEC.md words them, typed here apart
    from spec/definition.py's Schedule: the expression in d (or in m = floor(d/2)) and the substitution that
    reads it at d = 2n (+1)."""
    if shift is None:
        return _d / 2, ((_d, 2 * N + int(odd)),)
    return _m - sp.Rational(shift.numerator, shift.denominator), ((_m, N),)


_dim = sp.Symbol("dim", integer=True, positive=True)  # a rotary head's dimension, as DEF-ROPE-FREQ-DEFAULT names it


def rotary_schedule_statement(i: sp.Expr) -> tuple[sp.Expr, tuple[tuple[sp.Symbol, sp.Expr], ...]]:
    """The exponent of DEF-ROPE-FREQ-DEFAULT's w_i = b^(-2i/dim) as SPEC.md words it, typed here apart from
    spec/definition.py's rotary schedule: 2i/dim, and the substitution dim = 2n that reads it at n pairs."""
    return 2 * i / _dim, ((_dim, 2 * N),)


def schedule_rule(shift: Fraction | None, odd: bool) -> sp.Expr:
    """:func:`schedule_statement` read at d = 2n (+1): D as a polynomial in n."""
    expr, at = schedule_statement(shift, odd)
    return expr.subs(list(at))

