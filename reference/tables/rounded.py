"""Correctly rounded PE values at NumPy speed (SPEC.md REQ-TABLE-FAST, TOL-TABLE-BOUND, TOL-TABLE-NARROW).

Every entry is the value of the target format nearest to the exact PE value (ties to even), the
same bits as the certified oracle (:class:`sinpe.reference.oracles.interval.Certifier`), which
is what decides the entries this fast path cannot.

Method (per pair (p, k), sin and cos together):

1. **Reduction** (:func:`sinpe.reference.oracles.fast.turns_block`): x + y = P g_k mod 1 turns,
   |x| <= 1/2, |y| <= ulp(x)/2, with g_k = sigma w_k / (2 pi) held as four words (error <= 2^-134 g_k)
   and every big product exact. Error: |x + y - tau| <= eps_tau = 2^-100 (1 + |tau|) turns, tau the exact
   turns P g_k (each rounded product or sum in the tails is <= 2^-52 (2 + |tau| 2^-52) in size and
   there are fewer than eight of them; the dd position of a non-dyadic P is off by <= 2^-106 |P|).
2. **Table split**: n = rint(1024 x), x' = x - n/1024 exactly (both are multiples of ulp(x)), so
   PE = sin(a_n + r) with a_n = 2 pi n / 1024 and r = 2 pi (x' + y), |r| <= rho = pi/1024 (1 + 2^-40).
   sin a_n and cos a_n are stored as double-doubles (hi + lo, error <= 2^-107; exact 0 and +-1 at
   multiples of pi/2).
3. **r as a double-double**: rh = fl(2pi_hi x'), rl = Dekker's exact error + x' 2pi_lo + y 2pi_hi;
   |rh + rl - r| <= 2^-102 and |rl| <= 2^-51.
4. **Evaluation**: sin(a + rh + rl) = sa + ca rh + sa cm(rh) + ca sm(rh) + rl cos(a + rh) + R with
   cm(r) = cos r - 1 = -r^2/2 + r^4/24 - r^6/720 (+ <= rho^8/8!) and sm(r) = sin r - r = -r^3/6 + r^5/120
   - r^7/5040 (+ <= rho^9/9!), |R| <= rl^2/2. The head ``sa_hi + ca_hi rh`` is formed error-free
   (Dekker product, then TwoSum): (h, e1). Everything else, the tail T, is summed in binary64 with the
   big term sa_hi cm last. The pair h + T is the estimate (cos likewise, with -sa rh and ca cm).

Error bound (TOL-TABLE-BOUND), u = 2^-53, for the sin value (cos: swap sa <-> ca, ca rh <-> sa rh):

    |h + T - sin(theta)| <= B = (1 + 2^-40) (6.2 u |sa_hi cm~| + K_a |sa_hi| + K_b |ca_hi rh| + K_r |rl| + K_0)

* 6.2 u |sa_hi cm~|: cm~ carries <= 3.01 u relative error (z = rh^2, the inner Horner sum, the product: one
  rounding each, the r^4 and r^6 terms are < 1e-6 of it), the product by sa_hi one more, the last addition
  one more (it is the last term: one partial sum holds it), all relative to |sa cm| <= |sa_hi cm~| (1 + 4u):
  (3.01 + 1 + 1 + slack) u <= 6.2 u in total with |cm| <= 2 |cm~| margin.
* K_a = 5 u^2 + u rho^2 / 2 + 2^-80: the five earlier partial sums hold e1 (<= u |h|), sa_lo (<= u |sa_hi|),
  ...; the neglected sa_lo cm; the cos truncation rho^8/8! < 2^-82.
* K_b = 15 u^2 + 1.3 u rho^2 + 2^-84: the same for the ca rh side (p_lo, ca_lo rh, ca_hi sm~ with its 7 u,
  the sin truncation rho^9/9!).
* K_r = 8 u + rho^2 / 2 + 2^-51: rl cos(a + rh) taken as rl (ca_hi - sa_hi rh): off by |rl| (rho^2/2 + 2u),
  plus its roundings and rl^2/2.
* K_0 = 2^-101 + 2 pi eps_tau + 2^-1000: 3. and the table, the reduction (per block, with the block's largest
  |tau|) and any underflow in the exact products.
* (1 + 2^-40) covers the rounding of B's own evaluation in binary64 (about ten operations on non-negative
  numbers, relative error < 12 u).

An amplitude alpha != 1 multiplies h + T by alpha = A_hi + A_lo error-free (Dekker) and B by
|A_hi| (1 + 2^-50) plus 2^-100 |alpha| |h| + 2^-1000.

**The narrow kernel** (TOL-TABLE-NARROW, :func:`sincos_narrow`, for formats of at most 24 bits: binary32,
binary16, bfloat16). Their rounding boundaries are 2^-25 apart (relative) or more, so a plain binary64
evaluation with a bound near 2^-52 decides all but about one entry in 10^7. After the reduction 1. and
the split 2. (the same as above), with sa, ca the table's hi words only:

    w = fl(x' + y), r = fl(H w) (H = fl(2 pi)), z = fl(r r), cm~ = z (-1/2 + z C4), sm~ = r z (C3 + z C5)
    S = fl(sa + fl(fl(ca r) + fl(fl(sa cm~) + fl(ca sm~)))),  C = fl(ca + fl(fl(fl(ca cm~) - fl(sa sm~)) - fl(sa r)))

(C3 = fl(-1/6), C4 = fl(1/24), C5 = fl(1/120); every operation one binary64 rounding, |.| <= u |result|.)
Error of S against sin(2 pi tau) (C likewise, sa <-> ca), rho = pi/1024 (1 + 2^-40) >= |r|:

* argument: |r - 2 pi (x' + y)| <= u |r| + |2 pi - H| |w| + 2 pi u |x' + y| <= 2.4 u rho (|2 pi - H| < 0.36 u 2 pi);
  sin is 1-Lipschitz, so this, and the reduction's 2 pi eps_tau, pass to S unchanged. The rest compares S
  with sin(a_n + r) at the computed r.
* table: |sa - sa_hi| <= u |sa_hi|, |ca - ca_hi| <= u |ca_hi|: at most u |sa_hi| + u rho.
* truncation: |cos r - 1 - (-r^2/2 + r^4/24)| <= rho^6/720 < 1.17e-18, |sin r - r - (-r^3/6 + r^5/120)| <=
  rho^7/5040 < 6e-22.
* cm~ and sm~ carry < 3.01 u and < 5.01 u relative error (coefficients, z, Horner, the last products;
  C3 = fl(-1/6) counts once) and |cm| <= rho^2/2 < 4.71e-6, |sm| < 4.9e-9: with the products by sa, ca
  and their sum (u each) below 2.5e-5 u in all.
* the three last roundings: u |fl(ca r)| <= u rho (1 + u), u |m| (m the inner sum, |m| <= rho + 4.8e-6),
  u |S|.
* |sa_hi| <= (|S| + rho + 5e-6) (1 + 2u): the value sa (1 + cm) + ca (r + sm) is within rho + 5e-6 of sa.

In all |S - sin| <= 2.0001 u |S| + u (1 + 1 + 1 + 1 + 2.4) rho + 2.5e-5 u + 1.2e-18 < 2.0001 u |S| + 3.5e-18, so

    B_N = K_REL_N |S| + K_ABS_N + 2 pi eps_tau,  K_REL_N = 2.25 u,  K_ABS_N = 2^-57 (6.9e-18)

bounds it with margin (measured: the largest error on 16384 entries is 0.79 B_N, tests/test_tables.py).
eps_tau is taken at the block's largest |P| g_k. An amplitude alpha != 1: v = fl(A_hi S), off from
alpha sin by u |v| + |A_lo S| + |A_hi| B_N, hence K_REL_N' = (K_REL_N + 2u)(1 + 2^-40) and
K_ABS_N' = |A_hi| (K_ABS_N + 2 pi eps_tau)(1 + 2^-50).

**Narrow decision** (:func:`decide_narrow`): with b the bits of v, E its biased exponent, s = 53 - precision
and L = b mod 2^s, v lies |L - 2^(s-1)| binary64 ulps from the nearest rounding boundary of its binade
(the boundary below 2^E is 2^(s-2) + L ulps away). A table T[E] >= B_N / ulp_64(v) (B_N <= K_REL_N 2^53
ulp_64(v) + K_ABS_N) decides v when |L - 2^(s-1)| > T[E]; the candidate RN(v) is b + 2^(s-1) with the low
s bits cleared. T[E] never decides outside the format's normal range below its top binade, nor where
T[E] >= 2^(s-2); entries in the subnormal range get a second look on the uniform grid
(:func:`settle_subnormal`); the rest go to the oracle.

**Decision** (:func:`decide`): with (v, e) = TwoSum(h, T), q the target format's spacing at v and
m = rint(v / q), the candidate is c = m q; the exact value lies in [v + e - B, v + e + B] and c is
its correct rounding when that interval keeps off every rounding boundary: |e| + B < (1/2 - |v/q - m|) q,
with 1/4 instead of 1/2 below a power of two (the gap halves there). v = 0, an overflow, or a value in
doubt goes to the certified oracle (Ziv's strategy, so it always settles: sin and cos of a non-zero
algebraic number are transcendental and never lie on a boundary).

>>> from sinpe.reference.tables import table
>>> table("vaswani", 4, [1, 10**7], "float64").tolist()   # the certified oracle's values
[[0.8414709848078965, 0.5403023058681398, 0.009999833334166664, 0.9999500004166653], [0.4205477931907825, -0.9072703861817396, 0.03574879797201651, -0.9993608074382124]]
>>> table("vaswani", 2, [10**7], "float16").tolist()   # as the oracle's doctest
[[0.420654296875, -0.9072265625]]
"""
from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from sinpe.reference.oracles import fast
from sinpe.reference.tables.constants import N_TABLE, angle_table
from sinpe.spec.definition import column_data
from sinpe.spec.formats import Format
from sinpe.spec.profiles import Profile

