"""The rotary-cache kind (SPEC.md DEF-ROPE, REQ-CHECK-ROPE, REQ-DETECT-ROPE): a cos cache, a sin cache or both, one
row per position (or per cell, or per multi-axis position). Its options are a rotary profile's parameters
(:data:`OPTIONS`; ``layout`` and ``base`` shared with the 1-D kind) and the caches themselves; its plan is
:func:`~sinpe.reference.oracles.angles.rotary_plan` per cache; its check is the one judge, the pair's verdict the
worse of its caches'; its candidates for detect are the common bases and the scaling rules (:meth:`RotaryKind.
candidates`); the reading itself is :func:`~sinpe.reference.checking.detect.rotary.detect_rotary`.

>>> import numpy as np
>>> rp = KIND.profile("llama", None)
>>> pos = np.arange(64)
>>> emb = np.concatenate([np.outer(pos, 1.0 / (10000.0 ** (np.arange(0, 16, 2) / 16)))] * 2, axis=1)
>>> KIND.check_cache(rp, 16, cos=np.cos(emb).astype(np.float32), sin=np.sin(emb).astype(np.float32)).verdict
'conforms'
>>> r = KIND.check_cache(KIND.profile("gptj", None), 16, cos=np.cos(emb).astype(np.float32))   # wrong layout
>>> r.verdict, r.failures[0].position, r.failures[0].column, r.failures[0].label, type(r).__name__
('fails', '1', 1, 'cos0', 'CheckResult')
"""
from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from sinpe.reference.checking.cause import attach, of_rotary
from sinpe.reference.checking.judge import MAX_LISTED, check_plan, judge, plan_reference, unjudged_figures
from sinpe.reference.checking.kinds.base import command_word, label, load_plain, with_command
from sinpe.reference.checking.options import Option, Request, flag, refused
from sinpe.reference.checking.result import WORSE_FIRST, CheckResult
from sinpe.reference.checking.targets import _positions
from sinpe.reference.checking.values import axis_positions, grid_shape, parse_freqs, parse_sections
from sinpe.spec.profiles import Profile
from sinpe.spec.rotary import ROTARY_LAYOUTS, ROTARY_PRESETS, RULES, RotaryProfile, default_positions, get_rotary

from ...inputs import LoadError

if TYPE_CHECKING:  # the plans' oracle (mpmath) and the reading are imported by the methods that use them
    from sinpe.reference.oracles.angles import AnglePlan

ROTARY = ("rotary",)
CACHES = (Option("cos", ROTARY, "cos cache file"), Option("sin", ROTARY, "sin cache file"))
PARAMETERS = (  # a rotary profile's (DEF-ROPE-FREQ-*, DEF-ROPE-SCALE, DEF-ROPE-AXES), as the flags name them
    Option("dim", ROTARY, "head dimension (default: the cache width; 2x for layout single)", type=int, parameter=True,
           detected=True),
    Option("rule", ROTARY, "frequency rule", choices=RULES, parameter=True, detected=True),
    Option("factor", ROTARY, "scaling factor s", parameter=True, detected=True, exact=True),
    Option("original_max", ROTARY, "pre-training context L", type=int, parameter=True, detected=True),
    Option("seq_len", ROTARY, "dynamic NTK: the length the cache was built for", type=int, parameter=True,
           detected=True),
    Option("low_freq_factor", ROTARY, parameter=True, detected=True, exact=True),
    Option("high_freq_factor", ROTARY, parameter=True, detected=True, exact=True),
    Option("beta_fast", ROTARY, parameter=True, detected=True, exact=True),
    Option("beta_slow", ROTARY, parameter=True, detected=True, exact=True),
    Option("attention_factor", ROTARY, "A multiplied into both caches", parameter=True, detected=True, exact=True),
    Option("freqs", ROTARY, "explicit frequencies w_0..w_{h-1} (rule explicit, DEF-ROPE-FREQ-EXPLICIT): a comma list "
           "of exact decimals or a .npy file of a 1-D float array (each value taken exactly)", parameter=True,
           detected=True),
    Option("mrope_section", ROTARY, "multi-axis rotary (DEF-ROPE-AXES, Qwen2-VL M-RoPE 16,24,24): frequency k reads the "
           "position axis of the section holding k; positions: --positions FILE.npy of shape (rows, axes)",
           metavar="N0,N1,...", parameter=True, detected=True),
    Option("max_res", ROTARY, "rule pixel (timm, DEF-ROPE-FREQ-PIXEL): max_res (default 224)", parameter=True,
           detected=True, exact=True),
    Option("linear_bands", ROTARY, "rule pixel: timm's linear_bands=True (pi * linspace(1, max_res/2, n)); default "
           "log-spaced", store=True, parameter=True, detected=True),
    Option("ext_factors", ROTARY, "LongRoPE per-band rescale factors f_0..f_{h-1} (rule longrope, "
           "DEF-ROPE-FREQ-LONGROPE: w_k = b^(-2k/dim) / f_k; the short or the long list): a comma list of exact "
           "decimals or a .npy file", parameter=True, detected=True),
    Option("xpos_scale_base", ROTARY, "xPos (DEF-ROPE-XPOS): scale_base sb; entries times zeta_k^(s (p + o)/sb)",
           parameter=True, detected=True, exact=True),
    Option("xpos_gamma", ROTARY, "xPos: gamma of zeta_k = (2k/dim + gamma)/(1 + gamma) (default 2/5)", parameter=True,
           detected=True, exact=True),
    Option("xpos_centred", ROTARY, "xPos: torchscale's centred scale, o = -ceil(n/2), n = 1 + the last position",
           store=True, parameter=True, detected=True),
    Option("xpos_downscale", ROTARY, "xPos: the keys' cache, s = -1 (zeta_k^(-(p + o)/sb))", store=True,
           parameter=True, detected=True),
)
OPTIONS = CACHES + PARAMETERS
# the RotaryProfile fields the flags set directly (freqs and ext_factors are parsed into explicit / ext_factors)
PROFILE_FIELDS = ("layout", "base", "rule", "factor", "original_max", "seq_len", "low_freq_factor",
                  "high_freq_factor", "beta_fast", "beta_slow", "attention_factor", "mrope_section", "max_res",
                  "linear_bands", "xpos_scale_base", "xpos_gamma", "xpos_centred", "xpos_downscale")
