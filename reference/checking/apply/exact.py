"""The exact rotation of query/key vectors and its tolerance (SPEC.md DEF-ROPE-APPLY, TOL-APPLY).

A rotary profile (DEF-ROPE) at rotary dim r <= dim pairs channels (a_k, b_k), k < r/2 (``halves``:
(k, k + r/2); ``pairs`` and ``single``, the complex form: (2k, 2k + 1)) and rotates each pair by
theta = p * w_k, scaled by A (DEF-ROPE-SCALE):

    o_a = A (x_a cos theta - x_b sin theta),   o_b = A (x_b cos theta + x_a sin theta),

channels r..dim-1 pass through unchanged. :func:`exact_rotation` evaluates this in binary64 from
the float64 reference of :func:`sinpe.reference.oracles.angles.reference_f64` (every cos/sin within
``fast.error_bound``) and returns the binary64 evaluation's own error bound beside it;
:func:`allowed` is TOL-APPLY's per-entry bound for an evaluation in a working format.

>>> import numpy as np
>>> from sinpe.spec.rotary import get_rotary
>>> ang = angles(get_rotary("llama"), 4, [0, 1])
>>> x = np.zeros((1, 2, 6)); x[0, :, 0] = 1.0            # e_0 at positions 0 and 1, dim 6, r = 4
>>> o, err = exact_rotation(x, ang, "halves")
>>> o[0, 1].round(12).tolist()                         # (cos 1, 0, sin 1, 0, 0, 0): channel 0 pairs with 2
[0.540302305868, 0.0, 0.841470984808, 0.0, 0.0, 0.0]
>>> pairs_of("pairs", 4), pairs_of("halves", 4)
(([0, 2], [1, 3]), ([0, 1], [2, 3]))
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

from sinpe.reference.numerics.rounding import round_array
from sinpe.reference.oracles import fast as fastref
from sinpe.reference.oracles.angles import _at_prec, _Certified, _mid, reference_f64, rotary_plan
from sinpe.spec.definition import rotary_data
from sinpe.spec.formats import get_format
from sinpe.spec.rotary import RotaryProfile, attention_factor, frequencies
from sinpe.spec.tolerance import allowed_abs_error


@dataclass
class Angles:
    """cos/sin (with A) of every pair k at every position: arrays (seq, r/2), their float64 error, theta."""

    rp: RotaryProfile
    r: int
    positions: list[Any]     # ints, or a tuple of coordinates per row (DEF-ROPE-AXES)
    cos: np.ndarray
    sin: np.ndarray
    theta: np.ndarray
    err_cos: np.ndarray
    err_sin: np.ndarray
    amplitude: float
    omegas: np.ndarray


def angles(rp: RotaryProfile, r: int, positions: Sequence[Any]) -> Angles:
    """The reference cos/sin of each pair (the ``single`` layout of ``rp``: one column per frequency)."""
    single = rp.replace(layout="single")
    pos = [tuple(int(x) for x in p) if isinstance(p, (tuple, list, np.ndarray)) else int(p) for p in positions]
    out = {}
    for which in ("cos", "sin"):
        v, th = reference_f64(rotary_plan(single, r, pos, which))
        out[which] = (v, th, fastref.error_bound(v, np.nan_to_num(th)) + 2 * np.spacing(np.abs(v)))
    amp = float(_mid(_at_prec(lambda ctx: [_amp(rp, ctx)], 128)[0]))
    om = np.array([float(_mid(w)) for w in _at_prec(lambda ctx: frequencies(rp, r, ctx), 128)])
    return Angles(rp, r, pos, out["cos"][0], out["sin"][0], out["cos"][1], out["cos"][2], out["sin"][2], amp, om)


def _amp(rp: RotaryProfile, ctx: Any) -> Any:
    return attention_factor(rp, ctx)


def pairs_of(layout: str, r: int) -> tuple[list[int], list[int]]:
    """(a_k, b_k) of DEF-ROPE-APPLY: halves (k, k + r/2); pairs and single (2k, 2k + 1), read off the layout's
    column data (:func:`sinpe.spec.definition.rotary_data`: a_k holds its 'sin' member, b_k its partner)."""
    cd = rotary_data("pairs" if layout == "single" else layout, r)
    a, b = [0] * (r // 2), [0] * (r // 2)
    for j, (kind, k) in enumerate(zip(cd.kinds, cd.labels, strict=True)):
        if kind == "sin":
            partner = cd.partner[j]
            assert partner is not None  # (a rotary layout pairs every sin column with a cos one)
            a[k], b[k] = j, partner
    return a, b


def rotate(x: np.ndarray, c: np.ndarray, s: np.ndarray, a: Sequence[int], b: Sequence[int]) -> np.ndarray:
    """x (..., seq, dim) with pair (a_k, b_k) rotated by the angle whose A cos/A sin are c[:, k], s[:, k]."""
    out = np.array(x, dtype=np.float64, copy=True)
    xa, xb = x[..., a], x[..., b]
    out[..., a] = xa * c - xb * s
    out[..., b] = xb * c + xa * s
    return out


def exact_rotation(x: np.ndarray, ang: Angles, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """(o, e): the binary64 rotation of DEF-ROPE-APPLY and a bound e on |o - exact| per entry."""
    a, b = pairs_of(layout, ang.r)
    o = rotate(x, ang.cos, ang.sin, a, b)
    e = np.zeros_like(o)
    xa, xb = np.abs(x[..., a]), np.abs(x[..., b])
    g = 4 * 2.0 ** -53  # two products and a sum in binary64, with margin
    mag_a = xa * np.abs(ang.cos) + xb * np.abs(ang.sin)
    mag_b = xb * np.abs(ang.cos) + xa * np.abs(ang.sin)
    e[..., a] = xa * ang.err_cos + xb * ang.err_sin + g * mag_a
    e[..., b] = xb * ang.err_cos + xa * ang.err_sin + g * mag_b
    return o, e


REFINE_PREC = 256        # bits of the enclosures that settle an entry the binary64 rotation leaves open
MAX_REFINED = 1 << 16    # entries refined per check (the rest stay undecided: inconclusive)


def refine(x: np.ndarray, ang: Angles, layout: str, y: np.ndarray, o: np.ndarray,
           which: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distance from y to the rotation of DEF-ROPE-APPLY at the entries ``which`` (a mask of o's shape),
    enclosed from certified A cos theta, A sin theta at REFINE_PREC bits (x and y are exact: binary64), so that
    an entry the binary64 rotation's own error left within reach of a float64 bound is decided: (refined mask,
    lower, upper) ends of |y - exact|; o takes the nearest binary64 of the exact value there. At most
    MAX_REFINED entries are refined (the rest stay undecided)."""

    a, b = pairs_of(layout, ang.r)
    single = ang.rp.replace(layout="single")
    cert = {w: _Certified(rotary_plan(single, ang.r, ang.positions, w)) for w in ("cos", "sin")}
    cs: dict[tuple[int, int], tuple[Any, Any]] = {}
    partner = {**{ai: (bi, k, True) for k, (ai, bi) in enumerate(zip(a, b, strict=True))},
               **{bi: (ai, k, False) for k, (ai, bi) in enumerate(zip(a, b, strict=True))}}
    idx = [i for i in zip(*np.nonzero(which), strict=True) if int(i[-1]) in partner][:MAX_REFINED]
    done, lo, hi = np.zeros(o.shape, dtype=bool), np.zeros(o.shape), np.zeros(o.shape)
    old = mpmath.iv.prec
    mpmath.iv.prec = REFINE_PREC
    try:
        for i in idx:
            row, ch = int(i[-2]), int(i[-1])
            other, k, is_a = partner[ch]
            if (row, k) not in cs:
                cs[(row, k)] = tuple(mpmath.iv.mpf(list(cert[w].enclose(row, k, REFINE_PREC))) for w in ("cos", "sin"))
            c, s = cs[(row, k)]
            xs, xo = mpmath.iv.mpf(float(x[i])), mpmath.iv.mpf(float(x[i[:-1] + (other,)]))
            v = xs * c - xo * s if is_a else xs * c + xo * s
            dist = abs(mpmath.iv.mpf(float(y[i])) - v)
            o[i] = float(v.mid)
            done[i], lo[i], hi[i] = True, _down(dist.a), _up(dist.b)
    finally:
        mpmath.iv.prec = old
    return done, lo, hi


