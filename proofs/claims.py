"""A decision procedure users can call: is ``LHS == RHS`` (or ``A <= B``) true for every value? (REQ-PROVE-CLAIM)

``prove_claim("exp(2*k*(-log(10000)/d)) == 10000**(-2*k/d)", assume="k: integer; d: positive")``
answers ``proven`` (with the method and its certificate), ``refuted`` (with a counterexample whose
two sides are certified different by python-flint ball arithmetic) or ``unknown`` (with the reason).

Input is SymPy syntax read through a whitelist (Python's ``ast``; no ``eval``, no ``sympify`` of
user text, no attribute access, bounded size): numbers, symbols, ``+ - * / **``, the functions
``sin cos tan exp log sqrt Abs Rational Sum`` and the constants ``pi E I``; ``Sum(f, (j, lo, hi))``
with integer limits (symbolic ranges allowed). Only ASCII is accepted (:func:`require_ascii`). Assumption
words (:data:`MEANING` says each exactly): ``real integer positive nonnegative negative nonzero rational
imaginary complex``; a symbol with no assumption is complex, and ``nonzero`` keeps it complex (x != 0).

Procedures, in order (SPEC.md REQ-PROVE-CLAIM):

1. equalities: syntactic, (E) with RULE-SUM-LINEARITY (:mod:`.normal`), then the rules of
   :mod:`.claim_rules` (RULE-MODULUS, RULE-ANTIDIFFERENCE with its D = 0 cases); proven
   wherever both sides are defined (the result's ``caveats``);
2. bounds ``A <= B``: every free symbol and every phase must be real (else no proof: sin of a
   complex number is unbounded); ``B - A`` (or ``B**2 - x**2`` with ``B >= 0`` for ``Abs(x) <= B``)
   reduced modulo ``s**2 + c**2 - 1`` must leave a manifest sum of squares of real variables, or a
   quadratic one modulo the ideal (RULE-GRAM-SOS, :mod:`.claim_sos`);
3. refutation: seeded points drawn from each symbol's declared domain (integers, positive rationals,
   Gaussian rationals on and off the negative real axis for complex symbols); a point refutes only when
   Arb's enclosures *exclude* equality (or certify ``A > B``, or a non-real side of a bound).

>>> prove_claim("exp(2*k*(-log(10000)/d)) == 10000**(-2*k/d)", assume="k: integer; d: positive").status
'proven'
>>> r = prove_claim("sin(x + pi/3) == sin(x) + sin(pi/3)")
>>> r.status, sorted(r.to_json()["counterexample"]["point"])
('refuted', ['x'])
>>> prove_claim("log(exp(z)) == z").status                # z complex: the branch trap
'refuted'
>>> prove_claim("Abs(sin(p)) <= 1", assume="p: real").status, prove_claim("Abs(sin(z)) <= 1").status
('proven', 'refuted')
"""
from __future__ import annotations

import ast
import random
import re
import time
from dataclasses import dataclass, field
from typing import Any

import flint
import sympy as sp

from sinpe.spec.profiles import ARITHMETIC

from . import claim_rules, claim_sos, groebner
from .balls import NotEvaluable, acb_value, candidates, exact_ball

MAX_CHARS = 2000
MAX_NODES = 400
MAX_INT_DIGITS = 60
MAX_POW = 256
MAX_EXP10 = 400       # |e| of a decimal literal 1.5e<e> (1e99999999 would be a 10^8-digit rational)
POINTS = 48
SEED = 20170612  # the arXiv date of Vaswani et al.: every sampled witness (claims, theorems) is reproducible

FUNCS = {"sin": sp.sin, "cos": sp.cos, "tan": sp.tan, "exp": sp.exp, "log": sp.log, "sqrt": sp.sqrt, "Abs": sp.Abs}
CONSTS = {"pi": sp.pi, "E": sp.E, "I": sp.I}
WORDS = {"real": {"real": True}, "integer": {"integer": True}, "positive": {"positive": True},
         "nonnegative": {"nonnegative": True}, "negative": {"negative": True}, "nonzero": {"zero": False},
         "rational": {"rational": True}, "imaginary": {"imaginary": True}, "complex": {"complex": True}}
