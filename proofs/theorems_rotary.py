"""THM-ROPE-REL, THM-ROPE-ATTN (statements in :mod:`sinpe.spec.theorems_rotary`), decided by the Laurent procedure.

>>> [t.prove().status for t in THEOREMS]
['proven', 'proven']
"""
from __future__ import annotations

from sinpe.spec import theorems_rotary as R

from .engine import ObligationTheorem


# What each statement is proven for: REL for a symbolic frequency and symbolic positions (every head
# dimension: the cache is block-diagonal in these 2x2 rotations); ATTN at the head dimensions R.DIMS.
_REL_SCOPE = {"d": "all", "alpha": "1", "sigma": "1", "o": "0", "per": "2x2 block, symbolic omega, p, q"}
_ATTN_SCOPE = {"d": f"head dimensions {list(R.DIMS)}", "alpha": "1", "sigma": "1", "o": "0", "layouts": ["halves", "pairs"]}

THEOREMS = (
    ObligationTheorem("THM-ROPE-REL", "laurent", R.rel_obligations, _REL_SCOPE),
    ObligationTheorem("THM-ROPE-ATTN", "laurent", R.attn_obligations, _ATTN_SCOPE),
)
