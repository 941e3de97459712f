"""Row/column selection and --profile auto (SPEC.md REQ-CHECK-SELECT, REQ-CHECK-AUTO)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from test_loaders import assert_one_line_exit_2, run_clean

from sinpe.reference.tables import table


@pytest.fixture
def padded(tmp_path):
    """A t2t table scaled by 1/8 behind two zero padding rows (Speech2Text-like), and a 2-D-like table whose
    first half of columns is vaswani-concat of width 8 and second half garbage."""
    t = table("t2t", 16, 64, "float32") * np.float32(0.125)
    np.save(tmp_path / "pad.npy", np.vstack([np.zeros((2, 16), np.float32), t]))
    half = np.hstack([table("vaswani-concat", 8, 64, "float64"), np.ones((64, 8))])
    np.save(tmp_path / "half.npy", half)
    return tmp_path


def test_skip_rows_and_positions(padded):
    ok = run_clean(padded, "check", "pad.npy", "--profile", "t2t", "--amplitude", "1/8", "--skip-rows", "2",
                   "--positions", "0:64", "--json")
    assert ok.returncode == 0, ok.stdout
    assert any("rows 2:66 of 66" in n for n in json.loads(ok.stdout)["notes"])
    # the same rows kept at their own indices (row i is position i) are the table shifted by 2: fails
    assert run_clean(padded, "check", "pad.npy", "--profile", "t2t", "--amplitude", "1/8", "--skip-rows", "2",
                     "--no-detect").returncode == 1
    # the padding rows themselves do not conform
    assert run_clean(padded, "check", "pad.npy", "--profile", "t2t", "--amplitude", "1/8", "--rows", "0:2",
                     "--no-detect").returncode == 1
    assert run_clean(padded, "check", "pad.npy", "--profile", "t2t", "--amplitude", "1/8", "--rows", "2:66",
                     "--positions", "0:64").returncode == 0


def test_columns_form_their_own_table(padded):
    assert run_clean(padded, "check", "half.npy", "--profile", "vaswani-concat", "--columns", "0:8").returncode == 0
    assert run_clean(padded, "check", "half.npy", "--profile", "vaswani-concat", "--columns", "8:16",
                     "--no-detect").returncode == 1
    assert run_clean(padded, "check", "half.npy", "--profile", "vaswani-concat", "--no-detect").returncode == 1
    det = run_clean(padded, "detect", "half.npy", "--columns", "0:8", "--profile", "vaswani-concat")
    assert det.returncode == 0, det.stdout


@pytest.mark.parametrize("flags,msg", [(("--rows", "5:3"), "selects nothing"), (("--rows", "0:2:0"), "expected"),
                                       (("--columns", "0,99"), "out of range"), (("--rows", "x"), "expected"),
                                       (("--rows", "0:3", "--skip-rows", "1"), "one of them"),
                                       (("--skip-rows", "1", "--positions", "0:3"), "selected rows")])
def test_bad_selections(padded, flags, msg):
    assert_one_line_exit_2(run_clean(padded, "check", "pad.npy", *flags), msg)


def test_profile_auto_checks_what_detect_found(padded):
    res = run_clean(padded, "check", "pad.npy", "--profile", "auto", "--skip-rows", "2", "--positions", "0:64", "--json")
    out = json.loads(res.stdout)
    assert res.returncode == 0 and out["profile_source"] == "detected"
    assert out["profile_flags"] == "--profile t2t --amplitude 0.125"
    assert "--profile auto: checked against what detect found" in out["notes"][0]
    # auto is no free pass: what detect reads is then checked entry by entry, the zero padding rows exactly
    res = run_clean(padded, "check", "pad.npy", "--profile", "auto", "--no-detect", "--json")
    assert res.returncode == 0, res.stdout
    assert json.loads(res.stdout)["profile_flags"] == "--profile t2t --amplitude 0.125 --offset -2 --zero-rows 0,1"
    bad = np.load(padded / "pad.npy")
    bad[1, 4] = 1e-6                                 # a padding row that is not zero: read as corrupted, fails
    np.save(padded / "pad_bad.npy", bad)
    assert run_clean(padded, "check", "pad_bad.npy", "--profile", "auto", "--no-detect").returncode == 1
    # and a table detect cannot name is a finding, not a pass
    rng = np.random.default_rng(0)
    np.save(padded / "noise.npy", rng.uniform(-1, 1, (64, 16)))
    res = run_clean(padded, "check", "noise.npy", "--profile", "auto", "--json")
    assert res.returncode == 1 and "names no member" in json.loads(res.stdout)["reason"]
    assert_one_line_exit_2(run_clean(padded, "check", "pad.npy", "--profile", "auto", "--base", "500"), "drop --base")


def test_detect_check_round_trip_keeps_flags(tmp_path):
    """REQ-DETECT-CLI: profile_flags is non-null when an amplitude was fitted, adds no --odd an even d cannot
    show, and checking with those flags conforms (while the unscaled preset does not)."""
    import shlex
    t = table("t2t", 64, 128, "float64") / np.sqrt(512)
    np.save(tmp_path / "scaled.npy", t)
    det = json.loads(run_clean(tmp_path, "detect", "scaled.npy", "--json").stdout)
    flags = det["profile_flags"]
    assert flags is not None and "--odd" not in flags and flags.startswith("--profile t2t --amplitude 0.0441941738")
    assert run_clean(tmp_path, "check", "scaled.npy", *shlex.split(flags)).returncode == 0
    assert run_clean(tmp_path, "check", "scaled.npy", "--profile", "t2t", "--no-detect").returncode == 1
