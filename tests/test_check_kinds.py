"""Grids and rotary caches through the main commands (SPEC.md REQ-CHECK-KINDS, REQ-DETECT-KINDS): `sinpe check`
with a grid or rotary preset has the 1-D report contract (verdict, exit codes, JSON keys); `sinpe detect`
tries the 1-D, grid and rotary readings and names the best."""
from __future__ import annotations

import json

import library_formulas as L
import numpy as np
import pytest
from test_loaders import assert_one_line_exit_2, run_clean

ONE_D_KEYS = {"conformant", "verdict", "profile", "profile_flags", "tier", "dtype", "working", "max_abs_error",
              "max_ulp_error", "worst", "failures", "detected", "unjudged", "structural", "max_bound_ratio",
              "alternatives", "n_failures", "rows", "d", "notes", "kind", "profile_source"}


@pytest.fixture()
def files(tmp_path):
    np.save(tmp_path / "mae.npy", L.mae_2d(32, 6, cls=True).astype(np.float32))
    c, s = L.rope_cache(L.inv_freq_default(32), 200)
    np.save(tmp_path / "cos.npy", c[None, None])
    np.save(tmp_path / "sin.npy", s[None, None])
    half = L.rope_cache(L.inv_freq_default(32).astype(np.float16).astype(np.float64), 200)
    np.save(tmp_path / "cos16.npy", half[0])
    from sinpe.reference.tables import table
    np.save(tmp_path / "vas.npy", table("vaswani", 32, 64, "float32"))
    return tmp_path


def _json(res):
    return json.loads(res.stdout)


def test_check_grid_preset_has_the_1d_contract(files):
    ok = run_clean(files, "check", "mae.npy", "--profile", "mae", "--cls", "1", "--json")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    out = _json(ok)
    assert ONE_D_KEYS <= set(out) and out["kind"] == "grid" and out["verdict"] == "conforms"
    one_d = _json(run_clean(files, "check", "vas.npy", "--profile", "vaswani", "--json"))
    assert ONE_D_KEYS <= set(one_d) and one_d["kind"] == "1d"
    # wrong axis order (timm's functions order) and a missing cls row both fail, exit 1
    bad = run_clean(files, "check", "mae.npy", "--profile", "timm", "--cls", "1", "--json")
    assert bad.returncode == 1 and _json(bad)["verdict"] == "fails"
    assert run_clean(files, "check", "mae.npy", "--profile", "mae", "--shape", "5x7").returncode == 1
    assert_one_line_exit_2(run_clean(files, "check", "mae.npy", "--profile", "mae", "--amplitude", "2"),
                           "does not apply to a 2-D grid")


def test_check_rotary_preset_has_the_1d_contract(files):
    ok = run_clean(files, "check", "--cos", "cos.npy", "--sin", "sin.npy", "--profile", "llama", "--json")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    out = _json(ok)
    assert ONE_D_KEYS <= set(out) and out["kind"] == "rotary" and set(out["parts"]) == {"cos", "sin"}
    assert run_clean(files, "check", "cos.npy", "--profile", "llama").returncode == 0  # TARGET as the cos cache
    # wrong layout (pairs), half-precision inverse frequencies: findings
    assert run_clean(files, "check", "cos.npy", "--profile", "gptj").returncode == 1
    bad = run_clean(files, "check", "cos16.npy", "--profile", "llama", "--json")
    assert bad.returncode == 1 and _json(bad)["n_failures"] > 0
    assert_one_line_exit_2(run_clean(files, "check", "--cos", "cos.npy", "--profile", "vaswani"), "--profile llama")
    assert_one_line_exit_2(run_clean(files, "check", "vas.npy", "--profile", "vaswani", "--shape", "4x4"),
                           "applies to grid or rotary")


def test_detect_names_the_kind(files):
    for name, kind, profile in (("mae.npy", "grid", "mae"), ("cos.npy", "rotary", "llama"),
                                ("vas.npy", "1d", "vaswani")):
        res = run_clean(files, "detect", name, "--json")
        out = _json(res)
        assert out["kind"] == kind and out["profile"] == profile, (name, out.get("kind"), out.get("profile"))
        assert set(out["readings"]) == {"1d", "grid", "rotary"}
        assert res.returncode == (0 if kind != "1d" or profile == "vaswani" else 1)
    noise = np.random.default_rng(1).uniform(-1, 1, (36, 32))
    np.save(files / "noise.npy", noise)
    res = run_clean(files, "detect", "noise.npy", "--json")
    assert res.returncode == 1 and _json(res)["profile"] is None
