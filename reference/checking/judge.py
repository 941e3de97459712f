"""The one judge of every kind (SPEC.md REQ-CHECK-VERDICT, REQ-CHECK-DECIDE, REQ-CHECK-UNJUDGED, REQ-CHECK-GRID,
REQ-CHECK-ROPE): bounds -> classify -> escalation -> failures -> figures -> verdict and reason.

A kind gives the judge a :class:`Reference` for its table: PE in float64, the argument of each entry's bound (theta;
NaN in a zero column), each entry's amplitude, a bound on the reference's own error, and the certified enclosure of
any entry (the oracle). :func:`judge` then compares every entry y of a table claimed to be in a format F with it
under a tolerance tier (TOL-*, :func:`sinpe.spec.tolerance.allowed_abs_error`, the phase bound TOL-WORKING's: a
float16/bfloat16 table is by default held to a float32 evaluation rounded once): the reference decides every entry
whose error is clear of the bound by more than its own error (:func:`sinpe.spec.tolerance.classify`); the rest go
to the one escalation (:class:`~sinpe.reference.checking.decide.Escalation`). The verdict is written by
:func:`verdict` for every kind (the streamed 1-D kernel and the application check too): ``fails`` when some entry is
certainly outside (or a finding of the kind's own, a structural violation), else ``inconclusive`` when some entry
could not be judged (its bound lets any value in [-|alpha|, |alpha|] pass, REQ-CHECK-UNJUDGED) or decided, else
``conforms``; the reasons are :func:`failing_words` and :func:`inconclusive_words`.

>>> import numpy as np
>>> from sinpe.spec.rotary import get_rotary
>>> from sinpe.reference.oracles.angles import rotary_plan
>>> plan = rotary_plan(get_rotary("llama"), 8, list(range(16)), "cos")
>>> y = plan_reference(plan).values.astype(np.float32)
>>> check_plan(y, plan, "llama", kind="rotary").verdict
'conforms'
>>> y[3, 1] += np.float32(0.01)
>>> r = check_plan(y, plan, "llama", kind="rotary")
>>> r.verdict, r.n_failures, r.failures[0].position, r.reason
('fails', 1, '3', '1 of 128 entries exceed the phase tolerance in float32, first at position 3 column 1')
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from sinpe.reference.checking.decide import Escalation, entry_bound, undecided_words
from sinpe.reference.checking.result import CheckResult, Failure
from sinpe.reference.oracles import fast as fastref
from sinpe.spec.formats import get_format
from sinpe.spec.tolerance import TIERS, allowed_abs_error, classify, error_ulps, ulp_array, unjudged, working_format

if TYPE_CHECKING:  # the angle plans' oracle (mpmath) is imported by the kinds that have one (plan_reference)
    from sinpe.reference.oracles.angles import AnglePlan

MAX_LISTED = 10
NP_FORMATS = {np.dtype(np.float64): "float64", np.dtype(np.float32): "float32", np.dtype(np.float16): "float16"}


def table_format(table: np.ndarray, dtype: str | None) -> str:
    """The format a table is judged in: ``dtype`` if given, else the one its NumPy dtype stores."""
    if dtype is not None:
        return get_format(dtype).dtype
    if table.dtype not in NP_FORMATS:
        raise ValueError(f"cannot tell the format of a {table.dtype} table; pass dtype=")
    return NP_FORMATS[table.dtype]


@dataclass
class Reference:
    """What a kind gives the judge for a table of (rows, d) entries: ``values`` (PE in float64), ``theta`` (the
    argument of each entry's phase bound; NaN where the column or row is identically zero), ``amplitude`` (each
    entry's |alpha|, broadcast against the values), ``error`` (a bound on |values - PE|), ``base`` (TOL-PHASE-C's),
    ``enclose(r, j, prec)`` (certified exact endpoints around PE, the oracle) and the labels of rows and columns."""

    values: np.ndarray
    theta: np.ndarray
    amplitude: np.ndarray
    error: np.ndarray
    base: float
    enclose: Callable[[int, int, int], tuple[Any, Any]]
    labels: list[str]
    row_labels: list[str]

    @property
    def shape(self) -> tuple[int, int]:
        return int(self.values.shape[0]), int(self.values.shape[1])


def plan_reference(plan: AnglePlan) -> Reference:
    """The reference of a grid, rotary or channel plan (:mod:`sinpe.reference.oracles.angles`): the float64
    evaluation within ``fast.error_bound`` of PE (plus two binary64 ulps), each column with its axis's amplitude,
    the interval oracle for the entries that evaluation cannot decide."""
    from sinpe.reference.oracles.angles import _at_prec, _Certified, _mid, reference_f64

    values, theta = reference_f64(plan)
    amps = np.array([float(_mid(a)) for a in _at_prec(plan.amplitude, 128)] or [1.0])
    error = fastref.error_bound(values, np.nan_to_num(theta)) + 2 * np.spacing(np.abs(values))
    cert = _Certified(plan)
    return Reference(values, theta, np.abs(amps[plan.axes])[None, :], error, plan.base, cert.enclose, plan.labels,
                     plan.row_labels)


def check_plan(table: Any, plan: AnglePlan, profile: str | None, *, kind: str = "grid", dtype: str | None = None,
               tier: str = "phase", working: str | None = None, max_failures: int = MAX_LISTED) -> CheckResult:
    """:func:`judge` of ``table`` against a plan's reference (:func:`plan_reference`)."""
    if tier not in TIERS:
        raise ValueError(f"unknown tolerance tier {tier!r}; tiers: {', '.join(TIERS)}")
    rows, d = plan.shape
    if np.shape(table) != (rows, d):
        return shape_finding(table, (rows, d), profile, kind, dtype, tier, working)
    return judge(table, plan_reference(plan), profile, kind=kind, dtype=dtype, tier=tier, working=working,
                 max_failures=max_failures)


