"""Reading a rotary cache (SPEC.md REQ-DETECT-ROPE, REQ-DETECT-READ, REQ-DETECT-PRECISION): which rotary profile a cos
cache, a sin cache or both implement.

The layouts the duplication pattern shows (DEF-ROPE-LAYOUT) fix the head dim; the frequencies estimated from the
smallest positive position screen the candidates of the rotary kind (:meth:`CacheKind.candidates`: common and
fitted bases, the scaling rules), which are then checked in order of simplicity at each step of the precision
ladder; the first that conforms is the answer, the others that also conform are listed as equivalent on these
rows. When none does, the readings beyond one axis at positions 0, 1, ... are tried, each *checked* before it is
named:

- a start position: rows at positions p0, p0 + 1, ... (a cache sliced at an offset): candidates screened by the
  three-term recurrence (which does not see p0); p0 read from the first rows' phases, slowest frequency first (its
  angle p0 w is read directly while below pi), then unwrapped through the faster ones;
- the cells of a grid (DEF-ROPE-AXES): every H x W shape the rows show (:mod:`sinpe.reference.checking.shapes`), as
  timm-pixel (DEF-ROPE-FREQ-PIXEL, layouts pairs, halves and single), then as an explicit plan over the cells'
  integer indices (timm's ``in_pixels=False`` bands), named with ``--shape HxW``;
- positions with several axes given (a (rows, m) file): an explicit plan with sections (:func:`explicit_axes`);
- the frequencies read from the data (REQ-DETECT-READ, :mod:`sinpe.reference.checking.detect.channels`), as an
  explicit plan (:func:`explicit_rotary`).

The reading is written once for every rotary profile: what is particular to a profile family (its candidates, how a
cache is checked against one, the presets' names) comes from the rotary kind, handed in as ``kind``.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any, Protocol

import mpmath
import numpy as np

from sinpe.reference.checking.detect.channels import (
    MAX_COLUMNS,
    _amplitudes,
    _axes_amplitudes,
    _axes_plan_frequencies,
    _frequency_columns,
    _function_of,
    _inside,
    _per_frequency,
    _refine_fixed,
    _sections,
    _slow,
    _snap_f32,
    nearest_schedule,
    pin_frequencies,
    read_channels,
    share_frequencies,
)
from sinpe.reference.checking.detect.fit import column_frequencies
from sinpe.reference.checking.detect.ladder import precision_ladder, screen_rows, stored_dtype
from sinpe.reference.checking.result import CheckResult
from sinpe.reference.checking.shapes import cell_shapes
from sinpe.spec.formats import get_format
from sinpe.spec.rotary import MAX_AXES, ROTARY_PRESETS, RotaryProfile, frequencies, pixel_coordinates


class CacheKind(Protocol):
    """What the reading asks of the rotary kind."""

    def candidates(self, layout: str, dim: int, w: np.ndarray | None) -> list[RotaryProfile]:
        """The profiles to try for a cache of ``layout`` and head dim ``dim`` (``w``: the estimated frequencies)."""

    def check_cache(self, rp: RotaryProfile, dim: int, *args: Any, **kw: Any) -> CheckResult:
        """A cos cache, a sin cache or both (``cos=``, ``sin=``) checked against ``rp``."""

    def preset_name(self, rp: RotaryProfile) -> str | None:
        """The preset ``rp`` is, if any."""


MIN_ROTARY_ROWS = 3   # as the 1-D reading (REQ-DETECT-FIT): fewer rows name no rotary plan
MAX_START_CANDIDATES = 8  # candidates whose start position is read and checked
UNWRAP = 2.5              # an angle below this (rad) is read directly (arccos is unambiguous below pi)


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
    """w_k from the row at the smallest positive position p (valid while p w_k < REACH, SIN_REACH for a sin cache
    alone), the values divided by the
    cache's amplitude (its largest |value|: YaRN's and LongRoPE's attention factor scale the cache)."""
    t = cos if cos is not None else sin
    if t is None:
        raise ValueError("a cos or a sin cache is needed")
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
        v = np.clip(t[r, idx].astype(np.float64) / amp, -1, 1)  # the one cache given (t: cos, else sin)
        ph = np.arccos(v) if cos is not None else np.arcsin(v)
    return np.abs(ph) / p


