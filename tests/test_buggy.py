"""The buggy-implementation catalogue is not vacuous, and the preset-source records resolve (DEF-PRESET-SOURCES).

Reference values come from mpmath at 30 digits (``sinpe.reference.oracles.mp``: the spec's definition on an
mpmath backend), a different formula path from the float64 evaluator in ``reference/bugs.py``.
Each bug must differ from that reference by far more than a *correct* implementation in the same
dtype does (the control: the float64 evaluator for float64 bugs, ``usual_table`` for float32 ones).
Reproduce one entry: python -m sinpe.reference.bugs
"""
from __future__ import annotations

from functools import cache

import mpmath
import numpy as np
import pytest

from sinpe.reference import bugs as buggy
from sinpe.reference.bugs import CATALOGUE, VASWANI, Bug, canonical_table, evaluate, get_bug, usual_table
from sinpe.reference.oracles.mp import pe_row
from sinpe.spec.profiles import PRESETS, Profile, get_profile
from sinpe.spec.sources import SOURCES, sources_for

PROFILE_KEYS = set(Profile.__dataclass_fields__) - {"name"}


@cache
def mp_table(profile: Profile, d: int, positions: tuple[float, ...]) -> np.ndarray:
    with mpmath.workdps(30):
        return np.array([[float(v) for v in pe_row(profile, d, p)] for p in positions])


def row_deviation(table: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Per-row max |table - ref|, inf where the table is NaN/inf."""
    diff = np.abs(table.astype(np.float64) - ref)
    diff[~np.isfinite(diff)] = np.inf
    return diff.max(axis=1)


def differs(bug: Bug, d: int, positions: tuple[float, ...]) -> bool:
    """True when the bug's table is far from vaswani at some witness position, far meaning > 1e-6 and
    > 10x what a correct implementation in the bug's dtype deviates at that same position."""
    p = np.array(positions)
    t = bug(p, d)
    if t.shape != (p.size, d):
        return True
    ref = mp_table(VASWANI, d, positions)
    control = canonical_table(p, d) if bug.dtype == "float64" else usual_table(p, d, bug.dtype)
    dev, ctl = row_deviation(t, ref), row_deviation(control, ref)
    return bool(np.any((dev > 1e-6) & (dev > 10 * ctl)))


def test_evaluator_agrees_with_mpmath():
    # the float64 evaluator is within float64 rounding of mpmath: ~|theta| * 2^-52
    for prof in (VASWANI, get_profile("t2t"), get_profile("vaswani-concat")):
        for d in (8, 64, 65):
            pos = (0.0, 1.0, 2.0, 3.0, 100.0, 2047.0)
            err = np.abs(evaluate(prof, np.array(pos), d) - mp_table(prof, d, pos)).max()
            assert err < 1e-12, f"evaluator off by {err:.3e}: python -m pytest tests/test_buggy.py -k evaluator ({prof.name}, d={d})"


def test_evaluator_check_fails_on_a_wrong_profile():
    # negative: the same comparison rejects a profile one unit of base away
    pos = (0.0, 1.0, 2047.0)
    err = np.abs(evaluate(VASWANI.replace(base=10001), np.array(pos), 64) - mp_table(VASWANI, 64, pos)).max()
    assert err > 1e-3


@pytest.mark.parametrize("bug", CATALOGUE, ids=[b.id for b in CATALOGUE])
def test_bug_differs_from_vaswani(bug: Bug):
    d = bug.witness_d
    assert bug.expected(d), f"{bug.id} names no deviation at its witness d={d}"
    assert differs(bug, d, bug.witness_positions), (
        f"{bug.id} is within a correct {bug.dtype} implementation's error of vaswani at d={d}, positions "
        f"{bug.witness_positions}: python -c 'from sinpe.reference.bugs import get_bug; import numpy as np; "
        f"print(get_bug(\"{bug.id}\")(np.array({list(bug.witness_positions)}), {d}))'")


def test_vacuous_entries_are_caught():
    # negative: a "bug" that is the correct table, in float64 or float32, must not count as differing
    correct64 = Bug("BUG-NONE", "correct", "constructed", lambda p, d: canonical_table(p, d), lambda d: {"x": 1})
    correct32 = Bug("BUG-NONE32", "correct", "constructed", lambda p, d: usual_table(p, d), lambda d: {"x": 1}, "float32")
    for b in (correct64, correct32):
        assert not differs(b, 64, (0, 1, 2, 3, 7, 50, 63, 2049, 65519, 1e6))


@pytest.mark.parametrize("bug", [b for b in CATALOGUE if set(b.expected(b.witness_d)) <= PROFILE_KEYS],
                         ids=lambda b: b.id)
def test_expected_profile_deviation_reproduces_the_table(bug: Bug):
    # detect's answer, applied to vaswani, must give back the buggy table (so the answer is right)
    for d in sorted({bug.witness_d, 64, 65}):
        exp = bug.expected(d)
        if not set(exp) <= PROFILE_KEYS:
            continue
        p = np.arange(0, 300, 7)
        want = evaluate(VASWANI.replace(**exp), p, d)
        got = bug(p, d)
        assert np.abs(got - want).max() < 1e-9, f"{bug.id} at d={d} is not vaswani with {exp}"


def test_zeroed_rows_are_exactly_those_rows():
    p = np.arange(0, 10)
    for bug_id in ("BUG-PAD-ROW-ZEROED", "BUG-FAIRSEQ-PAD-ROW"):
        bug = get_bug(bug_id)
        rows = bug.expected(64)["zeroed_rows"]
        t, ref = bug(p, 64), canonical_table(p, 64)
        zero = np.all(t == 0, axis=1)
        assert p[zero].tolist() == rows
        assert np.array_equal(t[~zero], ref[~zero])


def test_shape_bugs():
    p = np.arange(100)
    assert get_bug("BUG-WIDTH-PLUS-ONE")(p, 64).shape == (100, 65)
    assert get_bug("BUG-WIDTH-PLUS-ONE")(p, 64)[:, :64].tolist() == canonical_table(p, 64).tolist()
    assert get_bug("BUG-TRANSPOSED")(p, 64).shape == (64, 100)
    odd = get_bug("BUG-ODD-COLUMN-MISSING")
    assert odd(p, 65).shape == (100, 64) and odd.expected(65) == {"width": 64} and odd.expected(64) == {}
    assert np.array_equal(odd(p, 64), canonical_table(p, 64))  # identical for even d: hence witness_d = 65


def test_concat_inplace_corrupts_only_the_named_columns():
    bug = get_bug("BUG-CONCAT-INPLACE")
    p = np.arange(1, 200)
    ref = evaluate(get_profile("vaswani-concat"), p, 64)
    bad = np.flatnonzero(np.abs(bug(p, 64) - ref).max(axis=0) > 1e-9).tolist()
    assert bad == bug.expected(64)["corrupted_columns"] == list(range(32, 48))
    with pytest.raises(ValueError, match="odd d=65"):
        bug(p, 65)


def test_float16_positions_overflow_at_65520():
    t = get_bug("BUG-POSITIONS-FLOAT16")(np.array([2048.0, 2049.0, 65504.0, 65519.0, 65520.0]), 8)
    assert np.array_equal(t[0], t[1])  # 2049 rounds to 2048
    assert np.isfinite(t[:4]).all() and np.isnan(t[4, 0])  # 65519 -> 65504, 65520 -> inf -> sin(inf) = NaN


def test_bfloat16_rounding_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.standard_normal(2000) * 1e3, np.arange(250, 1030), [257.0, 259.0, 1 / 3, 3e38]])
    x = x.astype(np.float32)
    want = torch.from_numpy(x).to(torch.bfloat16).to(torch.float32).numpy()
    assert np.array_equal(buggy.to_bfloat16(x), want)


