"""REQ-GOLDEN-ROUND: correct rounding straight into each format, checked against independent casts."""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from sinpe.reference.numerics.rounding import exact_mpf, round_to_format, ulp, ulp_error


def _random_doubles(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    mant = rng.uniform(1, 2, n)
    exps = rng.integers(-160, 140, n)
    signs = rng.choice([-1.0, 1.0], n)
    return signs * np.ldexp(mant, exps)


def test_binary32_matches_numpy_cast():
    # NumPy's float64 -> float32 cast is IEEE round-to-nearest-even: an independent implementation.
    xs = _random_doubles(20000, seed=1)
    ours = np.array([round_to_format(mpmath.mpf(float(x)), "binary32") for x in xs])
    with np.errstate(over="ignore"):
        theirs = xs.astype(np.float32).astype(np.float64)
    assert np.array_equal(ours, theirs), "round_to_format(x, 'binary32') != float32(x); seed=1"


def test_binary16_matches_numpy_cast():
    xs = _random_doubles(20000, seed=2) * 2.0 ** -100  # centre the exponents on binary16's range
    xs = np.concatenate([xs, [65504.0, 65519.99, 65520.0, 2.0 ** -24, 2.0 ** -25, 2.0 ** -25 * 1.0001]])
    ours = np.array([round_to_format(mpmath.mpf(float(x)), "binary16") for x in xs])
    with np.errstate(over="ignore"):
        theirs = xs.astype(np.float16).astype(np.float64)
    assert np.array_equal(ours, theirs), "round_to_format(x, 'binary16') != float16(x); seed=2"


def test_bfloat16_matches_torch_cast():
    torch = pytest.importorskip("torch", reason="torch extra (installed by make) provides the independent bf16 cast")
    with np.errstate(over="ignore"):
        xs = _random_doubles(20000, seed=3).astype(np.float32)  # torch rounds float32 -> bfloat16 with RNE
    xs = xs[np.isfinite(xs)]
    ours = np.array([round_to_format(mpmath.mpf(float(x)), "bfloat16") for x in xs])
    theirs = torch.from_numpy(xs).to(torch.bfloat16).to(torch.float64).numpy()
    assert np.array_equal(ours, theirs), "round_to_format(x, 'bfloat16') != torch bfloat16(x); seed=3"


def test_no_double_rounding():
    # x = 1 + 2^-11 + 2^-70 lies just above the binary16 midpoint between 1 and 1 + 2^-10.
    x = exact_mpf(2**70 + 2**59 + 1, -70)  # exact, whatever mp.prec is
    direct = round_to_format(x, "binary16")
    via_double = float(np.float16(float(x)))  # float(x) drops 2^-70, then ties-to-even goes down
    assert direct == 1 + 2.0 ** -10
    assert via_double == 1.0  # the mistake REQ-GOLDEN-ROUND forbids


def test_mpmath_float_truncates_but_we_do_not():
    # the same trap one level up: a binary64 midpoint plus a hair
    x = exact_mpf(2**200 + 2**147 + 1, -200)
    assert round_to_format(x, "binary64") == 1 + 2.0 ** -52


def test_special_values():
    assert math.isnan(round_to_format(mpmath.nan, "binary32"))
    assert round_to_format(-mpmath.inf, "binary16") == -math.inf
    assert round_to_format(mpmath.mpf(-70000), "binary16") == -math.inf
    assert round_to_format(mpmath.mpf(65519.9), "binary16") == 65504.0
    assert math.copysign(1.0, round_to_format(-mpmath.mpf(2) ** -30, "binary16")) == -1.0  # -0.0
    assert round_to_format(mpmath.mpf(3) * 2 ** -26, "binary16") == 2.0 ** -24  # subnormal ties to even


def test_ulp():
    assert ulp(1.0, "binary64") == 2.0 ** -52
    assert ulp(0.75, "binary16") == 2.0 ** -11
    assert ulp(0.0, "bfloat16") == 2.0 ** -133
    assert ulp(2.0 ** -130, "binary32") == 2.0 ** -149
    assert ulp_error(1.0 + 2.0 ** -23, mpmath.mpf(1), "binary32") == 1.0


def test_oracle_endpoints_are_exact():
    # the Arb ball's ends must reach round_to_format unrounded (a regression: mpf((man, exp)) rounds)
    from flint import arb, ctx

    from sinpe.reference.oracles.arb import _endpoints
    old = ctx.prec
    ctx.prec = 300
    try:
        lo, hi = _endpoints(arb(1) / 3)
    finally:
        ctx.prec = old
    with mpmath.workprec(400):
        third = mpmath.mpf(1) / 3
        assert lo <= third <= hi and hi - lo < mpmath.mpf(2) ** -250, (lo, hi)
    assert lo._mpf_[3] > 200 and hi._mpf_[3] > 200  # kept all ~300 bits


def test_round_array_matches_round_to_format():
    # the vectorised path (frexp/rint) against the exact mpmath path, on ties, subnormals and overflow
    import numpy as np

    from sinpe.reference.numerics.rounding import round_array
    rng = np.random.default_rng(5)
    x = rng.standard_normal(3000) * 10.0 ** rng.integers(-46, 40, 3000)
    edges = [1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 65504.0, 65519.99, 65520.0, -65520.0, 2.0 ** -25, 3 * 2.0 ** -26,
             2.0 ** -150, 3 * 2.0 ** -151, 1 + 2.0 ** -8, 1 + 2.0 ** -24, 0.0, -0.0, 3.4e38, 3.5e38]
    x = np.concatenate([x, edges])
    for fmt in ("binary16", "binary32", "bfloat16", "binary64"):
        want = [round_to_format(mpmath.mpf(float(v)), fmt) for v in x]
        assert round_array(x, fmt).tolist() == want, fmt
