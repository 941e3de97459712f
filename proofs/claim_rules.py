"""Sound rules that let ``prove --claim`` (REQ-PROVE-CLAIM) decide more equalities than (E) alone.

Each rule replaces a side by an expression equal to it on the declared domains, then (E) decides:

- **RULE-MODULUS**: ``Abs(a*b) = Abs(a)*Abs(b)``, ``Abs(b**k) = Abs(b)**k`` (k an integer): true for every
  complex value (``|zw| = |z||w|``).
- (no rule needed for logs of positive symbols: the syntactic step's ``expand`` already splits a power base or a
  log argument only where the assumptions make it valid, e.g. ``log(x*y) = log x + log y`` for x, y > 0,
  ``log(x**y) = y log x`` for x > 0 and y real, never for merely nonzero or negative symbols.)
- no rule splits ``x**(j + 1)`` into ``x*x**j`` for a base x that may be 0: at x = 0, j = -1 the left side is
  1 and the right side undefined, and ``0**(n + 1) == 0`` would follow (false at n = -1). Declare such a
  base ``nonzero`` (then (E) reads ``x**e = exp(e log x)``).
- **RULE-ANTIDIFFERENCE** (sums with symbolic limits): each term t(j) of a summand (sin, cos written as
  exponentials; ``exp(a*j + b) = exp(b)*R**j`` with ``R = exp(a)``, j an integer) gets an antidifference G
  from Gosper's algorithm, *re-checked* by (E): ``G(j+1) - G(j) = t(j)``. Then
  ``Sum(t, (j, lo, hi)) = G(hi+1) - G(lo)`` for every integer range (Karr's convention: it telescopes).
  G may divide by a factor D free of j (``R - 1`` for a geometric sum); the claim is then decided twice:
  where every D != 0 (the closed form), and on each D = 0 (solved exactly: a symbol equal to a root, or
  ``exp(a) = c`` parametrised as ``a = log c + 2 pi i m`` with a fresh integer m), where the claim is
  re-decided with the solution substituted. A D that cannot be solved exactly leaves the claim unproven.

Only the success direction is a proof; any failure is "not proven".

>>> import sympy as sp
>>> x, n, j = sp.Symbol("x", zero=False), sp.Symbol("n", integer=True), sp.Symbol("j", integer=True)
>>> decide_equal(sp.Sum(x**j, (j, 0, n - 1))*(x - 1), x**n - 1).proven
True
>>> decide_equal(sp.Sum(x**j, (j, 0, n - 1))*(x - 1), x**n + 1).proven
False
"""
from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp
from sympy.concrete.gosper import gosper_term

from . import normal
from .balls import NotEvaluable, acb_value

MAX_DEPTH = 2        # nested case splits (D = 0 inside D = 0)
MAX_TERMS = 16       # summand terms handed to Gosper's algorithm
MAX_TERM_OPS = 80    # size of one term
DEFINED = "holds wherever both sides are defined"


@dataclass
class Decision:
    proven: bool
    method: str = ""
    rules: list[str] = field(default_factory=list)
    caveats: list[str] = field(default_factory=list)
    reason: str = ""
    cases: list[str] = field(default_factory=list)


class NoRule(ValueError):
    """The rule does not apply (not a verdict)."""


# ------------------------------------------------------------------------------ RULE-MODULUS

def split_modulus(e: sp.Expr) -> sp.Expr:
    """Abs of a product or of an integer power, split (valid for all complex values).

    >>> z, w = sp.symbols("z w")
    >>> split_modulus(sp.Abs(z*w**3))
    Abs(w)**3*Abs(z)
    """
    def one(a: sp.Abs) -> sp.Expr:
        x = a.args[0]
        if isinstance(x, sp.Mul):
            return sp.Mul(*[split_modulus(sp.Abs(f)) for f in x.args])
        if isinstance(x, sp.Pow) and x.exp.is_Integer:
            return split_modulus(sp.Abs(x.base)) ** x.exp
        return a
    return e.replace(lambda t: isinstance(t, sp.Abs), one)


def prepare(e: sp.Expr, rules: set[str]) -> sp.Expr:
    """RULE-MODULUS; records it when it changed ``e``."""
    out = split_modulus(e)
    if out != e:
        rules.add("RULE-MODULUS")
    return out


# ------------------------------------------------------------------------------ RULE-ANTIDIFFERENCE