if TYPE_CHECKING:  # the certified oracle (mpmath) is imported when an entry needs it (Plan.certifier)
    from sinpe.reference.oracles.interval import Certifier

U = 2.0 ** -53
RHO = math.pi / N_TABLE * (1 + 2.0 ** -40)  # |rh| <= pi/1024 (|x'| <= 1/2048 turns)
K_CM = 6.2 * U
K_A = 5 * U * U + U * RHO ** 2 / 2 + 2.0 ** -80
K_B = 15 * U * U + 1.3 * U * RHO ** 2 + 2.0 ** -84
K_R = 8 * U + RHO ** 2 / 2 + 2.0 ** -51
K_0 = 2.0 ** -101 + 2.0 ** -1000
SAFETY = 1 + 2.0 ** -40
WORK = 1 << 14  # entries per kernel call: the ~30 scratch arrays stay in L2 cache


# the narrow kernel (TOL-TABLE-NARROW): plain binary64, for formats of at most 24 bits
C3, C4, C5 = -1.0 / 6, 1.0 / 24, 1.0 / 120
K_REL_N = 2.25 * U
K_ABS_N = 2.0 ** -57
NARROW_MAX_PRECISION = 24

K_TAU = 2 * math.pi * 2.0 ** -100 * (1 + 2.0 ** -40)  # eps_tau in radians per turn of |tau| = |P| g_k (and the 1)