# The exact meaning of every word (SPEC.md REQ-PROVE-CLAIM; `sinpe prove --help`). Every symbol is a finite
# complex number; a word only narrows it. `nonzero` is complex-aware: x != 0, and x stays complex unless a
# word that implies real is also given (SymPy's own `nonzero` would mean "real and nonzero").
MEANING = {"complex": "a finite complex number (the default for a symbol with no word)",
           "real": "a real number", "rational": "a rational number (real)", "integer": "an integer (real)",
           "positive": "a real number > 0", "negative": "a real number < 0", "nonnegative": "a real number >= 0",
           "nonzero": "a complex number != 0 (complex unless another word makes it real)",
           "imaginary": "i times a nonzero real number (SymPy: 0 is not imaginary)"}
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,31}$")


class ClaimError(ValueError):
    """Bad claim or assumption text (exit status 2, one line)."""


# ------------------------------------------------------------------------------ assumptions

def require_ascii(text: str, what: str) -> None:
    """Refuse any non-ASCII character: Python's ``ast`` NFKC-normalises identifiers (``\U0001d429\U0001d422`` would be
    read as ``pi``), so a claim must mean what its bytes say.

    >>> require_ascii("sin(x) == 1", "claim")
    >>> require_ascii("x\u00b2 == 1", "claim")  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    ...
    ClaimError: non-ASCII character U+00B2 at position 1 of the claim (only ASCII is accepted)
    """
    for i, ch in enumerate(text):
        if ord(ch) > 127:
            raise ClaimError(f"non-ASCII character U+{ord(ch):04X} at position {i} of the {what} (only ASCII is accepted)")


def effective(sym: sp.Symbol) -> dict[str, Any]:
    """What the prover assumes about ``sym``: a one-line domain and SymPy's derived facts.

    >>> effective(sp.Symbol("x", zero=False, complex=True))["domain"]
    'complex, x != 0'
    """
    facts = [w for w in ("complex", "real", "rational", "integer", "imaginary", "positive", "negative",
                         "nonnegative", "nonpositive") if getattr(sym, f"is_{w}") is True]
    if sym.is_zero is False:
        facts.append("nonzero")
    kind = next((k for k in ("integer", "rational", "real", "imaginary") if k in facts), "complex")
    n = sym.name
    sign = (f"{n} > 0" if sym.is_positive else f"{n} < 0" if sym.is_negative else f"{n} >= 0" if sym.is_nonnegative
            else f"{n} <= 0" if sym.is_nonpositive else f"{n} != 0" if sym.is_zero is False and kind != "imaginary" else "")
    return {"domain": ", ".join(filter(None, [kind if kind != "imaginary" else "i times a nonzero real", sign])),
            "facts": facts}


def parse_assumptions(text: str | None) -> dict[str, dict[str, bool]]:
    """``"p q: real; k: integer; w: positive"`` -> {name: SymPy assumptions}.

    >>> parse_assumptions("p q: real; n: positive integer")
    {'p': {'real': True}, 'q': {'real': True}, 'n': {'positive': True, 'integer': True}}
    """
    out: dict[str, dict[str, bool]] = {}
    if not text:
        return out
    if len(text) > MAX_CHARS:
        raise ClaimError(f"assumptions longer than {MAX_CHARS} characters")
    require_ascii(text, "assumptions")
    for clause in filter(None, (c.strip() for c in text.split(";"))):
        if clause.count(":") != 1:
            raise ClaimError(f"assumption clause {clause!r} is not 'names: words'")
        names, words = (s.split() for s in clause.split(":"))
        if not names or not words:
            raise ClaimError(f"assumption clause {clause!r} needs names and words")
        facts: dict[str, bool] = {}
        for w in words:
            if w not in WORDS:
                raise ClaimError(f"unknown assumption word {w!r}; known: {', '.join(WORDS)}")
            facts.update(WORDS[w])
        for n in names:
            if not _NAME.match(n) or n in FUNCS or n in CONSTS or n in ("Sum", "Rational"):
                raise ClaimError(f"bad symbol name {n!r} in assumptions")
            merged = {**out.get(n, {}), **facts}
            try:
                sp.Symbol(n, **merged)
            except Exception as exc:  # InconsistentAssumptions
                raise ClaimError(f"inconsistent assumptions for {n}: {exc}") from None
            out[n] = merged
    return out