COMMON_BASES = (10000, 500000, 1000000, 100000, 50000, 1000, 25000, 75000)
FACTORS = (2, 4, 8, 16, 32)
ORIGINAL_MAX = tuple(1 << k for k in range(8, 18))  # 256 .. 131072: every power of two a config names (Llama 3.1 8192)


class RotaryKind:
    """The rotary-cache kind (see the module docstring)."""

    name = "rotary"
    noun = "a rotary cache"
    options: tuple[Option, ...] = OPTIONS

    def claims(self, profile: Any, req: Request) -> bool:
        return (req.cos is not None or req.sin is not None or isinstance(profile, RotaryProfile)
                or (isinstance(profile, str) and profile in ROTARY_PRESETS))

    def applicable(self, profile: Any, req: Request) -> None:
        name = getattr(profile, "name", None) or profile
        if isinstance(profile, Profile) or (isinstance(profile, str) and profile not in ROTARY_PRESETS
                                             and profile != "auto"):
            raise LoadError(f"--cos/--sin are rotary caches: pass --profile {'|'.join(ROTARY_PRESETS)}, not {profile}")
        refused(req, "rotary", f"does not apply to a rotary cache (--profile {name})")
        if req.layout is not None and req.layout not in ROTARY_LAYOUTS:
            raise LoadError(f"--layout {req.layout} is a 1-D layout; rotary layouts: {', '.join(ROTARY_LAYOUTS)}")

    def profile(self, name: str, req: Request | None) -> RotaryProfile:
        """The rotary preset ``name`` with the request's overrides (``freqs``: rule ``explicit``)."""
        return get_rotary(name) if req is None else get_rotary(name, **overrides(req))

    def flags(self, rp: RotaryProfile, freqs: Any = None, ext_factors: Any = None) -> str:
        """The ``sinpe check`` flags of a rotary profile: its preset, or the preset it differs least from with the
        parameters that differ."""
        def differ(base: RotaryProfile) -> list[str]:
            return [k for k in PROFILE_FIELDS if getattr(rp, k) != getattr(base, k)]
        # a preset with a parameter (or a switch) the profile has not (None, False) cannot be the base: no flag unsets it
        bases = [(n, p) for n, p in ROTARY_PRESETS.items()
                 if all(getattr(rp, k) is not None and getattr(rp, k) is not False for k in differ(p))]
        name, base = min(bases, key=lambda kv: len(differ(kv[1])))
        out = [f"--profile {name}"]
        for k in differ(base):
            v = getattr(rp, k)
            out.append(flag(k) if v is True else f"{flag(k)} {','.join(map(str, v)) if isinstance(v, tuple) else v}")
        if rp.explicit is not None:  # as given (a file, a list), else each frequency exactly (a/b)
            out.append(f"--freqs {freqs}" if isinstance(freqs, str) else "--freqs " + ",".join(map(str, rp.explicit)))
        if rp.ext_factors is not None:
            out.append(f"--ext-factors {ext_factors}" if isinstance(ext_factors, str)
                       else "--ext-factors " + ",".join(map(str, rp.ext_factors)))
        return " ".join(out)

    def load(self, req: Request, target: Any = None) -> tuple[Any, Any, Any, str]:
        """(cos, sin, positions or None, dtype) of a rotary check: ``target`` (if given) is the cos cache."""
        if target is not None and req.cos is not None:
            raise LoadError("give the cos cache as TARGET or as --cos, not both")
        given = {"cos": target if target is not None else req.cos, "sin": req.sin}
        if given["cos"] is None and given["sin"] is None:
            raise LoadError("a rotary cache is needed: TARGET or --cos FILE, --sin FILE or both")
        caches = {k: None if v is None else load_plain(v, req.key, "a rotary cache") for k, v in given.items()}
        cos, sin = (None if (c := caches[k]) is None else np.asarray(c.data) for k in ("cos", "sin"))
        if cos is not None and sin is not None and cos.shape != sin.shape:
            raise LoadError(f"cos {cos.shape} and sin {sin.shape} caches differ in shape")
        rows = next(a for a in (cos, sin) if a is not None).shape[0]  # (one at least: the LoadError above)
        pos: list[tuple[Any, ...]] | np.ndarray | None = axis_positions(req.positions, rows)
        if pos is None:
            pos = _positions(req.positions, rows, f"the cache has {rows} rows")
        if pos is not None and len(pos) != rows:
            raise LoadError(f"{len(pos)} positions for {rows} rows")
        dtype = req.dtype or next(c.dtype for c in caches.values() if c is not None)
        return cos, sin, None if pos is None else list(pos), dtype

    def check_cache(self, rp: RotaryProfile, dim: int, *, cos: Any = None, sin: Any = None,
                    positions: Sequence[Any] | None = None, dtype: str | None = None, tier: str = "phase",
                    working: str | None = None, shape: Sequence[int] | None = None,
                    max_failures: int = MAX_LISTED) -> CheckResult:
        """REQ-CHECK-ROPE: a cos cache, a sin cache or both (rows = positions, default 0..n-1, or a tuple per row
        for a multi-axis profile, DEF-ROPE-AXES; rule pixel: the coordinates of ``shape``) against DEF-ROPE. The
        verdict is the worse of the parts; ``parts`` holds each, and the figures are over both."""
        from sinpe.reference.oracles.angles import rotary_plan

        given = {k: v for k, v in (("cos", cos), ("sin", sin)) if v is not None}
        if not given:
            raise ValueError("check_rotary needs cos=, sin= or both")
        parts = {}
        for which, t in given.items():
            arr = np.asarray(t)
            pos = default_positions(rp, dim, arr.shape[0], shape) if positions is None else list(positions)
            parts[which] = p = _judged(arr, rotary_plan(rp, dim, pos, which), rp.name or rp.describe(), dtype=dtype,
                                       tier=tier, working=working, max_failures=max_failures)
            for f in p.failures:
                f.cache = which
        return _pair(parts, f"{rp.describe()}, dim {dim}", max_failures)

    def check(self, target: Any, profile: Any, req: Request, rp: RotaryProfile | None = None,
              dim: int | None = None) -> CheckResult:
        """A rotary profile (a preset's name, or a :class:`RotaryProfile`; default llama) against the caches."""
        t0 = time.perf_counter()
        cos, sin, pos, dtype = self.load(req, target)
        name = "llama" if profile is None else profile
        rp = rp or (name if isinstance(name, RotaryProfile) else self.profile(name, req))
        t = cos if cos is not None else sin
        dim = dim or req.dim or (t.shape[1] * 2 if rp.layout == "single" else t.shape[1])
        if req.shape is not None and rp.rule != "pixel" and rp.mrope_section is None:
            raise LoadError("--shape applies to a 2-D grid, a rule-pixel rotary cache (--profile timm-pixel) or a "
                            f"multi-axis one (--mrope-section), not rule {rp.rule} on one axis")
        shape = None if req.shape is None else grid_shape(req.shape, t.shape[0], 0)
        try:
            res = self.check_cache(rp, dim, cos=cos, sin=sin, positions=pos, dtype=dtype, tier=req.tier,
                                   working=req.working, shape=shape, max_failures=req.max_failures)
        except ValueError as e:  # the positions do not fit the profile's axes, the shape not the rows
            raise LoadError(str(e)) from None
        if req.detect and res.verdict == "fails":  # what it is instead: the cause (REQ-CHECK-CLI)
            reading = self.read(cos, sin, positions=pos, dtype=res.dtype, tier=req.tier)
            res.detected = dict(reading, sentence=self.sentence(reading, cos is not None and sin is not None)
                                if reading["found"] else reading["reason"])
            attach(res, of_rotary(rp.params(), reading))
        src = {"cos": target if target is not None else req.cos, "sin": req.sin}
        given = " ".join(f"--{k} {command_word(v) if label(v) != 'table' else 'FILE'}" for k, v in src.items() if v is not None)
        return with_command(res, self.flags(rp, req.freqs, req.ext_factors), given, [], t0)

    def read(self, cos: Any = None, sin: Any = None, positions: Sequence[Any] | None = None, dtype: str | None = None,
             tier: str = "phase") -> dict[str, Any]:
        """REQ-DETECT-ROPE: the rotary reading of a cos cache, a sin cache or both."""
        from sinpe.reference.checking.detect.rotary import detect_rotary
        return detect_rotary(self, cos=cos, sin=sin, positions=positions, dtype=dtype, tier=tier)

    def candidates(self, layout: str, dim: int, w: np.ndarray | None) -> list[RotaryProfile]:
        """The profiles detect tries, simplest first: the common bases and the base the frequencies point to, the
        xPos presets of this layout (queries' and keys' scale), then linear scalings, then llama3 and yarn scalings of the first three bases at every original length."""
        bases: list[Fraction] = [Fraction(b) for b in COMMON_BASES]
        if w is not None and len(w) > 1 and 0 < w[1] < 1:
            lf = -dim / 2 * math.log(float(w[1]))  # an estimate near 0 (noise) overflows: no fitted base
            fitted = math.exp(lf) if lf < 700 else math.inf
            if math.isfinite(fitted) and fitted > 1:
                for sig in (3, 4, 6):
                    b = Fraction(float(f"{fitted:.{sig}g}")).limit_denominator(1)
                    if b > 1 and b not in bases:
                        bases.append(b)
        out: list[RotaryProfile] = []
        for b in bases:
            out.append(RotaryProfile(None, layout, b))
        out += [rp.replace(name=None, xpos_downscale=down) for rp in ROTARY_PRESETS.values()  # DEF-ROPE-XPOS: q, k
                if rp.xpos_scale_base is not None and rp.layout == layout for down in (False, True)]
        for b in bases:
            out += [RotaryProfile(None, layout, b, "linear", factor=Fraction(s)) for s in FACTORS]
        for b in bases[:3]:
            for s in FACTORS:
                for L in ORIGINAL_MAX:
                    out.append(RotaryProfile(None, layout, b, "llama3", factor=Fraction(s), original_max=L))
                    out.append(RotaryProfile(None, layout, b, "yarn", factor=Fraction(s), original_max=L))
        return out

    def preset_name(self, rp: RotaryProfile) -> str | None:
        return next((n for n, p in ROTARY_PRESETS.items() if p.replace(name=None) == rp.replace(name=None)), None)

    def reading_profile(self, r: dict[str, Any]) -> RotaryProfile:
        """The profile a reading names: its preset, or a profile of its parameters."""
        return ROTARY_PRESETS[r["profile"]] if r.get("profile") else RotaryProfile(None, **r["params"])

    def sentence(self, r: dict[str, Any], pair: bool) -> str:
        what = "cos and sin cache pair" if pair else f"{r.get('cache', 'cos')} cache"
        return (f"A rotary {what}: {r['describe']}, head dim {r['dim']}" +
                (f" (preset {r['profile']})" if r.get("profile") else "") +
                (f", rows the cells of a {'x'.join(map(str, r['shape']))} grid" if r.get("shape") else "") +
                (f", rows at positions {r['start']}.. (a cache sliced at an offset)" if r.get("start") else "")
                + (", at the positions given (several axes)" if r.get("sections") and not r.get("shape") else "")
                + _loose_words(r.get("loose")) + ".")

    def reading_words(self, r: dict[str, Any], found: Any) -> tuple[str, str, Any]:
        rp = self.reading_profile(r)
        flags = self.flags(rp) + "".join(f" {flag(k)} {v}" for k, v in reading_request(r).items())
        if not found.cache_pair and "cache" in r and found.table is not None:  # a table read as one cache
            flags = f"--{r['cache']} FILE {flags}"
        return flags, self.sentence(r, found.cache_pair), rp


