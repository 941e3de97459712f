"""Which kind a table is, and what it is (SPEC.md REQ-DETECT-KINDS, REQ-DETECT-PRECISION, REQ-DETECT-READ): the
readings of every kind of a table, the one detect names, and the caches or grids whose kind the request says.

A table is read by the 1-D fit first; a reading that names a member and (unless only the first reading is asked
for) conforms is the answer. Otherwise the grid reading, then the rotary readings as a cos or a sin cache, are
tried (:func:`other_readings`); a grid or rotary reading, found by a conforming check, wins over a 1-D fit whose
check does not conform. A 1-D table nothing names is read on the later steps of the precision ladder, then as an
explicit channel plan of its own frequencies.
"""
from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from sinpe.reference.checking import targets
from sinpe.reference.checking.cause import lowered_words
from sinpe.reference.checking.detect import detect_table, profile_of
from sinpe.reference.checking.detect.ladder import precision_ladder, stored_dtype
from sinpe.reference.checking.door.found import Found, name, none
from sinpe.reference.checking.errors import internal
from sinpe.reference.checking.kinds import channels, grid, one_d, rotary
from sinpe.reference.checking.kinds.base import label
from sinpe.reference.checking.options import Request
from sinpe.reference.checking.values import grid_shape

from ...inputs import LoadError, npy_file
from ...numerics.binary64 import binary64_parameters


def three_d_npy(target: Any) -> bool:
    """A .npy file holding a 3-D array (leading size-1 dims dropped), read from its header only."""
    if not (isinstance(target, str) and target.lower().endswith(".npy")):
        return False
    try:
        shape = npy_file(target).shape
    except Exception:  # unreadable: the ordinary loader says why
        return False
    while len(shape) > 3 and shape[0] == 1:
        shape = shape[1:]
    return len(shape) == 3 and sum(n != 1 for n in shape) == 3


def detect_table_kinds(target: Any, req: Request, against: Any, first: bool, against_kind: str) -> Found:
    """The readings of a table (a file, an array or a callable) and the one detect names (the module docstring);
    ``against_kind``: the kind of ``against`` (1-D deviations are listed against a 1-D profile, else vaswani)."""
    prof = one_d.KIND.profile(against if against_kind == "1d" else "vaswani", req)
    binary64_parameters(prof)
    table, pos, _ = targets.load_target(target, req.d, positions=req.positions, key=req.key, call=req.call,
                                        timeout=req.timeout, rows=req.rows, skip_rows=req.skip_rows, columns=req.columns)
    try:
        det, why = detect_table(table.data, positions=pos, against=prof, d=req.d), None
    except ValueError as e:  # too few rows for the 1-D fit: the grid and rotary readings may still name it
        det, why = None, str(e)
    if det is not None and req.d is not None and det.d != req.d and "width" not in det.deviations:
        det.deviations["width"] = det.width  # asked for d, it has other columns: never "the profile asked for"
    one: dict[str, Any] = {"found": det is not None and det.profile_flags is not None and "no_fit" not in det.deviations,
           **({"profile": det.profile, "profile_flags": det.profile_flags, "sentence": det.sentence}
              if det is not None else {"reason": why})}
    if one["found"] and (first or _one_d_conforms(table, pos, det, req)):
        # the fast path (REQ-DETECT-KINDS): a 1-D reading that names a member is the answer when asked for the first
        # reading, and when its check conforms (a conforming 1-D reading is chosen over a grid or rotary one anyway)
        why = "names a member" if first else "names a member whose check conforms"
        skipped = {"found": False, "reason": f"not tried: the 1-D reading {why}"}
        readings: dict[str, dict[str, Any]] = {"1d": one, "grid": skipped, "rotary": dict(skipped)}
    else:
        readings = {**other_readings(table.data, pos, det, dtype=req.dtype, tier=req.tier), "1d": one}
    # dtype: the file's format, what the check of a grid or cache judges by default (a grid or rotary reading judged
    # in a narrower one, the narrowest holding the values, is named with --dtype: found.name)
    found = Found("1d", None, None, "", readings, det, table, pos, dtype=table.dtype,
                  against=prof if against is not None and against_kind == "1d" else against)
    # the grid and rotary readings are found by a conforming check, the 1-D one by a fit: when both are found the
    # 1-D reading must conform too (a float16 MAE grid fits t2t-cos, a float16 cos cache fits t2t)
    other = next((k for k in ("grid", "rotary") if readings[k]["found"]), None)
    kind = "1d" if one["found"] else (other or "1d")
    if one["found"] and other is not None and not _one_d_conforms(table, pos, det, req):
        kind = other
    if kind == "1d" and not one["found"] and det is not None:  # computed in less than it claims (REQ-DETECT-PRECISION)
        lowered = _lowered_one_d(table, pos, det, req)
        if lowered is not None:
            found.detection, one["found"] = lowered, True
            one.update(profile=lowered.profile, profile_flags=lowered.profile_flags, sentence=lowered.sentence)
    if kind == "1d" and not one["found"]:  # REQ-DETECT-READ: the table's own channels, as an explicit plan
        one["channels"] = channels.KIND.read(table.data, pos, req.dtype, req.tier) or {
            "found": False, "reason": "no explicit channel plan of the frequencies read from the data conforms"}
        kind = "channels" if one["channels"]["found"] else kind
    if kind == "1d" and det is None:
        raise LoadError(f"{why}; no grid or rotary preset conforms either")
    return name(found, kind, against_kind)


