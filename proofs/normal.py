"""Decision procedure (E): the exponential normal form with the sum-linearity rule (SPEC.md section 5).

Decides ``lhs == rhs`` between expressions built from + - * /, integer powers, ``sin cos tan exp``,
powers ``b**e`` with a base known to be nonzero, ``log`` of positive rationals and finite sums
``Sum(f, (j, lo, hi))`` over symbolic integer ranges. Every symbol may be complex. Rewrites, each an
identity of functions on the common domain of definition:

1. ``sin x = (e^(ix) - e^(-ix))/(2i)``, ``cos x = (e^(ix) + e^(-ix))/2``, ``tan = sin/cos``;
   ``b**e = exp(e*log b)`` for b known nonzero (SymPy's principal-branch definition);
   ``log r = sum a_q log q`` for a positive rational r = prod q**a_q (q prime): true for positive reals.
2. every ``exp(A)``: A = sum c_m m with c_m rational; the atom X_m stands for ``exp(g_m m)``,
   g_m = gcd of m's coefficients; ``exp(A) = prod X_m**(c_m/g_m)`` (integer exponents:
   ``exp(a + b) = exp(a) exp(b)``, ``exp(n a) = exp(a)**n``).
3. the atom of ``m = i*pi`` is a root of unity: reduced modulo its cyclotomic polynomial; the atom of
   ``m = log(x)`` (x known nonzero) with g = u/v satisfies ``X**v = x**u``.
4. **RULE-SUM-LINEARITY**: a sum over a range is linear in its summand: after step 2 the summand is
   expanded into monomials, each split into a factor free of the bound variable (pulled out) and one
   that depends on it; ``Sum(1, (j, lo, hi)) = hi - lo + 1`` (Karr's convention, for every integer
   range) and equal bound-variable parts over equal ranges are the same unknown.
   Bound variables are renamed to one canonical symbol first (alpha-equivalence).
5. any other subexpression (``Abs``, ``log`` of a symbol, a power of a possibly-zero base) is an
   opaque atom: equal only to itself.

``lhs - rhs`` is then a rational function of atoms and symbols; the identity is proven iff the
numerator of its ``together`` form expands (after step 3's reductions) to 0 and its denominator does not
(a denominator that step 3 reduces to 0 is 0 at every point: the statement is defined nowhere): the
identity then holds wherever both sides are defined. Only the *success* direction is a proof; a nonzero residual
is "not proven" (atoms need not be independent), never "false".

>>> import sympy as sp
>>> x = sp.Symbol("x")                                   # complex
>>> decide(sp.sin(2*x), 2*sp.sin(x)*sp.cos(x)).proven
True
>>> k, n = sp.Symbol("k", integer=True), sp.Symbol("n", integer=True, positive=True)
>>> decide(sp.exp(2*k*(-sp.log(10000)/n)), sp.Integer(10000)**(-2*k/n)).proven
True
>>> j = sp.Symbol("j", integer=True)
>>> decide(sp.Sum(sp.sin(x*j)**2 + sp.cos(x*j)**2, (j, 0, n - 1)), n).proven
True
>>> decide(sp.sin(x + 1), sp.sin(x) + sp.sin(1)).proven
False
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import gcd

import sympy as sp

from .canonical import monomial, phase_units  # one definition of the Laurent monomials


class Unsupported(ValueError):
    """The expression lies outside the fragment (E) decides."""


JC = sp.Dummy("j", integer=True)  # the canonical bound variable of every Sum


@dataclass
class Verdict:
    proven: bool
    size: int  # monomials in the expanded numerator before cancellation
    reason: str = ""
    rules: list[str] = field(default_factory=list)


# ------------------------------------------------------------------------------ step 0/1: rewriting

def _log_rational(r: sp.Rational) -> sp.Expr:
    if r <= 0:
        raise Unsupported(f"log of a non-positive rational {r}")
    out = sp.Integer(0)
    for q, a in sp.factorint(int(r.p)).items():
        out += a * sp.log(sp.Integer(q), evaluate=False)
    for q, a in sp.factorint(int(r.q)).items():
        out -= a * sp.log(sp.Integer(q), evaluate=False)
    return out


def _arg(e: sp.Expr) -> sp.Expr:
    """Rewrite inside a phase: only logs of positive rationals (so equal phases look equal)."""
    e = sp.sympify(e)
    if isinstance(e, sp.log) and e.args[0].is_Rational:
        return _log_rational(e.args[0])
    if e.is_Atom or not e.args:
        return e
    return e.func(*[_arg(a) for a in e.args])


def rewrite(e: sp.Expr, rules: set[str]) -> sp.Expr:
    """Step 1 (recursive, bottom-up)."""
    e = sp.sympify(e)
    if e.is_Atom:
        if e is sp.E:
            return sp.exp(sp.Integer(1), evaluate=False)
        if isinstance(e, sp.Float):
            raise Unsupported(f"floating-point number {e} (its arithmetic rounds)")
        return e
    if isinstance(e, sp.Sum):
        if len(e.limits) != 1:
            raise Unsupported("a Sum with several ranges")
        j, lo, hi = e.limits[0]
        body = e.function
        if body.has(sp.Sum):
            raise Unsupported("nested sums")
        return sp.Sum(rewrite(body.xreplace({j: JC}), rules), (JC, lo, hi))
    if isinstance(e, sp.sin):
        a = _arg(e.args[0])
        return (sp.exp(sp.I * a) - sp.exp(-sp.I * a)) / (2 * sp.I)
    if isinstance(e, sp.cos):
        a = _arg(e.args[0])
        return (sp.exp(sp.I * a) + sp.exp(-sp.I * a)) / 2
    if isinstance(e, sp.tan):
        return rewrite(sp.sin(e.args[0]), rules) / rewrite(sp.cos(e.args[0]), rules)
    if isinstance(e, sp.exp):
        return sp.exp(_arg(e.args[0]), evaluate=False)
    if isinstance(e, sp.log) and e.args[0].is_Rational:
        return _log_rational(e.args[0])
    if isinstance(e, sp.Pow):
        b, x = e.args
        if x.is_Integer:
            return rewrite(b, rules) ** x
        if b.is_zero is False:
            rules.add("b**e = exp(e*log(b)) for b != 0")
            lb = _log_rational(b) if b.is_Rational else sp.log(b)
            # the exponent as one reduced rational function (n/(n + 1/2) and 1 - 1/(2n + 1) are one phase); where
            # a cancelled factor vanishes the sides are not both defined, which is (E)'s scope
            return sp.exp(sp.expand(sp.cancel(sp.together(_arg(x))) * lb), evaluate=False)
        return e  # opaque: the base may be 0
    if isinstance(e, (sp.Add, sp.Mul)):
        return e.func(*[rewrite(a, rules) for a in e.args])
    return e  # Abs, log(symbol), ...: opaque


# ------------------------------------------------------------------------------ step 2/3: atoms

def _terms(theta: sp.Expr) -> list[tuple[Fraction, sp.Expr]]:
    out = []
    for t in sp.Add.make_args(sp.expand(theta)):
        c, m = t.as_coeff_Mul()
        if isinstance(c, sp.Float):
            raise Unsupported(f"floating-point coefficient in {t}")
        if not c.is_Rational:
            c, m = sp.Integer(1), t
        out.append((Fraction(int(c.p), int(c.q)), m))
    return out


def _top_exps(e: sp.Expr) -> set[sp.Expr]:
    """exp atoms not nested inside another exp's argument or an opaque atom."""
    out: set[sp.Expr] = set()

    def walk(x: sp.Expr) -> None:
        if isinstance(x, sp.exp):
            out.add(x)
            return
        if isinstance(x, sp.Sum):
            walk(x.function)
            return
        if x.is_Atom or not isinstance(x, (sp.Add, sp.Mul, sp.Pow)):
            return
        for a in x.args:
            walk(a)
    walk(e)
    return out


