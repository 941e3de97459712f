"""``--profile auto`` for every kind (SPEC.md REQ-CHECK-AUTO): the detection of the door's ``detect``, then the check
against what it names, by the kind it names; a table it names nothing for is a finding (exit 1), never a pass, and one
whose frequencies it could only read from the table itself is inconclusive (exit 3) where its entries conform: that
check cannot fail on the frequencies.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sinpe.reference.checking import targets
from sinpe.reference.checking.cause import attach, of_deviations
from sinpe.reference.checking.door.found import Found
from sinpe.reference.checking.kinds import channels, grid, one_d, rotary
from sinpe.reference.checking.kinds.rotary import reading_request
from sinpe.reference.checking.options import SELECTION, Request, refuse_all
from sinpe.reference.checking.result import CheckResult

from ...inputs import LoadError


def check_auto(target: Any, req: Request, detect: Callable[..., Found]) -> CheckResult:
    """REQ-CHECK-AUTO for every kind: ``detect``'s first reading, then the check against what it names."""
    refuse_all(req, lambda o: o.parameter, "--profile auto takes the parameters detect finds; drop {flag}")
    found = detect(target, _request=req, _first=True)
    if found.kind != "1d" and found.profile_flags is None:
        return unnamed(found, req)
    if found.kind == "1d":
        return _one_d(target, req, found)
    if found.kind == "grid":
        r = found.readings["grid"]
        res = grid.KIND.check(target, found.grid, claimed(r, req), table=found.table, options=r["options"])
    elif found.kind == "channels":
        c = found.readings["1d"]["channels"]
        res = channels.KIND.check(target, None, req.replace(channels=c["plan"],
                                                            amplitude=None if c["amplitude"] == "1" else c["amplitude"]))
    else:
        r = found.readings["rotary"]
        if req.cos is None and req.sin is None:  # a table read as the cos or the sin cache
            chose = req.given(("1d",), where=lambda o: o.name in SELECTION)
            if chose:  # the check of a cache reads it whole (it would judge rows the selection left out)
                raise LoadError(f"{chose[0].flag} chose the entries detect read as a rotary cache, and a cache is "
                                "checked whole: save them to a .npy file and check that")
            target, req = None, req.replace(**{r["cache"]: target})
        req = claimed(r, req).replace(**reading_request(r))  # its format, its grid shape, its start position
        res = rotary.KIND.check(target, None, req, found.rotary, r["dim"])
    res.profile_source, res.detected = "detected", found.to_json()
    res.notes.insert(0, f"--profile auto: checked against what detect found: {res.profile_flags} ({found.sentence})")
    if read_from_data(found) and res.verdict == "conforms":
        res.verdict, res.reason = "inconclusive", unjudged_frequencies(found)
    return res


def read_from_data(found: Found) -> bool:
    """Are the frequencies of what detect names read from the table itself, one per column (an explicit channel plan,
    an explicit rotary plan, REQ-DETECT-READ), not those of a preset?"""
    return found.kind == "channels" or found.kind == "rotary" and found.rotary is not None \
        and found.rotary.rule == "explicit"


def unjudged_frequencies(found: Found) -> str:
    """Why a table that conforms to the frequencies read from it is inconclusive under auto (REQ-CHECK-AUTO)."""
    what = "channel plan" if found.kind == "channels" else "rotary plan"
    return (f"--profile auto: the entries conform to the explicit {what} detect read from the table itself, and no "
            f"preset names its frequencies, so they were not judged (a table of wrong frequencies reads the same); "
            f"check them against the plan the code should compute (--profile NAME and its flags)")


def claimed(r: dict[str, Any], req: Request) -> Request:
    """The request with the format a grid or rotary reading ``r`` claims, when ``--dtype`` is not given: the one
    detect judged it in at TOL-WORKING's default, the narrowest holding its values (half values in a float32
    file, as the 1-D check reads them). A reading found only on the precision ladder's float32 step (a float64
    file) claims the file's format: auto still rejects it (REQ-DETECT-PRECISION)."""
    if req.dtype is not None or not r.get("dtype") or r.get("lowered") and not r.get("working"):
        return req
    return req.replace(dtype=r["dtype"])


def _one_d(target: Any, req: Request, found: Found) -> CheckResult:
    """The 1-D table checked against the member the fit names; its cause: what the check's own detect reads (against
    that member), else the fit's findings that are not parameters (the precision, zeroed or corrupted rows)."""
    kw = one_d.keywords(req)
    res = targets.check_detected(found.table, found.positions, found.detection, d=req.d, dtype=req.dtype,
                                 tier=req.tier, working=req.working, detect=req.detect, max_failures=kw["max_failures"])
    own = res.profile is not None and res.detected is not None  # the check's detect, against the member named
    one_d.KIND.finish(res, target, parameters=True)
    if not own:
        attach(res, of_deviations(found.detection.deviations, parameters=False))
    return res


def unnamed(found: Found, req: Request) -> CheckResult:
    """A grid or cache no preset of its kind fits, under ``auto``: a finding (exit 1), never a pass."""
    t = found.table.data if found.table is not None else next(
        v for v in (found.arrays.get("cos"), found.arrays.get("sin")) if v is not None)
    rows, d = t.shape
    return CheckResult(None, "auto", {"describe": "no preset"}, req.tier, req.dtype or found.dtype, d, rows, width=d,
                       kind=found.kind, verdict="fails", profile_source="detected", detected=found.to_json(),
                       reason=f"--profile auto: detect names no {found.kind} preset to check against: {found.sentence}")
