"""What the conformance tests do (SPEC.md REQ-PLUGIN-RUN): golden cases, the implementation's tables, the verdict.

The implementation is called once per width d at every golden position of the selection, by the
calling convention of :mod:`sinpe.reference.checking.loaders`; each golden case then compares one entry.
An entry passes when ``|y - PE| <= allowed_abs_error(tier, dtype, PE, theta, amplitude)`` with PE
the golden case's exact decimal (40 digits), compared in exact rational arithmetic; at tier
``exact`` that is ``y == RN(PE)``, the golden value. At every tier y must be a value of the dtype.

>>> cases = select_cases("vaswani", "float32", widths=[4], max_position=3)
>>> [c["position"] for c in cases][:4], len(cases)
(['0', '0', '0', '0'], 32)
>>> case_test_id(cases[0]).startswith("vaswani-d4-float32-p0-c0-")
True
"""
from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

import numpy as np

from sinpe.reference.checking.loaders import call_table, resolve_callable
from sinpe.reference.numerics.rounding import round_array
from sinpe.reference.oracles import fast as fastref
from sinpe.spec.definition import column_data
from sinpe.spec.formats import get_format
from sinpe.spec.profiles import get_profile
from sinpe.spec.tolerance import allowed_abs_error, classify, unjudged

from ..inputs import LoadError

_TABLES: dict[tuple[Any, ...], Any] = {}
_WORKERS: dict[str, Any] = {}       # one isolated worker per implementation for the session
_TIMED_OUT: dict[str, str] = {}     # implementations that timed out, and the error every later width gets


def select_cases(profile: str, dtype: str, widths: list[int] | None = None,
                 max_position: float | None = None) -> list[dict[str, Any]]:
    """The golden cases of a preset and dtype (optionally some widths, |position| <= max_position)."""
    from sinpe.reference.golden.vectors import WIDTHS, iter_cases
    out = []
    for w in (widths or list(WIDTHS)):
        for c in iter_cases(profile=profile, dtype=get_format(dtype).dtype, d=w):
            if max_position is not None and abs(c["position_float"]) > max_position:
                continue
            out.append(c)
    return out


def case_test_id(c: dict[str, Any]) -> str:
    """``<profile>-d<d>-<dtype>-p<position>-c<column>-<golden id>``; with overrides the profile part is
    ``<preset>[name=value,...]`` (e.g. ``t2t[offset=2]``)."""
    ov = c.get("overrides") or {}
    tag = f"[{','.join(f'{k}={v}' for k, v in ov.items())}]" if ov else ""
    return f"{c['profile']}{tag}-d{c['d']}-{c['dtype']}-p{c['position']}-c{c['column']}-{c['id']}"


OVERRIDES = ("layout", "shift", "base", "phase_scale", "amplitude", "offset", "odd")


def retarget(cases: list[dict[str, Any]], profile: str, overrides: dict[str, str]) -> list[dict[str, Any]]:
    """The golden cases' positions and columns, with the reference recomputed for ``profile`` with the
    parameter overrides of the CLI (REQ-PLUGIN-OVERRIDES): the exact value (mpmath at 60 digits, as a
    decimal) and the correctly rounded value (Arb, Ziv) of the overridden profile. Without overrides the
    cases are returned as they are (the golden files' own values). Under odd rule ``error`` the odd widths
    are dropped here and tested to raise (:func:`odd_error_widths`).

    >>> c = retarget(select_cases("t2t", "float32", widths=[4], max_position=2), "t2t", {"amplitude": "1/8"})
    >>> # c[4] is position 1, column sin0: sin(1)/8 = 0.10518387310...
    >>> c[0]["overrides"], c[4]["decimal"][:12], case_test_id(c[0]).startswith("t2t[amplitude=1/8]-d4-float32-p0-")
    ({'amplitude': '1/8'}, '0.1051838731', True)
    """
    ov = {k: v for k, v in overrides.items() if v is not None}
    if not ov:
        return cases
    import mpmath

    from sinpe.reference.oracles.arb import rounded_tables
    from sinpe.reference.oracles.mp import pe_value
    prof = get_profile(profile, **ov)
    out = []
    by_d: dict[int, list[dict[str, Any]]] = {}
    for c in cases:
        if prof.odd == "error" and c["d"] % 2:
            continue
        by_d.setdefault(c["d"], []).append(c)
    for d, cs in by_d.items():
        positions = list(dict.fromkeys(c["position"] for c in cs))
        cols = sorted({c["column"] for c in cs})
        fmt = cs[0]["dtype"]
        rt = rounded_tables(prof, d, [Fraction(p) for p in positions], [fmt], only=cols)[get_format(fmt).name]
        for c in cs:
            with mpmath.workdps(60):
                exact = pe_value(prof, d, Fraction(c["position"]), c["column"])
                dec = mpmath.nstr(exact, 40, strip_zeros=False) if exact != 0 else "0"
            v = float(rt[positions.index(c["position"]), cols.index(c["column"])])
            out.append(dict(c, decimal=dec, value=v, overrides=dict(ov),
                            repro=f"sinpe table {prof.cli_flags()} --d {d} --positions {c['position']} --dtype {fmt} "
                                  f"--out pe.npy  # column {c['column']}"))
    return out


