"""Reports of a check (SPEC.md REQ-CHECK-CLI, REQ-CHECK-VERDICT, REQ-CHECK-KINDS, REQ-CHECK-APPLY): the human text
(one renderer of a table check, :func:`render`, for every kind's :class:`~sinpe.reference.checking.result.
CheckResult`; :func:`render_apply` for an application) and the JUnit XML (one writer, :func:`junit_xml`, for check,
check-apply and scan). Every report prints the result's cause (``cause:``, :mod:`sinpe.reference.checking.cause`)
and every JUnit failure message ends with it. ``sinpe check`` prints these; the JSON is ``CheckResult.to_json()``.
"""
from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

from sinpe.reference.checking.loaders import is_callable_target
from sinpe.reference.checking.outputs import write_atomic

from ..inputs import escape


def profile_words(name: str | None, flags: str) -> str:
    """How a report names the profile: the preset, or its flags without a leading ``--profile``
    (``vaswani --base 500``), never ``--profile --profile ...``."""
    return name or (flags[len("--profile "):] if flags.startswith("--profile ") else flags)


VERDICT_WORDS = {"conforms": "CONFORMS", "fails": "DOES NOT CONFORM", "inconclusive": "INCONCLUSIVE"}
MAX_SHOWN = 5        # per-entry failure lines a report shows (the JSON keeps --max-failures of them)
MAX_STRUCT_SHOWN = 3  # structural findings shown


def finite_figure(x: float) -> str:
    """A figure of the report; an infinite or overflowed one (|error| of a NaN/Inf entry) is ``non-finite``."""
    return f"{x:.3g}" if x == x and abs(x) < 1e300 else "non-finite"


def cause(res: Any) -> str | None:
    """The likeliest cause of a verdict that is not ``conforms``, in one sentence (REQ-CHECK-CLI): the result's own
    (:mod:`sinpe.reference.checking.cause`), None when it names none."""
    return getattr(res, "cause", None)


def with_cause(message: str, res: Any) -> str:
    """A failure message and, when the result names one, its cause (every JUnit failure of sinpe)."""
    why = cause(res)
    return f"{message}; cause: {why}" if why else message


def check_command(res: Any, target: str) -> str:
    """The ``sinpe check`` command that gives this verdict on the user's input: the profile's flags and the
    width, dtype and tier checked (REQ-CHECK-REPRO)."""
    cmd = res.reproduce or f"sinpe check {escape(target)} {res.profile_flags}"
    words = cmd.split()
    extra = [("--d", str(res.d), res.width != res.d or is_callable_target(target)), ("--dtype", res.dtype, True),
             ("--tier", res.tier, res.tier != "phase")]
    return " ".join([cmd] + [f"{f} {v}" for f, v, want in extra if want and f not in words])


def entry_command(res: Any, target: str, f: Any) -> str:
    """The command that shows one failing entry: the check of the user's input at that entry's position
    (a callable) or row (a file), the column named; a grid or a cache takes no row selection, so its
    command is the check's, the row named."""
    base = check_command(res, target)
    if res.kind in ("grid", "rotary"):
        return f"{base}  # row {f.row}, column {f.column}, expected {f.reference!r}"
    row = getattr(f, "row", -1)
    sel = f"--positions {f.position}" if is_callable_target(target) or row < 0 else f"--rows {row}"
    return f"{base} {sel}  # column {f.column}, expected {f.reference!r}"


ALIASED = ("grid", "rotary")  # kinds that `sinpe grid` / `sinpe rotary` also check, byte for byte (REQ-CHECK-KINDS)


def render(res: Any, target: str) -> str:
    """The human report of a check of any kind: the header, the verdict and its likeliest cause, a compact
    summary, then the per-entry details (at most :data:`MAX_SHOWN`, with the count of the rest), then the wall
    time (not for the :data:`ALIASED` kinds, whose aliases print the same bytes; ``--json`` has ``seconds``)."""
    time = [] if res.kind in ALIASED else [f"({res.seconds:.2f} s)"]
    return "\n".join(_head(res, target) + _summary(res) + _details(res, target) + time)


def _head(res: Any, target: str) -> list[str]:
    name = res.profile if res.profile and res.profile in res.profile_flags.split() else None
    prof = profile_words(name, res.profile_flags)
    kind = "" if res.kind == "1d" else f"{res.kind} "
    shape = f"{res.rows} x {res.width or res.d} {kind}table" + (f" (d={res.d})" if res.width and res.width != res.d else "")
    work = f", computed in {res.working}" if res.working and res.working != res.dtype else ""
    L = [f"sinpe check {escape(target)}: {shape}, profile {prof}, tier {res.tier}, dtype {res.dtype}{work}"]
    if "describe" in res.profile_params:  # a grid, a cache, a channel plan: what the profile is, in words
        L.append(f"  {res.profile_params['describe']}")
    L.append(f"{VERDICT_WORDS[res.verdict]}: {res.reason or 'every entry judged and within the ' + res.tier + ' tolerance'}")
    why = cause(res)
    if why:
        L.append(f"cause: {why}")
    if res.detected and "error" not in res.detected:
        L.append(f"detected: {res.detected.get('sentence')}")
    return L


