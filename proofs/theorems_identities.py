"""THM-LIFT, SHIFT, DOT, EVEN, ROT, NORM, BOUND, DIR, CPLX, LAYOUT: trigonometric identities on the definition.

Each is stated (``sinpe.spec.theorems``) on the generic pairs (symbolic omega, every layout) and on
every preset at d = 1..9 (``CONCRETE``, ``spec.theorems.WIDTHS``), and decided obligation by obligation.
"""
from __future__ import annotations

import sympy as sp

from sinpe.spec import theorems as T
from sinpe.spec.profiles import PRESETS
from sinpe.spec.theorems import GENERIC, K, OMEGA, P, Instance, Obligation

from .balls import certified_sign
from .canonical import coefficients
from .engine import ObligationTheorem

AX_CHARACTERS = "AX-CHARACTERS: distinct characters exp(i <f, x>) are linearly independent (Dedekind/Artin)"


def _all() -> tuple[Instance, ...]:
    return GENERIC + T.CONCRETE


def _paired() -> tuple[Instance, ...]:
    return tuple(i for i in _all() if T.fully_paired(i))


def _generic_for(inst: Instance) -> Instance:
    """The generic pair with the same (sin, cos) column order as ``inst``'s layout."""
    return next(g for g in GENERIC if g.profile.layout == inst.profile.layout)


def lift_obligations(inst: Instance) -> list[Obligation]:
    """THM-LIFT: each concrete row identity is the generic-pair identity at omega = w_k, and M_k is block-diagonal."""
    if inst.only_k is not None:
        return []
    g = _generic_for(inst)
    gen = {ob.name.split("PE(p+k)")[1]: ob for ob in T.shift_obligations(g)}  # rows [0], [1] of the pair
    g_sin, g_cos = g.pairs()[0][1], g.pairs()[0][2]
    conc = {int(ob.name.split("[")[-1].split("]")[0]): ob for ob in T.shift_obligations(inst)}
    out = []
    for k, js, jc in inst.pairs():
        w = inst.increment(k, sp.Integer(1))  # sigma * w_k
        for j, gj in ((js, g_sin), (jc, g_cos)):
            ob, go = conc[j], gen[f"[{gj}] = (M_k PE(p))[{gj}]"]
            out.append(Obligation(f"{inst.name}: row {j} lhs = generic row {gj} lhs at omega = {w}", ob.lhs, go.lhs.subs(OMEGA, w)))
            out.append(Obligation(f"{inst.name}: row {j} rhs = generic row {gj} rhs at omega = {w}", ob.rhs, go.rhs.subs(OMEGA, w)))
    M = inst.shift_matrix(K)
    cols = inst.cols()
    for i in range(M.rows):
        for j in range(M.cols):
            if cols[i].k != cols[j].k or "zero" in (cols[i].kind, cols[j].kind) and i != j:
                out.append(Obligation(f"{inst.name}: M_k[{i},{j}] = 0 (off-block)", M[i, j], sp.Integer(0)))
    return out


def layout_obligations(inst: Instance) -> list[Obligation]:
    """THM-LAYOUT: a concatenated table is the interleaved one (same schedule) under a column permutation."""
    if inst.only_k is not None or inst.profile.layout == "interleaved":
        return []
    odd = "trailing-sin" if inst.profile.odd == "ceil-split" else inst.profile.odd  # DEF-ODD: equal for interleaved
    other = Instance(inst.profile.replace(layout="interleaved", odd=odd), inst.d)
    a, b = inst.cols(), other.cols()
    where = {c: j for j, c in enumerate(b)}
    if sorted(map(str, a)) != sorted(map(str, b)):
        return [Obligation(f"{inst.name}: same column multiset as interleaved", sp.Integer(0), sp.Integer(1))]
    perm = [where[c] for c in a]
    xa, xb = inst.pe(P), other.pe(P)
    out = [Obligation(f"{inst.name}: PE[{j}] = PE_interleaved[{perm[j]}]", xa[j], xb[perm[j]]) for j in range(len(a))]
    out.append(Obligation(f"{inst.name}: dot products agree", inst.dot(P, P + K), other.dot(P, P + K)))
    out.append(Obligation(f"{inst.name}: norms agree", inst.dot(P, P), other.dot(P, P)))
    return out


