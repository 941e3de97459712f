"""Correctly rounded tables (REQ-TABLE-FAST, REQ-TABLE-STREAM), timed against the tables users build themselves in
the same run: torch's float32 table (the tutorial code, torch's default threads) and NumPy's float64 table, at
4096 x 1024 and 32768 x 4096; peak memory beyond the output (tracemalloc sees NumPy's buffers); the share of
entries sent to the oracle; ``sinpe.check(t, "vaswani", detect=False)`` of the 4096 x 1024 float32 table
against that table's own time, and ``check --tier exact/faithful`` per format; the oracle-only path on a small
table; and a >= 10^6-entry sample per format compared bit for bit with the oracle.

Targets (issue 28.7, 2 cores): float32 and bfloat16 <= 1x torch's float32 table, float64 <= 1.5x NumPy's float64
table, the check <= the exact table's time, peak memory <= 64 MiB beyond the output at 32768 x 4096. Each time is
the best of interleaved repetitions (the baselines and sinpe alternate, so a burst of load hits both); the
machine's load average is reported next to them. Set SINPE_BENCH_SMALL=1 to skip the big size.
"""
from __future__ import annotations

import functools
import math
import os
import random
import time
import tracemalloc
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from sinpe.reference.oracles.interval import Certifier
from sinpe.reference.tables import table
from sinpe.reference.tables.rounded import Stats
from sinpe.spec.profiles import PRESETS, get_profile

# dtype -> (baseline, largest ratio); float16 has no target of its own (reported against torch float32)
TARGET = {"float64": ("numpy f64", 1.5), "float32": ("torch f32", 1.0), "bfloat16": ("torch f32", 1.0),
          "float16": ("torch f32", None)}
MEMORY_MIB = 64


def numpy_table(n: int, d: int) -> np.ndarray:
    """The usual float64 table (Vaswani, interleaved), as tutorials and libraries build it."""
    pos = np.arange(n, dtype=np.float64)[:, None]
    div = np.exp(np.arange(0, d, 2, dtype=np.float64) * (-math.log(10000.0) / d))
    pe = np.zeros((n, d))
    pe[:, 0::2] = np.sin(pos * div)
    pe[:, 1::2] = np.cos(pos * div)
    return pe


def torch_table(n: int, d: int) -> Any:
    """torch's own float32 table (the PyTorch tutorial's PositionalEncoding buffer), or None without torch."""
    try:
        import torch
    except ImportError:
        return None
    pos = torch.arange(n, dtype=torch.float32)[:, None]
    div = torch.exp(torch.arange(0, d, 2, dtype=torch.float32) * (-math.log(10000.0) / d))
    pe = torch.zeros(n, d)
    pe[:, 0::2] = torch.sin(pos * div)
    pe[:, 1::2] = torch.cos(pos * div)
    return pe


def load() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def interleaved(fns: dict[str, Callable[[], Any]], reps: int) -> dict[str, float]:
    """Best time of each function over ``reps`` rounds, the functions alternating within each round."""
    best = {k: math.inf for k in fns}
    for _ in range(reps):
        for k, fn in fns.items():
            t = time.perf_counter()
            fn()
            best[k] = min(best[k], time.perf_counter() - t)
    return best


def _best(fn: Any, reps: int) -> float:
    best = math.inf
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def size_figures(n: int, d: int, reps: int) -> dict[str, Any]:
    """Per format: time (best of ``reps``, interleaved with the baselines), ratios, peak memory, oracle share."""
    out: dict[str, Any] = {f"{n}x{d} load average": load()}
    fns: dict[str, Callable[[], Any]] = {"numpy f64": lambda: numpy_table(n, d)}
    if torch_table(1, 2) is not None:
        fns["torch f32"] = lambda: torch_table(n, d)
    for dtype in TARGET:
        fns[dtype] = functools.partial(table, "vaswani", d, n, dtype)
    best = interleaved(fns, reps)
    for base in ("torch f32", "numpy f64"):
        if base in best:
            out[f"{n}x{d} {base} s"] = best[base]
    for dtype, (base, limit) in TARGET.items():
        key = f"{n}x{d} {dtype}"
        out[f"{key} s"] = best[dtype]
        for b in ("torch f32", "numpy f64"):
            if b in best:
                out[f"{key} ratio vs {b}"] = best[dtype] / best[b]
        if limit is not None and base in best:
            out[f"{key} target: <= {limit}x {base}"] = best[dtype] / best[base] <= limit
        st = Stats()
        tracemalloc.start()
        arr = table("vaswani", d, n, dtype, stats=st)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        out[f"{key} peak MiB beyond output"] = (peak - arr.nbytes) / 2**20
        out[f"{key} oracle share"] = st.share
        out[f"{key} oracle entries"] = st.oracle
        del arr
    out[f"{n}x{d} load average after"] = load()
    return out


