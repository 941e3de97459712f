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

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import sympy as sp

from .definition import (LAYOUTS, SYMPY, ChannelPlan, Column, angle, channel_plan, channel_value, column_data, columns, geometric,
                         pairs_denominator, pairs_n_frequencies, phase, value)
from .profiles import PRESETS, Profile, get_profile

P, Q, K, A, B = sp.symbols("p q k a b", real=True)
# The shift -k as a symbol of its own, substituted by the procedure after its rewrite to exponentials
# (``at=((KNEG, -K),)``): built with -k, cos(-x) would become cos(x) before any procedure ran.
KNEG = sp.Symbol("k_neg", real=True)
AT_NEG = ((KNEG, -K),)
OMEGA = sp.Symbol("omega", positive=True)

# id -> (title, plain-text statement). SPEC.md section 5 states the same, numbered.
STATEMENTS: dict[str, tuple[str, str]] = {
    "THM-LIFT": ("lifting lemma",
                 "For every d, the column plan of each layout and odd rule (written symbolically in n = floor(d/2)) "
                 "is a bijection from the labels {sin_i, cos_i : i < n} (+ the odd column) onto the d columns, so "
                 "M_k is block-diagonal up to that permutation and sums over columns are sums over labels."),
    "THM-SHIFT": ("shift is linear",
                  "PE(p+k) = M_k PE(p) on every paired column, M_k the rotation blocks [[cos wk, sin wk], "
                  "[-sin wk, cos wk]] in (sin, cos) order, conjugated by the layout's column permutation; "
                  "a zero column maps to itself; an unpaired odd-d column is no fixed linear image of PE(p)."),
    "THM-DOT": ("dot product",
                "PE(p).PE(p+k) = sum_i cos(w_i k) over the pairs (independent of p); an unpaired odd-d "
                "column adds its own term u(p)u(p+k)."),
    "THM-EVEN": ("even symmetry",
                 "f(k) = sum_i cos(w_i k) is even, so PE(p).PE(p+k) = PE(p).PE(p-k) when every column is paired "
                 "or zero: the dot product cannot tell k from -k."),
    "THM-ROT": ("M_k is a rotation group",
                "M_k^T M_k = I, det M_k = 1, M_a M_b = M_(a+b), M_0 = I, M_(-k) = M_k^T, M_k M_(-k) = I."),
    "THM-NORM": ("constant norm",
                 "|PE(p)|^2 = d/2 for even d; for odd d it is floor(d/2) plus u(p)^2 for an unpaired column u "
                 "(constant floor(d/2) under zero-pad, not constant under trailing-sin / ceil-split)."),
    "THM-BOUND": ("bound and origin",
                  "|PE(p)[j]| <= |alpha| for every column, and PE(-o)[j] = alpha on cos columns, 0 on sin and zero "
                  "columns (so PE(0) = (0,alpha,0,alpha,...) interleaved when o = 0)."),
    "THM-WAVE": ("wavelengths",
                 "lambda_i = 2 pi / w_i = 2 pi b^(i/D) is geometric with ratio b^(1/D); lambda_0 = 2 pi; the largest "
                 "is 2 pi b^((N-1)/D) (2 pi b^(1-2/d) Vaswani, 2 pi b tensor2tensor, even d); #{i : lambda_i <= L} = "
                 "min(N, floor(D log_b(L/(2 pi))) + 1) for L >= 2 pi, else 0."),
    "THM-INJ": ("injective on integers",
                "p != q rationals (integers in particular) => PE(p) != PE(q) for every d >= 2 when alpha != 0 and "
                "sigma != 0 is rational; the proof uses that pi is irrational (Lambert)."),
    "THM-LAYOUT": ("layouts are column permutations",
                   "For every d, a concatenated table (sin-cos with any odd rule; cos-sin even, trailing-sin or "
                   "zero-pad) equals the interleaved table with the same schedule under a fixed column permutation, "
                   "so norms and dot products agree; cos-sin with ceil-split (odd column cos_n) is no such permutation."),
    "THM-NONPERM": ("schedules are not permutations",
                    "For every even d >= 4 no column permutation maps the tensor2tensor table (D = d/2 - 1) to the "
                    "Vaswani table (D = d/2); at d = 2 the two tables are equal."),
    "THM-ATTN": ("attention",
                 "p_m^T W p_n is not in general a function of n - m (W = e_0 e_0^T, (m,n) = (0,1), (1,2)); at the "
                 "generic pair and at vaswani d=4, vaswani-concat d=4, t2t-cos d=4, vaswani-concat-cos d=5 it is one "
                 "for all m, n iff W is block-diagonal with each 2x2 block a I + b J (entries in the row or column of "
                 "a zero column are never seen and stay free)."),
    "THM-DIR": ("direction",
                "PE(p)^T J PE(p+k) = sum_i sin(w_i k), J the block 90-degree rotation; odd in k, so a fixed "
                "bilinear form tells k from -k."),
    "THM-CPLX": ("complex form",
                 "cos(w_i p) + i sin(w_i p) = exp(i w_i p) for each pair, and shifting by k multiplies it by "
                 "exp(i w_i k)."),
}


