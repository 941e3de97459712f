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

from fractions import Fraction
from typing import Any

import numpy as np

from sinpe.spec.formats import get_format
from sinpe.spec.profiles import get_profile
from sinpe.spec.tolerance import allowed_abs_error, classify, unjudged

from sinpe.reference.oracles import fast as fastref
from sinpe.reference.checking.loaders import LoadError, call_table, resolve_callable
from sinpe.reference.numerics.rounding import round_array

_TABLES: dict[tuple[Any, ...], Any] = {}


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


def impl_table(impl: str, call: str, d: int, positions: tuple[str, ...]) -> np.ndarray | str:
    """The implementation's table at these positions (cached), or a one-line error string."""
    key = (impl, call, d, positions)
    if key not in _TABLES:
        try:
            obj = resolve_callable(impl)
            fr = [Fraction(p) for p in positions]
            if all(p.denominator == 1 for p in fr):
                arg = np.array([int(p) for p in fr], dtype=np.int64)
            else:
                arg = np.array([float(p) for p in fr], dtype=np.float64)
            t = call_table(obj, impl, arg, d, call=call)
            if t.data.shape != (len(positions), d):
                raise LoadError(f"{impl} returned shape {t.data.shape}; expected ({len(positions)}, {d})")
            _TABLES[key] = np.asarray(t.data, dtype=np.float64)
        except LoadError as e:
            _TABLES[key] = str(e)
    return _TABLES[key]


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
    _, _, theta = fastref.sincos(prof, d, [Fraction(case["position"])])
    col = fastref.column_plan(prof, d)
    th = np.nan if col[0][j] == 2 else float(theta[0, col[1][j]])
    allowed = float(allowed_abs_error(tier, case["dtype"], np.array([float(pe)]), np.array([th]),
                                      float(prof.amplitude), base=float(prof.base), working=working)[0])
    err = abs(Fraction(y) - pe)
    fails = bool(classify(np.array([err - Fraction(allowed)], dtype=object))[0][0])  # exact reference: margin 0
    if not fails and bool(unjudged(np.array([allowed]), np.array([float(pe)]), float(prof.amplitude))[0]):
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

