"""THM-ROPE-REL, THM-ROPE-ATTN (statements in :mod:`sinpe.spec.theorems_rotary`), decided by the Laurent procedure.

>>> [t.prove().status for t in THEOREMS]
['proven', 'proven']
"""
from __future__ import annotations

from sinpe.spec import theorems_rotary as R

from .engine import ObligationTheorem


# What each statement is proven for: per 2x2 block with a symbolic frequency and symbolic positions; every
# even head dimension, because the caches' pairs are the channel plans THM-LIFT decides (rotary_pairs:
# pairs = interleaved, halves = sin-cos), re-decided here as steps; dims 4 and 6 are a cross-check.
_REL_SCOPE = {"d": "all even head dimensions (halves, pairs: the pairs of the layout's channel plan)", "alpha": "1",
              "sigma": "1", "o": "0", "per": "2x2 block, symbolic omega, p, q"}
_ATTN_SCOPE = {"d": "all even head dimensions; cross-check at " + str(list(R.DIMS)), "alpha": "1", "sigma": "1", "o": "0",
               "layouts": ["halves", "pairs"], "frequencies": "opaque (every rule, scaling and base)"}


def pair_plan_steps(mutation: str | None = None) -> list[tuple[bool, int, str]]:
    """The rotary layouts' pairs form a bijection of labels onto the dim columns for every n (THM-LIFT's
    steps on :func:`sinpe.spec.definition.rotary_pairs`); mutation 'pair-offset' moves a segment."""
    from sinpe.spec.definition import rotary_pairs
    from sinpe.spec.theorems import symbolic

    from .symbolic import STEP_PLANS, label_steps, mutate_plan, plan_steps
    out = []
    for layout in ("halves", "pairs"):
        pl = symbolic(rotary_pairs(layout))
        pl = mutate_plan(pl, "plan-offset") if mutation == "pair-offset" else pl
        mine = [(ok, n, f"{layout}: {what}") for ok, n, what in plan_steps(pl) + label_steps(pl)]
        STEP_PLANS.update({what: pl for _, _, what in mine})  # certified by the plan (sinpe prove --certificates)
        out += mine
    return out


THEOREMS = (
    ObligationTheorem("THM-ROPE-REL", "laurent", R.rel_obligations, _REL_SCOPE, steps=pair_plan_steps,
                      step_mutations=("pair-offset",)),
    ObligationTheorem("THM-ROPE-ATTN", "laurent per pair + the layouts' plans decided as bijections (THM-LIFT's steps)",
                      R.attn_pair_obligations, _ATTN_SCOPE, concrete=R.attn_obligations, steps=pair_plan_steps,
                      step_mutations=("pair-offset",)),
)
