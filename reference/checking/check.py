"""Conformance check of a third-party table (SPEC.md REQ-CHECK-CONFORM, REQ-CHECK-DECIDE, REQ-CHECK-SHAPE, REQ-CHECK-REPRO).

A table y (rows = positions, columns = channels, values in ``dtype``) conforms to a profile P at a
tier (TOL-EXACT / TOL-FAITHFUL / TOL-PHASE, :mod:`sinpe.spec.tolerance`) when every entry satisfies
``|y[i, j] - PE_P(p_i)[j]| <= allowed_abs_error(tier, dtype, PE, theta, amplitude)`` (REQ-CHECK-CONFORM).

How it is decided, fast and without false verdicts (REQ-CHECK-DECIDE):

- PE comes from :mod:`sinpe.reference.oracles.fast` (about 1 ulp of binary64, error bound
  ``fastref.error_bound``), in row chunks: a memory-mapped ``.npy`` is streamed with bounded memory.
- An entry whose error is farther than that bound from its tolerance is decided on the spot. The few
  within the bound (for float32 tables, about one in 10^7) are decided by the Arb oracle
  (:func:`sinpe.reference.oracles.arb.enclose`) through the escalation every kind shares
  (:mod:`sinpe.reference.checking.decide`: rising precision up to its cap, a budget per table); what it
  leaves open is ``undecided`` and the verdict at best inconclusive. The worst entry's figures are also
  recomputed by the oracle.
- At the exact and faithful tiers PE comes from the correctly rounded tables' fast path
  (:func:`sinpe.reference.tables.build.correctly_rounded_block`): RN_F(PE), certified, and an enclosure
  of PE a few binary64 ulps wide or less. y == RN_F(PE) conforms at both tiers, any other value of the
  format fails exact, and the faithful tier is decided from the enclosure (:func:`_certified_verdicts`);
  float64 tables need no Arb at all.
- NaN/Inf entries are failures (reason ``non-finite``); a table of the wrong shape is a finding with
  the reason (``width``, ``transposed``) and is not compared entry by entry (REQ-CHECK-SHAPE); a table
  checked in a ``dtype`` narrower than the one it is stored in must hold values of that dtype
  (reason ``dtype``); decimal text (.csv/.json) is first rounded to the dtype checked.

Every failure carries a one-line reproduction: the ``sinpe table`` command writing the correctly
rounded reference row, and a Python snippet printing the exact reference entry (REQ-CHECK-REPRO).

>>> import numpy as np
>>> from sinpe.spec.profiles import get_profile
>>> from sinpe.reference.implementations.numpy_impl import pe_table
>>> vas = get_profile("vaswani")
>>> r = check_table(pe_table(vas, 8, np.arange(100), "float32"), vas, tier="phase", detect=False)
>>> r.conformant, r.dtype, r.d, r.rows
(True, 'float32', 8, 100)
>>> bad = pe_table(vas, 8, np.arange(100), "float32")[:, [1, 0, 3, 2, 5, 4, 7, 6]]   # sin/cos swapped
>>> r = check_table(bad, vas, detect=False)
>>> r.conformant, r.n_failures, r.failures[0].position, r.failures[0].column
(False, 800, '0', 0)
>>> r.failures[0].repro
'sinpe table --profile vaswani --d 8 --positions 0 --dtype float32 --out pe.npy  # column 0'
"""
from __future__ import annotations

import math
import os
import threading
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from sinpe.spec.definition import ColumnData, column_data
from sinpe.spec.formats import get_format
from sinpe.spec.profiles import Profile
from sinpe.spec.tolerance import TIERS, allowed_abs_error, classify, phase_bound_into, phase_constant, ulp_array, working_format

from sinpe.reference.oracles import fast as fastref
from sinpe.reference.checking.loaders import LoadError, Table, release_pages
from sinpe.reference.numerics.positions import format_position
from sinpe.reference.numerics.rounding import narrowest_format, round_array
from sinpe.reference.checking import structure
from sinpe.reference.progress import Progress
from sinpe.reference.checking import decide
from sinpe.reference.checking.decide import Escalation, entry_bound, undecided_words
from sinpe.reference.checking.result import BandFigures, CheckResult, Failure
from sinpe.reference.tables import progression
from sinpe.reference.tables.build import correctly_rounded_block
from sinpe.reference.tables.rounded import Plan as _TablePlan, Stats as _TableStats

