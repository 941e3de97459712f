"""Checking and detecting grids and rotary caches (SPEC.md REQ-CHECK-GRID, REQ-CHECK-ROPE, REQ-DETECT-GRID,
REQ-DETECT-ROPE).

Each entry y of a table claimed to be in a format F is compared with the exact value of the
profile (DEF-GRID or DEF-ROPE) under a tolerance tier (TOL-*, :func:`sinpe.spec.tolerance.allowed_abs_error`):
the float64 reference of :func:`sinpe.reference.oracles.angles.reference_f64` decides every entry
whose error is clear of the bound by more than the reference's own error; the rest go to the
certified interval oracle at rising precision. A verdict is ``conforms`` (every entry within),
``fails`` (some entry certainly outside; the first ones are listed) or ``inconclusive`` (nothing
failed but some entry could not be judged -- its bound lets any value in [-|alpha|, |alpha|] pass,
REQ-CHECK-UNJUDGED -- or decided). The phase bound is TOL-WORKING's: a float16/bfloat16 cache is by
default held to a float32 evaluation rounded once, as for 1-D tables.

>>> import numpy as np
>>> from sinpe.spec.rotary import get_rotary
>>> rp = get_rotary("llama")
>>> pos = np.arange(64)
>>> inv = 1.0 / (10000.0 ** (np.arange(0, 16, 2) / 16))
>>> emb = np.concatenate([np.outer(pos, inv)] * 2, axis=1)        # rotate-half cache, float64
>>> check_rotary(rp, 16, cos=np.cos(emb).astype(np.float32), sin=np.sin(emb).astype(np.float32)).verdict
'conforms'
>>> r = check_rotary(get_rotary("gptj"), 16, cos=np.cos(emb).astype(np.float32))   # wrong layout
>>> r.verdict, r.failures[0].position, r.failures[0].column, r.failures[0].label, type(r).__name__
('fails', '1', 1, 'cos0', 'CheckResult')
"""
from __future__ import annotations

import math
from functools import lru_cache
from fractions import Fraction
from typing import Any, Sequence

import mpmath
import numpy as np

from sinpe.spec.formats import get_format
from sinpe.spec.grid import GRID_PRESETS, Grid, get_grid
from sinpe.spec.rotary import RotaryProfile, default_positions, frequencies
from sinpe.spec.tolerance import TIERS, allowed_abs_error, classify, error_ulps, ulp_array, unjudged, working_format

from sinpe.reference.numerics.rounding import narrowest_format
from sinpe.reference.oracles import fast as fastref
from sinpe.reference.checking.decide import Escalation, entry_bound, undecided_words
from sinpe.reference.checking.errors import internal
from sinpe.reference.checking.result import CheckResult, Failure
from sinpe.reference.oracles.angles import (AnglePlan, _at_prec, _Certified, _mid, grid_plan, plan_rows,
                                            reference_f64, rotary_plan)

MAX_LISTED = 10
MIN_ROTARY_ROWS = 3   # as the 1-D reading (REQ-DETECT-FIT): fewer rows name no rotary plan
_NP_DTYPES = {np.dtype(np.float64): "float64", np.dtype(np.float32): "float32", np.dtype(np.float16): "float16"}


def _dtype_of(table: np.ndarray, dtype: str | None) -> str:
    if dtype is not None:
        return get_format(dtype).dtype
    if table.dtype not in _NP_DTYPES:
        raise ValueError(f"cannot tell the format of a {table.dtype} table; pass dtype=")
    return _NP_DTYPES[table.dtype]


def stored_dtype(table: np.ndarray) -> str:
    """The narrowest of bfloat16/float16/float32/float64 holding every value of ``table`` exactly (detect's
    default claim; :func:`sinpe.reference.numerics.rounding.narrowest_format`): a half-precision grid or cache
    stored as float32 is judged as one, and MAE's float32 grid, which comes back as float64 after its float64
    cls row is concatenated, as float32."""
    return narrowest_format(np.asarray(table)) or "float64"


