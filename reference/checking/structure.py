"""Structural checks of a table (SPEC.md REQ-CHECK-STRUCT): the theorems say how rows relate.

However loose the pointwise bound (TOL-PHASE at long positions, or ``--working native`` in half
precision), two rows of a conforming table keep the relations the theorems prove, within TOL-STRUCT's
slack (:func:`sinpe.spec.tolerance.angle_slack`), because the errors of the frequencies are shared by
every row of a column:

- THM-SHIFT: PE(q) = M_{q-p} PE(p), so the angle phi = atan2(y_sin, y_cos) of each (sin, cos) column
  pair of frequency k advances by sigma (q - p) omega_k between consecutive rows (mod 2 pi);
- THM-INJ: rows at distinct positions differ, so two bit-identical rows at positions p != q are a
  finding wherever some pair's advance sigma (q - p) omega_k is farther from 0 (mod 2 pi) than the slack.

Rows at positions rounded to a format narrower than the evaluation (positions cast to float16 in a
float32 table, say) break both. The checks use at most :data:`MAX_PAIRS` column pairs spread over the
frequencies; an entry pair whose slack reaches 1 rad is not judged (and not counted as judged).

>>> import numpy as np
>>> from sinpe.spec.profiles import get_profile
>>> from sinpe.reference.implementations.numpy_impl import pe_table
>>> vas = get_profile("vaswani")
>>> pos = np.arange(2040, 2060, dtype=np.float64)
>>> plan = pair_plan(vas, 64)
>>> good = pe_table(vas, 64, pos, "float32").astype(np.float64)
>>> shift_violations(plan, good, pos, "float32", None, vas)[1:]
(0, [])
>>> bad = pe_table(vas, 64, pos.astype(np.float16).astype(np.float64), "float32").astype(np.float64)
>>> judged, n, v = shift_violations(plan, bad, pos, "float32", None, vas)
>>> v[0].theorem, v[0].positions
('THM-SHIFT', ('2048', '2049'))
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from sinpe.reference.numerics.positions import format_position
from sinpe.reference.oracles import fast as fastref
from sinpe.spec.definition import ColumnData, column_data
from sinpe.spec.profiles import Profile
from sinpe.spec.tolerance import angle_slack

MAX_PAIRS = 8           # (sin, cos) column pairs used per row
MAX_FINDINGS = 10       # structural findings listed (all are counted)
TWO_PI = 2 * math.pi


@dataclass(frozen=True)
class PairPlan:
    """The column pairs used: sin and cos column indices and the float64 sigma*omega_k of each."""

    sin_cols: np.ndarray
    cos_cols: np.ndarray
    omega: np.ndarray
    ks: np.ndarray
    cd: ColumnData  # the column data the plan was read from: offset, amplitude and base of the slack

    @property
    def cols(self) -> np.ndarray:
        return np.concatenate([self.sin_cols, self.cos_cols])


@dataclass
class StructFinding:
    """Two rows whose relation breaks a theorem beyond TOL-STRUCT's slack."""

    theorem: str
    positions: tuple[str, str]
    k: int
    columns: tuple[int, int]
    residual: float
    slack: float
    repro: str

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["positions"], out["columns"] = list(self.positions), list(self.columns)
        return out


def pair_plan(profile: Profile, d: int) -> PairPlan | None:
    """Up to :data:`MAX_PAIRS` frequencies with both a sin and a cos column, spread over k; None if none."""
    sin_of: dict[int, int] = {}
    cos_of: dict[int, int] = {}
    cd = column_data(profile, d)
    for j, (kind, k) in enumerate(zip(cd.kinds, cd.labels, strict=True)):
        (sin_of if kind == "sin" else cos_of if kind == "cos" else {})[k] = j
    ks = sorted(set(sin_of) & set(cos_of))
    if not ks:
        return None
    if len(ks) > MAX_PAIRS:
        ks = [ks[i] for i in dict.fromkeys(np.linspace(0, len(ks) - 1, MAX_PAIRS).round().astype(int).tolist())]
    w = fastref.frequency_words(cd)[4]
    ka = np.array(ks, dtype=np.intp)
    return PairPlan(np.array([sin_of[k] for k in ks]), np.array([cos_of[k] for k in ks]), w[ka].astype(np.float64), ka, cd)


def _wrap(r: np.ndarray) -> np.ndarray:
    return r - TWO_PI * np.round(r / TWO_PI)


def _repro(profile: Profile, d: int, p: str, q: str, dtype: str) -> str:
    return f"sinpe table {profile.cli_flags()} --d {d} --positions {p},{q} --dtype {dtype} --out pe.npy"


