"""The column plans the 1-D fit tries (SPEC.md REQ-DETECT-FIT): every plan of DEF-FAMILY for a table of w columns
(layout x schedule shift x odd rule x width d in {w-1, w, w+1}) and three plans outside the family (cos first in each
pair, an exponent per column, cos one exponent ahead), each as a kind and an exponent per column.

>>> [c.label for c in _family_candidates(4)][:2]
['interleaved/None/trailing-sin/d=4', 'interleaved/1/trailing-sin/d=4']
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from sinpe.reference.tables.progression import as_slice
from sinpe.spec.definition import ColumnData, column_data
from sinpe.spec.profiles import LAYOUTS, ODD_RULES, Profile


@dataclass
class _Cand:
    label: str
    kinds: np.ndarray      # 0 sin, 1 cos, 2 zero per table column (-1: extra column, ignored)
    e: np.ndarray          # exponent per column (w_j = sigma * b^(-e_j))
    d: int
    layout: str | None
    shift: Fraction | None
    odd: str | None
    extra: dict[str, Any]  # out-of-family deviations this plan stands for
    parts: tuple[Any, ...] = field(default=(), init=False, compare=False, repr=False)  # _model_used's columns, found once
    key: tuple[bytes, bytes] | tuple[()] = field(default=(), init=False, compare=False, repr=False)  # plan_key, found once

    def plan_key(self) -> tuple[bytes, bytes]:
        """The column plan (kinds, exponents) as a key: plans with equal keys have equal models."""
        if not self.key:
            self.key = (self.kinds.tobytes(), self.e.tobytes())
        return self.key

    def used_parts(self) -> tuple[Any, ...]:
        """(used columns, their exponents, the sin columns, the cos columns) among them (slices where evenly spaced)."""
        if not self.parts:
            used = self.kinds >= 0
            kinds = self.kinds[used]
            self.parts = (used, self.e[used], *(as_slice(np.flatnonzero(kinds == k)) for k in (0, 1)))
        return self.parts


def plan_arrays(prof: Profile, d: int) -> tuple[np.ndarray, np.ndarray]:
    """(kind per column: 0 sin, 1 cos, 2 zero; exponent per column, 0 in zero columns) from the column data
    (ValueError where the profile has no table at d); read-only arrays, kept per column data (its value is the key:
    a definition that gives other columns gives other arrays)."""
    return _arrays(column_data(prof, d))


@lru_cache(maxsize=256)  # about four widths' candidates; a key keeps its column data (and exponents) alive
def _arrays(cd: ColumnData) -> tuple[np.ndarray, np.ndarray]:
    ew = [float(e) for e in cd.exponents]
    kinds = np.array([{"sin": 0, "cos": 1, "zero": 2}[f] for f in cd.kinds])
    es = np.array([ew[k] if f != "zero" else 0.0 for f, k in zip(cd.kinds, cd.labels, strict=True)])
    kinds.flags.writeable = es.flags.writeable = False
    return kinds, es


CACHED_WIDTH = 4096  # the plans of tables up to this width are built once (57 plans of two arrays: 4 MiB at 4096)


def candidates(w: int) -> list[_Cand]:
    """Every plan the fit tries for a table of w columns: the family's, then those outside it (a new list; the
    plans of a width up to CACHED_WIDTH are built once and shared, so their columns are found once)."""
    return list(_cached_candidates(w) if w <= CACHED_WIDTH else _family_candidates(w) + _outside_candidates(w))


@lru_cache(maxsize=4)
def _cached_candidates(w: int) -> tuple[_Cand, ...]:
    cands = tuple(_family_candidates(w) + _outside_candidates(w))
    for c in cands:  # shared: read-only
        c.kinds.flags.writeable = c.e.flags.writeable = False
    return cands


def _family_candidates(w: int) -> list[_Cand]:
    out = []
    for d in (w, w + 1, w - 1):
        if d < 1:
            continue
        odds = ODD_RULES[:3] if d % 2 else ("trailing-sin",)
        for layout in LAYOUTS:
            for shift in (None, Fraction(0), Fraction(1)):
                if shift == 0 and d % 2 == 0:
                    continue  # identical to d/2 for even d
                for odd in odds:
                    if layout == "interleaved" and odd == "ceil-split":
                        continue  # identical to trailing-sin
                    try:
                        kinds, es = plan_arrays(Profile(None, layout, shift, odd=odd), d)
                    except ValueError:
                        continue
                    if d == w + 1:
                        kinds, es = kinds[:w], es[:w]
                    elif d == w - 1:
                        kinds, es = np.append(kinds, -1), np.append(es, 0.0)
                    out.append(_Cand(f"{layout}/{shift}/{odd}/d={d}", kinds, es, d,
                                     layout, shift, odd if d % 2 else None, {}))
    return out


def _outside_candidates(w: int) -> list[_Cand]:
    out = []
    # cos first in every interleaved pair (sin/cos swapped)
    kinds, es = plan_arrays(Profile(None, "interleaved", None), w)
    kinds = np.where(kinds == 2, 2, 1 - kinds)  # sin and cos exchanged
    out.append(_Cand("interleaved cos-first", kinds, es, w, "interleaved", None, None, {"sin_cos_swapped": True}))
    # a separate exponent per column: 10000^(2j/d) for column j
    kinds = np.array([0 if j % 2 == 0 else 1 for j in range(w)])
    es = np.array([2.0 * j / w for j in range(w)])
    out.append(_Cand("exponent per column", kinds, es, w, "interleaved", None, None, {"exponent": "2j/d"}))
    # cos columns one step ahead: exponent (2k+1)/d for cos_k (arange(1, d, 2) / d)
    es = np.array([float(j) / w for j in range(w)])
    out.append(_Cand("cos exponent shifted", kinds, es, w, "interleaved", None, None, {"exponent": "cos_k: (2k+1)/d"}))
    return out


def _model(c: _Cand, p: np.ndarray, sigma: float, b: float, o: float) -> np.ndarray:
    """The alpha = 1 model of the plan at positions p: sin or cos of sigma (p + o) b^(-e_j) in column j, 0 in zero
    and extra columns."""
    th = sigma * (p[:, None] + o) * (b ** (-c.e))[None, :]
    return np.where(c.kinds == 0, np.sin(th), np.where(c.kinds == 1, np.cos(th), 0.0))


def _model_used(c: _Cand, p: np.ndarray, sigma: float, b: float, o: float) -> np.ndarray:
    """``_model(c, p, sigma, b, o)[:, c.kinds >= 0]`` (the same values), each function evaluated on its own columns
    only: the fit's inner loop."""
    used, e, sins, coss = c.used_parts()
    q, w = sigma * (p[:, None] + o), b ** (-e)
    m = np.zeros((len(p), len(e)), order="F")  # the layout _model(...)[:, used] has: the fit's sums add in its order
    m[:, sins] = np.sin(q * w[None, sins])
    m[:, coss] = np.cos(q * w[None, coss])
    return m


