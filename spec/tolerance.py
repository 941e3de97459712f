"""Tolerance tiers (SPEC.md TOL-EXACT, TOL-FAITHFUL, TOL-PHASE, TOL-PHASE-C): how far a table in a dtype may be from PE.

``allowed_abs_error(tier, dtype, reference, theta, amplitude)`` is the per-entry bound on
``|y - PE|``; a table conforms to a tier when every entry is within it. The tiers nest:
exact (y = RN(PE), at most 1/2 ulp) inside faithful (at most 1 ulp) inside phase
(``c * u * (1 + |theta|) * |amplitude|``, never below 1 ulp). ``ulp`` is taken in the binade of
the exact value PE (DEF-FORMAT), ``u = 2^-precision`` is the dtype's unit roundoff.

The phase constant (TOL-PHASE-C) counts the error sources of the usual evaluation in the dtype
(SPEC.md section 2): ``c = c0 + c_w``. ``c0 = 8``: 5 relative roundings on theta (p+o, sigma, w_k,
two products) and at most 7 u on the value (library sin/cos 2 ulp <= 4 u, amplitude rounded and
applied 2 u, final cast u). ``c_w = 3 |ln b|``: a frequency computed in the dtype as
``exp(-k ln(b) / D)`` carries the rounding of its argument (up to 3 roundings of a number of size
up to |ln b|) amplified by exp; it is 0 when the frequencies are rounded once from the exact value.

>>> import numpy as np
>>> round(phase_constant("float32"), 3), phase_constant("float32", rounded_frequencies=True), TIERS
(35.631, 8.0, ('exact', 'faithful', 'phase'))
>>> ref, th = np.array([0.5, 1.0, 0.0]), np.array([0.5236, 0.0, np.nan])   # sin(pi/6), cos 0, a zero column
>>> allowed_abs_error("exact", "float32", ref, th).tolist() == [2.0**-25, 2.0**-24, 2.0**-150]
True
>>> allowed_abs_error("faithful", "bfloat16", ref, th).tolist() == [2.0**-8, 2.0**-7, 2.0**-133]
True
>>> float(allowed_abs_error("phase", "float32", np.array([0.0]), np.array([2048.0]), rounded_frequencies=True)[0])
0.0009770393371582031
"""
from __future__ import annotations

import math

import numpy as np

from .formats import Format, get_format

TIERS = ("exact", "faithful", "phase")

# TOL-PHASE-C. The same count applies to every binary format (the evaluation is the same sequence
# of operations; u carries the dtype); see SPEC.md section 2 for the derivation.
THETA_ROUNDINGS = 5      # p+o, sigma rounded, w_k rounded, (p+o)*w, *sigma: each <= u relative
VALUE_ERROR_U = 7        # sin/cos within 2 ulp (<= 4u), alpha rounded and *alpha (2u), final cast (u)
C0 = float(max(THETA_ROUNDINGS, VALUE_ERROR_U) + 1)   # 8: +1 absorbs the second-order terms (u <= 2^-8)
FREQ_ARG_ROUNDINGS = 3   # exp(fl(fl(-ln b * k) / D)): ln b, the product, the quotient
DEFAULT_BASE = 10000.0
# per-dtype unit roundoff u = 2^-precision (DEF-FORMAT)
UNIT_ROUNDOFF: dict[str, float] = {dt: get_format(dt).unit_roundoff for dt in ("float64", "float32", "float16", "bfloat16")}


def phase_constant(dtype: str, base: float = DEFAULT_BASE, rounded_frequencies: bool = False) -> float:
    """c of TOL-PHASE: ``8 + 3 |ln base|``, or 8 when the frequencies are rounded once from their exact values.

    ``dtype`` is ``float64``/``float32``/``float16``/``bfloat16`` or an alias (the count does not
    depend on it; u does). Valid for schedules with exponents k/D <= 1 (every preset, shift <= 1).

    >>> phase_constant("bf16", rounded_frequencies=True), round(phase_constant("float64", base=500), 3)
    (8.0, 26.644)
    """
    get_format(dtype)  # validates the name
    if base <= 0 or base == 1:
        raise ValueError(f"base must be positive and not 1; got {base}")
    return C0 if rounded_frequencies else C0 + FREQ_ARG_ROUNDINGS * abs(math.log(base))


