"""One pipeline for every kind (SPEC.md REQ-CHECK-KINDS, REQ-CHECK-VERDICT, REQ-CHECK-DECIDE, REQ-CHECK-UNJUDGED):
a 1-D table, a 2-D grid, a rotary cache pair and an explicit channel plan are all checked into one result type,
``CheckResult``, with one ``to_json()`` (the same keys, in the parts and the failures too) and one text renderer;
the entries the fast references cannot decide go to one escalation (``checking/decide.py``: one precision cap,
one budget), and what it cannot decide makes the verdict inconclusive (exit 3), never a pass, in every kind.
Reproduce: python -m pytest tests/test_one_result.py
"""
from __future__ import annotations

import dataclasses
import json

import library_formulas as L
import numpy as np
import pytest
from helpers import check_rotary

import sinpe
from sinpe.reference.checking import check, decide, judge, report
from sinpe.reference.checking.check import conclude
from sinpe.reference.checking.result import CheckResult
from sinpe.reference.oracles import fast as fastref
from sinpe.reference.oracles.angles import rotary_plan, rounded_table as angle_rounded
from sinpe.reference.oracles.arb import rounded_table
from sinpe.spec.profiles import get_profile
from sinpe.spec.rotary import get_rotary

VAS = get_profile("vaswani")
POS = np.array([0, 1, 5, 77])


def _results() -> dict[str, CheckResult]:
    """A result of every kind, passing and failing, and the findings that compare no entry."""
    c, s = L.rope_cache(L.inv_freq_default(32), 64)
    s_bad = s.copy()
    s_bad[50, 3] = -s_bad[50, 3]
    grid = L.mae_2d(32, 6, cls=True).astype(np.float32)
    grid_bad = grid.copy()
    grid_bad[20, 5] += 1e-3
    one = sinpe.table("vaswani", 8, 64, "float32")
    one_bad = one.copy()
    one_bad[5, 3] += 1e-3
    noise = np.random.default_rng(1).uniform(-1, 1, (36, 32))
    return {"1d": sinpe.check(one, "vaswani"), "1d-fails": sinpe.check(one_bad, "vaswani", detect=False),
            "1d-width": sinpe.check(one, "vaswani", d=6, detect=False),
            "grid": sinpe.check(grid, "mae", cls=1), "grid-fails": sinpe.check(grid_bad, "mae", cls=1),
            "grid-shape": sinpe.check(grid, "mae", shape="5x7"),
            "rotary": sinpe.check(cos=c, sin=s, profile="llama"),
            "rotary-fails": sinpe.check(cos=c, sin=s_bad, profile="llama"),
            "channels": sinpe.check(one, channels=",".join(f"{f}:1/{10000 ** (k / 4):g}" for k in range(4)
                                                           for f in ("sin", "cos"))),
            "unnamed": sinpe.check(cos=noise, profile="auto")}


@pytest.fixture(scope="module")
def results():
    return _results()


def test_every_kind_is_checked_into_one_result_type(results):
    assert {type(r) for r in results.values()} == {CheckResult}
    assert [results[k].kind for k in ("1d", "grid", "rotary", "channels")] == ["1d", "grid", "rotary", "channels"]
    assert {type(p) for p in results["rotary"].parts.values()} == {CheckResult}
    assert not hasattr(judge, "AngleResult") and not hasattr(report, "angle_report")


def test_to_json_has_the_same_keys_everywhere(results):
    js = {k: r.to_json() for k, r in results.items()}
    keys = {k: frozenset(j) for k, j in js.items()}
    keys.update({f"rotary.{p}": frozenset(j) for p, j in js["rotary-fails"]["parts"].items()})
    assert len(set(keys.values())) == 1, {k: sorted(v ^ keys["1d"]) for k, v in keys.items()}
    fkeys = {k: frozenset(f) for k in ("1d-fails", "grid-fails", "rotary-fails") for f in js[k]["failures"]}
    assert len(set(fkeys.values())) == 1, fkeys
    for k in ("1d-fails", "grid-fails", "rotary-fails"):  # "column" is the index everywhere, "label" its name
        f = js[k]["failures"][0]
        assert isinstance(f["column"], int) and isinstance(f["label"], str), (k, f)
    assert js["grid-fails"]["failures"][0]["label"] == "x:sin5" and js["grid-fails"]["worst"]["column"] == 5
    assert js["rotary-fails"]["parts"]["sin"]["unjudged"] == {"count": 0, "share": 0.0, "from_position": None}
    for j in js.values():
        json.dumps(j, allow_nan=False)


