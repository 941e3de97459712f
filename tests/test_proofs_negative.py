"""Negative tests: every proof procedure reports not-proven on mutated statements (SPEC.md section 5).

Mutations (sinpe.proofs.engine): a sign flipped in M_k / a constant claim, sin where cos belongs,
omega*k -> omega*(k+1), a dropped term; theorem-specific ones for the structural theorems.
Reproduce: python -c "from sinpe.proofs.suite import get_theorem as g; print(g('<ID>').prove('MUTATION').failures)"
"""
from __future__ import annotations

import pytest
import sympy as sp

from sinpe.proofs.engine import MUTATIONS, ObligationTheorem
from sinpe.proofs.suite import theorems

CASES = [(t.id, m) for t in theorems() for m in t.mutations]


@pytest.mark.parametrize("tid,mutation", CASES, ids=[f"{t}:{m}" for t, m in CASES])
def test_mutated_statement_is_not_proven(tid, mutation):
    t = next(x for x in theorems() if x.id == tid)
    r = t.prove(mutation)
    assert r.status == "not-proven" and r.failures, (
        f"{tid} proved a mutated ({mutation}) statement; reproduce: "
        f"python -c \"from sinpe.proofs.suite import get_theorem as g; print(g('{tid}').prove('{mutation}').to_json())\"")
    # the decision procedure itself must reject it: a rejection by the numeric witness alone would
    # let this test pass with a broken procedure (engine.prove also fails a refuted statement)
    assert not any(f.startswith("internal error") for f in r.failures), (tid, mutation, r.failures)
    if isinstance(t, ObligationTheorem) and mutation not in t.step_mutations:
        # the mutated statement is really false: the numeric smoke test refutes it too
        assert "REFUTED" in r.witness, (tid, mutation, r.witness)
        # the mutant changed an obligation a procedure decides (never a syntactic one), and the failure names it
        assert "[mutated" in r.failures[0], (tid, mutation, r.failures)


def test_last_mutants_reach_past_the_first_obligations():
    """KIND@last mutates a later decided obligation than KIND: mutants exercise more than the first few."""
    from sinpe.proofs.engine import is_syntactic, mutate
    reached = 0
    for t in theorems():
        if not isinstance(t, ObligationTheorem):
            continue
        obs = t.obligations()
        for m in t.mutations:
            if "@" not in m or m.startswith("origin-at-0"):  # that one targets the origin value on purpose
                continue
            first, last = mutate(obs, m.split("@")[0]), mutate(obs, m)
            if first is None or last is None:
                continue
            i = next(j for j, (a, b) in enumerate(zip(obs, first, strict=False)) if a is not b)
            k = next(j for j, (a, b) in enumerate(zip(obs, last, strict=False)) if a is not b)
            assert not is_syntactic(obs[i]) and not is_syntactic(obs[k]), (t.id, m)
            reached += k > i
    assert reached >= 10, reached


def test_every_family_has_the_standard_mutations():
    for t in theorems():
        if isinstance(t, ObligationTheorem):
            std = set(t.mutations) & set(MUTATIONS)
            if t.id in ("THM-LIFT", "THM-LAYOUT", "THM-BOUND"):  # plan steps / bounds: their own mutants
                assert len(t.mutations) >= 2, (t.id, t.mutations)
                continue
            # |x| <= 1 survives a sign flip of x and has no sum to drop: THM-BOUND flips the origin value instead
            assert len(std) >= 3 and ("sign" in std), (t.id, t.mutations)
        else:
            assert len(t.mutations) >= 3, (t.id, t.mutations)


def test_unknown_mutation_is_an_error():
    t = theorems()[0]
    with pytest.raises(ValueError):
        t.prove("nonsense")


def test_a_broken_procedure_is_caught_by_the_guard_above(monkeypatch):
    # with a Laurent procedure that accepts everything, only the witness rejects the mutant: that is an internal
    # error (exit 3, never a proof and never a kill), which the test above forbids
    from sinpe.proofs import canonical, normal
    from sinpe.proofs.suite import get_theorem
    monkeypatch.setattr(canonical, "decide", lambda lhs, rhs: canonical.Verdict(True, 1, sp.Integer(0)))
    monkeypatch.setattr(normal, "decide", lambda lhs, rhs, at=(): normal.Verdict(True, 1))
    r = get_theorem("THM-CPLX").prove("drop")
    assert r.status == "internal-error" and r.exit_code == 3 and r.failures[0].startswith("internal error"), r.failures
    assert get_theorem("THM-CPLX").prove("drop", witness=False).status == "proven"  # the procedure alone is fooled


def test_mutation_report_kills_every_mutant_and_names_a_survivor(monkeypatch):  # REQ-PROVE, THM-LIFT, THM-INJ
    """``sinpe prove --mutants``: the kill rate of the mutation suite; a procedure that proves a mutant makes it
    a named survivor (exit 1)."""
    from helpers import assert_exit, run_sinpe

    from sinpe.proofs.mutation import mutation_report
    from sinpe.proofs.suite import get_theorem
    rep = mutation_report(only=["THM-LIFT", "THM-INJ", "THM-WAVE", "THM-SHIFT"])
    assert rep["total"] >= 25 and rep["killed"] == rep["total"] and not rep["survivors"], rep["survivors"]
    kinds = {m["mutation"] for m in rep["mutants"]}
    assert {"plan-labels", "kernel-sqrt2", "count", "base-1", "block-partner"} <= kinds, kinds
    t = get_theorem("THM-CPLX")
    proven = t.prove(None, witness=False)  # the real proof, proven once
    assert proven.status == "proven"
    monkeypatch.setattr(type(t), "prove", lambda self, m=None, witness=True: proven)  # ignores the mutation
    rep = mutation_report(only="THM-CPLX")
    assert rep["survivors"] and rep["rate"] == 0.0, rep
    monkeypatch.undo()  # the CLI runs in this process: with the real prover again
    res = run_sinpe("prove", "--mutants", "--only", "THM-DOT")
    assert_exit(res, 0)
    assert "mutation suite: 12/12 killed (100.0 %)" in res.stdout, res.stdout  # 8 statement + 4 scope mutants