def check_plan(table: Any, plan: AnglePlan, profile: str | None, *, kind: str = "grid", dtype: str | None = None,
               tier: str = "phase", working: str | None = None, max_failures: int = MAX_LISTED) -> CheckResult:
    """Compare every entry of ``table`` (rows, d) with the plan's exact values under ``tier`` in ``dtype``,
    the phase bound for a table computed in ``working`` (TOL-WORKING; default float32 for half formats).
    The float64 reference decides what it can; the rest go to the one escalation
    (:class:`~sinpe.reference.checking.decide.Escalation`). ``inconclusive`` when nothing fails but some entry
    is unjudged (REQ-CHECK-UNJUDGED) or undecided; the first ``max_failures`` failures are listed."""
    if tier not in TIERS:
        raise ValueError(f"unknown tolerance tier {tier!r}; tiers: {', '.join(TIERS)}")
    arr = np.asarray(table)
    dt = _dtype_of(arr, dtype)
    fmt = get_format(dt)
    rows, d = plan.shape
    wfmt = working_format(fmt, working) if tier == "phase" else fmt
    res = CheckResult(profile, "", {}, tier, dt, d, rows, width=d, kind=kind, working=wfmt.dtype)
    if arr.shape != (rows, d):
        res.verdict, res.reason = "fails", f"shape {tuple(arr.shape)} is not the profile's ({rows}, {d})"
        res.n_failures = 1  # the shape itself (no entry is compared: ``worst`` stays empty)
        return res
    y = arr.astype(np.float64)
    ref, theta = reference_f64(plan)
    amps = [float(_mid(a)) for a in _at_prec(plan.amplitude, 128)]
    allowed, free = _bounds(plan, ref, theta, amps, tier, fmt, wfmt)
    err = np.abs(y - ref)
    eb = fastref.error_bound(ref, np.nan_to_num(theta)) + 2 * np.spacing(np.abs(ref))
    bad, unsure = classify(np.where(np.isfinite(y), err - allowed, np.inf), eb)
    esc = Escalation()
    cert = _Certified(plan)
    at = list(zip(*np.nonzero(unsure)))
    esc.skip(max(0, len(at) - esc.room()))  # past the budget: undecided
    for r, j in at[:esc.room()]:
        bound = entry_bound(tier, fmt, theta[r, j], amps[plan.axes[j]], plan.base, wfmt)
        bad[r, j] |= esc.decide(_enclosure(cert, r, j), y[r, j], bound) is False
    res.oracle_decided, res.undecided = esc.decided, esc.undecided
    _figures(res, plan, y, ref, err, allowed, free, amps, fmt)
    res.failures = _failures(plan, y, ref, err, allowed, bad, fmt, tier, max_failures)
    _verdict(res, int(bad.sum()), wfmt)
    return res


def _enclosure(cert: _Certified, r: int, j: int) -> Any:
    return lambda prec: cert.enclose(r, j, prec)


def _bounds(plan: AnglePlan, ref: np.ndarray, theta: np.ndarray, amps: list[float], tier: str, fmt: Any,
            wfmt: Any) -> tuple[np.ndarray, np.ndarray]:
    """(allowed, unjudged) per entry: each axis's columns with that axis's amplitude."""
    allowed = np.empty_like(ref)
    free = np.zeros(ref.shape, dtype=bool)
    for a, amp in enumerate(amps):
        cols = np.nonzero(plan.axes == a)[0]
        if cols.size:
            allowed[:, cols] = allowed_abs_error(tier, fmt, ref[:, cols], theta[:, cols], amp, base=plan.base,
                                                 working=wfmt)
            free[:, cols] = unjudged(allowed[:, cols], ref[:, cols], amp)
    return allowed, free


def _figures(res: CheckResult, plan: AnglePlan, y: np.ndarray, ref: np.ndarray, err: np.ndarray,
             allowed: np.ndarray, free: np.ndarray, amps: list[float], fmt: Any) -> None:
    """Max |error| (inf with a NaN/Inf entry), in ulps, of the bound; the worst entry (the first non-finite
    one, else the largest error: absolute at the phase tier, in ulps otherwise); the unjudged entries."""
    ulp = np.zeros_like(err)
    for a, amp in enumerate(amps):
        cols = plan.axes == a
        ulp[:, cols] = error_ulps(err[:, cols], ref[:, cols], fmt, amp)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.nan_to_num(err / allowed, nan=np.inf)
    nonfinite = ~np.isfinite(y)
    res.non_finite = int(nonfinite.sum())
    res.max_abs_error = math.inf if res.non_finite else float(err.max(initial=0.0))
    res.max_ulp_error = math.inf if res.non_finite else float(ulp.max(initial=0.0))
    res.max_bound_ratio = float(ratio.max(initial=0.0))
    if err.size:
        at = np.argmax(nonfinite) if res.non_finite else np.argmax(err if res.tier == "phase" else ulp)
        r, j = np.unravel_index(at, err.shape)
        res.worst = {"position": plan.row_labels[r], "column": int(j), "label": plan.labels[j]}
    count = int(free.sum())
    first = plan.row_labels[int(np.argmax(free.any(axis=1)))] if count else None
    res.unjudged = {"count": count, "share": count / res.entries if res.entries else 0.0, "from_position": first}


