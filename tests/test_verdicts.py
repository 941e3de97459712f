"""Honest verdicts (SPEC.md TOL-WORKING, TOL-STRUCT, REQ-CHECK-VERDICT, REQ-CHECK-UNJUDGED, REQ-CHECK-STRUCT,
REQ-DETECT-PRECISION): a pass means the check could have failed.

Each rule is shown to fail on the wrong input it exists for. Tables are built here the way real
libraries build them (positions and phase in float16 as keras-hub under mixed_float16; float32 then
cast once as timm and the bundled implementations do); the reference is the checker's own oracle.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import assert_exit, assert_verdict, run_sinpe

from sinpe.reference.checking import structure
from sinpe.reference.checking.check import check_table
from sinpe.reference.checking.detect import decide_precision, detect_table
from sinpe.reference.implementations.numpy_impl import pe_table
from sinpe.spec.profiles import get_profile
from sinpe.spec.tolerance import allowed_abs_error, unjudged, working_format

VAS = get_profile("vaswani")


def native_half(n: int, d: int, dtype=np.float16, start: int = 0) -> np.ndarray:
    """Positions, frequencies and phase in the half format (keras-hub SinePositionEncoding under
    mixed_float16 style): rows 2048 and 2049 coincide in float16."""
    p = np.arange(start, start + n).astype(dtype)[:, None]
    i = np.arange(d // 2).astype(dtype)
    w = (dtype(1) / np.power(dtype(10000), (2 * i / dtype(d)).astype(dtype))).astype(dtype)
    th = (p * w).astype(dtype)
    out = np.zeros((n, d), dtype)
    out[:, 0::2], out[:, 1::2] = np.sin(th), np.cos(th)
    return out


def late_cast(n: int, d: int, dtype, start: int = 0) -> np.ndarray:
    """Computed in float32, rounded once to ``dtype`` (the careful practice)."""
    return pe_table(VAS, d, np.arange(start, start + n), "float32").astype(dtype)


# --- TOL-WORKING ------------------------------------------------------------------------------------

def test_keras_style_float16_table_fails_by_default_and_says_why():  # TOL-WORKING, REQ-CHECK-VERDICT
    t = native_half(4096, 64)
    assert np.array_equal(t[2048], t[2049])
    r = check_table(t, VAS, detect=False)
    assert_verdict(r, "fails")
    assert r.exit_code == 1 and not r.conformant
    assert "computed in float16, not float32" in r.reason and "first at position" in r.reason, r.reason
    # the old verdict (W = F, TOL-PHASE in float16) could not fail it: it is inconclusive, never conforms
    native = check_table(t, VAS, detect=False, working="native")
    assert native.verdict == "inconclusive" and native.n_failures == 0 and native.unjudged["count"] > 0


@pytest.mark.parametrize("start", [256, 3000])
def test_native_bfloat16_and_float16_beyond_256_rejected(start):  # TOL-WORKING
    import torch
    p = torch.arange(start, start + 64, dtype=torch.bfloat16)[:, None]
    w = torch.pow(torch.tensor(10000.0, dtype=torch.bfloat16), -torch.arange(0, 32, dtype=torch.bfloat16) / 32)
    th = p * w
    t = torch.zeros(64, 64, dtype=torch.bfloat16)
    t[:, 0::2], t[:, 1::2] = torch.sin(th), torch.cos(th)
    r = check_table(t.float().numpy(), VAS, positions=np.arange(start, start + 64), dtype="bfloat16", detect=False)
    assert r.verdict == "fails" and r.working == "float32", r.reason
    r16 = check_table(native_half(64, 64, start=start), VAS, positions=np.arange(start, start + 64), detect=False)
    assert r16.verdict == "fails", r16.reason


@pytest.mark.parametrize("dtype", [np.float16, "bfloat16"])
def test_late_cast_half_tables_conform_with_nothing_unjudged_to_1e5(dtype):  # TOL-WORKING, REQ-CHECK-UNJUDGED
    import torch
    pos = np.concatenate([np.arange(0, 3000), np.arange(99000, 100001)])
    t32 = pe_table(VAS, 64, pos, "float32")
    t = t32.astype(np.float16) if dtype is np.float16 else torch.from_numpy(t32).to(torch.bfloat16).float().numpy()
    r = check_table(t, VAS, positions=pos, dtype="float16" if dtype is np.float16 else "bfloat16", detect=False)
    assert r.verdict == "conforms" and r.unjudged["count"] == 0 and r.exit_code == 0, r.reason


def test_working_bound_is_tighter_than_native_and_validated():  # TOL-WORKING
    ref, th = np.array([0.3, -0.9]), np.array([5000.0, 5000.0])
    w32 = allowed_abs_error("phase", "float16", ref, th, working="float32")
    nat = allowed_abs_error("phase", "float16", ref, th, working="native")
    assert np.all(w32 < nat / 100)
    with pytest.raises(ValueError, match="narrower"):
        working_format("float64", "float32")
    # a Format object names the same W as its name (review regression: it silently meant the table's format)
    from sinpe.spec.formats import get_format
    from sinpe.spec.tolerance import angle_slack
    assert np.array_equal(allowed_abs_error("phase", "float16", ref, th, working=get_format("float32")), w32)
    s = angle_slack(np.array([100.0]), np.array([101.0]), np.array([1.0]), "float16", get_format("float32"))
    assert np.array_equal(s, angle_slack(np.array([100.0]), np.array([101.0]), np.array([1.0]), "float16", "float32"))


# --- REQ-CHECK-UNJUDGED ------------------------------------------------------------------------------

def test_float32_near_1e7_is_inconclusive_and_float64_cast_conforms_when_asked():  # REQ-CHECK-UNJUDGED
    pos = np.arange(10**7 - 200, 10**7, dtype=np.float64)
    t32 = pe_table(VAS, 64, pos, "float32")
    r = check_table(t32, VAS, positions=pos, detect=False)
    assert r.verdict == "inconclusive" and r.exit_code == 3 and not r.conformant
    assert r.unjudged["from_position"] == "9999800" and 0 < r.unjudged["share"] < 1
    assert "--working float64 would judge every entry" in r.reason
    cast = pe_table(VAS, 64, pos, "float64").astype(np.float32)
    r64 = check_table(cast, VAS, positions=pos, detect=False, working="float64")
    assert r64.verdict == "conforms" and r64.unjudged["count"] == 0
    # and the float32 evaluation is caught once a float64 evaluation is claimed
    assert check_table(t32, VAS, positions=pos, detect=False, working="float64").verdict == "fails"


def test_garbage_in_unjudged_entries_is_never_a_pass():  # REQ-CHECK-UNJUDGED: the rule that could not fail
    pos = np.arange(10**7 - 50, 10**7, dtype=np.float64)
    t = pe_table(VAS, 64, pos, "float64").astype(np.float32)
    r0 = check_table(t, VAS, positions=pos, detect=False)
    bad = t.copy()
    rng = np.random.default_rng(8)
    bad[:, :8] = rng.uniform(-1, 1, (50, 8)).astype(np.float32)   # the fastest frequencies: unjudged here
    r = check_table(bad, VAS, positions=pos, detect=False)
    assert r0.verdict == r.verdict == "inconclusive" and r.n_failures == 0
    assert unjudged(np.array([2.0]), np.array([0.0]))[0] and not unjudged(np.array([0.5]), np.array([0.0]))[0]


def test_cli_exit_3_json_and_junit_skipped(tmp_path):  # REQ-CHECK-CLI, REQ-CHECK-VERDICT
    pos = np.arange(10**7 - 64, 10**7)
    np.save(tmp_path / "t.npy", pe_table(VAS, 16, pos, "float32"))
    np.save(tmp_path / "p.npy", pos)
    args = ["check", str(tmp_path / "t.npy"), "--positions", str(tmp_path / "p.npy"), "--no-detect"]
    res = run_sinpe(*args, "--json", "--junit", str(tmp_path / "r.xml"))
    assert_exit(res, 3)
    rep = json.loads(res.stdout)
    assert rep["verdict"] == "inconclusive" and rep["conformant"] is False and rep["working"] == "float32"
    assert rep["unjudged"]["count"] > 0 and rep["unjudged"]["from_position"] == 10**7 - 64 and rep["unjudged"]["from_position_exact"] == str(10**7 - 64)
    assert "<skipped" in (tmp_path / "r.xml").read_text()
    text = run_sinpe(*args)
    assert text.returncode == 3 and "INCONCLUSIVE" in text.stdout and "unjudged entries:" in text.stdout
    assert "ulp" not in text.stdout.split("INCONCLUSIVE")[1].split("\n")[2]  # no ulp noise at the phase tier
    ok = run_sinpe(*args, "--working", "float64")
    assert ok.returncode == 1  # a float32 evaluation is not a float64 one


# --- REQ-CHECK-STRUCT ----------------------------------------------------------------------------------

def test_shift_finds_positions_rounded_where_the_pointwise_bound_is_loose():  # REQ-CHECK-STRUCT, TOL-STRUCT
    pos = np.arange(10**6, 10**6 + 64, dtype=np.float64)
    rounded = 2 * np.round(pos / 2)                       # positions rounded to even, then a float64 evaluation
    t = pe_table(VAS, 64, rounded, "float64").astype(np.float32)
    r = check_table(t, VAS, positions=pos, detect=False)
    assert r.n_failures == 0                             # every judged entry is within TOL-PHASE
    assert r.verdict == "fails" and r.structural["violations"] > 0, r.reason
    f = r.structural["findings"][0]
    assert f.theorem == "THM-SHIFT" and f.repro.startswith("sinpe table --profile vaswani --d 64 --positions")
    good = check_table(pe_table(VAS, 64, pos, "float64").astype(np.float32), VAS, positions=pos, detect=False)
    assert good.structural["violations"] == 0 and good.structural["judged"] > 0


def test_injectivity_finds_identical_rows_at_distinct_positions():  # REQ-CHECK-STRUCT (THM-INJ)
    pos = np.array([10**6, 10**6 + 9, 10**6 + 4, 10**6 + 20], dtype=np.float64)
    t = pe_table(VAS, 64, pos, "float64").astype(np.float32)
    t[3] = t[0]
    plan = structure.pair_plan(VAS, 64)
    judged, n, found = structure.injectivity_violations(plan, structure.row_hashes(t.astype(np.float64), plan), t,
                                                       pos, "float32", None, VAS)
    assert n == 1 and found[0].theorem == "THM-INJ" and found[0].positions == ("1000000", "1000020")
    t2 = pe_table(VAS, 64, pos, "float64").astype(np.float32)
    assert structure.injectivity_violations(plan, structure.row_hashes(t2.astype(np.float64), plan), t2, pos,
                                            "float32", None, VAS)[1] == 0


def test_structural_checks_never_reject_correct_tables():  # REQ-CHECK-STRUCT: no false rejection
    for prof in (VAS, get_profile("t2t"), get_profile("vaswani-concat-cos")):
        for dt in ("float64", "float32"):
            pos = np.concatenate([np.arange(0, 600), np.arange(2**24 - 300, 2**24)]).astype(np.float64)
            r = check_table(pe_table(prof, 64, pos, dt), prof, positions=pos, detect=False)
            assert r.structural["violations"] == 0 and r.n_failures == 0, (prof.name, dt, r.reason)


# --- REQ-DETECT-PRECISION ---------------------------------------------------------------------------

def test_detect_does_not_call_a_float32_evaluation_float64():  # REQ-DETECT-PRECISION
    import math

    import torch
    pos = torch.arange(512, dtype=torch.float32)[:, None]
    div = torch.exp(torch.arange(0, 64, 2, dtype=torch.float32) * (-math.log(10000.0) / 64))
    t = torch.zeros(512, 64)
    t[:, 0::2], t[:, 1::2] = torch.sin(pos * div), torch.cos(pos * div)
    det = detect_table(t.numpy())
    assert det.precision == "float32" and "not computed in float64" in det.precision_note
    cast = detect_table(pe_table(VAS, 64, np.arange(512), "float64").astype(np.float32))
    assert cast.precision == "float64" and cast.to_json()["confidence"]["precision"] is not None
    # the note names what it rules out: the float32 frequencies, not the float64 evaluation it names (its residual 0)
    assert cast.precision_note.startswith("not computed in float64 with float32 frequencies (residual ")
    assert "not computed in float64 (" not in cast.precision_note and " nor " not in cast.precision_note
    assert "(residual 0)" not in cast.precision_note  # its own residual, not the float64 evaluation's
    assert det.precision_note.startswith("not computed in float64 (residual ")  # both ruled out, each named
    assert " nor in float64 with float32 frequencies (residual " in det.precision_note
    name, margin, note = decide_precision({"float64": 3e-5, "float32": 4e-5}, np.float64, 1.0)
    assert name == "float64 or float32" and margin < 2 and "do not separate" in note


# --- the same rules for rotary caches and grids (REQ-CHECK-KINDS) ----------------------------------

def _rope_emb(pos, dim, dtype):
    import torch
    inv = 1.0 / (torch.tensor(10000.0, dtype=dtype) ** (torch.arange(0, dim, 2, dtype=dtype) / dim))
    emb = torch.outer(torch.as_tensor(pos, dtype=dtype), inv)
    return torch.cat([emb, emb], dim=1)


def test_rotary_caches_follow_the_working_precision_and_unjudged_rules():  # REQ-CHECK-UNJUDGED, TOL-WORKING
    import torch
    from helpers import check_rotary

    from sinpe.spec.rotary import get_rotary
    llama = get_rotary("llama")
    pos = np.arange(3000, 3064)
    late = _rope_emb(pos, 64, torch.float32)            # float32 phase, then one rounding to bfloat16
    cos_late = late.cos().to(torch.bfloat16).float().numpy()
    r = check_rotary(llama, 64, cos=cos_late, positions=pos, dtype="bfloat16")
    assert_verdict(r, "conforms")
    assert r.working == "float32" and r.unjudged["count"] == 0
    native = _rope_emb(torch.arange(3000, 3064, dtype=torch.bfloat16), 64, torch.bfloat16).cos().float().numpy()
    assert_verdict(check_rotary(llama, 64, cos=native, positions=pos, dtype="bfloat16"), "fails")
    # checked as native bfloat16, nothing fails but most of the cache is unjudged: never "conforms"
    nat = check_rotary(llama, 64, cos=native, positions=pos, dtype="bfloat16", working="native")
    assert nat.verdict == "inconclusive" and nat.unjudged["count"] > 0 and nat.n_failures == 0, nat.reason
    # a float32 cache near position 10^6: its fastest columns are unjudged under W = float32
    far = np.arange(10**6, 10**6 + 16)
    c32 = _rope_emb(far, 64, torch.float32).cos().numpy()
    r32 = check_rotary(llama, 64, cos=c32, positions=far)
    assert r32.verdict == "inconclusive" and r32.unjudged["count"] > 0 and "could not be judged" in r32.reason
    c64 = _rope_emb(far, 64, torch.float64).cos().numpy().astype(np.float32)
    assert_verdict(check_rotary(llama, 64, cos=c64, positions=far, working="float64"), "conforms")
