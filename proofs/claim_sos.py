"""RULE-GRAM-SOS: a quadratic remainder that is a sum of squares only modulo the Pythagorean ideal (REQ-PROVE-CLAIM).

The bound procedure (S) reduces ``B - A`` modulo the generators ``g_i = s_i**2 + c_i**2 - 1`` and needs a
*manifest* sum of squares. ``1 - c`` (for ``cos p <= 1``) or ``x**2 - 2*x*y + y**2`` are not manifest, yet
``1 - c + (s**2 + c**2 - 1)/2 = ((c - 1)**2 + s**2)/2``. For a remainder r of total degree <= 2 this module
looks for rational multipliers l_i (numerically: the smallest eigenvalue of the Gram matrix is concave in l)
and then checks *exactly*, in rational arithmetic, that ``r + sum l_i g_i = m^T G m`` over the monomials
m = (1, v_1, ..., v_k) with G positive semidefinite (every principal minor >= 0). Then r >= 0 at every
real point of the variety, i.e. for every real phase and real variable.

>>> s, c = sp.symbols("s c", real=True)
>>> gram_certificate(1 - c, [s**2 + c**2 - 1])["multipliers"]
['1/2']
>>> gram_certificate(c - 1, [s**2 + c**2 - 1]) is None
True
"""
from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import numpy as np
import sympy as sp

MAX_VARS = 7


def _gram(f: sp.Expr, vs: list[sp.Symbol]) -> sp.Matrix | None:
    """The symmetric G with f = m^T G m, m = (1, vs); None if f has degree > 2."""
    p = sp.Poly(sp.expand(f), *vs)
    if p.total_degree() > 2:
        return None
    n = len(vs) + 1
    G = sp.zeros(n, n)
    for mon, coef in p.terms():
        idx = [i + 1 for i, e in enumerate(mon) for _ in range(e)]
        a, b = (idx + [0, 0])[:2]
        if a == b:
            G[a, a] += coef
        else:
            G[a, b] += coef / 2
            G[b, a] += coef / 2
    return G


def _psd(G: sp.Matrix) -> bool:
    n = G.shape[0]
    return all(G.extract(list(ix), list(ix)).det() >= 0 for k in range(1, n + 1) for ix in combinations(range(n), k))


def _search(r: sp.Expr, gens: list[sp.Expr], vs: list[sp.Symbol]) -> list[Fraction]:
    """Coordinate ascent on the (concave) smallest eigenvalue of G(r + sum l_i g_i)."""
    grams = [_gram(e, vs) for e in (r, *gens)]
    if any(G is None for G in grams):  # a generator of degree > 2: no quadratic multiplier search
        return [Fraction(0)] * len(gens)
    base, *parts = [np.array(G.tolist(), dtype=np.float64) for G in grams if G is not None]
    lam = np.zeros(len(gens))

    def score(v: np.ndarray) -> float:
        return float(np.linalg.eigvalsh(base + sum(x * P for x, P in zip(v, parts, strict=False)))[0])

    for _ in range(6):
        for i in range(len(gens)):
            lo, hi = -8.0, 8.0
            for _ in range(60):
                m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
                a, b = lam.copy(), lam.copy()
                a[i], b[i] = m1, m2
                lo, hi = (m1, hi) if score(a) < score(b) else (lo, m2)
            lam[i] = (lo + hi) / 2
    return [Fraction(x).limit_denominator(64) for x in lam]


def gram_certificate(r: sp.Expr, gens: list[sp.Expr]) -> dict | None:
    """Multipliers and Gram matrix certifying r >= 0 on the real variety of ``gens``; None if none found.

    Every variable must be real: declared real, or an indeterminate s_i, c_i of a generator (the caller,
    (S), has checked that every phase is real, so s_i = sin(theta_i) and c_i = cos(theta_i) are real)."""
    vs = sorted((sp.sympify(r).free_symbols | set().union(*[g.free_symbols for g in gens])), key=lambda v: v.name)
    if not vs or len(vs) > MAX_VARS or any(v.is_real is not True and not any(g.has(v) for g in gens) for v in vs) or _gram(r, vs) is None:
        return None
    lam = _search(r, gens, vs) if gens else []
    f = sp.expand(r + sum(sp.Rational(x.numerator, x.denominator) * g for x, g in zip(lam, gens, strict=False)))
    G = _gram(f, vs)
    m = sp.Matrix([1, *vs])
    if G is None or sp.expand((m.T * G * m)[0] - f) != 0 or not _psd(G):
        return None
    return {"procedure": "RULE-GRAM-SOS: remainder + sum l_i g_i = m^T G m with G positive semidefinite (exact minors)",
            "multipliers": [str(x) for x in lam], "monomials": [str(v) for v in m], "gram": [[str(x) for x in row] for row in G.tolist()]}