def check_speed(n: int, d: int, reps: int) -> dict[str, Any]:
    """``sinpe.check(t, "vaswani", detect=False)`` of the exact float32 table against the table's own time."""
    import sinpe
    arr = table("vaswani", d, n, "float32")
    res = sinpe.check(arr, "vaswani", detect=False)
    if res.verdict != "conforms":
        raise AssertionError(f"the correctly rounded float32 table does not conform: {res.reason}")
    best = interleaved({"table": lambda: table("vaswani", d, n, "float32"),
                        "check": lambda: sinpe.check(arr, "vaswani", detect=False)}, reps)
    return {f"check {n}x{d} float32 s": best["check"], f"check {n}x{d} float32 ratio vs its exact table":
            best["check"] / best["table"], f"check {n}x{d} target: <= 1x the exact table": best["check"] <= best["table"],
            f"check {n}x{d} load average": load()}


def check_figures(n: int, d: int, base: float) -> dict[str, Any]:
    """check --tier exact / faithful of the correctly rounded table per format (REQ-CHECK-DECIDE on the
    REQ-TABLE-FAST path), against NumPy's float64 table time ``base`` measured in this run."""
    from sinpe.reference.checking.check import check_table
    out: dict[str, Any] = {}
    prof = get_profile("vaswani")
    for dtype in ("float64", "float32", "float16", "bfloat16"):
        arr = table(prof, d, n, dtype)
        for tier in ("exact", "faithful"):
            t = time.perf_counter()
            r = check_table(arr, prof, tier=tier, dtype=dtype, detect=False)
            el = time.perf_counter() - t
            if r.verdict != "conforms":
                raise AssertionError(f"the correctly rounded {dtype} table does not conform at {tier}: {r.reason}")
            out[f"check {tier} {n}x{d} {dtype} s"] = el
            out[f"check {tier} {n}x{d} {dtype} ratio vs numpy f64"] = el / base
    return out


def oracle_only() -> dict[str, Any]:
    n, d = 64, 64
    t = time.perf_counter()
    Certifier(("binary32",)).tables(get_profile("vaswani"), d, range(n))
    el = time.perf_counter() - t
    t = time.perf_counter()
    table("vaswani", d, n, "float32")
    fast = time.perf_counter() - t
    return {"oracle-only 64x64 float32 values/s": n * d / el, "fast path 64x64 float32 values/s": n * d / fast}


def big_sample(seed: int = 2024) -> dict[str, Any]:
    """>= 10^6 entries per format, compared bit for bit with the certified oracle (all formats in one pass)."""
    rng = random.Random(seed)
    cert = Certifier()
    total, bad = 0, 0
    t = time.perf_counter()
    for preset in PRESETS:
        prof = get_profile(preset, offset=rng.choice(["0", "0.5"]))
        pos = [Fraction(rng.randrange(0, 10**7)) for _ in range(150)]
        pos += [Fraction(rng.randrange(0, 10**7 * 64), 64) for _ in range(50)]
        d = 1024
        want = cert.tables(prof, d, pos)
        for f in cert.formats:
            got = table(prof, d, pos, f.dtype).astype(np.float64)
            bad += int(np.count_nonzero(got.view(np.int64) != want[f.name].view(np.int64)))
        total += len(pos) * d
    return {"sample entries per format": total, "sample entries differing from oracle": bad,
            "sample s": time.perf_counter() - t}


def main() -> dict[str, Any]:
    figs: dict[str, Any] = {"cores": os.cpu_count()}
    figs.update(size_figures(4096, 1024, reps=7))
    figs.update(check_speed(4096, 1024, reps=5))
    figs.update(check_figures(4096, 1024, figs["4096x1024 numpy f64 s"]))
    if not os.environ.get("SINPE_BENCH_SMALL"):
        figs.update(size_figures(32768, 4096, reps=2))
        figs["32768x4096 target: peak <= 64 MiB beyond output"] = max(
            figs[f"32768x4096 {dt} peak MiB beyond output"] for dt in TARGET) <= MEMORY_MIB
    figs.update(oracle_only())
    figs.update(big_sample())
    if figs["sample entries differing from oracle"]:
        raise AssertionError(f"{figs['sample entries differing from oracle']} entries differ from the oracle")
    return figs
