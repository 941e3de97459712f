"""Real variants that had no preset (issue 16.1) and detect that reads the data (issue 16.5).

IDs: DEF-GRID-PRESET, DEF-GRID-SOURCES, DEF-ROPE-FREQ-LONGROPE, DEF-ROPE-SCALE, DEF-ROPE-FREQ-EXPLICIT,
DEF-ROPE-SOURCES, REQ-DETECT-READ, REQ-DETECT-ROPE, REQ-DETECT-GRID.

Each library table is computed independently in ``tests/library_formulas.py`` (NumPy, the library's own dtype),
checked against its preset (conforms), with one entry perturbed (fails) and against the wrong preset (fails).
Detect's data reading recovers the frequencies of caches with schedules no preset has (random, base 777) and
prints an explicit plan that ``sinpe check`` accepts (exit 0) and that rejects a perturbed copy (exit 1).
Reproduce: python -m pytest tests/test_variant_presets.py -q
"""
from __future__ import annotations

import math
import shlex
from fractions import Fraction

import library_formulas as L
import numpy as np
import pytest
from helpers import check_grid, detect_grid, perturb
from test_loaders import assert_one_line_exit_2, run_clean

import sinpe
from sinpe.reference.checking.detect.channels import read_channels
from sinpe.spec.grid import get_grid
from sinpe.spec.grid_rotary_sources import get_grid_source

F32 = np.float32




# --- grids: pe2d (positional-encodings) and vit (vit-pytorch) -----------------------------------------

PE2D = [(64, 5, 7), (6, 4, 4), (5, 3, 6), (12, 6, 5)]


@pytest.mark.parametrize("c,x,y", PE2D)
def test_pe2d_conforms_and_perturbed_fails(c, x, y):
    t = L.pe2d(c, x, y)
    g = get_grid("pe2d", c, (x, y))
    assert check_grid(t, g, dtype="float32").verdict == "conforms"
    assert check_grid(perturb(t, 5, c - 1), g, dtype="float32").verdict == "fails"


def test_pe2d_is_not_detr_nor_mae():
    t = L.pe2d(64, 6, 6)
    for wrong in ("detr", "mae", "vit"):
        assert check_grid(t, get_grid(wrong, 64, 6), dtype="float32").verdict == "fails", wrong


@pytest.mark.parametrize("dim,h,w,T", [(64, 5, 7, 10000), (32, 6, 6, 100), (8, 3, 4, 10000)])
def test_vit_conforms_and_perturbed_fails(dim, h, w, T):
    t = L.vit_posemb_sincos_2d(h, w, dim, T)
    g = get_grid("vit", dim, (h, w), temperature=T)
    assert check_grid(t, g, dtype="float32").verdict == "conforms"
    assert check_grid(perturb(t, 4, 1), g, dtype="float32").verdict == "fails"


def test_vit_is_not_mae_nor_timm():
    t = L.vit_posemb_sincos_2d(6, 6, 64)
    for wrong in ("mae", "timm", "timm-interleaved", "pe2d"):
        assert check_grid(t, get_grid(wrong, 64, 6), dtype="float32").verdict == "fails", wrong
    assert check_grid(t, get_grid("vit", 64, 6, temperature=1000), dtype="float32").verdict == "fails"
    with pytest.raises(ValueError, match="dim/4 - 1"):
        get_grid("vit", 4, 3)


def test_new_grids_are_detected_and_recorded():
    assert detect_grid(L.pe2d(32, 6, 6))["profile"] == "pe2d"
    assert detect_grid(L.vit_posemb_sincos_2d(6, 6, 32))["profile"] == "vit"
    assert get_grid_source("pe2d").preset == "pe2d" and get_grid_source("vit-pytorch").preset == "vit"


def test_new_grids_through_the_cli(tmp_path):
    np.save(tmp_path / "pe.npy", L.pe2d(32, 5, 7))
    np.save(tmp_path / "pe_bad.npy", perturb(L.pe2d(32, 5, 7)))
    np.save(tmp_path / "vit.npy", L.vit_posemb_sincos_2d(6, 6, 32, 100))
    assert run_clean(tmp_path, "check", "pe.npy", "--profile", "pe2d", "--shape", "5x7").returncode == 0
    assert run_clean(tmp_path, "check", "pe_bad.npy", "--profile", "pe2d", "--shape", "5x7").returncode == 1
    assert run_clean(tmp_path, "check", "vit.npy", "--profile", "vit", "--temperature", "100").returncode == 0
    assert run_clean(tmp_path, "check", "vit.npy", "--profile", "vit").returncode == 1
    assert sinpe.check(L.pe2d(32, 5, 7), "pe2d", shape=(5, 7)).verdict == "conforms"


