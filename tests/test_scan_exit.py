"""sinpe scan's verdict paths beyond conforms/fails (SPEC.md REQ-SCAN): a found table that is inconclusive exits 3;
a table with a zeroed padding row (fairseq's padding_idx, as FSMT checkpoints store it) fails and says so.

The tables are computed here in binary64 by NumPy and rounded once to float32 (not by sinpe).
Reproduce: python -m pytest tests/test_scan_exit.py -k NAME
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from helpers import assert_exit, run_sinpe


def vaswani(n: int, d: int) -> np.ndarray:
    """Interleaved (sin, cos) pairs, w_k = 10000^(-2k/d), positions 0..n-1, rounded once to float32."""
    p = np.arange(n, dtype=np.float64)[:, None]
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    t = np.empty((n, d), dtype=np.float32)
    t[:, 0::2], t[:, 1::2] = np.sin(p * w), np.cos(p * w)
    return t


def _scan(tmp_path, name: str, table: np.ndarray):
    f = tmp_path / f"{name}.npz"
    np.savez(f, pe=table, w=np.random.default_rng(0).standard_normal((64, 16)).astype(np.float32))
    res = run_sinpe("scan", f, "--json")
    return res, json.loads(res.stdout)


@pytest.mark.slow
def test_inconclusive_table_exits_3(tmp_path):  # REQ-SCAN: found, nothing fails, entries unjudged -> exit 3
    long = vaswani(600_000, 4)   # from position ~471000 the float32 phase bound lets any value pass (column 0)
    res, out = _scan(tmp_path, "long", long)
    assert_exit(res, 3)
    pe = next(t for t in out["tensors"] if t["name"] == "pe")
    assert pe["verdict"] == "inconclusive" and pe["profile_flags"] == "--profile vaswani" and 0.001 < pe["unjudged"]["share"] < 0.05
    assert out["summary"]["found"] == 1 and out["summary"]["inconclusive"] == 1 and out["summary"]["exit_code"] == 3
    short = long[:400_000]          # every entry judged: the same table conforms, exit 0
    assert_exit(_scan(tmp_path, "short", short)[0], 0)
    bad = long.copy()
    bad[100, 2] += 1e-3             # one wrong entry where entries are judged: exit 1, not 3
    res, out = _scan(tmp_path, "bad", bad)
    assert_exit(res, 1)
    assert next(t for t in out["tensors"] if t["name"] == "pe")["verdict"] == "fails"


def test_zeroed_padding_row_is_judged_exactly(tmp_path):  # REQ-SCAN, REQ-CHECK-SELECT --zero-rows
    """fairseq's zeroed padding row conforms as --zero-rows 1 (it failed the scan before); the same table with
    another entry wrong fails, and its reason still names the zero rows."""
    t = vaswani(130, 16)
    res, out = _scan(tmp_path, "ok", t)
    assert_exit(res, 0)
    t[1] = 0.0                       # fairseq: row padding_idx = 1 zeroed
    res, out = _scan(tmp_path, "pad", t)
    assert_exit(res, 0)
    pe = next(r for r in out["tensors"] if r["name"] == "pe")
    assert (pe["verdict"], pe["profile_flags"]) == ("conforms", "--profile vaswani --zero-rows 1")
    t[40, 3] += 0.01
    res, out = _scan(tmp_path, "pad_wrong", t)
    assert_exit(res, 1)
    pe = next(r for r in out["tensors"] if r["name"] == "pe")
    assert pe["verdict"] == "fails" and "positions 1 are all zero (padding rows)" in pe["reason"]
