"""The pytest plugin and conformance suite (SPEC.md REQ-PLUGIN-RUN, REQ-PLUGIN-XFAIL), run as a third party runs it.

``pytest --pyargs sinpe.reference.conformance --sinpe-impl MOD:FN`` in a subprocess, against the
bundled implementation (must pass) and a swapped one (must fail), with the golden IDs as test IDs,
an xfail file, and JUnit output through pytest's own option.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from helpers import PYTEST

IMPLS = """
import numpy as np
from sinpe.reference.implementations.numpy_impl import pe_table
from sinpe.spec.profiles import get_profile
VAS = get_profile("vaswani")

def good(positions, d):
    return pe_table(VAS, d, positions, "float32")

def scaled_offset(positions, d):    # x-transformers-like amplitude, fairseq-like offset 2
    return pe_table(get_profile("t2t", amplitude="1/8", offset=2), d, positions, "float32")

def raising_t2t(positions, d):      # Whisper-like: raises at odd d
    if d % 2:
        raise ValueError("odd d")
    return pe_table(get_profile("t2t"), d, positions, "float32")

def f16_positions(positions, d):    # positions rounded to float16 before the phase (inf from 65520 on)
    p = np.asarray(positions, dtype=np.float16).astype(np.float64)[:, None]
    w = 10000.0 ** (-2 * np.arange(d // 2) / d)
    out = np.zeros((len(p), d))
    out[:, 0::2], out[:, 1::2] = np.sin(p * w), np.cos(p * w)
    return out.astype(np.float32)

def exits(positions, d):            # ends the process that calls it with status 0
    import os
    os._exit(0)

def patches(positions, d):          # monkeypatches the harness into a pass, then returns zeros
    import sinpe.reference.conformance.harness as h
    h.verdict = lambda *a, **k: ("conforms", "patched")
    h.impl_table = lambda *a, **k: np.zeros((len(positions), d))
    return np.zeros((len(positions), d))

def sleeps(positions, d):           # never returns
    import time
    time.sleep(3600)

def pid(positions, d):              # every entry the process ID of the process that computed it
    import os
    return np.full((len(positions), d), float(os.getpid()), dtype=np.float32)

def swapped(positions, d):          # sin and cos of the first pair exchanged
    t = good(positions, d)
    if d >= 2:
        t[:, [0, 1]] = t[:, [1, 0]]
    return t
"""


@pytest.fixture(scope="module")
def impl_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("impl")
    (d / "plugin_impls.py").write_text(IMPLS)
    return d


def run_pytest(cwd, *args):
    """``pytest --pyargs sinpe.reference.conformance ARGS`` in a subprocess in ``cwd`` (:data:`helpers.PYTEST`)."""
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    return subprocess.run([*PYTEST, "-q", "--pyargs", "sinpe.reference.conformance", *args], capture_output=True,
                          text=True, cwd=cwd, env=env)


def test_correct_implementation_passes_with_golden_ids(impl_dir):  # REQ-PLUGIN-RUN
    res = run_pytest(impl_dir, "--sinpe-impl", "plugin_impls:good", "--sinpe-profile", "vaswani",
                     "--sinpe-dtype", "float32", "--sinpe-d", "4,65", "-rA")
    assert res.returncode == 0, res.stdout[-2000:]
    from sinpe.reference.golden.vectors import iter_cases
    gid = next(iter_cases(profile="vaswani", dtype="float32", d=65))["id"]
    assert f"-{gid}]" in res.stdout and "vaswani-d65-float32-p" in res.stdout


def test_wrong_implementation_fails_with_reproduction(impl_dir, tmp_path):  # REQ-PLUGIN-RUN
    junit = tmp_path / "report.xml"
    res = run_pytest(impl_dir, "--sinpe-impl", "plugin_impls:swapped", "--sinpe-d", "4", f"--junitxml={junit}")
    assert res.returncode == 1
    assert "sinpe table --profile vaswani --d 4 --positions" in res.stdout
    assert "reproduce: pytest --pyargs sinpe.reference.conformance --sinpe-impl plugin_impls:swapped" in res.stdout
    assert "<failure" in junit.read_text()


def test_xfail_file_matches_prefixes_and_warns_on_unused(impl_dir, tmp_path):  # REQ-PLUGIN-XFAIL
    xf = tmp_path / "known.txt"
    xf.write_text("xfail vaswani-d4-float32  # columns 0 and 1 swapped, fix pending\nskip no-such-prefix\n")
    res = run_pytest(impl_dir, "--sinpe-impl", "plugin_impls:swapped", "--sinpe-d", "4", "--sinpe-xfail-file", str(xf))
    assert res.returncode == 0, res.stdout[-2000:]
    assert "xfailed" in res.stdout and "failed" not in res.stdout.replace("xfailed", "")
    assert "known.txt:2: skip 'no-such-prefix' matches no conformance test ID" in res.stdout


def test_missing_impl_is_a_failure_not_a_skip(impl_dir):
    res = run_pytest(impl_dir)
    assert res.returncode == 1 and "pass --sinpe-impl module:callable" in res.stdout


def test_plugin_is_import_light():
    code = "import sys, sinpe.reference.conformance.plugin; print(sorted(m for m in ('numpy', 'torch', 'mpmath', 'flint') if m in sys.modules))"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.stdout.strip() == "[]", res.stdout + res.stderr


def test_only_test_files_are_assertion_rewritten(request):  # REQ-PLUGIN-RUN: a session's start pays for no rewrite
    """In this session (the plugin loaded by its entry point): of sinpe's modules, only those imported with the plugin
    (before it could narrow pytest's mark of the whole sinpe package) were parsed and rewritten by pytest; the
    others, e.g. the check, are loaded as Python loads them. The test files still are rewritten."""
    from sinpe.reference.checking import check
    rewriter = type(request.config.pluginmanager.rewrite_hook)
    code = "import sys, sinpe.reference.conformance.plugin; print(' '.join(m for m in sys.modules if m.startswith('sinpe')))"
    with_plugin = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.split())
    rewritten = {n for n, m in list(sys.modules.items()) if n.startswith("sinpe") and isinstance(m.__loader__, rewriter)
                 and not n.rsplit(".", 1)[-1].startswith("test_")}  # the conformance tests: test files
    assert "sinpe.reference.conformance.plugin" in with_plugin and rewritten <= with_plugin, rewritten - with_plugin
    assert not isinstance(check.__loader__, rewriter) and isinstance(sys.modules[__name__].__loader__, rewriter)


def test_verdict_requires_a_value_of_the_dtype():  # REQ-PLUGIN-RUN
    # review regression: at tier phase a float64 value (not a float32 one) inside the bound passed as float32
    import numpy as np

    from sinpe.reference.conformance.harness import select_cases, verdict
    case = next(c for c in select_cases("vaswani", "float32", widths=[4], max_position=3) if c["value"] not in (0.0, 1.0))
    assert verdict(case, case["value"], "phase")[0] == "conforms"   # the golden float32 value passes
    y = float(np.nextafter(case["value"], 2.0))                     # 1 ulp of binary64 away: not a float32
    status, why = verdict(case, y, "phase")
    assert status == "fails" and "is not a float32 value" in why, why


def test_unjudged_golden_case_is_inconclusive_never_a_pass():  # REQ-CHECK-UNJUDGED, REQ-PLUGIN-RUN
    from sinpe.reference.conformance.harness import select_cases, verdict
    far = [c for c in select_cases("vaswani", "float16", widths=[4]) if c["position_float"] >= 2**20 and c["column"] == 0]
    case = far[0]
    # natively computed float16: the bound at |theta| >= 2^20 admits every value in [-1, 1]
    assert verdict(case, 0.0, "phase", "native")[0] == "inconclusive"
    assert verdict(case, 0.0, "phase", "float64")[0] == "fails" or abs(float(case["decimal"])) < 2**-10
    # the default (computed in float32) judges nothing there either: still never "conforms" for a wrong 0.0
    assert verdict(case, 0.0, "phase")[0] in ("inconclusive", "fails")


def test_plugin_choices_equal_the_library_ones():  # REQ-PLUGIN-RUN: the plugin's copies cannot drift
    from sinpe.reference.checking.loaders import CALLS
    from sinpe.reference.conformance import plugin
    from sinpe.spec.tolerance import TIERS, WORKING_CHOICES
    assert (plugin.TIERS, plugin.CALLS, plugin.WORKING_CHOICES) == (TIERS, CALLS, WORKING_CHOICES)


def test_profile_overrides_recompute_the_references(impl_dir):  # REQ-PLUGIN-OVERRIDES
    """REQ-PLUGIN-OVERRIDES: overrides recompute the references."""
    """--sinpe-amplitude/-offset: the references are the overridden profile's; the plain preset fails, and a
    wrong override (offset 1) fails too."""
    args = ("--sinpe-impl", "plugin_impls:scaled_offset", "--sinpe-profile", "t2t", "--sinpe-d", "4,64",
            "--sinpe-max-position", "1000")
    ok = run_pytest(impl_dir, *args, "--sinpe-amplitude", "1/sqrt(64)", "--sinpe-offset", "2", "-rA")
    assert ok.returncode == 0, ok.stdout[-2000:]
    assert "t2t[amplitude=1/sqrt(64),offset=2]-d64-float32-p" in ok.stdout
    assert run_pytest(impl_dir, *args).returncode == 1
    bad = run_pytest(impl_dir, *args, "--sinpe-amplitude", "1/8", "--sinpe-offset", "1")
    assert bad.returncode == 1 and "--sinpe-amplitude 1/8 --sinpe-offset 1" in bad.stdout


def test_odd_error_override_requires_a_raise(impl_dir):  # REQ-PLUGIN-OVERRIDES
    args = ("--sinpe-profile", "t2t", "--sinpe-d", "4,65", "--sinpe-max-position", "100")
    ok = run_pytest(impl_dir, "--sinpe-impl", "plugin_impls:raising_t2t", *args, "--sinpe-odd", "error", "-rA")
    assert ok.returncode == 0 and "t2t-d65-raises" in ok.stdout, ok.stdout[-2000:]
    bad = run_pytest(impl_dir, "--sinpe-impl", "plugin_impls:scaled_offset", *args, "--sinpe-odd", "error")
    assert bad.returncode == 1 and "odd rule 'error' requires it to raise" in bad.stdout


def test_plugin_override_options_match_the_cli():  # REQ-PLUGIN-OVERRIDES: every profile flag of `sinpe check`
    import argparse

    from sinpe.reference.cli.args import add_profile_arguments
    from sinpe.reference.conformance import plugin
    from sinpe.spec.profiles import LAYOUTS, ODD_RULES
    p = argparse.ArgumentParser()
    add_profile_arguments(p)
    cli = {a.dest for a in p._actions if a.option_strings and a.dest not in ("help", "profile")}
    assert {dest for _, dest, _, _ in plugin.OVERRIDE_OPTIONS} == cli
    assert (plugin.LAYOUTS, plugin.ODD_RULES) == (LAYOUTS, ODD_RULES)


@pytest.mark.parametrize("impl", ["exits", "patches"])
def test_implementation_cannot_end_or_patch_the_session(impl_dir, impl):  # REQ-PLUGIN-RUN, issue 17.5
    """The implementation runs in a child process: os._exit(0) or a monkeypatched harness fails the tests;
    the same implementation called in process (--sinpe-in-process, on request only) makes pytest exit 0."""
    res = run_pytest(impl_dir, "--sinpe-impl", f"plugin_impls:{impl}", "--sinpe-d", "4")
    assert res.returncode == 1 and "failed" in res.stdout.splitlines()[-1], res.stdout[-2000:]
    forged = run_pytest(impl_dir, "--sinpe-impl", f"plugin_impls:{impl}", "--sinpe-d", "4", "--sinpe-in-process")
    assert forged.returncode == 0 and "failed" not in forged.stdout, forged.stdout[-500:]


def test_summary_one_line_per_cause_and_the_hint_once(impl_dir):  # REQ-PLUGIN-SUMMARY
    """REQ-PLUGIN-SUMMARY: one line per cause, the hint once."""
    res = run_pytest(impl_dir, "--sinpe-impl", "plugin_impls:raising_t2t", "--sinpe-profile", "t2t", "--sinpe-d", "4,65")
    assert res.returncode == 1
    tail = res.stdout.split("sinpe conformance summary")[1]
    n = int(res.stdout.strip().splitlines()[-1].split()[0])
    assert f"sinpe: {n} failures, 1 cause:" in tail, tail
    assert f"{n} at t2t float32 d=65: raised ValueError: odd d" in tail, tail
    assert res.stdout.count("hint: its signature is raising_t2t") == 1
    assert "pass --sinpe-odd error" in tail


def test_after_a_time_out_the_implementation_is_not_called_again(impl_dir, tmp_path):  # REQ-PLUGIN-RUN, issue 26.5
    """A sleeping implementation times out once (at the first width); every later width fails with the same
    error without a call (the message names d=1), and the summary has one line for it."""
    import xml.etree.ElementTree as ET
    junit = tmp_path / "r.xml"
    res = run_pytest(impl_dir, "--sinpe-impl", "plugin_impls:sleeps", "--sinpe-d", "1,4,8", "--sinpe-timeout", "2",
                     "--tb=no", f"--junitxml={junit}")
    assert res.returncode == 1, res.stdout[-1000:]
    failed = {c.get("name"): c.find("failure").get("message") for c in ET.parse(junit).iter("testcase")}
    assert all("did not return within 2 s at d=1 (--sinpe-timeout)" in m for m in failed.values()), failed
    assert {name.split("[")[1].split("-")[1] for name in failed} == {"d1", "d4", "d8"}
    tail = res.stdout.split("sinpe conformance summary")[1]
    assert len([ln for ln in tail.splitlines() if " at vaswani float32 d=" in ln]) == 1, tail
    assert "marked failed for the rest of the run" in tail


def test_one_child_serves_every_width(impl_dir):  # REQ-PLUGIN-RUN, issue 28.2
    """The implementation's worker is started once per session: every width computed by the same process
    (the process ID in every entry, compared across widths through the failure messages' values)."""
    res = run_pytest(impl_dir, "--sinpe-impl", "plugin_impls:pid", "--sinpe-d", "2,4,8", "--tb=short",
                     "--sinpe-max-position", "0")
    assert res.returncode == 1
    import re
    pids = set(re.findall(r"value ([0-9.e+]+), exact", res.stdout))
    widths = set(re.findall(r"vaswani d=(\d+) position", res.stdout))
    assert widths == {"2", "4", "8"} and len(pids) == 1, (widths, pids)


def test_failures_say_what_the_cli_says(impl_dir):  # REQ-PLUGIN-SUMMARY: the CLI's cause sentence
    res = run_pytest(impl_dir, "--sinpe-impl", "plugin_impls:f16_positions", "--sinpe-d", "64")
    assert res.returncode == 1
    tail = res.stdout.split("sinpe conformance summary")[1]
    assert "at vaswani float32 d=64: the table reads as positions in float16 (precision loss)" in tail, tail
    assert "(cause, as sinpe check says: the table reads as positions in float16" in res.stdout
    ok = run_pytest(impl_dir, "--sinpe-impl", "plugin_impls:good", "--sinpe-d", "64")
    assert ok.returncode == 0 and "sinpe conformance summary" not in ok.stdout


def test_xfail_file_format_is_documented_and_limited(impl_dir, tmp_path):  # REQ-PLUGIN-XFAIL
    from sinpe.reference.conformance.plugin import MAX_XFAIL_BYTES
    helptext = run_pytest(impl_dir, "--help").stdout
    assert "known failures: one entry a line: 'xfail PREFIX" in " ".join(helptext.split())
    big = tmp_path / "big.txt"
    big.write_text("# x\n" * (MAX_XFAIL_BYTES // 4 + 1))
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"xfail \xff\x00\x01")
    for path, words in ((big, "larger than"), (binary, "not UTF-8 text")):
        res = run_pytest(impl_dir, "--sinpe-impl", "plugin_impls:good", "--sinpe-d", "4", "--sinpe-xfail-file", str(path))
        assert res.returncode == 4 and words in res.stdout + res.stderr, res.stdout[-500:] + res.stderr[-500:]