def _summary(res: Any) -> list[str]:
    L = [f"  note: {n}" for n in res.notes]
    if res.detected and "error" in res.detected:
        L.append(f"detect: {res.detected['error']}")
    w = res.worst
    if res.non_finite:
        L.append(f"non-finite entries: {res.non_finite} (first at position {w.get('position')}, column {w.get('column')})")
    elif w:
        ulp = f", max error {res.max_ulp_error:.3g} ulp of {res.dtype}" if res.tier != "phase" else ""
        L.append(f"max |error| {res.max_abs_error:.3g} ({res.max_bound_ratio:.3g} of its bound){ulp}; "
                 f"worst at position {w.get('position')} column {w.get('column')} ({w.get('label')})")
    for k, p in res.parts.items():
        L.append(f"  {k}: {p.verdict}, {p.n_failures} failures, max |error| {p.max_abs_error:.3g}")
    if res.bands:
        L.append("  positions             rows   max |error|  of bound   failures   unjudged")
        for b in res.bands:
            hi = f"{b.hi:.0e}" if b.hi >= 1e3 else f"{b.hi:g}"
            lo = f"{b.lo:.0e}" if b.lo >= 1e3 else f"{b.lo:g}"
            L.append(f"  [{lo}, {hi}){'':<{max(0, 14 - len(lo) - len(hi))}} {b.rows:7d}   "
                     f"{finite_figure(b.max_abs_error):>11} {finite_figure(b.max_bound_ratio):>9}   "
                     f"{b.failures:8d}   {b.unjudged:8d}")
    st = res.structural
    if st["judged"] or st["violations"]:
        L.append(f"structural checks (THM-SHIFT, THM-INJ): {st['judged']} comparisons judged, {st['violations']} violations")
    u = res.unjudged
    L.append(f"unjudged entries: {u['count']} ({100 * u['share']:.3g} %)" +
             (f", from position {u['from_position']} on" if u["count"] else ""))
    if res.oracle_decided:
        L.append(f"{res.oracle_decided} entries within the fast reference's error of the tolerance were decided by the "
                 "certified oracle")
    if res.undecided:
        L.append(f"undecided entries: {res.undecided} (left open by the oracle: the verdict cannot be conforms)")
    return L


def _details(res: Any, target: str) -> list[str]:
    L = []
    shown = res.failures[:MAX_SHOWN]
    if shown:
        L.append(f"first failures ({len(shown)} of {res.n_failures}):")
    for f in shown:
        L.append(f"  position {f.position} column {f.column} ({f.label}): value {f.value!r}, reference "
                 f"{f.reference!r}, |error| {finite_figure(f.abs_error)} > allowed {f.allowed:.3g} ({f.reason})")
        L.append(f"    reproduce: {entry_command(res, target, f)}")
    if res.n_failures > len(shown) and res.worst:  # (a shape finding compares no entry: nothing more to list)
        L.append(f"  ... {res.n_failures - len(shown)} more failing entries (--json lists the first --max-failures)")
    if shown and shown[0].repro:
        L.append(f"  reference: {shown[0].repro}")
    found = res.structural["findings"]
    for f in found[:MAX_STRUCT_SHOWN]:
        L.append(f"  {f.theorem} positions {f.positions[0]}, {f.positions[1]} frequency {f.k}: angle off by "
                 f"{f.residual:.3g} rad > slack {f.slack:.3g}")
    if res.structural["violations"] > min(len(found), MAX_STRUCT_SHOWN):
        L.append(f"  ... {res.structural['violations'] - min(len(found), MAX_STRUCT_SHOWN)} more structural violations")
    if found:
        L.append(f"    reproduce: {check_command(res, target)} --positions {found[0].positions[0]},{found[0].positions[1]}"
                 if is_callable_target(target) else f"    reference: {found[0].repro}")
    if res.detected and res.detected.get("deviations"):
        L.append(f"  deviations from {profile_words(res.profile, res.profile_flags)}: "
                 f"{json.dumps(res.detected['deviations'])}")
    return L