def _loose_words(loose: dict[str, str] | None) -> str:
    """The slow bands a cos cache read alone fixes only loosely (``detect.rotary.loose_bands``), loosest first."""
    if not loose:
        return ""
    by: dict[str, list[int]] = {}
    for k, f in loose.items():
        by.setdefault(f, []).append(int(k))
    parts = [f"{f} (k = {_ks(ks)})" for f, ks in sorted(by.items(), key=lambda x: -Fraction(x[0]))]
    return (f"; the cos cache fixes {len(loose)} slow band{'s' if len(loose) > 1 else ''} only loosely, cos(w p) "
            f"being near 1: each one's frequency also fits multiplied or divided by {', '.join(parts)}; the sin "
            f"cache (--sin) fixes them")


def _ks(ks: list[int]) -> str:
    """Band indices, runs as a..b."""
    runs: list[list[int]] = []
    for k in sorted(ks):
        if runs and k == runs[-1][-1] + 1:
            runs[-1].append(k)
        else:
            runs.append([k])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}..{r[-1]}" for r in runs)


def overrides(req: Request) -> dict[str, Any]:
    """The RotaryProfile fields the request sets (None: not set), its frequency lists and sections parsed."""
    over = req.keywords(PROFILE_FIELDS)
    for k in ("linear_bands", "xpos_centred", "xpos_downscale"):
        over[k] = True if req.values.get(k) else None
    over["mrope_section"] = parse_sections(req.mrope_section)
    if req.freqs is not None:
        over["explicit"] = parse_freqs(req.freqs)
    if "ext_factors" in req.options and req.ext_factors is not None:
        over["ext_factors"] = parse_freqs(req.ext_factors, "--ext-factors")
    return over


