"""Does a function *apply* the rotary encoding right? (SPEC.md REQ-CHECK-APPLY, DEF-ROPE-APPLY, TOL-APPLY)

sinpe builds queries and keys -- unit vectors e_j (one head per channel, so a wrong pairing shows as a
leak into another channel) and random heads rounded to the claimed dtype -- at positions that include a
KV-cache block and long positions, calls the function under a convention of :mod:`apply_call` (a
``module:function`` named by text runs isolated in a child process, as ``sinpe check`` runs callables;
a Python callable runs in process), and compares every output with the exact rotation
(:mod:`apply_exact`) under TOL-APPLY for the dtype. A failing function's cause is named when a known
bug explains every entry (:mod:`apply_diagnose`); THM-ROPE-REL is checked on the outputs either way.

>>> import torch
>>> def rotate_half(x):
...     x1, x2 = x.chunk(2, dim=-1)
...     return torch.cat((-x2, x1), dim=-1)
>>> def apply_rotary_pos_emb(q, k, cos, sin):                 # transformers' LLaMA
...     cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
...     return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
>>> r = check_apply(apply_rotary_pos_emb, "llama", dim=16)
>>> r.verdict, r.relative["holds"]
('conforms', True)
>>> r = check_apply(apply_rotary_pos_emb, "gptj", dim=16)     # rotate-half on a pairs cache
>>> r.verdict, r.cause
('fails', 'pairing')
"""
from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

import numpy as np

from sinpe.spec.rotary import RotaryProfile, check_dim, get_rotary, sections

from sinpe.reference.checking import apply_call
from sinpe.reference.checking.apply_diagnose import Case, bound_for, diagnose, judge, relative
from sinpe.reference.checking.apply_exact import angles, exact_rotation, reach, refine, round_to
from sinpe.reference.checking.jsonout import json_float
from sinpe.reference.checking.loaders import LoadError

DEFAULT_POSITIONS = tuple(range(16)) + tuple(range(1000, 1016)) + (4095, 4096, 4097, 65535, 65536, 65537, 100000,
                                                                    100001)
RANDOM_HEADS = 4
MAX_POSITIONS = 4096
MAX_DIM = 1024
MAX_CACHE_ENTRIES = 1 << 22   # hf-ids: the whole cache (rows 0..max position) x width
MAX_LISTED = 10


@dataclass
class ApplyResult:
    """The report of :func:`check_apply`; ``to_json()`` is its JSON form (REQ-CHECK-APPLY)."""

    verdict: str
    target: str
    convention: str
    profile: str
    profile_flags: str
    dim: int
    rotary_dim: int
    layout: str
    dtype: str
    positions: list[Any]     # ints, or one list of coordinates per row (DEF-ROPE-AXES)
    entries: int = 0
    n_failures: int = 0
    undecided: int = 0
    unjudged: dict[str, Any] = field(default_factory=dict)
    max_abs_error: float = 0.0
    max_bound_ratio: float = 0.0
    failures: list[dict[str, Any]] = field(default_factory=list)
    cause: str | None = None
    diagnosis: dict[str, Any] | None = None
    leaks: list[str] = field(default_factory=list)
    relative: dict[str, Any] = field(default_factory=dict)
    reason: str | None = None
    notes: list[str] = field(default_factory=list)
    output_dtype: str = ""
    seconds: float = 0.0

    @property
    def conformant(self) -> bool:
        return self.verdict == "conforms"

    @property
    def exit_code(self) -> int:
        return {"conforms": 0, "fails": 1}.get(self.verdict, 3)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["conformant"] = self.conformant
        out["kind"] = "apply"
        for k in ("max_abs_error", "max_bound_ratio"):
            out[k] = json_float(out[k])
        return out


# --- inputs ----------------------------------------------------------------------------------------

