"""The precision fingerprint of a 1-D table (SPEC.md REQ-DETECT-PRECISION): the fitted plan evaluated in float64,
in float32 and with positions or frequencies rounded to float16/bfloat16 (or float32 frequencies in a float64 table);
the closest evaluation names how the table was computed, when the residuals separate it from the others.
"""
from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

from sinpe.reference.checking.detect.plans import _Cand
from sinpe.reference.numerics.rounding import narrowest_format
from sinpe.reference.tables.progression import as_slice
from sinpe.reference.threads import Pool

PRECISIONS = ("float64", "float32", "positions-float16", "positions-bfloat16", "frequencies-float16",
              "frequencies-bfloat16", "frequencies-float32")
WIDE_EVALUATIONS = ("float64", "frequencies-float32")  # computed in float64, then rounded once to the table's format
RULED_WORDS = {"float64": "in float64", "frequencies-float32": "in float64 with float32 frequencies"}
UNREAD = "unread"  # no evaluation reproduces the rows within the noise floor: the rows tell no precision


def _bf16(x: np.ndarray) -> np.ndarray:
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000  # to nearest, ties to even, on the upper 16 bits
    return rounded.astype(np.uint32).view(np.float32)


def _narrow(x: np.ndarray, fmt: str) -> np.ndarray:
    with np.errstate(over="ignore"):
        return x.astype(np.float16).astype(np.float32) if fmt == "float16" else _bf16(x)


def evaluate_precision(c: _Cand, p: np.ndarray, params: dict[str, float], how: str,
                       out_dtype: Any = np.float64) -> np.ndarray:
    """The plan evaluated the usual way with one precision choice (``PRECISIONS``), cast to ``out_dtype``: a new
    array, the caller's to overwrite."""
    w64 = params["sigma"] * params["base"] ** (-c.e)
    pp = p + params["offset"]
    wt = np.float64 if how in ("float64", "frequencies-float32") else np.float32
    w = w64.astype(np.float32).astype(wt) if how == "frequencies-float32" else w64.astype(wt)
    if how.startswith("frequencies-float16") or how.startswith("frequencies-bfloat16"):
        w = _narrow(w64.astype(np.float32), how.split("-")[1])
    pp = pp.astype(wt)
    if how.startswith("positions-"):
        pp = _narrow(pp.astype(np.float32), how.split("-")[1])
    m = np.zeros((len(pp), len(w)), dtype=wt)
    with np.errstate(invalid="ignore", over="ignore"):
        for kind, fn in ((0, np.sin), (1, np.cos)):  # each column's own function only, on a contiguous product
            idx = np.flatnonzero(c.kinds == kind)  # (NumPy's one loop), placed by a strided copy
            if idx.size:
                cols = as_slice(idx)
                m[:, cols] = fn(pp[:, None] * w[None, cols])
        if params["amplitude"] != 1:  # (x 1 changes no value)
            np.multiply(m, params["amplitude"], out=m)  # in wt, as amplitude * m: a float scalar takes m's type
    return m.astype(out_dtype, copy=False)


FINGERPRINT_BLOCK = 1 << 18  # entries an evaluation of the fingerprint holds at once (a few MiB a thread)


