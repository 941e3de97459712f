"""Every failing result names its cause from one place (REQ-CHECK-CAUSE), in the text report, the JSON, a scan's
JSON lines and JUnit: an off-by-one rotary cache, a grid with its axes swapped, a scan row computed with float16
positions. A cause is named only where the reading explains the table: one corrupted entry is no precision loss.

The tables are written here from the formulas (DEF-ROPE, DEF-GRID, DEF-FAMILY), not by sinpe's kernels."""
from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import assert_exit, run_sinpe

import sinpe


def rope_cos(dim: int, positions: np.ndarray, base: float = 10000.0) -> np.ndarray:
    """LLaMA's cos cache (rotate-half: the h frequencies twice), float32."""
    w = base ** (-np.arange(0, dim, 2, dtype=np.float64) / dim)
    th = positions[:, None].astype(np.float64) * w[None, :]
    return np.cos(np.concatenate([th, th], axis=1)).astype(np.float32)


def mae_grid(dim: int, h: int, w: int) -> np.ndarray:
    """MAE's 2-D grid (get_2d_sincos_pos_embed: grid = meshgrid(grid_w, grid_h), emb_h from grid[0]): the first
    half of the channels encode the w coordinate (sin block, cos block), the second half h; cells row-major."""
    def axis(coord: np.ndarray, n: int) -> np.ndarray:
        om = 1.0 / 10000 ** (np.arange(n // 2, dtype=np.float64) / (n / 2.0))
        a = coord[:, None] * om[None, :]
        return np.concatenate([np.sin(a), np.cos(a)], axis=1)
    hh, ww = np.meshgrid(np.arange(h, dtype=np.float64), np.arange(w, dtype=np.float64), indexing="ij")
    return np.concatenate([axis(ww.ravel(), dim // 2), axis(hh.ravel(), dim // 2)], axis=1)


def vaswani(d: int, positions: np.ndarray, position_dtype: type = np.float32) -> np.ndarray:
    """The interleaved table computed in float32 with positions stored as ``position_dtype`` first."""
    p = positions.astype(position_dtype).astype(np.float32)[:, None]
    w = (10000.0 ** (-np.arange(0, d, 2) / d)).astype(np.float32)[None, :]
    out = np.empty((len(positions), d), np.float32)
    out[:, 0::2], out[:, 1::2] = np.sin(p * w), np.cos(p * w)
    return out


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    d = tmp_path_factory.mktemp("causes")
    np.save(d / "cos_plus1.npy", rope_cos(64, np.arange(1, 129)))
    g = mae_grid(32, 4, 6)
    np.save(d / "grid_ok.npy", g.astype(np.float32))
    np.save(d / "grid_swapped.npy", np.concatenate([g[:, 16:], g[:, :16]], axis=1).astype(np.float32))
    one = vaswani(64, np.arange(64))
    one[5, 3] += np.float32(0.01)
    np.savez(d / "ckpt.npz", pe_half_positions=vaswani(64, np.arange(4096), np.float16), pe_one_entry=one,
             pe_ok=vaswani(64, np.arange(64)))
    return d


CASES = [  # (cli args, cause_code, words of the sentence)
    (["--cos", "cos_plus1.npy", "--profile", "llama"], "offset", "positions offset by +1"),
    (["grid_swapped.npy", "--profile", "mae", "--shape", "4x6"], "axes", "axes swapped: reads as timm-interleaved"),
]


@pytest.mark.parametrize("args,code,words", CASES, ids=["rotary-off-by-one", "grid-axes-swapped"])
def test_a_failing_check_names_its_cause_in_text_json_and_junit(tables, args, code, words):  # REQ-CHECK-CAUSE
    text = run_sinpe("check", *args, "--junit", "r.xml", cwd=tables)
    assert_exit(text, 1)
    assert f"cause: {words}" in text.stdout, text.stdout
    assert words in (tables / "r.xml").read_text()
    out = json.loads(run_sinpe("check", *args, "--json", cwd=tables).stdout)
    assert (out["verdict"], out["cause_code"]) == ("fails", code) and out["cause"].startswith(words), out["cause"]


def test_the_api_result_carries_the_same_cause(tables):  # REQ-CHECK-CAUSE
    r = sinpe.check(cos=np.load(tables / "cos_plus1.npy"), profile="llama")
    assert (r.verdict, r.cause_code) == ("fails", "offset") and "row i holds position i + 1" in r.cause


def test_a_conforming_result_names_no_cause(tables):  # REQ-CHECK-CAUSE
    r = sinpe.check(cos=rope_cos(64, np.arange(128)), profile="llama")
    assert (r.verdict, r.cause, r.cause_code) == ("conforms", None, None)
    g = sinpe.check(np.load(tables / "grid_ok.npy"), "mae", shape=(4, 6))  # the unswapped grid: MAE's own
    assert (g.verdict, g.cause) == ("conforms", None)


def test_a_failing_scan_row_names_its_cause_in_text_json_and_jsonl(tables):  # REQ-CHECK-CAUSE, REQ-SCAN
    rows = {r["name"]: r for r in json.loads(run_sinpe("scan", "ckpt.npz", "--json", cwd=tables).stdout)["tensors"]}
    half = rows["pe_half_positions"]
    assert (half["verdict"], half["cause_code"]) == ("fails", "precision"), half
    assert "positions in float16 (precision loss)" in half["cause"]
    assert rows["pe_ok"]["verdict"] == "conforms" and rows["pe_ok"]["cause"] is None
    text = run_sinpe("scan", "ckpt.npz", cwd=tables)
    assert_exit(text, 1)
    assert "positions in float16 (precision loss)" in text.stdout, text.stdout
    lines = [json.loads(x) for x in run_sinpe("scan", "ckpt.npz", "--jsonl", cwd=tables).stdout.splitlines()]
    assert {x.get("name"): x.get("cause_code") for x in lines if "name" in x}["pe_half_positions"] == "precision"


def test_one_corrupted_entry_is_not_called_precision_loss(tables):  # REQ-CHECK-CAUSE, REQ-DETECT-PRECISION
    """Every evaluation misses the corrupted entry by 0.01, far beyond the noise floor: no precision is read off
    the rows (the fingerprint named 'frequencies in float16 or float32' before), the entry is the finding."""
    row = next(r for r in sinpe.scan(str(tables / "ckpt.npz")).rows if r.name == "pe_one_entry")
    assert row.verdict == "fails" and row.cause_code != "precision", row.cause
    assert "position 5 column 3" in row.reason
