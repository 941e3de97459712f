"""Padding rows and corrupted rows (REQ-CHECK-SELECT ``--zero-rows``, REQ-DETECT-FIT, REQ-SCAN).

fairseq's SinusoidalPositionalEmbedding (FSMT, XGLM, M2M100, Speech2Text checkpoints) stores t2t rows 0..n-1
with the padding row (padding_idx = 1) set to 0. Such a table conforms to ``t2t --zero-rows 1``: the named rows
are judged exactly 0 and the others against the profile. A table with a few rows that fit nothing is read as
its plan with ``corrupted_rows`` (and fails its check there), never as "no sinusoid table" (``sinpe scan``
skipped such a tensor unjudged).

The fairseq table is computed here in NumPy after fairseq's formula (float32), independently of sinpe.
Reproduce: python -m pytest tests/test_padding_rows.py -q
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import run_sinpe
from test_loaders import assert_one_line_exit_2

import sinpe


def fairseq_table(rows: int = 130, d: int = 64, padding_idx: int = 1) -> np.ndarray:
    """fairseq get_embedding(num_embeddings, d, padding_idx) in float32: [sin | cos], w_k = 10^4^(-k/(d/2-1))."""
    half = d // 2
    w = np.exp(np.arange(half, dtype=np.float32) * np.float32(-math.log(10000) / (half - 1)))
    ang = np.arange(rows, dtype=np.float32)[:, None] * w[None, :]
    t = np.concatenate([np.sin(ang), np.cos(ang)], axis=1).astype(np.float32)
    t[padding_idx] = 0
    return t


def test_zero_rows_are_judged_exactly_and_the_rest_against_the_profile():
    t = fairseq_table()
    assert sinpe.check(t, "t2t").verdict == "fails"                    # row 1 is not t2t at position 1
    ok = sinpe.check(t, "t2t", zero_rows="1")
    assert ok.verdict == "conforms" and ok.profile_flags.endswith("--zero-rows 1")
    bad = t.copy()
    bad[1, 3] = 1e-3
    r = sinpe.check(bad, "t2t", zero_rows="1")
    assert (r.verdict, r.n_failures, r.failures[0].row, r.failures[0].column) == ("fails", 1, 1, 3)
    assert "are not 0" in r.reason and r.max_abs_error == pytest.approx(1e-3, rel=1e-6)
    nan = t.copy()
    nan[1, 0] = np.nan
    assert sinpe.check(nan, "t2t", zero_rows="1").verdict == "fails"  # NaN is not zero
    wrong = t.copy()
    wrong[7, 2] += 0.01
    assert sinpe.check(wrong, "t2t", zero_rows="1").verdict == "fails"  # the other rows are still checked


def test_detect_names_the_padding_rows_and_auto_conforms():
    t = fairseq_table()
    found = sinpe.detect(t)
    assert found.profile_flags == "--profile t2t --zero-rows 1", found.sentence
    assert sinpe.check(t, "auto").verdict == "conforms"


def test_corrupted_rows_are_read_as_the_plan_and_fail():
    t = sinpe.table("vaswani", d=64, positions=range(512), dtype="float32")
    t[50] = np.random.default_rng(1).uniform(-1, 1, 64)
    found = sinpe.detect(t)
    assert found.profile == "vaswani" and found.deviations == {"corrupted_rows": ["50"]}, found.sentence
    assert sinpe.check(t, "auto").verdict == "fails"
    pad = fairseq_table()
    pad[1, 3] = 1e-3                                                     # a padding row that is not zero
    assert sinpe.detect(pad).deviations.get("corrupted_rows") == ["1"]
    many = t.copy()
    many[::10] = np.random.default_rng(2).uniform(-1, 1, (len(many[::10]), 64))  # 10 % of the rows: no plan
    assert "no_fit" in sinpe.detect(many).deviations


def test_scan_judges_padding_and_corrupted_tables(tmp_path):
    t = fairseq_table()
    bad = t.copy()
    bad[1, 3] = 1e-3
    np.savez(tmp_path / "ckpt.npz", good=t, bad=bad)
    from sinpe.reference.checking.scan import scan
    rows = {r.name: r for r in scan(str(tmp_path / "ckpt.npz")).rows}
    assert (rows["good"].verdict, rows["good"].profile_flags) == ("conforms", "--profile t2t --zero-rows 1")
    assert rows["bad"].verdict == "fails"                                # was skipped: "no sinusoid reading"


def test_zero_rows_usage(tmp_path):
    np.save(tmp_path / "t.npy", fairseq_table())
    assert run_sinpe("check", "t.npy", "--profile", "t2t", "--zero-rows", "1", cwd=tmp_path).returncode == 0
    assert_one_line_exit_2(run_sinpe("check", "t.npy", "--profile", "t2t", "--zero-rows", "200", cwd=tmp_path),
                           "--zero-rows", "out of range")
    assert_one_line_exit_2(run_sinpe("check", "t.npy", "--profile", "t2t", "--zero-rows", "0:", cwd=tmp_path),
                           "every row")
    assert_one_line_exit_2(run_sinpe("detect", "t.npy", "--zero-rows", "1", cwd=tmp_path), "--zero-rows", "detect")