def build_inputs(dim: int, seq: int, dtype: str, random_heads: int = RANDOM_HEADS, seed: int = 0) -> np.ndarray:
    """x (2, dim + random_heads, seq, dim): q then k; head j < dim is e_j at every position, the rest one random
    N(0, 1) vector each, rounded to ``dtype`` (exact values of it), the same at every position (THM-ROPE-REL
    compares one vector's rotations)."""
    rng = np.random.default_rng(seed)
    x = np.zeros((2, dim + random_heads, seq, dim))
    for j in range(dim):
        x[:, j, :, j] = 1.0
    x[:, dim:] = round_to(rng.standard_normal((2, random_heads, 1, dim)), dtype)
    return x


def default_axis_positions(m: int) -> list[tuple[int, ...]]:
    """Rows of an m-axis profile (DEF-ROPE-AXES) when none are given, after Qwen2-VL's M-RoPE ids: text tokens
    (p on every axis) 0..3, a 4 x 4 image at t = 4 (axis 0 t, the others the cell's row and column in turn; two
    axes: (4 + i, 4 + j)), text 8..11 and 1000..1003, a 4 x 4 image at 65536, text 100000, 100001."""
    def image(t: int) -> list[tuple[int, ...]]:
        cells = [(i, j) for i in range(4) for j in range(4)]
        if m == 2:
            return [(t + i, t + j) for i, j in cells]
        return [(t,) + tuple(t + (i, j)[(a - 1) % 2] for a in range(1, m)) for i, j in cells]
    text = [*range(4), *range(8, 12), *range(1000, 1004)]
    rows = [(p,) * m for p in text[:4]] + image(4) + [(p,) * m for p in text[4:]] + image(65536)
    return rows + [(p,) * m for p in (100000, 100001)]


def _positions(positions: Any, convention: str, m: int = 1) -> list[Any]:
    """The rows' positions: ints (one axis) or m-tuples (DEF-ROPE-AXES; a single number is read on every axis)."""
    if positions is None:
        pos: Any = default_axis_positions(m) if m > 1 else [p for p in DEFAULT_POSITIONS
                                                           if convention != "hf-ids" or p < 8192]
    elif isinstance(positions, str):
        pos = _positions_file(positions, m)
    else:
        pos = list(positions)
    if not len(pos) or len(pos) > MAX_POSITIONS:
        raise LoadError(f"positions: between 1 and {MAX_POSITIONS}; got {len(pos)}")
    rows = [_row(p, m) for p in pos]
    return [r[0] for r in rows] if m == 1 else rows


def _positions_file(spec: str, m: int) -> Any:
    from sinpe.reference.numerics.positions import positions_from_spec, read_axis_positions
    from sinpe.spec.rotary import MAX_AXES
    if spec.endswith(".npy") and os.path.exists(spec):
        try:
            from sinpe.reference.checking.containers import npy_file
            shape = npy_file(spec).shape
            arr = read_axis_positions(spec, shape[0], MAX_AXES) if len(shape) == 2 else None
        except (ValueError, OSError) as e:
            raise LoadError(str(e)) from None
        if arr is not None:
            return arr.tolist()
    return positions_from_spec(spec, MAX_POSITIONS, f"at most {MAX_POSITIONS} positions").tolist()


def _row(p: Any, m: int) -> tuple[int, ...]:
    xs = list(np.asarray(p).ravel()) if isinstance(p, (tuple, list, np.ndarray)) else [p] * m
    if len(xs) == 1:
        xs = xs * m
    if len(xs) != m:
        raise LoadError(f"positions: a row of {len(xs)} coordinates for a profile of {m} position axes")
    out = []
    for x in xs:
        if float(x) != int(float(x)) or not 0 <= int(float(x)) < 2**53:
            raise LoadError(f"positions: a rotary application is checked at integer positions 0 <= p < 2^53; got {x}")
        out.append(int(float(x)))
    return tuple(out)


def _cache_cols(v: np.ndarray, layout: str) -> np.ndarray:
    """(seq, r/2) per-pair values in a cache's column layout (DEF-ROPE-LAYOUT)."""
    if layout == "halves":
        return np.concatenate([v, v], axis=-1)
    return np.repeat(v, 2, axis=-1) if layout == "pairs" else v