def _failures(plan: AnglePlan, y: np.ndarray, ref: np.ndarray, err: np.ndarray, allowed: np.ndarray,
              bad: np.ndarray, fmt: Any, tier: str, max_failures: int) -> list[Failure]:
    """The first failing entries in row order (no ``sinpe table`` writes a grid or a cache: ``repro`` and
    ``python`` are empty; the check's ``reproduce`` command gives the verdict)."""
    out = []
    for r, j in np.argwhere(bad)[:max_failures]:
        u = float(ulp_array(np.array([ref[r, j]]), fmt)[0])
        out.append(Failure(position=plan.row_labels[r], column=int(j), label=plan.labels[j], value=float(y[r, j]),
                           reference=float(ref[r, j]), abs_error=float(err[r, j]), allowed=float(allowed[r, j]),
                           ulp_error=float(err[r, j]) / u,
                           reason="non-finite" if not math.isfinite(y[r, j]) else f"|error| > {tier} tolerance",
                           repro="", python="", row=int(r)))
    return out


def _verdict(res: CheckResult, n_failures: int, wfmt: Any) -> None:
    rows, d, tier, dt = res.rows, res.d, res.tier, res.dtype
    res.n_failures = n_failures
    u = res.unjudged
    if n_failures:
        res.verdict = "fails"
        res.reason = (f"{n_failures} of {rows * d} entries beyond the {tier} bound of a {dt} table"
                      + (f" computed in {wfmt.dtype}" if wfmt.dtype != dt else ""))
    elif res.undecided or u["count"]:
        res.verdict = "inconclusive"
        res.reason = "; ".join(
            ([f"{u['count']} entries could not be judged from row {u['from_position']} on: the {tier} bound of a "
              f"{dt} table computed in {wfmt.dtype} lets any value in [-|alpha|, |alpha|] pass"] if u["count"] else [])
            + ([undecided_words(res.undecided)] if res.undecided else []))


def check_grid(table: Any, grid: Grid, *, dtype: str | None = None, tier: str = "phase", working: str | None = None,
               cells: Sequence[Sequence[int]] | None = None, max_failures: int = MAX_LISTED) -> CheckResult:
    """REQ-CHECK-GRID: a (cls + prod(shape), d) table against a grid profile, or rows at ``cells`` (spatial indices)."""
    res = check_plan(table, grid_plan(grid, cells), grid.name or grid.describe(), kind="grid", dtype=dtype, tier=tier,
                     working=working, max_failures=max_failures)
    res.profile_params = {"describe": grid.describe()}
    return res


VERDICT_ORDER = {"fails": 0, "inconclusive": 1, "conforms": 2}  # the worse first


def check_rotary(rp: RotaryProfile, dim: int, *, cos: Any = None, sin: Any = None, positions: Sequence[Any] | None = None,
                 dtype: str | None = None, tier: str = "phase", working: str | None = None,
                 shape: Sequence[int] | None = None, max_failures: int = MAX_LISTED) -> CheckResult:
    """REQ-CHECK-ROPE: a cos cache, a sin cache or both (rows = positions, default 0..n-1, or a tuple per row
    for a multi-axis profile, DEF-ROPE-AXES; rule pixel: the coordinates of ``shape``) against DEF-ROPE.

    The verdict is the worse of the parts (fails > inconclusive > conforms); ``parts`` holds each, and the
    figures are over both."""
    given = {k: v for k, v in (("cos", cos), ("sin", sin)) if v is not None}
    if not given:
        raise ValueError("check_rotary needs cos=, sin= or both")
    name = rp.name or rp.describe()
    parts = {}
    for which, t in given.items():
        arr = np.asarray(t)
        pos = default_positions(rp, dim, arr.shape[0], shape) if positions is None else list(positions)
        parts[which] = p = check_plan(arr, rotary_plan(rp, dim, pos, which), name, kind="rotary", dtype=dtype,
                                      tier=tier, working=working, max_failures=max_failures)
        for f in p.failures:
            f.cache = which
    return _pair(parts, f"{rp.describe()}, dim {dim}", max_failures)


