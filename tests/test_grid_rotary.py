"""Grids and rotary caches: real library formulas checked and detected, wrong variants rejected.

IDs: DEF-GRID, DEF-GRID-AXIS, DEF-GRID-ORDER, DEF-GRID-CLS, DEF-GRID-PRESET, DEF-GRID-SOURCES, DEF-ROPE,
DEF-ROPE-LAYOUT, DEF-ROPE-FREQ, DEF-ROPE-FREQ-DEFAULT, DEF-ROPE-FREQ-LLAMA3, DEF-ROPE-FREQ-YARN,
DEF-ROPE-FREQ-EXPLICIT, DEF-ROPE-SCALE, DEF-ROPE-PRESET, DEF-ROPE-SOURCES, REQ-REF-GRID, REQ-REF-ROPE,
REQ-CHECK-GRID, REQ-CHECK-ROPE, REQ-DETECT-GRID, REQ-DETECT-ROPE (THM-ROPE-REL and THM-ROPE-ATTN:
tests/test_proofs.py runs every registered theorem and its mutations).

The library tables are re-derived from their formulas in ``tests/library_formulas.py`` (sources and
commits in ``spec/grid_rotary_sources.py``), in the dtype the library computes in, and checked as
float32 at the phase tier (TOL-PHASE). Every positive check has a negative twin on a wrong variant.
Reproduce: python -m pytest tests/test_grid_rotary.py -k NAME
"""
from __future__ import annotations

from fractions import Fraction

import library_formulas as L
import mpmath
import numpy as np
import pytest
from helpers import check_grid, check_rotary, detect_grid, detect_rotary, rotary_layout

from sinpe.reference.oracles.angles import enclose, grid_plan, reference_f64, rotary_plan, rounded_table
from sinpe.spec.grid import Grid, GridAxis, get_grid, grid_columns
from sinpe.spec.profiles import get_profile
from sinpe.spec.rotary import RotaryProfile, explicit_from, frequencies, get_rotary, yarn_range

# --- DEF-GRID: library tables conform, wrong variants fail ------------------------------------

GRID_CASES = {
    "mae": (lambda: L.mae_2d(64, 7, cls=True), lambda: get_grid("mae", 64, 7, cls=1)),
    "diffusers": (lambda: L.diffusers_2d(64, 6, 16, 1, extra_tokens=1), lambda: get_grid("diffusers", 64, 6, cls=1)),
    "diffusers-interp": (lambda: L.diffusers_2d(32, 5, 32, 2), lambda: get_grid("diffusers", 32, 5, base_size=32,
                                                                                   interpolation_scale=2)),
    "timm": (lambda: L.timm_2d(64, (5, 7)), lambda: get_grid("timm", 64, (5, 7))),
    "timm-reverse": (lambda: L.timm_2d(64, (5, 7), reverse_coord=True), lambda: get_grid("timm", 64, (5, 7), reverse_coord=True)),
    "timm-interleaved": (lambda: L.timm_2d(64, (5, 7), interleave=True), lambda: get_grid("timm-interleaved", 64, (5, 7))),
    "detr": (lambda: L.detr_sine(64, 5, 7), lambda: get_grid("detr", 64, (5, 7))),
    "detr-normalized": (lambda: L.detr_sine(64, 5, 7, normalize=True), lambda: get_grid("detr-normalized", 64, (5, 7))),
}


@pytest.mark.parametrize("name", list(GRID_CASES))
def test_library_grid_conforms(name: str):
    table, grid = GRID_CASES[name]
    r = check_grid(table(), grid(), dtype="float32")
    assert r.verdict == "conforms", r.failures[:2]