def write_junit(path: str, res: Any, target: str) -> None:
    """The check's JUnit file: one testsuite; for a 1-D table one testcase per position band (plus
    shape/non-finite/structural findings), for a grid or rotary cache one testcase of its entries."""
    name = f"sinpe.check[{res.profile or res.profile_flags}-{res.tier}-{res.dtype}]"
    cases = _band_cases(res) if getattr(res, "kind", "1d") == "1d" else _entry_cases(res)
    write_cases(path, name, cases, res.seconds, target)


def _band_cases(res: Any) -> list[tuple[str, Any]]:
    cases: list[tuple[str, Any]] = []
    if res.reason and not res.bands:
        cases.append(("shape", with_cause(res.reason, res)))
    for b in res.bands:
        msg: Any = None  # a failure message, or ("skipped", message)
        if b.unjudged and not b.failures:
            msg = ("skipped", (f"{b.unjudged} entries unjudged (the bound allows any value); "
                   f"{res.reason or ''}"))
        if b.failures:
            fl = [f for f in res.failures if b.lo <= abs(float(_num(f.position))) < b.hi]
            msg = f"{b.failures} entries exceed the {res.tier} tolerance; max |error| {b.max_abs_error:.3g}"
            if fl:
                msg += f"; first: position {fl[0].position} column {fl[0].column}; reproduce: {fl[0].repro}"
            msg = with_cause(msg, res)
        cases.append((f"positions [{b.lo:g}, {b.hi:g})", msg))
    if res.structural["violations"]:
        f = res.structural["findings"][0]
        cases.append((f.theorem, (f"{res.structural['violations']} row pairs break {f.theorem}; first at positions "
                      f"{f.positions[0]}, {f.positions[1]}; reproduce: {f.repro}")))
    if res.reason and res.reason.startswith("non-finite"):
        cases.append(("finite", res.reason))
    if res.reason and res.reason.startswith("dtype"):
        cases.append(("dtype", res.reason))
    return cases


def _entry_cases(res: Any) -> list[tuple[str, Any]]:
    """A grid or rotary check: one testcase, failing, skipped (inconclusive) or passing."""
    msg: Any = None
    if res.verdict == "fails":
        msg = with_cause(f"{res.reason}; reproduce: {res.reproduce}", res)
    elif res.verdict == "inconclusive":
        msg = ("skipped", res.reason)
    return [(f"{res.kind} entries ({res.rows}x{res.d})", msg)]


def junit_xml(suite: str, cases: Any, seconds: float = 0.0, classname: str = "sinpe") -> str:
    """One JUnit testsuite; each case ``(name, None | failure message | ("skipped", message))``: the one
    JUnit writer of sinpe check, check-apply and scan. Every text is :func:`xml_attribute` (XML 1.0 allows no
    control character: ESC, NUL, BEL from a file or tensor name are written as Python escapes).

    >>> x = junit_xml("sinpe.scan", [("a", None), ("b", "wrong"), ("c", ("skipped", "not a table"))])
    >>> '<failure message="wrong"/>' in x, 'skipped="1"' in x, 'failures="1"' in x
    (True, True, True)
    """
    fails = sum(1 for _, m in cases if m and not isinstance(m, tuple))
    skips = sum(1 for _, m in cases if isinstance(m, tuple))
    out = ['<?xml version="1.0" encoding="utf-8"?>',
           (f'<testsuite name={xml_attribute(suite)} tests="{len(cases)}" failures="{fails}" errors="0" '
           f'skipped="{skips}" time="{seconds:.3f}">')]
    for case, msg in cases:
        out.append(f'  <testcase classname={xml_attribute(classname)} name={xml_attribute(case)}>')
        if isinstance(msg, tuple):
            out.append(f'    <skipped message={xml_attribute(msg[1])}/>')
        elif msg:
            out.append(f'    <failure message={xml_attribute(msg)}/>')
        out.append('  </testcase>')
    out.append('</testsuite>')
    return "\n".join(out) + "\n"


def xml_attribute(text: Any) -> str:
    """``text`` as a quoted XML 1.0 attribute value: every character XML 1.0 does not allow (C0 controls but tab,
    newline and carriage return; lone surrogates; U+FFFE/U+FFFF) and every other non-printable one written as a
    Python escape (:func:`~sinpe.reference.inputs.escape`), then ``&<>"`` quoted.

    >>> xml_attribute("pe\\x1b[31m\\x00\\x07 & <x>")
    '"pe\\\\x1b[31m\\\\x00\\\\x07 &amp; &lt;x&gt;"'
    """
    from xml.sax.saxutils import quoteattr  # local: it pulls urllib and email (20 ms), only JUnit needs it (issue 28)
    return quoteattr(escape(str(text)))


def write_cases(path: str, suite: str, cases: Any, seconds: float = 0.0, classname: str = "sinpe") -> None:
    """:func:`junit_xml` written whole or not at all (:func:`~sinpe.reference.checking.outputs.write_atomic`)."""
    write_atomic(path, junit_xml(suite, cases, seconds, classname))


