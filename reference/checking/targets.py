"""What a check is run on (SPEC.md REQ-CHECK-INPUT, REQ-CHECK-ISOLATE): a table given as an array, a file,
a ``module:callable`` named by text (run isolated in a child process), or a Python callable the caller
hands over (called in process: the caller already imported it).

:func:`load_target` returns ``(table, positions or None, called)``; ``called`` says a callable was asked
for width d (a module's buffer, read whole like a file, is not).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from sinpe.reference.checking.loaders import LoadError, Table, _finish, _to_numpy, call_table, is_callable_target, load_table

DEFAULT_CALLABLE_D = 64


def _positions(spec: Any, limit: int, why: str) -> np.ndarray | None:
    """Positions from a spec string (``0:2048``, ``0,1,1e6``, a .npy path) or a sequence of numbers."""
    from sinpe.reference.numerics.positions import positions_from_spec
    from sinpe.reference.checking.check import positions_array
    if spec is None:
        return None
    if isinstance(spec, str):
        return positions_from_spec(spec, limit, why)
    if isinstance(spec, range):
        spec = np.arange(spec.start, spec.stop, spec.step)
    if len(spec) > limit:
        raise LoadError(f"{len(spec)} positions: {why}")
    return positions_array(spec if isinstance(spec, np.ndarray) else list(spec), len(spec))


def _callable_table(target: Any, spec: Any, d: int | None, call: str, key: str | None,
                    timeout: float | None) -> tuple[Table, np.ndarray | None, bool]:
    from sinpe.reference.checking.check import callable_positions, default_callable_positions
    from sinpe.reference.checking.isolate import MAX_CALL_ENTRIES, call_isolated

    named = isinstance(target, str)
    if call == "buffer" and spec is None:
        # a module's buffer is a table like a file's: every row, its own width (nothing is asked of it)
        t = call_isolated(target, None, d, call="buffer", key=key, timeout=timeout) if named else \
            call_table(target, repr(target), None, d, call="buffer", key=key)
        return t, None, False
    lim = MAX_CALL_ENTRIES // max(1, d or DEFAULT_CALLABLE_D)
    pos = _positions(spec, lim, f"at d={d or DEFAULT_CALLABLE_D} a callable is asked for at most {lim} "
                                f"({MAX_CALL_ENTRIES} entries)")
    if pos is None:
        pos = default_callable_positions() if call == "positions" else np.arange(2048, dtype=np.float64)
    pos, arg, rounded = callable_positions(pos)  # int64 or float64 (REQ-CHECK-INPUT)
    asks = call != "buffer"
    width = d if d is not None or not asks else DEFAULT_CALLABLE_D
    if named:
        table = call_isolated(target, arg, width, call=call, key=key, timeout=timeout)  # REQ-CHECK-ISOLATE
    else:
        table = call_table(target, getattr(target, "__name__", repr(target)), np.array(arg, copy=True), width,
                           call=call, key=key)
    if d is None and asks:
        table.notes.append(f"called with d={DEFAULT_CALLABLE_D} (pass d to choose)")
    if spec is None and asks:
        extra = "".join(f", {int(x)}" for x in pos[2048:])
        table.notes.append(f"positions 0..2047{extra} (the default; pass positions to choose)")
    if rounded:
        table.notes.append("positions that are not binary64 values were passed (and are checked) "
                           "as the nearest binary64 values")
    return table, pos, asks


def load_target(target: Any, d: int | None = None, *, positions: Any = None, key: str | None = None,
                call: str = "positions", timeout: float | None = None) -> tuple[Table, Any, bool]:
    """(table, positions or None, called) for ``target``: an array or tensor (rows = positions), a file path,
    ``"module:callable"`` text (run isolated), or a Python callable (called here).

    >>> t, pos, called = load_target(np.zeros((3, 4)))
    >>> t.data.shape, pos, called
    ((3, 4), None, False)
    """
    if callable(target) or (isinstance(target, str) and is_callable_target(target)):
        return _callable_table(target, positions, d, call, key, timeout)
    if call != "positions":
        raise LoadError(f"call={call!r} applies to a callable target, not a table")
    if isinstance(target, (str, Path)):
        table = load_table(str(target), key=key)
    else:
        table = _finish(Table(*_to_numpy(target, "table"), "table"))
    rows = table.data.shape[0]  # counted before any position is built (REQ-CHECK-LIMITS)
    return table, _positions(positions, max(table.data.shape), f"the table has {rows} rows"), False


def check_target(target: Any, profile: Any, *, d: int | None = None, positions: Any = None, dtype: str | None = None,
                 tier: str = "phase", working: str | None = None, key: str | None = None, call: str = "positions",
                 timeout: float | None = None, detect: bool = True, max_failures: int = 10) -> Any:
    """Load ``target`` (:func:`load_target`) and check it against ``profile`` (REQ-CHECK-CONFORM).

    Under DEF-ODD rule ``error`` at odd d, PE is undefined there: a conforming callable MUST raise at d
    and conform at the even d + 1, where it is checked (a callable that returns a table at odd d, or
    raises at every d, does not conform).
    """
    from sinpe.reference.checking.check import _new_result, check_table

    kw = dict(positions=positions, key=key, call=call, timeout=timeout)
    ck = dict(dtype=dtype, tier=tier, detect=detect, max_failures=max_failures, working=working)
    is_call = callable(target) or (isinstance(target, str) and is_callable_target(target))
    if profile.odd == "error" and d is not None and d % 2 and is_call:
        try:
            odd_table, _, _ = load_target(target, d, **kw)
        except LoadError as e:
            if "raised" not in str(e):
                raise
            raised = str(e)
        else:
            res = _new_result(profile, tier, dtype or odd_table.dtype, d, odd_table.data.shape[0], str(target))
            res.width = odd_table.data.shape[1]
            res.conformant, res.verdict = False, "fails"
            res.reason = f"returned a table for odd d={d}; odd rule 'error' requires it to raise"
            return res
        table, pos, _ = load_target(target, d + 1, **kw)
        res = check_table(table, profile, positions=pos, d=d + 1, **ck)
        res.notes.insert(0, f"raises for odd d={d}, as odd rule 'error' requires ({raised}); checked at the even d={d + 1}")
        return res
    table, pos, called = load_target(target, d, **kw)
    return check_table(table, profile, positions=pos, d=d if d is not None else (DEFAULT_CALLABLE_D if called else None), **ck)
