"""Deciding an entry close to its bound (SPEC.md REQ-CHECK-DECIDE): the one oracle escalation of every kind.

A check's fast reference decides every entry whose |y - PE| is farther from its bound than the reference's
own error. The few left go here: PE is enclosed by a certified oracle (Arb for 1-D tables,
:func:`sinpe.reference.oracles.arb.enclose`; mpmath intervals for grids and rotary caches,
:class:`sinpe.reference.oracles.angles._Certified`) at rising precision, START_PREC bits doubled up to
MAX_PREC, until the enclosure [lo, hi] settles the question for every PE in it:

- within: max |y - [lo, hi]| <= the bound at the smallest |PE| of [lo, hi];
- beyond: min |y - [lo, hi]| >  the bound at the largest |PE| of [lo, hi]

(the bound of :func:`sinpe.spec.tolerance.allowed_abs_error` grows with |PE| at every tier). An entry the
cap leaves open is *undecided*, and so is every entry past the budget: at most MAX_ORACLE entries of one
table go to the oracle. An undecided entry makes the verdict inconclusive (exit 3) when nothing fails,
never a pass.

>>> import mpmath
>>> third = lambda prec: (mpmath.mpf(1) / 3 - mpmath.mpf(2) ** -prec, mpmath.mpf(1) / 3 + mpmath.mpf(2) ** -prec)
>>> esc = Escalation()
>>> esc.decide(third, 0.2, lambda pe: 0.1), esc.decide(third, 0.3, lambda pe: 0.1)
(False, True)
>>> wide = lambda prec: (mpmath.mpf(0), mpmath.mpf(1))       # an enclosure that never narrows
>>> esc.decide(wide, 0.5, lambda pe: 0.3) is None                # within for PE = 0.5, beyond for PE = 0
True
>>> esc.decided, esc.undecided
(2, 1)
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sinpe.spec.tolerance import allowed_abs_error

START_PREC = 128          # bits of the first enclosure
MAX_PREC = 1 << 13        # the precision cap: an entry still open at 8192 bits stays undecided
MAX_ORACLE = 20_000       # the budget: entries of one table the oracle is asked about; the rest stay undecided

Enclose = Callable[[int], tuple[Any, Any]]   # prec -> (lo, hi), exact mpmath endpoints around PE
Bound = Callable[[float], float]             # |PE| -> the entry's bound on |y - PE|


def entry_bound(tier: str, fmt: Any, theta: float, amplitude: float, base: float, working: Any) -> Bound:
    """The bound of one entry as a function of |PE| (:func:`sinpe.spec.tolerance.allowed_abs_error`;
    ``theta`` NaN in an identically zero column)."""
    th = np.array([theta])

    def bound(pe: float) -> float:
        return float(allowed_abs_error(tier, fmt, np.array([pe]), th, amplitude, base=base, working=working)[0])
    return bound


def settle(enclose: Enclose, y: float, bound: Bound) -> tuple[bool | None, float, float]:
    """(within, |y - PE| at most, PE): ``within`` True or False once an enclosure decides it, None when
    MAX_PREC bits do not (then the figures are those of the last enclosure)."""
    import mpmath  # the enclosures' numbers: imported when an entry goes to the oracle

    yy = mpmath.mpf(y)
    prec = START_PREC
    while True:
        lo, hi = enclose(prec)
        d = [abs(mpmath.fsub(yy, x, exact=True)) for x in (lo, hi)]  # exact: no rounding flips a comparison
        e_hi = max(d)
        e_lo = mpmath.mpf(0) if lo <= yy <= hi else min(d)
        small = 0.0 if lo <= 0 <= hi else float(min(abs(lo), abs(hi)))
        large = float(max(abs(lo), abs(hi)))
        mid = float((lo + hi) / 2)
        if e_hi <= bound(_down(small)):
            return True, float(e_hi), mid
        if e_lo > bound(_up(large)):
            return False, float(e_hi), mid
        prec *= 2
        if prec > MAX_PREC:
            return None, float(e_hi), mid


def _down(x: float) -> float:
    """A binary64 value <= the real whose nearest binary64 is ``x`` (so the bound is not taken too high)."""
    return float(np.nextafter(x, 0.0)) if x > 0 else 0.0


def _up(x: float) -> float:
    return float(np.nextafter(x, np.inf))


def undecided_words(n: int) -> str:
    """The reason's words for ``n`` undecided entries."""
    return (f"{n} entries within the reference's error of their bound could not be decided by the oracle (at "
            f"most {MAX_PREC} bits, {MAX_ORACLE} entries per table)")


@dataclass
class Escalation:
    """One table's oracle: its budget (MAX_ORACLE entries asked about) and the counts of entries decided
    and left undecided (by the precision cap, or past the budget)."""

    budget: int = field(default_factory=lambda: MAX_ORACLE)
    asked: int = 0
    decided: int = 0
    undecided: int = 0

    def room(self) -> int:
        """How many more entries the budget lets the oracle take."""
        return max(0, self.budget - self.asked)

    def skip(self, n: int) -> None:
        """``n`` entries past the budget: undecided, never asked."""
        self.undecided += n

    def decide(self, enclose: Enclose, y: float, bound: Bound) -> bool | None:
        """Is ``y`` within ``bound`` of the PE that ``enclose`` encloses? None: undecided (cap or budget)."""
        return self.decide_figures(enclose, y, bound)[0]

    def decide_figures(self, enclose: Enclose, y: float, bound: Bound) -> tuple[bool | None, float, float]:
        """:meth:`decide` with the figures of :func:`settle` (NaN when the budget is spent)."""
        if self.asked >= self.budget:
            self.skip(1)
            return None, float("nan"), float("nan")
        self.asked += 1
        out = settle(enclose, y, bound)
        if out[0] is None:
            self.undecided += 1
        else:
            self.decided += 1
        return out