WRONG = {
    # wrong axis order: [y | x] instead of MAE's [x | y]
    "mae-axis-order": (lambda: L.mae_2d(64, 7), lambda: Grid("mae-yx", (7, 7), tuple(
        GridAxis(s, get_profile("vaswani-concat"), 32) for s in (0, 1)))),
    "timm-reverse": (lambda: L.timm_2d(64, (5, 7)), lambda: get_grid("timm", 64, (5, 7), reverse_coord=True)),
    "timm-interleave": (lambda: L.timm_2d(64, (6, 6)), lambda: get_grid("timm-interleaved", 64, 6)),
    "detr-normalize": (lambda: L.detr_sine(64, 5, 7), lambda: get_grid("detr-normalized", 64, (5, 7))),
    "diffusers-base-size": (lambda: L.diffusers_2d(64, 6, 16), lambda: get_grid("diffusers", 64, 6, base_size=32)),
    "mae-missing-cls": (lambda: L.mae_2d(64, 7, cls=True), lambda: get_grid("mae", 64, 7)),
}


@pytest.mark.parametrize("name", list(WRONG))
def test_wrong_grid_variant_fails(name: str):
    table, grid = WRONG[name]
    r = check_grid(table(), grid(), dtype="float32")
    assert r.verdict == "fails" and r.n_failures > 0


def test_grid_columns_follow_def_grid_order():
    g = get_grid("detr", 8, 2)
    assert [c.label for c in grid_columns(g)] == ["y:sin0", "y:cos0", "y:sin1", "y:cos1",
                                                  "x:sin0", "x:cos0", "x:sin1", "x:cos1"]
    with pytest.raises(ValueError, match="functions"):
        Grid(None, (2, 2), (GridAxis(0, get_profile("vaswani"), 4),), "functions")
    with pytest.raises(ValueError, match="divisible by 4"):
        get_grid("timm", 30, 4)


def test_grid_axis_is_its_1d_profile():
    """THM per axis (DEF-GRID-AXIS): a grid's axis block equals the 1-D table of its profile at that axis's index."""
    from sinpe.reference.oracles.fast import table_f64
    g = get_grid("mae", 16, (3, 4))
    v, _ = reference_f64(grid_plan(g))
    x_block = v[:, :8].reshape(3, 4, 8)
    one_d, _ = table_f64(get_profile("vaswani-concat"), 8, np.arange(4))
    for i in range(3):
        assert np.array_equal(x_block[i], one_d)


def test_detr_normalized_phase_is_exact_2pi():
    """DETR normalised: theta = 2 pi (i + 1) / (n + 1e-6) w_k, certified (no float 2 pi inside the spec)."""
    g = get_grid("detr-normalized", 4, (1, 3))
    lo, hi = enclose(grid_plan(g), 2, 2, prec=200)  # row (0, 2), column x:sin0 = sin(2 pi * 3 / 3.000001)
    with mpmath.workdps(60):
        exact = mpmath.sin(2 * mpmath.pi * 3 / mpmath.mpf("3.000001"))
        assert lo <= exact <= hi and hi - lo < mpmath.mpf(2) ** -150


# --- DEF-ROPE: rotary caches -------------------------------------------------------------------

def test_llama_halves_cache_conforms_and_gptj_pairs():
    c, s = L.rope_cache(L.inv_freq_default(64), 512)
    assert check_rotary(get_rotary("llama"), 64, cos=c, sin=s).verdict == "conforms"
    c2, s2 = L.rope_cache(L.inv_freq_default(64), 512, layout="pairs")
    assert check_rotary(get_rotary("gptj"), 64, cos=c2, sin=s2).verdict == "conforms"
    # wrong layout both ways
    assert check_rotary(get_rotary("gptj"), 64, cos=c).verdict == "fails"
    assert check_rotary(get_rotary("llama"), 64, sin=s2).verdict == "fails"


def test_sin_only_and_positions():
    c, s = L.rope_cache(L.inv_freq_default(32), 300)
    rows = [0, 1, 7, 299]
    assert check_rotary(get_rotary("llama"), 32, sin=s[rows], positions=rows).verdict == "conforms"
    assert check_rotary(get_rotary("llama"), 32, sin=s[rows], positions=[0, 1, 7, 298]).verdict == "fails"


