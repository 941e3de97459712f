"""Benchmark of the isolated child (issue 28 items 1-2; SPEC.md REQ-CHECK-ISOLATE, REQ-PLUGIN-RUN).

Targets, as ratios measured in the same run (never timed tests):

- ``sinpe check mod:fn --d 64`` of a small NumPy-only module <= the child's own import of the target
  (``python -c "import mod"``: NumPy) + 1 s;
- ``sinpe check-apply mod:fn --dim 128`` of a torch function <= one torch import + 1.5 s;
- the plugin's default run on a NumPy implementation (the bundled one): <= 20 s, and its ratio to the run
  with the same implementation in process (``--sinpe-in-process``: what isolation costs).

Each figure is the faster of two runs (the warm one), each command in a fresh process in a scratch directory.

    python benchmarks/bench_isolate.py

Measured (2 cores shared with other jobs, load 4-5, 2026-12-02, root, Landlock ABI 7), 0f1533a -> this
version, interleaved: ``check mod:fn --d 64`` 0.88-2.8 s -> 0.49-1.45 s (parent RSS 108 -> 66 MB: no SymPy
preload where Landlock confines the child's writes); ``check-apply --dim 128`` 4.2-11 s -> 1.6-5.0 s (the
parent imports no torch: RSS 404 -> 265 MB); the plugin's default run 7.7-13.7 s -> 7.0-10 s (5.2-5.7 s ->
4.2-4.4 s on a quieter machine: one child instead of 11); a sleeping implementation under
``--sinpe-timeout 3``: 44-46 s -> 15.7 s (one time-out instead of 11). This benchmark at load 5: check
ratio 0.99, check-apply ratio 0.68, plugin 6.5 s.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

NUMPY_MODULE = '''
import numpy as np
def pe(positions, d):
    p = np.asarray(positions, dtype=np.float64)[:, None]
    w = 10000.0 ** (-2 * np.arange(d // 2) / d)
    out = np.empty((len(p), d))
    out[:, 0::2], out[:, 1::2] = np.sin(p * w), np.cos(p * w)
    return out.astype(np.float32)
'''

TORCH_MODULE = '''
import torch
def apply(q, k, cos, sin):
    def half(x):
        a, b = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
        return torch.cat((-b, a), dim=-1)
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    return q * cos + half(q) * sin, k * cos + half(k) * sin
'''

BUNDLED = '''
from sinpe.reference.implementations.numpy_impl import pe_table
from sinpe.spec.profiles import get_profile
VAS = get_profile("vaswani")
def good(positions, d):
    return pe_table(VAS, d, positions, "float32")
'''

SINPE = os.path.join(os.path.dirname(sys.executable), "sinpe")


def _best(cmd: list[str], cwd: Path, env: dict[str, str] | None = None, runs: int = 2) -> float:
    best = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, timeout=600)
        best = min(best, time.perf_counter() - t)
        if r.returncode not in (0,):
            raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}: {(r.stderr or r.stdout)[-300:]}")
    return best


def main() -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="sinpe-bench-") as tmp:
        cwd = Path(tmp)
        (cwd / "npmod.py").write_text(NUMPY_MODULE)
        (cwd / "ropemod.py").write_text(TORCH_MODULE)
        (cwd / "bundled.py").write_text(BUNDLED)
        py = sys.executable
        fig: dict[str, float] = {}
        fig["child import of the target (s)"] = _best([py, "-P", "-c", "import npmod"], cwd, {**os.environ, "PYTHONPATH": tmp})
        fig["check mod:fn --d 64 (s)"] = _best([SINPE, "check", "npmod:pe", "--d", "64"], cwd)
        fig["check / (import + 1 s), target <= 1"] = fig["check mod:fn --d 64 (s)"] / (fig["child import of the target (s)"] + 1)
        try:
            import torch  # noqa: F401
        except ImportError:
            pass
        else:
            fig["torch import (s)"] = _best([py, "-c", "import torch"], cwd)
            fig["check-apply --dim 128 (s)"] = _best([SINPE, "check-apply", "ropemod:apply", "--dim", "128"], cwd)
            fig["check-apply / (torch + 1.5 s), target <= 1"] = fig["check-apply --dim 128 (s)"] / (fig["torch import (s)"] + 1.5)
        plugin = [py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--pyargs", "sinpe.reference.conformance",
                  "--sinpe-impl", "bundled:good"]
        env = {**os.environ, "PYTHONPATH": tmp}
        fig["plugin default run, isolated (s), target <= 20"] = _best(plugin, cwd, env)
        fig["plugin default run, in process (s)"] = _best(plugin + ["--sinpe-in-process"], cwd, env)
        fig["plugin isolated / in process"] = (fig["plugin default run, isolated (s), target <= 20"]
                                               / fig["plugin default run, in process (s)"])
        return fig


if __name__ == "__main__":
    for k, v in main().items():
        print(f"{k:52s} {v:.3g}")
