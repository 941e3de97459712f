"""What the 1-D fit names (SPEC.md REQ-DETECT-FIT, REQ-DETECT-CLI, REQ-DETECT-CANONICAL): the :class:`Detection` (the
``sinpe detect --json`` contract), its sentence, the deviations from the profile checked against, the other
schedule readings with the same frequencies, and the profile it names (:func:`profile_of`, the detect -> check
round trip).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from sinpe.reference.checking.detect.plans import _Cand, _denominator, _model
from sinpe.reference.checking.detect.precision import UNREAD
from sinpe.reference.checking.detect.snap import _str_num
from sinpe.reference.checking.jsonout import PARAMS, exact_number, json_float, rename_odd, shift_json, with_exact
from sinpe.spec.profiles import ODD_RULES, PRESETS, Profile, to_fraction

NO_FIT = 0.05           # a winning residual above this (and above the rounding floor) names nothing
FLOOR_ADMITS = 1.0      # the rounding floor admits residuals below this only: a plan off by the whole amplitude
#                         somewhere explains nothing (a floor of 3.8, a float32 table at positions near 10^6, let noise fit)


@dataclass
class Detection:
    """What ``detect`` found (``to_json()`` is the ``sinpe detect --json`` contract)."""

    layout: str | None
    shift: str | None
    base: str | None
    phase_scale: str | None
    amplitude: str | None
    offset: str | None
    zeroed_rows: list[str]
    odd_rule: str | None
    precision: str | None
    profile: str | None
    residual: float
    d: int | None
    width: int
    nearest_preset: str | None
    runner_up: dict[str, Any] | None
    margin: float | None
    deviations: dict[str, Any] = field(default_factory=dict)
    sentence: str = ""
    profile_flags: str | None = None
    precision_residuals: dict[str, float] = field(default_factory=dict)
    precision_margin: float | None = None
    precision_note: str = ""
    equivalent: list[dict[str, Any]] = field(default_factory=list)  # other (shift, base) readings, same frequencies

    @property
    def confidence(self) -> dict[str, Any]:
        """Per reported field, the margin that decided it: the runner-up's score (profile) or residual
        (precision) over the winner's; below 2 the field is reported as ambiguous (REQ-DETECT-PRECISION)."""
        return {"profile": self.margin, "precision": self.precision_margin}

    def to_json(self) -> dict[str, Any]:
        """The JSON form (REQ-CLI-JSON): parameters as numbers with ``<key>_exact`` strings, ``shift`` "half"
        for D = d/2, ``odd`` for the odd-d rule, zeroed rows as numbers; ``score`` and ``margin`` as in
        REQ-DETECT-FIT."""
        out = asdict(self)
        with_exact(out, PARAMS)
        shift_json(out)
        rename_odd(out)
        out["zeroed_rows"] = [exact_number(z) for z in out["zeroed_rows"]]
        if out["runner_up"]:
            out["runner_up"] = dict(out["runner_up"])
            with_exact(out["runner_up"], ("base",))
            shift_json(out["runner_up"])
        if "shift" in out["deviations"] and out["deviations"]["shift"] is None:
            out["deviations"]["shift"] = "half"
        out["confidence"] = {k: (json_float(v) if v is not None else None) for k, v in self.confidence.items()}
        out["precision_margin"] = json_float(self.precision_margin) if self.precision_margin is not None else None
        out["residual"] = json_float(self.residual)
        out["margin"] = json_float(self.margin) if self.margin is not None else None
        out["precision_residuals"] = {k: json_float(v) for k, v in self.precision_residuals.items()}
        return out


def _empty(w: int, zeroed: list[str], dev: dict[str, Any], against: Profile, sentence: str) -> Detection:
    return Detection(layout=None, shift=None, base=None, phase_scale=None, amplitude=None, offset=None,
                     zeroed_rows=zeroed, odd_rule=None, precision=None, profile=None, residual=float("nan"),
                     d=None, width=w, nearest_preset=None, runner_up=None, margin=None, deviations=dev,
                     sentence=sentence)


