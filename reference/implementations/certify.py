"""Certification of the bundled implementations (SPEC.md REQ-IMPL-CERT, REQ-IMPL-TIER).

For each implementation and dtype, every entry of the table is compared with PE computed in Arb ball
arithmetic (python-flint, through :mod:`sinpe.spec.definition` and the oracle's backend
:data:`sinpe.reference.oracles.arb.ARB`): the exact value is held as a double-double ``hi + lo``
(about 106 bits, the ball's radius checked below 2^-120), so errors are measured to far below one
ulp of binary64. Per position band ([0, 1e2), [1e2, 1e3), ... up to ``max_position``) the report
gives the number of values, the max absolute error, the max error in ulps of the dtype (ulp in the
binade of PE), the max *phase ratio* |y - PE| / (u (1 + |theta|) |alpha|) (to compare with TOL-PHASE's
c) and the strictest tier of TOL-EXACT / TOL-FAITHFUL / TOL-PHASE that every value meets.
Positions are sampled per band with a fixed seed: the figures are reproducible.

>>> from sinpe.spec.profiles import get_profile
>>> from sinpe.reference.implementations import numpy_impl as impl_numpy
>>> cases = [Case(get_profile("vaswani"), 8)]
>>> bands = sample_bands(10**3, per_band=2)
>>> r = certify_impl("numpy", "float64", lambda P, d, x: impl_numpy.pe_table(P, d, x, "float64"), cases, bands)
>>> r.tier, r.ok
('phase', True)
>>> swapped = lambda P, d, x: impl_numpy.pe_table(P, d, x, "float64")[:, [1, 0, 3, 2, 5, 4, 7, 6]]
>>> certify_impl("swapped", "float64", swapped, cases, bands).ok    # sin/cos swapped: rejected
False
"""
from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
from flint import arb, ctx

from sinpe.reference.numerics.rounding import round_array
from sinpe.reference.oracles.arb import ARB
from sinpe.spec.definition import column_data, columns, frequency, phase, value
from sinpe.spec.formats import get_format
from sinpe.spec.profiles import Profile, get_profile
from sinpe.spec.tolerance import TIERS, allowed_abs_error, classify, error_ulps, phase_constant, unjudged

SEED = 20170612  # the arXiv date of Vaswani et al.; any fixed value makes the sample reproducible
PER_BAND = 8
D_VALUES = (1, 3, 64, 65, 512)

# REQ-IMPL-TIER: the tier each bundled implementation MUST meet, per dtype (SPEC.md section 4).
REQUIRED_TIER = {"float64": "phase", "float32": "phase", "float16": "phase", "bfloat16": "phase"}
# REQ-IMPL-LATE-CAST: float16/bfloat16 tables are computed in float32 and rounded once; they MUST stay
# within TOL-WORKING with W = float32 (one rounding after a float32 evaluation; a native half-precision
# evaluation fails it).
WORK_DTYPE = {"float16": "float32", "bfloat16": "float32"}

Impl = Callable[[Profile, int, np.ndarray], np.ndarray]
_ORDER = list(TIERS) + ["none"]  # strictest first


@dataclass(frozen=True)
class Case:
    """One (profile, d) the certification covers."""

    profile: Profile
    d: int

    def label(self) -> str:
        return f"{self.profile.name or self.profile.cli_flags()} d={self.d}"


def default_cases() -> list[Case]:
    """Every preset at d in D_VALUES, plus variants that exercise each remaining parameter:
    base, a non-dyadic phase scale, a non-representable amplitude, an offset (fairseq-style),
    diffusers' shift 0, and interleaved with a zero-pad odd rule."""
    from sinpe.spec.profiles import PRESETS
    profiles = list(PRESETS.values()) + [
        get_profile("vaswani", base="500", phase_scale="1/3", amplitude="0.1", offset=2),
        get_profile("t2t-cos", shift=0),
        get_profile("vaswani", odd="zero-pad"),
    ]
    return [Case(p, d) for p in profiles for d in D_VALUES]


@dataclass(frozen=True)
class SampleBand:
    lo: float
    hi: float
    closed: bool
    positions: tuple[float, ...]

    def label(self) -> str:
        def f(x: float) -> str:
            return "0" if x == 0 else f"1e{round(math.log10(x))}" if 10 ** round(math.log10(x)) == x else f"{x:g}"
        return f"[{f(self.lo)}, {f(self.hi)}{']' if self.closed else ')'}"


