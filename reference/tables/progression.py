"""Correctly rounded tables at positions in arithmetic progression, at torch speed (SPEC.md REQ-TABLE-FAST,
TOL-TABLE-BOUND).

A table's rows are nearly always p_i = p_0 + i h (integers; ``table(profile, d, n)`` is p_0 = 0, h = 1). The
phase theta_k(p) = sigma (p + o) w_k is linear in p, so with i = q L + l (0 <= l < L, L = ``LOW`` rows):

    z(p_i) = alpha e^{i theta_k(p_i)} = A(q) W(l),   A(q) = alpha e^{i theta_k(p_0 + q L h)},   W(l) = e^{i theta_k(l h)}

exactly (complex numbers s + i c written as pairs (sin, cos); the product is the angle-addition formula).
Each table entry is then one complex product of two double-double factors taken from small tables, not a
reduction and a polynomial: the per-entry work is a handful of passes, so an exact table costs about what
torch's own float32 table costs.

**Factors** (:func:`exact_rows`, :func:`powers`, :func:`dd_mul`, :func:`plain_mul`). A factor is a double-double
pair (sh + sl, ch + cl), |sl| <= u |sh|, |cl| <= u |ch| (u = 2^-53), with a bound ``err`` on the complex-norm
distance to the exact value and an upper bound ``mag`` on the exact value's modulus (1, or |alpha|):

* exact rows (:func:`exact_rows`, about 2^-99 + 2 pi 2^-100 (1 + |P| g_k)): the exact reduction of
  REQ-CHECK-FASTREF (x + y = P g_k mod 1 turns within 2^-100 (1 + |P| g_k)); n = rint(2^18 x), x' = x - n 2^-18
  (exact), (xs, ys) = TwoSum(x', y), so |xs| <= 2^-19 (1 + 2^-30), |ys| <= u |xs|; a = 2 pi n / 2^18 splits into
  two tables of 512 double-double pairs (2 pi n1 / 2^9 and 2 pi n2 / 2^18, each within 2^-106, mpmath at 256
  bits); r = 2 pi (xs + ys) = rh + rl within 2^-115, |r| <= RHO_F = pi 2^-18 (1 + 2^-30) < 2^-16.3, |rl| <= 2^-68.
  sin r = rh + (rl - rh^2 rl / 2 + rh z (C3 + C5 z)), z = fl(rh^2): truncation RHO_F^7/7! < 2^-126, the cubic and
  quintic in binary64 within 6 u RHO_F^3/6 < 2^-102, the tail's two additions within 2 u 2^-51.6 < 2^-103.6, the
  neglected rh rl^2 / 2 below 2^-150: < 2^-101.5. cos r = 1 - (p + e + 2 rh rl) / 2 + z^2 C4 with p + e = rh^2
  exact (Dekker): truncation RHO_F^6/6! < 2^-107.5, the rest < 2^-106: < 2^-105. So e^{i r} is within
  E_R = 2^-101, and e^{i (a + r)} = T1 * T2 * e^{i r} by two products (below); alpha is a third product
  (alpha_hi + alpha_lo within 2^-106 |alpha|).
* W(l) = e^{i theta(l h)} for l < L and J(j) = e^{i theta(j L h)} by doubling (:func:`powers`, kept between
  tables by :func:`step_powers`): X(0) = (0, 1) exactly, X[m:2m] = X[0:m] * e^{i theta(m h')}, the seeds
  e^{i theta(2^j h')} exact rows. A job of rows a..a + R takes A_0 = alpha e^{i theta(p_0 + a h + o)} (its seed;
  the seeds of consecutive jobs as one exact row times powers of e^{i theta(R h)}) and A(q) = A_0 * J(q).
* a product x * y (:func:`dd_mul`): s = xs yc + xc ys, c = xc yc - xs ys, each as x_h y_h + z_h w_h (two Dekker
  products, exact: the factors' 26-bit halves) summed by TwoSum into (h, e3), then the tail t = e3 + e1 + e2 +
  xs_h yc_l + xs_l yc_h + xc_h ys_l + xc_l ys_h (the two lo * lo terms dropped). With P = |xs_h yc_h| + |xc_h ys_h| <=
  M_x M_y (Cauchy-Schwarz, M the bounds on the hi words' modulus): |e1| + |e2| + |e3| <= 2 u P (1 + u)^2, the four
  cross terms sum to <= 2 u P and are each rounded (<= 2 u^2 P), the six additions of t each err by <= u 4.01 u P,
  the dropped terms are <= u^2 P: |h + t - (x y)_s| <= 27.1 u^2 P, so in complex norm (s and c) <= K_DD M_x M_y with
  K_DD = 48 u^2 (>= sqrt 2 * 27.1 u^2 with margin), plus 2^-1000 for underflow. The product's own bound: err = err_x (mag_y + err_y) + mag_x err_y + K_DD M_x M_y (|x~ y~ - x y| <=
  |x~ - x| |y~| + |x| |y~ - y|), times 1 + 2^-40 for its evaluation. TwoSum renormalises (exactly).
* for narrow targets A(q) = A_0 * J(q) from the hi words in binary64 (:func:`plain_mul`): each part within
  u (2 + u) M_x M_y of the product of the hi words (sqrt 2 of it in complex norm), which are within err + u M of the
  exact factors.

**Narrow targets** (binary32, binary16, bfloat16; :func:`narrow_block`). The estimate uses the hi words only:
S~ = fl(fl(As_h Wc_h) + fl(Ac_h Ws_h)), C~ = fl(fl(Ac_h Wc_h) - fl(As_h Ws_h)), taken as one complex product
(As_h + i Ac_h)(Wc_h - i Ws_h), whose memory is the (sin, cos) pairs of an interleaved table. NumPy may fuse one
product into the sum (fl(x + fl(y)) for x + y): the error is then u |y| + u |x + fl(y)|, within the same bound;
:func:`_complex_product_is_plain` checks once per process that NumPy's complex product takes one of these forms, and
the kernel multiplies the real parts itself where it does not. Dropping the lo words moves a factor by <= u M (so
err' = err + u M), the two products and the sum err by <= u (2 + u) M_A M_W, and

    |S~ - alpha sin theta| <= E = (u (2 + u) M_A M_W + err'_A (1 + err'_W) + mag_A err'_W) (1 + 2^-40) + 2^-1000

(the same for C~): an absolute bound, about 7 u |alpha| (measured error: 0.2 of E', tests/test_progression.py).

**Wide target** (binary64; :func:`wide_block`). Each factor's parts as x = x1 + x23 (:func:`wide_operands`: x1
the 26-bit high half of the hi word, x23 = fl(x2 + lo), within u |x2 + lo| <= 2^-78.99 |x_hi| of the double-double,
|x23| <= 2^-26 (1 + 2^-26) |x_hi|). s = As Wc + Ac Ws as h + t: (h, e) = TwoSum(As1 Wc1, Ac1 Ws1) (both products
exact, 26 + 26 bits), t = e + As1 Wc23 + As23 Wc1 + As23 Wc23 + Ac1 Ws23 + Ac23 Ws1 + Ac23 Ws23 (c likewise), the
exact expansion of (A1 + A23)(W1 + W23). With P = |As_h Wc_h| + |Ac_h Ws_h| <= M_A M_W: the six products are at
most 2^-25 (1.0001) P + 2^-52 (1.0002) P and each rounds by u of itself (<= 2^-78 P); the six additions of t, each
partial sum below 2^-24.99 P, by <= 6 u 2^-24.99 P = 2^-75.4 P; the factors' representation by <= 2 2^-78.99 P:
2^-75.0 P in all, so K_W = 2^-74 and |t| <= T_W P, T_W = 2^-24.9. Then h + t is within
E = (K_W M_A M_W + err_A (1 + err_W) + mag_A err_W) (1 + 2^-40) + 2^-1000 of alpha sin theta, about 2^-74 |alpha|:
enough to decide all but about 10^-6 of the binary64 entries (the rest: the refinement below).

**Decision** (:func:`decide`; monotonicity of rounding, no case analysis). The exact value x lies in [v - E, v + E]
(narrow: v = S~; wide: v = h + t, the interval [h + t - E, h + t + E]). With lo <= v - E and hi >= v + E two
binary64 numbers, RN_F(lo) <= RN_F(x) <= RN_F(hi) because RN_F is non-decreasing; when RN_F(lo) and RN_F(hi)
have the same bits (so even -0 and +0 differ), that is RN_F(x). lo and hi are computed: narrow lo = fl(v - E'),
wide lo = fl(h + fl(t - E')), with E' = (E + u (X + 2 E)) (1 + 2^-40) and X >= |v| (narrow) or |t| (wide), so that
the rounding of the subtraction cannot carry lo above v - E; RN_F(fl(...)) is the cast of NumPy (binary32,
binary16: one IEEE rounding of a binary64 value, the cast's single rounding checked once per process by
:func:`_cast_is_single_rounding`) or, for binary64, fl itself. bfloat16 is RN_bf16 of the binary32 RN_32(lo):
equal to RN_bf16(x) unless RN_32(lo) is a bfloat16 midpoint m (the only case where rounding twice differs); RN_bf16
of a binary32 is (b + 0x7FFF + (b >> 16 & 1)) & 0xFFFF0000 on its bits, exact for every finite binary32
(subnormals too: bfloat16 is binary32's top half). At a midpoint (about 2^-16 of the entries) the binary64 ends
decide (:func:`round_exact`: RN_32(y) = m means y lies within half a binary32 ulp of m, so |y| > |m| rounds away
from zero, |y| < |m| toward it, y = m to even). An estimate that could overflow the format is never taken: tables
whose |alpha| reaches half the largest finite value go to the general kernels.

**Refinement** (:meth:`Progression._refine`). A block's undecided entries (about 10^-7 of the binary32 entries,
10^-6 of the binary64 ones) are recomputed from their factors in double-double, A_0 J(q) W(l) by two
:func:`dd_mul` (within about 2^-95 |alpha|), and decided from h + fl(t -+ E') by :func:`decide_sparse` (the same
monotonicity, :func:`round_exact`). The sin entries of a row at P = 0 are not refined: their interval holds both
signs of zero, and theta = 0 there, so they are set to alpha sin 0 = +0.0 exactly (:meth:`Progression._exact_zero`).
What the refinement leaves undecided (none of the tables in tests/test_progression.py) is recomputed by the
general path (rounded.py, then the certified oracle), whole rows at a time (``build.settle_rows``).

Cost per entry (narrow): one complex product per (sin, cos) pair, then two casts and a comparison per entry, the
lower cast written straight into the table where its columns are slices (sin and cos interleaved: one pass over
both): about 2-3 ns per entry on one core, against about 25 for rounded.py's kernels.

>>> import numpy as np
>>> from sinpe.reference.tables import build
>>> pl = build.resolve("vaswani", 8, "float32", {})
>>> pr = Progression(pl, 0, 1, 4)
>>> out = np.empty((4, 8), np.float32)
>>> sorted(pr.fill(out, 0, 4))   # every row decided (at position 0, sin 0 is exactly +0.0)
[]
>>> out[1, :2].tolist()   # sin 1, cos 1 in binary32 (as rounded.py's doctest)
[0.8414709568023682, 0.5403022766113281]
"""
from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache
from typing import Any