def _all_zero(cos: Any, sin: Any, positions: Sequence[Any] | None) -> bool:
    """Caches of zeros that no reading of this module can name: a cos cache (no profile gives one: cos 0 = 1 at
    position 0, and w_0 p is never an odd multiple of pi/2 elsewhere, nor pi beta_0 x = -pi at a pixel grid's
    corner x = -1), or a sin cache with a position p != 0 (w_0 p is a nonzero rational, never a multiple of pi, for
    every rule but pixel; a pixel-band sin cache, pi times an integer band at the coordinates -1, 0 and 1, is all
    zero on a grid no side of which exceeds 3: its check conforms, but no cell shape shows in zeros)."""
    if cos is not None:
        return not np.any(np.asarray(cos))
    nonzero = positions is None or any(np.any(np.asarray(p) != 0) for p in positions)
    return nonzero and not np.any(np.asarray(sin))


def detect_rotary(kind: CacheKind, cos: Any = None, sin: Any = None, positions: Sequence[Any] | None = None,
                  dtype: str | None = None, tier: str = "phase") -> dict[str, Any]:
    """REQ-DETECT-ROPE: name the layout, head dim, base and scaling of a rotary cache (cos, sin or both).

    Candidates (layouts shown by the duplication pattern, common and fitted bases, linear / llama3 /
    yarn scalings) are checked in order of simplicity; the first that conforms is the answer, and
    the others that also conform are listed as equivalent on these rows. When none does, the readings of
    module (a start position, the cells of a grid, several position axes) and then the explicit plan of the
    frequencies read from the data (REQ-DETECT-READ) are tried.
    """
    t = cos if cos is not None else sin
    if t is None:
        raise ValueError("detect_rotary needs cos=, sin= or both")
    t = np.asarray(t)
    dtype = dtype or stored_dtype(t)
    layouts = rotary_layout(t)
    if t.ndim != 2 or t.shape[0] < MIN_ROTARY_ROWS:  # every candidate would fit one row at position 0
        return {"found": False, "layouts": layouts, "reason": f"a rotary reading needs at least {MIN_ROTARY_ROWS} "
                f"rows; the cache has {t.shape[0]}"}
    if _all_zero(cos, sin, positions):
        return {"found": False, "layouts": layouts, "reason": "every entry is zero: no rotary cache of one position "
                "axis is (a cos cache holds cos 0 = 1 at position 0, a sin cache sin(p) != 0 in its first column at a "
                "position p != 0); a pixel-band sin cache can be, on a grid of sides <= 3: check it with --profile "
                "timm-pixel --shape HxW"}
    if positions is not None and any(isinstance(p, (tuple, list, np.ndarray)) and len(p) > 1 for p in positions):
        return axes_reading(kind, cos, sin, positions, layouts, dtype, tier)  # several position axes
    pos = np.arange(t.shape[0]) if positions is None else np.asarray(
        [p[0] if isinstance(p, (tuple, list, np.ndarray)) else p for p in positions])
    found: list[tuple[RotaryProfile, int]] = []
    fmt, working = dtype, None
    for layout in layouts:
        dim = t.shape[1] * (2 if layout == "single" else 1)
        if dim % 2:
            continue
        w = _estimate_frequencies(None if cos is None else np.asarray(cos), None if sin is None else np.asarray(sin),
                                  pos, layout)
        p_min = float(np.min(pos[pos > 0])) if np.any(pos > 0) else None
        tol = _phase_tolerance(dtype)
        reach = SIN_REACH if cos is None else REACH
        memo: dict[tuple[Any, ...], bool] = {}
        cands = [rp for rp in kind.candidates(layout, dim, w) if w is None or p_min is None
                 or _between(rp, dim, w, p_min, tol, memo, reach) and _plausible(rp, dim, w, p_min, tol, reach)]
        ladder = precision_ladder(dtype, tier)
        for fmt, working in ladder:
            found = _fitting(kind, cands, dim, cos, sin, pos, fmt, tier, working)
            if found:
                break
        if found:
            break
    if not found and positions is None:  # rows at positions p0, p0 + 1, ...; rows the cells of a grid
        other = (start_reading(kind, cos, sin, layouts, dtype, tier)
                 or grid_readings(kind, cos, sin, layouts, dtype, tier))
        if other is not None:
            return dict({"dtype": dtype}, **other)
    if not found:  # REQ-DETECT-READ: the frequencies read from the data, as an explicit plan
        read = explicit_rotary(kind, cos, sin, None if positions is None else list(pos.tolist()), layouts, dtype, tier)
        if isinstance(read, dict):
            return dict(read, dtype=dtype)
        return {"found": False, "layouts": layouts, "reason": f"no candidate rotary profile conforms, and {read}"}
    best, dim = found[0]
    named = kind.preset_name(best)
    return {"found": True, "layout": best.layout, "dim": dim, "profile": named, "params": best.params(),
            "describe": best.describe(), "equivalent": [p.describe() for p, _ in found[1:]], "dtype": fmt,
            "working": working, "lowered": (fmt, working) != ladder[0]}