def _pair(parts: dict[str, CheckResult], describe: str, max_failures: int) -> CheckResult:
    """One result over a cache pair (or a single cache): the worse verdict, the sums and maxima of the parts."""
    ps = list(parts.values())
    worst = min(ps, key=lambda r: VERDICT_ORDER[r.verdict])
    key = "max_abs_error" if worst.tier == "phase" else "max_ulp_error"
    res = CheckResult(worst.profile, "", {"describe": describe}, worst.tier, worst.dtype, worst.d, worst.rows,
                      width=worst.width, kind="rotary", working=worst.working, verdict=worst.verdict,
                      reason=worst.reason, parts=parts)
    for k in ("n_failures", "undecided", "oracle_decided", "non_finite"):
        setattr(res, k, sum(getattr(p, k) for p in ps))
    for k in ("max_abs_error", "max_ulp_error", "max_bound_ratio"):
        setattr(res, k, max(getattr(p, k) for p in ps))
    res.worst = dict(max(ps, key=lambda p: getattr(p, key)).worst)
    res.failures = [f for p in ps for f in p.failures][:max_failures]
    count = sum(p.unjudged["count"] for p in ps)
    res.unjudged = {"count": count, "share": count / res.entries if res.entries else 0.0,
                    "from_position": next((p.unjudged["from_position"] for p in ps if p.unjudged["count"]), None)}
    return res


# --- detect --------------------------------------------------------------------------------------

COMMON_BASES = (10000, 500000, 1000000, 100000, 50000, 1000, 25000, 75000)
FACTORS = (2, 4, 8, 16, 32)
ORIGINAL_MAX = tuple(1 << k for k in range(8, 18))  # 256 .. 131072: every power of two a config names (Llama 3.1 8192)


