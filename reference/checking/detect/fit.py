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
from fractions import Fraction
from typing import Any

import numpy as np

from sinpe.reference.checking.detect.plans import (
    FitRows,
    _Cand,
    _describe_key,
    _model,
    _prefer_against,
    candidates,
    plan_arrays,
)
from sinpe.reference.checking.detect.precision import (
    PRECISIONS,
    UNREAD,
    _fingerprint,
    _noise_floor,
    decide_precision,
    evaluate_precision,
)
from sinpe.reference.checking.detect.reading import NO_FIT, Detection, _assemble, _empty, _named, _unexplained_zero_rows
from sinpe.reference.checking.detect.snap import _is_simple, _snap, _str_num
from sinpe.reference.checking.detect.sparse import as_detection, detect_sparse
from sinpe.reference.checking.loaders import read_rows, release_pages
from sinpe.reference.numerics.rounding import narrowest_format
from sinpe.spec.definition import columns
from sinpe.spec.profiles import PRESETS, Profile

SAMPLE_ROWS = 128       # consecutive rows used for the structural fit
PRECISION_ROWS = 512    # rows used for the precision fingerprint
EXPLAINS = 4.0         # an evaluation names the precision only within this many noise floors of the rows
UNSNAPPED_PENALTY = 100.0
MAX_ROWS = 4096         # rows read for the fit of a bigger table (zero rows are scanned in full)
MAX_ENTRIES = 1 << 21   # ... and at most this many entries


