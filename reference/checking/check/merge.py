"""The figures of the streamed 1-D kernel merged over chunks in row order (SPEC.md REQ-CHECK-STREAM): failures and their
first rows, non-finite and non-F entries, entries left to the oracle (its budget), band figures, the worst entries,
unjudged entries, the other working formats' counts, THM-SHIFT and THM-INJ (REQ-CHECK-STRUCT).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from sinpe.reference.checking import decide, structure
from sinpe.reference.checking.judge import unjudged_figures
from sinpe.reference.checking.result import BandFigures, CheckResult
from sinpe.reference.numerics.positions import format_position
from sinpe.spec.profiles import Profile


class _Merged:
    """Figures merged over chunks in row order: failures and their first rows, non-finite and non-F entries,
    entries left to the oracle, band figures, the worst entries, unjudged entries, suggested working
    formats, THM-SHIFT, row hashes."""

    def __init__(self, bands: list[BandFigures], max_failures: int, tier: str, fmt: Any) -> None:
        self.bands, self.max_failures, self.tier, self.fmt = bands, max_failures, tier, fmt
        self.nonfinite, self.not_in = 0, 0
        self.first_nonfinite: Any = None
        self.first_not_in: Any = None
        self.undecided: list[tuple[int, int, float, float]] = []
        self.over_budget = 0
        self.n_fail = 0
        self.fail_rows: list[tuple[Any, ...]] = []
        self.worst_abs, self.worst_ulp = (-1.0, 0, 0), (-1.0, 0, 0)
        self.unjudged, self.shift_judged, self.shift_bad = 0, 0, 0
        self.rows_unjudged: list[Any] = []
        self.alts: dict[str, Any] = {}
        self.findings: list[Any] = []
        self.hashes: list[Any] = []

    def add(self, part: dict[str, Any]) -> None:
        self.nonfinite += part["nonfinite"]
        self.first_nonfinite = self.first_nonfinite or part["first_nonfinite"]
        self.not_in += part["not_in"]
        self.first_not_in = self.first_not_in or part["first_not_in"]
        room = max(0, decide.MAX_ORACLE - len(self.undecided))  # REQ-CHECK-DECIDE: past the budget, undecided
        self.undecided.extend(part["undecided"][:room])
        self.over_budget += part["over_budget"] + max(0, len(part["undecided"]) - room)
        self.n_fail += part["n_fail"]
        self.fail_rows.extend(part["fail_rows"][: max(0, self.max_failures - len(self.fail_rows))])
        for i, cnt in part["band_fail"]:
            self.bands[i].failures += cnt
        for i, cnt, mabs, mulp, mrat, unj in part["band_stats"]:
            bd = self.bands[i]
            bd.rows += cnt
            bd.max_abs_error = max(bd.max_abs_error, mabs)
            bd.max_ulp_error = max(bd.max_ulp_error, mulp)
            bd.max_bound_ratio = max(bd.max_bound_ratio, mrat)
            bd.unjudged += unj
        wa, wu = part["worst_abs"], part["worst_ulp"]
        if wa[0] > self.worst_abs[0] or (wa[0] != wa[0] and self.worst_abs[0] == self.worst_abs[0]):
            self.worst_abs = wa
        if wu[0] > self.worst_ulp[0]:
            self.worst_ulp = wu
        self.unjudged += part["unjudged"]
        if part["unjudged"]:
            self.rows_unjudged.append(part["unjudged_row"])
        for w, (u, e) in part["alts"].items():
            cu, ce = self.alts.get(w, (0, 0))
            self.alts[w] = (cu + u, ce + e)
        j, nb, fl = part["shift"]
        self.shift_judged += j
        self.shift_bad += nb
        self.findings.extend(fl)
        if part["hashes"] is not None:
            self.hashes.append(part["hashes"])

    def finish(self, res: CheckResult, entries: int, pos: np.ndarray, data: Any, plan: Any, fmt: Any, wfmt: Any,
               profile: Profile, max_failures: int) -> None:
        first = min(self.rows_unjudged, key=lambda r: abs(float(pos[r]))) if self.rows_unjudged else None
        res.unjudged = unjudged_figures(self.unjudged, entries, None if first is None else format_position(pos[first]))
        res.alternatives = [{"working": "native" if w == fmt.dtype else w, "unjudged": u, "exceed": e,
                             "note": "fast reference, not decided"} for w, (u, e) in self.alts.items()]
        inj: tuple[int, int, list[Any]] = (0, 0, [])
        if plan is not None and self.hashes:
            pos64 = pos if pos.dtype != object else np.array([float(x) for x in pos], dtype=np.float64)
            inj = structure.injectivity_violations(plan, np.concatenate(self.hashes), data, pos64, fmt.dtype, wfmt, profile)
        found = (self.findings + inj[2])[:max_failures]
        res.structural = {"judged": self.shift_judged + inj[0], "violations": self.shift_bad + inj[1], "findings": found}
