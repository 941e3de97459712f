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


def ulp_array(x: np.ndarray, fmt: str | Format, out: np.ndarray | None = None) -> np.ndarray:
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


WORKING_CHOICES = ("native", "float32", "float64")


def working_format(dtype: str | Format, working: str | None = None) -> Format:
    """W of TOL-WORKING: the format a table in ``dtype`` was computed in before its one rounding to ``dtype``.

    ``None`` is the default: float32 for a float16/bfloat16 table (computed in float32 and cast once,
    as careful libraries and REQ-IMPL-LATE-CAST do), the table's own format otherwise; ``"native"`` is
    the table's own format. W is never narrower than the table's format.

    >>> [working_format(f).dtype for f in ("float16", "bfloat16", "float32", "float64")]
    ['float32', 'float32', 'float32', 'float64']
    >>> working_format("float16", "native").dtype, working_format("float32", "float64").dtype
    ('float16', 'float64')
    >>> working_format("float64", "float32")
    Traceback (most recent call last):
    ...
    ValueError: working precision float32 is narrower than the table's float64; a table is computed in a format at least as wide as its own
    """
    f = dtype if isinstance(dtype, Format) else get_format(dtype)
    if working is None:
        return get_format("float32") if f.precision < 24 else f
    if working == "native":
        return f
    if working not in WORKING_CHOICES:
        raise ValueError(f"unknown working precision {working!r}; use one of {', '.join(WORKING_CHOICES)}")
    w = get_format(working)
    if w.precision < f.precision:
        raise ValueError(f"working precision {w.dtype} is narrower than the table's {f.dtype}; a table is "
                         f"computed in a format at least as wide as its own")
    return w


def unjudged(allowed: np.ndarray, reference: np.ndarray, amplitude: float | np.ndarray = 1.0) -> np.ndarray:
    """Entries a bound cannot judge (REQ-CHECK-UNJUDGED): ``allowed >= |alpha| + |PE|``, so that every
    value in [-|alpha|, |alpha|] passes. The check could not have failed any in-range value there. ``amplitude``
    may be one per entry (broadcast: an amplitude that varies with the position).

    >>> unjudged(np.array([0.5, 1.6, 1.0]), np.array([0.9, 0.6, 0.0])).tolist()
    [False, True, True]
    """
    return np.asarray(allowed) >= _magnitude(amplitude) + np.abs(np.asarray(reference, dtype=np.float64))


def _magnitude(amplitude: float | np.ndarray) -> float | np.ndarray:
    """|alpha|: a float, or per entry (an array)."""
    return abs(float(amplitude)) if np.ndim(amplitude) == 0 else np.abs(np.asarray(amplitude, dtype=np.float64))