def _consecutive_run(pos: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Indices of the longest run of rows at consecutive integer positions (non-zeroed)."""
    if keep.all() and len(pos) and float(pos[0]).is_integer() and np.all(np.diff(pos) == 1):
        return np.arange(min(len(pos), SAMPLE_ROWS), dtype=np.intp)  # one run: every row (the loop's answer)
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


SINUSOID_RESIDUAL = 0.05  # a column whose three-term recurrence misses by more of its RMS (median row) is no sinusoid


def recurrence_misses(y: np.ndarray) -> np.ndarray:
    """Per column of consecutive rows, the median of ``|x(p+1) + x(p-1) - c x(p)|`` over the column's RMS, ``c``
    by least squares: 0 for a sinusoid of the row index (the shift theorem), whatever its frequency and phase.

    >>> p = np.arange(64.0)[:, None]
    >>> m = recurrence_misses(np.hstack([np.sin(0.3 * p + 1), np.cos(np.pi / 2 * p), np.random.default_rng(0).normal(size=p.shape)]))
    >>> bool(m[0] < 1e-12), bool(m[1] < 1e-12), bool(m[2] > SINUSOID_RESIDUAL)
    (True, True, True)

    Each column is first scaled by a power of two to a largest magnitude in [1/2, 1) (exact: the same figures for
    columns of ordinary size), so that no square overflows or underflows at any scale, and nothing warns.
    """
    with np.errstate(all="ignore"):
        peak = np.max(np.abs(y), axis=0)
        x = np.ldexp(y, -np.frexp(np.where(peak > 0, peak, 1.0))[1])
        mid, nb = x[1:-1], x[2:] + x[:-2]
        mm = (mid * mid).sum(axis=0)
        c = (mid * nb).sum(axis=0) / np.where(mm > 0, mm, 1.0)
        rms = np.sqrt(np.mean(x * x, axis=0))
        return np.median(np.abs(nb - c * mid), axis=0) / np.where(rms > 0, rms, 1.0)


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


def _fit(c: _Cand, rows: FitRows, om: np.ndarray, qual: np.ndarray,
         alpha0: float, floor: float = 0.0, w: int | None = None,
         against_base: float = 10000.0, reverse: bool = False) -> tuple[float, bool, dict[str, float]] | None:
    """Fit sigma, b, offset, amplitude for a candidate plan on ``rows``: (score residual, snapped?, params);
    ``reverse``: with sigma < 0 (the frequencies give |sigma| only). What depends on the column plan alone (the
    frequency fit, the trials, each trial's residual) is found once per plan and rows (``rows.memo``): plans that
    differ in their width d only (d = w and w + 1 with one column plan) share it, and are scored each by its own
    factors."""
    key = ("trials", c.plan_key(), reverse)
    if key not in rows.memo:
        rows.memo[key] = _plan_trials(c, rows, om, qual, alpha0, against_base, reverse)
    found = rows.memo[key]
    if found is None:
        return None
    trials, raw = found
    return _score_trials(c, rows, trials, floor, w, against_base, raw)


def _plan_trials(c: _Cand, rows: FitRows, om: np.ndarray, qual: np.ndarray, alpha0: float, against_base: float,
                 reverse: bool) -> tuple[list[tuple[bool, float, float, float]], Any] | None:
    """(the trials to score, the raw fit's offset reader) of a plan (see :func:`_fit`), or None where the
    frequencies give no base above 1."""
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
    offset = lambda s_, b_: _offset(c, rows, s_, b_, alpha0)
    sigma = -sigma if reverse else sigma  # the rows in reverse order (ESPnet's reverse=True): sigma < 0
    return _trials(sigma, b, offset, against_base), lambda: offset(sigma, b)


def _score_trials(c: _Cand, rows: FitRows, trials: list[tuple[bool, float, float, float]],
                  floor: float, w: int | None, against_base: float,
                  raw_offset: Any) -> tuple[float, bool, dict[str, float]] | None:
    """The best (score, snapped?, params) of ``trials`` (see :func:`_fit`), then of the raw fit (unsnapped sigma,
    base, ``raw_offset()``). The raw fit is skipped where it cannot win: its score is at least the noise floor times
    UNSNAPPED_PENALTY and the plan's width and base factors, and a tie keeps the earlier trial."""
    best = None
    plan_factor = (1.0 if w is None or c.d == w else 3.0) * (3.0 if c.extra else 1.0)
    for snapped, s_, b_, o_ in trials:
        if not snapped and best is not None and best[0] <= floor * UNSNAPPED_PENALTY * plan_factor:
            break
        o_ = raw_offset() if not snapped else o_
        key = ("residual", c.plan_key(), snapped, s_, b_, o_)
        if key not in rows.memo:
            rows.memo[key] = _trial_residual(c, rows, snapped, s_, b_, o_)
        if rows.memo[key] is None:
            continue
        a_s, r = rows.memo[key]
        is_snapped = snapped and all(_is_simple(v) for v in (s_, b_, o_, a_s))
        # residuals below the table's own rounding noise do not discriminate: simplicity decides
        score = max(r, floor) * (1.0 if is_snapped else UNSNAPPED_PENALTY) * plan_factor
        score *= 1.0 if b_ == against_base else 1.5  # ties (b^(-2j/d) = (b^2)^(-j/d)): the checked base
        cand = (score, is_snapped, {"sigma": s_, "base": b_, "offset": o_, "amplitude": a_s, "residual": r})
        if best is None or cand[0] < best[0]:
            best = cand
    return best


def _trial_residual(c: _Cand, rows: FitRows, snapped: bool, s_: float, b_: float,
                    o_: float) -> tuple[float, float] | None:
    """(amplitude, max |y - amplitude model| / |amplitude|) of one trial on the plan's columns: the amplitude by
    least squares, snapped to a simple number in a snapped trial; None where it is 0."""
    yy = _used_columns(c, rows)
    m = rows.model(c, s_, b_, o_, shared=snapped)
    mm = float((m * m).sum())
    a = float((yy * m).sum() / mm) if mm > 0 else 0.0
    a_s = _snap(a, 1e-4) if snapped else a
    if a_s == 0:
        return None
    return a_s, float(np.max(np.abs(yy - a_s * m))) / abs(a_s)


COPIES_KEPT = 2  # the used-columns copies of the last plans kept per rows (each as large as the rows)


def _used_columns(c: _Cand, rows: FitRows) -> np.ndarray:
    """``rows.y`` at the plan's used columns, a copy read by every trial (its layout, as the model's, fixes the order
    the sums add in); the copies of the last COPIES_KEPT column sets are kept (plans come in runs of one set)."""
    cols = c.kinds >= 0
    kept = rows.memo.setdefault("columns", {})
    key = cols.tobytes()
    if key not in kept:
        if len(kept) >= COPIES_KEPT:
            del kept[next(iter(kept))]
        kept[key] = rows.y[:, cols]
    return kept[key]


def _offset(c: _Cand, rows: FitRows, sigma: float, b: float, alpha0: float) -> float:
    """The offset o read off the slowest sine column, v = alpha sin(w (p + o)), on the rows near the first
    (where arcsin stays on one branch); 0 when there is no such column or the reading is not finite. Read once per
    (column, exponent, sigma, b) on these rows: plans with the same slowest sine column read the same offset."""
    sins = np.nonzero(c.kinds == 0)[0]
    if not sins.size or alpha0 <= 0:
        return 0.0
    j = int(sins[np.argmax(c.e[sins])])
    key = ("offset", j, float(c.e[j]), sigma, b, alpha0)
    if key not in rows.memo:
        rows.memo[key] = _read_offset(rows.y[:, j], rows.p, sigma * b ** (-c.e[j]), alpha0)
    return float(rows.memo[key])


def _read_offset(v: np.ndarray, p: np.ndarray, wj: float, alpha0: float) -> float:
    """The offset of v = alpha0 sin(wj (p + o)) (see :func:`_offset`)."""
    if not abs(wj) > 0:
        return 0.0
    near = abs(wj) * np.abs(p - p[0]) < 0.5  # (wj < 0: the rows in reverse order)
    o = float(np.median(np.arcsin(np.clip(v[near] / alpha0, -1, 1)) / wj - p[near]))
    return o if math.isfinite(o) and abs(o) <= 1e6 else 0.0


def _trials(sigma: float, b: float, offset: Any, against_base: float) -> list[tuple[bool, float, float, float]]:
    """(snapped?, sigma, base, offset) to score: the fitted values snapped to simple numbers, the checked
    base (and sigma 1) when the fit is within 5% of it (a half-precision table's column frequencies are
    too noisy for the 2e-6 snap; the residual then decides), and the raw fit last. ``offset(sigma, base)``
    reads the offset for each snapped trial (it depends on the frequencies); the raw fit's is read by
    :func:`_score_trials`, only where it is scored (NaN here)."""
    s1, b1 = _snap(sigma, 1e-4), _snap(b, 2e-6, 1)
    out = [(True, s1, b1, _snap(offset(s1, b1), 0, 8, absolute=2e-2))]
    one = math.copysign(1.0, sigma)  # sigma < 0: the rows in reverse order
    if abs(math.log(b / against_base)) < 0.05 and abs(math.log(abs(sigma))) < 0.05 and (s1, b1) != (one, against_base):
        out.append((True, one, against_base, _snap(offset(one, against_base), 0, 8, absolute=2e-2)))
    return out + [(False, sigma, b, math.nan)]  # the raw fit last: its offset is read only if it is scored


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
    # (no NaN/Inf entry in the whole table: every row finite, without a second look)
    finite_rows = np.all(np.isfinite(y_all), axis=1) if scan.get("non_finite") else np.ones(rows, dtype=bool)
    zero_rows = np.all(y_all == 0, axis=1)
    # identical rows: a sequence-first buffer broadcast over the batch (two rows that differ rule it out at once)
    if (rows >= 4 and w >= 2 and np.array_equal(y_all[1], y_all[0]) and np.all(y_all[1:] == y_all[:1])
            and not zero_rows.all()):
        return _empty(w, zeroed, {"seq_first": "broadcast"}, against,
                      "every row is the same vector: a (max_len, 1, d) sequence-first buffer added to "
                      "batch-first input (each batch element gets one position for all steps)")
    keep = finite_rows & ~zero_rows
    run = _consecutive_run(pos, keep)
    if len(run) < 8:
        return _too_few_rows(y_all, pos, rows, w, against, zeroed)
    y, p = y_all[run], pos[run]
    floor = _noise_floor(data, y, p)
    fitted = _fit_plans(y, p, w, d, against, floor)
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
    if min(pres.values(), default=0.0) > EXPLAINS * _explaining_floor(yp, pos[sel]) * abs(params["amplitude"] or 1.0):
        # no evaluation reproduces the rows (a corrupted entry, another formula): no precision is read off them
        precision, pnote = UNREAD, (f"no evaluation fits the rows within {EXPLAINS:g} times the noise "
                                                  f"floor (best residual {min(pres.values()):.2g}): no precision named")
    zeroed = _unexplained_zero_rows(best, params, zeroed)
    det = _assemble(best, params, snapped, w, zeroed, precision, pres, against, score, runner)
    det.precision_margin, det.precision_note = pmargin, pnote
    return _named(det, best, params, floor, bad_rows, corrupted, against, pos, rows)


def _explaining_floor(y: np.ndarray, p: np.ndarray) -> float:
    """The noise floor (:func:`_noise_floor`) of rows ``y`` at the precision their values have: a float64 array of
    float32 values (a table rounded to its claimed format) is held to a float32 table's floor."""
    stored = y.astype(np.float32) if y.dtype == np.float64 and narrowest_format(y, ("float32",)) else y
    return _noise_floor(stored, y, p)


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
    sd = detect_sparse(y_all, [int(q) if q.is_integer() else q for q in pos.tolist()])
    if sd.found:
        return as_detection(sd, w, against, zeroed)
    raise ValueError(f"detect needs at least 8 rows at consecutive integer positions for a fit, or >= 3 rows "
                     f"at which a preset or common family member conforms; {sd.reason}")


def _fit_plans(y: np.ndarray, p: np.ndarray, w: int, d: int | None, against: Profile,
               floor: float) -> Detection | tuple[list[Any], list[int], list[str]]:
    """REQ-DETECT-FIT on rows at consecutive positions: every candidate plan fitted and scored, best first; a
    poor winner is refitted without the columns (then rows) that fit nothing, or read as sin/cos by row; plans
    evaluated at each precision join when the winner is unsnapped or above the noise floor. Returns (results,
    corrupted columns, corrupted rows), or the row-parity Detection."""
    om, qual = column_frequencies(y)
    alpha0 = float(np.max(np.abs(y))) if y.size else 1.0  # amplitude guess: the largest |value|
    cands = candidates(w)
    at: dict[tuple[Any, ...], FitRows] = {}  # the rows of the screen and of the full fit, each with its shared columns
    fits: dict[tuple[Any, ...], Any] = {}  # a plan's fit on those rows, once per plan: labels with one column plan
    #                                        (d = w + 1's odd rules, their last column cut) fit the same

    def fit_one(c: _Cand, rows: slice, rev: bool) -> tuple[float, bool, dict[str, float]] | None:
        if (rows.start, rows.stop) not in at:
            at[rows.start, rows.stop] = FitRows(y[rows], p[rows])
        on = at[rows.start, rows.stop]
        key = (rows.start, rows.stop, rev, c.kinds.tobytes(), c.e.tobytes(), c.d, bool(c.extra))
        if key not in fits:
            fits[key] = _fit(c, on, om, qual, alpha0, floor, w if d is None else d, float(against.base), rev)
        f = fits[key]
        return None if f is None else (f[0], f[1], dict(f[2]))

    fit = lambda cs, rows, rev=False: sorted(((f[0], c, f[1], f[2]) for c in cs if (
        f := fit_one(c, rows, rev)) is not None), key=lambda t: t[0])
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
    for (_score, c, _sn, _), amp in itertools.product(results[:12], amps):
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
    for _score, c, sn, params in results[:8]:
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
    for _score, c, sn, params in results[:8]:
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