def _lowered_one_d(table: Any, pos: Any, det: Any, req: Request) -> Any:
    """REQ-DETECT-PRECISION's ladder for a 1-D table that no member fits at its format and TOL-WORKING's default:
    the fit's least bad plan, checked on the later steps of the precision ladder (a half table natively in its own
    format, a float64 table as float32), as the grid and rotary readings do.
    The first step where it fits names it with that flag and the deviation ``working`` (exit 1); ``--profile
    auto`` still checks the claim and rejects the table. None otherwise (no plan, or it fails there too)."""
    if list(det.deviations) and next(iter(det.deviations)) != "no_fit":
        return None  # NaN/Inf entries, corrupted rows: no plan to name
    stored = stored_dtype(np.asarray(table.data))
    named = dataclasses.replace(det, deviations={k: v for k, v in det.deviations.items() if k != "no_fit"})
    prof = profile_of(named)
    if prof is None:
        return None
    for fmt, working in precision_ladder(req.dtype or stored, req.tier)[1:]:
        res = targets.check_detected(table, pos, named, d=req.d, dtype=fmt, tier=req.tier, working=working,
                                     detect=False, max_failures=1)
        if res.fits:
            named.profile, named.deviations["working"] = prof.name, working or fmt
            named.profile_flags = prof.cli_flags() + (f" --dtype {fmt}" if fmt != str(np.asarray(table.data).dtype)
                                                      else "") + (" --working native" if working else "")
            sentence = named.sentence.split("; the least bad plan: ")[-1].rstrip(".")
            named.sentence = f"{sentence[0].upper()}{sentence[1:]}; {lowered_words(fmt, working)}"
            return named
    return None


def _one_d_conforms(table: Any, pos: Any, det: Any, req: Request) -> bool:
    """Does the table conform to what the 1-D fit names (the check ``--profile auto`` would run)?"""
    res = targets.check_detected(table, pos, det, d=req.d, dtype=req.dtype, tier=req.tier, working=req.working,
                                 detect=False, max_failures=1)
    return res.verdict == "conforms"


def detect_grid_only(target: Any, req: Request, against: Any, against_kind: str) -> Found:
    """``shape=``/``channels_first=``: the table is a grid; only the grid reading is tried."""
    t = grid.KIND.load(target, req.key, req.channels_first)
    shape = None if req.shape is None else grid_shape(req.shape, t.data.shape[0], 0)
    r = grid.KIND.read(np.asarray(t.data), shape=shape, dtype=req.dtype, tier=req.tier)
    no = {"found": False, "reason": "not tried: --shape/--channels-first name a grid"}
    found = Found("grid", None, None, "", {"1d": no, "grid": r, "rotary": dict(no)}, table=t, dtype=t.dtype, against=against)
    if not r["found"]:
        return none(found, f"{label(target)}: {r['reason']}")
    found = name(found, "grid", against_kind)
    if req.channels_first:  # the check that reproduces it reads the file the same way
        found.profile_flags = f"{found.profile_flags} --channels-first"  # (name() has set the grid's flags)
    return found


