"""Numeric witnesses: every obligation evaluated in Arb balls at seeded points of its symbols' domains.

A witness can only *refute*: a ball of ``lhs - rhs`` that excludes 0 (or of ``|lhs| - rhs`` that is
certified positive, for a bound) means the statement is false or the symbolic pipeline is broken; balls
that contain 0 prove nothing and are never reported as the proof. Every obligation is evaluated (not a
prefix), at ``points`` points each; symbols are drawn from their declared domains (integers, positive
rationals, reals, imaginary and complex Gaussian rationals: :func:`sinpe.proofs.balls.candidates`);
symbolic sums are expanded at small n; 0 is left out (alpha = 0 or k = 0 make every
statement about PE trivially true).

>>> import sympy as sp
>>> from sinpe.spec.theorems import Obligation, K
>>> ok, text = witness([Obligation("x", sp.sin(2*K), 2*sp.sin(K)*sp.cos(K))])
>>> ok, text.startswith("max|lhs-rhs| <= ")
(True, True)
>>> witness([Obligation("x", sp.sin(2*K), 2*sp.sin(K))])[0]
False
"""
from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import flint
import sympy as sp

from sinpe.spec.theorems import Obligation

from .balls import NotEvaluable, acb_value, candidates, exact_ball
from .claims import SEED

RECORD: Callable[[Any, dict, Any, Any], None] | None = None  # while certificates are written (proofs/certificates.py): called (obligation, env, lhs ball, rhs ball)


def witness(obs: list[Obligation], points: int = 3, seed: int = SEED) -> tuple[bool, str]:
    """(no refutation found, one-line report) over every obligation."""
    rng = random.Random(seed)
    worst = flint.arb(0)
    n = skipped = 0
    refuted = []
    for ob in obs:
        lhs, rhs = sp.sympify(ob.lhs), sp.sympify(ob.rhs)
        if ob.at:
            lhs, rhs = lhs.subs(dict(ob.at)), rhs.subs(dict(ob.at))
        syms = sorted(lhs.free_symbols | rhs.free_symbols, key=lambda s: s.name)
        for _ in range(points):
            env = {s: exact_ball(rng.choice([v for v in candidates(s) if v != 0 and abs(v) <= 4] or [sp.Integer(1)]))
                   for s in syms}
            try:
                a, b = acb_value(lhs, env, 128), acb_value(rhs, env, 128)
            except (NotEvaluable, ZeroDivisionError, ValueError):
                skipped += 1
                continue
            if not (a.is_finite() and b.is_finite()):
                skipped += 1
                continue
            n += 1
            if RECORD is not None:
                RECORD(ob, env, a, b)
            if ob.method == "sos":
                excess = abs(a) - b.real
                if excess > 0:
                    refuted.append(ob.name)
                continue
            diff = abs(a - b)
            worst = max(worst, diff.upper()) if hasattr(diff, "upper") else worst + diff
            if not (a - b).contains(0):
                refuted.append(ob.name)
    ok = not refuted
    text = (f"max|lhs-rhs| <= {flint.arb(worst).str(3, radius=False)} over {n} points of {len(obs)} obligations (all), "
            f"Arb balls at 128 bits" + (f", {skipped} points skipped (poles)" if skipped else ""))
    return ok, text + ("" if ok else f" REFUTED: {refuted[0]}")