def _opaque(e: sp.Expr) -> set[sp.Expr]:
    out: set[sp.Expr] = set()

    def walk(x: sp.Expr) -> None:
        if x.is_Atom or isinstance(x, sp.exp):
            return
        if isinstance(x, sp.Sum):
            walk(x.function)
            return
        if isinstance(x, (sp.Add, sp.Mul)) or (isinstance(x, sp.Pow) and x.exp.is_Integer):
            for a in x.args:
                walk(a)
            return
        out.add(x)
    walk(e)
    return out


@dataclass
class Table:
    rewrite: dict[sp.Expr, sp.Expr]
    meaning: dict[sp.Symbol, sp.Expr]
    relations: list[tuple[sp.Symbol, sp.Expr]]  # (X, polynomial in X that vanishes)
    opaque: dict[sp.Symbol, sp.Expr]


def atom_table(exprs: list[sp.Expr]) -> Table:
    trig: set[sp.Expr] = set()
    for e in exprs:
        trig |= _top_exps(e)
    phases = {a: _terms(a.args[0]) for a in trig}
    units = phase_units(phases)
    ordered = sorted(units, key=sp.default_sort_key)
    sym = {m: sp.Dummy(f"X{i}") for i, m in enumerate(ordered)}
    meaning, relations = {}, []
    for m in ordered:
        g = units[m]
        X = sym[m]
        meaning[X] = sp.exp(sp.Rational(g.numerator, g.denominator) * m, evaluate=False)
        if m == sp.I * sp.pi:  # exp(i pi u/v) is a primitive root of unity of order 2v/gcd(u, 2v)
            order = (2 * g.denominator) // gcd(g.numerator, 2 * g.denominator)
            relations.append((X, sp.cyclotomic_poly(order, X)))
        elif isinstance(m, sp.log) and m.args[0].is_zero is False:
            u, v = g.numerator, g.denominator  # X**v = exp(u log x) = x**u
            x = m.args[0]
            relations.append((X, X**v * x ** max(-u, 0) - x ** max(u, 0)))
        elif m == 1 and g.denominator == 1:  # exp(g) with g an integer: keep as E**g (an atom)
            pass
    rw: dict[sp.Expr, sp.Expr] = {}
    for a, ts in phases.items():
        rw[a] = monomial(ts, units, sym)
    opaque: dict[sp.Symbol, sp.Expr] = {}
    for e in exprs:
        for o in _opaque(e):
            if o not in rw:
                Y = sp.Dummy(f"Y{len(opaque)}")
                opaque[Y] = o
                rw[o] = Y
    return Table(rw, meaning, relations, opaque)


