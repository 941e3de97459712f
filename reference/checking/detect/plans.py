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