SCREEN_ROWS = 64  # a candidate is first checked on this many rows (half the first, half spread over the rest)


def _fitting(kind: CacheKind, cands: list[RotaryProfile], dim: int, cos: Any, sin: Any, pos: np.ndarray, dtype: str,
             tier: str, working: str | None) -> list[tuple[RotaryProfile, int]]:
    """The first (at most 4) candidates that fit the caches (CheckResult.fits) at ``working``. Each is screened
    on :data:`SCREEN_ROWS` rows first: an entry that fails there fails in the full check too (its bound depends
    on its own position only), so the screen only skips work; what it lets through is checked on every row."""
    found: list[tuple[RotaryProfile, int]] = []
    caches = {k: np.asarray(v) for k, v in (("cos", cos), ("sin", sin)) if v is not None}
    few = screen_rows(SCREEN_ROWS, len(pos))
    for rp in cands:
        try:  # a plan that reads the last position given is another plan on a few rows: not screened
            if few is not None and not rp.depends_on_last_position and kind.check_cache(rp, dim, **{k: v[few] for k, v in caches.items()},
                                                positions=list(pos[few].tolist()), dtype=dtype, tier=tier,
                                                working=working, max_failures=1).verdict == "fails":
                continue
            r = kind.check_cache(rp, dim, **caches, positions=list(pos.tolist()), dtype=dtype, tier=tier,
                             working=working)
        except ValueError:
            continue
        if r.fits:
            found.append((rp, dim))
            if len(found) >= 4:
                break
    return found


REACH = 3.0       # the angle p w up to which a cos cache (arccos) or both caches (atan2) give p w itself (< pi)
SIN_REACH = 1.5   # the same for a sin cache alone: arcsin gives p w only below pi/2 (p > 1 reaches past it)


def _plausible(rp: RotaryProfile, dim: int, w_est: np.ndarray, p: float, tol: float = 1e-2,
               reach: float = REACH) -> bool:
    """Cheap pre-filter: the candidate's frequencies agree with the estimate where p * w < ``reach`` (no
    wrap-around), to within ``tol`` radians of phase (:func:`_phase_tolerance`: the estimate is an arccos or
    arcsin of a rounded value)."""
    if rp.has_growth:  # a growth with the position biases the recurrence's estimate: checked, not filtered
        return True
    w = _candidate_frequencies(rp, dim)
    if w is None:
        return False
    ok = p * w < reach
    return bool(np.all(np.abs(w_est[ok] - w[ok]) * p <= tol))


def _between(rp: RotaryProfile, dim: int, w_est: np.ndarray, p: float, tol: float,
             memo: dict[tuple[Any, ...], bool], reach: float = REACH) -> bool:
    """A necessary condition of :func:`_plausible` for llama3 and yarn candidates, decided once per (layout, base,
    factor) for every original length L: both rules blend w0_k / s and w0_k (w0 the base's default frequencies), so
    where p w0 < ``reach`` (a subset of the columns :func:`_plausible` reads) the estimate lies within ``tol`` of phase
    of [w0 / s, w0]. Other rules pass (True)."""
    if rp.rule not in ("llama3", "yarn"):
        return True
    key = (rp.layout, rp.base, rp.factor)
    if key not in memo:
        w0 = _candidate_frequencies(RotaryProfile(None, rp.layout, rp.base), dim)
        ok = p * w0 < reach if w0 is not None else np.zeros(0, dtype=bool)
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


