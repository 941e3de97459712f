"""Reference values for grids and rotary caches (SPEC.md REQ-REF-GRID, REQ-REF-ROPE).

Both are tables of ``A_a * f(x * W)`` with f in {sin, cos, 0}: x an exact rational coordinate of
the row on axis a, W an exact real frequency (a rule: ``b^(-e)``, 2 pi factors, llama3 or yarn
blends), A_a an exact real amplitude. An :class:`AnglePlan` says, for each column, its kind,
axis and frequency, and for each row its coordinate index per axis (or a zero row).

- :func:`reference_f64` evaluates the plan with the double-double argument reduction of
  :mod:`sinpe.reference.oracles.fast` (frequency words from a 330-bit interval enclosure of W),
  to about 1 ulp of binary64 (``fast.error_bound`` is the bound decisions use).
- :func:`enclose` and :func:`rounded_table` are certified: mpmath interval arithmetic (``mpmath.iv``)
  on the exact inputs, both ends rounded to the target format, precision doubled until they agree
  (Ziv), as :mod:`sinpe.reference.oracles.interval` does for DEF-FAMILY.

>>> import numpy as np
>>> from sinpe.spec.rotary import get_rotary
>>> plan = rotary_plan(get_rotary("llama"), 4, [0, 1, 100], "cos")
>>> rounded_table(plan, "binary64")[1].tolist()   # cos 1, cos 0.01, cos 1, cos 0.01
[0.5403023058681398, 0.9999500004166653, 0.5403023058681398, 0.9999500004166653]
>>> v, th = reference_f64(plan)
>>> ulps = np.abs(v - rounded_table(plan, "binary64")) / np.spacing(np.abs(v))   # within 1 ulp
>>> float(ulps.max()) <= 1, th[2].tolist()
(True, [100.0, 1.0, 100.0, 1.0])
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from sinpe.reference.numerics.rounding import round_to_format
from sinpe.reference.oracles import fast as fastref
from sinpe.spec.definition import column_data, frequency
from sinpe.spec.formats import Format, get_format
from sinpe.spec.grid import Grid, axis_phase_factor, grid_columns, grid_positions
from sinpe.spec.profiles import Profile
from sinpe.spec.rotary import (
    RotaryProfile,
    Undecided,
    attention_factor,
    axis_of,
    frequencies,
    frequency_index,
    sections,
    width,
    xpos_exponent,
    xpos_zeta,
)

KINDS = {"sin": 0, "cos": 1, "zero": 2}
MAX_GROWTH = 700.0  # |ln| of a per-entry scale past which binary64 over- or underflows (DEF-ROPE-XPOS)
MAX_PREC = 1 << 13
WORD_PREC = 330


@dataclass(frozen=True)
class Growth:
    """A per-entry amplitude (DEF-ROPE-XPOS): entry (r, j) is multiplied by exp(rates[f] * q_r), f its frequency,
    q_r = slope * (x_r + shift) from the row's coordinate x_r on the column's axis; ``rates(ctx)`` gives each
    frequency's rate (ln zeta_f) as values of an mpmath context."""

    rates: Callable[[Any], list[Any]]
    shift: Fraction
    slope: Fraction

    def exponent(self, x: Fraction) -> Fraction:
        """q of a row at coordinate x (exact)."""
        return self.slope * (x + self.shift)


