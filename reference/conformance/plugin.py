"""pytest plugin (entry point ``pytest11: sinpe``) for the conformance suite (SPEC.md REQ-PLUGIN-RUN, REQ-PLUGIN-XFAIL).

Loaded in every pytest session where sinpe is installed, so this module imports nothing but the
standard library and pytest, and does nothing unless the conformance tests are collected.

Run the suite against your implementation::

    pytest --pyargs sinpe.reference.conformance --sinpe-impl mypkg.mod:fn \\
        --sinpe-profile vaswani --sinpe-dtype float32 [--sinpe-tier phase] \\
        [--sinpe-xfail-file known.txt] [--junitxml report.xml]
        [--sinpe-amplitude 1/8] [--sinpe-offset 2] [--sinpe-odd error] [--sinpe-base ...] [--sinpe-layout ...]
        [--sinpe-shift ...] [--sinpe-phase-scale ...]   # every profile override `sinpe check` takes

``fn(positions, d)`` returns the table (rows = positions, columns = channels); see
:mod:`sinpe.reference.checking.loaders` for the adapters (``--sinpe-call n|buffer|forward``). Test IDs are
``<profile>-d<d>-<dtype>-p<position>-c<column>-<golden id>``. The implementation runs in a child process, as
``sinpe check`` runs a ``module:callable`` (one child for the session, each width one call under
``--sinpe-timeout``; after a time-out it is not called again; ``--sinpe-in-process`` to import it here): it
cannot end, patch or outlive the session (REQ-PLUGIN-RUN). The session ends with one summary line per
(profile, dtype, cause) with the widths and counts, each hint printed once (REQ-PLUGIN-SUMMARY).

The xfail file (REQ-PLUGIN-XFAIL; UTF-8 text, at most :data:`MAX_XFAIL_BYTES`) holds one entry a line::

    # comment lines and blank lines are ignored
    xfail vaswani-d4-float32   # reason shown by pytest
    skip  t2t-d65-raises       # not run at all

A PREFIX matches a test ID or golden ID that starts with it; the first matching entry applies, and an
entry matching nothing is reported as a warning.
"""
from __future__ import annotations

import sys
import warnings
from typing import Any

import pytest

# Copies, so that loading the plugin imports no NumPy (tests/test_plugin.py checks they equal the library's).
TIERS = ("exact", "faithful", "phase")
CALLS = ("positions", "n", "buffer", "forward")
WORKING_CHOICES = ("native", "float32", "float64")
CONFORMANCE_MODULE = "test_conformance.py"
MAX_XFAIL_BYTES = 1 << 20  # an xfail file larger than this is refused (REQ-PLUGIN-XFAIL)
XFAIL_FORMAT = ("one entry a line: 'xfail PREFIX  # reason' or 'skip PREFIX  # reason' (PREFIX: the start of a test ID "
                "such as vaswani-d4-float32 or of a golden ID; '#' lines and blank lines ignored; UTF-8, at most "
                f"{MAX_XFAIL_BYTES} bytes)")
SHOWN_FAILURE_WIDTHS = 8  # widths listed per summary line
LAYOUTS = ("interleaved", "sin-cos", "cos-sin")
ODD_RULES = ("trailing-sin", "zero-pad", "ceil-split", "error")
# the profile overrides `sinpe check` takes, as --sinpe-<flag> (REQ-PLUGIN-OVERRIDES): (flag, dest, choices, help)
OVERRIDE_OPTIONS = (
    ("layout", "layout", LAYOUTS, "column layout"),
    ("shift", "shift", None, "schedule shift s: D = floor(d/2) - s ('half' for Vaswani's D = d/2)"),
    ("base", "base", None, "frequency base b (exact decimal or simple expression)"),
    ("phase-scale", "phase_scale", None, "phase scale sigma"),
    ("amplitude", "amplitude", None, "amplitude alpha (e.g. 1/8 or 1/sqrt(64))"),
    ("offset", "offset", None, "position offset (e.g. 2 for fairseq-style positions)"),
    ("odd", "odd", ODD_RULES, "rule for odd d (error: the implementation must raise at odd d)"),
)