import numpy as np

from sinpe.reference.oracles import fast
from sinpe.reference.tables import rounded
from sinpe.reference.tables.constants import FINE_BITS, fine_tables
from sinpe.spec.definition import ColumnData
from sinpe.spec.formats import Format

U = 2.0 ** -53
SAFE = 1 + 2.0 ** -40
TINY = 2.0 ** -1000
K_DD = 48 * U * U
K_W = 2.0 ** -74      # the wide top level's rounding (module docstring, wide target)
T_W = 2.0 ** -24.9
LOW = 64              # L: rows of the low table W; also the granularity of the jobs
JOB_ROWS = 4096       # rows of one job (one exact row per job; table() runs jobs on threads)
BLOCK = 1 << 15       # entries per top-level block (q rows x L x columns); threads take twice as many
COLS = 512            # frequencies per column chunk (a block of LOW x COLS entries stays in L2)
MAX_FREQS = 4096      # wider tables (the factor tables would pass 24 MiB) take the general kernels
MIN_ROWS = 16         # shorter progressions take the general kernels (the factor tables cost more than they save)
AMPLITUDE_RANGE = (2.0 ** -500, 2.0 ** 500)  # no underflow in the exact products, no overflow in the bounds


@dataclass
class Turns:
    """alpha' e^{i theta} as double-double pairs (sh + sl, ch + cl), arrays of one shape; the exact value is within
    ``err`` (complex norm) and has modulus ``mag`` (an upper bound)."""

    sh: np.ndarray
    sl: np.ndarray
    ch: np.ndarray
    cl: np.ndarray
    err: float
    mag: float

    @property
    def hi_mag(self) -> float:
        """A bound on the modulus of (sh, ch): |(sh, ch)| <= |(s, c)| (1 + u) <= (mag + err) (1 + u)."""
        return (self.mag + self.err) * (1 + 4 * U)

    def rows(self, a: int, b: int) -> Turns:
        return Turns(self.sh[a:b], self.sl[a:b], self.ch[a:b], self.cl[a:b], self.err, self.mag)

    def expand(self) -> Turns:
        """The same values with a new axis 1 (rows, 1, cols): a factor broadcast over the low table."""
        return Turns(self.sh[:, None], self.sl[:, None], self.ch[:, None], self.cl[:, None], self.err, self.mag)


