"""A sinusoid table with corrupted rows or entries, read as the plan it is everywhere else (SPEC.md REQ-SCAN-NO-SKIP).

detect names a grid or a rotary cache only by a check that conforms (REQ-DETECT-GRID, REQ-DETECT-ROPE), so a
grid one of whose entries was negated is no grid at all to it, while a 1-D table with a few corrupted rows is
still read as its plan and then fails its check there (the 1-D rule: ``detect._robust_rows``). The scan's screen
(``scan.sinusoid_share``) reads such a tensor as a sinusoid; :func:`corrupted_reading` extends the 1-D rule to
every kind, so the scan judges it instead of skipping it:

- the candidates: every grid preset (DEF-GRID-PRESET-*) at every shape H x W its rows allow after 0, 1 or 2 cls
  rows (squares first, then aspect ratios up to :data:`MAX_ASPECT`), and every rotary preset (DEF-ROPE-PRESET-*)
  with a base read off the data (the default rule, each layout) as a cos or a sin cache at positions 0..n-1;
- each candidate's binary64 reference (``oracles.angles.reference_f64``) is compared with the table: a row
  *matches* when every entry is within :data:`MATCH` of the largest |value|; the first candidate that every row
  but at most max(1, 5%) matches (the 1-D rule's share) is the reading, with the rows that do not;
- the check (``door.check`` with the reading's flags) then gives the verdict: the corrupted entries fail.

None when nothing matches so: the scan reports the tensor inconclusive with the reason (exit 3), never skipped.

>>> from sinpe.spec.grid import get_grid
>>> from sinpe.reference.oracles.angles import grid_plan, reference_f64
>>> t = reference_f64(grid_plan(get_grid("mae", 32, (4, 4))))[0].astype(np.float32)
>>> t[5, 3] = -t[5, 3]
>>> r = corrupted_reading(t)
>>> r.kind, r.flags, r.bad_rows
('grid', '--profile mae --shape 4x4 --cls 0', [5])
>>> r.check(t).verdict
'fails'
"""
from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sinpe.reference.checking import door
from sinpe.reference.checking.door import GRID, ROTARY
from sinpe.reference.oracles.angles import grid_plan, reference_f64, rotary_plan
from sinpe.spec.grid import GRID_PRESETS
from sinpe.spec.rotary import ROTARY_LAYOUTS, ROTARY_PRESETS, RotaryProfile

MATCH = 1e-3           # |entry - reference| a matching row stays within (relative to the largest |value|)
BAD_SHARE = 0.05       # rows that may fail to match (at least one): the 1-D rule (detect._robust_rows)
MAX_ASPECT = 4         # H/W of the non-square grids tried
MAX_CLS = 2            # leading cls (zero) rows tried
MAX_ENTRIES = 1 << 22  # entries compared per candidate (a rotary cache: its first rows; a grid: all, or none)


@dataclass
class Reading:
    """What a table with corrupted rows is: its ``kind``, the ``sinpe check`` keywords and flags, the rows that
    do not match (indices), and a sentence."""

    kind: str
    profile: Any
    keywords: dict[str, Any] = field(default_factory=dict)
    flags: str = ""
    bad_rows: list[int] = field(default_factory=list)
    cache: str | None = None

    def check(self, table: Any) -> Any:
        """The check of ``table`` against this reading (the one check pipeline, REQ-CHECK-KINDS)."""
        if self.kind == "rotary":
            return door.check(**{"target" if self.cache == "cos" else "sin": table}, profile=self.profile)
        return door.check(table, self.profile, **self.keywords)

    @property
    def sentence(self) -> str:
        rows = ", ".join(map(str, self.bad_rows[:8])) + (" ..." if len(self.bad_rows) > 8 else "")
        where = f"corrupted rows {rows}" if self.bad_rows else "no corrupted row"
        return f"read with {where} (outside the plan by over {MATCH:g} of the amplitude; REQ-SCAN-NO-SKIP)"


def corrupted_reading(table: Any) -> Reading | None:
    """The grid or rotary plan ``table`` (rows, d) is outside at most max(1, 5%) of its rows (module docstring)."""
    t = np.asarray(table)
    if t.ndim != 2 or t.shape[0] < 3 or not np.isfinite(t).all():
        return None
    amp = float(np.max(np.abs(t))) or 1.0
    for reading, reference in _candidates(t):
        n = min(t.shape[0], reference.shape[0])
        bad = np.flatnonzero(~np.all(np.abs(t[:n] - reference[:n]) <= MATCH * amp, axis=1))
        if bad.size <= max(1, int(BAD_SHARE * n)):
            reading.bad_rows = [int(i) for i in bad]
            return reading
    return None


def _candidates(t: np.ndarray) -> Iterator[tuple[Reading, np.ndarray]]:
    yield from _grid_candidates(t)
    yield from _rotary_candidates(t)


# --- grids ---------------------------------------------------------------------------------------

