"""DEF-PRESET-*: each preset equals what named public code computes (SPEC.md "Presets" sources table).

Each function below re-expresses one library's published formula in float64 NumPy, in that
library's own shape (its exponent expression, its concatenation order, its odd-d handling), so
that the preset is checked against the library and not against our own definition. The reference
side is the Arb oracle's correctly rounded binary64 table. Agreement is required to 2^-40 (the
libraries' float64 exp/log/product roundings at positions < 64), and each library must be
*far* from the neighbouring preset (the test can fail).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from sinpe.reference.oracle_flint import reference_f64
from sinpe.spec import get_profile

POS = np.arange(64, dtype=np.float64)
TOL = 2.0 ** -40


def t2t_get_timing_signal_1d(length: int, channels: int) -> np.ndarray:
    # tensor2tensor common_attention.get_timing_signal_1d (min_timescale=1, max_timescale=1e4)
    num_timescales = channels // 2
    inc = math.log(1.0e4 / 1.0) / max(num_timescales - 1, 1)
    inv = 1.0 * np.exp(np.arange(num_timescales) * -inc)
    scaled = np.arange(length)[:, None] * inv[None, :]
    sig = np.concatenate([np.sin(scaled), np.cos(scaled)], axis=1)
    return np.pad(sig, [[0, 0], [0, channels % 2]])


def fairseq_get_embedding(num: int, dim: int) -> np.ndarray:
    # fairseq SinusoidalPositionalEmbedding.get_embedding (padding_idx=None)
    half = dim // 2
    e = math.log(10000) / (half - 1)
    e = np.exp(np.arange(half) * -e)
    e = np.arange(num)[:, None] * e[None, :]
    e = np.concatenate([np.sin(e), np.cos(e)], axis=1)
    if dim % 2 == 1:
        e = np.concatenate([e, np.zeros((num, 1))], axis=1)
    return e


def whisper_sinusoids(length: int, channels: int) -> np.ndarray:
    # openai/whisper model.sinusoids (max_timescale=10000); channels must be even
    inc = np.log(10000) / (channels // 2 - 1)
    inv = np.exp(-inc * np.arange(channels // 2))
    scaled = np.arange(length)[:, None] * inv[None, :]
    return np.concatenate([np.sin(scaled), np.cos(scaled)], axis=1)


def diffusers_timestep_embedding(t: np.ndarray, dim: int, flip_sin_to_cos: bool = False,
                                 downscale_freq_shift: float = 1, scale: float = 1) -> np.ndarray:
    # diffusers embeddings.get_timestep_embedding (max_period=10000)
    half = dim // 2
    exponent = -math.log(10000) * np.arange(half) / (half - downscale_freq_shift)
    emb = t[:, None] * np.exp(exponent)[None, :]
    emb = scale * emb
    emb = np.concatenate([np.sin(emb), np.cos(emb)], axis=-1)
    if flip_sin_to_cos:
        emb = np.concatenate([emb[:, half:], emb[:, :half]], axis=-1)
    if dim % 2 == 1:
        emb = np.pad(emb, ((0, 0), (0, 1)))
    return emb


def guided_diffusion_timestep_embedding(t: np.ndarray, dim: int) -> np.ndarray:
    # openai/guided-diffusion nn.timestep_embedding (max_period=10000)
    half = dim // 2
    freqs = np.exp(-math.log(10000) * np.arange(half) / half)
    args = t[:, None] * freqs[None]
    emb = np.concatenate([np.cos(args), np.sin(args)], axis=-1)
    if dim % 2:
        emb = np.concatenate([emb, np.zeros_like(emb[:, :1])], axis=-1)
    return emb


def mae_1d_sincos(dim: int, pos: np.ndarray) -> np.ndarray:
    # facebookresearch/mae util/pos_embed.get_1d_sincos_pos_embed_from_grid (dim even)
    omega = np.arange(dim // 2, dtype=np.float64) / (dim / 2.0)
    omega = 1.0 / 10000 ** omega
    out = np.einsum("m,d->md", pos, omega)
    return np.concatenate([np.sin(out), np.cos(out)], axis=1)


def _position_enc(n_pos: int, dim: int) -> np.ndarray:
    # the shared table of transformers' DistilBERT / Marian: pos / 10000^(2 (j // 2) / dim)
    return np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for pos in range(n_pos)])


def marian_sinusoidal(n_pos: int, dim: int) -> np.ndarray:
    # transformers MarianSinusoidalPositionalEmbedding._init_weight
    enc = _position_enc(n_pos, dim)
    out = np.empty((n_pos, dim))
    sentinel = dim // 2 if dim % 2 == 0 else dim // 2 + 1
    out[:, :sentinel] = np.sin(enc[:, 0::2])
    out[:, sentinel:] = np.cos(enc[:, 1::2])
    return out


def distilbert_sinusoidal(n_pos: int, dim: int) -> np.ndarray:
    # transformers DistilBERT create_sinusoidal_embeddings
    enc = _position_enc(n_pos, dim)
    out = np.empty((n_pos, dim))
    out[:, 0::2] = np.sin(enc[:, 0::2])
    out[:, 1::2] = np.cos(enc[:, 1::2])
    return out


def audiocraft_sin_embedding(pos: np.ndarray, dim: int) -> np.ndarray:
    # facebookresearch/audiocraft modules/transformer.create_sin_embedding (max_period=10000), dim even
    half = dim // 2
    adim = np.arange(half)[None, :]
    phase = pos[:, None] / (10000 ** (adim / (half - 1)))
    return np.concatenate([np.cos(phase), np.sin(phase)], axis=-1)


def pytorch_tutorial_pe(max_len: int, d: int) -> np.ndarray:
    # PyTorch "language modelling with nn.Transformer" tutorial / Annotated Transformer (d even)
    pos = np.arange(max_len)[:, None]
    div = np.exp(np.arange(0, d, 2) * (-math.log(10000.0) / d))
    pe = np.zeros((max_len, d))
    pe[:, 0::2] = np.sin(pos * div)
    pe[:, 1::2] = np.cos(pos * div)
    return pe


def keras_sine_position_encoding(length: int, hidden: int) -> np.ndarray:
    # keras-hub SinePositionEncoding (max_wavelength=10000)
    min_freq = 1.0 / 10000
    timescales = np.power(min_freq, (2 * (np.arange(hidden) // 2)).astype(float) / hidden)
    angles = np.arange(length)[:, None] * timescales[None, :]
    cos_mask = (np.arange(hidden) % 2).astype(float)
    return np.sin(angles) * (1 - cos_mask) + np.cos(angles) * cos_mask


CASES = [
    # (library call, preset or profile overrides, the neighbouring preset it must NOT match, widths)
    ("tensor2tensor get_timing_signal_1d", lambda d: t2t_get_timing_signal_1d(64, d), ("t2t", {}), "vaswani-concat", (8, 9, 64)),
    ("fairseq SinusoidalPositionalEmbedding", lambda d: fairseq_get_embedding(64, d), ("t2t", {}), "vaswani-concat", (8, 9, 64)),
    ("whisper sinusoids", lambda d: whisper_sinusoids(64, d), ("t2t", {}), "vaswani-concat", (8, 64)),
    ("diffusers get_timestep_embedding (defaults)", lambda d: diffusers_timestep_embedding(POS, d), ("t2t", {}), "vaswani-concat", (8, 9, 64)),
    ("diffusers flip_sin_to_cos=True, shift=0", lambda d: diffusers_timestep_embedding(POS, d, True, 0),
     ("vaswani-concat-cos", {}), "t2t-cos", (8, 64)),
    ("diffusers flip, shift=0, odd d", lambda d: diffusers_timestep_embedding(POS, d, True, 0),
     ("vaswani-concat-cos", {"shift": 0}), "vaswani-concat-cos", (9, 65)),
    ("diffusers scale=1000", lambda d: diffusers_timestep_embedding(POS, d, scale=1000.0),
     ("t2t", {"phase_scale": 1000}), "t2t", (8, 64)),
    ("guided-diffusion timestep_embedding", lambda d: guided_diffusion_timestep_embedding(POS, d),
     ("vaswani-concat-cos", {}), "t2t-cos", (8, 64)),
    ("MAE get_1d_sincos_pos_embed_from_grid", lambda d: mae_1d_sincos(d, POS), ("vaswani-concat", {}), "t2t", (8, 64)),
    ("Marian sinusoidal (odd d: sentinel)", lambda d: marian_sinusoidal(64, d), ("vaswani-concat", {}), "t2t", (8, 9, 64)),
    ("DistilBERT create_sinusoidal_embeddings", lambda d: distilbert_sinusoidal(64, d), ("vaswani", {}), "vaswani-concat", (8, 9, 64)),
    ("audiocraft create_sin_embedding", lambda d: audiocraft_sin_embedding(POS, d), ("t2t-cos", {}), "vaswani-concat-cos", (8, 64)),
    ("PyTorch tutorial PositionalEncoding", lambda d: pytorch_tutorial_pe(64, d), ("vaswani", {}), "vaswani-concat", (8, 64)),
    ("keras-hub SinePositionEncoding", lambda d: keras_sine_position_encoding(64, d), ("vaswani", {}), "t2t", (8, 9, 64)),
]


@pytest.mark.parametrize("name,fn,target,other,widths", CASES, ids=[c[0] for c in CASES])
def test_preset_matches_library(name, fn, target, other, widths):
    preset, overrides = target
    prof = get_profile(preset, **overrides)
    for d in widths:
        lib = fn(d)
        ref = reference_f64(prof, d, range(64))
        err = float(np.max(np.abs(lib - ref)))
        tol = TOL * max(1.0, float(prof.phase_scale))  # float64 phase error grows with |theta|
        assert err <= tol, f"{name} d={d} differs from {prof.cli_flags()} by {err:.3g}; " \
                           f"reproduce: sinpe table {prof.cli_flags()} --d {d} --positions 0:64 --dtype float64 --out t.npy"
        wrong = reference_f64(get_profile(other), d, range(64))
        assert float(np.max(np.abs(lib - wrong))) > 1e-3, f"{name} d={d} also matches {other}: the test cannot tell them apart"