def rotary_layout(table: np.ndarray) -> list[str]:
    """The layouts whose duplication pattern the table shows (DEF-ROPE-LAYOUT), most specific first."""
    t = np.asarray(table, dtype=np.float64)
    n = t.shape[1]
    out = []
    if n % 2 == 0 and np.array_equal(t[:, : n // 2], t[:, n // 2:]):
        out.append("halves")
    if n % 2 == 0 and np.array_equal(t[:, 0::2], t[:, 1::2]):
        out.append("pairs")
    return out or ["single"]


def _estimate_frequencies(cos: np.ndarray | None, sin: np.ndarray | None, pos: np.ndarray,
                          layout: str) -> np.ndarray | None:
    """w_k from the row at the smallest positive position p (valid while p w_k < pi), the values divided by the
    cache's amplitude (its largest |value|: YaRN's and LongRoPE's attention factor scale the cache)."""
    t = cos if cos is not None else sin
    n = t.shape[1]
    h = n if layout == "single" else n // 2
    idx = np.arange(h) if layout != "pairs" else 2 * np.arange(h)
    pos_f = pos.astype(np.float64)
    cand = np.nonzero(pos_f > 0)[0]
    if not cand.size:
        return None
    r = cand[np.argmin(pos_f[cand])]
    p = pos_f[r]
    if cos is not None and sin is not None:
        ph = np.arctan2(sin[r, idx].astype(np.float64), cos[r, idx].astype(np.float64))
    else:
        amp = float(np.max(np.abs(t.astype(np.float64)))) or 1.0
        ph = (np.arccos(np.clip(cos[r, idx].astype(np.float64) / amp, -1, 1)) if cos is not None else
              np.arcsin(np.clip(sin[r, idx].astype(np.float64) / amp, -1, 1)))
    return np.abs(ph) / p


def _rotary_candidates(layout: str, dim: int, w: np.ndarray | None) -> list[RotaryProfile]:
    bases: list[Fraction] = [Fraction(b) for b in COMMON_BASES]
    if w is not None and len(w) > 1 and 0 < w[1] < 1:
        lf = -dim / 2 * math.log(float(w[1]))  # an estimate near 0 (noise) overflows: no fitted base
        fitted = math.exp(lf) if lf < 700 else math.inf
        if math.isfinite(fitted) and fitted > 1:
            for sig in (3, 4, 6):
                b = Fraction(float(f"{fitted:.{sig}g}")).limit_denominator(1)
                if b > 1 and b not in bases:
                    bases.append(b)
    out: list[RotaryProfile] = []
    for b in bases:
        out.append(RotaryProfile(None, layout, b))
    for b in bases:
        out += [RotaryProfile(None, layout, b, "linear", factor=Fraction(s)) for s in FACTORS]
    for b in bases[:3]:
        for s in FACTORS:
            for L in ORIGINAL_MAX:
                out.append(RotaryProfile(None, layout, b, "llama3", factor=Fraction(s), original_max=L))
                out.append(RotaryProfile(None, layout, b, "yarn", factor=Fraction(s), original_max=L))
    return out


def detect_rotary(cos: Any = None, sin: Any = None, positions: Sequence[Any] | None = None,
                  dtype: str | None = None, tier: str = "phase") -> dict[str, Any]:
    """REQ-DETECT-ROPE: name the layout, head dim, base and scaling of a rotary cache (cos, sin or both).

    Candidates (layouts shown by the duplication pattern, common and fitted bases, linear / llama3 /
    yarn scalings) are checked in order of simplicity; the first that conforms is the answer, and
    the others that also conform are listed as equivalent on these rows. When none does, the readings of
    :mod:`sinpe.reference.checking.rotary_read` (a start position, the cells of a grid, several position axes)
    and then the explicit plan of the frequencies read from the data (REQ-DETECT-READ) are tried.
    """
    t = cos if cos is not None else sin
    if t is None:
        raise ValueError("detect_rotary needs cos=, sin= or both")
    from sinpe.reference.checking import rotary_read
    t = np.asarray(t)
    dtype = dtype or stored_dtype(t)
    layouts = rotary_layout(t)
    if t.ndim != 2 or t.shape[0] < MIN_ROTARY_ROWS:  # every candidate would fit one row at position 0
        return {"found": False, "layouts": layouts, "reason": f"a rotary reading needs at least {MIN_ROTARY_ROWS} "
                f"rows; the cache has {t.shape[0]}"}
    if positions is not None and any(isinstance(p, (tuple, list, np.ndarray)) and len(p) > 1 for p in positions):
        return rotary_read.axes_reading(cos, sin, positions, layouts, dtype, tier)  # several position axes
    pos = np.arange(t.shape[0]) if positions is None else np.asarray(
        [p[0] if isinstance(p, (tuple, list, np.ndarray)) else p for p in positions])
    found: list[tuple[RotaryProfile, int]] = []
    fmt, working, step = dtype, None, 0
    for layout in layouts:
        dim = t.shape[1] * (2 if layout == "single" else 1)
        if dim % 2:
            continue
        w = _estimate_frequencies(None if cos is None else np.asarray(cos), None if sin is None else np.asarray(sin),
                                  pos, layout)
        p_min = float(np.min(pos[pos > 0])) if np.any(pos > 0) else None
        tol, memo = _phase_tolerance(dtype), {}
        cands = [rp for rp in _rotary_candidates(layout, dim, w) if w is None or p_min is None
                 or _between(rp, dim, w, p_min, tol, memo) and _plausible(rp, dim, w, p_min, tol)]
        for step, (fmt, working) in enumerate(precision_ladder(dtype, tier)):
            found = _fitting(cands, dim, cos, sin, pos, fmt, tier, working)
            if found:
                break
        if found:
            break
    if not found and positions is None:  # rows at positions p0, p0 + 1, ...; rows the cells of a grid
        other = (rotary_read.start_reading(cos, sin, layouts, dtype, tier)
                 or rotary_read.grid_readings(cos, sin, layouts, dtype, tier))
        if other is not None:
            return dict({"dtype": dtype}, **other)
    if not found:  # REQ-DETECT-READ: the frequencies read from the data, as an explicit plan
        from sinpe.reference.checking.channels import explicit_rotary
        read = explicit_rotary(cos, sin, None if positions is None else list(pos.tolist()), layouts, dtype, tier)
        return dict(read, dtype=dtype) if read else {"found": False, "layouts": layouts, "reason": "no candidate "
                                                     "rotary profile conforms, and no explicit plan of the frequencies "
                                                     "read from the data does"}
    best, dim = found[0]
    named = next((n for n, p in ROTARY_NAMES() if p == best.replace(name=None) or _same(p, best)), None)
    return {"found": True, "layout": best.layout, "dim": dim, "profile": named, "params": best.params(),
            "describe": best.describe(), "equivalent": [p.describe() for p, _ in found[1:]], "dtype": fmt,
            "working": working, "lowered": step > 0}


SCREEN_ROWS = 64  # a candidate is first checked on this many rows (half the first, half spread over the rest)


def _fitting(cands: list[RotaryProfile], dim: int, cos: Any, sin: Any, pos: np.ndarray, dtype: str, tier: str,
             working: str | None) -> list[tuple[RotaryProfile, int]]:
    """The first (at most 4) candidates that fit the caches (CheckResult.fits) at ``working``. Each is screened
    on :data:`SCREEN_ROWS` rows first: an entry that fails there fails in the full check too (its bound depends
    on its own position only), so the screen only skips work; what it lets through is checked on every row."""
    found: list[tuple[RotaryProfile, int]] = []
    caches = {k: np.asarray(v) for k, v in (("cos", cos), ("sin", sin)) if v is not None}
    rows = len(pos)
    few = (np.unique(np.concatenate([np.arange(SCREEN_ROWS // 2), np.linspace(SCREEN_ROWS // 2, rows - 1,
                                                                              SCREEN_ROWS // 2).astype(np.intp)]))
           if rows > 2 * SCREEN_ROWS else None)
    for rp in cands:
        try:
            if few is not None and check_rotary(rp, dim, **{k: v[few] for k, v in caches.items()},
                                                positions=list(pos[few].tolist()), dtype=dtype, tier=tier,
                                                working=working, max_failures=1).verdict == "fails":
                continue
            r = check_rotary(rp, dim, **caches, positions=list(pos.tolist()), dtype=dtype, tier=tier,
                             working=working)
        except ValueError:
            continue
        if r.fits:
            found.append((rp, dim))
            if len(found) >= 4:
                break
    return found


def _plausible(rp: RotaryProfile, dim: int, w_est: np.ndarray, p: float, tol: float = 1e-2) -> bool:
    """Cheap pre-filter: the candidate's frequencies agree with the estimate where p * w < 3 (no wrap-around),
    to within ``tol`` radians of phase (:func:`_phase_tolerance`: the estimate is an arccos of a rounded value)."""
    w = _candidate_frequencies(rp, dim)
    if w is None:
        return False
    ok = p * w < 3
    return bool(np.all(np.abs(w_est[ok] - w[ok]) * p <= tol))


def _between(rp: RotaryProfile, dim: int, w_est: np.ndarray, p: float, tol: float,
             memo: dict[tuple[Any, ...], bool]) -> bool:
    """A necessary condition of :func:`_plausible` for llama3 and yarn candidates, decided once per (layout, base,
    factor) for every original length L: both rules blend w0_k / s and w0_k (w0 the base's default frequencies), so
    where p w0 < 3 (a subset of the columns :func:`_plausible` reads) the estimate lies within ``tol`` of phase
    of [w0 / s, w0]. Other rules pass (True)."""
    if rp.rule not in ("llama3", "yarn"):
        return True
    key = (rp.layout, rp.base, rp.factor)
    if key not in memo:
        w0 = _candidate_frequencies(RotaryProfile(None, rp.layout, rp.base), dim)
        ok = p * w0 < 3 if w0 is not None else np.zeros(0, dtype=bool)
        lo, hi = w0[ok] * p / float(rp.factor) - tol, w0[ok] * p + tol  # type: ignore[index]
        memo[key] = w0 is not None and bool(np.all((w_est[ok] * p >= lo) & (w_est[ok] * p <= hi)))
    return memo[key]


def _phase_tolerance(dtype: str) -> float:
    """How far a phase read back by arccos/arcsin from one value of ``dtype`` may be off: a value error of
    u near cos = 1 moves the angle by up to sqrt(2u); four times that, at least 0.01 rad."""
    return max(1e-2, 4 * math.sqrt(2 * get_format(dtype).unit_roundoff))


@lru_cache(maxsize=1 << 14)
def _candidate_frequencies(rp: RotaryProfile, dim: int) -> np.ndarray | None:
    """A candidate's frequencies in binary64 (None: the rule does not apply at dim), computed once per
    (profile, dim): detect tries the same candidates on every table of a width (``sinpe scan``)."""
    try:  # binary64 arithmetic (mpmath.fp): the pre-filter needs ~1e-2 rad, not an enclosure
        w = np.array([float(x) for x in frequencies(rp, dim, mpmath.fp)], dtype=np.float64)
    except (ValueError, ArithmeticError, TypeError):
        return None
    w.setflags(write=False)
    return w


def ROTARY_NAMES() -> list[tuple[str, RotaryProfile]]:
    from sinpe.spec.rotary import ROTARY_PRESETS
    return list(ROTARY_PRESETS.items())


def _same(a: RotaryProfile, b: RotaryProfile) -> bool:
    return a.replace(name=None) == b.replace(name=None)


SHAPE_FREE = ("mae", "timm", "timm-interleaved", "detr")  # presets whose values do not depend on the grid's size


def _cell_candidates(dim: int, cells: Sequence[Sequence[int]], shape: tuple[int, int] | None) -> list[Any]:
    sh = shape or (max(c[0] for c in cells) + 1, max(c[1] for c in cells) + 1)
    out = []
    for name in GRID_PRESETS if shape is not None else SHAPE_FREE:
        for o in ([{}, {"reverse_coord": True}] if name == "timm" else [{}]):
            try:
                g = get_grid(name, dim, sh, **o)
            except (ValueError, TypeError):
                continue
            if o.get("reverse_coord"):
                continue  # reversed coordinates: the cells are (x, y); the same table as timm at swapped cells
            out.append((g, o))
    return out


GRID_SCREEN_CELLS = 16  # a grid candidate is first checked on this many cells (half the first, half spread)


def _screen_rows(g: Grid) -> np.ndarray | None:
    """The table rows a candidate is screened on (cells, half the first, half spread), or None when the grid is
    small enough to check whole."""
    n = math.prod(g.shape)
    if n <= 2 * GRID_SCREEN_CELLS:
        return None
    return g.cls + np.unique(np.concatenate([np.arange(GRID_SCREEN_CELLS // 2), np.linspace(
        GRID_SCREEN_CELLS // 2, n - 1, GRID_SCREEN_CELLS // 2).astype(np.intp)]))


def gross_misfit(y: np.ndarray, plan: AnglePlan) -> bool:
    """Is ``y`` off the plan by more than a quarter of the amplitude somewhere, in a binary64 evaluation (frequencies in
    ``mpmath.fp``)? Far beyond the tolerance of a float32 or float64 table (not of a half-precision one: the caller
    skips it there), so a True only skips the certified work of a plan that fails."""
    try:
        w = np.array([float(x) for x in plan.omega(mpmath.fp)] or [0.0])
        amps = np.array([abs(float(a)) for a in plan.amplitude(mpmath.fp)])
    except (ValueError, ArithmeticError, TypeError):
        return False
    x = np.stack([np.array([float(c) for c in plan.coords[a]])[plan.index[:, a]] for a in range(len(plan.coords))],
                 axis=1)
    th = x[:, plan.axes] * w[plan.fids][None, :]
    v = np.where(plan.kinds == 0, np.sin(th), np.where(plan.kinds == 1, np.cos(th), 0.0)) * amps[plan.axes]
    v[plan.zero_rows] = 0.0
    with np.errstate(invalid="ignore"):
        return bool(np.any(np.abs(np.asarray(y, dtype=np.float64) - v) > 0.25 * max(float(amps.max(initial=0)), 1e-300)))


def _grid_fits(t: np.ndarray, g: Grid, plan: AnglePlan, fmt: str, tier: str, working: str | None) -> bool:
    """Does ``t`` fit grid ``g`` (its plan ``plan``)? Screened on a few cells first, in binary64 (a gross misfit)
    and then certified: an entry that fails there fails in the whole check too (its bound depends on its own cell),
    so the screen only skips work."""
    few = _screen_rows(g)
    coarse = fmt in ("float16", "bfloat16")  # a half-precision bound may let errors past a quarter through
    if not coarse and gross_misfit(t if few is None else t[few], plan if few is None else plan_rows(plan, few, False)):
        return False
    if few is not None and not check_plan(t[few], plan_rows(plan, few), g.name, kind="grid", dtype=fmt, tier=tier,
                                          working=working, max_failures=1).fits:
        return False
    return check_plan(t, plan, g.name or g.describe(), kind="grid", dtype=fmt, tier=tier, working=working).fits


def detect_grid(table: Any, shape: Sequence[int] | None = None, dtype: str | None = None,
                tier: str = "phase", cells: Sequence[Sequence[int]] | None = None) -> dict[str, Any]:
    """REQ-DETECT-GRID: which grid preset (with which options, shape and cls rows) a (rows, d) table is: every shape
    the rows show, every preset of that many axes with the options read from the data
    (:func:`sinpe.reference.checking.grid_read.grid_candidates`), each checked.

    With ``cells`` (the (y, x) index of each row, any cells, >= 3 rows) only the presets whose values do not
    depend on the grid size are tried unless ``shape`` is given (REQ-DETECT-SPARSE)."""
    from sinpe.reference.checking.grid_read import grid_candidates
    t = np.asarray(table)
    rows, dim = t.shape
    dtype = dtype or stored_dtype(t)
    if cells is not None and len(cells) != rows:
        raise ValueError(f"{rows} rows but {len(cells)} cells")
    cands = (_cell_candidates(dim, cells, None if shape is None else tuple(shape)) if cells is not None
             else grid_candidates(t, None if shape is None else tuple(shape)))
    plans: dict[int, AnglePlan] = {}  # each plan (and its reference) serves every ladder step
    for step, (fmt, working) in enumerate(precision_ladder(dtype, tier)):
        hits = []
        for i, (g, o) in enumerate(cands):
            plan = plans.setdefault(i, grid_plan(g, cells))
            ok = (check_plan(t, plan, g.name, kind="grid", dtype=fmt, tier=tier, working=working).fits
                  if cells is not None else _grid_fits(t, g, plan, fmt, tier, working))
            if ok:
                arg = g.shape[::-1] if o.get("reverse_coord") else g.shape  # the library's own shape argument
                hits.append({"profile": g.name, "shape": list(arg), "cls": g.cls, "options": o})
        if hits:
            return dict(found=True, **hits[0], equivalent=hits[1:], dtype=fmt, working=working, lowered=step > 0)
    return {"found": False, "reason": "no grid preset conforms on any cell shape the rows show"
            + ("" if cands else " (they show none)")}


def precision_ladder(dtype: str, tier: str) -> tuple[tuple[str, str | None], ...]:
    """REQ-DETECT-PRECISION: the (format, working precision) pairs a reading tries, in order. First the table's
    format at TOL-WORKING's default; then, for a table no plan fits so, a computation in less precision than it
    claims: a half-precision table computed natively in its own format (``--working native``), a float64 table
    computed in float32 (``--dtype float32``). A plan found on a later step is named with that flag as a
    deviation (exit 1); ``sinpe check``'s default (and ``--profile auto``) still rejects the table.

    >>> precision_ladder("bfloat16", "phase"), precision_ladder("float64", "phase")[1], precision_ladder("float32", "phase")
    ((('bfloat16', None), ('bfloat16', 'native')), ('float32', None), (('float32', None),))
    """
    if tier == "phase" and dtype in ("float16", "bfloat16"):
        return (dtype, None), (dtype, "native")
    if tier == "phase" and dtype == "float64":
        return (dtype, None), ("float32", None)
    return ((dtype, None),)


MAX_OTHER_ENTRIES = 1 << 22  # the grid/rotary readings are tried on tables up to this size (REQ-DETECT-KINDS)


def other_readings(data: Any, positions: Any, det: Any, dtype: str | None = None,
                   tier: str = "phase") -> dict[str, dict[str, Any]]:
    """The 2-D grid and rotary readings of a table (REQ-DETECT-KINDS): each ``{"found": bool, ...}``, in
    ``dtype`` (default: the narrowest format holding the values) at ``tier``. Skipped (and said so) on tables over
    MAX_OTHER_ENTRIES entries that the 1-D fit already names; the rotary reading is not tried (and says so) when the
    grid reading names the table (a grid is chosen first)."""
    rows, w = data.shape
    fits = det is not None and det.profile_flags is not None and "no_fit" not in det.deviations
    big = rows * w > MAX_OTHER_ENTRIES
    if fits and big:
        skipped = {"found": False, "reason": f"not tried: the 1-D reading fits and the table has over "
                                             f"{MAX_OTHER_ENTRIES} entries"}
        return {"grid": dict(skipped), "rotary": dict(skipped)}
    if big:  # bounded work: no grid reading, and the rotary one on the first rows only (a cache's prefix is one)
        keep = max(8, MAX_OTHER_ENTRIES // max(w, 1))
        data, positions = data[:keep], None if positions is None else list(positions)[:keep]
    t = np.asarray(data, dtype=np.float64) if np.asarray(data).dtype.itemsize > 8 else np.asarray(data)
    out: dict[str, dict[str, Any]] = {}
    try:
        out["grid"] = ({"found": False, "reason": f"not tried: {rows} x {w} entries, over the {MAX_OTHER_ENTRIES} "
                        f"the grid reading reads (give the grid preset and --shape)"} if big else
                       detect_grid(t, dtype=dtype, tier=tier) if positions is None else
                       {"found": False, "reason": "rows at --positions"})
    except ValueError as e:
        if internal(e):
            raise  # a fault of sinpe's is not a reading that found nothing (REQ-CLI-EXIT)
        out["grid"] = {"found": False, "reason": str(e)}
    if out["grid"].get("found"):  # a grid is named before a rotary reading (REQ-DETECT-KINDS): none is needed
        out["rotary"] = {"found": False, "reason": "not tried: the grid reading names the table"}
        return out
    pos = None if positions is None else [float(p) for p in positions]
    rot: dict[str, Any] = {"found": False, "reason": "no rotary preset conforms as a cos or a sin cache"}
    for which in ("cos", "sin"):
        try:
            r = detect_rotary(**{which: t}, positions=pos, dtype=dtype, tier=tier)
        except ValueError as e:
            if internal(e):
                raise
            r = {"found": False, "reason": str(e)}
        if r.get("found"):
            rot = dict(r, cache=which)
            break
    out["rotary"] = rot
    return out
