"""NumPy implementation throughput (values/s) against a naive Python loop measured in the same run.

Baseline: the textbook double loop ``math.sin(p * w_k)`` / ``math.cos(p * w_k)`` over positions and
columns, frequencies precomputed (so it measures only the per-value work). Figures are ratios,
never timed assertions (the project's rule: speed targets live in benchmarks).
"""
from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from sinpe.reference.implementations.numpy_impl import pe_table, scaled_frequencies
from sinpe.spec.definition import columns
from sinpe.spec.profiles import get_profile

PROFILE = get_profile("vaswani")


def _best(fn: Callable[[], Any], min_time: float = 0.3, repeat: int = 3) -> float:
    """Best-of-``repeat`` seconds per call, each sample looping until ``min_time`` has passed."""
    best = math.inf
    for _ in range(repeat):
        n, t0 = 0, time.perf_counter()
        while True:
            fn()
            n += 1
            el = time.perf_counter() - t0
            if el >= min_time:
                break
        best = min(best, el / n)
    return best


def naive_table(d: int, positions: list[int]) -> list[list[float]]:
    """The baseline: one Python ``math.sin``/``math.cos`` call per value (interleaved vaswani)."""
    w = scaled_frequencies(PROFILE, d, "binary64")
    cols = columns(PROFILE, d)
    out = []
    for p in positions:
        row = []
        for c in cols:
            row.append(math.sin(p * w[c.k]) if c.kind == "sin" else math.cos(p * w[c.k]))
        out.append(row)
    return out


def main() -> dict[str, Any]:
    rows = 2048
    figures: dict[str, Any] = {}
    for d in (512, 4096):
        pos = np.arange(rows)
        naive_rows = list(range(32))
        t_naive = _best(functools.partial(naive_table, d, naive_rows), repeat=2)
        naive_vps = len(naive_rows) * d / t_naive
        # the baseline computes the same table (same frequencies; libm vs NumPy's sin may differ by an ulp)
        diff = np.abs(np.array(naive_table(d, naive_rows)) - pe_table(PROFILE, d, naive_rows, "float64")).max()
        if diff > 1e-13:
            raise AssertionError(f"naive baseline and impl_numpy differ by {diff:.3g} at d={d}")
        figures[f"naive_python_d{d}_values_per_s"] = naive_vps
        for dt in ("float64", "float32"):
            t = _best(functools.partial(pe_table, PROFILE, d, pos, dt))
            vps = rows * d / t
            figures[f"numpy_{dt}_d{d}_values_per_s"] = vps
            figures[f"numpy_{dt}_d{d}_speedup_vs_naive"] = vps / naive_vps
    return figures


if __name__ == "__main__":
    for k, v in main().items():
        print(f"{k:44s} {v:.4g}")
