"""Rotary application checks (SPEC.md DEF-ROPE-APPLY, TOL-APPLY, REQ-CHECK-APPLY, THM-ROPE-REL on the user's
function): correct applications per layout and convention conform in float32 and bfloat16; each bug class,
constructed deliberately in tests/apply_functions.py, is rejected and named; the exact rotation agrees with
mpmath; the CLI runs a named function isolated with exit codes 0/1/2/3.

Reproduce: python -m pytest tests/test_apply.py -k NAME
"""
from __future__ import annotations

import json
import os
import sys

import mpmath
import numpy as np
import pytest
import torch

import sinpe
from sinpe import check_apply
from sinpe.reference.checking.apply.diagnose import relative
from sinpe.reference.checking.apply.exact import angles, exact_rotation
from sinpe.spec.rotary import get_rotary

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import apply_functions as F  # noqa: E402
from helpers import assert_exit, run_sinpe  # noqa: E402

DIM = 32
CORRECT = [  # (function, profile, convention, keywords)
    (F.llama_hf, "llama", "hf", {}),
    (F.gptj_hf, "gptj", "hf", {}),
    (F.complex_hf, "llama", "hf", {"layout": "single"}),
    (F.partial_hf, "llama", "hf", {"rotary_fraction": "0.25"}),
    (F.llama_hf_ids, "llama", "hf-ids", {}),
    (F.llama_module, "llama", "module", {}),
    (F.gptj_module, "gptj", "module", {}),
    (F.freqs_apply, "gptj", "freqs", {}),
    (F.freqs_apply, "gptj", "freqs", {"rotary_fraction": "0.5"}),
]
BUGS = [  # (function, profile, convention, keywords, the cause the report must name)
    (F.bug_pairing_hf, "llama", "hf", {}, "pairing"),
    (F.bug_pairing_module, "llama", "module", {}, "pairing"),
    (F.llama_hf, "gptj", "hf", {}, "pairing"),
    (F.bug_sign_hf, "llama", "hf", {}, "sign"),
    (F.bug_swap_hf, "llama", "hf", {}, "swap"),
    (F.bug_offset_module, "llama", "module", {}, "offset"),
    (F.bug_offset_by_one_module, "llama", "module", {}, "offset"),
    (F.bug_base_module, "llama", "module", {}, "scaling"),
    (F.bug_linear_module, "llama", "module", {}, "scaling"),
    (F.bug_dtype_hf, "llama", "hf", {}, "dtype"),
    (F.bug_slice_hf, "llama", "hf", {"rotary_fraction": "0.5"}, "slice"),
    (F.llama_module, "llama", "module", {"rotary_fraction": "0.5"}, "slice"),   # partial rotary ignored
]


def _id(case):
    return f"{case[0].__name__}-{case[1]}-{case[2]}" + "".join(f"-{k}={v}" for k, v in case[3].items())


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("case", CORRECT, ids=_id)
def test_correct_application_conforms(case, dtype):  # REQ-CHECK-APPLY, TOL-APPLY
    fn, prof, conv, kw = case
    r = check_apply(fn, prof, dim=DIM, convention=conv, dtype=dtype, **kw)
    assert r.verdict == "conforms", f"{r.reason}; first failure {r.failures[:1]}"
    assert r.relative["holds"] and r.relative["comparisons"] > 1000  # THM-ROPE-REL on the function
    assert r.unjudged["count"] == 0 and r.exit_code == 0


@pytest.mark.parametrize("case", BUGS, ids=lambda c: f"{_id(c)}-{c[4]}")
def test_each_bug_class_is_rejected_and_named(case):  # REQ-CHECK-APPLY: the cause named
    fn, prof, conv, kw, cause = case
    r = check_apply(fn, prof, dim=DIM, convention=conv, **kw)
    assert r.verdict == "fails" and r.exit_code == 1
    assert r.cause_code == cause, f"named {r.cause_code!r}: {r.diagnosis['sentence'] if r.diagnosis else r.reason}"
    assert r.cause == r.diagnosis["sentence"]  # the sentence is the result's cause (text, JSON, JUnit)
    assert cause in " ".join(t["cause"] for t in r.diagnosis["tried"])


def test_named_causes_carry_the_detail():
    r = check_apply(F.bug_offset_by_one_module, "llama", dim=DIM, convention="module")
    assert "p + 1" in r.diagnosis["sentence"]
    r = check_apply(F.bug_base_module, "llama", dim=DIM, convention="module")
    assert "500000" in r.diagnosis["sentence"]
    r = check_apply(F.bug_pairing_hf, "llama", dim=DIM)
    assert r.leaks and "partner" in r.leaks[0]  # the unit vectors show the leak into a third channel


def test_bound_is_tight_a_few_ulps_fail():  # TOL-APPLY is not loose: 8 ulps of float32 on every output fail
    r = check_apply(F.llama_hf, "llama", dim=DIM)
    assert 0.3 < r.max_bound_ratio <= 1

    def off(q, k, cos, sin):
        qo, ko = F.llama_hf(q, k, cos, sin)
        return qo * (1 + 2.0 ** -20), ko
    bad = check_apply(off, "llama", dim=DIM)
    assert bad.verdict == "fails" and bad.cause_code is None and "closest" in bad.diagnosis["sentence"]