def shape_finding(table: Any, shape: tuple[int, int], profile: str | None, kind: str, dtype: str | None, tier: str,
                  working: str | None) -> CheckResult:
    """A table of another shape than the profile's: a finding (one failure: the shape itself; no entry compared)."""
    arr = np.asarray(table)
    res = _begun(arr, shape, profile, kind, dtype, tier, working)
    res.verdict, res.reason = "fails", f"shape {tuple(arr.shape)} is not the profile's {shape}"
    res.n_failures = 1
    return res


def _begun(arr: np.ndarray, shape: tuple[int, int], profile: str | None, kind: str, dtype: str | None, tier: str,
           working: str | None) -> CheckResult:
    fmt = get_format(table_format(arr, dtype))
    wfmt = working_format(fmt, working) if tier == "phase" else fmt
    return CheckResult(profile, "", {}, tier, fmt.dtype, shape[1], shape[0], width=shape[1], kind=kind,
                       working=wfmt.dtype)


def judge(table: Any, ref: Reference, profile: str | None, *, kind: str, dtype: str | None = None,
          tier: str = "phase", working: str | None = None, max_failures: int = MAX_LISTED) -> CheckResult:
    """Every entry of ``table`` (the reference's shape) against ``ref`` under ``tier`` in ``dtype`` (default: the
    table's own), the phase bound for a table computed in ``working``; the first ``max_failures`` failures listed."""
    arr = np.asarray(table)
    res = _begun(arr, ref.shape, profile, kind, dtype, tier, working)
    fmt, wfmt = get_format(res.dtype), get_format(res.working)
    y = arr.astype(np.float64)
    allowed, free = bounds(ref, tier, fmt, wfmt)
    err = np.abs(y - ref.values)
    bad, unsure = classify_entries(y, ref.values, ref.error, allowed, err)
    res.oracle_decided, res.undecided = escalate(y, ref, bad, unsure, tier, fmt, wfmt)
    figures(res, ref, y, err, allowed, free, fmt)
    res.failures = failures(ref, y, err, allowed, bad, fmt, tier, max_failures)
    res.n_failures = int(bad.sum())
    res.verdict = verdict(res.n_failures > 0, res.unjudged["count"], res.undecided)
    res.reason = table_reason(res, wfmt)
    return res