def test_half_precision_inverse_frequencies_fail_as_float32():
    """EleutherAI/gpt-neox#1003: inv_freq (and t) in float16 after model.half(); the cache is not float32 quality."""
    inv16 = L.inv_freq_default(64, dtype=np.float16)
    c_bug, s_bug = L.rope_cache(inv16, 2048, dtype=np.float32)
    r = check_rotary(get_rotary("llama"), 64, cos=c_bug, sin=s_bug, dtype="float32")
    assert r.verdict == "fails" and r.n_failures > 1000
    c_ok, _ = L.rope_cache(L.inv_freq_default(64), 2048)
    assert check_rotary(get_rotary("llama"), 64, cos=c_ok, dtype="float32").verdict == "conforms"


@pytest.mark.parametrize("factor", [2, 4])
def test_linear_scaling(factor: int):
    c, s = L.rope_cache(L.inv_freq_linear(64, factor), 1024)
    assert check_rotary(get_rotary("llama", rule="linear", factor=factor), 64, cos=c, sin=s).verdict == "conforms"
    assert check_rotary(get_rotary("llama"), 64, cos=c).verdict == "fails"  # scaling missing
    assert check_rotary(get_rotary("llama", rule="linear", factor=factor * 2), 64, cos=c).verdict == "fails"


def test_dynamic_ntk():
    c, s = L.rope_cache(L.inv_freq_dynamic(64, 2.0, 1024, 3000), 3000)
    rp = get_rotary("llama", rule="dynamic", factor=2, original_max=1024, seq_len=3000)
    assert check_rotary(rp, 64, cos=c, sin=s).verdict == "conforms"
    assert check_rotary(rp.replace(seq_len=2048), 64, cos=c).verdict == "fails"
    # at or below L the rule is the default
    w_dyn = frequencies(rp.replace(seq_len=1000), 64, mpmath.iv)
    w_def = frequencies(get_rotary("llama"), 64, mpmath.iv)
    assert all(a.a == b.a and a.b == b.b for a, b in zip(w_dyn, w_def, strict=True))


def test_llama3_scaling():
    inv = L.inv_freq_llama3(128, 500000.0, 8.0, 1.0, 4.0, 8192)
    c, s = L.rope_cache(inv, 1024)
    assert check_rotary(get_rotary("llama3.1"), 128, cos=c, sin=s).verdict == "conforms"
    assert check_rotary(get_rotary("llama", base=500000), 128, cos=c).verdict == "fails"
    assert check_rotary(get_rotary("llama3.1", factor=4), 128, cos=c).verdict == "fails"


def test_yarn_scaling_and_attention_factor():
    inv, att = L.inv_freq_yarn(64, 10000.0, 4.0, 2048)
    c, s = L.rope_cache(inv, 1024, scaling=att)
    rp = get_rotary("llama", rule="yarn", factor=4, original_max=2048)
    # correction dims 64 ln(2048/(2 pi r)) / (2 ln 1e4): 8.07 for r = 32, 20.1 for r = 1 (floor, ceil decided exactly)
    assert yarn_range(rp, 64, mpmath.iv) == (8, 21)
    assert check_rotary(rp, 64, cos=c, sin=s).verdict == "conforms"
    assert check_rotary(rp.replace(attention_factor=1), 64, cos=c).verdict == "fails"  # scaling factor left out
    assert check_rotary(rp.replace(factor=8), 64, cos=c).verdict == "fails"


def test_explicit_frequencies_are_exact_decimals():
    inv = L.inv_freq_default(16)
    rp = explicit_from(inv.tolist())  # the float32 values, exactly
    assert rp.explicit[1] == Fraction(float(inv[1]))
    t = rounded_table(rotary_plan(rp, 16, [0, 1, 5], "cos"), "binary32")
    c, _ = L.rope_cache(inv.astype(np.float64), 6, dtype=np.float64)
    assert np.allclose(t, c[[0, 1, 5]], atol=1e-7)
    with pytest.raises(ValueError, match="explicit frequencies need dim"):
        rotary_plan(rp, 8, [0], "cos")