# --- rotary: LongRoPE -------------------------------------------------------------------------------

FACTORS = [1.0, 1.01, 1.03, 1.1, 1.25, 1.5, 2.0, 2.5, 3.25, 4.0, 6.5, 8.0, 12.0, 16.0, 24.0, 32.0]


def _longrope(n: int = 600, factors=FACTORS, s: float = 32.0, L0: int = 4096):
    inv, att = L.inv_freq_longrope(32, factors, factor=s, original_max=L0)
    return L.rope_cache(inv, n, "halves", scaling=att), att


def test_longrope_conforms_with_its_attention_factor():
    (cos, sin), att = _longrope()
    assert abs(att - math.sqrt(1 + math.log(32) / math.log(4096))) < 1e-15
    kw = dict(profile="llama", rule="longrope", factor=32, original_max=4096, ext_factors=FACTORS)
    assert sinpe.check(cos=cos, sin=sin, **kw).verdict == "conforms"
    assert sinpe.check(cos=perturb(cos), sin=sin, **kw).verdict == "fails"
    wrong = list(FACTORS)
    wrong[5] = 1.6
    assert sinpe.check(cos=cos, **dict(kw, ext_factors=wrong)).verdict == "fails"
    assert sinpe.check(cos=cos, **dict(kw, factor=16)).verdict == "fails"        # another attention factor
    assert sinpe.check(cos=cos, profile="llama").verdict == "fails"             # the unscaled schedule


def test_longrope_short_factor_below_one_has_no_attention_factor():
    (cos, sin), att = _longrope(200, s=1.0)
    assert att == 1.0
    assert sinpe.check(cos=cos, profile="llama", ext_factors=FACTORS, factor=1).verdict == "conforms"


def test_longrope_through_the_cli(tmp_path):
    (cos, sin), _ = _longrope(300)
    np.save(tmp_path / "cos.npy", cos)
    np.save(tmp_path / "cos_bad.npy", perturb(cos))
    np.save(tmp_path / "f.npy", np.array(FACTORS))
    flags = ["--profile", "llama", "--rule", "longrope", "--factor", "32", "--original-max", "4096"]
    assert run_clean(tmp_path, "check", "--cos", "cos.npy", *flags, "--ext-factors", "f.npy").returncode == 0
    lst = ",".join(map(str, FACTORS))
    assert run_clean(tmp_path, "check", "--cos", "cos_bad.npy", *flags, "--ext-factors", lst).returncode == 1
    assert_one_line_exit_2(run_clean(tmp_path, "check", "--cos", "cos.npy", *flags, "--ext-factors", "1,2"),
                           "LongRoPE factors")
    assert_one_line_exit_2(run_clean(tmp_path, "check", "--cos", "cos.npy", *flags, "--ext-factors", "1,-2"),
                           "--ext-factors")


# --- PyG TemporalEncoding: cos only, irrational exponents: explicit frequencies --------------------------

def test_pyg_temporal_encoding_checks_with_explicit_frequencies(tmp_path):
    x = np.arange(0, 500, dtype=np.float64)
    t, weight = L.pyg_temporal(16, x)
    np.save(tmp_path / "t.npy", t)
    np.save(tmp_path / "t_bad.npy", perturb(t, 50, 2, 1e-4))
    np.save(tmp_path / "w.npy", weight.astype(np.float64))
    flags = ["--profile", "llama", "--layout", "single", "--freqs", "w.npy"]
    assert run_clean(tmp_path, "check", "--cos", "t.npy", *flags).returncode == 0
    assert run_clean(tmp_path, "check", "--cos", "t_bad.npy", *flags).returncode == 1
    assert get_grid_source("pyg-temporal").options["--freqs"]


# --- detect reads the data ---------------------------------------------------------------------------

def _cache(inv: np.ndarray, n: int = 1024, layout: str = "halves"):
    return L.rope_cache(inv.astype(F32), n, layout)


def test_read_channels_recovers_function_frequency_phase():
    rng = np.random.default_rng(3)
    w = rng.uniform(0.001, 2.5, 12)
    phase = np.array([0, math.pi / 2, math.pi, -math.pi / 2] * 3)
    p = np.arange(300.0)[:, None]
    t = 1.5 * np.sin(w * p + phase)
    r = read_channels(t)
    assert r.kinds == ["sin", "cos", "-sin", "-cos"] * 3
    assert np.max(np.abs(r.omega - w) / w) < 1e-9
    assert np.max(np.abs(r.amplitude - 1.5)) < 1e-9
    assert read_channels(np.sin(0.2 * p + 0.7)).kinds == ["phase"]
    with pytest.raises(ValueError, match="evenly spaced"):
        read_channels(t[:5])
    with pytest.raises(ValueError, match="columns"):
        read_channels(np.zeros((8, (1 << 14) + 1)))


