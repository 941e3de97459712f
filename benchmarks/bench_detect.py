"""Benchmark of ``sinpe.detect`` (issue 28.3's target, kept by issue 29.2; SPEC.md REQ-DETECT-KINDS).

Target: ``sinpe.detect`` on a conforming 2048 x 512 float32 table takes at most 5x ``sinpe.check`` of the same
table in the same run (the fast path: a conforming 1-D reading stops detect), both timed in 9 interleaved rounds, best
of each, as wall and as process CPU time. Also timed, as seconds: the readings
tried only when the cheap ones fail (issue 29.2): a non-square timm grid (16 x 9 cells, d 128), a LLaMA cos cache
whose rows are positions 100..2147, a reversed 1-D table (1024 x 256). Best of three, warm.

    python benchmarks/bench_detect.py

Measured (2 cores, shared machine, 2026-12-02): detect 0.16 s, check 0.037-0.04 s: ratio 3.9-4.3 (before issue
29.2: 3.7-4.3); timm 16 x 9 grid 0.18 s, offset cache 0.034 s, reversed table 0.25 s.
Later (check 0.026-0.028 s after its own speed-ups, load 0.3): detect 0.137 s, ratio 5.3; with the precision
fingerprint evaluating each column's own function only and the table's columns read once (bit-identical
residuals): detect 0.128 s, ratio 4.6.
2026-12-04 (quiet, check 0.0107-0.0126 s after the check's own speed-ups): detect 0.090 s, ratio 7.9-8.2 at
4955c37; each plan scored once per rows, shared model columns, the fingerprint on two threads: detect 0.057-0.062 s,
ratio 4.9-5.0; reversed table 0.18 to 0.10 s, timm grid 0.157 to 0.13 s.
2026-12-07 (another machine, 98b1f76): best of 3 each read 3.7, 3.8, 4.8 and 5.7 in four runs (detect 0.079-0.12 s,
check 0.016-0.031 s); interleaved best of 9: 4.6 and 4.6 wall, 3.9 and 4.1 CPU (detect 0.086-0.089 s, check 0.019 s).
"""
from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def _best(f: Callable[[], Any], n: int = 3) -> float:
    f()
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        f()
        out.append(time.perf_counter() - t0)
    return min(out)


def _interleaved(fns: dict[str, Callable[[], Any]], reps: int) -> dict[str, tuple[float, float]]:
    """(best wall, best process CPU) seconds of each function over ``reps`` rounds, alternating within each round
    (both of the pair see the same load; CPU time counts every thread's)."""
    best = {k: (math.inf, math.inf) for k in fns}
    for fn in fns.values():
        fn()
    for _ in range(reps):
        for k, fn in fns.items():
            t0, c0 = time.perf_counter(), time.process_time()
            fn()
            t, c = time.perf_counter() - t0, time.process_time() - c0
            best[k] = (min(best[k][0], t), min(best[k][1], c))
    return best


def _tables() -> dict[str, Any]:
    """The variants, from sinpe's own exact references rounded to float32 (a benchmark needs no library)."""
    from sinpe.reference.oracles.angles import grid_plan, reference_f64, rotary_plan
    from sinpe.reference.oracles.fast import table_f64
    from sinpe.spec.grid import get_grid
    from sinpe.spec.profiles import get_profile
    from sinpe.spec.rotary import get_rotary
    grid = reference_f64(grid_plan(get_grid("timm", 128, (16, 9))))[0].astype(np.float32)
    cache = reference_f64(rotary_plan(get_rotary("llama"), 64, list(range(100, 2148)), "cos"))[0].astype(np.float32)
    back = table_f64(get_profile("vaswani", phase_scale=-1, offset=-1023), 256, np.arange(1024))[0].astype(np.float32)
    return {"grid": grid, "cache": cache, "reversed": back}


REPS = 9  # interleaved rounds of detect and check (best of each): single best-of-3 runs read 3.7-5.7 on one machine


def main() -> dict[str, Any]:
    import sinpe
    t = sinpe.table("vaswani", d=512, positions=range(2048), dtype="float32")
    best = _interleaved({"detect": lambda: sinpe.detect(t), "check": lambda: sinpe.check(t, "vaswani")}, REPS)
    (detect_s, detect_cpu), (check_s, check_cpu) = best["detect"], best["check"]
    v = _tables()
    return {"detect_conforming_2048x512_s": detect_s, "check_same_table_s": check_s,
            "detect_over_check": detect_s / check_s, "target_max_ratio": 5.0,
            "detect_over_check_cpu": detect_cpu / check_cpu,
            "timm_16x9_grid_s": _best(lambda: sinpe.detect(v["grid"])),
            "llama_cache_from_100_s": _best(lambda: sinpe.detect(cos=v["cache"])),
            "reversed_1024x256_s": _best(lambda: sinpe.detect(v["reversed"]))}


if __name__ == "__main__":
    print(json.dumps(main(), indent=1))
