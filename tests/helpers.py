"""Shared test helpers (the array-api-tests ``pytest_helpers`` model): one way to run the CLI, and
assertions whose messages carry the command that reproduces the failure."""
from __future__ import annotations

import importlib.util
import os
import shlex
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from sinpe.reference.checking.detect.rotary import rotary_layout  # noqa: F401  (for the tests that read layouts)
from sinpe.reference.checking.kinds import grid as _grid, rotary as _rotary

SCRIPT = os.path.join(os.path.dirname(sys.executable), "sinpe")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# ``python -m pytest`` as the tests run it in a subprocess (the plugin, the README's CI example): no cache written, and
# Hypothesis's plugin (installed for this suite, not sinpe's) left out: it imports and assertion-rewrites all of
# Hypothesis at the summary, about 1 s of each run under PYTHONDONTWRITEBYTECODE
PYTEST = (sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:hypothesispytest")

# `make lint`'s recipe, step by step (the tools pinned in requirements.lock, installed in .venv by `make`); `make test`
# runs them inside pytest, once (conftest.lint_run), beside the other tests
LINT_STEPS = (("ruff", "check", "."), ("mypy",), ("mypy", "benchmarks"), ("lint-imports",))


def tool(name: str) -> str:
    """The path of the pinned tool ``name`` in this interpreter's environment; missing, an assertion fails (never a
    skip: CI cannot pass without it)."""
    path = os.path.join(os.path.dirname(sys.executable), name)
    assert os.path.exists(path), f"{path} is missing: `make` installs the pinned tools of requirements.lock"
    return path


def run_lint_steps() -> list[tuple[tuple[str, ...], subprocess.CompletedProcess]]:
    """Each of :data:`LINT_STEPS` run in the repository with :func:`tool`, in order: ``[(step, completed process)]``."""
    return [(step, subprocess.run([tool(step[0]), *step[1:]], cwd=ROOT, capture_output=True, text=True, timeout=600))
            for step in LINT_STEPS]


# the grid and rotary kinds' checks and readings by the names the tests call them (REQ-CHECK-GRID, REQ-CHECK-ROPE,
# REQ-DETECT-GRID, REQ-DETECT-ROPE)
check_grid, detect_grid = _grid.KIND.check_grid, _grid.KIND.read
check_rotary, detect_rotary = _rotary.KIND.check_cache, _rotary.KIND.read


def scaled_estimates(kernel: Callable[..., tuple[Any, Any]], delta: float) -> Callable[..., tuple[Any, Any]]:
    """``kernel`` (a narrow kernel returning the sin and cos estimates S, C) wrapped so that each estimate it
    returns is moved by ``delta`` times its magnitude (in place): the estimate off by more than a bound of
    ``delta |.|`` claims, for the negative tests of a narrow bound."""
    def wrong(*a: Any, **k: Any) -> tuple[Any, Any]:
        S, C = kernel(*a, **k)
        S += delta * abs(S)
        C += delta * abs(C)
        return S, C
    return wrong


def survey_report() -> Any:
    """survey/report.py (the survey's standard-library renderer; survey/ is not a package), loaded by path once."""
    name = "sinpe_survey_report"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "survey", "report.py"))
        assert spec is not None and spec.loader is not None
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name]


def run_sinpe(*args: Any, cwd: Any = None, timeout: float = 600, module: bool = False,
              in_process: bool | None = None, process: bool = False) -> subprocess.CompletedProcess:
    """``sinpe ARGS``: by default the console script's entry point ``main(ARGS)`` in this process, its
    stdout/stderr captured, in ``cwd`` (what the script runs, without the cost of a new interpreter);
    ``process``: the installed console script in a subprocess, ``module``: ``python -m sinpe.reference.cli`` in
    a subprocess -- only where the process boundary is what a test is about (isolation, signals, the script,
    packaging). The result carries ``.repro``, the command line to paste."""
    if in_process is None:
        in_process = not (module or process)
    if in_process:
        res = _in_process([str(a) for a in args], cwd)
    else:
        cmd = [sys.executable, "-m", "sinpe.reference.cli"] if module else [SCRIPT]
        res = subprocess.run([*cmd, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=timeout)
    res.repro = "sinpe " + " ".join(shlex.quote(str(a)) for a in args)  # type: ignore[attr-defined]
    return res


def _in_process(args: list[str], cwd: Any) -> subprocess.CompletedProcess:
    import contextlib
    import io

    from sinpe.reference.cli import main
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.chdir(cwd or old)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(args)
            except SystemExit as e:   # argparse's own usage errors
                rc = int(e.code or 0)
    finally:
        os.chdir(old)
    return subprocess.CompletedProcess(["sinpe", *args], rc, out.getvalue(), err.getvalue())


def assert_exit(res: subprocess.CompletedProcess, code: int) -> None:
    """The command exited ``code``; else the message says how to rerun it and what it printed."""
    assert res.returncode == code, (f"exit {res.returncode}, expected {code}; reproduce: "
                                    f"{getattr(res, 'repro', res.args)}\n{res.stdout[-2000:]}{res.stderr[-2000:]}")


def assert_verdict(result: Any, verdict: str, repro: str = "") -> None:
    """A CheckResult's verdict; the message gives the reason, the first failure's reproduction and ``repro``."""
    fails = getattr(result, "failures", None) or [None]
    first = fails[0].get("repro", fails[0]) if isinstance(fails[0], dict) else getattr(fails[0], "repro", "")
    assert result.verdict == verdict, (f"verdict {result.verdict!r}, expected {verdict!r}: {result.reason}"
                                       + (f"; first failure: {first}" if first else "")
                                       + (f"; reproduce: {repro}" if repro else ""))


def perturb(t: Any, r: int = 7, j: int = 3, by: float = 1e-3) -> Any:
    """A copy of table ``t`` with entry (r, j) moved by ``by``: the one wrong entry a check must find."""
    import numpy as np
    bad = np.array(t, copy=True)
    bad[r, j] += by
    return bad
