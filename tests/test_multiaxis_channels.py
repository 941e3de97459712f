"""Multi-axis rotary caches and explicit 1-D channel plans (issue 16.1, 16.5).

IDs: DEF-ROPE-AXES, DEF-ROPE-FREQ-PIXEL, DEF-ROPE-PRESET-QWEN2-VL, DEF-ROPE-PRESET-TIMM-PIXEL, DEF-CHANNELS-EXPLICIT,
REQ-DETECT-READ, REQ-CHECK-KINDS.

Every table is computed independently in ``tests/library_formulas.py`` (NumPy, the library's formula and dtype:
transformers' Qwen2-VL M-RoPE, timm's ``build_rotary_pos_embed`` in pixel mode) or here (sin/cos of random
frequencies), then checked against the profile (conforms), with one entry perturbed (fails) and against a wrong
plan (sections swapped, the other band spacing, integer coordinates: fails).
Reproduce: python -m pytest tests/test_multiaxis_channels.py -q
"""
from __future__ import annotations

import json
import shlex

import library_formulas as L
import numpy as np
import pytest
from helpers import check_rotary, perturb
from test_loaders import assert_one_line_exit_2, run_clean

import sinpe
from sinpe.spec.rotary import get_rotary

F32 = np.float32




def _mrope_positions(rows: int = 240, seed: int = 0) -> np.ndarray:
    """Text tokens (t = h = w = i), then an image (t fixed, h and w over a 12 x 12 grid), then text again."""
    rng = np.random.default_rng(seed)
    pos = np.repeat(np.arange(rows)[:, None], 3, axis=1)
    img = np.stack(np.meshgrid(np.arange(12), np.arange(12), indexing="ij"), -1).reshape(-1, 2)[: rows - 60]
    pos[40:40 + len(img), 0] = 40
    pos[40:40 + len(img), 1:] = 40 + img
    pos[40 + len(img):, :] += rng.integers(0, 3)
    return pos


# --- Qwen2-VL M-RoPE ----------------------------------------------------------------------------------

def test_qwen2_vl_conforms_and_wrong_plans_fail():
    pos = _mrope_positions()
    cos, sin = L.qwen2_vl_mrope(pos)
    rp = get_rotary("qwen2-vl")
    assert check_rotary(rp, 128, cos=cos, sin=sin, positions=list(pos)).verdict == "conforms"
    assert check_rotary(rp, 128, cos=perturb(cos, 60, 20), positions=list(pos)).verdict == "fails"
    for wrong in ((24, 16, 24), (24, 24, 16), (16, 16, 32)):
        r = check_rotary(get_rotary("qwen2-vl", mrope_section=wrong), 128, cos=cos, positions=list(pos))
        assert r.verdict == "fails", wrong
    with pytest.raises(ValueError, match="3 coordinates for a profile of 1 position axes"):
        check_rotary(get_rotary("llama", base=10**6), 128, cos=cos, positions=list(pos))
    assert check_rotary(rp, 128, cos=cos, positions=list(pos[:, 0])).verdict == "fails"   # one axis read for all
    assert check_rotary(get_rotary("llama", base=10**6), 128, cos=cos).verdict == "fails"


def test_qwen2_vl_text_positions_are_plain_rope():
    pos = np.repeat(np.arange(200)[:, None], 3, axis=1)
    cos, sin = L.qwen2_vl_mrope(pos)
    assert sinpe.check(cos=cos, sin=sin, profile="qwen2-vl").verdict == "conforms"      # 0..n-1 on every axis
    assert sinpe.check(cos=cos, profile="llama", base=10**6).verdict == "conforms"
    with pytest.raises(ValueError, match="sums to"):
        check_rotary(get_rotary("qwen2-vl"), 64, cos=cos[:, :64])


def test_qwen2_vl_through_the_cli(tmp_path):
    pos = _mrope_positions()
    cos, sin = L.qwen2_vl_mrope(pos)
    np.save(tmp_path / "cos.npy", cos)
    np.save(tmp_path / "sin.npy", sin)
    np.save(tmp_path / "bad.npy", perturb(sin, 100, 50))
    np.save(tmp_path / "pos.npy", pos)
    np.save(tmp_path / "pos2.npy", pos[:, :2])
    np.save(tmp_path / "pos_obj.npy", pos.astype(object), allow_pickle=True)
    ok = ["--profile", "qwen2-vl", "--positions", "pos.npy"]
    assert run_clean(tmp_path, "check", "--cos", "cos.npy", "--sin", "sin.npy", *ok).returncode == 0
    assert run_clean(tmp_path, "check", "--sin", "bad.npy", *ok).returncode == 1
    flags = ["--profile", "llama", "--base", "1e6", "--positions", "pos.npy"]
    assert run_clean(tmp_path, "check", "--cos", "cos.npy", *flags, "--mrope-section", "16,24,24").returncode == 0
    assert run_clean(tmp_path, "check", "--cos", "cos.npy", *flags, "--mrope-section", "24,24,16").returncode == 1
    out = run_clean(tmp_path, "check", "--cos", "cos.npy", *flags, "--mrope-section", "16,24,24", "--json")
    assert json.loads(out.stdout)["profile_flags"] == "--profile qwen2-vl"
    for bad, words in ((["--positions", "pos2.npy"], "2 coordinates"), (["--positions", "pos_obj.npy"], "positions"),
                       (["--mrope-section", "16,x"], "--mrope-section")):
        assert_one_line_exit_2(run_clean(tmp_path, "check", "--cos", "cos.npy", "--profile", "qwen2-vl", *bad), words)