def shift_violations(plan: PairPlan, y: np.ndarray, pos: np.ndarray, dtype: str, working: Any, profile: Profile,
                     max_findings: int = MAX_FINDINGS) -> tuple[int, int, list[StructFinding]]:
    """THM-SHIFT between consecutive rows of ``y`` (all d columns) at float64 ``pos``:
    (judged row-pair x frequency comparisons, violations, the first ``max_findings`` of them)."""
    return shift_violations_pairs(plan, np.asarray(y[:, plan.sin_cols], dtype=np.float64),
                                  np.asarray(y[:, plan.cos_cols], dtype=np.float64), pos, dtype, working, profile,
                                  y.shape[1], max_findings)


def shift_violations_pairs(plan: PairPlan, ys: np.ndarray, yc: np.ndarray, pos: np.ndarray, dtype: str, working: Any,
                           profile: Profile, d: int, max_findings: int = MAX_FINDINGS) -> tuple[int, int, list[StructFinding]]:
    """:func:`shift_violations` on the plan's sin and cos columns already taken out (``ys``, ``yc``)."""
    if ys.shape[0] < 2:
        return 0, 0, []
    phi = np.arctan2(ys, yc)
    P = pos + float(plan.cd.offset)
    theta = np.abs(P)[:, None] * np.abs(plan.omega)[None, :]
    dphase = np.diff(pos)[:, None] * plan.omega[None, :]
    slack = angle_slack(theta[:-1], theta[1:], dphase, dtype, working, float(plan.cd.amplitude), base=float(plan.cd.base))
    resid = np.abs(_wrap(np.diff(phi, axis=0) - dphase))
    judged = np.isfinite(slack) & np.isfinite(resid)
    bad = judged & (resid > slack)
    out = []
    for i, kk in np.argwhere(bad)[:max_findings]:
        p, q = format_position(pos[i]), format_position(pos[i + 1])
        out.append(StructFinding("THM-SHIFT", (p, q), int(plan.ks[kk]), (int(plan.sin_cols[kk]), int(plan.cos_cols[kk])),
                                 float(resid[i, kk]), float(slack[i, kk]), _repro(profile, d, p, q, dtype)))
    return int(judged.sum()), int(bad.sum()), out


def row_hashes(y: np.ndarray, plan: PairPlan | None) -> np.ndarray:
    """A 64-bit hash per row of the plan's columns (equal rows hash equal; candidates are re-compared)."""
    cols = y[:, plan.cols] if plan is not None else y
    bits = np.ascontiguousarray(cols, dtype=np.float64).view(np.uint64)
    mult = (np.arange(1, bits.shape[1] + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)) | np.uint64(1)
    with np.errstate(over="ignore"):
        return (bits * mult[None, :]).sum(axis=1, dtype=np.uint64)


def injectivity_violations(plan: PairPlan, hashes: np.ndarray, data: Any, pos: np.ndarray, dtype: str, working: Any,
                           profile: Profile, max_groups: int = 1000) -> tuple[int, int, list[StructFinding]]:
    """THM-INJ: bit-identical rows at distinct positions whose pairs must have advanced apart."""
    order = np.argsort(hashes, kind="stable")
    hs = hashes[order]
    dup = np.nonzero(hs[1:] == hs[:-1])[0]
    out: list[Any] = []
    judged, n_bad = 0, 0
    for idx in dup[:max_groups]:
        i, j = sorted((int(order[idx]), int(order[idx + 1])))
        if pos[i] == pos[j] or not np.array_equal(np.asarray(data[i]), np.asarray(data[j]), equal_nan=True):
            continue
        P = np.array([pos[i], pos[j]]) + float(plan.cd.offset)
        th = np.abs(P)[:, None] * np.abs(plan.omega)[None, :]
        dphase = (pos[j] - pos[i]) * plan.omega
        slack = angle_slack(th[0], th[1], dphase, dtype, working, float(plan.cd.amplitude), base=float(plan.cd.base))
        resid = np.abs(_wrap(dphase))
        ok = np.isfinite(slack)
        judged += int(ok.sum())
        viol = np.nonzero(ok & (resid > slack))[0]
        if viol.size:
            n_bad += 1
            kk = int(viol[np.argmax(resid[viol] - slack[viol])])
            p, q = format_position(pos[i]), format_position(pos[j])
            if len(out) < MAX_FINDINGS:
                out.append(StructFinding("THM-INJ", (p, q), int(plan.ks[kk]),
                                         (int(plan.sin_cols[kk]), int(plan.cos_cols[kk])), float(resid[kk]),
                                         float(slack[kk]), _repro(profile, np.asarray(data[i]).shape[-1], p, q, dtype)))
    return judged, n_bad, out
