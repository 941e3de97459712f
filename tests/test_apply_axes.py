"""Multi-axis rotary application (SPEC.md REQ-CHECK-APPLY with DEF-ROPE-AXES, THM-ROPE-REL per axis): an
M-RoPE function written after transformers' Qwen2-VL (tests/apply_functions.py, never the library) conforms under
the module, hf and freqs conventions; one that reads the temporal ids on every axis is rejected and named; the
exact rotation of a multi-axis row agrees with mpmath; THM-ROPE-REL compares rows with equal per-axis differences.

Reproduce: python -m pytest tests/test_apply_axes.py -k NAME
"""
from __future__ import annotations

import json
import os
import sys

import mpmath
import numpy as np
import pytest

from sinpe import check_apply
from sinpe.reference.checking.apply.diagnose import relative
from sinpe.reference.checking.apply.exact import angles, exact_rotation
from sinpe.reference.checking.apply.inputs import default_axis_positions
from sinpe.spec.rotary import get_rotary

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import apply_functions as F  # noqa: E402
from helpers import assert_exit, run_sinpe  # noqa: E402

DIM, SECTIONS = 32, (4, 6, 6)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("fn, conv, kw", [(F.mrope_module, "module", {}), (F.llama_hf, "hf", {}),
                                          (F.freqs_apply, "freqs", {"layout": "pairs"})],
                         ids=["module", "hf", "freqs"])
def test_mrope_application_conforms(fn, conv, kw, dtype):  # REQ-CHECK-APPLY, DEF-ROPE-AXES
    r = check_apply(fn, "qwen2-vl", dim=DIM, convention=conv, dtype=dtype, mrope_section=SECTIONS, **kw)
    assert r.verdict == "conforms", f"{r.reason}; first failure {r.failures[:1]}"
    assert r.relative["holds"] and r.relative["comparisons"] > 500 and r.unjudged["count"] == 0
    assert r.positions[4] == [4, 4, 4] and r.positions[5] == [4, 4, 5]  # the image block's (t, h, w) rows


def test_mrope_on_one_axis_is_rejected_and_named():  # the sections ignored: cause 'axes'
    r = check_apply(F.bug_axes_module, "qwen2-vl", dim=DIM, convention="module", mrope_section=SECTIONS)
    assert r.verdict == "fails" and r.exit_code == 1 and r.cause_code == "axes", r.reason
    assert "axis 0" in r.diagnosis["sentence"]


def test_a_one_axis_function_under_mrope_fails():  # plain RoPE's module given (axes, batch, seq) ids refuses
    with pytest.raises(ValueError, match="raised"):
        check_apply(F.llama_module, "qwen2-vl", dim=DIM, convention="module", mrope_section=SECTIONS)


def test_text_rows_are_plain_rope():  # DEF-ROPE-AXES: a single position per row is read on every axis
    r = check_apply(F.bug_axes_module, "qwen2-vl", dim=DIM, convention="module", mrope_section=SECTIONS,
                    positions=[0, 1, 2, 1000, 1001])
    assert r.verdict == "conforms" and r.positions[3] == [1000, 1000, 1000]


def test_default_rows():
    rows = default_axis_positions(3)
    assert len(rows) == 46 and rows[:5] == [(0, 0, 0), (1, 1, 1), (2, 2, 2), (3, 3, 3), (4, 4, 4)]
    assert (4, 7, 6) in rows and (65536, 65539, 65539) in rows and rows[-1] == (100001,) * 3
    assert default_axis_positions(2)[4:6] == [(4, 4), (4, 5)]


def test_exact_rotation_of_a_multi_axis_row_against_mpmath():  # DEF-ROPE-APPLY at DEF-ROPE-AXES, 50 digits
    rp = get_rotary("qwen2-vl", mrope_section=(1, 1, 2))
    rows = [(7, 30, 1000)]
    x = np.random.default_rng(1).standard_normal((1, 1, 8))
    o, e = exact_rotation(x, angles(rp, 8, rows), "halves")
    mpmath.mp.dps = 50
    for k, axis in enumerate((0, 1, 2, 2)):  # sections (1, 1, 2): frequency k reads axis a(k)
        t = rows[0][axis] * mpmath.power(10 ** 6, -mpmath.mpf(2 * k) / 8)
        xa, xb = mpmath.mpf(float(x[0, 0, k])), mpmath.mpf(float(x[0, 0, k + 4]))
        assert abs(o[0, 0, k] - (xa * mpmath.cos(t) - xb * mpmath.sin(t))) <= e[0, 0, k] < 1e-13
        assert abs(o[0, 0, k + 4] - (xb * mpmath.cos(t) + xa * mpmath.sin(t))) <= e[0, 0, k + 4]


