"""sinpe detect (SPEC.md REQ-DETECT-FIT, REQ-DETECT-PRECISION, REQ-DETECT-CLI): names every catalogue deviation, finds nothing in correct tables.

The catalogue (:mod:`sinpe.reference.bugs`) states, per bug, the deviation detect must name; the
correct tables come from the bundled implementations at every preset, even and odd d, both dtypes.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from helpers import run_sinpe

from sinpe.reference.bugs import CATALOGUE
from sinpe.reference.checking.detect import column_frequencies, detect_table
from sinpe.reference.implementations.numpy_impl import pe_table
from sinpe.spec.profiles import PRESETS, get_profile

VAS = get_profile("vaswani")
POS = np.concatenate([np.arange(200), [1000, 5000, 65520, 10**6]])


@pytest.mark.parametrize("bug", CATALOGUE, ids=[b.id for b in CATALOGUE])
def test_detect_names_the_deviation(bug):  # REQ-DETECT-FIT
    d = bug.witness_d
    pos = np.unique(np.concatenate([np.arange(256), np.array(bug.witness_positions)])).astype(np.int64)
    t = bug(pos, d)
    r = detect_table(t, positions=pos if t.shape[0] == len(pos) else None, d=d)
    for k, v in bug.expected(d).items():
        got = r.deviations.get(k)
        if isinstance(v, float):
            assert got is not None and abs(float(got) - v) <= 1e-6 * abs(v), (k, got, v)
        else:
            assert got == v or str(got) == str(v), (k, got, v, r.deviations)


@pytest.mark.parametrize("name", list(PRESETS))
def test_correct_tables_have_no_deviation(name):  # REQ-DETECT-FIT (no false findings)
    prof = get_profile(name)
    for d in (8, 64, 65):
        for dtype in ("float64", "float32"):
            r = detect_table(pe_table(prof, d, POS, dtype), positions=POS, against=prof, d=d)
            assert r.deviations == {} and r.profile == name, (d, dtype, r.deviations, r.profile)
            assert r.precision == dtype and r.residual < 1e-5


def test_a_profile_outside_the_presets_is_fitted():
    prof = get_profile("vaswani", layout="cos-sin", base=500, amplitude="0.5", offset=3)
    r = detect_table(pe_table(prof, 32, np.arange(300), "float64"))
    assert (r.layout, r.base, r.amplitude, r.offset, r.profile) == ("cos-sin", "500", "1/2", "3", None)
    assert r.deviations == {"layout": "cos-sin", "base": 500, "amplitude": "1/2", "offset": 3}
    assert "first row is position 3" in r.sentence and "amplitude 1/2" in r.sentence
    assert r.runner_up is not None and r.margin > 1


def test_wrong_hypotheses_do_not_fit():
    """Negative test: the winner's residual is tiny, the fit of a wrong plan is not (the margin means something)."""
    r = detect_table(pe_table(get_profile("vaswani-concat"), 64, np.arange(128), "float64"))
    assert r.residual < 1e-12 and r.layout == "sin-cos"
    assert float(r.runner_up["residual"]) < 1e-9 or r.margin > 10


def test_frequency_estimator():
    p = np.arange(64.0)[:, None]
    om, q = column_frequencies(np.hstack([np.cos(0.7 * p + 0.2), 3 * np.sin(0.01 * p)]))
    assert np.allclose(om, [0.7, 0.01], rtol=1e-9) and q.max() < 1e-9
    om, q = column_frequencies(np.random.default_rng(0).normal(size=(64, 1)))   # noise: poor quality
    assert q[0] > 0.1


def test_json_contract_and_cli(tmp_path):
    np.save(tmp_path / "t.npy", pe_table(get_profile("t2t"), 64, np.arange(2, 300), "float32"))
    res = run_sinpe("detect", tmp_path / "t.npy", "--json")
    assert res.returncode == 1, res.stderr
    out = json.loads(res.stdout)
    for k in ("layout", "shift", "base", "phase_scale", "amplitude", "offset", "zeroed_rows", "odd",
              "precision", "profile", "residual", "runner_up", "margin", "sentence"):
        assert k in out
    assert "odd_rule" not in out  # REQ-CLI-JSON, REQ-DETECT-CLI: one name per concept (odd, as --odd and profile_params)
    assert out["layout"] == "sin-cos" and out["shift"] == 1 and out["offset"] == 2 and out["offset_exact"] == "2"
    assert out["base"] == 10000 and out["base_exact"] == "10000" and isinstance(out["runner_up"]["base"], (int, float))
    assert out["deviations"] == {"layout": "sin-cos", "shift": 1, "offset": 2}
    res = run_sinpe("detect", tmp_path / "t.npy", "--profile", "t2t", "--offset", "2")
    assert res.returncode == 0 and "tensor2tensor schedule" in res.stdout, res.stdout + res.stderr


