"""Generated checkpoints for tests/test_scan.py (REQ-SCAN): sinusoid tables of every kind, two wrong ones and
unrelated tensors, written with library-style NumPy formulas (not sinpe's tables)."""
from __future__ import annotations

import numpy as np


def vaswani(n: int, d: int, positions: np.ndarray | None = None) -> np.ndarray:
    p = np.arange(n, dtype=np.float64) if positions is None else positions
    w = np.exp(np.arange(0, d, 2) * (-np.log(10000.0) / d))
    pe = np.zeros((n, d))
    pe[:, 0::2], pe[:, 1::2] = np.sin(p[:, None] * w), np.cos(p[:, None] * w)
    return pe.astype(np.float32)


def t2t(n: int, d: int) -> np.ndarray:
    h = d // 2
    w = np.exp(-np.log(10000.0) * np.arange(h) / (h - 1))
    a = np.arange(n)[:, None] * w
    return np.concatenate([np.sin(a), np.cos(a)], axis=1).astype(np.float32)


def mae_grid(dim: int, size: int) -> np.ndarray:
    """MAE's get_2d_sincos_pos_embed (float64 formula, stored float32), no cls row."""
    def one(d, pos):
        omega = 1.0 / 10000 ** (np.arange(d // 2, dtype=np.float64) / (d / 2.0))
        out = np.einsum("m,d->md", pos.reshape(-1), omega)
        return np.concatenate([np.sin(out), np.cos(out)], axis=1)
    g = np.meshgrid(np.arange(size, dtype=np.float32), np.arange(size, dtype=np.float32))
    g = np.stack(g, axis=0).reshape(2, 1, size, size)
    return np.concatenate([one(dim // 2, g[0]), one(dim // 2, g[1])], axis=1).astype(np.float32)


def rope(n: int, dim: int, layout: str = "halves") -> tuple[np.ndarray, np.ndarray]:
    inv = 1.0 / (10000.0 ** (np.arange(0, dim, 2) / dim))
    f = np.outer(np.arange(n), inv)
    emb = np.concatenate([f, f], axis=1) if layout == "halves" else np.repeat(f, 2, axis=1)
    return np.cos(emb).astype(np.float32), np.sin(emb).astype(np.float32)


def twenty() -> dict[str, tuple[np.ndarray, str]]:
    """name -> (array, expected verdict): 8 correct tables, 2 wrong ones, 10 unrelated tensors."""
    rng = np.random.default_rng(7)
    cos, sin = rope(256, 64)
    gcos, _ = rope(128, 32, "pairs")
    wrong = vaswani(512, 64)
    wrong[[100, 200, 300], [3, 10, 41]] += 0.05                   # three corrupted entries
    p16 = np.arange(4096).astype(np.float16).astype(np.float64)   # positions rounded to float16
    return {
        "encoder.pe": (vaswani(512, 64), "conforms"),
        "decoder.timing": (t2t(256, 32), "conforms"),
        "embed.pos_buffer": (vaswani(256, 64)[None], "conforms"),    # (1, 256, 64): squeezed
        "vit.pos_embed": (mae_grid(64, 14)[None], "conforms"),
        "rope.cos_cached": (cos, "conforms"),
        "rope.sin_cached": (sin, "conforms"),
        "gptj.cos": (gcos, "conforms"),
        "half.pe": (vaswani(128, 32).astype(np.float16), "conforms"),
        "bad.pe_corrupted": (wrong, "fails"),
        "bad.pe_fp16_positions": (vaswani(4096, 64, p16), "fails"),
        "layer0.q_proj.weight": (rng.normal(0, 0.02, (256, 64)).astype(np.float32), "skipped"),
        "layer0.zeros": (np.zeros((64, 64), np.float32), "skipped"),
        "tok_embeddings.weight": (rng.normal(0, 1, (1000, 64)).astype(np.float32), "skipped"),
        "norm.weight": (np.ones(64, np.float32), "skipped"),
        "layer0.bias": (np.zeros(64, np.float32), "skipped"),
        "conv.weight": (rng.normal(size=(8, 3, 3, 3)).astype(np.float32), "skipped"),
        "position_ids": (np.arange(512, dtype=np.int64)[None], "skipped"),
        "mlp.uniform": (rng.uniform(-1, 1, (128, 128)).astype(np.float32), "skipped"),
        "mask": (np.triu(np.full((32, 32), -np.inf, np.float32), 1), "skipped"),
        "const_rows": (np.tile(np.linspace(-1, 1, 32, dtype=np.float32), (32, 1)), "skipped"),
    }
