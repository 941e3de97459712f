"""The mutation suite (SPEC.md REQ-PROVE-MUTANTS, ``sinpe prove --mutants``): every kind of false variant
(:mod:`.mutants`) proven again without the witness, and the kill rate."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .budget import BUDGET_MESSAGE
from .engine import ObligationTheorem, ProofResult
from .mutants import offset_zero, run_definition_mutants, run_procedure_mutants, scope_mutants
from .suite import get_theorem, prove_within_budget, theorems

MUTANT_KINDS = ("statement", "scope", "procedure", "definition")


def _killed(r: ProofResult) -> bool:
    """Refuted by a procedure: not proven, with a reason, and not by running out of time (a hang survives)."""
    return r.status == "not-proven" and bool(r.failures) and not any(BUDGET_MESSAGE in f for f in r.failures)


def _statement_rows(todo: list[Any], progress: Any, kinds: Sequence[str] = ("statement", "scope")) -> list[dict[str, Any]]:
    """Statement and scope mutants (those of ``kinds``) of the theorems in ``todo``, each proven without the witness."""
    jobs: list[tuple[str, str, str, Any]] = [("statement", t.id, m, lambda t=t, m=m: prove_within_budget(t, m, False))
                                             for t in todo for m in t.mutations] if "statement" in kinds else []
    if "scope" not in kinds:
        return _run_rows(jobs, progress)
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
    return _run_rows(jobs, progress)


def _run_rows(jobs: list[tuple[str, str, str, Any]], progress: Any) -> list[dict[str, Any]]:
    """Each (kind, theorem, mutation, run) job run: its row of the report."""
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
    if isinstance(only, str):
        only = [only]
    if kinds is None:
        kinds = ("statement", "scope") if only else MUTANT_KINDS
    unknown = set(kinds) - set(MUTANT_KINDS)
    if unknown:
        raise ValueError(f"unknown mutant kind {sorted(unknown)[0]!r}; known: {', '.join(MUTANT_KINDS)}")
    todo = [get_theorem(i) for i in only] if only else theorems()
    rows = _statement_rows(todo, progress, kinds)
    if "procedure" in kinds:
        for p in run_procedure_mutants():
            rows.append({"kind": "procedure", "theorem": "", "mutation": p["name"], "killed": p["verdict"] == "rejected",
                         "failure": f"{p['what']}: {p['failure']}", "reproduce": "sinpe prove --mutants --kind procedure --json"})
    if "definition" in kinds:
        for d in run_definition_mutants(workers=workers, progress=progress):
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
