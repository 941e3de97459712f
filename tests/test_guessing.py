"""No guessing (issue 20.4): half-precision tables stored as float32 are checked as what they hold, API errors
name API keywords, and every result's ``to_json()`` is a dict that ``json.dumps`` turns into JSON text."""
from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import run_sinpe

import sinpe
from sinpe.reference.inputs import LoadError
from sinpe.reference.tables import table


@pytest.mark.parametrize("half", ["bfloat16", "float16"])
def test_half_table_stored_as_float32_is_checked_as_half(half, tmp_path):  # REQ-CHECK-SHAPE
    """Every value a bfloat16 (float16) value: checked as one and said so; ``--dtype float32`` overrides."""
    t = table("vaswani", 64, 512, half).astype(np.float32)
    res = sinpe.check(t, "vaswani")
    assert res.dtype == half and res.verdict == "conforms", (res.dtype, res.reason)
    assert any(f"is a {half} value: checked as a {half} table" in n for n in res.notes), res.notes
    np.save(tmp_path / "t.npy", t)
    assert run_sinpe("check", tmp_path / "t.npy", "--profile", "vaswani").returncode == 0
    forced = run_sinpe("check", tmp_path / "t.npy", "--profile", "vaswani", "--dtype", "float32")
    assert forced.returncode == 1 and "dtype float32" in forced.stdout.splitlines()[0], forced.stdout[:500]


def test_float32_table_stays_float32():
    """A float32 table with one value off the bfloat16 grid, or too few distinct values, is not narrowed."""
    t = table("vaswani", 64, 512, "bfloat16").astype(np.float32)
    t[3, 5] = np.nextafter(t[3, 5], np.float32(2))
    assert sinpe.check(t, "vaswani").dtype == "float32"
    assert sinpe.check(table("vaswani", 64, 512, "float32"), "vaswani").dtype == "float32"
    assert sinpe.check(np.zeros((4, 2), dtype=np.float32) + np.float32(0.5), "vaswani").dtype == "float32"


def test_api_errors_name_keywords_cli_errors_name_flags(tmp_path):  # REQ-API
    with pytest.raises(LoadError, match=r"pass d=, the width") as e:
        sinpe.check("numpy:eye", "vaswani")
    assert "--d" not in str(e.value) and "--call" not in str(e.value)
    with pytest.raises(LoadError, match=r"^d= must be >= 1"):
        sinpe.check(np.zeros((4, 4)), "vaswani", d=0)
    cli = run_sinpe("check", "numpy:eye", cwd=tmp_path)
    assert cli.returncode == 2 and "pass --d, the width" in cli.stderr, cli.stderr


def test_every_result_to_json_is_json_text(tmp_path):  # REQ-API: json.dumps(r.to_json()) is the JSON text
    bad = table("vaswani", 16, 40, "float32")
    bad[3, 1] = np.nan
    results = [sinpe.check(bad, "vaswani"), sinpe.check(table("vaswani", 16, 40, "float32"), "vaswani"),
               sinpe.detect(table("t2t", 16, 64, "float32")), sinpe.detect(bad)]
    for r in results:
        out = r.to_json()
        assert isinstance(out, dict)
        json.dumps(out, allow_nan=False)  # ValueError on a NaN/inf float, TypeError on a non-JSON object
    assert json.loads(json.dumps(results[0].to_json(), allow_nan=False))["non_finite"] == 1