def test_read_channels_near_pi_reads_the_column_not_a_huge_amplitude():  # REQ-DETECT-READ
    """Review regression: a column near w = pi was refined onto the clip at pi, where sin(pi p) vanishes at every
    integer p and any amplitude fits with a residual (relative to that amplitude) near 0: bfloat16 sin(3.14 p) was
    read as -sin with R 7.5e10. It is fitted folded, (-1)^p y at pi - w."""
    import torch
    p = np.arange(2048.0)[:, None]
    for dt in (torch.bfloat16, torch.float16, torch.float32):
        for w, fn in ((3.14, np.sin), (3.1415, np.sin), (3.141, np.sin), (2.5, np.cos), (3.0, np.cos)):
            t = torch.tensor(1.5 * fn(w * p)).to(dt).double().numpy()
            r = read_channels(t)
            assert r.kinds == [fn.__name__], (dt, w, r.kinds)
            assert abs(r.omega[0] - w) < 1e-5 and abs(r.amplitude[0] - 1.5) < 0.02, (dt, w, r.omega, r.amplitude)


def test_read_channels_reads_slow_columns():  # REQ-DETECT-READ
    """Columns that turn less than a radian over the recurrence's 128 rows start from the lagged recurrence,
    unfolded as well as folded, and of its readings the one that fits best: float16 and bfloat16 sin(w p) at w
    1e-4..1e-3 were read as cos at w = 0 (the recurrence of quantised rows reads no turn), and an exact float32
    sin(0.007572 p) as 'phase' at 0.00756 (the lag of 512 rows turns it 3.9 rad, read as 2.4)."""
    import torch
    p = np.arange(2048.0)[:, None]
    for dt, ws in ((torch.float16, (1e-4, 3e-4, 1e-3)), (torch.bfloat16, (1e-4, 6e-4, 1.9e-3)),
                   (torch.float32, (6.22e-3, 7.572e-3))):
        t = torch.tensor(np.sin(np.array(ws) * p)).to(dt).double().numpy()
        r = read_channels(t)
        assert r.kinds == ["sin"] * len(ws), (dt, r.kinds, r.omega)
        assert np.max(np.abs(r.omega - ws) / ws) < 3e-3 and np.max(np.abs(r.amplitude - 1)) < 0.01, (dt, r.omega)


def test_slow_half_precision_columns_are_named_by_a_fixed_phase_fit():  # REQ-DETECT-READ
    """A slow column's free fit trades phase, frequency and amplitude (bfloat16 cos(1e-4 p) was read as phase 1.83 at
    w = 3.4e-5; 76 of 540 slow float16/bfloat16 columns were misread): a column whose free phase names no function
    is refitted with the phase fixed, and named where that fit misses no worse than twice the free one and one
    spacing of the format. A column of a true phase stays ``phase``: the fixed fits miss it by about R sin(0.3)."""
    import ml_dtypes
    p = np.arange(2048.0)[:, None]
    slow = np.geomspace(1e-4, 3e-2, 7)
    ws = np.concatenate([slow, math.pi - slow])
    for dt in (np.float16, ml_dtypes.bfloat16):
        for fn, kind in ((np.cos, "cos"), (np.sin, "sin"), (lambda x: -np.cos(x), "-cos")):
            r = read_channels(fn(ws * p).astype(dt))
            assert r.kinds == [kind] * len(ws), (dt, kind, r.kinds)
            rel = np.abs(r.omega - ws) / np.minimum(ws, math.pi - ws)  # bfloat16 cos(1e-4 p) is 5 steps from 1 to 0.979
            assert np.max(rel) < 1e-2 and np.max(np.abs(r.amplitude - 1)) < 0.01, (dt, kind, rel)
            assert np.max(r.residual) < 2.0 ** -7, (dt, kind, r.residual)
        shifted = read_channels(np.sin(np.array([1e-3, 0.02, 3.1]) * p + 0.3).astype(dt))
        assert shifted.kinds == ["phase"] * 3 and np.max(np.abs(shifted.phase - 0.3)) < 0.02, (dt, shifted.kinds)
    near_cos = read_channels(np.sin(1e-3 * p + math.pi / 2 + 0.01).astype(np.float16))  # (7 spacings from any cos)
    assert near_cos.kinds == ["phase"], near_cos.kinds