@pytest.mark.parametrize("name", list(PRESETS))
def test_small_widths_have_no_deviation(name):
    """d = 1, 2, 3: plans that coincide (sin-cos = interleaved at d = 2, an all-zero d = 1 zero-pad
    table) are named as the profile checked, not as a deviation."""
    prof = get_profile(name)
    for d in (1, 2, 3):
        r = detect_table(pe_table(prof, d, np.arange(64), "float32"), against=prof, d=d)
        assert r.deviations == {} and r.profile == name, (d, r.deviations, r.profile)


def test_all_zero_table_is_an_error_unless_the_profile_explains_it():
    with pytest.raises(ValueError, match="every entry of the table is zero"):
        detect_table(np.zeros((50, 4)))


def test_a_table_that_fits_no_plan_names_no_profile(tmp_path):  # REQ-DETECT-FIT, REQ-DETECT-CLI
    """Review regression: shuffled rows or noise were named 'preset vaswani' (exit 0) with residual ~1-2."""
    good = pe_table(VAS, 64, np.arange(300), "float32")
    r = detect_table(good, d=64)
    assert r.profile == "vaswani" and r.deviations == {}   # the negative twin: the true table still fits
    rng = np.random.default_rng(7)
    for t in (good[rng.permutation(300)], rng.uniform(-1, 1, good.shape)):
        r = detect_table(t, d=64)
        assert r.profile is None and r.deviations["no_fit"] > 0.05 and r.sentence.startswith("No member"), r.sentence
    # one row that fits nothing (row 0 repeated: rows 1.. are offset -1): read as its plan, never as a member
    r = detect_table(np.vstack([good[:1], good[:-1]]), d=64)
    assert r.profile is None and r.deviations == {"offset": -1, "corrupted_rows": ["0"]}, r.sentence
    np.save(tmp_path / "shuffled.npy", good[rng.permutation(300)])
    res = run_sinpe("detect", tmp_path / "shuffled.npy")
    assert res.returncode == 1 and "No member of the family fits" in res.stdout, res.stdout + res.stderr


def test_non_finite_entries_anywhere_are_a_deviation():  # REQ-DETECT-CLI
    """Review regression: one NaN in a row the fit did not sample left detect at 'preset vaswani', exit 0."""
    t = pe_table(VAS, 64, np.arange(4096), "float32")
    assert detect_table(t).deviations == {}                  # the twin without the NaN
    t[2222, 5] = np.nan
    r = detect_table(t)
    assert r.deviations == {"non_finite": 1} and r.profile is None and "nearest preset vaswani" in r.sentence


@pytest.mark.parametrize("name,other", [("vaswani-concat", "t2t"), ("t2t", "vaswani-concat")])
def test_canonical_reading_and_its_equivalents(name, other):  # REQ-DETECT-CANONICAL
    """REQ-DETECT-CANONICAL: the canonical reading and its equivalents."""
    """d = 6: base 464.159 with shift 1 is the same frequencies as base 10^4 with D = d/2; the preset reading
    is named and the other listed as equivalent (with its exact-frequency base); the neighbouring preset,
    whose frequencies differ, is not named."""
    from sinpe.reference.tables import table
    det = detect_table(table(name, 6, 64, "float32"))
    assert det.profile == name and det.base == "10000"
    (eq,) = det.equivalent
    D, D2 = (3, 2) if name == "vaswani-concat" else (2, 3)
    assert eq["shift"] == ("1" if D2 == 2 else "half") and abs(eq["base"] - 10000 ** (D2 / D)) < 1e-9 * eq["base"]
    assert det.profile != other and detect_table(table(other, 6, 64, "float32")).profile == other
    out = det.to_json()
    assert out["equivalent"][0]["base"] == eq["base"]


