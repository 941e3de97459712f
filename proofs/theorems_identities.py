"""THM-LIFT, SHIFT, DOT, EVEN, ROT, NORM, BOUND, DIR, CPLX, LAYOUT: proven for every d (SPEC.md section 5).

The proof of each is symbolic: n = floor(d/2) pairs, a symbolic frequency index i, symbolic amplitude
alpha, phase scale sigma, offset o, base b and schedule denominator D (``sinpe.spec.theorems``, "every d"),
over the symbolic column plan of every layout and odd-d rule (``PLANS``), which THM-LIFT proves to be a
bijection onto the d columns. Sums over the columns are reindexed along the plan (RULE-REINDEX) and
decided by the exponential normal form with RULE-SUM-LINEARITY (:mod:`.normal`). The concrete tables of
every preset at d = 1..9 (``CONCRETE``) are decided too, as a cross-check, never as the proof.
"""
from __future__ import annotations

from collections.abc import Iterator
from itertools import chain

import sympy as sp

from sinpe.spec import theorems as T
from sinpe.spec.profiles import PRESETS
from sinpe.spec.theorems import ALPHA, GENERIC, OFFSET, PLANS, SIGMA, Instance, K, N, Obligation, P

from .balls import certified_sign
from .engine import ObligationTheorem
from .evidence import step
from .symbolic import (
    ALPHA_NZ,
    CROSSCHECK_WIDTHS,
    LOG_B,
    RULE_BLOCK,
    RULE_REINDEX,
    SIGMA_NZ,
    assumed,
    block_shift,
    conformance_steps,
    label_steps,
    layout_label_steps,
    mutate_plan,
    normal_identity,
    odd_shift_steps,
    plan_crosscheck,
    plan_steps,
)

AX_CHARACTERS = "AX-CHARACTERS: distinct characters exp(i <f, x>) are linearly independent (Dedekind/Artin)"
RULE_SUM = "RULE-SUM-LINEARITY: sum_i (a f_i + b g_i) = a sum_i f_i + b sum_i g_i over one range; sum_{i=lo}^{hi} 1 = hi - lo + 1"

def _all() -> tuple[Instance, ...]:
    return GENERIC + T.CONCRETE


def _family() -> tuple[Instance, ...]:
    return T.CONCRETE + T.FAMILY_VARIANTS


def _paired() -> tuple[Instance, ...]:
    return tuple(i for i in _all() if T.fully_paired(i))


def _over(build, insts):
    """The obligations ``build`` gives for each instance, built as they are used (a failing one ends a cross-check)."""
    return lambda: (ob for inst in insts() for ob in build(inst))


def _plans(build, which=lambda pl: True):
    return lambda: [ob for pl in PLANS if which(pl) for ob in build(pl)]


def _concat(pl: T.SymbolicPlan) -> bool:
    """Concatenated plans that are column permutations of an interleaved table (not cos-sin ceil-split,
    whose odd column is cos_n: no interleaved table of DEF-ODD holds cos_n without sin_n)."""
    return pl.layout != "interleaved" and not (pl.layout == "cos-sin" and pl.odd_rule == "ceil-split" and pl.odd)


def lift_steps(mutation: str | None) -> list[tuple[bool, int, str]]:
    """THM-LIFT: every symbolic plan is a bijection onto the d columns (mutations: a wrong plan)."""
    plans = [mutate_plan(pl, mutation) if mutation else pl for pl in PLANS]
    return [s for pl in plans for s in plan_steps(pl) + label_steps(pl)]


def lift_crosscheck() -> Iterator[tuple[bool, int, str]]:
    """M_k's blocks (0.05 s), then each plan against the kernels' column data (seconds): yielded as computed, the
    cheap ones first (the cross-check stops at the first that fails)."""
    for inst in T.CONCRETE:  # M_k of the definition vanishes off its 2x2 blocks
        M, cols = inst.shift_matrix(K), inst.cols()
        off = [(i, j) for i in range(M.rows) for j in range(M.cols)
               if (cols[i].k != cols[j].k or "zero" in (cols[i].kind, cols[j].kind) and i != j) and M[i, j] != 0]
        yield not off, 1, f"{inst.name}: M_k is block-diagonal {off[:2]}"
    for pl in PLANS:
        yield from plan_crosscheck(pl)


def shift_steps(mutation: str | None) -> list[tuple[bool, int, str]]:
    """M_k formed on every plan (block operator, lookups decided) and the odd-d clause."""
    return ([s for pl in PLANS for s in block_shift(pl, mutation)[1]]
            + [s for pl in PLANS if pl.odd for s in odd_shift_steps(pl, mutation)])


def shift_claims() -> list[T.Claim]:
    """PE(p+k) = M_k PE(p) column by column on every plan, the values read back through the plan."""
    return [c for pl in PLANS for c in block_shift(pl)[0]]