@pytest.mark.parametrize("seed", [5, 7])
def test_half_precision_channel_tables_of_slow_frequencies_are_read(seed):  # REQ-DETECT-READ
    """A 1-D table of sin and cos of 12 float32 frequencies from 1e-4 to 1 (2048 rows): the explicit channel plan is
    read in float16 and bfloat16 (none of 16 such tables was: slow columns read as ``phase``, then frequencies
    fitted by least squares that missed the check's bound at the last rows by 2-20 %, an amplitude estimate 2e-5
    off 1 never tried as 1), with amplitude 1, one frequency per sin/cos pair, each within 1e-4 of the truth. The
    frequencies are pinned by the values' rounding intervals (the float32 truth lies in them: most are read
    exactly)."""
    import ml_dtypes

    from sinpe.reference.checking.kinds.channels import KIND
    p = np.arange(2048.0)[:, None]
    rng = np.random.default_rng(seed)
    w = np.exp(np.sort(rng.uniform(math.log(1e-4), 0.0, 12))).astype(F32).astype(np.float64)
    for dt in (np.float16, ml_dtypes.bfloat16):
        r = KIND.read(np.hstack([np.sin(p * w), np.cos(p * w)]).astype(dt), None, np.dtype(dt).name)
        assert r is not None and r["verdict"] == "conforms", (dt, seed)
        assert r["frequencies"] == 12 and r["amplitude"] == "1", (dt, r["frequencies"], r["amplitude"])
        got = np.array([float(Fraction(c.split(":")[1])) for c in r["plan"].split(",")])
        assert np.max(np.abs(got - np.concatenate([w, w])) / np.concatenate([w, w])) < 1e-4, (dt, got)


def test_channel_frequencies_are_read_at_the_amplitude_they_are_checked_with():  # REQ-DETECT-READ
    """Red-team regressions: at amplitude 1.5 the frequencies of a float32 table were pinned at the float64 estimate
    of the amplitude while the plan checked used its float32 reading (12 of 16 float32 frequencies exact, where 16
    were before the pinning); a constant column was read as cos of frequency 0, a plan `sinpe check` refuses."""
    from sinpe.reference.checking.kinds.channels import KIND
    rng = np.random.default_rng(1)
    w = np.sort(np.exp(rng.uniform(math.log(1e-3), math.log(2), 8))).astype(F32).astype(np.float64)
    p = np.arange(1000.0)[:, None]
    r = KIND.read((1.5 * np.hstack([np.sin(p * w), np.cos(p * w)])).astype(F32), None, None)
    got = [Fraction(c.split(":")[1]) for c in r["plan"].split(",")]
    assert r["amplitude"] == "3/2" and got == [Fraction(x) for x in np.concatenate([w, w])], (r["amplitude"], got)
    assert KIND.read(np.hstack([np.ones_like(p), np.sin(0.1 * p)]).astype(np.float16), None, None) is None


def test_read_channels_ends_on_a_column_that_is_no_sinusoid():  # REQ-DETECT-READ
    """The screen before the refinement: one column of noise among sinusoids ends the reading naming it; a
    sinusoid in float16's subnormal range (a few steps of its spacing) is not screened out."""
    p = np.arange(300.0)[:, None]
    t = np.sin(np.array([0.3, 0.02, 1.1]) * p)
    t[:, 1] = np.random.default_rng(5).normal(size=300)
    with pytest.raises(ValueError, match="column 1 is no sinusoid"):
        read_channels(t)
    slow = np.hstack([np.sin(0.3 * p), np.sin(5e-10 * p)]).astype(np.float16)  # 0 to 2.5 subnormal steps
    assert read_channels(slow).kinds[0] == "sin"
    assert read_channels(np.hstack([t[:, :1], np.zeros_like(p)])).kinds == ["sin", "zero"]


def test_the_no_sinusoid_screen_judges_any_scale_silently():  # REQ-DETECT-READ, REQ-CLI-EXIT
    """Red-team regression: the screen squared the values as given: at 1e200 its squares overflowed (RuntimeWarnings
    that `sinpe detect` printed, where the reading had been silent, and a NaN miss that let the column through); at
    1e-200 they underflowed to 0 (a miss of ~1e-200: every column passed). The offset column is no sinusoid at
    every scale; the sinusoid beside it is one."""
    import warnings
    p = np.arange(64.0)[:, None]
    for scale in (1e-200, 1.0, 1e200):
        t = scale * np.hstack([np.sin(0.3 * p), np.sin(0.7 * p) + 0.5])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(ValueError, match="column 1 is no sinusoid"):
                read_channels(t)
            read_channels(t[:, :1])  # (a sinusoid: no ValueError, no warning)


