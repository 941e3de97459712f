"""detect's precision ladder for every kind, and scaled rotary caches read at any original length
(REQ-DETECT-PRECISION, REQ-DETECT-FIT, REQ-DETECT-GRID, REQ-DETECT-ROPE).

A table that no plan fits at TOL-WORKING's default is read again as computed in less precision than it claims:
a half-precision table natively in its own format (``--working native``), a float64 table in float32
(``--dtype float32``). The plan found so is named with that flag and exit 1; ``--profile auto`` still rejects the
table. Before, 1-D half tables computed in half (keras-hub, positional-encodings, diffusers and x-transformers in
the survey) and float64 grids computed in float32 (positional-encodings) were named nowhere, and Llama-3/YaRN
caches at an original length of 256 were read as explicit plans or not at all.
Reproduce: python -m pytest tests/test_detect_ladder.py -q
"""
from __future__ import annotations

import math

import library_formulas as L
import numpy as np
import pytest

import sinpe

torch = pytest.importorskip("torch")


def vaswani_in_bfloat16(d: int = 64, n: int = 1024) -> np.ndarray:
    """The PyTorch-tutorial formula with every tensor in bfloat16 (positions past 256 round), as keras-hub and
    positional-encodings compute it for a bfloat16 model; stored as float32 (bfloat16 values)."""
    pos = torch.arange(n, dtype=torch.bfloat16)[:, None]
    div = torch.exp(torch.arange(0, d, 2, dtype=torch.bfloat16) * (-math.log(10000.0) / d))
    out = torch.zeros(n, d, dtype=torch.bfloat16)
    out[:, 0::2], out[:, 1::2] = torch.sin(pos * div), torch.cos(pos * div)
    return out.float().numpy()


def scaled_in_bfloat16(d: int = 64, n: int = 1024) -> np.ndarray:
    """x-transformers' ScaledSinusoidalEmbedding: [sin | cos] times d^-1/2, computed in bfloat16."""
    half = d // 2
    freq = torch.exp(torch.arange(half, dtype=torch.bfloat16) * -(math.log(10000) / half))
    emb = torch.arange(n, dtype=torch.bfloat16)[:, None] * freq[None, :]
    return (torch.cat([emb.sin(), emb.cos()], dim=-1) * d ** -0.5).float().numpy()