def _down(v: Any) -> float:
    f = float(v)
    return f if f <= v else float(np.nextafter(f, -np.inf))


def _up(v: Any) -> float:
    f = float(v)
    return f if f >= v else float(np.nextafter(f, np.inf))


def cache_error(ang: Angles, fmt: str, supplied: bool, cache_working: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """TOL-APPLY's e_c, e_s per (seq, k): a supplied cache is RN_F(A cos theta) (half an ulp of F); a cache
    the function computes is held to TOL-WORKING's phase bound in F computed in ``cache_working``."""
    out = []
    for v in (ang.cos, ang.sin):
        if supplied:
            out.append(allowed_abs_error("exact", fmt, v, ang.theta))
        else:
            out.append(allowed_abs_error("phase", fmt, v, ang.theta, ang.amplitude, base=float(ang.rp.base),
                                         working=cache_working))
    return out[0], out[1]


def allowed(x: np.ndarray, ang: Angles, layout: str, dtype: str, e_c: np.ndarray, e_s: np.ndarray) -> np.ndarray:
    """TOL-APPLY per entry of the rotated x (..., seq, dim) in working format ``dtype``:
    |x_a| (e_c + g |c^|) + |x_b| (e_s + g |s^|) (and the mirror for b), g = gamma_2 of ``dtype``, |c^| <= |A cos| + e_c;
    0 on pass-through channels (they must come back unchanged)."""
    u = get_format(dtype).unit_roundoff
    g = 2 * u / (1 - 2 * u)
    a, b = pairs_of(layout, ang.r)
    xa, xb = np.abs(x[..., a]), np.abs(x[..., b])
    tc = e_c + g * (np.abs(ang.cos) + e_c)
    ts = e_s + g * (np.abs(ang.sin) + e_s)
    out = np.zeros(x.shape)
    out[..., a] = xa * tc + xb * ts
    out[..., b] = xb * tc + xa * ts
    return out


def round_to(x: np.ndarray, dtype: str) -> np.ndarray:
    """x rounded to ``dtype`` as torch casts a float64 tensor (round to nearest even; to float16 and bfloat16
    through float32, a double rounding), as float64 -- without importing torch."""
    x = np.array(x, dtype=np.float64)
    if dtype == "float64":
        return x
    with np.errstate(over="ignore"):
        return round_array(x.astype(np.float32).astype(np.float64), dtype)


def reach(x: np.ndarray, ang: Angles, layout: str) -> np.ndarray:
    """A (|x_a| + |x_b|) per rotated entry (every value a rotation can give lies within it), |x| elsewhere."""
    a, b = pairs_of(layout, ang.r)
    out = np.abs(np.array(x, dtype=np.float64))
    s = ang.amplitude * (np.abs(x[..., a]) + np.abs(x[..., b]))
    out[..., a] = s
    out[..., b] = s
    return out
