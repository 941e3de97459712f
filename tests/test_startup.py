"""Startup (issue 28 item 1): ``sinpe check t.npy`` of a small table imports only what it needs -- no SymPy,
matplotlib or torch, and not the JUnit writer's XML/HTTP stack unless ``--junit`` is given. In a fresh
interpreter: what a process imports is what this test is about. (Its speed is a benchmark:
benchmarks/bench_startup.py, the ratio to ``python -c "import numpy"``.)"""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

from sinpe.reference.tables import table

_RUN = ("import json, sys\nfrom sinpe.reference.cli import main\nrc = main(sys.argv[1:])\n"
        "sys.stderr.write(json.dumps([rc, sorted(sys.modules)]))\n")
NEVER = ("sympy", "matplotlib", "torch")
# what a table the fast path decides never needs: the oracles' libraries, detect, the application check, numpy.ma
NOT_FOR_A_CONFORMING_TABLE = ("mpmath", "flint", "gmpy2", "numpy.ma", "sinpe.reference.checking.detect",
                              "sinpe.reference.oracles.angles", "sinpe.reference.oracles.arb",
                              "sinpe.reference.oracles.interval", "sinpe.reference.checking.kinds.application")
JUNIT_ONLY = ("xml.sax", "urllib.request", "http.client")


def _modules(tmp_path, *args: str) -> tuple[int, set[str]]:
    res = subprocess.run([sys.executable, "-c", _RUN, *args], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    rc, mods = json.loads(res.stderr.strip().splitlines()[-1])
    return rc, set(mods)


def test_check_of_a_small_table_imports_no_heavy_module(tmp_path):  # REQ-CHECK-CLI
    np.save(tmp_path / "t.npy", table("vaswani", 16, 40, "float32"))
    rc, mods = _modules(tmp_path, "check", "t.npy")
    assert rc == 0
    loaded = {m for m in mods if m.split(".")[0] in NEVER or m in JUNIT_ONLY}
    assert not loaded, sorted(loaded)
    lazy = {m for m in mods if any(m == n or m.startswith(n + ".") for n in NOT_FOR_A_CONFORMING_TABLE)}
    assert not lazy, sorted(lazy)
    rc, mods = _modules(tmp_path, "check", "t.npy", "--junit", "r.xml")  # the writer's imports are still there
    assert rc == 0 and "xml.sax.saxutils" in mods and (tmp_path / "r.xml").read_text().startswith("<?xml")


def test_the_oracles_are_imported_when_a_table_needs_them(tmp_path):
    """A float64 table's worst entry is recomputed by the Arb oracle (python-flint, mpmath); a failing table is read
    by detect: the lazy imports are there when they are needed."""
    np.save(tmp_path / "t64.npy", table("vaswani", 16, 40, "float64"))
    rc, mods = _modules(tmp_path, "check", "t64.npy")
    assert rc == 0 and {"flint", "mpmath"} <= mods
    bad = table("vaswani", 16, 40, "float32")
    bad[:, [0, 1]] = bad[:, [1, 0]]
    np.save(tmp_path / "bad.npy", bad)
    rc, mods = _modules(tmp_path, "check", "bad.npy")
    assert rc == 1 and "sinpe.reference.checking.detect.fit" in mods
