"""The streamed 1-D kernel (SPEC.md REQ-CHECK-STREAM, REQ-CHECK-DECIDE, REQ-CHECK-UNJUDGED, REQ-CHECK-STRUCT): the pass
over a chunk of rows into partial figures (:class:`_Kernel`), the fused TOL-PHASE/TOL-WORKING bound of a chunk, and
the exact and faithful verdicts on the correctly rounded fast path.

Its steps are the one judge's (:mod:`sinpe.reference.checking.judge`) streamed for tables of any size: load (and
values of F), reference, error and bound (TOL-*, unjudged entries, the other working formats), structure (THM-SHIFT
pairs, row hashes), a closer look at entries that fail or are near their bound (the one judgement,
:func:`sinpe.spec.tolerance.classify`; non-finite entries; the oracle's queue), figures.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from sinpe.reference.checking import decide, structure
from sinpe.reference.checking.check.reference import (
    _band_index,
    _bands,
    _certified_plan,
    _max_abs,
    _progression_reference,
    reference_chunk,
)
from sinpe.reference.checking.result import BandFigures
from sinpe.reference.numerics.positions import format_position
from sinpe.reference.numerics.rounding import round_array
from sinpe.reference.oracles import fast as fastref
from sinpe.reference.tables.build import correctly_rounded_block
from sinpe.reference.tables.rounded import Stats as _TableStats
from sinpe.spec.definition import ColumnData, column_data
from sinpe.spec.formats import get_format
from sinpe.spec.profiles import Profile
from sinpe.spec.tolerance import classify, phase_bound_into, phase_constant, ulp_array

from ...inputs import LoadError


def _new_part(stop: int) -> dict[str, Any]:
    """One chunk's partial figures (what :meth:`_Merged.add` reads)."""
    return {"nonfinite": 0, "first_nonfinite": None, "not_in": 0, "first_not_in": None, "undecided": [],
            "over_budget": 0, "n_fail": 0, "fail_rows": [], "band_fail": [], "band_stats": [],
            "worst_abs": (-1.0, 0, 0), "worst_ulp": (-1.0, 0, 0), "stop": stop, "unjudged": 0, "unjudged_row": None,
            "alts": {}, "shift": (0, 0, []), "hashes": None}


def _progression_band(pe_abs: Any, reduction: Any, out: np.ndarray | None = None) -> Any:
    """The progression reference's band: ``reduction`` (its bound on |ref - PE|, the reduction included) + 2^-1000."""
    if out is None:
        return reduction + 2.0 ** -1000
    out[...] = reduction
    out += 2.0 ** -1000
    return out