def detect(positions: Any) -> tuple[int, int] | None:
    """``(p_0, h)`` when ``positions`` (a float64/int array) are the integers p_0 + i h, all of magnitude < 2^53,
    else None.

    >>> detect(np.arange(5.0)), detect(np.array([3, 1, -1])), detect(np.array([0.0, 0.5, 1.0])), detect(np.array([0, 1, 3]))
    ((0, 1), (3, -2), None, None)
    """
    if not isinstance(positions, np.ndarray) or positions.dtype.kind not in "fiu" or positions.ndim != 1:
        return None
    n = positions.shape[0]
    if n == 0:
        return None
    p = positions.astype(np.float64)
    if not (np.all(np.isfinite(p)) and float(np.max(np.abs(p))) < 2.0 ** 53 and np.all(p == np.rint(p))):
        return None
    p0, h = int(p[0]), int(p[1] - p[0]) if n > 1 else 1
    if abs(h) * n >= 2 ** 53:
        return None
    if positions.dtype.kind in "iu" and np.any(p.astype(positions.dtype) != positions):
        return None
    if n > 1 and not np.array_equal(p, p0 + h * np.arange(n, dtype=np.float64)):  # exact: integers below 2^53
        return None
    return p0, h


def detect_exact(values: list[Fraction]) -> tuple[int, int] | None:
    """:func:`detect` for a list of exact positions (Fractions)."""
    if not values or any(v.denominator != 1 for v in values):
        return None
    arr = np.array([float(v) for v in values])
    if any(Fraction(float(v)) != v for v in values):
        return None
    return detect(arr)


def applies(pl: rounded.Plan, n: int) -> bool:
    """Whether a progression of n rows takes this path: enough rows, not too wide, an amplitude in range, and a
    format whose cast this process rounds once (:func:`decide`)."""
    a = abs(pl.a_hi)
    return (n >= MIN_ROWS and 0 < pl.nf <= MAX_FREQS and AMPLITUDE_RANGE[0] < a < AMPLITUDE_RANGE[1]
            and _cast_is_single_rounding(pl.fmt.name) and _headroom(pl))


def _headroom(pl: rounded.Plan) -> bool:
    """No estimate can reach the format's largest finite value (|alpha| (1 + 2^-20) < max_finite / 2)."""
    return abs(pl.a_hi) * (1 + 2.0 ** -20) < pl.fmt.max_finite / 2


def _subtract_cast(x: np.ndarray, dt: Any) -> np.ndarray:
    got = np.empty(x.shape, dt)
    np.subtract(x, 0.0, out=got, casting="same_kind")  # the cast path decide() uses
    return got


@cache
def _cast_is_single_rounding(name: str) -> bool:
    """:func:`cast_probe` with NumPy's own cast in this process (binary64 needs no cast)."""
    return name == "binary64" or cast_probe(name, _subtract_cast)


def cast_probe(name: str, cast: Any) -> bool:
    """Whether ``cast(x, dtype)`` rounds binary64 values once, to nearest even, into binary32 / binary16 (bfloat16:
    binary32): on values whose rounding twice through a wider format would differ, ties both ways, signs, and
    subnormals."""
    dt = np.float16 if name == "binary16" else np.float32
    p = {np.float32: 24, np.float16: 11}[dt]
    tiny, e = float(np.finfo(dt).smallest_subnormal), 2.0 ** -(p + 20)  # 1 + 2^-p: the midpoint above 1
    x = np.array([1 + 2.0 ** -p + e, 1 + 2.0 ** -p - e, 1 + 2.0 ** -p, 1 + 3 * 2.0 ** -p, -(1 + 2.0 ** -p + e),
                  tiny * 1.5, tiny * 0.5 * (1 + e), tiny * 0.5, -tiny * 0.25] * 8)
    want = np.array([1 + 2.0 ** (1 - p), 1.0, 1.0, 1 + 2.0 ** (2 - p), -(1 + 2.0 ** (1 - p)), 2 * tiny, tiny, 0.0,
                     -0.0] * 8)
    got = cast(x, dt)
    return bool(np.array_equal(np.asarray(got).astype(np.float64).view(np.int64), want.view(np.int64)))


# --- factors --------------------------------------------------------------------------------------------------