def _geometric_form(t: sp.Expr, j: sp.Symbol, ratios: dict) -> sp.Expr:
    """``exp(a*j + b) -> exp(b) * R**j`` with R a fresh symbol standing for exp(a) (j is an integer)."""
    def one(x: sp.exp) -> sp.Expr:
        A = sp.expand(x.args[0])
        a = sp.expand(sp.diff(A, j))
        b = sp.expand(A - a * j)
        if a.has(j) or b.has(j) or a == 0:
            return x
        R = ratios.setdefault(a, sp.Dummy("R"))
        return sp.exp(b) * R ** j
    return t.replace(lambda x: isinstance(x, sp.exp) and x.has(j), one)


def _back(G: sp.Expr, ratios: dict) -> sp.Expr:
    """R**k -> exp(k*a) (k integer-valued), R -> exp(a)."""
    for a, R in ratios.items():
        def pw(p: sp.Pow, a: sp.Expr = a) -> sp.Expr:
            if p.exp.is_integer is not True:
                raise NoRule(f"power {p} of a ratio with a non-integer exponent")
            return sp.exp(sp.expand(p.exp * a))
        G = G.replace(lambda p, R=R: isinstance(p, sp.Pow) and p.base == R, pw).xreplace({R: sp.exp(a)})
    return G


def antidifference(t: sp.Expr, j: sp.Symbol, rules: set[str]) -> tuple[sp.Expr, list[tuple[sp.Expr, dict]]] | None:
    """G with G(j+1) - G(j) = t (re-checked by (E)) and G's denominator factors free of j, each with the
    meaning of its ratio symbols; None when Gosper's algorithm finds none or the check fails."""
    if sp.count_ops(t) > MAX_TERM_OPS:
        return None
    ratios: dict = {}
    tg = _geometric_form(t, j, ratios)
    try:
        r = gosper_term(tg, j)
    except (sp.PolynomialError, ValueError, TypeError, NotImplementedError):
        return None
    if r is None:
        return None
    Gg = sp.cancel(sp.together(r * tg))
    try:
        G = _back(Gg, ratios)
    except NoRule:
        return None
    check = _direct(G.xreplace({j: j + 1}) - G, t)
    if not check.proven:
        return None
    meaning = {R: sp.exp(a) for a, R in ratios.items()}
    dens = [(f, meaning) for f, _ in sp.factor_list(sp.denom(Gg))[1] if not f.has(j)]
    return G, dens


def close_sums(e: sp.Expr, rules: set[str]) -> tuple[sp.Expr, list[tuple[sp.Expr, dict]]]:
    """Every Sum with an antidifference for some of its terms replaced by G(hi+1) - G(lo) (the other terms stay
    in a Sum); the j-free denominator factors of every G used."""
    dens: list[tuple[sp.Expr, dict]] = []

    def one(s: sp.Sum) -> sp.Expr:
        (j, lo, hi), = s.limits
        terms = sp.Add.make_args(sp.expand(normal.rewrite(s.function, set())))
        if len(terms) > MAX_TERMS:
            return s
        closed, rest = sp.Integer(0), []
        for t in terms:
            got = antidifference(t, j, rules)
            if got is None:
                rest.append(t)
                continue
            G, ds = got
            closed += G.xreplace({j: hi + 1}) - G.xreplace({j: lo})
            dens.extend(ds)
        if len(rest) == len(terms):
            return s
        rules.add("RULE-ANTIDIFFERENCE")
        return closed + (sp.Sum(sp.Add(*rest), (j, lo, hi)) if rest else 0)

    return e.replace(lambda x: isinstance(x, sp.Sum), one), dens


# ------------------------------------------------------------------------------ D = 0: exact solutions

def _linear_in(a: sp.Expr) -> tuple[sp.Symbol, sp.Expr, sp.Expr] | None:
    """(s, alpha, beta) with a = alpha*s + beta, alpha a nonzero number, beta free of s."""
    for s in sorted(a.free_symbols, key=lambda v: v.name):
        alpha = sp.expand(sp.diff(a, s))
        beta = sp.expand(a - alpha * s)
        if alpha.is_number and alpha != 0 and not beta.has(s):
            return s, alpha, beta
    return None


