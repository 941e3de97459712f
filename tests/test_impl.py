"""The bundled NumPy and PyTorch implementations (SPEC.md REQ-IMPL-EVAL, REQ-IMPL-LATE-CAST).

Expected values: python-flint Arb (:mod:`sinpe.reference.oracles.arb`, :func:`certify.exact_table`)
and, for the frequencies, mpmath at 300 bits (a different library and precision from the 128-bit
evaluation the implementations use).
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest

from sinpe.reference.implementations import numpy_impl as impl_numpy
from sinpe.reference.implementations.certify import exact_table
from sinpe.reference.numerics.rounding import round_to_format
from sinpe.reference.oracles.arb import reference_f64
from sinpe.spec.definition import columns, exponent
from sinpe.spec.profiles import PRESETS, get_profile
from sinpe.spec.tolerance import allowed_abs_error

torch = pytest.importorskip("torch", reason="torch is a declared dependency (make installs it)")
from sinpe.reference.implementations import torch_impl as impl_torch  # noqa: E402

VARIANT = get_profile("vaswani", base="500", phase_scale="1/3", amplitude="0.1", offset=2)
POS = (0.0, 1.0, 2.5, -3.0, 99.0, 2048.0, 65519.0, 65520.0, 1e6)


def _within_phase(y: np.ndarray, profile, d: int, positions, dtype: str) -> np.ndarray:
    hi, lo, th = exact_table(profile, d, tuple(float(p) for p in positions))
    err = np.abs((np.asarray(y, dtype=np.float64) - hi) - lo)
    return err <= allowed_abs_error("phase", dtype, hi + lo, th, float(profile.amplitude),
                                    base=float(profile.base), rounded_frequencies=True)


@pytest.mark.parametrize("name", list(PRESETS) + ["variant"])
@pytest.mark.parametrize("d", [1, 2, 3, 8, 65])
def test_numpy_float64_every_profile(name: str, d: int) -> None:
    # REQ-IMPL-EVAL, REQ-IMPL-TIER: every profile/odd rule, against Arb
    prof = VARIANT if name == "variant" else PRESETS[name]
    y = impl_numpy.pe_table(prof, d, np.array(POS), "float64")
    assert y.shape == (len(POS), d) and y.dtype == np.float64
    ok = _within_phase(y, prof, d, POS, "float64")
    assert ok.all(), f"impl_numpy float64 off TOL-PHASE at {np.argwhere(~ok)[:3].tolist()}; " \
                     f"reproduce: sinpe certify --dtype float64"
    for j, col in enumerate(columns(prof, d)):
        if col.kind == "zero":
            assert np.all(y[:, j] == 0.0)


def test_numpy_matches_correctly_rounded_at_small_phase() -> None:
    # at position 1 (theta <= 1) the float64 table is within 1 ulp of the Arb-rounded binary64 value
    y = impl_numpy.pe_table(PRESETS["vaswani"], 64, [1], "float64")
    ref = reference_f64(PRESETS["vaswani"], 64, [1])
    assert np.all(np.abs(y - ref) <= np.spacing(np.abs(ref)))


@pytest.mark.parametrize("fmt", ["binary64", "binary32"])
def test_frequencies_correctly_rounded(fmt: str) -> None:
    # REQ-IMPL-EVAL: g_k = RN(sigma * w_k), checked with mpmath at 300 bits and the exact exponent
    for prof, d in [(PRESETS["vaswani"], 65), (PRESETS["t2t"], 64), (VARIANT, 64)]:
        got = impl_numpy.scaled_frequencies(prof, d, fmt)
        with mpmath.workprec(300):
            b, s = prof.base, prof.phase_scale
            want = tuple(round_to_format(mpmath.mpf(s.numerator) / s.denominator *
                                         mpmath.power(mpmath.mpf(b.numerator) / b.denominator,
                                                      -mpmath.mpf(exponent(prof, d, k).numerator) / exponent(prof, d, k).denominator), fmt)
                         for k in impl_numpy.plan(prof, d).ks)
        assert got == want, f"frequencies of {prof.name or prof.cli_flags()} d={d} not correctly rounded to {fmt}"


def test_positions_exact_and_validated() -> None:
    """TOL-EVAL: integer positions are converted once (2^24 exact in float32, 2^24+1 not)."""
    # TOL-EVAL: integers are converted once; 2^24 is exact in float32, 2^24+1 is not (documented limit)
    vas = PRESETS["vaswani"]
    assert np.array_equal(impl_numpy.pe_table(vas, 2, [2**24 + 1], "float32"),
                          impl_numpy.pe_table(vas, 2, [2**24], "float32"))      # beyond the limit: rounded
    assert not np.array_equal(impl_numpy.pe_table(vas, 2, [2**24 - 1], "float32"),
                              impl_numpy.pe_table(vas, 2, [2**24 - 2], "float32"))
    assert np.array_equal(impl_numpy.pe_table(vas, 2, [2**53 + 1], "float64"),
                          impl_numpy.pe_table(vas, 2, [2**53], "float64"))
    with pytest.raises(ValueError, match="1-D"):
        impl_numpy.pe_table(PRESETS["vaswani"], 4, [[1, 2]], "float64")
    with pytest.raises(ValueError, match="finite"):
        impl_numpy.pe_table(PRESETS["vaswani"], 4, [np.nan], "float64")
    with pytest.raises(ValueError, match="numbers"):
        impl_numpy.pe_table(PRESETS["vaswani"], 4, ["a"], "float64")
    with pytest.raises(ValueError, match="float16/bfloat16"):
        impl_numpy.pe_table(PRESETS["vaswani"], 4, [1], "float16")
    with pytest.raises(ValueError, match="odd rule 'error'"):
        impl_numpy.pe_table(get_profile("vaswani", odd="error"), 5, [1], "float64")
    y = impl_numpy.pe_table(PRESETS["vaswani"], 4, [Fraction(5, 2)], "float64")
    assert y[0, 0] == np.sin(2.5)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("name", ["vaswani", "t2t-cos", "variant"])
def test_torch_every_dtype(dtype: str, name: str) -> None:
    # REQ-IMPL-EVAL: the PyTorch implementation in each dtype, against Arb
    prof = VARIANT if name == "variant" else PRESETS[name]
    t = impl_torch.pe_table(prof, 65, np.array(POS), dtype)
    assert t.dtype == impl_torch.torch_dtype(dtype) and tuple(t.shape) == (len(POS), 65)
    ok = _within_phase(t.to(torch.float64).numpy(), prof, 65, POS, dtype)
    assert ok.all(), f"impl_torch {dtype} off TOL-PHASE at {np.argwhere(~ok)[:3].tolist()}; " \
                     f"reproduce: sinpe certify --dtype {dtype}"


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_torch_half_is_one_late_cast(dtype: str) -> None:
    # REQ-IMPL-LATE-CAST: the half-precision table is the float32 table rounded once (and finite
    # at positions >= 65520, where a float16 position would be inf)
    prof = PRESETS["vaswani-concat"]
    t16 = impl_torch.pe_table(prof, 64, list(POS), dtype)
    t32 = impl_torch.pe_table(prof, 64, list(POS), "float32")
    assert torch.equal(t16, t32.to(impl_torch.torch_dtype(dtype)))
    assert torch.isfinite(t16).all()


def test_numpy_and_torch_agree() -> None:
    # same plan, different sin/cos libraries: float32 tables within 2 ulp at theta <= 64
    pos = np.arange(64.0)
    a = impl_numpy.pe_table(PRESETS["t2t"], 64, pos, "float32")
    b = impl_torch.pe_table(PRESETS["t2t"], 64, pos, "float32").numpy()
    assert np.all(np.abs(a - b) <= 2 * np.spacing(np.maximum(np.abs(a), np.float32(1e-30))) + 2 * 2.0**-24 * (1 + pos[:, None]))


from hypothesis import given, settings, strategies as st  # noqa: E402

from sinpe.spec.profiles import LAYOUTS, ODD_RULES, Profile  # noqa: E402


@st.composite
def _profiles(draw):
    shift = draw(st.sampled_from([None, 0, 1]))
    odd = draw(st.sampled_from([r for r in ODD_RULES if r != "error"]))
    return Profile(None, draw(st.sampled_from(LAYOUTS)), None if shift is None else Fraction(shift),
                   Fraction(draw(st.sampled_from([10000, 500, 2, 1000000]))),
                   Fraction(draw(st.sampled_from(["1", "1/3", "1000", "0.5"]))),
                   Fraction(draw(st.sampled_from(["1", "0.1", "-2", "3/4"]))),
                   Fraction(draw(st.integers(-5, 5))), odd)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(prof=_profiles(), d=st.integers(1, 40), dtype=st.sampled_from(["float64", "float32"]),
       pos=st.lists(st.integers(-10**5, 10**5), min_size=1, max_size=4))
def test_numpy_random_profiles(prof: Profile, d: int, dtype: str, pos: list[int]) -> None:
    # REQ-IMPL-EVAL, REQ-IMPL-TIER over the whole family, against Arb (c0: frequencies rounded once)
    try:
        y = impl_numpy.pe_table(prof, d, pos, dtype)
    except ValueError as e:   # the schedule is undefined (D <= 0 with several frequencies): said so
        assert "frequency schedule undefined" in str(e)
        return
    ok = _within_phase(y, prof, d, pos, dtype)
    assert ok.all(), f"impl_numpy {dtype} off TOL-PHASE for {prof!r}, d={d}, positions {pos}: " \
                     f"entries {np.argwhere(~ok)[:3].tolist()}"