def test_exact_tier_accepts_correct_rounding_only():
    rp = get_rotary("llama")
    plan = rotary_plan(rp, 8, list(range(20)), "cos")
    cr = rounded_table(plan, "binary32").astype(np.float32)
    assert check_rotary(rp, 8, cos=cr, tier="exact").verdict == "conforms"
    off = cr.copy()
    off[5, 1] = np.nextafter(off[5, 1], np.float32(2))
    r = check_rotary(rp, 8, cos=off, tier="exact")
    assert r.verdict == "fails" and r.failures[0].row == 5


def test_rotary_profile_validation():
    with pytest.raises(ValueError, match="even integer"):
        rotary_plan(get_rotary("llama"), 7, [0], "cos")
    with pytest.raises(ValueError, match="layout"):
        RotaryProfile(layout="zigzag")
    with pytest.raises(ValueError, match="'cos' or 'sin'"):
        rotary_plan(get_rotary("llama"), 8, [0], "tan")
    with pytest.raises(ValueError, match="needs cos="):
        check_rotary(get_rotary("llama"), 8)
    r = check_rotary(get_rotary("llama"), 8, cos=np.zeros((3, 6), np.float32))
    assert r.verdict == "fails" and "shape" in r.reason


# --- detect ------------------------------------------------------------------------------------

def test_detect_rotary_names_layout_base_and_scaling():
    c, s = L.rope_cache(L.inv_freq_default(64), 256)
    d = detect_rotary(cos=c, sin=s)
    assert (d["found"], d["layout"], d["dim"], d["profile"], d["params"]["base"]) == (True, "halves", 64, "llama", "10000")
    c2, _ = L.rope_cache(L.inv_freq_default(64, base=500000.0), 256, layout="pairs")
    d2 = detect_rotary(cos=c2)
    assert (d2["layout"], d2["params"]["base"], d2["params"]["rule"]) == ("pairs", "500000", "default")
    c3, s3 = L.rope_cache(L.inv_freq_linear(32, 4), 256)
    d3 = detect_rotary(cos=c3, sin=s3)
    assert (d3["params"]["rule"], d3["params"]["factor"]) == ("linear", "4")
    c4, s4 = L.rope_cache(L.inv_freq_llama3(128, 500000.0, 8.0, 1.0, 4.0, 8192), 64)
    assert detect_rotary(cos=c4, sin=s4)["profile"] == "llama3.1"


def test_detect_rotary_needs_three_rows():  # REQ-DETECT-ROPE, as REQ-DETECT-FIT's three rows
    """One row at position 0 (cos 1, sin 0) fits every candidate; two or fewer rows name nothing (one row took
    336 candidate checks, 12 s, before this rule) and three rows of a correct cache are named."""
    c, s = L.rope_cache(L.inv_freq_default(16), 3)
    for rows in (1, 2):
        r = detect_rotary(cos=c[:rows], sin=s[:rows])
        assert r["found"] is False and "at least 3 rows" in r["reason"]
    assert detect_rotary(cos=c, sin=s)["profile"] == "llama"


def test_detect_rotary_refuses_noise():
    rng = np.random.default_rng(0)
    assert detect_rotary(cos=rng.uniform(-1, 1, (32, 16)).astype(np.float32))["found"] is False
    assert rotary_layout(np.ones((2, 4))) == ["halves", "pairs"]


@pytest.mark.parametrize("name,expect", [("mae", ("mae", 1)), ("timm", ("timm", 0)), ("detr", ("detr", 0)),
                                         ("detr-normalized", ("detr-normalized", 0))])