def bounds(ref: Reference, tier: str, fmt: Any, wfmt: Any) -> tuple[np.ndarray, np.ndarray]:
    """(allowed, unjudged) per entry: TOL-* with each entry's amplitude (REQ-CHECK-UNJUDGED: a bound that lets
    every value in [-|alpha|, |alpha|] pass judges nothing)."""
    amp = np.broadcast_to(ref.amplitude, ref.values.shape)
    allowed = allowed_abs_error(tier, fmt, ref.values, ref.theta, amp, base=ref.base, working=wfmt)
    return allowed, unjudged(allowed, ref.values, amp)


def classify_entries(y: np.ndarray, ref: np.ndarray, error: np.ndarray, allowed: np.ndarray,
                     err: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(fails, unsure) of every entry y against a reference within ``error`` of PE under its bound ``allowed``
    (:func:`sinpe.spec.tolerance.classify`; a NaN/Inf entry fails): the one per-entry judgement of every kind. Where
    the reference is exact (``error`` 0) nothing is unsure: the entry passes iff ``|y - PE| <= allowed``."""
    with np.errstate(invalid="ignore"):
        e = np.abs(y - ref) if err is None else err
        fails, unsure = classify(np.where(np.isfinite(y), e - allowed, np.inf), error)
        unsure &= np.asarray(error) > 0
        return fails, unsure


def escalate(y: np.ndarray, ref: Reference, bad: np.ndarray, unsure: np.ndarray, tier: str, fmt: Any,
             wfmt: Any) -> tuple[int, int]:
    """REQ-CHECK-DECIDE: the entries the reference cannot decide go to the oracle at rising precision (its cap and
    budget, :class:`Escalation`); those that fail are marked in ``bad``. Returns (decided, undecided)."""
    esc = Escalation()
    at = list(zip(*np.nonzero(unsure), strict=True))
    esc.skip(max(0, len(at) - esc.room()))  # past the budget: undecided
    amp = np.broadcast_to(ref.amplitude, ref.values.shape)
    for r, j in at[:esc.room()]:
        bound = entry_bound(tier, fmt, ref.theta[r, j], float(amp[r, j]), ref.base, wfmt)
        bad[r, j] |= esc.decide(_enclosure(ref, int(r), int(j)), y[r, j], bound) is False
    return esc.decided, esc.undecided


def _enclosure(ref: Reference, r: int, j: int) -> Any:
    return lambda prec: ref.enclose(r, j, prec)


def figures(res: CheckResult, ref: Reference, y: np.ndarray, err: np.ndarray, allowed: np.ndarray, free: np.ndarray,
            fmt: Any) -> None:
    """Max |error| (inf with a NaN/Inf entry), in ulps, of the bound; the worst entry (the first non-finite
    one, else the largest error: absolute at the phase tier, in ulps otherwise); the unjudged entries."""
    ulp = error_ulps(err, ref.values, fmt, np.broadcast_to(ref.amplitude, ref.values.shape))
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.nan_to_num(err / allowed, nan=np.inf)
    nonfinite = ~np.isfinite(y)
    res.non_finite = int(nonfinite.sum())
    res.max_abs_error = math.inf if res.non_finite else float(err.max(initial=0.0))
    res.max_ulp_error = math.inf if res.non_finite else float(ulp.max(initial=0.0))
    res.max_bound_ratio = float(ratio.max(initial=0.0))
    if err.size:
        at = np.argmax(nonfinite) if res.non_finite else np.argmax(err if res.tier == "phase" else ulp)
        r, j = np.unravel_index(at, err.shape)
        res.worst = {"position": ref.row_labels[r], "column": int(j), "label": ref.labels[j]}
    count = int(free.sum())
    first = ref.row_labels[int(np.argmax(free.any(axis=1)))] if count else None
    res.unjudged = unjudged_figures(count, res.entries, first)


def unjudged_figures(count: int, entries: int, first: Any) -> dict[str, Any]:
    """REQ-CHECK-UNJUDGED's figures of every result: ``{count, share, from_position}``."""
    return {"count": count, "share": count / entries if entries else 0.0, "from_position": first}


def failures(ref: Reference, y: np.ndarray, err: np.ndarray, allowed: np.ndarray, bad: np.ndarray, fmt: Any,
             tier: str, max_failures: int) -> list[Failure]:
    """The first failing entries in row order (no ``sinpe table`` writes a grid or a cache: ``repro`` and
    ``python`` are empty; the check's ``reproduce`` command gives the verdict)."""
    out = []
    for r, j in np.argwhere(bad)[:max_failures]:
        u = float(ulp_array(np.array([ref.values[r, j]]), fmt)[0])
        out.append(Failure(position=ref.row_labels[r], column=int(j), label=ref.labels[j], value=float(y[r, j]),
                           reference=float(ref.values[r, j]), abs_error=float(err[r, j]),
                           allowed=float(allowed[r, j]), ulp_error=float(err[r, j]) / u,
                           reason="non-finite" if not math.isfinite(y[r, j]) else f"|error| > {tier} tolerance",
                           repro="", python="", row=int(r)))
    return out


# --- the verdict and its reason, for every kind ----------------------------------------------------------------

def verdict(failed: bool, unjudged: int, undecided: int) -> str:
    """REQ-CHECK-VERDICT: ``fails`` when something failed, else ``inconclusive`` when some entry could not be judged
    (REQ-CHECK-UNJUDGED) or decided (REQ-CHECK-DECIDE), else ``conforms``.

    >>> verdict(False, 0, 0), verdict(False, 3, 0), verdict(True, 3, 1)
    ('conforms', 'inconclusive', 'fails')
    """
    return "fails" if failed else ("inconclusive" if unjudged or undecided else "conforms")


def bound_words(tier: str, dtype: str, working: str) -> str:
    """The bound a table is held to, in words: ``the phase tolerance in float16 computed in float32 (TOL-WORKING)``."""
    wider = get_format(working).precision > get_format(dtype).precision and tier == "phase"
    return f"the {tier} tolerance in {dtype}" + (f" computed in {working} (TOL-WORKING)" if wider else "")


def failing_words(n: int, entries: int, bound: str, first: tuple[Any, Any] | None = None) -> str:
    """``N of E entries exceed BOUND[, first at position p column j]``: the reason of every failing comparison."""
    return f"{n} of {entries} entries exceed {bound}" + (f", first at position {first[0]} column {first[1]}"
                                                           if first is not None else "")


def inconclusive_words(unjudged: dict[str, Any], entries: int, bound: str, undecided: int,
                       open_words: str | None = None, reach: str = "[-|alpha|, |alpha|]", also: str = "") -> str:
    """Why nothing failed yet nothing conforms, for every kind: the entries ``bound`` cannot judge (it lets any
    value in ``reach`` pass, REQ-CHECK-UNJUDGED), from where (and ``also``, what would judge them), and the entries
    left open (``open_words``, by default the oracle's: :func:`~sinpe.reference.checking.decide.undecided_words`)."""
    words = [open_words or undecided_words(undecided)] if undecided else []
    if not unjudged["count"]:
        return "inconclusive: " + words[0]
    s = (f"inconclusive: {unjudged['count']} of {entries} entries ({100 * unjudged['share']:.3g} %) could not be "
         f"judged, from position {unjudged['from_position']} on: there {bound} lets any value in {reach} pass{also}")
    return "; ".join([s] + words)


def table_reason(res: CheckResult, wfmt: Any) -> str | None:
    """The reason of a judged table (None when it conforms)."""
    bound = bound_words(res.tier, res.dtype, wfmt.dtype)
    if res.verdict == "fails":
        first = (res.failures[0].position, res.failures[0].column) if res.failures else None
        return failing_words(res.n_failures, res.entries, bound, first)
    if res.verdict == "inconclusive":
        return inconclusive_words(res.unjudged, res.entries, bound, res.undecided)
    return None
