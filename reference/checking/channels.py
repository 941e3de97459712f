"""Read each channel of a table from the data itself (SPEC.md REQ-DETECT-READ).

For rows at consecutive integer positions p, column j is modelled as ``R_j sin(w_j p + phi_j)``:

1. ``w_j`` starts from the three-term recurrence ``x(p+1) + x(p-1) = 2 cos(w) x(p)`` (the shift theorem
   for one column, :func:`sinpe.reference.checking.detect.column_frequencies`), on the first rows;
2. it is refined by least squares over more and more rows (64, 256, 1024, 4096): for fixed w the model is
   linear in (R cos phi, R sin phi), and a Gauss-Newton step on w follows (all columns at once, NumPy);
3. ``phi_j`` names the function: 0 sin, pi/2 cos, pi -sin, -pi/2 -cos (else ``phase``); an all-zero column is
   ``zero``.

:func:`explicit_rotary` turns a reading whose columns are all cos (or all sin) of frequencies in a rotary
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
from typing import Any, Sequence

import numpy as np

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
    from sinpe.reference.checking.detect import column_frequencies
    with np.errstate(all="ignore"):
        w, _ = column_frequencies(y[: min(len(run), 128)])
        w = np.nan_to_num(w, nan=0.0)
        for n in STAGES:
            w, a, b = _refine(y[:n], p[:n], w)
            if n >= len(run):
                break
        w, a, b = _refine(y, p, w)
    return _classify(y, p, w, a, b)


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


# --- an explicit rotary plan from a reading ------------------------------------------------------------

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
    nearly one parameter, R w)."""
    P = p[:, None]
    for _ in range(steps):
        th = P * w
        m, dm = (np.cos(th), -np.sin(th)) if which == "cos" else (np.sin(th), np.cos(th))
        J = amp * P * dm
        den = (J * J).sum(0)
        dw = np.where(den > 0, (J * (y - amp * m)).sum(0) / np.where(den > 0, den, 1), 0.0)
        w = np.clip(w + np.clip(dw, -0.01, 0.01), 1e-300, math.pi)
    return w


def explicit_rotary(cos: Any, sin: Any, positions: Any, layouts: Sequence[str], dtype: str | None,
                    tier: str = "phase") -> dict[str, Any] | None:
    """DEF-ROPE-FREQ-EXPLICIT read from a cos cache, a sin cache or both: the first layout (of ``layouts``) whose
    explicit plan of the recovered frequencies and amplitude conforms, as a ``detect_rotary`` answer, or None."""
    from sinpe.reference.checking.angles import check_rotary
    from sinpe.spec.rotary import RotaryProfile
    which = "cos" if cos is not None else "sin"
    t = np.asarray(cos if cos is not None else sin)
    try:
        rd = read_channels(t, positions)
    except ValueError:
        return None
    turns = rd.omega * rd.rows > 2 * np.pi  # columns that turn at least once: function and amplitude well read
    if "zero" in rd.kinds or not turns.any() or {k for k, t_ in zip(rd.kinds, turns) if t_} != {which}:
        return None
    amp = float(np.median(rd.amplitude[turns]))
    run = consecutive_rows(positions, t.shape[0])[:MAX_ROWS]
    y = np.asarray(t[run], dtype=np.float64)
    p = (0.0 if positions is None else float(positions[int(run[0])])) + np.arange(len(run), dtype=np.float64)
    fn = np.cos if which == "cos" else np.sin
    w = _refine_fixed(y, p, rd.omega, amp, which)
    m = fn(p[:, None] * w[turns])
    amp = float((y[:, turns] * m).sum() / (m * m).sum())  # one amplitude, least squares over the turning columns
    rd.omega = _refine_fixed(y, p, np.where(turns, w, _slow(y, p, amp, which, w)), amp, which)
    if cos is not None and sin is not None and not turns.all():  # a slow band is read better from sin(w p) ~ w p
        ys = np.asarray(np.asarray(sin)[run], dtype=np.float64)
        rd.omega = np.where(turns, rd.omega, _refine_fixed(ys, p, _slow(ys, p, amp, "sin", rd.omega), amp, "sin"))
    pos = None if positions is None else list(positions)
    for layout in layouts:
        n = t.shape[1]
        if layout != "single" and n % 2:
            continue
        w = _per_frequency(rd.omega, layout)
        idx = np.arange(len(w)) if layout != "pairs" else 2 * np.arange(len(w))
        w = _snap_f32(w, y, p, amp, fn, idx)
        for a in _amplitudes(amp):
            try:
                rp = RotaryProfile(None, layout, rule="explicit", explicit=tuple(Fraction(float(x)) for x in w),
                                   attention_factor=None if a == 1 else a)
                dim = 2 * len(w)
                r = check_rotary(rp, dim, cos=cos, sin=sin, positions=pos, dtype=dtype, tier=tier)
            except (ValueError, ArithmeticError):
                continue
            if r.fits:
                return {"found": True, "layout": layout, "dim": dim, "profile": None, "params": rp.params(),
                        "describe": rp.describe(), "equivalent": [],
                        "read_from_data": {**rd.to_json(), "nearest": nearest_schedule(w, dim)}}
    return None


