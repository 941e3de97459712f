"""Shared fixtures of the test suite: the one CLI runner (tests/helpers.run_sinpe) and tables written to a
temporary directory; the tests that share a module-scoped fixture grouped for pytest-xdist (``make test``:
``-n auto --dist loadgroup``); and the fast subset: ``pytest -m "not slow"`` (``make test-fast``) skips the modules
listed in :data:`SLOW_MODULES`, each of which takes more than ~10 s on a quiet 2-core machine."""
from __future__ import annotations

import ast
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import run_sinpe

# every process the tests start (a CLI in a subprocess, an isolated child, a pytest run of the plugin) imports NumPy;
# OpenBLAS's thread pool, started at that import, spends about 0.1 s of CPU a process for no BLAS work (the children
# see the variable: guard.ENV_PASSED). The workers already use every core (-n auto). A value the caller set stands.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

SLOW_MODULES = ("test_proofs.py", "test_proofs_negative.py", "test_proofs_certificates.py", "test_proofs_claims.py",
                "test_claims_cli.py", "test_golden_regen.py", "test_certify.py", "test_packaging.py",
                "test_hostile.py", "test_survey.py", "test_certificates_hostile.py")


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    for item in items:
        if item.nodeid.split("::")[0].rsplit("/", 1)[-1] in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: unknown (and unused) without it
def pytest_xdist_make_scheduler(config: Any, log: Any) -> Any:
    """``-n N --dist loadgroup`` (make test): each test is its own unit of work, except that the tests taking the
    same module-scoped fixture (the proof suite, the golden set, a wheel, the survey reports: seconds each), or
    the same session-scoped fixture of this file (the proof certificates, read by two modules), form one unit, so
    the fixture is built once, on one worker. (xdist's own loadgroup reads ``xdist_group`` marks through
    ``item._nodeid``, which pytest 9 no longer reads: it would group nothing.)"""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling
    groups = _module_fixture_users(Path(str(config.rootpath)))

    class ModuleFixtureScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return groups.get(nodeid.split("[", 1)[0], nodeid)
    return ModuleFixtureScheduling(config, log)


