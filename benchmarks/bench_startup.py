"""Benchmark of a user's quickest loop: ``sinpe check t.npy`` of a small table (issue 28 item 1).

Target: the wall time of ``sinpe check t.npy`` (a 40 x 16 float32 table, a fresh process) is at most 2x that of
``python -c "import numpy"`` measured in the same run; and the check imports no SymPy, matplotlib or torch.
Both commands run REPEAT times, interleaved, after one warm-up run each (bytecode caches written; the
environment's PYTHONDONTWRITEBYTECODE is dropped for the children, as a user's shell has it); the minimum of
each is the figure (the least disturbed by other work on the machine); the CPU-time ratio is given too.

    python benchmarks/bench_startup.py

Measured (2 cores shared with other jobs, load average 2-6, 2026-12-02): check 0.22-0.32 s, import numpy
0.085-0.14 s; wall ratio 1.8-2.6, CPU ratio 2.25-2.35. What was above numpy then: mpmath + gmpy2 + flint (~80 ms,
imported by the oracles at module level), the kernels' constant tables built in mpmath (~45 ms a process), sinpe's
own 82 modules (~60 ms), numpy.ma (through np.unique). 2026-12-03 (issue 28.1): the tables are shipped data
(reference/tables/constants.py), the frequency words come from decimals, mpmath/flint/detect/the angle oracles are
imported where they are used: 64 sinpe modules (about 34 ms of imports), no mpmath, flint, gmpy2 or numpy.ma
(tests/test_startup.py). Ratios measured while two other jobs ran: see the stop note.
"""
from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any

REPEAT = 15
HEAVY = ("sympy", "matplotlib", "torch")
_MODULES = ("import sys, runpy; sys.argv = ['sinpe', 'check', 't.npy']\n"
            "try:\n    runpy.run_module('sinpe.reference.cli', run_name='__main__')\n"
            "except SystemExit:\n    pass\n"
            "sys.stderr.write(__import__('json').dumps(sorted({m.split('.')[0] for m in sys.modules})))\n")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _wall(cmd: list[str], cwd: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child: user + system)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)


def main() -> dict[str, Any]:
    import numpy as np

    from sinpe.reference.tables import table
    work = tempfile.mkdtemp(prefix="sinpe-bench-startup-")
    try:
        np.save(os.path.join(work, "t.npy"), table("vaswani", 16, 40, "float32"))
        check = [sys.executable, "-m", "sinpe.reference.cli", "check", "t.npy"]
        numpy = [sys.executable, "-c", "import numpy"]
        for cmd in (check, numpy):  # warm-up: bytecode caches, page cache
            _wall(cmd, work)
        times: dict[str, list[tuple[float, float]]] = {"check": [], "numpy": []}
        for _ in range(REPEAT):
            times["check"].append(_wall(check, work))
            times["numpy"].append(_wall(numpy, work))
        mods = subprocess.run([sys.executable, "-c", _MODULES], cwd=work, env=_env(), capture_output=True, text=True)
        loaded = set(json.loads(mods.stderr.strip().splitlines()[-1]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    c, n = (min(w for w, _ in times[k]) for k in ("check", "numpy"))
    cc, nc = (min(u for _, u in times[k]) for k in ("check", "numpy"))
    return {f"sinpe check t.npy (s, min of {REPEAT})": round(c, 3),
            f"python -c 'import numpy' (s, min of {REPEAT})": round(n, 3),
            "ratio check / import numpy, wall (target <= 2)": round(c / n, 2),
            "ratio check / import numpy, CPU (user + sys)": round(cc / nc, 2),
            "heavy modules imported by check t.npy (target none)": ", ".join(sorted(loaded & set(HEAVY))) or "none"}


if __name__ == "__main__":
    for k, v in main().items():
        print(f"{k:56s} {v}")