def explicit_channels(table: Any, positions: Any, dtype: str | None, tier: str = "phase") -> dict[str, Any] | None:
    """DEF-CHANNELS-EXPLICIT read from a 1-D table no family member fits (REQ-DETECT-READ): every column sin, cos or
    zero of its own frequency, one amplitude; each frequency refined with the amplitude and function known and snapped
    to float32 where that fits no worse. Returned (with the ``--channels`` flags) only if the plan conforms."""
    from sinpe.reference.checking.angles import check_plan, stored_dtype
    from sinpe.reference.checking.kinds import channel_flags
    from sinpe.reference.oracles.angles import channels_plan
    t = np.asarray(table)
    try:
        rd = read_channels(t, positions)
    except ValueError:
        return None
    live = np.array([k != "zero" for k in rd.kinds])
    if any(k not in ("sin", "cos", "zero") for k in rd.kinds) or not live.any():
        return None
    run = consecutive_rows(positions, t.shape[0])[:MAX_ROWS]
    y = np.asarray(t[run], dtype=np.float64)
    p = (0.0 if positions is None else float(positions[int(run[0])])) + np.arange(len(run), dtype=np.float64)
    turns = live & (rd.omega * rd.rows > 2 * np.pi)
    amp = float(np.median(rd.amplitude[turns if turns.any() else live]))
    w = rd.omega.copy()
    for which, fn in (("sin", np.sin), ("cos", np.cos)):
        idx = np.array([j for j, k in enumerate(rd.kinds) if k == which], dtype=np.intp)
        if idx.size:
            yk = y[:, idx]
            wk = _refine_fixed(yk, p, np.where(turns[idx], w[idx], _slow(yk, p, amp, which, w[idx])), amp, which)
            w[idx] = _snap_f32(wk, yk, p, amp, fn, np.arange(idx.size))
    pos = list(range(t.shape[0])) if positions is None else list(positions)
    dt = dtype or stored_dtype(t)
    for a in _amplitudes(amp):
        chans = [("zero", None) if k == "zero" else (k, Fraction(float(x))) for k, x in zip(rd.kinds, w)]
        try:
            r = check_plan(t, channels_plan(chans, pos, amplitude=a), "channels", dtype=dt, tier=tier)
        except (ValueError, ArithmeticError):
            continue
        if r.fits:
            extra = {} if a == 1 else {"amplitude": a}
            plan = channel_flags(chans).split(" ", 1)[1]
            return {"found": True, "profile_flags": channel_flags(chans, None, extra), "plan": plan, "columns": len(chans),
                    "frequencies": len({c[1] for c in chans if c[1] is not None}),
                    "read_from_data": rd.to_json(), "amplitude": str(a), "verdict": r.verdict}
    return None