# ------------------------------------------------------------------------------ step 4: sums

def _linearize_sums(e: sp.Expr, dependent: set[sp.Symbol], sums: dict[tuple, sp.Symbol], rules: set[str]) -> sp.Expr:
    """Replace every Sum (summand already in atoms) by its RULE-SUM-LINEARITY expansion.

    ``dependent``: the atoms whose meaning involves the bound variable.
    """
    def one(s: sp.Sum) -> sp.Expr:
        (j, lo, hi), = s.limits
        if lo.is_integer is not True or hi.is_integer is not True:
            raise Unsupported(f"range limits {lo}, {hi} are not known to be integers")
        body = sp.expand(s.function)
        out = sp.Integer(0)
        for t in sp.Add.make_args(body):
            if t == 0:
                continue
            free, dep = sp.Integer(1), sp.Integer(1)
            for f in sp.Mul.make_args(t):
                if f.has(j) or f.free_symbols & dependent:
                    dep *= f
                else:
                    free *= f
            if dep == 1:
                out += free * (hi - lo + 1)
            elif not _is_monomial(dep):
                raise Unsupported(f"summand factor {dep} is not a monomial in the atoms")
            else:
                key = (dep, sp.expand(lo), sp.expand(hi))
                if key not in sums:
                    sums[key] = sp.Dummy(f"S{len(sums)}")
                out += free * sums[key]
        rules.add("RULE-SUM-LINEARITY")
        return out

    return e.replace(lambda x: isinstance(x, sp.Sum), one)


def _is_monomial(e: sp.Expr) -> bool:
    return all(f.is_Number or f.is_Symbol or (f.is_Pow and f.base.is_Symbol and f.exp.is_Integer) for f in sp.Mul.make_args(e))


# ------------------------------------------------------------------------------ decide

def normal_difference(lhs: sp.Expr, rhs: sp.Expr, at: tuple = ()) -> tuple[sp.Expr, sp.Expr, Table, set[str]]:
    """The numerator and the denominator of lhs - rhs in normal form (before the step-3 reductions).

    ``at`` (pairs symbol, value) is substituted *after* the rewrite to exponentials, so a statement such
    as cos(-x) = cos(x) is decided by the normal form, not by SymPy's evaluation of cos(-x) when it is built.
    """
    L, R, table, _, rules = normal_sides(lhs, rhs, at)
    diff = L - R
    bad = [f for f in diff.atoms(sp.Function)]
    if bad or diff.has(sp.Sum):
        raise Unsupported(f"a function survived the rewrite: {sorted(map(str, bad))[:3]}")
    num, den = sp.fraction(sp.together(diff))
    return sp.expand(num), sp.expand(den), table, rules


