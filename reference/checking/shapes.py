"""Which cell shapes the rows of a table show (SPEC.md REQ-DETECT-GRID, REQ-DETECT-ROPE).

A grid (DEF-GRID) or a multi-axis rotary cache (DEF-ROPE-AXES) over cells of shape (n_0, ..., n_(m-1)) has one row
per cell, row-major, after ``cls`` zero rows (DEF-GRID-CLS). Each of its columns encodes one axis: its value depends
on that cell index alone. So a shape is *shown* by the data when, with the rows reshaped to (n_0, ..., n_(m-1), d),
every (sampled) column is constant along all axes but one, and every axis is read by some column that is not
constant. Nothing is assumed about the values (any preset, temperature, scale, rule): only which index each
column reads. A 1-D table shows no shape (its columns read the flat row index).

>>> import numpy as np
>>> i, j = np.meshgrid(np.arange(3), np.arange(5), indexing="ij")
>>> t = np.stack([np.sin(i.ravel()), np.cos(0.3 * j.ravel()), np.sin(0.7 * j.ravel())], axis=1)
>>> [s.shape for s in cell_shapes(t)]
[(3, 5)]
>>> cell_shapes(np.sin(np.arange(15.0)[:, None] * [1.0, 0.1]))
[]
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SAMPLE_COLUMNS = 64   # columns read (spread evenly) when deciding a shape
SHOWN = 0.9           # share of the non-constant sampled columns that must read one axis (a corrupted entry spoils one)
MAX_AXES = 3
MAX_SHAPES = 8        # shapes returned at most


@dataclass(frozen=True)
class CellShape:
    """A shape the rows show: ``shape`` after ``cls`` zero rows; ``share`` of the sampled non-constant columns that
    read one axis."""

    cls: int
    shape: tuple[int, ...]
    share: float


def column_axes(table: np.ndarray, cs: CellShape) -> np.ndarray:
    """The axis each column of ``table`` reads under ``cs`` (-1: constant, or read by no single axis)."""
    cells = np.asarray(np.asarray(table)[cs.cls:], dtype=np.float64)
    return _readers(cells, cs.shape, 1e-6 * max(1.0, float(np.max(np.abs(cells), initial=0.0))))[0]


def leading_zero_rows(t: np.ndarray) -> int:
    """How many rows at the top are exactly zero (DEF-GRID-CLS), leaving at least 4."""
    nz = np.nonzero(np.any(np.asarray(t) != 0, axis=1))[0]
    return int(nz[0]) if nz.size and nz[0] <= t.shape[0] - 4 else 0


def _readers(cells: np.ndarray, shape: tuple[int, ...], tol: float) -> tuple[np.ndarray, np.ndarray]:
    """(axis per column, -1 none; constant per column) of ``cells`` (rows, c) reshaped to ``shape``."""
    block = cells.reshape(*shape, cells.shape[1])
    m = len(shape)
    constant = np.ptp(cells, axis=0) <= tol
    axis = np.full(cells.shape[1], -1)
    for a in range(m):
        others = tuple(b for b in range(m) if b != a)
        spread = np.ptp(block, axis=others).max(axis=0) if others else np.zeros(cells.shape[1])
        axis = np.where((axis == -1) & (spread <= tol) & ~constant, a, axis)
    return axis, constant


def _shown(cells: np.ndarray, shape: tuple[int, ...], tol: float) -> tuple[float, np.ndarray] | None:
    """(share, axis per column) if ``shape`` is shown by ``cells``, else None."""
    axis, constant = _readers(cells, shape, tol)
    live = ~constant
    if not live.any() or any(not np.any(axis == a) for a in range(len(shape))):
        return None
    share = float(np.mean(axis[live] >= 0))
    return (share, axis) if share >= SHOWN else None


def _splits(n: int) -> list[tuple[int, int]]:
    return [(a, n // a) for a in range(2, n // 2 + 1) if n % a == 0]


def cell_shapes(table: np.ndarray, cls: int | None = None, max_axes: int = MAX_AXES) -> list[CellShape]:
    """The shapes (every n_i >= 2, at most ``max_axes`` axes) the rows after ``cls`` zero rows show (default: the
    leading zero rows), finest first (a 3-D grid also shows the 2-D shapes that merge two of its axes), then by
    share. 2-D shapes are screened on 16 columns, then decided on SAMPLE_COLUMNS; 3-D ones refine shown 2-D ones."""
    t = np.asarray(table)
    if t.ndim != 2 or not np.all(np.isfinite(t)):
        return []
    cls = leading_zero_rows(t) if cls is None else cls
    pick = np.unique(np.linspace(0, t.shape[1] - 1, min(SAMPLE_COLUMNS, t.shape[1])).astype(np.intp))
    many = np.asarray(t[cls:, pick], dtype=np.float64)
    few = many[:, np.unique(np.linspace(0, len(pick) - 1, min(16, len(pick))).astype(np.intp))]
    n = many.shape[0]
    tol = 1e-6 * max(1.0, float(np.max(np.abs(many), initial=0.0)))
    found: dict[tuple[int, ...], float] = {}
    for sh in _splits(n):
        if _shown(few, sh, tol) is not None and (r := _shown(many, sh, tol)) is not None:
            found[sh] = r[0]
    if max_axes >= 3:
        for (a, b) in list(found):
            for deeper in [(x, y, b) for x, y in _splits(a)] + [(a, x, y) for x, y in _splits(b)]:
                if deeper not in found and (r := _shown(many, deeper, tol)) is not None:
                    found[deeper] = r[0]
    order = sorted(found, key=lambda s: (-len(s), -found[s], abs(s[0] - s[-1])))[:MAX_SHAPES]
    return [CellShape(cls, sh, found[sh]) for sh in order]
