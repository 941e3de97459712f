"""Certification of the bundled implementations (SPEC.md REQ-IMPL-CERT, REQ-IMPL-TIER, REQ-IMPL-LATE-CAST)
and its negative tests: certification MUST reject wrong implementations and MUST depend on the tolerance.

Each negative test first certifies the correct implementation on the same cases and positions
(so the test can fail), then the mutant, and requires a rejection with a reproducible failure.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from sinpe.reference.cli import main
from sinpe.reference.implementations import numpy_impl as impl_numpy
from sinpe.reference.implementations.certify import Case, certify_all, certify_impl, exact_table, sample_bands
from sinpe.reference.oracles.arb import reference_f64
from sinpe.spec.profiles import PRESETS, Profile, get_profile
from sinpe.spec.tolerance import allowed_abs_error

torch = pytest.importorskip("torch", reason="torch is a declared dependency (make installs it)")
from sinpe.reference.implementations import torch_impl as impl_torch  # noqa: E402

VAS = PRESETS["vaswani"]
CASES = [Case(VAS, 64), Case(PRESETS["t2t-cos"], 65), Case(get_profile("vaswani", amplitude="0.1", offset=2), 33)]
BANDS = sample_bands(10**4, per_band=3)


def np_impl(dtype: str):
    return lambda P, d, x: impl_numpy.pe_table(P, d, x, dtype)


def torch_impl(dtype: str):
    return lambda P, d, x: impl_torch.pe_table(P, d, x, dtype).to(torch.float64).numpy()


def _assert_rejected(res, what: str) -> None:
    assert not res.ok, f"certification accepted {what}"
    assert res.failures and "reproduce" in res.failures[0]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_correct_numpy_is_certified(dtype: str) -> None:
    res = certify_impl("numpy", dtype, np_impl(dtype), CASES, BANDS)
    assert res.ok and res.tier == "phase" and not res.failures, res.to_json()
    # TOL-PHASE-C is not loose by orders of magnitude: the measured ratio is within a factor 8 of c
    assert 1.0 < max(b.phase_ratio for b in res.bands) <= 8.0


def _swap_sin_cos(P: Profile, d: int, x: np.ndarray) -> np.ndarray:
    y = impl_numpy.pe_table(P, d, x, "float64")
    pl = impl_numpy.plan(P, d)
    out = y.copy()
    cos_of = {int(k): int(j) for j, k in zip(pl.cos_cols, pl.cos_idx, strict=True)}
    for j, k in zip(pl.sin_cols, pl.sin_idx, strict=True):
        if int(k) in cos_of:
            out[:, j], out[:, cos_of[int(k)]] = y[:, cos_of[int(k)]], y[:, j]
    return out


def test_rejects_sin_cos_swapped() -> None:
    _assert_rejected(certify_impl("swapped", "float64", _swap_sin_cos, CASES, BANDS), "sin/cos swapped")


def test_rejects_positions_cast_to_float16() -> None:
    # TOL-EVAL, REQ-IMPL-EVAL: float32 table from float16 positions: integers above 2048 are rounded
    f16pos = lambda P, d, x: impl_numpy.pe_table(P, d, np.asarray(x).astype(np.float16), "float32")
    _assert_rejected(certify_impl("f16-positions", "float32", f16pos, CASES, BANDS), "float16 positions")
    # float16 table from float16 positions: inf from 65520 on
    t16 = lambda P, d, x: impl_torch.pe_table(P, d, torch.from_numpy(np.asarray(x)).to(torch.float16), "float16").to(torch.float64).numpy()
    bands = sample_bands(10**5, per_band=2)
    assert certify_impl("torch", "float16", torch_impl("float16"), CASES[:1], bands, work_dtype="float32").ok
    _assert_rejected(certify_impl("f16-positions", "float16", t16, CASES[:1], bands), "float16 positions (inf)")


def test_rejects_wrong_base() -> None:
    wrong = lambda P, d, x: impl_numpy.pe_table(P.replace(base=P.base + 1), d, x, "float32")
    _assert_rejected(certify_impl("base+1", "float32", wrong, CASES, BANDS), "base 10001")


def test_rejects_t2t_schedule_against_vaswani() -> None:
    wrong = lambda P, d, x: impl_numpy.pe_table(P.replace(shift=1), d, x, "float64")
    res = certify_impl("t2t-schedule", "float64", wrong, [Case(VAS, 64)], BANDS)
    _assert_rejected(res, "the t2t schedule as vaswani")
    assert res.failures[0]["profile"] == "vaswani"


def test_rejects_wrong_tolerance() -> None:
    # TOL-PHASE-C: with c / 100 the correct float32 implementation fails: c is not loose by 100x
    def tight(tier, dtype, ref, theta, amplitude=1.0, **kw):
        b = allowed_abs_error(tier, dtype, ref, theta, amplitude, **kw)
        return b / 100 if tier == "phase" else b
    assert certify_impl("numpy", "float32", np_impl("float32"), CASES, BANDS).ok
    _assert_rejected(certify_impl("numpy", "float32", np_impl("float32"), CASES, BANDS, allowed=tight), "c/100")


def test_late_cast_rejects_native_half_evaluation() -> None:
    # REQ-IMPL-LATE-CAST: evaluating in float16 itself (positions < 2048, exact in float16) meets
    # TOL-PHASE for float16 but not the late-cast bound
    def native(P, d, x):
        pl = impl_numpy.plan(P, d)
        g = torch.tensor(impl_numpy.scaled_frequencies(P, d, "binary16"), dtype=torch.float16)
        th = torch.from_numpy(np.asarray(x)).to(torch.float16)[:, None] * g[None, :]
        out = torch.zeros((len(x), d), dtype=torch.float16)
        out[:, pl.sin_cols] = torch.sin(th[:, pl.sin_idx])
        out[:, pl.cos_cols] = torch.cos(th[:, pl.cos_idx])
        return out.to(torch.float64).numpy()
    bands = sample_bands(10**3, per_band=3)
    res = certify_impl("native-f16", "float16", native, [Case(VAS, 64)], bands, work_dtype="float32")
    assert res.tier == "phase" and res.late_cast is False and not res.ok


def test_exact_table_agrees_with_oracle() -> None:
    # two evaluations in Arb: the double-double reference is within half an ulp of the oracle's RN64
    pos = (0.0, 1.0, 2.5, -3.0, 1e7)
    hi, lo, _ = exact_table(PRESETS["t2t"], 65, pos)
    ref = reference_f64(PRESETS["t2t"], 65, list(pos))
    assert np.all(np.abs((ref - hi) - lo) <= np.spacing(np.abs(ref)) / 2 + 1e-300)


def test_bands_reproducible() -> None:
    a, b = sample_bands(10**7), sample_bands(10**7)
    assert a == b and len(a) == 6 and a[-1].label() == "[1e6, 1e7]"
    for band in a:
        assert all(band.lo <= abs(p) <= band.hi for p in band.positions)
    assert sample_bands(10**7, seed=1) != a
    with pytest.raises(ValueError, match="2\\^24"):
        sample_bands(2**25)


def test_certify_all_report_and_cli(capsys: pytest.CaptureFixture[str]) -> None:
    r = certify_all(max_position=1000, per_band=1, cases=[Case(VAS, 8)])
    assert r.ok and len(r.results) == 6
    d = json.loads(json.dumps(r.to_json()))
    assert d["schema"] == "sinpe-certify/1" and {x["dtype"] for x in d["implementations"]} == \
        {"float64", "float32", "float16", "bfloat16"}
    assert "certification: OK" in r.render()
    assert main(["certify", "--max-position", "100", "--dtype", "float32", "--per-band", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] and all(i["dtype"] == "float32" for i in out["implementations"])
    assert main(["certify", "--max-position", "1e9"]) == 2


def test_rejects_wrong_shape_and_reproduces_failures() -> None:
    # a wrong table shape (one column short) is a failure, not a crash; failures carry a command
    short = lambda P, d, x: impl_numpy.pe_table(P, d, x, "float64")[:, : d - 1]
    res = certify_impl("short", "float64", short, CASES[:1], BANDS[:1])
    assert not res.ok and "table shape" in res.failures[0]["error"]
    res = certify_impl("numpy", "float32", lambda P, d, x: impl_numpy.pe_table(P.replace(base=10001), d, x, "float32"),
                       CASES[:1], BANDS)
    cmd = res.failures[0]["reproduce"]
    assert cmd.startswith("python -c") and "--positions=" in cmd and "pe_table(Profile(" in cmd


def test_rejects_values_that_are_not_of_the_dtype() -> None:
    # review regression: a "float32" implementation returning float64 values met every tier (its errors
    # are smaller); a table in a dtype holds values of that dtype. The correct float32 one is certified above.
    assert certify_impl("numpy", "float32", np_impl("float32"), CASES[:1], BANDS).ok
    res = certify_impl("f64-as-f32", "float32", np_impl("float64"), CASES[:1], BANDS)
    _assert_rejected(res, "float64 values claimed as float32")
    assert res.tier == "none" and "not float32 values" in res.failures[0]["error"]