# ------------------------------------------------------------------------------ the whitelist parser

class _Builder:
    def __init__(self, text: str, facts: dict[str, dict[str, bool]]) -> None:
        self.text, self.facts, self.nodes = text, facts, 0
        self.symbols: dict[str, sp.Symbol] = {}

    def symbol(self, name: str) -> sp.Symbol:
        if name not in self.symbols:
            self.symbols[name] = sp.Symbol(name, **{"complex": True, **(self.facts.get(name) or {})})
        return self.symbols[name]

    def build(self, node: ast.AST, scope: dict[str, sp.Symbol]) -> sp.Expr:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise ClaimError(f"claim has more than {MAX_NODES} syntax nodes")
        if isinstance(node, ast.Constant):
            return self.constant(node)
        if isinstance(node, ast.Name):
            if node.id in CONSTS:
                return CONSTS[node.id]
            if node.id in scope:
                return scope[node.id]
            if node.id in FUNCS or node.id in ("Sum", "Rational") or not _NAME.match(node.id):
                raise ClaimError(f"{node.id!r} is not a symbol name")
            return self.symbol(node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = self.build(node.operand, scope)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.BinOp):
            a, b = self.build(node.left, scope), self.build(node.right, scope)
            if isinstance(node.op, ast.Div) and b == 0:
                raise ClaimError("division by zero")
            if type(node.op) in ARITHMETIC:
                return ARITHMETIC[type(node.op)](a, b)
            if isinstance(node.op, ast.Pow):
                if b.is_Integer and abs(int(b)) > MAX_POW:
                    raise ClaimError(f"integer exponent {b} larger than {MAX_POW}")
                if b.is_number and not b.is_Integer and a.is_number and a == 0:
                    raise ClaimError("0 to a non-integer power")
                return a ** b
            raise ClaimError(f"operator {type(node.op).__name__} is not allowed")
        if isinstance(node, ast.Call):
            return self.call(node, scope)
        raise ClaimError(f"{type(node).__name__} is not allowed in a claim")

    def constant(self, node: ast.Constant) -> sp.Expr:
        v = node.value
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ClaimError(f"literal {v!r} is not allowed")
        src = ast.get_source_segment(self.text, node) or repr(v)
        if len(src.replace("_", "")) > MAX_INT_DIGITS:
            raise ClaimError(f"number literal longer than {MAX_INT_DIGITS} digits")
        if isinstance(v, int):
            return sp.Integer(v)
        exp = re.search(r"[eE]([+-]?\d+)$", src.replace("_", ""))
        if exp and abs(int(exp.group(1))) > MAX_EXP10:
            raise ClaimError(f"decimal exponent {exp.group(1)} beyond +-{MAX_EXP10}")
        try:
            return sp.Rational(src.replace("_", ""))  # the decimal as written, exactly
        except (TypeError, ValueError):
            raise ClaimError(f"bad number {src!r}") from None

    def call(self, node: ast.Call, scope: dict[str, sp.Symbol]) -> sp.Expr:
        if not isinstance(node.func, ast.Name) or node.keywords:
            raise ClaimError("only plain calls of sin cos tan exp log sqrt Abs Rational Sum are allowed")
        name, args = node.func.id, node.args
        if name in FUNCS:
            if len(args) != 1:
                raise ClaimError(f"{name} takes one argument")
            return FUNCS[name](self.build(args[0], scope))
        if name == "Rational":
            if len(args) not in (1, 2) or not all(isinstance(a, ast.Constant) and type(a.value) is int or
                                                    isinstance(a, ast.UnaryOp) and isinstance(a.operand, ast.Constant)
                                                    for a in args):
                raise ClaimError("Rational takes one or two integer literals")
            vals = [self.build(a, scope) for a in args]
            if len(vals) == 2 and vals[1] == 0:
                raise ClaimError("Rational with denominator 0")
            return sp.Rational(*vals)
        if name == "Sum":
            if len(args) != 2 or not isinstance(args[1], ast.Tuple) or len(args[1].elts) != 3 \
                    or not isinstance(args[1].elts[0], ast.Name):
                raise ClaimError("Sum takes (summand, (j, lo, hi))")
            jn = args[1].elts[0].id
            if not _NAME.match(jn) or jn in FUNCS or jn in CONSTS:
                raise ClaimError(f"bad bound variable {jn!r}")
            lo, hi = (self.build(a, scope) for a in args[1].elts[1:])
            for lim in (lo, hi):
                if lim.is_integer is not True:
                    raise ClaimError(f"Sum limit {lim} is not known to be an integer (declare it, e.g. 'n: integer')")
            j = sp.Symbol(jn, integer=True)
            body = self.build(args[0], {**scope, jn: j})
            return sp.Sum(body, (j, lo, hi))
        raise ClaimError(f"function {name!r} is not allowed; allowed: {', '.join([*FUNCS, 'Rational', 'Sum'])}")