class Workspace:
    """Scratch arrays for one thread (``WORK`` entries each), reused from block to block."""

    def __init__(self, n: int = WORK) -> None:
        self.n = n
        self.f = [np.empty(n) for _ in range(30)]
        self.i = np.empty(n, dtype=np.intp)
        self.j = [np.empty(n, dtype=np.int64) for _ in range(3)]

    def get(self, shape: tuple[int, int]) -> tuple[list[np.ndarray], np.ndarray]:
        size = shape[0] * shape[1]
        return [w[:size].reshape(shape) for w in self.f], self.i[:size].reshape(shape)

    def ints(self, shape: tuple[int, int]) -> list[np.ndarray]:
        size = shape[0] * shape[1]
        return [w[:size].reshape(shape) for w in self.j]


_LOCAL = threading.local()


def _workspace() -> Workspace:
    ws = getattr(_LOCAL, "ws", None)
    if ws is None:
        ws = _LOCAL.ws = Workspace()
    return ws


def _two_sum(a: np.ndarray, b: np.ndarray, s: np.ndarray, e: np.ndarray, t: np.ndarray) -> None:
    fast._two_sum_into(a, b, s, e, t)


def _reduce_into(x: np.ndarray, n: np.ndarray, xp: np.ndarray, idx: np.ndarray) -> None:
    """The table split of both kernels (step 2 of the module docstring): n = rint(N_TABLE x), x' = x - n / N_TABLE
    (exact) into ``xp``, and ``idx`` = n mod N_TABLE, the angle table's row."""
    np.multiply(x, float(N_TABLE), out=n)
    np.rint(n, out=n)
    np.multiply(n, 1.0 / N_TABLE, out=xp)
    np.subtract(x, xp, out=xp)  # x' exact
    np.copyto(idx, n, casting="unsafe")
    np.bitwise_and(idx, N_TABLE - 1, out=idx)