@dataclass
class AnglePlan:
    """Column j: ``kinds[j]`` (0 sin, 1 cos, 2 zero) of frequency ``fids[j]`` on axis ``axes[j]``.

    Row r: coordinate ``coords[a][index[r, a]]`` on axis a (exact rationals), or a zero row where
    ``zero_rows[r]``. ``omega(ctx)`` gives every frequency and ``amplitude(ctx)`` every axis's A as
    values of an mpmath context (``mpmath.iv`` for enclosures). ``base`` is the base the phase
    tier's constant uses (TOL-PHASE-C); ``labels`` name the columns in reports; ``growth`` (None: none) a
    per-entry amplitude exp(rate_f q_r) on top of A (DEF-ROPE-XPOS).
    """

    kinds: np.ndarray
    fids: np.ndarray
    axes: np.ndarray
    coords: list[list[Fraction]]
    index: np.ndarray
    zero_rows: np.ndarray
    omega: Callable[[Any], list[Any]]
    amplitude: Callable[[Any], list[Any]]
    base: float
    labels: list[str]
    row_labels: list[str]
    memo: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)  # reference_f64, once per plan
    growth: Growth | None = None
    # what ``omega`` is a function of, hashable (a rotary plan: its profile and dim), or None: the frequencies'
    # enclosures and words are then computed once per key in this process (:func:`frequency_enclosures`)
    key: Any = field(default=None, compare=False)

    @property
    def shape(self) -> tuple[int, int]:
        return int(self.index.shape[0]), int(self.kinds.shape[0])


# --- plans -------------------------------------------------------------------------------------

def grid_plan(g: Grid, cells: Sequence[Sequence[int]] | None = None) -> AnglePlan:
    """The plan of a grid (DEF-GRID): one axis per channel block, cls rows zero; ``cells`` picks rows
    (spatial indices, no cls rows) instead of the whole grid."""
    cols = grid_columns(g)
    fid_of: dict[tuple[int, int], int] = {}
    for c in cols:
        if c.kind != "zero":
            fid_of.setdefault((c.axis, c.k), len(fid_of))
    fids = np.array([fid_of.get((c.axis, c.k), 0) for c in cols], dtype=np.intp)
    cls = g.cls if cells is None else 0
    cells = grid_positions(g) if cells is None else [tuple(int(i) for i in c) for c in cells]
    values = [sorted({c[a.spatial] for c in cells}) for a in g.axes]
    coords = [[axis_phase_factor(a, i) for i in vs] for a, vs in zip(g.axes, values, strict=True)]
    where = [{i: n for n, i in enumerate(vs)} for vs in values]
    index = np.zeros((cls + len(cells), len(g.axes)), dtype=np.intp)
    for r, cell in enumerate(cells):
        index[cls + r] = [where[ai][cell[a.spatial]] for ai, a in enumerate(g.axes)]
    zero_rows = np.zeros(cls + len(cells), dtype=bool)
    zero_rows[:cls] = True
    keys = sorted(fid_of, key=fid_of.__getitem__)

    def omega(ctx: Any) -> list[Any]:
        return [_axis_frequency(ctx, column_data(g.axes[a].profile, g.axes[a].width), k, g.axes[a].turns)
                for a, k in keys]

    def amplitude(ctx: Any) -> list[Any]:
        return [_q(ctx, column_data(a.profile, a.width).amplitude) for a in g.axes]

    rl = [f"cls{r}" for r in range(cls)] + [str(c) for c in cells]
    return AnglePlan(np.array([KINDS[c.kind] for c in cols], dtype=np.int8), fids,
                     np.array([c.axis for c in cols], dtype=np.intp), coords, index, zero_rows, omega, amplitude,
                     float(column_data(g.axes[0].profile, g.axes[0].width).base) if g.axes else 10000.0,
                     [c.label for c in cols], rl)


_AXIS_FREQUENCIES: dict[tuple[Any, ...], Any] = {}  # (prec, e_k, base, turns) -> an axis frequency in mpmath.iv


def _axis_frequency(ctx: Any, cd: Any, k: int, turns: bool) -> Any:
    """A grid axis's frequency w_k = frequency(cd, k) (times 2 pi for an axis in turns) in ``ctx``. In mpmath.iv,
    once per (precision, e_k, b, turns), what DEF-SCHEDULE's w_k = b^(-e_k) is a function of: detect's tens of grid
    candidates (layouts, cls rows, axis orders) share most of their frequencies."""
    def compute() -> Any:
        w = frequency(cd, k, _CtxBackend(ctx))
        return 2 * ctx.pi * w if turns else w
    if ctx is not mpmath.iv:
        return compute()
    key = (ctx.prec, cd.exponents[k], cd.base, bool(turns))
    if key not in _AXIS_FREQUENCIES:
        if len(_AXIS_FREQUENCIES) >= 1 << 16:
            _AXIS_FREQUENCIES.clear()
        _AXIS_FREQUENCIES[key] = compute()
    return _AXIS_FREQUENCIES[key]


