"""DEF-CHANNELS: the column plan is written once (spec/definition.py) and everything reads it.

The kernels (``columns``, ``column_index``), the proofs (``spec.theorems.PLANS``, THM-LIFT) and the tables
all derive from :func:`sinpe.spec.definition.channel_plan`; these tests show that a change to the plan, at
every width or at one width no test names, turns the proof suite red, and that the tables follow it.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sinpe.spec import definition as D, theorems as T
from sinpe.spec.profiles import PRESETS, get_profile


def _lift():
    from sinpe.proofs.theorems_identities import THEOREMS
    return next(t for t in THEOREMS if t.id == "THM-LIFT")


def _clear_caches():
    D._column_data.cache_clear()


def test_proofs_read_the_definitions_plan():  # DEF-CHANNELS, THM-LIFT
    """The proofs' plans are the definition's segments with n a symbol: no second copy to drift."""
    for pl in T.PLANS:
        src = D.channel_plan(pl.layout, pl.odd_rule, pl.odd)
        assert [(s.kind, s.a) for s in pl.segments()] == [(s.kind, s.a) for s in src.segments()]
        for s, t in zip(pl.segments(), src.segments(), strict=True):
            for n in (0, 1, 7, 50):
                assert [int(x.subs(T.N, n)) for x in (s.lo, s.hi, s.c)] == [t.lo(n), t.hi(n), t.c(n)]


@pytest.fixture
def mutated_at_100(monkeypatch):
    """The definition changed at d = 100 alone: column 1 holds sin_0 (and column 0 cos_0) for interleaved
    tables, a width none of the tests or golden files names (the plan's evaluation at n = 50 edited)."""
    real = D.ChannelPlan.tables

    def tables(plan, n):
        kinds, labels = real(plan, n)
        if n != 50 or plan.layout != "interleaved" or plan.odd:
            return kinds, labels
        return (kinds[1], kinds[0]) + kinds[2:], labels

    monkeypatch.setattr(D.ChannelPlan, "tables", tables)
    _clear_caches()
    yield
    _clear_caches()


def test_a_change_at_one_width_turns_the_proof_suite_red(mutated_at_100):  # DEF-CHANNELS, THM-LIFT
    assert [c.label for c in D.columns(get_profile("vaswani"), 100)][:2] == ["cos0", "sin0"]
    res = _lift().prove()
    assert res.status == "not-proven", res.failures
    assert "differs at d = [100]" in " ".join(res.failures), res.failures


def test_the_tables_follow_the_plan(mutated_at_100):  # DEF-CHANNELS, REQ-TABLE-API
    """The kernels copy the plan's segments: the mutated width's table moves with it, the others do not."""
    from sinpe.reference.tables import table
    t = table(get_profile("vaswani"), 100, range(3), "float64")
    assert t[1, 0] == np.cos(1.0) and t[1, 1] == np.sin(1.0)
    t98 = table(get_profile("vaswani"), 98, range(3), "float64")
    assert t98[1, 0] == np.sin(1.0)


def test_unmutated_plan_is_proven():  # THM-LIFT (the mutation tests above could not pass vacuously)
    _clear_caches()
    assert _lift().prove().status == "proven"


@pytest.mark.parametrize("mutation", ["plan-offset", "plan-stride", "plan-count", "plan-labels"])
def test_a_wrong_plan_in_the_data_is_not_proven(mutation):  # THM-LIFT
    """A typo in the plan's data (every width at once); 'plan-labels' (two sin segments, no cos) is a
    bijection onto the columns and is caught only by the label-partition step."""
    res = _lift().prove(mutation)
    assert res.status == "not-proven", mutation
    if mutation == "plan-labels":
        assert any("labels" in f for f in res.failures), res.failures


def test_column_index_is_the_plan_as_slices():  # DEF-CHANNELS
    for name in PRESETS:
        prof = get_profile(name)
        for d in (1, 2, 5, 8, 9, 64, 65):
            if d % 2 and prof.odd == "error":
                continue
            cols, ci = D.columns(prof, d), D.column_index(prof, d)
            got = np.full(d, "", dtype=object)
            for f in ("sin", "cos"):
                dst = np.arange(d)[ci.dst[f]]
                src = np.arange(d + 1)[ci.src[f]]
                assert dst.size == src.size
                got[dst] = [f"{f}{k}" for k in src]
            got[list(ci.zero)] = "zero"
            assert list(got) == [c.label for c in cols], (name, d)


def test_plan_at_refuses_segments_that_do_not_tile():  # DEF-CHANNELS
    plan = D.channel_plan("interleaved", "trailing-sin", False)
    s, c = plan.paired
    bad = dataclasses.replace(plan, paired=(s, dataclasses.replace(c, c=D.Lin(0, 0))))
    with pytest.raises(ValueError, match="writes column 0"):
        bad.at(3)
    with pytest.raises(ValueError, match="layout must be one of"):
        D.channel_plan("diagonal", "trailing-sin", False)