def _bound_into(b: np.ndarray, head: np.ndarray, big: np.ndarray, p: np.ndarray, shared: np.ndarray,
                t: np.ndarray) -> None:
    """b = SAFETY (K_A |head| + K_CM |big| + K_B |p| + shared): one function's B of the module docstring, for sin
    (head sa_hi, big term sa_hi cm~, p = ca_hi rh's head) and for cos (ca_hi, ca_hi cm~, sa_hi rh's). ``big``
    and ``t`` are overwritten; ``shared`` is the |rl| K_r + K_tau (1 + P_abs g) + K_0 part both share."""
    np.abs(big, out=big)
    np.abs(head, out=b)
    b *= K_A
    big *= K_CM
    b += big
    np.abs(p, out=t)
    t *= K_B
    b += t
    b += shared
    b *= SAFETY


def sincos_dd(x: np.ndarray, y: np.ndarray, P_abs: np.ndarray, g: np.ndarray, ws: list[np.ndarray], idx: np.ndarray
              ) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """Steps 2-4: ``((h_s, T_s, B_s), (h_c, T_c, B_c))``, views into ``ws``, for turns x + y (x, y not in ws[:28]).

    ``P_abs`` (rows, 1) bounds |P| + 1 and ``g`` (cols,) bounds g_k: the reduction's share of B is
    K_TAU (1 + P_abs g) per entry.

    sin(2 pi (x + y)) = h_s + T_s within B_s, and likewise for cos.
    """
    tab = angle_table()
    (n, xp, sah, sal, cah, cal, sahh, sahl, cahh, cahl, rh, rl, xh, xl, t, z, cm, sm,
     ph, pl, qh, ql, hs, es, hc, ec, bs, bc) = ws[:28]
    H, Hlo, Hh, Hl = fast._two_pi()
    _reduce_into(x, n, xp, idx)
    for dst, row in ((sah, 0), (sal, 1), (cah, 2), (cal, 3), (sahh, 4), (sahl, 5), (cahh, 6), (cahl, 7)):
        np.take(tab[row], idx, out=dst)
    # rh + rl = 2 pi (x' + y): Dekker product of x' by the split 2pi_hi, then the small terms
    fast.split_into(xp, xh, xl)
    fast.two_product_into(xp, xh, xl, H, Hh, Hl, rh, rl, t)
    np.multiply(xp, Hlo, out=t)
    rl += t
    np.multiply(y, H, out=t)
    rl += t
    # cm = cos rh - 1, sm = sin rh - rh (Horner, truncation below 2^-82 |.|)
    np.multiply(rh, rh, out=z)
    np.multiply(z, -1.0 / 720, out=cm)
    cm += 1.0 / 24
    cm *= z
    cm += -0.5
    cm *= z
    np.multiply(z, -1.0 / 5040, out=sm)
    sm += 1.0 / 120
    sm *= z
    sm += -1.0 / 6
    sm *= z
    sm *= rh
    # split rh (halves into xh, xl), exact products ca_hi rh = ph + pl, sa_hi rh = qh + ql
    fast.split_into(rh, xh, xl)
    fast.two_product_into(cah, cahh, cahl, rh, xh, xl, ph, pl, t)
    fast.two_product_into(sah, sahh, sahl, rh, xh, xl, qh, ql, t)
    # sin: head sa_hi + ph, tail in order small -> large
    _two_sum(sah, ph, hs, es, t)
    es += pl
    es += sal
    np.multiply(cal, rh, out=t)
    es += t
    np.subtract(cah, qh, out=t)  # cos(a + rh) ~ ca - sa rh
    t *= rl
    es += t
    np.multiply(cah, sm, out=t)
    es += t
    np.multiply(sah, cm, out=xh)  # the big term, last
    es += xh
    # bounds: shared |rl| K_r + K_0 part in xl
    np.abs(rl, out=xl)
    xl *= K_R
    np.multiply(P_abs, g, out=t)
    t += 1.0
    t *= K_TAU
    xl += t
    xl += K_0
    _bound_into(bs, sah, xh, ph, xl, t)
    # cos: head ca_hi - qh, tail
    np.negative(qh, out=qh)
    _two_sum(cah, qh, hc, ec, t)
    ec -= ql
    ec += cal
    np.multiply(sal, rh, out=t)
    ec -= t
    np.add(sah, ph, out=t)  # sin(a + rh) ~ sa_hi + ca_hi rh
    t *= rl
    ec -= t
    np.multiply(sah, sm, out=t)
    ec -= t
    np.multiply(cah, cm, out=xh)
    ec += xh
    _bound_into(bc, cah, xh, qh, xl, t)
    return (hs, es, bs), (hc, ec, bc)


