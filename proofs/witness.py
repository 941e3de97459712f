"""Numeric witnesses: each obligation evaluated with mpmath at seeded random points (smoke test only).

A witness can only *refute*: ``max |lhs - rhs|`` above ``tol`` at 50 digits means the statement is
false (or the symbolic pipeline is broken); a small value proves nothing and is never reported as
the proof.

>>> import sympy as sp
>>> from sinpe.spec.theorems import Obligation, K
>>> ok, text = witness([Obligation("x", sp.sin(2*K), 2*sp.sin(K)*sp.cos(K))])
>>> ok, text.startswith("max|lhs-rhs| = ")
(True, True)
>>> witness([Obligation("x", sp.sin(2*K), 2*sp.sin(K))])[0]
False
"""
from __future__ import annotations

import random

import mpmath
import sympy as sp

from sinpe.spec.theorems import Obligation

DPS = 50
TOL = mpmath.mpf(10) ** -35


def witness(obs: list[Obligation], points: int = 3, seed: int = 20170612, max_obligations: int = 40) -> tuple[bool, str]:
    """(no refutation found, one-line report) over the first ``max_obligations`` obligations."""
    rng = random.Random(seed)
    worst = mpmath.mpf(0)
    n = 0
    with mpmath.workdps(DPS):
        for ob in obs[:max_obligations]:
            # 'sos' obligations claim |lhs| <= rhs: the residual is the excess max(0, |lhs| - rhs)
            e = sp.sympify(sp.Max(0, sp.Abs(ob.lhs) - ob.rhs) if ob.method == "sos" else ob.lhs - ob.rhs)
            if ob.at:
                e = e.subs(dict(ob.at))
            syms = sorted(e.free_symbols, key=lambda s: s.name)
            f = sp.lambdify(syms, e, "mpmath")
            for _ in range(points):
                vals = [mpmath.mpf(rng.randint(1, 10**6)) / 10**6 if s.is_positive else
                        mpmath.mpf(rng.randint(-10**9, 10**9)) / 10**6 for s in syms]
                worst = max(worst, abs(mpmath.mpmathify(f(*vals))))
                n += 1
    ok = worst <= TOL
    return ok, f"max|lhs-rhs| = {mpmath.nstr(worst, 3)} over {n} random points at {DPS} digits (mpmath){'' if ok else ' REFUTED'}"
