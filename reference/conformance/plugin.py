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
``<profile>-d<d>-<dtype>-p<position>-c<column>-<golden id>``. The xfail file holds lines ``xfail PREFIX [# reason]`` or
``skip PREFIX [# reason]``; a PREFIX matches a test ID or golden ID that starts with it, and an
entry matching nothing is reported as a warning (REQ-PLUGIN-XFAIL).
"""
from __future__ import annotations

import warnings
from typing import Any

import pytest

# Copies, so that loading the plugin imports no NumPy (tests/test_plugin.py checks they equal the library's).
TIERS = ("exact", "faithful", "phase")
CALLS = ("positions", "n", "buffer", "forward")
WORKING_CHOICES = ("native", "float32", "float64")
CONFORMANCE_MODULE = "test_conformance.py"
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
    g.addoption("--sinpe-xfail-file", default=None, metavar="FILE",
                help="lines 'xfail PREFIX # reason' or 'skip PREFIX # reason' matched against test IDs")


def read_xfail_file(path: str) -> list[tuple[str, str, str, int]]:
    """Entries ``(action, prefix, reason, line number)``; ``pytest.UsageError`` on a malformed line."""
    out = []
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except OSError as e:
        raise pytest.UsageError(f"--sinpe-xfail-file: cannot read {path!r}: {e.strerror or e}") from None
    for n, raw in enumerate(lines, 1):
        line, _, reason = raw.partition("#")
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 2 or parts[0] not in ("xfail", "skip"):
            raise pytest.UsageError(f"{path}:{n}: expected 'xfail PREFIX' or 'skip PREFIX' (then '# reason'); got {raw!r}")
        out.append((parts[0], parts[1], reason.strip() or f"listed in {path}:{n}", n))
    return out


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
    for (action, prefix, _, n), u in zip(entries, used):
        if not u:
            warnings.warn(pytest.PytestWarning(f"{path}:{n}: {action} {prefix!r} matches no conformance test ID"))
