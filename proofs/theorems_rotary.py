"""THM-ROPE-REL, THM-ROPE-ATTN (statements in :mod:`sinpe.spec.theorems_rotary`), decided by the Laurent procedure.

>>> [t.prove().status for t in THEOREMS]
['proven', 'proven']
"""
from __future__ import annotations

from functools import partial

from sinpe.spec import theorems_rotary as R

from .engine import ObligationTheorem


def pair_plan_steps(mutation: str | None = None) -> list[tuple[bool, int, str]]:
    """The rotary layouts' pairs form a bijection of labels onto the dim columns for every n (THM-LIFT's
    steps on :func:`sinpe.spec.definition.rotary_pairs`), each pair where DEF-ROPE-LAYOUT puts it (rotate-half
    (i, i + n), rotate-every-two (2i, 2i + 1): ``ROTARY_RULES``, typed apart); mutation 'pair-offset' moves a
    segment, 'pairs-swapped' claims each layout's pairs for the other."""
    from sinpe.spec.definition import rotary_definition, rotary_pairs
    from sinpe.spec.theorems import I_, ROTARY_RULES, N, rotary_schedule_statement, show, symbolic

    from .evidence import step
    from .symbolic import conformance_steps, label_steps, mutate_plan, plan_steps, prefixed, rational_identity
    out = []
    for layout in ("halves", "pairs"):
        pl = symbolic(rotary_pairs(layout))
        pl = mutate_plan(pl, "plan-offset") if mutation == "pair-offset" else pl
        rules = ROTARY_RULES[{"halves": "pairs", "pairs": "halves"}[layout] if mutation == "pairs-swapped" else layout]
        e_i = rotary_definition(layout).schedule.exponent(N, I_)
        says, at = rotary_schedule_statement(I_)  # DEF-ROPE-FREQ-DEFAULT: e_i = 2i/dim, at dim = 2n
        says = 2 * I_ / (at[0][0] + 2) if mutation == "rotary-schedule" else says  # D = dim/2 + 1
        out += prefixed(f"{layout}: ", plan_steps(pl) + label_steps(pl) + conformance_steps(pl, rules, "DEF-ROPE-LAYOUT"))
        out.append(step(rational_identity(e_i, says, at), 1, f"{layout}: rotary schedule: e_i = {show(e_i)} is "
                        f"DEF-ROPE-FREQ-DEFAULT's {show(says)} (w_i = b^(-2i/dim)) at dim = {show(at[0][1])}"))
    return out


def rotary_crosscheck() -> list[tuple[bool, int, str]]:
    """Cross-check (not the proof): the rotary column data the caches and the application check read
    (``rotary_data``: labels, the pairs' partner columns, the exponents) is the symbolic pairing plan and
    DEF-ROPE-FREQ-DEFAULT's e_k = k/n at every even dim <= 1100 and at 2048, 4096."""
    from sinpe.spec.definition import rotary_data, rotary_pairs
    from sinpe.spec.theorems import symbolic

    from .symbolic import first_bad, plan_crosscheck
    dims = tuple(range(2, 1101, 2)) + (2048, 4096)
    out = []
    for layout in ("halves", "pairs"):
        out += [(ok, n, f"{layout}: {what}") for ok, n, what in
                plan_crosscheck(symbolic(rotary_pairs(layout)), dims, lambda d, lay=layout: rotary_data(lay, d),
                                "the rotary column data", partners=lambda d: True)]
        bad = first_bad(dims, partial(_rotary_exponents_agree, layout))
        out.append((not bad, len(dims), f"{layout}: the rotary exponents are k/(dim/2) at {len(dims)} dims"
                    + (f"; differ at dim = {bad}" if bad else "")))
    return out


def _rotary_exponents_agree(layout: str, dim: int) -> bool:
    """The rotary column data's exponents at ``dim``: e_k = k/(dim/2) for k < dim/2, and dim/2 of them."""
    from sinpe.spec.definition import rotary_data
    es = rotary_data(layout, dim).exponents
    return len(es) == dim // 2 and all(e.numerator * (dim // 2) == k * e.denominator for k, e in enumerate(es))


def describe_pairs() -> str:
    from sinpe.spec.theorems import ROTARY_RULES, rule_text
    return "the rotated pairs (first member 'sin', second 'cos') of a layout of dim = 2n columns: " + "; ".join(
        f"{lay}: {rule_text(rules)}" for lay, rules in ROTARY_RULES.items())


_DIMS = "all even head dimensions (halves, pairs: the pairs of the layout's channel plan)"
THEOREMS = (
    ObligationTheorem("THM-ROPE-REL", "laurent", R.rel_obligations, (), per_label=True, steps=pair_plan_steps,
                      step_mutations=("pair-offset", "pairs-swapped", "rotary-schedule"), d=_DIMS, describe=describe_pairs),
    ObligationTheorem("THM-ROPE-ATTN", "laurent per pair + the layouts' plans decided as bijections (THM-LIFT's steps)",
                      R.attn_pair_obligations, (), per_label=True, concrete=lambda: R.attn_obligations() + rotary_crosscheck(),
                      steps=pair_plan_steps,
                      step_mutations=("pair-offset", "pairs-swapped", "rotary-schedule"), d=_DIMS + "; cross-check at " + str(list(R.DIMS)),
                      describe=describe_pairs),
)