def profile_plan(profile: Profile, d: int, positions: Sequence[Any]) -> AnglePlan:
    """The plan of a 1-D DEF-FAMILY table at exact positions (theta = sigma (p + o) w_k; sparse detection)."""
    cd = column_data(profile, d)
    pos = [Fraction(p) if not isinstance(p, (np.floating, float)) else Fraction(float(p)) for p in positions]
    coords = [cd.scale * (p + cd.offset) for p in pos]
    return AnglePlan(np.array([KINDS[f] for f in cd.kinds], dtype=np.int8),
                     np.array(cd.labels, dtype=np.intp), np.zeros(d, dtype=np.intp), [coords],
                     np.arange(len(pos), dtype=np.intp)[:, None], np.zeros(len(pos), dtype=bool),
                     lambda ctx: [frequency(cd, k, _CtxBackend(ctx)) for k in range(cd.n_frequencies)],
                     lambda ctx: [_q(ctx, cd.amplitude)], float(cd.base), [c.label for c in cd.columns],
                     [str(p) for p in pos])


def channels_plan(channels: Sequence[tuple[str, Fraction | None]], positions: Sequence[Any],
                  amplitude: Fraction = Fraction(1), offset: Fraction = Fraction(0),
                  phase_scale: Fraction = Fraction(1)) -> AnglePlan:
    """DEF-CHANNELS-EXPLICIT: column j is alpha * f_j(sigma (p + o) w_j) with (f_j, w_j) given per column (f in sin,
    cos, zero; w an exact rational, None for zero), at exact positions p."""
    omegas: list[Fraction] = []
    for f, w in channels:
        if f == "zero":
            continue
        if w is None:
            raise ValueError(f"channel {f} has no frequency")
        if w not in omegas:
            omegas.append(w)
    fid: dict[Fraction | None, int] = {w: i for i, w in enumerate(omegas)}
    fids = np.array([fid[w] if f != "zero" else 0 for f, w in channels], dtype=np.intp)
    coords = [[phase_scale * (_exact(p) + offset) for p in positions]]
    rows, d = len(positions), len(channels)
    labels = ["zero" if f == "zero" else f"{f}{fid[w]}" for f, w in channels]
    return AnglePlan(np.array([KINDS[f] for f, _ in channels], dtype=np.int8), fids, np.zeros(d, dtype=np.intp),
                     coords, np.arange(rows, dtype=np.intp)[:, None], np.zeros(rows, dtype=bool),
                     lambda ctx: [_q(ctx, w) for w in omegas], lambda ctx: [_q(ctx, amplitude)], 10000.0, labels,
                     [_row_label(p) for p in positions])