@dataclass
class _Kernel:
    """One check's streamed kernel (REQ-CHECK-STREAM): its per-column constants, and :meth:`chunk`, the pass over
    rows a..a+step into partial figures (merged by :class:`_Merged` in row order). Each thread reuses its own
    buffers (``local``). The steps of a chunk: load (and values of F), reference, error and bound (TOL-*,
    unjudged entries, the other working formats), structure (THM-SHIFT pairs, row hashes), a closer look at
    entries that fail or are near their bound (non-finite, the oracle's queue), figures."""

    profile: Profile
    d: int
    fmt: Any
    wfmt: Any
    tier: str
    data: Any
    pos: np.ndarray
    pos64: np.ndarray
    check_repr: bool
    max_failures: int
    step: int
    bands: list[BandFigures]
    band_of: np.ndarray
    absamp: float
    fw_max: float
    w_col: np.ndarray
    consts: dict[str, tuple[np.ndarray, np.ndarray, bool]]
    may_unjudge: bool
    alts: list[str]
    plan: Any
    certified: Any
    may_overflow: bool
    progression: Any = None  # the progression kernel as the reference (positions p_0 + i h; _progression_reference)
    cert_stats: Any = field(default_factory=_TableStats)
    local: Any = field(default_factory=threading.local)

    @classmethod
    def build(cls, profile: Profile, d: int, fmt: Any, wfmt: Any, tier: str, data: Any, pos: np.ndarray,
              check_repr: bool, max_failures: int, chunk_entries: int) -> _Kernel:
        pos64 = pos if pos.dtype != object else np.array([float(x) for x in pos], dtype=np.float64)
        cd = column_data(profile, d)
        fw_all = fastref.frequency_words(cd)[4]
        fw_n = fw_all.shape[0]
        # per-column constants of the phase bound c u |alpha| (1 + |P| w_j): -inf in zero columns
        kind, ks = fastref.column_plan(cd)
        w_col = np.where(kind == 2, 0.0, fw_all[np.minimum(ks, fw_n - 1)]) if fw_n else np.zeros(d)
        consts = {w.dtype: _phase_consts(cd, fmt, w, kind, w_col) for w in _workings(fmt, wfmt, tier)}
        absamp = abs(float(cd.amplitude))
        pmax = _max_abs(pos) + abs(float(cd.offset))
        may_unjudge = _may_unjudge(tier, consts[wfmt.dtype], pmax, absamp, fmt)
        # other working formats the report compares with: wider ones when entries go unjudged, F itself (native)
        # when W is wider than F (a failing half-precision table computed in half precision says so)
        alts = [w for w in consts if w != wfmt.dtype and (may_unjudge or get_format(w).precision < wfmt.precision)]
        step = max(1, chunk_entries // max(d, 1))
        return cls(profile, d, fmt, wfmt, tier, data, pos, pos64, check_repr, max_failures,
                   step, _bands(pos64), _band_index(pos64), absamp,
                   float(np.max(np.abs(fw_all))) if fw_n else 0.0, w_col, consts, may_unjudge, alts,
                   structure.pair_plan(profile, d), _certified_plan(profile, d, fmt, tier, pmax),
                   absamp >= fmt.max_finite / 2,
                   _progression_reference(profile, d, fmt, tier, pos, step))

    @cached_property
    def ulp_floor(self) -> float:
        """ulp_F(|alpha| 2^-10): the figures' ulp unit is never below it (near a zero of sin/cos)."""
        return float(ulp_array(np.array([self.absamp * 2.0 ** -10]), self.fmt)[0])

    @property
    def cd(self) -> ColumnData:
        """The column data of the claimed profile: all the reference and the bounds read."""
        return column_data(self.profile, self.d)

    def buf(self, name: str, n: int, dtype: Any = np.float64) -> np.ndarray:
        """This thread's buffer ``name`` of step x d entries, its first n rows."""
        return self.local.__dict__.setdefault(name, np.empty((self.step, self.d), dtype=dtype))[:n]

    def chunk(self, a: int) -> dict[str, Any]:
        """Check rows a..a+step: partial figures, merged in row order."""
        b = min(self.data.shape[0], a + self.step)
        out = _new_part(b)
        y = self._load(a, b, out)
        ref, rn, enc, ref_abs = self._reference(a, b)
        pabs = np.abs(self.pos[a:b].astype(np.float64) + float(self.cd.offset))
        err = self.buf("err", b - a)
        np.subtract(y, ref, out=err)
        if enc is not None and enc.lo is not None:
            err -= enc.lo
        np.abs(err, out=err)
        ulp, allowed = self._bounds(a, pabs, ref, err, out)
        if self.plan is not None:
            self._structure(a, b, y, out)
        self._look_closer(a, b, y, ref, rn, enc, err, allowed, pabs, out, ref_abs)
        self._figures(a, b, err, allowed, ref, ulp, out)
        return out

    def _load(self, a: int, b: int, out: dict[str, Any]) -> np.ndarray:
        """The rows as float64; with ``check_repr`` the count of values not in F (REQ-CHECK-SHAPE dtype)."""
        y = self.buf("y", b - a)
        y[...] = self.data[a:b]
        if self.check_repr:
            notin = round_array(y, self.fmt) != y
            notin &= np.isfinite(y)
            if notin.any():
                r0, c0 = np.argwhere(notin)[0]
                out["not_in"], out["first_not_in"] = int(notin.sum()), (a + int(r0), int(c0), float(y[r0, c0]))
        return y

    def _reference(self, a: int, b: int) -> tuple[np.ndarray, Any, Any, float | None]:
        """(PE, RN_F(PE), its enclosure, an absolute bound on PE's error or None): the correctly rounded fast path
        at the exact and faithful tiers (REQ-TABLE-FAST), else the progression kernel's estimates (its bound E',
        TOL-TABLE-BOUND) or the fast reference (REQ-CHECK-FASTREF; RN, enclosure and bound None)."""
        pchunk = self.pos[a:b]
        rn = enc = ref_abs = None
        if self.certified is not None:
            rn, enc = correctly_rounded_block(self.certified, self.d, pchunk, self.fmt, self.cert_stats, estimate=True)
            ref = enc.v
        elif self.progression is not None:
            ref = self.buf("ref", b - a)
            ref_abs = self.progression.estimate(ref, a, b)
        else:
            ref, _ = reference_chunk(self.profile, self.d, pchunk, False, self.local.__dict__)
        if not np.isfinite(ref).all():  # REQ-CHECK-FINITE: nothing is judged against a non-finite reference
            raise LoadError(f"the reference is not finite at some position from {format_position(pchunk[0])}: phase "
                            f"scale x position x frequency overflows binary64; nothing can be judged")
        return ref, rn, enc, ref_abs

    def _bounds(self, a: int, pabs: np.ndarray, ref: np.ndarray, err: np.ndarray,
                out: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
        """(ulp_F(PE), the bound of every entry): TOL-PHASE/TOL-WORKING fused, with the unjudged entries and the
        other working formats' counts; half or one ulp at the exact and faithful tiers."""
        n, bufs = len(pabs), self.local.__dict__
        ulp = ulp_array(ref, self.fmt, out=self.buf("ulp", n))
        allowed = self.buf("allowed", n)
        if self.tier != "phase":
            np.multiply(ulp, 0.5 if self.tier == "exact" else 1.0, out=allowed)
            return ulp, allowed
        _fused_allowed(pabs, ref, ulp, *self.consts[self.wfmt.dtype], self.fmt, allowed, bufs)
        if self.may_unjudge:
            _count_unjudged(out, allowed, ref, self.absamp, a)
        for wn in self.alts:
            alt = _fused_allowed(pabs, ref, ulp, *self.consts[wn], self.fmt, np.empty_like(allowed), bufs)
            out["alts"][wn] = (int(np.count_nonzero(alt >= self.absamp + np.abs(ref))), int(np.count_nonzero(err > alt)))
        return ulp, allowed

    def _structure(self, a: int, b: int, y: np.ndarray, out: dict[str, Any]) -> None:
        """REQ-CHECK-STRUCT; one row before the chunk, so pairs across its edge count once."""
        plan = self.plan
        ys, yc = y[:, plan.sin_cols], y[:, plan.cos_cols]
        if a > 0:
            prev = np.asarray(self.data[a - 1], dtype=np.float64)
            ys, yc = np.vstack([prev[plan.sin_cols], ys]), np.vstack([prev[plan.cos_cols], yc])
        out["shift"] = structure.shift_violations_pairs(plan, ys, yc, self.pos64[max(a - 1, 0):b], self.fmt.dtype,
                                                        self.wfmt, self.profile, self.d, self.max_failures)
        out["hashes"] = structure.row_hashes(y, plan)

    def _look_closer(self, a: int, b: int, y: np.ndarray, ref: np.ndarray, rn: Any, enc: Any, err: np.ndarray,
                     allowed: np.ndarray, pabs: np.ndarray, out: dict[str, Any], ref_abs: float | None = None) -> None:
        """An entry is decided when |err - allowed| exceeds the fast reference's error bound (``fastref.decide_band``:
        ERROR_ULPS binary64 ulps of |PE| plus |P| max|w| 2^-100, zero at position 0, where it is exact; + 2^-50 of the bound: the
        fused form rounds differently from allowed_abs_error). Only a chunk where some entry fails, is near its
        bound or is NaN is looked at entry by entry: failures, non-finite entries, the oracle's queue."""
        n = b - a
        if ref_abs is None:  # the fast reference: fastref.decide_band, |PE| <= |alpha| for the whole chunk
            prow = fastref.reduction_band(pabs, self.fw_max)
            band = fastref.decide_band
        else:  # the progression reference: within ref_abs of PE everywhere (reduction included)
            prow = np.full_like(pabs, ref_abs)
            band = _progression_band
        slack = self.buf("slack", n)
        np.subtract(err, allowed, out=slack)
        if rn is not None:
            same = np.equal(y, rn, out=self.buf("same", n, bool))
            if same.all() and not self.may_overflow:  # (an inf entry "equal" to an overflowing RN fails)
                return
        elif float(slack.max()) <= -(band(self.absamp, float(prow.max())) + float(allowed.max()) * 2.0 ** -50):
            return
        margin = self.buf("margin", n)
        band(np.abs(ref, out=margin), prow[:, None], out=margin)
        margin += allowed * 2.0 ** -50
        finite = np.isfinite(y)
        if not finite.all():
            _non_finite(out, y, finite, err, slack, a)
        if rn is not None:
            fail, unsure = _certified_verdicts(y, rn, enc, err, allowed, slack, finite, self.tier == "exact",
                                               None if not self.check_repr else round_array(y, self.fmt) == y, self.fmt)
        else:
            fail, unsure = classify(slack, margin)
        if unsure.any():
            at = np.argwhere(unsure)
            out["over_budget"] = max(0, len(at) - decide.MAX_ORACLE)  # REQ-CHECK-DECIDE's budget: undecided
            for r0, c0 in at[:decide.MAX_ORACLE]:
                out["undecided"].append((a + int(r0), int(c0), float(y[r0, c0]), float(pabs[r0] * self.w_col[c0])))
        if fail.any():
            self._failures(a, b, y, ref, err, allowed, fail, out)

    def _failures(self, a: int, b: int, y: np.ndarray, ref: np.ndarray, err: np.ndarray, allowed: np.ndarray,
                  fail: np.ndarray, out: dict[str, Any]) -> None:
        """Count the failing entries, keep the first ``max_failures`` and count them per position band."""
        out["n_fail"] += int(fail.sum())
        for r0, c0 in np.argwhere(fail)[:self.max_failures]:
            if len(out["fail_rows"]) < self.max_failures:
                out["fail_rows"].append((a + int(r0), int(c0), float(y[r0, c0]), float(ref[r0, c0]),
                                         float(err[r0, c0]), float(allowed[r0, c0]), ""))
        per_band = np.bincount(self.band_of[a:b], weights=fail.sum(axis=1), minlength=len(self.bands))
        for i in np.nonzero(per_band)[0]:
            out["band_fail"].append((int(i), int(per_band[i])))

    def _figures(self, a: int, b: int, err: np.ndarray, allowed: np.ndarray, ref: np.ndarray, ulp: np.ndarray,
                 out: dict[str, Any]) -> None:
        """Abs error, its ratio to the bound and ulp error (ulp of F in the binade of max(|PE|, |alpha| 2^-10):
        near a zero of sin/cos the ulp of PE itself is no useful unit), per row, per band, and the worst."""
        n = b - a
        with np.errstate(over="ignore", invalid="ignore"):
            ratio = np.divide(err, allowed, out=self.buf("ratio", n))
            if self.tier == "exact":  # PE = 0 in float64: ulp/2 underflows to 0; an exact 0 is 0 of it, not 0/0
                ratio[err == 0] = 0.0
            row_ratio = ratio.max(axis=1)  # a NaN ratio makes its row's NaN: counted as infinite
            row_ratio[np.isnan(row_ratio)] = np.inf
            # ulp_F(max(|PE|, |alpha| 2^-10)) = max(ulp_F(PE), ulp_F(|alpha| 2^-10)): ulp_F is monotone in |x|, and
            # ``ulp`` holds ulp_F(PE) (the bounds' own)
            np.maximum(ulp, self.ulp_floor, out=ulp)
            np.divide(err, ulp, out=ulp)
        row_abs, row_ulp = err.max(axis=1), ulp.max(axis=1)
        ra, ru = int(np.argmax(row_abs)), int(np.argmax(row_ulp))
        out["worst_abs"] = (float(row_abs[ra]), a + ra, int(np.argmax(err[ra])))
        out["worst_ulp"] = (float(row_ulp[ru]), a + ru, int(np.argmax(ulp[ru])))
        bo = self.band_of[a:b]
        for i in (bo[:1] if bo[0] == bo[-1] else np.flatnonzero(np.bincount(bo))):  # (np.unique imports numpy.ma)
            sel: Any = slice(None) if bo[0] == bo[-1] else bo == i
            out["band_stats"].append((int(i), n if bo[0] == bo[-1] else int(sel.sum()), float(row_abs[sel].max()),
                                      float(row_ulp[sel].max()), float(row_ratio[sel].max()),
                                      int(out["unjudged_rows"][sel].sum()) if "unjudged_rows" in out else 0))


def _may_unjudge(tier: str, consts: tuple[np.ndarray, np.ndarray, bool], pmax: float, absamp: float,
                 fmt: Any) -> bool:
    """REQ-CHECK-UNJUDGED: can any entry's bound reach |alpha| + |PE|? (else the counting is skipped)"""
    cw, c0, wider = consts
    return tier == "phase" and (float(np.max(c0)) + pmax * float(np.max(cw, initial=-np.inf))) * 1.01 + \
        (float(ulp_array(np.array([absamp]), fmt)[0]) if wider else 0.0) >= absamp


def _non_finite(out: dict[str, Any], y: np.ndarray, finite: np.ndarray, err: np.ndarray, slack: np.ndarray,
                a: int) -> None:
    """REQ-CHECK-FINITE: NaN/Inf entries counted (the first kept) and made failures (infinite error)."""
    bad = ~finite
    out["nonfinite"] += int(bad.sum())
    if out["first_nonfinite"] is None:
        r0, c0 = np.argwhere(bad)[0]
        out["first_nonfinite"] = (a + int(r0), int(c0), float(y[r0, c0]))
    err[bad] = np.inf
    slack[bad] = np.inf


def _certified_verdicts(y: np.ndarray, rn: np.ndarray, enc: Any, err: np.ndarray,
                        allowed: np.ndarray, slack: np.ndarray, finite: np.ndarray, exact: bool,
                        in_fmt: np.ndarray | None, fmt: Any) -> tuple[np.ndarray, np.ndarray]:
    """(fail, undecided) masks from RN_F(PE) (``rn``, certified) and the enclosure |PE - ref - lo| <= bnd
    (``enc``, :class:`~sinpe.reference.tables.rounded.Enclosure`).

    y == RN_F(PE) meets both tiers (TOL-EXACT, TOL-FAITHFUL). At the exact tier any other value of F
    fails. Otherwise (faithful, or a value not in F) |y - PE| <= allowed (ulp(PE) or ulp(PE)/2) is decided
    from the enclosure: ulp(PE) is certain when both ends of [|ref| - |lo| - bnd, |ref| + |lo| + bnd] share
    F's binade, and |y - PE| lies within bnd of err = fl(|fl(y - ref) - lo|) (+ 2^-50 of err, allowed and
    |lo| for the roundings).
    The rest are undecided (Arb settles them)."""
    same = (y == rn) & finite
    other = ~same
    fail = other & in_fmt if in_fmt is not None else other.copy()
    if not exact:
        fail[...] = False
    rest = other & ~fail
    unsure = np.zeros_like(rest)
    n_rest = int(np.count_nonzero(rest))
    if n_rest:
        idx: Any = np.nonzero(rest) if n_rest * 8 < rest.size else ...  # dense: whole arrays, no gathers
        r, b = np.abs(enc.v[idx]), enc.bound_at(idx)
        lw = None if enc.lo is None else np.abs(enc.lo[idx])
        margin = np.add(err[idx], allowed[idx])  # margin = b + (err + allowed + |lo|) 2^-50 + 2^-1074
        wide = np.multiply(r, 2.0 ** -52)        # wide = b + |lo| + |ref| 2^-52 + 2^-1074
        if lw is not None:
            margin += lw
            wide += lw
        margin *= 2.0 ** -50
        for x in (margin, wide):
            x += b
            x += 2.0 ** -1074
        low = np.subtract(r, wide)
        np.maximum(low, 0.0, out=low)
        wide += r
        binade = ulp_array(low, fmt, out=low) == ulp_array(wide, fmt, out=wide)
        sl = slack[idx]
        f = sl > margin
        f &= binade
        u = sl >= np.negative(margin, out=margin)
        u |= ~binade
        u &= ~f
        if idx is ...:
            f &= rest
            u &= rest
        fail[idx] |= f
        unsure[idx] = u
    return fail, unsure


def _workings(fmt: Any, wfmt: Any, tier: str) -> list[Any]:
    """The working format checked, then the wider ones a report may suggest (phase tier only)."""
    if tier != "phase":
        return [wfmt]
    wider = [get_format(w) for w in ("float32", "float64") if get_format(w).precision > wfmt.precision]
    return [wfmt] + wider + ([fmt] if fmt.precision < wfmt.precision else [])


def _phase_consts(cd: ColumnData, fmt: Any, wfmt: Any, kind: np.ndarray, w_col: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """Per-column (c u_W |alpha| |w|, c u_W |alpha|) of the fused TOL-PHASE/TOL-WORKING bound (-inf in zero
    columns) and whether W is wider than F (then + ulp_F(|PE| + e)/2)."""
    c_u = phase_constant(fmt.dtype, base=float(cd.base)) * wfmt.unit_roundoff * abs(float(cd.amplitude))
    return (np.where(kind == 2, -np.inf, c_u * np.abs(w_col)), np.where(kind == 2, -np.inf, c_u),
            wfmt.precision > fmt.precision)


def _fused_allowed(pabs: np.ndarray, ref: np.ndarray, ulp: np.ndarray, cw: np.ndarray, c0: np.ndarray, wider: bool,
                   fmt: Any, out: np.ndarray, bufs: dict[str, Any]) -> np.ndarray:
    """TOL-PHASE/TOL-WORKING for a chunk, in place: :func:`sinpe.spec.tolerance.phase_bound_into` with
    x = |p + o| per row and the per-column rate c u_W |alpha| |w_j| (no theta table is formed)."""
    tmp = None
    if wider:
        tmp = bufs.get("tmp")
        if tmp is None or tmp.shape[0] < out.shape[0] or tmp.shape[1] != out.shape[1]:
            tmp = bufs["tmp"] = np.empty(out.shape)
        tmp = tmp[: out.shape[0]]
    return phase_bound_into(pabs[:, None], cw[None, :], c0[None, :], ref, ulp, fmt, wider, out, tmp)


def _count_unjudged(out: dict[str, Any], allowed: np.ndarray, ref: np.ndarray, absamp: float, a: int) -> None:
    """REQ-CHECK-UNJUDGED: entries whose bound lets every value in [-|alpha|, |alpha|] pass."""
    un = np.abs(ref) + absamp <= allowed
    per_row = un.sum(axis=1)
    out["unjudged"] = int(per_row.sum())
    out["unjudged_rows"] = per_row
    if out["unjudged"]:
        out["unjudged_row"] = a + int(np.argmax(per_row > 0))