def call_arrays(x: np.ndarray, rp: RotaryProfile, r: int, pos: list[int], convention: str, ang: Any) -> dict[str, np.ndarray]:
    """What the convention passes: q, k (1, heads, seq, dim) and the cache, ids, positions or angles."""
    q, k = x[0][None], x[1][None]
    out: dict[str, np.ndarray] = {"q": q, "k": k}
    if convention == "hf":
        out["cos"], out["sin"] = (_cache_cols(v, rp.layout)[None] for v in (ang.cos, ang.sin))
    elif convention == "hf-ids":
        full = angles(rp, r, range(max(pos) + 1))
        out["cos"], out["sin"] = (_cache_cols(v, rp.layout) for v in (full.cos, full.sin))
        out["position_ids"] = np.array(pos, dtype=np.float64)[None]
    elif convention == "module":
        p = np.array(pos, dtype=np.float64)
        out["positions"] = p.T[:, None, :] if p.ndim == 2 else p[None]  # (batch, seq), or (axes, batch, seq)
    else:
        if rp.layout == "single":
            raise LoadError("--convention freqs passes the angles in the cache layout: use layout halves or pairs")
        out["freqs"] = _cache_cols(ang.theta, rp.layout)
    return out


# --- the check ---------------------------------------------------------------------------------------

def _profile(profile: Any, overrides: dict[str, Any]) -> RotaryProfile:
    if isinstance(profile, RotaryProfile):
        return profile.replace(**{k: v for k, v in overrides.items() if v is not None}) if overrides else profile
    return get_rotary(profile or "llama", **overrides)


def _rotary_dim(dim: int, rotary_dim: int | None, fraction: Any) -> int:
    from fractions import Fraction
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
        from sinpe.reference.checking.isolate import call_isolated
        return call_isolated(fn, packed, dim, call="apply", key=key, timeout=timeout)  # REQ-CHECK-ISOLATE
    return apply_call.call_apply(fn, getattr(fn, "__name__", "function"), packed, key)


def check_apply(fn: Any, profile: Any = "llama", *, dim: int, convention: str = "hf", dtype: str = "float32",
                positions: Any = None, rotary_dim: int | None = None, rotary_fraction: Any = None,
                timeout: float | None = None, random_heads: int = RANDOM_HEADS, seed: int = 0,
                **overrides: Any) -> ApplyResult:
    """REQ-CHECK-APPLY: call ``fn`` (``"module:function"``, run isolated, or a Python callable) under
    ``convention`` (hf, hf-ids, module, freqs) with q/k in ``dtype`` and compare with DEF-ROPE-APPLY under
    TOL-APPLY. ``overrides``: the rotary profile's (layout, base, rule, factor, ...)."""
    t0 = time.perf_counter()
    if convention not in apply_call.CONVENTIONS:
        raise LoadError(f"--convention must be one of {', '.join(apply_call.CONVENTIONS)}; got {convention!r}")
    if dtype not in apply_call.DTYPES:
        raise LoadError(f"--dtype must be one of {', '.join(apply_call.DTYPES)}; got {dtype!r}")
    rp = _profile(profile, overrides)
    r = _rotary_dim(dim, rotary_dim, rotary_fraction)
    check_dim(rp, r)
    m = len(sections(rp, r))
    if convention == "hf-ids" and m > 1:
        raise LoadError("--convention hf-ids indexes one cache row per position id; a multi-axis profile "
                        "(DEF-ROPE-AXES) has none: use hf, module or freqs")
    pos = _positions(positions, convention, m)
    if convention == "hf-ids" and (max(pos) + 1) * r > MAX_CACHE_ENTRIES:
        raise LoadError(f"--convention hf-ids passes the cache up to position {max(pos)}: over "
                        f"{MAX_CACHE_ENTRIES} entries; pass smaller --positions")
    ang = angles(rp, r, pos)
    x = build_inputs(dim, len(pos), dtype, random_heads, seed)
    table = _call(fn, call_arrays(x, rp, r, pos, convention, ang), convention, dtype, dim, timeout)
    y = np.asarray(table.data, dtype=np.float64).reshape(x.shape)
    case = Case(x, y, rp, r, dtype, convention in ("hf", "hf-ids", "freqs"), convention == "freqs", ang, dim)
    res = ApplyResult("conforms", fn if isinstance(fn, str) else getattr(fn, "__name__", "function"), convention,
                      rp.name or rp.describe(), _flags(rp), dim, r, rp.layout, dtype, [_pos_json(p) for p in pos], notes=list(table.notes),
                      output_dtype=table.dtype)
    _judge(res, case)
    res.seconds = time.perf_counter() - t0
    return res