def rotary_plan(rp: RotaryProfile, dim: int, positions: Sequence[Any], which: str) -> AnglePlan:
    """The plan of a rotary ``cos`` or ``sin`` cache (DEF-ROPE) at exact positions: one per row, or (DEF-ROPE-AXES)
    a tuple per row with one coordinate per position axis (a single number is read on every axis)."""
    if which not in ("cos", "sin"):
        raise ValueError(f"a rotary cache is 'cos' or 'sin'; got {which!r}")
    n = width(rp, dim)
    n_axes = len(sections(rp, dim))
    coords = rotary_coordinates(positions, n_axes)
    fids = np.array([frequency_index(rp.layout, dim, j) for j in range(n)], dtype=np.intp)
    axes = np.array(axis_of(rp, dim), dtype=np.intp)[fids]
    rows = len(positions)
    labels = [f"{which}{k}" if n_axes == 1 else f"{which}{k}@a{a}" for k, a in zip(fids.tolist(), axes.tolist(), strict=True)]
    return AnglePlan(np.full(n, KINDS[which], dtype=np.int8), fids, axes, coords,
                     np.tile(np.arange(rows, dtype=np.intp)[:, None], (1, n_axes)), np.zeros(rows, dtype=bool),
                     lambda ctx: frequencies(rp, dim, ctx), lambda ctx: [attention_factor(rp, ctx)] * n_axes,
                     float(rp.base), labels, [_row_label(p) for p in positions], growth=xpos_growth(rp, dim, coords),
                     key=("rotary", rp, dim))


def xpos_growth(rp: RotaryProfile, dim: int, coords: list[list[Fraction]]) -> Growth | None:
    """DEF-ROPE-XPOS as a plan's growth: rates ln zeta_k, q = s (p + o)/sb (None for a profile without xPos)."""
    if rp.xpos_scale_base is None:
        return None
    shift, slope = xpos_exponent(rp, coords[0])
    zeta = xpos_zeta(rp, dim)
    return Growth(lambda ctx: [ctx.log(_q(ctx, z)) for z in zeta], shift, slope)


def _exact(p: Any) -> Fraction:
    return Fraction(float(p)) if isinstance(p, (np.floating, float)) else Fraction(p)


def rotary_coordinates(positions: Sequence[Any], n_axes: int) -> list[list[Fraction]]:
    """Per axis, each row's exact coordinate: ``positions`` holds a number per row (read on every axis) or a
    sequence of ``n_axes`` numbers per row (ValueError otherwise)."""
    out: list[list[Fraction]] = [[] for _ in range(n_axes)]
    for r, p in enumerate(positions):
        xs = list(p) if isinstance(p, (tuple, list, np.ndarray)) else [p] * n_axes
        if len(xs) != n_axes:
            raise ValueError(f"row {r}: {len(xs)} coordinates for a profile of {n_axes} position axes")
        for a, x in enumerate(xs):
            out[a].append(_exact(x))
    return out


def _row_label(p: Any) -> str:
    if isinstance(p, (tuple, list, np.ndarray)):
        return "(" + ", ".join(str(_exact(x)) for x in p) + ")"
    return str(_exact(p))


class _CtxBackend:
    """definition.Backend on an mpmath context (so grid axes reuse DEF-FAMILY's frequency)."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.zero = ctx.mpf(0)

    def num(self, x: Fraction) -> Any:
        return _q(self.ctx, x)

    def sin(self, x: Any) -> Any:
        return self.ctx.sin(x)

    def cos(self, x: Any) -> Any:
        return self.ctx.cos(x)

    def pow(self, base: Any, e: Any) -> Any:
        return self.ctx.power(base, e)


def _q(ctx: Any, x: Fraction) -> Any:
    return ctx.mpf(x.numerator) / x.denominator


def _at_prec(fn: Callable[[Any], list[Any]], prec: int) -> list[Any]:
    """fn(mpmath.iv) at ``prec`` bits, raising precision while a rule's comparison is undecided."""
    while True:
        old = mpmath.iv.prec
        mpmath.iv.prec = prec
        try:
            return fn(mpmath.iv)
        except Undecided:
            prec *= 2
            if prec > MAX_PREC:
                raise
        finally:
            mpmath.iv.prec = old


# --- fast float64 reference ----------------------------------------------------------------------

def _words(omegas: list[Any]) -> np.ndarray:
    """fast.frequency_words' layout (7, n) for exact frequencies W (g = W / 2 pi), from 330-bit enclosures."""
    out = np.empty((7, len(omegas)))
    with mpmath.workprec(WORD_PREC):
        inv_two_pi = 1 / (2 * mpmath.pi)
        for k, w in enumerate(omegas):
            wm = _mid(w)
            rest = wm * inv_two_pi
            for i in range(4):
                word = fastref._round_bits(rest, 27) if i < 3 else mpmath.mpf(float(rest))
                out[i, k] = float(word)
                rest = rest - word
            out[4, k] = float(wm)
    out[5] = out[2] + out[3]
    out[6] = out[0] + out[1]
    return out


