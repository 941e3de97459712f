"""``sinpe table`` (REQ-CLI-TABLE): the written table equals the golden bulk table and Arb's;
bad input exits 2 with one line; bfloat16 is stored as float32 holding bfloat16 values."""
from __future__ import annotations

import numpy as np
import pytest

from sinpe.reference.cli import main
from sinpe.reference.golden import vectors as G
from sinpe.reference.oracles import arb as oracle_flint
from sinpe.spec.profiles import get_profile

BULK = ",".join(G.position_str(p) for p in G.BULK_POSITIONS)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
def test_table_equals_golden(tmp_path, capsys, dtype) -> None:
    out = tmp_path / "t.npy"
    assert main(["table", "--profile", "t2t", "--d", "65", "--positions", BULK, "--dtype", dtype,
                 "--out", str(out)]) == 0
    got = np.load(out, allow_pickle=False)
    _, want = G.load_table("t2t", 65, dtype)
    assert got.dtype == want.dtype and np.array_equal(got, want), f"sinpe table --profile t2t --d 65 --dtype {dtype}"
    err = capsys.readouterr().err
    assert ("stored as float32 holding exactly the bfloat16 values" in err) == (dtype == "bfloat16")


def test_parameter_flags_and_cross_check(tmp_path) -> None:
    out = tmp_path / "t.npy"
    pos = np.array([0, 3, -7.5, 1e6], dtype=np.float64)
    np.save(tmp_path / "pos.npy", pos)
    args = ["table", "--profile", "vaswani", "--layout", "cos-sin", "--shift", "0", "--base", "500",
            "--phase-scale", "1/3", "--amplitude", "2", "--offset", "0.25", "--odd", "zero-pad",
            "--d", "7", "--positions", str(tmp_path / "pos.npy"), "--dtype", "float32", "--out", str(out),
            "--cross-check"]
    assert main(args) == 0
    prof = get_profile("vaswani", layout="cos-sin", shift=0, base="500", phase_scale="1/3", amplitude=2,
                       offset="0.25", odd="zero-pad")
    ref = oracle_flint.rounded_tables(prof, 7, pos.tolist(), ["binary32"])["binary32"]
    assert np.array_equal(np.load(out).astype(np.float64), ref)


def test_wrong_variant_differs_from_golden(tmp_path) -> None:
    """Negative: the t2t schedule or a swapped layout does not reproduce the vaswani golden table."""
    _, want = G.load_table("vaswani", 64, "float32")
    for extra in (["--shift", "1"], ["--layout", "cos-sin"]):
        out = tmp_path / "t.npy"
        assert main(["table", "--profile", "vaswani", *extra, "--d", "64", "--positions", BULK,
                     "--dtype", "float32", "--out", str(out)]) == 0
        assert not np.array_equal(np.load(out), want), extra


@pytest.mark.parametrize("argv,msg", [
    (["--d", "0", "--positions", "0:2"], "--d must be >= 1"),
    (["--d", "4", "--positions", "5:2"], "is empty"),
    (["--d", "3", "--positions", "0:2", "--odd", "error"], "not defined for odd d=3"),
    (["--d", "4", "--positions", "0,x"], "position must be"),
    (["--d", "4", "--positions", "0:2", "--base", "1"], "base must be"),
])
def test_bad_input_exits_2(tmp_path, capsys, argv, msg) -> None:
    rc = main(["table", *argv, "--out", str(tmp_path / "t.npy")])
    err = capsys.readouterr().err
    assert rc == 2 and msg in err and err.count("\n") == 1, err
    assert not (tmp_path / "t.npy").exists()


def test_bad_out_path(tmp_path, capsys) -> None:
    assert main(["table", "--d", "4", "--positions", "0:2", "--out", str(tmp_path / "t.txt")]) == 2
    assert main(["table", "--d", "4", "--positions", "0:2", "--out", str(tmp_path / "no" / "t.npy")]) == 2


def test_pickled_positions_refused(tmp_path, capsys) -> None:
    np.save(tmp_path / "p.npy", np.array([1, "a"], dtype=object))  # np.save pickles object arrays by default
    assert main(["table", "--d", "4", "--positions", str(tmp_path / "p.npy"), "--out", str(tmp_path / "t.npy")]) == 2