def odd_error_widths(cases: list[dict[str, Any]], profile: str, overrides: dict[str, str]) -> list[int]:
    """The odd widths of the selection when the (overridden) odd rule is ``error``: PE is undefined there,
    so the implementation must raise (REQ-PLUGIN-OVERRIDES)."""
    ov = {k: v for k, v in overrides.items() if v is not None}
    if get_profile(profile, **ov).odd != "error":
        return []
    return sorted({c["d"] for c in cases if c["d"] % 2})


def impl_table(impl: str, call: str, d: int, positions: tuple[str, ...], *, isolated: bool = True,
               timeout: float | None = None) -> np.ndarray | str:
    """The implementation's table at these positions (cached), or a one-line error string. ``isolated`` (the
    default, REQ-PLUGIN-RUN): called in a child process as ``sinpe check`` calls a ``module:callable``, one
    worker for the session (:class:`sinpe.reference.checking.isolate.Worker`, each call with its time and
    memory limits), so that the code under test cannot end, patch or outlive the pytest session; otherwise
    imported and called here. After a time-out the implementation is not called again: every later width
    gets the same error (one summary line)."""
    key = (impl, call, d, positions, isolated)
    if impl in _TIMED_OUT:
        return _TIMED_OUT[impl]
    if key not in _TABLES:
        try:
            t = _call(impl, call, d, _position_array(positions), isolated, timeout)
            if t.data.shape != (len(positions), d):
                raise LoadError(f"{impl} returned shape {t.data.shape}; expected ({len(positions)}, {d})")
            _TABLES[key] = np.asarray(t.data, dtype=np.float64)
        except LoadError as e:
            _TABLES[key] = str(e)
            if type(e).__name__ == "CallTimeout":
                _TABLES[key] = _TIMED_OUT[impl] = (f"{impl} did not return within {_seconds(timeout)} at d={d} "
                                                   f"(--sinpe-timeout); the call was killed and the implementation "
                                                   f"is marked failed for the rest of the run")
    return _TABLES[key]


def _seconds(timeout: float | None) -> str:
    from sinpe.reference.checking.isolate import DEFAULT_TIMEOUT
    return f"{DEFAULT_TIMEOUT if timeout is None else timeout:g} s"


def _position_array(positions: tuple[str, ...]) -> np.ndarray:
    fr = [Fraction(p) for p in positions]
    if all(p.denominator == 1 for p in fr):
        return np.array([int(p) for p in fr], dtype=np.int64)
    return np.array([float(p) for p in fr], dtype=np.float64)


def _call(impl: str, call: str, d: int, arg: np.ndarray, isolated: bool, timeout: float | None) -> Any:
    if isolated:
        return _worker(impl).call(arg, d, call=call, timeout=timeout)
    return call_table(resolve_callable(impl), impl, arg, d, call=call)


def _worker(impl: str) -> Any:
    """The session's isolated worker for ``impl`` (started at its first call, restarted after a failure)."""
    if impl not in _WORKERS:
        import atexit

        from sinpe.reference.checking.isolate import Worker
        if not _WORKERS:
            atexit.register(close_workers)
        _WORKERS[impl] = Worker(impl)
    return _WORKERS[impl]


def close_workers() -> None:
    """End every worker of the session (the plugin's ``pytest_sessionfinish``; at exit otherwise)."""
    for w in _WORKERS.values():
        w.close()
    _WORKERS.clear()


def split_hint(message: str) -> tuple[str, str]:
    """(the error, its hint): a call's error without the long calling-convention hint, which a session's
    summary prints once (REQ-PLUGIN-SUMMARY).

    >>> split_hint("m:f(positions, d=3) raised ValueError: odd d; hint: its signature is f(positions, d)")
    ('m:f(positions, d=3) raised ValueError: odd d', 'its signature is f(positions, d)')
    """
    head, _, hint = message.partition("; hint: ")
    return head, hint


def error_cause(message: str) -> str:
    """A call's error as a cause shared by every width: the target and width dropped
    (``raised ValueError: odd d``).

    >>> error_cause("m:f(positions, d=3) raised ValueError: odd d; hint: its signature is f(positions, d)")
    'raised ValueError: odd d'
    >>> error_cause("m:f(positions, d=65) raised ValueError: could not broadcast (50,32) into (50,33)")
    'raised ValueError: could not broadcast (N,N) into (N,N)'
    """
    head = split_hint(message)[0]
    head = head[head.index(" raised ") + 1:] if " raised " in head else head
    return re.sub(r"\d+", "N", head)  # shapes and widths differ per d; the cause is the same