SHARED_ENTRIES = 1 << 20  # at most this many model entries kept per FitRows (8 MiB of float64; 32 MiB was no faster)


class FitRows:
    """The rows a fit scores plans on (values ``y``, positions ``p``), with the model columns shared by the plans:
    sin or cos of sigma (p + o) b^(-e) over a plan's sine (or cosine) exponents computed once per (function,
    sigma, b, o, exponents) however many plans have them (plans with d = w and w + 1 often do, at the snapped
    parameters). :meth:`model` gives what :func:`_model_used` gives, float for float: the same function of the
    same products.

    >>> p = np.arange(16.0)
    >>> rows, c = FitRows(np.zeros((16, 8)), p), _family_candidates(8)[0]
    >>> bool(np.array_equal(rows.model(c, 1.0, 1e4, 0.0), _model_used(c, p, 1.0, 1e4, 0.0)))
    True
    """

    def __init__(self, y: np.ndarray, p: np.ndarray) -> None:
        self.y, self.p = y, p
        self.memo: dict[Any, Any] = {}  # the fit's own per-rows results (the offset read off a column)
        self._columns: dict[tuple[Any, ...], np.ndarray] = {}
        self._entries = 0

    def model(self, c: _Cand, sigma: float, b: float, o: float, shared: bool = True) -> np.ndarray:
        """``_model_used(c, self.p, sigma, b, o)``; ``shared``: its columns kept for the next plan (a snapped trial;
        the raw fit's parameters are the plan's own)."""
        if not shared or self._entries >= SHARED_ENTRIES:
            return _model_used(c, self.p, sigma, b, o)
        used, e, sins, coss = c.used_parts()
        m = np.zeros((len(self.p), len(e)), order="F")  # the layout of _model_used's
        for fn, cols in ((np.sin, sins), (np.cos, coss)):
            ek = e[cols]
            if ek.size:
                key = (fn.__name__, sigma, b, o, ek.tobytes())
                if key not in self._columns:
                    self._columns[key] = fn(sigma * (self.p[:, None] + o) * (b ** (-ek))[None, :])
                    self._entries += self._columns[key].size
                m[:, cols] = self._columns[key]
        return m


def _prefer_against(c: _Cand, against: Profile) -> _Cand:
    """When ``against``'s own column plan is the same as the winner's (small d, shift 0 vs d/2 at even
    d, odd rules at even d), the table cannot tell them apart: name ``against``'s parameters."""
    if c.extra:
        return c
    try:
        kinds, e = plan_arrays(against, c.d)
    except ValueError:
        return c
    if len(kinds) == len(c.kinds) == c.d and np.array_equal(kinds, c.kinds) and np.allclose(e, c.e, rtol=0, atol=1e-15):
        return _Cand(c.label, c.kinds, c.e, c.d, against.layout, against.shift,
                     against.odd if c.d % 2 else None, c.extra)
    return c


def _describe_key(c: _Cand, params: dict[str, float]) -> tuple[Any, ...]:
    return (c.layout, c.shift, c.odd, c.d, tuple(sorted(c.extra)), round(params["base"], 6))


def _denominator(shift: Fraction | None, d: int) -> Fraction:
    return Fraction(d, 2) if shift is None else Fraction(d // 2) - shift
