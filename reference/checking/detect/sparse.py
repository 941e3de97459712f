"""Detection from a few rows at any known positions (SPEC.md REQ-DETECT-SPARSE).

The fit of :mod:`sinpe.reference.checking.detect.fit` estimates frequencies from consecutive rows. With
fewer (at least 3 rows, at any exact positions: 0, 1, 1000, 10^5, 10^6), candidates are *checked*
instead: every column plan of DEF-FAMILY for the table's width, the common bases and offsets 0, 1, 2,
presets first, are compared entry by entry with the exact values under the phase tier of the
table's stored format (the one judge: :func:`sinpe.reference.checking.judge.check_plan`).
The first that conforms is named; the others that conform too are listed (these rows cannot tell
them apart). Grids at given cells: :func:`sinpe.reference.checking.detect.grid.detect_grid` with ``cells``.

>>> import numpy as np
>>> from sinpe.spec.profiles import get_profile
>>> from sinpe.reference.oracles.fast import table_f64
>>> pos = np.array([0, 1, 1000, 10**5, 10**6])
>>> t, _ = table_f64(get_profile("t2t"), 16, pos)
>>> r = detect_sparse(t.astype(np.float32), pos)
>>> r.profile, r.precision, r.equivalent
('t2t', 'float32', [])
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from sinpe.reference.checking.detect.ladder import stored_dtype
from sinpe.reference.checking.detect.reading import Detection
from sinpe.reference.checking.judge import check_plan
from sinpe.reference.oracles.angles import profile_plan
from sinpe.spec.definition import column_data
from sinpe.spec.profiles import PRESETS, Profile
from sinpe.spec.tolerance import allowed_abs_error

MIN_ROWS = 3
BASES = (Fraction(10000), Fraction(1000), Fraction(100000), Fraction(500))
OFFSETS = (Fraction(0), Fraction(1), Fraction(2))


@dataclass
class SparseDetection:
    """The first conforming candidate (``profile`` its preset name, if it is one) and the others."""

    found: bool
    profile: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    flags: str | None = None
    describe: str = ""
    precision: str = ""
    rows: int = 0
    equivalent: list[str] = field(default_factory=list)
    reason: str = ""
    residual: float = float("nan")  # max |y - PE| / |alpha| of the named candidate

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def candidates(w: int) -> list[Profile]:
    """Presets (and their offsets) first, then every layout/schedule/odd rule with the common bases."""
    out: list[Profile] = []
    for o in OFFSETS:
        out += [p.replace(offset=o) if o else p for p in PRESETS.values()]
    odds = ("trailing-sin", "zero-pad", "ceil-split") if w % 2 else ("trailing-sin",)
    for b in BASES:
        for o in OFFSETS:
            for layout in ("interleaved", "sin-cos", "cos-sin"):
                for shift in (None, Fraction(0), Fraction(1)):
                    for odd in odds:
                        try:
                            p = Profile(None, layout, shift, base=b, offset=o, odd=odd).replace()
                        except ValueError:
                            continue
                        out.append(p)
    seen: set[Any] = set()
    unique = []
    for p in out:  # one per distinct table at width w (for even w the odd rule is not observable)
        k = _table_key(p, w)
        if k is not None and k not in seen:
            seen.add(k)
            unique.append(p)
    return unique


def _table_key(p: Profile, w: int) -> Any:
    try:
        cd = column_data(p, w)
        return (cd.kinds, tuple(cd.exponents[k] if f != "zero" else None for f, k in zip(cd.kinds, cd.labels, strict=True)),
                p.base, p.offset, p.phase_scale, p.amplitude)
    except ValueError:
        return None


def _may_fit(y: np.ndarray, prof: Profile, w: int, pos: list[Any], dt: str) -> bool:
    """A necessary condition of :func:`check_plan`'s ``fits``, in plain float64 (not the candidate's certified
    frequency enclosures, its cost): no entry beyond the phase bound by more than the float64 model's own error
    (|theta| 2^-48 of the amplitude: a generous bound of binary64 sin/cos of a rounded argument) and 2 ulp."""
    try:
        cd = column_data(prof, w)
    except ValueError:
        return True  # let the check say why
    e = np.array([float(cd.exponents[k]) for k in cd.labels])
    p = np.array([float(x) for x in pos])[:, None]
    theta = float(cd.scale) * (p + float(cd.offset)) * float(cd.base) ** -e[None, :]
    kinds = np.array(cd.kinds)
    ref = float(cd.amplitude) * np.where(kinds == "sin", np.sin(theta), np.where(kinds == "cos", np.cos(theta), 0.0))
    theta = np.where(kinds == "zero", np.nan, theta)
    allowed = allowed_abs_error("phase", dt, ref, theta, float(cd.amplitude), base=float(cd.base), working=None)
    slack = abs(float(cd.amplitude)) * (np.abs(np.nan_to_num(theta)) * 2.0 ** -48 + 2.0 ** -50) + 2 * np.spacing(np.abs(ref))
    with np.errstate(invalid="ignore"):
        return bool(np.all(np.abs(y - ref) - allowed <= slack))


def detect_sparse(table: Any, positions: Any, dtype: str | None = None, max_equivalent: int = 4) -> SparseDetection:
    """Name the family member a table of >= 3 rows at the given positions conforms to (phase tier)."""
    y = np.asarray(table)
    if y.ndim != 2:
        raise ValueError(f"detect needs a 2-D table; got shape {y.shape}")
    pos = list(np.asarray(positions, dtype=object).tolist())
    if len(pos) != y.shape[0]:
        raise ValueError(f"{y.shape[0]} rows but {len(pos)} positions")
    keep = np.all(np.isfinite(y), axis=1) & ~np.all(y == 0, axis=1)
    if int(keep.sum()) < MIN_ROWS:
        return SparseDetection(False, rows=int(keep.sum()),
                               reason=f"detect needs at least {MIN_ROWS} non-zero finite rows at known positions")
    y, pos = y[keep], [p for p, k in zip(pos, keep, strict=True) if k]
    dt = dtype or stored_dtype(y)
    w = y.shape[1]
    hits: list[Profile] = []
    residual = float("nan")
    for prof in candidates(w):
        if not _may_fit(y, prof, w, pos, dt):
            continue
        try:
            r = check_plan(y, profile_plan(prof, w, pos), prof.name or "", dtype=dt, tier="phase")
        except (ValueError, ArithmeticError):
            continue
        if r.fits:
            if not hits:
                residual = r.max_abs_error / float(abs(prof.amplitude))
            hits.append(prof)
            if len(hits) > max_equivalent:
                break
    if not hits:
        return SparseDetection(False, precision=dt, rows=len(pos),
                               reason="no preset or common family member conforms at these positions")
    best = hits[0]
    return SparseDetection(True, best.name, {k: v for k, v in best.params().items()}, best.cli_flags(),
                           best.describe(), dt, len(pos), [p.cli_flags() for p in hits[1:]], residual=residual)


def as_detection(sd: SparseDetection, w: int, against: Profile, zeroed: list[str]) -> Any:
    """The :class:`~sinpe.reference.checking.detect.reading.Detection` ``sinpe detect`` reports for a sparse result."""
    p = sd.params
    dev: dict[str, Any] = {}
    if p["layout"] != against.layout:
        dev["layout"] = p["layout"]
    if p["shift"] != (None if against.shift is None else str(against.shift)):
        dev["shift"] = p["shift"]
    for k in ("base", "offset", "phase_scale", "amplitude"):
        if p[k] != str(getattr(against, k)):
            dev[k] = p[k]
    if zeroed:
        dev["zeroed_rows"] = zeroed
    eq = f"; equally consistent with these rows: {', '.join(sd.equivalent)}" if sd.equivalent else ""
    sentence = (f"{sd.describe}, d={w}, conforms (phase tier, {sd.precision}) at all {sd.rows} rows"
                + (f" (preset {sd.profile})" if sd.profile else "") + f"{eq}.")
    return Detection(layout=p["layout"], shift=p["shift"], base=p["base"], phase_scale=p["phase_scale"],
                     amplitude=p["amplitude"], offset=p["offset"], zeroed_rows=zeroed,
                     odd_rule=p["odd"] if w % 2 else None, precision=sd.precision, profile=sd.profile,
                     residual=sd.residual, d=w, width=w, nearest_preset=sd.profile, runner_up=None, margin=None,
                     deviations=dev, sentence=sentence[0].upper() + sentence[1:], profile_flags=sd.flags)