def _flags(rp: RotaryProfile) -> str:
    from sinpe.reference.checking.kinds import rotary_flags
    return rotary_flags(rp)


def _judge(res: ApplyResult, case: Case) -> None:
    """Every entry against TOL-APPLY, the unjudged share, THM-ROPE-REL, and the cause of a failure."""
    o, e = exact_rotation(case.x, case.ang, case.layout)
    b = bound_for(case, case.ang, case.layout)
    fail, undecided = judge(case.y, o, e, b)
    if undecided.any():  # the binary64 rotation's own error reaches the bound (float64): certified enclosures
        done, lo, hi = refine(case.x, case.ang, case.layout, case.y, o, undecided)
        fail |= done & (lo > b)
        undecided &= ~done | ~((lo > b) | (hi <= b))
    free = (b > 0) & (b >= reach(case.x, case.ang, case.layout) + np.abs(o))
    res.entries, res.n_failures, res.undecided = int(o.size), int(fail.sum()), int(undecided.sum())
    res.unjudged = {"count": int(free.sum()), "share": float(free.mean()),
                    "from_position": _first_position(free, res.positions)}
    with np.errstate(invalid="ignore", divide="ignore"):
        err = np.abs(case.y - o)
        ratio = np.where(b > 0, err / b, np.where(err == 0, 0.0, np.inf))
    res.max_abs_error = float(np.nanmax(np.where(np.isfinite(err), err, np.inf)))
    res.max_bound_ratio = float(np.nanmax(ratio))
    res.failures = _listed(case, o, b, fail, res.positions)
    h = case.unit_heads
    res.relative = relative(case.y[0, h:], case.y[1, h:], o[0, h:], b[0, h:], b[1, h:], res.positions)
    rel_bad = res.relative["holds"] is False
    if res.n_failures or rel_bad:
        res.verdict = "fails"
        res.leaks = _leaks(case, fail)
        res.diagnosis = diagnose(case) if res.n_failures else None
        res.cause = res.diagnosis["cause"] if res.diagnosis else None
        res.reason = (f"{res.n_failures} of {res.entries} entries beyond TOL-APPLY's bound for {case.dtype}"
                      + (f"; {res.diagnosis['sentence']}" if res.diagnosis else "")
                      + ("; THM-ROPE-REL violated: q.k depends on more than m - n" if rel_bad else ""))
    elif res.undecided or res.unjudged["count"]:
        res.verdict = "inconclusive"
        res.reason = (f"{res.unjudged['count']} entries unjudged (the bound lets any value pass) from position "
                      f"{res.unjudged['from_position']}; {res.undecided} within the reference's error of the bound")


def _first_position(mask: np.ndarray, positions: Sequence[int]) -> int | None:
    rows = mask.any(axis=(0, 1, 3))
    return _pos_json(positions[int(np.argmax(rows))]) if rows.any() else None


def _pos_json(p: Any) -> Any:
    return [int(x) for x in p] if isinstance(p, (tuple, list)) else int(p)


def _listed(case: Case, o: np.ndarray, b: np.ndarray, fail: np.ndarray, positions: Sequence[int]) -> list[dict[str, Any]]:
    out = []
    for t, h, s, j in list(zip(*np.nonzero(fail)))[:MAX_LISTED]:
        out.append({"tensor": "qk"[t], "head": int(h), "input": f"e_{h}" if h < case.unit_heads else "random",
                    "position": _pos_json(positions[s]), "channel": int(j), "value": json_float(float(case.y[t, h, s, j])),
                    "exact": float(o[t, h, s, j]), "abs_error": json_float(float(abs(case.y[t, h, s, j] - o[t, h, s, j]))),
                    "allowed": float(b[t, h, s, j])})
    return out


