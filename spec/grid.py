"""N-D sin-cos grids (SPEC.md DEF-GRID, DEF-GRID-AXIS, DEF-GRID-ORDER, DEF-GRID-CLS, DEF-GRID-PRESET-*).

A grid over a spatial shape (n_0, ..., n_{m-1}) has one row per cell in row-major order (the last
spatial index varies fastest), after ``cls`` rows of zeros. Its channels are blocks, one per
:class:`GridAxis`: the axis encodes spatial index i of dimension ``spatial`` with a 1-D member of
DEF-FAMILY (``profile``, width ``width``), so its column plan, schedule, offset o, phase scale sigma
and amplitude are DEF-FAMILY's; ``turns`` multiplies the phase by 2 pi (DETR's normalised
coordinates). The entry is ``alpha * f(theta)`` with::

    theta = [2 pi] * sigma * (i + o) * w_k(profile, width)

``order`` places the blocks: ``blocks`` puts each axis's 1-D table side by side (MAE, diffusers,
DETR, timm with interleave_sin_cos); ``functions`` puts every axis's sin columns first, then every
axis's cos columns (timm's default ``[sin_y | sin_x | cos_y | cos_x]``; its axes must be ``sin-cos``
profiles of even width).

>>> g = get_grid("mae", dim=8, shape=(2, 3))
>>> [c.label for c in grid_columns(g)]
['x:sin0', 'x:sin1', 'x:cos0', 'x:cos1', 'y:sin0', 'y:sin1', 'y:cos0', 'y:cos1']
>>> grid_positions(g)[:4]
[(0, 0), (0, 1), (0, 2), (1, 0)]
>>> [c.label for c in grid_columns(get_grid("timm", dim=8, shape=(2, 2)))]
['y:sin0', 'y:sin1', 'x:sin0', 'x:sin1', 'y:cos0', 'y:cos1', 'x:cos0', 'x:cos1']
"""
from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .definition import column_data
from .profiles import Profile, get_profile

ORDERS = ("blocks", "functions")
AXIS_NAMES = "yxzt"  # spatial dimension 0 is y (rows), 1 is x (columns) in 2-D


@dataclass(frozen=True)
class GridAxis:
    """One channel block (DEF-GRID-AXIS): spatial dimension, 1-D profile, width, 2 pi factor."""

    spatial: int
    profile: Profile
    width: int
    turns: bool = False
    keep: int | None = None  # the first ``keep`` columns of the width-``width`` 1-D table (None: all of them)
    label: str | None = None  # the axis's name in reports (default: y, x, z, t by spatial dimension)

    @property
    def columns(self) -> int:
        """How many columns the block holds (``keep``, else ``width``)."""
        return self.width if self.keep is None else self.keep

    @property
    def name(self) -> str:
        if self.label:
            return self.label
        return AXIS_NAMES[self.spatial] if self.spatial < len(AXIS_NAMES) else f"a{self.spatial}"


