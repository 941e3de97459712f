"""THM-ROPE-REL, THM-ROPE-ATTN (statements in :mod:`sinpe.spec.theorems_rotary`), decided by the Laurent procedure.

>>> [t.prove().status for t in THEOREMS]
['proven', 'proven']
"""
from __future__ import annotations

from sinpe.spec import theorems_rotary as R

from .engine import ObligationTheorem


class _Once:
    """A single instance (the statements are already generic in the frequencies)."""

    name = "generic"


THEOREMS = (
    ObligationTheorem("THM-ROPE-REL", "laurent", lambda _i: R.rel_obligations(), lambda: [_Once()]),
    ObligationTheorem("THM-ROPE-ATTN", "laurent", lambda _i: R.attn_obligations(), lambda: [_Once()]),
)
