"""The grid candidates a table's data points to (SPEC.md REQ-DETECT-GRID).

For every cell shape the rows show (:func:`sinpe.reference.checking.shapes.cell_shapes`: any H x W, any number of
leading zero rows, 3-D T x H x W) every grid preset of that many axes is a candidate, with the options read from
the data: the temperature (the base of every preset that takes one: timm, timm-interleaved, DETR's, pe2d, vit), fitted
as the 1-D fit fits a base, from each column's angle step along the axis it reads (the three-term recurrence on the
line of cells through cell 0) against the preset's exponents; diffusers' base_size / interpolation_scale and
diffusers-3d's interpolation scales from the first cell of each axis; timm's reverse_coord. When the rows show no
shape, the square after 0 or 1 zero rows is tried, as before. Every candidate is then *checked*
(:func:`sinpe.reference.checking.angles.detect_grid`): a wrong reading never names anything.

>>> import numpy as np
>>> from sinpe.spec.grid import get_grid
>>> from sinpe.reference.oracles.angles import grid_plan, reference_f64
>>> t = reference_f64(grid_plan(get_grid("timm", 16, (3, 5), temperature=100)))[0]
>>> [(g.name, g.shape, o) for g, o in grid_candidates(t, None) if o.get("temperature")][:2]
[('timm', (3, 5), {'temperature': 100}), ('timm-interleaved', (3, 5), {'temperature': 100})]
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from sinpe.spec.definition import column_data
from sinpe.spec.grid import GRID_PRESETS, Grid, get_grid, grid_columns

from sinpe.reference.checking.shapes import CellShape, cell_shapes, column_axes, leading_zero_rows

DIFFUSERS_BASE_SIZES = (16, 32, 64)


def _shapes(t: np.ndarray, shape: Sequence[int] | None) -> list[CellShape]:
    """The (cls, shape) pairs to try: ``shape`` (cls: the rows it leaves), else the shapes the rows show, else the
    square after the leading zero rows, 0 or 1 of them."""
    rows = t.shape[0]
    if shape is not None:
        cls = rows - math.prod(shape)
        return [CellShape(cls, tuple(shape), 1.0)] if cls >= 0 else []
    shown = cell_shapes(t)
    if shown:
        return shown
    out = []
    for cls in dict.fromkeys((leading_zero_rows(t), 0, 1)):
        s = math.isqrt(max(rows - cls, 0))
        if s > 1 and s * s == rows - cls:
            out.append(CellShape(cls, (s, s), 0.0))
    return out


def axis_steps(t: np.ndarray, cs: CellShape) -> np.ndarray:
    """Per column, its angle step per cell index along the axis it reads (the three-term recurrence on the line of
    cells through cell 0 along that axis); NaN where the column reads no single axis or the line is short."""
    from sinpe.reference.checking.detect import column_frequencies
    d = t.shape[1]
    cells = np.asarray(t[cs.cls:], dtype=np.float64).reshape(*cs.shape, d)
    axes = column_axes(t, cs)
    out = np.full(d, np.nan)
    for a, n in enumerate(cs.shape):
        if n < 3:
            continue
        line = cells[tuple(slice(None) if b == a else 0 for b in range(len(cs.shape)))]
        with np.errstate(all="ignore"):
            om, q = column_frequencies(line)
        use = (axes == a) & (q < 1e-3)
        out[use] = om[use]
    return out


def _preset_steps(g: Grid) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per column of ``g``: (the spatial axis it reads, its exponent e (w = c T^-e), its angle step per cell)."""
    spatial, e, w = [], [], []
    for c in grid_columns(g):
        a = g.axes[c.axis]
        cd = column_data(a.profile, a.width)
        ek = float(cd.exponents[c.k]) if c.kind != "zero" else 0.0
        spatial.append(a.spatial)
        e.append(ek)
        w.append(float(cd.scale) * (2 * math.pi if a.turns else 1.0) * float(cd.base) ** (-ek))
    return np.array(spatial), np.array(e), np.array(w)


def fitted_temperatures(g0: Grid, steps: np.ndarray, axes: np.ndarray) -> list[Fraction]:
    """Temperatures T (the base of the preset ``g0``, built at its default T0) that the measured ``steps`` point to:
    log T = log T0 + (log w0_j - log w_j) / e_j, the median over the columns that read the axis the preset says,
    measured well (0.02 < w_j < 3) with e_j > 0; snapped to 3, 4 and 6 significant digits (T0 itself left out)."""
    spatial, e, w0 = _preset_steps(g0)
    if len(w0) != len(steps):
        return []
    ok = (e > 0) & (spatial == axes) & np.isfinite(steps) & (steps > 0.02) & (steps < 3) & (w0 > 0)
    if ok.sum() < 2:
        return []
    t0 = float(column_data(g0.axes[0].profile, g0.axes[0].width).base)
    log_t = math.log(t0) + float(np.median((np.log(w0[ok]) - np.log(steps[ok])) / e[ok]))
    if not 0 < log_t < 700:
        return []
    out: list[Fraction] = []
    for sig in (3, 4, 6):
        v = Fraction(float(f"{math.exp(log_t):.{sig}g}"))
        v = v.limit_denominator(1) if v >= 100 else v.limit_denominator(64)
        if v > 1 and v != t0 and v not in out:
            out.append(v)
    return out