@dataclass(frozen=True)
class Grid:
    """DEF-GRID: a concrete grid (shape fixed; the per-axis scalings DETR and diffusers derive from it are exact)."""

    name: str | None
    shape: tuple[int, ...]
    axes: tuple[GridAxis, ...]
    order: str = "blocks"
    cls: int = 0

    def __post_init__(self) -> None:
        if not self.shape or any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in self.shape):
            raise ValueError(f"grid shape must be positive integers; got {self.shape!r}")
        if self.order not in ORDERS:
            raise ValueError(f"grid order must be one of {', '.join(ORDERS)}; got {self.order!r}")
        if self.cls < 0:
            raise ValueError(f"cls rows must be >= 0; got {self.cls}")
        for a in self.axes:
            if not 0 <= a.spatial < len(self.shape):
                raise ValueError(f"axis encodes spatial dimension {a.spatial} of a {len(self.shape)}-D shape")
            if self.order == "functions" and (a.width % 2 or a.keep is not None or column_data(a.profile, a.width).kinds
                                              != ("sin",) * (a.width // 2) + ("cos",) * (a.width // 2)):
                raise ValueError("order 'functions' needs sin-cos axes of even width")
            if a.keep is not None and not 0 < a.keep <= a.width:
                raise ValueError(f"an axis keeps 1..{a.width} of its {a.width} columns; got {a.keep}")

    @property
    def d(self) -> int:
        return sum(a.columns for a in self.axes)

    @property
    def rows(self) -> int:
        return self.cls + _prod(self.shape)

    def describe(self) -> str:
        ax = ", ".join(f"{a.name}: {a.columns} cols {a.profile.describe()}" +
                       (f" (first {a.keep} of width {a.width})" if a.keep is not None else "") +
                       (" x 2pi" if a.turns else "")
                       for a in self.axes)
        return f"grid {'x'.join(map(str, self.shape))} ({self.order}; {self.cls} cls rows): {ax}"


def _prod(xs: tuple[int, ...]) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


@dataclass(frozen=True)
class GridColumn:
    """What grid column j holds: ``kind`` of frequency ``k`` of axis ``axis`` (an index into ``Grid.axes``)."""

    kind: str
    axis: int
    k: int
    axis_name: str

    @property
    def label(self) -> str:
        return f"{self.axis_name}:" + ("zero" if self.kind == "zero" else f"{self.kind}{self.k}")


def grid_columns(g: Grid) -> tuple[GridColumn, ...]:
    """The column plan (DEF-GRID-ORDER)."""
    out = []
    if g.order == "blocks":
        for i, a in enumerate(g.axes):
            out += [GridColumn(c.kind, i, c.k, a.name) for c in column_data(a.profile, a.width).columns[:a.columns]]
        return tuple(out)
    for kind in ("sin", "cos"):
        for i, a in enumerate(g.axes):
            out += [GridColumn(kind, i, k, a.name) for k in range(column_data(a.profile, a.width).n_frequencies)]
    return tuple(out)


def grid_positions(g: Grid) -> list[tuple[int, ...]]:
    """Spatial index of each non-cls row, row-major (DEF-GRID)."""
    return list(itertools.product(*(range(n) for n in g.shape)))


def axis_phase_factor(a: GridAxis, i: int) -> Fraction:
    """sigma * (i + o): the exact rational part of theta (2 pi and w_k excluded)."""
    cd = column_data(a.profile, a.width)
    return cd.scale * (Fraction(i) + cd.offset)


# --- presets (DEF-GRID-PRESET-*): factories from the library's own arguments --------------------

def _square(shape: Any) -> tuple[int, ...]:
    return (shape, shape) if isinstance(shape, int) else tuple(shape)


def _mae(dim: int, shape: Any, cls: int = 0) -> Grid:
    """MAE / open_clip get_2d_sincos_pos_embed: [x | y], each vaswani-concat of width dim/2."""
    h, w = _square(shape)
    if dim % 4:
        raise ValueError(f"mae grid needs dim divisible by 4 (each axis an even sin-cos table); got {dim}")
    p = get_profile("vaswani-concat")
    return Grid("mae", (h, w), (GridAxis(1, p, dim // 2), GridAxis(0, p, dim // 2)), cls=cls)


def _diffusers(dim: int, shape: Any, cls: int = 0, base_size: Any = 16, interpolation_scale: Any = 1) -> Grid:
    """diffusers get_2d_sincos_pos_embed: MAE's layout, index i read as i / (n / base_size) / interpolation_scale."""
    h, w = _square(shape)
    if dim % 4:
        raise ValueError(f"diffusers grid needs dim divisible by 4; got {dim}")
    bs, isc = Fraction(base_size), Fraction(interpolation_scale)
    ax = [GridAxis(sp, get_profile("vaswani-concat", phase_scale=bs / (n * isc)), dim // 2)
          for sp, n in ((1, w), (0, h))]
    return Grid("diffusers", (h, w), tuple(ax), cls=cls)


def _timm(dim: int, shape: Any, reverse_coord: bool = False, interleave_sin_cos: bool = False,
          temperature: Any = 10000) -> Grid:
    """timm build_sincos2d_pos_embed: per axis w_k = T^(-k/(dim/4)); [sin_y|sin_x|cos_y|cos_x] or per-axis blocks."""
    h, w = _square(shape)
    if dim % 4:
        raise ValueError(f"timm grid needs dim divisible by 4; got {dim}")
    p = get_profile("vaswani-concat", base=temperature)
    # reverse_coord reverses feat_shape itself: the grid is enumerated over (W, H), W outermost
    shape2 = (w, h) if reverse_coord else (h, w)
    ax = tuple(GridAxis(s, p, dim // 2) for s in (0, 1))
    return Grid("timm", shape2, ax, "blocks" if interleave_sin_cos else "functions")


def _detr(dim: int, shape: Any, normalize: bool = False, temperature: Any = 10000, offset: Any = 1,
          name: str | None = None) -> Grid:
    """DETR PositionEmbeddingSine(num_pos_feats=dim/2): [y | x] interleaved; index i read as i + 1,
    normalised to (i + 1) / (n + 1e-6) * 2 pi when ``normalize`` (the default scale 2 pi); Deformable DETR
    reads the cell centre i + 1/2 (``offset``)."""
    h, w = _square(shape)
    if dim % 2:
        raise ValueError(f"detr grid needs an even dim (2 * num_pos_feats); got {dim}")
    eps = Fraction(1, 10**6)
    ax = []
    for s, n in ((0, h), (1, w)):
        scale = 1 / (n + eps) if normalize else Fraction(1)
        ax.append(GridAxis(s, get_profile("vaswani", offset=offset, phase_scale=scale, base=temperature), dim // 2,
                           turns=normalize))
    return Grid(name or ("detr-normalized" if normalize else "detr"), (h, w), tuple(ax))


def _pe2d(dim: int, shape: Any, temperature: Any = 10000) -> Grid:
    """positional-encodings PositionalEncoding2D(channels=dim): [axis 0 | axis 1], each vaswani interleaved of
    width c = ceil(dim/4)*2 at positions from 0, the whole truncated to dim channels (axis 1 keeps dim - c)."""
    h, w = _square(shape)
    c = -(-dim // 4) * 2
    p = get_profile("vaswani", base=temperature)
    ax = [GridAxis(0, p, c, keep=None if dim >= c else dim)]
    if dim > c:
        ax.append(GridAxis(1, p, c, keep=None if dim - c == c else dim - c))
    return Grid("pe2d", (h, w), tuple(ax))


def _vit(dim: int, shape: Any, temperature: Any = 10000) -> Grid:
    """vit-pytorch posemb_sincos_2d(h, w, dim, temperature): [x | y], each t2t (sin-cos, w_k = T^(-k/(dim/4 - 1)))
    of width dim/2."""
    h, w = _square(shape)
    if dim % 4 or dim < 8:
        raise ValueError(f"vit grid needs dim divisible by 4 and >= 8 (omega divides by dim/4 - 1); got {dim}")
    p = get_profile("t2t", base=temperature)
    return Grid("vit", (h, w), (GridAxis(1, p, dim // 2), GridAxis(0, p, dim // 2)))


def _diffusers_3d(dim: int, shape: Any, cls: int = 0, interpolation_scale: Any = 1,
                  temporal_interpolation_scale: Any = 1) -> Grid:
    """diffusers get_3d_sincos_pos_embed (CogVideoX): cells (t, y, x); [t | x | y]: t vaswani-concat of width dim/4
    at i / temporal_interpolation_scale, then the 2-D part of width 3 dim/4 (MAE's [x | y], each vaswani-concat of
    width 3 dim/8) at i / interpolation_scale (diffusers' spatial_interpolation_scale)."""
    if isinstance(shape, int) or len(tuple(shape)) != 3:
        raise ValueError(f"diffusers-3d grid needs a 3-D shape (T, H, W); got {shape!r}")
    t, h, w = tuple(shape)
    if dim % 16:
        raise ValueError(f"diffusers-3d grid needs dim divisible by 16 (each spatial axis an even sin-cos table of "
                         f"width 3 dim/8); got {dim}")
    ts, ss = Fraction(temporal_interpolation_scale), Fraction(interpolation_scale)
    if ts <= 0 or ss <= 0:
        raise ValueError("diffusers-3d interpolation scales must be positive")
    temporal = get_profile("vaswani-concat", phase_scale=1 / ts)
    spatial = get_profile("vaswani-concat", phase_scale=1 / ss)
    ax = (GridAxis(0, temporal, dim // 4, label="t"), GridAxis(2, spatial, 3 * dim // 8, label="x"),
          GridAxis(1, spatial, 3 * dim // 8, label="y"))
    return Grid("diffusers-3d", (t, h, w), ax, cls=cls)


GRID_PRESETS: Mapping[str, Callable[..., Grid]] = {
    "mae": _mae,
    "diffusers": _diffusers,
    "timm": _timm,
    "timm-interleaved": lambda dim, shape, **kw: dataclasses.replace(_timm(dim, shape, interleave_sin_cos=True, **kw),
                                                                     name="timm-interleaved"),
    "detr": _detr,
    "detr-normalized": lambda dim, shape, **kw: _detr(dim, shape, normalize=True, **kw),
    "detr-deformable": lambda dim, shape, **kw: _detr(dim, shape, normalize=True, offset=Fraction(1, 2),
                                                      name="detr-deformable", **kw),
    "pe2d": _pe2d,
    "vit": _vit,
    "diffusers-3d": _diffusers_3d,
}


def get_grid(name: str, dim: int, shape: Any, **options: Any) -> Grid:
    """A grid preset for width ``dim`` and spatial ``shape`` (an int means square), with the library's options.

    >>> get_grid("detr-normalized", 8, 3).axes[0].profile.phase_scale
    Fraction(1000000, 3000001)
    >>> get_grid("vit-b", 8, 3)
    Traceback (most recent call last):
    ...
    ValueError: unknown grid profile 'vit-b'; presets: mae, diffusers, timm, timm-interleaved, detr, detr-normalized, detr-deformable, pe2d, vit, diffusers-3d
    """
    if name not in GRID_PRESETS:
        raise ValueError(f"unknown grid profile {name!r}; presets: {', '.join(GRID_PRESETS)}")
    if isinstance(dim, bool) or not isinstance(dim, int) or dim < 1:
        raise ValueError(f"grid dim must be a positive integer; got {dim!r}")
    g = GRID_PRESETS[name](dim, shape, **options)
    return g if g.name == name else dataclasses.replace(g, name=name)