def detect_caches(target: Any, req: Request, against: Any, against_kind: str) -> Found:
    """``cos=``/``sin=`` (``target``, if given, the cos cache): only the rotary reading is tried."""
    cos, sin, pos, dtype = rotary.KIND.load(req.replace(dtype=None), target)  # the caches' format, not the claim asked
    r = rotary.KIND.read(cos=cos, sin=sin, positions=pos, dtype=req.dtype, tier=req.tier)
    if r["found"] and cos is not None and sin is None:
        r["cache"] = "cos"
    elif r["found"] and sin is not None and cos is None:
        r["cache"] = "sin"
    no = {"found": False, "reason": "not tried: --cos/--sin name rotary caches"}
    found = Found("rotary", None, None, "", {"1d": no, "grid": dict(no), "rotary": r},
                  cache_pair=cos is not None and sin is not None, arrays={"cos": cos, "sin": sin}, dtype=dtype,
                  against=against)
    if not r["found"]:
        return none(found, f"rotary cache: {r['reason']} (layouts seen: {', '.join(r['layouts'])})")
    return name(found, "rotary", against_kind)


MAX_OTHER_ENTRIES = 1 << 22  # the grid/rotary readings are tried on tables up to this size (REQ-DETECT-KINDS)


def other_readings(data: Any, positions: Any, det: Any, dtype: str | None = None,
                   tier: str = "phase") -> dict[str, dict[str, Any]]:
    """The 2-D grid and rotary readings of a table (REQ-DETECT-KINDS): each ``{"found": bool, ...}``, in
    ``dtype`` (default: the narrowest format holding the values) at ``tier``. Skipped (and said so) on tables over
    MAX_OTHER_ENTRIES entries that the 1-D fit already names; the rotary reading is not tried (and says so) when the
    grid reading names the table (a grid is chosen first)."""
    rows, w = data.shape
    fits = det is not None and det.profile_flags is not None and "no_fit" not in det.deviations
    big = rows * w > MAX_OTHER_ENTRIES
    if fits and big:
        skipped = {"found": False, "reason": f"not tried: the 1-D reading fits and the table has over "
                                             f"{MAX_OTHER_ENTRIES} entries"}
        return {"grid": dict(skipped), "rotary": dict(skipped)}
    if big:  # bounded work: no grid reading, and the rotary one on the first rows only (a cache's prefix is one)
        keep = max(8, MAX_OTHER_ENTRIES // max(w, 1))
        data, positions = data[:keep], None if positions is None else list(positions)[:keep]
    t = np.asarray(data, dtype=np.float64) if np.asarray(data).dtype.itemsize > 8 else np.asarray(data)
    out: dict[str, dict[str, Any]] = {}
    try:
        out["grid"] = ({"found": False, "reason": f"not tried: {rows} x {w} entries, over the {MAX_OTHER_ENTRIES} "
                        f"the grid reading reads (give the grid preset and --shape)"} if big else
                       grid.KIND.read(t, dtype=dtype, tier=tier) if positions is None else
                       {"found": False, "reason": "rows at --positions"})
    except ValueError as e:
        if internal(e):
            raise  # a fault of sinpe's is not a reading that found nothing (REQ-CLI-EXIT)
        out["grid"] = {"found": False, "reason": str(e)}
    if out["grid"].get("found"):  # a grid is named before a rotary reading (REQ-DETECT-KINDS): none is needed
        out["rotary"] = {"found": False, "reason": "not tried: the grid reading names the table"}
        return out
    pos = None if positions is None else [float(p) for p in positions]
    rot: dict[str, Any] = {"found": False, "reason": "no rotary preset conforms as a cos or a sin cache"}
    for which in ("cos", "sin"):
        try:
            r = rotary.KIND.read(**{which: t}, positions=pos, dtype=dtype, tier=tier)
        except ValueError as e:
            if internal(e):
                raise
            r = {"found": False, "reason": str(e)}
        if r.get("found"):
            rot = dict(r, cache=which)
            break
    out["rotary"] = rot
    return out