def test_catalogue_covers_the_issue_classes():
    ids = [b.id for b in CATALOGUE]
    assert len(ids) == len(set(ids))
    required = {"BUG-HALVES-SWAPPED", "BUG-SIN-COS-SWAPPED", "BUG-EXPONENT-PER-COLUMN", "BUG-SHIFT-ONE",
                "BUG-BASE-1000", "BUG-OFFSET-ONE", "BUG-OFFSET-FAIRSEQ", "BUG-POSITIONS-FLOAT16",
                "BUG-POSITIONS-BFLOAT16", "BUG-FREQUENCIES-FLOAT16", "BUG-FREQUENCIES-FLOAT32-IN-FLOAT64",
                "BUG-ODD-COLUMN-MISSING", "BUG-ODD-COLUMN-ZERO", "BUG-SEQ-FIRST-BROADCAST", "BUG-TRANSPOSED",
                "BUG-PAD-ROW-ZEROED", "BUG-AMPLITUDE-2", "BUG-WIDTH-PLUS-ONE"}
    assert required <= set(ids)
    for b in CATALOGUE:
        assert b.source and b.summary, b.id
    with pytest.raises(ValueError, match="unknown bug"):
        get_bug("BUG-NOPE")


def test_deviation_report_runs():
    rows = buggy.deviation_report(np.arange(64), 64)
    assert len(rows) == len(CATALOGUE)
    by_id = {r[0]: r for r in rows}
    assert by_id["BUG-TRANSPOSED"][1] == "64x64" and by_id["BUG-WIDTH-PLUS-ONE"][1] == "64x65"


# --- preset sources (DEF-PRESET-SOURCES) ---------------------------------------------------------

def test_sources_resolve_and_match_their_presets():
    for s in SOURCES:
        if s.profile is None:
            with pytest.raises(ValueError):
                s.resolve()
            continue
        prof = s.resolve()
        preset = PRESETS[s.profile]
        # every filed source computes its preset's table for even d (what all of them accept)
        for d in (8, 64):
            assert np.array_equal(evaluate(prof, np.arange(50), d), evaluate(preset, np.arange(50), d)), s.key
        if s.matches_preset and prof.odd != "error":
            assert prof == preset, s.key
    assert {p for p in PRESETS if sources_for(p)} == set(PRESETS)
