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

from .definition import SYMPY, Column, columns, pairs_denominator, pairs_n_frequencies, phase, value
from .profiles import PRESETS, Profile, get_profile

P, Q, K, A, B = sp.symbols("p q k a b", real=True)
OMEGA = sp.Symbol("omega", positive=True)

# id -> (title, plain-text statement). SPEC.md section 5 states the same, numbered.
STATEMENTS: dict[str, tuple[str, str]] = {
    "THM-LIFT": ("lifting lemma",
                 "M_k is block-diagonal (up to the layout's fixed column permutation) with one 2x2 block per "
                 "frequency, so each vector identity is the conjunction of its 2x2 block identities, each the "
                 "generic-pair identity at omega = omega_i, and sums over columns go term by term."),
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
                  "|PE(p)[j]| <= 1 for every column, and PE(0)[j] = 1 on cos columns, 0 on sin and zero columns "
                  "((0,1,0,1,...) interleaved)."),
    "THM-WAVE": ("wavelengths",
                 "lambda_i = 2 pi / w_i = 2 pi b^(i/D) is geometric with ratio b^(1/D); lambda_0 = 2 pi; the largest "
                 "is 2 pi b^((N-1)/D) (2 pi b^(1-2/d) Vaswani, 2 pi b tensor2tensor, even d); #{i : lambda_i <= L} = "
                 "min(N, floor(D log_b(L/(2 pi))) + 1) for L >= 2 pi, else 0."),
    "THM-INJ": ("injective on integers",
                "p != q integers => PE(p) != PE(q) whenever the table has the sin_0 and cos_0 columns (every "
                "preset at d >= 2); the proof uses that pi is irrational (Lambert)."),
    "THM-LAYOUT": ("layouts are column permutations",
                   "A concatenated layout equals the interleaved table with the same schedule under a fixed column "
                   "permutation, so norms and dot products agree."),
    "THM-NONPERM": ("schedules are not permutations",
                    "For every even d >= 4 no column permutation maps the tensor2tensor table (D = d/2 - 1) to the "
                    "Vaswani table (D = d/2); at d = 2 the two tables are equal."),
    "THM-ATTN": ("attention",
                 "p_m^T W p_n is not in general a function of n - m (W = e_0 e_0^T, (m,n) = (0,1), (1,2)); it is one "
                 "for all m, n iff W commutes with every M_k, iff W is block-diagonal with each 2x2 block a I + b J "
                 "(entries in the row or column of a zero column are never seen and stay free)."),
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

    def cols(self) -> list[Column]:
        cs = columns(self.profile, self.d)
        return [c for c in cs if self.only_k is None or (c.kind != "zero" and c.k in self.only_k)]

    def theta(self, k: int, p: sp.Expr) -> sp.Expr:
        return phase(self.profile, self.d, k, p, self.ops)

    def pe(self, p: sp.Expr) -> list[sp.Expr]:
        """PE(p) from the definition (DEF-FAMILY)."""
        return [value(c, self.theta(c.k, p) if c.kind != "zero" else None, self.profile, self.ops) for c in self.cols()]

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

# Rotary theorems (spec/theorems_rotary.py) join the numbered list: SPEC.md section 9.
from .theorems_rotary import ROTARY_STATEMENTS as _ROTARY  # noqa: E402
STATEMENTS.update(_ROTARY)
