"""Correctly rounded PE values at NumPy speed (SPEC.md REQ-TABLE-FAST, TOL-TABLE-BOUND).

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
from typing import Any, Sequence

import numpy as np

from sinpe.spec.definition import columns
from sinpe.spec.formats import Format, get_format
from sinpe.spec.profiles import Profile

from sinpe.reference.oracles import fast
from sinpe.reference.oracles.interval import Certifier

U = 2.0 ** -53
TABLE_BITS = 10
N_TABLE = 1 << TABLE_BITS
RHO = math.pi / N_TABLE * (1 + 2.0 ** -40)  # |rh| <= pi/1024 (|x'| <= 1/2048 turns)
K_CM = 6.2 * U
K_A = 5 * U * U + U * RHO ** 2 / 2 + 2.0 ** -80
K_B = 15 * U * U + 1.3 * U * RHO ** 2 + 2.0 ** -84
K_R = 8 * U + RHO ** 2 / 2 + 2.0 ** -51
K_0 = 2.0 ** -101 + 2.0 ** -1000
SAFETY = 1 + 2.0 ** -40
WORK = 1 << 14  # entries per kernel call: the ~30 scratch arrays stay in L2 cache


K_TAU = 2 * math.pi * 2.0 ** -100 * (1 + 2.0 ** -40)  # eps_tau in radians per turn of |tau| = |P| g_k (and the 1)


@lru_cache(maxsize=1)
def angle_table() -> np.ndarray:
    """Array (8, 1024): sin a_n hi, lo, cos a_n hi, lo, then Dekker halves of sin hi and cos hi (a_n = 2 pi n/1024).

    >>> t = angle_table()
    >>> t[[0, 2, 1, 2], [256, 256, 512, 512]].tolist()   # sin pi/2, cos pi/2, sin pi (lo), cos pi: exact
    [1.0, 0.0, 0.0, -1.0]
    """
    import mpmath
    out = np.zeros((8, N_TABLE))
    with mpmath.workprec(256):
        for n in range(N_TABLE):
            if n % (N_TABLE // 4) == 0:
                q = n // (N_TABLE // 4)
                out[0:4, n] = ((0.0, 0.0, 1.0, 0.0), (1.0, 0.0, 0.0, 0.0), (0.0, 0.0, -1.0, 0.0), (-1.0, 0.0, 0.0, 0.0))[q]
                continue
            a = 2 * mpmath.pi * n / N_TABLE
            for i, v in ((0, mpmath.sin(a)), (2, mpmath.cos(a))):
                hi = float(v)
                out[i, n], out[i + 1, n] = hi, float(v - hi)
    for i, src in ((4, 0), (6, 2)):
        c = fast._SPLIT * out[src]
        out[i] = c - (c - out[src])
        out[i + 1] = out[src] - out[i]
    out.setflags(write=False)
    return out


class Workspace:
    """Scratch arrays for one thread (``WORK`` entries each), reused from block to block."""

    def __init__(self, n: int = WORK) -> None:
        self.n = n
        self.f = [np.empty(n) for _ in range(30)]
        self.i = np.empty(n, dtype=np.intp)

    def get(self, shape: tuple[int, int]) -> tuple[list[np.ndarray], np.ndarray]:
        size = shape[0] * shape[1]
        return [w[:size].reshape(shape) for w in self.f], self.i[:size].reshape(shape)


_LOCAL = threading.local()


def _workspace() -> Workspace:
    ws = getattr(_LOCAL, "ws", None)
    if ws is None:
        ws = _LOCAL.ws = Workspace()
    return ws


def _dekker(a: np.ndarray, ah: np.ndarray, al: np.ndarray, b: np.ndarray, bh: np.ndarray, bl: np.ndarray,
            p: np.ndarray, err: np.ndarray, t: np.ndarray) -> None:
    """p + err = a * b exactly (Dekker; ah + al and bh + bl the 26-bit halves)."""
    np.multiply(a, b, out=p)
    np.multiply(ah, bh, out=err)
    err -= p
    np.multiply(ah, bl, out=t)
    err += t
    np.multiply(al, bh, out=t)
    err += t
    np.multiply(al, bl, out=t)
    err += t


def _two_sum(a: np.ndarray, b: np.ndarray, s: np.ndarray, e: np.ndarray, t: np.ndarray) -> None:
    fast._two_sum_into(a, b, s, e, t)


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
    np.multiply(x, float(N_TABLE), out=n)
    np.rint(n, out=n)
    np.multiply(n, 1.0 / N_TABLE, out=xp)
    np.subtract(x, xp, out=xp)  # x' exact
    np.copyto(idx, n, casting="unsafe")
    np.bitwise_and(idx, N_TABLE - 1, out=idx)
    for dst, row in ((sah, 0), (sal, 1), (cah, 2), (cal, 3), (sahh, 4), (sahl, 5), (cahh, 6), (cahl, 7)):
        np.take(tab[row], idx, out=dst)
    # rh + rl = 2 pi (x' + y): Dekker product of x' by the split 2pi_hi, then the small terms
    np.multiply(xp, fast._SPLIT, out=t)
    np.subtract(t, xp, out=xh)
    np.subtract(t, xh, out=xh)
    np.subtract(xp, xh, out=xl)
    np.multiply(xp, H, out=rh)
    np.multiply(xh, Hh, out=rl)
    rl -= rh
    np.multiply(xh, Hl, out=t)
    rl += t
    np.multiply(xl, Hh, out=t)
    rl += t
    np.multiply(xl, Hl, out=t)
    rl += t
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
    np.multiply(rh, fast._SPLIT, out=t)
    np.subtract(t, rh, out=xh)
    np.subtract(t, xh, out=xh)
    np.subtract(rh, xh, out=xl)
    _dekker(cah, cahh, cahl, rh, xh, xl, ph, pl, t)
    _dekker(sah, sahh, sahl, rh, xh, xl, qh, ql, t)
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
    np.abs(xh, out=xh)
    # bounds: shared |rl| K_r + K_0 part in xl
    np.abs(rl, out=xl)
    xl *= K_R
    np.multiply(P_abs, g, out=t)
    t += 1.0
    t *= K_TAU
    xl += t
    xl += K_0
    np.abs(sah, out=bs)
    bs *= K_A
    xh *= K_CM
    bs += xh
    np.abs(ph, out=t)
    t *= K_B
    bs += t
    bs += xl
    bs *= SAFETY
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
    np.abs(xh, out=xh)
    np.abs(cah, out=bc)
    bc *= K_A
    xh *= K_CM
    bc += xh
    np.abs(qh, out=t)
    t *= K_B
    bc += t
    bc += xl
    bc *= SAFETY
    return (hs, es, bs), (hc, ec, bc)


def decide(h: np.ndarray, T: np.ndarray, B: np.ndarray, f: Format, out: np.ndarray, ok: np.ndarray,
           ws: list[np.ndarray]) -> None:
    """out = the candidate in ``f`` (as float64), ok = whether it is certainly the correct rounding of
    a value within B of h + T. ``ws``: four scratch arrays; h, T may be overwritten."""
    v, e, q, t = ws[:4]
    mant, ex, flag = _decide_scratch(v.shape)
    _two_sum(h, T, v, e, t)
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


def _as_slice(idx: np.ndarray) -> "slice | np.ndarray":
    """A slice selecting the same elements when ``idx`` is an arithmetic progression (faster copies)."""
    if idx.size == 0:
        return slice(0, 0)
    if idx.size == 1:
        return slice(int(idx[0]), int(idx[0]) + 1)
    step = int(idx[1] - idx[0])
    if step > 0 and np.array_equal(idx, np.arange(idx[0], idx[0] + step * idx.size, step)):
        return slice(int(idx[0]), int(idx[0]) + step * (idx.size - 1) + 1, step)
    return idx


class Plan:
    """Everything that does not depend on the positions: the column plan, frequency words, amplitude."""

    def __init__(self, profile: Profile, d: int, fmt: Format) -> None:
        self.profile, self.d, self.fmt = profile, d, fmt
        self.fw = fast.frequency_words(profile, d)
        self.nf = self.fw.shape[1]
        kind, ks = fast.column_plan(profile, d)
        self.sin_cols = np.nonzero(kind == 0)[0]
        self.cos_cols = np.nonzero(kind == 1)[0]
        self.zero_cols = np.nonzero(kind == 2)[0]
        self.sin_ks, self.cos_ks = ks[self.sin_cols], ks[self.cos_cols]
        self.sin_used = np.zeros(self.nf, dtype=bool)
        self.sin_used[self.sin_ks] = True
        self.cos_used = np.zeros(self.nf, dtype=bool)
        self.cos_used[self.cos_ks] = True
        self.sin_idx = (_as_slice(self.sin_cols), _as_slice(self.sin_ks))
        self.cos_idx = (_as_slice(self.cos_cols), _as_slice(self.cos_ks))
        self.amp = profile.amplitude
        a_hi = float(self.amp)
        self.a_hi, self.a_lo = a_hi, float(self.amp - Fraction(a_hi))
        self._cert = threading.local()

    def certifier(self) -> Certifier:
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
    ca = fast._SPLIT * a
    ah = ca - (ca - a)
    al = a - ah
    p, err, t, hh, hl = ws[:5]
    np.multiply(h, fast._SPLIT, out=t)
    np.subtract(t, h, out=hh)
    np.subtract(t, hh, out=hh)
    np.subtract(h, hh, out=hl)
    np.multiply(h, a, out=p)
    np.multiply(hh, ah, out=err)
    err -= p
    np.multiply(hh, al, out=t)
    err += t
    np.multiply(hl, ah, out=t)
    err += t
    np.multiply(hl, al, out=t)
    err += t
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


def rounded_pairs(pl: Plan, P_hi: np.ndarray, P_lo: np.ndarray, S: np.ndarray, C: np.ndarray,
                  okS: np.ndarray, okC: np.ndarray, k0: int = 0) -> None:
    """S, C (rows, kc) = candidates for sin and cos columns k0..k0+kc at positions P (dd), okS/okC their verdicts."""
    rows, kc = S.shape
    fw = pl.fw[:, k0:k0 + kc]
    wsp = _workspace()
    P1, P2 = fast._split(P_hi)
    two = bool(np.any(P2))
    has_lo = bool(np.any(P_lo))
    P_abs = (np.abs(P_hi) + np.abs(P_lo) + 1.0) * (1 + 2.0 ** -40)
    g = np.abs(fw[0]) * (1 + 2.0 ** -20)
    step = max(1, wsp.n // kc)
    for a in range(0, rows, step):
        b = min(rows, a + step)
        ws, idx = wsp.get((b - a, kc))
        x, y = fast.turns_block((P1 if two else P_hi)[a:b, None], P_lo[a:b, None] if has_lo else None,
                                P2[a:b, None] if two else None, fw, ws[24:30])
        # turns_block returns views into ws[24:30]; copy them out of the way of sincos_dd's scratch
        xs, ys = ws[28], ws[29]  # x is ws[24], y ws[25] or ws[26]
        np.copyto(xs, x)
        np.copyto(ys, y)
        sc = sincos_dd(xs, ys, P_abs[a:b, None], g, ws, idx)
        for (h, T, B), dst, ok in zip(sc, (S, C), (okS, okC)):
            if pl.a_hi != 1 or pl.a_lo != 0:
                _scale(h, T, B, pl, [ws[i] for i in (0, 1, 2, 3, 4)])
            decide(h, T, B, pl.fmt, dst[a:b], ok[a:b], [ws[i] for i in (5, 6, 7, 8)])
