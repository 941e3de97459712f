"""Reading a grid (SPEC.md REQ-DETECT-GRID, REQ-DETECT-SPARSE, REQ-DETECT-PRECISION): which grid preset, with which
options, shape and cls rows, a (rows, d) table is.

For every cell shape the rows show (:func:`sinpe.reference.checking.shapes.cell_shapes`: any H x W, any number of
leading zero rows, 3-D T x H x W) every grid preset of that many axes is a candidate, with the options the grid kind
reads from the data for it (:meth:`GridKind.preset_options`: diffusers' base_size, timm's reverse_coord, ...) and
the temperature (the base of every preset that takes one), fitted as the 1-D fit fits a base, from each column's
angle step along the axis it reads (the three-term recurrence on the line of cells through cell 0) against the
preset's exponents. When the rows show no shape, the square after 0 or 1 zero rows is tried. Every candidate is then
*checked*, first on a few cells (a gross misfit in binary64, then certified), at each step of the precision ladder:
a wrong reading never names anything.

>>> import numpy as np
>>> from sinpe.spec.grid import get_grid
>>> from sinpe.reference.oracles.angles import grid_plan, reference_f64
>>> t = reference_f64(grid_plan(get_grid("timm", 16, (3, 5), temperature=100)))[0]
>>> steps = axis_steps(t, CellShape(0, (3, 5), 1.0))
>>> [str(x) for x in fitted_temperatures(get_grid("timm", 16, (3, 5)), steps, column_axes(t, CellShape(0, (3, 5), 1.0)))]
['100']
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Protocol

import mpmath
import numpy as np

from sinpe.reference.checking.detect.fit import column_frequencies
from sinpe.reference.checking.detect.ladder import precision_ladder, screen_rows, stored_dtype
from sinpe.reference.checking.judge import check_plan
from sinpe.reference.checking.shapes import CellShape, cell_shapes, column_axes, leading_zero_rows
from sinpe.reference.oracles.angles import AnglePlan, grid_plan, plan_rows
from sinpe.spec.definition import column_data
from sinpe.spec.grid import GRID_PRESETS, Grid, get_grid, grid_columns


class GridKind(Protocol):
    """What the reading asks of the grid kind."""

    shape_free: tuple[str, ...]  # presets whose values do not depend on the grid's size (rows at any cells)

    def preset_options(self, name: str, t: np.ndarray, cs: CellShape, dim: int) -> list[dict[str, Any]]:
        """The option sets of preset ``name`` to try on the cells ``cs`` of ``t`` (before any temperature)."""


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


def grid_candidates(kind: GridKind, t: np.ndarray, shape: Sequence[int] | None) -> list[tuple[Grid, dict[str, Any]]]:
    """(grid, options) for every shape to try, preset and option set, the temperatures the data points to last."""
    dim = t.shape[1]
    out: list[tuple[Grid, dict[str, Any]]] = []
    for cs in _shapes(t, shape):
        steps = axes = None
        for name in GRID_PRESETS:
            for o in kind.preset_options(name, t, cs, dim):
                g = _build(name, dim, cs, o)
                if g is None:
                    continue
                out.append((g, o))
                if o.get("reverse_coord") or cs.share == 0.0 or not _takes_temperature(g, dim, cs):
                    continue  # (reverse_coord: the same plan as timm on the reversed shape, fitted there)
                if steps is None or axes is None:  # (both read at the first preset that takes a temperature)
                    steps, axes = axis_steps(t, cs), column_axes(t, cs)
                for temp in fitted_temperatures(g, steps, axes):
                    gt = _build(name, dim, cs, dict(o, temperature=temp))
                    if gt is not None:
                        out.append((gt, dict(o, temperature=int(temp) if temp.denominator == 1 else str(temp))))
    return out


def _cell_candidates(kind: GridKind, dim: int, cells: Sequence[Sequence[int]],
                     shape: tuple[int, ...] | None) -> list[Any]:
    """Rows at given cells: the presets of the shape given, else those whose values do not depend on the grid's size,
    without options (timm's reverse_coord is the same table as timm at swapped cells)."""
    sh = shape or (max(c[0] for c in cells) + 1, max(c[1] for c in cells) + 1)
    out: list[tuple[Any, dict[str, Any]]] = []
    for name in GRID_PRESETS if shape is not None else kind.shape_free:
        try:
            out.append((get_grid(name, dim, sh), {}))
        except (ValueError, TypeError):
            continue
    return out


GRID_SCREEN_CELLS = 16  # a grid candidate is first checked on this many cells (half the first, half spread)


def _screen_rows(g: Grid) -> np.ndarray | None:
    """The table rows a candidate is screened on (cells, half the first, half spread), or None when the grid is
    small enough to check whole."""
    few = screen_rows(GRID_SCREEN_CELLS, math.prod(g.shape))
    return None if few is None else g.cls + few


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


def detect_grid(kind: GridKind, table: Any, shape: Sequence[int] | None = None, dtype: str | None = None,
                tier: str = "phase", cells: Sequence[Sequence[int]] | None = None) -> dict[str, Any]:
    """REQ-DETECT-GRID: which grid preset (with which options, shape and cls rows) a (rows, d) table is: every shape
    the rows show, every preset of that many axes with the options read from the data
    (:func:`grid_candidates`), each checked.

    With ``cells`` (the (y, x) index of each row, any cells, >= 3 rows) only the presets whose values do not
    depend on the grid size are tried unless ``shape`` is given (REQ-DETECT-SPARSE)."""
    t = np.asarray(table)
    rows, dim = t.shape
    dtype = dtype or stored_dtype(t)
    if cells is not None and len(cells) != rows:
        raise ValueError(f"{rows} rows but {len(cells)} cells")
    cands = (_cell_candidates(kind, dim, cells, None if shape is None else tuple(shape)) if cells is not None
             else grid_candidates(kind, t, None if shape is None else tuple(shape)))
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