def pytest_plugin_registered(plugin: Any, manager: Any) -> None:
    """Narrow pytest's assertion rewriting to the conformance tests. pytest marks every top-level package of a
    distribution with a ``pytest11`` entry point for rewriting, so each sinpe module a session imports (a test
    suite that imports sinpe, this suite) would be parsed, rewritten and compiled again -- in every session where
    bytecode is not written (``PYTHONDONTWRITEBYTECODE``): about 6 s of each start of sinpe's own suite. The
    conformance tests are test files (rewritten as such); sinpe's other modules have no assertion to show. Where
    a pytest keeps its marks elsewhere, nothing changes."""
    marked = getattr(getattr(manager, "rewrite_hook", None), "_must_rewrite", None)
    if plugin is sys.modules.get(__name__) and isinstance(marked, set) and "sinpe" in marked:
        marked.discard("sinpe")
        marked.add(__name__)


def pytest_addoption(parser: Any) -> None:
    g = parser.getgroup("sinpe", "sinpe conformance (pytest --pyargs sinpe.reference.conformance)")
    g.addoption("--sinpe-impl", default=None, metavar="MODULE:CALLABLE",
                help="implementation to check: fn(positions, d) -> table (rows = positions)")
    g.addoption("--sinpe-profile", default="vaswani", help="preset the implementation claims (default vaswani)")
    g.addoption("--sinpe-dtype", default="float32", help="dtype of the golden values compared (default float32)")
    g.addoption("--sinpe-tier", default="phase", choices=TIERS, help="tolerance tier (default phase)")
    g.addoption("--sinpe-working", default=None, choices=WORKING_CHOICES,
                help="precision the implementation computes in (TOL-WORKING; default float32 for float16/bfloat16)")
    g.addoption("--sinpe-call", default="positions", choices=CALLS,
                help="calling convention (default positions: fn(positions, d))")
    g.addoption("--sinpe-d", default=None, metavar="D[,D...]", help="only these widths (default every golden width)")
    g.addoption("--sinpe-max-position", type=float, default=None,
                help="only golden positions with |p| <= this (default: all; 2047 for --sinpe-call n/forward/buffer)")
    for flag, _, choices, help_ in OVERRIDE_OPTIONS:
        g.addoption(f"--sinpe-{flag}", default=None, choices=choices,
                    help=f"override the profile's {help_} (as `sinpe check --{flag}`; references recomputed)")
    g.addoption("--sinpe-xfail-file", default=None, metavar="FILE", help=f"known failures: {XFAIL_FORMAT}")
    g.addoption("--sinpe-timeout", type=float, default=None, metavar="SECONDS",
                help="time limit of each call of the implementation (default that of sinpe check)")
    g.addoption("--sinpe-in-process", action="store_true", default=False,
                help="import and call the implementation in the pytest process (default: a child process, isolated "
                     "as sinpe check runs a module:callable)")


def read_xfail_file(path: str) -> list[tuple[str, str, str, int]]:
    """Entries ``(action, prefix, reason, line number)``; ``pytest.UsageError`` on a malformed line, a file over
    :data:`MAX_XFAIL_BYTES` or one that is not UTF-8 text."""
    out = []
    for n, raw in enumerate(_xfail_lines(path), 1):
        line, _, reason = raw.partition("#")
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 2 or parts[0] not in ("xfail", "skip"):
            raise pytest.UsageError(f"{path}:{n}: expected 'xfail PREFIX' or 'skip PREFIX' (then '# reason'); got "
                                    f"{raw[:200]!r}; {XFAIL_FORMAT}")
        out.append((parts[0], parts[1], reason.strip() or f"listed in {path}:{n}", n))
    return out