def allowed_abs_error(tier: str, dtype: str | Format, reference: np.ndarray, theta: np.ndarray | None,
                      amplitude: float | np.ndarray = 1.0, *, base: float = DEFAULT_BASE,
                      rounded_frequencies: bool = False, working: str | Format | None = "native",
                      out: np.ndarray | None = None) -> np.ndarray:
    """Per-entry bound on |y - PE| for ``tier`` in ``dtype`` (TOL-EXACT / TOL-FAITHFUL / TOL-PHASE).

    ``reference`` is PE (float64 or better; its binade picks the ulp), ``theta`` the phase argument
    sigma*(p+o)*w_k in float64, NaN for a column that is identically zero (its bound is the ulp one),
    ``amplitude`` the profile's alpha (or one per entry); ``base`` and ``rounded_frequencies`` select c (TOL-PHASE-C).
    Shapes broadcast. ``theta=None`` means every column is identically zero; ``out`` (float64, the
    reference's shape) receives the result in place.

    - ``exact``: ulp(PE)/2 (round to nearest; PE is transcendental off theta = 0, so no ties).
    - ``faithful``: ulp(PE).
    - ``phase``: max(ulp(PE), c*u*(1+|theta|)*|amplitude|) with u of the table's format when it was
      computed in it (``working="native"``, TOL-PHASE); when computed in a wider working format W
      (``working`` W, or None for :func:`working_format`'s default) and rounded once to the table's
      format F, max(ulp_F(PE), e + ulp_F(|PE| + e)/2) with e = c*u_W*(1+|theta|)*|amplitude|
      (TOL-WORKING).

    >>> e = allowed_abs_error("phase", "float16", np.array([0.75]), np.array([1000.0]), working="float32")
    >>> bool(e[0] == 2.0**-12 + allowed_abs_error("phase", "float32", np.array([0.76]), np.array([1000.0]))[0])
    True

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
    w = working if isinstance(working, Format) else working_format(f, working)
    k = phase_constant(f.dtype, base, rounded_frequencies) * w.unit_roundoff * _magnitude(amplitude)
    x = np.abs(np.asarray(theta, dtype=np.float64))
    shape = np.broadcast_shapes(x.shape, np.shape(reference))
    if u1.shape != shape:
        u1 = np.broadcast_to(u1, shape).copy()
    return phase_bound_into(np.broadcast_to(x, shape), k, k, reference, u1, f, w.precision > f.precision, u1)


def phase_bound_into(x: np.ndarray, rate: float | np.ndarray, const: float | np.ndarray, reference: np.ndarray,
                     ulp_f: np.ndarray, fmt: Format, wider: bool, out: np.ndarray,
                     tmp: np.ndarray | None = None) -> np.ndarray:
    """The one evaluation of TOL-PHASE / TOL-WORKING's bound, in place in ``out`` (``out`` may be ``ulp_f``):

        e = x * rate + const,   bound = max(ulp_F(PE), e [+ ulp_F(|PE| + e)/2 when W is wider than F]),

    with e = c u_W |alpha| (1 + |theta|) written as ``x = |theta|, rate = const = c u_W |alpha|`` by
    :func:`allowed_abs_error`, and as ``x = |p + o|, rate = c u_W |alpha| |w_j|, const = c u_W |alpha|``
    per column by the streaming checker (no theta table). NaN or -inf in ``rate``/``const`` (a zero column)
    leave ``ulp_f``.

    >>> phase_bound_into(np.array([1.0]), 2.0**-20, 2.0**-20, np.array([0.5]), np.array([2.0**-25]),
    ...                  get_format("float32"), False, np.empty(1)).tolist() == [2.0**-19]
    True
    """
    e = np.empty_like(out) if out is ulp_f else out
    with np.errstate(invalid="ignore"):  # 0 * -inf in zero columns at position 0
        np.multiply(x, rate, out=e)
    e += const
    if wider:  # computed in W, then one rounding to F: + ulp_F(|PE| + e)/2
        t = np.empty_like(e) if tmp is None else tmp
        np.abs(reference, out=t)
        t += np.maximum(np.nan_to_num(e, nan=0.0), 0.0)
        ulp_array(t, fmt, out=t)
        t *= 0.5
        with np.errstate(invalid="ignore"):
            e += t
    return np.fmax(ulp_f, e, out=out)  # fmax: NaN (zero column) leaves the ulp


def classify(slack: np.ndarray, margin: float | np.ndarray = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The one per-entry judgement (REQ-CHECK-CONFORM, REQ-CHECK-DECIDE): ``slack = |y - PE~| - allowed`` with
    PE~ a reference within ``margin`` of PE (a non-finite y has slack inf). Returns (fails, unsure): an entry
    fails when slack > margin (it fails whatever PE is within the margin), is unsure when |slack| <= margin
    (only a closer reference decides it: the oracles), and passes otherwise. With an exact reference
    (margin 0) an entry passes iff |y - PE| <= allowed. Works on float and on exact (Fraction) arrays.

    >>> f, u = classify(np.array([-1.0, -0.1, 0.0, 0.1, 1.0]), 0.2)
    >>> f.tolist(), u.tolist()
    ([False, False, False, False, True], [False, True, True, True, False])
    """
    fails = slack > margin
    unsure = slack >= -margin
    unsure &= ~fails
    return fails, unsure