_CAUSES: dict[tuple[Any, ...], str | None] = {}


def diagnose(table: np.ndarray, case: dict[str, Any], positions: tuple[str, ...], tier: str,
             working: str | None) -> str | None:
    """What ``sinpe check`` says is the likeliest cause of this width's failures (the report's ``cause:``
    line: detect's precision finding, the parameters that differ), from the table the implementation
    returned at the golden positions; None when it names none. Cached per width."""
    key = (case["profile"], tuple(sorted((case.get("overrides") or {}).items())), case["d"], case["dtype"],
           positions, tier, working)
    if key not in _CAUSES:
        from sinpe.reference.checking.check import check_table
        from sinpe.reference.checking.report import cause
        try:
            prof = get_profile(case["profile"], **(case.get("overrides") or {}))
            res = check_table(round_array(table, case["dtype"]), prof, positions=[Fraction(p) for p in positions],
                              d=case["d"], dtype=case["dtype"], tier=tier, working=working, max_failures=1)
            found = cause(res)  # counts (of NaN/Inf entries, zeroed rows) differ per d: the summary groups without them
            _CAUSES[key] = None if found is None else re.sub(r"\b\d+ (NaN/Inf entries|zeroed rows)", r"\1", found)
        except (LoadError, ValueError):
            _CAUSES[key] = None
    return _CAUSES[key]


def verdict(case: dict[str, Any], y: float, tier: str, working: str | None = None) -> tuple[str, str]:
    """(verdict, explanation) for one golden case and the implementation's value ``y``: ``conforms``,
    ``fails``, or ``inconclusive`` when the bound (TOL-WORKING with ``working``, default W) lets every
    value in [-|alpha|, |alpha|] pass and y is within it (REQ-CHECK-UNJUDGED)."""
    ok, why, free = _judge(case, y, tier, working)
    if not ok:
        return "fails", why
    return ("inconclusive", why) if free else ("conforms", why)


def _judge(case: dict[str, Any], y: float, tier: str, working: str | None) -> tuple[bool, str, bool]:
    prof = get_profile(case["profile"], **case.get("overrides", {}))
    d, j = case["d"], case["column"]
    pe = Fraction(case["decimal"]) if case["decimal"] not in ("inf", "-inf", "nan") else None
    if not np.isfinite(y):
        return False, f"value {y!r} is not finite", False
    if pe is None:
        return False, "golden value is not finite", False
    if tier == "exact":
        ok = y == case["value"]
        err = abs(Fraction(y) - pe)
        return ok, f"value {y!r} != correctly rounded {case['value']!r} (|error| {float(err):.3g})", False
    if round_array(np.array([y]), case["dtype"])[0] != y:  # a float16 implementation returns float16 values
        return False, f"value {y!r} is not a {case['dtype']} value (|error| {float(abs(Fraction(y) - pe)):.3g})", False
    cd = column_data(prof, d)
    _, _, theta = fastref.sincos(cd, [Fraction(case["position"])])
    assert theta is not None  # sincos computes theta unless asked not to
    th = np.nan if cd.kinds[j] == "zero" else float(theta[0, cd.labels[j]])
    allowed = float(allowed_abs_error(tier, case["dtype"], np.array([float(pe)]), np.array([th]),
                                      float(cd.amplitude), base=float(cd.base), working=working)[0])
    err = abs(Fraction(y) - pe)
    fails = bool(classify(np.array([err - Fraction(allowed)], dtype=object))[0][0])  # exact reference: margin 0
    if not fails and bool(unjudged(np.array([allowed]), np.array([float(pe)]), float(cd.amplitude))[0]):
        return True, (f"unjudged: the {tier} bound {allowed:.3g} for a {case['dtype']} value computed in "
                      f"{working or 'the default working precision'} lets any value in [-|alpha|, |alpha|] pass "
                      f"(REQ-CHECK-UNJUDGED); --sinpe-working float64 judges it"), True
    return not fails, (f"value {y!r}, exact {case['decimal']}, |error| {float(err):.3g} > "
                                      f"allowed {allowed:.3g} ({tier}, {case['dtype']})"), False


def positions_of(cases: list[dict[str, Any]], d: int) -> tuple[str, ...]:
    """The distinct positions of the cases at width d, in first-seen order."""
    seen: dict[str, None] = {}
    for c in cases:
        if c["d"] == d:
            seen.setdefault(c["position"], None)
    return tuple(seen)