def _one_column_per_frequency(layout: str, n: int) -> np.ndarray:
    """One column per frequency k of a cache of ``n`` columns in ``layout``."""
    return np.arange(n) if layout == "single" else np.arange(n // 2) if layout == "halves" else 2 * np.arange(n // 2)


def start_position(first: dict[str, np.ndarray], second: dict[str, np.ndarray], w: np.ndarray) -> float | None:
    """p0 such that rows 0 and 1 (``first``, ``second``: per frequency, the cos and/or sin values over the
    amplitude) hold angles p0 w_k and (p0 + 1) w_k. Slowest frequency first: while p w_k < UNWRAP the angle is read
    directly (arccos of the cos, arcsin of the sin, atan2 of both); past it, the full angle (atan2, the missing
    function from the next row: sin(x) = (cos(x) cos(w) - cos(x + w)) / sin(w)) is unwrapped to the turn nearest
    the estimate, which sharpens as w grows. None if no frequency can be read."""
    c0, s0 = first.get("cos"), first.get("sin")
    p = None
    for k in np.argsort(w):
        wk = float(w[k])
        if not wk > 0:
            continue
        direct = (math.atan2(s0[k], c0[k]) % (2 * math.pi) if c0 is not None and s0 is not None else
                  math.acos(min(1.0, max(-1.0, c0[k]))) if c0 is not None else
                  math.asin(min(1.0, max(-1.0, s0[k]))))  # type: ignore[index]
        reach = UNWRAP if c0 is not None else UNWRAP / 2  # arcsin is one-to-one below pi/2 only
        if p is None or p * wk < reach:
            p = direct / wk
            continue
        full = _full_angle(first, second, k, wk)
        if full is None or p is None:
            continue
        p = (full + 2 * math.pi * round((p * wk - full) / (2 * math.pi))) / wk
    return p


def _full_angle(first: dict[str, np.ndarray], second: dict[str, np.ndarray], k: int, wk: float) -> float | None:
    """The angle of row 0 at frequency k in (-pi, pi], from both functions (the one missing from row 1)."""
    c0, s0 = first.get("cos"), first.get("sin")
    if c0 is not None and s0 is not None:
        return math.atan2(s0[k], c0[k])
    if math.sin(wk) < 1e-2:
        return None  # the missing function would be noise over sin(w)
    if c0 is not None:
        return math.atan2((c0[k] * math.cos(wk) - second["cos"][k]) / math.sin(wk), c0[k])
    return math.atan2(s0[k], (second["sin"][k] - s0[k] * math.cos(wk)) / math.sin(wk))  # type: ignore[index]


def _recurrence_plausible(rp: RotaryProfile, dim: int, w_est: np.ndarray, good: np.ndarray) -> float | None:
    """How far (max relative) a candidate's frequencies are from the recurrence estimate on the well-read columns
    (None: the rule does not apply)."""
    w = _candidate_frequencies(rp, dim)
    if w is None or len(w) != len(w_est) or not good.any():
        return None
    return float(np.max(np.abs(w[good] - w_est[good]) / w[good]))


def start_reading(kind: CacheKind, cos: Any, sin: Any, layouts: Sequence[str], dtype: str,
                  tier: str) -> dict[str, Any] | None:
    """A cache at positions p0, p0 + 1, ... (p0 a positive integer): the first candidate (common and fitted bases,
    the scaled rules) whose frequencies match the recurrence and that fits at the positions its phases give."""
    caches = {k: np.asarray(v, dtype=np.float64) for k, v in (("cos", cos), ("sin", sin)) if v is not None}
    t = next(iter(caches.values()))
    rows, n = t.shape
    if rows < 8:
        return None
    amp = float(np.max(np.hypot(caches["cos"], caches["sin"]))) if len(caches) == 2 else float(np.max(np.abs(t)))
    for layout in layouts:
        idx = _one_column_per_frequency(layout, n)
        dim = 2 * len(idx)
        with np.errstate(all="ignore"):
            w_est, q = column_frequencies(t[:128, idx] / (amp or 1.0))
        good = np.isfinite(w_est) & (q < 1e-3) & (w_est > 0.02) & (w_est < 3)
        if not good.any():  # no column read well enough to compare a candidate's frequencies with
            continue
        scored = [(d, rp) for rp in kind.candidates(layout, dim, w_est)
                  if (d := _recurrence_plausible(rp, dim, w_est, good)) is not None and d < 1e-3]
        for _, rp in sorted(scored, key=lambda x: x[0])[:MAX_START_CANDIDATES]:
            w = _candidate_frequencies(rp, dim)
            if w is None:  # (no binary64 frequencies for this profile: nothing to start from)
                continue
            p = start_position({k: v[0, idx] / amp for k, v in caches.items()},
                               {k: v[1, idx] / amp for k, v in caches.items()}, w)
            if p is None or abs(p - round(p)) > 0.05 or round(p) < 1:
                continue
            pos = np.arange(rows) + int(round(p))
            for step, (fmt, working) in enumerate(precision_ladder(dtype, tier)):
                if _fitting(kind, [rp], dim, cos, sin, pos, fmt, tier, working):
                    return {**_answer(kind, rp, dim), "start": int(pos[0]), "rows": rows, "dtype": fmt, "working": working,
                            "lowered": step > 0}
    return None


def _answer(kind: CacheKind, rp: RotaryProfile, dim: int) -> dict[str, Any]:
    return {"found": True, "layout": rp.layout, "dim": dim, "profile": kind.preset_name(rp), "params": rp.params(),
            "describe": rp.describe(), "equivalent": []}


def pixel_reading(kind: CacheKind, cos: Any, sin: Any, layouts: Sequence[str], dtype: str, tier: str,
                  shapes: Sequence[tuple[int, ...]]) -> dict[str, Any] | None:
    """REQ-DETECT-ROPE for rule pixel (DEF-ROPE-FREQ-PIXEL): a cache whose rows are the cells of one of ``shapes``
    (H x W), read as timm-pixel in its layout (pairs: timm's default; halves: ``rotate_half``; single: the sin/cos of
    ``build_fourier_pos_embed``), log bands then linear bands. Each is checked on the first row of cells (cheap),
    then on every row; the answer carries the ``shape``."""
    caches = {k: np.asarray(v) for k, v in (("cos", cos), ("sin", sin)) if v is not None}
    n = next(iter(caches.values())).shape[1]
    preset = ROTARY_PRESETS["timm-pixel"]
    for shape in shapes:
        if len(shape) != 2:
            continue
        first = pixel_coordinates(shape)[:shape[1]]
        for rp in (preset.replace(layout=lay, linear_bands=lin) for lay in ("pairs", "halves", "single")
                   if lay in layouts for lin in (False, True)):
            dim = 2 * n if rp.layout == "single" else n
            try:
                if not kind.check_cache(rp, dim, **{k: v[:shape[1]] for k, v in caches.items()}, positions=first,
                                    dtype=dtype, tier=tier).fits:
                    continue
                if kind.check_cache(rp, dim, **caches, dtype=dtype, tier=tier, shape=shape).fits:
                    return {**_answer(kind, rp, dim), "shape": list(shape)}
            except ValueError:
                continue  # a width the rule refuses (dim/4 bands per axis)
    return None


def cells_reading(kind: CacheKind, cos: Any, sin: Any, layouts: Sequence[str], dtype: str, tier: str,
                  shapes: Sequence[tuple[int, ...]]) -> dict[str, Any] | None:
    """An explicit multi-axis plan over the integer cell indices of one of ``shapes`` (timm's ``in_pixels=False``
    rotary and Fourier bands: per axis T^(-i/n), coordinates arange(n_a)), named with ``--shape``."""
    for shape in shapes:
        cells = list(itertools.product(*(range(n) for n in shape)))
        read = explicit_axes(kind, cos, sin, cells, layouts, dtype, tier)
        if read is not None:
            return dict(read, shape=list(shape))
    return None


def axes_reading(kind: CacheKind, cos: Any, sin: Any, positions: Sequence[Sequence[Any]], layouts: Sequence[str],
                 dtype: str,
                 tier: str) -> dict[str, Any]:
    """A cache at given multi-axis positions (DEF-ROPE-AXES): the explicit plan with sections the data shows."""
    read = explicit_axes(kind, cos, sin, positions, layouts, dtype, tier)
    if read is not None:
        return dict(read, dtype=dtype)
    return {"found": False, "layouts": list(layouts), "reason": "no explicit multi-axis plan of the frequencies read "
            "from the data conforms at these positions (each column must read one position axis, the axes in "
            "frequency order)"}


def grid_readings(kind: CacheKind, cos: Any, sin: Any, layouts: Sequence[str], dtype: str,
                  tier: str) -> dict[str, Any] | None:
    """The readings of a cache whose rows are the cells of a grid: every 2-D shape its rows show, pixel bands
    first, then integer-cell bands."""
    t = cos if cos is not None else sin
    shapes = [s.shape for s in cell_shapes(np.asarray(t), cls=0, max_axes=2)]
    if not shapes:
        return None
    return (pixel_reading(kind, cos, sin, layouts, dtype, tier, shapes)
            or cells_reading(kind, cos, sin, layouts, dtype, tier, shapes))


def explicit_rotary(kind: CacheKind, cos: Any, sin: Any, positions: Any, layouts: Sequence[str], dtype: str | None,
                    tier: str = "phase") -> dict[str, Any] | str:
    """DEF-ROPE-FREQ-EXPLICIT read from a cos cache, a sin cache or both: the first layout (of ``layouts``) whose
    explicit plan of the recovered frequencies and amplitude conforms, as a ``detect_rotary`` answer, else the words
    saying why there is none (the frequencies could not be read, or no plan of them conforms)."""
    which = "cos" if cos is not None else "sin"
    t = np.asarray(cos if cos is not None else sin)
    try:
        rd = read_channels(t, positions)
    except ValueError as e:
        return f"its frequencies could not be read from the data ({e})"
    turns = rd.omega * rd.span > 2 * np.pi  # columns that turn at least once: function and amplitude well read
    if not turns.any():  # a short cache of slow bands: those past half a turn (cos from 1 to -1, sin through 1)
        turns = rd.omega * rd.span > np.pi
    seen = {k for k, t_ in zip(rd.kinds, turns, strict=True) if t_}
    if "zero" in rd.kinds or not turns.any() or seen != {which}:
        return (f"its columns do not read as {which} columns of one amplitude (turning columns read as "
                f"{', '.join(sorted(seen)) or 'none'}{', and a column of zeros' if 'zero' in rd.kinds else ''})")
    amp = float(np.median(rd.amplitude[turns]))
    run, p = rd.run, rd.positions
    y = np.asarray(t[run], dtype=np.float64)
    fn = np.cos if which == "cos" else np.sin
    w = _refine_fixed(y, p, rd.omega, amp, which)
    m = fn(p[:, None] * w[turns])
    amp = float((y[:, turns] * m).sum() / (m * m).sum())  # one amplitude, least squares over the turning columns
    slack = 4 * amplitude_error(y[:, turns], m, amp)
    rd.omega = _refine_fixed(y, p, np.where(turns, w, _slow(y, p, amp, which, w)), amp, which)
    caches = {which: y}
    if cos is not None and sin is not None:
        caches["sin"] = ys = np.asarray(np.asarray(sin)[run], dtype=np.float64)
        if not turns.all():  # a slow band is read better from sin(w p) ~ w p
            rd.omega = np.where(turns, rd.omega, _refine_fixed(ys, p, _slow(ys, p, amp, "sin", rd.omega), amp, "sin"))
    rd.omega = _snap_f32(rd.omega, y, p, amp, fn, np.arange(t.shape[1]))
    pos = None if positions is None else list(positions)
    fmt = dtype or stored_dtype(t)
    # each amplitude reading as exact, then (not 1) with its uncertainty: a few rows end their rounding intervals
    # within the estimate's error and keep the true w out (bfloat16 at 0.7, read 2e-6 off)
    amps = [(a, 0.0) for a in _amplitudes(amp, fmt)]
    amps += [(a, slack) for a, _ in amps if a != 1]
    pinned = lru_cache(maxsize=None)(lambda a, sl: pinned_frequencies(rd.omega, caches, p, float(a), fmt, sl))
    for layout in layouts:
        if layout != "single" and t.shape[1] % 2:
            continue
        for a, sl in amps:
            w = _per_frequency(pinned(a, sl), layout)
            try:
                rp = RotaryProfile(None, layout, rule="explicit", explicit=tuple(Fraction(float(x)) for x in w),
                                   attention_factor=None if a == 1 else a)
                dim = 2 * len(w)
                r = kind.check_cache(rp, dim, cos=cos, sin=sin, positions=pos, dtype=dtype, tier=tier)
            except (ValueError, ArithmeticError):
                continue
            if r.fits:
                loose = loose_bands(kind, rp, t, layout, ~turns, pos, dtype, tier) if sin is None else {}
                return {"found": True, "layout": layout, "dim": dim, "profile": None, "params": rp.params(),
                        "describe": rp.describe(), "equivalent": [],
                        "read_from_data": {**rd.to_json(), "nearest": nearest_schedule(w, dim)},
                        **({"loose": loose} if loose else {})}
    return "no explicit plan of the frequencies read from the data does"


def amplitude_error(y: np.ndarray, m: np.ndarray, amp: float) -> float:
    """The relative standard error of the least-squares amplitude ``amp`` of ``y`` ~ amp m: sqrt(the variance of
    y / amp - m over sum m^2), computed on y / amp (no overflow at amplitudes of 1e200); inf where amp is 0.

    >>> m = np.cos(0.3 * np.arange(1000.0))[:, None]
    >>> y = 0.7 * m + np.random.default_rng(0).normal(0, 1e-3, m.shape)
    >>> round(amplitude_error(y, m, float((y * m).sum() / (m * m).sum())) / (1e-3 / 0.7 / math.sqrt(500)), 1)
    1.0
    """
    if amp == 0 or not math.isfinite(amp):
        return math.inf
    r = y / amp - m
    return math.sqrt(float((r * r).sum()) / max(r.size - 1, 1) / max(float((m * m).sum()), 1e-300))


def pinned_frequencies(w: np.ndarray, caches: dict[str, np.ndarray], p: np.ndarray, amp: float,
                       fmt: str, slack: float = 0.0) -> np.ndarray:
    """Each column's frequency ``w`` (the same columns of a cos cache, a sin cache or both: ``caches``, rows at
    positions ``p``, amplitude ``amp`` of relative uncertainty ``slack``, stored in ``fmt``) pinned by its values'
    rounding intervals in every cache (:func:`~sinpe.reference.checking.detect.channels.pin_frequencies`), then one frequency for columns whose
    intervals meet (:func:`~sinpe.reference.checking.detect.channels.share_frequencies`: a column's cos and sin,
    the two columns of a frequency in the halves and pairs layouts). A least-squares fit misses the rows near a zero,
    where a half-precision value pins the angle best: a bfloat16 cos cache read 1.8e-5 off at w = 2.3e-3 fails the
    check at p = 675.

    >>> p = np.arange(1024.0)
    >>> y = np.cos(np.outer(p, [2.3e-3, 2.3e-3])).astype(np.float16).astype(np.float64)
    >>> w = pinned_frequencies(np.array([2.3e-3 * (1 + 2e-5), 2.3e-3 * (1 - 2e-5)]), {"cos": y}, p, 1.0, "float16")
    >>> bool(w[0] == w[1]), bool(abs(w[0] / 2.3e-3 - 1) < 2e-6)
    (True, True)
    """
    w = np.maximum(np.abs(w), 1e-12)  # (a band too slow to read, fitted to 0 or below: the intervals place it)
    ws, los, his = (np.stack(x) for x in zip(*(pin_frequencies(w, y, p, amp, [which] * len(w), fmt, slack)
                                                 for which, y in caches.items()), strict=True))
    lo, hi = np.fmax.reduce(los), np.fmin.reduce(his)  # one column's intervals in every cache (NaN: none read)
    lo = np.maximum(lo, 0.0)  # a frequency is positive: a slow band's cos that never leaves 1 bounds it above only
    pinned = np.isfinite(los)
    # else the one cache that pinned it, else the fit: caches that pin a column apart (an amplitude read 5e-6 off
    # moves a flat cos's interval off the truth) say nothing of either reading
    one = np.where(pinned.sum(axis=0) == 1, ws[np.argmax(pinned, axis=0), np.arange(len(w))], w)
    meet = lo <= hi
    with np.errstate(invalid="ignore"):
        one = np.maximum(np.where(meet, _inside(lo, hi), one), 1e-12)
    return share_frequencies(one, np.where(meet, lo, np.nan), np.where(meet, hi, np.nan))


LOOSE = (Fraction(2), Fraction(5, 4), Fraction(17, 16), Fraction(65, 64), Fraction(257, 256), Fraction(1025, 1024))


def loose_bands(kind: CacheKind, rp: RotaryProfile, cos: np.ndarray, layout: str, slow: np.ndarray,
                positions: list[Any] | None, dtype: str | None, tier: str) -> dict[str, str]:
    """{str(k): str(f)} for the slow bands (``slow``: per column, no full turn) whose frequency a cos cache alone
    fixes only to within a factor f of :data:`LOOSE` (f >= 1025/1024): band k's columns conform (REQ-CHECK-ROPE, the
    one check) at w_k f and at w_k / f too, so the frequency named is one of many that fit (near cos 0 = 1, cos(w p)
    changes by about (w p)^2 / 2). The loosest such f, by bisection over :data:`LOOSE`."""
    w, a = rp.explicit, rp.attention_factor
    assert w is not None, "an explicit plan"
    slow_k = np.flatnonzero(_per_frequency(slow.astype(np.float64), layout) > 0)

    def fits(k: int, f: Fraction) -> bool:
        cols = {"halves": [k, k + len(w)], "pairs": [2 * k, 2 * k + 1]}.get(layout, [k])
        for x in (w[k] * f, w[k] / f):
            one = RotaryProfile(None, layout, rule="explicit", explicit=(x,), attention_factor=a)
            if not kind.check_cache(one, 2, cos=cos[:, cols], positions=positions, dtype=dtype, tier=tier).fits:
                return False
        return True
    out = {}
    for k in map(int, slow_k):
        lo, hi = 0, len(LOOSE)  # LOOSE[hi:] fit (none yet); LOOSE[:lo] do not
        while lo < hi:
            mid = (lo + hi) // 2 if hi < len(LOOSE) else len(LOOSE) - 1  # the tightest first: most bands stop there
            lo, hi = (lo, mid) if fits(k, LOOSE[mid]) else (mid + 1, hi)
        if hi < len(LOOSE):
            out[str(k)] = str(LOOSE[hi])  # (keys as the JSON has them)
    return out


def explicit_axes(kind: CacheKind, cos: Any, sin: Any, positions: Sequence[Sequence[Any]], layouts: Sequence[str],
                  dtype: str | None,
                  tier: str = "phase") -> dict[str, Any] | None:
    """DEF-ROPE-FREQ-EXPLICIT over several position axes (DEF-ROPE-AXES) read from a cos cache, a sin cache or both
    at given multi-axis positions (a (rows, m) positions file, or a grid's cells): each column's axis is the one it
    is a function of; the axes, in frequency order, give the sections; each frequency is read along its axis's
    distinct coordinates (:func:`_axis_frequencies`) and snapped to float32 where that fits no worse. Returned (a
    ``detect_rotary`` answer) only if the plan conforms (REQ-CHECK-ROPE), else None."""
    which = "cos" if cos is not None else "sin"
    t = np.asarray(cos if cos is not None else sin, dtype=np.float64)
    p = np.asarray([[float(x) for x in row] for row in positions], dtype=np.float64)
    if t.ndim != 2 or p.ndim != 2 or p.shape[0] != t.shape[0] or not 2 <= p.shape[1] <= MAX_AXES \
            or t.shape[0] < 3 or t.shape[1] > MAX_COLUMNS or not np.all(np.isfinite(t)):
        return None
    tol = 1e-6 * max(float(np.max(np.abs(t))), 1e-300)
    reads = np.array([_function_of(t, p[:, a], tol) for a in range(p.shape[1])])  # (axes, columns)
    constant = np.ptp(t, axis=0) <= tol
    for layout in layouts:
        if layout != "single" and t.shape[1] % 2:
            continue
        cols = _frequency_columns(layout, t.shape[1])
        allowed = [{a for a in range(p.shape[1]) if reads[a, c].all()} if not constant[c].all()
                   else set(range(p.shape[1])) for c in cols]
        sec = _sections(allowed, p.shape[1])
        if sec is None:
            continue
        for a in _axes_amplitudes(cos, sin):
            w = _axes_plan_frequencies(t, p, cols, sec, float(a), which)
            if w is not None and cos is not None and sin is not None:  # slow bands: read better from sin(w x) ~ w x
                ws = _axes_plan_frequencies(np.asarray(sin, dtype=np.float64), p, cols, sec, float(a), "sin")
                span = np.array([np.max(np.abs(p[:, i])) for i, n in enumerate(sec) for _ in range(n)])
                w = w if ws is None else np.where(w * span < 1, ws, w)
            if w is None:
                continue
            try:
                rp = RotaryProfile(None, layout, rule="explicit", explicit=tuple(Fraction(float(x)) for x in w),
                                   attention_factor=None if a == 1 else a, mrope_section=sec)
                r = kind.check_cache(rp, 2 * len(w), cos=cos, sin=sin, positions=[tuple(row) for row in positions],
                                 dtype=dtype, tier=tier)
            except (ValueError, ArithmeticError):
                continue
            if r.fits:
                return {"found": True, "layout": layout, "dim": 2 * len(w), "profile": None, "params": rp.params(),
                        "describe": rp.describe(), "equivalent": [], "sections": list(sec)}
    return None
