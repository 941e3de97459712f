"""Read each channel of a table from the data itself (SPEC.md REQ-DETECT-READ).

For rows at evenly spaced integer positions p (:func:`reading_rows`; spaced s > 1, fitted per row at w s and turned
back, :func:`_fit_spaced`), column j is modelled as ``R_j sin(w_j p + phi_j)``:

0. a column that is not zero and whose three-term recurrence misses by more than SINUSOID_RESIDUAL of its RMS
   on the first 128 rows (at the median row) is no sinusoid: the reading ends there (ValueError), before any
   refinement;
1. ``w_j`` starts from the three-term recurrence ``x(p+1) + x(p-1) = 2 cos(w) x(p)`` (the shift theorem
   for one column, :func:`sinpe.reference.checking.detect.fit.column_frequencies`), on the first rows;
2. it is refined by least squares over more and more rows (64, 256, 1024, 4096): for fixed w the model is
   linear in (R cos phi, R sin phi), and a Gauss-Newton step on w follows (all columns at once, NumPy); a column
   whose start is above pi/2 is fitted folded, (-1)^p x at pi - w (:func:`_fit`);
3. ``phi_j`` names the function: 0 sin, pi/2 cos, pi -sin, -pi/2 -cos (else ``phase``); an all-zero column is
   ``zero``.

:func:`sinpe.reference.checking.detect.rotary.explicit_rotary` turns a reading whose columns are all cos (or all sin) of frequencies in a rotary
layout into DEF-ROPE-FREQ-EXPLICIT: the recovered frequencies (each snapped to the nearest float32 where
that fits no worse, as a float32 ``inv_freq`` is) and amplitude, checked before it is named, so that
``sinpe check --cos FILE --freqs ...`` accepts it. Work is bounded: at most MAX_ROWS rows and MAX_COLUMNS
columns are read.

>>> import numpy as np
>>> p = np.arange(200.0)[:, None]
>>> r = read_channels(np.hstack([np.sin(0.3 * p), 2 * np.cos(0.0123 * p), np.zeros_like(p)]))
>>> r.kinds, np.round(r.omega[:2], 12).tolist(), np.round(r.amplitude[:2], 9).tolist()
(['sin', 'cos', 'zero'], [0.3, 0.0123], [1.0, 2.0])
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from sinpe.reference.checking.detect.fit import SINUSOID_RESIDUAL, column_frequencies, recurrence_misses
from sinpe.reference.numerics.rounding import narrowest_format
from sinpe.spec.formats import get_format
from sinpe.spec.tolerance import ulp_array

MIN_ROWS = 8
MAX_ROWS = 4096
MAX_COLUMNS = 1 << 14
STAGES = (64, 256, 1024, 4096)
PIN_COLUMNS = 256  # columns pinned at once (pin_frequencies)
PHASE_TOL = 1e-3  # |phi - {0, pi/2, pi, -pi/2}| below this names the function
KIND_PHASES = {"sin": 0.0, "cos": math.pi / 2, "-sin": math.pi, "-cos": -math.pi / 2}


@dataclass
class Reading:
    """Per column: ``kinds`` (sin, cos, -sin, -cos, phase, zero), ``omega`` (rad per position), ``amplitude``
    R, ``phase`` phi (x = R sin(omega p + phi), p the row's position), ``residual`` max |x - model| / R."""

    kinds: list[str]
    omega: np.ndarray
    amplitude: np.ndarray
    phase: np.ndarray
    residual: np.ndarray
    run: np.ndarray        # the row indices read (:func:`reading_rows`)
    positions: np.ndarray  # their positions, p0, p0 + step, ...

    @property
    def rows(self) -> int:
        return len(self.run)

    @property
    def step(self) -> int:
        """The positions' spacing (1: consecutive)."""
        return int(self.positions[1] - self.positions[0]) if self.rows > 1 else 1

    @property
    def span(self) -> int:
        """The positions the rows read cover: ``omega * span`` is the angle a column turns through over them."""
        return self.rows * self.step

    def to_json(self, limit: int = 64) -> dict[str, Any]:
        n = len(self.kinds)
        return {"rows_read": self.rows, **({"position_step": self.step} if self.step != 1 else {}), "columns": n,
                "kinds": self.kinds[:limit],
                "omega": [float(w) for w in self.omega[:limit]],
                "amplitude": [float(a) for a in self.amplitude[:limit]],
                "phase": [float(f) for f in self.phase[:limit]],
                "max_residual": float(np.max(self.residual)) if n else 0.0,
                **({"truncated_to": limit} if n > limit else {})}


def reading_rows(positions: Any, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """(row indices, their positions) of the longest run of rows at evenly spaced integer positions, p0, p0 + s, ...
    (s a positive integer; of runs as long, the smallest s), at most MAX_ROWS of them; all rows at 0, 1, ... when
    ``positions`` is None. A column of frequency w is read at w s per row: up to w s = pi (a faster one aliases).

    >>> [x.tolist() for x in reading_rows([5, 7, 9, 11, 12, 13], 6)]
    [[0, 1, 2, 3], [5.0, 7.0, 9.0, 11.0]]
    """
    if positions is None:
        run = np.arange(min(rows, MAX_ROWS))
        return run, run.astype(np.float64)
    p = np.asarray([float(x) for x in positions], dtype=np.float64)
    if len(p) != rows:
        raise ValueError(f"{rows} rows but {len(p)} positions")
    d = np.diff(p)
    ok = (d >= 1) & (d == np.floor(d)) & (p[1:] == np.floor(p[1:])) & (p[:-1] == np.floor(p[:-1]))
    best, start = (0, min(rows, 1), math.inf), 0
    for i in range(1, rows + 1):  # runs of one spacing: rows start..i-1 (i - 1 - start steps)
        if i == rows or i - 1 == start or not (ok[i - 1] and d[i - 1] == d[start]):
            n, step = i - start, d[start] if i - 1 > start else math.inf
            if n > best[1] - best[0] or n == best[1] - best[0] and step < best[2]:
                best = (start, i, step)
            start = i - 1 if i < rows and ok[i - 1] else i
    run = np.arange(best[0], best[1])[:MAX_ROWS]
    return run, p[run]


def read_channels(table: Any, positions: Any = None) -> Reading:
    """Recover every column's function, frequency, amplitude and phase (see the module docstring).
    ValueError when the table is too small or too large to read, or not finite."""
    y = np.asarray(table)
    if y.ndim != 2:
        raise ValueError(f"reading channels needs a 2-D table; got shape {y.shape}")
    if y.shape[1] > MAX_COLUMNS:
        raise ValueError(f"{y.shape[1]} columns: channels are read for at most {MAX_COLUMNS}")
    run, p = reading_rows(positions, y.shape[0])
    if len(run) < MIN_ROWS:
        raise ValueError(f"reading channels needs >= {MIN_ROWS} rows at evenly spaced integer positions; "
                         f"got {len(run)}")
    y = np.asarray(y[run], dtype=np.float64)
    if not np.all(np.isfinite(y)):
        raise ValueError("the table has NaN/Inf entries: channels are not read")
    live = np.any(y != 0, axis=0)  # a column of zeros is read as zero (_classify): nothing to refine
    bad = _no_sinusoid(y[:128], live)
    if bad is not None:  # no model of this reading fits it: the reading ends before its refinement (seconds)
        raise ValueError(f"column {bad[0]} is no sinusoid of the row index: its three-term recurrence misses by "
                         f"{bad[1]:.3g} of its RMS (over {SINUSOID_RESIDUAL:g})")
    step = int(p[1] - p[0])
    w, a, b = (np.zeros(y.shape[1]) for _ in range(3))
    e = _exponents(np.max(np.abs(y[:, live]), axis=0))  # each column fitted at a largest |value| in [1/2, 1)
    w[live], a[live], b[live] = _fit(np.ldexp(y[:, live], -e), p) if step == 1 else _fit_spaced(y[:, live], p, e)
    a[live], b[live] = np.ldexp(a[live], e), np.ldexp(b[live], e)
    return _classify(y, run, p, w, a, b)


def _fit_spaced(y: np.ndarray, p: np.ndarray, e: np.ndarray) -> tuple[np.ndarray, ...]:
    """:func:`_fit` of rows at p0 + s i (s > 1), scaled by 2^-e: fitted per row, at i = 0, 1, ..., as
    A sin(v i) + B cos(v i); then w = v / s and (a, b) = (A, B) turned back by w p0, since
    a sin(w p) + b cos(w p) = A sin(v i) + B cos(v i) with A = a cos(w p0) - b sin(w p0), B = a sin(w p0) + b cos(w p0).

    >>> p = 6.0 + 3 * np.arange(512.0)
    >>> w, a, b = _fit_spaced(np.sin(0.7 * p + 0.3)[:, None], p, np.zeros(1, dtype=int))
    >>> round(float(w[0]), 9), round(float(np.arctan2(b[0], a[0])), 9)
    (0.7, 0.3)
    """
    v, A, B = _fit(np.ldexp(y, -e), np.arange(len(p), dtype=np.float64))
    step = p[1] - p[0]
    w, a, b = _turned_back(v / step, A, B, p[0])
    for j in np.flatnonzero(_phase_miss(a, b) > PHASE_TOL):  # (an alias names sin or cos: take it, below)
        w[j], a[j], b[j] = _unaliased(v[j], A[j], B[j], p[0], int(step), (w[j], a[j], b[j]))
    return w, a, b


def _turned_back(w: Any, A: Any, B: Any, p0: float) -> tuple[Any, Any, Any]:
    """(w, a, b) of a per-row fit A sin(w s i) + B cos(w s i) at positions p0 + s i: a sin(w p) + b cos(w p)."""
    c, s = np.cos(w * p0), np.sin(w * p0)
    return w, A * c + B * s, B * c - A * s


def _phase_miss(a: Any, b: Any) -> Any:
    """How far the phase of a sin(.) + b cos(.) is from naming sin or cos (0, pi/2), in radians: pi more where it is
    nearest -sin or -cos (pi, -pi/2), which an alias of a sin or cos column at spaced positions can read as.

    >>> [round(float(_phase_miss(a, b)), 3) for a, b in ((1, 0), (0, 1), (-1, 0), (1, 0.01))]
    [0.0, 0.0, 3.142, 0.01]
    """
    phi = np.arctan2(b, a)
    miss = np.abs(np.remainder(phi + math.pi / 4, math.pi / 2) - math.pi / 4)
    negative = np.abs(np.remainder(phi + math.pi / 4, 2 * math.pi) - math.pi / 4) > math.pi / 2 + math.pi / 4
    return miss + math.pi * negative


def _unaliased(v: float, A: float, B: float, p0: float, step: int, kept: tuple[float, float, float]) -> tuple:
    """The alias of a per-row frequency ``v`` (rows s positions apart: w s = v + 2 pi k or 2 pi k - v, w <= pi)
    whose phase, turned back by w p0, names sin or cos, where the first reading's does not (it names none, or -sin
    or -cos); else ``kept``. At p0 a multiple of s every alias has the same phase and the first reading stays (the
    rows cannot tell them apart).

    >>> p = 4 + 3 * np.arange(256.0)
    >>> w, a, b = _fit_spaced(np.cos(2.5 * p)[:, None], p, np.zeros(1, dtype=int))  # 2.5 x 3 > pi: aliased
    >>> round(float(w[0]), 9), round(float(np.arctan2(b[0], a[0])), 6)
    (2.5, 1.570796)

    Every other position (s = 2) has no such alias to find: at positions of one parity cos(w p) = +-cos((pi - w) p)
    and sin(w p) = -+sin((pi - w) p), so the first reading names a function already, and it fits those rows.
    """
    cands = [((v + 2 * math.pi * k) / step, A, B) for k in range(1, step)] \
        + [((2 * math.pi * k - v) / step, -A, B) for k in range(1, step + 1)]
    best = min((_turned_back(w, a, b, p0) for w, a, b in cands if w <= math.pi), default=kept,
               key=lambda c: float(_phase_miss(c[1], c[2])))
    return best if float(_phase_miss(best[1], best[2])) <= PHASE_TOL else kept


def _exponents(peak: Any) -> Any:
    """The binary exponents e with ``peak * 2^-e`` in [1/2, 1) (0 where ``peak`` is 0): scaling by them is exact, so
    a fit of squares and products (:func:`_fit`, :func:`_refine_fixed`) gives the same bits for columns of ordinary
    size and neither overflows nor underflows at amplitudes of 1e+-200 (``(1e200)**2`` is inf, ``(1e-200)**2`` 0).

    >>> _exponents(np.array([1.0, 0.75, 1e200, 0.0])).tolist()
    [1, 0, 665, 0]
    """
    return np.frexp(np.where(np.asarray(peak) > 0, peak, 1.0))[1] * (np.asarray(peak) > 0)


def _no_sinusoid(y: np.ndarray, live: np.ndarray) -> tuple[int, float] | None:
    """The first live column whose three-term recurrence misses by more than SINUSOID_RESIDUAL of its RMS (at the
    median row: a float16 sinusoid quantised to a few subnormal steps passes), and by how much; None: none does."""
    screened = np.flatnonzero(live)
    miss = recurrence_misses(y[:, screened])
    bad = np.flatnonzero(miss > SINUSOID_RESIDUAL)
    return (int(screened[bad[0]]), float(miss[bad[0]])) if bad.size else None


def _fit(y: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, ...]:
    """(w, a, b) per column of ``y`` at positions ``p``: the recurrence's estimate, refined on growing prefixes.

    A column the recurrence puts above pi/2 is fitted folded: at integer p, ``(-1)^p sin(w p + phi)`` is
    ``sin((pi - w) p - phi)`` up to sign, so ``z = (-1)^p y`` has frequency pi - w and its fit (a_z, b_z) unfolds to
    (-a_z, b_z) at w. Fitted unfolded, a column near pi drifted to w = pi, where ``sin(pi p)`` vanishes on every row
    and any amplitude fits: bfloat16 sin(3.14 p) was read as -sin with R 7.5e10.

    >>> p = np.arange(2048.0)
    >>> y = np.sin(3.14 * p).astype(np.float16).astype(np.float64)[:, None]
    >>> w, a, b = _fit(y, p)
    >>> round(float(w[0]), 4), round(float(a[0]), 2), abs(float(b[0])) < 1e-3
    (3.14, 1.0, True)
    """
    with np.errstate(all="ignore"):
        w, _ = column_frequencies(y[: min(len(p), 128)])
        w = np.nan_to_num(w, nan=0.0)
        hi = w > math.pi / 2
        if not hi.any():
            return _fit_from(y, p, _lagged_start(y, w))
        out = [np.empty_like(w) for _ in range(3)]
        lo = ~hi
        for k, v in zip(out, _fit_from(y[:, lo], p, _lagged_start(y[:, lo], w[lo])), strict=True):
            k[lo] = v
        z = _alternating(p) * y[:, hi]
        wz, az, bz = _fit_from(z, p, _lagged_start(z, math.pi - w[hi]))
        out[0][hi], out[1][hi], out[2][hi] = math.pi - wz, -az, bz
        return tuple(out)


def _alternating(p: np.ndarray) -> np.ndarray:
    """(-1)^p as a column, p integer positions: the sign that folds a column near pi to one near 0."""
    return np.where(np.mod(p, 2) == 0, 1.0, -1.0)[:, None]


def _lagged_start(z: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Starting frequencies for the columns ``z`` (a folded column's frequency is pi - w, often slow): where the start
    ``w`` turns less than a radian over the recurrence's 128 rows (quantised rows make its second differences noise),
    the recurrence at lag k = rows // 4, ``z(p+k) + z(p-k) = 2 cos(k w) z(p)`` over every row, gives k w up to its
    sign modulo 2 pi: of ``w`` itself and the two readings theta / k and (2 pi - theta) / k (a column that turns past
    pi over k rows), the one whose linear fit over every row leaves the least squared residual is kept.

    >>> z = np.sin(0.0016 * np.arange(2048.0))[:, None].astype(np.float16).astype(np.float64)
    >>> float(_lagged_start(z, np.zeros(1))[0]) > 1e-3
    True
    >>> z = np.sin(0.007572 * np.arange(2048.0))[:, None]  # k w = 3.9: theta / k would be 0.0047
    >>> round(float(_lagged_start(z, np.array([0.007572]))[0]), 6)
    0.007572
    """
    k = len(z) // 4
    slow = w * min(len(z), 128) < 1
    if k < 2 or not slow.any():
        return w
    zs = z[:, slow]
    mid, nb = zs[k:-k], zs[2 * k:] + zs[:-2 * k]
    den = 2 * (mid * mid).sum(0)
    c = np.where(den > 0, (mid * nb).sum(0) / np.where(den > 0, den, 1), np.nan)
    theta = np.nan_to_num(np.arccos(np.clip(c, -1.0, 1.0)), nan=0.0)
    cands = np.stack([w[slow], theta / k, (2 * math.pi - theta) / k])
    P = np.arange(len(z), dtype=np.float64)[:, None]
    miss = np.empty_like(cands)
    for i, wc in enumerate(cands):
        S, C = np.sin(P * wc), np.cos(P * wc)
        a, b = _linear(zs, S, C)
        miss[i] = ((zs - a * S - b * C) ** 2).sum(0)
    out = w.copy()
    out[slow] = cands[np.argmin(np.nan_to_num(miss, nan=np.inf), axis=0), np.arange(cands.shape[1])]
    return out


def _fit_from(y: np.ndarray, p: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, ...]:
    """(w, a, b) per column, from the frequencies ``w``: refined on growing prefixes, then on every row."""
    with np.errstate(all="ignore"):
        for n in STAGES:
            w, a, b = _refine(y[:n], p[:n], w)
            if n >= len(p):
                break
        return _refine(y, p, w)


def _linear(y: np.ndarray, S: np.ndarray, C: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per column, the least-squares (a, b) of y = a S + b C."""
    ss, cc, sc = (S * S).sum(0), (C * C).sum(0), (S * C).sum(0)
    ys, yc = (y * S).sum(0), (y * C).sum(0)
    det = ss * cc - sc * sc
    ok = np.abs(det) > 1e-300
    a = np.where(ok, (ys * cc - yc * sc) / np.where(ok, det, 1), np.where(ss > 0, ys / np.maximum(ss, 1e-300), 0))
    b = np.where(ok, (yc * ss - ys * sc) / np.where(ok, det, 1), np.where(cc > 0, yc / np.maximum(cc, 1e-300), 0))
    return a, b


def _refine(y: np.ndarray, p: np.ndarray, w: np.ndarray, steps: int = 6) -> tuple[np.ndarray, ...]:
    """Alternate the linear (a, b) fit and a Gauss-Newton step on w (all columns at once)."""
    P = p[:, None]
    for _ in range(steps):
        S, C = np.sin(P * w), np.cos(P * w)
        a, b = _linear(y, S, C)
        r = y - a * S - b * C
        J = P * (a * C - b * S)
        den = (J * J).sum(0)
        dw = np.where(den > 0, (J * r).sum(0) / np.where(den > 0, den, 1), 0.0)
        w = np.clip(w + np.clip(dw, -0.1, 0.1), 0.0, math.pi)
    S, C = np.sin(P * w), np.cos(P * w)
    a, b = _linear(y, S, C)
    return w, a, b


def _classify(y: np.ndarray, run: np.ndarray, p: np.ndarray, w: np.ndarray, a: np.ndarray, b: np.ndarray) -> Reading:
    R = np.hypot(a, b)
    phi = np.arctan2(b, a)
    model = a * np.sin(p[:, None] * w) + b * np.cos(p[:, None] * w)
    zero = np.all(y == 0, axis=0)
    res = np.where(zero, 0.0, np.max(np.abs(y - model), axis=0) / np.where(R > 0, R, 1.0))
    kinds = []
    for j in range(y.shape[1]):
        if zero[j]:
            kinds.append("zero")
            continue
        near = [k for k, f in KIND_PHASES.items() if abs(math.remainder(phi[j] - f, 2 * math.pi)) <= PHASE_TOL]
        kinds.append(near[0] if near else "phase")
    free = np.flatnonzero(np.array(kinds) == "phase")
    if free.size:
        spacing = ulp_array(np.max(np.abs(y[:, free]), axis=0), narrowest_format(y) or "float64")
        _name_fixed_phases(y[:, free], p, w[free], np.minimum(2.0 * res[free] * R[free], spacing), free, kinds,
                           (w, R, phi, res))
    return Reading(kinds, np.where(zero, 0.0, w), np.where(zero, 0.0, R), np.where(zero, 0.0, phi), res, run, p)


def _name_fixed_phases(y: np.ndarray, p: np.ndarray, w: np.ndarray, most: np.ndarray, cols: np.ndarray,
                       kinds: list[str], reading: tuple[np.ndarray, ...]) -> None:
    """Columns ``cols`` whose free phase names no function, each refitted as R sin(w p) and as R cos(w p) (R of either
    sign, :func:`_fit_fixed_phase`); the better of the two names the column where its max miss is at most ``most``:
    twice the free fit's and one spacing of the table's format at the column's largest value (a model of one
    parameter fewer explains the column as well as the rows resolve it: a slow column's phase, frequency and
    amplitude trade off, bfloat16 cos(1e-4 p) was read as phase 1.83 at w = 3.4e-5; from position 100 a turning
    column's phase drifts too, bfloat16 cos(0.0259 p) read as phase 1.5537; float16 sin(1e-3 p + pi/2 + 0.01), 7
    spacings from any cos, stays phase).
    ``kinds`` and the reading's (w, R, phi, residual) are updated in place."""
    w_out, r_out, phi_out, res_out = reading
    fits = {fam: _fit_fixed_phase(y, p, w, fam) for fam in ("sin", "cos")}
    best = np.where(fits["cos"][2] < fits["sin"][2], 1, 0)
    for i, j in enumerate(cols):
        fam = ("sin", "cos")[best[i]]
        wf, rf, miss = (v[i] for v in fits[fam])
        if not (np.isfinite(miss) and miss <= most[i] and rf != 0):
            continue
        kinds[j] = fam if rf > 0 else {"sin": "-sin", "cos": "-cos"}[fam]
        w_out[j], r_out[j], phi_out[j], res_out[j] = wf, abs(rf), KIND_PHASES[kinds[j]], miss / abs(rf)


def _fit_fixed_phase(y: np.ndarray, p: np.ndarray, w: np.ndarray, family: str,
                     steps: int = 8) -> tuple[np.ndarray, ...]:
    """(w, R, max |y - R g(w p)|) per column, g = sin or cos (``family``): Gauss-Newton on w from ``w``, R by least
    squares at each w (so the step follows R's change too); a column above pi/2 fitted folded, (-1)^p y at pi - w
    (sin's R changes sign, cos's not: at integer p, sin(w p) = -(-1)^p sin((pi - w) p) and cos(w p) =
    (-1)^p cos((pi - w) p)). Each column is scaled by a power of two first (:func:`_exponents`).

    >>> p = np.arange(2048.0)
    >>> y = np.cos(1e-4 * p).astype(np.float16).astype(np.float64)[:, None]
    >>> w, r, miss = _fit_fixed_phase(y, p, np.array([7.6e-5]), "cos")
    >>> abs(float(w[0]) / 1e-4 - 1) < 0.05, round(float(r[0]), 2), float(miss[0]) < 1e-3
    (True, 1.0, True)
    """
    e = _exponents(np.max(np.abs(y), axis=0))
    z = np.ldexp(y, -e)
    hi = (w > math.pi / 2) & bool(np.all(np.diff(p) == 1))  # (folding pairs consecutive rows)
    z = np.where(hi, _alternating(p) * z, z)
    v = np.where(hi, math.pi - w, w)
    g, dg = (np.sin, np.cos) if family == "sin" else (np.cos, lambda t: -np.sin(t))
    P = p[:, None]
    with np.errstate(all="ignore"):
        for _ in range(steps):  # the residual's derivative with R's own (variable projection: R w is a valley)
            m, dm = g(P * v), P * dg(P * v)
            mm, mz = (m * m).sum(0), (m * z).sum(0)
            r = mz / mm
            J = dm * r + m * (((dm * z).sum(0) * mm - 2 * mz * (m * dm).sum(0)) / (mm * mm))
            den = (J * J).sum(0)
            dv = np.where(den > 0, (J * (z - r * m)).sum(0) / np.where(den > 0, den, 1), 0.0)
            v = np.clip(v + np.nan_to_num(np.clip(dv, -v / 2, np.maximum(v, 1e-3))), 1e-300, math.pi / 2)
        m = g(P * v)
        r = (z * m).sum(0) / np.maximum((m * m).sum(0), 1e-300)
        miss = np.max(np.abs(z - r * m), axis=0)
    sign = np.where(hi & (family == "sin"), -1.0, 1.0)
    return np.where(hi, math.pi - v, v), np.ldexp(sign * r, e), np.ldexp(miss, e)


def _per_frequency(values: np.ndarray, layout: str) -> np.ndarray:
    n = len(values)
    if layout == "halves":
        return (values[: n // 2] + values[n // 2:]) / 2
    if layout == "pairs":
        return (values[0::2] + values[1::2]) / 2
    return values


def _snap_f32(w: np.ndarray, y: np.ndarray, p: np.ndarray, amp: float, fn: Any, idx: np.ndarray) -> np.ndarray:
    """Each frequency replaced by its nearest float32 where the model fits about as well (within 1.5x of the float64
    estimate's max error: a float32 inv_freq; a float64 one, moved by up to 3e-8 relative, fits far worse)."""
    w32 = w.astype(np.float32).astype(np.float64)
    P = p[:, None]
    e64 = np.max(np.abs(y[:, idx] - amp * fn(P * w)), axis=0)
    e32 = np.max(np.abs(y[:, idx] - amp * fn(P * w32)), axis=0)
    return np.where(e32 <= 1.5 * e64 + 1e-300, w32, w)


def channel_frequencies(rd: Reading, y: np.ndarray, p: np.ndarray, amp: float, turns: np.ndarray,
                        fmt: str) -> np.ndarray | None:
    """The frequency of each column of the reading ``rd`` of ``y`` (rows at positions ``p``, stored in ``fmt``) with
    the amplitude ``amp`` and each column's function known: Gauss-Newton on w alone (a column that turns less than
    once starts from :func:`_slow`), snapped to float32 where that fits no worse, then pinned by their values'
    rounding intervals (:func:`pin_frequencies`), columns read at about one frequency given one
    (:func:`share_frequencies`). None when a frequency is not finite."""
    w = rd.omega.copy()
    with np.errstate(all="ignore"):  # (values near binary64's range overflow here: no plan, and no warning)
        for which, fn in (("sin", np.sin), ("cos", np.cos)):
            idx = np.array([j for j, k in enumerate(rd.kinds) if k == which], dtype=np.intp)
            if idx.size:
                yk = y[:, idx]
                wk = _refine_fixed(yk, p, np.where(turns[idx], w[idx], _slow(yk, p, amp, which, w[idx])), amp, which)
                w[idx] = _snap_f32(wk, yk, p, amp, fn, np.arange(idx.size))
    if not np.all(np.isfinite(w)):
        return None
    live = np.array([k in ("sin", "cos") for k in rd.kinds])
    w = np.where(live, np.maximum(w, 1e-12), w)  # (a flat column, fitted to 0: its intervals place it)
    w, lo, hi = pin_frequencies(w, y, p, amp, rd.kinds, fmt)
    return share_frequencies(*_join_flat(w, lo, hi))


def _join_flat(w: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pinned frequencies ``w`` and intervals [lo, hi] with each interval that reaches below 0 (a slow cos column
    that never leaves its value at 0: bounded above only) cut at 0 and given the largest frequency of a bounded
    column inside it: a band's sin column pins what its flat cos does not (bfloat16 cos(5.08e-5 p) is 1 on each of
    1024 rows). A flat column with no such frequency keeps its own, 0 included: a constant column gives no plan.

    >>> w, lo, hi = _join_flat(np.array([5.1e-5, 0.0, 0.1]), np.array([5.0e-5, -6.1e-5, 0.09]),
    ...                        np.array([5.2e-5, 6.1e-5, 0.11]))
    >>> w.tolist(), lo.tolist()
    ([5.1e-05, 5.1e-05, 0.1], [5e-05, 0.0, 0.09])
    """
    flat = lo < 0  # (NaN: not pinned, not flat)
    bounded = np.flatnonzero(lo > 0)
    out = w.copy()
    for j in np.flatnonzero(flat):
        inside = bounded[w[bounded] <= hi[j]]
        if inside.size:
            out[j] = w[inside].max()
    return out, np.where(flat, 0.0, lo), hi


def pin_frequencies(w: np.ndarray, y: np.ndarray, p: np.ndarray, amp: float, kinds: list[str],
                    fmt: str, slack: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(w, lo, hi): the frequencies ``w`` of the sin/cos columns of ``y`` (``kinds``, amplitude ``amp``, stored in
    ``fmt``), each read again from the rounding of its values, and the interval [lo, hi] each was read from (NaN
    where none). A stored value y_r bounds amp f(w p_r) to y_r's rounding interval (half the spacing of ``fmt``
    each side), so the angle w p_r to the piece of f^-1 of that interval nearest w p_r (:func:`_angle_interval`),
    and w to the intersection of those intervals over the rows; its midpoint is kept (the float32 nearest it where
    that is inside). Where the intervals do not meet (a table not correctly rounded), they are widened to one
    spacing each side; where they still do not, ``w`` is kept (and in a format wider than binary32, where
    binary64's own arcsin is too coarse). ``slack``: the amplitude's relative uncertainty (0: ``amp`` is exact), by
    which each interval is widened, |y_r| slack each side: of 2048 rows a few lie within an amplitude 2e-6 off of
    their interval's end, and one such row keeps the true w out. A least-squares fit places w by the values' mean
    misfit, where the check bounds each row: bfloat16 cos(7.44e-3 p) fitted 5e-6 off fails it at p = 211 by 15 %.

    >>> p = np.arange(2048.0)
    >>> y = np.cos(1.25e-3 * p).astype(np.float16).astype(np.float64)[:, None]
    >>> w, lo, hi = pin_frequencies(np.array([1.2e-3]), y, p, 1.0, ["cos"], "float16")
    >>> float(w[0]), bool(lo[0] <= 1.25e-3 <= hi[0])
    (0.0012499999720603228, True)
    """
    out, lo_w, hi_w = w.copy(), np.full_like(w, np.nan), np.full_like(w, np.nan)
    keep = p != 0
    if get_format(fmt).precision > 24 or np.count_nonzero(keep) < 2:  # (binary64: the fit stands)
        return out, lo_w, hi_w
    pa, sign = np.abs(p[keep])[:, None], np.where(p[keep] < 0, -1.0, 1.0)[:, None]  # sin(-x) = -sin(x), cos even
    rows = np.flatnonzero(keep)[:, None]
    cols = np.array([j for j, k in enumerate(kinds) if k in ("sin", "cos") and w[j] > 0], dtype=np.intp)
    for at in range(0, len(cols), PIN_COLUMNS):  # (columns in blocks: rows x PIN_COLUMNS temporaries)
        j = cols[at:at + PIN_COLUMNS]
        is_cos = np.array([kinds[i] == "cos" for i in j])
        v = y[rows, j] * np.where(is_cos, 1.0, sign)
        shift = np.where(is_cos, math.pi / 2, 0.0)  # cos(x) = sin(x + pi/2)
        todo = np.ones(len(j), dtype=bool)
        with np.errstate(all="ignore"):
            for width in (0.5, 1.0):
                lo, hi = _rounding_interval(v, fmt, width)
                lo, hi = lo - np.abs(v) * slack, hi + np.abs(v) * slack
                t_lo, t_hi = _angle_interval(lo / amp, hi / amp, w[j] * pa + shift)
                w_lo, w_hi = np.max((t_lo - shift) / pa, axis=0), np.min((t_hi - shift) / pa, axis=0)
                meet = todo & (w_lo <= w_hi)
                out[j[meet]] = _inside(w_lo, w_hi)[meet]
                lo_w[j[meet]], hi_w[j[meet]] = w_lo[meet], w_hi[meet]
                todo &= ~meet
    return out, lo_w, hi_w


def _inside(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The midpoint of each [lo, hi], or the float32 nearest it where that is inside (a float32 ``inv_freq``)."""
    mid = 0.5 * (lo + hi)
    narrow = mid.astype(np.float32).astype(np.float64)
    return np.where((lo <= narrow) & (narrow <= hi), narrow, mid)


def _angle_interval(lo: np.ndarray, hi: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per entry, the interval of angles x with sin(x) in [lo, hi] that holds ``theta`` (or the nearest such
    interval): within a turn [-pi/2, 3pi/2) that set is the rising piece [a, b] and the falling piece
    [pi - b, pi - a] (a, b = arcsin of lo, hi), one piece when it reaches 1 or -1 (at -1, one across the turn's ends).

    >>> lo, hi = _angle_interval(np.array([0.49, 0.99]), np.array([0.51, 1.0]), np.array([0.52, 1.6]))
    >>> [(round(float(a), 4), round(float(b), 4)) for a, b in zip(lo, hi)]  # (a rising piece; one around pi/2)
    [(0.5121, 0.5352), (1.4293, 1.7123)]
    >>> lo, hi = _angle_interval(np.full(2, -1.0), np.full(2, -0.99), 1.5 * math.pi + np.array([-0.01, 0.01]))
    >>> [(round(float(a), 4), round(float(b), 4)) for a, b in zip(lo, hi)]  # (either side of 3pi/2: one piece)
    [(4.5708, 4.8539), (4.5708, 4.8539)]
    """
    a, b = np.arcsin(np.clip(lo, -1, 1)), np.arcsin(np.clip(hi, -1, 1))
    turn = np.floor((theta + math.pi / 2) / (2 * math.pi)) * 2 * math.pi
    x = theta - turn  # in [-pi/2, 3pi/2)
    top, bottom = hi >= 1, lo <= -1
    # reaching -1, the piece runs across the turn's ends: [pi - b, 2 pi + b] = [-pi - b, b] + 2 pi (both named, so
    # that an estimate just across the end still finds the piece that holds the angle)
    rise_lo, rise_hi = np.where(bottom, -math.pi - b, a), np.where(top, math.pi - a, b)
    fall_lo, fall_hi = np.where(top, a, math.pi - b), np.where(bottom, 2 * math.pi + b, math.pi - a)
    # the piece nearer x (distance 0 inside it)
    d_rise = np.maximum(rise_lo - x, 0) + np.maximum(x - rise_hi, 0)
    d_fall = np.maximum(fall_lo - x, 0) + np.maximum(x - fall_hi, 0)
    rise = d_rise <= d_fall
    lo_x, hi_x = np.where(rise, rise_lo, fall_lo), np.where(rise, rise_hi, fall_hi)
    return lo_x + turn, hi_x + turn


def _rounding_interval(v: np.ndarray, fmt: str, width: float) -> tuple[np.ndarray, np.ndarray]:
    """[v - width s_below - t, v + width s_above + t] per value of ``fmt``: s the spacing of ``fmt`` on that side
    (below a power of two above the smallest normal the spacing halves; at and below it the subnormal spacing
    holds); t half a binary32 spacing in a format narrower than binary32, else 0: such a value may have been rounded
    twice, binary64 to binary32 to ``fmt``, as torch converts (``torch.float64 -> torch.float16`` differs from one
    rounding in 601 of 10^7 uniform values in [-1, 1]), and it then lies up to that much past half a spacing.

    >>> lo, hi = _rounding_interval(np.array([1.0, 2.0 ** -14, 2.0 ** -20]), "float16", 0.5)
    >>> float((1 - lo[0]) * 2 ** 12), ((np.array([2.0 ** -14, 2.0 ** -20]) - lo[1:]) * 2 ** 25).tolist()
    (1.000244140625, [1.0001220703125, 1.0000019073486328])
    """
    mag = np.abs(v)
    s = ulp_array(mag, fmt)
    normal = 2.0 ** get_format(fmt).emin
    toward_zero = np.where((mag > normal) & (np.frexp(mag)[0] == 0.5), s / 2, s)
    below = np.where(v > 0, toward_zero, s)
    above = np.where(v < 0, toward_zero, s)
    twice = 0.5 * ulp_array(mag, "float32") if get_format(fmt).precision < 24 else 0.0
    return v - width * below - twice, v + width * above + twice


def share_frequencies(w: np.ndarray, lo: np.ndarray, hi: np.ndarray, rel: float = 1e-3) -> np.ndarray:
    """The frequencies ``w``, read from the intervals [lo, hi] (:func:`pin_frequencies`; NaN: none), where some
    agree within ``rel``: a run of such frequencies whose intervals all meet gets one frequency, inside all of
    them (:func:`_inside`); two frequencies whose rows tell them apart have intervals that do not meet and stay two.
    A sin column pins a slow frequency where the cos column beside it, flat near 1, does not: float16 cos(w p)
    read alone was 4e-5 off and failed the check at p = 1965 by 0.2 %, where the plan with one w conforms.

    >>> share_frequencies(np.array([0.01, 0.0100004, 0.0100008]), np.array([0.0099, 0.0100001, 0.01000075]),
    ...                   np.array([0.0101, 0.01000045, 0.0100009])).tolist()
    [0.010000275447964668, 0.010000275447964668, 0.0100008]
    """
    out = w.copy()
    order = [int(j) for j in np.argsort(w, kind="stable") if np.isfinite(lo[j]) and w[j] > 0]
    i = 0
    while i < len(order):
        g, top, bottom = [order[i]], hi[order[i]], lo[order[i]]
        while i + len(g) < len(order):
            nxt = order[i + len(g)]
            if w[nxt] > w[g[0]] * (1 + rel) or max(bottom, lo[nxt]) > min(top, hi[nxt]):
                break
            g.append(nxt)
            bottom, top = max(bottom, lo[nxt]), min(top, hi[nxt])
        i += len(g)
        if len(g) > 1:
            out[g] = _inside(np.array([bottom]), np.array([top]))[0]
    return out


def _slow(y: np.ndarray, p: np.ndarray, amp: float, which: str, w_free: np.ndarray) -> np.ndarray:
    """A slow band's w, amplitude known, from the row r where its angle is about 1 rad by the free fit's w (the last
    row if slower): arccos(x_r/A)/p_r (cos) or arcsin(x_r/A)/p_r (sin); at least 1e-12 (a band too slow to read
    from these rows: the check decides). Where the free fit puts the angle at p_r past arccos's range (pi) or
    arcsin's (pi/2), rows far from position 0 (a 512-row cache from 4000: w = 1e-3 turns less than once over them
    but lies at 4 rad), the free fit's w stands: those rows are not flat, and the fit reads them to 1e-7.

    >>> p = 4000 + np.arange(512.0)
    >>> float(_slow(np.cos(1e-3 * p)[:, None], p, 1.0, "cos", np.array([1e-3 * (1 + 1e-7)]))[0]) == 1e-3 * (1 + 1e-7)
    True
    """
    span = np.abs(p - p[0]) + 1.0
    r = np.minimum(np.searchsorted(span, 1.0 / np.maximum(w_free, 1e-300)), len(p) - 1)
    x = np.clip(y[r, np.arange(y.shape[1])] / amp, -1.0, 1.0)
    ang = np.arccos(x) if which == "cos" else np.abs(np.arcsin(x))
    at = np.maximum(np.abs(p[r]), 1.0)
    return np.where(w_free * at > (math.pi if which == "cos" else math.pi / 2), w_free, np.maximum(ang / at, 1e-12))


def _refine_fixed(y: np.ndarray, p: np.ndarray, w: np.ndarray, amp: float, which: str, steps: int = 8) -> np.ndarray:
    """Gauss-Newton on w alone with the amplitude and the function known (a slow column's w and R are otherwise
    nearly one parameter, R w). Fitted with ``y`` and ``amp`` scaled by one power of two (:func:`_exponents`): the
    same bits at ordinary amplitudes, no inf or 0 from ``(amp p)^2`` at 1e+-200."""
    P = p[:, None]
    e = int(_exponents(np.array([amp]))[0])
    y, amp = np.ldexp(y, -e), math.ldexp(amp, -e)
    for _ in range(steps):
        th = P * w
        m, dm = (np.cos(th), -np.sin(th)) if which == "cos" else (np.sin(th), np.cos(th))
        J = amp * P * dm
        den = (J * J).sum(0)
        dw = np.where(den > 0, (J * (y - amp * m)).sum(0) / np.where(den > 0, den, 1), 0.0)
        w = np.clip(w + np.clip(dw, -0.01, 0.01), 1e-300, math.pi)
    return w


def _amplitudes(amp: float, fmt: str | None = None) -> list[Fraction]:
    """Amplitude readings to try, simplest first: 1 (where the estimate is within 1e-6 of it, or within the unit
    roundoff of ``fmt``, the format the table is stored in: a half-precision table's estimate is off by ~1e-5), the
    float32 nearest, the float64 estimate (those finite: an estimate past float32's range has no float32 reading, a
    non-finite one none at all).

    >>> [str(a) for a in _amplitudes(1e200)][0][:6], _amplitudes(float("nan"))
    ('999999', [])
    >>> _amplitudes(1 + 3e-6)[0] == 1, _amplitudes(1 + 3e-6, "float16")[0] == 1
    (False, True)
    """
    near = max(1e-6, get_format(fmt).unit_roundoff) if fmt is not None else 1e-6
    out = [Fraction(1)] if abs(amp - 1) <= near else []
    with np.errstate(over="ignore"):
        narrow = float(np.float32(amp))
    for v in (narrow, amp):
        f = Fraction(v) if math.isfinite(v) else None
        if f is not None and f > 0 and f not in out:
            out.append(f)
    return out


def nearest_schedule(w: np.ndarray, dim: int) -> dict[str, Any]:
    """The default schedule b^(-2k/dim) nearest the frequencies (a log-linear fit of b, w_0 free), and how far
    each frequency is from it: the ratios w_k / fit_k (a LongRoPE cache shows 1/f_k here)."""
    k = np.arange(len(w), dtype=np.float64)
    lw = np.log(w)
    if len(w) < 2:
        return {"base": None, "scale": float(w[0]) if len(w) else None, "max_rel_deviation": 0.0}
    slope, icept = np.polyfit(-2 * k / dim, lw, 1)
    fit = np.exp(icept - slope * 2 * k / dim)
    ratio = w / fit
    return {"base": float(math.exp(slope)), "scale": float(math.exp(icept)),
            "max_rel_deviation": float(np.max(np.abs(ratio - 1))), "ratios": [float(x) for x in ratio[:64]]}


def _function_of(t: np.ndarray, x: np.ndarray, tol: float) -> np.ndarray:
    """Per column of ``t``: is it a function of ``x`` (rows with equal x hold equal values, within ``tol``)?"""
    order = np.argsort(x, kind="stable")
    xs, ts = x[order], t[order]
    starts = np.concatenate([[0], np.nonzero(np.diff(xs))[0] + 1])
    spread = np.maximum.reduceat(ts, starts, axis=0) - np.minimum.reduceat(ts, starts, axis=0)
    return np.max(spread, axis=0) <= tol


def _frequency_columns(layout: str, n: int) -> list[list[int]]:
    """The columns holding each frequency k of a rotary layout (DEF-ROPE-LAYOUT)."""
    if layout == "halves":
        return [[k, k + n // 2] for k in range(n // 2)]
    if layout == "pairs":
        return [[2 * k, 2 * k + 1] for k in range(n // 2)]
    return [[k] for k in range(n)]


def _sections(allowed: list[set[int]], m: int) -> tuple[int, ...] | None:
    """DEF-ROPE-AXES sections from the axes each frequency may read (in k order): a(k) non-decreasing, every axis
    0..m-1 read by at least one frequency; a frequency every axis allows (constant on these rows) stays on the
    current axis. None when no such assignment exists."""
    cur, counts = 0, [0] * m
    for ok in allowed:
        nxt = [a for a in sorted(ok) if a >= cur]
        if not nxt:
            return None
        cur = cur if cur in ok else nxt[0]
        counts[cur] += 1
    return tuple(counts) if all(counts) else None


def _axis_frequencies(v: np.ndarray, u: np.ndarray, amp: float, which: str) -> np.ndarray | None:
    """The frequencies of columns ``v`` (a cos or sin of w u, amplitude ``amp``) at the sorted distinct
    coordinates ``u`` of one axis: the three-term recurrence along the (equally spaced) coordinates, then
    Gauss-Newton with the function and amplitude known, slow columns from the row where their angle is about 1 rad.
    None when the coordinates are not equally spaced or fewer than 3."""
    step = np.diff(u)
    if len(u) < 3 or not np.allclose(step, step[0], rtol=1e-9, atol=0) or step[0] <= 0:
        return None
    with np.errstate(all="ignore"):
        om, _ = column_frequencies(v / amp)
        w = np.nan_to_num(om, nan=0.0) / step[0]
        w = _refine_fixed(v, u, np.maximum(w, 1e-300), amp, which)
        span = float(np.max(np.abs(u)))
        slow = w * span < 1
        if slow.any():
            w[slow] = _refine_fixed(v[:, slow], u, _slow(v[:, slow], u, amp, which, w[slow]), amp, which)
    return w


def _axes_plan_frequencies(t: np.ndarray, p: np.ndarray, cols: list[list[int]], sec: tuple[int, ...], amp: float,
                           which: str) -> np.ndarray | None:
    """Each frequency k (columns ``cols[k]``, axis from the sections ``sec``) read along its axis, float32-snapped."""
    fn = np.cos if which == "cos" else np.sin
    w = np.zeros(len(cols))
    start = 0
    for a, n in enumerate(sec):
        ks = list(range(start, start + n))
        start += n
        u, first = np.unique(p[:, a], return_index=True)
        j = np.array([cols[k][0] for k in ks])
        wa = _axis_frequencies(t[first][:, j], u, amp, which)
        if wa is None:
            return None
        w[ks] = _snap_f32(wa, t[first], u, amp, fn, j)
    return w if np.all(w > 0) else None


def _axes_amplitudes(cos: Any, sin: Any) -> list[Fraction]:
    """Amplitudes A to read a multi-axis cache with, simplest first: from a pair, hypot(cos, sin) = A on every row;
    from a cos cache its largest |value| (cos 0 = 1 at the origin); a sin cache may never reach A on few rows, so 1
    comes first there."""
    if cos is not None and sin is not None:
        return _amplitudes(float(np.median(np.hypot(np.asarray(cos, dtype=np.float64), np.asarray(sin, dtype=np.float64)))))
    peak = float(np.max(np.abs(np.asarray(cos if cos is not None else sin, dtype=np.float64))))
    out = _amplitudes(peak)
    return out if cos is not None or Fraction(1) in out or peak > 1 else [Fraction(1)] + out
