"""Read each channel of a table from the data itself (SPEC.md REQ-DETECT-READ).

For rows at consecutive integer positions p, column j is modelled as ``R_j sin(w_j p + phi_j)``:

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

MIN_ROWS = 8
MAX_ROWS = 4096
MAX_COLUMNS = 1 << 14
STAGES = (64, 256, 1024, 4096)
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
    rows: int

    def to_json(self, limit: int = 64) -> dict[str, Any]:
        n = len(self.kinds)
        return {"rows_read": self.rows, "columns": n, "kinds": self.kinds[:limit],
                "omega": [float(w) for w in self.omega[:limit]],
                "amplitude": [float(a) for a in self.amplitude[:limit]],
                "phase": [float(f) for f in self.phase[:limit]],
                "max_residual": float(np.max(self.residual)) if n else 0.0,
                **({"truncated_to": limit} if n > limit else {})}


def consecutive_rows(positions: Any, rows: int) -> np.ndarray:
    """Row indices of the longest run at consecutive integer positions (all rows when ``positions`` is None)."""
    if positions is None:
        return np.arange(rows)
    p = np.asarray([float(x) for x in positions], dtype=np.float64)
    if len(p) != rows:
        raise ValueError(f"{rows} rows but {len(p)} positions")
    step = np.concatenate([[False], (np.diff(p) == 1) & (p[1:] == np.floor(p[1:]))])
    best, start = (0, 0), 0
    for i in range(1, rows + 1):
        if i == rows or not step[i]:
            if i - start > best[1] - best[0]:
                best = (start, i)
            start = i
    return np.arange(*best)


def read_channels(table: Any, positions: Any = None) -> Reading:
    """Recover every column's function, frequency, amplitude and phase (see the module docstring).
    ValueError when the table is too small or too large to read, or not finite."""
    y = np.asarray(table)
    if y.ndim != 2:
        raise ValueError(f"reading channels needs a 2-D table; got shape {y.shape}")
    if y.shape[1] > MAX_COLUMNS:
        raise ValueError(f"{y.shape[1]} columns: channels are read for at most {MAX_COLUMNS}")
    run = consecutive_rows(positions, y.shape[0])[:MAX_ROWS]
    if len(run) < MIN_ROWS:
        raise ValueError(f"reading channels needs >= {MIN_ROWS} rows at consecutive integer positions; got {len(run)}")
    y = np.asarray(y[run], dtype=np.float64)
    if not np.all(np.isfinite(y)):
        raise ValueError("the table has NaN/Inf entries: channels are not read")
    p0 = 0.0 if positions is None else float(positions[int(run[0])])
    p = p0 + np.arange(len(run), dtype=np.float64)
    live = np.any(y != 0, axis=0)  # a column of zeros is read as zero (_classify): nothing to refine
    bad = _no_sinusoid(y[:128], live)
    if bad is not None:  # no model of this reading fits it: the reading ends before its refinement (seconds)
        raise ValueError(f"column {bad[0]} is no sinusoid of the row index: its three-term recurrence misses by "
                         f"{bad[1]:.3g} of its RMS (over {SINUSOID_RESIDUAL:g})")
    w, a, b = (np.zeros(y.shape[1]) for _ in range(3))
    e = _exponents(np.max(np.abs(y[:, live]), axis=0))  # each column fitted at a largest |value| in [1/2, 1)
    w[live], a[live], b[live] = _fit(np.ldexp(y[:, live], -e), p)
    a[live], b[live] = np.ldexp(a[live], e), np.ldexp(b[live], e)
    return _classify(y, p, w, a, b)


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
        z = np.where(np.mod(p, 2) == 0, 1.0, -1.0)[:, None] * y[:, hi]
        wz, az, bz = _fit_from(z, p, _lagged_start(z, math.pi - w[hi]))
        out[0][hi], out[1][hi], out[2][hi] = math.pi - wz, -az, bz
        return tuple(out)


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


def _classify(y: np.ndarray, p: np.ndarray, w: np.ndarray, a: np.ndarray, b: np.ndarray) -> Reading:
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
    return Reading(kinds, np.where(zero, 0.0, w), np.where(zero, 0.0, R), np.where(zero, 0.0, phi), res, len(p))


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


def _slow(y: np.ndarray, p: np.ndarray, amp: float, which: str, w_free: np.ndarray) -> np.ndarray:
    """A slow band's w, amplitude known, from the row r where its angle is about 1 rad by the free fit's w (the last
    row if slower): arccos(x_r/A)/p_r (cos) or arcsin(x_r/A)/p_r (sin); at least 1e-12 (a band too slow to read
    from these rows: the check decides)."""
    span = np.abs(p - p[0]) + 1.0
    r = np.minimum(np.searchsorted(span, 1.0 / np.maximum(w_free, 1e-300)), len(p) - 1)
    x = np.clip(y[r, np.arange(y.shape[1])] / amp, -1.0, 1.0)
    ang = np.arccos(x) if which == "cos" else np.abs(np.arcsin(x))
    return np.maximum(ang / np.maximum(np.abs(p[r]), 1.0), 1e-12)


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


def _amplitudes(amp: float) -> list[Fraction]:
    """Amplitude readings to try, simplest first: 1, the float32 nearest, the float64 estimate (those finite: an
    estimate past float32's range has no float32 reading, a non-finite one none at all).

    >>> [str(a) for a in _amplitudes(1e200)][0][:6], _amplitudes(float("nan"))
    ('999999', [])
    """
    out = [Fraction(1)] if abs(amp - 1) <= 1e-6 else []
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