# TOL-STRUCT. The structural checks (THM-SHIFT, THM-INJ between rows) compare the angle of a (sin, cos)
# column pair between two rows. Of the error sources counted in TOL-PHASE-C, those of omega_k and sigma
# are shared by every row of a column (the frequencies are computed once per column); only the three
# roundings of p + o, P * w and * sigma, and the value errors, differ from row to row.
ROW_THETA_ROUNDINGS = 3
SHARED_FREQ_ROUNDINGS = 2  # omega_k rounded (or exp's own error) and sigma rounded; + 3|ln b| when computed by exp


def angle_slack(theta_i: np.ndarray, theta_j: np.ndarray, dphase: np.ndarray, dtype: str | Format,
                working: str | Format | None = None, amplitude: float = 1.0, *,
                base: float = DEFAULT_BASE) -> np.ndarray:
    """Bound on |(phi_j - phi_i) - dphase| (mod 2 pi) for a conforming table (TOL-STRUCT), where phi is
    the angle atan2(y_sin, y_cos) of one (sin, cos) column pair in a row, theta the rows' exact phases
    and dphase = theta_j - theta_i their exact difference. inf where nothing can be said (>= 1 rad).

        slack = 1.01 u_W (3 (|theta_i| + |theta_j|) + (2 + 3|ln b|) |dphase|) + 2 a,
        a = (pi/2) delta / (|alpha| - delta),  delta = sqrt(2) (7.07 u_W |alpha| + [W wider] ulp_F(|alpha|)),

    a being the angle error of a pair whose two values are off by at most the value errors of
    TOL-PHASE-C step 4-5 (and the final rounding to F); 1.01 absorbs second-order terms.

    >>> s = angle_slack(np.array([2048.0]), np.array([2049.0]), np.array([1.0]), "float32")
    >>> bool(1e-4 < s[0] < 1e-3)
    True
    >>> angle_slack(np.array([2048.0]), np.array([2049.0]), np.array([1.0]), "float16", "native").tolist()
    [inf]
    """
    f = dtype if isinstance(dtype, Format) else get_format(dtype)
    w = working if isinstance(working, Format) else working_format(f, working)
    amp = abs(float(amplitude))
    u = w.unit_roundoff
    vf = (VALUE_ERROR_U * 1.01) * u * amp + (float(ulp_array(np.array([amp]), f)[0]) if w.precision > f.precision else 0.0)
    delta = math.sqrt(2.0) * vf
    a = math.inf if delta >= amp / 2 else (math.pi / 2) * delta / (amp - delta)
    shared = SHARED_FREQ_ROUNDINGS + FREQ_ARG_ROUNDINGS * abs(math.log(base))
    s = 1.01 * u * (ROW_THETA_ROUNDINGS * (np.abs(theta_i) + np.abs(theta_j)) + shared * np.abs(dphase)) + 2 * a
    s += 1e-12 + 2.0 ** -50 * np.abs(dphase)  # float64 evaluation of the angles and of dphase
    return np.where(s < 1.0, s, np.inf)


ULP_FLOOR = 2.0 ** -10  # ulp errors are measured at max(|PE|, |alpha| 2^-10) (REQ-CHECK-VERDICT)


def error_ulps(err: np.ndarray, reference: np.ndarray, fmt: str | Format,
               amplitude: float | np.ndarray = 1.0) -> np.ndarray:
    """|y - PE| in ulps of ``fmt`` at max(|PE|, |alpha| 2^-10): near a zero of sin or cos the ulp of PE
    itself (down to the least subnormal) is no useful unit, and a correct table would read 10^30 ulp.

    >>> error_ulps(np.array([2.0**-24, 2.0**-24]), np.array([0.75, 1e-30]), "float32").tolist()
    [1.0, 512.0]
    """
    scale = np.maximum(np.abs(np.asarray(reference, dtype=np.float64)), _magnitude(amplitude) * ULP_FLOOR)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(err, dtype=np.float64) / ulp_array(scale, fmt)
