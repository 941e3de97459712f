"""Golden vectors for grids and rotary caches (REQ-REF-GRID, REQ-REF-ROPE): pinned bytes, byte-for-byte
regeneration, and an independent recomputation of some cases by plain mpmath at 60 digits from the
written-out formulas (not through the spec's plan).
Reproduce: python -m pytest tests/test_golden_angles.py
"""
from __future__ import annotations

import hashlib

import mpmath
import numpy as np
import pytest

from sinpe.reference.golden import angles_vectors as G
from sinpe.reference.numerics.rounding import round_to_format

SHA256 = "62afdef8ce6815da2d25f4c874ee89f10cfdeee6ae952adaa978396e38f20702"


def test_file_is_pinned():
    assert hashlib.sha256(G.PATH.read_bytes()).hexdigest() == SHA256, \
        "golden-angles-v1.json changed; regenerate with: python -c 'from sinpe.reference.golden.angles_vectors import write; write()'"


def test_regenerates_byte_for_byte():
    assert G.generate() == G.PATH.read_bytes()


def _rounded(x: mpmath.mpf, fmt: str) -> float:
    return round_to_format(x, fmt)


@pytest.mark.parametrize("fmt", G.FORMATS)
def test_llama_cos_independently(fmt: str):
    want = []
    with mpmath.workdps(60):
        for p in [0, 1, 2, 1000, 65535]:
            w = [mpmath.mpf(10000) ** (-mpmath.mpf(2 * k) / 8) for k in range(4)]
            want.append([_rounded(mpmath.cos(p * w[j % 4]), fmt) for j in range(8)])
    assert np.array_equal(G.load("rope-llama-d8-cos", fmt), np.array(want))


@pytest.mark.parametrize("fmt", G.FORMATS)
def test_detr_normalized_independently(fmt: str):
    """DETR normalised, d = 8 (num_pos_feats 4), 2x2: [y | x], each sin/cos interleaved of (i+1)/(2+1e-6)*2pi/T^(2(j//2)/4)."""
    want = []
    with mpmath.workdps(60):
        def block(i: int) -> list[float]:
            c = (i + 1) / (2 + mpmath.mpf("1e-6")) * 2 * mpmath.pi
            return [_rounded((mpmath.sin if j % 2 == 0 else mpmath.cos)(c / mpmath.mpf(10000) ** (mpmath.mpf(2 * (j // 2)) / 4)), fmt)
                    for j in range(4)]
        for y in range(2):
            for x in range(2):
                want.append(block(y) + block(x))
    assert np.array_equal(G.load("grid-detr-normalized-d8-2x2", fmt), np.array(want))


def test_cases_file_is_checked(tmp_path):
    """The cases file (inputs/angles-cases-v1.json) is data read by code: a case with a key of the other kind, a
    duplicate id or another schema is refused, naming the file."""
    import json
    doc = json.loads(G.CASES_PATH.read_text())
    assert G.read_cases() == G.CASES and [c["id"] for c in json.loads(G.PATH.read_bytes())["cases"]] == \
        [c["id"] for c in G.CASES]
    for bad in ({**doc, "cases": doc["cases"] + doc["cases"][:1]},
                {**doc, "cases": [{**doc["cases"][0], "positions": [0]}]},
                {**doc, "schema": "sinpe-angles-cases-v0"}):
        (tmp_path / "c.json").write_text(json.dumps(bad))
        with pytest.raises(ValueError, match="c.json"):
            G.read_cases(tmp_path / "c.json")


def test_mae_cls_row_is_zero_and_layout_is_x_first():
    t = G.load("grid-mae-d16-2x3-cls1", "binary64")
    assert t.shape == (7, 16) and not t[0].any()
    # row (0, 1): x = 1 drives the first 8 columns (sin(1) first), y = 0 the rest (sin 0 = 0, cos 0 = 1)
    assert t[2, 0] == float(mpmath.sin(1)) and t[2, 8] == 0.0 and t[2, 12] == 1.0


def test_negative_a_wrong_value_is_detected():
    t = G.load("rope-llama-d8-cos", "binary32")
    with mpmath.workdps(60):
        wrong = _rounded(mpmath.cos(1000 * mpmath.mpf(10000) ** (-mpmath.mpf(2) / 8)), "binary32")
    assert t[3, 1] == wrong and t[3, 2] != wrong  # column 2 holds w_2, not w_1


def test_grid_and_rotary_golden_file_is_in_the_one_manifest(tmp_path):  # REQ-GOLDEN-MANIFEST, REQ-REF-ROPE
    """The grid/rotary file is listed in MANIFEST.json with the 1-D files and checked on load: one changed
    byte is refused."""
    import shutil

    from sinpe.reference.golden import vectors as V
    assert V.manifest()["files"][G.REL]["sha256"] == SHA256
    (tmp_path / "angles").mkdir()
    shutil.copy(V.GOLDEN_DIR / V.MANIFEST_NAME, tmp_path / V.MANIFEST_NAME)
    data = bytearray(G.PATH.read_bytes())
    data[data.index(b"0x1")] ^= 0x01
    (tmp_path / G.REL).write_bytes(bytes(data))
    with pytest.raises(V.GoldenIntegrityError, match="SHA-256"):
        V.read_verified(G.REL, tmp_path)