def _assemble(c: _Cand, params: dict[str, float], snapped: bool, w: int, zeroed: list[str], precision: str,
              pres: dict[str, float], against: Profile, score: float, runner: Any) -> Detection:
    b, s, o, a = params["base"], params["sigma"], params["offset"], params["amplitude"]
    prof = None
    if not c.extra and snapped:
        try:
            prof = Profile(None, c.layout or "interleaved", c.shift, base=Fraction(b).limit_denominator(1),
                           phase_scale=Fraction(s).limit_denominator(64), amplitude=Fraction(a).limit_denominator(64),
                           offset=Fraction(o).limit_denominator(64), odd=c.odd or against.odd)
            prof = prof.replace()  # names it when it is a preset
            if prof.name is None and c.odd is None:  # even d: the odd rule and shift 0 vs d/2 are not observable
                for pn, pp in PRESETS.items():
                    if _denominator(pp.shift, c.d) == _denominator(c.shift, c.d) and \
                            prof.replace(odd=pp.odd, shift=pp.shift).name == pn:
                        prof = pp
                        break
        except ValueError:
            prof = None
    name = prof.name if prof is not None else None
    # deviations from the profile checked against
    dev: dict[str, Any] = dict(c.extra)
    if c.layout != against.layout and "sin_cos_swapped" not in dev and "exponent" not in dev:
        dev["layout"] = c.layout
    if not c.extra and _denominator(c.shift, c.d) != _denominator(against.shift, c.d):
        dev["shift"] = None if c.shift is None else int(c.shift) if c.shift.denominator == 1 else str(c.shift)
    if abs(b - float(against.base)) > 1e-6 * b and "exponent" not in dev:
        dev["base"] = int(b) if float(b).is_integer() else b
    if abs(s - float(against.phase_scale)) > 1e-6:
        dev["phase_scale"] = _str_num(s)
    if abs(a - float(against.amplitude)) > 1e-6:
        dev["amplitude"] = int(a) if float(a).is_integer() else _str_num(a)
    if abs(o - float(against.offset)) > 1e-6:
        dev["offset"] = int(o) if float(o).is_integer() else _str_num(o)
    if c.d % 2 and c.odd and c.odd != against.odd and c.d == w:
        dev["odd"] = c.odd
    if c.d != w:
        dev["width"] = w
    if zeroed:
        dev["zeroed_rows"] = [int(float(z)) if float(z).is_integer() else z for z in zeroed]
    clean = ("float64", "float32", "float64 or float32", "float32 or float64", UNREAD)
    if precision not in clean:
        dev["precision"] = precision
    nearest = name
    if nearest is None:
        best_n, best_k = None, -1
        for pn, pp in PRESETS.items():
            k = (pp.layout == c.layout) + (pp.shift == c.shift) + (not c.odd or pp.odd == c.odd)
            if k > best_k:
                best_n, best_k = pn, k
        nearest = best_n
    ru = None
    margin = None
    if runner is not None:
        rs, rc, rsn, rp = runner
        ru = {"plan": rc.label, "layout": rc.layout, "shift": None if rc.shift is None else str(rc.shift),
              "base": _str_num(rp["base"]), "d": rc.d, "residual": json_float(rp["residual"]), "score": json_float(rs),
              **({"outside_family": sorted(rc.extra)} if rc.extra else {})}
        margin = rs / score if score > 0 else float("inf")
    det = Detection(
        layout=c.layout, shift=None if c.shift is None else str(c.shift), base=_str_num(b), phase_scale=_str_num(s),
        amplitude=_str_num(a), offset=_str_num(o), zeroed_rows=zeroed,
        odd_rule=c.odd, precision=precision, profile=name, residual=params["residual"], d=c.d, width=w,
        nearest_preset=nearest, runner_up=ru, margin=margin, deviations=dev,
        profile_flags=prof.cli_flags() if prof is not None else None, precision_residuals=pres)
    det.sentence = _sentence(det, c)
    if not c.extra:
        det.equivalent = equivalent_readings(c.shift, b, c.d, c.layout)
    return det


