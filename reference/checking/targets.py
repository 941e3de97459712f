"""What a check is run on, and the check of it (SPEC.md REQ-CHECK-INPUT, REQ-CHECK-ISOLATE, REQ-CHECK-CALL,
REQ-CHECK-SELECT, REQ-CHECK-AUTO).

A target is a table given as an array or tensor, a file, a ``module:callable`` named by text (run isolated
in a child process), or a Python callable the caller hands over (called in process: the caller already
imported it). :func:`load_target` returns ``(table, positions or None, called)`` with the row and column
selection applied; ``called`` says a callable was asked for width d (a module's buffer, read whole like a
file, is not). :func:`check_target` loads and checks, with the odd-rule ``error`` semantics and
``--profile auto``. The ``sinpe check``/``detect`` commands and :func:`sinpe.check` are shells over these.
"""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from sinpe.reference.checking.check import _new_result, check_table, positions_array
from sinpe.reference.checking.isolate import call_isolated
from sinpe.reference.checking.loaded import Table
from sinpe.reference.checking.loaders import MAX_CALL_ENTRIES, _finish, _to_numpy, call_table, is_callable_target, load_table
from sinpe.reference.checking.result import Failure
from sinpe.reference.numerics.positions import format_position, positions_from_spec
from sinpe.spec.profiles import Profile, get_profile

from ..inputs import LoadError
from ..numerics.binary64 import binary64_parameters

# --- selection (REQ-CHECK-SELECT) ---------------------------------------------------------------------

def index_spec(spec: str, n: int, what: str) -> np.ndarray:
    """Indices into an axis of length n: ``a:b``, ``a:b:step``, ``a:``, ``:b`` or a comma list.

    >>> index_spec("2:", 5, "--rows").tolist(), index_spec("0:6:2", 8, "--columns").tolist(), index_spec("4,1", 5, "--rows").tolist()
    ([2, 3, 4], [0, 2, 4], [4, 1])
    """
    s = spec.strip()
    try:
        if ":" in s:
            parts = s.split(":")
            if len(parts) > 3:
                raise ValueError
            a = int(parts[0]) if parts[0] else 0
            b = int(parts[1]) if parts[1] else n
            step = int(parts[2]) if len(parts) == 3 and parts[2] else 1
            if a < 0 or b < 0 or step < 1:
                raise ValueError
            idx = np.arange(a, min(b, n), step)
        else:
            idx = np.array([int(x) for x in s.split(",")], dtype=np.int64)
    except ValueError:
        raise LoadError(f"{what} {spec!r}: expected a:b, a:b:step, a:, :b or a comma list of indices >= 0") from None
    if idx.size == 0:
        raise LoadError(f"{what} {spec!r} selects nothing (the axis has {n})")
    if idx.min() < 0 or idx.max() >= n:
        raise LoadError(f"{what} {spec!r}: index {int(idx.max())} out of range (the axis has {n})")
    return idx


def _row_indices(n: int, rows: str | None, skip_rows: int | None) -> np.ndarray | None:
    if rows is not None and skip_rows is not None:
        raise LoadError("--rows and --skip-rows: give one of them")
    if skip_rows is not None and skip_rows < 0:
        raise LoadError(f"--skip-rows must be >= 0; got {skip_rows}")
    if rows is None and skip_rows is None:
        return None
    spec = f"{skip_rows}:" if skip_rows is not None else str(rows)
    return index_spec(spec, n, "--rows" if skip_rows is None else "--skip-rows")


def _indices(idx: np.ndarray) -> str:
    if len(idx) > 2 and np.all(np.diff(idx) == idx[1] - idx[0]) and idx[1] > idx[0]:
        step = int(idx[1] - idx[0])
        return f"{idx[0]}:{idx[-1] + 1}" + (f":{step}" if step != 1 else "")
    return ",".join(str(int(i)) for i in idx[:8]) + ("..." if len(idx) > 8 else "")


def select(table: Table, positions: Any, rows: str | None = None, skip_rows: int | None = None,
           columns: str | None = None) -> tuple[Table, Any]:
    """Keep the selected rows and columns: a selected row keeps its position (row i is position i, or the
    i-th of ``positions``); the table's notes say what was selected (REQ-CHECK-SELECT)."""
    if rows is None and skip_rows is None and columns is None:
        return table, positions
    n, w = table.data.shape
    ridx = _row_indices(n, rows, skip_rows)
    cidx = index_spec(columns, w, "--columns") if columns is not None else None
    data = np.asarray(table.data if ridx is None else table.data[ridx])
    if cidx is not None:
        data = data[:, cidx]
    pos = np.arange(n, dtype=np.float64) if positions is None else np.asarray(positions)
    if len(pos) != n:
        raise LoadError(f"{n} rows but {len(pos)} positions")
    notes = list(table.notes)
    if ridx is not None:
        notes.append(f"rows {_indices(ridx)} of {n} selected ({len(ridx)} rows)")
    if cidx is not None:
        notes.append(f"columns {_indices(cidx)} of {w} selected ({len(cidx)} columns)")
    return Table(np.ascontiguousarray(data), table.dtype, table.source, notes), (pos if ridx is None else pos[ridx])


