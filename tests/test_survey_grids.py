"""Grid presets and detection found by the issue-16 survey grids (DEF-GRID-PRESET-*, REQ-DETECT-GRID).

Deformable DETR's normalised sine grid reads the cell centre (i + 1/2) (preset detr-deformable), and ViTMAE's
[sin_h | cos_h | sin_w | cos_w] grid with its cls row is detected as timm-interleaved with cls 1. Tables are the
library formulas in NumPy (tests/library_formulas.py); each check is shown to fail on the wrong table.
"""
from __future__ import annotations

import dataclasses
import json

import library_formulas as L
import numpy as np
from helpers import check_grid, detect_grid

from sinpe.reference.cli import main
from sinpe.spec.grid import get_grid


def test_deformable_detr_conforms_to_its_preset_only():
    t = L.detr_sine(64, 5, 7, normalize=True, centre=True)
    assert check_grid(t, get_grid("detr-deformable", 64, (5, 7)), dtype="float32").verdict == "conforms"
    assert check_grid(t, get_grid("detr-normalized", 64, (5, 7)), dtype="float32").verdict == "fails"
    plain = L.detr_sine(64, 5, 7, normalize=True)  # DETR's i + 1: not the cell centre
    assert check_grid(plain, get_grid("detr-deformable", 64, (5, 7)), dtype="float32").verdict == "fails"


def test_deformable_detr_is_detected():
    d = detect_grid(L.detr_sine(32, 6, 6, normalize=True, centre=True))
    assert d["found"] and (d["profile"], d["cls"]) == ("detr-deformable", 0)


def test_vitmae_grid_with_cls_row_is_detected_as_timm_interleaved():
    t = L.vitmae_2d(64, 8, 8, cls=True)
    g = dataclasses.replace(get_grid("timm-interleaved", 64, (8, 8)), cls=1)
    assert check_grid(t, g, dtype="float32").verdict == "conforms"
    d = detect_grid(t)  # failed before: cls rows were tried for mae and diffusers only
    assert d["found"] and (d["profile"], d["cls"]) == ("timm-interleaved", 1)
    swapped = np.concatenate([t[:, 32:], t[:, :32]], axis=1)  # [w | h]: the axes the other way round
    assert check_grid(swapped, g, dtype="float32").verdict == "fails"


def test_detect_reads_a_channels_first_npy_as_a_grid(tmp_path, capsys):
    t = L.pe2d(64, 8, 8)  # (x*y, C), rows = cells: saved as PositionalEncodingPermute2D's (C, H, W)
    f = str(tmp_path / "pe.npy")
    np.save(f, np.ascontiguousarray(t.T.reshape(64, 8, 8)))
    assert main(["detect", f, "--json"]) == 0  # exit 2 before: 'a 3-D array ... expected a 2-D table'
    flags = json.loads(capsys.readouterr().out)["profile_flags"]
    assert flags.endswith("--channels-first") and "--profile pe2d" in flags
    assert main(["check", f, *flags.split()]) == 0
    capsys.readouterr()
    noise = np.random.default_rng(0).uniform(-1, 1, (64, 8, 8)).astype(np.float32)
    np.save(f, noise)
    assert main(["detect", f]) == 1
