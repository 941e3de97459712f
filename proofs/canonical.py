"""Decision procedure 1: the exp-atom Laurent-polynomial normal form (SPEC.md section 5, THM-*).

An identity ``lhs == rhs`` between polynomials in sin/cos/exp of phases that are rational
combinations of monomials (``omega*p``, ``omega*k``, ``p/100`` ...) is decided by:

1. writing every phase as ``sum_m c_m * m`` (m a monomial, c_m rational) and choosing for each
   monomial m the unit ``g_m = gcd`` of all its coefficients in the statement;
2. replacing ``exp(i*theta)`` by ``prod_m X_m**(c_m/g_m)`` (integer exponents), where the
   *atom* ``X_m`` stands for ``exp(i*g_m*m)``; ``sin(theta) = (E - 1/E)/(2i)``,
   ``cos(theta) = (E + 1/E)/2``; the atom of the monomial pi is replaced by its exact value when
   that is 1, -1, i or -i (``exp(i*pi/2) = i``), and binary floats are refused (they round);
3. expanding both sides into Laurent polynomials over Q(i) in the atoms (and any other free
   symbols) and asserting that no sin/cos/exp survives and that ``lhs - rhs`` expands to 0.

Soundness: every rewrite in step 2 is an identity of functions (Euler's formula and
``exp(i*n*x) = exp(i*x)**n`` for integer n), so a zero Laurent polynomial proves the identity
for every value of the symbols: a false statement is never "proven". The converse (completeness:
reading a *non*-identity off a nonzero residual) needs the atoms to be independent characters,
which THM-ATTN states where it uses it (AX-CHARACTERS); an atom such as exp(i*pi/3), a root of unity,
is not, so "not proven" alone never means "false". Not ``simplify``, not
``.equals``, not numbers.

>>> import sympy as sp
>>> p, k, w = sp.symbols("p k omega", real=True)
>>> decide(sp.sin(w*(p + k)), sp.sin(w*p)*sp.cos(w*k) + sp.cos(w*p)*sp.sin(w*k)).proven
True
>>> v = decide(sp.sin(w*(p + k)), sp.sin(w*p)*sp.cos(w*k) - sp.cos(w*p)*sp.sin(w*k))
>>> v.proven, len(sp.Add.make_args(v.residual))
(False, 4)
>>> decide(sp.cos(p)**2, 1 - sp.sin(p)**2).size   # monomials that had to cancel
6
>>> decide(sp.cos(p - sp.pi/2), sp.sin(p)).proven, decide(sp.cos(p - sp.pi/2), sp.cos(p)).proven
(True, False)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import gcd, lcm

import sympy as sp


class NotCanonical(ValueError):
    """The expression lies outside the fragment this procedure decides (reported as not proven)."""


_TRIG = (sp.sin, sp.cos, sp.exp)


@dataclass
class Verdict:
    """Outcome of one obligation: ``proven`` iff the residual Laurent polynomial is exactly 0."""

    proven: bool
    size: int  # number of Laurent monomials in the expanded sides (the work that had to cancel)
    residual: sp.Expr
    atoms: dict[sp.Symbol, sp.Expr] = field(default_factory=dict)
    reason: str = ""


def _phase_of(atom: sp.Expr) -> sp.Expr:
    if isinstance(atom, sp.exp):
        theta = sp.expand(-sp.I * atom.args[0])
        if theta.has(sp.I):
            raise NotCanonical(f"exp with a non-imaginary argument: {atom}")
        return theta
    return sp.expand(atom.args[0])


def _terms(theta: sp.Expr) -> list[tuple[Fraction, sp.Expr]]:
    out = []
    for t in sp.Add.make_args(theta):
        c, m = t.as_coeff_Mul()
        if not c.is_Rational:
            raise NotCanonical(f"phase term with a non-rational coefficient: {t}")
        out.append((Fraction(int(c.p), int(c.q)), m))
    return out


def _unit(cs: list[Fraction]) -> Fraction:
    nums = [abs(c.numerator) for c in cs if c != 0]
    dens = [c.denominator for c in cs if c != 0]
    return Fraction(gcd(*nums), lcm(*dens)) if nums else Fraction(1)


def phase_units(phases: dict[sp.Expr, list[tuple[Fraction, sp.Expr]]]) -> dict[sp.Expr, Fraction]:
    """Per phase atom m, the common unit g of its coefficients: every phase is then an integer multiple of g*m."""
    coeffs: dict[sp.Expr, list[Fraction]] = {}
    for ts in phases.values():
        for c, m in ts:
            coeffs.setdefault(m, []).append(c)
    return {m: _unit(cs) for m, cs in coeffs.items()}


def monomial(ts: list[tuple[Fraction, sp.Expr]], units: dict[sp.Expr, Fraction], sym: dict[sp.Expr, sp.Expr]) -> sp.Expr:
    """The Laurent monomial prod X_m**(c/g_m) of a phase sum c*m (each c/g_m an integer by construction)."""
    E = sp.Integer(1)
    for c, m in ts:
        n = c / units[m]
        assert n.denominator == 1
        E *= sym[m] ** int(n)
    return E


def atom_table(*exprs: sp.Expr) -> tuple[dict[sp.Expr, sp.Expr], dict[sp.Symbol, sp.Expr]]:
    """The rewrite (trig/exp atom -> Laurent expression) and the atom meanings, shared by ``exprs``."""
    trig = set()
    for e in exprs:
        trig |= sp.sympify(e).atoms(*_TRIG)
    phases = {a: _terms(_phase_of(a)) for a in trig}
    units = phase_units(phases)
    ordered = sorted(units, key=sp.default_sort_key)
    sym: dict[sp.Expr, sp.Expr] = {m: sp.Dummy(f"X{i}") for i, m in enumerate(ordered)}
    meaning = {sym[m]: sp.exp(sp.I * sp.Rational(units[m].numerator, units[m].denominator) * m) for m in ordered}
    for m in ordered:  # exp(i g pi) with 2g an integer is exactly 1, -1, i or -i: use the value (still sound)
        if m is sp.pi and meaning[sym[m]] in (sp.Integer(1), sp.Integer(-1), sp.I, -sp.I):
            sym[m] = meaning.pop(sym[m])
    rewrite: dict[sp.Expr, sp.Expr] = {}
    for a, ts in phases.items():
        E = monomial(ts, units, sym)
        if isinstance(a, sp.exp):
            rewrite[a] = E
        elif isinstance(a, sp.sin):
            rewrite[a] = (E - 1 / E) / (2 * sp.I)
        else:
            rewrite[a] = (E + 1 / E) / 2
    return rewrite, meaning


def _check_laurent(e: sp.Expr) -> None:
    if e.atoms(sp.Function):
        raise NotCanonical(f"a function survived the rewrite: {sorted(map(str, e.atoms(sp.Function)))[:3]}")
    for t in sp.Add.make_args(e):
        for f in sp.Mul.make_args(t):
            base, ex = f.as_base_exp()
            if not (base.is_Number or base is sp.I or base.is_Symbol) or not (ex.is_Integer or base.is_Number):
                raise NotCanonical(f"not a Laurent monomial: {f}")


def laurent(e: sp.Expr, rewrite: dict[sp.Expr, sp.Expr]) -> sp.Expr:
    """``e`` as an expanded Laurent polynomial in the atoms of ``rewrite``."""
    out = sp.expand(sp.sympify(e).xreplace(rewrite))
    _check_laurent(out)
    return out


def reject_floats(*exprs: sp.Expr) -> None:
    """Refuse binary floats: their arithmetic rounds, so ``1e20 + 1 - 1e20`` would "cancel" to 0."""
    for e in exprs:
        if sp.sympify(e).has(sp.Float):
            raise NotCanonical(f"floating-point number in the statement: {e}")


def decide(lhs: sp.Expr, rhs: sp.Expr) -> Verdict:
    """Decide ``lhs == rhs`` by the Laurent normal form (never raises on a false statement).

    >>> decide(sp.Float(1e20) + 1, sp.Float(1e20)).proven   # rounding is not cancellation
    False
    """
    try:
        reject_floats(lhs, rhs)
        rewrite, meaning = atom_table(lhs, rhs)
        L, R = laurent(lhs, rewrite), laurent(rhs, rewrite)
        residual = sp.expand(L - R)
        _check_laurent(residual)
    except NotCanonical as exc:
        return Verdict(False, 0, sp.nan, {}, f"outside the decided fragment: {exc}")
    size = len(sp.Add.make_args(L)) * (L != 0) + len(sp.Add.make_args(R)) * (R != 0)
    proven = residual == 0
    return Verdict(proven, size, residual, meaning, "" if proven else f"residual has {len(sp.Add.make_args(residual))} monomial(s)")


def coefficients(e: sp.Expr, variables: tuple[sp.Symbol, ...]) -> list[sp.Expr]:
    """The nonzero coefficients of ``e``'s Laurent form grouped by the atoms that involve ``variables``.

    Atoms not involving ``variables`` (e.g. exp(i*omega*k) when grouping by p) stay inside the
    coefficients. ``e`` is identically 0 in ``variables`` iff every coefficient is 0, *provided*
    distinct grouped monomials are distinct characters of ``variables`` (AX-CHARACTERS, SPEC.md
    THM-ATTN). That precondition is **checked**: each monomial's frequency (the linear form
    sum_x e_x g_x m_x) must differ from every other's by a coefficient shown nonzero exactly
    (algebraic numbers by their minimal polynomial, symbols by their assumptions); otherwise
    :class:`NotCanonical` is raised (so a caller reports not proven, never "no solution").

    >>> import sympy as sp
    >>> p, k, a = sp.symbols("p k a", real=True)
    >>> sorted(map(str, coefficients(sp.sin(p + k) - a*sp.sin(p), (p,))))
    ['-I*a/2 + I*exp(-I*k)/2', 'I*a/2 - I*exp(I*k)/2']
    >>> w = sp.sqrt(3 + 2*sp.sqrt(2))             # = 1 + sqrt(2), written differently
    >>> coefficients(sp.sin(w*p) - a*sp.sin((1 + sp.sqrt(2))*p), (p,))
    Traceback (most recent call last):
    ...
    sinpe.proofs.canonical.NotCanonical: precondition AX-CHARACTERS: cannot show that the frequencies ...
    """
    rewrite, meaning = atom_table(e)
    L = laurent(e, rewrite)
    grouped = sorted((x for x, m in meaning.items() if m.has(*variables)), key=sp.default_sort_key)
    others = {x: m for x, m in meaning.items() if x not in grouped}
    conds: dict[tuple[int, ...], sp.Expr] = {}
    for t in sp.Add.make_args(L):
        if t == 0:
            continue
        powers = t.as_powers_dict()
        key = tuple(int(powers.get(x, 0)) for x in grouped)
        rest = t / sp.Mul(*[x**n for x, n in zip(grouped, key, strict=True)])
        conds[key] = conds.get(key, 0) + rest
    out = {key: sp.expand(c) for key, c in conds.items()}
    out = {key: c for key, c in out.items() if c != 0}
    _check_characters(list(out), grouped, meaning, variables)
    return [c.xreplace(others) for c in out.values()]


def _frequency(key: tuple[int, ...], grouped: list[sp.Symbol], meaning: dict[sp.Symbol, sp.Expr]) -> sp.Expr:
    return sp.expand(sum((n * sp.expand(-sp.I * meaning[x].args[0]) for n, x in zip(key, grouped, strict=False)), sp.Integer(0)))


def nonzero_constant(c: sp.Expr) -> bool:
    """True only if ``c`` is shown nonzero exactly: a nonzero rational, an algebraic number whose minimal
    polynomial is not x, or an expression SymPy's assumptions call nonzero."""
    c = sp.sympify(c)
    if c.is_Rational:
        return c != 0
    if c.is_number:
        try:
            x = sp.Dummy("x")
            return sp.minimal_polynomial(c, x) != x
        except (NotImplementedError, sp.polys.polyerrors.NotAlgebraic, ValueError):
            return False  # transcendental (pi, log): not decided here
    return c.is_zero is False


def _check_characters(keys: list[tuple[int, ...]], grouped: list[sp.Symbol], meaning: dict[sp.Symbol, sp.Expr],
                      variables: tuple[sp.Symbol, ...]) -> None:
    freqs = [_frequency(k, grouped, meaning) for k in keys]
    for i in range(len(keys)):
        for j in range(i + 1, len(keys)):
            diff = sp.expand(freqs[i] - freqs[j])
            if not any(nonzero_constant(diff.coeff(v)) for v in variables):
                raise NotCanonical(f"precondition AX-CHARACTERS: cannot show that the frequencies {freqs[i]} and "
                                   f"{freqs[j]} differ (the monomials may be one character)")
