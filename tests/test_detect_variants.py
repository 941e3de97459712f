"""The variants detect reads from the data (issue 29.2; SPEC.md REQ-DETECT-GRID, REQ-DETECT-ROPE, REQ-DETECT-FIT,
REQ-DETECT-READ, REQ-CLI-EXIT).

Every table is built at test time by a NumPy transcription of the library's own formula (``tests/library_formulas.py``:
timm, diffusers, ultralytics, ESPnet, a Pixtral-style ``freqs_cis``), never by sinpe. Each variant is named by
``sinpe.detect`` and accepted by ``--profile auto`` (exit 0); the same variant with one entry changed is rejected
by ``--profile auto`` (exit 1).
"""
from __future__ import annotations

import json

import library_formulas as L
import numpy as np
import pytest

import sinpe
from sinpe.reference import cli


def corrupt(t: np.ndarray, row: int, col: int, by: float = 0.02) -> np.ndarray:
    bad = np.array(t, copy=True)
    bad[row, col] += by
    return bad


# --- REQ-CLI-EXIT: an internal error is exit 3, never bad input ---------------------------------------------------

def test_internal_error_is_exit_3_not_a_usage_error(tmp_path, monkeypatch, capsys):
    """A NumPy error raised while sinpe computes (here planted in the rotary reading) is an internal error: exit 3,
    one line saying so, the JSON error object with exit_code 3; a value sinpe refuses stays exit 2."""
    from sinpe.reference.checking.detect import rotary
    cos, _ = L.rope_cache(L.inv_freq_default(16), 64)
    path = tmp_path / "cos.npy"
    np.save(path, cos)

    def broken(*a, **k):
        return np.ones(32) + np.ones(2)  # "operands could not be broadcast together"
    monkeypatch.setattr(rotary, "detect_rotary", broken)
    assert cli.main(["detect", "--cos", str(path)]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("sinpe detect: internal error") and "broadcast" in err[0]
    assert cli.main(["detect", "--cos", str(path), "--json"]) == 3
    doc = json.loads(capsys.readouterr().out)
    assert doc["error"]["exit_code"] == 3 and doc["error"]["internal"] is True
    assert cli.main(["check", "--cos", str(path), "--profile", "llama", "--mrope-section", "0"]) == 2
    assert "error: --mrope-section" in capsys.readouterr().err


# --- helpers -------------------------------------------------------------------------------------------------------

def named_and_accepted(target=None, **kw):
    """detect's reading of the variant, after checking that --profile auto accepts it (exit 0)."""
    found = sinpe.detect(target, **kw)
    res = sinpe.check(target, "auto", **kw)
    assert res.exit_code == 0 and res.verdict == "conforms", (found.sentence, res.reason)
    return found


def read_and_left_open(target=None, **kw):
    """detect's explicit reading (frequencies read from the data, exit 0), after checking that --profile auto leaves
    it inconclusive (exit 3: no preset names the frequencies, so the check of them could not fail)."""
    found = sinpe.detect(target, **kw)
    assert found.exit_code == 0 and found.rotary is not None and found.rotary.rule == "explicit", found.sentence
    res = sinpe.check(target, "auto", **kw)
    assert res.exit_code == 3 and res.verdict == "inconclusive", (found.sentence, res.reason)
    assert "were not judged" in res.reason and res.n_failures == 0, res.reason
    return found


def explicit(reading):
    from fractions import Fraction
    return np.array([float(Fraction(w)) for w in reading["params"]["explicit"]])


def rejected(target=None, **kw):
    res = sinpe.check(target, "auto", **kw)
    assert res.exit_code == 1 and res.verdict == "fails", res.reason


# --- grids: every shape the rows allow, any cls rows, 3-D, any temperature (REQ-DETECT-GRID) -----------------------

def test_non_square_timm_grid():
    """timm build_sincos2d_pos_embed(feat_shape=[16, 9], dim=128), float32: was 'no member of the family fits'."""
    t = L.timm_2d(128, (16, 9))
    found = named_and_accepted(t)
    assert (found.kind, found.profile) == ("grid", "timm") and "--shape 16x9 --cls 0" in found.profile_flags
    rejected(corrupt(t, 77, 5))


@pytest.mark.parametrize("make, profile, shape, cls", [
    (lambda: L.diffusers_2d(64, 8, 8, extra_tokens=2), "mae", "8x8", 2),           # base_size 8 = n: MAE's numbers
    (lambda: L.diffusers_2d(64, 8, 16, extra_tokens=3), "diffusers", "8x8", 3),
    (lambda: L.diffusers_2d_hw(64, (6, 10), 16, 1, extra_tokens=1), "diffusers", "6x10", 1),
    (lambda: np.concatenate([np.zeros((5, 32), np.float32), L.timm_2d(32, (4, 6))]), "timm", "4x6", 5),
])
def test_grids_with_any_number_of_cls_rows(make, profile, shape, cls):
    """diffusers get_2d_sincos_pos_embed(cls_token=True, extra_tokens=k) and other grids behind k zero rows."""
    t = make()
    found = named_and_accepted(t)
    assert (found.kind, found.profile) == ("grid", profile)
    assert f"--shape {shape} --cls {cls}" in found.profile_flags
    rejected(corrupt(t, cls + 7, 3))


def test_the_3d_grid_preset_is_diffusers_get_3d_sincos_pos_embed():
    """DEF-GRID-PRESET-DIFFUSERS-3D: the preset equals the library formula (float32), other scales or the (W, H)
    order fail."""
    from helpers import check_grid

    from sinpe.spec.grid import get_grid
    t = L.diffusers_3d(64, (6, 4), 3, 1.875, 1.0)  # spatial_size = (W, H) = (6, 4), T = 3: CogVideoX's scale
    assert check_grid(t, get_grid("diffusers-3d", 64, (3, 4, 6), interpolation_scale="15/8")).verdict == "conforms"
    assert check_grid(t, get_grid("diffusers-3d", 64, (3, 4, 6))).verdict == "fails"
    assert check_grid(L.diffusers_3d(64, (6, 4), 3), get_grid("diffusers-3d", 64, (3, 6, 4))).verdict == "fails"
    two = L.diffusers_3d(32, (3, 3), 4, 1.0, 2.0)
    assert check_grid(two, get_grid("diffusers-3d", 32, (4, 3, 3), temporal_interpolation_scale=2)).verdict == "conforms"
    with pytest.raises(ValueError, match="3-D shape"):
        get_grid("diffusers-3d", 64, (4, 6))


@pytest.mark.parametrize("make, flags", [
    (lambda: L.diffusers_3d(64, (6, 4), 5), "--profile diffusers-3d --shape 5x4x6 --cls 0"),
    (lambda: L.diffusers_3d(64, (6, 4), 3, 1.875, 1.0),
     "--profile diffusers-3d --shape 3x4x6 --cls 0 --interpolation-scale 15/8"),
    (lambda: L.diffusers_3d(32, (3, 3), 4, 1.0, 2.0),
     "--profile diffusers-3d --shape 4x3x3 --cls 0 --temporal-interpolation-scale 2"),
])
def test_3d_grids(make, flags):
    """diffusers get_3d_sincos_pos_embed (t x h x w; CogVideoX's spatial_interpolation_scale 1.875)."""
    t = make()
    found = named_and_accepted(t)
    assert found.kind == "grid" and found.profile_flags == flags
    rejected(corrupt(t, 13, 20))


@pytest.mark.parametrize("make, profile, flags", [
    (lambda: L.aifi_2d(10, 6, 256, 1000.0), "timm-interleaved", "--shape 10x6 --cls 0 --temperature 1000"),
    (lambda: L.timm_2d(256, (6, 10), temperature=1000.0), "timm", "--shape 6x10 --cls 0 --temperature 1000"),
    (lambda: L.timm_2d(64, (8, 8), temperature=100.0), "timm", "--shape 8x8 --cls 0 --temperature 100"),
    (lambda: L.timm_2d(64, (8, 8), temperature=20.0), "timm", "--shape 8x8 --cls 0 --temperature 20"),
    (lambda: L.vit_posemb_sincos_2d(6, 9, 32, temperature=100.0), "vit", "--shape 6x9 --cls 0 --temperature 100"),
])
def test_grid_temperatures(make, profile, flags):
    """A grid's temperature is read from the data, as a 1-D base is: ultralytics AIFI (temperature 1000, 6x10 cells,
    w outermost: timm-interleaved over (w, h)), timm at 1000, 100, 20, vit-pytorch at 100."""
    t = make()
    found = named_and_accepted(t)
    assert (found.kind, found.profile) == ("grid", profile) and found.profile_flags.endswith(flags)
    rejected(corrupt(t, 11, 2))


# --- rotary: a start position, the cells of a grid, several position axes (REQ-DETECT-ROPE, REQ-DETECT-READ) -------

def test_rotary_cache_sliced_at_an_offset():
    """A LLaMA cache whose rows are positions 100..2147 (cos alone, and the pair): was 'no candidate rotary profile
    conforms'; named with --positions 100:2148."""
    cos, sin = L.rope_cache(L.inv_freq_default(64), 2148)
    found = named_and_accepted(cos=cos[100:])
    assert (found.kind, found.profile) == ("rotary", "llama") and "--positions 100:2148" in found.profile_flags
    found = named_and_accepted(cos=cos[100:], sin=sin[100:])
    assert found.readings["rotary"]["start"] == 100
    rejected(cos=corrupt(cos[100:], 1500, 7, 0.01), sin=sin[100:])


def test_offset_reading_of_scaled_rules_and_pairs_layouts():
    """The start position is read for any candidate rule: a GPT-J-style pairs cache from position 37, a linear-scaled
    LLaMA cache (factor 4) from position 5000."""
    inv = L.inv_freq_default(32)
    cos, _ = L.rope_cache(inv, 400, layout="pairs")
    found = named_and_accepted(cos=cos[37:])
    assert found.profile == "gptj" and found.readings["rotary"]["start"] == 37
    cos, sin = L.rope_cache(L.inv_freq_linear(64, 4.0), 5600)
    found = named_and_accepted(sin=sin[5000:])
    assert "--rule linear --factor 4" in found.profile_flags and "--positions 5000:5600" in found.profile_flags


@pytest.mark.parametrize("which", ["cos", "sin"])
def test_timm_rotary_on_a_non_square_grid(which):
    """timm build_rotary_pos_embed(feat_shape=[16, 9], dim=64) (pixel bands, pairs): named timm-pixel --shape 16x9."""
    sin, cos = L.timm_rotary((16, 9), 64)
    t = {"cos": cos, "sin": sin}[which]
    found = named_and_accepted(**{which: t})
    assert found.profile == "timm-pixel" and found.profile_flags.endswith("--shape 16x9")
    rejected(**{which: corrupt(t, 50, 9, 0.01)})


def test_timm_fourier_features():
    """timm build_fourier_pos_embed(feat_shape=[8, 12], num_bands=16): its sin and cos, each (cells, 2 bands), are a
    timm-pixel cache of layout single; with linear bands too."""
    sin, cos = L.timm_fourier((8, 12), 16)
    found = named_and_accepted(cos=cos, sin=sin)
    assert "--profile timm-pixel --layout single" in found.profile_flags and found.profile_flags.endswith("--shape 8x12")
    sin, _ = L.timm_fourier((6, 6), 8, linear_bands=True)
    found = named_and_accepted(sin=sin)
    assert "--linear-bands" in found.profile_flags
    rejected(sin=corrupt(sin, 20, 3, 0.01))


@pytest.mark.parametrize("which", ["cos", "sin", "both"])
def test_timm_bands_over_integer_cells(which):
    """timm build_rotary_pos_embed(in_pixels=False, temperature=100) and build_fourier_pos_embed(in_pixels=False): per
    axis 1/T^(i/n) over arange(n) cells; named as an explicit plan with sections, over the cells of --shape."""
    sin, cos = L.timm_rotary((8, 6), 64, in_pixels=False, temperature=100.0)
    kw = {"cos": {"cos": cos}, "sin": {"sin": sin}, "both": {"cos": cos, "sin": sin}}[which]
    found = read_and_left_open(**kw)
    r = found.readings["rotary"]
    assert r["params"]["mrope_section"] == [16, 16] and r["shape"] == [8, 6]
    band = (1.0 / (np.float32(100.0) ** (np.arange(16).astype(np.float32) / np.float32(16)))).astype(np.float32)
    assert np.allclose(explicit(r), np.tile(band, 2), rtol=1e-5, atol=0)  # 6 and 8 cells per axis: within 1e-5
    rejected(**{k: corrupt(v, 30, 12, 0.01) if k == next(iter(kw)) else v for k, v in kw.items()})


def test_freqs_cis_of_2d_positions(tmp_path):
    """A complex freqs_cis over (row, column) positions (Pixtral-style), split into real and imaginary parts, with a
    (rows, 2) positions file: was exit 2 'operands could not be broadcast together with shapes (32,) (2,)'; now an
    explicit plan with sections [16, 16] recovering every float32 frequency (to 1e-6 from 4 and 8 positions), and
    --profile auto leaves it inconclusive (exit 3: frequencies read from the data are not judged)."""
    cos, sin, pos, freqs = L.freqs_cis_2d(4, 8, 64)
    found = read_and_left_open(cos=cos, sin=sin, positions=pos)
    r = found.readings["rotary"]
    assert r["params"]["mrope_section"] == [16, 16] and r["layout"] == "single"
    assert np.allclose(explicit(r), freqs, rtol=1e-6, atol=0)  # 4 and 8 positions per axis: within 1e-6
    rejected(cos=cos, sin=corrupt(sin, 9, 20, 0.01), positions=pos)
    np.save(tmp_path / "c.npy", cos), np.save(tmp_path / "s.npy", sin), np.save(tmp_path / "p.npy", pos)
    args = ["--cos", str(tmp_path / "c.npy"), "--sin", str(tmp_path / "s.npy"), "--positions", str(tmp_path / "p.npy")]
    assert cli.main(["detect", *args]) == 0
    assert cli.main(["check", *args, "--profile", "auto"]) == 3


def test_auto_leaves_frequencies_read_from_the_cache_open():
    """A llama cache whose inv_freq was rounded to float16 (as Phi3's longrope float16 path computes it, survey
    2e4dafa): the llama check fails; detect reads the rounded frequencies explicitly, and --profile auto, which
    passed that reading (exit 0), is now inconclusive (exit 3); an entry 1 % off still fails under auto."""
    p = np.arange(2048, dtype=np.float64)[:, None]
    inv = (1.0 / 10000.0 ** (np.arange(0, 64, 2) / 64)).astype(np.float16).astype(np.float64)
    ang = np.concatenate([p * inv, p * inv], axis=1)
    cos, sin = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
    assert sinpe.check(cos=cos, sin=sin, profile="llama").verdict == "fails"
    found = read_and_left_open(cos=cos, sin=sin)
    assert np.array_equal(explicit(found.readings["rotary"]), inv)  # each float16 frequency recovered exactly
    rejected(cos=cos, sin=corrupt(sin, 700, 5, 0.01))


def test_positions_a_plan_cannot_read_are_said_so():
    """Multi-axis positions whose columns read no single axis (every column mixes both): no reading, and said so."""
    cos, sin, pos, _ = L.freqs_cis_2d(4, 8, 16)
    mixed = np.cos((pos[:, :1] + pos[:, 1:]) * np.linspace(0.1, 1, 8)[None, :]).astype(np.float32)
    found = sinpe.detect(cos=mixed, positions=pos)
    assert found.exit_code == 1 and "no explicit multi-axis plan" in found.sentence


# --- 1-D: reversed position order (REQ-DETECT-FIT) -----------------------------------------------------------------

def test_reversed_position_order():
    """ESPnet PositionalEncoding(reverse=True): position n-1-i at row i, read as --phase-scale -1 --offset -(n-1)."""
    t = L.espnet_pe(1024, 256, reverse=True)
    found = named_and_accepted(t)
    assert found.kind == "1d" and "--phase-scale -1 --offset -1023" in found.profile_flags
    assert "reverse order" in found.sentence
    rejected(corrupt(t, 600, 31, 0.01))