def _fingerprint(c: _Cand, y: np.ndarray, p: np.ndarray, params: dict[str, float]) -> dict[str, float]:
    """{evaluation: max |y - its values|} over the plan's columns; entries non-finite in both count 0, one
    non-finite in only one of them inf. The evaluations run on two threads (NumPy releases the GIL in its loops),
    the two float64 ones first, each over blocks of rows: the same figures as one after the other, whole."""
    cols = c.kinds >= 0
    pick = (lambda a: a) if cols.all() else (lambda a: a[:, cols])  # every column used: no copy of the table
    dtype = y.dtype if y.dtype in (np.float64, np.float32, np.float16) else np.float64
    yc = pick(np.asarray(y, dtype=np.float64))
    finite = bool(np.isfinite(yc).all())

    step = max(1, FINGERPRINT_BLOCK // max(1, y.shape[1]))  # rows per block: each evaluation is elementwise

    def worst_in(how: str, a: int) -> float:
        m = pick(evaluate_precision(c, p[a:a + step], params, how, dtype)).astype(np.float64, copy=False)  # a new array
        ya = yc[a:a + step]
        both_nan = None if finite else ~np.isfinite(ya) & ~np.isfinite(m)  # before m holds the differences
        with np.errstate(invalid="ignore"):
            dif = np.abs(np.subtract(ya, m, out=m), out=m)
        if both_nan is not None:
            dif = np.where(both_nan, 0.0, dif)
        w = float(dif.max()) if dif.size else 0.0
        return np.inf if math.isnan(w) else w

    def worst(how: str) -> float:
        return max((worst_in(how, a) for a in range(0, len(p), step)), default=0.0)

    order = sorted(PRECISIONS, key=lambda h: h not in WIDE_EVALUATIONS)  # the float64 evaluations take 4x longer
    workers = min(2, os.cpu_count() or 1)
    if workers > 1 and yc.size >= 1 << 14:
        with Pool(workers) as pool:
            found = dict(zip(order, pool.map(worst, order), strict=True))
    else:
        found = {how: worst(how) for how in order}
    return {how: found[how] for how in PRECISIONS}


AMBIGUOUS = 2.0  # a precision is named alone only when the runner-up's residual is at least this factor larger


def decide_precision(res: dict[str, float], table_dtype: Any, amplitude: float) -> tuple[str, float, str]:
    """(precision, margin, note) from the fingerprint's residuals (REQ-DETECT-PRECISION).

    A table stored in a format F narrower than float64 that was computed in float64 and rounded once is
    within about 1 ulp_F of the float64 evaluation: a float64 residual above 4 ulp_F(|alpha|) rules it out,
    whatever the other residuals. Among the rest the smallest residual wins when the next different one is
    at least :data:`AMBIGUOUS` times larger; otherwise both are named (``"float32 or float64"``).
    Evaluations with identical residuals are indistinguishable at these positions: the simplest is named.

    >>> decide_precision({"float64": 5.8e-5, "float32": 6.1e-5, "positions-float16": 6.1e-5}, np.float32, 1.0)[:2]
    ('float32', inf)
    >>> how, margin, note = decide_precision({"float64": 0.0, "float32": 1.1e-4, "frequencies-float32": 6e-5},
    ...                                      np.float32, 1.0)
    >>> how, note.split(":")[0]
    ('float64', 'not computed in float64 with float32 frequencies (residual 6e-05)')
    >>> decide_precision({"float64": 3e-5, "float32": 4e-5}, np.float64, 1.0)[:2]
    ('float64 or float32', 1.33...)
    """
    cands = dict(res)
    note = ""
    f = np.dtype(table_dtype)
    if f != np.float64 and f in (np.float32, np.float16):
        tol = 4 * float(np.spacing(f.type(abs(amplitude) or 1.0)))
        ruled = [h for h in WIDE_EVALUATIONS if h in cands and cands[h] > tol]
        for h in ruled:
            del cands[h]
        if ruled:  # each ruled-out evaluation named with its own residual (a table computed in float64 rules out
            #        only the float32 frequencies)
            words = " nor ".join(f"{RULED_WORDS[h]} (residual {res[h]:.2g})" for h in ruled)
            note = (f"not computed {words}: above 4 ulp of {f.name} ({tol:.2g}), which one rounding of a float64 "
                    "evaluation cannot reach")
    order = sorted(cands, key=lambda k: (cands[k], PRECISIONS.index(k)))
    best = order[0]
    other = next((k for k in order[1:] if cands[k] != cands[best]), None)
    if other is None:
        return best, math.inf, note
    margin = cands[other] / cands[best] if cands[best] > 0 else math.inf
    if margin < AMBIGUOUS:
        note = (note + "; " if note else "") + (f"residuals {cands[best]:.2g} ({best}) and {cands[other]:.2g} "
                                                f"({other}) do not separate the two")
        return f"{best} or {other}", margin, note
    return best, margin, note


def _noise_floor(data: Any, y: np.ndarray, p: np.ndarray) -> float:
    """The residual below which plans do not discriminate (simplicity decides), relative to alpha: a correct
    table's error, TOL-WORKING's size at these positions: 64 u_W (1 + max|p|) for the working format W (float32
    for a float16/bfloat16 table, the table's own otherwise, TOL-WORKING's default) plus two ulps of the
    table's format F at 1 (its final rounding). With u_F in place of u_W a float16 table at positions up to 255
    had a floor of 8: every plan 'fit' and the simplest won (float16 t2t tables read as vaswani-concat)."""
    prec = {np.dtype(np.float64): 53, np.dtype(np.float32): 24, np.dtype(np.float16): 11}.get(np.dtype(data.dtype), 24)
    if prec == 24 and narrowest_format(y, ("bfloat16", "float16")) is not None:
        prec = 8 if narrowest_format(y, ("bfloat16",)) else 11  # half-precision values stored as float32
    u_w = 2.0 ** -max(prec, 24) if prec < 53 else 2.0 ** -53
    return 64 * u_w * (1 + float(np.max(np.abs(p)))) + 2 * 2.0 ** (1 - prec)
