"""Name what a table implements by fitting the parametric family (SPEC.md REQ-DETECT-FIT, REQ-DETECT-PRECISION).

``detect_table(y, positions)`` fits DEF-FAMILY to a table (rows = positions, columns = channels):

1. Rows that are exactly zero are padding rows (``zeroed_rows``); identical rows mean a
   sequence-first buffer broadcast over the batch (``seq_first``).
2. Each column's angular frequency is estimated from consecutive positions by the three-term
   recurrence ``v(p+1) + v(p-1) = 2 cos(w) v(p)`` (least squares; independent of amplitude, offset,
   and of whether the column is a sine or a cosine).
3. For every candidate column plan -- layout x schedule shift (d/2, floor(d/2), floor(d/2)-1) x odd
   rule x schedule width d in {w-1, w, w+1} for a table of w columns, plus two plans outside the
   family (cos before sin in each pair; an exponent per column 2j/d) -- the frequencies give base b and
   phase scale sigma by a linear fit of ``log w_j = log sigma - e_j log b``; the offset comes from the
   slowest sine column, the amplitude by least squares. Parameters are snapped to simple values
   (integers, small fractions) when that does not worsen the fit.
4. The candidate with the smallest residual ``max |y - model| / alpha`` wins, candidates with
   un-snapped parameters counting 100 times worse (a t2t table is also a Vaswani table with base
   10000^(n/(n-1)): the simple base decides). The runner-up and the margin (its score over the
   winner's) are reported. A winner whose residual exceeds ``NO_FIT`` (and the table's rounding
   noise) fits nothing: the deviation ``no_fit`` is reported and no profile is named.
5. The precision fingerprint compares the table with the fitted profile evaluated in float64,
   float32, and with positions or frequencies rounded to float16/bfloat16 (or float32 frequencies
   in a float64 table); the closest evaluation names it.

>>> import numpy as np
>>> from sinpe.spec.profiles import get_profile
>>> from sinpe.reference.implementations.numpy_impl import pe_table
>>> r = detect_table(pe_table(get_profile("t2t"), 64, np.arange(2, 130), "float64"))
>>> r.profile, r.layout, r.shift, r.base, r.offset, r.residual < 1e-9
(None, 'sin-cos', '1', '10000', '2', True)
>>> r = detect_table(pe_table(get_profile("t2t"), 64, np.arange(128), "float32"))
>>> r.profile, r.precision
('t2t', 'float32')
>>> r.sentence
'[sin...|cos...] halves, tensor2tensor schedule w_k = 10000^(-k/(floor(d/2)-1)), d=64, computed in float32 (preset t2t).'
"""
from __future__ import annotations

import itertools
import math
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from sinpe.spec.definition import column_data, columns
from sinpe.spec.profiles import LAYOUTS, ODD_RULES, PRESETS, Profile, to_fraction

from sinpe.reference.checking.loaders import read_rows, release_pages
from sinpe.reference.checking.jsonout import json_float
from sinpe.reference.numerics.rounding import narrowest_format

SAMPLE_ROWS = 128       # consecutive rows used for the structural fit
PRECISION_ROWS = 512    # rows used for the precision fingerprint
UNSNAPPED_PENALTY = 100.0
MAX_ROWS = 4096         # rows read for the fit of a bigger table (zero rows are scanned in full)
MAX_ENTRIES = 1 << 21   # ... and at most this many entries
NO_FIT = 0.05           # a winning residual above this (and above the rounding floor) names nothing


@dataclass
class Detection:
    """What ``detect`` found (``to_json()`` is the ``sinpe detect --json`` contract)."""

    layout: str | None
    shift: str | None
    base: str | None
    phase_scale: str | None
    amplitude: str | None
    offset: str | None
    zeroed_rows: list[str]
    odd_rule: str | None
    precision: str | None
    profile: str | None
    residual: float
    d: int | None
    width: int
    nearest_preset: str | None
    runner_up: dict[str, Any] | None
    margin: float | None
    deviations: dict[str, Any] = field(default_factory=dict)
    sentence: str = ""
    profile_flags: str | None = None
    precision_residuals: dict[str, float] = field(default_factory=dict)
    precision_margin: float | None = None
    precision_note: str = ""
    equivalent: list[dict[str, Any]] = field(default_factory=list)  # other (shift, base) readings, same frequencies

    @property
    def confidence(self) -> dict[str, Any]:
        """Per reported field, the margin that decided it: the runner-up's score (profile) or residual
        (precision) over the winner's; below 2 the field is reported as ambiguous (REQ-DETECT-PRECISION)."""
        return {"profile": self.margin, "precision": self.precision_margin}

    def to_json(self) -> dict[str, Any]:
        """The JSON form (REQ-CLI-JSON): parameters as numbers with ``<key>_exact`` strings, ``shift`` "half"
        for D = d/2, ``odd`` for the odd-d rule, zeroed rows as numbers; ``score`` and ``margin`` as in
        REQ-DETECT-FIT."""
        from sinpe.reference.checking.jsonout import PARAMS, exact_number, rename_odd, shift_json, with_exact
        out = asdict(self)
        with_exact(out, PARAMS)
        shift_json(out)
        rename_odd(out)
        out["zeroed_rows"] = [exact_number(z) for z in out["zeroed_rows"]]
        if out["runner_up"]:
            out["runner_up"] = dict(out["runner_up"])
            with_exact(out["runner_up"], ("base",))
            shift_json(out["runner_up"])
        if "shift" in out["deviations"] and out["deviations"]["shift"] is None:
            out["deviations"]["shift"] = "half"
        out["confidence"] = {k: (json_float(v) if v is not None else None) for k, v in self.confidence.items()}
        out["precision_margin"] = json_float(self.precision_margin) if self.precision_margin is not None else None
        out["residual"] = json_float(self.residual)
        out["margin"] = json_float(self.margin) if self.margin is not None else None
        out["precision_residuals"] = {k: json_float(v) for k, v in self.precision_residuals.items()}
        return out


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


def plan_arrays(prof: Profile, d: int) -> tuple[np.ndarray, np.ndarray]:
    """(kind per column: 0 sin, 1 cos, 2 zero; exponent per column, 0 in zero columns) from the column data
    (ValueError where the profile has no table at d)."""
    cd = column_data(prof, d)
    ew = [float(e) for e in cd.exponents]
    return (np.array([{"sin": 0, "cos": 1, "zero": 2}[f] for f in cd.kinds]),
            np.array([ew[k] if f != "zero" else 0.0 for f, k in zip(cd.kinds, cd.labels)]))


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