MAX_FAILURES = 10        # failures listed in the report (all are counted)
THREADS = 2              # worker threads for the chunks (the machine's cores, at most)
CHUNK_ENTRIES = 1 << 16  # entries per streamed chunk (512 KiB of float64 per buffer: stays in cache)


# --- positions ------------------------------------------------------------------------------------

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


# --- the column plan as slices ----------------------------------------------------------------------

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


# --- oracle decisions -----------------------------------------------------------------------------

def oracle_entry(profile: Profile, d: int, position: Any, j: int, prec: int = 128) -> tuple[Any, Any]:
    """The Arb enclosure of PE(position)[j] as exact mpmath endpoints (lo, hi)."""
    from sinpe.reference.oracles.arb import _endpoints, enclose
    return _endpoints(enclose(profile, d, Fraction(position), j, prec))


# --- progress -------------------------------------------------------------------------------------

# --- the check ------------------------------------------------------------------------------------

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


def _snippet(profile: Profile, d: int, pos: str, j: int, fmt: str) -> str:
    args = [repr(profile.name or "vaswani")]
    if profile.name is None:
        base = __import__("sinpe.spec.profiles", fromlist=["PRESETS"]).PRESETS["vaswani"]
        for k in ("layout", "shift", "base", "phase_scale", "amplitude", "offset", "odd"):
            v = getattr(profile, k)
            if v != getattr(base, k):
                args.append(f"{k}={str(v)!r}" if k not in ("layout", "odd") else f"{k}={v!r}")
    return ("python -c \"from sinpe.spec import get_profile; from sinpe.reference.oracles.arb import rounded_table; "
            f"print(rounded_table(get_profile({', '.join(args)}), {d}, ['{pos}'], '{fmt}')[0, {j}])\"")


def _new_result(profile: Profile, tier: str, dtype: str, d: int, rows: int, source: str) -> CheckResult:
    return CheckResult(profile=profile.name, profile_flags=profile.cli_flags(),
                       profile_params=profile.params(), tier=tier, dtype=dtype, d=d, rows=rows, source=source)


def check_table(table: np.ndarray | Table, profile: Profile, *, positions: Any = None, dtype: str | None = None,
                tier: str = "phase", d: int | None = None, detect: bool = True, progress: bool | None = None,
                max_failures: int = MAX_FAILURES, chunk_entries: int = CHUNK_ENTRIES,
                threads: int | None = None, working: str | None = None) -> CheckResult:
    """Check a table against ``profile`` at ``tier`` in ``dtype`` (default: the table's own).

    ``table`` is an array (rows, d) or a :class:`~sinpe.reference.checking.loaders.Table` (a memory-mapped one
    is streamed). ``positions`` (default 0..rows-1) gives each row's position; ``d`` (default: the
    table's width) is the width PE is computed at. ``working`` is the precision the table was computed
    in (TOL-WORKING: None for the default, float32 for float16/bfloat16 tables, else the table's own;
    ``"native"``; ``"float32"``; ``"float64"``). Raises ``LoadError`` (a ValueError) for input that
    cannot be checked at all; shape mismatches are findings (``reason``). The verdict (``verdict``,
    REQ-CHECK-VERDICT) is ``conforms`` only when every entry was judged and within its bound and the
    structural checks (REQ-CHECK-STRUCT) hold; ``inconclusive`` when nothing failed but some entries
    could not be judged (REQ-CHECK-UNJUDGED).
    """
    t0 = time.perf_counter()
    table, data, fmt, wfmt, pos, d, check_repr, res = _prepare(table, profile, positions, dtype, tier, d, working)
    if data.shape[1] != d:  # REQ-CHECK-SHAPE: a finding, not compared entry by entry
        _shape_finding(res, data, pos, profile, d, detect)
    else:
        try:  # after the width check: no column plan is built for a --d the table cannot have (REQ-CHECK-LIMITS)
            column_data(profile, d)
        except ValueError as e:
            raise LoadError(str(e)) from None
        kern = _Kernel.build(profile, d, fmt, wfmt, tier, data, pos, check_repr, max_failures, chunk_entries)
        res.bands = kern.bands
        merged = _stream(kern, table, progress, threads)
        _conclude(res, kern, merged, table, progress, detect)
    res.seconds = time.perf_counter() - t0
    return res


