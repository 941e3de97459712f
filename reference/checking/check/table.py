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
  leaves open is ``undecided`` and the verdict at best inconclusive (the one judge's rule,
  :func:`sinpe.reference.checking.judge.verdict`). The worst entry's figures are also recomputed by the oracle.
- At the exact and faithful tiers PE comes from the correctly rounded tables' fast path
  (:func:`sinpe.reference.tables.build.correctly_rounded_block`): RN_F(PE), certified, and an enclosure
  of PE a few binary64 ulps wide or less. y == RN_F(PE) conforms at both tiers, any other value of the
  format fails exact, and the faithful tier is decided from the enclosure (:func:`_certified_verdicts`);
  float64 tables need no Arb at all.
- A table that does not conform is read by detect (:mod:`sinpe.reference.checking.detect`) against the profile:
  ``detected``, and the cause in one sentence (:mod:`sinpe.reference.checking.cause`).
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

import os
import time
from typing import Any

import numpy as np

from sinpe.reference.checking.cause import attach, of_table
from sinpe.reference.checking.check.conclude import (
    _Ctx,
    _entry_reason,
    _failure_list,
    _failure_reason,
    _inconclusive_reason,
    _settle_undecided,
    _structural_reason,
    _worst,
)
from sinpe.reference.checking.check.kernel import _Kernel
from sinpe.reference.checking.check.merge import _Merged
from sinpe.reference.checking.check.reference import positions_array
from sinpe.reference.checking.judge import verdict
from sinpe.reference.checking.loaded import Table
from sinpe.reference.checking.loaders import _finish, _to_numpy, release_pages
from sinpe.reference.checking.result import CheckResult
from sinpe.reference.numerics.positions import format_position
from sinpe.reference.numerics.rounding import narrowest_format, round_array
from sinpe.reference.progress import Progress
from sinpe.reference.threads import Pool
from sinpe.spec.definition import column_data
from sinpe.spec.formats import get_format
from sinpe.spec.profiles import Profile
from sinpe.spec.tolerance import TIERS, working_format

from ...inputs import LoadError

MAX_FAILURES = 10        # failures listed in the report (all are counted)
THREADS = 2              # worker threads for the chunks (the machine's cores, at most)
CHUNK_ENTRIES = 1 << 18  # entries per streamed chunk (2 MiB of float64 a buffer: long enough NumPy calls that two threads
#                          seldom wait on each other between them; 1 << 16 took 2x as long at 16384 x 2048 on 2 cores)


def _new_result(profile: Profile, tier: str, dtype: str, d: int, rows: int, source: str) -> CheckResult:
    return CheckResult(profile=profile.name, profile_flags=profile.cli_flags(),
                       profile_params=profile.params(), tier=tier, dtype=dtype, d=d, rows=rows, source=source)


def check_table(table: np.ndarray | Table, profile: Profile, *, positions: Any = None, dtype: str | None = None,
                tier: str = "phase", d: int | None = None, detect: bool = True, progress: bool | None = None,
                max_failures: int = MAX_FAILURES, chunk_entries: int = CHUNK_ENTRIES,
                threads: int | None = None, working: str | None = None) -> CheckResult:
    """Check a table against ``profile`` at ``tier`` in ``dtype`` (default: the table's own).

    ``table`` is an array (rows, d) or a :class:`~sinpe.reference.checking.loaded.Table` (a memory-mapped one
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
        attach(res, of_table(res))


def _stream(kern: _Kernel, table: Table, progress: bool | None, threads: int | None) -> _Merged:
    """The streamed pass (REQ-CHECK-STREAM): chunks of rows on a small thread pool (NumPy releases the GIL inside
    its loops), merged in row order; a memory-mapped table's pages are released behind it."""
    rows = kern.data.shape[0]
    bar = Progress(rows, f"sinpe check {table.source}", progress, unit="rows")
    mm = getattr(kern.data, "_mmap", None) if table.streamable else None
    merged = _Merged(kern.bands, kern.max_failures, kern.tier, kern.fmt)
    n_threads = max(1, min(THREADS if threads is None else threads, (os.cpu_count() or 1),
                           (rows + kern.step - 1) // kern.step))
    pool = Pool(n_threads) if n_threads > 1 else None
    starts = range(0, rows, kern.step)
    try:
        for part in (pool.map(kern.chunk, starts) if pool is not None else map(kern.chunk, starts)):
            merged.add(part)
            if mm is not None:
                release_pages(kern.data, part["stop"])
            bar.update(part["stop"])
    finally:
        if pool is not None:
            pool.close()
    bar.close()
    return merged


def _conclude(res: CheckResult, kern: _Kernel, merged: _Merged, table: Table, progress: bool | None,
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
    res.verdict = verdict(failed, res.unjudged["count"], res.undecided)
    if failed and res.reason is None:
        res.reason = (_failure_reason(res, n_fail, rows * d, fmt, wfmt) if n_fail else _structural_reason(res.structural))
    elif res.verdict == "inconclusive":
        res.reason = _inconclusive_reason(res, fmt, wfmt, rows * d)
    res.bands = [bd for bd in kern.bands if bd.rows]
    if detect and not res.conformant:
        res.detected = _detect(data, pos, profile, d)
        attach(res, of_table(res))


def _prepare(table: Any, profile: Profile, positions: Any, dtype: str | None, tier: str, d: int | None,
             working: str | None) -> tuple[Table, Any, Any, Any, np.ndarray, int, bool, CheckResult]:
    """Input normalisation: (table, data, F, W, positions, d, check_repr, the report begun).

    REQ-CHECK-SHAPE (dtype): a table checked in F holds values of F. Decimal text denotes the F value
    nearest to it (rounded here); a binary table stored wider than F is tested entry by entry (``check_repr``)."""
    if tier not in TIERS:
        raise LoadError(f"unknown tier {tier!r}; use one of {', '.join(TIERS)}")
    if not isinstance(table, Table):
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


def _detect(data: np.ndarray, pos: np.ndarray, profile: Profile, d: int | None = None) -> dict[str, Any] | None:
    """What ``detect`` says the table is (on a sample of rows); None when detect cannot tell. (detect and its
    oracles are imported here: a table that conforms never needs them, issue 28.1.)"""
    from sinpe.reference.checking.detect.fit import detect_table

    try:
        p = pos if len(pos) == data.shape[0] else None
        return detect_table(data, positions=p, against=profile, d=d).to_json()
    except ValueError as e:
        return {"error": str(e)}