def sample_bands(max_position: int = 10**7, per_band: int = PER_BAND, seed: int = SEED) -> list[SampleBand]:
    """Positions per band |p| in [0, 1e2), [1e2, 1e3), ..., the last band closed at ``max_position``.

    Each band holds its edges and ``per_band`` integers drawn with ``numpy.random.default_rng(seed + i)``;
    band 0 also holds a non-integer and negative positions (DEF-PE: any real position).

    >>> [b.label() for b in sample_bands(10**4, per_band=1)]
    ['[0, 1e2)', '[1e2, 1e3)', '[1e3, 1e4]']
    >>> sample_bands(10**3, per_band=1)[0].positions
    (-3.0, -0.5, 0.0, 1.0, 2.0, 2.5, 82.0, 99.0)
    """
    if isinstance(max_position, bool) or not isinstance(max_position, (int, np.integer)) or max_position < 1:
        raise ValueError(f"max position must be an integer >= 1; got {max_position!r}")
    if max_position > 2**24:
        raise ValueError(f"max position {max_position} exceeds 2^24 = {2**24}: float32 cannot hold larger "
                         "integer positions exactly (TOL-EVAL: positions are exact)")
    edges = [0.0] + [10.0 ** e for e in range(2, 64) if 10 ** e < max_position] + [float(max_position)]
    bands = []
    for i in range(len(edges) - 1):
        lo, hi = edges[i], edges[i + 1]
        last = i == len(edges) - 2
        rng = np.random.default_rng(seed + i)
        top = int(hi) + 1 if last else int(hi)
        pts = {lo, float(top - 1)} | {float(x) for x in rng.integers(int(lo), top, size=per_band)}
        if i == 0:
            pts |= {1.0, 2.0, 2.5, -3.0, -0.5}
        bands.append(SampleBand(lo, hi, last, tuple(sorted(pts))))
    return bands