def test_conformant_and_exit_code_follow_the_verdict_in_every_kind(results):
    for k, r in results.items():
        assert r.conformant is (r.verdict == "conforms") and r.exit_code == {"conforms": 0, "fails": 1,
                                                                             "inconclusive": 3}[r.verdict], k
    assert [results[k].verdict for k in ("1d", "grid", "rotary", "channels")] == ["conforms"] * 4
    assert {results[k].verdict for k in results if k not in ("1d", "grid", "rotary", "channels")} == {"fails"}


def test_one_text_renderer_for_every_kind(results):
    for k in ("1d-fails", "grid-fails", "rotary-fails"):
        text = report.render(results[k], "t.npy").splitlines()
        assert text[0].startswith("sinpe check t.npy: ") and any(ln.startswith("DOES NOT CONFORM: ") for ln in text)
        assert any(ln.startswith("max |error| ") and " of its bound)" in ln for ln in text), (k, text)
        assert any(ln.startswith("first failures (1 of 1):") for ln in text), (k, text)
        assert any(ln.startswith("    reproduce: sinpe check ") for ln in text), (k, text)
    grid = report.render(results["grid-fails"], "t.npy")
    assert "  position (3, 1) column 5 (x:sin5): value " in grid and "# row 20, column 5" in grid
    assert not hasattr(report, "render_angle") and not hasattr(report, "render_report")


# --- one escalation: the near-bound entries of every kind ------------------------------------------------------

def _one_d(bad: bool = True) -> np.ndarray:
    t = rounded_table(VAS, 6, POS, "binary32").astype(np.float32)
    if bad:
        t[2, 3] = np.nextafter(t[2, 3], np.float32(-2))
    return t


def _rotary(bad: bool = True) -> np.ndarray:
    t = angle_rounded(rotary_plan(get_rotary("llama"), 8, list(range(12)), "sin"), "binary64")
    if bad:
        t[7, 3] = np.nextafter(t[7, 3], 2.0)
    return t


def _check_1d(t: np.ndarray, tier: str) -> CheckResult:
    return check.check_table(t, VAS, positions=POS, tier=tier, detect=False)


def _check_rotary(t: np.ndarray) -> CheckResult:
    return check_rotary(get_rotary("llama"), 8, sin=t, tier="exact")


@pytest.fixture()
def spy(monkeypatch):
    """Every call of the one escalation's settle, and the verdicts it gave."""
    calls: list[object] = []
    real = decide.settle

    def settle(*a):
        out = real(*a)
        calls.append(out[0])
        return out
    monkeypatch.setattr(decide, "settle", settle)
    monkeypatch.setattr(fastref, "ERROR_ULPS", 2.0 ** 40)  # the 1-D fast reference can decide nothing: all go up
    return calls


def test_near_bound_entries_of_both_kinds_are_decided_by_one_escalation(spy):
    one = _check_1d(_one_d(), "phase")     # every entry undecided by the fast reference; RN(PE) settles all but one
    assert one.verdict == "conforms" and one.undecided == 0 and one.oracle_decided > 1 and spy == [True]
    rot = _check_rotary(_rotary())         # float64 at the exact tier: every entry within the reference's error
    assert rot.verdict == "fails" and rot.n_failures == 1 and (rot.failures[0].row, rot.failures[0].column) == (7, 3)
    assert len(spy) == 1 + rot.rows * rot.d and spy.count(False) == 1 and rot.oracle_decided == rot.rows * rot.d
    far = _one_d()
    far[2, 3] -= np.float32(1e-5)  # beyond its bound, within the inflated fast error: the escalation fails it
    assert _check_1d(far, "phase").verdict == "fails" and spy[-1] is False


