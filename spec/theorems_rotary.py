"""Rotary theorems (SPEC.md THM-ROPE-REL, THM-ROPE-ATTN): statements built from :mod:`sinpe.spec.rotary`.

RoPE applies, at position p, ``x * cos_cache(p) + rot(x) * sin_cache(p)`` where the caches follow a
layout (DEF-ROPE-LAYOUT) and ``rot`` is the matching rotation (rotate-half for ``halves``,
rotate-every-two for ``pairs``). On each frequency this is the plane rotation R(p w_k); what makes
RoPE relative is that these rotations compose:

- THM-ROPE-REL: R(p w)^T R(q w) = R((q - p) w) for every frequency w (generic opaque omega);
- THM-ROPE-ATTN: <apply(x, p), apply(y, q)> = <x, apply(y, q - p)> for every layout at dim = 4 and 6
  with opaque frequencies omega_0, omega_1, omega_2 (so for every rule, scaling and base), the
  columns placed by :func:`sinpe.spec.rotary.frequency_index`.

>>> (claim,) = rel_obligations()
>>> claim.text(), len(claim.obligations())
('R(p omega)^T R(q omega) = R((q - p) omega)', 4)
>>> apply_rope([sp.Symbol("x0"), sp.Symbol("x1")], P, "pairs", 2)
[x0*cos(omega0*p) - x1*sin(omega0*p), x0*sin(omega0*p) + x1*cos(omega0*p)]
"""
from __future__ import annotations

from typing import Any

import sympy as sp

from .definition import rotary_pairs
from .rotary import frequency_index
from .theorems import STATEMENTS, Claim

P, Q = sp.symbols("p q", real=True)
OMEGA = sp.Symbol("omega", positive=True)
DIMS = (4, 6)

ROTARY_STATEMENTS: dict[str, str] = {i: STATEMENTS[i] for i in ("THM-ROPE-REL", "THM-ROPE-ATTN")}  # SPEC.md section 9


def _ob(name: str, lhs: Any, rhs: Any, rhs_says: str = "") -> Any:
    return Claim(name, lhs, rhs, "laurent", rhs_says=rhs_says)


def rotation(t: Any) -> sp.Matrix:
    return sp.Matrix([[sp.cos(t), -sp.sin(t)], [sp.sin(t), sp.cos(t)]])


def rel_obligations() -> list[Any]:
    """THM-ROPE-REL entrywise."""
    return [_ob("R(p omega)^T R(q omega)", rotation(P * OMEGA).T * rotation(Q * OMEGA), rotation((Q - P) * OMEGA),
                "R((q - p) omega)")]


def _partner(layout: str, dim: int, j: int) -> tuple[int, int]:
    """(index, sign) with rot(x)[j] = sign * x[index], read off the layout's channel plan: the other member
    of column j's pair (rotate-half for ``halves``, rotate-every-two for ``pairs``); the first member takes
    -x[second], the second +x[first]."""
    cols = rotary_pairs(layout).at(dim // 2)
    c = cols[j]
    other = next(i for i, o in enumerate(cols) if o.k == c.k and o.kind != c.kind)
    return other, (-1 if c.kind == "sin" else 1)


def apply_rope(x: list[Any], p: Any, layout: str, dim: int) -> list[Any]:
    """x * cos_cache(p) + rot(x) * sin_cache(p), frequencies the opaque omega_k of DEF-ROPE-LAYOUT's k."""
    w = [sp.Symbol(f"omega{k}", positive=True) for k in range(dim // 2)]
    out = []
    for j in range(dim):
        th = w[frequency_index(layout, dim, j)] * p
        i, s = _partner(layout, dim, j)
        out.append(x[j] * sp.cos(th) + s * x[i] * sp.sin(th))
    return out


def attn_obligations() -> list[Any]:
    """THM-ROPE-ATTN for both duplicated layouts at DIMS (the cross-check of the every-dim statement)."""
    out = []
    for layout in ("halves", "pairs"):
        for dim in DIMS:
            x = list(sp.symbols(f"x0:{dim}", real=True))
            y = list(sp.symbols(f"y0:{dim}", real=True))
            lhs = sum(a * b for a, b in zip(apply_rope(x, P, layout, dim), apply_rope(y, Q, layout, dim), strict=True))
            rhs = sum(a * b for a, b in zip(x, apply_rope(y, Q - P, layout, dim), strict=True))
            out.append(_ob(f"{layout} dim {dim}: <apply(x, p), apply(y, q)>", lhs, rhs, "<x, apply(y, q - p)>"))
    return out


def _apply_pair(first: Any, second: Any, t: Any) -> tuple[Any, Any]:
    """One rotated pair: (first cos t - second sin t, second cos t + first sin t), as apply_rope computes it."""
    return first * sp.cos(t) - second * sp.sin(t), second * sp.cos(t) + first * sp.sin(t)


def attn_pair_obligations() -> list[Any]:
    """THM-ROPE-ATTN for every dim: on one pair of the layout's plan, symbolic omega, p, q, x, y; the sum over
    the columns is the sum over the pairs because the plan is a bijection (THM-LIFT, RULE-REINDEX)."""
    x1, x2, y1, y2 = sp.symbols("x_first x_second y_first y_second", real=True)
    ap, aq, ad = _apply_pair(x1, x2, P * OMEGA), _apply_pair(y1, y2, Q * OMEGA), _apply_pair(y1, y2, (Q - P) * OMEGA)
    lhs = ap[0] * aq[0] + ap[1] * aq[1]
    rhs = x1 * ad[0] + x2 * ad[1]
    return [_ob("<R(p omega) x, R(q omega) y> on one rotated pair (x_first, x_second), (y_first, y_second)", lhs, rhs,
                "<x, R((q - p) omega) y>")]
