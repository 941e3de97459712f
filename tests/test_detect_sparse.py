"""Detection from a few rows at any known positions (REQ-DETECT-SPARSE), 1-D and 2-D.

Must-show of issue 13: detect on a 5-row table at positions 0, 1, 1000, 10^5, 10^6 names the profile
of a Vaswani, a t2t and a 2-D table (the 2-D rows at cells (p, p) and at mixed cells).
Reproduce: python -m pytest tests/test_detect_sparse.py
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import detect_grid

from sinpe.reference.checking.detect import detect_table
from sinpe.reference.checking.detect.sparse import detect_sparse
from sinpe.reference.cli import main
from sinpe.reference.oracles.angles import grid_plan, reference_f64
from sinpe.reference.oracles.fast import table_f64
from sinpe.spec.grid import get_grid
from sinpe.spec.profiles import get_profile

POS = np.array([0, 1, 1000, 10**5, 10**6])


@pytest.mark.parametrize("name", ["vaswani", "t2t", "vaswani-concat", "t2t-cos"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_five_rows_name_the_1d_profile(name: str, dtype: type):
    t, _ = table_f64(get_profile(name), 64, POS)
    r = detect_table(t.astype(dtype), positions=POS)
    assert r.profile == name and r.profile_flags == f"--profile {name}", r.sentence


def test_three_rows_offset_and_odd_width():
    pos = np.array([5, 77, 4096])
    t, _ = table_f64(get_profile("t2t", offset=2), 65, pos)
    r = detect_sparse(t.astype(np.float32), pos)
    assert r.found and r.params["offset"] == "2" and r.params["shift"] == "1" and r.params["odd"] == "zero-pad"


@pytest.mark.parametrize("cells", [[(p, p) for p in POS.tolist()], [(0, 3), (1, 0), (1000, 7), (10**5, 2), (10**6, 10**6)]])
@pytest.mark.parametrize("name", ["mae", "timm", "detr"])
def test_five_rows_name_the_2d_profile(name: str, cells: list):
    v, _ = reference_f64(grid_plan(get_grid(name, 64, 8), cells))
    d = detect_grid(v.astype(np.float32), cells=cells)
    assert d["found"] and (d["profile"] == name or any(e["profile"] == name for e in d["equivalent"]))
    if cells[0] != (0, 0):  # off the diagonal x and y differ: MAE's [x | y] is no longer timm-interleaved's [y | x]
        assert d["profile"] == name and not d["equivalent"]


def test_wrong_positions_or_noise_name_nothing():
    t, _ = table_f64(get_profile("vaswani"), 64, POS)
    with pytest.raises(ValueError, match="at least 8 rows"):  # row 3 claimed at 1001 instead of 1000
        detect_table(t.astype(np.float32), positions=[0, 1, 1001, 10**5, 10**6])
    # (a float32 row at 10^6 alone decides nothing: TOL-PHASE allows c u (1 + 10^6) > 2 there)
    rng = np.random.default_rng(1)
    assert not detect_sparse(rng.uniform(-1, 1, (5, 16)), POS).found
    assert not detect_sparse(t[:2], POS[:2]).found  # fewer than 3 rows
    v, _ = reference_f64(grid_plan(get_grid("mae", 32, 4), [(0, 1), (2, 3), (9, 9)]))
    assert not detect_grid(v.astype(np.float32), cells=[(0, 1), (3, 2), (9, 9)])["found"]  # a cell swapped


def test_cli_detect_five_rows(tmp_path, capsys):
    t, _ = table_f64(get_profile("t2t"), 32, POS)
    f = tmp_path / "t.npy"
    np.save(f, t.astype(np.float32))
    assert main(["detect", str(f), "--positions", "0,1,1000,1e5,1e6", "--profile", "t2t", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["profile"] == "t2t" and out["deviations"] == {}


def test_candidates_that_cannot_fit_skip_the_certified_check(monkeypatch):  # REQ-DETECT-SPARSE
    """A wide sparse table with one wrong entry: the float64 screen rules every candidate out before its certified
    frequency enclosures are built (a 4 x 65536 table took minutes); the right table still reaches and passes it."""
    import sinpe.reference.checking.detect.sparse as S
    calls = []
    real = S.check_plan
    monkeypatch.setattr(S, "check_plan", lambda *a, **k: calls.append(1) or real(*a, **k))
    t, _ = table_f64(get_profile("vaswani"), 2048, POS[:4])
    bad = t.copy()
    bad[1, 3] += 0.5
    assert not S.detect_sparse(bad, POS[:4]).found and len(calls) == 0
    assert S.detect_sparse(t, POS[:4]).found and len(calls) >= 1