def test_a_channel_table_near_binary64s_range_is_no_internal_error(tmp_path):  # REQ-CLI-EXIT
    """Red-team regression: sinusoids of amplitude 1e200 (finite binary64) and a zero column ended `sinpe detect` in
    an internal error (exit 3: the float32 reading of the amplitude is inf, Fraction(inf); then a NaN frequency
    from the refit's overflow). The refit now scales each column first: the plan of amplitude 1 is read, with
    ``--amplitude`` 1e200 (test_channels_are_read_at_any_amplitude), and detect names it (exit 0, nothing on
    stderr; before the scaling no plan was read and the 1-D finding stood, exit 1)."""
    from fractions import Fraction

    from sinpe.reference.checking.detect.channels import _amplitudes
    from sinpe.reference.checking.kinds.channels import KIND
    p = np.arange(64.0)[:, None]
    t = 1e200 * np.hstack([np.sin(0.3 * p), np.cos(0.7 * p), np.zeros_like(p)])
    assert _amplitudes(1e200) == [Fraction(1e200)]  # (no float32 reading: past its range)
    assert _amplitudes(float("nan")) == [] and _amplitudes(float("inf")) == []
    one = KIND.read(t / 1e200, None, None)
    assert one["found"] and KIND.read(t, None, None)["plan"] == one["plan"]
    np.save(tmp_path / "huge.npy", t)
    res = run_clean(tmp_path, "detect", "huge.npy")
    assert res.returncode == 0 and res.stderr == "" and "--amplitude 9999" in res.stdout, (res.returncode, res.stderr)


@pytest.mark.parametrize("scale", [1e200, 1e-200])
def test_channels_are_read_at_any_amplitude(scale):  # REQ-DETECT-READ
    """The channel reading squares the values (the least-squares refit, the Gauss-Newton steps on w): at amplitude
    1e200 the squares overflowed (NaN frequencies: every column read as cos/-cos of frequency 0, residual 5.5e3), at
    1e-200 they underflowed (frequency 0 the same). Each column is scaled by a power of two first (exact: the same
    bits at ordinary amplitudes), so a table times 1e200 or 1e-200 reads as the table: the same functions and
    frequencies, the amplitude times the scale; a cos cache of explicit frequencies too (read nowhere before)."""
    p = np.arange(300.0)[:, None]
    t = np.hstack([np.sin(0.3 * p), np.cos(0.0123 * p), np.sin(1.7 * p + 0.4), -np.cos(0.9 * p), np.zeros_like(p)])
    one, r = read_channels(t), read_channels(t * scale)
    assert r.kinds == one.kinds == ["sin", "cos", "phase", "-cos", "zero"]
    assert np.max(np.abs(r.omega - one.omega)) < 1e-12 and np.max(np.abs(r.phase - one.phase)) < 1e-9
    assert np.max(np.abs(r.amplitude / scale - one.amplitude)) < 1e-9 and np.max(r.residual) < 1e-9
    rng = np.random.default_rng(11)
    inv = np.sort(rng.uniform(2e-3, 1.0, 16))[::-1].astype(F32)
    cos = np.cos(np.arange(512.0)[:, None] * np.concatenate([inv, inv]).astype(np.float64))  # halves, in float64
    found = sinpe.detect(cos=cos * scale)
    assert found.kind == "rotary" and found.rotary is not None, found.sentence
    assert [float(w) for w in found.rotary.explicit] == inv.tolist()


@pytest.mark.parametrize("layout", ["halves", "pairs"])
def test_detect_recovers_random_frequencies_and_its_plan_checks(tmp_path, layout):
    rng = np.random.default_rng(11)
    inv = np.sort(rng.uniform(2e-3, 1.0, 16))[::-1].astype(F32)
    cos, sin = _cache(inv, 1024, layout)
    found = sinpe.detect(cos=cos, sin=sin)
    assert found.kind == "rotary" and found.profile is None
    got = np.array([float(w) for w in found.rotary.explicit])
    rel = np.max(np.abs(got - inv) / inv)
    assert rel == 0.0, rel          # each float32 inv_freq recovered exactly (snapped from a ~1e-8 estimate)
    read = found.readings["rotary"]["read_from_data"]
    assert read["kinds"][0] == "cos" and read["nearest"]["max_rel_deviation"] > 0.1
    np.save(tmp_path / "cos.npy", cos)
    np.save(tmp_path / "cos_bad.npy", perturb(cos, 100, 4, 1e-3))
    flags = shlex.split(found.profile_flags)
    assert run_clean(tmp_path, "check", "--cos", "cos.npy", *flags).returncode == 0
    assert run_clean(tmp_path, "check", "--cos", "cos_bad.npy", *flags).returncode == 1