def norm_steps(mutation: str | None) -> list[tuple[bool, int, str]]:
    """Odd d, trailing-sin / ceil-split: u(p)^2 is not constant (alpha, sigma != 0): 0 at p = -o, alpha^2 a
    quarter period later (or the reverse for a cos column), decided by (E); alpha^2 != 0 by its assumption."""
    alp, sig = ALPHA_NZ, SIGMA_NZ
    out = []
    for pl in PLANS:
        u = pl.unpaired()
        if u not in ("sin", "cos"):
            continue
        u2 = (T.val(u, N, P) ** 2).xreplace({ALPHA: alp, SIGMA: sig})
        p0, p1 = -OFFSET, -OFFSET + sp.pi / (2 * sig * T.omega(N))
        v0, v1 = (sp.Integer(0), alp**2) if u == "sin" else (alp**2, sp.Integer(0))
        for at, want in ((p0, v0), (p1, v1)):
            ok = normal_identity(u2, want, ((P, at),))  # at p after the rewrite: sin(0) is not decided when built
            out.append(step(ok, 1, f"{pl.name}: u(p)^2 at p = {at} is {want}"))
        out.append(step(assumed(alp**2, "nonzero"), 1, f"{pl.name}: alpha^2 != 0, so u(p)^2 is not constant"))
    return out


def direction_steps(mutation: str | None) -> list[tuple[bool, int, str]]:
    """THM-DIR: g(k) - g(-k) is not identically 0: at vaswani d = 2, k = 1 it is 2 sin 1 > 0 (ball)."""
    inst = Instance(PRESETS["vaswani"], 2)
    J = inst.direction_matrix()
    g = lambda s: (sp.Matrix(inst.pe(P)).T * J * sp.Matrix(inst.pe(P + s)))[0, 0]
    c = sp.expand((g(K) - g(-K)).subs({P: 0, K: 1}))
    sign = certified_sign(c)
    return [step(sign is not None, 1, f"vaswani d=2: g(1) - g(-1) = {c} certified nonzero (ball sign {sign})")]


def layout_steps(mutation: str | None) -> list[tuple[bool, int, str]]:
    """Mutations: 'with-cos-sin-ceil' also claims the excluded plan; 'odd-rule' compares with the interleaved
    plan of another odd rule."""
    plans = [pl for pl in PLANS if _concat(pl) or (mutation == "with-cos-sin-ceil" and pl.layout != "interleaved")]
    swap = {"trailing-sin": "zero-pad", "zero-pad": "trailing-sin", "ceil-split": "zero-pad"}
    return [s for pl in plans for s in layout_label_steps(pl, swap[pl.odd_rule] if mutation == "odd-rule" and pl.odd else None)]


def layout_obligations(inst: Instance) -> list[Obligation]:
    """Cross-check: a concatenated preset table is the interleaved one (same schedule) under a column permutation."""
    if inst.only_k is not None or inst.profile.layout == "interleaved":
        return []
    odd = "trailing-sin" if inst.profile.odd == "ceil-split" else inst.profile.odd
    other = Instance(inst.profile.replace(layout="interleaved", odd=odd), inst.d)
    a, b = inst.cols(), other.cols()
    where = {c: j for j, c in enumerate(b)}
    if sorted(map(str, a)) != sorted(map(str, b)):
        return [Obligation(f"{inst.name}: same column multiset as interleaved", sp.Integer(0), sp.Integer(1))]
    xa, xb = inst.pe(P), other.pe(P)
    out = [Obligation(f"{inst.name}: PE[{j}] = PE_interleaved[{where[c]}]", xa[j], xb[where[c]]) for j, c in enumerate(a)]
    out.append(Obligation(f"{inst.name}: dot products agree", inst.dot(P, P + K), other.dot(P, P + K)))
    return out


_E = "exponential normal form (E) with RULE-SUM-LINEARITY, symbolic n, i, alpha, sigma, o, b, D"
FAMILY = ("alpha", "sigma", "o", "b", "D")  # every parameter of DEF-FAMILY, symbolic (every schedule with D > 0)


def conform_steps(mutation: str | None) -> list[tuple[bool, int, str]]:
    """THM-LIFT's conformance: each plan places every label where SPEC.md's DEF-LAYOUT / DEF-ODD table
    (``LAYOUT_RULES``, typed apart from the definition) says. Mutation 'layout-swap': the table with the two
    functions of the concatenated layouts exchanged (a false statement about the definition)."""
    out = []
    for pl in PLANS:
        rules = T.LAYOUT_RULES[(pl.layout, pl.odd_rule if pl.odd else "trailing-sin", pl.odd)]
        if mutation == "layout-swap" and pl.layout != "interleaved":
            swap = {"sin": "cos", "cos": "sin", "zero": "zero"}
            rules = tuple((swap[k], *rest) for k, *rest in rules)
        out += conformance_steps(pl, rules, "DEF-LAYOUT")
    return out