def grid_shapes(rows: int) -> list[tuple[int, tuple[int, int]]]:
    """(cls, (H, W)) the rows allow: every square first (0, 1, 2 cls rows), then H x W up to MAX_ASPECT.

    >>> grid_shapes(197)[:2], grid_shapes(12)
    ([(1, (14, 14)), (1, (7, 28))], [(0, (2, 6)), (0, (3, 4)), (0, (4, 3)), (0, (6, 2)), (2, (2, 5)), (2, (5, 2))])
    """
    out = []
    for cls in range(MAX_CLS + 1):
        n = rows - cls
        s = math.isqrt(max(n, 0))
        if s >= 2 and s * s == n:
            out.append((cls, (s, s)))
    for cls in range(MAX_CLS + 1):
        n = rows - cls
        out += [(cls, (h, n // h)) for h in range(2, n // 2 + 1) if n % h == 0 and h * h != n
                and max(h, n // h) <= MAX_ASPECT * min(h, n // h)]
    return out


def _grid_options(name: str) -> list[dict[str, Any]]:
    if name == "diffusers":
        return [{"base_size": b, "interpolation_scale": i} for b in (16, 32, 64) for i in (1, 2)]
    return [{}, {"reverse_coord": True}] if name == "timm" else [{}]


def _grid_candidates(t: np.ndarray) -> Iterator[tuple[Reading, np.ndarray]]:
    rows, dim = t.shape
    if rows * dim > MAX_ENTRIES:
        return
    for cls, shape in grid_shapes(rows):
        for name in GRID_PRESETS:
            for opts in _grid_options(name):
                try:
                    g = GRID.grid(name, dim, shape, cls, **opts)
                    ref = reference_f64(grid_plan(g))[0]
                except (ValueError, ArithmeticError, TypeError):
                    continue  # the preset does not exist at this width
                if ref.shape == t.shape:
                    kw = {"shape": shape, "cls": cls, **opts}
                    yield Reading("grid", name, kw, GRID.flags(g, opts)), ref


# --- rotary caches -------------------------------------------------------------------------------

def _rotary_candidates(t: np.ndarray) -> Iterator[tuple[Reading, np.ndarray]]:
    rows = min(t.shape[0], max(3, MAX_ENTRIES // max(1, t.shape[1])))
    sample = t[:rows]
    tried = set()
    for rp in _rotary_profiles(sample):
        for which in ("cos", "sin"):
            dim = sample.shape[1] * (2 if rp.layout == "single" else 1)
            key = (rp.replace(name=None), which)
            if key in tried:
                continue
            tried.add(key)
            try:
                ref = reference_f64(rotary_plan(rp, dim, list(range(rows)), which))[0]
            except (ValueError, ArithmeticError, TypeError):
                continue
            if ref.shape == sample.shape:
                flags = f"--{which} FILE {ROTARY.flags(rp)}"
                yield Reading("rotary", rp if isinstance(rp, RotaryProfile) else rp, {}, flags, cache=which), ref


def _rotary_profiles(t: np.ndarray) -> list[Any]:
    """The rotary presets (but rule pixel, which needs a grid), then the default rule at the base read off the
    data in each layout."""
    out = [rp for rp in ROTARY_PRESETS.values() if rp.rule != "pixel" and rp.mrope_section is None]
    for layout in ROTARY_LAYOUTS:
        out += [RotaryProfile(None, layout, b) for b in estimated_bases(t, layout)]
    return out


def estimated_bases(t: np.ndarray, layout: str) -> list[Any]:
    """Bases b read off frequency 1 of a cos or sin cache: w_1 = b^(-2/dim), w from the three-term recurrence
    x(p+1) + x(p-1) = 2 cos(w) x(p) (median over rows, so corrupted rows are outvoted), rounded to 2 and 3
    significant digits.

    >>> p = np.arange(64)[:, None]; w = 10000.0 ** (-np.arange(0, 16, 2) / 16)
    >>> estimated_bases(np.cos(p * np.concatenate([w, w])), "halves")
    [Fraction(10000, 1)]
    """
    from fractions import Fraction
    rows, width = t.shape
    dim = width * 2 if layout == "single" else width
    j = {"halves": 1, "pairs": 2, "single": 1}[layout]
    if j >= width or rows < 3 or dim < 4:
        return []
    x = np.asarray(t[:, j], dtype=np.float64)
    mid = x[1:-1]
    ok = np.abs(mid) > 0.1 * (np.max(np.abs(x)) or 1.0)
    if not ok.any():
        return []
    c = float(np.median((x[2:] + x[:-2])[ok] / mid[ok])) / 2
    if not -1 < c < 1:
        return []
    w = math.acos(c)
    try:
        b = w ** (-dim / 2)
    except (OverflowError, ZeroDivisionError):
        return []
    if not (math.isfinite(b) and b > 1):
        return []
    out = []
    for digits in (2, 3):
        r = round(b, digits - 1 - int(math.floor(math.log10(b))))
        f = Fraction(int(r)) if r >= 1 else None
        if f is not None and f not in out:
            out.append(f)
    return out