def _module_fixture_users(root: Path) -> dict[str, str]:
    """``file::test`` -> ``file::fixture`` for every test function taking a module-scoped fixture of its file, else
    -> ``tests/conftest.py::fixture`` for one taking a session-scoped fixture of this file (read from the source:
    the controller collects nothing)."""
    here = Path(__file__).resolve()
    conftest = [f for f in ast.parse(here.read_text(encoding="utf-8")).body if isinstance(f, ast.FunctionDef)]
    session = {f.name for f in conftest if any(_scoped(d, "session") for d in f.decorator_list)}
    out: dict[str, str] = {}
    for path in here.parent.glob("test_*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        rel = path.relative_to(root).as_posix()
        funcs = [f for f in tree.body if isinstance(f, ast.FunctionDef)]
        shared = {f.name for f in funcs if any(_scoped(d, "module") for d in f.decorator_list)}
        for f in funcs:
            args = {a.arg for a in f.args.args}
            used, common = sorted(shared & args), sorted(session & args - shared)
            if f.name.startswith("test") and used:
                out[f"{rel}::{f.name}"] = f"{rel}::{used[0]}"
            elif f.name.startswith("test") and common:
                out[f"{rel}::{f.name}"] = f"{here.relative_to(root).as_posix()}::{common[0]}"
    return out


def _scoped(decorator: ast.expr, scope: str) -> bool:
    """``@pytest.fixture(scope=scope)``."""
    return isinstance(decorator, ast.Call) and any(
        k.arg == "scope" and isinstance(k.value, ast.Constant) and k.value.value == scope for k in decorator.keywords)


_DURATIONS: dict[str, float] = {}


def pytest_runtest_logreport(report: Any) -> None:
    """Each test's setup + call + teardown seconds (under xdist the controller receives every worker's reports)."""
    _DURATIONS[report.nodeid] = _DURATIONS.get(report.nodeid, 0.0) + float(getattr(report, "duration", 0.0))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """The sum of the per-test durations beside the wall time pytest prints: how much parallel runs save."""
    if _DURATIONS:
        terminalreporter.write_line(f"sum of per-test durations: {sum(_DURATIONS.values()):.1f} s over "
                                    f"{len(_DURATIONS)} tests")


@pytest.fixture
def sinpe_cli() -> Callable[..., Any]:
    """``sinpe_cli("check", "t.npy", cwd=...)``: tests/helpers.run_sinpe, the suite's one CLI runner."""
    return run_sinpe


@pytest.fixture
def tmp_table(tmp_path: Any) -> Callable[..., Any]:
    """``tmp_table(profile, d, rows, dtype, name="t.npy", edit=None)``: the correctly rounded table written as
    ``.npy`` in a temporary directory (``edit(table)`` may change it first); returns the path."""
    from sinpe.reference.tables import table

    def write(profile: str = "vaswani", d: int = 16, rows: int = 40, dtype: str = "float32", name: str = "t.npy",
              edit: Callable[[np.ndarray], Any] | None = None) -> Any:
        t = table(profile, d, rows, dtype)
        if edit is not None:
            edit(t)
        np.save(tmp_path / name, t)
        return tmp_path / name
    return write


# REQ-PROVE-CERT: the theorems whose certificates tests/test_proofs_certificates.py and
# tests/test_certificates_hostile.py read (every entry kind but the plan steps and THM-SHIFT's, which those
# modules record from the step functions themselves), and whose results (proven with the witness)
# tests/test_proofs.py reads: written once per test session.
CERTIFIED_SUBSET = ("THM-DOT", "THM-EVEN", "THM-NORM", "THM-BOUND", "THM-WAVE", "THM-INJ", "THM-NONPERM", "THM-ATTN",
                    "THM-CPLX", "THM-ROPE-REL")


@pytest.fixture(scope="session")
def proof_certificates(tmp_path_factory: Any) -> tuple[Any, dict, dict]:
    """(directory, summary, results by ID): ``write_suite`` of :data:`CERTIFIED_SUBSET`, once per session (each
    theorem proven with the witness, as tests/test_proofs.py's witness test reads them); copy before editing."""
    from sinpe.proofs.certificates import write_suite
    d = tmp_path_factory.mktemp("certificates")
    results, summary = write_suite(str(d), list(CERTIFIED_SUBSET))
    assert all(r.proven for r in results), [r.id for r in results if not r.proven]
    return d, summary, {r.id: r for r in results}


@pytest.fixture(scope="session")
def lint_run() -> list[tuple[tuple[str, ...], Any]]:
    """`make lint`'s steps (helpers.LINT_STEPS: ruff, mypy over the package and over benchmarks/, import-linter) run
    once per session: test_hygiene asserts they are clean. test_static_checks' mypy tests take it too, so they run
    after it on its worker and copy the .mypy_cache it leaves (one unit of work: pytest_xdist_make_scheduler); the
    other worker runs the rest meanwhile (``make lint`` before pytest left one core idle for its ~40 s)."""
    from helpers import run_lint_steps
    return run_lint_steps()


def certificates_of(src: Path, dst: Path, *ids: str) -> Path:
    """``dst/c``: the certificates of ``ids`` copied from ``src`` (the session's ``proof_certificates``) with an
    index listing exactly them, so that a test checks the files its forgery is about (checked with
    ``--only ",".join(ids)``); the whole subset costs ~4.5 s a check (THM-WAVE's binding re-runs its proof)."""
    import json
    import shutil

    from sinpe.proofs import certcheck
    d = dst / "c"
    d.mkdir()
    for tid in ids:
        shutil.copy(src / f"{tid}.json", d / f"{tid}.json")
    index = {"schema": certcheck.SCHEMA, "theorems": list(ids), "files": [f"{tid}.json" for tid in ids]}
    (d / certcheck.INDEX).write_text(json.dumps(index))
    return d
