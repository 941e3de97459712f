"""Rotary readings beyond the one-axis candidates at positions 0, 1, ... (SPEC.md REQ-DETECT-ROPE, REQ-DETECT-READ).

Tried only when the one-axis candidates fail (:func:`sinpe.reference.checking.angles.detect_rotary`), each
*checked* before it is named:

- a start position: a cache whose rows are positions p0, p0 + 1, ... (a cache sliced at an offset). Candidates
  are screened by their frequencies against the three-term recurrence (which does not see p0); for each, p0 is
  read from the first rows' phases, slowest frequency first (its angle is p0 w, read directly while below pi),
  then unwrapped through the faster ones; the cache is checked at positions p0 .. p0 + rows - 1;
- the cells of a grid (DEF-ROPE-AXES): every H x W shape the rows show (:mod:`sinpe.reference.checking.shapes`),
  as timm-pixel (DEF-ROPE-FREQ-PIXEL, layouts pairs, halves and single: timm's build_rotary_pos_embed, its
  rotate_half form and build_fourier_pos_embed's sin/cos), then as an explicit plan over the cells' integer
  indices (timm's ``in_pixels=False`` bands), named with ``--shape HxW``;
- positions with several axes given (a (rows, m) file): an explicit plan with sections
  (:func:`sinpe.reference.checking.channels.explicit_axes`).
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from sinpe.spec.rotary import ROTARY_PRESETS, RotaryProfile

MAX_START_CANDIDATES = 8  # candidates whose start position is read and checked
UNWRAP = 2.5              # an angle below this (rad) is read directly (arccos is unambiguous below pi)


def _frequency_columns(layout: str, n: int) -> np.ndarray:
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
    from sinpe.reference.checking.angles import _candidate_frequencies
    w = _candidate_frequencies(rp, dim)
    if w is None or len(w) != len(w_est) or not good.any():
        return None
    return float(np.max(np.abs(w[good] - w_est[good]) / w[good]))


def start_reading(cos: Any, sin: Any, layouts: Sequence[str], dtype: str, tier: str) -> dict[str, Any] | None:
    """A cache at positions p0, p0 + 1, ... (p0 a positive integer): the first candidate (common and fitted bases,
    the scaled rules) whose frequencies match the recurrence and that fits at the positions its phases give."""
    from sinpe.reference.checking.angles import (_candidate_frequencies, _fitting, _rotary_candidates,
                                                 precision_ladder)
    from sinpe.reference.checking.detect import column_frequencies
    caches = {k: np.asarray(v, dtype=np.float64) for k, v in (("cos", cos), ("sin", sin)) if v is not None}
    t = next(iter(caches.values()))
    rows, n = t.shape
    if rows < 8:
        return None
    amp = float(np.max(np.hypot(caches["cos"], caches["sin"]))) if len(caches) == 2 else float(np.max(np.abs(t)))
    for layout in layouts:
        idx = _frequency_columns(layout, n)
        dim = 2 * len(idx)
        with np.errstate(all="ignore"):
            w_est, q = column_frequencies(t[:128, idx] / (amp or 1.0))
        good = np.isfinite(w_est) & (q < 1e-3) & (w_est > 0.02) & (w_est < 3)
        scored = [(d, rp) for rp in _rotary_candidates(layout, dim, w_est)
                  if (d := _recurrence_plausible(rp, dim, w_est, good)) is not None and d < 1e-3]
        for _, rp in sorted(scored, key=lambda x: x[0])[:MAX_START_CANDIDATES]:
            w = _candidate_frequencies(rp, dim)
            p = start_position({k: v[0, idx] / amp for k, v in caches.items()},
                               {k: v[1, idx] / amp for k, v in caches.items()}, w)
            if p is None or abs(p - round(p)) > 0.05 or round(p) < 1:
                continue
            pos = np.arange(rows) + int(round(p))
            for step, (fmt, working) in enumerate(precision_ladder(dtype, tier)):
                if _fitting([rp], dim, cos, sin, pos, fmt, tier, working):
                    return {**_answer(rp, dim), "start": int(pos[0]), "rows": rows, "dtype": fmt, "working": working,
                            "lowered": step > 0}
    return None


def _answer(rp: RotaryProfile, dim: int) -> dict[str, Any]:
    from sinpe.reference.checking.angles import ROTARY_NAMES, _same
    named = next((name for name, p in ROTARY_NAMES() if _same(p, rp)), None)
    return {"found": True, "layout": rp.layout, "dim": dim, "profile": named, "params": rp.params(),
            "describe": rp.describe(), "equivalent": []}


def pixel_reading(cos: Any, sin: Any, layouts: Sequence[str], dtype: str, tier: str,
                  shapes: Sequence[tuple[int, ...]]) -> dict[str, Any] | None:
    """REQ-DETECT-ROPE for rule pixel (DEF-ROPE-FREQ-PIXEL): a cache whose rows are the cells of one of ``shapes``
    (H x W), read as timm-pixel in its layout (pairs: timm's default; halves: ``rotate_half``; single: the sin/cos of
    ``build_fourier_pos_embed``), log bands then linear bands. Each is checked on the first row of cells (cheap),
    then on every row; the answer carries the ``shape``."""
    from sinpe.reference.checking.angles import check_rotary
    from sinpe.spec.rotary import pixel_coordinates
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
                if not check_rotary(rp, dim, **{k: v[:shape[1]] for k, v in caches.items()}, positions=first,
                                    dtype=dtype, tier=tier).fits:
                    continue
                if check_rotary(rp, dim, **caches, dtype=dtype, tier=tier, shape=shape).fits:
                    return {**_answer(rp, dim), "shape": list(shape)}
            except ValueError:
                continue  # a width the rule refuses (dim/4 bands per axis)
    return None


def cells_reading(cos: Any, sin: Any, layouts: Sequence[str], dtype: str, tier: str,
                  shapes: Sequence[tuple[int, ...]]) -> dict[str, Any] | None:
    """An explicit multi-axis plan over the integer cell indices of one of ``shapes`` (timm's ``in_pixels=False``
    rotary and Fourier bands: per axis T^(-i/n), coordinates arange(n_a)), named with ``--shape``."""
    import itertools
    from sinpe.reference.checking.channels import explicit_axes
    for shape in shapes:
        cells = list(itertools.product(*(range(n) for n in shape)))
        read = explicit_axes(cos, sin, cells, layouts, dtype, tier)
        if read is not None:
            return dict(read, shape=list(shape))
    return None


def axes_reading(cos: Any, sin: Any, positions: Sequence[Sequence[Any]], layouts: Sequence[str], dtype: str,
                 tier: str) -> dict[str, Any]:
    """A cache at given multi-axis positions (DEF-ROPE-AXES): the explicit plan with sections the data shows."""
    from sinpe.reference.checking.channels import explicit_axes
    read = explicit_axes(cos, sin, positions, layouts, dtype, tier)
    if read is not None:
        return dict(read, dtype=dtype)
    return {"found": False, "layouts": list(layouts), "reason": "no explicit multi-axis plan of the frequencies read "
            "from the data conforms at these positions (each column must read one position axis, the axes in "
            "frequency order)"}


def grid_readings(cos: Any, sin: Any, layouts: Sequence[str], dtype: str, tier: str) -> dict[str, Any] | None:
    """The readings of a cache whose rows are the cells of a grid: every 2-D shape its rows show, pixel bands
    first, then integer-cell bands."""
    from sinpe.reference.checking.shapes import cell_shapes
    t = cos if cos is not None else sin
    shapes = [s.shape for s in cell_shapes(np.asarray(t), cls=0, max_axes=2)]
    if not shapes:
        return None
    return pixel_reading(cos, sin, layouts, dtype, tier, shapes) or cells_reading(cos, sin, layouts, dtype, tier,
                                                                                  shapes)