def equivalent_readings(shift: Fraction | None, base: float, d: int, layout: str | None) -> list[dict[str, Any]]:
    """The other schedule readings with exactly the same frequencies (REQ-DETECT-CANONICAL): for D' of another
    shift, base' = base^(D'/D) gives base'^(-k/D') = base^(-k/D) for every k. The reading reported is the
    canonical one (a preset first, then an integer base); these are listed, not preferred.

    >>> [(e["shift"], round(e["base"], 3)) for e in equivalent_readings(None, 10000.0, 6, "sin-cos")]
    [('1', 464.159)]
    """
    D = _denominator(shift, d)
    out: list[dict[str, Any]] = []
    if D <= 0:  # a single frequency (w_0 = 1): every base is the same table
        return out
    for s in (None, Fraction(0), Fraction(1)):
        D2 = _denominator(s, d)
        if D2 <= 0 or D2 == D or any(e["denominator"] == str(D2) for e in out):
            continue
        b2 = float(base) ** (float(D2) / float(D))
        if not (math.isfinite(b2) and b2 > 0 and b2 != 1):
            continue
        out.append({"shift": "half" if s is None else str(s), "base": b2, "denominator": str(D2), "layout": layout,
                    "note": f"w_k = {_str_num(b2)}^(-k/{D2}) is the same frequency as {_str_num(base)}^(-k/{D})"})
    return out


def _sentence(det: Detection, c: _Cand) -> str:
    lay = {"interleaved": "interleaved [sin, cos, ...] pairs", "sin-cos": "[sin...|cos...] halves",
           "cos-sin": "[cos...|sin...] halves"}.get(det.layout or "", "unknown layout")
    if "sin_cos_swapped" in det.deviations:
        lay = "interleaved pairs with cos first [cos, sin, ...]"
    if "exponent" in det.deviations:
        sched = f"a separate frequency per column, w_j = {det.base}^(-2j/d)"
    elif det.shift is None:
        sched = f"Vaswani schedule w_k = {det.base}^(-2k/d)"
    elif det.shift == "1":
        sched = f"tensor2tensor schedule w_k = {det.base}^(-k/(floor(d/2)-1))"
    else:
        sched = f"schedule w_k = {det.base}^(-k/(floor(d/2)-{det.shift}))"
    parts = [f"{lay}, {sched}, d={det.d}"]
    if det.width != det.d:
        parts.append(f"{det.width} columns returned")
    if det.odd_rule:
        parts.append(f"odd d rule {det.odd_rule}")
    reverse = det.phase_scale == "-1" and det.offset is not None and det.offset.lstrip("-").isdigit()
    if reverse:  # theta = -(p + o) w: row p is position -o - p
        parts.append(f"rows in reverse order (row i is position {_str_num(-float(det.offset or 0))} - i)")
    elif det.offset not in ("0", None):
        parts.append(f"first row is position {det.offset}" if det.offset and det.offset.lstrip("-").isdigit()
                     else f"position offset {det.offset}")
    if det.amplitude not in ("1", None):
        parts.append(f"amplitude {det.amplitude}")
    if det.phase_scale not in ("1", None) and not reverse:
        parts.append(f"phase scale {det.phase_scale}")
    if det.zeroed_rows:
        parts.append(f"rows at positions {', '.join(det.zeroed_rows[:5])} zeroed (padding)")
    prec = {"float64": "computed in float64", "float32": "computed in float32",
            UNREAD: "precision not read (no evaluation fits the rows)"}.get(det.precision or "")
    if prec is None and " or " in (det.precision or ""):
        prec = f"computed in {det.precision} (the residuals do not separate them)"
    elif prec is None:
        prec = f"{(det.precision or '').replace('-', ' in ')} (precision loss)"
    parts.append(prec)
    s = ", ".join(parts)
    s += f" (preset {det.profile})." if det.profile else (f" (nearest preset {det.nearest_preset})." if det.nearest_preset else ".")
    return s[0].upper() + s[1:] if not s.startswith("[") else s