def vanishing(D: sp.Expr, meaning: dict) -> list[dict] | None:
    """Substitutions that together cover every point where the factor D vanishes ([] if D never vanishes);
    None when D = 0 cannot be solved exactly."""
    Dm = D.xreplace(meaning)
    if not Dm.free_symbols:
        try:
            return [] if not acb_value(Dm, {}).contains(0) else None
        except (NotEvaluable, ZeroDivisionError, ValueError):
            return None
    gens = D.free_symbols
    if len(gens) != 1:
        return None
    (v,) = gens
    try:
        poly = sp.Poly(D, v)
    except sp.PolynomialError:
        return None
    roots = sp.roots(poly)
    if sum(roots.values()) != poly.degree():
        return None  # not every root found in closed form
    if v not in meaning:
        return [{v: c} for c in roots]
    if meaning[v].is_Symbol:  # exp(log(y)) evaluated to y (y positive)
        return [{meaning[v]: c} for c in roots]
    if not isinstance(meaning[v], sp.exp):
        return None
    a = meaning[v].args[0]  # exp(a) = c
    lin = _linear_in(a)
    if lin is None:
        return None
    s, alpha, beta = lin
    out = []
    for c in roots:
        if c == 0:
            continue  # exp never vanishes
        m = sp.Dummy("m", integer=True)
        out.append({s: (sp.log(c) + 2 * sp.pi * sp.I * m - beta) / alpha})
    return out


# ------------------------------------------------------------------------------ the decision

def _direct(lhs: sp.Expr, rhs: sp.Expr) -> Decision:
    if sp.expand(lhs - rhs) == 0:
        return Decision(True, "syntactic")
    v = normal.decide(lhs, rhs)
    if v.proven:
        return Decision(True, "exponential normal form (E)", list(v.rules), [DEFINED])
    return Decision(False, reason=v.reason)


def decide_equal(lhs: sp.Expr, rhs: sp.Expr, depth: int = 0) -> Decision:
    """``lhs == rhs`` by syntactic comparison, (E), then the rules above (recursively on D = 0 cases)."""
    first = _direct(lhs, rhs)
    if first.proven:
        return first
    rules: set[str] = set()
    L, R = prepare(lhs, rules), prepare(rhs, rules)
    if rules:
        d = _direct(L, R)
        if d.proven:
            return Decision(True, d.method + " after " + ", ".join(sorted(rules)), sorted(rules | set(d.rules)),
                            d.caveats or [DEFINED])
    if not (L.has(sp.Sum) or R.has(sp.Sum)) or depth > MAX_DEPTH:
        return first
    return _by_sums(L, R, rules, depth, first)


def _by_sums(L: sp.Expr, R: sp.Expr, rules: set[str], depth: int, first: Decision) -> Decision:
    try:
        Lc, dl = close_sums(L, rules)
        Rc, dr = close_sums(R, rules)
    except (NoRule, sp.PolynomialError, ValueError, TypeError, NotImplementedError):
        return first
    if "RULE-ANTIDIFFERENCE" not in rules:
        return first
    generic = _direct(Lc, Rc)
    if not generic.proven:
        return Decision(False, reason=f"closed forms of the sums differ or are not decided: {generic.reason}")
    cases, seen, caveats = [], set(), [DEFINED] + generic.caveats
    for D, meaning in dl + dr:
        if D in seen:
            continue
        seen.add(D)
        try:
            subs = vanishing(D, meaning)
        except (sp.PolynomialError, ValueError, TypeError, IndexError, NotImplementedError):
            subs = None
        if subs is None:
            return Decision(False, reason=f"cannot solve {D.xreplace(meaning)} = 0 exactly (the closed form divides by it)")
        for sub in subs:
            Ls, Rs = L.xreplace(sub), R.xreplace(sub)
            if any(side.has(sp.zoo, sp.nan) for side in (Ls, Rs)):
                cases.append(f"{D.xreplace(meaning)} = 0 via {sub}: a side is undefined there (nothing to prove)")
                continue
            d = decide_equal(Ls, Rs, depth + 1)
            if not d.proven:
                return Decision(False, reason=f"case {sub}: {d.reason or 'not proven'}")
            cases.append(f"{D.xreplace(meaning)} = 0 via {sub}: {d.method}")
            caveats += d.caveats
    return Decision(True, "antidifference (Gosper, re-checked by (E)) then " + generic.method,
                    sorted(rules | set(generic.rules)), list(dict.fromkeys(caveats)), cases=cases)
