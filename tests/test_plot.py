"""REQ-CHECK-PLOT: ``sinpe check --plot`` and ``sinpe verify --plot`` pictures, read back from the PNG; the plot
extra missing is one line, exit 2; a link or an input is never written."""
from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest
from helpers import assert_exit, run_sinpe

pytest.importorskip("matplotlib")  # the plot extra: pinned in requirements.lock, installed by make
from matplotlib.image import imread

from sinpe.reference import plot
from sinpe.reference.bugs import get_bug
from sinpe.reference.tables import table

# the positions a callable is probed at by default (REQ-CHECK-CLI), 70000 and 1e5 beyond float16's range
POSITIONS = np.r_[np.arange(2048), [2049, 4097, 65519, 70000, 100000]].astype(np.float64)


def _red(img: np.ndarray) -> int:
    """Pixels of the failure marks' pure red (matplotlib's "red": 1, 0, 0)."""
    return int(np.count_nonzero((img[..., 0] > 0.9) & (img[..., 1] < 0.15) & (img[..., 2] < 0.15)))


def _write(tmp_path, t: np.ndarray) -> None:
    np.save(tmp_path / "t.npy", t)
    np.save(tmp_path / "p.npy", POSITIONS)


def _check_plot(tmp_path, *extra: str):
    return run_sinpe("check", "t.npy", "--profile", "vaswani", "--positions", "p.npy", "--no-detect", "--json",
                     "--plot", "pic.png", *extra, cwd=tmp_path)


def test_float16_positions_picture_marks_its_failures(tmp_path):
    """The float16-positions table (BUG-POSITIONS-FLOAT16, README's mypos:pe): a real PNG of the expected size
    whose failure marks are there, one per failing entry the check counts."""
    _write(tmp_path, get_bug("BUG-POSITIONS-FLOAT16")(POSITIONS, 64).astype(np.float32))
    res = _check_plot(tmp_path)
    assert_exit(res, 1)
    n_failures = json.loads(res.stdout)["n_failures"]
    assert n_failures > 100
    assert f"({n_failures} failing entries marked)" in res.stderr, res.stderr
    img = imread(tmp_path / "pic.png")
    assert img.shape[:2] == (round(plot.SIZE[1] * plot.DPI), round(plot.SIZE[0] * plot.DPI))
    assert img.dtype == np.float32 and float(img.std()) > 0.05  # not a blank canvas
    assert _red(img) > 200


def test_conforming_picture_has_no_failure_marks(tmp_path):
    """The same picture of the correctly rounded table: exit 0, and no red marks (they come from failures)."""
    _write(tmp_path, table("vaswani", 64, POSITIONS, "float32"))
    res = _check_plot(tmp_path)
    assert_exit(res, 0)
    assert "(0 failing entries marked)" in res.stderr
    img = imread(tmp_path / "pic.png")
    assert img.shape[:2] == (700, 1000) and _red(img) == 0


def test_without_matplotlib_one_line_exit_2_before_any_work(tmp_path, monkeypatch):
    _write(tmp_path, table("vaswani", 8, POSITIONS[:10], "float32"))
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError
    for args in (("check", "t.npy", "--plot", "pic.png"), ("verify", "--plot", "pic.png")):
        res = run_sinpe(*args, cwd=tmp_path)
        assert_exit(res, 2)
        assert res.stderr.count("\n") == 1 and "sinpe[plot]" in res.stderr and res.stdout == ""
        assert not (tmp_path / "pic.png").exists()


def test_a_link_or_an_input_is_never_written(tmp_path):
    t = table("vaswani", 8, 10, "float32")
    np.save(tmp_path / "t.npy", t)
    (tmp_path / "keep.png").write_bytes(b"mine")
    os.symlink(tmp_path / "keep.png", tmp_path / "link.png")
    for target, why in (("t.npy", "is the input"), ("nodir/x.png", "does not exist"), (".", "is a directory")):
        res = run_sinpe("check", "t.npy", "--plot", target, cwd=tmp_path)
        assert_exit(res, 2)
        assert why in res.stderr and res.stdout == ""
    res = run_sinpe("check", "t.npy", "--plot", "link.png", cwd=tmp_path)  # REQ-CLI-OUTPUT: replaced, never followed
    assert_exit(res, 0)
    assert not os.path.islink(tmp_path / "link.png") and (tmp_path / "link.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "keep.png").read_bytes() == b"mine" and np.array_equal(np.load(tmp_path / "t.npy"), t)
    res = run_sinpe("check", "t.npy", "--profile", "mae", "--plot", "g.png", cwd=tmp_path)
    assert_exit(res, 2)
    assert "1-D" in res.stderr


def test_certification_figure_marks_a_failing_implementation(tmp_path):
    """``sinpe verify --plot``'s figure, drawn from a certification report: a failing implementation is marked."""
    from sinpe.reference.implementations.certify import certify_all, default_cases
    rep = certify_all(max_position=1000, dtypes=["float32"], cases=default_cases()[:1], per_band=2).to_json()
    ok = plot.plot_certification(rep, str(tmp_path / "ok.png"))
    assert ok["failing"] == 0 and _red(imread(tmp_path / "ok.png")) == 0
    bad = json.loads(json.dumps(rep))
    bad["implementations"][0]["ok"] = False
    out = plot.plot_certification(bad, str(tmp_path / "bad.png"))
    img = imread(tmp_path / "bad.png")
    assert out["failing"] == 1 and img.shape[:2] == (700, 1000) and _red(img) > 20


def test_scan_draws_each_judged_table(tmp_path):
    """``sinpe scan CKPT --plot DIR``: one picture per judged 1-D tensor (none for a skipped one), the failing
    table's marked, the conforming one's not."""
    bad = get_bug("BUG-POSITIONS-FLOAT16")(np.arange(3000.0), 32).astype(np.float32)
    np.savez(tmp_path / "ck.npz", pe=table("vaswani", 16, 64, "float32"), bad=bad,
             w=np.random.default_rng(0).normal(size=(64, 16)))
    res = run_sinpe("scan", "ck.npz", "--plot", "pics", cwd=tmp_path)
    assert_exit(res, 1)
    assert sorted(os.listdir(tmp_path / "pics")) == ["ck.npz-bad.png", "ck.npz-pe.png"]
    assert _red(imread(tmp_path / "pics" / "ck.npz-bad.png")) > 200
    assert _red(imread(tmp_path / "pics" / "ck.npz-pe.png")) == 0
    (tmp_path / "file").write_text("x")
    assert_exit(run_sinpe("scan", "ck.npz", "--plot", "file", cwd=tmp_path), 2)
    os.mkdir(tmp_path / "ckdir")
    os.replace(tmp_path / "ck.npz", tmp_path / "ckdir" / "ck.npz")
    res = run_sinpe("scan", "ckdir", "--plot", "ckdir/pics", cwd=tmp_path)  # REQ-CLI-OUTPUT: never among the inputs
    assert_exit(res, 2)
    assert "under the scanned directory" in res.stderr and not (tmp_path / "ckdir" / "pics").exists()