def test_detect_reads_a_float64_schedule_and_a_single_cos_table(tmp_path):
    inv = 777.0 ** (-np.arange(0, 32, 2) / 32) * 1.000123   # float64 frequencies, no preset, no common base
    p = np.arange(800.0)[:, None]
    found = sinpe.detect(sin=np.sin(p * inv).astype(F32))
    assert found.kind == "rotary" and found.rotary.layout == "single"
    got = np.array([float(w) for w in found.rotary.explicit])
    assert np.max(np.abs(got - inv) / inv) < 1e-7
    t, weight = L.pyg_temporal(16, np.arange(600.0))
    np.save(tmp_path / "pyg.npy", t)
    found = sinpe.detect(str(tmp_path / "pyg.npy"))
    assert found.kind == "rotary" and found.profile_flags.startswith("--cos FILE --profile llama --layout single")
    flags = shlex.split(found.profile_flags.replace("FILE", "pyg.npy"))
    assert run_clean(tmp_path, "check", *flags).returncode == 0


def test_detect_base_777_names_the_fitted_base():
    inv = L.inv_freq_default(32, 777.0)
    cos, sin = _cache(inv, 400)
    assert sinpe.detect(cos=cos, sin=sin).profile_flags == "--profile llama --base 777"


def test_detect_reading_refuses_what_is_not_a_cache():
    p = np.arange(300.0)[:, None]
    mixed = np.hstack([np.sin(0.1 * p), np.cos(0.37 * p + 0.2)]).astype(F32)
    found = sinpe.detect(cos=mixed)
    assert found.kind == "rotary" and found.exit_code == 1 and found.profile_flags is None


def _schedule(seed: int, case: int) -> tuple[np.ndarray, int]:
    """The case-th random schedule (no preset, no common base): 8-32 frequencies 10^-4.5 .. 2, 512 or 2048 rows."""
    rng = np.random.default_rng(seed)
    for _ in range(case + 1):
        half = int(rng.choice([8, 16, 32]))
        w = np.sort(10 ** rng.uniform(-4.5, 0.3, half))[::-1]
        rows = int(rng.choice([512, 2048]))
    return w, rows


SLOW_AT_07 = (np.array([0.43088173065093727, 0.12383194925466397, 0.04032746104831934, 0.020630051488323517,
                        3.019750927720909e-04, 2.7970978155232823e-04, 9.558663248808898e-05, 6.061709971445229e-05]),
              512)  # red-team: float16 cos and sin at amplitude 0.7; the slowest band's two caches pin it apart


@pytest.mark.parametrize("dtype, caches, case, amp", [("bfloat16", "cos", (0, 1), 1), ("bfloat16", "sin", (0, 2), 1),
                                                      ("float16", "both", (0, 1), 1), ("float32", "cos", (2, 5), 1),
                                                      ("float16", "both", SLOW_AT_07, 0.7),
                                                      ("bfloat16", "both", (7, 4), 0.7)])
def test_rotary_caches_of_explicit_frequencies_are_read_by_their_rounding(dtype, caches, case, amp):  # REQ-DETECT-READ
    """A half-precision rotary cache of explicit frequencies (computed in float64, rounded once): each frequency is
    pinned by its values' rounding intervals in every cache given, as the 1-D channel reading pins them, and the
    amplitude 1 is tried within the format's roundoff. A least-squares reading missed the first three (no plan
    named): bfloat16 cos cache, w = 2.3e-3 read 1.8e-5 off, failing at p = 675. A short cache whose bands all turn
    less than once (512 rows, the fastest 0.84 of a turn) was not read at all, in any format. At amplitude 0.7, read
    as 0.6999955, a flat cos pins the slowest band 4.6 % off, apart from its sin: the fit stands there (a first
    version of the pinning took the cos's and named nothing). At amplitude 0.7 in bfloat16, read 2e-6 off, a few of
    2048 rows end their rounding intervals within that error and kept the true frequency out: the intervals are
    widened by 4 standard errors of the amplitude where the exact reading names nothing. The plan named conforms, its bands past half a turn
    lie within 1e-5 of the truth, and one of them 1e-3 off fails the check."""
    import torch
    w, rows = case if isinstance(case[0], np.ndarray) else _schedule(*case)
    angle = np.arange(rows, dtype=np.float64)[:, None] * np.concatenate([w, w])
    def cast(a):
        return torch.from_numpy(a).to(torch.bfloat16) if dtype == "bfloat16" else a.astype(dtype)
    given = {k: cast(amp * f(angle)) for k, f in (("cos", np.cos), ("sin", np.sin)) if caches in (k, "both")}
    found = sinpe.detect(**given)
    assert found.kind == "rotary" and found.exit_code == 0 and found.profile is None, found.sentence
    got = np.array([float(x) for x in found.rotary.explicit])
    assert np.max(np.abs(got / w - 1)[w * rows > np.pi]) < 1e-5, got / w - 1

    def fits(freqs):
        return sinpe.check(**given, profile="llama", rule="explicit", freqs=",".join(map(str, freqs)), dtype=dtype,
                           attention_factor=found.rotary.attention_factor).conformant
    freqs = list(found.rotary.explicit)
    assert fits(freqs)
    freqs[0] *= Fraction(1001, 1000)
    assert not fits(freqs)