def unit_roundoff(dtype: str) -> float:
    """u = 2^-precision (2^-53 for float64, 2^-24 float32, 2^-11 float16, 2^-8 bfloat16)."""
    return get_format(dtype).unit_roundoff


_EXP_MASK = np.int64(0x7FF0000000000000)


def ulp_array(x: np.ndarray, fmt: "str | Format", out: np.ndarray | None = None) -> np.ndarray:
    """ulp of ``fmt`` in the binade of each |x| (gradual underflow: min subnormal below 2^emin).

    The binade is read off the binary64 exponent bits (no frexp, no temporaries): ``out`` may be a
    preallocated float64 array of x's shape (the streaming checker reuses one per chunk).

    >>> ulp_array(np.array([1.0, 0.75, 0.0, 1e-6]), "float16").tolist() == [2.0**-10, 2.0**-11, 2.0**-24, 2.0**-24]
    True
    """
    f = fmt if isinstance(fmt, Format) else get_format(fmt)
    a = np.ascontiguousarray(x, dtype=np.float64)
    out = np.empty_like(a) if out is None else out
    np.bitwise_and(a.view(np.int64), _EXP_MASK, out=out.view(np.int64))  # 2^floor(log2|x|); 0 below 2^-1022
    out *= 2.0 ** (1 - f.precision)
    np.maximum(out, f.min_subnormal, out=out)  # the subnormal range of fmt (and x = 0)
    return out


def allowed_abs_error(tier: str, dtype: "str | Format", reference: np.ndarray, theta: np.ndarray | None,
                      amplitude: float = 1.0, *, base: float = DEFAULT_BASE,
                      rounded_frequencies: bool = False, out: np.ndarray | None = None) -> np.ndarray:
    """Per-entry bound on |y - PE| for ``tier`` in ``dtype`` (TOL-EXACT / TOL-FAITHFUL / TOL-PHASE).

    ``reference`` is PE (float64 or better; its binade picks the ulp), ``theta`` the phase argument
    sigma*(p+o)*w_k in float64, NaN for a column that is identically zero (its bound is the ulp one),
    ``amplitude`` the profile's alpha; ``base`` and ``rounded_frequencies`` select c (TOL-PHASE-C).
    Shapes broadcast. ``theta=None`` means every column is identically zero; ``out`` (float64, the
    reference's shape) receives the result in place.

    - ``exact``: ulp(PE)/2 (round to nearest; PE is transcendental off theta = 0, so no ties).
    - ``faithful``: ulp(PE).
    - ``phase``: max(ulp(PE), c*u*(1+|theta|)*|amplitude|).

    >>> b = allowed_abs_error("phase", "float64", np.array([0.3]), np.array([1e6]), rounded_frequencies=True)
    >>> bool(b[0] == 8 * 2.0**-53 * (1 + 1e6))
    True
    >>> allowed_abs_error("tight", "float64", np.array([0.3]), np.array([1.0]))
    Traceback (most recent call last):
    ...
    ValueError: unknown tolerance tier 'tight'; tiers: exact, faithful, phase
    """
    if tier not in TIERS:
        raise ValueError(f"unknown tolerance tier {tier!r}; tiers: {', '.join(TIERS)}")
    f = dtype if isinstance(dtype, Format) else get_format(dtype)
    u1 = ulp_array(reference, f, out)
    if tier == "exact":
        u1 *= 0.5
        return u1
    if tier == "faithful" or theta is None:
        return u1
    c = phase_constant(f.dtype, base, rounded_frequencies)
    bound = np.abs(np.asarray(theta, dtype=np.float64))
    bound += 1.0
    bound *= c * f.unit_roundoff  # ((c u) (1 + |theta|)) |alpha|
    if abs(float(amplitude)) != 1.0:
        bound *= abs(float(amplitude))
    if bound.shape == u1.shape:
        return np.fmax(u1, bound, out=u1)  # fmax: a NaN theta (zero column) leaves the ulp bound
    return np.fmax(u1, bound)