@dataclass(frozen=True)
class Obligation:
    """``lhs == rhs`` (after ``at`` is substituted); ``method`` names the decision procedure."""

    name: str
    lhs: sp.Expr
    rhs: sp.Expr
    method: str = "laurent"  # 'laurent' | 'groebner' | 'sos'
    at: tuple[tuple[sp.Symbol, sp.Expr], ...] = ()


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
    ops: Any = field(default=SYMPY, compare=False)
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
        return sp.Add(*[x * y for x, y in zip(self.pe(p), self.pe(q))])


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
            out.append(Obligation(f"{inst.name}: (M_a M_b)[{i},{j}] = M_(a+b)[{i},{j}]", MaMb[i, j], Mab[i, j]))
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
        z = lambda pos: inst.pe(pos)[jc] + sp.I * inst.pe(pos)[js]  # noqa: E731
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


# ---------------------------------------------------------------- every d: the symbolic column plan and statements

# Symbols of the every-d statements: n = floor(d/2) pairs, i a frequency index, alpha, sigma, o the profile's
# amplitude, phase scale and offset, b the base and D > 0 the schedule's denominator (every schedule with one
# frequency or D > 0: w_i = b**(-i/D), w_0 = 1).
I_ = sp.Symbol("i", integer=True, nonnegative=True)
ALPHA = sp.Symbol("alpha", real=True)
SIGMA = sp.Symbol("sigma", real=True)
OFFSET = sp.Symbol("o", real=True)
BASE = sp.Symbol("b", positive=True)
DEN = sp.Symbol("D", positive=True)


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
class SymbolicPlan(ChannelPlan):
    """:class:`sinpe.spec.definition.ChannelPlan` with n the symbol N (DEF-LAYOUT, DEF-ODD): the same
    segments the kernels copy, read as SymPy expressions in n. d = 2n (+1 if ``odd``).

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


def symbolic(plan: ChannelPlan) -> SymbolicPlan:
    """The definition's plan with n = N (its linear forms called on the symbol)."""
    seg = lambda s: Segment(s.kind, sp.sympify(s.lo(N)), sp.sympify(s.hi(N)), s.a, sp.sympify(s.c(N)))  # noqa: E731
    return SymbolicPlan(plan.layout, plan.odd_rule, plan.odd, tuple(seg(s) for s in plan.paired),
                        seg(plan.extra) if plan.extra else None)


def symbolic_plan(layout: str, odd_rule: str, odd: bool) -> SymbolicPlan:
    """The column plan of ``layout`` with ``odd_rule`` (DEF-LAYOUT, DEF-ODD) for d = 2n (+1), from the definition."""
    return symbolic(channel_plan(layout, odd_rule, odd))


PLANS: tuple[SymbolicPlan, ...] = tuple(
    symbolic_plan(layout, rule, odd) for layout in LAYOUTS
    for rule, odd in (("trailing-sin", False), ("trailing-sin", True), ("zero-pad", True), ("ceil-split", True)))


def omega(i: sp.Expr = I_) -> sp.Expr:
    """w_i = b**(-i/D) (w_0 = 1), by the definition's schedule with a symbolic exponent."""
    return geometric(i / DEN, lambda e: BASE ** e)


def theta_sym(i: sp.Expr, p: sp.Expr) -> sp.Expr:
    """theta_i(p) = sigma*(p + o)*w_i: the definition's ``angle`` with symbolic offset and scale."""
    return angle(p, omega(i), OFFSET, SIGMA)


