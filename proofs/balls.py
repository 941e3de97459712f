"""Certified signs of closed-form constants with python-flint ball arithmetic (Arb).

A ball that excludes 0 *proves* the sign (Arb's enclosures are rigorous); a ball that contains 0
decides nothing and is reported as not certified. Used for the counterexamples of THM-ATTN and
THM-DIR, never for identities.

>>> import sympy as sp
>>> certified_sign(sp.sin(1) * sp.sin(2))
1
>>> certified_sign(sp.cos(1)**2 + sp.sin(1)**2 - 1) is None
True
"""
from __future__ import annotations

import flint
import sympy as sp

_FUNCS = {"sin": lambda x: flint.arb(x).sin(), "cos": lambda x: flint.arb(x).cos(), "pi": flint.arb.pi()}


def enclosure(e: sp.Expr) -> "flint.arb":
    """A rigorous Arb ball containing the constant ``e`` (sin, cos, rationals, pi)."""
    e = sp.sympify(e)
    if e.free_symbols:
        raise ValueError(f"not a constant: {e}")
    rats = sorted((r for r in e.atoms(sp.Rational) if not r.is_Integer), key=sp.default_sort_key)
    syms = [sp.Dummy() for _ in rats]  # rationals enter as exact balls, not as binary floats
    f = sp.lambdify(syms, e.xreplace(dict(zip(rats, syms))), modules=[_FUNCS])
    return flint.arb(f(*[flint.arb(int(r.p)) / int(r.q) for r in rats]))


def certified_sign(e: sp.Expr) -> int | None:
    """+1 or -1 when the ball excludes 0, else None."""
    b = enclosure(e)
    return 1 if b > 0 else -1 if b < 0 else None