def parse_claim(text: str, assume: str | None = None) -> tuple[sp.Expr, str, sp.Expr]:
    """(lhs, relation, rhs) with relation '==' or '<=' (``A >= B`` is read as ``B <= A``).

    >>> parse_claim("sin(x)**2 >= 0", "x: real")
    (0, '<=', sin(x)**2)
    >>> parse_claim("__import__('os')")  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    ...
    ClaimError: a claim is 'LHS == RHS', 'A <= B' or 'A >= B'
    """
    if not isinstance(text, str) or not text.strip():
        raise ClaimError("empty claim")
    if len(text) > MAX_CHARS:
        raise ClaimError(f"claim longer than {MAX_CHARS} characters")
    require_ascii(text, "claim")
    facts = parse_assumptions(assume)
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise ClaimError(f"not a claim in SymPy syntax: {getattr(exc, 'msg', exc)}") from None
    body = tree.body
    if not (isinstance(body, ast.Compare) and len(body.ops) == 1 and isinstance(body.ops[0], (ast.Eq, ast.LtE, ast.GtE))):
        raise ClaimError("a claim is 'LHS == RHS', 'A <= B' or 'A >= B'")
    b = _Builder(text.strip(), facts)
    try:
        lhs, rhs = b.build(body.left, {}), b.build(body.comparators[0], {})
    except RecursionError:
        raise ClaimError("claim nested too deeply") from None
    except ClaimError:
        raise
    except (ValueError, TypeError, ArithmeticError) as exc:
        raise ClaimError(f"cannot build the claim: {exc}") from None
    for side in (lhs, rhs):
        if side.has(sp.zoo, sp.oo, -sp.oo, sp.nan):
            raise ClaimError("the claim evaluates to an infinity or NaN")
    op = body.ops[0]
    if isinstance(op, ast.Eq):
        return lhs, "==", rhs
    return (lhs, "<=", rhs) if isinstance(op, ast.LtE) else (rhs, "<=", lhs)


# ------------------------------------------------------------------------------ results