def _torch_rounded(a: np.ndarray, dtype: str) -> np.ndarray:
    """``a`` (float64) converted as torch converts it: to bfloat16 or float16 through float32 (rounded twice)."""
    import torch
    return torch.from_numpy(a).to(getattr(torch, dtype)).float().numpy()


def _random_frequencies(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    h = int(rng.integers(8, 33))
    return np.sort(10 ** rng.uniform(-4.5, np.log10(2), h))[::-1]


def _read_explicitly(what: str, w: np.ndarray, p: np.ndarray, dtype: str) -> None:
    """The frequencies ``w`` at positions ``p`` as a 1-D table (interleaved sin, cos) or a rotary cos cache, sin
    cache or both (``what``), converted as torch converts float64 (:func:`_torch_rounded`): detect names an explicit
    plan, the plan conforms, and its first frequency 1e-3 off fails."""
    if what == "1d":
        table = _torch_rounded(np.stack([np.sin(p[:, None] * w), np.cos(p[:, None] * w)], axis=2).reshape(len(p), -1),
                               dtype)
        found = sinpe.detect(table, positions=list(p), dtype=dtype)
        assert found.kind == "channels" and found.exit_code == 0, found.sentence
        plan = found.readings["1d"]["channels"]["plan"].split(",")
        k, f = plan[0].split(":")
        off = [f"{k}:{Fraction(f) * Fraction(1001, 1000)}", *plan[1:]]
        verdicts = [sinpe.check(table, channels=c, positions=list(p), dtype=dtype).conformant for c in (plan, off)]
        assert verdicts == [True, False], verdicts
        return
    angle = p[:, None] * np.concatenate([w, w])
    given = {k: _torch_rounded(f(angle), dtype) for k, f in (("cos", np.cos), ("sin", np.sin)) if what in (k, "both")}
    found = sinpe.detect(**given, positions=list(p), dtype=dtype)
    assert found.kind == "rotary" and found.exit_code == 0 and found.profile is None, found.sentence

    def fits(freqs):
        return sinpe.check(**given, positions=list(p), profile="llama", rule="explicit", dtype=dtype,
                           freqs=",".join(map(str, freqs)), attention_factor=found.rotary.attention_factor).conformant
    freqs = list(found.rotary.explicit)
    assert fits(freqs)
    freqs[0] *= Fraction(1001, 1000)
    assert not fits(freqs)


@pytest.mark.parametrize("what, seed, start, dtype", [("cos", 0, 100, "bfloat16"), ("sin", 0, 100, "bfloat16"),
                                                      ("both", 3, 0, "float16"), ("1d", 102, 100, "bfloat16"),
                                                      ("1d", 100, 100, "float16"), ("1d", 100, 0, "bfloat16"),
                                                      ("cos", 1, 4000, "float32"), ("1d", 101, 4000, "float32")])
def test_explicit_readings_hold_offset_positions_and_torch_rounding(what, seed, start, dtype):  # REQ-DETECT-READ
    """Random frequencies (no preset) at positions ``start``.. (given), converted as torch converts float64 (through
    float32: rounded twice). At start 100 the free fit's phase of turning columns drifts past 1e-3 (bfloat16 cos:
    1.5537 for pi/2) and the column read as ``phase`` ended the reading; a twice-rounded float16 value lies past half
    a spacing, so its rounding interval kept the true frequency out. In bfloat16 the slowest band's cos column of a
    1-D table is 1 on every row: fitted to frequency 0, it gave no plan; its interval (bounded above only) now takes
    its sin column's frequency. From position 4000 a band that turns less than once over the rows lies past the
    principal range of arccos, and the slow-band reading, meant for flat columns, replaced its free fit with a wrong
    branch. Each was read as no plan; each is now named, it conforms, and one frequency 1e-3 off fails."""
    p = np.arange(start, start + (1024 if what == "1d" else 2048), dtype=np.float64)
    _read_explicitly(what, _random_frequencies(seed), p, dtype)


@pytest.mark.parametrize("what, dtype, step, top", [("cos", "bfloat16", 2, 1), ("both", "float16", 3, 2 / 3),
                                                   ("1d", "float32", 2, 1), ("1d", "bfloat16", 3, 2 / 3),
                                                   ("both", "float32", 5, 2), ("1d", "float16", 5, 2)])
def test_explicit_readings_hold_evenly_spaced_positions(what, dtype, step, top):  # REQ-DETECT-READ
    """Rows at positions 7, 7 + s, 7 + 2s, ... (every s-th row kept): the reading needed 8 rows at consecutive
    positions, so a rotary cache had no explicit reading and a 1-D table was refused (exit 2, "detect needs at least
    8 rows at consecutive integer positions"). Each column is now fitted per row, at w s, and turned back by w p0; a
    column faster than pi / s (``top`` up to 2: w s up to 10) is read at its alias whose phase names a function. The
    plan is named, it conforms, and one frequency 1e-3 off fails."""
    w = _random_frequencies(5) * (top / 2)
    _read_explicitly(what, w, 7.0 + step * np.arange(2048, dtype=np.float64), dtype)


def test_a_cache_whose_frequencies_cannot_be_read_says_why():  # REQ-DETECT-READ
    """Positions with no 8 evenly spaced (powers of two): the frequencies are not read, and the sentence said "no
    explicit plan of the frequencies read from the data" conforms, as if they had been read; it now says they could
    not be read, and why. A cos cache whose turning columns read as sin (a sin cache passed as --cos) says what they
    read as."""
    w = _random_frequencies(4)
    p = 2.0 ** np.arange(12)
    cos = np.cos(p[:, None] * np.concatenate([w, w])).astype(F32)
    found = sinpe.detect(cos=cos, positions=list(p))
    assert found.exit_code == 1 and "frequencies could not be read from the data (reading channels needs >= 8 rows " \
        "at evenly spaced integer positions; got 2)" in found.sentence, found.sentence
    p = np.arange(2048.0)
    found = sinpe.detect(cos=np.sin(p[:, None] * np.concatenate([w, w])).astype(F32) + 0.0)
    assert found.exit_code == 1 and "turning columns read as sin" in found.sentence, found.sentence


def test_a_cos_cache_alone_fixes_its_slow_bands_only_loosely():  # REQ-DETECT-READ, REQ-CHECK-ROPE
    """Near cos 0 = 1 a float16 cos cache changes little with a slow band's frequency (about (w p)^2 / 2): detect names
    an explicit plan that conforms and says which bands it fixes only loosely, and by what factor. Both ways, with
    the check: the slowest band's frequency times that factor still passes the cos cache and fails the sin cache
    (computed here) as the true plan does not, while a turning band's times 1025/1024 fails the cos cache (such bands
    are not listed)."""
    rng = np.random.default_rng(5)
    inv = np.concatenate([np.sort(rng.uniform(2e-2, 1.0, 12))[::-1], [3e-4, 1e-4, 5e-5, 2e-5]]).astype(F32)
    p = np.arange(512.0)[:, None]
    w = np.concatenate([inv, inv]).astype(np.float64)
    cos, sin = np.cos(p * w).astype(np.float16), np.sin(p * w).astype(np.float16)
    found = sinpe.detect(cos=cos)
    assert found.kind == "rotary" and found.profile is None, found.sentence
    loose = {int(k): v for k, v in found.readings["rotary"]["loose"].items()}
    assert set(loose) >= {14, 15} and loose[15] == "2" and not set(loose) & set(range(12)), loose
    assert "only loosely" in found.sentence and "multiplied or divided by 2 (k = 15" in found.sentence

    def fits(cache, k, f, freqs=None):
        freqs = [Fraction(float(x)) for x in (inv if freqs is None else freqs)]
        freqs[k] *= f
        return sinpe.check(**{cache: cos if cache == "cos" else sin}, profile="llama", rule="explicit",
                           freqs=",".join(map(str, freqs)), dtype="float16").conformant
    assert fits("cos", 15, Fraction(1)) and fits("sin", 15, Fraction(1))  # the true plan: both caches
    assert fits("cos", 15, Fraction(2)) and fits("cos", 15, Fraction(1, 2)) and not fits("sin", 15, Fraction(2))
    assert fits("cos", 0, Fraction(1), found.rotary.explicit) and not fits("cos", 0, Fraction(1025, 1024))