def _leaks(case: Case, fail: np.ndarray) -> list[str]:
    """Unit vectors e_j whose output reaches channels other than j and its partner (a pairing finding)."""
    from sinpe.reference.checking.apply_exact import pairs_of
    a, b = pairs_of(case.layout, case.r)
    partner = {**dict(zip(a, b)), **dict(zip(b, a))}
    out = []
    for j in range(min(case.unit_heads, case.x.shape[-1])):
        bad = set(np.nonzero(fail[0, j].any(axis=0))[0].tolist()) - {j, partner.get(j, j)}
        if bad:
            out.append(f"e_{j} reaches channel(s) {sorted(bad)[:4]} (its partner is {partner.get(j, 'none')})")
    return out[:8]


# --- reports -----------------------------------------------------------------------------------------

VERDICT_WORDS = {"conforms": "CONFORMS", "fails": "DOES NOT CONFORM", "inconclusive": "INCONCLUSIVE"}


def render(res: ApplyResult) -> str:
    """The human report of ``sinpe check-apply``."""
    from sinpe.reference.checking.loaders import escape
    part = f", rotary dim {res.rotary_dim} of {res.dim}" if res.rotary_dim != res.dim else ""
    L = [f"sinpe check-apply {escape(res.target)}: convention {res.convention}, profile {res.profile} "
         f"({res.profile_flags}), dim {res.dim}{part}, dtype {res.dtype}, {len(res.positions)} positions "
         f"({res.positions[0]}..{max(res.positions)})"]
    L += [f"  note: {n}" for n in res.notes]
    L.append(f"{VERDICT_WORDS[res.verdict]}: {res.reason or 'every entry within TOL-APPLY and THM-ROPE-REL holds'}")
    if res.cause:
        L.append(f"cause: {res.cause}")
    L.append(f"max |error| {res.max_abs_error:.3g} ({res.max_bound_ratio:.3g} of its bound); {res.n_failures} of "
             f"{res.entries} entries fail; unjudged {res.unjudged['count']} ({100 * res.unjudged['share']:.3g} %)")
    rel = res.relative
    L.append(f"THM-ROPE-REL (q.k depends only on m - n): {rel.get('comparisons', 0)} comparisons, "
             f"{rel.get('violations', 0)} violations" + (f"; first: (m, n) = {tuple(rel['first']['m_n'])} vs "
             f"{tuple(rel['first']['m_n_ref'])}, gap {rel['first']['gap']:.3g} > slack {rel['first']['slack']:.3g}"
             if rel.get("first") else ""))
    L += [f"  pairing: {leak}" for leak in res.leaks]
    for f in res.failures:
        L.append(f"  {f['tensor']} head {f['head']} ({f['input']}) position {f['position']} channel {f['channel']}: "
                 f"{_value(f['value'])} vs exact {_value(f['exact'])} (error {_figure(f['abs_error'])} > "
                 f"{_figure(f['allowed'])})")
    if res.diagnosis and not res.cause:
        L.append(f"diagnosis: {res.diagnosis['sentence']}")
    L.append(f"({res.seconds:.2f} s)")
    return "\n".join(L)


def _value(x: Any) -> str:
    """An entry of a failure: its repr, or the JSON word of a non-finite one (``nan``, ``inf``)."""
    return repr(x) if isinstance(x, float) else str(x)


def _figure(x: Any) -> str:
    """An error or a bound of a failure: 3 significant digits, or the JSON word of a non-finite one (``nan``)."""
    return f"{x:.3g}" if isinstance(x, (int, float)) else str(x)


def junit_cases(res: ApplyResult) -> list[tuple[str, Any]]:
    """The JUnit cases of a check: the pointwise comparison (TOL-APPLY) and THM-ROPE-REL."""
    point: Any = None
    if res.n_failures:
        point = res.reason
    elif res.verdict == "inconclusive":
        point = ("skipped", res.reason or "inconclusive")
    rel = res.relative
    rel_case: Any = None if rel.get("holds") is not False else f"{rel['violations']} THM-ROPE-REL violations"
    return [(f"TOL-APPLY {res.convention} {res.dtype}", point), ("THM-ROPE-REL", rel_case)]
