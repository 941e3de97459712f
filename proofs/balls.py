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

from .evidence import records

_FUNCS = {"sin": lambda x: flint.arb(x).sin(), "cos": lambda x: flint.arb(x).cos(), "pi": flint.arb.pi()}


def enclosure(e: sp.Expr) -> flint.arb:
    """A rigorous Arb ball containing the constant ``e`` (sin, cos, rationals, pi)."""
    e = sp.sympify(e)
    if e.free_symbols:
        raise ValueError(f"not a constant: {e}")
    rats = sorted((r for r in e.atoms(sp.Rational) if not r.is_Integer), key=sp.default_sort_key)
    syms = [sp.Dummy() for _ in rats]  # rationals enter as exact balls, not as binary floats
    f = sp.lambdify(syms, e.xreplace(dict(zip(rats, syms, strict=True))), modules=[_FUNCS])
    return flint.arb(f(*[flint.arb(int(r.p)) / int(r.q) for r in rats]))


@records("ball-sign", "expr")  # a certificate re-decides the sign with rational intervals (proofs/certcheck.py)
def certified_sign(e: sp.Expr) -> int | None:
    """+1 or -1 when the ball excludes 0, else None."""
    b = enclosure(e)
    return 1 if b > 0 else -1 if b < 0 else None


# ------------------------------------------------------------------------------ complex balls for claims

class NotEvaluable(ValueError):
    """The expression has a node the ball evaluator does not know, or a sum too long to expand."""


MAX_SUM_TERMS = 4096


def acb_value(e: sp.Expr, env: dict[sp.Symbol, flint.acb], prec: int = 200) -> flint.acb:
    """A rigorous complex ball (Arb ``acb``) containing the value of ``e`` at ``env``.

    Principal branches throughout (``log``, ``sqrt``, ``b**e = exp(e log b)``), as SymPy defines them.

    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> b = acb_value(sp.log(x**2) - 2*sp.log(x), {x: flint.acb(-1, 1)})
    >>> abs(b.imag) > 6   # log((-1+i)^2) - 2 log(-1+i) = -2 pi i: the branch cut, certified
    True
    """
    old = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        return _acb(sp.sympify(e), env)
    finally:
        flint.ctx.prec = old


def _acb(e: sp.Expr, env: dict) -> flint.acb:
    if e.is_Integer:
        return flint.acb(int(e))
    if e.is_Rational:
        return flint.acb(int(e.p)) / int(e.q)
    if e is sp.pi:
        return flint.acb(flint.arb.pi())
    if e is sp.E:
        return flint.acb(1).exp()
    if e is sp.I:
        return flint.acb(0, 1)
    if e.is_Symbol:
        if e not in env:
            raise NotEvaluable(f"no value for {e}")
        return env[e]
    if isinstance(e, sp.Add):
        out = flint.acb(0)
        for a in e.args:
            out += _acb(a, env)
        return out
    if isinstance(e, sp.Mul):
        out = flint.acb(1)
        for a in e.args:
            out *= _acb(a, env)
        return out
    if isinstance(e, sp.Pow):
        b, x = e.args
        if x.is_Integer:
            v = _acb(b, env)
            n = int(x)
            if abs(n) > 4096:
                raise NotEvaluable(f"integer power {n} too large")
            return v ** n
        return (_acb(x, env) * _acb(b, env).log()).exp() if b is not sp.E else _acb(x, env).exp()
    one = {sp.sin: "sin", sp.cos: "cos", sp.tan: "tan", sp.exp: "exp", sp.log: "log"}
    if e.func in one:
        return getattr(_acb(e.args[0], env), one[e.func])()
    if isinstance(e, sp.Abs):
        return flint.acb(abs(_acb(e.args[0], env)))
    if isinstance(e, sp.Sum):
        (j, lo, hi), = e.limits
        lo_v, hi_v = _acb(lo, env), _acb(hi, env)
        if not (lo_v.is_exact() and hi_v.is_exact() and lo_v.imag == 0 and hi_v.imag == 0):
            raise NotEvaluable("sum limits are not exact")
        a_z, b_z = lo_v.real.unique_fmpz(), hi_v.real.unique_fmpz()
        if a_z is None or b_z is None:
            raise NotEvaluable("sum limits are not integers")
        a, b = int(a_z), int(b_z)
        if b - a + 1 > MAX_SUM_TERMS:
            raise NotEvaluable(f"sum of {b - a + 1} terms")
        if b < a - 1:  # Karr's convention, as SymPy: sum_{a}^{b} = -sum_{b+1}^{a-1}
            a, b, sign = b + 1, a - 1, -1
        else:
            sign = 1
        out = flint.acb(0)
        for i in range(a, b + 1):
            out += _acb(e.function, {**env, j: flint.acb(i)})
        return sign * out
    raise NotEvaluable(f"cannot evaluate {e.func.__name__}")


# ------------------------------------------------------------------------------ points of a symbol's domain

_REAL = [sp.Rational(-7, 3), sp.Integer(-1), sp.Rational(-1, 2), sp.Integer(0), sp.Rational(1, 3), sp.Integer(1),
         sp.Rational(11, 7), sp.Rational(5, 2), sp.Integer(4)]
_COMPLEX = [sp.Integer(-2), sp.Integer(-1) + sp.I, sp.Rational(1, 2) - sp.Rational(3, 2) * sp.I, 2 * sp.I,
            sp.Rational(3, 2) + sp.I / 3, sp.Integer(-3) - sp.I / 2, sp.Integer(1), sp.Rational(-5, 2) + 3 * sp.I, 1 + 4 * sp.I, -sp.Rational(7, 2) * sp.I]


def candidates(s: sp.Symbol) -> list[sp.Expr]:
    """Exact values in the domain ``s``'s assumptions declare (integers, rationals, reals, imaginary and
    complex Gaussian rationals; 0 only where allowed): the points witnesses and refutations are drawn from."""
    if s.is_integer:
        base = [sp.Integer(v) for v in (-3, -1, 0, 1, 2, 3, 4, 7)]
    elif s.is_rational or s.is_real:
        base = list(_REAL)
    elif s.is_imaginary:
        return [sp.I * v for v in _REAL if v != 0]
    else:
        base = list(_COMPLEX) + list(_REAL[:3])
    keep = [v for v in base if all(getattr(v, f"is_{a}") is not False for a in
                                   ("positive", "nonnegative", "negative", "nonzero") if getattr(s, f"is_{a}"))
            and not (s.is_zero is False and v == 0)]
    return keep or [sp.Integer(1)]


def exact_ball(v: sp.Expr) -> flint.acb:
    """The exact complex ball of a Gaussian rational."""
    re_, im = v.as_real_imag()
    return flint.acb(flint.arb(int(re_.p)) / int(re_.q), flint.arb(int(im.p)) / int(im.q))
