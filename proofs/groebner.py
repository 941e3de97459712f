"""Decision procedure 2: reduction modulo <s^2 + c^2 - 1> with quotient certificates (SPEC.md section 5).

After the addition formulas (``expand_trig``) every trigonometric atom is sin or cos of a
*base phase* theta; each theta gets two indeterminates (s, c) and the Pythagorean generator
``g = s**2 + c**2 - 1``. The generators of distinct phases have coprime leading monomials, so
they are a Groebner basis (Buchberger's first criterion; checked with ``sympy.groebner``).
Division gives ``f = sum_i q_i*g_i + r``: the identity holds if ``r == 0``. The quotients q_i are
the certificate; :func:`recheck` verifies ``f - sum q_i g_i - r`` with ``expand`` alone.

For the bound |x| <= B (THM-BOUND) the remainder of ``B**2 - x**2`` must be a *manifest sum of
squares* (every term a positive rational times even powers): then ``B**2 - x**2 >= 0`` on the
real points of the variety, i.e. for every real phase.

>>> import sympy as sp
>>> p = sp.Symbol("p", real=True)
>>> c = certify(sp.sin(p)**2 + sp.cos(p)**2 - 1)
>>> c.proven, c.quotients, recheck(c)
(True, [1], True)
>>> certify(sp.sin(2*p) - 2*sp.sin(p)).proven
False
>>> sos_bound(sp.cos(p), 1).proven, sos_bound(sp.cos(p), sp.Rational(1, 2)).proven, sos_bound(sp.cos(p), -1).proven
(True, False, False)
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from .canonical import NotCanonical, reject_floats


@dataclass
class Certificate:
    """``f == sum(q*g for q, g in zip(quotients, generators)) + remainder`` in Q(i)[vars]."""

    f: sp.Expr
    generators: list[sp.Expr]
    quotients: list[sp.Expr]
    remainder: sp.Expr
    variables: list[sp.Symbol]
    proven: bool
    reason: str = ""

    @property
    def size(self) -> int:
        return sum(len(sp.Add.make_args(q)) for q in self.quotients if q != 0) + len(sp.Add.make_args(sp.expand(self.f)))


def to_polynomial(*exprs: sp.Expr, first: sp.Expr | None = None) -> tuple[list[sp.Expr], list[sp.Symbol], list[sp.Expr]]:
    """Replace sin/cos of base phases by (s, c) indeterminates; return (polys, variables, generators).

    ``first`` (a sin/cos atom) puts its indeterminate first in the variable order.
    """
    def _args_expanded(e: sp.Expr) -> sp.Expr:  # omega*(p+1) -> omega*p + omega, so the addition formulas apply
        return e.xreplace({a: a.func(sp.expand(a.args[0])) for a in e.atoms(sp.sin, sp.cos)})

    reject_floats(*exprs)
    ex = [sp.expand(sp.expand_trig(_args_expanded(sp.sympify(e)))) for e in exprs]
    phases: set[sp.Expr] = set()
    for e in ex:
        if e.atoms(sp.exp):
            raise NotCanonical("exp atoms: use the Laurent procedure")
        for a in e.atoms(sp.sin, sp.cos):
            if isinstance(a.args[0], sp.Add):
                raise NotCanonical(f"phase is not a base phase after the addition formulas: {a}")
            phases.add(a.args[0])
    order = sorted(phases, key=sp.default_sort_key)
    rep: dict[sp.Expr, sp.Symbol] = {}
    variables: list[sp.Symbol] = []
    gens: list[sp.Expr] = []
    for i, th in enumerate(order):
        s, c = sp.Dummy(f"s{i}"), sp.Dummy(f"c{i}")
        rep[sp.sin(th)], rep[sp.cos(th)] = s, c
        variables += [s, c]
        gens.append(s**2 + c**2 - 1)
    if first is not None and first in rep:
        v = rep[first]
        variables.remove(v)
        variables.insert(0, v)
    polys = [sp.expand(e.xreplace(rep)) for e in ex]
    for q in polys:
        if q.atoms(sp.Function):
            raise NotCanonical(f"non-polynomial atom survives: {q.atoms(sp.Function)}")
    return polys, variables, gens


def _reduce(f: sp.Expr, gens: list[sp.Expr], variables: list[sp.Symbol], order: str) -> tuple[list[sp.Expr], sp.Expr]:
    if not gens:
        return [], sp.expand(f)
    G = sp.groebner(gens, *variables, order=order)
    if {sp.expand(g) for g in G.exprs} != {sp.expand(g) for g in gens}:  # coprime leading terms
        raise NotCanonical("Pythagorean generators are not a Groebner basis in this order")
    Q, r = sp.reduced(f, gens, *variables, order=order)
    return [sp.expand(q) for q in Q], sp.expand(r)


def certify(f: sp.Expr) -> Certificate:
    """Reduce ``f`` (a trig polynomial that should vanish) modulo the Pythagorean ideal."""
    try:
        (poly,), variables, gens = to_polynomial(f)
        Q, r = _reduce(poly, gens, variables, "grevlex")
    except (NotCanonical, sp.PolynomialError) as exc:
        return Certificate(sp.sympify(f), [], [], sp.nan, [], False, f"outside the decided fragment: {exc}")
    return Certificate(poly, gens, Q, r, variables, r == 0, "" if r == 0 else f"remainder {r}")


def recheck(c: Certificate) -> bool:
    """Re-verify a certificate with ``expand`` alone: ``f - sum q*g - r == 0``."""
    return sp.expand(c.f - sum((q * g for q, g in zip(c.quotients, c.generators, strict=False)), sp.Integer(0)) - c.remainder) == 0


def is_manifest_sos(r: sp.Expr, real: set[sp.Symbol] | None = None) -> bool:
    """Every term of the expanded ``r`` is a positive rational times even powers of *real* variables.

    A variable counts as real if it is in ``real`` (the s, c of real phases) or SymPy knows it is real:
    ``a**2`` with ``a`` imaginary is -|a|**2, not a square.
    """
    r = sp.expand(r)
    if r == 0:
        return True
    real = real or set()
    for t in sp.Add.make_args(r):
        c, m = t.as_coeff_Mul()
        if not (c.is_Rational and c > 0):
            return False
        for f in sp.Mul.make_args(m):
            if f == 1:
                continue
            b, e = f.as_base_exp()
            if not (b.is_Symbol and (b in real or b.is_real is True) and e.is_Integer and e % 2 == 0):
                return False
    return True


def real_domain(*exprs: sp.Expr) -> str:
    """'' if every free symbol and every sin/cos phase of ``exprs`` is known real, else the reason."""
    for e in exprs:
        e = sp.sympify(e)
        bad = sorted(s.name for s in e.free_symbols if s.is_real is not True)
        if bad:
            return f"symbols {bad} are not known to be real"
        for t in e.atoms(sp.sin, sp.cos):
            if t.args[0].is_real is not True:
                return f"phase {t.args[0]} is not known to be real"
    return ""


def sos_bound_general(f: sp.Expr) -> Certificate:
    """Certify ``f >= 0`` for all real values: ``f = sum q*g + r`` with r a manifest sum of squares (lex order).

    Preconditions (checked, else not proven): every free symbol and every phase is real.
    """
    f = sp.sympify(f)
    why = real_domain(f)
    if why:
        return Certificate(f, [], [], sp.nan, [], False, f"precondition: {why}")
    # each distinct real phase becomes an independent real variable: a bound for all real values of the
    # new variables holds in particular at the phases' values (sound; needs no addition formulas)
    phases = sorted({t.args[0] for t in f.atoms(sp.sin, sp.cos)}, key=sp.default_sort_key)
    f = f.xreplace({th: sp.Dummy(f"theta{i}", real=True) for i, th in enumerate(phases)})
    atoms = sorted(f.atoms(sp.sin, sp.cos), key=sp.default_sort_key)
    try:
        (poly,), variables, gens = to_polynomial(f, first=atoms[0] if atoms else None)
        Q, r = _reduce(poly, gens, variables, "lex")
    except (NotCanonical, sp.PolynomialError) as exc:
        return Certificate(f, [], [], sp.nan, [], False, f"outside the decided fragment: {exc}")
    ok = is_manifest_sos(r, set(variables))
    return Certificate(poly, gens, Q, r, variables, ok, "" if ok else f"remainder {r} is not a manifest sum of squares")


def sos_bound(x: sp.Expr, bound: sp.Expr) -> Certificate:
    """Certify ``|x| <= bound`` for a column value x = a*sin(theta) or a*cos(theta) or 0.

    ``bound**2 - x**2 = q*g + r`` with r a manifest sum of squares (lex order, x's variable first).
    Preconditions (checked, else not proven): ``bound`` known nonnegative; every free symbol of x and of
    the bound, and every phase, real (``I*a`` with ``a`` imaginary is real, but ``a**2`` is not a square).

    >>> a = sp.Symbol("a", imaginary=True)
    >>> sos_bound(sp.I*a, 0).proven, sos_bound(sp.I*a, 0).reason
    (False, "precondition: symbols ['a'] are not known to be real")
    """
    bound, x = sp.sympify(bound), sp.sympify(x)
    if bound.is_nonnegative is not True:
        return Certificate(x, [], [], sp.nan, [], False, f"bound {bound} is not known to be nonnegative")
    why = real_domain(x, bound)
    if why:
        return Certificate(x, [], [], sp.nan, [], False, f"precondition: {why}")
    return sos_bound_general(bound**2 - x**2)