def _xfail_lines(path: str) -> list[str]:
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_XFAIL_BYTES + 1)
    except OSError as e:
        raise pytest.UsageError(f"--sinpe-xfail-file: cannot read {path!r}: {e.strerror or e}") from None
    if len(data) > MAX_XFAIL_BYTES:
        raise pytest.UsageError(f"--sinpe-xfail-file {path}: larger than {MAX_XFAIL_BYTES} bytes; {XFAIL_FORMAT}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = "\0"
    if "\0" in text:
        raise pytest.UsageError(f"--sinpe-xfail-file {path}: not UTF-8 text; {XFAIL_FORMAT}")
    return text.splitlines()


def pytest_runtest_logreport(report: Any) -> None:
    """Collect each failing conformance test's (profile, d, dtype, cause, hint) for the summary."""
    if report.failed and report.when == "call":
        for name, value in report.user_properties:
            if name == "sinpe_failure":
                _FAILURES.append(tuple(value))


_FAILURES: list[tuple[Any, ...]] = []


def summary_lines(failures: list[tuple[Any, ...]]) -> list[str]:
    """One line per (profile, dtype, cause) with its count and widths, each hint once (REQ-PLUGIN-SUMMARY).

    >>> summary_lines([("t2t", 3, "float32", "raised ValueError: odd d", "h"), ("t2t", 5, "float32", "raised ValueError: odd d", "h")])
    ['sinpe: 2 failures, 1 cause:', '  2 at t2t float32 d=3,5: raised ValueError: odd d', '    hint: h', '    (raises at odd d only: if it is meant to, pass --sinpe-odd error)']
    """
    groups: dict[tuple[str, str, str], dict[int, int]] = {}
    hints: dict[tuple[str, str, str], str] = {}
    for profile, d, dtype, cause, hint in failures:
        key = (str(profile), str(dtype), str(cause))
        per_d = groups.setdefault(key, {})
        per_d[int(d)] = per_d.get(int(d), 0) + 1
        if hint:
            hints.setdefault(key, str(hint))
    n_causes = len({k[2] for k in groups})
    out = [f"sinpe: {len(failures)} failures, {n_causes} cause{'s' if n_causes != 1 else ''}:"]
    printed: set[str] = set()
    for key, per_d in sorted(groups.items(), key=lambda kv: -sum(kv[1].values())):
        ds = sorted(per_d)
        shown = ",".join(map(str, ds[:SHOWN_FAILURE_WIDTHS])) + (f",... ({len(ds)} widths)" if len(ds) > SHOWN_FAILURE_WIDTHS else "")
        out.append(f"  {sum(per_d.values())} at {key[0]} {key[1]} d={shown}: {key[2]}")
        if key in hints and hints[key] not in printed:
            printed.add(hints[key])
            out.append(f"    hint: {hints[key]}")
        if "raised" in key[2] and all(d % 2 for d in ds):
            out.append("    (raises at odd d only: if it is meant to, pass --sinpe-odd error)")
    return out


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter: Any, exitstatus: Any, config: Any) -> Any:
    """The summary after pytest's own short summary: the last lines a user reads (``--tb=no -rN`` for it alone)."""
    yield
    if _FAILURES:
        terminalreporter.section("sinpe conformance summary")
        for line in summary_lines(_FAILURES):
            terminalreporter.write_line(line)
        terminalreporter.write_line("  (pytest --tb=no -rN ... prints this summary without the per-test sections)")


def pytest_sessionfinish(session: Any, exitstatus: Any) -> None:
    """End the isolated workers of the session's implementations (REQ-PLUGIN-RUN), if any was started."""
    harness = sys.modules.get("sinpe.reference.conformance.harness")
    if harness is not None:
        harness.close_workers()


def pytest_collection_modifyitems(session: Any, config: Any, items: list[Any]) -> None:
    path = config.getoption("--sinpe-xfail-file", default=None)
    if not path:
        return
    entries = read_xfail_file(path)
    used = [False] * len(entries)
    for item in items:
        if not item.nodeid.split("::")[0].endswith(CONFORMANCE_MODULE):
            continue
        callspec = getattr(item, "callspec", None)
        tid = callspec.id if callspec is not None else item.name
        case = callspec.params.get("golden_case") if callspec is not None else None
        gid = case.get("id", "") if isinstance(case, dict) else ""
        for i, (action, prefix, reason, _) in enumerate(entries):
            if tid.startswith(prefix) or (gid and gid.startswith(prefix)):
                used[i] = True
                item.add_marker(pytest.mark.xfail(reason=reason, strict=False) if action == "xfail"
                                else pytest.mark.skip(reason=reason))
                break
    for (action, prefix, _, n), u in zip(entries, used, strict=False):
        if not u:
            warnings.warn(pytest.PytestWarning(f"{path}:{n}: {action} {prefix!r} matches no conformance test ID"), stacklevel=2)