def val(kind: str, i: sp.Expr, p: sp.Expr) -> sp.Expr:
    """The value of label (kind, i) at p: alpha*sin(theta), alpha*cos(theta) or 0 (the definition's
    ``channel_value`` with a symbolic amplitude)."""
    return channel_value(kind, theta_sym(i, p), SYMPY, ALPHA)


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


# ---------------------------------------------------------------- every-d obligations (method 'normal': RULE-SUM-LINEARITY)

def _row(kind: str, i: sp.Expr, shift: sp.Expr) -> sp.Expr:
    """(M_shift PE(p))[label (kind, i)] for a paired label: the rotation block R(sigma w_i shift)."""
    phi = SIGMA * omega(i) * shift
    if kind == "sin":
        return sp.cos(phi) * val("sin", i, P) + sp.sin(phi) * val("cos", i, P)
    return -sp.sin(phi) * val("sin", i, P) + sp.cos(phi) * val("cos", i, P)


def every_d_shift() -> list[Obligation]:  # THM-SHIFT, every d: one block identity per kind, i symbolic
    return [Obligation(f"every d: PE(p+k)[{kind}_i] = (M_k PE(p))[{kind}_i]", val(kind, I_, P + K), _row(kind, I_, K), "normal")
            for kind in ("sin", "cos")] + [Obligation("every d: PE(p+k)[zero] = PE(p)[zero]", val("zero", I_, P + K), val("zero", I_, P), "normal")]


def dot_lhs(plan: SymbolicPlan, shift: sp.Expr = K) -> sp.Expr:
    return plan_sum(plan, lambda kind, i: val(kind, i, P) * val(kind, i, P + shift))


def dot_rhs_sym(plan: SymbolicPlan, shift: sp.Expr = K) -> sp.Expr:
    u = plan.unpaired()
    extra = val(u, N, P) * val(u, N, P + shift) if u in ("sin", "cos") else sp.Integer(0)
    return pair_sum(lambda i: ALPHA**2 * sp.cos(SIGMA * omega(i) * shift)) + extra


def every_d_dot(plan: SymbolicPlan) -> list[Obligation]:  # THM-DOT
    return [Obligation(f"{plan.name}: PE(p).PE(p+k) = alpha^2 sum_i cos(sigma w_i k) [+ u(p)u(p+k)]", dot_lhs(plan), dot_rhs_sym(plan), "normal")]


def every_d_even(plan: SymbolicPlan) -> list[Obligation]:  # THM-EVEN
    f = lambda s: pair_sum(lambda i: ALPHA**2 * sp.cos(SIGMA * omega(i) * s))  # noqa: E731
    out = [Obligation(f"{plan.name}: f(-k) = f(k)", f(KNEG), f(K), "normal", AT_NEG)]
    if plan.unpaired() in (None, "zero"):
        out.append(Obligation(f"{plan.name}: PE(p).PE(p-k) = PE(p).PE(p+k)", dot_lhs(plan, KNEG), dot_lhs(plan, K), "normal", AT_NEG))
    return out


def every_d_rotation() -> list[Obligation]:  # THM-ROT: the 2x2 block R(sigma w_i k), i symbolic
    def R(s: sp.Expr) -> sp.Matrix:
        phi = SIGMA * omega(I_) * s
        return sp.Matrix([[sp.cos(phi), sp.sin(phi)], [-sp.sin(phi), sp.cos(phi)]])
    out = []
    RtR, RaRb, RRn = R(K).T * R(K), R(A) * R(B), R(K) * R(KNEG)
    for r in range(2):
        for c in range(2):
            one = sp.Integer(int(r == c))
            out.append(Obligation(f"every d: (R_k^T R_k)[{r},{c}] = {one}", RtR[r, c], one, "groebner"))
            out.append(Obligation(f"every d: (R_a R_b)[{r},{c}] = R_(a+b)[{r},{c}]", RaRb[r, c], R(A + B)[r, c], "normal"))
            out.append(Obligation(f"every d: R_0[{r},{c}] = {one}", R(K)[r, c], one, "normal", ((K, sp.Integer(0)),)))
            out.append(Obligation(f"every d: R_(-k)[{r},{c}] = R_k^T[{r},{c}]", R(KNEG)[r, c], R(K)[c, r], "normal", AT_NEG))
            out.append(Obligation(f"every d: (R_k R_(-k))[{r},{c}] = {one}", RRn[r, c], one, "normal", AT_NEG))
    out.append(Obligation("every d: det R_k = 1", R(K).det(), sp.Integer(1), "groebner"))
    return out