@lru_cache(maxsize=512)
def exact_table(profile: Profile, d: int, positions: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(hi, lo, theta): PE = hi + lo to ~2^-106 relative (Arb balls of radius < 2^-120), theta in
    float64 (NaN for zero columns). Positions are floats taken at their exact value.

    >>> from sinpe.spec.profiles import get_profile
    >>> hi, lo, th = exact_table(get_profile("vaswani"), 2, (1.0,))
    >>> hi.tolist(), bool(abs(lo[0, 0]) < 2.0**-53), th.tolist()
    ([[0.8414709848078965, 0.5403023058681398]], True, [[1.0, 1.0]])
    """
    cols = columns(profile, d)
    n = len(positions)
    hi = np.zeros((n, d))
    lo = np.zeros((n, d))
    th = np.full((n, d), np.nan)
    old = ctx.prec
    try:
        for r, p in enumerate(positions):
            fp = Fraction(p)
            mag = abs(profile.phase_scale * (fp + profile.offset)) * max(Fraction(1), 1 / profile.base)
            prec = 192 + int(mag).bit_length()  # guard bits for the argument reduction of |theta|
            while True:
                ctx.prec = prec
                ths = {k: phase(column_data(profile, d), k, fp, ARB, w=frequency(column_data(profile, d), k, ARB))
                       for k in {c.k for c in cols if c.kind != "zero"}}
                vals = [None if c.kind == "zero" else value(column_data(profile, d), c.kind, ths[c.k], ARB) for c in cols]
                if all(v is None or v.rad() < arb(2) ** -120 for v in vals):
                    break
                prec *= 2  # a ball too wide: more bits (Ziv-style), never a silent loss of accuracy
                if prec > 1 << 14:
                    raise ArithmeticError(f"Arb ball too wide at position {p} even at {prec // 2} bits")
            for j, (col, v) in enumerate(zip(cols, vals, strict=False)):
                if v is None:
                    continue
                h = float(v.mid())
                hi[r, j] = h
                lo[r, j] = float((v - arb(h)).mid())
                th[r, j] = float(ths[col.k].mid())
    finally:
        ctx.prec = old
    return hi, lo, th


def _finite(x: Any) -> Any:
    """JSON-safe copy: non-finite floats become the strings 'inf', '-inf', 'nan'."""
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x


@dataclass
class BandResult:
    band: str
    n: int = 0
    n_exact: int = 0      # values that meet TOL-EXACT (correctly rounded)
    n_faithful: int = 0   # values that meet TOL-FAITHFUL
    n_vacuous: int = 0    # values TOL-PHASE (native) cannot judge: bound >= |alpha| + |PE| (REQ-CHECK-UNJUDGED)
    max_abs: float = 0.0
    max_ulp: float = 0.0
    phase_ratio: float = 0.0
    tier: str = "exact"
    late_cast: bool | None = None  # REQ-IMPL-LATE-CAST held (None: not applicable)
    late_cast_ratio: float = 0.0   # max |y - PE| / (REQ-IMPL-LATE-CAST bound)
    worst: dict[str, Any] | None = None  # the entry with the largest ulp error

    def to_json(self) -> dict[str, Any]:
        return {"band": self.band, "n": self.n, "n_exact": self.n_exact, "n_faithful": self.n_faithful,
                "n_vacuous": self.n_vacuous,
                "max_abs": self.max_abs, "max_ulp": self.max_ulp,
                "phase_ratio": self.phase_ratio, "tier": self.tier, "late_cast": self.late_cast,
                "late_cast_ratio": self.late_cast_ratio, "worst": self.worst}


@dataclass
class ImplResult:
    impl: str
    dtype: str
    required: str
    work_dtype: str | None = None  # REQ-IMPL-LATE-CAST applies when set
    bands: list[BandResult] = field(default_factory=list)
    failures: list[dict[str, Any]] = field(default_factory=list)  # first failing entries (required tier)

    @property
    def tier(self) -> str:
        """The strictest tier every certified value meets ('none' if not even TOL-PHASE)."""
        return max((b.tier for b in self.bands), key=_ORDER.index, default="exact")

    @property
    def late_cast(self) -> bool | None:
        return None if self.work_dtype is None else all(b.late_cast for b in self.bands)

    @property
    def ok(self) -> bool:
        return _ORDER.index(self.tier) <= _ORDER.index(self.required) and self.late_cast is not False

    def to_json(self) -> dict[str, Any]:
        return {"impl": self.impl, "dtype": self.dtype, "required": self.required, "tier": self.tier,
                "work_dtype": self.work_dtype, "late_cast": self.late_cast, "ok": self.ok, "max_abs": max((b.max_abs for b in self.bands), default=0.0),
                "max_ulp": max((b.max_ulp for b in self.bands), default=0.0),
                "phase_ratio": max((b.phase_ratio for b in self.bands), default=0.0),
                "phase_constant": phase_constant(self.dtype, rounded_frequencies=True),
                "bands": [b.to_json() for b in self.bands], "failures": self.failures}


def _python_call(impl: str, profile: Profile, d: int, ps: Sequence[float], j: int | None, dtype: str) -> str:
    """A shell command that recomputes the entry (or, ``j`` None, the whole call) of a bundled implementation."""
    mod = {"numpy": "impl_numpy", "torch": "impl_torch"}.get(impl)
    plist = ", ".join(repr(p) for p in ps)
    if mod is None:
        return f"(custom implementation {impl!r}) at {profile!r}, d={d}, positions [{plist}], column {j}"
    pick = "" if j is None else f"[0, {j}]"
    wrap = ("float", ")") if j is not None else ("", "")
    return (f"python -c \"from fractions import Fraction; from sinpe.spec.profiles import Profile; "
            f"from sinpe.reference.{mod} import pe_table; "
            f"print({wrap[0]}(pe_table({profile!r}, {d}, [{plist}], '{dtype}'){pick}{wrap[1]})\"")


def _entry(impl: str, dtype: str, case: Case, p: float, j: int, y: float, hi: float, lo: float,
           th: float, err: float, ulps: float, bound: float) -> dict[str, Any]:
    pos = repr(int(p)) if float(p).is_integer() else repr(p)
    return {"profile": case.profile.name or case.profile.cli_flags(), "d": case.d, "position": p,
            "column": j, "value": y, "exact": hi + lo, "theta": None if math.isnan(th) else th,
            "abs_error": err, "ulp_error": ulps, "allowed": bound,
            "reproduce": f"{_python_call(impl, case.profile, case.d, [p], j, dtype)}  # vs: sinpe table "
                         f"{case.profile.cli_flags()} --d {case.d} --positions={pos} --dtype float64 --out ref.npy"}


def certify_impl(impl: str, dtype: str, fn: Impl, cases: Sequence[Case], bands: Sequence[SampleBand],
                 required: str | None = None, work_dtype: str | None = None,
                 rounded_frequencies: bool = True,
                 allowed: Callable[..., np.ndarray] = allowed_abs_error,
                 progress: Callable[[], None] | None = None) -> ImplResult:
    """Certify one implementation ``fn(profile, d, positions) -> array (rows, d)`` in ``dtype``.

    ``required`` defaults to REQUIRED_TIER[dtype]; ``work_dtype`` (a wider working format) also checks
    REQ-IMPL-LATE-CAST: |y - PE| within TOL-WORKING's bound with W = ``work_dtype`` (computed in W, rounded once
    to ``dtype``; the same :func:`allowed_abs_error` sinpe check applies). A table holding a
    value that is not a value of ``dtype`` fails like a wrong shape (tier ``none``).
    ``rounded_frequencies`` picks TOL-PHASE-C's c (True: c0 = 8, the bundled implementations round
    each frequency once, REQ-IMPL-EVAL). ``allowed`` is the tolerance function (the negative tests
    pass a wrong one to show the verdict depends on it). A failure is recorded with a command that reproduces it.
    """
    name = get_format(dtype).dtype
    req = required or REQUIRED_TIER[name]
    res = ImplResult(impl, name, req, work_dtype)
    u = get_format(name).unit_roundoff
    for band in bands:
        br = BandResult(band.label(), late_cast=None if work_dtype is None else True)
        pos = np.array(band.positions, dtype=np.float64)
        for case in cases:
            hi, lo, th = exact_table(case.profile, case.d, band.positions)
            if progress:
                progress()
            try:
                y = np.asarray(fn(case.profile, case.d, pos), dtype=np.float64)
                if y.shape != hi.shape:
                    raise ValueError(f"table shape {y.shape}; expected {hi.shape}")
                notin = np.isfinite(y) & (round_array(y, name) != y)  # a float16 table holds float16 values
                if notin.any():
                    r0, j0 = np.argwhere(notin)[0]
                    raise ValueError(f"{int(notin.sum())} values are not {name} values, first {float(y[r0, j0])!r} "
                                     f"at position {pos[r0]:g} column {j0}")
            except Exception as e:  # raising on valid input, or a wrong shape, fails certification
                br.tier = "none"
                if len(res.failures) < 5:
                    res.failures.append({"profile": case.profile.name or case.profile.cli_flags(), "d": case.d,
                                         "positions": list(band.positions), "error": f"{type(e).__name__}: {e}",
                                         "reproduce": _python_call(impl, case.profile, case.d, band.positions,
                                                                   None, name)})
                continue
            amp = float(case.profile.amplitude)
            err = np.abs((y - hi) - lo)
            err = np.where(np.isfinite(y), err, np.inf)
            ex = hi + lo
            with np.errstate(over="ignore", invalid="ignore"):  # inf errors stay inf
                ulps = error_ulps(err, ex, name, amp)  # ulps at max(|PE|, |alpha| 2^-10), as check reports them
                ratio = np.where(np.isnan(th), 0.0, err / (u * (1 + np.abs(np.nan_to_num(th))) * max(abs(amp), 1e-300)))
            kw = {"base": float(case.profile.base), "rounded_frequencies": rounded_frequencies}
            bounds = {t: allowed(t, name, ex, th, amp, **kw) for t in TIERS}
            okt = {t: ~classify(err - bounds[t])[0] for t in TIERS}  # the exact reference: margin 0
            br.n += err.size
            br.n_exact += int(okt["exact"].sum())
            br.n_faithful += int(okt["faithful"].sum())
            br.n_vacuous += int(unjudged(bounds["phase"], ex, amp).sum())  # REQ-CHECK-UNJUDGED, as check counts it
            if err.size:
                br.max_abs = max(br.max_abs, float(err.max()))
                br.phase_ratio = max(br.phase_ratio, float(ratio.max()))
                i = int(np.argmax(ulps))
                if float(ulps.flat[i]) >= br.max_ulp:
                    br.max_ulp = float(ulps.flat[i])
                    r, j = divmod(i, case.d)
                    br.worst = _entry(impl, name, case, float(pos[r]), j, float(y[r, j]), float(hi[r, j]),
                                      float(lo[r, j]), float(th[r, j]), float(err[r, j]), float(ulps[r, j]),
                                      float(bounds[req][r, j]))
            met = next((t for t in TIERS if okt[t].all()), "none")
            br.tier = max(br.tier, met, key=_ORDER.index)
            good = okt[req]
            if work_dtype is not None:
                lc_bound = allowed("phase", name, ex, th, amp, working=work_dtype, **kw)  # TOL-WORKING, W = work_dtype
                lc = ~classify(err - lc_bound)[0]
                br.late_cast_ratio = max(br.late_cast_ratio, float((err / lc_bound).max()))
                br.late_cast = bool(br.late_cast and lc.all())
                good = good & lc
                bounds[req] = np.where(okt[req], lc_bound, bounds[req])
            bad = np.argwhere(~good)
            for r, j in bad[: max(0, 5 - len(res.failures))]:
                res.failures.append(_entry(impl, name, case, float(pos[r]), int(j), float(y[r, j]),
                                           float(hi[r, j]), float(lo[r, j]), float(th[r, j]),
                                           float(err[r, j]), float(ulps[r, j]), float(bounds[req][r, j])))
        res.bands.append(br)
    return res


def bundled() -> list[tuple[str, str, Impl]]:
    """(impl, dtype, fn) for the bundled implementations: NumPy float64/float32, PyTorch CPU all four."""
    from sinpe.reference.implementations import numpy_impl as impl_numpy
    out: list[tuple[str, str, Impl]] = [("numpy", dt, _in_dtype(impl_numpy.pe_table, dt)) for dt in impl_numpy.NUMPY_DTYPES]
    try:
        import torch
    except ImportError:
        return out
    from sinpe.reference.implementations import torch_impl as impl_torch
    def tfn(P: Profile, d: int, x: np.ndarray, dt: str) -> np.ndarray:
        return impl_torch.pe_table(P, d, x, dt).to(torch.float64).numpy()
    out += [("torch", dt, _in_dtype(tfn, dt)) for dt in impl_torch.TORCH_DTYPES]
    return out


def _in_dtype(table: Callable[[Profile, int, np.ndarray, str], np.ndarray], dt: str) -> Impl:
    """``table`` with its dtype argument fixed."""
    return lambda P, d, x: table(P, d, x, dt)


@dataclass
class CertReport:
    """The outcome of :func:`certify_all`; ``ok`` iff every implementation meets its REQ-IMPL-TIER."""

    max_position: int
    per_band: int
    seed: int
    cases: list[str]
    results: list[ImplResult]
    missing: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.missing and all(r.ok for r in self.results)

    def to_json(self) -> dict[str, Any]:
        return _finite({"schema": "sinpe-certify/1", "ok": self.ok, "summary": self.summary(), "max_position": self.max_position,
                "per_band": self.per_band, "seed": self.seed, "cases": self.cases,
                "missing": self.missing, "implementations": [r.to_json() for r in self.results]})

    def summary(self) -> str:
        """One line: how many implementation/dtype pairs meet their requirement, and the worst phase ratio."""
        good = sum(r.ok for r in self.results)
        worst = max((b.phase_ratio for r in self.results for b in r.bands), default=0.0)
        bad = [f"{r.impl} {r.dtype}" for r in self.results if not r.ok]
        return (f"{good}/{len(self.results)} implementation/dtype pairs meet REQ-IMPL-TIER"
                f"{' and REQ-IMPL-LATE-CAST' if any(r.work_dtype for r in self.results) else ''} "
                f"({sum(b.n for r in self.results for b in r.bands)} values, positions to {self.max_position:g}, "
                f"max phase ratio {worst:.3g} vs c0 = 8)"
                + (f"; FAILED: {', '.join(bad)}" if bad else "") + (f"; {'; '.join(self.missing)}" if self.missing else ""))

    def render(self) -> str:
        lines = [(f"Certification of the bundled implementations (SPEC.md REQ-IMPL-CERT): {len(self.cases)} "
                 f"(profile, d) cases, positions up to {self.max_position:g}, {self.per_band} sampled per band "
                 f"(seed {self.seed}); exact values from Arb."),
                 ("RN % / <=1ulp %: share of values correctly rounded (TOL-EXACT) / within 1 ulp (TOL-FAITHFUL); "
                 "vac %: share unjudged by TOL-PHASE in the dtype (bound >= |alpha| + |PE|, REQ-CHECK-UNJUDGED);"),
                 "ratio = max |y - PE| / (u (1+|theta|) |alpha|), to compare with TOL-PHASE's c.", ""]
        hdr = (f"{'implementation':<16}{'band':<12}{'values':>8}{'RN %':>7}{'<=1ulp %':>9}{'vac %':>7}"
               f"{'max abs':>10}{'max ulp':>10}{'ratio':>8}  tier")
        for r in self.results:
            lines.append(hdr)
            for b in r.bands:
                pe, pf = _pct(b.n_exact, b.n), _pct(b.n_faithful, b.n)
                pv = "0" if b.n_vacuous == 0 else f"{100.0 * b.n_vacuous / b.n:.1f}"
                lines.append(f"{r.impl + ' ' + r.dtype:<16}{b.band:<12}{b.n:>8}{pe:>7}{pf:>9}{pv:>7}"
                             f"{b.max_abs:>10.3g}{b.max_ulp:>10.3g}{b.phase_ratio:>8.3g}  {b.tier}")
            verdict = "OK" if r.ok else "FAIL"
            lc = "" if r.work_dtype is None else \
                (f"; late cast from {r.work_dtype} (REQ-IMPL-LATE-CAST): {'holds' if r.late_cast else 'VIOLATED'}"
                 f", late-cast ratio {max(b.late_cast_ratio for b in r.bands):.3g}")
            lines.append(f"  -> {r.impl} {r.dtype}: meets {r.tier} (required {r.required}, c = "
                         f"{phase_constant(r.dtype, rounded_frequencies=True):g}){lc}: {verdict}")
            for f in r.failures[:3]:
                if "error" in f:
                    lines.append(f"     {f['profile']} d={f['d']}: raised {f['error']}; reproduce: {f['reproduce']}")
                    continue
                lines.append(f"     {f['profile']} d={f['d']} p={f['position']:g} col {f['column']}: "
                             f"|y-PE| = {f['abs_error']:.3g} > {f['allowed']:.3g}; reproduce: {f['reproduce']}")
            lines.append("")
        for m in self.missing:
            lines.append(f"MISSING: {m}")
        lines.append("certification: " + ("OK" if self.ok else "FAILED"))
        return "\n".join(lines)


def _pct(k: int, n: int) -> str:
    """k/n in percent, rounded down (100.0 only when k == n)."""
    return "-" if n == 0 else f"{math.floor(1000.0 * k / n) / 10:.1f}"


def certify_all(max_position: int = 10**7, progress: bool = False, dtypes: Sequence[str] | None = None,
                cases: Sequence[Case] | None = None, per_band: int = PER_BAND, seed: int = SEED) -> CertReport:
    """Certify every bundled implementation and dtype (REQ-IMPL-CERT) on ``cases`` (default
    :func:`default_cases`) and positions sampled per band up to ``max_position``."""
    cases = list(cases) if cases is not None else default_cases()
    bands = sample_bands(max_position, per_band, seed)
    want = None if dtypes is None else {get_format(x).dtype for x in dtypes}
    impls = [t for t in bundled() if want is None or t[1] in want]
    missing = []
    if not any(t[0] == "torch" for t in impls) and (want is None or want - {"float64", "float32"}):
        missing.append("torch is not installed: the PyTorch implementation is not certified")
    total = len(impls) * len(bands) * len(cases)
    from sinpe.reference.progress import Progress
    tick = Progress(total, "certify", progress and sys.stderr.isatty())
    results = [certify_impl(i, dt, fn, cases, bands, work_dtype=WORK_DTYPE.get(dt), progress=tick)
               for i, dt, fn in impls]
    tick.close()
    return CertReport(max_position, per_band, seed, [c.label() for c in cases], results, missing)