def _blur(monkeypatch, width: float) -> None:
    """Both oracles' enclosures widened by ``width`` at every precision: no entry near its bound is decidable."""
    grow = (lambda lo_hi: (lo_hi[0] - width, lo_hi[1] + width))
    entry = conclude.oracle_entry
    monkeypatch.setattr(conclude, "oracle_entry", lambda *a, **k: grow(entry(*a, **k)))

    reference_of = judge.plan_reference

    def blurred(plan):
        ref = reference_of(plan)
        return dataclasses.replace(ref, enclose=lambda r, j, prec: grow(ref.enclose(r, j, prec)))
    monkeypatch.setattr(judge, "plan_reference", blurred)


def test_an_entry_the_oracle_cannot_decide_is_inconclusive_in_both_kinds(spy, monkeypatch):
    _blur(monkeypatch, 2.0 ** -10)
    one = _check_1d(_one_d(), "phase")
    rot = _check_rotary(_rotary(bad=False))
    for r in (one, rot):
        assert (r.verdict, r.conformant, r.exit_code, r.n_failures) == ("inconclusive", False, 3, 0), r.reason
        assert r.undecided > 0 and "could not be decided by the oracle" in r.reason
        assert r.to_json()["undecided"] == r.undecided and "undecided entries: " in report.render(r, "t")
    assert one.undecided == 1 and rot.undecided == rot.rows * rot.d and set(spy) == {None}
    # the same tables, the oracle sharp again: decided (so the inconclusive verdicts above came from the blur)
    monkeypatch.undo()
    assert _check_1d(_one_d(), "phase").verdict == "conforms" and _check_rotary(_rotary(bad=False)).verdict == "conforms"


def test_the_one_budget_leaves_the_rest_undecided_in_both_kinds(spy, monkeypatch):
    sent = _check_1d(_one_d(bad=False), "phase").oracle_decided   # the entries the 1-D fast path leaves
    monkeypatch.setattr(decide, "MAX_ORACLE", 0)
    one, rot = _check_1d(_one_d(bad=False), "phase"), _check_rotary(_rotary(bad=False))
    assert one.undecided == sent > 0 and rot.undecided == rot.rows * rot.d
    for r in (one, rot):
        assert r.verdict == "inconclusive" and r.oracle_decided == 0 and "0 entries per table" in r.reason, r.reason
    assert spy == []  # past the budget nothing is asked
    monkeypatch.setattr(decide, "MAX_ORACLE", 5)
    one, rot = _check_1d(_one_d(bad=False), "phase"), _check_rotary(_rotary(bad=False))
    assert (rot.verdict, rot.oracle_decided, rot.undecided) == ("inconclusive", 5, rot.rows * rot.d - 5)
    assert (one.verdict, one.oracle_decided, one.undecided) == ("inconclusive", 5, sent - 5)


def test_settle_takes_the_bound_over_the_whole_enclosure():
    """Faithful tier, float32, PE enclosed in [-2^-30, 2^-20] (a ball across zero): the bound ulp(PE) ranges from
    ulp(0) to ulp(2^-20) = 2^-43 over the ball. y = 2^-20 + 2^-43 is within the bound if PE = 2^-20, so it is
    undecided, not a failure (the former 1-D rule took the bound at the midpoint, ulp(2^-21) = 2^-44, whenever
    lo * hi <= 0, and failed it); y = 0.5 is beyond the bound of every PE in the ball, y = 0 within none's proof."""
    import mpmath

    from sinpe.spec.formats import get_format
    ball = (lambda prec: (mpmath.mpf(-2.0 ** -30), mpmath.mpf(2.0 ** -20)))
    bound = decide.entry_bound("faithful", get_format("float32"), 1.0, 1.0, 10000.0, "native")
    assert bound(2.0 ** -20) == 2.0 ** -43 and bound(2.0 ** -21) == 2.0 ** -44
    assert decide.settle(ball, 2.0 ** -20 + 2.0 ** -43, bound)[0] is None
    assert decide.settle(ball, 0.0, bound)[0] is None
    assert decide.settle(ball, 0.5, bound)[0] is False
    tight = (lambda prec: (mpmath.mpf(2.0 ** -20), mpmath.mpf(2.0 ** -20) + mpmath.mpf(2) ** -prec))
    assert decide.settle(tight, 2.0 ** -20 + 2.0 ** -44, bound)[0] is True
