"""An independent checker of proof certificates (REQ-PROVE-CERT, SPEC.md section 5): Python's standard library only.

``sinpe prove --certificates DIR`` writes, per theorem, every decided statement *as data*: expression trees
(a small JSON tree of numbers, symbols with their declared assumptions, + * ^, sin cos tan exp log Abs Min
Max, I pi E and Sum) and the column plans' integer linear forms. This module trusts none of SymPy, mpmath or
any other sinpe module: it re-derives every polynomial from those trees with its own implementation of each
procedure's rewrite and decides the statement again, with exact rational arithmetic. It can be copied alone
and run as ``python certcheck.py DIR [--only ID,ID] [--json]``. Per entry:

- ``identity`` (E), (L): the exponential normal form: sin, cos, tan as exponentials, b**e = exp(e log b) for b
  shown nonzero, log of a positive rational as a sum of logs of primes, products of exponentials merged
  (exp(a) exp(b) = exp(a + b)), exp(i pi u/v) a root of unity reduced modulo the cyclotomic polynomial it
  provably satisfies (its order recomputed here), exp(2 pi i m) = 1 for integer m; sums linearised by
  RULE-SUM-LINEARITY (equal summand parts over equal ranges are one unknown; the bound variable renamed);
  ``at`` substituted after the rewrite. lhs - rhs must vanish. (G): sin and cos of a phase on the unit
  circle (addition formulas through (c + i s)**n) reduced modulo s**2 + c**2 - 1;
- ``bound`` (S): |lhs| <= rhs from rhs**2 - lhs**2 reduced modulo the circles to a manifest sum of squares,
  rhs shown nonnegative and lhs shown real by the rules below: realness only from the declared assumptions;
- ``plan``, ``plan-match``: the column plans' bijection and label partition decided from the linear forms;
- ``conformance``: a plan against a rule table (SPEC.md's DEF-LAYOUT / DEF-ROPE-LAYOUT rows, as the same linear
  forms): a segment inside a rule of its function with the same column map, equal label counts per function,
  or the same labels at n = 0, decided with integers (:func:`check_conformance`);
- ``step``: a list of facts, each re-decided: ``identity``, ``rational-identity`` (polynomial arithmetic over
  Fractions; Min and Max resolved by a shown sign), ``positivity`` on an integer range (shift to the corner,
  read the signs of the coefficients), ``assumption`` (signs, realness, rationality derived from the
  declared assumptions by the explicit rules of :func:`props`), ``ball-sign`` (rigorous interval arithmetic
  with Fractions: Taylor bounds for sin, cos, exp, log, Machin's series for pi), ``plan``, ``plan-lookup``,
  ``plan-range`` (the label a symbolic column holds), ``ideal`` (f = sum q_i g_i over the statement's own
  hypotheses and circles, the hypotheses satisfiable at a given rational point), ``inconsistent`` and
  ``linear-family`` (coefficients of independent characters (AX-CHARACTERS, the frequencies shown distinct)
  and exact ranks with Fractions), ``distinct-on-integers`` (no integer root, by the rational root theorem).

Each entry's ``text`` is rendered here from its data and must equal the recorded one. A file's name, the
theorem inside and the index agree, the index lists exactly the suite's theorems (or those of ``--only``),
an empty certificate fails, counts and status are recomputed; ``about`` (the prover's description) and
``trusted`` (what stays the prover's: which statements prove the theorem) are not re-decided. Files are opened ``O_NOFOLLOW | O_NONBLOCK``,
regular files only, sizes bounded before parsing. Exit codes of :func:`main`: 0 every entry verified, 1 an
entry fails (named), 2 unreadable input (one line), 3 some entry lies outside what this checker decides.

>>> x = ["s", "x", [], ""]
>>> e = {"kind": "identity", "procedure": "E", "name": "double angle", "lhs": ["sin", ["*", ["n", "2"], x]],
...      "rhs": ["*", ["n", "2"], ["sin", x], ["cos", x]], "at": []}
>>> render_entry(e)
'sin(2*x) = 2*sin(x)*cos(x)  [x: complex]'
>>> check_entry({**e, "text": render_entry(e)})
'identity'
>>> bad = {**e, "rhs": ["*", ["n", "2"], ["sin", x]]}
>>> check_entry({**bad, "text": render_entry(bad)})
Traceback (most recent call last):
...
sinpe.proofs.certcheck.Failed: double angle: (E) leaves 4 term(s) of lhs - rhs: not an identity by this procedure
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import re
import stat
import sys
from collections.abc import Callable
from fractions import Fraction
from functools import cache, lru_cache
from typing import Any

SCHEMA = "sinpe-proof-certificate/2"
INDEX = "index.json"
SUITE = ("THM-LIFT", "THM-SHIFT", "THM-DOT", "THM-EVEN", "THM-ROT", "THM-NORM", "THM-BOUND", "THM-WAVE", "THM-INJ",
         "THM-LAYOUT", "THM-NONPERM", "THM-ATTN", "THM-DIR", "THM-CPLX", "THM-ROPE-REL", "THM-ROPE-ATTN")
MAX_FILE_BYTES = 64 * 2**20  # refused before parsing
MAX_DIGITS = 4000  # of one numerator or denominator
MAX_DEPTH = 120  # of an expression tree
MAX_NODES = 2_000_000  # of the trees of one file
MAX_POWER = 256  # |k| of an integer power in a tree
MAX_TERMS = 50_000  # of one polynomial: larger work is undecided, never a hang
MAX_ROOT_ORDER = 720
MAX_EXPONENT = 10**6  # of a plan form
_RATIONAL = re.compile(r"-?[0-9]+(/[0-9]+)?\Z")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,39}\Z")
ASSUMPTIONS = ("integer", "nonnegative", "nonpositive", "negative", "nonzero", "positive", "rational", "real")


class Malformed(ValueError):
    """The input is not a readable certificate (exit 2)."""


class Failed(ValueError):
    """A certificate does not verify (exit 1); the message names the entry."""


class Undecided(ValueError):
    """The statement lies outside what this checker decides (exit 3): neither verified nor refuted."""


# ------------------------------------------------------------------------------ numbers

def rational(text: object) -> Fraction:
    """A "p/q" string (no floats, no exponents, bounded length, q != 0) as an exact Fraction."""
    if not isinstance(text, str) or len(text) > 2 * MAX_DIGITS + 2 or not _RATIONAL.match(text):
        raise Malformed(f"not an exact rational 'p/q': {str(text)[:40]!r}")
    num, _, den = text.partition("/")
    if len(num.lstrip("-")) > MAX_DIGITS or len(den) > MAX_DIGITS:
        raise Malformed(f"a number with more than {MAX_DIGITS} digits: {text[:20]}...")
    if den and int(den) == 0:
        raise Malformed(f"a zero denominator: {text[:40]!r}")
    return Fraction(int(num), int(den) if den else 1)


def _small_int(x: object, what: str, bound: int = MAX_EXPONENT) -> int:
    if type(x) is not int or abs(x) > bound:
        raise Malformed(f"{what} must be an integer of at most {bound}; got {str(x)[:40]!r}")
    return x


# ------------------------------------------------------------------------------ expression trees

_LEAVES = {"I": 1, "pi": 1, "E": 1}
_UNARY = ("sin", "cos", "tan", "exp", "log", "Abs")
_NARY = ("+", "*", "Min", "Max")


class _Budget:
    nodes = 0


def tree(x: object, depth: int = 0) -> tuple:
    """A JSON expression tree validated into nested tuples: ("n", Fraction), ("s", name, assumptions, tag),
    ("I",), ("pi",), ("E",), (op, child, ...) for + * ^ and the functions, ("Sum", body, var, lo, hi)."""
    _Budget.nodes += 1
    if depth > MAX_DEPTH or _Budget.nodes > MAX_NODES:
        raise Malformed("an expression tree too deep or too large")
    if not (isinstance(x, list) and x and isinstance(x[0], str)):
        raise Malformed(f"an expression node must be [op, ...]; got {str(x)[:60]}")
    op, args = x[0], x[1:]
    if op == "n" and len(args) == 1:
        return ("n", rational(args[0]))
    if op == "s" and len(args) == 3:
        return _symbol(*args)
    if op in _LEAVES and not args:
        return (op,)
    arity = {"^": 2, "Sum": 4, **{f: 1 for f in _UNARY}}
    if (op in _NARY and len(args) >= 2) or arity.get(op) == len(args):
        kids = tuple(tree(a, depth + 1) for a in args)
        if op == "Sum" and (kids[1][0] != "s" or "integer" not in kids[1][2]):
            raise Malformed("a Sum's variable must be an integer symbol")
        return (op, *kids)
    raise Malformed(f"unknown expression node {op!r} with {len(args)} argument(s)")


def _symbol(name: object, assumptions: object, tag: object) -> tuple:
    if not (isinstance(name, str) and _NAME.match(name)):
        raise Malformed(f"bad symbol name {str(name)[:40]!r}")
    if not (isinstance(assumptions, list) and all(a in ASSUMPTIONS for a in assumptions)
            and list(assumptions) == sorted(set(assumptions))):
        raise Malformed(f"symbol {name}: assumptions must be a sorted list of {', '.join(ASSUMPTIONS)}")
    if tag not in ("", "dummy"):
        raise Malformed(f"symbol {name}: tag must be '' or 'dummy'")
    return ("s", name, tuple(assumptions), tag)


def render(t: tuple) -> str:
    """The tree as text (deterministic; the certificate's ``text`` fields are these strings)."""
    return _r(t, 0)


def _r(t: tuple, outer: int) -> str:
    op = t[0]
    if op == "n":
        s, p = str(t[1]), 4 if t[1] >= 0 and t[1].denominator == 1 else 1
    elif op == "s":
        s, p = t[1], 4
    elif op in _LEAVES:
        s, p = op, 4
    elif op == "+":
        s, p = " + ".join(_r(a, 1) for a in t[1:]), 1
    elif op == "*":
        s, p = "*".join(_r(a, 2) for a in t[1:]), 2
    elif op == "^":
        s, p = f"{_r(t[1], 4)}^{_r(t[2], 4)}", 3
    elif op == "Sum":
        s, p = f"Sum({_r(t[1], 0)}, ({_r(t[2], 0)}, {_r(t[3], 0)}, {_r(t[4], 0)}))", 4
    else:
        s, p = f"{op}({', '.join(_r(a, 0) for a in t[1:])})", 4
    return f"({s})" if p < outer else s


def _symbols(t: tuple, out: dict) -> dict:
    if t[0] == "s":
        out[(t[1], t[2], t[3])] = None
    elif t[0] != "n":
        for a in t[1:]:
            if isinstance(a, tuple):
                _symbols(a, out)
    return out


def where(*trees: tuple) -> str:
    """The symbols of ``trees`` with their declared assumptions: what the statement assumes of each."""
    syms: dict = {}
    for t in trees:
        _symbols(t, syms)
    return "; ".join(f"{n}{'~' if tag else ''}: {', '.join(a) or 'complex'}" for n, a, tag in sorted(syms))


# ------------------------------------------------------------------------------ exponential polynomials
#
# A polynomial is a dict {monomial: coefficient}; a coefficient a Gaussian rational (re, im); a monomial
# (atoms, exponent, root): integer powers of named atoms (Laurent), exp of an exponent polynomial (interned
# by its canonical key; "" for none) and exp(i pi root) with root in [0, 2). Products merge exponentials.

C0, C1 = (Fraction(0), Fraction(0)), (Fraction(1), Fraction(0))
ONE = ((), "", Fraction(0))
_EXPS: dict[str, dict] = {}
_ATOMS: dict[str, tuple] = {}


def _cadd(a: tuple, b: tuple) -> tuple:
    return a[0] + b[0], a[1] + b[1]


def _cmul(a: tuple, b: tuple) -> tuple:
    return a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]


def _cinv(a: tuple) -> tuple:
    n = a[0] * a[0] + a[1] * a[1]
    if n == 0:
        raise Failed("division by zero in the statement")
    return a[0] / n, -a[1] / n


def mono_str(m: tuple) -> str:
    return "*".join(f"{a}^{e}" for a, e in m[0]) + "|" + m[1] + "|" + str(m[2])


def key(p: dict) -> str:
    return "{" + ";".join(sorted(f"{mono_str(m)}={c[0]},{c[1]}" for m, c in p.items())) + "}"


def intern(p: dict) -> str:
    if not p:
        return ""
    k = key(p)
    _EXPS.setdefault(k, p)
    return k


def add(p: dict, q: dict, sign: int = 1) -> dict:
    out = dict(p)
    for m, c in q.items():
        v = _cadd(out.get(m, C0), (sign * c[0], sign * c[1]))
        if v == C0:
            out.pop(m, None)
        else:
            out[m] = v
    return out


