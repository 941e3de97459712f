"""The grid kind (SPEC.md DEF-GRID, REQ-CHECK-GRID, REQ-DETECT-GRID): an N-D sin-cos grid, one row per cell after
``cls`` zero rows. Its options are the presets' own arguments (:data:`PRESET_OPTIONS`, passed to the preset's
factory) with the cell shape, the cls rows and ``channels_first``; its plan is :func:`~sinpe.reference.oracles.
angles.grid_plan`; its check is the one judge; its reading (:func:`~sinpe.reference.checking.detect.grid.
detect_grid`) tries every preset with the options this kind reads from the data for it (:meth:`GridKind.
preset_options`).

>>> import numpy as np
>>> from sinpe.spec.grid import get_grid
>>> from sinpe.reference.oracles.angles import grid_plan, reference_f64
>>> t = reference_f64(grid_plan(get_grid("mae", 16, (4, 4))))[0].astype(np.float32)
>>> KIND.check_grid(t, get_grid("mae", 16, (4, 4))).verdict, KIND.read(t)["profile"]
('conforms', 'mae')
"""
from __future__ import annotations

import math
import time
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from sinpe.reference.checking import loaders
from sinpe.reference.checking.cause import Cause, attach, of_grid
from sinpe.reference.checking.judge import MAX_LISTED, check_plan
from sinpe.reference.checking.kinds.base import command_word, load_plain, with_command
from sinpe.reference.checking.loaded import Table
from sinpe.reference.checking.loaders import _to_numpy
from sinpe.reference.checking.options import Option, Request, flag, refused
from sinpe.reference.checking.result import CheckResult
from sinpe.reference.checking.shapes import CellShape
from sinpe.reference.checking.values import grid_shape
from sinpe.spec.grid import GRID_PRESETS, Grid, get_grid

from ...inputs import LoadError

GRID = ("grid",)
PRESET_OPTIONS = (  # the presets' factory arguments (DEF-GRID-PRESET-*), as their libraries name them
    Option("base_size", GRID, "diffusers base_size (exact decimal)", parameter=True, detected=True, exact=True),
    Option("interpolation_scale", GRID, "diffusers interpolation_scale (diffusers-3d: spatial_interpolation_scale)",
           parameter=True, detected=True, exact=True),
    Option("temporal_interpolation_scale", GRID, "diffusers-3d temporal_interpolation_scale", parameter=True,
           detected=True, exact=True),
    Option("temperature", GRID, "timm/DETR temperature (frequency base)", parameter=True, detected=True, exact=True),
    Option("reverse_coord", GRID, "timm reverse_coord", store=True, parameter=True, detected=True),
)
OPTIONS = (
    Option("shape", ("grid", "rotary"), "spatial shape HxW, or TxHxW for a 3-D grid (default: square, from the rows)"),
    Option("cls", GRID, "leading zero rows (cls/extra tokens)", default=0, type=int, parameter=True, detected=True),
    *PRESET_OPTIONS,
    Option("channels_first", GRID, "the file holds (C, H, W) (DETR's output): read as (H*W, C)", store=True),
)
SHAPE_FREE = ("mae", "timm", "timm-interleaved", "detr")  # presets whose values do not depend on the grid's size
DIFFUSERS_BASE_SIZES = (16, 32, 64)