def decide(h: np.ndarray, T: np.ndarray, B: np.ndarray, f: Format, out: np.ndarray, ok: np.ndarray,
           ws: list[np.ndarray], est: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> None:
    """out = the candidate in ``f`` (as float64), ok = whether it is certainly the correct rounding of
    a value within B of h + T. ``ws``: four scratch arrays; h, T may be overwritten. ``est``: arrays
    receiving v = fl(h + T), e = h + T - v (exact) and B."""
    v, e, q, t = ws[:4]
    mant, ex, flag = _decide_scratch(v.shape)
    _two_sum(h, T, v, e, t)
    if est is not None:
        for dst, src in zip(est, (v, e, B), strict=False):
            np.copyto(dst, src)
    np.frexp(v, out=(mant, ex))
    np.subtract(ex, f.precision, out=ex)
    np.maximum(ex, f.emin - f.precision + 1, out=ex)
    np.ldexp(1.0, ex, out=q)
    np.divide(v, q, out=t)  # exact (a power of two)
    np.rint(t, out=out)
    np.subtract(t, out, out=t)
    np.abs(t, out=t)
    np.subtract(0.5, t, out=t)  # margin in units of q
    np.abs(out, out=h)
    np.equal(h, float(2 ** (f.precision - 1)), out=ok)  # a power of two: the gap below is half
    np.multiply(ok, -0.25, out=mant)
    mant += 0.5
    np.minimum(t, mant, out=t)
    t *= q
    out *= q  # the candidate, exact
    np.abs(e, out=e)
    e += B
    e *= 1 + 2.0 ** -50
    np.less(e, t, out=ok)
    np.not_equal(v, 0.0, out=flag)
    ok &= flag
    np.multiply(h, q, out=h)
    np.less_equal(h, f.max_finite, out=flag)
    ok &= flag


def sincos_narrow(x: np.ndarray, y: np.ndarray, ws: list[np.ndarray], idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The narrow kernel (TOL-TABLE-NARROW): ``(S, C)``, views into ``ws[:14]``, plain binary64 estimates of
    sin and cos of 2 pi (x + y) turns, each within K_REL_N |estimate| + K_ABS_N (module docstring)."""
    tab = angle_table()
    n, xp, sa, ca, r, z, cm, sm, p, q, t, pc, qc = ws[:13]
    H = fast._two_pi()[0]
    _reduce_into(x, n, xp, idx)
    np.take(tab[0], idx, out=sa)
    np.take(tab[2], idx, out=ca)
    np.add(xp, y, out=r)
    r *= H  # r = fl(H fl(x' + y))
    np.multiply(r, r, out=z)
    np.multiply(z, C4, out=cm)  # cm = z (-1/2 + z/24)
    cm += -0.5
    cm *= z
    np.multiply(z, C5, out=sm)  # sm = r z (-1/6 + z/120)
    sm += C3
    sm *= z
    sm *= r
    # sin: sa + (ca r + (sa cm + ca sm))
    np.multiply(ca, r, out=p)
    np.multiply(sa, cm, out=q)
    np.multiply(ca, sm, out=t)
    q += t
    p += q
    p += sa
    # cos: ca + ((ca cm - sa sm) - sa r)
    np.multiply(sa, r, out=pc)
    np.multiply(ca, cm, out=qc)
    np.multiply(sa, sm, out=t)
    qc -= t
    qc -= pc
    qc += ca
    return p, qc


@lru_cache(maxsize=256)
def narrow_thresholds(precision: int, emin: int, emax: int, k_rel: float, k_abs: float) -> np.ndarray:
    """T[E] (int64, E the biased binary64 exponent of an estimate v): an integer >= B / ulp_64(v) for
    B = k_rel |v| + k_abs, or 2^62 (never decided) where v's binade lies outside the format's normal
    range below its top binade, or where T would reach 2^(s-2) (s = 53 - precision: the distance
    from v's binade to the nearest rounding boundary below 2^E)."""
    s = 53 - precision
    E = np.arange(2048)
    ulp = np.ldexp(1.0, np.maximum(E, 1) - 1075)
    with np.errstate(over="ignore"):
        T = np.ceil(k_rel * 2.0 ** 53 * (1 + 2.0 ** -40) + k_abs / ulp) + 1
    never = (E == 0) | (E - 1023 < emin) | (E - 1023 >= emax) | ~(T < 2.0 ** (s - 2))
    T = np.where(never, 2.0 ** 62, T).astype(np.int64)
    T.setflags(write=False)
    return T


def decide_narrow(v: np.ndarray, f: Format, thr: np.ndarray, out: np.ndarray, ok: np.ndarray,
                  ints: list[np.ndarray]) -> None:
    """out = RN_f(v) (as float64), ok = whether every value within T[E] ulp_64(v) of v rounds to it.

    With b the bits of v, L = b mod 2^s (s = 53 - precision) places v between two neighbours of f in
    v's binade, whose midpoint is at L = 2^(s-1): the nearest rounding boundary is |L - 2^(s-1)|
    binary64 ulps away (the boundary below 2^E, 2^(s-2) + L away, is farther than T < 2^(s-2)).
    Then RN_f(v) is b + 2^(s-1) with the low s bits cleared (L != 2^(s-1): no tie). ``ints``: three
    int64 scratch arrays of v's shape; v must be C-contiguous."""
    s = 53 - f.precision
    b = v.view(np.int64)
    L, E, c = ints[:3]
    np.bitwise_and(b, (1 << s) - 1, out=L)
    L -= 1 << (s - 1)
    np.abs(L, out=L)
    np.right_shift(b, 52, out=E)
    E &= 0x7FF
    np.take(thr, E, out=c)
    np.greater(L, c, out=ok)
    np.add(b, 1 << (s - 1), out=c)
    c &= ~((1 << s) - 1)
    np.copyto(out, c.view(np.float64))


def settle_subnormal(v: np.ndarray, f: Format, k_rel: float, k_abs: float, out: np.ndarray, ok: np.ndarray) -> None:
    """Second look at the undecided entries whose v lies in f's subnormal range (0 < |v| < 2^emin), where
    f's values are the multiples of m = 2^(emin - precision + 1): t = v / m and t - rint(t) are exact, the
    candidate is rint(t) m and it is decided when B = k_rel |v| + k_abs stays below (1/2 - |t - rint(t)|) m."""
    sel = ~ok
    sel &= np.abs(v) < 2.0 ** f.emin
    sel &= v != 0
    if not sel.any():
        return
    m = f.min_subnormal
    vs = v[sel]
    t = vs / m
    n = np.rint(t)
    gap = (0.5 - np.abs(t - n)) * m
    B = (k_rel * np.abs(vs) + k_abs) * (1 + 2.0 ** -40)
    out[sel] = n * m
    ok[sel] = B < gap


def _decide_scratch(shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    size = int(np.prod(shape))
    cache = getattr(_LOCAL, "dec", None)
    if cache is None or cache[0].size < size:
        cache = _LOCAL.dec = (np.empty(max(size, WORK)), np.empty(max(size, WORK), dtype=np.int32),
                              np.empty(max(size, WORK), dtype=bool))
    return tuple(c[:size].reshape(shape) for c in cache)  # type: ignore[return-value]


@dataclass
class Stats:
    """Counters of one table: entries decided by the fast path and entries the oracle settled."""

    entries: int = 0
    oracle: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, entries: int, oracle: int) -> None:
        with self.lock:
            self.entries += entries
            self.oracle += oracle

    @property
    def share(self) -> float:
        return self.oracle / self.entries if self.entries else 0.0


class Plan:
    """Everything that does not depend on the positions: the column plan, frequency words, amplitude."""

    def __init__(self, profile: Profile, d: int, fmt: Format) -> None:
        self.profile, self.d, self.fmt = profile, d, fmt  # the profile names the table (messages, the certifier)
        self.cd = column_data(profile, d)  # all the kernels read
        self.fw = fast.frequency_words(self.cd)
        self.nf = self.fw.shape[1]
        ci = self.cd.index  # the definition's plan as copy instructions
        self.zero_cols = np.array(ci.zero, dtype=np.intp)
        self.sin_used = np.zeros(self.nf, dtype=bool)
        self.sin_used[ci.src["sin"]] = True
        self.cos_used = np.zeros(self.nf, dtype=bool)
        self.cos_used[ci.src["cos"]] = True
        self.sin_idx = (ci.dst["sin"], ci.src["sin"])
        self.cos_idx = (ci.dst["cos"], ci.src["cos"])
        self.amp = self.cd.amplitude
        a_hi = float(self.amp)
        self.a_hi, self.a_lo = a_hi, float(self.amp - Fraction(a_hi))
        self.kernel = "narrow" if fmt.precision <= NARROW_MAX_PRECISION else "dd"
        angle_table()  # the constants the worker threads read, built here in the calling thread
        fast._two_pi()
        self._cert = threading.local()

    def narrow_bound(self, k_tau: float) -> tuple[float, float]:
        """(k_rel, k_abs) of the narrow kernel's bound on |PE - v| = k_rel |v| + k_abs, v = fl(A_hi S) the
        scaled estimate, for a block whose reduction error is at most k_tau radians (module docstring)."""
        if self.a_hi == 1 and self.a_lo == 0:
            return K_REL_N, K_ABS_N + k_tau
        return (K_REL_N + 2 * U) * (1 + 2.0 ** -40), abs(self.a_hi) * (K_ABS_N + k_tau) * (1 + 2.0 ** -50)

    def thresholds(self, k_tau: float) -> np.ndarray:
        """:func:`narrow_thresholds` for this plan's format and amplitude (k_tau rounded up to a power of two)."""
        k_tau = 2.0 ** math.ceil(math.log2(k_tau)) if k_tau > 0 else 0.0
        k_rel, k_abs = self.narrow_bound(k_tau)
        f = self.fmt
        return narrow_thresholds(f.precision, f.emin, f.emax, k_rel, k_abs)

    def certifier(self) -> Certifier:
        """This thread's certified oracle (renewed past 100 000 cached pairs)."""
        from sinpe.reference.oracles.interval import Certifier
        c = getattr(self._cert, "c", None)
        if c is None or len(c._pairs) > 100_000:
            c = self._cert.c = Certifier((self.fmt,))
        return c


def _scale(h: np.ndarray, T: np.ndarray, B: np.ndarray, pl: Plan, ws: list[np.ndarray]) -> None:
    """(h, T, B) <- (A_hi h (exact, Dekker) , A_hi T + err + A_lo h, bound); see the module docstring.

    B' = |A_hi| (1 + 2^-50) B + 2^-52 (|A_hi T| + |err| + |A_lo h|) + 2^-100 |A_hi h| + 2^-1000: the three
    roundings of the tail, the error of A_hi + A_lo (<= 2^-106 |alpha|) and underflow.
    """
    a, alo = pl.a_hi, pl.a_lo
    ah, al = fast._split(a)
    p, err, t, hh, hl = ws[:5]
    fast.split_into(h, hh, hl)
    fast.two_product_into(h, hh, hl, a, ah, al, p, err, t)  # p + err = h A_hi
    T *= a
    np.abs(T, out=hl)  # |A_hi T|
    T += err
    np.abs(err, out=hh)
    hl += hh
    np.multiply(h, alo, out=t)
    T += t
    np.abs(t, out=t)
    hl += t
    hl *= 2.0 ** -52
    B *= abs(a) * (1 + 2.0 ** -50)
    B += hl
    np.copyto(h, p)
    np.abs(p, out=p)
    p *= 2.0 ** -100
    B += p
    B += 2.0 ** -1000
    B *= 1 + 2.0 ** -45


def _dd_rows(e: tuple[np.ndarray, np.ndarray | None, np.ndarray | None] | None, a: int,
             b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Rows a..b of one function's (V, L, B) estimates, which the double-double kernel fills all three of."""
    if e is None:
        return None
    v, lo, bound = e
    assert lo is not None and bound is not None, "Estimates.empty gives the double-double kernel L and B"
    return v[a:b], lo[a:b], bound[a:b]


@dataclass
class Estimates:
    """Buffers (rows, n_freq) receiving the fast path's estimates of alpha sin and alpha cos, V + L within B
    of the exact value (certified). The double-double kernel fills all six; the narrow kernel fills V only
    (L = 0) and its bound is k_rel |V| + k_abs with :meth:`Plan.narrow_bound` at the largest ``k_tau`` used."""

    VS: np.ndarray
    VC: np.ndarray
    LS: np.ndarray | None = None
    LC: np.ndarray | None = None
    BS: np.ndarray | None = None
    BC: np.ndarray | None = None
    k_tau: float = 0.0

    @classmethod
    def empty(cls, pl: Plan, shape: tuple[int, int]) -> Estimates:
        if pl.kernel == "narrow":
            return cls(np.empty(shape), np.empty(shape))
        vs, vc, ls, lc, bs, bc = (np.empty(shape) for _ in range(6))
        return cls(vs, vc, ls, lc, bs, bc)

    def cols(self, k0: int, k1: int) -> Estimates:
        def part(a: np.ndarray | None) -> np.ndarray | None:
            return None if a is None else a[:, k0:k1]
        return Estimates(self.VS[:, k0:k1], self.VC[:, k0:k1], part(self.LS), part(self.LC), part(self.BS), part(self.BC))


@dataclass
class Enclosure:
    """The exact table within B of v + lo, entry by entry (arrays (rows, d); ``lo`` None means 0 and ``B``
    None means k_rel |v| + k_abs, the narrow kernel's bound)."""

    v: np.ndarray
    lo: np.ndarray | None
    B: np.ndarray | None
    k_rel: float = 0.0
    k_abs: float = 0.0

    def lo_at(self, idx: Any) -> np.ndarray:
        return np.zeros(self.v[idx].shape) if self.lo is None else self.lo[idx]

    def bound_at(self, idx: Any) -> np.ndarray:
        if self.B is not None:
            return self.B[idx]
        return (self.k_rel * np.abs(self.v[idx]) + self.k_abs) * (1 + 2.0 ** -40)


def rounded_pairs(pl: Plan, P_hi: np.ndarray, P_lo: np.ndarray, S: np.ndarray, C: np.ndarray,
                  okS: np.ndarray, okC: np.ndarray, k0: int = 0, est: Estimates | None = None) -> None:
    """S, C (rows, kc) = candidates for sin and cos columns k0..k0+kc at positions P (dd), okS/okC their verdicts.

    ``est``: optional :class:`Estimates` (columns k0..k0+kc already selected) receiving the estimates and
    their bounds (certified; used by the checker's exact and faithful tiers)."""
    rows, kc = S.shape
    fw = pl.fw[:, k0:k0 + kc]
    wsp = _workspace()
    P1, P2 = fast._split(P_hi)
    two = bool(np.any(P2))
    has_lo = bool(np.any(P_lo))
    P_abs = (np.abs(P_hi) + np.abs(P_lo) + 1.0) * (1 + 2.0 ** -40)
    g = np.abs(fw[0]) * (1 + 2.0 ** -20)
    g_max = float(g.max()) if g.size else 0.0
    scaled = pl.a_hi != 1 or pl.a_lo != 0
    step = max(1, wsp.n // kc)
    for a in range(0, rows, step):
        b = min(rows, a + step)
        ws, idx = wsp.get((b - a, kc))
        x, y = fast.turns_block((P1 if two else P_hi)[a:b, None], P_lo[a:b, None] if has_lo else None,
                                P2[a:b, None] if two else None, fw, ws[24:30])
        # turns_block returns views into ws[24:30]; copy them out of the way of the kernels' scratch
        xs, ys = ws[28], ws[29]  # x is ws[24], y ws[25] or ws[26]
        np.copyto(xs, x)
        np.copyto(ys, y)
        outs = (S, C), (okS, okC), ((None, None) if est is None else ((est.VS, est.LS, est.BS),
                                                                        (est.VC, est.LC, est.BC)))
        if pl.kernel == "narrow":
            k_tau = K_TAU * float(P_abs[a:b].max()) * g_max + K_TAU  # eps_tau of the block's largest |P| g
            thr = pl.thresholds(k_tau)
            ints = wsp.ints((b - a, kc))
            for v, dst, ok, e in zip(sincos_narrow(xs, ys, ws, idx), *outs, strict=False):
                if scaled:
                    v *= pl.a_hi
                decide_narrow(v, pl.fmt, thr, dst[a:b], ok[a:b], ints)
                k_rel, k_abs = pl.narrow_bound(k_tau)
                if not ok[a:b].all():
                    settle_subnormal(v, pl.fmt, k_rel, k_abs, dst[a:b], ok[a:b])
                if e is not None:
                    np.copyto(e[0][a:b], v)
            if est is not None:
                est.k_tau = max(est.k_tau, k_tau)
            continue
        sc = sincos_dd(xs, ys, P_abs[a:b, None], g, ws, idx)
        for (h, T, B), dst, ok, e in zip(sc, *outs, strict=False):
            if scaled:
                _scale(h, T, B, pl, [ws[i] for i in (0, 1, 2, 3, 4)])
            decide(h, T, B, pl.fmt, dst[a:b], ok[a:b], [ws[i] for i in (5, 6, 7, 8)], _dd_rows(e, a, b))