@dataclass
class ClaimResult:
    """The answer to one claim. ``status``: 'proven' (exit 0), 'refuted' (exit 1), 'unknown' (exit 3)."""

    claim: str
    relation: str
    status: str
    method: str
    reason: str = ""
    certificate: dict[str, Any] = field(default_factory=dict)
    counterexample: dict[str, Any] | None = None
    assumptions: dict[str, list[str]] = field(default_factory=dict)  # the declared words, per symbol
    seconds: float = 0.0
    effective: dict[str, dict[str, Any]] = field(default_factory=dict)  # every symbol's domain and derived facts
    caveats: list[str] = field(default_factory=list)  # the exact scope of a proof (e.g. where both sides are defined)

    @property
    def exit_code(self) -> int:
        return {"proven": 0, "refuted": 1, "unknown": 3}[self.status]

    def to_json(self) -> dict[str, Any]:
        return {"claim": self.claim, "relation": self.relation, "status": self.status, "method": self.method,
                "reason": self.reason, "certificate": self.certificate, "counterexample": self.counterexample,
                "assumptions": self.assumptions, "effective_assumptions": self.effective, "caveats": self.caveats,
                "seconds": round(self.seconds, 3)}


# ------------------------------------------------------------------------------ refutation

def find_counterexample(lhs: sp.Expr, rel: str, rhs: sp.Expr, points: int = POINTS, seed: int = SEED) -> dict[str, Any] | None:
    """A point of the declared domains where Arb certifies the claim false; None if none found."""
    syms = sorted((lhs - rhs).free_symbols, key=lambda s: s.name)
    rng = random.Random(seed)
    tried: set[tuple] = set()
    for _ in range(points):
        point = tuple(rng.choice(candidates(s)) for s in syms)
        if point in tried:
            continue
        tried.add(point)
        env = {s: exact_ball(v) for s, v in zip(syms, point, strict=False)}
        try:
            a, b = acb_value(lhs, env), acb_value(rhs, env)
        except (NotEvaluable, ZeroDivisionError, ValueError):
            continue
        if not (a.is_finite() and b.is_finite()):
            continue  # a pole or a branch point: the claim says nothing there
        why = _refutes(a, rel, b)
        if why:
            return {"point": {s.name: str(v) for s, v in zip(syms, point, strict=False)}, "lhs": a.str(10), "rhs": b.str(10),
                    "certified": why + " (python-flint Arb balls, 200 bits)"}
    return None


def _refutes(a: flint.acb, rel: str, b: flint.acb) -> str | None:
    if rel == "==":
        return "lhs - rhs excludes 0" if not (a - b).contains(0) else None
    for side, v in (("lhs", a), ("rhs", b)):
        if not v.imag.contains(0):
            return f"{side} is not real"
    exact_real = a.imag.is_exact() and b.imag.is_exact() and a.imag == 0 and b.imag == 0
    if exact_real and a.real > b.real:
        return "lhs > rhs"
    return None


# ------------------------------------------------------------------------------ bounds