# --- loading -------------------------------------------------------------------------------------------

def _positions(spec: Any, limit: int, why: str) -> np.ndarray | None:
    """Positions from a spec string (``0:2048``, ``0,1,1e6``, a .npy path) or a sequence of numbers."""
    if spec is None:
        return None
    if isinstance(spec, str):
        return positions_from_spec(spec, limit, why)
    if isinstance(spec, range):
        spec = np.arange(spec.start, spec.stop, spec.step)
    if len(spec) > limit:
        raise LoadError(f"{len(spec)} positions: {why}")
    return positions_array(spec if isinstance(spec, np.ndarray) else list(spec), len(spec))


def callable_positions(pos: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """(positions to check at, argument to pass, rounded?) for a callable (REQ-CHECK-INPUT): int64 when
    every position is an integer int64 holds, else float64; a rational that float64 cannot hold is
    passed, and checked, as the float64 the callable got (``rounded``).

    >>> callable_positions(np.array([Fraction(2**53 + 1)], dtype=object))[1].tolist()
    [9007199254740993]
    >>> p, a, r = callable_positions(np.array([Fraction(1, 3), Fraction(2)], dtype=object))
    >>> a.dtype, p.tolist() == a.tolist() == [1 / 3, 2.0], r
    (dtype('float64'), True, True)
    """
    exact_ints = all(Fraction(x).denominator == 1 and abs(x) < 2**63 for x in pos.tolist())
    rounded = pos.dtype == object and not exact_ints
    if rounded:
        pos = np.array([float(x) for x in pos], dtype=np.float64)
    arg = np.array([int(x) for x in pos.tolist()], dtype=np.int64) if exact_ints else pos
    return pos, arg, rounded


def default_callable_positions() -> np.ndarray:
    """Positions a callable is probed at by default: 0..2047 and the places precision breaks
    (2^11 + 1 and 2^12 + 1 lose integers in float16/bfloat16, 65520 overflows float16, 10^5). Not 10^6
    or 10^7: a float32 evaluation is not judged there (TOL-PHASE reaches 2|alpha| near 9.4e5), and a
    callable that builds its table up to the largest position would need 10^7 rows: ask with --positions."""
    extra = [2049, 4097, 65519, 65520, 70000, 10**5]
    return np.array(list(range(2048)) + extra, dtype=np.float64)


def buffer_note(rows: int) -> str:
    """What ``--call buffer`` without positions checks: every row, and whether that reaches past 2048."""
    reach = ("past 2048, where float16 and bfloat16 positions stop being exact" if rows > 2049 else
             "not past 2048, where float16 and bfloat16 positions stop being exact")
    return f"positions 0..{rows - 1}: every row of the buffer, the module's own length ({reach})"


def _callable_table(target: Any, spec: Any, d: int | None, call: str, key: str | None,
                    timeout: float | None) -> tuple[Table, np.ndarray | None, bool]:

    named = isinstance(target, str)
    where = target if named else getattr(target, "__name__", repr(target))
    if call in ("buffer", "forward") and spec is None and (d is not None or call == "buffer"):
        # a module's buffer is a table like a file's: every row, its own width (nothing is asked of it); its
        # forward is asked for its own length (loaders.module_length): both reach past 2048 where the module does
        t = call_isolated(target, None, d, call=call, key=key, timeout=timeout) if named else \
            call_table(target, where, None, d, call=call, key=key)
        if call == "buffer":
            t.notes.append(buffer_note(np.asarray(t.data).shape[0]))
        return t, None, call == "forward"
    if d is None and call != "buffer":
        raise LoadError(f"{where}: pass --d, the width to ask the callable for (it cannot be inferred from a "
                        f"function; --call buffer reads a module's table at its own width)")
    lim = MAX_CALL_ENTRIES // max(1, d or 1)
    pos = _positions(spec, lim, f"at d={d} a callable is asked for at most {lim} ({MAX_CALL_ENTRIES} entries)")
    if pos is None:
        pos = default_callable_positions() if call == "positions" else np.arange(2048, dtype=np.float64)
    pos, arg, rounded = callable_positions(pos)  # int64 or float64 (REQ-CHECK-INPUT)
    asks = call != "buffer"
    if named:
        table = call_isolated(target, arg, d, call=call, key=key, timeout=timeout)  # REQ-CHECK-ISOLATE
    else:
        table = call_table(target, where, np.array(arg, copy=True), d, call=call, key=key)
    if spec is None and asks:
        extra = "".join(f", {int(x)}" for x in pos[2048:])
        table.notes.append(f"positions 0..2047{extra} (the default; --positions to choose)")
    if rounded:
        table.notes.append("positions that are not binary64 values were passed (and are checked) "
                           "as the nearest binary64 values")
    return table, pos, asks


def _file_positions(spec: Any, rows: int, width: int, row_sel: np.ndarray | None) -> Any:
    """A file's --positions: one per row, or (with a row selection) one per selected row, the others
    given a placeholder that the selection drops."""
    positions = _positions(spec, max(rows, width), f"the table has {rows} rows")
    if positions is None or row_sel is None:
        return positions
    if len(positions) != len(row_sel):
        raise LoadError(f"--positions names {len(positions)} positions for the {len(row_sel)} selected rows")
    full = np.zeros(rows, dtype=positions.dtype)
    full[row_sel] = positions
    return full


def load_target(target: Any, d: int | None = None, *, positions: Any = None, key: str | None = None,
                call: str = "positions", timeout: float | None = None, rows: str | None = None,
                skip_rows: int | None = None, columns: str | None = None) -> tuple[Table, Any, bool]:
    """(table, positions or None, called) for ``target``: an array or tensor (rows = positions), a file path,
    ``"module:callable"`` text (run isolated), or a Python callable (called here); the row/column
    selection applied.

    >>> t, pos, called = load_target(np.zeros((3, 4)), columns="1:3")
    >>> t.data.shape, pos.tolist(), called
    ((3, 2), [0.0, 1.0, 2.0], False)
    """
    if callable(target) or (isinstance(target, str) and is_callable_target(target)):
        table, pos, called = _callable_table(target, positions, d, call, key, timeout)
        return (*select(table, pos, rows, skip_rows, columns), called)
    if call != "positions":
        raise LoadError(f"--call {call} applies to a module:callable TARGET, not a file")
    if isinstance(target, (str, Path)):
        table = load_table(str(target), key=key)
    else:
        table = _finish(Table(*_to_numpy(target, "table"), "table"))
    n, w = table.data.shape  # counted before any position is built (REQ-CHECK-LIMITS)
    pos = _file_positions(positions, n, w, _row_indices(n, rows, skip_rows))
    return (*select(table, pos, rows, skip_rows, columns), False)


# --- checking --------------------------------------------------------------------------------------------

def _unnamed(found: dict[str, Any], table: Table, tier: str, dtype: str | None, d: int | None) -> Any:
    """The report when ``auto`` finds nothing to check against: a finding (exit 1), never a pass."""
    res = _new_result(get_profile("vaswani"), tier, dtype or table.dtype, d or table.data.shape[1],
                      table.data.shape[0], table.source)
    res.profile, res.profile_flags, res.profile_params = None, "auto", {}
    res.width = table.data.shape[1]
    res.verdict = "fails"
    res.reason = f"--profile auto: detect names no member of the family to check against: {found.get('sentence')}"
    res.detected, res.profile_source = found, "detected"
    return res


def _must_raise(target: Any, profile: Profile, d: int, load: dict[str, Any], ck: dict[str, Any]) -> Any:
    """DEF-ODD rule ``error``: PE is undefined at odd d, so a conforming callable MUST raise there, and MUST
    conform at the even d + 1, where it is checked (one that returns a table at odd d, or raises at every d,
    does not conform)."""
    try:
        odd_table, _, _ = load_target(target, d, **load)
    except LoadError as e:
        if "raised" not in str(e):
            raise
        raised = str(e)
    else:
        res = _new_result(profile, ck["tier"], ck["dtype"] or odd_table.dtype, d, odd_table.data.shape[0], str(target))
        res.width = odd_table.data.shape[1]
        res.verdict = "fails"
        res.reason = f"returned a table for odd d={d}; odd rule 'error' requires it to raise"
        return res
    table, pos, _ = load_target(target, d + 1, **load)
    res = check_table(table, profile, positions=pos, d=d + 1, **ck)
    res.notes.insert(0, f"raises for odd d={d}, as odd rule 'error' requires ({raised}); checked at the even d={d + 1}")
    return res


def check_target(target: Any, profile: Profile | str, *, d: int | None = None, positions: Any = None,
                 dtype: str | None = None, tier: str = "phase", working: str | None = None, key: str | None = None,
                 call: str = "positions", timeout: float | None = None, detect: bool = True, max_failures: int = 10,
                 rows: str | None = None, skip_rows: int | None = None, columns: str | None = None,
                 zero_rows: str | None = None) -> Any:
    """Load ``target`` (:func:`load_target`) and check it against ``profile`` (REQ-CHECK-CONFORM), a
    :class:`Profile` or ``"auto"`` (check against what detect finds, REQ-CHECK-AUTO); the rows
    ``zero_rows`` names must be exactly 0 (:func:`with_zero_rows`, REQ-CHECK-SELECT)."""

    load = dict(positions=positions, key=key, call=call, timeout=timeout, rows=rows, skip_rows=skip_rows,
                columns=columns)
    ck: dict[str, Any] = dict(dtype=dtype, tier=tier, detect=detect, max_failures=max_failures, working=working)
    is_call = callable(target) or (isinstance(target, str) and is_callable_target(target))
    if isinstance(profile, Profile) and profile.odd == "error" and d is not None and d % 2 and is_call:
        return _must_raise(target, profile, d, load, ck)
    table, pos, _ = load_target(target, d, **load)
    if profile == "auto":
        from sinpe.reference.checking.detect import detect_table  # detect: imported by the checks that need it
        return check_detected(table, pos, detect_table(table.data, positions=pos, d=d), d=d, zero_rows=zero_rows, **ck)
    if not isinstance(profile, Profile):
        raise TypeError(f"check_target: profile is a Profile or 'auto', not {profile!r}")
    return with_zero_rows(table, pos, zero_rows, lambda t, p: check_table(t, profile, positions=p, d=d, **ck))


def with_zero_rows(table: Table, pos: Any, spec: str | None, check: Any) -> Any:
    """``check(table, positions)`` on the rows ``spec`` does not name; those rows (indices, as ``--rows``:
    fairseq's padding row) are judged exactly: any entry that is not 0 (NaN included) is a failure."""
    if spec is None:
        return check(table, pos)
    n = table.data.shape[0]
    idx = np.unique(index_spec(str(spec), n, "--zero-rows"))
    keep = np.setdiff1d(np.arange(n), idx)
    if keep.size == 0:
        raise LoadError(f"--zero-rows {spec} names every row; nothing is left to check against the profile")
    p = np.arange(n, dtype=np.float64) if pos is None else np.asarray(pos)
    zeros = np.asarray(table.data[idx], dtype=np.float64)
    res = check(Table(np.ascontiguousarray(table.data[keep]), table.dtype, table.source, list(table.notes)), p[keep])
    bad = int(np.count_nonzero(zeros))  # NaN is not zero
    where = _indices(idx)
    res.profile_flags = f"{res.profile_flags} --zero-rows {where}"
    res.notes.append(f"--zero-rows {where}: {zeros.size} entries judged exactly 0, {bad} are not; the other "
                     f"{keep.size} rows checked against the profile")
    if bad:
        _zero_failures(res, zeros, idx, p[idx], bad, where)
    return res


def _zero_failures(res: Any, zeros: np.ndarray, idx: np.ndarray, at: np.ndarray, bad: int, where: str) -> None:
    """A finding for the non-zero entries of ``--zero-rows``: counted, the first few listed, the worst kept."""
    res.verdict = "fails"
    res.n_failures += bad
    msg = f"{bad} of {zeros.size} entries in the rows --zero-rows names ({where}) are not 0"
    res.reason = f"{res.reason}; {msg}" if res.reason else msg
    err = np.where(np.isnan(zeros), np.inf, np.abs(zeros))
    for r, j in list(zip(*np.nonzero(err), strict=True))[:10]:  # the first ten listed, as the check's own
        res.failures.append(Failure(format_position(at[r]), int(j), f"col{j}", float(zeros[r, j]), 0.0, float(err[r, j]),
                                    0.0, float("inf"), "--zero-rows: must be exactly 0", "", "", row=int(idx[r])))
    res.max_abs_error = max(float(res.max_abs_error), float(err.max()))


def check_detected(table: Table, pos: Any, det: Any, *, d: int | None, dtype: str | None, tier: str,
                   working: str | None, detect: bool, max_failures: int, zero_rows: str | None = None) -> Any:
    """REQ-CHECK-AUTO for a 1-D table: check it against the member the detection ``det`` names, or report
    that it names none (a finding). The all-zero rows detect found (padding rows) must stay exactly 0
    (``--zero-rows``, unless given)."""
    from sinpe.reference.checking.detect import profile_of, zero_row_indices

    found_profile, found = profile_of(det), det.to_json()
    if found_profile is None:
        return _unnamed(found, table, tier, dtype, d)
    binary64_parameters(found_profile)
    if zero_rows is None and det.zeroed_rows:
        zero_rows = zero_row_indices(pos, det.zeroed_rows, table.data.shape[0])
    res = with_zero_rows(table, pos, zero_rows, lambda t, p: check_table(
        t, found_profile, positions=p, d=d, dtype=dtype, tier=tier, working=working, detect=detect,
        max_failures=max_failures))
    res.notes.insert(0, f"--profile auto: checked against what detect found: {found_profile.cli_flags()} "
                        f"({found['sentence']})")
    res.profile_source = "detected"
    return res