@lru_cache(maxsize=1 << 16)
def mono_mul(a: tuple, b: tuple) -> tuple:
    syms = dict(a[0])
    for s, e in b[0]:
        v = syms.get(s, 0) + e
        if v:
            syms[s] = v
        else:
            syms.pop(s)
    ex = a[1] if not b[1] else b[1] if not a[1] else intern(add(_EXPS[a[1]], _EXPS[b[1]]))
    return tuple(sorted(syms.items())), ex, (a[2] + b[2]) % 2


def mul(p: dict, q: dict) -> dict:
    if len(p) * len(q) > 4 * MAX_TERMS:
        raise Undecided(f"a product of {len(p)} x {len(q)} terms (over {MAX_TERMS})")
    out: dict = {}
    for m1, c1 in p.items():
        for m2, c2 in q.items():
            m = mono_mul(m1, m2)
            v = _cadd(out.get(m, C0), _cmul(c1, c2))
            if v == C0:
                out.pop(m, None)
            else:
                out[m] = v
    return out


def scale(p: dict, c: tuple) -> dict:
    return {m: _cmul(v, c) for m, v in p.items()} if c != C0 else {}


def const(c: tuple | Fraction) -> dict:
    c = c if isinstance(c, tuple) else (c, Fraction(0))
    return {ONE: c} if c != C0 else {}


def atom(name: str, info: tuple) -> dict:
    _ATOMS.setdefault(name, info)
    return {(((name, 1),), "", Fraction(0)): C1}


def mono_inv(m: tuple) -> tuple:
    ex = intern(scale(_EXPS[m[1]], (Fraction(-1), Fraction(0)))) if m[1] else ""
    return tuple((s, -e) for s, e in m[0]), ex, (-m[2]) % 2


def power(p: dict, k: int) -> dict:
    out, base = const(Fraction(1)), p
    while k:
        if k & 1:
            out = mul(out, base)
        k >>= 1
        if k:
            base = mul(base, base)
    return out


def _involves(text: str, ids: set[str] | tuple) -> bool:
    return any(i in text for i in ids)


def exp_of(E: dict) -> dict:
    """exp(E) as one monomial: exp(i pi b) -> root b; exp(2 pi i k) = 1 for integers k; exp(k log q) = q**k
    for an integer k and a prime q; the rest is the monomial's exponent."""
    root, coef, rest = Fraction(0), Fraction(1), {}
    for m, c in E.items():
        syms, ex, r = m
        if not ex and r == 0 and syms == (("pi", 1),):
            root += c[1]
            if c[0]:
                rest[m] = (c[0], Fraction(0))
        elif not ex and r == 0 and c[0] == 0 and c[1].denominator == 1 and c[1] % 2 == 0 and _pi_integers(syms):
            pass  # exp(2 pi i k) = 1, k an integer
        elif (not ex and r == 0 and c[1] == 0 and c[0].denominator == 1 and abs(c[0]) <= MAX_POWER and len(syms) == 1
              and syms[0][1] == 1 and _ATOMS.get(syms[0][0], ("",))[0] == "logq"):
            coef *= Fraction(_ATOMS[syms[0][0]][1]) ** int(c[0])
        else:
            rest[m] = c
    return {((), intern(rest), root % 2): (coef, Fraction(0))}


def _pi_integers(syms: tuple) -> bool:
    names = dict(syms)
    return names.get("pi") == 1 and len(syms) > 1 and all(
        e > 0 and "integer" in atom_facts(a) for a, e in syms if a != "pi")