def _named(det: Detection, best: _Cand, params: dict[str, float], floor: float, bad_rows: list[str],
           corrupted: list[int], against: Profile, pos: np.ndarray, rows: int) -> Detection:
    """What the assembled detection names: nothing above the residual the fit allows (``no_fit``), the corrupted
    rows or columns as deviations, else the profile's round-trip flags (with ``--zero-rows`` for padding rows).
    The fit allows :data:`NO_FIT`, or the rounding floor up to :data:`FLOOR_ADMITS`: a winner must be a plan the fit
    could have rejected (a floor beyond the values' range admits every table, noise included)."""
    if not params["residual"] <= max(NO_FIT, min(floor, FLOOR_ADMITS)):  # NaN too: the winner is only the least bad plan
        det.deviations = {"no_fit": json_float(params["residual"]), **det.deviations}
        det.profile = det.profile_flags = None
        det.sentence = (f"No member of the family fits this table (residual {params['residual']:.3g} of the "
                        f"amplitude); the least bad plan: {det.sentence[0].lower()}{det.sentence[1:]}")
        return det
    if bad_rows:
        det.deviations["corrupted_rows"] = bad_rows[:20]
        det.sentence = det.sentence[:-1] + (f"; the rows at positions {', '.join(bad_rows[:8])}"
                                            f"{'...' if len(bad_rows) > 8 else ''} hold values of no family member.")
    if corrupted:
        det.deviations["corrupted_columns"] = corrupted
        det.sentence = det.sentence[:-1] + f"; columns {corrupted[:8]}{'...' if len(corrupted) > 8 else ''} hold values of no family member."
    elif not best.extra:  # the round trip: fitted (unsnapped) parameters too, no odd rule d cannot show
        p = profile_of(det, against)
        det.profile_flags = p.cli_flags() if p is not None else det.profile_flags
    if det.profile_flags and det.zeroed_rows:  # padding rows: sinpe check judges them exactly 0 (REQ-CHECK-SELECT)
        det.profile_flags += " --zero-rows " + zero_row_indices(pos, det.zeroed_rows, rows)
    return det


def zero_row_indices(pos: Any, zeroed: list[str], n: int) -> str:
    """The ``--zero-rows`` indices of the rows at the positions ``zeroed`` (a detection's ``zeroed_rows``)."""
    p = np.arange(n, dtype=np.float64) if pos is None else np.asarray(pos, dtype=np.float64)
    return ",".join(str(int(i)) for i in np.flatnonzero(np.isin(p, [float(Fraction(z)) for z in zeroed])))


def profile_of(det: Detection, against: Profile | None = None) -> Profile | None:
    """The family member a detection names, its parameters read exactly as reported (a fitted amplitude
    such as 0.04419417382415922 is that binary64 value), or None when it names none (no fit, a plan
    outside the family, NaN/Inf entries). ``sinpe check --profile auto`` checks against it, and
    ``profile_flags`` are its flags (the detect -> check round trip, REQ-DETECT-CLI).

    >>> import numpy as np
    >>> from sinpe.spec.profiles import get_profile
    >>> from sinpe.reference.tables import table
    >>> from sinpe.reference.checking.detect import detect_table
    >>> det = detect_table(table("t2t", 16, 64, "float64") / 8)
    >>> profile_of(det).cli_flags()
    '--profile t2t --amplitude 0.125'
    """
    if det.layout is None or det.base is None or any(k in det.deviations for k in (
            "no_fit", "non_finite", "sin_cos_swapped", "exponent", "corrupted_columns", "corrupted_rows",
            "seq_first")):
        return None
    try:
        p = Profile(None, det.layout, None if det.shift in (None, "half") else Fraction(det.shift),
                    base=to_fraction(det.base), phase_scale=to_fraction(det.phase_scale or "1"),
                    amplitude=to_fraction(det.amplitude or "1"), offset=to_fraction(det.offset or "0"),
                    odd=det.odd_rule or "trailing-sin")
    except ValueError:
        return None
    if det.odd_rule is None:  # even d: the odd rule is not observable; the reading with the fewest flags
        return min((p.replace(odd=o) for o in ODD_RULES), key=lambda q: (len(q.cli_flags().split()), q.odd != p.odd))
    return p.replace()


def _unexplained_zero_rows(c: _Cand, params: dict[str, float], zeroed: list[str]) -> list[str]:
    """Zero rows that the fitted profile does not produce itself (d = 1 at position 0 is all zero)."""
    if not zeroed:
        return zeroed
    p = np.array([float(Fraction(z)) for z in zeroed])
    m = _model(c, p, params["sigma"], params["base"], params["offset"])[:, c.kinds >= 0]
    keep = np.max(np.abs(m), axis=1) > 1e-12 if m.size else np.zeros(len(p), dtype=bool)
    return [z for z, k in zip(zeroed, keep, strict=True) if k]
