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

from typing import Any, Callable, Sequence

from sinpe.spec.theorems import STATEMENTS

from .engine import ProofResult

__all__ = ["ProofResult", "run_all", "theorems", "get_theorem", "mutation_report"]


def theorems() -> list[Any]:
    """Theorem objects (``.id``, ``.mutations``, ``.prove(mutation=None) -> ProofResult``) in SPEC order."""
    from .theorems_identities import THEOREMS
    from .theorems_structural import Attention, Injectivity, NonPermutation, Wavelengths
    by_id = {t.id: t for t in THEOREMS}
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


def run_all(only: str | Sequence[str] | None = None, progress: Callable[[int, int, str], None] | None = None) -> list[ProofResult]:
    """Prove every theorem (or only the IDs in ``only``); each result carries its status, scope, counts and witness."""
    if isinstance(only, str):
        only = [only]
    todo = [get_theorem(i) for i in only] if only else theorems()
    out = []
    for i, t in enumerate(todo):
        if progress is not None:
            progress(i, len(todo), t.id)
        out.append(t.prove())
    if progress is not None:
        progress(len(todo), len(todo), "done")
    return out


def mutation_report(only: str | Sequence[str] | None = None,
                    progress: Callable[[int, int, str], None] | None = None) -> dict[str, Any]:
    """The mutation suite (issue 18.6, SPEC.md section 5): every false variant each theorem knows (statement
    mutations: sign, sin-for-cos, shift, drop at the first and last decided obligation; plan, constant and
    hypothesis mutations: wrong plans, base 1, kernel constant, ...) is proven again and must come out
    ``not-proven`` by a decision procedure, not by the numeric witness alone. Returns the kill rate.

    >>> r = mutation_report(only="THM-CPLX")
    >>> r["killed"] == r["total"] > 0, r["rate"]
    (True, 1.0)
    """
    if isinstance(only, str):
        only = [only]
    todo = [get_theorem(i) for i in only] if only else theorems()
    jobs = [(t, m) for t in todo for m in t.mutations]
    rows, survivors = [], []
    for n, (t, m) in enumerate(jobs):
        if progress is not None:
            progress(n, len(jobs), f"{t.id}:{m}")
        r = t.prove(m)
        by_procedure = bool(r.failures) and not any(f.startswith("numeric witness contradicts") for f in r.failures)
        killed = r.status == "not-proven" and by_procedure
        rows.append({"theorem": t.id, "mutation": m, "killed": killed, "failure": (r.failures or [""])[0][:200],
                     "reproduce": f"python -c \"from sinpe.proofs.suite import get_theorem as g; "
                                  f"print(g('{t.id}').prove('{m}').failures)\""})
        if not killed:
            survivors.append(f"{t.id}:{m}")
    if progress is not None:
        progress(len(jobs), len(jobs), "done")
    killed = sum(r["killed"] for r in rows)
    return {"total": len(rows), "killed": killed, "rate": killed / len(rows) if rows else 1.0,
            "survivors": survivors, "mutants": rows}
