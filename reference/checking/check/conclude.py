"""After the streamed 1-D pass (SPEC.md REQ-CHECK-DECIDE, REQ-CHECK-REPRO, REQ-CHECK-VERDICT): the oracle settles what
the fast path left undecided (the one escalation, :class:`~sinpe.reference.checking.decide.Escalation`), the failures
are listed with their reproduction, the worst entry recomputed by the oracle, and the findings that are not
comparisons (non-finite entries, values not of the format, a structural violation) worded; the verdict and the
reasons of comparisons are the one judge's (:mod:`sinpe.reference.checking.judge`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from sinpe.reference.checking.check.reference import _max_abs, _pos_value, oracle_entry, reference_chunk
from sinpe.reference.checking.decide import Escalation, entry_bound
from sinpe.reference.checking.judge import bound_words, failing_words, inconclusive_words
from sinpe.reference.checking.loaded import Table
from sinpe.reference.checking.result import BandFigures, CheckResult, Failure
from sinpe.reference.numerics.positions import format_position
from sinpe.reference.oracles import fast as fastref
from sinpe.reference.progress import Progress
from sinpe.spec.definition import column_data
from sinpe.spec.profiles import PRESETS, Profile
from sinpe.spec.tolerance import allowed_abs_error, ulp_array


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
    by_row: dict[int, list[tuple[int, int, float, float]]] = {}
    for u in undecided:
        by_row.setdefault(u[0], []).append(u)
    esc = Escalation()
    esc.skip(over_budget)
    n_fail, rn_decided = 0, 0
    if by_row:
        from sinpe.reference.oracles.arb import rounded_table  # the oracle, imported only when an entry needs it
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


def _snippet(profile: Profile, d: int, pos: str, j: int, fmt: str) -> str:
    args = [repr(profile.name or "vaswani")]
    if profile.name is None:
        base = PRESETS["vaswani"].params()
        args += [f"{k}={v!r}" for k, v in profile.params().items() if v != base[k]]
    return ("python -c \"from sinpe.spec import get_profile; from sinpe.reference.oracles.arb import rounded_table; "
            f"print(rounded_table(get_profile({', '.join(args)}), {d}, ['{pos}'], '{fmt}')[0, {j}])\"")


def _worst(ctx: _Ctx, res: CheckResult, data: Any, worst_abs: tuple, worst_ulp: tuple) -> None:
    """The worst entry and its figures: |error| from the fast reference where that is accurate to 2^-20 of itself
    (:func:`_fast_error`), else recomputed by the oracle at 200 bits (a float64 table, an error near zero)."""
    if worst_abs[0] >= 0 and math.isfinite(worst_abs[0]):
        _, r, c = worst_abs
        yv = float(np.asarray(data[r, c], dtype=np.float64))
        fast = _fast_error(ctx, r, c, yv)
        res.max_abs_error = fast if fast is not None else _oracle_error(ctx, r, c, yv)
    else:
        res.max_abs_error = worst_abs[0] if worst_abs[0] >= 0 else 0.0
    res.max_ulp_error = max(worst_ulp[0], 0.0)
    wr, wc = (worst_ulp[1], worst_ulp[2]) if ctx.tier != "phase" else (worst_abs[1], worst_abs[2])
    res.worst = {"position": format_position(ctx.pos[wr]), "column": int(wc), "label": ctx.labels[wc]}


def _fast_error(ctx: _Ctx, r: int, c: int, yv: float) -> float | None:
    """|y - PE| of entry (r, c) from the fast reference, when its error bound there (REQ-CHECK-DECIDE's band,
    ``fastref.decide_band`` at |PE| <= |alpha|, as the kernel decides) is at most 2^-20 of the figure, to 7
    significant digits (the digits the figure is good to); else None."""
    ref, _ = reference_chunk(ctx.profile, ctx.d, ctx.pos[r:r + 1], False)
    cd = column_data(ctx.profile, ctx.d)
    w = fastref.frequency_words(cd)[4]
    p = abs(float(ctx.pos[r]) + float(cd.offset))
    band = fastref.decide_band(abs(float(cd.amplitude)), fastref.reduction_band(p, float(np.max(np.abs(w), initial=0.0))))
    err = abs(yv - float(ref[0, c]))
    return float(f"{err:.7g}") if err >= band * 2.0 ** 20 else None


def _oracle_error(ctx: _Ctx, r: int, c: int, yv: float) -> float:
    """|y - PE| of entry (r, c) with PE the middle of its Arb enclosure at 160 bits, at 200 bits."""
    import mpmath

    lo, hi = oracle_entry(ctx.profile, ctx.d, _pos_value(ctx.pos[r]), c, 160)
    with mpmath.workprec(200):  # at 53 bits a float64 entry's error would round to 0
        return float(abs(mpmath.mpf(yv) - (lo + hi) / 2))


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


def _failure_reason(res: CheckResult, n_fail: int, entries: int, fmt: Any, wfmt: Any) -> str:
    """The one judge's words (:func:`~sinpe.reference.checking.judge.failing_words`), and a half table's hint: the
    entries an evaluation in its own format would have met."""
    first = (res.failures[0].position, res.failures[0].column) if res.failures else None
    s = failing_words(n_fail, entries, bound_words(res.tier, fmt.dtype, wfmt.dtype), first)
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
    """Why nothing failed yet nothing conforms (the one judge's words, :func:`~sinpe.reference.checking.judge.
    inconclusive_words`): entries unjudged (REQ-CHECK-UNJUDGED), and which working precision would judge them,
    entries undecided (REQ-CHECK-DECIDE)."""
    judges = [a for a in res.alternatives if a["unjudged"] == 0]
    also = "" if not judges else (
        f"; --working {judges[0]['working']} would judge every entry" +
        (" (and by the fast reference every entry is within its bound)" if judges[0]["exceed"] == 0 else
         f" ({judges[0]['exceed']} entries exceed its bound by the fast reference)"))
    return inconclusive_words(res.unjudged, entries, bound_words(res.tier, fmt.dtype, wfmt.dtype), res.undecided,
                              also=also)
