"""REQ-PROVE-MUTANTS: the proofs reject edits of the definition, of the statements' scopes and of the procedures;
REQ-PROVE-BUDGET: a step that runs out of time fails its theorem; the suite is sound without the witness.

The full definition table (45 edits, each in its own child) is ``sinpe prove --mutants --kind definition``; the
tests run a sample of each class, the inert edit, and the machinery's own failure modes.
Reproduce: sinpe prove --mutants --kind definition --json
"""
from __future__ import annotations

import time

import pytest
import sympy as sp

from sinpe.proofs import mutants as M
from sinpe.proofs.budget import OutOfTime, budget, enforced
from sinpe.proofs.mutation import mutation_report
from sinpe.proofs.suite import get_theorem


def test_definition_mutants_are_applied_to_the_source_once():  # REQ-PROVE-MUTANTS
    """Every edit's text stands exactly once in spec/definition.py (a mutant that no longer applies is an error)."""
    for m in M.DEFINITION_MUTANTS:
        assert M.mutated_source(m) != open(M._source_path()).read(), m.name
    with pytest.raises(ValueError, match="occurs 0 times"):
        M.mutated_source(M.DefinitionMutant("gone", "", "no such text in the definition", ""))


@pytest.fixture(scope="module")
def baseline():
    return M.fingerprint()


# one edit per class: the plan, one width, the rotary pairs, the schedule, the weight, the phase, the value,
# the profile's parameters read into the definition
SAMPLE = {"zero-pad-halves-swapped": "THM-LIFT", "index-at-100": "THM-LIFT", "half-odd-ceil": "THM-WAVE",
          "exponent-kernel-off-by-one": "THM-WAVE", "offset-sign": "THM-BOUND",
          # issue 25's red team: what only the kernels, the oracles and the public helpers read (the partner columns,
          # the backend's own values, the interval and Arb oracles' phase path, a fractional shift)
          "partner-same-kind": "THM-LIFT", "weight-raw-fractions": "THM-LIFT", "phase-given-w-no-offset": "THM-BOUND",
          "shift-truncated": "THM-WAVE"}


@pytest.mark.parametrize("name", list(SAMPLE))
def test_a_definition_edit_that_changes_tables_is_rejected(name, baseline):  # REQ-PROVE-MUTANTS, DEF-CHANNELS
    m = next(x for x in M.DEFINITION_MUTANTS if x.name == name)
    row = M.run_definition_mutant(m, baseline, first=SAMPLE[name])  # the full order: sinpe prove --mutants
    assert row["changes_values"] and row["verdict"] == "rejected" and row["rejected_by"] == SAMPLE[name], row


def test_the_inert_edit_changes_no_table_and_no_golden_value(baseline):  # REQ-PROVE-MUTANTS
    """'lin-commuted' writes q*n + r as r + q*n (the same numbers, the same SymPy expressions): its fingerprint
    equals the real definition's, so it is inert, not a survivor."""
    m = next(x for x in M.DEFINITION_MUTANTS if x.name == "lin-commuted")
    row = M.run_definition_mutant(m, baseline, prove=False)
    assert row["verdict"] == "inert" and row["changes_values"] is False, row


def test_a_mutant_whose_child_hangs_survives(monkeypatch, baseline):  # REQ-PROVE-MUTANTS: a hang is a survivor
    m = M.DefinitionMutant("hangs", "the definition never finishes importing", "from .profiles import Profile\n",
                           "from .profiles import Profile\nimport time\ntime.sleep(60)\n")
    row = M.run_definition_mutant(m, baseline, timeout=3, prove=False)
    assert row["verdict"] == "survived" and "did not finish" in row["failure"], row


def test_the_fingerprint_sees_a_table_change(monkeypatch, baseline):  # REQ-PROVE-MUTANTS (inert could be vacuous)
    from sinpe.spec import definition as D
    real = D.Definition.at

    def at(self, d):
        cd = real(self, d)
        return D.ColumnData(cd.d, cd.kinds, cd.labels, cd.n_frequencies, cd.schedule, cd.base, cd.scale,
                            cd.offset + (1 if d == 601 else 0), cd.amplitude, cd.name)
    monkeypatch.setattr(D.Definition, "at", at)
    D._column_data.cache_clear()
    try:
        assert M.fingerprint() != baseline
    finally:
        monkeypatch.undo()
        D._column_data.cache_clear()


@pytest.mark.parametrize("m", M.PROCEDURE_MUTANTS, ids=lambda m: m.name)
def test_every_unsound_rule_makes_a_false_statement_proven(m):  # REQ-PROVE-MUTANTS
    """Each procedure mutant is seen by the corpus: its sentinel (a false statement) is refuted by the sound
    procedures and proven with the unsound rule in place, so the suite's mutants could not all be killed."""
    assert not m.sentinel(), f"{m.name}: the sound procedures accept its sentinel"
    with m.patch():
        assert m.sentinel(), f"{m.name}: the unsound rule is not seen by its sentinel"
    assert not m.sentinel(), f"{m.name}: the patch was not undone"


def test_scope_and_builder_mutants_are_killed():  # REQ-PROVE-MUTANTS, REQ-PROVE
    rep = mutation_report(only=["THM-NORM", "THM-ROT", "THM-LIFT"], kinds=["scope"])
    names = {(r["theorem"], r["mutation"]) for r in rep["mutants"]}
    assert ("THM-NORM", "offset-zero") in names and ("THM-ROT", "scope+alpha") in names, names
    assert any(t == "THM-NORM" and m.startswith("plans-") for t, m in names), names  # odd-d claims dropped
    assert rep["killed"] == rep["total"] > 5 and not rep["survivors"], rep["survivors"]


def test_a_survivor_is_named(monkeypatch):  # REQ-PROVE-MUTANTS (the report can fail)
    t = get_theorem("THM-NORM")
    monkeypatch.setattr(type(t), "_coverage", lambda self, obs, steps: [])  # coverage no longer checked
    rep = mutation_report(only="THM-NORM", kinds=["scope"])
    assert any(s.startswith("THM-NORM:plans-") for s in rep["survivors"]), rep["survivors"]


def test_a_step_past_its_budget_fails_the_theorem(monkeypatch):  # REQ-PROVE-BUDGET
    if not enforced():
        pytest.skip("budgets need the main thread and setitimer")
    from sinpe.proofs import engine, normal
    real = normal.decide

    def slow(lhs, rhs, at=()):
        time.sleep(30)
        return real(lhs, rhs, at)
    monkeypatch.setattr(normal, "decide", slow)
    monkeypatch.setattr(engine, "STEP_BUDGET", 0.2)
    t0 = time.perf_counter()
    r = get_theorem("THM-CPLX").prove(witness=False)
    assert r.status == "not-proven" and "ran past its time budget" in r.failures[0], r.failures
    assert time.perf_counter() - t0 < 10
    rep = mutation_report(only="THM-CPLX", kinds=["statement"])  # and a mutant that times out survives
    assert rep["survivors"] and rep["killed"] == 0, rep


def test_budgets_nest_and_expire_in_order():  # REQ-PROVE-BUDGET
    if not enforced():
        pytest.skip("budgets need the main thread and setitimer")
    with pytest.raises(OutOfTime, match="0.1 s"):
        with budget(5):
            with budget(0.1):
                while True:
                    sp.Integer(1)
    with budget(1):
        pass  # an unexpired budget leaves nothing armed
    time.sleep(0.01)