def lift_all_steps(mutation: str | None) -> list[tuple[bool, int, str]]:
    plan_m = mutation if mutation in ("plan-offset", "plan-stride", "plan-count", "plan-labels") else None
    return lift_steps(plan_m) + conform_steps(mutation)


def describe_layouts() -> str:
    return "per layout and odd rule the definition's columns hold: " + "; ".join(
        f"{lay} {'odd d, ' + rule if odd else 'even d'}: {T.rule_text(rules)}" for (lay, rule, odd), rules in T.LAYOUT_RULES.items()) \
        + "; each plan is a bijection of its d labels onto the d columns"


THEOREMS = [
    ObligationTheorem("THM-LIFT", "symbolic column plans: count, range and disjointness by polynomial positivity in n "
                      "=> bijection (pigeonhole); label ranges chain to exactly {sin_i, cos_i : i < n} (+ the odd column); "
                      "every label where DEF-LAYOUT's table puts it; cross-check: plan = column data at every d <= 1100 "
                      f"and {len(CROSSCHECK_WIDTHS) - 1100} wider d up to {max(CROSSCHECK_WIDTHS)}, M_k block-diagonal at d <= 9",
                      lambda: [], (), concrete=lift_crosscheck, steps=lift_all_steps, mutations=(),
                      step_mutations=("plan-offset", "plan-stride", "plan-count", "plan-labels", "layout-swap"),
                      rules=(RULE_REINDEX, RULE_BLOCK), describe=describe_layouts),
    ObligationTheorem("THM-SHIFT", f"{_E}; odd d: distinct frequencies + Laurent coefficients -> inconsistent system in a_u",
                      shift_claims, FAMILY + ("log_b",), concrete=_over(T.shift_obligations, _all), steps=shift_steps,
                      axioms=(AX_CHARACTERS,), rules=(RULE_REINDEX,), step_mutations=("base-1", "block-partner"),
                      step_symbols=(ALPHA_NZ, SIGMA_NZ, LOG_B)),
    ObligationTheorem("THM-DOT", _E, _plans(T.every_d_dot), FAMILY, concrete=_over(T.dot_obligations, _all),
                      rules=(RULE_REINDEX, RULE_SUM)),
    ObligationTheorem("THM-EVEN", _E, _plans(T.every_d_even), FAMILY, concrete=_over(T.even_obligations, _paired),
                      rules=(RULE_REINDEX, RULE_SUM)),
    ObligationTheorem("THM-ROT", "per 2x2 block R(sigma w_i k), i symbolic: groebner (orthogonality, det) + (E) "
                      "(group law); lifted by RULE-BLOCK", T.every_d_rotation, ("sigma", "b", "D"), plans=T.PAIRED_PLANS,
                      per_label=True, concrete=_over(T.rotation_obligations, _paired), rules=(RULE_BLOCK,)),
    ObligationTheorem("THM-NORM", f"{_E}; odd d: two exact values of u(p)^2", _plans(T.every_d_norm), FAMILY,
                      concrete=_over(T.norm_obligations, _all), steps=norm_steps, rules=(RULE_REINDEX, RULE_SUM),
                      step_symbols=(ALPHA_NZ, SIGMA_NZ)),
    ObligationTheorem("THM-BOUND", "sum-of-squares remainder mod <s^2+c^2-1> (real phases, real alpha) + (E) at p = -o",
                      T.every_d_bound, FAMILY, per_label=True,
                      concrete=lambda: chain(_over(T.bound_obligations, _all)(), _over(T.family_obligations, _family)()),
                      mutations=("tighten", "origin-at-0")),  # |x| <= |alpha| survives sign flips and sin-for-cos
    ObligationTheorem("THM-DIR", f"{_E} + a ball-certified nonzero value", _plans(T.every_d_direction), FAMILY,
                      concrete=_over(T.direction_obligations, _all), steps=direction_steps, rules=(RULE_REINDEX, RULE_SUM)),
    ObligationTheorem("THM-CPLX", _E, T.every_d_complex, FAMILY, per_label=True, concrete=_over(T.complex_obligations, _all)),
    ObligationTheorem("THM-LAYOUT", f"{_E}; same labels in both plans (THM-LIFT: both are bijections)",
                      _plans(T.every_d_layout, _concat), FAMILY, plans=tuple(pl.name for pl in PLANS if _concat(pl)),
                      concrete=_over(layout_obligations, lambda: T.CONCRETE),
                      steps=layout_steps, mutations=(), step_mutations=("with-cos-sin-ceil", "odd-rule"),
                      rules=(RULE_REINDEX, RULE_SUM)),
]