def norm_rhs_sym(plan: SymbolicPlan) -> sp.Expr:
    u = plan.unpaired()
    return ALPHA**2 * N + (val(u, N, P) ** 2 if u in ("sin", "cos") else 0)


def every_d_norm(plan: SymbolicPlan) -> list[Obligation]:  # THM-NORM
    out = [Obligation(f"{plan.name}: |PE(p)|^2 = alpha^2 n [+ u(p)^2]", plan_sum(plan, lambda kind, i: val(kind, i, P) ** 2), norm_rhs_sym(plan), "normal")]
    if not plan.odd:
        d = sp.Symbol("d", positive=True, integer=True)
        out.append(Obligation(f"{plan.name}: alpha^2 n = alpha^2 d/2 at d = 2n", ALPHA**2 * N, (ALPHA**2 * d / 2).subs(d, plan.d()), "normal"))
    return out


def every_d_bound() -> list[Obligation]:  # THM-BOUND: |value| <= |alpha|, and the origin p = -o
    out = [Obligation(f"every d: |PE(p)[{kind}_i]| <= |alpha|", val(kind, I_, P), sp.Abs(ALPHA), "sos") for kind in ("sin", "cos")]
    out.append(Obligation("every d: PE(p)[zero] = 0", val("zero", I_, P), sp.Integer(0), "normal"))
    out += [Obligation(f"every d: PE(-o)[{kind}_i] = {ALPHA if kind == 'cos' else 0}", val(kind, I_, P), ALPHA if kind == "cos" else sp.Integer(0),
                       "normal", at=((P, -OFFSET),)) for kind in ("sin", "cos", "zero")]
    return out


def every_d_direction(plan: SymbolicPlan) -> list[Obligation]:  # THM-DIR: J pairs the sin_i and cos_i columns
    g = lambda s: pair_sum(lambda i: val("cos", i, P) * val("sin", i, P + s) - val("sin", i, P) * val("cos", i, P + s))  # noqa: E731
    rhs = lambda s: pair_sum(lambda i: ALPHA**2 * sp.sin(SIGMA * omega(i) * s))  # noqa: E731
    return [Obligation(f"{plan.name}: PE(p)^T J PE(p+k) = alpha^2 sum_i sin(sigma w_i k)", g(K), rhs(K), "normal"),
            Obligation(f"{plan.name}: g(-k) = -g(k)", rhs(KNEG), -rhs(K), "normal", AT_NEG)]


def every_d_complex() -> list[Obligation]:  # THM-CPLX
    z = lambda pos: val("cos", I_, pos) + sp.I * val("sin", I_, pos)  # noqa: E731
    return [Obligation("every d: cos + i sin = alpha exp(i theta_i)", z(P), ALPHA * sp.exp(sp.I * theta_sym(I_, P)), "normal"),
            Obligation("every d: z_i(p+k) = exp(i sigma w_i k) z_i(p)", z(P + K), sp.exp(sp.I * SIGMA * omega(I_) * K) * z(P), "normal")]


def every_d_layout(plan: SymbolicPlan) -> list[Obligation]:  # THM-LAYOUT: a concatenated plan vs the interleaved one
    inter = symbolic_plan("interleaved", plan.odd_rule, plan.odd)
    return [Obligation(f"{plan.name}: dot products agree with interleaved", dot_lhs(plan), dot_lhs(inter), "normal"),
            Obligation(f"{plan.name}: norms agree with interleaved", plan_sum(plan, lambda kind, i: val(kind, i, P) ** 2),
                       plan_sum(inter, lambda kind, i: val(kind, i, P) ** 2), "normal")]


# Rotary theorems (spec/theorems_rotary.py) join the numbered list: SPEC.md section 9.
from .theorems_rotary import ROTARY_STATEMENTS as _ROTARY  # noqa: E402
STATEMENTS.update(_ROTARY)
