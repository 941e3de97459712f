"""The inputs of a rotary application check (SPEC.md REQ-CHECK-APPLY, DEF-ROPE-AXES): the queries and keys sinpe
builds (unit vectors e_j, one head per channel, so a wrong pairing shows as a leak into another channel, and random
heads rounded to the claimed dtype), the positions (a KV-cache block and long positions by default; several axes for
an M-RoPE profile), and what each calling convention passes (:mod:`~sinpe.reference.checking.apply.call`).
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from sinpe.reference.checking.apply.exact import angles, round_to
from sinpe.reference.numerics.positions import positions_from_spec, read_axis_positions
from sinpe.spec.rotary import MAX_AXES, RotaryProfile

from ...inputs import LoadError, npy_file

DEFAULT_POSITIONS = tuple(range(16)) + tuple(range(1000, 1016)) + (4095, 4096, 4097, 65535, 65536, 65537, 100000,
                                                                    100001)
RANDOM_HEADS = 4
MAX_POSITIONS = 4096


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


def positions_of(positions: Any, convention: str, m: int = 1) -> list[Any]:
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
    if spec.endswith(".npy") and os.path.exists(spec):
        try:
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