def _halves(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    hi, lo = np.empty_like(x), np.empty_like(x)
    fast.split_into(x, hi, lo)
    return hi, lo


def _dd_dot_into(x: tuple, y: tuple, z: tuple, w: tuple, sign: int, h: np.ndarray, t: np.ndarray,
                 bufs: list[np.ndarray]) -> None:
    """h + t = x y + sign z w within K_DD M^2 (module docstring); each operand (hi, lo, hi1, hi2). bufs: 5 arrays."""
    p1, e1, p2, e2, tmp = bufs[:5]
    fast.two_product_into(x[0], x[2], x[3], y[0], y[2], y[3], p1, e1, tmp)
    fast.two_product_into(z[0], z[2], z[3], w[0], w[2], w[3], p2, e2, tmp)
    if sign < 0:
        np.negative(p2, out=p2)
        np.negative(e2, out=e2)
    fast._two_sum_into(p1, p2, h, t, tmp)  # h + t = p1 + p2 (t is e3)
    t += e1
    t += e2
    for a, b, sg in ((x[0], y[1], 1), (x[1], y[0], 1), (z[0], w[1], sign), (z[1], w[0], sign)):
        np.multiply(a, b, out=tmp)
        if sg > 0:
            t += tmp
        else:
            t -= tmp


def _operands(f: Turns) -> tuple[tuple, tuple]:
    """(sin, cos) operands (hi, lo, hi1, hi2) of a factor."""
    return (f.sh, f.sl, *_halves(f.sh)), (f.ch, f.cl, *_halves(f.ch))


def dd_mul(x: Turns, y: Turns) -> Turns:
    """x y (complex, broadcasting), renormalised, with its bound (module docstring, a product)."""
    xs, xc = _operands(x)
    ys, yc = _operands(y)
    shape = np.broadcast_shapes(x.sh.shape, y.sh.shape)
    bufs = [np.empty(shape) for _ in range(7)]
    out = [np.empty(shape) for _ in range(4)]
    for (a, b, c, e, sign), (hi, lo) in (((xs, yc, xc, ys, 1), (out[0], out[1])), ((xc, yc, xs, ys, -1), (out[2], out[3]))):
        h, t = bufs[5], bufs[6]
        _dd_dot_into(a, b, c, e, sign, h, t, bufs)
        fast._two_sum_into(h, t, hi, lo, bufs[0])
    err = (x.err * (y.mag + y.err) + x.mag * y.err + K_DD * x.hi_mag * y.hi_mag) * SAFE + TINY
    sh, sl, ch, cl = out
    return Turns(sh, sl, ch, cl, err, x.mag * y.mag * (1 + 2.0 ** -52))


E_R = 2.0 ** -101      # |e^{i r} computed - e^{i r}| for |r| <= RHO_F (module docstring, exact rows)
RHO_F = math.pi / 2 ** (2 * FINE_BITS) * (1 + 2.0 ** -30)
C3, C4, C5 = -1.0 / 6, 1.0 / 24, 1.0 / 120

def _fine_factor(idx: np.ndarray, row: int) -> Turns:
    tab = fine_tables()
    sh, sl, ch, cl = (np.take(tab[row + i], idx) for i in range(4))
    return Turns(sh, sl, ch, cl, 2.0 ** -106, 1.0)


def _small_angle(x: np.ndarray, y: np.ndarray) -> Turns:
    """e^{i r}, r = 2 pi (x + y) turns with |x + y| <= 2^-19 (1 + 2^-30) and |y| <= u |x|, within E_R: r = rh + rl
    (|rl| <= 2^-68), sin r = rh + rl - rh^3/6 + rh^5/120 - rh^2 rl/2, cos r = 1 - (rh^2 + 2 rh rl)/2 + rh^4/24, the
    leading square exact (Dekker). Module docstring, exact rows."""
    H, Hlo, Hh, Hl = fast._two_pi()
    rh = x * H
    xh, xl = _halves(x)
    rl = xh * Hh - rh
    rl += xh * Hl
    rl += xl * Hh
    rl += xl * Hl
    rl += x * Hlo
    rl += y * H
    z = rh * rh
    q = (z * C5 + C3) * z * rh
    tail = rl - (z * rl) * 0.5
    tail += q
    s_hi, s_lo = np.empty_like(x), np.empty_like(x)
    fast._two_sum_into(rh, tail, s_hi, s_lo, np.empty_like(x))
    r1, r2 = _halves(rh)
    p, e, t = np.empty_like(x), np.empty_like(x), np.empty_like(x)
    fast.two_product_into(rh, r1, r2, rh, r1, r2, p, e, t)  # p + e = rh^2
    cml = (e + 2.0 * rh * rl) * -0.5 + z * z * C4
    c0, c1 = np.empty_like(x), np.empty_like(x)
    fast._two_sum_into(np.ones_like(x), p * -0.5, c0, c1, t)
    c1 += cml
    c_hi, c_lo = np.empty_like(x), np.empty_like(x)
    fast._two_sum_into(c0, c1, c_hi, c_lo, t)
    return Turns(s_hi, s_lo, c_hi, c_lo, E_R, 1.0)


def exact_rows(cd: ColumnData, positions: list[Fraction], k0: int, k1: int,
               alpha: tuple[float, float] | None = None) -> Turns:
    """e^{i theta_k(P)} for frequencies k0..k1 at the exact positions P (``positions``; the offset is the caller's),
    times alpha = alpha_hi + alpha_lo when given, within about 2^-99 (|alpha|) (module docstring, exact rows)."""
    P_hi, P_lo = fast.positions_dd(positions, Fraction(0))
    P1, P2 = fast._split(P_hi)
    two, has_lo = bool(np.any(P2)), bool(np.any(P_lo))
    fw = fast.frequency_words(cd)[:, k0:k1]
    shape = (P_hi.shape[0], k1 - k0)
    ws = [np.empty(shape) for _ in range(6)]
    x, y = fast.turns_block((P1 if two else P_hi)[:, None], P_lo[:, None] if has_lo else None,
                            P2[:, None] if two else None, fw, ws)
    n = np.rint(x * 2.0 ** (2 * FINE_BITS))
    xp = x - n * 2.0 ** -(2 * FINE_BITS)  # exact: both multiples of ulp(x)
    xs, ys = np.empty(shape), np.empty(shape)
    fast._two_sum_into(xp, y, xs, ys, np.empty(shape))
    m = n.astype(np.int64) & ((1 << (2 * FINE_BITS)) - 1)
    f = dd_mul(dd_mul(_fine_factor(m >> FINE_BITS, 0), _fine_factor(m & ((1 << FINE_BITS) - 1), 4)),
               _small_angle(xs, ys))
    tau = float(np.max(np.abs(P_hi) + np.abs(P_lo))) * float(np.max(np.abs(fw[0]), initial=0.0)) * (1 + 2.0 ** -20)
    f.err += rounded.K_TAU * (1 + tau)  # the reduction: 2 pi eps_tau radians (sin, cos 1-Lipschitz)
    if alpha is not None and alpha != (1.0, 0.0):
        sh, sl, ch, cl = (np.full((1, 1), v) for v in (0.0, 0.0, alpha[0], alpha[1]))
        a = Turns(sh, sl, ch, cl, 2.0 ** -106 * abs(alpha[0]), abs(alpha[0]) * (1 + 2.0 ** -52))
        f = dd_mul(f, a)
    return f


def powers(seeds: Turns, count: int) -> Turns:
    """X(j) = e^{i theta(j h')} for j < count, by doubling: seeds row m is e^{i theta(2^m h')} (module docstring)."""
    kc = seeds.sh.shape[1]
    sh, sl, ch, cl = (np.zeros((count, kc)) for _ in range(4))
    ch[0] = 1.0
    err, m, level = 0.0, 1, 0
    while m < count:
        c = min(m, count - m)
        prod = dd_mul(Turns(sh[:c], sl[:c], ch[:c], cl[:c], err, 1.0), seeds.rows(level, level + 1))
        for dst, src in zip((sh, sl, ch, cl), (prod.sh, prod.sl, prod.ch, prod.cl), strict=True):
            dst[m:m + c] = src
        err = max(err, prod.err)
        m, level = 2 * m, level + 1
    return Turns(sh, sl, ch, cl, err, 1.0 + 2.0 ** -52)


# --- the top level ---------------------------------------------------------------------------------------------

def narrow_bound(A: Turns, W: Turns) -> float:
    """E' of a narrow block: |S~ - alpha sin| <= E, E' = (E + u (X + 2E)) (1 + 2^-40), X >= |S~| (module docstring)."""
    ma, mw = A.hi_mag, W.hi_mag
    ea, ew = A.err + U * ma, W.err + U * mw
    E = (U * (2 + U) * ma * mw + ea * (1 + ew) + A.mag * ew) * SAFE + TINY
    X = ma * mw * (1 + 3 * U)
    return (E + U * (X + 2 * E)) * SAFE


def wide_bound(A: Turns, W: Turns) -> float:
    """E' of a wide block: h + t within E of alpha sin, E' = (E + u (|t| + 2E)) (1 + 2^-40) (module docstring)."""
    ma, mw = A.hi_mag, W.hi_mag
    E = (K_W * ma * mw + A.err * (1 + W.err) + A.mag * W.err) * SAFE + TINY
    return (E + U * (T_W * ma * mw + 2 * E)) * SAFE


def wide_operands(f: Turns) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Per part (sin, cos) of a factor: (x1, x23), x1 the 26-bit high half of the hi word and x23 = fl(x2 + lo)."""
    out = []
    for hi, lo in ((f.sh, f.sl), (f.ch, f.cl)):
        x1, x2 = _halves(hi)
        x2 += lo
        out.append((x1, x2))
    return out[0], out[1]


def _wide_dot_into(x: tuple, y: tuple, z: tuple, w: tuple, sign: int, h: np.ndarray, t: np.ndarray,
                   bufs: list[np.ndarray]) -> None:
    """h + t = x y + sign z w within K_W M^2 (module docstring, wide target); operands (x1, x23). bufs: 3 arrays."""
    p1, p2, tmp = bufs[:3]
    np.multiply(x[0], y[0], out=p1)  # exact: 26 + 26 bits
    np.multiply(z[0], w[0], out=p2)
    if sign > 0:
        fast._two_sum_into(p1, p2, h, t, tmp)
    else:
        np.negative(p2, out=p2)
        fast._two_sum_into(p1, p2, h, t, tmp)
    for a, b, sg in ((x[0], y[1], 1), (x[1], y[0], 1), (x[1], y[1], 1), (z[0], w[1], sign), (z[1], w[0], sign),
                     (z[1], w[1], sign)):
        np.multiply(a, b, out=tmp)
        if sg > 0:
            t += tmp
        else:
            t -= tmp


def conj_factor(W: Turns) -> np.ndarray:
    """W's hi words as the complex numbers Wc_h - i Ws_h (a negation: exact), the form :func:`narrow_block`
    multiplies by."""
    z = np.empty(W.sh.shape, np.complex128)
    z.real = W.ch
    np.negative(W.sh, out=z.imag)
    return z


def narrow_block(A: Turns, Wz: np.ndarray, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(S~, C~) of every (q, l): A (qa, 1, kc) times W (L, kc, as :func:`conj_factor`), views of Z (qa, L, kc)
    complex: (As + i Ac)(Wc - i Ws) = (As Wc + Ac Ws) + i (Ac Wc - As Ws), one complex product of NumPy's where
    :func:`_complex_product_is_plain` (each part a c -+ b d with at most three roundings), else four products
    and two sums (module docstring, narrow targets)."""
    Az = np.empty(A.sh.shape, np.complex128)
    Az.real, Az.imag = A.sh, A.ch
    S, C = Z.real, Z.imag
    if _complex_product_is_plain():
        np.multiply(Az, Wz, out=Z)
        return S, C
    np.multiply(A.sh, Wz.real, out=S)
    S -= A.ch * Wz.imag
    np.multiply(A.ch, Wz.real, out=C)
    C += A.sh * Wz.imag
    return S, C


@cache
def _complex_product_is_plain() -> bool:
    """Whether NumPy's complex128 product (x + i y)(u + i v) gives, on every entry of a probe, each part as
    fl(fl(x u) - fl(y v)), fl(x u - fl(y v)) or fl(fl(x u) - y v) (imaginary: the same with x v + y u), i.e. two
    products and a sum with one rounding each, or a fused multiply-add: the forms the narrow bound covers. The
    probe has the kernel's shapes (a broadcast (2, 1, 16) by (4, 16) and a contiguous run), cancellations and
    deterministic spread entries; each form is rounded exactly (:func:`_plain_parts`). The kernel takes the real
    products instead where this fails."""
    def spread(n: int, seed: float) -> np.ndarray:  # deterministic entries in (-1, 1), no two alike
        return np.sin(np.arange(1, n + 1) * seed)
    x = (spread(32, 1.37) + 1j * spread(32, 2.71)).reshape(2, 1, 16)
    w = (spread(64, 0.577) + 1j * spread(64, 3.3)).reshape(4, 16)
    w[::2] = (x[0, 0] * (1 + 2.0 ** -30)).conj() * 1j  # x u - y v and x v + y u nearly cancel
    x, w = np.broadcast_arrays(x, w)
    return _plain_parts(x * w, x, w) and _plain_parts(x[0].ravel() * w[0].ravel(), x[0].ravel(), w[0].ravel())


def _plain_parts(z: np.ndarray, x: np.ndarray, w: np.ndarray) -> bool:
    """Whether every z = x w has the parts of :func:`_complex_product_is_plain` (the products exact by Dekker's
    :func:`~sinpe.reference.oracles.fast.two_product_into`; math.fsum rounds their exact sums once)."""
    z, x, w = (np.ascontiguousarray(v).ravel() for v in (z, x, w))
    a, b, c, d = x.real.copy(), x.imag.copy(), w.real.copy(), w.imag.copy()
    real = (_exact_product(a, c), _exact_product(-b, d))  # a c - b d (negating b is exact)
    imag = (_exact_product(a, d), _exact_product(b, c))
    for part, ((ph, pl), (qh, ql)) in ((z.real, real), (z.imag, imag)):
        for got, xh, xl, yh, yl in zip(part.tolist(), ph.tolist(), pl.tolist(), qh.tolist(), ql.tolist(), strict=True):
            if got not in (xh + yh, math.fsum((xh, xl, yh)), math.fsum((xh, yh, yl))):
                return False
    return True


def _exact_product(u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(p, e): p = fl(u v) and p + e = u v exactly, entry by entry (Dekker, the fast reference's own)."""
    (uh, ul), (vh, vl) = fast._split(u), fast._split(v)
    p, e, t = np.empty_like(u), np.empty_like(u), np.empty_like(u)
    fast.two_product_into(u, uh, ul, v, vh, vl, p, e, t)
    return p, e


def wide_block(A: tuple, W: tuple, bufs: list[np.ndarray]) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """((h_s, t_s), (h_c, t_c)): A W to about 2^-75 (module docstring, wide target); A and W as :func:`wide_operands`."""
    (As, Ac), (Ws, Wc) = A, W
    hs, ts, hc, tc = bufs[3:7]
    _wide_dot_into(As, Wc, Ac, Ws, 1, hs, ts, bufs)
    _wide_dot_into(Ac, Wc, As, Ws, -1, hc, tc, bufs)
    return (hs, ts), (hc, tc)


def decide(v: np.ndarray, t: np.ndarray | None, E: float, fmt: Format, res: np.ndarray, ok: np.ndarray,
           scratch: dict[str, np.ndarray]) -> None:
    """res = RN_fmt of the value within E of v (+ t), in fmt's storage dtype; ok where decided (module docstring).
    v and t may be overwritten."""
    name = fmt.name
    if name == "binary64":
        assert t is not None, "binary64 is decided on double-double estimates (the wide path)"
        hi = scratch["f64"]
        np.add(t, E, out=hi)
        hi += v
        t -= E
        np.add(v, t, out=res)
        np.equal(res.view(np.int64), hi.view(np.int64), out=ok)
        return
    lo = res if name != "bfloat16" else scratch["lo32"]
    hi = scratch["hi16" if name == "binary16" else "hi32"]
    ints = np.int16 if name == "binary16" else np.int32
    np.subtract(v, E, out=lo, casting="same_kind")
    np.add(v, E, out=hi, casting="same_kind")
    np.equal(lo.view(ints), hi.view(ints), out=ok)
    if name == "bfloat16":
        b, up, bits = lo.view(np.uint32), scratch["low"], res.view(np.uint32)
        np.add(b, 0x8000, out=up)  # half up on the magnitude: RN_bf16 but at a bfloat16 midpoint (no tie elsewhere)
        np.bitwise_and(up, 0xFFFF0000, out=bits)  # res written once
        mid = np.equal(up, bits, out=scratch["mid"])  # low half 0 after the add: RN_32(lo) was a bfloat16 midpoint
        if mid.any():  # rare (2^-16): decided from the binary64 ends themselves (the others are undecided anyway)
            at = _where(mid & ok)
            bits[at], ok[at] = bfloat16_midpoints(np.subtract(v[at], E), np.add(v[at], E), b[at])


def bfloat16_midpoints(lo: np.ndarray, hi: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(RN_bf16 bits, decided) for binary64 ends lo <= x <= hi that both round in binary32 to the bfloat16 midpoint
    with bits ``m``: an end rounds away from zero above |m|, toward it below, to even at it (:func:`round_exact` of
    each end, that binary32 rounding known); decided where both ends round alike (:func:`decide_sparse`).

    >>> m = np.array([0x3F808000] * 3, dtype=np.uint32)  # 1 + 2^-8, midway between 1 and 1 + 2^-7
    >>> bits, sure = bfloat16_midpoints(np.array([1 + 2.0**-8 + 2.0**-40, 1.0, 1 + 2.0**-8]),
    ...                                 np.array([1 + 2.0**-8 + 2.0**-39, 1 + 2.0**-8 - 2.0**-40, 1 + 2.0**-8]), m)
    >>> [hex(b) for b in bits], sure.tolist()
    (['0x3f810000', '0x3f800000', '0x3f800000'], [True, True, True])
    """
    am = np.abs(m.view(np.float32).astype(np.float64))
    away, toward = (m + 0x8000) & 0xFFFF0000, m & 0xFFFF0000
    even = np.where(m & 0x10000, away, toward)

    def end(x: np.ndarray) -> np.ndarray:
        ax = np.abs(x)
        return np.where(ax > am, away, np.where(ax < am, toward, even))
    a = end(lo)
    return a, a == end(hi)


def _where(mask: np.ndarray) -> tuple[np.ndarray, ...]:
    """``np.nonzero(mask)`` (the same indices, in the same order) for a mask with few true entries: through the flat
    indices, ten times faster than NumPy's N-D nonzero on a block of 2^16 (146 to 14 us)."""
    return np.unravel_index(np.flatnonzero(mask), mask.shape)


def round_exact(x: np.ndarray, fmt: Format) -> np.ndarray:
    """RN_fmt(x) for binary64 values x (a few, 1-D), as binary64: the probed cast; bfloat16 through RN_32 (the
    same bits unless RN_32(x) is a bfloat16 midpoint, and then x against that midpoint decides, ties to even)."""
    if fmt.name == "binary64":
        return x.copy()
    if fmt.name in ("binary32", "binary16"):
        return _subtract_cast(x, np.float32 if fmt.name == "binary32" else np.float16).astype(np.float64)
    c = _subtract_cast(x, np.float32)
    b = c.view(np.uint32)
    out = ((b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    mid = (b & 0xFFFF) == 0x8000
    out[mid] = bfloat16_midpoints(x[mid], x[mid], b[mid])[0]
    return out.view(np.float32).astype(np.float64)


def decide_sparse(lo: np.ndarray, hi: np.ndarray, fmt: Format) -> tuple[np.ndarray, np.ndarray]:
    """(RN_fmt(lo), whether RN_fmt(hi) has the same bits) for a few binary64 ends lo <= x <= hi (monotonicity)."""
    a, b = round_exact(lo, fmt), round_exact(hi, fmt)
    return a, a.view(np.int64) == b.view(np.int64)


@lru_cache(maxsize=16)  # at most ~16 MiB kept
def step_powers(cd: ColumnData, step: int, count: int, k0: int, k1: int) -> Turns:
    """e^{i theta_k(j step)} for j < count (count a power of two) and frequencies k0..k1, by doubling from exact
    rows at 2^m step (module docstring). They depend on no position: kept for the next table."""
    levels = max(0, (count - 1).bit_length())
    seeds = exact_rows(cd, [Fraction(step * 2 ** m) for m in range(max(levels, 1))], k0, k1)
    return powers(seeds, count)


def _pow2(n: int) -> int:
    return 1 << max(0, (max(n, 1) - 1).bit_length())


def plain_mul(x: Turns, y: Turns) -> Turns:
    """x y from the hi words in binary64 (narrow targets; lo words 0): each part within u (2 + u) M_x M_y of the
    product of the hi words, and those are within err + u M of the exact factors (module docstring)."""
    s = x.sh * y.ch
    s += x.ch * y.sh
    c = x.ch * y.ch
    c -= x.sh * y.sh
    ex, ey = x.err + U * x.hi_mag, y.err + U * y.hi_mag
    err = (U * (2 + U) * x.hi_mag * y.hi_mag * math.sqrt(2) + ex * (y.mag + ey) + x.mag * ey) * SAFE + TINY
    zero = np.zeros_like(s)
    return Turns(s, zero, c, zero, err, x.mag * y.mag * (1 + 2.0 ** -52))


class Progression:
    """One table's rows p_0 + i h (i < n): its factor tables and :meth:`fill` / :meth:`estimate` of row ranges.

    Rows come in jobs of ``job_rows`` starting at multiples of it; a job takes one factor row A_0 (its seed,
    :meth:`seeds`). Built in the calling thread; :meth:`fill` and :meth:`estimate` may run on several threads
    at once (each reads the shared tables and writes only its rows)."""

    SEED_GROUP = 64  # seeds computed together by :meth:`seed`

    def __init__(self, pl: rounded.Plan, p0: int, h: int, n: int, job_rows: int = JOB_ROWS) -> None:
        self.pl, self.p0, self.h, self.n = pl, p0, h, n
        self.job_rows = max(1, min(job_rows, n))
        self.low = min(LOW, _pow2(self.job_rows))
        self.nq = -(-self.job_rows // self.low)  # A rows per job
        self.wide = pl.fmt.name == "binary64"
        self.chunks = []
        for k0 in range(0, pl.nf, COLS):
            k1 = min(pl.nf, k0 + COLS)
            W, J = step_powers(pl.cd, h, self.low, k0, k1), step_powers(pl.cd, h * self.low, _pow2(self.nq), k0, k1)
            places = tuple(_chunk_place(pc, k0, k1) for pc in _placements(pl))
            self.chunks.append((k0, k1, W, J, wide_operands(W) if self.wide else conj_factor(W), places,
                                _interleaved(places)))
        self.block = BLOCK  # entries per top-level block (build.fill_progression doubles it for threads)
        self.zero_rows = _zero_rows(pl.cd.offset, p0, h, n)
        self._groups: dict[int, list[list[Turns]]] = {}
        self._lock = threading.Lock()
        self._local = threading.local()

    def _scratch(self) -> dict[Any, np.ndarray]:
        """This thread's scratch arrays, kept from call to call (a fresh array of a block's size is fresh pages:
        allocating one per call cost the checker's chunks four times the arithmetic)."""
        got: dict[Any, np.ndarray] | None = getattr(self._local, "scratch", None)
        if got is None:
            got = self._local.scratch = {}
        return got

    def seeds(self, starts: list[int]) -> list[list[Turns]]:
        """Per job start a (a multiple of job_rows, in order, consecutive), per column chunk:
        A_0 = alpha e^{i theta(p_0 + a h + o)}: one exact row times the job starts' own powers."""
        alpha = (self.pl.a_hi, self.pl.a_lo)
        first = [Fraction(self.p0 + starts[0] * self.h) + self.pl.cd.offset]
        per_chunk = []
        for k0, k1, *_ in self.chunks:
            A0 = exact_rows(self.pl.cd, first, k0, k1, alpha)
            if len(starts) > 1:
                V = step_powers(self.pl.cd, self.job_rows * self.h, _pow2(len(starts)), k0, k1)
                A0 = dd_mul(A0, V.rows(0, len(starts)))
            per_chunk.append(A0)
        return [[c.rows(i, i + 1) for c in per_chunk] for i in range(len(starts))]

    def seed(self, a: int) -> list[Turns]:
        """:meth:`seeds` of job start a, computed with its group of SEED_GROUP jobs (the last two groups kept)."""
        span = self.SEED_GROUP * self.job_rows
        g = a // span
        with self._lock:
            grp = self._groups.get(g)
            if grp is None:
                grp = self._groups[g] = self.seeds(list(range(g * span, min(self.n, (g + 1) * span), self.job_rows)))
                for old in [k for k in self._groups if k < g - 1]:
                    del self._groups[old]
        return grp[(a - g * span) // self.job_rows]

    def _blocks(self, a: int, b: int, seeds: list[Turns]) -> Any:
        """For rows a..b (a job's, seeds its A_0 per chunk): per top-level block (k0, k1, r0, r1, A, W, W in the
        kernel's form (:func:`wide_operands` or :func:`conj_factor`), (A_0, J, the block's first q), placements,
        :func:`_interleaved` of them)."""
        L = self.low
        nq = -(-(b - a) // L)
        for (k0, k1, W, J, Wk, places, run), A0 in zip(self.chunks, seeds, strict=False):
            A = (dd_mul if self.wide else plain_mul)(A0, J.rows(0, nq))
            qa = max(1, self.block // (L * (k1 - k0)))
            for q0 in range(0, nq, qa):
                q1 = min(nq, q0 + qa)
                yield (k0, k1, a + q0 * L, min(b, a + q1 * L), A.rows(q0, q1).expand(), W, Wk, (A0, J, q0), places,
                       run)

    def fill(self, out: np.ndarray, a: int, b: int, seeds: list[Turns] | None = None) -> set[int]:
        """out = the correctly rounded rows a..b (out: (b - a, d), the format's storage dtype; b - a <= job_rows),
        except the rows returned (absolute indices), whose entries this path could not all decide. Values are
        decided straight into their columns of ``out`` where the placement is slices: a narrow chunk whose sin
        and cos interleave (sin, cos, sin, ...) in one run of columns in a single pass over both."""
        fmt, bad, scratch = self.pl.fmt, set[int](), self._scratch()
        for k0, k1, r0, r1, A, W, Wk, factors, places, run in self._blocks(a, b, seeds or self.seed(a)):
            shape = (A.sh.shape[0], W.sh.shape[0], k1 - k0)
            flat, rows = (shape[0] * shape[1], shape[2]), out[r0 - a:r1 - a]
            pairs: tuple[tuple[np.ndarray, np.ndarray | None], ...]
            if self.wide:
                pairs, E = wide_block(wide_operands(A), Wk, _bufs(scratch, shape, 7)), wide_bound(A, W)
            else:
                Z = _zbuf(scratch, shape)
                (S, C), E = narrow_block(A, Wk, Z), narrow_bound(A, W)
                if run is not None:  # Z's memory is the table's (sin, cos) pairs of this chunk
                    joint = Z.view(np.float64).reshape(flat[0], 2 * flat[1])[:len(rows)]
                    dec = _decide_scratch(scratch, joint.shape, fmt)
                    decide(joint, None, E, fmt, rows[:, run], dec["ok"], dec)
                    self._exact_zero(rows[:, run][:, 0::2], dec["ok"][:, 0::2], r0, r1)
                    for part in (0, 1) if not dec["ok"].all() else ():
                        self._settle(rows[:, run][:, part::2], dec["ok"][:, part::2], W, factors, part,
                                     places[part][2], r0, bad)
                    continue
                pairs = ((S, None), (C, None))
            for part, ((v, t), (dst, src, cols)) in enumerate(zip(pairs, places, strict=False)):
                v = v.reshape(flat)[:len(rows), src]
                t = None if t is None else t.reshape(flat)[:len(rows), src]
                direct = isinstance(dst, slice) and isinstance(src, slice)
                dec = _decide_scratch(scratch, v.shape, fmt)
                res = rows[:, dst] if direct else dec["res"]
                decide(v, t, E, fmt, res, dec["ok"], dec)
                if part == 0:
                    self._exact_zero(res, dec["ok"], r0, r1)
                self._settle(res, dec["ok"], W, factors, part, cols, r0, bad)
                if not direct:
                    rows[:, dst] = res
        if self.pl.zero_cols.size:
            out[:, self.pl.zero_cols] = 0
        return bad

    def _exact_zero(self, res: np.ndarray, ok: np.ndarray, r0: int, r1: int) -> None:
        """The sin entries (``res``, ``ok``: a block's rows r0..r1) of the rows at P = 0, where theta = 0: alpha sin 0 is
        exactly +0.0 in every format (as :func:`sinpe.reference.tables.build.rounded_block` gives it). Their interval
        holds both signs of zero, so the decision leaves them open; set here, they need no refinement."""
        if self.zero_rows is None:
            return
        z0, z1 = max(r0, self.zero_rows[0]) - r0, min(r1, self.zero_rows[1]) - r0
        if z0 < z1:
            res[z0:z1] = 0
            ok[z0:z1] = True

    def _settle(self, res: np.ndarray, ok: np.ndarray, W: Turns, factors: tuple, part: int, cols: np.ndarray,
                r0: int, bad: set[int]) -> None:
        """The undecided entries of a block's part refined (:meth:`_refine`); rows still undecided into ``bad``."""
        if not ok.all():
            self._refine(res, ok, W, factors, part, cols)
            if not ok.all():
                bad.update((r0 + np.nonzero(~ok.all(axis=1))[0]).tolist())

    def _refine(self, res: np.ndarray, ok: np.ndarray, W: Turns, factors: tuple, part: int, cols: np.ndarray) -> None:
        """The block's undecided entries again, from A_0 J(q) W(l) in double-double (:func:`dd_mul`, within about
        2^-95 |alpha|): decided by :func:`decide_sparse` unless that interval too holds a rounding boundary."""
        A0, J, q0 = factors
        r, j = np.nonzero(~ok)
        k = cols[j]  # res's column j is the chunk's frequency cols[j]
        q, l = q0 + r // self.low, r % self.low
        z = dd_mul(dd_mul(_gather(A0, np.zeros_like(k), k), _gather(J, q, k)), _gather(W, l, k))
        h, t = (z.sh, z.sl) if part == 0 else (z.ch, z.cl)
        E = (z.err + U * (U * z.hi_mag + 2 * z.err)) * SAFE  # |t| <= u |h|: TwoSum's output
        vals, sure = decide_sparse(h + (t - E), h + (t + E), self.pl.fmt)
        res[r, j], ok[r, j] = vals, sure

    def estimate(self, out: np.ndarray, a: int, b: int) -> float:
        """out (b - a, d) float64 = estimates of alpha sin / cos theta for rows a..b (a job's; 0 in zero columns);
        returns E' >= the error of every estimate (narrow estimates, module docstring)."""
        worst, scratch = 0.0, self._scratch()
        for k0, k1, r0, r1, A, W, Wk, _, places, run in self._blocks(a, b, self.seed(a)):
            shape = (A.sh.shape[0], W.sh.shape[0], k1 - k0)
            Z = _zbuf(scratch, shape)
            S, C = narrow_block(A, Wk, Z)
            worst = max(worst, narrow_bound(A, W))
            n, flat = r1 - r0, (shape[0] * shape[1], shape[2])
            if run is not None:  # one copy of the (sin, cos) pairs
                out[r0 - a:r1 - a, run] = Z.view(np.float64).reshape(flat[0], 2 * flat[1])[:n]
                continue
            for v, place in zip((S, C), places, strict=False):
                _place(out[r0 - a:r1 - a], v.reshape(flat)[:n], place)
        if self.pl.zero_cols.size:
            out[:, self.pl.zero_cols] = 0.0
        return worst


def _zero_rows(offset: Fraction, p0: int, h: int, n: int) -> tuple[int, int] | None:
    """The rows i (as a range i0..i1) of p_0 + i h, i < n, whose P = p_0 + i h + offset is exactly 0, or None.

    >>> _zero_rows(Fraction(0), -3, 1, 10), _zero_rows(Fraction(1, 2), 0, 1, 10), _zero_rows(Fraction(-3), 9, -2, 5)
    ((3, 4), None, (3, 4))
    >>> _zero_rows(Fraction(0), 0, 0, 4), _zero_rows(Fraction(0), 8, 3, 10)   # step 0: every row or none
    ((0, 4), None)
    """
    z = -(offset + p0)
    if h == 0:
        return (0, n) if z == 0 else None
    i = z / h
    return (int(i), int(i) + 1) if i.denominator == 1 and 0 <= i < n else None


def _gather(f: Turns, rows: np.ndarray, cols: np.ndarray) -> Turns:
    return Turns(f.sh[rows, cols], f.sl[rows, cols], f.ch[rows, cols], f.cl[rows, cols], f.err, f.mag)


def _bufs(scratch: dict[Any, Any], shape: tuple[int, int, int], count: int) -> list[np.ndarray]:
    key = ("bufs", shape, count)
    got = scratch.get(key)
    if got is None:
        size = shape[0] * shape[1] * shape[2]
        have = scratch.get(("f", count))
        if have is None or have.shape[1] < size:
            have = scratch[("f", count)] = np.empty((count, max(size, BLOCK)))
        got = scratch[key] = [have[i, :size].reshape(shape) for i in range(count)]
    return got


def _zbuf(scratch: dict[Any, Any], shape: tuple[int, int, int]) -> np.ndarray:
    """A complex128 scratch array of ``shape`` (the narrow kernel's products), reused from block to block."""
    size = shape[0] * shape[1] * shape[2]
    have = scratch.get("z")
    if have is None or have.size < size:
        have = scratch["z"] = np.empty(max(size, BLOCK), np.complex128)
    return have[:size].reshape(shape)


def _decide_scratch(scratch: dict[Any, Any], flat: tuple[int, int], fmt: Format) -> dict[str, np.ndarray]:
    key = ("dec", flat)
    got = scratch.get(key)
    if got is None:
        size = flat[0] * flat[1]
        n = max(size, BLOCK)
        if scratch.get("size", 0) < size:
            store = np.dtype(fmt.storage)
            scratch.update(size=n, res_=np.empty(n, store), ok_=np.empty(n, bool), f64_=np.empty(n),
                           lo32_=np.empty(n, np.float32), hi32_=np.empty(n, np.float32), hi16_=np.empty(n, np.float16),
                           mid_=np.empty(n, bool), low_=np.empty(n, np.uint32))
        got = scratch[key] = {k[:-1]: v[:size].reshape(flat) for k, v in scratch.items()
                              if isinstance(k, str) and k.endswith("_")}
    return got


def _placements(pl: rounded.Plan) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Per kind, (dst columns, src frequencies) as index arrays sorted by frequency (the plan's copy instructions)."""
    out = []
    for dst, src in (pl.sin_idx, pl.cos_idx):
        d_arr = np.arange(pl.d)[dst] if isinstance(dst, slice) else np.asarray(dst, dtype=np.intp)
        s_arr = np.arange(pl.nf)[src] if isinstance(src, slice) else np.asarray(src, dtype=np.intp)
        order = np.argsort(s_arr, kind="stable")
        out.append((d_arr[order], s_arr[order]))
    return out[0], out[1]


def as_slice(idx: np.ndarray) -> Any:
    """A slice equal to the index array when it is an arithmetic progression (strided copies beat fancy indexing)."""
    if idx.size == 0:
        return slice(0, 0)
    if idx.size == 1:
        return slice(int(idx[0]), int(idx[0]) + 1)
    step = int(idx[1] - idx[0])
    if step > 0 and np.array_equal(idx, idx[0] + step * np.arange(idx.size)):
        return slice(int(idx[0]), int(idx[-1]) + 1, step)
    return idx


def _chunk_place(place: tuple[np.ndarray, np.ndarray], k0: int, k1: int) -> tuple[Any, Any, np.ndarray]:
    """(dst, src - k0, src - k0 as an index array) of the plan's instructions whose frequency lies in k0..k1, dst
    and src as slices where possible."""
    d_arr, s_arr = place
    sel = (s_arr >= k0) & (s_arr < k1)
    return as_slice(d_arr[sel]), as_slice(s_arr[sel] - k0), s_arr[sel] - k0


def _interleaved(places: tuple[tuple[Any, Any, np.ndarray], ...]) -> slice | None:
    """The run of columns c0 .. c0 + 2 kc of a chunk whose frequency j (of kc, all in order) has its sin at
    c0 + 2 j and its cos at c0 + 2 j + 1 (the interleaved layout), else None."""
    (ds, ss, cs), (dc, sc, cc) = places
    kc = len(cs)
    if not (kc and len(cc) == kc and all(isinstance(x, slice) for x in (ds, ss, dc, sc))):
        return None
    whole = slice(0, kc, 1) if kc > 1 else slice(0, 1)
    if ss != whole or sc != whole or ds.start + 1 != dc.start or (kc > 1 and (ds.step != 2 or dc.step != 2)):
        return None
    return slice(ds.start, ds.start + 2 * kc)


def _place(out: np.ndarray, res: np.ndarray, sel: tuple[Any, Any, np.ndarray]) -> None:
    """out[:, dst] = res[:, src] (one of a chunk's :func:`_chunk_place`)."""
    out[:, sel[0]] = res[:, sel[1]]