@pytest.mark.parametrize("name", ["t2t", "vaswani", "vaswani-concat", "t2t-cos", "vaswani-concat-cos"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_presets_are_named(dtype, name):  # REQ-DETECT-FIT, REQ-DETECT-KINDS
    """A correctly rounded half-precision table of each preset is named as that preset (float16 t2t tables
    were read as vaswani-concat: the rounding floor was 64 u_16 (1 + p), 8 at p = 255, so every plan fit).
    One test per (preset, dtype): xdist spreads them over the workers."""
    import sinpe
    t = sinpe.table(name, d=64, positions=range(256), dtype=dtype)
    det = sinpe.detect(t)
    assert det.profile == name, (name, dtype, det.profile_flags)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_offset_tables_round_trip(dtype):  # REQ-DETECT-FIT
    """fairseq's table (FSMT, XGLM, M2M100, Speech2Text): t2t at positions 2..1025 computed in float32 and
    rounded once to half precision. Named t2t --offset 2 and conforming to what detect says (the survey's
    float16 tables were read as base 13454.79 and failed that check; the bfloat16 ones fitted nothing:
    the half-precision column frequencies missed the 2e-6 base snap and the offset was read at them)."""
    import torch

    import sinpe
    half = 32
    w = torch.exp(torch.arange(half, dtype=torch.float32) * -(math.log(10000) / (half - 1)))
    ang = torch.arange(2, 1026, dtype=torch.float32)[:, None] * w[None, :]
    t = torch.cat([torch.sin(ang), torch.cos(ang)], dim=1).to(getattr(torch, dtype)).to(torch.float32).numpy()
    det = sinpe.detect(t)
    assert det.profile_flags == "--profile t2t --offset 2", det.sentence
    assert sinpe.check(t, "t2t", offset=2, dtype=dtype).verdict == "conforms"
    assert sinpe.check(t, "vaswani-concat", base="13454.792471307812", offset=2, dtype=dtype).verdict == "fails"


def test_half_precision_grids_and_caches_are_read_as_such():  # REQ-DETECT-KINDS, REQ-DETECT-GRID, REQ-DETECT-ROPE
    """float16 / bfloat16 grids and rotary caches are named by their grid or rotary reading: a 1-D fit that
    does not conform no longer wins (a float16 MAE grid fit t2t-cos, a float16 cos cache fit t2t), and
    bfloat16 values stored as float32 are judged as bfloat16 (the rotary pre-filter allows their phase noise)."""
    import sys

    import sinpe
    sys.path.insert(0, str(Path(__file__).parent))
    import library_formulas as L

    from sinpe.reference.bugs import to_bfloat16
    g = L.mae_2d(64, 16, cls=False)
    c, s = L.rope_cache(L.inv_freq_default(64), 256)
    for t, kind, prof in ((g.astype(np.float16), "grid", "mae"), (to_bfloat16(g), "grid", "mae"),
                          (c.astype(np.float16), "rotary", "llama"), (to_bfloat16(c), "rotary", "llama"),
                          (to_bfloat16(s), "rotary", "llama")):
        r = sinpe.detect(t)
        assert (r.kind, r.profile) == (kind, prof), (t.dtype, kind, r.kind, r.profile_flags)
    noisy = g.astype(np.float16).astype(np.float32)
    noisy[::7, 3] += np.float32(0.05)  # not a grid any more: no grid reading may name it
    assert sinpe.detect(noisy).kind != "grid"


def test_diffusers_grid_scale_is_read_from_the_data():  # REQ-DETECT-GRID
    """diffusers' base_size / interpolation_scale (here 8 and 2, none of the listed guesses) is read off the
    table: the grid is named with the equivalent base_size 4, and --profile auto conforms; a perturbed copy
    is not named a grid."""
    import sinpe
    from sinpe.reference.oracles.angles import grid_plan, rounded_table
    from sinpe.spec.grid import get_grid
    t = rounded_table(grid_plan(get_grid("diffusers", 64, (16, 16), base_size=8, interpolation_scale=2)), "binary32")
    r = sinpe.detect(t.astype(np.float32))
    assert (r.kind, r.profile) == ("grid", "diffusers") and "--base-size 4 --interpolation-scale 1" in r.profile_flags
    assert sinpe.check(t.astype(np.float32), "auto").verdict == "conforms"
    import json
    json.dumps(r.to_json(), allow_nan=False)  # the JSON of sinpe detect --json (a Fraction here crashed it)
    bad = t.astype(np.float32)
    bad[40:, 10] += np.float32(0.01)
    assert sinpe.detect(bad).kind != "grid"


def _snap_by_fractions(x: float, rel: float, max_den: int = 64) -> float:
    """REQ-DETECT-FIT's snap as first written, Fraction.limit_denominator alone: the reference for the fast paths."""
    from fractions import Fraction
    if not math.isfinite(x) or x == 0:
        return x
    f = Fraction(x).limit_denominator(max_den)
    if abs(float(f) - x) <= rel * abs(x):
        return float(f)
    r = float(round(x))
    return r if r and abs(r - x) <= rel * abs(x) else x


def test_the_snap_fast_paths_give_what_fractions_give():  # REQ-DETECT-FIT
    from fractions import Fraction

    from sinpe.reference.checking.detect.snap import _is_simple, _snap
    rng = np.random.default_rng(7)
    near = [k / q + s * 10.0 ** -rng.integers(2, 16) for k, q, s in zip(
        rng.integers(-300, 300, 4000), rng.integers(1, 80, 4000), rng.choice([-1, 1], 4000), strict=True)]
    xs = near + list(rng.normal(size=1000) * 10.0 ** rng.integers(-8, 8, 1000)) + [0.5, 1e308, 5e-324, 10000.02]
    xs += [k / 2.0 ** j for k in range(-9, 10, 2) for j in range(12)]  # dyadic: simple up to 1/64, not beyond
    # large integers plus 1/64 (simple at 64, not at 1) and the ties n + 1/128 (the integer's rule at its edge)
    xs += [n + s / q for n in (100, 1000, 10000, -10000) for s in (-1, 1) for q in (64, 128)]
    for x in xs:
        for rel, den in ((1e-4, 64), (2e-6, 1), (1e-2, 64), (1e-4, 8), (1e-4, 10), (0.6, 3), (0.6, 1)):
            assert _snap(x, rel, den) == _snap_by_fractions(x, rel, den), (x, rel, den)
        for den in (64, 1, 10):
            assert _is_simple(x, den) == (Fraction(x).limit_denominator(den) == Fraction(x)), (x, den)


@pytest.mark.parametrize("label", ["interleaved/None/trailing-sin/d=33", "sin-cos/1/zero-pad/d=33",
                                   "cos-sin/None/trailing-sin/d=32", "interleaved cos-first"])
def test_each_precision_evaluates_the_plan_column_by_column(label):  # REQ-DETECT-PRECISION
    """evaluate_precision's columns, placed by strided copies, hold what each column's own function gives on its
    own contiguous products in the precision named (positions, frequencies, amplitude rounded as it says), bit for
    bit; its columns with the amplitude left out, or sin and cos exchanged, do not."""
    from sinpe.reference.checking.detect.plans import candidates
    from sinpe.reference.checking.detect.precision import PRECISIONS, evaluate_precision
    c = next(c for c in candidates(33) if c.label == label)
    p = np.array([0.0, 1.0, 2.0, 7.0, 1000.0, 65504.0, 123457.0])
    params = {"sigma": 1.0, "base": 10000.0, "offset": 0.5, "amplitude": 0.75}
    with np.errstate(invalid="ignore", over="ignore"):  # (123457 is inf in float16)
        for how in PRECISIONS:
            got = evaluate_precision(c, p, params, how, np.float32)
            assert _column_by_column(c, p, params, how) == got.view(np.uint32).tolist(), how
            assert _column_by_column(c, p, dict(params, amplitude=1.0), how) != got.view(np.uint32).tolist(), how
            assert _column_by_column(c, p, params, how, swap=True) != got.view(np.uint32).tolist(), how


def _column_by_column(c, p, params, how, swap=False):
    """The float32 bits of the plan at ``p``, one column at a time (see the test above)."""
    from sinpe.reference.checking.detect.precision import _narrow
    wide = how in ("float64", "frequencies-float32")
    wt = np.float64 if wide else np.float32
    w64 = params["sigma"] * params["base"] ** (-c.e)
    w = w64 if how == "float64" else w64.astype(np.float32).astype(wt)
    if how in ("frequencies-float16", "frequencies-bfloat16"):
        w = _narrow(w64.astype(np.float32), how.split("-")[1])
    pp = (p + params["offset"]).astype(wt)
    if how.startswith("positions-"):
        pp = _narrow(pp.astype(np.float32), how.split("-")[1])
    fns = {0: np.cos, 1: np.sin} if swap else {0: np.sin, 1: np.cos}
    out = np.zeros((len(p), len(c.kinds)), np.float32)
    for j, kind in enumerate(c.kinds):
        if int(kind) in fns:
            out[:, j] = (fns[int(kind)](pp * w[j]) * wt(params["amplitude"])).astype(np.float32)
    return out.view(np.uint32).tolist()
