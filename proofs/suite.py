"""The proof suite: every THM-* of SPEC.md section 5, in the spec's order (``sinpe prove``).

>>> [t.id for t in theorems()][:3]
['THM-LIFT', 'THM-SHIFT', 'THM-DOT']
>>> r = run_all(only="THM-CPLX")[0]
>>> r.id, r.status, r.to_json()["reproduce"], r.to_json()["scope"]["d"]
('THM-CPLX', 'proven', 'sinpe prove --only THM-CPLX', 'all')
>>> run_all(only="nope")
Traceback (most recent call last):
...
ValueError: unknown theorem ID 'nope'; known: THM-LIFT, THM-SHIFT, THM-DOT, THM-EVEN, THM-ROT, THM-NORM, THM-BOUND, THM-WAVE, THM-INJ, THM-LAYOUT, THM-NONPERM, THM-ATTN, THM-DIR, THM-CPLX, THM-ROPE-REL, THM-ROPE-ATTN
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from sinpe.spec.theorems import STATEMENTS

from .budget import OutOfTime, budget
from .engine import THEOREM_BUDGET, ProofResult

__all__ = ["ProofResult", "run_all", "theorems", "get_theorem"]


def theorems() -> list[Any]:
    """Theorem objects (``.id``, ``.mutations``, ``.prove(mutation=None) -> ProofResult``) in SPEC order."""
    from .theorems_identities import THEOREMS
    from .theorems_structural import Attention, Injectivity, NonPermutation, Wavelengths
    by_id: dict[str, Any] = {t.id: t for t in THEOREMS}
    for t in (Wavelengths(), Injectivity(), NonPermutation(), Attention()):
        by_id[t.id] = t
    by_id.update({t.id: t for t in __import__("sinpe.proofs.theorems_rotary", fromlist=["THEOREMS"]).THEOREMS})
    assert set(by_id) == set(STATEMENTS), set(by_id) ^ set(STATEMENTS)
    return [by_id[i] for i in STATEMENTS]


def get_theorem(theorem_id: str) -> Any:
    """The theorem with that ID (case-insensitive); ValueError naming the known IDs otherwise."""
    want = theorem_id.strip().upper()
    for t in theorems():
        if t.id == want:
            return t
    raise ValueError(f"unknown theorem ID {theorem_id!r}; known: {', '.join(STATEMENTS)}")


def run_all(only: str | Sequence[str] | None = None, progress: Callable[[int, int, str], None] | None = None,
            witness: bool = True) -> list[ProofResult]:
    """Prove every theorem (or only the IDs in ``only``); each result carries its status, scope, counts and witness.
    ``witness=False`` proves without the numeric witness (it is never part of a proof; with it, a disagreement
    is an internal error). Each theorem runs under :data:`~sinpe.proofs.engine.THEOREM_BUDGET` seconds."""
    if isinstance(only, str):
        only = [only]
    todo = [get_theorem(i) for i in only] if only else theorems()
    out = []
    for i, t in enumerate(todo):
        if progress is not None:
            progress(i, len(todo), t.id)
        out.append(prove_within_budget(t, None, witness))
    if progress is not None:
        progress(len(todo), len(todo), "done")
    return out


def prove_within_budget(t: Any, mutation: str | None, witness: bool) -> ProofResult:
    """``t.prove(mutation, witness)``, not proven (never a hang) when it runs past the theorem budget."""
    t0 = time.perf_counter()
    try:
        with budget(THEOREM_BUDGET):
            return t.prove(mutation, witness=witness)
    except OutOfTime as exc:
        return ProofResult(t.id, STATEMENTS[t.id], "", getattr(t, "method", ""), "not-proven", time.perf_counter() - t0,
                           0, "not run", failures=[f"{t.id}: {exc}"], mutation=mutation)
