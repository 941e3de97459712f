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

from .budget import BUDGET_MESSAGE, OutOfTime, budget
from .engine import THEOREM_BUDGET, ProofResult

__all__ = ["ProofResult", "run_all", "theorems", "get_theorem", "mutation_report"]


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


MUTANT_KINDS = ("statement", "scope", "procedure", "definition")


def _killed(r: ProofResult) -> bool:
    """Refuted by a procedure: not proven, with a reason, and not by running out of time (a hang survives)."""
    return r.status == "not-proven" and bool(r.failures) and not any(BUDGET_MESSAGE in f for f in r.failures)


def _statement_rows(todo: list[Any], progress: Any) -> list[dict[str, Any]]:
    """Statement and scope mutants of the theorems in ``todo``, each proven without the witness."""
    from .engine import ObligationTheorem
    from .mutants import offset_zero, scope_mutants
    jobs: list[tuple[str, str, str, Any]] = [("statement", t.id, m, lambda t=t, m=m: prove_within_budget(t, m, False))
                                             for t in todo for m in t.mutations]
    for t in todo:
        if isinstance(t, ObligationTheorem):
            jobs += [("scope", t.id, name, fn) for name, fn in scope_mutants(t)]
    family = [t for t in todo if isinstance(t, ObligationTheorem) and "o" in t.params]

    def with_offset_zero(t: Any) -> ProofResult:
        with offset_zero():
            fresh = __import__("copy").copy(t)
            fresh._claim_cache, fresh._cache = None, None
            return fresh.prove(witness=False)
    jobs += [("scope", t.id, "offset-zero", lambda t=t: with_offset_zero(t)) for t in family]
    rows = []
    for n, (kind, tid, m, run) in enumerate(jobs):
        if progress is not None:
            progress(n, len(jobs), f"{tid}:{m}")
        r = run()
        rows.append({"kind": kind, "theorem": tid, "mutation": m, "killed": _killed(r), "failure": (r.failures or [""])[0][:200],
                     "reproduce": f"sinpe prove --mutants --only {tid} --json"})
    return rows


def mutation_report(only: str | Sequence[str] | None = None, progress: Callable[[int, int, str], None] | None = None,
                    kinds: Sequence[str] | None = None, workers: int = 2) -> dict[str, Any]:
    """The mutation suite (SPEC.md REQ-PROVE-MUTANTS): every false variant is proven again without the witness and
    must come out ``not-proven`` by a decision procedure (a hang survives). ``kinds``: 'statement' (each theorem's
    own: sign, sin-for-cos, shift, drop at the first and last decided obligation; wrong plans, base 1, kernel
    constant, ...), 'scope' (a parameter named or omitted, a plan's claims dropped, o replaced by 0), 'procedure'
    (an unsound rule of a decision procedure: it must make a false statement proven, :mod:`.mutants`) and
    'definition' (edits of spec/definition.py, each rejected by a theorem or shown to change no table and no golden
    value; ``workers`` children at a time). With ``only``, the statement and scope mutants of those theorems.
    Returns the kill rate.

    >>> r = mutation_report(only="THM-CPLX")
    >>> r["killed"] == r["total"] > 0, r["rate"], sorted({m["kind"] for m in r["mutants"]})
    (True, 1.0, ['scope', 'statement'])
    """
    from . import mutants as M
    if isinstance(only, str):
        only = [only]
    if kinds is None:
        kinds = ("statement", "scope") if only else MUTANT_KINDS
    unknown = set(kinds) - set(MUTANT_KINDS)
    if unknown:
        raise ValueError(f"unknown mutant kind {sorted(unknown)[0]!r}; known: {', '.join(MUTANT_KINDS)}")
    todo = [get_theorem(i) for i in only] if only else theorems()
    rows = [r for r in _statement_rows(todo, progress) if r["kind"] in kinds]
    if "procedure" in kinds:
        for p in M.run_procedure_mutants():
            rows.append({"kind": "procedure", "theorem": "", "mutation": p["name"], "killed": p["verdict"] == "rejected",
                         "failure": f"{p['what']}: {p['failure']}", "reproduce": "sinpe prove --mutants --kind procedure --json"})
    if "definition" in kinds:
        for d in M.run_definition_mutants(workers=workers, progress=progress):
            rows.append({"kind": "definition", "theorem": d.get("rejected_by") or "", "mutation": d["name"],
                         "killed": d["verdict"] in ("rejected", "inert"), "verdict": d["verdict"],
                         "changes_values": d.get("changes_values"), "failure": f"{d['what']}: {d['failure']}"[:300],
                         "reproduce": "sinpe prove --mutants --kind definition --json"})
    if progress is not None:
        progress(1, 1, "done")
    survivors = [f"{r['theorem'] or r['kind']}:{r['mutation']}" for r in rows if not r["killed"]]
    killed = sum(r["killed"] for r in rows)
    return {"total": len(rows), "killed": killed, "rate": killed / len(rows) if rows else 1.0,
            "survivors": survivors, "mutants": rows}