def shift_odd_steps() -> list[tuple[bool, int, str]]:
    """THM-SHIFT, odd d: no matrix (fixed in p) maps PE(p) to PE(p+k)[u] for an unpaired column u.

    sum_j a_j PE(p)[j] = PE(p+k)[u] for all p: the Laurent coefficients in the p-atoms are linear
    conditions on a; the system has no solution over the field of rational functions of the
    k-atoms, i.e. for every k outside a discrete set (where sin(sigma w_u k) = 0).
    """
    out = []
    for inst in T.CONCRETE:
        for u in inst.unpaired():
            n = len(inst.cols())
            a = sp.symbols(f"a0:{n}")
            e = inst.pe(P + K)[u] - sum((ai * x for ai, x in zip(a, inst.pe(P))), sp.Integer(0))
            conds = coefficients(e, (P,))
            sol = sp.linsolve(conds, a)
            out.append((sol == sp.EmptySet, len(conds), f"{inst.name}: column {u} (unpaired) is a fixed linear image of PE(p): {sol}"))
    return out


def direction_steps() -> list[tuple[bool, int, str]]:
    """THM-DIR: g(k) - g(-k) is not identically 0: at vaswani d = 2, k = 1 it is 2 sin 1 > 0 (ball)."""
    inst = Instance(PRESETS["vaswani"], 2)
    J = inst.direction_matrix()
    g = lambda s: (sp.Matrix(inst.pe(P)).T * J * sp.Matrix(inst.pe(P + s)))[0, 0]  # noqa: E731
    c = sp.expand((g(K) - g(-K)).subs({P: 0, K: 1}))
    sign = certified_sign(c)
    return [(sign is not None, 1, f"vaswani d=2: g(1) - g(-1) = {c} certified nonzero (ball sign {sign})")]


THEOREMS = [
    ObligationTheorem("THM-LIFT", "laurent normal form (generic pair at omega = w_k) + block structure", lift_obligations, lambda: T.CONCRETE),
    ObligationTheorem("THM-SHIFT", "laurent normal form over exp-atoms (+ odd d: laurent coefficients -> inconsistent linear system)",
                      T.shift_obligations, _all, extra=shift_odd_steps, axioms=(AX_CHARACTERS,)),
    ObligationTheorem("THM-DOT", "laurent normal form over exp-atoms", T.dot_obligations, _all),
    ObligationTheorem("THM-EVEN", "laurent normal form over exp-atoms", T.even_obligations, _paired),
    ObligationTheorem("THM-ROT", "groebner reduction mod <s^2+c^2-1> (orthogonality, det) + laurent (group law)", T.rotation_obligations, _paired),
    ObligationTheorem("THM-NORM", "groebner reduction mod <s^2+c^2-1>, quotient certificate", T.norm_obligations, _all),
    ObligationTheorem("THM-BOUND", "sum-of-squares remainder mod <s^2+c^2-1> + laurent (p = 0)", T.bound_obligations, _all,
                      ("sign", "sin-for-cos", "shift", "tighten")),  # |x| <= 1 survives sign flips and has no sum to drop
    ObligationTheorem("THM-DIR", "laurent normal form over exp-atoms + a ball-certified nonzero value",
                      T.direction_obligations, _all, extra=direction_steps),
    ObligationTheorem("THM-CPLX", "laurent normal form over exp-atoms", T.complex_obligations, _all),
    ObligationTheorem("THM-LAYOUT", "laurent normal form over exp-atoms", layout_obligations, lambda: T.CONCRETE),
]