def ends(x: Any) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The exact endpoints of an ``mpmath.iv`` value as mpmath numbers (no rounding to mp.prec)."""
    a, b = x._mpi_
    return mpmath.mp.make_mpf(a), mpmath.mp.make_mpf(b)


def _mid(x: Any) -> mpmath.mpf:
    a, b = ends(x)
    with mpmath.workprec(WORD_PREC + 10):
        return (a + b) / 2


def _check_enclosures(omegas: list[Any]) -> None:
    for w in omegas:
        a, b = ends(w)
        with mpmath.workprec(WORD_PREC):
            if b - a > abs(a) * mpmath.mpf(2) ** -200:
                raise ArithmeticError("frequency enclosure too wide for the fast reference")


def reference_f64(plan: AnglePlan) -> tuple[np.ndarray, np.ndarray]:
    """``(values, theta)`` (rows, d) in float64: every entry within ~1 ulp (``fast.error_bound``);
    theta is NaN in zero columns and zero rows (their bound is the ulp one). Computed once per plan (kept in
    ``plan.memo``, read-only): detect checks one plan at several formats and working precisions."""
    if "f64" not in plan.memo:
        vals, theta = _reference_f64(plan)
        vals.setflags(write=False)
        theta.setflags(write=False)
        plan.memo["f64"] = (vals, theta)
    return plan.memo["f64"]


def frequency_enclosures(plan: AnglePlan) -> list[Any]:
    """The plan's frequencies at WORD_PREC bits (``mpmath.iv``), computed once per plan (``plan.memo``), and once
    per ``plan.key`` where the plan has one (:func:`omegas_at`): detect tries the same rotary candidates on every
    cache of a width."""
    if "omegas" not in plan.memo:
        plan.memo["omegas"] = omegas_at(plan, WORD_PREC)
    return plan.memo["omegas"]


_KEYED_MAX = 1024
_KEYED_AT: dict[tuple[Any, int], tuple[Any, ...]] = {}  # (plan.key, prec) -> the frequency enclosures at prec bits
_KEYED_WORDS: dict[Any, np.ndarray] = {}  # plan.key -> the words of its WORD_PREC enclosures (read-only)


def omegas_at(plan: AnglePlan, prec: int) -> list[Any]:
    """The plan's frequency enclosures at ``prec`` bits (``mpmath.iv``; more where a rule's comparison needs it), once
    per (``plan.key``, ``prec``) where the plan has a key (mpmath.iv values never change): the words of detect's
    candidates and the oracle's escalations of tens of candidate plans with the same frequencies compute them once."""
    if plan.key is None:
        return _at_prec(plan.omega, prec)
    got = _KEYED_AT.get((plan.key, prec))
    if got is None:
        if len(_KEYED_AT) >= _KEYED_MAX:
            _KEYED_AT.clear()
        got = _KEYED_AT[(plan.key, prec)] = tuple(_at_prec(plan.omega, prec))
    return list(got)


def _plan_words(plan: AnglePlan, omegas: list[Any]) -> np.ndarray:
    """:func:`_words` of the plan's frequencies ``omegas`` after :func:`_check_enclosures`; once per ``plan.key``
    where the plan has one (``omegas`` are then the key's own)."""
    if plan.key is None:
        _check_enclosures(omegas)
        return _words(omegas)
    fw = _KEYED_WORDS.get(plan.key)
    if fw is None:
        enclosures = omegas_at(plan, WORD_PREC)
        _check_enclosures(enclosures)
        fw = _words(enclosures)
        fw.setflags(write=False)
        if len(_KEYED_WORDS) >= _KEYED_MAX:
            _KEYED_WORDS.clear()
        _KEYED_WORDS[plan.key] = fw
    return fw


