"""The bundled NumPy implementation (SPEC.md REQ-IMPL-EVAL): PE in float64 or float32, as a careful library writes it.

What "careful" means here (each point removes an error source the tiers would otherwise have to pay for):

- The column plan is :func:`sinpe.spec.definition.columns` (the one definition), turned into index arrays.
- Frequencies: ``g_k = sigma * w_k`` with ``w_k = base ** -exponent(P, d, k)`` from the spec's exact
  rational exponent, evaluated once per (profile, d) at 128 bits and rounded once to the working
  dtype (one rounding instead of the 10-20 u that ``exp(-k * log(b) / D)`` in the dtype costs).
- Positions are converted once to the working dtype: integers are exact up to 2^53 (float64) and 2^24
  (float32); nothing is cast through a narrower type.
- theta = (p + o) * g_k is one product in the working dtype; sin/cos are NumPy's; the amplitude is
  applied last. The working dtype is the requested one: a float32 table is computed in float32
  (that is what libraries ship, and what TOL-PHASE is sized for).

>>> from sinpe.spec.profiles import get_profile
>>> pe_table(get_profile("vaswani"), 4, [0, 1], "float64").tolist()
[[0.0, 1.0, 0.0, 1.0], [0.8414709848078965, 0.5403023058681398, 0.009999833334166664, 0.9999500004166653]]
>>> pe_table(get_profile("t2t"), 5, [2], "float32")     # [sin 2, sin 2e-4 | cos 2, cos 2e-4 | 0]
array([[ 9.092974e-01,  2.000000e-04, -4.161468e-01,  1.000000e+00,
         0.000000e+00]], dtype=float32)
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import mpmath
import numpy as np

from sinpe.reference.numerics.rounding import round_to_format
from sinpe.reference.oracles.mp import MP
from sinpe.spec.definition import column_data, columns, frequency
from sinpe.spec.formats import get_format
from sinpe.spec.profiles import Profile

NUMPY_DTYPES = ("float64", "float32")
_NP = {"float64": np.float64, "float32": np.float32}


@dataclass(frozen=True)
class EvalPlan:
    """Index arrays of the column plan: ``ks`` the frequencies used; sin columns ``sin_cols`` take
    frequency ``ks[sin_idx]``, likewise cos; every other column is identically zero."""

    ks: tuple[int, ...]
    sin_cols: np.ndarray
    sin_idx: np.ndarray
    cos_cols: np.ndarray
    cos_idx: np.ndarray


@lru_cache(maxsize=256)
def plan(profile: Profile, d: int) -> EvalPlan:
    """The column plan of DEF-LAYOUT/DEF-ODD as index arrays (cached per (profile, d)).

    >>> from sinpe.spec.profiles import get_profile
    >>> p = plan(get_profile("vaswani-concat"), 5)
    >>> p.ks, p.sin_cols.tolist(), p.cos_cols.tolist(), p.cos_idx.tolist()
    ((0, 1, 2), [0, 1, 2], [3, 4], [0, 1])
    """
    cols = columns(profile, d)
    ks = tuple(sorted({c.k for c in cols if c.kind != "zero"}))
    where = {k: i for i, k in enumerate(ks)}
    sc = [(j, where[c.k]) for j, c in enumerate(cols) if c.kind == "sin"]
    cc = [(j, where[c.k]) for j, c in enumerate(cols) if c.kind == "cos"]

    def arr(pairs: list[tuple[int, int]], i: int) -> np.ndarray:
        return np.array([t[i] for t in pairs], dtype=np.intp)
    return EvalPlan(ks, arr(sc, 0), arr(sc, 1), arr(cc, 0), arr(cc, 1))


@lru_cache(maxsize=256)
def scaled_frequencies(profile: Profile, d: int, fmt: str) -> tuple[float, ...]:
    """``RN_fmt(sigma * w_k)`` for the plan's ks: one rounding from a 128-bit value (REQ-IMPL-EVAL).

    >>> from sinpe.spec.profiles import get_profile
    >>> scaled_frequencies(get_profile("vaswani"), 4, "binary32") == (1.0, 0.009999999776482582)
    True
    """
    out = []
    with mpmath.workprec(128):
        for k in plan(profile, d).ks:
            g = MP.num(profile.phase_scale) * frequency(column_data(profile, d), k, MP)
            out.append(round_to_format(g, fmt))
    return tuple(out)


@lru_cache(maxsize=256)
def constant(x: Fraction, fmt: str) -> float:
    """RN_fmt(x) for an exact rational parameter (offset, amplitude): one rounding, never via float64.

    >>> constant(Fraction(1, 10), "binary32") == float(np.float32(0.1))
    True
    """
    with mpmath.workprec(max(128, 2 * (x.numerator.bit_length() + x.denominator.bit_length()))):
        return round_to_format(mpmath.mpf(x.numerator) / x.denominator, fmt)


def as_positions(positions: Any) -> np.ndarray:
    """Positions as a 1-D array of numbers (ints kept as ints, Fractions as their nearest float64).

    >>> as_positions([0, 1, 2]).dtype.kind, as_positions([Fraction(5, 2)]).tolist()
    ('i', [2.5])
    >>> as_positions([[1, 2]])
    Traceback (most recent call last):
    ...
    ValueError: positions must be a 1-D array of numbers; got shape (1, 2)
    """
    if hasattr(positions, "detach"):  # a torch tensor
        positions = positions.detach().cpu().numpy()
    a = np.asarray(positions)
    if a.dtype.kind == "O":
        try:
            a = np.array([float(x) if isinstance(x, Fraction) else x for x in a.ravel()]).reshape(a.shape)
        except (TypeError, ValueError):
            raise ValueError("positions must be numbers") from None
    if a.ndim != 1:
        raise ValueError(f"positions must be a 1-D array of numbers; got shape {a.shape}")
    if a.dtype.kind not in "iuf":
        raise ValueError(f"positions must be numbers; got dtype {a.dtype}")
    if a.dtype.kind == "f" and not np.all(np.isfinite(a)):
        raise ValueError("positions must be finite")
    return a


def _as_slice(ix: np.ndarray) -> slice | None:
    """``ix`` as a slice when it is an arithmetic progression with positive step (views, not copies)."""
    if ix.size == 1:
        return slice(int(ix[0]), int(ix[0]) + 1)
    step = int(ix[1] - ix[0])
    if step > 0 and np.array_equal(ix, np.arange(ix[0], ix[0] + step * ix.size, step)):
        return slice(int(ix[0]), int(ix[0]) + step * (ix.size - 1) + 1, step)
    return None


def working_dtype(dtype: str) -> str:
    """The NumPy dtype name for ``dtype``; ValueError for one this implementation does not provide."""
    name = get_format(dtype).dtype
    if name not in NUMPY_DTYPES:
        raise ValueError(f"the NumPy implementation provides {', '.join(NUMPY_DTYPES)}; got {dtype!r} "
                         f"(float16/bfloat16: use sinpe.reference.implementations.torch_impl)")
    return name


def pe_table(profile: Profile, d: int, positions: Sequence[float] | np.ndarray,
             dtype: str = "float64") -> np.ndarray:
    """PE_profile(p)[j] for each position (rows) and column j < d (columns), computed in ``dtype``.

    Formula (DEF-FAMILY): ``alpha * f_j((p + o) * RN(sigma * w_k))`` with ``f_j`` in {sin, cos, 0}.
    Certified against the Arb oracle by :mod:`sinpe.reference.implementations.certify` (REQ-IMPL-TIER).
    """
    name = working_dtype(dtype)
    wd = _NP[name]
    pl = plan(profile, d)
    pos = as_positions(positions).astype(wd)  # one conversion: exact for representable positions
    out = np.zeros((pos.shape[0], d), dtype=wd)
    if not pl.ks:
        return out
    g = np.array(scaled_frequencies(profile, d, get_format(name).name), dtype=wd)
    fmt = get_format(name).name
    x = pos + wd(constant(profile.offset, fmt)) if profile.offset != 0 else pos
    theta = x[:, None] * g[None, :]
    for f, cols, idx in ((np.sin, pl.sin_cols, pl.sin_idx), (np.cos, pl.cos_cols, pl.cos_idx)):
        if not cols.size:
            continue
        cs, ks = _as_slice(cols), _as_slice(idx)
        if cs is not None and ks is not None:  # every layout: write in place through views (no copies)
            f(theta[:, ks], out=out[:, cs])
        else:
            out[:, cols] = f(theta[:, idx])
    if profile.amplitude != 1:
        out *= wd(constant(profile.amplitude, fmt))
    return out
