"""The 1-D check's reference and positions (SPEC.md REQ-CHECK-FASTREF, REQ-CHECK-DECIDE, REQ-TABLE-FAST): PE for a chunk
of positions from the fast reference (:mod:`sinpe.reference.oracles.fast`, within ``fast.error_bound``), the Arb
enclosure of one entry (the oracle), the correctly rounded tables' plan for the exact and faithful tiers, the
progression kernel for integer positions p_0 + i h, and the positions as float64 or exact Fractions.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from sinpe.reference.checking.result import BandFigures
from sinpe.reference.oracles import fast as fastref
from sinpe.reference.tables import progression
from sinpe.reference.tables.rounded import Plan as _TablePlan
from sinpe.spec.definition import ColumnData, column_data
from sinpe.spec.profiles import Profile

from ...inputs import LoadError


def positions_array(positions: Sequence[Any] | np.ndarray | None, rows: int) -> np.ndarray:
    """Positions as float64 when every one is a binary64 value, else an object array of Fractions.

    >>> positions_array(None, 3).tolist()
    [0.0, 1.0, 2.0]
    >>> positions_array([Fraction(1, 3)], 1).dtype
    dtype('O')
    """
    if positions is None:
        return np.arange(rows, dtype=np.float64)
    if isinstance(positions, np.ndarray) and positions.dtype.kind in "iuf":
        p = positions.astype(np.float64)
        if positions.dtype.kind in "iu" and np.any(p.astype(positions.dtype) != positions):
            raise LoadError("integer positions beyond 2^53 cannot be represented exactly")
        if not np.all(np.isfinite(p)):
            raise LoadError("positions must be finite")
        return p
    fr = [Fraction(x) for x in positions]
    if all(Fraction(float(x)) == x for x in fr):
        return np.array([float(x) for x in fr], dtype=np.float64)
    return np.array(fr, dtype=object)


@dataclass(frozen=True)
class _Segment:
    kind: int          # 0 sin, 1 cos
    dst: Any           # slice or index array into the table's columns
    src: Any           # slice or index array into the frequencies


def _segments(cd: ColumnData) -> tuple[list[_Segment], np.ndarray]:
    """Sin and cos columns as (dst, src) copies from the column data (``cd.index``); zero columns apart."""
    ci, d = cd.index, cd.d
    segs = [_Segment(code, ci.dst[f], ci.src[f]) for code, f in ((0, "sin"), (1, "cos")) if _size(ci.dst[f], d)]
    return segs, np.array(ci.zero, dtype=np.intp)


def _size(sel: Any, d: int) -> int:
    return len(range(d)[sel]) if isinstance(sel, slice) else len(sel)


def reference_chunk(profile: Profile, d: int, positions: np.ndarray, want_theta: bool,
                    bufs: dict[str, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """(PE, theta) for a chunk of positions as (rows, d) float64 (theta NaN in zero columns)."""
    rows = len(positions)
    cd = column_data(profile, d)
    nf = cd.n_frequencies
    bufs = {} if bufs is None else bufs

    def buf(name: str, shape: tuple[int, int]) -> np.ndarray:
        b = bufs.get(name)
        if b is None or b.shape[0] < shape[0] or b.shape[1] != shape[1]:
            b = bufs[name] = np.empty(shape)
        return b[: shape[0]]

    S, C = buf("S", (rows, nf)), buf("C", (rows, nf))
    fastref.sincos(cd, positions, out=(S, C), theta=False, workspace=bufs)
    ref = buf("ref", (rows, d))
    segs, zeros = _segments(cd)
    for sg in segs:
        ref[:, sg.dst] = (S if sg.kind == 0 else C)[:, sg.src]
    if zeros.size:
        ref[:, zeros] = 0.0
    if cd.amplitude != 1:
        ref *= float(cd.amplitude)
    theta = None
    if want_theta:
        P_hi, _ = fastref.positions_dd(positions, cd.offset)
        w = fastref.frequency_words(cd)[4]
        theta = buf("theta", (rows, d))
        for sg in segs:
            np.multiply(P_hi[:, None], w[sg.src][None, :], out=theta[:, sg.dst]) if isinstance(sg.dst, slice) \
                else theta.__setitem__((slice(None), sg.dst), P_hi[:, None] * w[sg.src][None, :])
        if zeros.size:
            theta[:, zeros] = np.nan
    return ref, theta


def oracle_entry(profile: Profile, d: int, position: Any, j: int, prec: int = 128) -> tuple[Any, Any]:
    """The Arb enclosure of PE(position)[j] as exact mpmath endpoints (lo, hi). (python-flint and mpmath are
    imported here, when an entry needs the oracle: ``sinpe check t.npy`` of a table the fast path decides
    imports neither, issue 28.1.)"""
    from sinpe.reference.oracles.arb import _endpoints, enclose
    return _endpoints(enclose(profile, d, Fraction(position), j, prec))


def _bands(pos: np.ndarray) -> list[BandFigures]:
    mx = max((abs(float(x)) for x in (pos.min(), pos.max())), default=0.0) if pos.dtype != object \
        else max(abs(float(x)) for x in pos)
    edges = [0.0, 10.0]
    while edges[-1] <= mx:
        edges.append(edges[-1] * 10)
    return [BandFigures(edges[i], edges[i + 1]) for i in range(len(edges) - 1)]


def _band_index(pos: np.ndarray) -> np.ndarray:
    a = np.abs(pos.astype(np.float64))
    return np.where(a < 10, 0, np.floor(np.log10(np.maximum(a, 1.0))).astype(np.int64)).astype(np.int64)


def _max_abs(pos: np.ndarray) -> float:
    return max((abs(float(x)) for x in pos), default=0.0) if pos.dtype == object else float(np.max(np.abs(pos)))


def _pos_value(p: Any) -> Fraction:
    return p if isinstance(p, Fraction) else Fraction(float(p))


def _certified_plan(profile: Profile, d: int, fmt: Any, tier: str, pmax: float) -> Any:
    """The tables' plan when the exact/faithful verdicts come from the certified fast path (None: phase
    tier, or positions the fast path does not take, |p + offset| >= 2^53: the fast reference decides)."""
    if tier == "phase" or not pmax < 2.0 ** 53 * (1 - 2.0 ** -20):
        return None
    return _TablePlan(profile, d, fmt)


def _progression_reference(profile: Profile, d: int, fmt: Any, tier: str, pos: np.ndarray, step: int) -> Any:
    """The progression kernel (:mod:`sinpe.reference.tables.progression`) as the phase tier's reference when the
    positions are integers p_0 + i h and the table has at most 24 bits (its estimates are within E' ~ 2^-50
    |alpha| of PE, absolute: far below those tables' tolerances), with jobs of one chunk; else None."""
    if tier != "phase" or fmt.precision > 24 or pos.dtype == object:
        return None
    start = progression.detect(pos)
    if start is None:
        return None
    pl = _TablePlan(profile, d, fmt)
    if not progression.applies(pl, len(pos)):
        return None
    return progression.Progression(pl, start[0], start[1], len(pos), step)
