"""A failing application is called a second time with the same inputs (SPEC.md REQ-CHECK-APPLY, the repeat): torch
2.13's MKL VML picked its low-accuracy cos when two threads made the first call at once (pytorch/pytorch#188792), and
the survey's Qwen2-VL M-RoPE float32 check failed once in CI, passing on every other run. Outputs that differ from
the first call's bit for bit name the cause ``nondeterministic`` (the verdict stays the first call's, exit 1); outputs
that repeat change nothing but ``repeat``; a passing check calls the function once.

Calls are counted where the checker makes them: a Python callable's own closure (in this process), a named
function's requests to its child (:class:`sinpe.reference.checking.isolate.Worker`, wrapped here in the parent: the
child's count is not ours to read).

Reproduce: python -m pytest tests/test_apply_repeat.py -k NAME -n 0
"""
from __future__ import annotations

import json
import os
import sys

import pytest

from sinpe import check_apply
from sinpe.reference.checking import isolate

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import apply_functions as F  # noqa: E402
from helpers import assert_exit, run_sinpe  # noqa: E402

DIM = 16
SENTENCE = "the function returned different values for the same inputs on a second call: {} of {} entries differ; " \
           "the verdict is on the first call"


def counted(fn, wrong_on=()):
    """``fn`` counting its calls (``.calls``); the calls numbered in ``wrong_on`` rotate by -theta instead."""
    def apply(q, k, cos, sin):
        apply.calls += 1
        return (F.bug_sign_hf if apply.calls in wrong_on else fn)(q, k, cos, sin)
    apply.calls = 0
    return apply


@pytest.fixture
def requests(monkeypatch):
    """The requests the parent sends to isolated children, and the children started: [calls, starts]."""
    seen = [0, 0]
    call, start = isolate.Worker.call, isolate.Worker._start

    def counting_call(self, *a, **kw):
        seen[0] += 1
        return call(self, *a, **kw)

    def counting_start(self):
        seen[1] += 1
        return start(self)
    monkeypatch.setattr(isolate.Worker, "call", counting_call)
    monkeypatch.setattr(isolate.Worker, "_start", counting_start)
    monkeypatch.chdir(HERE)  # the child imports apply_functions from the current directory
    return seen


def test_a_function_wrong_only_on_its_first_call_is_nondeterministic(requests):  # isolated: the same child twice
    r = check_apply("apply_functions:flaky_first_call_hf", "llama", dim=DIM)
    assert requests == [2, 1], "two requests, one child"
    assert r.verdict == "fails" and r.exit_code == 1 and r.n_failures > 0   # the first call's values
    assert 0 < r.repeat["differing"] <= r.compared and r.repeat["calls"] == 2
    assert (r.cause_code, r.cause) == ("nondeterministic", SENTENCE.format(r.repeat["differing"], r.compared))
    assert r.diagnosis["cause"] == "sign"   # what the first output reads as, kept in the JSON


def test_in_process_first_call_wrong():  # a Python callable: called twice, the second time right
    fn = counted(F.llama_hf, wrong_on=(1,))
    r = check_apply(fn, "llama", dim=DIM)
    assert fn.calls == 2 and r.exit_code == 1 and r.cause_code == "nondeterministic"
    assert r.repeat["calls"] == 2 and 0 < r.repeat["differing"] <= r.compared
    assert r.to_json()["repeat"] == r.repeat


def test_a_deterministic_wrong_function_keeps_its_cause():
    fn = counted(F.bug_sign_hf)
    r = check_apply(fn, "llama", dim=DIM)
    assert fn.calls == 2 and r.exit_code == 1
    assert r.cause_code == "sign" and r.repeat == {"calls": 2, "differing": 0}
    assert json.loads(json.dumps(r.to_json()))["repeat"] == {"calls": 2, "differing": 0}


def test_a_second_call_that_fails_is_noted_and_the_verdict_stands():
    fn = counted(F.bug_sign_hf)

    def raises_second(q, k, cos, sin):
        if fn.calls:
            raise RuntimeError("out of luck")
        return fn(q, k, cos, sin)
    r = check_apply(raises_second, "llama", dim=DIM)
    assert r.exit_code == 1 and r.cause_code == "sign"
    assert r.repeat["calls"] == 2 and r.repeat["differing"] is None and "out of luck" in r.repeat["error"]
    assert any(n.startswith("a second call with the same inputs failed") for n in r.notes)


def test_a_passing_check_calls_once(requests):  # no cost on the common path, in process and isolated
    fn = counted(F.llama_hf)
    r = check_apply(fn, "llama", dim=DIM)
    assert (r.verdict, fn.calls, r.repeat) == ("conforms", 1, None)
    r = check_apply("apply_functions:llama_hf", "llama", dim=DIM)
    assert (r.verdict, r.repeat) == ("conforms", None) and requests == [1, 1]
    assert r.to_json()["repeat"] is None


def test_cli_mrope_float32_low_accuracy_first_call():  # the survey's case: Qwen2-VL M-RoPE, float32, module
    args = ("check-apply", "apply_functions:flaky_first_call_mrope_module", "--convention", "module", "--profile",
            "qwen2-vl", "--mrope-section", "4,6,6", "--dim", 32, "--dtype", "float32")
    text = run_sinpe(*args, cwd=HERE)
    assert_exit(text, 1)
    line = [ln for ln in text.stdout.splitlines() if "second call" in ln]
    assert len(line) == 1 and line[0].startswith("cause: the function returned different values"), text.stdout
    out = json.loads(run_sinpe(*args, "--json", cwd=HERE).stdout)
    assert (out["exit_code"], out["cause_code"]) == (1, "nondeterministic")
    assert out["repeat"]["calls"] == 2 and 0 < out["repeat"]["differing"] <= out["entries"] // 2  # the queries only