# --- timm pixel-band 2-D rotary --------------------------------------------------------------------------

@pytest.mark.parametrize("h,w,dim,linear", [(14, 14, 64, False), (5, 9, 32, False), (6, 4, 16, True), (1, 5, 8, False)])
def test_timm_pixel_conforms_and_wrong_plans_fail(h, w, dim, linear):
    cos, sin = L.timm_pixel_rope(h, w, dim, linear_bands=linear)
    rp = get_rotary("timm-pixel", linear_bands=True if linear else None)
    assert check_rotary(rp, dim, cos=cos, sin=sin, shape=(h, w)).verdict == "conforms"
    assert check_rotary(rp, dim, cos=perturb(cos, min(2, h * w - 1), 1), shape=(h, w)).verdict == "fails"
    other = get_rotary("timm-pixel", linear_bands=None if linear else True)
    verdict = check_rotary(other, dim, cos=cos, sin=sin, shape=(h, w)).verdict                  # other spacing
    assert verdict == ("fails" if dim // 4 > 2 else "conforms")  # 2 bands: both spacings give [1, max_res/2]
    assert check_rotary(get_rotary("timm-pixel", max_res=230), dim, cos=cos, shape=(h, w)).verdict == "fails"
    ints = [(i, j) for i in range(h) for j in range(w)]                                          # pixel indices
    assert check_rotary(rp, dim, cos=cos, positions=ints).verdict == "fails"
    if h != w:
        assert check_rotary(rp, dim, cos=cos, shape=(w, h)).verdict == "fails"                 # axes swapped


def test_timm_pixel_float64_is_held_tightly():
    cos, sin = L.timm_pixel_rope(8, 8, 32, dtype=np.float64)
    assert check_rotary(get_rotary("timm-pixel"), 32, cos=cos, sin=sin).verdict == "conforms"   # square from rows
    c32, _ = L.timm_pixel_rope(8, 8, 32)
    assert check_rotary(get_rotary("timm-pixel"), 32, cos=c32.astype(np.float64), dtype="float64").verdict == "fails"


def test_timm_pixel_through_the_cli(tmp_path):
    cos, sin = L.timm_pixel_rope(6, 10, 32)
    np.save(tmp_path / "cos.npy", cos)
    np.save(tmp_path / "sin.npy", sin)
    np.save(tmp_path / "bad.npy", perturb(cos, 30, 9))
    flags = ["--profile", "timm-pixel", "--shape", "6x10"]
    assert run_clean(tmp_path, "check", "--cos", "cos.npy", "--sin", "sin.npy", *flags).returncode == 0
    assert run_clean(tmp_path, "check", "--cos", "bad.npy", *flags).returncode == 1
    assert run_clean(tmp_path, "check", "--cos", "cos.npy", *flags, "--linear-bands").returncode == 1
    assert run_clean(tmp_path, "check", "--cos", "cos.npy", "--profile", "timm-pixel", "--shape", "10x6").returncode == 1
    assert_one_line_exit_2(run_clean(tmp_path, "check", "--cos", "cos.npy", "--profile", "timm-pixel"), "square")
    assert_one_line_exit_2(run_clean(tmp_path, "check", "--cos", "cos.npy", "--profile", "llama", "--shape", "6x10"),
                           "--shape")
    assert sinpe.check(cos=cos, sin=sin, profile="timm-pixel", shape=(6, 10)).verdict == "conforms"


def test_survey_records_timm_pixel_as_a_preset():
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from survey import cases
    assert "rope2d-timm" not in cases.NO_PRESET
    case = next(c for c in cases.CASES if c.function.endswith("build_rotary_pos_embed"))
    assert case.profile == "timm-pixel"


# --- explicit channel plans of 1-D tables ------------------------------------------------------------------

def _mixed(rows: int = 1000, seed: int = 5, f32: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Interleaved [sin w_0, cos w_0, sin w_1, ...] of random frequencies (float32 values when ``f32``) and a zero column."""
    rng = np.random.default_rng(seed)
    w = rng.uniform(1e-3, 2.0, 8)
    w = w.astype(F32).astype(np.float64) if f32 else w
    p = np.arange(rows, dtype=np.float64)[:, None]
    cols = [f(p * x) for x in w for f in (np.sin, np.cos)] + [np.zeros_like(p)]
    return np.hstack(cols).astype(F32), w


def test_explicit_channels_check():
    t, w = _mixed(300)
    items = [f"{f}:{float(x)!r}" for x in w for f in ("sin", "cos")] + ["zero"]
    assert sinpe.check(t, channels=",".join(items)).verdict == "conforms"
    assert sinpe.check(perturb(t, 50, 4), channels=items).verdict == "fails"
    swapped = items[:2][::-1] + items[2:]                                                       # cos, sin at w_0
    assert sinpe.check(t, channels=swapped).verdict == "fails"
    assert sinpe.check(t, channels=items, amplitude=2).verdict == "fails"
    assert sinpe.check(t, channels=items, offset=1).verdict == "fails"
    assert sinpe.check(2 * t, channels=items, amplitude=2).verdict == "conforms"
    assert sinpe.check(t, channels=items[:-1]).verdict == "fails"                               # one column short


@pytest.mark.parametrize("f32", [True, False])
def test_detect_prints_a_channel_plan_that_checks(tmp_path, f32):
    t, w = _mixed(1000, 9, f32)
    np.save(tmp_path / "t.npy", t)
    np.save(tmp_path / "bad.npy", perturb(t, 100, 6, 1e-2))
    found = sinpe.detect(str(tmp_path / "t.npy"))
    assert found.kind == "channels" and found.exit_code == 0
    if f32:  # a float32 frequency is recovered exactly
        got = sorted({float(c.split(":")[1].split("/")[0]) / float(c.split(":")[1].split("/")[1])
                      for c in found.readings["1d"]["channels"]["plan"].split(",") if c != "zero"})
        assert got == sorted(w.tolist())
    flags = shlex.split(found.profile_flags)
    assert run_clean(tmp_path, "check", "t.npy", *flags).returncode == 0
    assert run_clean(tmp_path, "check", "bad.npy", *flags).returncode == 1
    out = run_clean(tmp_path, "detect", "t.npy")
    assert out.returncode == 0 and "--channels" in out.stdout
    # auto checks the plan it read but cannot judge its frequencies (REQ-CHECK-AUTO): inconclusive, exit 3
    assert run_clean(tmp_path, "check", "t.npy", "--profile", "auto").returncode == 3
    # (a table no reading fits -- here the perturbed one -- is refused by auto as before: exit 2, never a pass)
    assert run_clean(tmp_path, "check", "bad.npy", "--profile", "auto").returncode == 2


def test_channel_plan_file_and_input_errors(tmp_path):
    t, w = _mixed(200)
    np.save(tmp_path / "t.npy", t)
    items = [f"{f}:{float(x)!r}" for x in w for f in ("sin", "cos")] + ["zero"]
    (tmp_path / "plan.json").write_text(json.dumps({"channels": items}))
    assert run_clean(tmp_path, "check", "t.npy", "--channels", "plan.json").returncode == 0
    (tmp_path / "big.json").write_bytes(b" " * ((1 << 23) + 1))
    (tmp_path / "list.json").write_text(json.dumps(items))
    (tmp_path / "bad.json").write_text("{\"channels\": [__import__('os')]}")
    for args, words in ((["--channels", "big.json"], "bytes"), (["--channels", "list.json"], "JSON object"),
                        (["--channels", "bad.json"], "not JSON"), (["--channels", "sin:1,tan:2"], "column 1"),
                        (["--channels", "sin:-1"], "positive"), (["--channels", "sin:1", "--base", "3"], "--base"),
                        (["--channels", "sin:1", "--profile", "vaswani"], "drop --profile"),
                        (["--channels", ",".join(["zero"] * ((1 << 16) + 1))], "columns")):
        assert_one_line_exit_2(run_clean(tmp_path, "check", "t.npy", *args), words)


@pytest.mark.parametrize("linear,dtype", [(False, "float32"), (True, "float32"), (False, "float16")])
def test_detect_names_a_square_pixel_cache(linear, dtype):  # REQ-DETECT-ROPE, DEF-ROPE-PRESET-TIMM-PIXEL
    """timm's 2-axis pixel cache on a square grid is named (detect tried only one-axis rules: "no candidate
    rotary profile conforms"), with the shape, band spacing and, for half values stored as float32, the dtype
    its check needs; that check conforms and the same cache with one entry off does not."""
    cos, sin = L.timm_pixel_rope(12, 12, 32, linear_bands=linear)
    if dtype == "float16":
        cos, sin = (a.astype(np.float16).astype(F32) for a in (cos, sin))
    found = sinpe.detect(cos=cos, sin=sin)
    want = "--profile timm-pixel" + (" --linear-bands" if linear else "") + " --shape 12x12" + \
        (" --dtype float16" if dtype == "float16" else "")
    assert found.profile_flags == want, found.sentence
    args = shlex.split(found.profile_flags)
    kw = {a[2:].replace("-", "_"): (True if b is None or b.startswith("--") else b)
          for a, b in zip(args, args[1:] + [None], strict=True) if a.startswith("--") and a != "--profile"}
    assert sinpe.check(cos=cos, sin=sin, profile="timm-pixel", **kw).verdict == "conforms"
    assert sinpe.check(cos=perturb(cos, 30, 9), sin=sin, profile="timm-pixel", **kw).verdict == "fails"
    assert sinpe.detect(cos=cos[:-1], sin=sin[:-1]).profile != "timm-pixel"  # 143 rows: no square grid