def test_exact_rotation_against_mpmath():  # DEF-ROPE-APPLY, computed independently at 50 digits
    rng = np.random.default_rng(3)
    pos = [0, 7, 1000, 100001]
    for layout in ("halves", "pairs"):
        rp = get_rotary("llama", layout=layout)
        x = rng.standard_normal((1, len(pos), 8))
        o, e = exact_rotation(x, angles(rp, 6, pos), layout)  # rotary dim 6 of 8: channels 6, 7 pass through
        mpmath.mp.dps = 50
        for s, p in enumerate(pos):
            for k in range(3):
                w = mpmath.mpf(10000) ** (-mpmath.mpf(2 * k) / 6)
                c, sn = mpmath.cos(p * w), mpmath.sin(p * w)
                a, b = (k, k + 3) if layout == "halves" else (2 * k, 2 * k + 1)
                xa, xb = mpmath.mpf(float(x[0, s, a])), mpmath.mpf(float(x[0, s, b]))
                assert abs(o[0, s, a] - (xa * c - xb * sn)) <= e[0, s, a] and e[0, s, a] < 1e-14
                assert abs(o[0, s, b] - (xb * c + xa * sn)) <= e[0, s, b]
            assert o[0, s, 6] == x[0, s, 6] and o[0, s, 7] == x[0, s, 7]


def test_relative_check_fails_on_a_function_that_is_not_relative():  # THM-ROPE-REL on the user's function
    rng = np.random.default_rng(0)
    pos = [0, 1, 2, 10, 11, 12]
    q, k = (np.repeat(rng.standard_normal((1, 1, 4)), len(pos), axis=1) for _ in range(2))  # one vector each
    ang = angles(get_rotary("llama"), 4, pos)
    oq, _ = exact_rotation(q, ang, "halves")
    ok, _ = exact_rotation(k, ang, "halves")
    tiny = np.full(oq.shape, 1e-12)
    assert relative(oq, ok, oq, tiny, tiny, pos)["holds"] is True
    absolute = np.array(oq)
    absolute[..., 0] += np.array(pos)[None, :] * 1e-3   # depends on m itself, not only on m - n
    res = relative(absolute, ok, oq, tiny, tiny, pos)
    assert res["holds"] is False and res["violations"] > 0 and res["first"]["gap"] > res["first"]["slack"]


def test_unjudged_is_inconclusive():  # REQ-CHECK-APPLY exit 3: a float32-computed cache at 10^7 in bfloat16
    r = check_apply(F.llama_module, "llama", dim=8, convention="module", dtype="bfloat16",
                    positions=[0, 1, 2, 3, 10**7, 10**7 + 1])
    assert r.verdict == "inconclusive" and r.exit_code == 3 and r.unjudged["from_position"] == 10**7


def test_api_and_json():  # REQ-API: sinpe.check_apply
    r = sinpe.check_apply(F.gptj_hf, "gptj", dim=8, dtype="float32")
    out = json.loads(json.dumps(r.to_json()))
    assert out["kind"] == "apply" and out["verdict"] == "conforms" and out["conformant"] is True
    with pytest.raises(ValueError, match="even integer"):
        sinpe.check_apply(F.gptj_hf, "gptj", dim=8, rotary_dim=3)


def test_cli_runs_the_function_isolated(tmp_path):  # REQ-CHECK-APPLY through REQ-CHECK-ISOLATE: 0, 1, 2
    ok = run_sinpe("check-apply", "apply_functions:llama_hf", "--dim", 16, cwd=HERE)
    assert_exit(ok, 0)
    assert "isolation:" in ok.stdout and "CONFORMS" in ok.stdout
    junit = tmp_path / "r.xml"
    bad = run_sinpe("check-apply", "apply_functions:bug_offset_by_one_module", "--convention", "module",
                    "--dim", 16, "--json", "--junit", junit, cwd=HERE)
    assert_exit(bad, 1)
    out = json.loads(bad.stdout)
    assert out["cause_code"] == "offset" and out["cause"].startswith("position offset")
    assert out["repeat"] == {"calls": 2, "differing": 0}  # called again in its child: the same bits, the cause stands
    assert f"cause: {out['cause']}" in junit.read_text().replace("&lt;", "<").replace("&gt;", ">")
    usage = run_sinpe("check-apply", "apply_functions:llama_hf", "--dim", 15, cwd=HERE)
    assert_exit(usage, 2)
    assert usage.stderr.count("\n") == 1 and "Traceback" not in usage.stderr


def test_cli_function_that_raises_is_one_line():
    res = run_sinpe("check-apply", "apply_functions:llama_hf", "--convention", "module", "--dim", 8, cwd=HERE)
    assert_exit(res, 2)
    assert "raised" in res.stderr and "Traceback" not in res.stderr and res.stderr.count("\n") == 1


def test_torch_inputs_are_exact_in_the_dtype():
    from sinpe.reference.checking.apply.inputs import build_inputs
    x = build_inputs(8, 3, "bfloat16")
    assert np.array_equal(torch.from_numpy(x).to(torch.bfloat16).double().numpy(), x)