def _diffusers_scale(t: np.ndarray, cls: int, n: int) -> list[dict[str, Any]]:
    """diffusers' base_size / interpolation_scale read off the data: its x axis is sin(s x) in column 0 with
    s = base_size / (n interpolation_scale), so row cls + 1 (x = 1) gives s (one candidate, interpolation 1)."""
    if t.shape[0] <= cls + 1 or not abs(float(t[cls + 1, 0])) < 0.99:
        return []
    s = math.asin(float(t[cls + 1, 0]))
    if not s > 0:
        return []
    b = Fraction(s * n).limit_denominator(16)  # JSON-safe: an int, else the exact "p/q" the flag accepts
    return [{"base_size": int(b) if b.denominator == 1 else str(b), "interpolation_scale": 1}] if b > 0 else []


def _inverse_sin_step(value: float) -> Any:
    """1/s from a cell whose first column is sin(s * 1): the interpolation scale s^-1 as an int or "p/q"."""
    if not abs(value) < 0.99 or math.asin(value) <= 0:
        return None
    f = Fraction(1 / math.asin(value)).limit_denominator(64)
    return int(f) if f.denominator == 1 else str(f)


def _diffusers_3d_scales(t: np.ndarray, cs: CellShape, dim: int) -> list[dict[str, Any]]:
    """diffusers-3d's scales: cell (1, 0, 0) holds sin(1/ts) in column 0, cell (0, 0, 1) sin(1/ss) in column dim/4."""
    tt, h, w = cs.shape
    ts = _inverse_sin_step(float(t[cs.cls + h * w, 0])) if dim >= 16 else None
    ss = _inverse_sin_step(float(t[cs.cls + 1, dim // 4])) if dim >= 16 else None
    read = {k: v for k, v in (("interpolation_scale", ss), ("temporal_interpolation_scale", ts)) if v not in (None, 1)}
    return [{}] + ([read] if read else [])


def _options(name: str, t: np.ndarray, cs: CellShape, dim: int) -> list[dict[str, Any]]:
    """The option sets of preset ``name`` to try on ``cs`` (before any temperature)."""
    if name == "diffusers":
        opts = [{"base_size": b, "interpolation_scale": i} for b in DIFFUSERS_BASE_SIZES + (cs.shape[0],)
                for i in (1, 2)]
        return opts + [o for o in _diffusers_scale(t, cs.cls, cs.shape[-1]) if o not in opts]
    if name == "timm":
        return [{}, {"reverse_coord": True}]
    if name == "diffusers-3d":
        return _diffusers_3d_scales(t, cs, dim) if len(cs.shape) == 3 else []
    return [{}]


def _build(name: str, dim: int, cs: CellShape, opts: dict[str, Any]) -> Grid | None:
    """The preset on the cells of ``cs`` (timm's reverse_coord takes the reversed shape), or None where it does not
    apply (another number of axes, a width it refuses)."""
    arg = cs.shape[::-1] if opts.get("reverse_coord") else cs.shape
    try:
        g = get_grid(name, dim, arg, **opts)
    except (ValueError, TypeError):
        return None
    if g.shape != cs.shape:
        return None
    return Grid(g.name, g.shape, g.axes, g.order, cs.cls) if cs.cls else g


def _takes_temperature(g: Grid, dim: int, cs: CellShape) -> bool:
    """Does the preset of ``g`` take a temperature (its factory accepts ``temperature=``)?"""
    try:
        get_grid(g.name or "", dim, cs.shape, temperature=10000)
    except TypeError:
        return False
    except ValueError:
        return True
    return True


def grid_candidates(t: np.ndarray, shape: Sequence[int] | None) -> list[tuple[Grid, dict[str, Any]]]:
    """(grid, options) for every shape to try, preset and option set, the temperatures the data points to last."""
    dim = t.shape[1]
    out: list[tuple[Grid, dict[str, Any]]] = []
    for cs in _shapes(t, shape):
        steps = axes = None
        for name in GRID_PRESETS:
            for o in _options(name, t, cs, dim):
                g = _build(name, dim, cs, o)
                if g is None:
                    continue
                out.append((g, o))
                if o.get("reverse_coord") or cs.share == 0.0 or not _takes_temperature(g, dim, cs):
                    continue  # (reverse_coord: the same plan as timm on the reversed shape, fitted there)
                if steps is None:
                    steps, axes = axis_steps(t, cs), column_axes(t, cs)
                for temp in fitted_temperatures(g, steps, axes):
                    gt = _build(name, dim, cs, dict(o, temperature=temp))
                    if gt is not None:
                        out.append((gt, dict(o, temperature=int(temp) if temp.denominator == 1 else str(temp))))
    return out