def _reduced(e: sp.Expr, table: Table, rules: set[str]) -> sp.Expr:
    """``e`` reduced modulo step 3's relations (cyclotomic polynomials, X**v = x**u)."""
    for X, rel in table.relations:
        if e.has(X):
            e = sp.expand(sp.rem(e, rel, X))
            rules.add("cyclotomic / log-power reduction")
    return e


def _defined_nowhere(den: sp.Expr, table: Table) -> str:
    """Why the reduced denominator ``den`` of lhs - rhs may vanish at every point ("" when it cannot).

    ``den`` reduced to 0 vanishes everywhere; a monomial in the exponential atoms and the symbols does not (an
    exponential is never 0). Any other ``den`` need not be a nonzero function although it is not 0 modulo step
    3's relations (a root of unity beside a root of a rational define no integral domain: 2 cos(pi/4) - sqrt(2);
    opaque atoms may be dependent): it must be certified nonzero (a ball excluding 0) at one point of its
    symbols' domains (:func:`sinpe.proofs.balls.candidates`), else nothing is proven."""
    from .balls import NotEvaluable, acb_value, candidates, exact_ball
    if den == 0:
        return ("the denominator of lhs - rhs vanishes identically (a root-of-unity or power relation): the "
                "statement is defined nowhere")
    if _is_monomial(den) and not den.free_symbols & set(table.opaque):
        return ""
    value = den.xreplace({**table.meaning, **table.opaque})
    syms = sorted(value.free_symbols, key=sp.default_sort_key)
    if any(isinstance(x, sp.Dummy) for x in syms):  # a sum's unknown (RULE-SUM-LINEARITY): no value to evaluate
        return f"the denominator of lhs - rhs ({str(den)[:60]}) holds a sum: not shown nonzero"
    cands = [candidates(x) for x in syms]
    try:
        for i in range(NONZERO_POINTS):
            if not acb_value(value, {x: exact_ball(c[(i * 5 + 1) % len(c)]) for x, c in zip(syms, cands, strict=True)}).contains(0):
                return ""
    except (NotEvaluable, ZeroDivisionError, ValueError) as exc:
        return f"the denominator of lhs - rhs ({str(den)[:60]}) could not be evaluated to show it nonzero: {exc}"
    return (f"the denominator of lhs - rhs ({str(den)[:60]}) is not shown nonzero at any of {NONZERO_POINTS} "
            "points: the statement may be defined nowhere")


NONZERO_POINTS = 4  # points at which a denominator other than a monomial is evaluated (:func:`_defined_nowhere`)


def normal_sides(lhs: sp.Expr, rhs: sp.Expr, at: tuple = ()) -> tuple[sp.Expr, sp.Expr, Table, dict, set[str]]:
    """Both sides in normal form (rational functions of the atoms, sums linearised), the atom table, the
    sum unknowns {(summand part, lo, hi): S} and the rules used (the certificates export these)."""
    rules: set[str] = set()
    L, R = rewrite(lhs, rules), rewrite(rhs, rules)
    if at:
        L, R = L.xreplace(dict(at)), R.xreplace(dict(at))
    table = atom_table([L, R])
    L, R = L.xreplace(table.rewrite), R.xreplace(table.rewrite)
    dependent = {X for X, m in list(table.meaning.items()) + list(table.opaque.items()) if m.has(JC)}
    sums: dict[tuple, sp.Symbol] = {}
    L = _linearize_sums(L, dependent, sums, rules)
    R = _linearize_sums(R, dependent, sums, rules)
    return L, R, table, sums, rules


def decide(lhs: sp.Expr, rhs: sp.Expr, at: tuple = ()) -> Verdict:
    """Decide ``lhs == rhs`` (at ``at``, substituted after the rewrite) by (E); never raises on a false or
    unsupported statement."""
    try:
        num, den, table, rules = normal_difference(sp.sympify(lhs), sp.sympify(rhs), at)
        size = len(sp.Add.make_args(num))
        num = _reduced(num, table, rules)
        vacuous = _defined_nowhere(_reduced(den, table, set()), table) if num == 0 else ""
        if vacuous:  # 0/0: the sides may be defined nowhere, nothing is proven
            return Verdict(False, size, vacuous, sorted(rules))
    except (Unsupported, sp.PolynomialError, ValueError, TypeError) as exc:
        return Verdict(False, 0, f"outside the decided fragment: {exc}")
    if num == 0:
        return Verdict(True, size, "", sorted(rules))
    return Verdict(False, size, f"residual numerator has {len(sp.Add.make_args(num))} monomial(s)", sorted(rules))