def _num(s: str) -> float:
    return float(Fraction(s))


def render_detection(found: Any, target: str, reading: str = "", why_not: str = "") -> str:
    """The human report of ``detect`` (REQ-DETECT-KINDS); ``target``: the target's words as the command line gives
    them (each a shell word); ``reading``: the flags of how the table was read (positions, selection), carried into
    the ``check with`` line; ``why_not``: why no check reads what detect read (said instead of the line)."""
    if found.kind != "1d":
        flags = found.profile_flags or ""
        words = flags.replace("FILE", escape(target), 1) if flags.split()[:2][1:] == ["FILE"] else \
            f"{escape(target)} {flags}"
        line = f"\n  no check line: {escape(why_not)}" if why_not else \
            f"\n  check with: sinpe check {words}{' ' + escape(reading) if reading else ''}"
        return found.sentence + (line if flags else "")
    det = found.detection
    L = [det.sentence,
         (f"  layout {det.layout}, shift {det.shift}, base {det.base}, phase scale {det.phase_scale}, amplitude "
         f"{det.amplitude}, offset {det.offset}, odd rule {det.odd_rule}, d {det.d} ({det.width} columns), "
         f"precision {det.precision}"),
         f"  profile {det.profile} (nearest preset {det.nearest_preset}); residual {det.residual:.3g}"
         + (f"; runner-up {det.runner_up['plan']} (residual {det.runner_up['residual']}), margin {det.margin:.3g}"
            if det.runner_up else "")]
    if det.zeroed_rows:
        L.append(f"  zeroed rows at positions {', '.join(det.zeroed_rows[:20])}")
    if det.deviations:
        against = found.against
        name = against if isinstance(against, str) else (against.name or against.cli_flags())
        L.append(f"  deviations from {name}: {json.dumps(det.deviations)}")
    return "\n".join(L)


def render_apply(res: Any) -> str:
    """The human report of ``sinpe check-apply`` (an :class:`~sinpe.reference.checking.result.ApplyResult`)."""
    part = f", rotary dim {res.rotary_dim} of {res.d}" if res.rotary_dim != res.d else ""
    L = [(f"sinpe check-apply {escape(res.target)}: convention {res.convention}, profile {res.profile} "
         f"({res.profile_flags}), dim {res.d}{part}, dtype {res.dtype}, {len(res.positions)} positions "
         f"({res.positions[0]}..{max(res.positions)})")]
    L += [f"  note: {n}" for n in res.notes]
    L.append(f"{VERDICT_WORDS[res.verdict]}: {res.reason or 'every entry within TOL-APPLY and THM-ROPE-REL holds'}")
    if res.cause:
        L.append(f"cause: {res.cause}")
    L.append(f"max |error| {res.max_abs_error:.3g} ({res.max_bound_ratio:.3g} of its bound); {res.n_failures} of "
             f"{res.entries} entries fail; unjudged {res.unjudged['count']} ({100 * res.unjudged['share']:.3g} %)")
    rel = res.relative
    L.append(f"THM-ROPE-REL (q.k depends only on m - n): {rel.get('comparisons', 0)} comparisons, "
             f"{rel.get('violations', 0)} violations" + (f"; first: (m, n) = {tuple(rel['first']['m_n'])} vs "
             f"{tuple(rel['first']['m_n_ref'])}, gap {rel['first']['gap']:.3g} > slack {rel['first']['slack']:.3g}"
             if rel.get("first") else ""))
    L += [f"  pairing: {leak}" for leak in res.leaks]
    for f in res.failures:
        L.append(f"  {f.label} position {f.position} channel {f.column}: {f.value!r} vs exact {f.reference!r} "
                 f"(error {finite_figure(f.abs_error)} > {finite_figure(f.allowed)})")
    if res.diagnosis and not res.cause:
        L.append(f"diagnosis: {res.diagnosis['sentence']}")
    L.append(f"({res.seconds:.2f} s)")
    return "\n".join(L)


def apply_cases(res: Any) -> list[tuple[str, Any]]:
    """The JUnit cases of an application check: the pointwise comparison (TOL-APPLY) and THM-ROPE-REL."""
    point: Any = None
    if res.n_failures:
        point = with_cause(res.reason, res)
    elif res.verdict == "inconclusive":
        point = ("skipped", res.reason or "inconclusive")
    rel = res.relative
    rel_case: Any = None if rel.get("holds") is not False else f"{rel['violations']} THM-ROPE-REL violations"
    return [(f"TOL-APPLY {res.convention} {res.dtype}", point), ("THM-ROPE-REL", rel_case)]
