"""Correctly rounded tables (REQ-TABLE-FAST, REQ-TABLE-STREAM): time against NumPy building the float64 table
the usual way in the same run, per format, at 4096 x 1024 and 32768 x 4096; peak memory beyond the
output (tracemalloc sees NumPy's buffers); the share of entries sent to the oracle; the oracle-only
path on a small table; ``check --tier exact/faithful`` of the 4096 x 1024 tables; and a >= 10^6-entry
sample per format compared bit for bit with the oracle.

Targets (issue 12, 2 cores): float32/float16/bfloat16 <= 3x and float64 <= 8x NumPy's float64 table,
peak memory <= 64 MiB beyond the output at 32768 x 4096. Set SINPE_BENCH_SMALL=1 to skip the big size.
"""
from __future__ import annotations

import math
import os
import random
import time
import tracemalloc
from fractions import Fraction
from typing import Any

import numpy as np

from sinpe.reference.oracles.interval import Certifier
from sinpe.reference.tables import table
from sinpe.reference.tables.rounded import Stats
from sinpe.spec.profiles import PRESETS, get_profile

TARGET = {"float64": 8.0, "float32": 3.0, "float16": 3.0, "bfloat16": 3.0}


def numpy_table(n: int, d: int) -> np.ndarray:
    """The usual float64 table (Vaswani, interleaved), as tutorials and libraries build it."""
    pos = np.arange(n, dtype=np.float64)[:, None]
    div = np.exp(np.arange(0, d, 2, dtype=np.float64) * (-math.log(10000.0) / d))
    pe = np.zeros((n, d))
    pe[:, 0::2] = np.sin(pos * div)
    pe[:, 1::2] = np.cos(pos * div)
    return pe


def _best(fn: Any, reps: int) -> float:
    best = math.inf
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def size_figures(n: int, d: int, reps: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    base = _best(lambda: numpy_table(n, d), reps)
    out[f"{n}x{d} numpy float64 s"] = base
    for dtype in ("float64", "float32", "float16", "bfloat16"):
        st = Stats()
        tracemalloc.start()
        t = time.perf_counter()
        arr = table("vaswani", d, n, dtype, stats=st)
        el = time.perf_counter() - t
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        if reps > 1:
            el = min(el, _best(lambda: table("vaswani", d, n, dtype), reps - 1))
        key = f"{n}x{d} {dtype}"
        out[f"{key} s"] = el
        out[f"{key} ratio vs numpy f64"] = el / base
        out[f"{key} target ratio"] = TARGET[dtype]
        out[f"{key} meets target"] = el / base <= TARGET[dtype]
        out[f"{key} peak MiB beyond output"] = (peak - arr.nbytes) / 2**20
        out[f"{key} oracle share"] = st.share
        out[f"{key} oracle entries"] = st.oracle
        del arr
    return out


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
    figs.update(size_figures(4096, 1024, reps=3))
    figs.update(check_figures(4096, 1024, figs["4096x1024 numpy float64 s"]))
    if not os.environ.get("SINPE_BENCH_SMALL"):
        figs.update(size_figures(32768, 4096, reps=1))
    figs.update(oracle_only())
    figs.update(big_sample())
    if figs["sample entries differing from oracle"]:
        raise AssertionError(f"{figs['sample entries differing from oracle']} entries differ from the oracle")
    return figs