def _amplitudes(amp: float) -> list[Fraction]:
    """Amplitude readings to try, simplest first: 1, the float32 nearest, the float64 estimate."""
    out = [Fraction(1)] if abs(amp - 1) <= 1e-6 else []
    for v in (float(np.float32(amp)), amp):
        f = Fraction(v)
        if f > 0 and f not in out:
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


# --- an explicit multi-axis rotary plan (DEF-ROPE-AXES) from a reading ------------------------------------------

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
    from sinpe.reference.checking.detect import column_frequencies
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


def explicit_axes(cos: Any, sin: Any, positions: Sequence[Sequence[Any]], layouts: Sequence[str], dtype: str | None,
                  tier: str = "phase") -> dict[str, Any] | None:
    """DEF-ROPE-FREQ-EXPLICIT over several position axes (DEF-ROPE-AXES) read from a cos cache, a sin cache or both
    at given multi-axis positions (a (rows, m) positions file, or a grid's cells): each column's axis is the one it
    is a function of; the axes, in frequency order, give the sections; each frequency is read along its axis's
    distinct coordinates (:func:`_axis_frequencies`) and snapped to float32 where that fits no worse. Returned (a
    ``detect_rotary`` answer) only if the plan conforms (REQ-CHECK-ROPE), else None."""
    from sinpe.reference.checking.angles import check_rotary
    from sinpe.spec.rotary import MAX_AXES, RotaryProfile
    which = "cos" if cos is not None else "sin"
    t = np.asarray(cos if cos is not None else sin, dtype=np.float64)
    p = np.asarray([[float(x) for x in row] for row in positions], dtype=np.float64)
    if t.ndim != 2 or p.ndim != 2 or p.shape[0] != t.shape[0] or not 2 <= p.shape[1] <= MAX_AXES \
            or t.shape[0] < 3 or t.shape[1] > MAX_COLUMNS or not np.all(np.isfinite(t)):
        return None
    tol = 1e-6 * max(float(np.max(np.abs(t))), 1e-300)
    reads = np.array([_function_of(t, p[:, a], tol) for a in range(p.shape[1])])  # (axes, columns)
    constant = np.ptp(t, axis=0) <= tol
    for layout in layouts:
        if layout != "single" and t.shape[1] % 2:
            continue
        cols = _frequency_columns(layout, t.shape[1])
        allowed = [{a for a in range(p.shape[1]) if reads[a, c].all()} if not constant[c].all()
                   else set(range(p.shape[1])) for c in cols]
        sec = _sections(allowed, p.shape[1])
        if sec is None:
            continue
        for a in _axes_amplitudes(cos, sin):
            w = _axes_plan_frequencies(t, p, cols, sec, float(a), which)
            if w is not None and cos is not None and sin is not None:  # slow bands: read better from sin(w x) ~ w x
                ws = _axes_plan_frequencies(np.asarray(sin, dtype=np.float64), p, cols, sec, float(a), "sin")
                span = np.array([np.max(np.abs(p[:, i])) for i, n in enumerate(sec) for _ in range(n)])
                w = w if ws is None else np.where(w * span < 1, ws, w)
            if w is None:
                continue
            try:
                rp = RotaryProfile(None, layout, rule="explicit", explicit=tuple(Fraction(float(x)) for x in w),
                                   attention_factor=None if a == 1 else a, mrope_section=sec)
                r = check_rotary(rp, 2 * len(w), cos=cos, sin=sin, positions=[tuple(row) for row in positions],
                                 dtype=dtype, tier=tier)
            except (ValueError, ArithmeticError):
                continue
            if r.fits:
                return {"found": True, "layout": layout, "dim": 2 * len(w), "profile": None, "params": rp.params(),
                        "describe": rp.describe(), "equivalent": [], "sections": list(sec)}
    return None


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