def prove_bound(a: sp.Expr, b: sp.Expr) -> tuple[bool, str, dict[str, Any]]:
    """``a <= b`` for all real values by a manifest sum-of-squares remainder; (proven, reason, certificate)."""
    free = (a - b).free_symbols
    notreal = sorted(s.name for s in free if s.is_real is not True)
    if notreal:
        return False, f"precondition: symbols {notreal} are not declared real (the SOS argument needs real variables)", {}
    phases = {t.args[0] for t in (a - b).atoms(sp.sin, sp.cos)}
    if any(t.is_real is not True for t in phases) or (a - b).has(sp.exp, sp.log, sp.tan, sp.Sum):
        return False, "precondition: every phase real and only sin, cos, Abs and polynomials (no exp, log, tan, Sum)", {}
    c, rest = a.as_coeff_Mul()
    if isinstance(rest, sp.Abs) and c.is_Rational and c > 0:  # SymPy writes Abs(3x) as 3*Abs(x)
        a = sp.Abs(c * rest.args[0], evaluate=False)
    if isinstance(a, sp.Abs):
        x = a.args[0]
        if x.is_real is not True:
            return False, f"precondition: {x} is not known to be real", {}
        okb, why, _ = prove_bound(sp.Integer(0), b) if b.is_nonnegative is not True else (True, "", {})
        if not okb:
            return False, f"cannot show the bound {b} >= 0: {why}", {}
        c = groebner.sos_bound_general(sp.expand(b**2 - x**2).replace(lambda e: isinstance(e, sp.Pow) and isinstance(e.base, sp.Abs) and e.exp == 2, lambda e: e.base.args[0] ** 2))
    elif (a - b).has(sp.Abs):
        return False, "Abs only as the whole left side (Abs(x) <= B)", {}
    else:
        c = groebner.sos_bound_general(b - a)
    cert = {"procedure": "remainder modulo s^2+c^2-1 is a manifest sum of squares",
            "remainder": str(c.remainder), "quotients": [str(q) for q in c.quotients]}
    if not c.proven and c.generators is not None and c.remainder is not sp.nan:
        gram = claim_sos.gram_certificate(c.remainder, c.generators)
        if gram is not None and groebner.recheck(c):
            return True, "", {**cert, **gram}
    ok = c.proven and groebner.recheck(c)
    return ok, c.reason, cert


# ------------------------------------------------------------------------------ the procedure

def prove_claim(text: str, assume: str | None = None, points: int = POINTS) -> ClaimResult:
    """Decide a claim (see the module docstring). Raises :class:`ClaimError` on bad input."""
    t0 = time.perf_counter()
    lhs, rel, rhs = parse_claim(text, assume)
    declared = parse_assumptions(assume)
    facts = {n: sorted("nonzero" if k == "zero" else k for k in f) for n, f in declared.items()}
    syms = {s.name: s for s in lhs.free_symbols | rhs.free_symbols}
    for n, f in declared.items():
        syms.setdefault(n, sp.Symbol(n, **{"complex": True, **f}))
    eff = {n: effective(syms[n]) for n in sorted(syms)}

    def done(status: str, method: str, reason: str = "", cert: dict | None = None, cex: dict | None = None) -> ClaimResult:
        caveats = list((cert or {}).get("caveats", [])) if status == "proven" else []
        return ClaimResult(text.strip(), rel, status, method, reason, cert or {}, cex, facts, time.perf_counter() - t0,
                           eff, caveats)

    try:
        return _decide(lhs, rel, rhs, points, done)
    except RecursionError:  # an internal limit is never a verdict: unknown (exit 3), never refuted
        return done("unknown", "none", reason="recursion limit: the expression is nested too deeply to decide")


def _decide(lhs: sp.Expr, rel: str, rhs: sp.Expr, points: int, done: Any) -> ClaimResult:
    if rel == "==":
        v = claim_rules.decide_equal(lhs, rhs)
        if v.proven:
            return done("proven", v.method, cert=_equality_certificate(v))
        why = v.reason
    else:
        ok, why, cert = prove_bound(lhs, rhs)
        if ok:
            return done("proven", "sum of squares modulo the Pythagorean ideal (S)", cert=cert)
    cex = find_counterexample(lhs, rel, rhs, points)
    if cex is not None:
        return done("refuted", "counterexample certified by ball arithmetic", cex=cex)
    return done("unknown", "none", reason=f"{why}; no counterexample at {points} seeded points")


def _equality_certificate(v: claim_rules.Decision) -> dict[str, Any]:
    if v.method == "syntactic":
        return {"procedure": "expand(lhs - rhs) == 0"}
    if v.method.startswith("syntactic"):
        return {"procedure": "expand(lhs - rhs) == 0 after the rules", "rules": v.rules, "caveats": v.caveats}
    cert: dict[str, Any] = {"procedure": "numerator of lhs - rhs in exp-atom normal form expands to 0", "rules": v.rules,
                            "holds": claim_rules.DEFINED, "caveats": v.caveats}
    if v.cases:
        cert["cases"] = v.cases
    return cert