def mae_float32_frequencies(dim: int = 64, side: int = 16) -> np.ndarray:
    """MAE's grid in float64 arithmetic from float32-rounded frequencies: a float64 table good to float32 only."""
    om = (1.0 / 10000 ** (np.arange(dim // 4) / (dim // 4))).astype(np.float32).astype(np.float64)
    gw, gh = np.meshgrid(np.arange(float(side)), np.arange(float(side)))
    def emb(p: np.ndarray) -> np.ndarray:
        a = np.outer(p.reshape(-1), om)
        return np.concatenate([np.sin(a), np.cos(a)], axis=1)
    return np.concatenate([emb(gw), emb(gh)], axis=1)


def test_a_1d_table_computed_in_bfloat16_is_named_with_working_native():
    t = vaswani_in_bfloat16()
    found = sinpe.detect(t)
    assert (found.kind, found.profile, found.exit_code) == ("1d", "vaswani", 1), found.sentence
    assert found.profile_flags == "--profile vaswani --dtype bfloat16 --working native"
    assert found.deviations["working"] == "native" and "computed natively in bfloat16" in found.sentence
    assert sinpe.check(t, "vaswani").verdict == "fails"                 # TOL-WORKING's default: float32
    assert sinpe.check(t, "auto").verdict == "fails"                    # auto checks at the default
    assert sinpe.check(t, "vaswani", working="native").verdict != "fails"
    assert sinpe.check(t, "vaswani-concat", working="native").verdict == "fails"   # the ladder can name wrong


def test_the_ladder_names_nothing_that_fails_natively_too():
    t = vaswani_in_bfloat16()
    t[10:60, 5] = -t[10:60, 5]               # a sign no evaluation produces, where the native bound still judges
    found = sinpe.detect(t)
    assert "--working native" not in (found.profile_flags or ""), found.sentence


def test_a_scaled_table_in_bfloat16_reads_its_amplitude():
    found = sinpe.detect(scaled_in_bfloat16())
    assert found.profile_flags == "--profile vaswani-concat --amplitude 0.125 --dtype bfloat16 --working native"
    assert found.exit_code == 1


def test_a_float64_grid_computed_in_float32_is_named_with_dtype_float32():
    g = mae_float32_frequencies()
    found = sinpe.detect(g)
    assert (found.kind, found.profile_flags, found.exit_code) == (
        "grid", "--profile mae --shape 16x16 --cls 0 --dtype float32", 1), found.sentence
    assert "computed in float32" in found.sentence
    assert sinpe.check(g, "mae").verdict == "fails"                     # the float64 claim
    assert sinpe.check(g, "mae", dtype="float32").verdict == "conforms"
    assert sinpe.check(g, "auto").verdict == "fails"
    g[0, 0] = 0.5                                                       # wrong at float32 too: no reading
    assert "--dtype float32" not in (sinpe.detect(g).profile_flags or "")


def test_yarn_cache_at_original_length_256_is_named_as_yarn():
    inv, att = L.inv_freq_yarn(64, 10000.0, 4.0, 256)
    c, s = L.rope_cache(inv, 1024, scaling=att)                         # YaRN's attention factor scales the cache
    found = sinpe.detect(cos=c)
    assert found.profile_flags == "--profile llama --rule yarn --factor 4 --original-max 256", found.sentence
    assert found.exit_code == 0
    assert sinpe.check(cos=c, sin=s, profile="auto").verdict == "conforms"
    assert sinpe.check(cos=c, sin=s, profile="llama", rule="yarn", factor=4, original_max=512).verdict == "fails"


def test_llama3_cache_at_original_length_256_is_named_as_llama3():
    c, s = L.rope_cache(L.inv_freq_llama3(64, 10000.0, 8.0, 1.0, 4.0, 256), 1024)
    found = sinpe.detect(cos=c, sin=s)
    assert found.profile_flags == "--profile llama3.1 --base 10000 --original-max 256", found.sentence
    r = sinpe.check(cos=c, sin=s, profile="llama3.1", base=10000, original_max=256)
    assert r.verdict == "conforms"
    assert sinpe.check(cos=c, sin=s, profile="llama3.1", base=10000, original_max=512).verdict == "fails"


@pytest.mark.parametrize("n, d", [(32, 64), (64, 32)])
def test_noise_at_positions_near_a_million_is_named_nowhere(n, d):  # REQ-DETECT-PRECISION, REQ-DETECT-FIT
    """bfloat16 noise at positions 10^6, 10^6 + 1, ... was named a YaRN cache computed natively in bfloat16 (exit 1,
    `--cos FILE --profile llama --layout single --rule yarn ... --working native`): that check judged 32 (32 x 64)
    or 64 (64 x 32) of 2048 entries, every other bound lets any value pass, and noise passed those (max bound ratio
    0.84, 0.95): it could hardly have failed. A reading fits only when at least half of its check's entries are judged
    (CheckResult.fits); no reading of this noise does, so detect names none (the 1-D no-fit reading, exit 1)."""
    rng = np.random.default_rng(0)
    t = torch.tensor(rng.uniform(-1, 1, (n, d))).to(torch.bfloat16).float().numpy()
    pos = list(range(10**6, 10**6 + n))
    plan = {"32x64": dict(factor=32, original_max=65536), "64x32": dict(factor=16, original_max=256)}[f"{n}x{d}"]
    r = sinpe.check(cos=t, positions=pos, profile="llama", layout="single", rule="yarn", dtype="bfloat16",
                    working="native", **plan)
    judged = r.entries - r.unjudged["count"]
    assert r.verdict == "inconclusive" and 0 < judged < r.entries / 2, (r.verdict, judged, r.entries)
    assert not r.fits
    found = sinpe.detect(t, positions=pos)
    assert (found.kind, found.profile, found.exit_code) == ("1d", None, 1), (found.kind, found.profile_flags)
    assert "no_fit" in found.deviations and found.readings["rotary"]["found"] is False, found.sentence