def _consecutive_run(pos: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Indices of the longest run of rows at consecutive integer positions (non-zeroed)."""
    best: list[int] = []
    cur: list[int] = []
    for i in range(len(pos)):
        if not keep[i]:
            if len(cur) > len(best):
                best = cur
            cur = []
            continue
        if cur and pos[i] == pos[cur[-1]] + 1:
            cur.append(i)
        else:
            if len(cur) > len(best):
                best = cur
            cur = [i] if float(pos[i]).is_integer() else []
    if len(cur) > len(best):
        best = cur
    return np.array(best[:SAMPLE_ROWS], dtype=np.intp)


def column_frequencies(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(omega, quality) per column from consecutive rows: cos(omega) by the three-term recurrence.

    >>> p = np.arange(50.0)[:, None]
    >>> om, q = column_frequencies(np.hstack([np.sin(0.3 * p + 1), 2 * np.cos(0.05 * p)]))
    >>> np.round(om, 12).tolist(), bool(q.max() < 1e-12)
    ([0.3, 0.05], True)
    """
    mid = y[1:-1]
    nb = y[2:] + y[:-2]
    num = (mid * nb).sum(axis=0)
    den = 2 * (mid * mid).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        c = np.where(den > 0, num / den, np.nan)
        res = nb - 2 * c * mid
        qual = np.sqrt((res * res).sum(axis=0) / np.maximum((nb * nb).sum(axis=0), 1e-300))
    om = np.arccos(np.clip(c, -1.0, 1.0))
    return om, qual


def _snap(x: float, rel: float, max_den: int = 64, absolute: float = 0.0) -> float:
    if not math.isfinite(x) or x == 0:
        return x
    if absolute:
        q = round(x * max_den) / max_den
        return q if abs(q - x) <= absolute else x
    f = Fraction(x).limit_denominator(max_den)
    if abs(float(f) - x) <= rel * abs(x):
        return float(f)
    r = float(round(x))
    if r and abs(r - x) <= rel * abs(x):
        return r
    return x


def _model(c: _Cand, p: np.ndarray, sigma: float, b: float, o: float) -> np.ndarray:
    th = sigma * (p[:, None] + o) * (b ** (-c.e))[None, :]
    m = np.where(c.kinds == 0, np.sin(th), np.where(c.kinds == 1, np.cos(th), 0.0))
    return m


def _fit(c: _Cand, y: np.ndarray, p: np.ndarray, om: np.ndarray, qual: np.ndarray,
         alpha0: float, floor: float = 0.0, w: int | None = None,
         against_base: float = 10000.0, reverse: bool = False) -> tuple[float, bool, dict[str, float]] | None:
    """Fit sigma, b, offset, amplitude for a candidate plan: (score residual, snapped?, params); ``reverse``: with
    sigma < 0 (the frequencies give |sigma| only)."""
    use = (c.kinds >= 0) & (c.kinds < 2) & np.isfinite(om) & (om > 0.02) & (om < 3.0) & (qual < 1e-2)
    e = c.e[use]
    lw = np.log(om[use])
    if use.sum() >= 2 and np.ptp(e) > 0:
        A = np.vstack([np.ones_like(e), -e]).T
        (ls, lb), *_ = np.linalg.lstsq(A, lw, rcond=None)
        for _ in range(2):  # drop outliers (corrupted columns) and refit
            r_ = np.abs(A @ np.array([ls, lb]) - lw)
            ok = r_ <= max(1e-6, 5 * float(np.median(r_)))
            if ok.sum() < 2 or ok.all() or np.ptp(e[ok]) == 0:
                break
            (ls, lb), *_ = np.linalg.lstsq(A[ok], lw[ok], rcond=None)
        sigma, b = math.exp(ls), math.exp(lb)
    elif use.sum() >= 1 and np.all(e == 0):
        sigma, b = float(np.median(np.exp(lw))), 10000.0
    else:
        sigma, b = 1.0, 10000.0
    if not (math.isfinite(b) and b > 1.0 and math.isfinite(sigma) and sigma > 0):
        return None
    offset = lambda s_, b_: _offset(c, y, p, s_, b_, alpha0)  # noqa: E731
    sigma = -sigma if reverse else sigma  # the rows in reverse order (ESPnet's reverse=True): sigma < 0
    return _score_trials(c, y, p, _trials(sigma, b, offset, against_base), floor, w, against_base)


def _score_trials(c: _Cand, y: np.ndarray, p: np.ndarray, trials: list[tuple[bool, float, float, float]],
                  floor: float, w: int | None, against_base: float) -> tuple[float, bool, dict[str, float]] | None:
    """The best (score, snapped?, params) of ``trials`` (see :func:`_fit`)."""
    best = None
    cols = c.kinds >= 0
    for snapped, s_, b_, o_ in trials:
        m = _model(c, p, s_, b_, o_)[:, cols]
        yy = y[:, cols]
        mm = float((m * m).sum())
        a = float((yy * m).sum() / mm) if mm > 0 else 0.0
        a_s = _snap(a, 1e-4) if snapped else a
        if a_s == 0:
            continue
        r = float(np.max(np.abs(yy - a_s * m))) / abs(a_s)
        is_snapped = snapped and all(_is_simple(v) for v in (s_, b_, o_, a_s))
        # residuals below the table's own rounding noise do not discriminate: simplicity decides
        score = max(r, floor) * (1.0 if is_snapped else UNSNAPPED_PENALTY)
        score *= (1.0 if w is None or c.d == w else 3.0) * (3.0 if c.extra else 1.0)
        score *= 1.0 if b_ == against_base else 1.5  # ties (b^(-2j/d) = (b^2)^(-j/d)): the checked base
        cand = (score, is_snapped, {"sigma": s_, "base": b_, "offset": o_, "amplitude": a_s, "residual": r})
        if best is None or cand[0] < best[0]:
            best = cand
    return best


def _offset(c: _Cand, y: np.ndarray, p: np.ndarray, sigma: float, b: float, alpha0: float) -> float:
    """The offset o read off the slowest sine column, v = alpha sin(w (p + o)), on the rows near the first
    (where arcsin stays on one branch); 0 when there is no such column or the reading is not finite."""
    sins = np.nonzero(c.kinds == 0)[0]
    if not sins.size or alpha0 <= 0:
        return 0.0
    j = sins[np.argmax(c.e[sins])]
    wj = sigma * b ** (-c.e[j])
    if not abs(wj) > 0:
        return 0.0
    near = abs(wj) * np.abs(p - p[0]) < 0.5  # (wj < 0: the rows in reverse order)
    o = float(np.median(np.arcsin(np.clip(y[near, j] / alpha0, -1, 1)) / wj - p[near]))
    return o if math.isfinite(o) and abs(o) <= 1e6 else 0.0


def _trials(sigma: float, b: float, offset: Any, against_base: float) -> list[tuple[bool, float, float, float]]:
    """(snapped?, sigma, base, offset) to score: the fitted values snapped to simple numbers, the checked
    base (and sigma 1) when the fit is within 5% of it (a half-precision table's column frequencies are
    too noisy for the 2e-6 snap; the residual then decides), and the raw fit. ``offset(sigma, base)``
    reads the offset for each (it depends on the frequencies)."""
    o = offset(sigma, b)
    s1, b1 = _snap(sigma, 1e-4), _snap(b, 2e-6, 1)
    out = [(True, s1, b1, _snap(offset(s1, b1), 0, 8, absolute=2e-2))]
    one = math.copysign(1.0, sigma)  # sigma < 0: the rows in reverse order
    if abs(math.log(b / against_base)) < 0.05 and abs(math.log(abs(sigma))) < 0.05 and (s1, b1) != (one, against_base):
        out.append((True, one, against_base, _snap(offset(one, against_base), 0, 8, absolute=2e-2)))
    return out + [(False, sigma, b, o)]


def _is_simple(x: float) -> bool:
    return math.isfinite(x) and Fraction(x).limit_denominator(64) == Fraction(x)


def _str_num(x: float) -> str:
    f = Fraction(x).limit_denominator(64)
    if float(f) == x:
        return str(f)
    return repr(float(x))


# --- precision fingerprint -----------------------------------------------------------------------

PRECISIONS = ("float64", "float32", "positions-float16", "positions-bfloat16", "frequencies-float16",
              "frequencies-bfloat16", "frequencies-float32")


def _bf16(x: np.ndarray) -> np.ndarray:
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return u.astype(np.uint32).view(np.float32)


def _narrow(x: np.ndarray, fmt: str) -> np.ndarray:
    with np.errstate(over="ignore"):
        return x.astype(np.float16).astype(np.float32) if fmt == "float16" else _bf16(x)


def evaluate_precision(c: _Cand, p: np.ndarray, params: dict[str, float], how: str,
                       out_dtype: Any = np.float64) -> np.ndarray:
    """The plan evaluated the usual way with one precision choice (``PRECISIONS``), cast to ``out_dtype``."""
    w64 = params["sigma"] * params["base"] ** (-c.e)
    pp = p + params["offset"]
    wt = np.float64 if how in ("float64", "frequencies-float32") else np.float32
    w = w64.astype(np.float32).astype(wt) if how == "frequencies-float32" else w64.astype(wt)
    if how.startswith("frequencies-float16") or how.startswith("frequencies-bfloat16"):
        w = _narrow(w64.astype(np.float32), how.split("-")[1])
    pp = pp.astype(wt)
    if how.startswith("positions-"):
        pp = _narrow(pp.astype(np.float32), how.split("-")[1])
    with np.errstate(invalid="ignore", over="ignore"):
        th = pp[:, None] * w[None, :]
        m = np.where(c.kinds == 0, np.sin(th), np.where(c.kinds == 1, np.cos(th), 0.0))
    return (params["amplitude"] * m).astype(wt).astype(out_dtype)


def _fingerprint(c: _Cand, y: np.ndarray, p: np.ndarray, params: dict[str, float]) -> tuple[str, dict[str, float]]:
    cols = c.kinds >= 0
    dtype = y.dtype if y.dtype in (np.float64, np.float32, np.float16) else np.float64
    y = y.astype(np.float64)
    res = {}
    for how in PRECISIONS:
        if how == "frequencies-float32" and y.dtype != np.float64:
            continue
        m = evaluate_precision(c, p, params, how, dtype)[:, cols].astype(np.float64)
        with np.errstate(invalid="ignore"):
            dif = np.abs(y[:, cols] - m)
        both_nan = ~np.isfinite(y[:, cols]) & ~np.isfinite(m)
        dif = np.where(both_nan, 0.0, dif)
        dif = np.where(np.isnan(dif), np.inf, dif)
        res[how] = float(dif.max()) if dif.size else 0.0
    return res


AMBIGUOUS = 2.0  # a precision is named alone only when the runner-up's residual is at least this factor larger
WIDE_EVALUATIONS = ("float64", "frequencies-float32")  # computed in float64, then rounded once to the table's format


def decide_precision(res: dict[str, float], table_dtype: Any, amplitude: float) -> tuple[str, float, str]:
    """(precision, margin, note) from the fingerprint's residuals (REQ-DETECT-PRECISION).

    A table stored in a format F narrower than float64 that was computed in float64 and rounded once is
    within about 1 ulp_F of the float64 evaluation: a float64 residual above 4 ulp_F(|alpha|) rules it out,
    whatever the other residuals. Among the rest the smallest residual wins when the next different one is
    at least :data:`AMBIGUOUS` times larger; otherwise both are named (``"float32 or float64"``).
    Evaluations with identical residuals are indistinguishable at these positions: the simplest is named.

    >>> decide_precision({"float64": 5.8e-5, "float32": 6.1e-5, "positions-float16": 6.1e-5}, np.float32, 1.0)[:2]
    ('float32', inf)
    >>> decide_precision({"float64": 3e-5, "float32": 4e-5}, np.float64, 1.0)[:2]
    ('float64 or float32', 1.33...)
    """
    cands = dict(res)
    note = ""
    f = np.dtype(table_dtype)
    if f != np.float64 and f in (np.float32, np.float16):
        tol = 4 * float(np.spacing(f.type(abs(amplitude) or 1.0)))
        ruled = [h for h in WIDE_EVALUATIONS if h in cands and cands[h] > tol]
        for h in ruled:
            del cands[h]
        if ruled:
            note = (f"not computed in float64: its residual {res['float64']:.2g} exceeds 4 ulp of {f.name} "
                    f"({tol:.2g}), which one rounding of a float64 evaluation cannot reach")
    order = sorted(cands, key=lambda k: (cands[k], PRECISIONS.index(k)))
    best = order[0]
    other = next((k for k in order[1:] if cands[k] != cands[best]), None)
    if other is None:
        return best, math.inf, note
    margin = cands[other] / cands[best] if cands[best] > 0 else math.inf
    if margin < AMBIGUOUS:
        note = (note + "; " if note else "") + (f"residuals {cands[best]:.2g} ({best}) and {cands[other]:.2g} "
                                                f"({other}) do not separate the two")
        return f"{best} or {other}", margin, note
    return best, margin, note


# --- the detection ---------------------------------------------------------------------------------

def _sample(data: np.ndarray, pos: np.ndarray, n: int) -> np.ndarray:
    if len(pos) <= n:
        return np.arange(len(pos))
    head = np.arange(n // 2)
    rest = np.unique(np.linspace(n // 2, len(pos) - 1, n - n // 2).astype(np.intp))
    return np.concatenate([head, rest])


def detect_table(table: Any, positions: Any = None, against: Profile | None = None, d: int | None = None) -> Detection:
    """Fit the family to ``table`` (rows = positions 0..rows-1 unless ``positions`` is given).

    ``against`` (default ``vaswani``) is the profile whose differences are listed in ``deviations``;
    ``d``, when known (the width asked of an implementation), is preferred as the schedule's width.
    NaN/Inf entries anywhere (the fit samples rows; the scan reads all) are the deviation ``non_finite``
    (their count). Raises ValueError when the table has too few consecutive rows to fit.
    """
    scan: dict[str, int] = {}
    with np.errstate(all="ignore"):  # tables of arbitrary junk overflow in the fit: findings, not warnings
        det = _detect_table(table, positions, against, d, scan)
    if scan.get("non_finite"):
        det.deviations["non_finite"] = scan["non_finite"]
        det.profile = det.profile_flags = None
        det.sentence = (det.sentence.rstrip(".").replace(" (preset ", " (nearest preset ")
                        + f"; {scan['non_finite']} entries are NaN/Inf.")
    return det


def _detect_table(table: Any, positions: Any, against: Profile | None, d: int | None,
                  scan: dict[str, int]) -> Detection:
    against = against or PRESETS["vaswani"]
    data = table if isinstance(table, np.ndarray) else np.asarray(getattr(table, "data", table))  # keeps a memmap
    if data.ndim != 2:
        raise ValueError(f"detect needs a 2-D table; got shape {data.shape}")
    rows, w = data.shape
    pos = np.arange(rows, dtype=np.float64) if positions is None else np.array(
        [float(x) for x in np.asarray(positions, dtype=object)], dtype=np.float64)
    if len(pos) != rows:
        raise ValueError(f"{rows} rows but {len(pos)} positions")
    zero_all = _scan_rows(data, scan)
    zeroed = [_str_num(float(p)) for p in pos[zero_all]]
    if zero_all.all():
        return _all_zero(w, against, d)
    max_rows = max(2 * PRECISION_ROWS, min(MAX_ROWS, MAX_ENTRIES // max(w, 1)))
    if rows > max_rows:  # fit on the first rows and a spread of the others
        idx = np.unique(np.concatenate([np.arange(max_rows // 2),
                                        np.linspace(max_rows // 2, rows - 1, max_rows // 2).astype(np.intp)]))
        data, pos, rows = read_rows(data, idx), pos[idx], len(idx)
    y_all = np.asarray(data, dtype=np.float64)
    finite_rows = np.all(np.isfinite(y_all), axis=1)
    zero_rows = np.all(y_all == 0, axis=1)
    # identical rows: a sequence-first buffer broadcast over the batch
    if rows >= 4 and w >= 2 and np.all(y_all[1:] == y_all[:1]) and not zero_rows.all():
        return _empty(w, zeroed, {"seq_first": "broadcast"}, against,
                      "every row is the same vector: a (max_len, 1, d) sequence-first buffer added to "
                      "batch-first input (each batch element gets one position for all steps)")
    keep = finite_rows & ~zero_rows
    run = _consecutive_run(pos, keep)
    if len(run) < 8:
        return _too_few_rows(y_all, pos, rows, w, against, zeroed)
    y, p = y_all[run], pos[run]
    fitted = _fit_plans(data, y, p, w, d, against)
    if isinstance(fitted, Detection):
        return fitted
    results, corrupted, bad_rows = fitted
    score, best, snapped, params = results[0]
    best = _prefer_against(best, against)
    if corrupted:
        best = _Cand(best.label, np.where(np.isin(np.arange(w), corrupted), -1, best.kinds), best.e, best.d,
                     best.layout, best.shift, best.odd, best.extra)
    runner = next((r for r in results[1:] if _describe_key(r[1], r[3]) != _describe_key(best, params)), None)
    if params["residual"] > 0.05 and rows < w:
        t = _try_transposed(y_all, against)
        if t is not None:
            return t
    # precision fingerprint over a spread of rows
    sel = _sample(data, pos, PRECISION_ROWS)
    sel = sel[keep[sel] | ~finite_rows[sel]]
    if bad_rows:  # the corrupted rows fingerprint no computation
        sel = sel[~np.isin(pos[sel], [float(Fraction(x)) for x in bad_rows])]
    yp = np.asarray(data[sel])
    pres = _fingerprint(best, yp, pos[sel], params)
    precision, pmargin, pnote = decide_precision(pres, yp.dtype, params["amplitude"])
    zeroed = _unexplained_zero_rows(best, params, zeroed)
    det = _assemble(best, params, snapped, w, zeroed, precision, pres, against, score, runner)
    det.precision_margin, det.precision_note = pmargin, pnote
    return _named(det, best, params, _noise_floor(data, y, p), bad_rows, corrupted, against, pos, rows)


def _scan_rows(data: Any, scan: dict[str, int]) -> np.ndarray:
    """The all-zero rows over the whole table, read in blocks (a memory-mapped table is never loaded whole);
    NaN/Inf entries counted in ``scan["non_finite"]``."""
    rows = data.shape[0]
    zero_all = np.zeros(rows, dtype=bool)
    for a in range(0, rows, 1 << 12):
        block = np.asarray(data[a:a + (1 << 12)])
        zero_all[a:a + (1 << 12)] = np.all(block == 0, axis=1)
        scan["non_finite"] = scan.get("non_finite", 0) + int(block.size - np.count_nonzero(np.isfinite(block)))
        release_pages(data, a + (1 << 12))
    return zero_all


def _all_zero(w: int, against: Profile, d: int | None) -> Detection:
    """A table of zeros: the single zero column of ``against`` at d = 1 (odd rule zero-pad), else nothing to fit."""
    try:
        all_zero_plan = all(c.kind == "zero" for c in columns(against, d or w))
    except ValueError:
        all_zero_plan = False
    if not all_zero_plan:
        raise ValueError("every entry of the table is zero: nothing to fit")
    det = _empty(w, [], {}, against, f"Every entry is zero: the single zero column of "
                 f"{against.name or against.cli_flags()} at d={d or w} (odd rule {against.odd}).")
    det.d, det.residual, det.odd_rule, det.profile = d or w, 0.0, against.odd, against.name
    return det


def _too_few_rows(y_all: np.ndarray, pos: np.ndarray, rows: int, w: int, against: Profile,
                  zeroed: list[str]) -> Detection:
    """Fewer than 8 rows at consecutive integer positions: a transposed table, or the sparse reading
    (REQ-DETECT-SPARSE), or a ValueError."""
    t = _try_transposed(y_all, against) if rows < w else None
    if t is not None:
        return t
    from sinpe.reference.checking.detect_sparse import as_detection, detect_sparse  # REQ-DETECT-SPARSE
    sd = detect_sparse(y_all, [int(q) if q.is_integer() else q for q in pos.tolist()])
    if sd.found:
        return as_detection(sd, w, against, zeroed)
    raise ValueError(f"detect needs at least 8 rows at consecutive integer positions for a fit, or >= 3 rows "
                     f"at which a preset or common family member conforms; {sd.reason}")


def _fit_plans(data: Any, y: np.ndarray, p: np.ndarray, w: int, d: int | None,
               against: Profile) -> Detection | tuple[list[Any], list[int], list[str]]:
    """REQ-DETECT-FIT on rows at consecutive positions: every candidate plan fitted and scored, best first; a
    poor winner is refitted without the columns (then rows) that fit nothing, or read as sin/cos by row; plans
    evaluated at each precision join when the winner is unsnapped or above the noise floor. Returns (results,
    corrupted columns, corrupted rows), or the row-parity Detection."""
    om, qual = column_frequencies(y)
    alpha0 = float(np.max(np.abs(y))) if y.size else 1.0  # amplitude guess: the largest |value|
    floor = _noise_floor(data, y, p)
    cands = _family_candidates(w) + _outside_candidates(w)
    fit = lambda cs, rows, rev=False: sorted(((f[0], c, f[1], f[2]) for c in cs if (  # noqa: E731
        f := _fit(c, y[rows], p[rows], om, qual, alpha0, floor, w if d is None else d, float(against.base),
                  rev)) is not None), key=lambda t: t[0])
    results = _screened(cands, fit, len(p))
    if not results or results[0][3]["residual"] > NO_FIT:  # the rows in reverse order? (tried only then)
        back = _screened(cands, lambda cs, rows: fit(cs, rows, True), len(p), exhaustive=False)
        if back and (not results or back[0][0] < results[0][0]):
            results = sorted(results + back, key=lambda t: t[0])
    if not results:
        raise ValueError("no candidate plan fits this table")
    corrupted: list[int] = []
    bad_rows: list[str] = []
    if results[0][3]["residual"] > 0.05:
        byrow = _sin_cos_by_row(y, p, w, against)
        if byrow is not None:
            return byrow
        results, corrupted = _robust(results, y, p, floor)
        if not corrupted:
            results, bad_rows = _robust_rows(results, y, p, floor)
    if not results[0][2] or results[0][3]["residual"] > 10 * floor:
        results = _with_precision(results, y, p, against, floor)
    return results, corrupted, bad_rows


SCREEN_ROWS = 16  # rows every candidate is first scored on (REQ-DETECT-FIT's screen)
SCREEN_KEEP = 6   # the best screened candidates fitted on every sampled row


def _screened(cands: list[_Cand], fit: Any, rows: int, exhaustive: bool = True) -> list[Any]:
    """Every candidate scored on the first SCREEN_ROWS rows, the best SCREEN_KEEP of them (and any within 10x of
    the best) on all the sampled rows; when even the best is a poor fit (residual > 0.05: corrupted columns,
    another precision), every candidate on all the rows, as without the screen (unless not ``exhaustive``: the
    reversed-order trial, which only a clean fit on the screen rows makes worth more)."""
    if rows <= 2 * SCREEN_ROWS:
        return fit(cands, slice(None))
    screen = fit(cands, slice(0, SCREEN_ROWS))
    if not exhaustive and (not screen or screen[0][3]["residual"] > NO_FIT):
        return screen
    keep = [c for i, (score, c, _, _) in enumerate(screen) if i < SCREEN_KEEP or score <= 10 * screen[0][0]]
    results = fit(keep, slice(None))
    if results and results[0][3]["residual"] <= 0.05 or not exhaustive:
        return results
    return fit(cands, slice(None))


def _named(det: Detection, best: _Cand, params: dict[str, float], floor: float, bad_rows: list[str],
           corrupted: list[int], against: Profile, pos: np.ndarray, rows: int) -> Detection:
    """What the assembled detection names: nothing above the residual the fit allows (``no_fit``), the corrupted
    rows or columns as deviations, else the profile's round-trip flags (with ``--zero-rows`` for padding rows)."""
    if not params["residual"] <= max(NO_FIT, floor):  # NaN too: the winner is only the least bad plan
        det.deviations = {"no_fit": json_float(params["residual"]), **det.deviations}
        det.profile = det.profile_flags = None
        det.sentence = (f"No member of the family fits this table (residual {params['residual']:.3g} of the "
                        f"amplitude); the least bad plan: {det.sentence[0].lower()}{det.sentence[1:]}")
        return det
    if bad_rows:
        det.deviations["corrupted_rows"] = bad_rows[:20]
        det.sentence = det.sentence[:-1] + (f"; the rows at positions {', '.join(bad_rows[:8])}"
                                            f"{'...' if len(bad_rows) > 8 else ''} hold values of no family member.")
    if corrupted:
        det.deviations["corrupted_columns"] = corrupted
        det.sentence = det.sentence[:-1] + f"; columns {corrupted[:8]}{'...' if len(corrupted) > 8 else ''} hold values of no family member."
    elif not best.extra:  # the round trip: fitted (unsnapped) parameters too, no odd rule d cannot show
        p = profile_of(det, against)
        det.profile_flags = p.cli_flags() if p is not None else det.profile_flags
    if det.profile_flags and det.zeroed_rows:  # padding rows: sinpe check judges them exactly 0 (REQ-CHECK-SELECT)
        det.profile_flags += " --zero-rows " + zero_row_indices(pos, det.zeroed_rows, rows)
    return det


def zero_row_indices(pos: Any, zeroed: list[str], n: int) -> str:
    """The ``--zero-rows`` indices of the rows at the positions ``zeroed`` (a detection's ``zeroed_rows``)."""
    p = np.arange(n, dtype=np.float64) if pos is None else np.asarray(pos, dtype=np.float64)
    return ",".join(str(int(i)) for i in np.flatnonzero(np.isin(p, [float(Fraction(z)) for z in zeroed])))


def profile_of(det: Detection, against: Profile | None = None) -> Profile | None:
    """The family member a detection names, its parameters read exactly as reported (a fitted amplitude
    such as 0.04419417382415922 is that binary64 value), or None when it names none (no fit, a plan
    outside the family, NaN/Inf entries). ``sinpe check --profile auto`` checks against it, and
    ``profile_flags`` are its flags (the detect -> check round trip, REQ-DETECT-CLI).

    >>> import numpy as np
    >>> from sinpe.spec.profiles import get_profile
    >>> from sinpe.reference.tables import table
    >>> det = detect_table(table("t2t", 16, 64, "float64") / 8)
    >>> profile_of(det).cli_flags()
    '--profile t2t --amplitude 0.125'
    """
    if det.layout is None or det.base is None or any(k in det.deviations for k in (
            "no_fit", "non_finite", "sin_cos_swapped", "exponent", "corrupted_columns", "corrupted_rows",
            "seq_first")):
        return None
    try:
        p = Profile(None, det.layout, None if det.shift in (None, "half") else Fraction(det.shift),
                    base=to_fraction(det.base), phase_scale=to_fraction(det.phase_scale or "1"),
                    amplitude=to_fraction(det.amplitude or "1"), offset=to_fraction(det.offset or "0"),
                    odd=det.odd_rule or "trailing-sin")
    except ValueError:
        return None
    if det.odd_rule is None:  # even d: the odd rule is not observable; the reading with the fewest flags
        return min((p.replace(odd=o) for o in ODD_RULES), key=lambda q: (len(q.cli_flags().split()), q.odd != p.odd))
    return p.replace()


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


def _unexplained_zero_rows(c: _Cand, params: dict[str, float], zeroed: list[str]) -> list[str]:
    """Zero rows that the fitted profile does not produce itself (d = 1 at position 0 is all zero)."""
    if not zeroed:
        return zeroed
    p = np.array([float(Fraction(z)) for z in zeroed])
    m = _model(c, p, params["sigma"], params["base"], params["offset"])[:, c.kinds >= 0]
    keep = np.max(np.abs(m), axis=1) > 1e-12 if m.size else np.zeros(len(p), dtype=bool)
    return [z for z, k in zip(zeroed, keep) if k]


def _noise_floor(data: Any, y: np.ndarray, p: np.ndarray) -> float:
    """The residual below which plans do not discriminate (simplicity decides), relative to alpha: a correct
    table's error, TOL-WORKING's size at these positions: 64 u_W (1 + max|p|) for the working format W (float32
    for a float16/bfloat16 table, the table's own otherwise, TOL-WORKING's default) plus two ulps of the
    table's format F at 1 (its final rounding). With u_F in place of u_W a float16 table at positions up to 255
    had a floor of 8: every plan 'fit' and the simplest won (float16 t2t tables read as vaswani-concat)."""
    prec = {np.dtype(np.float64): 53, np.dtype(np.float32): 24, np.dtype(np.float16): 11}.get(np.dtype(data.dtype), 24)
    if prec == 24 and narrowest_format(y, ("bfloat16", "float16")) is not None:
        prec = 8 if narrowest_format(y, ("bfloat16",)) else 11  # half-precision values stored as float32
    u_w = 2.0 ** -max(prec, 24) if prec < 53 else 2.0 ** -53
    return 64 * u_w * (1 + float(np.max(np.abs(p)))) + 2 * 2.0 ** (1 - prec)


def _with_precision(results: list[Any], y: np.ndarray, p: np.ndarray, against: Profile,
                    floor: float) -> list[Any]:
    """Leading plans with ``against``'s parameters evaluated at each precision: a table computed with
    narrow positions or frequencies fits no exact model, but fits its own evaluation. The amplitude is
    ``against``'s or the table's largest |value| snapped to a simple fraction (a scaled table, x-transformers'
    d^-1/2, computed in bfloat16: the free fit wanders off at the noisy long positions)."""
    params = {"sigma": float(against.phase_scale), "base": float(against.base), "offset": float(against.offset),
              "amplitude": float(against.amplitude)}
    peak = _snap(float(np.max(np.abs(y))), 1e-2) if y.size else params["amplitude"]
    amps = [params["amplitude"]] + ([peak] if math.isfinite(peak) and peak > 0 and peak != params["amplitude"]
                                    else [])
    out = []
    for (score, c, sn, _), amp in itertools.product(results[:12], amps):
        cols = c.kinds >= 0
        params = dict(params, amplitude=amp)
        for how in PRECISIONS:
            if how == "frequencies-float32" and y.dtype != np.float64:
                continue
            m = evaluate_precision(c, p, params, how)[:, cols]
            with np.errstate(invalid="ignore"):
                r = float(np.max(np.abs(y[:, cols] - m))) / abs(params["amplitude"])
            if math.isfinite(r):
                sc = max(r, floor) * (1.0 if c.d == y.shape[1] else 3.0) * (3.0 if c.extra else 1.0)
                out.append((sc, c, True, {**params, "residual": r}))
    if not out:
        return results
    out.sort(key=lambda t: t[0])
    return sorted(results + out[:1], key=lambda t: t[0])


def _sin_cos_by_row(y: np.ndarray, p: np.ndarray, w: int, against: Profile) -> Detection | None:
    """sin on even positions and cos on odd ones, at the frequencies of ``against`` (a row-parity bug)."""
    try:
        _, e = plan_arrays(against.replace(layout="interleaved"), w)
    except ValueError:
        return None
    th = (p[:, None] + float(against.offset)) * (float(against.base) ** (-e))[None, :] * float(against.phase_scale)
    m = np.where((p % 2 == 0)[:, None], np.sin(th), np.cos(th)) * float(against.amplitude)
    r = float(np.max(np.abs(y - m)))
    if r > 1e-3:
        return None
    det = _empty(w, [], {"sin_cos_by_row": True}, against,
                 "sin on even positions and cos on odd positions (the parity of the row, not of the column, "
                 f"picks the function), frequencies of {against.name or 'the profile'}.")
    det.residual, det.d, det.layout = r, w, None
    return det


def _robust_rows(results: list[Any], y: np.ndarray, p: np.ndarray, floor: float) -> tuple[list[Any], list[str]]:
    """Refit the leading candidates ignoring rows that fit nothing (at most 5% of them, at least one): a table
    with a few corrupted rows is still read as its plan (and then fails its check there), never as no table."""
    best = None
    for score, c, sn, params in results[:8]:
        cols = c.kinds >= 0
        m1 = _model(c, p, params["sigma"], params["base"], params["offset"])[:, cols]
        den = (m1 * m1).sum(axis=1)
        ai = np.where(den > 0, (y[:, cols] * m1).sum(axis=1) / np.where(den > 0, den, 1), np.nan)
        amp = _snap(float(np.nanmedian(ai)), 1e-4) if np.isfinite(ai).any() else 0.0  # the rows' median
        if not amp:
            continue
        rr = np.max(np.abs(y[:, cols] - amp * m1), axis=1) / abs(amp)
        bad = np.nonzero(~(rr <= 1e-3))[0]
        if 0 < bad.size <= max(1, 0.05 * len(p)):
            r = float(np.max(np.where(rr <= 1e-3, rr, 0.0)))
            sn = all(_is_simple(params[k]) for k in ("sigma", "base", "offset")) and _is_simple(amp)
            sc = max(r, floor) * (1.0 if sn else UNSNAPPED_PENALTY) * (1 + bad.size)
            if best is None or sc < best[0]:
                best = (sc, c, sn, {**params, "amplitude": amp, "residual": r}, [_str_num(float(x)) for x in p[bad]])
    if best is None:
        return results, []
    return [best[:4]] + [r for r in results if r[1] is not best[1]], best[4]


def _robust(results: list[Any], y: np.ndarray, p: np.ndarray, floor: float) -> tuple[list[Any], list[int]]:
    """Refit the leading candidates ignoring columns that fit nothing (at most half of them)."""
    best = None
    for score, c, sn, params in results[:8]:
        m1 = _model(c, p, params["sigma"], params["base"], params["offset"])
        cols = (c.kinds >= 0) & (c.kinds < 2)
        den = (m1 * m1).sum(axis=0)
        aj = np.where(den > 0, (y * m1).sum(axis=0) / np.where(den > 0, den, 1), np.nan)[cols]
        amp = _snap(float(np.nanmedian(aj)), 1e-4) if np.isfinite(aj).any() else 0.0
        if not amp:
            continue
        params = {**params, "amplitude": amp}
        m = amp * m1
        cols = c.kinds >= 0
        rj = np.where(cols, np.max(np.abs(y - m), axis=0), 0.0) / abs(amp)
        bad = np.nonzero(rj > 1e-3)[0]
        if 0 < bad.size <= 0.5 * cols.sum():
            r = float(np.max(np.where(rj <= 1e-3, rj, 0.0)))
            sc = max(r, floor) * (1.0 if sn else UNSNAPPED_PENALTY) * (1 + bad.size)
            if best is None or sc < best[0]:
                best = (sc, c, sn, {**params, "residual": r}, [int(j) for j in bad])
    if best is None:
        return results, []
    return [best[:4]] + [r for r in results if r[1] is not best[1]], best[4]


def _describe_key(c: _Cand, params: dict[str, float]) -> tuple[Any, ...]:
    return (c.layout, c.shift, c.odd, c.d, tuple(sorted(c.extra)), round(params["base"], 6))


def _try_transposed(y: np.ndarray, against: Profile) -> Detection | None:
    if y.shape[1] < 8:
        return None
    try:
        t = detect_table(y.T, against=against)
    except ValueError:
        return None
    if t.residual < 1e-3:
        t.deviations = {"transposed": True, **t.deviations}
        t.sentence = f"transposed: the table is (d, positions); read as (positions, d) it is: {t.sentence}"
        return t
    return None


def _empty(w: int, zeroed: list[str], dev: dict[str, Any], against: Profile, sentence: str) -> Detection:
    return Detection(layout=None, shift=None, base=None, phase_scale=None, amplitude=None, offset=None,
                     zeroed_rows=zeroed, odd_rule=None, precision=None, profile=None, residual=float("nan"),
                     d=None, width=w, nearest_preset=None, runner_up=None, margin=None, deviations=dev,
                     sentence=sentence)


def _assemble(c: _Cand, params: dict[str, float], snapped: bool, w: int, zeroed: list[str], precision: str,
              pres: dict[str, float], against: Profile, score: float, runner: Any) -> Detection:
    b, s, o, a = params["base"], params["sigma"], params["offset"], params["amplitude"]
    prof = None
    if not c.extra and snapped:
        try:
            prof = Profile(None, c.layout or "interleaved", c.shift, base=Fraction(b).limit_denominator(1),
                           phase_scale=Fraction(s).limit_denominator(64), amplitude=Fraction(a).limit_denominator(64),
                           offset=Fraction(o).limit_denominator(64), odd=c.odd or against.odd)
            prof = prof.replace()  # names it when it is a preset
            if prof.name is None and c.odd is None:  # even d: the odd rule and shift 0 vs d/2 are not observable
                for pn, pp in PRESETS.items():
                    if _denominator(pp.shift, c.d) == _denominator(c.shift, c.d) and \
                            prof.replace(odd=pp.odd, shift=pp.shift).name == pn:
                        prof = pp
                        break
        except ValueError:
            prof = None
    name = prof.name if prof is not None else None
    # deviations from the profile checked against
    dev: dict[str, Any] = dict(c.extra)
    if c.layout != against.layout and "sin_cos_swapped" not in dev and "exponent" not in dev:
        dev["layout"] = c.layout
    if not c.extra and _denominator(c.shift, c.d) != _denominator(against.shift, c.d):
        dev["shift"] = None if c.shift is None else int(c.shift) if c.shift.denominator == 1 else str(c.shift)
    if abs(b - float(against.base)) > 1e-6 * b and "exponent" not in dev:
        dev["base"] = int(b) if float(b).is_integer() else b
    if abs(s - float(against.phase_scale)) > 1e-6:
        dev["phase_scale"] = _str_num(s)
    if abs(a - float(against.amplitude)) > 1e-6:
        dev["amplitude"] = int(a) if float(a).is_integer() else _str_num(a)
    if abs(o - float(against.offset)) > 1e-6:
        dev["offset"] = int(o) if float(o).is_integer() else _str_num(o)
    if c.d % 2 and c.odd and c.odd != against.odd and c.d == w:
        dev["odd"] = c.odd
    if c.d != w:
        dev["width"] = w
    if zeroed:
        dev["zeroed_rows"] = [int(float(z)) if float(z).is_integer() else z for z in zeroed]
    clean = ("float64", "float32", "float64 or float32", "float32 or float64")
    if precision not in clean:
        dev["precision"] = precision
    nearest = name
    if nearest is None:
        best_n, best_k = None, -1
        for pn, pp in PRESETS.items():
            k = (pp.layout == c.layout) + (pp.shift == c.shift) + (not c.odd or pp.odd == c.odd)
            if k > best_k:
                best_n, best_k = pn, k
        nearest = best_n
    ru = None
    margin = None
    if runner is not None:
        rs, rc, rsn, rp = runner
        ru = {"plan": rc.label, "layout": rc.layout, "shift": None if rc.shift is None else str(rc.shift),
              "base": _str_num(rp["base"]), "d": rc.d, "residual": json_float(rp["residual"]), "score": json_float(rs),
              **({"outside_family": sorted(rc.extra)} if rc.extra else {})}
        margin = rs / score if score > 0 else float("inf")
    det = Detection(
        layout=c.layout, shift=None if c.shift is None else str(c.shift), base=_str_num(b), phase_scale=_str_num(s),
        amplitude=_str_num(a), offset=_str_num(o), zeroed_rows=zeroed,
        odd_rule=c.odd, precision=precision, profile=name, residual=params["residual"], d=c.d, width=w,
        nearest_preset=nearest, runner_up=ru, margin=margin, deviations=dev,
        profile_flags=prof.cli_flags() if prof is not None else None, precision_residuals=pres)
    det.sentence = _sentence(det, c)
    if not c.extra:
        det.equivalent = equivalent_readings(c.shift, b, c.d, c.layout)
    return det


def equivalent_readings(shift: Fraction | None, base: float, d: int, layout: str | None) -> list[dict[str, Any]]:
    """The other schedule readings with exactly the same frequencies (REQ-DETECT-CANONICAL): for D' of another
    shift, base' = base^(D'/D) gives base'^(-k/D') = base^(-k/D) for every k. The reading reported is the
    canonical one (a preset first, then an integer base); these are listed, not preferred.

    >>> [(e["shift"], round(e["base"], 3)) for e in equivalent_readings(None, 10000.0, 6, "sin-cos")]
    [('1', 464.159)]
    """
    D = _denominator(shift, d)
    out: list[dict[str, Any]] = []
    if D <= 0:  # a single frequency (w_0 = 1): every base is the same table
        return out
    for s in (None, Fraction(0), Fraction(1)):
        D2 = _denominator(s, d)
        if D2 <= 0 or D2 == D or any(e["denominator"] == str(D2) for e in out):
            continue
        b2 = float(base) ** (float(D2) / float(D))
        if not (math.isfinite(b2) and b2 > 0 and b2 != 1):
            continue
        out.append({"shift": "half" if s is None else str(s), "base": b2, "denominator": str(D2), "layout": layout,
                    "note": f"w_k = {_str_num(b2)}^(-k/{D2}) is the same frequency as {_str_num(base)}^(-k/{D})"})
    return out


def _denominator(shift: Fraction | None, d: int) -> Fraction:
    return Fraction(d, 2) if shift is None else Fraction(d // 2) - shift


def _sentence(det: Detection, c: _Cand) -> str:
    lay = {"interleaved": "interleaved [sin, cos, ...] pairs", "sin-cos": "[sin...|cos...] halves",
           "cos-sin": "[cos...|sin...] halves"}.get(det.layout or "", "unknown layout")
    if "sin_cos_swapped" in det.deviations:
        lay = "interleaved pairs with cos first [cos, sin, ...]"
    if "exponent" in det.deviations:
        sched = f"a separate frequency per column, w_j = {det.base}^(-2j/d)"
    elif det.shift is None:
        sched = f"Vaswani schedule w_k = {det.base}^(-2k/d)"
    elif det.shift == "1":
        sched = f"tensor2tensor schedule w_k = {det.base}^(-k/(floor(d/2)-1))"
    else:
        sched = f"schedule w_k = {det.base}^(-k/(floor(d/2)-{det.shift}))"
    parts = [f"{lay}, {sched}, d={det.d}"]
    if det.width != det.d:
        parts.append(f"{det.width} columns returned")
    if det.odd_rule:
        parts.append(f"odd d rule {det.odd_rule}")
    reverse = det.phase_scale == "-1" and det.offset is not None and det.offset.lstrip("-").isdigit()
    if reverse:  # theta = -(p + o) w: row p is position -o - p
        parts.append(f"rows in reverse order (row i is position {_str_num(-float(det.offset or 0))} - i)")
    elif det.offset not in ("0", None):
        parts.append(f"first row is position {det.offset}" if det.offset and det.offset.lstrip("-").isdigit()
                     else f"position offset {det.offset}")
    if det.amplitude not in ("1", None):
        parts.append(f"amplitude {det.amplitude}")
    if det.phase_scale not in ("1", None) and not reverse:
        parts.append(f"phase scale {det.phase_scale}")
    if det.zeroed_rows:
        parts.append(f"rows at positions {', '.join(det.zeroed_rows[:5])} zeroed (padding)")
    prec = {"float64": "computed in float64", "float32": "computed in float32"}.get(det.precision or "")
    if prec is None and " or " in (det.precision or ""):
        prec = f"computed in {det.precision} (the residuals do not separate them)"
    elif prec is None:
        prec = f"{(det.precision or '').replace('-', ' in ')} (precision loss)"
    parts.append(prec)
    s = ", ".join(parts)
    s += f" (preset {det.profile})." if det.profile else (f" (nearest preset {det.nearest_preset})." if det.nearest_preset else ".")
    return s[0].upper() + s[1:] if not s.startswith("[") else s