def test_detect_grid(name: str, expect: tuple[str, int]):
    table = {"mae": lambda: L.mae_2d(32, 6, cls=True), "timm": lambda: L.timm_2d(32, (6, 6)),
             "detr": lambda: L.detr_sine(32, 6, 6), "detr-normalized": lambda: L.detr_sine(32, 6, 6, True)}[name]()
    d = detect_grid(table)
    assert d["found"] and (d["profile"], d["cls"]) == expect


def test_detect_grid_reports_equivalent_parametrisations_and_refuses_1d():
    d = detect_grid(L.diffusers_2d(32, 6, 6))  # base_size = n: the same numbers as MAE
    assert d["profile"] == "mae" and any(e["profile"] == "diffusers" for e in d["equivalent"])
    from sinpe.reference.oracles.fast import table_f64
    one_d, _ = table_f64(get_profile("vaswani"), 32, np.arange(36))
    assert detect_grid(one_d.astype(np.float32))["found"] is False


def test_every_source_names_an_existing_preset():
    """DEF-GRID-SOURCES, DEF-ROPE-SOURCES: each record's preset exists and has a transcription tested above."""
    from sinpe.spec.grid import GRID_PRESETS
    from sinpe.spec.grid_rotary_sources import GRID_SOURCES, ROTARY_SOURCES
    from sinpe.spec.rotary import ROTARY_PRESETS
    assert {s.preset for s in GRID_SOURCES} <= set(GRID_PRESETS)
    assert {s.preset for s in ROTARY_SOURCES} <= set(ROTARY_PRESETS)
    assert all(s.commit is None or len(s.commit) == 40 for s in GRID_SOURCES + ROTARY_SOURCES)


def test_oracle_decides_what_the_float64_reference_cannot():
    """A float64 table at the exact tier: every entry is within the reference's own error, so the interval
    oracle decides each one; a 1-ulp change is caught by it."""
    rp = get_rotary("llama")
    plan = rotary_plan(rp, 8, list(range(12)), "sin")
    cr = rounded_table(plan, "binary64")
    r = check_rotary(rp, 8, sin=cr, tier="exact")
    assert r.verdict == "conforms" and r.oracle_decided > 0
    off = cr.copy()
    off[7, 3] = np.nextafter(off[7, 3], 2.0)
    r = check_rotary(rp, 8, sin=off, tier="exact")
    assert r.verdict == "fails" and r.n_failures == 1 and (r.failures[0].row, r.failures[0].column) == (7, 3)


def test_a_cache_of_zeros_is_named_by_no_reading_and_the_reason_is_true():  # REQ-DETECT-ROPE
    """Red-team regression. detect refuses caches of zeros (since a0695e4): at a0695e4 a bfloat16 cos cache of zeros
    at positions 10^6.. was named linear s = 16 under --working native (its check: 93.8 % of the entries unjudged,
    the rest within a bound that lets 0 pass); now no reading names it. The reason said no rotary cache is all zero,
    which a pixel-band sin cache contradicts: timm-pixel, dim 8 (bands pi and 112 pi) on a 3 x 3 grid (coordinates
    -1, 0, 1) is sin(k pi) = 0 in every entry, and its check conforms; the reason names that exception."""
    zeros = np.zeros((9, 8), dtype=np.float16)
    assert check_rotary(get_rotary("timm-pixel"), 8, sin=zeros, shape=(3, 3)).verdict == "conforms"
    off = zeros.copy()
    off[4, 2] = 0.01  # the centre cell (0, 0): sin 0 = 0 exactly
    assert check_rotary(get_rotary("timm-pixel"), 8, sin=off, shape=(3, 3)).verdict == "fails"
    r = detect_rotary(sin=zeros)
    assert not r["found"] and "every entry is zero" in r["reason"] and "timm-pixel" in r["reason"], r
    big = np.arange(10 ** 6, 10 ** 6 + 64)
    r = detect_rotary(cos=np.zeros((64, 128), dtype=np.float32), positions=list(big), dtype="bfloat16")
    assert not r["found"] and "every entry is zero" in r["reason"], r
