"""The application kind: does a function *apply* the rotary encoding right? (SPEC.md REQ-CHECK-APPLY, DEF-ROPE-APPLY,
TOL-APPLY)

sinpe builds queries and keys (:mod:`~sinpe.reference.checking.apply.inputs`) at positions that include a KV-cache
block and long positions, calls the function under a convention of :mod:`~sinpe.reference.checking.apply.call` (a
``module:function`` named by text runs isolated in a child process, as ``sinpe check`` runs callables; a Python
callable runs in process), and judges every output against the exact rotation (:mod:`~sinpe.reference.checking.
apply.exact`) under TOL-APPLY for the dtype, through the one judgement (:func:`~sinpe.reference.checking.judge.
classify_entries`) and the one verdict rule. A failing function's cause is named when a known bug explains every
entry (:mod:`~sinpe.reference.checking.apply.diagnose`, the frequencies tried from the rotary kind's candidates);
THM-ROPE-REL is checked on the outputs either way. A failing function is called a second time with the same inputs
(in the same child process): where the two outputs differ bit for bit, the cause is ``nondeterministic`` (a race
in a math library, not a bug class) and the verdict stays that of the first call; a passing one is called once.
The result is an
:class:`~sinpe.reference.checking.result.ApplyResult`, a CheckResult.

>>> import torch
>>> def rotate_half(x):
...     x1, x2 = x.chunk(2, dim=-1)
...     return torch.cat((-x2, x1), dim=-1)
>>> def apply_rotary_pos_emb(q, k, cos, sin):                 # transformers' LLaMA
...     cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
...     return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
>>> r = KIND.check(apply_rotary_pos_emb, "llama", dim=16)
>>> r.verdict, r.relative["holds"]
('conforms', True)
>>> r = KIND.check(apply_rotary_pos_emb, "gptj", dim=16)     # rotate-half on a pairs cache
>>> r.verdict, r.cause_code
('fails', 'pairing')
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from sinpe.reference.checking.apply import call as apply_call
from sinpe.reference.checking.apply.diagnose import Case, bound_for, diagnose, relative
from sinpe.reference.checking.apply.exact import angles, exact_rotation, pairs_of, reach, refine
from sinpe.reference.checking.apply.inputs import RANDOM_HEADS, build_inputs, call_arrays, positions_of
from sinpe.reference.checking.cause import attach, of_diagnosis, of_repeat
from sinpe.reference.checking.isolate import call_isolated, shared_run
from sinpe.reference.checking.judge import classify_entries, failing_words, inconclusive_words, unjudged_figures, verdict
from sinpe.reference.checking.kinds import rotary
from sinpe.reference.checking.options import SHARED, Option, Request
from sinpe.reference.checking.result import ApplyResult, Failure
from sinpe.spec.formats import get_format
from sinpe.spec.rotary import RotaryProfile, check_dim, sections
from sinpe.spec.tolerance import ulp_array

from ...inputs import LoadError, one_line

APPLY = ("apply",)
OPTIONS = (
    Option("convention", APPLY, "hf: fn(q, k, cos, sin); hf-ids: fn(q, k, cos, sin, position_ids); module: fn(x, "
           "positions); freqs: fn(freqs, t) (default hf)", default="hf", choices=apply_call.CONVENTIONS),
    Option("rotary_dim", APPLY, "channels rotated (default --dim)", type=int),
    Option("rotary_fraction", APPLY, "partial rotary: fraction of --dim rotated"),
    Option("dtype", APPLY, "dtype of q and k (default float32)", default="float32", choices=apply_call.DTYPES),
    Option("positions", APPLY, "positions: start:stop, a comma list or a .npy file (default 0..15, 1000..1015, "
           "4095..4097, 65535..65537, 100000, 100001)"),
    Option("seed", APPLY, "seed of the random heads", default=0, type=int),
    Option("random_heads", APPLY, "random heads besides the unit vectors", default=RANDOM_HEADS, type=int),
    Option("timeout", APPLY, "time limit of a module:function TARGET, run in a child process", type=float),
)
# the rotary profile's keywords (no caches, no LongRoPE factors: the application computes its own cache)
PROFILE_OPTIONS = (*SHARED, *(o for o in rotary.PARAMETERS if o.name != "ext_factors"))
MAX_DIM = 1024
MAX_CACHE_ENTRIES = 1 << 22   # hf-ids: the whole cache (rows 0..max position) x width
MAX_LISTED = 10


class ApplicationKind:
    """The application kind (see the module docstring)."""

    name = "apply"
    noun = "a rotary application"
    options: tuple[Option, ...] = OPTIONS + PROFILE_OPTIONS

    def profile(self, profile: Any, req: Request) -> RotaryProfile:
        """The rotary profile (a preset's name, default llama, or a RotaryProfile) with the request's overrides."""
        if isinstance(profile, RotaryProfile):
            over = {k: v for k, v in rotary.overrides(req).items() if v is not None}
            return profile.replace(**over) if over else profile
        return rotary.KIND.profile(profile or "llama", req)

    def check(self, fn: Any, profile: Any = "llama", **kw: Any) -> ApplyResult:
        """REQ-CHECK-APPLY: call ``fn`` (``"module:function"``, run isolated, or a Python callable) under
        ``convention`` (hf, hf-ids, module, freqs) with q/k in ``dtype`` and compare with DEF-ROPE-APPLY under
        TOL-APPLY. Keywords: ``dim`` (required), the options of :data:`OPTIONS` and the rotary profile's."""
        t0 = time.perf_counter()
        req = Request.of(self.options, kw)
        if req.dim is None:
            raise LoadError("--dim is required: the head dimension of q and k")
        if req.convention not in apply_call.CONVENTIONS:
            raise LoadError(f"--convention must be one of {', '.join(apply_call.CONVENTIONS)}; got {req.convention!r}")
        if req.dtype not in apply_call.DTYPES:
            raise LoadError(f"--dtype must be one of {', '.join(apply_call.DTYPES)}; got {req.dtype!r}")
        rp = self.profile(profile, req)
        r = _rotary_dim(req.dim, req.rotary_dim, req.rotary_fraction)
        check_dim(rp, r)
        pos = self.positions(req, rp, r)
        ang = angles(rp, r, pos)
        x = build_inputs(req.dim, len(pos), req.dtype, req.random_heads, req.seed)
        arrays = call_arrays(x, rp, r, pos, req.convention, ang)
        with shared_run():  # a repeat of a failing call reaches the child of the first (REQ-CHECK-ISOLATE)
            table = _call(fn, arrays, req.convention, req.dtype, req.dim, req.timeout)
            first = np.array(table.data, copy=True)  # what the function returned, whatever it does later
            y = np.asarray(first, dtype=np.float64).reshape(x.shape)
            case = Case(x, y, rp, r, req.dtype, req.convention in ("hf", "hf-ids", "freqs"),
                        req.convention == "freqs", ang, req.dim)
            res = ApplyResult(rp.name or rp.describe(), rotary.KIND.flags(rp), {"describe": rp.describe()}, "apply",
                              req.dtype, req.dim, len(pos), width=req.dim, kind="apply", working=req.dtype,
                              notes=list(table.notes), target=fn if isinstance(fn, str) else getattr(fn, "__name__",
                                                                                                    "function"),
                              convention=req.convention, rotary_dim=r, layout=rp.layout,
                              positions=[_pos_json(p) for p in pos], output_dtype=table.dtype)
            _judge(res, case)
            if res.verdict == "fails":
                _repeat(res, fn, arrays, req, first)
        res.seconds = time.perf_counter() - t0
        return res

    def positions(self, req: Request, rp: RotaryProfile, r: int) -> list[Any]:
        """The rows' positions (one axis, or one per section of a multi-axis profile), checked for the convention."""
        m = len(sections(rp, r))
        if req.convention == "hf-ids" and m > 1:
            raise LoadError("--convention hf-ids indexes one cache row per position id; a multi-axis profile "
                            "(DEF-ROPE-AXES) has none: use hf, module or freqs")
        pos = positions_of(req.positions, req.convention, m)
        if req.convention == "hf-ids" and (max(pos) + 1) * r > MAX_CACHE_ENTRIES:
            raise LoadError(f"--convention hf-ids passes the cache up to position {max(pos)}: over "
                            f"{MAX_CACHE_ENTRIES} entries; pass smaller --positions")
        return pos


def _rotary_dim(dim: int, rotary_dim: int | None, fraction: Any) -> int:
    if isinstance(dim, bool) or not isinstance(dim, int) or not 2 <= dim <= MAX_DIM:
        raise LoadError(f"--dim must be an integer in 2..{MAX_DIM}; got {dim!r}")
    if rotary_dim is not None and fraction is not None:
        raise LoadError("give --rotary-dim or --rotary-fraction, not both")
    r = rotary_dim if rotary_dim is not None else (dim if fraction is None else Fraction(str(fraction)) * dim)
    if Fraction(r).denominator != 1 or not 2 <= int(r) <= dim or int(r) % 2:
        raise LoadError(f"the rotary dim (fraction x dim) must be an even integer in 2..{dim}; got {r}")
    return int(r)


def _call(fn: Any, arrays: dict[str, np.ndarray], convention: str, dtype: str, dim: int,
          timeout: float | None) -> Any:
    packed, layout = apply_call.pack(arrays, dim)
    key = apply_call.request_key(convention, dtype, layout)
    if isinstance(fn, str):
        return call_isolated(fn, packed, dim, call="apply", key=key, timeout=timeout)  # REQ-CHECK-ISOLATE
    return apply_call.call_apply(fn, getattr(fn, "__name__", "function"), packed, key)


def _repeat(res: ApplyResult, fn: Any, arrays: dict[str, np.ndarray], req: Request, first: np.ndarray) -> None:
    """A failing function called again with the same inputs (a named one in the same child) and its output compared
    bit for bit with the first (``res.repeat``): where they differ, the cause is ``nondeterministic`` (torch 2.13's
    MKL VML picked its low-accuracy cos when two threads made the first call at once, pytorch/pytorch#188792: a
    survey check failed once in CI); the verdict stays the first call's. A second call that fails is noted."""
    try:
        again = _call(fn, arrays, req.convention, req.dtype, req.dim, req.timeout)
    except LoadError as e:
        res.repeat = {"calls": 2, "differing": None, "error": one_line(e)}
        res.notes.append(f"a second call with the same inputs failed ({one_line(e)}); the verdict is on the first call")
        return
    res.repeat = {"calls": 2, "differing": apply_call.differing_entries(first, again.data)}
    if res.repeat["differing"]:
        attach(res, of_repeat(res.repeat, res.compared))


def _judge(res: ApplyResult, case: Case) -> None:
    """Every entry against TOL-APPLY, the unjudged share, THM-ROPE-REL, the verdict, its reason and cause."""
    o, e = exact_rotation(case.x, case.ang, case.layout)
    b = bound_for(case, case.ang, case.layout)
    fail, undecided = classify_entries(case.y, o, e, b)
    if undecided.any():  # the binary64 rotation's own error reaches the bound (float64): certified enclosures
        done, lo, hi = refine(case.x, case.ang, case.layout, case.y, o, undecided)
        fail |= done & (lo > b)
        undecided &= ~done | ~((lo > b) | (hi <= b))
    free = (b > 0) & (b >= reach(case.x, case.ang, case.layout) + np.abs(o))
    res.compared, res.n_failures, res.undecided = int(o.size), int(fail.sum()), int(undecided.sum())
    res.unjudged = unjudged_figures(int(free.sum()), res.compared, _first_position(free, res.positions))
    with np.errstate(invalid="ignore", divide="ignore"):
        err = np.abs(case.y - o)
        ratio = np.where(b > 0, err / b, np.where(err == 0, 0.0, np.inf))
    res.max_abs_error = float(np.nanmax(np.where(np.isfinite(err), err, np.inf)))
    res.max_bound_ratio = float(np.nanmax(ratio))
    res.failures = _listed(case, o, b, fail, res.positions)
    h = case.unit_heads
    res.relative = relative(case.y[0, h:], case.y[1, h:], o[0, h:], b[0, h:], b[1, h:], res.positions)
    rel_bad = res.relative["holds"] is False
    res.verdict = verdict(res.n_failures > 0 or rel_bad, res.unjudged["count"], res.undecided)
    bound = f"TOL-APPLY's bound for {case.dtype}"
    if res.verdict == "fails":
        res.leaks = _leaks(case, fail)
        res.diagnosis = diagnose(case, rotary.KIND.candidates) if res.n_failures else None
        first = (res.failures[0].position, res.failures[0].column) if res.failures else None
        res.reason = "; ".join(([failing_words(res.n_failures, res.compared, bound, first)] if res.n_failures else [])
                               + (["THM-ROPE-REL violated: q.k depends on more than m - n"] if rel_bad else []))
        attach(res, of_diagnosis(res.diagnosis))
    elif res.verdict == "inconclusive":
        res.reason = inconclusive_words(res.unjudged, res.compared, bound, res.undecided,
                                        f"{res.undecided} entries within the binary64 rotation's error of their bound "
                                        "could not be decided by its certified enclosures", "[-reach, reach]")


def _first_position(mask: np.ndarray, positions: Sequence[Any]) -> Any:
    rows = mask.any(axis=(0, 1, 3))
    return _pos_json(positions[int(np.argmax(rows))]) if rows.any() else None


def _pos_json(p: Any) -> Any:
    return [int(x) for x in p] if isinstance(p, (tuple, list)) else int(p)


def _listed(case: Case, o: np.ndarray, b: np.ndarray, fail: np.ndarray, positions: Sequence[Any]) -> list[Failure]:
    """The first failing outputs: ``label`` names the tensor, the head and its input (a unit vector or random)."""
    out = []
    fmt = get_format(case.dtype)
    for t, h, s, j in list(zip(*np.nonzero(fail), strict=True))[:MAX_LISTED]:
        y, exact = float(case.y[t, h, s, j]), float(o[t, h, s, j])
        e = abs(y - exact)
        u = float(ulp_array(np.array([exact]), fmt)[0])
        label = f"{'qk'[t]} head {int(h)} ({f'e_{h}' if h < case.unit_heads else 'random'})"
        out.append(Failure(position=str(positions[s]), column=int(j), label=label, value=y, reference=exact,
                           abs_error=e, allowed=float(b[t, h, s, j]), ulp_error=e / u,
                           reason="non-finite" if not np.isfinite(y) else "|error| > TOL-APPLY", repro="", python="",
                           row=int(s)))
    return out


def _leaks(case: Case, fail: np.ndarray) -> list[str]:
    """Unit vectors e_j whose output reaches channels other than j and its partner (a pairing finding)."""
    a, b = pairs_of(case.layout, case.r)
    partner = {**dict(zip(a, b, strict=True)), **dict(zip(b, a, strict=True))}
    out = []
    for j in range(min(case.unit_heads, case.x.shape[-1])):
        bad = set(np.nonzero(fail[0, j].any(axis=0))[0].tolist()) - {j, partner.get(j, j)}
        if bad:
            out.append(f"e_{j} reaches channel(s) {sorted(bad)[:4]} (its partner is {partner.get(j, 'none')})")
    return out[:8]


KIND = ApplicationKind()
