"""The preset-source records say what the code computes (DEF-PRESET-SOURCES).

Each test writes the source's formula as a float64 NumPy expression (our transcription of what the
cited function computes, its dtype casts left out) and compares it with the spec's table for the
profile ``spec/sources.py`` files it under (``Source.resolve()``), for even and odd d where the
code accepts odd d. Negative tests show the comparison rejects the wrong preset.
Reproduce: python -m pytest tests/test_sources.py -k NAME
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from sinpe.reference.bugs import evaluate
from sinpe.spec.profiles import PRESETS, get_profile
from sinpe.spec.sources import get_source

P = np.arange(0, 1000, 3).astype(np.float64)
TOL = 1e-9  # float64 evaluation of two formula paths at positions < 1000


def close(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and float(np.abs(a - b).max()) < TOL


def spec(key: str, d: int) -> np.ndarray:
    return evaluate(get_source(key).resolve(), P, d)


def halves(d: int, shift: float = 1, flip: bool = False, scale: float = 1.0, max_period: float = 10000.0) -> np.ndarray:
    """tensor2tensor / fairseq / diffusers get_timestep_embedding / guided-diffusion (shift 0, flip)."""
    half = d // 2
    w = np.exp(-math.log(max_period) * np.arange(half) / (half - shift))
    th = scale * P[:, None] * w[None, :]
    t = np.concatenate([np.cos(th), np.sin(th)] if flip else [np.sin(th), np.cos(th)], axis=1)
    return np.pad(t, ((0, 0), (0, d % 2)))


def angles_2floor(d: int) -> np.ndarray:
    """Marian / DistilBERT / keras-hub: angle of column j is p / 10000^(2*(j//2)/d)."""
    return P[:, None] / np.array([10000.0 ** (2 * (j // 2) / d) for j in range(d)])[None, :]


@pytest.mark.parametrize("d", [8, 64])
@pytest.mark.parametrize("key", ["tensor2tensor", "fairseq", "whisper", "diffusers-default", "opennmt-concat", "fairseq2"])
def test_t2t_sources(key: str, d: int):
    assert close(halves(d), spec(key, d))


@pytest.mark.parametrize("key", ["tensor2tensor", "fairseq", "diffusers-default"])
def test_t2t_sources_odd_d_zero_pad(key: str):
    assert close(halves(65), spec(key, 65))


@pytest.mark.parametrize("d", [64, 65])
@pytest.mark.parametrize("flip", [False, True])
@pytest.mark.parametrize("shift", [0, 1])
def test_diffusers_flags_map_to_family_parameters(d: int, flip: bool, shift: int):
    prof = get_profile("t2t", layout="cos-sin" if flip else "sin-cos", shift=shift, phase_scale=1000, base=500)
    assert close(halves(d, shift, flip, scale=1000, max_period=500), evaluate(prof, P, d))


@pytest.mark.parametrize("d", [64, 65])
def test_guided_diffusion_and_unet(d: int):
    assert close(halves(d, shift=0, flip=True), spec("guided-diffusion", d))
    assert close(halves(d, shift=0, flip=True), spec("diffusers-unet", d))


def test_vaswani_concat_cos_is_those_sources_for_every_d():
    preset = PRESETS["vaswani-concat-cos"]
    assert close(halves(64, shift=0, flip=True), evaluate(preset, P, 64))
    assert close(halves(65, shift=0, flip=True), evaluate(preset, P, 65))
    # and Vaswani's half-integer D = 65/2 would not be (the schedule matters at odd d)
    assert not close(halves(65, shift=0, flip=True), evaluate(preset.replace(shift=None), P, 65))


def test_dit_and_audiocraft_t2t_cos():
    assert close(halves(256, shift=1, flip=True), spec("diffusers-dit", 256))
    half = 32  # audiocraft: phase = p / max_period ** (k / (half - 1)), cat([cos, sin])
    ph = P[:, None] / (10000.0 ** (np.arange(half) / (half - 1)))[None, :]
    assert close(np.concatenate([np.cos(ph), np.sin(ph)], axis=1), spec("audiocraft", 64))


@pytest.mark.parametrize("d", [64, 65])
def test_marian_ceil_split(d: int):
    a = angles_2floor(d)
    sentinel = d // 2 + d % 2
    out = np.empty((P.size, d))
    out[:, :sentinel] = np.sin(a[:, 0::2])
    out[:, sentinel:] = np.cos(a[:, 1::2])
    assert close(out, spec("marian", d))
    if d % 2:  # negative: the trailing-sin rule would put sin_32 last, not in the first half
        assert not close(out, evaluate(PRESETS["vaswani-concat"].replace(odd="trailing-sin"), P, d))


@pytest.mark.parametrize("d", [64, 65])
def test_distilbert_and_keras_interleaved(d: int):
    a = angles_2floor(d)
    out = np.empty((P.size, d))
    out[:, 0::2] = np.sin(a[:, 0::2])
    out[:, 1::2] = np.cos(a[:, 1::2])
    assert close(out, spec("distilbert", d))
    assert close(out, spec("keras-hub", d))
    assert not close(out, evaluate(PRESETS["vaswani-concat"], P, d))


def test_tutorial_family_even_d():
    d = 64
    div = np.exp(np.arange(0, d, 2) * (-math.log(10000.0) / d))
    out = np.empty((P.size, d))
    out[:, 0::2] = np.sin(P[:, None] * div)
    out[:, 1::2] = np.cos(P[:, None] * div)
    for key in ("pytorch-tutorial", "annotated-transformer", "opennmt-interleaved"):
        assert close(out, spec(key, d)), key


def test_mae():
    d = 64
    omega = 1.0 / 10000 ** (np.arange(d // 2) / (d / 2))
    th = P[:, None] * omega[None, :]
    assert close(np.concatenate([np.sin(th), np.cos(th)], axis=1), spec("mae", d))


def test_mlx_even_d_and_odd_width():
    def mlx(d: int, lo: float = 1e-4, hi: float = 1.0) -> np.ndarray:
        n = d // 2
        sig = np.exp((1 - np.arange(n) / (n - 1)) * (math.log(hi) - math.log(lo)) + math.log(lo))
        y = P[:, None] * sig[None, :]
        return np.concatenate([np.sin(y), np.cos(y)], axis=1)
    assert close(mlx(64), spec("mlx", 64))
    assert mlx(65).shape[1] == 64  # d - 1 columns: no member of the family (Source.exact is False)
    assert not get_source("mlx").exact


def test_t2t_transcription_rejects_the_wrong_presets():
    t = halves(64)
    for name in ("vaswani", "vaswani-concat", "t2t-cos"):
        assert not close(t, evaluate(PRESETS[name], P, 64)), name