def _shape_finding(res: CheckResult, data: Any, pos: np.ndarray, profile: Profile, d: int, detect: bool) -> None:
    """REQ-CHECK-SHAPE: a table of another width fails with the reason (``width``, ``transposed``)."""
    rows, width = data.shape
    res.verdict = "fails"
    if rows == d and width == len(pos) and width != rows:
        res.reason = f"transposed: shape {data.shape} is (d, positions); a table has one row per position"
    else:
        res.reason = f"width: {width} columns where PE of width d={d} has {d}"
    if detect:
        res.detected = _detect(data, pos, profile, d)


def _stream(kern: "_Kernel", table: Table, progress: bool | None, threads: int | None) -> "_Merged":
    """The streamed pass (REQ-CHECK-STREAM): chunks of rows on a small thread pool (NumPy releases the GIL inside
    its loops), merged in row order; a memory-mapped table's pages are released behind it."""
    rows = kern.data.shape[0]
    bar = Progress(rows, f"sinpe check {table.source}", progress, unit="rows")
    mm = getattr(kern.data, "_mmap", None) if table.streamable else None
    merged = _Merged(kern.bands, kern.max_failures, kern.tier, kern.fmt)
    n_threads = max(1, min(THREADS if threads is None else threads, (os.cpu_count() or 1),
                           (rows + kern.step - 1) // kern.step))
    from concurrent.futures import ThreadPoolExecutor  # local: a small table needs no pool (startup, issue 28)
    pool = ThreadPoolExecutor(n_threads) if n_threads > 1 else None
    starts = range(0, rows, kern.step)
    try:
        for part in (pool.map(kern.chunk, starts) if pool is not None else map(kern.chunk, starts)):
            merged.add(part)
            if mm is not None:
                release_pages(kern.data, part["stop"])
            bar.update(part["stop"])
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    bar.close()
    return merged


def _conclude(res: CheckResult, kern: "_Kernel", merged: "_Merged", table: Table, progress: bool | None,
              detect: bool) -> None:
    """After the pass: the oracle settles what the fast path left undecided, then failures, the worst entries,
    the reason, the structural checks and the verdict (REQ-CHECK-VERDICT)."""
    if kern.cert_stats.oracle:
        res.notes.append(f"{kern.cert_stats.oracle} reference entries the fast path could not round were settled by "
                         f"the certified oracle (REQ-TABLE-FAST)")
    profile, d, fmt, wfmt, pos, data = kern.profile, kern.d, kern.fmt, kern.wfmt, kern.pos, kern.data
    labels = [c.label for c in column_data(profile, d).columns]
    ctx = _Ctx(profile, d, fmt, wfmt, kern.tier, pos, labels, kern.bands, kern.band_of, kern.max_failures, progress)
    n_fail = merged.n_fail + _settle_undecided(ctx, merged.undecided, merged.fail_rows, res, merged.over_budget)
    res.n_failures = n_fail
    res.failures = _failure_list(ctx, merged.fail_rows)
    _worst(ctx, res, data, merged.worst_abs, merged.worst_ulp)
    res.reason = _entry_reason(ctx, table, merged.nonfinite, merged.first_nonfinite, merged.not_in,
                               merged.first_not_in) or res.reason
    res.non_finite = merged.nonfinite
    if merged.nonfinite:
        r0, c0, _ = merged.first_nonfinite
        res.worst = {"position": format_position(pos[r0]), "column": int(c0), "label": labels[c0]}
    res.max_bound_ratio = max((bd.max_bound_ratio for bd in kern.bands if bd.rows), default=0.0)
    rows = data.shape[0]
    merged.finish(res, rows * d, pos, data, kern.plan, fmt, wfmt, profile, kern.max_failures)
    failed = n_fail > 0 or merged.not_in > 0 or res.structural["violations"] > 0
    res.verdict = "fails" if failed else ("inconclusive" if res.unjudged["count"] or res.undecided else "conforms")
    if failed and res.reason is None:
        res.reason = (_failure_reason(res, n_fail, rows * d, fmt, wfmt) if n_fail else _structural_reason(res.structural))
    elif res.verdict == "inconclusive":
        res.reason = _inconclusive_reason(res, fmt, wfmt, rows * d)
    res.bands = [bd for bd in kern.bands if bd.rows]
    if detect and not res.conformant:
        res.detected = _detect(data, pos, profile, d)


def _new_part(stop: int) -> dict[str, Any]:
    """One chunk's partial figures (what :meth:`_Merged.add` reads)."""
    return {"nonfinite": 0, "first_nonfinite": None, "not_in": 0, "first_not_in": None, "undecided": [],
            "over_budget": 0, "n_fail": 0, "fail_rows": [], "band_fail": [], "band_stats": [],
            "worst_abs": (-1.0, 0, 0), "worst_ulp": (-1.0, 0, 0), "stop": stop, "unjudged": 0, "unjudged_row": None,
            "alts": {}, "shift": (0, 0, []), "hashes": None}


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
    ref_err_rel: float   # the fast reference's error, relative to |PE| (fastref.ERROR_ULPS binary64 ulps)
    progression: Any = None  # the progression kernel as the reference (positions p_0 + i h; _progression_reference)
    cert_stats: Any = field(default_factory=_TableStats)
    local: Any = field(default_factory=threading.local)

    @classmethod
    def build(cls, profile: Profile, d: int, fmt: Any, wfmt: Any, tier: str, data: Any, pos: np.ndarray,
              check_repr: bool, max_failures: int, chunk_entries: int) -> "_Kernel":
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
                   absamp >= fmt.max_finite / 2, fastref.ERROR_ULPS * 2.0 ** -52,
                   _progression_reference(profile, d, fmt, tier, pos, step))

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
        """An entry is decided when |err - allowed| exceeds the fast reference's error bound (ERROR_ULPS binary64
        ulps of |PE| plus |P| max|w| 2^-100, zero at position 0, where it is exact; + 2^-50 of the bound: the
        fused form rounds differently from allowed_abs_error). Only a chunk where some entry fails, is near its
        bound or is NaN is looked at entry by entry: failures, non-finite entries, the oracle's queue."""
        n = b - a
        rel, prow = self.ref_err_rel, pabs * (self.fw_max * 2.0 ** -100)
        if ref_abs is not None:  # the progression reference: within ref_abs of PE everywhere (reduction included)
            rel, prow = 0.0, np.full_like(pabs, ref_abs)
        slack = self.buf("slack", n)
        np.subtract(err, allowed, out=slack)
        if rn is not None:
            same = np.equal(y, rn, out=self.buf("same", n, bool))
            if same.all() and not self.may_overflow:  # (an inf entry "equal" to an overflowing RN fails)
                return
        elif float(slack.max()) <= -(rel * self.absamp + float(prow.max()) + 2.0 ** -1000
                                     + float(allowed.max()) * 2.0 ** -50):
            return
        margin = self.buf("margin", n)
        np.abs(ref, out=margin)
        margin *= rel
        margin += prow[:, None]
        margin += 2.0 ** -1000
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
        with np.errstate(over="ignore", invalid="ignore"):
            ratio = err / allowed
            if self.tier == "exact":  # PE = 0 in float64: ulp/2 underflows to 0; an exact 0 is 0 of it, not 0/0
                ratio[err == 0] = 0.0
            row_ratio = np.nan_to_num(ratio, nan=np.inf).max(axis=1)
            np.abs(ref, out=ulp)
            np.maximum(ulp, self.absamp * 2.0 ** -10, out=ulp)
            ulp_array(ulp, self.fmt, out=ulp)
            np.divide(err, ulp, out=ulp)
        row_abs, row_ulp = err.max(axis=1), ulp.max(axis=1)
        ra, ru = int(np.argmax(row_abs)), int(np.argmax(row_ulp))
        out["worst_abs"] = (float(row_abs[ra]), a + ra, int(np.argmax(err[ra])))
        out["worst_ulp"] = (float(row_ulp[ru]), a + ru, int(np.argmax(ulp[ru])))
        bo, n = self.band_of[a:b], b - a
        for i in (bo[:1] if bo[0] == bo[-1] else np.unique(bo)):
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


def _prepare(table: Any, profile: Profile, positions: Any, dtype: str | None, tier: str, d: int | None,
             working: str | None) -> tuple[Table, Any, Any, Any, np.ndarray, int, bool, CheckResult]:
    """Input normalisation: (table, data, F, W, positions, d, check_repr, the report begun).

    REQ-CHECK-SHAPE (dtype): a table checked in F holds values of F. Decimal text denotes the F value
    nearest to it (rounded here); a binary table stored wider than F is tested entry by entry (``check_repr``)."""
    if tier not in TIERS:
        raise LoadError(f"unknown tier {tier!r}; use one of {', '.join(TIERS)}")
    if not isinstance(table, Table):
        from sinpe.reference.checking.loaders import _finish, _to_numpy
        table = _finish(Table(*_to_numpy(table, "table"), "table"))
    data = table.data
    narrow = narrower_values(data, table) if dtype is None else None
    fmt = get_format(dtype or narrow or table.dtype)
    try:
        wfmt = working_format(fmt, working) if tier == "phase" else fmt
    except ValueError as e:
        raise LoadError(str(e)) from None
    rows, width = data.shape
    text_rounded = table.from_text and fmt.dtype != "float64"
    if text_rounded:
        data = round_array(np.asarray(data, dtype=np.float64), fmt)
    check_repr = not table.from_text and not _values_in(table.dtype, fmt.dtype)
    d = width if d is None else int(d)
    pos = positions_array(positions, rows)
    res = _new_result(profile, tier, fmt.dtype, d, rows, table.source)
    res.working, res.width = wfmt.dtype, width
    res.notes.extend(table.notes)
    if narrow:
        res.notes.append(f"every value of this {table.dtype} table is a {narrow} value: checked as a {narrow} table "
                         f"(--dtype {table.dtype} checks it as {table.dtype})")
    if text_rounded:
        res.notes.append(f"text values rounded to {fmt.dtype} (the dtype checked)")
    if len(pos) != rows and not (width != d and data.shape[1] == len(pos)):
        raise LoadError(f"{table.source}: {rows} rows but {len(pos)} positions; pass --positions with one per row")
    return table, data, fmt, wfmt, pos, d, check_repr, res


@dataclass
class _Ctx:
    """What the steps after the streamed pass share: the check's setting and its position bands."""

    profile: Profile
    d: int
    fmt: Any
    wfmt: Any
    tier: str
    pos: np.ndarray
    labels: list[str]
    bands: list[BandFigures]
    band_of: np.ndarray
    max_failures: int
    progress: bool | None


def _settle_undecided(ctx: _Ctx, undecided: list[tuple[int, int, float, float]], fail_rows: list[tuple],
                      res: CheckResult, over_budget: int = 0) -> int:
    """REQ-CHECK-DECIDE: the oracle decides the entries the fast path left undecided; the number that fail.
    Per row, first the correctly rounded values (one Arb call per row): y == RN(PE) meets every tier;
    otherwise exact fails and the others go to the one escalation (:class:`~sinpe.reference.checking.decide.
    Escalation`: Arb at rising precision, its cap and budget); what it leaves open is ``res.undecided``."""
    from sinpe.reference.oracles.arb import rounded_table
    by_row: dict[int, list[tuple[int, int, float, float]]] = {}
    for u in undecided:
        by_row.setdefault(u[0], []).append(u)
    esc = Escalation()
    esc.skip(over_budget)
    n_fail, rn_decided = 0, 0
    obar = Progress(len(by_row), "sinpe check: Arb oracle", ctx.progress)
    for done, (r, items) in enumerate(sorted(by_row.items()), 1):
        p = _pos_value(ctx.pos[r])
        rn = rounded_table(ctx.profile, ctx.d, [p], ctx.fmt)[0]
        for (_, c, yv, th) in items:
            if yv == rn[c] or ctx.tier == "exact":
                rn_decided += 1
                ok, e, pe = yv == rn[c], abs(yv - float(rn[c])), float(rn[c])
            else:
                ok, e, pe = esc.decide_figures(_arb_enclosure(ctx, p, c), yv, _bound(ctx, c, th))
            if ok is False:
                n_fail += 1
                ctx.bands[int(ctx.band_of[r])].failures += 1
                if len(fail_rows) < ctx.max_failures:
                    fail_rows.append((r, c, yv, pe, e, float("nan"), "decided by the Arb oracle"))
        obar.update(done)
    obar.close()
    res.oracle_decided, res.undecided = rn_decided + esc.decided, esc.undecided
    return n_fail


def _arb_enclosure(ctx: _Ctx, p: Fraction, j: int) -> Any:
    return lambda prec: oracle_entry(ctx.profile, ctx.d, p, j, prec)


def _bound(ctx: _Ctx, j: int, theta: float) -> Any:
    cd = column_data(ctx.profile, ctx.d)
    th = np.nan if cd.kinds[j] == "zero" else theta
    return entry_bound(ctx.tier, ctx.fmt, th, float(cd.amplitude), float(cd.base), ctx.wfmt)


def _failure_list(ctx: _Ctx, fail_rows: list[tuple]) -> list[Failure]:
    """The first failures, in row order, each with its bound and reproduction (REQ-CHECK-REPRO)."""
    prof, d, fmt = ctx.profile, ctx.d, ctx.fmt
    out = []
    for (r, c, yv, rv, e, al, why) in sorted(fail_rows, key=lambda t: (t[0], t[1]))[:ctx.max_failures]:
        p = format_position(ctx.pos[r])
        if not math.isfinite(yv):
            why = "non-finite"
        if math.isnan(al):
            ref1, th1 = reference_chunk(prof, d, ctx.pos[r:r + 1], True)
            assert th1 is not None  # want_theta
            cd = column_data(prof, d)
            al = float(allowed_abs_error(ctx.tier, fmt, ref1[:, c], th1[:, c], float(cd.amplitude),
                                         base=float(cd.base), working=ctx.wfmt)[0])
        u = float(ulp_array(np.array([rv]), fmt)[0])
        out.append(Failure(
            position=p, column=c, label=ctx.labels[c], value=yv, reference=rv, abs_error=e, allowed=al,
            ulp_error=e / u, reason=why or f"|error| > {ctx.tier} tolerance",
            repro=f"sinpe table {prof.cli_flags()} --d {d} --positions {p} --dtype {fmt.dtype} --out pe.npy  # column {c}",
            python=_snippet(prof, d, p, c, fmt.name), row=int(r)))
    return out


def _worst(ctx: _Ctx, res: CheckResult, data: Any, worst_abs: tuple, worst_ulp: tuple) -> None:
    """The worst entry and its figures, |error| recomputed by the oracle."""
    if worst_abs[0] >= 0 and math.isfinite(worst_abs[0]):
        _, r, c = worst_abs
        lo, hi = oracle_entry(ctx.profile, ctx.d, _pos_value(ctx.pos[r]), c, 160)
        import mpmath
        yv = float(np.asarray(data[r, c], dtype=np.float64))
        with mpmath.workprec(200):  # at 53 bits a float64 entry's error would round to 0
            res.max_abs_error = float(abs(mpmath.mpf(yv) - (lo + hi) / 2))
    else:
        res.max_abs_error = worst_abs[0] if worst_abs[0] >= 0 else 0.0
    res.max_ulp_error = max(worst_ulp[0], 0.0)
    wr, wc = (worst_ulp[1], worst_ulp[2]) if ctx.tier != "phase" else (worst_abs[1], worst_abs[2])
    res.worst = {"position": format_position(ctx.pos[wr]), "column": int(wc), "label": ctx.labels[wc]}


def _entry_reason(ctx: _Ctx, table: Table, nonfinite: int, first_nonfinite: Any, not_in_format: int,
                  first_not_in: Any) -> str | None:
    """REQ-CHECK-SHAPE findings that are not comparisons: non-finite entries, values not of the format."""
    pos, fmt = ctx.pos, ctx.fmt
    if nonfinite:
        r0, c0, v0 = first_nonfinite
        s = (f"non-finite: {nonfinite} NaN/Inf entries, first at position {format_position(pos[r0])} "
             f"column {c0} ({v0})")
        if fmt.dtype == "float16" and _max_abs(pos) + abs(float(column_data(ctx.profile, ctx.d).offset)) >= 65520:
            s += "; float16 positions >= 65520 overflow to inf"
        return s
    if not_in_format:
        r0, c0, v0 = first_not_in
        return (f"dtype: {not_in_format} of {len(pos) * ctx.d} entries are not {fmt.dtype} values (the table is "
                f"stored as {table.dtype}), first at position {format_position(pos[r0])} column {c0} ({v0!r}); "
                f"a {fmt.dtype} table holds {fmt.dtype} values")
    return None


# --- exact and faithful tiers on the correctly rounded fast path (REQ-CHECK-DECIDE, REQ-TABLE-FAST) ---

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


# --- working precision, unjudged entries, structural checks (REQ-CHECK-VERDICT) --------------------

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


class _Merged:
    """Figures merged over chunks in row order: failures and their first rows, non-finite and non-F entries,
    entries left to the oracle, band figures, the worst entries, unjudged entries, suggested working
    formats, THM-SHIFT, row hashes."""

    def __init__(self, bands: list[BandFigures], max_failures: int, tier: str, fmt: Any) -> None:
        self.bands, self.max_failures, self.tier, self.fmt = bands, max_failures, tier, fmt
        self.nonfinite, self.not_in = 0, 0
        self.first_nonfinite: Any = None
        self.first_not_in: Any = None
        self.undecided: list[tuple[int, int, float, float]] = []
        self.over_budget = 0
        self.n_fail = 0
        self.fail_rows: list[tuple[Any, ...]] = []
        self.worst_abs, self.worst_ulp = (-1.0, 0, 0), (-1.0, 0, 0)
        self.unjudged, self.shift_judged, self.shift_bad = 0, 0, 0
        self.rows_unjudged: list[Any] = []
        self.alts: dict[str, Any] = {}
        self.findings: list[Any] = []
        self.hashes: list[Any] = []

    def add(self, part: dict[str, Any]) -> None:
        self.nonfinite += part["nonfinite"]
        self.first_nonfinite = self.first_nonfinite or part["first_nonfinite"]
        self.not_in += part["not_in"]
        self.first_not_in = self.first_not_in or part["first_not_in"]
        room = max(0, decide.MAX_ORACLE - len(self.undecided))  # REQ-CHECK-DECIDE: past the budget, undecided
        self.undecided.extend(part["undecided"][:room])
        self.over_budget += part["over_budget"] + max(0, len(part["undecided"]) - room)
        self.n_fail += part["n_fail"]
        self.fail_rows.extend(part["fail_rows"][: max(0, self.max_failures - len(self.fail_rows))])
        for i, cnt in part["band_fail"]:
            self.bands[i].failures += cnt
        for i, cnt, mabs, mulp, mrat, unj in part["band_stats"]:
            bd = self.bands[i]
            bd.rows += cnt
            bd.max_abs_error = max(bd.max_abs_error, mabs)
            bd.max_ulp_error = max(bd.max_ulp_error, mulp)
            bd.max_bound_ratio = max(bd.max_bound_ratio, mrat)
            bd.unjudged += unj
        wa, wu = part["worst_abs"], part["worst_ulp"]
        if wa[0] > self.worst_abs[0] or (wa[0] != wa[0] and self.worst_abs[0] == self.worst_abs[0]):
            self.worst_abs = wa
        if wu[0] > self.worst_ulp[0]:
            self.worst_ulp = wu
        self.unjudged += part["unjudged"]
        if part["unjudged"]:
            self.rows_unjudged.append(part["unjudged_row"])
        for w, (u, e) in part["alts"].items():
            cu, ce = self.alts.get(w, (0, 0))
            self.alts[w] = (cu + u, ce + e)
        j, nb, fl = part["shift"]
        self.shift_judged += j
        self.shift_bad += nb
        self.findings.extend(fl)
        if part["hashes"] is not None:
            self.hashes.append(part["hashes"])

    def finish(self, res: CheckResult, entries: int, pos: np.ndarray, data: Any, plan: Any, fmt: Any, wfmt: Any,
               profile: Profile, max_failures: int) -> None:
        first = min(self.rows_unjudged, key=lambda r: abs(float(pos[r]))) if self.rows_unjudged else None
        res.unjudged = {"count": self.unjudged, "share": self.unjudged / entries if entries else 0.0,
                        "from_position": None if first is None else format_position(pos[first])}
        res.alternatives = [{"working": "native" if w == fmt.dtype else w, "unjudged": u, "exceed": e,
                             "note": "fast reference, not decided"} for w, (u, e) in self.alts.items()]
        inj: tuple[int, int, list[Any]] = (0, 0, [])
        if plan is not None and self.hashes:
            pos64 = pos if pos.dtype != object else np.array([float(x) for x in pos], dtype=np.float64)
            inj = structure.injectivity_violations(plan, np.concatenate(self.hashes), data, pos64, fmt.dtype, wfmt, profile)
        found = (self.findings + inj[2])[:max_failures]
        res.structural = {"judged": self.shift_judged + inj[0], "violations": self.shift_bad + inj[1], "findings": found}


def _failure_reason(res: CheckResult, n_fail: int, entries: int, fmt: Any, wfmt: Any) -> str:
    s = f"{n_fail} of {entries} entries exceed the {res.tier} tolerance in {fmt.dtype}"
    if wfmt.precision > fmt.precision and res.tier == "phase":
        s += f" computed in {wfmt.dtype} (TOL-WORKING)"
    if res.failures:
        s += f", first at position {res.failures[0].position} column {res.failures[0].column}"
    native = [a for a in res.alternatives if a["working"] == "native"]
    if native and native[0]["exceed"] < n_fail:
        s += (f"; {n_fail - native[0]['exceed']} of them are within the bound of an evaluation in {fmt.dtype} itself: "
              f"the positions or the phase look computed in {fmt.dtype}, not {wfmt.dtype} "
              f"(--working native checks it as such)")
    return s


def _structural_reason(st: dict[str, Any]) -> str:
    f = st["findings"][0]
    return (f"{st['violations']} row pairs break {f.theorem} beyond TOL-STRUCT's slack, first at positions "
            f"{f.positions[0]} and {f.positions[1]} (frequency {f.k}: angle off by {f.residual:.3g} rad > "
            f"{f.slack:.3g}); rows at rounded positions? reproduce: {f.repro}")


def _inconclusive_reason(res: CheckResult, fmt: Any, wfmt: Any, entries: int) -> str:
    """Why nothing failed yet nothing conforms: entries unjudged (REQ-CHECK-UNJUDGED), entries undecided
    (REQ-CHECK-DECIDE)."""
    u = res.unjudged
    words = [undecided_words(res.undecided)] if res.undecided else []
    if not u["count"]:
        return "inconclusive: " + words[0]
    s = (f"inconclusive: {u['count']} of {entries} entries ({100 * u['share']:.3g} %) could not be judged, from "
         f"position {u['from_position']} on: there the {res.tier} bound of a {fmt.dtype} table computed in "
         f"{wfmt.dtype} lets any value in [-|alpha|, |alpha|] pass")
    judges = [a for a in res.alternatives if a["unjudged"] == 0]
    if judges:
        a = judges[0]
        s += (f"; --working {a['working']} would judge every entry" +
              (" (and by the fast reference every entry is within its bound)" if a["exceed"] == 0 else
               f" ({a['exceed']} entries exceed its bound by the fast reference)"))
    return "; ".join([s] + words)


# (stored, checked): every value of the stored format is a value of the checked one
_SUBSETS = {("float16", "float32"), ("float16", "float64"), ("float32", "float64"), ("bfloat16", "float32"),
            ("bfloat16", "float64")}


def narrower_values(data: Any, table: Table) -> str | None:
    """``bfloat16`` (or ``float16``) when every value of a binary float32 table is one of that format's
    values (:func:`sinpe.reference.numerics.rounding.narrowest_format`, with its distinct-values guard): a
    half-precision table stored as float32 (``--dtype`` overrides).

    >>> from sinpe.reference.tables import table
    >>> t = table("vaswani", 16, 64, "bfloat16").astype(np.float32)
    >>> narrower_values(t, Table(t, "float32", "t")), narrower_values(t + np.float32(2**-20), Table(t, "float32", "t"))
    ('bfloat16', None)
    """
    if table.from_text or table.dtype != "float32" or data.size == 0:
        return None
    return narrowest_format(data, ("bfloat16", "float16"))


def _values_in(stored: str, checked: str) -> bool:
    return stored == checked or (stored, checked) in _SUBSETS


def _max_abs(pos: np.ndarray) -> float:
    return max((abs(float(x)) for x in pos), default=0.0) if pos.dtype == object else float(np.max(np.abs(pos)))


def _pos_value(p: Any) -> Fraction:
    return p if isinstance(p, Fraction) else Fraction(float(p))


def _detect(data: np.ndarray, pos: np.ndarray, profile: Profile, d: int | None = None) -> dict[str, Any] | None:
    """What ``detect`` says the table is (on a sample of rows); None when detect cannot tell."""
    try:
        from sinpe.reference.checking.detect import detect_table
    except ImportError:
        return None
    try:
        p = pos if len(pos) == data.shape[0] else None
        return detect_table(data, positions=p, against=profile, d=d).to_json()
    except ValueError as e:
        return {"error": str(e)}