def reading_request(r: dict[str, Any]) -> dict[str, str]:
    """The request keywords a rotary reading needs besides its profile: the grid ``shape`` of a cache whose rows
    are cells, the ``positions`` of one whose rows start at a position other than 0."""
    out = {}
    if r.get("shape"):
        out["shape"] = "x".join(map(str, r["shape"]))
    if r.get("start"):
        out["positions"] = f"{r['start']}:{r['start'] + r['rows']}"
    return out


def _judged(table: Any, plan: AnglePlan, profile: str, **kw: Any) -> CheckResult:
    """:func:`check_plan`; for a plan with a growth (DEF-ROPE-XPOS) the judge's amplitude is each entry's
    A * exp(rate_f q_r) and the reference's error bound grows by the factor's own (:func:`growth_f64`)."""
    if plan.growth is None or np.shape(table) != plan.shape:
        return check_plan(table, plan, profile, kind="rotary", **kw)
    from sinpe.reference.oracles.angles import growth_f64

    ref = plan_reference(plan)
    factor, _, rel = growth_f64(plan)
    ref = dataclasses.replace(ref, amplitude=ref.amplitude * factor, error=ref.error + np.abs(ref.values) * rel)
    return judge(table, ref, profile, kind="rotary", **kw)


def _pair(parts: dict[str, CheckResult], describe: str, max_failures: int) -> CheckResult:
    """One result over a cache pair (or a single cache): the worse verdict, the sums and maxima of the parts."""
    ps = list(parts.values())
    worst = min(ps, key=lambda r: WORSE_FIRST.index(r.verdict))
    key = "max_abs_error" if worst.tier == "phase" else "max_ulp_error"
    res = CheckResult(worst.profile, "", {"describe": describe}, worst.tier, worst.dtype, worst.d, worst.rows,
                      width=worst.width, kind="rotary", working=worst.working, verdict=worst.verdict,
                      reason=worst.reason, parts=parts)
    for k in ("n_failures", "undecided", "oracle_decided", "non_finite"):
        setattr(res, k, sum(getattr(p, k) for p in ps))
    for k in ("max_abs_error", "max_ulp_error", "max_bound_ratio"):
        setattr(res, k, max(getattr(p, k) for p in ps))
    res.worst = dict(max(ps, key=lambda p: getattr(p, key)).worst)
    res.failures = [f for p in ps for f in p.failures][:max_failures]
    count = sum(p.unjudged["count"] for p in ps)
    res.unjudged = unjudged_figures(count, res.entries,
                                    next((p.unjudged["from_position"] for p in ps if p.unjudged["count"]), None))
    return res


KIND = RotaryKind()
