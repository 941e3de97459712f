"""detect names half-precision grids and caches computed in half precision (REQ-DETECT-GRID, REQ-DETECT-ROPE):
when no preset fits at TOL-WORKING's default (computed in float32, rounded once), the readings are tried at
--working native; a plan found so carries `--working native` in its flags and exit 1 (a deviation), and
`sinpe check --profile auto` still rejects the table (it was computed in less than it claims). Before, detect
named nothing for these (the survey's Conditional DETR, MaskFormer and transformers' rotary classes moved
with .to(float16)). The tables are computed here in NumPy float16 arithmetic (MAE's formula, LLaMA's cache).
Reproduce: python -m pytest tests/test_detect_native.py -q
"""
from __future__ import annotations

import numpy as np

import sinpe

H = np.float16


def mae_in_half(dim: int = 64, side: int = 16) -> np.ndarray:
    """MAE's get_2d_sincos_pos_embed with every operation in float16 ([emb of w | emb of h], each [sin | cos])."""
    omega = (H(1) / H(10000) ** (np.arange(dim // 4, dtype=H) / H(dim // 4))).astype(H)
    gy, gx = np.meshgrid(np.arange(side, dtype=H), np.arange(side, dtype=H), indexing="ij")
    def emb(p):
        a = (p.reshape(-1, 1) * omega[None, :]).astype(H)
        return np.concatenate([np.sin(a), np.cos(a)], axis=1).astype(H)
    return np.concatenate([emb(gx), emb(gy)], axis=1)  # MAE: the first half reads the column (w) coordinate


def llama_cos_in_half(dim: int = 64, n: int = 512) -> np.ndarray:
    inv = (H(1) / H(10000) ** (np.arange(0, dim, 2, dtype=H) / H(dim))).astype(H)
    a = (np.arange(n, dtype=H)[:, None] * inv[None, :]).astype(H)
    return np.cos(np.concatenate([a, a], axis=1)).astype(H)


def test_a_grid_computed_in_half_is_named_with_working_native():
    g = mae_in_half()
    assert sinpe.check(g, "mae").verdict == "fails"                      # the default: computed in float32
    found = sinpe.detect(g)
    assert (found.kind, found.profile_flags, found.exit_code) == ("grid", "--profile mae --shape 16x16 --cls 0 --working native", 1)
    assert sinpe.check(g, "mae", working="native").verdict in ("conforms", "inconclusive")
    assert sinpe.check(g, "auto").verdict == "fails"
    right = sinpe.table("vaswani", d=64, positions=range(256), dtype="float16")  # a 1-D table: not a grid reading
    assert "--working native" not in (sinpe.detect(right).profile_flags or "")


def test_a_cache_computed_in_half_is_named_with_working_native():
    c = llama_cos_in_half()
    found = sinpe.detect(cos=c)
    assert found.profile_flags == "--profile llama --working native" and found.exit_code == 1, found.sentence
    assert sinpe.check(cos=c, profile="llama").verdict == "fails"
    assert sinpe.check(cos=c, profile="auto").verdict == "fails"
    assert sinpe.check(cos=c, profile="llama", working="native").verdict in ("conforms", "inconclusive")