def plan_rows(plan: AnglePlan, rows: np.ndarray, share: bool = True) -> AnglePlan:
    """The plan restricted to ``rows`` (a screen of a few rows), sharing the plan's frequency enclosures (``share``:
    computed now if they are not yet): a candidate screened and then checked whole computes its frequencies once."""
    import dataclasses
    rows = np.asarray(rows, dtype=np.intp)
    return dataclasses.replace(plan, index=plan.index[rows], zero_rows=plan.zero_rows[rows],
                               row_labels=[plan.row_labels[r] for r in rows],
                               memo={"omegas": frequency_enclosures(plan)} if share else {})


def _reference_f64(plan: AnglePlan) -> tuple[np.ndarray, np.ndarray]:
    fw = _plan_words(plan, frequency_enclosures(plan))  # the enclosures checked first, as narrow as the words need
    amps = [float(_mid(a)) for a in _at_prec(plan.amplitude, 128)]
    rows, d = plan.shape
    vals = np.zeros((rows, d))
    theta = np.full((rows, d), np.nan)
    for a in range(len(plan.coords)):
        cols = np.nonzero((plan.axes == a) & (plan.kinds != 2))[0]
        if not cols.size:
            continue
        fids = np.unique(plan.fids[cols])
        S, C, th = _sincos(plan.coords[a], fw[:, fids])
        where = np.searchsorted(fids, plan.fids[cols])
        live = ~plan.zero_rows
        ridx = plan.index[live, a]
        for code, src in ((0, S), (1, C)):
            sel = plan.kinds[cols] == code
            if sel.any():
                cc = cols[sel]
                vals[np.ix_(live, cc)] = src[np.ix_(ridx, where[sel])] * amps[a]
                theta[np.ix_(live, cc)] = th[np.ix_(ridx, where[sel])]
    if plan.growth is not None:
        factor, q, _ = growth_f64(plan)
        vals *= factor
        theta = np.abs(theta) + np.abs(q)
    return vals, theta