def is_zero(p: dict) -> bool:
    """p == 0 as a value: the roots of unity written as powers of zeta = exp(i pi/L) (i = zeta**(L/2)) and
    each group reduced modulo the cyclotomic polynomial Phi_2L (irreducible over Q: exact)."""
    if not p:
        return True
    L = 2
    for m in p:
        L = L * m[2].denominator // math.gcd(L, m[2].denominator)
    if 2 * L > MAX_ROOT_ORDER:
        raise Undecided(f"roots of unity of order {2 * L}")
    groups: dict = {}
    for (syms, ex, r), (a, b) in p.items():
        g = groups.setdefault((syms, ex), [Fraction(0)] * (2 * L))
        k = int(r * L) % (2 * L)
        g[k] += a
        g[(k + L // 2) % (2 * L)] += b
    phi = _phi(2 * L)
    return all(not any(_remainder(g, phi)) for g in groups.values())


def _remainder(num: list, den: tuple) -> list:
    num = list(num)
    for i in range(len(num) - 1, len(den) - 2, -1):
        q = num[i] / den[-1]
        if q:
            for j, c in enumerate(den):
                num[i - len(den) + 1 + j] -= q * c
    return num[:len(den) - 1]


@cache
def _phi(n: int) -> tuple[Fraction, ...]:
    """Coefficients (low -> high) of the cyclotomic polynomial Phi_n = (x**n - 1) / prod_{d | n, d < n} Phi_d."""
    coeffs = [Fraction(-1)] + [Fraction(0)] * (n - 1) + [Fraction(1)]
    for d in range(1, n):
        if n % d == 0:
            coeffs = _divide(coeffs, list(_phi(d)))
    return tuple(coeffs)


def _divide(num: list[Fraction], den: list[Fraction]) -> list[Fraction]:
    num, out = list(num), [Fraction(0)] * (len(num) - len(den) + 1)
    for i in range(len(out) - 1, -1, -1):
        out[i] = num[i + len(den) - 1] / den[-1]
        for j, c in enumerate(den):
            num[i + j] -= out[i] * c
    return out


# ------------------------------------------------------------------------------ rational functions of trees

class Ctx:
    """How a tree is read: mode 'E' (exponential rewrite, sums), 'L' (no sums), 'R' (functions opaque: rational
    functions of atoms) or 'G' (sin and cos as circle placeholders); ``env``: symbols substituted (``at``)."""

    def __init__(self, mode: str, env: dict | None = None, bound: bool = False) -> None:
        self.mode, self.env, self.bound = mode, env or {}, bound


RATIONAL = Ctx("R")
BOUND = "@j"


def sym_id(t: tuple) -> str:
    return f"${t[1]}:{','.join(t[2])}:{t[3]};"


def rfkey(rf: tuple) -> str:
    return key(rf[0]) + "/" + key(rf[1])


def fold(rf: tuple) -> tuple:
    """A single-term denominator moved into the numerator (monomials are invertible)."""
    n, d = rf
    if not d:
        raise Failed("division by zero in the statement")
    if len(d) == 1:
        (m, c), = d.items()
        if m == ONE and c == C1:
            return rf
        return mul(n, {mono_inv(m): _cinv(c)}), const(Fraction(1))
    return rf


def rf_add(a: tuple, b: tuple, sign: int = 1) -> tuple:
    if key(a[1]) == key(b[1]):
        return fold((add(a[0], b[0], sign), a[1]))
    return fold((add(mul(a[0], b[1]), mul(b[0], a[1]), sign), mul(a[1], b[1])))


def rf_mul(a: tuple, b: tuple) -> tuple:
    return fold((mul(a[0], b[0]), mul(a[1], b[1])))


def rf_pow(a: tuple, k: int) -> tuple:
    if abs(k) > MAX_POWER:
        raise Undecided(f"an integer power {k} over {MAX_POWER}")
    n, d = a if k >= 0 else (a[1], a[0])
    if not n and k < 0:
        raise Failed("division by zero in the statement")
    return fold((power(n, abs(k)), power(d, abs(k))))


def as_poly(rf: tuple, what: str = "a phase or exponent") -> dict:
    n, d = fold(rf)
    if d != const(Fraction(1)):
        raise Undecided(f"{what} with a non-monomial denominator")
    return n


def _rf(p: dict) -> tuple:
    return p, const(Fraction(1))


def _atom_rf(name: str, info: tuple) -> tuple:
    return _rf(atom(name, info))


def conv(t: tuple, cx: Ctx) -> tuple:
    """The tree ``t`` as a rational function (numerator, denominator polynomials)."""
    return _CONVERT[t[0]](t, cx)


def _c_num(t: tuple, cx: Ctx) -> tuple:
    return _rf(const(t[1]))


def _c_sym(t: tuple, cx: Ctx) -> tuple:
    i = sym_id(t)
    if i in cx.env:
        return cx.env[i]
    return _atom_rf(i, ("sym", t[2]))


def _c_add(t: tuple, cx: Ctx) -> tuple:
    out = _rf({})
    for a in t[1:]:
        out = rf_add(out, conv(a, cx))
    return out


def _c_mul(t: tuple, cx: Ctx) -> tuple:
    out = _rf(const(Fraction(1)))
    for a in t[1:]:
        out = rf_mul(out, conv(a, cx))
    return out


def _c_pow(t: tuple, cx: Ctx) -> tuple:
    b, e = t[1], t[2]
    if e[0] == "n" and e[1].denominator == 1:
        k = int(e[1])
        if b[0] == "Abs" and k % 2 == 0 and rf_real(conv(b[1], cx)):
            return rf_pow(conv(b[1], cx), k)  # |y|**2m = y**2m for real y
        return rf_pow(conv(b, cx), k)
    base, ex = conv(b, cx), conv(e, cx)
    num, den = fold(ex)
    value = num.get(ONE, C0)
    if den == const(Fraction(1)) and set(num) <= {ONE} and value[1] == 0 and value[0].denominator == 1:
        return rf_pow(base, int(value[0]))  # the exponent is an integer once substituted
    if cx.mode in ("E", "L") and rf_nonzero(base):  # b**e = exp(e log b), SymPy's principal branch, b != 0
        return _rf(exp_of(mul(as_poly(ex), as_poly(log_rf(base), "the log of a base"))))
    return _atom_rf(f"pow[{rfkey(base)}|{rfkey(ex)}]", ("fn", "pow", base, ex))


def log_rf(arg: tuple) -> tuple:
    """log of a positive rational as sum a_q log q over its primes (true for positive reals); else an atom."""
    n, d = fold(arg)
    if d == const(Fraction(1)) and (not n or set(n) == {ONE}):
        v = n.get(ONE, C0)
        if v[1] == 0 and v[0] > 0:
            return _rf(_log_rational(v[0]))
    return _atom_rf(f"log[{rfkey(arg)}]", ("fn", "log", arg))


def _log_rational(r: Fraction) -> dict:
    out: dict = {}
    for x, sign in ((r.numerator, 1), (r.denominator, -1)):
        for q, a in _factor(x).items():
            out = add(out, scale(atom(f"log({q})", ("logq", q)), (Fraction(sign * a), Fraction(0))))
    return out


def _factor(x: int) -> dict[int, int]:
    if x > 10**12:
        raise Undecided(f"the log of {x}: too large to factor here")
    out: dict[int, int] = {}
    q = 2
    while q * q <= x:
        while x % q == 0:
            out[q] = out.get(q, 0) + 1
            x //= q
        q += 1
    if x > 1:
        out[x] = out.get(x, 0) + 1
    return out


def _exp_i(phase: dict, sign: int) -> dict:
    return exp_of(scale(phase, (Fraction(0), Fraction(sign))))


def _trig(t: tuple, cx: Ctx) -> tuple:
    f, arg = t[0], conv(t[1], cx)
    if cx.mode == "R":
        return _atom_rf(f"{f}[{rfkey(arg)}]", ("fn", f, arg))
    phase = as_poly(arg)
    if f == "tan":
        return rf_mul(_trig(("sin", t[1]), cx), rf_pow(_trig(("cos", t[1]), cx), -1))
    if cx.mode == "G":
        if _involves(key(phase), ("trig:",)):
            raise Undecided("sin or cos nested in a phase")
        return _atom_rf(f"trig:{f}:{intern(phase)}", ("trig", f, phase))
    plus, minus = _exp_i(phase, 1), _exp_i(phase, -1)
    if f == "sin":
        return _rf(scale(add(plus, minus, -1), (Fraction(0), Fraction(-1, 2))))  # 1/(2i) = -i/2
    return _rf(scale(add(plus, minus), (Fraction(1, 2), Fraction(0))))


def _c_exp(t: tuple, cx: Ctx) -> tuple:
    arg = conv(t[1], cx)
    if cx.mode in ("E", "L"):
        return _rf(exp_of(as_poly(arg)))
    if cx.mode == "G":
        raise Undecided("exp outside the Pythagorean fragment (G)")
    return _atom_rf(f"exp[{rfkey(arg)}]", ("fn", "exp", arg))


def _c_e(t: tuple, cx: Ctx) -> tuple:
    return _rf(exp_of(const(Fraction(1)))) if cx.mode in ("E", "L") else _atom_rf("E", ("E",))


def _c_log(t: tuple, cx: Ctx) -> tuple:
    """log(x y) = log x + log y and log(b**e) = e log b for positive x, y, b and real e (rules on the declared
    assumptions; not under a substitution, which could change them); else :func:`log_rf`."""
    a = t[1]
    if not cx.env and a[0] == "*" and all("positive" in props(f) for f in a[1:]):
        out = _rf({})
        for f in a[1:]:
            out = rf_add(out, _c_log(("log", f), cx))
        return out
    if not cx.env and a[0] == "^" and "positive" in props(a[1]) and "real" in props(a[2]):
        return rf_mul(conv(a[2], cx), _c_log(("log", a[1]), cx))
    return log_rf(conv(a, cx))


def _c_abs(t: tuple, cx: Ctx) -> tuple:
    arg = conv(t[1], cx)
    n, d = fold(arg)
    if d == const(Fraction(1)) and (not n or set(n) == {ONE}) and n.get(ONE, C0)[1] == 0:
        return _rf(const(abs(n.get(ONE, C0)[0])))
    return _atom_rf(f"Abs[{rfkey(arg)}]", ("fn", "Abs", arg))


def _c_minmax(t: tuple, cx: Ctx) -> tuple:
    """Min / Max: the argument shown smallest (largest) by the sign rules; otherwise undecided."""
    args = [conv(a, cx) for a in t[1:]]
    want = "nonpositive" if t[0] == "Min" else "nonnegative"
    for a in args:
        if all(want in rf_sign(rf_add(a, b, -1)) for b in args if b is not a):
            return a
    raise Undecided(f"{t[0]}: no argument is shown to be the {'least' if t[0] == 'Min' else 'largest'}")


def _c_sum(t: tuple, cx: Ctx) -> tuple:
    """RULE-SUM-LINEARITY: the summand expanded, each term split into a factor free of the bound variable and
    one that depends on it; Sum(1) = hi - lo + 1 (Karr's convention); equal dependent parts over equal ranges
    are one unknown. The bound variable is one canonical atom (alpha-equivalence); no nested sums."""
    if cx.mode != "E":
        raise Undecided("a Sum outside the exponential normal form (E)")
    if cx.bound:
        raise Undecided("nested sums")
    body, var, lo, hi = t[1:]
    lo_p, hi_p = as_poly(conv(lo, cx), "a range limit"), as_poly(conv(hi, cx), "a range limit")
    for p in (lo_p, hi_p):
        if not _integer_valued(p):
            raise Undecided("range limits not shown to be integers")
    inner = Ctx("E", {**cx.env, sym_id(var): _atom_rf(BOUND, ("bound",))}, True)
    num, den = conv(body, inner)
    if _involves(key(den), (BOUND,)):
        raise Undecided("a summand whose denominator depends on the bound variable")
    count = add(add(hi_p, lo_p, -1), const(Fraction(1)))
    out: dict = {}
    for m, c in num.items():
        free, dep = _split(m, BOUND)
        part = count if dep == ONE else atom(f"S[{mono_str(dep)}|{key(lo_p)}|{key(hi_p)}]", ("sum",))
        out = add(out, mul(part, {free: c}))
    return out, den


def _split(m: tuple, ident: str) -> tuple[tuple, tuple]:
    syms, ex, r = m
    free_s = tuple((a, e) for a, e in syms if ident not in a)
    dep_s = tuple((a, e) for a, e in syms if ident in a)
    E = _EXPS.get(ex, {})
    dep = {mm: c for mm, c in E.items() if _involves(mono_str(mm), (ident,))}
    rest = {mm: c for mm, c in E.items() if mm not in dep}
    return (free_s, intern(rest), r), (dep_s, intern(dep), Fraction(0))


def _integer_valued(p: dict) -> bool:
    return all(c[1] == 0 and c[0].denominator == 1 and not m[1] and m[2] == 0
               and all(e > 0 and "integer" in atom_facts(a) for a, e in m[0]) for m, c in p.items())


_CONVERT = {"n": _c_num, "s": _c_sym, "I": lambda t, cx: _rf(const((Fraction(0), Fraction(1)))),
            "pi": lambda t, cx: _atom_rf("pi", ("pi",)), "E": _c_e, "+": _c_add, "*": _c_mul, "^": _c_pow,
            "sin": _trig, "cos": _trig, "tan": _trig, "exp": _c_exp, "log": _c_log, "Abs": _c_abs,
            "Min": _c_minmax, "Max": _c_minmax, "Sum": _c_sum}


# ------------------------------------------------------------------------------ signs, realness: the rules

_POS = frozenset({"positive", "nonnegative", "nonzero", "real"})
_IMPLIES = {"integer": {"rational", "real"}, "rational": {"real"}, "positive": _POS,
            "negative": {"nonpositive", "nonzero", "real"}, "nonnegative": {"real"}, "nonpositive": {"real"},
            "zero": {"nonnegative", "nonpositive", "real", "integer", "rational"}}


def closure(words: set) -> frozenset:
    out = set(words)
    for w in list(out):
        out |= _IMPLIES.get(w, set())
    for w in list(out):
        out |= _IMPLIES.get(w, set())
    return frozenset(out)


@cache
def atom_facts(a: str) -> frozenset:
    """What the rules show about an atom: a symbol's declared assumptions; pi > 0 (and irrational:
    AX-PI-IRRATIONAL), E > 0, log q > 0 for a prime q; |y| >= 0; exp(real) > 0; log x real for x > 0, > 0 for
    x - 1 > 0, < 0 for 1 - x > 0, >= 0 for x - 1 >= 0; sin, cos of a real are real; b**e > 0 for b > 0, e real."""
    info = _ATOMS.get(a, ("?",))
    kind = info[0]
    if kind == "sym":
        return closure(set(info[1]))
    if kind == "pi":
        return _POS | {"irrational"}
    if kind in ("E", "logq"):
        return _POS
    if kind == "bound":
        return closure({"integer"})
    if kind == "shift":
        return closure({"integer", "nonnegative"})
    if kind == "circle":
        return frozenset({"real"}) if real_poly(info[2]) else frozenset()
    if kind == "phase":
        return frozenset({"real"}) if real_poly(info[1]) else frozenset()
    if kind != "fn":
        return frozenset()
    return frozenset(_FN_FACTS[info[1]](*info[2:]))


def _abs_facts(arg: tuple) -> set:
    return {"real", "nonnegative"} | ({"positive", "nonzero"} if rf_nonzero(arg) else set())


def _log_facts(arg: tuple) -> set:
    if "positive" not in rf_sign(arg):
        return set()
    one = _rf(const(Fraction(1)))
    out = {"real"}
    if "positive" in rf_sign(rf_add(arg, one, -1)):
        out |= _POS
    elif "nonnegative" in rf_sign(rf_add(arg, one, -1)):
        out |= {"nonnegative"}
    elif "positive" in rf_sign(rf_add(one, arg, -1)):
        out |= {"negative", "nonpositive", "nonzero"}
    return out


_FN_FACTS: dict[str, Callable[..., set[str]]] = {"Abs": _abs_facts, "log": _log_facts,
             "sin": lambda arg: {"real"} if rf_real(arg) else set(),
             "cos": lambda arg: {"real"} if rf_real(arg) else set(),
             "tan": lambda arg: set(),
             "exp": lambda arg: set(_POS) if rf_real(arg) else {"nonzero"},
             "pow": lambda base, ex: set(_POS) if "positive" in rf_sign(base) and rf_real(ex) else set()}


def real_poly(p: dict) -> bool:
    """Real-valued: real coefficients, roots +-1, real atoms and real exponents."""
    return all(c[1] == 0 and m[2] in (0, 1) and (not m[1] or real_poly(_EXPS[m[1]]))
               and all("real" in atom_facts(a) for a, _ in m[0]) for m, c in p.items())


def rf_real(rf: tuple) -> bool:
    return real_poly(rf[0]) and real_poly(rf[1])


def _term_sign(m: tuple, c: tuple) -> tuple[int, bool] | None:
    """(sign, weak) of one term (weak: it may be 0), or None if the rules show no sign."""
    if c[1] != 0 or m[2] not in (0, 1) or (m[1] and not real_poly(_EXPS[m[1]])):
        return None
    s, weak = (1 if c[0] > 0 else -1) * (-1 if m[2] == 1 else 1), False
    for a, e in m[0]:
        f = atom_facts(a)
        if "positive" in f:
            continue
        if "negative" in f:
            s *= (-1) ** (e % 2)
        elif e % 2 == 0 and "real" in f:
            weak = weak or "nonzero" not in f
        elif e > 0 and "nonnegative" in f:
            weak = True
        elif e > 0 and "nonpositive" in f:
            s, weak = s * (-1) ** (e % 2), True
        else:
            return None
    return s, weak


def poly_sign(p: dict) -> frozenset:
    """The signs shown for a polynomial: every term of one sign (weakly), one of them strictly."""
    if not p:
        return closure({"zero"})
    maybe = [_term_sign(m, c) for m, c in p.items()]
    signs = [s for s in maybe if s is not None]
    if len(signs) < len(maybe):
        return frozenset()
    for s, word, weak_word in ((1, "positive", "nonnegative"), (-1, "negative", "nonpositive")):
        if all(x[0] == s for x in signs):
            return closure({word if any(not x[1] for x in signs) else weak_word})
    return frozenset()


def rf_sign(rf: tuple) -> frozenset:
    n, d = rf
    sd, sn = poly_sign(d), poly_sign(n)
    if not ({"positive", "negative"} & sd):
        return frozenset()
    if "positive" in sd:
        return sn
    flip = {"positive": "negative", "negative": "positive", "nonnegative": "nonpositive", "nonpositive": "nonnegative"}
    return closure({flip.get(w, w) for w in sn})


def mono_nonzero(m: tuple) -> bool:
    return all("nonzero" in atom_facts(a) for a, _ in m[0])


def rf_nonzero(rf: tuple) -> bool:
    n, _ = fold(rf)
    if len(n) == 1:
        (m, c), = n.items()
        return c != C0 and mono_nonzero(m)
    return bool({"positive", "negative"} & rf_sign(rf))


@lru_cache(maxsize=1 << 14)
def props(t: tuple) -> frozenset:
    """What the explicit rules show about the value of a tree, from the declared assumptions alone:
    integer / rational / real closed under + and * (and integer powers), nonzero closed under * and powers,
    exp never 0, |x| >= 0, pi irrational (AX-PI-IRRATIONAL); signs from :func:`rf_sign` of the expanded
    rational function (every term of one sign)."""
    op = t[0]
    if op == "n":
        v = t[1]
        words = {"rational", "real"} | ({"integer"} if v.denominator == 1 else set())
        return closure(words | ({"zero"} if v == 0 else {"positive", "nonzero"} if v > 0 else {"negative", "nonzero"}))
    if op == "s":
        return closure(set(t[2]))
    if op in ("pi", "E", "I"):
        return {"pi": _POS | {"irrational"}, "E": _POS, "I": frozenset({"nonzero"})}[op]
    out = set(_STRUCTURE.get(op, lambda t: set())(t))
    try:
        rf = conv(t, RATIONAL)
        out |= rf_sign(rf)
        out |= {"nonzero"} if rf_nonzero(rf) else set()
    except (Undecided, Failed):
        pass
    return closure(out)


def _all(t: tuple, words: tuple) -> set:
    kids = [props(a) for a in t[1:]]
    return {w for w in words if all(w in k for k in kids)}


def _pow_props(t: tuple) -> set:
    b, e = props(t[1]), t[2]
    if not (e[0] == "n" and e[1].denominator == 1):
        return set(_POS) if "positive" in b and "real" in props(e) else set()
    k, out = int(e[1]), set()
    if "nonzero" in b:
        out.add("nonzero")
    for w in ("integer", "rational", "real"):
        if w in b and (k >= 0 or "nonzero" in b) and not (w == "integer" and k < 0):
            out.add(w)
    return out


_STRUCTURE = {"+": lambda t: _all(t, ("integer", "rational", "real")),
              "*": lambda t: _all(t, ("integer", "rational", "real", "nonzero")),
              "^": _pow_props,
              "exp": lambda t: {"nonzero"} | (set(_POS) if "real" in props(t[1]) else set()),
              "log": lambda t: {"real"} if "positive" in props(t[1]) else set(),
              "Abs": lambda t: {"real", "nonnegative"} | ({"positive"} if "nonzero" in props(t[1]) else set()),
              "sin": lambda t: {"real"} if "real" in props(t[1]) else set(),
              "cos": lambda t: {"real"} if "real" in props(t[1]) else set()}


# ------------------------------------------------------------------------------ (E), (L), (R): identities

def _env(at: list, mode: str) -> dict:
    return {sym_id(s): conv(v, Ctx(mode)) for s, v in at}


def decide_equal(lhs: tuple, rhs: tuple, mode: str, at: list | tuple = ()) -> None:
    """lhs = rhs (at ``at``) in the normal form of ``mode``: lhs.num*rhs.den - rhs.num*lhs.den == 0."""
    cx = Ctx(mode, _env(list(at), mode))
    (ln, ld), (rn, rd) = conv(lhs, cx), conv(rhs, cx)
    if is_zero(ld) or is_zero(rd):
        raise Failed("a denominator is 0: the statement is vacuous")
    diff = add(mul(ln, rd), mul(rn, ld), -1)
    if not is_zero(diff):
        raise Failed(f"({mode}) leaves {len(diff)} term(s) of lhs - rhs: not an identity by this procedure")


# ------------------------------------------------------------------------------ (G), (S): the circles

def _circles(rf: tuple, split: bool = True) -> tuple:
    """sin, cos placeholders replaced: each phase a sum of c_m m, the unit g_m the gcd of m's coefficients
    over the statement, exp(i theta) = prod (c_m + i s_m)**(c/g_m) with c_m = cos(g_m m), s_m = sin(g_m m)
    ((c + i s)**-1 = c - i s on the circle); cos = (P + conj P)/2, sin = (P - conj P)/(2i). Unsplit (S):
    each whole phase is its own point (c, s) of the circle."""
    n, d = rf
    holders = {a for p in (n, d) for m in p for a, _ in m[0] if a.startswith("trig:")}
    phases = {h: _ATOMS[h][2] if split else {(((f"phase<{key(_ATOMS[h][2])}>", 1),), "", Fraction(0)): C1}
              for h in holders}
    if not split:
        for h in holders:
            _ATOMS.setdefault(f"phase<{key(_ATOMS[h][2])}>", ("phase", _ATOMS[h][2]))
    coeffs: dict = {}
    for ph in phases.values():
        for m, c in ph.items():
            if c[1] != 0:
                raise Undecided("a phase with a non-real coefficient")
            coeffs.setdefault(m, []).append(c[0])
    units = {m: Fraction(math.gcd(*[abs(c.numerator) for c in cs]), math.lcm(*[c.denominator for c in cs]))
             for m, cs in coeffs.items()}
    value = {h: _trig_poly(_ATOMS[h][1], phases[h], units) for h in holders}
    return _substitute(n, value), _substitute(d, value)


def _trig_poly(f: str, phase: dict, units: dict) -> dict:
    P, Q = const(Fraction(1)), const(Fraction(1))
    for m, c in phase.items():
        k = int(c[0] / units[m])
        unit = {m: (units[m], Fraction(0))}
        s = atom(f"s<{key(unit)}>", ("circle", "s", unit))
        cc = atom(f"c<{key(unit)}>", ("circle", "c", unit))
        fwd, back = add(cc, scale(s, (Fraction(0), Fraction(1)))), add(cc, scale(s, (Fraction(0), Fraction(-1))))
        P, Q = mul(P, power(fwd if k > 0 else back, abs(k))), mul(Q, power(back if k > 0 else fwd, abs(k)))
    if f == "cos":
        return scale(add(P, Q), (Fraction(1, 2), Fraction(0)))
    return scale(add(P, Q, -1), (Fraction(0), Fraction(-1, 2)))


def _substitute(p: dict, value: dict) -> dict:
    out: dict = {}
    for (syms, ex, r), c in p.items():
        term = {(tuple((a, e) for a, e in syms if a not in value), ex, r): c}
        for a, e in syms:
            if a in value:
                if e < 0:
                    raise Undecided("sin or cos in a denominator (G)")
                term = mul(term, power(value[a], e))
        out = add(out, term)
    return out


def reduce_circles(p: dict, lead: str = "s") -> dict:
    """s**e -> s**(e mod 2) * (1 - c**2)**(e // 2) for every circle pair (the Pythagorean reduction; with
    ``lead`` 'c' the roles of s and c swapped: both are reductions modulo s**2 + c**2 - 1)."""
    other = "c" if lead == "s" else "s"
    out: dict = {}
    for (syms, ex, r), c in p.items():
        term = {(tuple((a, e) for a, e in syms if not (a.startswith(lead + "<") and e >= 2)), ex, r): c}
        for a, e in syms:
            if a.startswith(lead + "<") and e >= 2:
                cc = atom(other + "<" + a[2:], ("circle", other, _ATOMS[a][2]))
                term = mul(term, power(atom(a, _ATOMS[a]), e % 2))
                term = mul(term, power(add(const(Fraction(1)), mul(cc, cc), -1), e // 2))
            elif a[:2] in ("s<", "c<") and e < 0:
                raise Undecided("a negative power of a sine or cosine (G)")
        out = add(out, term)
    return out


def decide_circle(lhs: tuple, rhs: tuple, at: list | tuple = ()) -> None:
    """(G): lhs - rhs reduced modulo s**2 + c**2 - 1 per unit phase is 0."""
    cx = Ctx("G", _env(list(at), "G"))
    diff = _circles(rf_add(conv(lhs, cx), conv(rhs, cx), -1))
    n = reduce_circles(as_poly(diff, "lhs - rhs"))
    if not is_zero(n):
        raise Failed(f"(G) leaves {len(n)} term(s) of lhs - rhs modulo the circles: not an identity by this procedure")


def decide_bound(x: tuple, bound: tuple) -> None:
    """(S): |x| <= B: B >= 0 and x real by the rules; B**2 - x**2 reduced modulo the circles is a manifest sum
    of squares (positive rationals times even powers of real atoms), so B**2 >= x**2 at every real point."""
    if "nonnegative" not in props(bound):
        raise Failed(f"the bound {render(bound)} is not shown to be nonnegative")
    xs = _circles(conv(x, Ctx("G")), split=False)
    if not rf_real(xs):
        raise Failed(f"{render(x)} is not shown to be real (realness only from declared assumptions)")
    gap = ("+", ("^", bound, ("n", Fraction(2))), ("*", ("n", Fraction(-1)), ("^", x, ("n", Fraction(2)))))
    f = as_poly(_circles(conv(gap, Ctx("G")), split=False), "B**2 - x**2")
    why = ""
    for lead in ("s", "c"):  # B**2 - x**2 modulo the circles, reduced either way: one must be manifest
        bad = [(m, c) for m, c in reduce_circles(f, lead).items() if not _square_term(m, c)]
        if not bad:
            return
        why = why or f"{bad[0][1][0]}*{mono_str(bad[0][0])[:100]}"
    raise Failed(f"B**2 - x**2 reduced has the term {why}: not a manifest sum of squares")


def _square_term(m: tuple, c: tuple) -> bool:
    """A positive rational times even powers of atoms shown real."""
    return c[1] == 0 and c[0] > 0 and not m[1] and m[2] == 0 and all(
        e % 2 == 0 and e > 0 and "real" in atom_facts(a) for a, e in m[0])


# ------------------------------------------------------------------------------ balls: rigorous intervals

def _round(lo: Fraction, hi: Fraction, prec: int) -> tuple:
    s = 1 << prec
    return Fraction(math.floor(lo * s), s), Fraction(-math.floor(-hi * s), s)


def _series(x: Fraction, first: int, prec: int) -> tuple:
    """sum_k (-1)**k x**(2k+first) / (2k+first)! with the Lagrange remainder (sin: first 1, cos: first 0)."""
    s, k = Fraction(0), 0
    while True:
        n = 2 * k + first
        t = x ** n / math.factorial(n)
        if abs(t) < Fraction(1, 1 << (prec + 8)) and n > abs(x):
            return s - abs(t), s + abs(t)
        s += t if k % 2 == 0 else -t
        k += 1
        if k > 20 * prec + 1000:
            raise Undecided("a series that does not converge fast enough")


def _atan_inv(x: int, prec: int) -> tuple:
    s, k = Fraction(0), 0
    while True:
        t = Fraction(1, (2 * k + 1) * x ** (2 * k + 1))
        if t < Fraction(1, 1 << (prec + 8)):
            return s - t, s + t
        s += t if k % 2 == 0 else -t
        k += 1


def _pi(prec: int) -> tuple:
    a, b = _atan_inv(5, prec), _atan_inv(239, prec)
    return 16 * a[0] - 4 * b[1], 16 * a[1] - 4 * b[0]  # Machin: pi = 16 atan(1/5) - 4 atan(1/239)


def _exp_point(x: Fraction, prec: int) -> tuple:
    k = 0
    while abs(x) > 1:
        x, k = x / 2, k + 1
    s, n, t = Fraction(0), 0, Fraction(1)
    while abs(t) * 3 >= Fraction(1, 1 << (prec + 8 + k)):
        s, n = s + t, n + 1
        t = t * x / n
    lo, hi = s - 3 * abs(t), s + 3 * abs(t)
    for _ in range(k):
        lo, hi = _round(lo * lo, hi * hi, prec + 16)
    return lo, hi


def _log_point(x: Fraction, prec: int) -> tuple:
    if x <= 0:
        raise Failed("log of a nonpositive number")
    k = 0
    while x > 2:
        x, k = x / 2, k + 1
    while x < Fraction(1, 2):
        x, k = x * 2, k - 1
    y = (x - 1) / (x + 1)
    s, j = Fraction(0), 0
    while True:
        t = 2 * y ** (2 * j + 1) / (2 * j + 1)
        if abs(t) < Fraction(1, 1 << (prec + 8)):
            err = abs(t) * Fraction(9, 8)  # the tail: |y| <= 1/3, a geometric bound
            lo, hi = s - err, s + err
            break
        s, j = s + t, j + 1
    if k:
        l2 = _log_point(Fraction(2), prec + 8)
        lo, hi = (lo + k * l2[0], hi + k * l2[1]) if k > 0 else (lo + k * l2[1], hi + k * l2[0])
    return lo, hi


def _iv_mul(a: tuple, b: tuple) -> tuple:
    ps = [a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]]
    return min(ps), max(ps)


def _iv_pow(a: tuple, k: int) -> tuple:
    if k < 0:
        if a[0] <= 0 <= a[1]:
            raise Undecided("an interval containing 0 in a denominator")
        a = (1 / a[1], 1 / a[0])
        k = -k
    lo, hi = a[0] ** k, a[1] ** k
    if k % 2 == 0 and a[0] <= 0 <= a[1]:
        return Fraction(0), max(lo, hi)
    return min(lo, hi), max(lo, hi)


def _iv_trig(f: str, a: tuple, prec: int) -> tuple:
    mid, rad = _round((a[0] + a[1]) / 2, (a[0] + a[1]) / 2, prec)[0], (a[1] - a[0]) / 2 + Fraction(1, 1 << prec)
    if abs(mid) > 1000:
        raise Undecided("sin or cos of a large argument")
    lo, hi = _series(mid, 1 if f == "sin" else 0, prec)
    return max(lo - rad, Fraction(-1)), min(hi + rad, Fraction(1))  # sin, cos are 1-Lipschitz


def ball(t: tuple, prec: int) -> tuple:
    """A rigorous interval [lo, hi] (Fractions) containing the real constant ``t``."""
    op = t[0]
    if op == "n":
        return t[1], t[1]
    if op == "pi":
        return _pi(prec)
    if op == "E":
        return _exp_point(Fraction(1), prec)
    kids = [ball(a, prec) for a in t[1:]] if op not in ("^", "s", "I", "Sum") else []
    if op == "+":
        out = (sum(k[0] for k in kids), sum(k[1] for k in kids))
    elif op == "*":
        out = kids[0]
        for k in kids[1:]:
            out = _iv_mul(out, k)
    elif op == "^" and t[2][0] == "n" and t[2][1].denominator == 1 and abs(t[2][1]) <= MAX_POWER:
        out = _iv_pow(ball(t[1], prec), int(t[2][1]))
    elif op in ("sin", "cos"):
        out = _iv_trig(op, kids[0], prec)
    elif op == "exp":
        out = _exp_point(kids[0][0], prec)[0], _exp_point(kids[0][1], prec)[1]
    elif op == "log":
        out = _log_point(kids[0][0], prec)[0], _log_point(kids[0][1], prec)[1]
    elif op == "Abs":
        a = kids[0]
        out = (Fraction(0) if a[0] <= 0 <= a[1] else min(abs(a[0]), abs(a[1]))), max(abs(a[0]), abs(a[1]))
    else:
        raise Undecided(f"no interval evaluation of {op!r} (a real constant is needed)")
    return _round(out[0], out[1], prec)


def ball_sign(t: tuple) -> int:
    """+1 or -1 when an interval at some precision (40 .. 640 bits) excludes 0."""
    for prec in (40, 80, 160, 320, 640):
        lo, hi = ball(t, prec)
        if lo > 0:
            return 1
        if hi < 0:
            return -1
    raise Failed(f"the sign of {render(t)} is not decided by interval arithmetic at 640 bits")


# ------------------------------------------------------------------------------ characters, linear algebra

def characters(p: dict, variables: tuple) -> dict[str, dict]:
    """p grouped by its characters in ``variables``: {exponent part linear in the variables: coefficient}.
    AX-CHARACTERS (distinct characters are linearly independent) applies only if every pair of characters is
    shown distinct: their difference has, for some variable, a single-term coefficient shown nonzero."""
    groups: dict[str, dict] = {}
    for (syms, ex, r), c in p.items():
        if any(_involves(a, variables) for a, _ in syms):
            raise Undecided("a coefficient depends on a variable (a polynomial, not a character)")
        E = _EXPS.get(ex, {})
        dep = {m: v for m, v in E.items() if _involves(mono_str(m), variables)}
        for m in dep:
            hits = [(a, e) for a, e in m[0] if a in variables]
            if len(hits) != 1 or hits[0][1] != 1 or _involves(m[1], variables) or _involves(
                    "".join(a for a, _ in m[0] if a not in variables), variables):
                raise Undecided("an exponent not linear in the variables: not a character")
        rest = {m: v for m, v in E.items() if m not in dep}
        g = groups.setdefault(intern(dep), {})
        groups[intern(dep)] = add(g, {(syms, intern(rest), r): c})
    keys = [k for k, g in groups.items() if not is_zero(g)]
    for i, k1 in enumerate(keys):
        for k2 in keys[i + 1:]:
            if not _distinct(_EXPS.get(k1, {}), _EXPS.get(k2, {}), variables):
                raise Undecided("precondition AX-CHARACTERS: two frequencies are not shown to differ")
    return {k: groups[k] for k in keys}


def _distinct(E1: dict, E2: dict, variables: tuple) -> bool:
    diff = add(E1, E2, -1)
    for v in variables:
        coef = {(tuple((a, e) for a, e in m[0] if a != v), m[1], m[2]): c for m, c in diff.items() if (v, 1) in m[0]}
        if len(coef) == 1:
            (m, c), = coef.items()
            if c != C0 and mono_nonzero(m):
                return True
    return False


def nonzero_function(p: dict, variables: tuple) -> bool:
    """p is not identically 0 in ``variables``: one character's coefficient is a single nonzero term."""
    for g in characters(p, variables).values():
        if len(g) == 1 and mono_nonzero(next(iter(g))):
            return True
    return False


def _linear(p: dict, unknowns: tuple) -> dict:
    """p linear in the unknowns: {unknown or '': coefficient polynomial}."""
    out: dict = {}
    for (syms, ex, r), c in p.items():
        hits = [(a, e) for a, e in syms if a in unknowns]
        if len(hits) > 1 or (hits and hits[0][1] != 1):
            raise Undecided("not linear in the unknowns")
        u = hits[0][0] if hits else ""
        out[u] = add(out.get(u, {}), {(tuple(x for x in syms if x[0] != u), ex, r): c})
    return out


def _number(p: dict) -> tuple:
    """A polynomial that is a Gaussian-rational number (roots 0, 1/2, 1, 3/2 allowed), else undecided."""
    unit = {Fraction(0): (1, 0), Fraction(1, 2): (0, 1), Fraction(1): (-1, 0), Fraction(3, 2): (0, -1)}
    out = C0
    for (syms, ex, r), c in p.items():
        if syms or ex or r not in unit:
            raise Undecided("a coefficient that is not a number")
        out = _cadd(out, _cmul(c, (Fraction(unit[r][0]), Fraction(unit[r][1]))))
    return out


def _dot(a: list, b: list) -> tuple:
    out = C0
    for x, y in zip(a, b, strict=False):
        out = _cadd(out, _cmul(x, y))
    return out


def rank(rows: list[list[tuple]]) -> int:
    """Exact rank over Q(i) by Gaussian elimination."""
    rows, r = [list(x) for x in rows], 0
    ncols = len(rows[0]) if rows else 0
    for col in range(ncols):
        piv = next((i for i in range(r, len(rows)) if rows[i][col] != C0), None)
        if piv is None:
            continue
        rows[r], rows[piv] = rows[piv], rows[r]
        inv = _cinv(rows[r][col])
        for i in range(len(rows)):
            if i != r and rows[i][col] != C0:
                f = _cmul(rows[i][col], inv)
                rows[i] = [_cadd(a, _cmul((-f[0], -f[1]), b)) for a, b in zip(rows[i], rows[r], strict=False)]
        r += 1
    return r


# ------------------------------------------------------------------------------ column plans

def _form(x: object) -> tuple[int, int]:
    """A linear form q*n + r given as [q, r] (integers)."""
    if not (isinstance(x, list) and len(x) == 2 and all(type(v) is int and abs(v) < MAX_EXPONENT for v in x)):
        raise Malformed(f"a linear form in n is [q, r] with small integers; got {str(x)[:60]}")
    return x[0], x[1]


def _col(x: object) -> tuple[int, int, int]:
    """A column q_i*i + q_n*n + r given as [q_i, q_n, r] (integers)."""
    if not (isinstance(x, list) and len(x) == 3 and all(type(v) is int and abs(v) < MAX_EXPONENT for v in x)):
        raise Malformed(f"a column form is [q_i, q_n, r] with small integers; got {str(x)[:60]}")
    return x[0], x[1], x[2]


def _at_least(f: tuple[int, int], k: int) -> bool:
    """q*n + r >= k for every integer n >= 1 (linear: q >= 0 and the value at n = 1 is >= k)."""
    return f[0] >= 0 and f[0] + f[1] >= k


def _segments(plan: object) -> tuple[list[dict], bool, object]:
    if not (isinstance(plan, dict) and isinstance(plan.get("segments"), list) and len(plan["segments"]) <= 16):
        raise Malformed("a plan is {segments: [...], odd: bool, unpaired: ...}")
    segs = [_segment(s) for s in plan["segments"]]
    if plan.get("odd") not in (True, False) or plan.get("unpaired") not in (None, "sin", "cos", "zero"):
        raise Malformed("a plan needs odd: true|false and unpaired: null|sin|cos|zero")
    return segs, plan["odd"], plan["unpaired"]


def _segment(s: object) -> dict:
    """One segment "column a*i + c holds (kind, i) for lo <= i < hi" (of a plan or a rule table)."""
    if not (isinstance(s, dict) and set(s) == {"kind", "lo", "hi", "a", "c"} and s["kind"] in ("sin", "cos", "zero")
            and s["a"] in (0, 1, 2) and type(s["a"]) is int):
        raise Malformed(f"a segment is {{kind: sin|cos|zero, lo, hi, a: 0|1|2, c}}; got {str(s)[:80]}")
    lo, hi, c, a = _form(s.get("lo")), _form(s.get("hi")), _form(s.get("c")), s["a"]
    first, last = (a * lo[0] + c[0], a * lo[1] + c[1]), (a * hi[0] + c[0], a * (hi[1] - 1) + c[1])
    return {"kind": s["kind"], "lo": lo, "hi": hi, "a": a, "c": c, "first": first, "last": last}


def _lin(q: int, r: int, var: str = "n") -> str:
    parts = ([f"{q}*{var}" if q not in (1, -1) else f"{'-' if q < 0 else ''}{var}"] if q else []) + ([str(r)] if r or not q else [])
    return " + ".join(parts).replace("+ -", "- ")


def render_plan(plan: object) -> str:
    segs, odd, unpaired = _segments(plan)
    return f"[{_render_segments(segs)}] (d = 2n{' + 1' if odd else ''}, odd column: {unpaired})"


def _render_segments(segs: list[dict]) -> str:
    return "; ".join(f"{s['kind']}_i at column {_colstr((s['a'], *s['c']))} for "
                     f"{_lin(*s['lo'])} <= i < {_lin(*s['hi'])}" for s in segs)


def check_plan(plan: object) -> None:
    """The plan maps its labels bijectively onto the columns 0..d-1 of d = 2n (+1) for every n >= 1 (and
    n = 0 when odd), and holds exactly the labels sin_i, cos_i (i < n) plus the odd column: decided here
    from the segments' linear forms, the same argument as THM-LIFT, with integers only."""
    segs, odd, unpaired = _segments(plan)
    d = (2, int(odd))
    total = (sum(s["hi"][0] - s["lo"][0] for s in segs), sum(s["hi"][1] - s["lo"][1] for s in segs))
    if total != d:
        raise Failed(f"the plan has {total[0]}n + {total[1]} labels, not d = 2n + {d[1]}")
    for s in segs:
        size = (s["hi"][0] - s["lo"][0], s["hi"][1] - s["lo"][1])
        inside = _at_least(s["first"], 0) and _at_least((d[0] - s["last"][0], d[1] - 1 - s["last"][1]), 0)
        if not (_at_least(size, 1) and inside and (s["a"] != 0 or size == (0, 1))):
            raise Failed(f"a {s['kind']} segment is empty, leaves [0, d) or repeats a column for some n >= 1")
    for x in range(len(segs)):
        for y in range(x + 1, len(segs)):
            s, t = segs[x], segs[y]
            dc = (s["c"][0] - t["c"][0], s["c"][1] - t["c"][1])
            parity = s["a"] == t["a"] == 2 and dc[0] == 0 and dc[1] % 2 == 1
            apart = any(_at_least((u["first"][0] - v["last"][0], u["first"][1] - v["last"][1]), 1)
                        for u, v in ((s, t), (t, s)))
            if not (parity or apart):
                raise Failed("two segments may share a column for some n >= 1")
    if odd and sorted(s["a"] * i + s["c"][1] for s in segs for i in range(s["lo"][1], s["hi"][1])) != [0]:
        raise Failed("at n = 0 (d = 1) the plan is not the one column 0")
    _check_labels(segs, unpaired)


def _check_labels(segs: list[dict], unpaired: object) -> None:
    for kind in ("sin", "cos"):
        mine = sorted((s for s in segs if s["kind"] == kind), key=lambda s: s["lo"][0] + s["lo"][1])
        chain = [(0, 0)] + [f for s in mine for f in (s["lo"], s["hi"])] + [(1, int(unpaired == kind))]
        if not mine or any(chain[m] != chain[m + 1] for m in range(0, len(chain), 2)):
            raise Failed(f"the {kind} labels are not exactly {kind}_i for 0 <= i < n (+ the odd column)")
    zeros = [s for s in segs if s["kind"] == "zero"]
    if len(zeros) != int(unpaired == "zero"):
        raise Failed(f"{len(zeros)} zero column(s), unpaired {unpaired!r}")


def check_match(plan: object, inter: object) -> None:
    """THM-LAYOUT: both plans are bijections holding the labels, and each segment of the plan holds the labels
    of one segment of the interleaved plan (same function, same bounds), one to one."""
    check_plan(plan)
    check_plan(inter)
    left = [(s["kind"], s["lo"], s["hi"]) for s in _segments(inter)[0]]
    for s in _segments(plan)[0]:
        if (s["kind"], s["lo"], s["hi"]) not in left:
            raise Failed(f"a {s['kind']} segment holds labels no interleaved segment holds")
        left.remove((s["kind"], s["lo"], s["hi"]))
    if left:
        raise Failed(f"{len(left)} interleaved segment(s) left unmatched")


def _rule_table(rules: object) -> list[dict]:
    if not (isinstance(rules, list) and 0 < len(rules) <= 16):
        raise Malformed("a rule table is a list of 1 to 16 segments")
    return [_segment(r) for r in rules]


def _conform_claim(claim: object, segs: list[dict]) -> tuple:
    """("segment", k) | ("labels", kind) | ("d=1",): which claim of a conformance step the entry makes."""
    if isinstance(claim, list) and len(claim) == 2 and claim[0] == "segment" and type(claim[1]) is int \
            and 0 <= claim[1] < len(segs):
        return "segment", claim[1]
    if isinstance(claim, list) and len(claim) == 2 and claim[0] == "labels" and claim[1] in ("sin", "cos", "zero"):
        return "labels", claim[1]
    if claim == ["d=1"]:
        return ("d=1",)
    raise Malformed(f"a conformance claim is ['segment', k < {len(segs)}], ['labels', sin|cos|zero] or ['d=1']; "
                    f"got {str(claim)[:60]}")


def _inside(s: dict, r: dict) -> bool:
    """Segment s lies inside rule r for every n >= 1: the same function, r.lo <= s.lo and s.hi <= r.hi, and the
    same column map (stride and offset equal; for a single label, the same column a*lo + c)."""
    if r["kind"] != s["kind"] or not (_at_least(_minus(s["lo"], r["lo"]), 0) and _at_least(_minus(r["hi"], s["hi"]), 0)):
        return False
    if _minus(s["hi"], s["lo"]) == (0, 1):
        at = lambda x: (x["a"] * s["lo"][0] + x["c"][0], x["a"] * s["lo"][1] + x["c"][1])
        return at(r) == at(s)
    return r["a"] == s["a"] and r["c"] == s["c"]


def _minus(f: tuple[int, int], g: tuple[int, int]) -> tuple[int, int]:
    return f[0] - g[0], f[1] - g[1]


def _labels(segs: list[dict], kind: str) -> tuple[int, int]:
    """How many labels of ``kind`` the segments hold, as a linear form in n."""
    mine = [_minus(s["hi"], s["lo"]) for s in segs if s["kind"] == kind]
    return sum(f[0] for f in mine), sum(f[1] for f in mine)


MAX_D1_LABELS = 4096


def _at_n0(segs: list[dict]) -> list[tuple]:
    """(kind, column, label) of every label at n = 0 (d = 1), sorted."""
    if sum(max(0, s["hi"][1] - s["lo"][1]) for s in segs) > MAX_D1_LABELS:
        raise Undecided(f"more than {MAX_D1_LABELS} labels at n = 0")
    return sorted((s["kind"], s["a"] * i + s["c"][1], i) for s in segs for i in range(s["lo"][1], s["hi"][1]))


def _nonnegative_width(r: dict) -> bool:
    """Rule row r holds hi - lo >= 0 labels for every n >= 0."""
    w = _minus(r["hi"], r["lo"])
    return _at_least(w, 0) and w[1] >= 0


def check_conformance(plan: object, rules: object, claim: object) -> None:
    """A conformance step (THM-LIFT's DEF-LAYOUT table, THM-ROPE-*'s DEF-ROPE-LAYOUT table), decided with integers
    as the prover decides it: a plan segment inside a rule of its function with the same column map; the plan and
    the table holding as many labels of a function (equal linear forms; no row of the table of negative width);
    the same labels at n = 0 (d = 1)."""
    segs, table = _segments(plan)[0], _rule_table(rules)
    what = _conform_claim(claim, segs)
    if what[0] == "segment" and not any(_inside(segs[what[1]], r) for r in table):
        s = segs[what[1]]
        raise Failed(f"the {s['kind']} segment {what[1]} lies inside no rule of its function with its column map")
    short = [r for r in table if r["kind"] == what[1] and not _nonnegative_width(r)] if what[0] == "labels" else []
    if short:  # a row lo <= i < hi with hi < lo would offset a row claiming labels the plan does not hold
        raise Failed(f"the table's {what[1]} row {_lin(*short[0]['lo'])} <= i < {_lin(*short[0]['hi'])} has a negative "
                     "width: the count says nothing")
    if what[0] == "labels" and _labels(segs, what[1]) != _labels(table, what[1]):
        raise Failed(f"the plan holds {_lin(*_labels(segs, what[1]))} {what[1]} labels, the table "
                     f"{_lin(*_labels(table, what[1]))}")
    if what[0] == "d=1" and _at_n0(segs) != _at_n0(table):
        raise Failed(f"at n = 0 the plan places {_at_n0(segs)}, the table {_at_n0(table)}")


def render_conformance(plan: object, rules: object, claim: object) -> str:
    segs = _segments(plan)[0]
    what = _conform_claim(claim, segs)
    if what[0] == "segment":
        s = segs[what[1]]
        says = (f"its segment {what[1]} ({s['kind']}_i at column {_colstr((s['a'], *s['c']))} for "
                f"{_lin(*s['lo'])} <= i < {_lin(*s['hi'])}) lies inside a rule of the table for {s['kind']}, with the "
                "same column map, for every n >= 1")
    elif what[0] == "labels":
        says = f"it holds as many {what[1]} labels as the table, for every n"
    else:
        says = "at n = 0 (d = 1) it holds the labels in the columns the table says"
    return f"the column plan {render_plan(plan)}: {says}; the table: [{_render_segments(_rule_table(rules))}]"


def _row(row: object) -> tuple:
    if not (isinstance(row, dict) and set(row) == {"lo", "hi"}):
        raise Malformed("a row is {lo: [q, r], hi: [q, r]} (its labels i, lo <= i < hi)")
    lo, hi = _form(row["lo"]), _form(row["hi"])
    return lo, (hi[0], hi[1] - 1)  # i at both ends of the row's range


def _at(col: tuple, i: tuple) -> tuple[int, int]:
    """The column form at i = (q, r) (a linear form in n): a linear form in n."""
    return col[0] * i[0] + col[1], col[0] * i[1] + col[2]


def lookup(plan: object, col: tuple, row: object) -> tuple | None:
    """The label (kind, i' as [q_i, q_n, r]) that column ``col`` holds for every i of the row: the segment U with
    col = a_U i' + c_U, i' with integer coefficients and inside U's labels at both ends of the row's range."""
    ends = _row(row)
    for u in _segments(plan)[0]:
        if u["a"] == 0:
            if col != (0, *u["c"]):
                continue
            ip = (0, *u["lo"])
        else:
            diff = (col[0], col[1] - u["c"][0], col[2] - u["c"][1])
            if any(x % u["a"] for x in diff):
                continue
            ip = tuple(x // u["a"] for x in diff)
        vals = [_at(ip, e) for e in ends]
        if all(_at_least((v[0] - u["lo"][0], v[1] - u["lo"][1]), 0) and
               _at_least((u["hi"][0] - v[0], u["hi"][1] - 1 - v[1]), 0) for v in vals):
            return u["kind"], ip
    return None


def in_columns(plan: object, col: tuple, row: object) -> bool:
    """0 <= col <= d - 1 at both ends of the row's range (col linear in i), for every n >= 1."""
    _, odd, _ = _segments(plan)
    vals = [_at(col, e) for e in _row(row)]
    return all(_at_least(v, 0) and _at_least((2 - v[0], int(odd) - 1 - v[1]), 0) for v in vals)


# ------------------------------------------------------------------------------ entry and fact kinds

def _trees(e: dict, *names: str) -> list:
    return [tree(e[n]) for n in names]


def _tree_list(x: object, what: str) -> list:
    if not (isinstance(x, list) and len(x) <= 4096):
        raise Malformed(f"'{what}' must be a list of trees")
    return [tree(a) for a in x]


def _at_pairs(x: object) -> list:
    if not (isinstance(x, list) and all(isinstance(p, list) and len(p) == 2 for p in x)):
        raise Malformed("'at' must be a list of [symbol, value] pairs")
    out = [(tree(s), tree(v)) for s, v in x]
    if any(s[0] != "s" for s, _ in out):
        raise Malformed("'at' substitutes symbols only")
    return out


def _proc(e: dict, allowed: tuple) -> str:
    if e.get("procedure") not in allowed:
        raise Malformed(f"procedure must be one of {', '.join(allowed)}")
    return e["procedure"]


def _r_identity(e: dict) -> str:
    lhs, rhs = _trees(e, "lhs", "rhs")
    at = _at_pairs(e.get("at"))
    sub = f" at {', '.join(f'{render(s)} = {render(v)}' for s, v in at)}" if at else ""
    return f"{render(lhs)} = {render(rhs)}{sub}  [{where(lhs, rhs, *[x for p in at for x in p])}]"


def as_built(lhs: object, rhs: object, at: object) -> bool:
    """An identity true as built: its two sides are one tree and its substitution (if any) touches no symbol
    of it ("1 = 1 at d = 2n"). No evidence: the exporter leaves it out and the checker refuses it."""
    a, b, pairs = tree(lhs), tree(rhs), _at_pairs(at)
    return a == b and not set(_symbols(a, {})) & {(s[1], s[2], s[3]) for s, _ in pairs}


def _k_identity(e: dict) -> None:
    proc = _proc(e, ("E", "L", "G"))
    lhs, rhs = _trees(e, "lhs", "rhs")
    at = _at_pairs(e.get("at"))
    if as_built(e["lhs"], e["rhs"], e.get("at")):
        raise Failed("no evidence: lhs and rhs are the same tree, the substitution touches neither (a syntactic "
                     "identity is not a decided obligation)")
    if proc == "G":
        decide_circle(lhs, rhs, at)
    else:
        decide_equal(lhs, rhs, proc, at)


def _r_bound(e: dict) -> str:
    x, b = _trees(e, "lhs", "rhs")
    return f"|{render(x)}| <= {render(b)}  [{where(x, b)}]"


def _k_bound(e: dict) -> None:
    _proc(e, ("S",))
    decide_bound(*_trees(e, "lhs", "rhs"))


def _r_rational(e: dict) -> str:
    lhs, rhs = _trees(e, "lhs", "rhs")
    at = _at_pairs(e.get("at"))
    sub = f" at {', '.join(f'{render(s)} = {render(v)}' for s, v in at)}" if at else ""
    return f"{render(lhs)} = {render(rhs)}{sub} as rational functions  [{where(lhs, rhs, *[x for p in at for x in p])}]"


def _k_rational(e: dict) -> None:
    lhs, rhs = _trees(e, "lhs", "rhs")
    at = _at_pairs(e.get("at"))
    if as_built(e["lhs"], e["rhs"], e.get("at")):
        raise Failed("no evidence: lhs and rhs are the same tree, the substitution touches neither")
    decide_equal(lhs, rhs, "R", at)


def _var(e: dict, name: str = "var") -> tuple:
    v = tree(e.get(name))
    if v[0] != "s":
        raise Malformed(f"'{name}' must be a symbol")
    return v


def _r_positivity(e: dict) -> str:
    x, v = tree(e.get("expr")), _var(e)
    return f"{render(x)} > 0 for every integer {render(v)} >= {_small_int(e.get('from'), 'from')}  [{where(x, v)}]"


def _k_positivity(e: dict) -> None:
    """poly(var) > 0 for every integer var >= start: var = start + m (m >= 0), every term of one sign."""
    x, v, start = tree(e.get("expr")), _var(e), _small_int(e.get("from"), "from")
    shifted = rf_add(_rf(const(Fraction(start))), _atom_rf("@m", ("shift",)))
    rf = conv(x, Ctx("R", {sym_id(v): shifted}))
    if "positive" not in rf_sign(rf):
        raise Failed(f"after {render(v)} -> {start} + m the coefficients are not all >= 0 with a positive constant")


PROPERTIES = ("nonzero", "positive", "negative", "nonnegative", "nonpositive", "real", "rational", "integer", "irrational")


def _r_assumption(e: dict) -> str:
    x = tree(e.get("expr"))
    if e.get("property") not in PROPERTIES:
        raise Malformed(f"property must be one of {', '.join(PROPERTIES)}")
    return f"{render(x)} is {e['property']}  [{where(x)}]"


def _k_assumption(e: dict) -> None:
    x = tree(e.get("expr"))
    if e.get("property") not in props(x):
        raise Failed(f"{render(x)} is not shown {e.get('property')} by the rules from the declared assumptions")


def _r_ball(e: dict) -> str:
    if e.get("sign") not in (1, -1):
        raise Malformed("sign must be 1 or -1")
    return f"{render(tree(e.get('expr')))} {'>' if e['sign'] == 1 else '<'} 0"


def _k_ball(e: dict) -> None:
    x = tree(e.get("expr"))
    if _symbols(x, {}):
        raise Failed("a ball sign is for a constant (no symbols)")
    if ball_sign(x) != e.get("sign"):
        raise Failed(f"the sign of {render(x)} is {-e['sign']}, not {e['sign']}")


def _r_plan(e: dict) -> str:
    return f"the column plan {render_plan(e.get('plan'))} is a bijection onto the d columns holding exactly " \
           f"sin_i, cos_i (0 <= i < n) and the odd column"


def _r_match(e: dict) -> str:
    return f"{_r_plan(e)}; its segments hold the labels of the segments of {render_plan(e.get('interleaved'))}, one to one"


def _r_lookup(e: dict) -> str:
    lo, hi = _row(e.get("row"))
    label = e.get("label")
    if not (isinstance(label, list) and len(label) == 2 and label[0] in ("sin", "cos", "zero")):
        raise Malformed("a label is [kind, [q_i, q_n, r]]")
    c, ip = _col(e.get("column")), _col(label[1])
    return (f"in the plan {render_plan(e.get('plan'))}, column {_colstr(c)} holds {label[0]}_({_colstr(ip)}) for every "
            f"i with {_lin(*lo)} <= i <= {_lin(*hi)} and every n >= 1")


def _colstr(c: tuple) -> str:
    rest = _lin(c[1], c[2]) if c[1] or c[2] or not c[0] else ""
    return " + ".join(x for x in (_lin(c[0], 0, "i") if c[0] else "", rest) if x).replace("+ -", "- ")


def _k_lookup(e: dict) -> None:
    got = lookup(e.get("plan"), _col(e.get("column")), e.get("row"))
    label = e["label"]
    if got is None or got[0] != label[0] or list(got[1]) != list(_col(label[1])):
        raise Failed(f"the column holds {got and (got[0], list(got[1]))}, not {label}")


def _r_range(e: dict) -> str:
    lo, hi = _row(e.get("row"))
    return (f"in the plan {render_plan(e.get('plan'))}, column {_colstr(_col(e.get('column')))} lies in [0, d) for every "
            f"i with {_lin(*lo)} <= i <= {_lin(*hi)} and every n >= 1")


def _k_range(e: dict) -> None:
    if not in_columns(e.get("plan"), _col(e.get("column")), e.get("row")):
        raise Failed("the column leaves [0, d) for some n >= 1")


def _ideal_parts(e: dict) -> tuple:
    hyps, concl = _tree_list(e.get("hypotheses"), "hypotheses"), tree(e.get("conclusion"))
    circles = e.get("circles")
    if not (isinstance(circles, list) and all(isinstance(c, list) and len(c) == 2 for c in circles)):
        raise Malformed("'circles' must be a list of [s, c] symbol pairs")
    circ = [(tree(s), tree(c)) for s, c in circles]
    if any(x[0] != "s" for p in circ for x in p):
        raise Malformed("circle variables must be symbols")
    return hyps, circ, concl


def _r_ideal(e: dict) -> str:
    hyps, circ, concl = _ideal_parts(e)
    premises = [f"{render(h)} = 0" for h in hyps] + [f"{render(s)}^2 + {render(c)}^2 = 1" for s, c in circ]
    return f"if {', '.join(premises)} then {render(concl)} = 0  [{where(concl, *hyps, *[x for p in circ for x in p])}]"


def _k_ideal(e: dict) -> None:
    """f = sum q_i g_i over the statement's own generators (its hypotheses, then s**2 + c**2 - 1 per circle),
    checked by polynomial arithmetic; the generators all vanish at the given rational point (not vacuous)."""
    hyps, circ, concl = _ideal_parts(e)
    gens = [as_poly(conv(h, RATIONAL), "a hypothesis") for h in hyps]
    for s, c in circ:
        sp_, cp = as_poly(conv(s, RATIONAL)), as_poly(conv(c, RATIONAL))
        gens.append(add(add(mul(sp_, sp_), mul(cp, cp)), const(Fraction(1)), -1))
    quos = _tree_list(e.get("quotients"), "quotients")
    if len(quos) != len(gens):
        raise Failed(f"{len(quos)} quotients for the statement's {len(gens)} generators (hypotheses and circles)")
    rest = as_poly(conv(concl, RATIONAL), "the conclusion")
    for q, g in zip(quos, gens, strict=True):
        rest = add(rest, mul(as_poly(conv(q, RATIONAL), "a quotient"), g), -1)
    if not is_zero(rest):
        raise Failed(f"f - sum q_i g_i leaves {len(rest)} term(s): f is not shown in the ideal")
    point = e.get("point")
    if not (isinstance(point, list) and all(isinstance(p, list) and len(p) == 2 for p in point)):
        raise Malformed("'point' must be a list of [symbol, number] pairs")
    env = {sym_id(tree(s)): _rf(const(rational(v))) for s, v in point}
    for h in [h for h in hyps] + [("+", ("^", s, ("n", Fraction(2))), ("^", c, ("n", Fraction(2))), ("n", Fraction(-1)))
                                  for s, c in circ]:
        if not is_zero(conv(h, Ctx("R", env))[0]):
            raise Failed(f"the hypotheses are not shown consistent: {render(h)} is not 0 at the given point")


def _vars(e: dict, name: str) -> tuple:
    vs = _tree_list(e.get(name), name)
    if not vs or any(v[0] != "s" for v in vs):
        raise Malformed(f"'{name}' must be a nonempty list of symbols")
    return tuple(sym_id(v) for v in vs), vs


def _r_inconsistent(e: dict) -> str:
    x = tree(e.get("expr"))
    (_, us), (_, vs), (_, ks) = _vars(e, "unknowns"), _vars(e, "variables"), _vars(e, "of")
    names = lambda ts: ", ".join(render(t) for t in ts)
    return (f"no {names(us)} free of {names(vs)} (a function of {names(ks)}) makes {render(x)} = 0 for every "
            f"{names(vs)}  [{where(x, *us, *vs, *ks)}]")


def _k_inconsistent(e: dict) -> None:
    """The coefficients of the characters in the variables (AX-CHARACTERS) form a linear system c + a d = 0 in
    the one unknown a; a 2x2 minor d_i c_j - d_j c_i (or a row 0 = c_i) shown nonzero as a function of ``of``
    (again by independent characters) means no a solves it."""
    x = tree(e.get("expr"))
    (us, _), (vs, _), (ks, _) = _vars(e, "unknowns"), _vars(e, "variables"), _vars(e, "of")
    if len(us) != 1:
        raise Undecided("an inconsistency with more than one unknown")
    conds = [_linear(g, us) for g in characters(as_poly(conv(x, Ctx("L")), "the expression"), vs).values()]
    rows = [(r.get(us[0], {}), r.get("", {})) for r in conds]
    if any(is_zero(d) and not is_zero(c) and nonzero_function(c, ks) for d, c in rows):
        return
    for i, (di, ci) in enumerate(rows):
        for dj, cj in rows[i + 1:]:
            if nonzero_function(add(mul(di, cj), mul(dj, ci), -1), ks):
                return
    raise Failed("no minor of the system is shown nonzero: it may have a solution")


def _r_family(e: dict) -> str:
    x = tree(e.get("expr"))
    (_, ws), (_, vs), (_, ps) = _vars(e, "unknowns"), _vars(e, "variables"), _vars(e, "params")
    fam = _tree_list(e.get("family"), "family")
    names = lambda ts: ", ".join(render(t) for t in ts)
    if e.get("claim") not in ("contains", "dimension"):
        raise Malformed("claim must be 'contains' or 'dimension'")
    what = "every member satisfies" if e["claim"] == "contains" else \
        f"it is the whole solution space, of dimension {_small_int(e.get('dimension'), 'dimension')}, of"
    return (f"the family ({names(ws)}) = ({names(fam)}) in ({names(ps)}): {what} {render(x)} = 0 for every "
            f"{names(vs)}  [{where(x, *ws, *vs, *ps)}]")


def _k_family(e: dict) -> None:
    """The conditions (coefficients of independent characters) are linear in the unknowns; the family,
    linear in its parameters, satisfies them all ('contains'), and its dimension equals the solution space's
    (number of unknowns - the rank of the conditions, exact over Q(i)) ('dimension')."""
    x = tree(e.get("expr"))
    (ws, _), (vs, _), (ps, _) = _vars(e, "unknowns"), _vars(e, "variables"), _vars(e, "params")
    fam = _tree_list(e.get("family"), "family")
    if len(fam) != len(ws):
        raise Malformed("one family entry per unknown")
    conds = [_linear(g, ws) for g in characters(as_poly(conv(x, Ctx("L")), "the expression"), vs).values()]
    if any(not is_zero(c.get("", {})) for c in conds):
        raise Undecided("an affine (inhomogeneous) condition")
    A = [[_number(c.get(w, {})) for w in ws] for c in conds]
    F = [[_number(r.get(p, {})) for p in ps] for r in (_linear(as_poly(conv(f, RATIONAL)), ps) for f in fam)]
    if e.get("claim") == "contains":
        bad = [i for i, row in enumerate(A) if any(_dot(row, [F[j][k] for j in range(len(ws))]) != C0
                                                   for k in range(len(ps)))]
        if bad:
            raise Failed(f"the family violates {len(bad)} condition(s)")
        return
    nullity, dim = len(ws) - rank(A), rank([list(col) for col in zip(*F, strict=False)]) if F and ps else 0
    if not (nullity == dim == e.get("dimension")):
        raise Failed(f"the solution space has dimension {nullity}, the family {dim}; recorded {e.get('dimension')}")


def _r_distinct(e: dict) -> str:
    lhs, rhs, v = tree(e.get("lhs")), tree(e.get("rhs")), _var(e)
    return f"{render(lhs)} != {render(rhs)} for every integer {render(v)} >= {_small_int(e.get('from'), 'from')}  " \
           f"[{where(lhs, rhs, v)}]"


def _k_distinct(e: dict) -> None:
    """The numerator of lhs - rhs, an integer polynomial in var, has no integer root >= start (rational root
    theorem: a root divides the lowest coefficient)."""
    lhs, rhs, v, start = tree(e.get("lhs")), tree(e.get("rhs")), _var(e), _small_int(e.get("from"), "from")
    num = fold(conv(("+", lhs, ("*", ("n", Fraction(-1)), rhs)), RATIONAL))[0]
    vid, coeffs = sym_id(v), {}
    for (syms, ex, r), c in num.items():
        if ex or r or c[1] or any(a != vid for a, _ in syms):
            raise Undecided("lhs - rhs is not a rational function of the variable alone")
        coeffs[dict(syms).get(vid, 0)] = c[0]
    if not coeffs:
        raise Failed("lhs - rhs is 0")
    low = min(coeffs)
    if low < 0 and start <= 0:
        raise Undecided("a Laurent polynomial on a range containing 0")
    scale_ = math.lcm(*[c.denominator for c in coeffs.values()])
    ints = {k - low: int(c * scale_) for k, c in coeffs.items()}
    if low > 0 and start <= 0:
        raise Failed("0 is a root in the range")
    for r in _divisors(abs(ints[0])):
        for x in (r, -r):
            if x >= start and sum(c * x ** k for k, c in ints.items()) == 0:
                raise Failed(f"lhs = rhs at {render(v)} = {x}")


def _divisors(a: int) -> list[int]:
    if a > 10**12:
        raise Undecided("a constant term too large to enumerate its divisors")
    out, q = set(), 1
    while q * q <= a:
        if a % q == 0:
            out |= {q, a // q}
        q += 1
    return sorted(out)


def _k_plan(e: dict) -> None:
    check_plan(e.get("plan"))


def _r_conform(e: dict) -> str:
    return render_conformance(e.get("plan"), e.get("rules"), e.get("claim"))


def _k_conform(e: dict) -> None:
    check_conformance(e.get("plan"), e.get("rules"), e.get("claim"))


def _k_match(e: dict) -> None:
    check_match(e.get("plan"), e.get("interleaved"))


# kind -> (fields besides name, kind and text; the text rendered from them; the check)
FACTS = {
    "identity": (("procedure", "lhs", "rhs", "at"), _r_identity, _k_identity),
    "rational-identity": (("lhs", "rhs", "at"), _r_rational, _k_rational),
    "positivity": (("expr", "var", "from"), _r_positivity, _k_positivity),
    "assumption": (("expr", "property"), _r_assumption, _k_assumption),
    "ball-sign": (("expr", "sign"), _r_ball, _k_ball),
    "plan": (("plan",), _r_plan, _k_plan),
    "plan-lookup": (("plan", "row", "column", "label"), _r_lookup, _k_lookup),
    "plan-range": (("plan", "row", "column"), _r_range, _k_range),
    "ideal": (("hypotheses", "circles", "conclusion", "quotients", "point"), _r_ideal, _k_ideal),
    "inconsistent": (("expr", "unknowns", "variables", "of"), _r_inconsistent, _k_inconsistent),
    "linear-family": (("claim", "expr", "unknowns", "variables", "family", "params", "dimension"), _r_family, _k_family),
    "distinct-on-integers": (("lhs", "rhs", "var", "from"), _r_distinct, _k_distinct),
}
ENTRIES = {
    "identity": FACTS["identity"],
    "bound": (("procedure", "lhs", "rhs"), _r_bound, _k_bound),
    "plan": FACTS["plan"],
    "plan-match": (("plan", "interleaved"), _r_match, _k_match),
    "conformance": (("plan", "rules", "claim"), _r_conform, _k_conform),
}


def _fields(e: object, table: dict, what: str) -> tuple:
    if not isinstance(e, dict):
        raise Malformed(f"{what} must be an object")
    kind = e.get("kind")
    if not isinstance(kind, str) or kind not in table:
        raise Malformed(f"unknown {what} kind {str(kind)[:40]!r}")
    fields, rend, check = table[kind]
    extra = set(e) - set(fields) - {"kind", "name", "text"}
    if kind == "linear-family" and e.get("claim") == "contains":
        extra -= {"dimension"}
    if extra:
        raise Failed(f"field(s) {sorted(extra)} not part of a '{kind}' {what}: the checker recomputes what it needs")
    missing = set(fields) - set(e) - ({"dimension"} if kind == "linear-family" else set())
    if missing:
        raise Malformed(f"a '{kind}' {what} lacks {sorted(missing)}")
    return rend, check


def render_fact(f: dict) -> str:
    return _fields(f, FACTS, "fact")[0](f)


def render_entry(e: dict) -> str:
    return _fields(e, ENTRIES, "entry")[0](e)


def _checked(e: dict, table: dict, what: str) -> None:
    rend, check = _fields(e, table, what)
    if e.get("text") != rend(e):
        raise Failed(f"its text is not the statement its data say: {str(e.get('text'))[:80]!r} vs {rend(e)[:80]!r}")
    check(e)


def check_entry(e: object) -> str:
    """Verify one entry (Failed naming it, Undecided, or Malformed); returns its kind."""
    if not isinstance(e, dict):
        raise Malformed("an entry must be an object")
    name = str(e.get("name", "?"))[:200]
    try:
        if e.get("kind") == "step":
            facts = e.get("facts")
            if set(e) - {"kind", "name", "facts"} or not isinstance(facts, list):
                raise Malformed("a step is {name, kind: 'step', facts: [...]}")
            if not facts:
                raise Failed("a step with no facts: no evidence")
            for f in facts:
                _checked(f, FACTS, "fact")
        elif e.get("kind") == "uncertified":
            raise Undecided(str(e.get("why", "the prover exported no certificate for it"))[:200])
        else:
            _checked(e, ENTRIES, "entry")
    except (Failed, Undecided, Malformed) as exc:
        raise type(exc)(f"{name}: {exc}") from None
    except (TypeError, KeyError, IndexError, AttributeError, ValueError, ArithmeticError, RecursionError) as exc:
        raise Malformed(f"{name}: malformed data ({type(exc).__name__}: {str(exc)[:80]})") from None  # never a traceback
    return str(e["kind"])


# ------------------------------------------------------------------------------ witness balls

def _dyadic(text: object) -> Fraction:
    x = rational(text)
    if x.denominator & (x.denominator - 1):
        raise Malformed(f"not a dyadic rational: {str(text)[:40]}")
    return x


def _ball(b: object) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    """(re mid, re rad, im mid, im rad) of a complex ball {"re": [mid, rad], "im": [mid, rad]}."""
    if not (isinstance(b, dict) and all(isinstance(b.get(k), list) and len(b[k]) == 2 for k in ("re", "im"))):
        raise Malformed("a ball is {re: [mid, rad], im: [mid, rad]}")
    out = (_dyadic(b["re"][0]), _dyadic(b["re"][1]), _dyadic(b["im"][0]), _dyadic(b["im"][1]))
    if out[1] < 0 or out[3] < 0:
        raise Malformed("negative radius")
    return out


def check_point(pt: dict) -> None:
    """The recorded balls of lhs and rhs do not refute the obligation."""
    if not isinstance(pt, dict):
        raise Malformed("a witness point must be an object")
    name = str(pt.get("obligation", "?"))[:200]
    a, b = _ball(pt.get("lhs")), _ball(pt.get("rhs"))
    if pt.get("relation") == "<=":  # |lhs| <= Re rhs is possible: |lhs|_low**2 <= (Re rhs)_high**2, (Re rhs)_high >= 0
        lo = max(Fraction(0), abs(a[0]) - a[1]) ** 2 + max(Fraction(0), abs(a[2]) - a[3]) ** 2
        hi = b[0] + b[1]
        if hi < 0 or lo > hi * hi:
            raise Failed(f"witness of {name}: |lhs| > rhs certainly: the witness refutes it")
    elif abs(a[0] - b[0]) > a[1] + b[1] or abs(a[2] - b[2]) > a[3] + b[3]:
        raise Failed(f"witness of {name}: the balls of the two sides are disjoint: the witness refutes it")


# ------------------------------------------------------------------------------ files and directories

def _refuse_big_int(text: str) -> int:
    if len(text) > 24:
        raise Malformed(f"a JSON integer with {len(text)} digits (numbers are 'p/q' strings)")
    return int(text)


def _refuse(text: str) -> None:
    raise Malformed(f"a JSON float or constant {text[:20]!r} (numbers are exact 'p/q' strings)")


def read_file(path: str) -> bytes:
    """A regular file's bytes: opened O_NOFOLLOW | O_NONBLOCK (a link, a FIFO or a device is refused, never
    waited on), its size bounded before it is read."""
    name = os.path.basename(path)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        why = "a symbolic link (refused)" if os.path.islink(path) else exc.strerror or str(exc)
        raise Malformed(f"{name}: unreadable ({why})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Malformed(f"{name}: not a regular file (a FIFO, device or directory is refused)")
        if st.st_size > MAX_FILE_BYTES:
            raise Malformed(f"{name}: {st.st_size} bytes > {MAX_FILE_BYTES} (refused before parsing)")
        chunks, total = [], 0
        while total <= MAX_FILE_BYTES:
            b = os.read(fd, 1 << 20)
            if not b:
                break
            chunks.append(b)
            total += len(b)
        if total > MAX_FILE_BYTES:
            raise Malformed(f"{name}: grew past {MAX_FILE_BYTES} bytes while read")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _unique_keys(pairs: list) -> dict:
    """A JSON object whose keys are distinct: with a key twice, readers disagree on which value is the file's
    (Python keeps the last, others the first), so a certificate could show one statement and be checked on another."""
    out = dict(pairs)
    if len(out) != len(pairs):
        keys = [k for k, _ in pairs]
        twice = next(k for j, k in enumerate(keys) if k in keys[:j])
        raise Malformed(f"the key {str(twice)[:40]!r} appears twice in one object")
    return out


def parse(raw: bytes, name: str) -> object:
    try:
        return json.loads(raw.decode("utf-8"), parse_int=_refuse_big_int, parse_float=_refuse, parse_constant=_refuse,
                          object_pairs_hook=_unique_keys)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, ValueError) as exc:
        if isinstance(exc, Malformed):
            raise Malformed(f"{name}: {exc}") from None
        raise Malformed(f"{name}: unreadable ({type(exc).__name__}: {str(exc)[:80]})") from None


DOC_FIELDS = {"schema", "theorem", "status", "decided", "syntactic", "entries", "witness", "about", "trusted"}
# What a certificate says is not certified (written by the prover, required here word for word: a certificate
# that drops it claims more than its entries show)
TRUSTED = (("that the entries are the theorem's obligations and steps and together prove its statement (the "
            "proof's structure: which statements a theorem needs, each entry's name and the 'about' description "
            "are the prover's)"),
           "the axioms the result names (AX-CHARACTERS, AX-PI-IRRATIONAL, AX-EXP-KERNEL, AX-PI-GT-3, RULE-FLOOR)",
           "entries of kind 'uncertified' (none in the suite: counted, never verified)")


def check_file(path: str, theorem: str) -> dict:
    """Verify one theorem's certificate file: {theorem, file, verified, undecided, failures, by_kind, ...}."""
    name = os.path.basename(path)
    raw = read_file(path)
    doc = parse(raw, name)
    _Budget.nodes = 0
    if not (isinstance(doc, dict) and doc.get("schema") == SCHEMA and isinstance(doc.get("entries"), list)):
        raise Malformed(f"{name}: not a {SCHEMA} certificate")
    out: dict[str, Any] = {"theorem": theorem, "file": name, "verified": 0, "undecided": [], "failures": [], "by_kind": {},
           "facts": {}, "sha256": hashlib.sha256(raw).hexdigest()}
    fail = out["failures"].append
    if doc.get("theorem") != theorem:
        fail(f"{name}: holds the certificate of {str(doc.get('theorem'))[:40]!r}, not of {theorem}")
    if set(doc) - DOC_FIELDS:
        fail(f"{name}: unknown field(s) {sorted(set(doc) - DOC_FIELDS)[:5]}")
    if doc.get("status") != "proven":
        fail(f"{name}: the theorem is {str(doc.get('status'))[:40]!r}, not proven")
    if doc.get("trusted") != list(TRUSTED):
        fail(f"{name}: its 'trusted' list is not the one every certificate carries (what is not certified, word for word)")
    if not doc["entries"]:
        fail(f"{name}: no entries: nothing is certified")
    if doc.get("decided") != len(doc["entries"]):
        fail(f"{name}: {len(doc['entries'])} entries for {str(doc.get('decided'))[:20]} decided statements")
    for e in doc["entries"]:
        _count_entry(e, out, name)
    _check_witness(doc, out, name)
    return out


def _count_entry(e: object, out: dict, name: str) -> None:
    try:
        kind = check_entry(e)
    except Failed as exc:
        out["failures"].append(f"{name} / {exc}")
        return
    except Undecided as exc:
        out["undecided"].append(f"{name} / {exc}")
        return
    except Malformed as exc:
        raise Malformed(f"{name} / {exc}") from None
    out["verified"] += 1
    out["by_kind"][kind] = out["by_kind"].get(kind, 0) + 1
    for f in e.get("facts", []) if kind == "step" and isinstance(e, dict) else []:
        out["facts"][f["kind"]] = out["facts"].get(f["kind"], 0) + 1


def _check_witness(doc: dict, out: dict, name: str) -> None:
    names = {str(x) for x in doc.get("syntactic", [])} if isinstance(doc.get("syntactic"), list) else set()
    names |= {str(e.get("name")) for e in doc["entries"] if isinstance(e, dict)}
    wit = doc.get("witness")
    points = wit.get("points", []) if isinstance(wit, dict) else []
    if not isinstance(points, list):
        raise Malformed(f"{name}: witness points must be a list")
    for pt in points:
        try:
            check_point(pt)
            if str(pt.get("obligation")) not in names:
                raise Failed(f"witness names an obligation not in the certificate: {str(pt.get('obligation'))[:80]}")
        except Failed as exc:
            out["failures"].append(f"{name} / {exc}")
        except Malformed as exc:
            raise Malformed(f"{name} / {exc}") from None
    out["witness_points"] = len(points)


def expected_theorems(only: list[str] | None) -> list[str]:
    """The suite's theorems, or those of ``--only`` (each a theorem of the suite, no repeats)."""
    if not only:
        return list(SUITE)
    bad = [t for t in only if t not in SUITE]
    if bad or len(set(only)) != len(only):
        raise Malformed(f"--only: {', '.join(bad) or 'a repeated ID'} (known: {', '.join(SUITE)})")
    return list(only)


def _check_index(path: str, expected: list[str]) -> tuple[list[str], list[str]]:
    """(problems, the listed theorems): the index must list exactly ``expected``, each as <ID>.json."""
    index = parse(read_file(os.path.join(path, INDEX)), INDEX)
    if not (isinstance(index, dict) and index.get("schema") == SCHEMA and isinstance(index.get("theorems"), list)
            and isinstance(index.get("files"), list) and len(index["theorems"]) <= 4 * len(SUITE)):
        raise Malformed(f"{INDEX}: not a {SCHEMA} index")
    listed = [str(t)[:40] for t in index["theorems"]]
    problems = [f"{INDEX}: lists {t}, not a theorem of the suite" for t in listed if t not in SUITE]
    problems += [f"{INDEX}: lists {t}, which --only did not name" for t in listed if t in SUITE and t not in expected]
    problems += [f"{INDEX}: {t} is missing" for t in expected if t not in listed]
    if len(set(listed)) != len(listed):
        problems.append(f"{INDEX}: a theorem is listed twice")
    if index["files"] != [f"{t}.json" for t in index["theorems"]]:
        problems.append(f"{INDEX}: its files are not <ID>.json of its theorems, in order")
    return problems, listed


def check_directory(path: str, only: list[str] | None = None) -> tuple[int, list[dict], list[str]]:
    """(exit code, per-file reports, problems): the index lists exactly the expected theorems, each file
    holds the certificate of its own theorem and every entry verifies."""
    try:
        expected = expected_theorems(only)
        if not os.path.isdir(path):
            raise Malformed(f"{path}: not a directory")
        problems, listed = _check_index(path, expected)
        reports = [check_file(os.path.join(path, f"{t}.json"), t) for t in expected if t in listed]
    except Malformed as exc:
        return 2, [], [str(exc)]
    problems += [f for r in reports for f in r["failures"]]
    code = 1 if problems else 3 if any(r["undecided"] for r in reports) else 0
    return code, reports, problems


def report_lines(code: int, reports: list[dict], problems: list[str]) -> list[str]:
    lines = [f"{r['theorem']:<14} {r['verified']:>4} verified, {len(r['undecided']):>3} undecided, {len(r['failures'])} failed, "
             f"{r['witness_points']} witness points  sha256 {r['sha256'][:16]}" for r in reports]
    lines += [f"FAILED: {p}" for p in problems[:20]]
    lines += [f"UNDECIDED: {u}" for r in reports for u in r["undecided"]][:20]
    kinds: dict = {}
    for r in reports:
        for table in ("by_kind", "facts"):
            for k, v in r[table].items():
                kinds[(table, k)] = kinds.get((table, k), 0) + v
    by = ", ".join(f"{k} {v}" for (t, k), v in sorted(kinds.items()) if t == "by_kind")
    facts = ", ".join(f"{k} {v}" for (t, k), v in sorted(kinds.items()) if t == "facts")
    v, u = sum(r["verified"] for r in reports), sum(len(r["undecided"]) for r in reports)
    verdict = {0: "all verified", 1: "a certificate FAILS", 2: "unreadable input", 3: "verified, some entries undecided"}[code]
    lines.append(f"entries: {by or 'none'}; facts of the steps: {facts or 'none'}")
    lines.append(f"{v} verified, {u} undecided, {len(problems)} failed: {verdict}")
    return lines


def main(argv: list[str] | None = None) -> int:
    """``python certcheck.py DIR [--only ID,ID] [--json]``: exit 0 verified, 1 fails, 2 unreadable, 3 undecided."""
    args = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in args
    args = [a for a in args if a != "--json"]
    only = None
    if "--only" in args:
        i = args.index("--only")
        if i + 1 >= len(args):
            print("usage: certcheck.py DIR [--only ID,ID] [--json]", file=sys.stderr)
            return 2
        only = [s.strip() for s in args[i + 1].split(",") if s.strip()]
        del args[i:i + 2]
    if len(args) != 1:
        print("usage: certcheck.py DIR [--only ID,ID] [--json]", file=sys.stderr)
        return 2
    code, reports, problems = check_directory(args[0], only)
    if as_json:
        print(json.dumps({"exit": code, "files": reports, "problems": problems}, indent=2, sort_keys=True))
    elif code == 2:
        print(f"error: {problems[0]}", file=sys.stderr)
    else:
        print("\n".join(report_lines(code, reports, problems)))
    return code


if __name__ == "__main__":
    sys.exit(main())
