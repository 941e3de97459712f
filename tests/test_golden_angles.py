"""Golden vectors for grids and rotary caches (REQ-REF-GRID, REQ-REF-ROPE): pinned bytes, byte-for-byte
regeneration, and an independent recomputation of some cases by plain mpmath at 60 digits from the
written-out formulas (not through the spec's plan).
Reproduce: python -m pytest tests/test_golden_angles.py
"""
from __future__ import annotations

import hashlib

import library_formulas as L
import mpmath
import numpy as np
import pytest

from sinpe.reference.golden import angles_vectors as G
from sinpe.reference.numerics.rounding import round_to_format

SHA256 = "079ab1a448a41b6e03d5b59c9731a8fa5cd73b98f4506eb15e2acff1633d0bc3"


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


def _ulps(golden: np.ndarray, other: np.ndarray) -> float:
    """The largest distance of ``other`` from the golden binary64 entries, in units in the last place of each."""
    with np.errstate(over="ignore", divide="ignore"):
        return float((np.abs(other - golden) / np.spacing(np.abs(golden))).max())


# the formula's own float64 error: w_k = 1/10000^(k/n) carries k/n's rounding times ln 10^4 k/n (< 9.3 u) and pow's,
# 1/x's, i/s's and the product's (a few u); sin and cos scale it by |x cot x| <= 1 and |x tan x| < 2 wherever x is
# inexact (p w_k <= 0.25 for k >= 1; x = p <= 16/15 for w_0 = 1 at s = 15/8; x = p exact at s = 1), plus libm's 1 u:
# below 16 ulps. Measured: 2 ulps.
LIBRARY_ULPS = 16
# (id, dim, (T, H, W), spatial interpolation scale, temporal interpolation scale), as in the cases file
DIFFUSERS_3D = [("grid-diffusers-3d-d16-2x2x3", 16, (2, 2, 3), 1.0, 1.0),
                ("grid-diffusers-3d-d32-2x3x2-s1.875-t2", 32, (2, 3, 2), 1.875, 2.0)]


@pytest.mark.parametrize("case_id,dim,shape,s,t", DIFFUSERS_3D)
def test_diffusers_3d_against_the_library_formula(case_id: str, dim: int, shape: tuple[int, int, int], s: float, t: float):
    """DEF-GRID-PRESET-DIFFUSERS-3D: the golden binary64 entries (correctly rounded, from the certified oracle)
    are within LIBRARY_ULPS of diffusers' get_3d_sincos_pos_embed transcribed in float64 (tests/library_formulas.py,
    not the spec's plan); each wrong definition is off by far more."""
    T, H, W = shape
    golden = G.load(case_id, "binary64")
    formula = L.diffusers_3d(dim, (W, H), T, s, t, dtype=np.float64)
    assert golden.shape == formula.shape == (T * H * W, dim)
    assert _ulps(golden, formula) <= LIBRARY_ULPS
    q, a = dim // 4, 3 * dim // 8  # [t | x | y] widths
    wrong = {"[t | y | x]": formula[:, list(range(q)) + list(range(q + a, q + 2 * a)) + list(range(q, q + a))],
             "spatial_size (H, W)": L.diffusers_3d(dim, (H, W), T, s, t, dtype=np.float64)}
    if (s, t) != (1.0, 1.0):
        wrong |= {"scales ignored": L.diffusers_3d(dim, (W, H), T, dtype=np.float64),
                  "temporal scale ignored": L.diffusers_3d(dim, (W, H), T, s, 1.0, dtype=np.float64),
                  "scales swapped": L.diffusers_3d(dim, (W, H), T, t, s, dtype=np.float64)}
    for name, table in wrong.items():
        assert _ulps(golden, table) > LIBRARY_ULPS, name


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


def test_a_bad_cases_file_is_one_line_of_the_command_that_reads_it(tmp_path, monkeypatch):  # REQ-CLI-EXIT
    """Red-team regression: read_cases checked the keys, not the values: a case with dim "16", shape 3, options [],
    an unknown option or position "x" passed, and `sinpe golden` ended in an internal error (exit 3) or a
    TypeError; a missing file was a FileNotFoundError traceback; and the file was read on importing the golden
    package, so a bad one broke `sinpe golden --help`, `sinpe.golden_cases()` and the 1-D pytest plugin, with a
    traceback (exit 1). Now each is a ValueError naming the file and the case, read when the cases are needed, and
    `sinpe golden --check` says it in one line (exit 2) before any work."""
    import json

    from helpers import run_sinpe
    doc = json.loads(G.CASES_PATH.read_text())
    grid, rotary = doc["cases"][0], next(c for c in doc["cases"] if c["kind"] == "rotary")
    for bad, words in (({**grid, "dim": "16"}, "dim a positive integer"), ({**grid, "dim": True}, "dim"),
                       ({**grid, "shape": 3}, "shape"), ({**grid, "shape": [2, 0]}, "shape"),
                       ({**grid, "options": []}, "options"), ({**grid, "options": {"colour": 1}}, "make no profile"),
                       ({**grid, "preset": "no-such-grid"}, "make no profile"),
                       ({**rotary, "which": "tan"}, "cos or sin"), ({**rotary, "positions": ["x"]}, "positions"),
                       ({**rotary, "positions": []}, "positions"), ({**rotary, "options": {"base": -1}}, "no profile")):
        (tmp_path / "c.json").write_text(json.dumps({**doc, "cases": [bad]}))
        with pytest.raises(ValueError, match=f"c.json: case {bad['id']!r}: .*{words}"):
            G.read_cases(tmp_path / "c.json")
    for missing in (tmp_path / "none.json", tmp_path):
        with pytest.raises(ValueError, match="cannot be read"):
            G.read_cases(missing)
    (tmp_path / "c.json").write_text(json.dumps({**doc, "cases": [{**grid, "shape": 3}]}))
    monkeypatch.setattr(G, "CASES_PATH", tmp_path / "c.json")
    with pytest.raises(ValueError, match="c.json"):
        G.CASES  # noqa: B018  (read when asked for, not when imported)
    res = run_sinpe("golden", "--check", cwd=tmp_path)
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1 and "c.json" in res.stderr, res.stderr


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