def growth_f64(plan: AnglePlan) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(factor, q, rel) of a plan with a growth (DEF-ROPE-XPOS), each (rows, d): exp(rate_f q_r) in float64, the
    exponent q_r (its |q| is added to |theta| in the phase bound), and a bound on the relative error the factor
    adds to the reference (rate and q rounded, their product, exp: (3|y| + 8) 2^-53 with y = rate q, plus twice
    fast.ERROR_ULPS ulps for the sin/cos bound read in the scaled value's binade). Once per plan (``plan.memo``)."""
    if "growth" in plan.memo:
        return plan.memo["growth"]
    g = plan.growth
    assert g is not None
    rates = np.array([float(_mid(r)) for r in _at_prec(g.rates, 128)])
    rows, d = plan.shape
    q = np.zeros((rows, d))
    for a in range(len(plan.coords)):
        cols = np.nonzero(plan.axes == a)[0]
        qa = np.array([float(g.exponent(x)) for x in plan.coords[a]])
        q[:, cols] = qa[plan.index[:, a]][:, None]
    y = rates[plan.fids][None, :] * q
    if np.abs(y).max(initial=0.0) > MAX_GROWTH:
        raise ValueError(f"the per-entry scale reaches e^{np.abs(y).max():.4g}, past binary64's range (DEF-ROPE-XPOS)")
    rel = (3 * np.abs(y) + 8) * 2.0 ** -53 + 2 * fastref.ERROR_ULPS * 2.0 ** -52
    out = (np.exp(y), q, rel)
    for x in out:
        x.setflags(write=False)
    plan.memo["growth"] = out
    return out


def _sincos(coords: list[Fraction], fw: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if all(c.denominator == 1 and abs(c.numerator) < 2**53 for c in coords):
        pos: Any = np.array([c.numerator for c in coords], dtype=np.int64)
    else:
        pos = coords
    P_hi, P_lo = fastref.positions_dd(pos, Fraction(0))
    P1, P2 = fastref._split(P_hi)
    rows, nf = P_hi.shape[0], fw.shape[1]
    S, C = np.empty((rows, nf)), np.empty((rows, nf))
    fw = np.ascontiguousarray(fw)
    step = max(1, fastref._BLOCK // max(nf, 1))  # scratch stays block-sized (a long cache is not copied 6 times)
    ws_full = [np.empty((min(step, rows), nf)) for _ in range(6)]
    two, has_lo = bool(np.any(P2)), bool(np.any(P_lo))
    for a in range(0, rows, step):
        b = min(rows, a + step)
        ws = [w[: b - a] for w in ws_full]
        fastref._sincos_block((P1 if two else P_hi)[a:b, None], P_lo[a:b, None] if has_lo else None,
                              P2[a:b, None] if two else None, fw, S[a:b], C[a:b], ws)
    return S, C, P_hi[:, None] * fw[4][None, :]


# --- certified ---------------------------------------------------------------------------------

class _Certified:
    """Per-precision caches of the frequency and amplitude enclosures."""

    def __init__(self, plan: AnglePlan) -> None:
        self.plan = plan
        self.cache: dict[int, tuple[list[Any], list[Any], list[Any]]] = {}

    def consts(self, prec: int) -> tuple[list[Any], list[Any], list[Any]]:
        if prec not in self.cache:
            g = self.plan.growth
            self.cache[prec] = (omegas_at(self.plan, prec), _at_prec(self.plan.amplitude, prec),
                                [] if g is None else _at_prec(g.rates, prec))
        return self.cache[prec]

    def enclose(self, r: int, j: int, prec: int) -> tuple[mpmath.mpf, mpmath.mpf]:
        p = self.plan
        if p.zero_rows[r] or p.kinds[j] == 2:
            return mpmath.mpf(0), mpmath.mpf(0)
        om, amps, rates = self.consts(prec)
        a = int(p.axes[j])
        x = p.coords[a][int(p.index[r, a])]
        old = mpmath.iv.prec
        mpmath.iv.prec = prec
        try:
            th = _q(mpmath.iv, x) * om[int(p.fids[j])]
            v = (mpmath.iv.sin(th) if p.kinds[j] == 0 else mpmath.iv.cos(th)) * amps[a]
            if p.growth is not None:  # DEF-ROPE-XPOS: times exp(ln zeta_f * q), q exact
                v = v * mpmath.iv.exp(rates[int(p.fids[j])] * _q(mpmath.iv, p.growth.exponent(x)))
            return ends(v)
        finally:
            mpmath.iv.prec = old

    def rounded(self, r: int, j: int, f: Format) -> float:
        prec = 96
        while True:
            lo, hi = self.enclose(r, j, prec)
            a, b = round_to_format(lo, f), round_to_format(hi, f)
            if a == b and np.signbit(a) == np.signbit(b):
                return a
            prec *= 2
            if prec > MAX_PREC:
                raise ArithmeticError(f"row {r} column {j}: rounding undecided at {MAX_PREC} bits")


def enclose(plan: AnglePlan, r: int, j: int, prec: int = 128) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Certified [lo, hi] around entry (r, j) at ``prec`` working bits."""
    return _Certified(plan).enclose(r, j, prec)


def rounded_table(plan: AnglePlan, fmt: str | Format) -> np.ndarray:
    """Every entry correctly rounded to ``fmt`` (round to nearest, ties to even), as float64."""
    f = fmt if isinstance(fmt, Format) else get_format(fmt)
    cert = _Certified(plan)
    rows, d = plan.shape
    out = np.empty((rows, d))
    for r in range(rows):
        for j in range(d):
            out[r, j] = cert.rounded(r, j, f)
    return out