class GridKind:
    """The grid kind (see the module docstring)."""

    name = "grid"
    noun = "a 2-D grid"
    options: tuple[Option, ...] = OPTIONS
    shape_free: tuple[str, ...] = SHAPE_FREE

    def claims(self, profile: Any, req: Request) -> bool:
        return isinstance(profile, Grid) or (isinstance(profile, str) and profile in GRID_PRESETS)

    def applicable(self, profile: Any, req: Request) -> None:
        name = getattr(profile, "name", None) or profile
        refused(req, "grid", f"does not apply to a 2-D grid (--profile {name})")

    def load(self, target: Any, key: str | None = None, channels_first: bool = False) -> Table:
        """A grid table (rows = cls + prod(shape) cells); ``channels_first``: a (C, H, W) array (leading size-1 dims
        dropped, DETR's output) read as (H*W, C)."""
        if not channels_first:
            return load_plain(target, key, "a 2-D grid")
        if isinstance(target, str):
            if not target.lower().endswith(".npy"):
                raise LoadError("--channels-first reads a .npy file")
            t = loaders._npy(target, key)
        else:
            t = Table(*_to_numpy(target, "table"), "table")
        data = np.asarray(t.data)
        while data.ndim > 3 and data.shape[0] == 1:
            data = data[0]
        if data.ndim != 3:
            raise LoadError(f"--channels-first needs a (C, H, W) array; got shape {data.shape}")
        t.data = np.ascontiguousarray(data.reshape(data.shape[0], -1).T)
        return loaders._finish(t)

    def grid(self, name: str, dim: int, shape: tuple[int, ...], cls: int = 0, **options: Any) -> Grid:
        """The grid preset ``name`` at width ``dim`` and ``shape`` with its options and ``cls`` leading zero rows."""
        opts = {k: v for k, v in options.items() if v not in (None, False)}
        try:
            g = get_grid(name, dim, shape, **opts)
        except TypeError:
            raise LoadError(f"grid {name} takes none of these options: {sorted(opts)}") from None
        return Grid(g.name, g.shape, g.axes, g.order, cls) if cls else g

    def flags(self, g: Grid, options: dict[str, Any]) -> str:
        """The ``sinpe check`` flags of a grid (``--shape`` the library's own: timm's ``reverse_coord`` grid runs
        over the reversed shape)."""
        shape = g.shape[::-1] if options.get("reverse_coord") else g.shape
        return (f"--profile {g.name} --shape {'x'.join(map(str, shape))} --cls {g.cls}" +
                "".join(f" {flag(k)}" + ("" if v is True else f" {v}") for k, v in options.items()
                        if v not in (None, False)))

    def check_grid(self, table: Any, grid: Grid, *, dtype: str | None = None, tier: str = "phase",
                   working: str | None = None, cells: Sequence[Sequence[int]] | None = None,
                   max_failures: int = MAX_LISTED) -> CheckResult:
        """REQ-CHECK-GRID: a (cls + prod(shape), d) table against a grid, or rows at ``cells`` (spatial indices)."""
        from sinpe.reference.oracles.angles import grid_plan  # the plans' oracle (mpmath): imported when a grid is checked
        res = check_plan(table, grid_plan(grid, cells), grid.name or grid.describe(), kind="grid", dtype=dtype,
                         tier=tier, working=working, max_failures=max_failures)
        res.profile_params = {"describe": grid.describe()}
        return res

    def check(self, target: Any, profile: Any, req: Request, table: Table | None = None,
              options: dict[str, Any] | None = None) -> CheckResult:
        """A grid ``profile`` (a preset's name, or a :class:`Grid`) against ``target`` (or the table loaded)."""
        g = profile if isinstance(profile, Grid) else None
        name = g.name if g is not None else profile
        if target is None and table is None:
            raise LoadError(f"--profile {name} (a 2-D grid) needs TARGET, the grid table file")
        t0 = time.perf_counter()
        t = table if table is not None else self.load(target, req.key, req.channels_first)
        data = np.asarray(t.data)
        opts = ({} if g is not None else req.keywords(o.name for o in PRESET_OPTIONS)) if options is None else options
        g = g or self.grid(profile, data.shape[1], grid_shape(req.shape, data.shape[0], req.cls), req.cls, **opts)
        res = self.check_grid(data, g, dtype=req.dtype or t.dtype, tier=req.tier, working=req.working,
                              max_failures=req.max_failures)
        if req.detect and res.verdict == "fails":  # what it is instead: the cause (REQ-CHECK-CLI)
            reading = self.read(data, dtype=res.dtype, tier=req.tier)
            res.detected = dict(reading, sentence=self.sentence(reading) if reading["found"] else reading["reason"])
            attach(res, self.cause(g, opts, reading))
        return with_command(res, self.flags(g, opts), command_word(target), t.notes, t0)

    def read(self, table: Any, shape: Sequence[int] | None = None, dtype: str | None = None, tier: str = "phase",
             cells: Sequence[Sequence[int]] | None = None) -> dict[str, Any]:
        """REQ-DETECT-GRID: the grid reading of a table (:func:`~sinpe.reference.checking.detect.grid.detect_grid`)."""
        from sinpe.reference.checking.detect.grid import detect_grid
        return detect_grid(self, table, shape=shape, dtype=dtype, tier=tier, cells=cells)

    def preset_options(self, name: str, t: np.ndarray, cs: CellShape, dim: int) -> list[dict[str, Any]]:
        """The option sets of preset ``name`` to try on the cells ``cs`` (before any temperature): diffusers' base
        sizes and the scale read off the data, timm with and without reverse_coord, diffusers-3d's scales."""
        if name == "diffusers":
            opts = [{"base_size": b, "interpolation_scale": i} for b in DIFFUSERS_BASE_SIZES + (cs.shape[0],)
                    for i in (1, 2)]
            return opts + [o for o in _diffusers_scale(t, cs.cls, cs.shape[-1]) if o not in opts]
        if name == "timm":
            return [{}, {"reverse_coord": True}]
        if name == "diffusers-3d":
            return _diffusers_3d_scales(t, cs, dim) if len(cs.shape) == 3 else []
        return [{}]

    def cause(self, g: Grid, options: dict[str, Any], reading: dict[str, Any]) -> Cause | None:
        """Why a grid fails, from its reading: another preset whose axes are the claimed ones in another order reads
        as ``axes swapped`` (MAE's [x | y] read as timm-interleaved's [y | x])."""
        shape = g.shape[::-1] if options.get("reverse_coord") else g.shape
        claimed = {"profile": g.name, "shape": list(shape), "cls": g.cls,
                   "options": {k: v for k, v in options.items() if v not in (None, False)}}
        swapped = False
        if reading.get("found") and reading["profile"] != g.name:
            dim = g.d
            other = self.grid(reading["profile"], dim, tuple(reading["shape"]), reading["cls"],
                              **reading.get("options", {}))
            swapped = _axis_set(other) == _axis_set(g) and other.axes != g.axes
        return of_grid(claimed, reading, swapped)

    def sentence(self, r: dict[str, Any]) -> str:
        return (f"A {len(r['shape'])}-D sin-cos grid: preset {r['profile']}, shape {'x'.join(map(str, r['shape']))}, "
                f"{r['cls']} cls rows" + (f", options {r['options']}" if r.get("options") else "") +
                (f"; equivalent here: {', '.join(e['profile'] for e in r['equivalent'])}"
                 if r.get("equivalent") else "") + ".")

    def reading_words(self, r: dict[str, Any], found: Any) -> tuple[str, str, Any]:
        dim = np.asarray(found.table.data).shape[1]
        g = self.grid(r["profile"], dim, tuple(r["shape"]), r["cls"], **r.get("options", {}))
        return self.flags(g, r.get("options", {})), self.sentence(r), g


def _axis_set(g: Grid) -> list[Any]:
    """A grid's channel blocks as comparable values, in no order (two grids of the same blocks in another order have
    their axes swapped)."""
    return sorted(repr((a.spatial, a.profile.params(), a.width, a.turns, a.keep)) for a in g.axes)


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


KIND = GridKind()