def test_relative_compares_per_axis_differences():  # THM-ROPE-REL with vector m - n
    rp = get_rotary("qwen2-vl", mrope_section=(1, 1))
    rows = [(0, 0), (0, 1), (1, 0), (1, 1), (5, 7), (5, 8)]
    rng = np.random.default_rng(0)
    q, k = (np.repeat(rng.standard_normal((1, 1, 4)), len(rows), axis=1) for _ in range(2))
    ang = angles(rp, 4, rows)
    oq, _ = exact_rotation(q, ang, "halves")
    ok, _ = exact_rotation(k, ang, "halves")
    tiny = np.full(oq.shape, 1e-12)
    good = relative(oq, ok, oq, tiny, tiny, rows)
    assert good["holds"] is True and good["comparisons"] > 10
    bad = np.array(oq)
    bad[..., 0] += np.array([r[1] for r in rows])[None, :] * 1e-3   # depends on the second axis itself
    res = relative(bad, ok, oq, tiny, tiny, rows)
    assert res["holds"] is False and len(res["first"]["m_n"][0]) == 2
    m, n = res["first"]["m_n"]
    m2, n2 = res["first"]["m_n_ref"]
    assert [a - b for a, b in zip(m, n, strict=True)] == [a - b for a, b in zip(m2, n2, strict=True)]   # compared at equal vector differences


def test_cli_multi_axis_positions_file(tmp_path):  # --mrope-section with --positions FILE.npy (rows, 3)
    p = tmp_path / "pos.npy"
    np.save(p, np.array(default_axis_positions(3)[:20], dtype=np.int64))
    args = ("--convention", "module", "--profile", "qwen2-vl", "--mrope-section", "4,6,6", "--dim", DIM,
            "--positions", p, "--json")
    ok = run_sinpe("check-apply", "apply_functions:mrope_module", *args, cwd=HERE)
    assert_exit(ok, 0)
    assert json.loads(ok.stdout)["positions"][5] == [4, 4, 5]
    bad = run_sinpe("check-apply", "apply_functions:bug_axes_module", *args, cwd=HERE)
    assert_exit(bad, 1)
    assert json.loads(bad.stdout)["cause_code"] == "axes"
    np.save(p, np.zeros((4, 2), dtype=np.int64))   # 2 coordinates for a 3-axis profile
    usage = run_sinpe("check-apply", "apply_functions:mrope_module", *args, cwd=HERE)
    assert_exit(usage, 2)
    assert "3 position axes" in usage.stderr and usage.stderr.count("\n") == 1
    ids = run_sinpe("check-apply", "apply_functions:llama_hf_ids", "--convention", "hf-ids", "--profile", "qwen2-vl",
                    "--mrope-section", "4,6,6", "--dim", DIM, cwd=HERE)
    assert_exit(ids, 2)
    assert "multi-axis" in ids.stderr


def _numpy_llama(q, k, cos, sin, sign=1.0):
    """A NumPy-only application (rotate-half on (batch, heads, seq, dim) arrays)."""
    def rot(x):
        h = x.shape[-1] // 2
        return np.concatenate([-sign * x[..., h:], sign * x[..., :h]], axis=-1)
    c, s = cos[:, None], sin[:, None]
    return q * c + rot(q) * s, k * c + rot(k) * s


@pytest.mark.parametrize("dtype", ["float32"])
def test_numpy_function_through_the_documented_wrapper(dtype):  # reference/README.md: check-apply is torch-only
    def wrapped(q, k, cos, sin):
        return _numpy_llama(q.numpy(), k.numpy(), cos.numpy(), sin.numpy())

    def wrapped_bug(q, k, cos, sin):
        return _numpy_llama(q.numpy(), k.numpy(), cos.numpy(), sin.numpy(), sign=-1.0)
    r = check_apply(wrapped, "llama", dim=16, dtype=dtype)
    assert r.verdict == "conforms" and r.output_dtype == dtype
    bad = check_apply(wrapped_bug, "llama", dim=16, dtype=dtype)
    assert bad.verdict == "fails" and bad.cause_code == "sign"
