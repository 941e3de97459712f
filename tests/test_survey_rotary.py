"""Rotary readings found by the issue-16 survey caches (REQ-DETECT-ROPE, DEF-ROPE-FREQ-EXPLICIT).

timm's RotaryEmbedding(rotate_half=True) is the pixel-band cache in the halves layout; a cache built from a float16
inv_freq (a module moved with .to(torch.float16), Mistral's base 10^6) has bands that underflowed to 0, which no
explicit plan may name (each frequency positive). Tables are library formulas in NumPy (tests/library_formulas.py).
"""
from __future__ import annotations

import json
from fractions import Fraction

import library_formulas as L
import numpy as np
import pytest
from helpers import check_rotary, detect_rotary

from sinpe.reference.cli import main
from sinpe.spec.rotary import ROTARY_PRESETS, RotaryProfile


def _halves(cache: np.ndarray) -> np.ndarray:
    """timm's rotate_half arrangement: each band once per half (the pairs cache has it twice in a row)."""
    return np.concatenate([cache[:, ::2], cache[:, ::2]], axis=1)


def test_timm_pixel_halves_is_detected_and_reproduced(tmp_path, capsys):
    cos, sin = (_halves(c) for c in L.timm_pixel_rope(12, 12, 64))
    r = detect_rotary(cos=cos, sin=sin)  # not found before: the pixel reading tried the pairs layout only
    assert r["found"] and r["layout"] == "halves" and r["shape"] == [12, 12]
    halves = ROTARY_PRESETS["timm-pixel"].replace(layout="halves")
    assert check_rotary(halves, 64, cos=cos, sin=sin, shape=(12, 12)).verdict == "conforms"
    pairs_cos, pairs_sin = L.timm_pixel_rope(12, 12, 64)
    assert check_rotary(halves, 64, cos=pairs_cos, sin=pairs_sin, shape=(12, 12)).verdict == "fails"
    f = str(tmp_path / "cos.npy")
    np.save(f, cos)
    assert main(["detect", f, "--json"]) == 0
    flags = json.loads(capsys.readouterr().out)["profile_flags"].replace("FILE", f).split()
    assert main(["check", *flags]) == 0


def test_explicit_frequencies_must_be_positive():
    with pytest.raises(ValueError, match="positive"):
        RotaryProfile(None, "halves", rule="explicit", explicit=(Fraction(1), Fraction(0)))


def test_half_inv_freq_with_zero_bands_names_no_plan_check_refuses(tmp_path, capsys):
    inv = L.inv_freq_default(64, 1e6).astype(np.float16).astype(np.float32)  # the buffer after .to(float16)
    cos, _ = L.rope_cache(inv, 1024)
    assert (cos.astype(np.float16)[:, 31] == 1).all()  # base 10^6: the slowest band never leaves 1 in float16
    f = str(tmp_path / "cos.npy")
    np.save(f, cos.astype(np.float16))
    rc = main(["detect", f, "--json"])
    js = json.loads(capsys.readouterr().out)
    # before: exit 0 naming --freqs ...,0,0 (a plan `sinpe check` refuses, exit 2); a named plan must check
    if js["readings"]["rotary"]["found"]:  # named (since detect retries --working native: exit 1, a deviation)
        assert rc in (0, 1) and main(["check", *js["profile_flags"].replace("FILE", f).split()]) in (0, 3)
    else:
        assert rc == 1
