"""xPos rotary caches (SPEC.md DEF-ROPE-XPOS, DEF-ROPE-PRESET-XPOS, REQ-CHECK-ROPE, REQ-REF-ROPE).

The tables here are written from the paper (Sun et al. 2022, "A Length-Extrapolatable Transformer") and the two
libraries' code as read (torchscale ``XPOS``, audiocraft ``XPos`` / ``RotaryEmbedding``), in NumPy and mpmath, not
from sinpe's plan: torchscale's scale (arange(0, d, 2) + 0.4 d)/(1.4 d) raised to arange(min_pos, max_pos)/512 with
min_pos = -(length + offset) // 2, times the cos/sin of positions 0..length+offset-1 (the last ``length`` rows),
each column duplicate_interleave'd; audiocraft's decay (k/(d/2) + 0.4)/1.4 raised to t/512 times the complex
rotation e^(i t w_k), keys with the decay inverted.
"""
from __future__ import annotations

import json
import shlex

import mpmath
import numpy as np
import pytest
from helpers import check_rotary

import sinpe
from sinpe.reference.cli import main
from sinpe.reference.oracles.angles import enclose, reference_f64, rotary_plan
from sinpe.spec.rotary import get_rotary


def torchscale_caches(length: int, d: int, offset: int = 0, downscale: bool = False, sb: float = 512.0,
                      gamma: float = 0.4, dtype: type = np.float64, centring: str = "library"):
    """(cos, sin) multipliers torchscale's apply_rotary_pos_emb applies, (length, d), computed in ``dtype``."""
    n = length + offset
    zeta = (np.arange(0, d, 2).astype(dtype) + dtype(gamma * d)) / dtype((1 + gamma) * d)
    min_pos = -n // 2 if centring == "library" else -(n // 2)  # python: (-n) // 2 = -ceil(n/2)
    power = (np.arange(min_pos, n + min_pos).astype(dtype) / dtype(sb))[:, None]
    scale = zeta[None, :] ** power
    inv_freq = dtype(1) / (dtype(10000) ** (np.arange(0, d // 2).astype(dtype) / dtype(d // 2)))
    ang = np.outer(np.arange(n).astype(dtype), inv_freq).astype(dtype)
    scale, sin, cos = scale[-length:], np.sin(ang)[-length:], np.cos(ang)[-length:]
    if downscale:
        scale = 1 / scale
    return np.repeat(cos * scale, 2, axis=1), np.repeat(sin * scale, 2, axis=1)


def audiocraft_caches(end: int, d: int, invert: bool = False, start: int = 0, dtype: type = np.float64):
    """(real, imag) of audiocraft's rotation * decay (T, d/2) for timesteps start..end-1."""
    half = d // 2
    rates = (np.arange(half).astype(dtype) / dtype(half) + dtype(0.4)) / dtype(1.4)
    idx = np.arange(end).astype(dtype)
    decay = rates[None, :] ** (idx / dtype(512))[:, None]
    freqs = dtype(1) / (dtype(10000) ** (np.arange(0, d, 2).astype(dtype) / dtype(d)))
    ang = np.outer(idx, freqs).astype(dtype)
    if invert:
        decay = decay ** -1
    return (np.cos(ang) * decay)[start:], (np.sin(ang) * decay)[start:]


def mp_torchscale_cos(length: int, d: int) -> np.ndarray:
    """The torchscale cos multiplier at 50 digits, rounded once to binary64 (DEF-ROPE-XPOS written out)."""
    out = np.empty((length, d))
    with mpmath.workdps(50):
        c = -((length + 1) // 2)  # min_pos for odd/even n = length
        for p in range(length):
            for j in range(d):
                k = j // 2
                zeta = (mpmath.mpf(2 * k) / d + mpmath.mpf(2) / 5) / (1 + mpmath.mpf(2) / 5)
                w = mpmath.mpf(10000) ** (-mpmath.mpf(2 * k) / d)
                out[p, j] = float(zeta ** (mpmath.mpf(p + c) / 512) * mpmath.cos(p * w))
    return out


XPOS_T = get_rotary("xpos-torchscale")
XPOS_A = get_rotary("xpos-audiocraft")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("length", [300, 301])
def test_torchscale_tables_conform(dtype, length):
    """DEF-ROPE-XPOS, DEF-ROPE-PRESET-XPOS: torchscale's multipliers, in float64 (cast to float32) and evaluated
    step by step in float32 as the library does, conform as float32 caches, even and odd lengths (its centring)."""
    cos, sin = torchscale_caches(length, 32, dtype=dtype)
    r = check_rotary(XPOS_T, 32, cos=cos.astype(np.float32), sin=sin.astype(np.float32))
    assert r.verdict == "conforms", r.reason
    kc, ks = torchscale_caches(length, 32, downscale=True, dtype=dtype)
    keys = XPOS_T.replace(xpos_downscale=True)
    assert check_rotary(keys, 32, cos=kc.astype(np.float32), sin=ks.astype(np.float32)).verdict == "conforms"


def test_torchscale_offset_call_conforms_at_its_positions():
    """forward(x, offset=k): rows are positions k..k+length-1 and the scale is centred on n = length + k."""
    cos, sin = torchscale_caches(40, 16, offset=25)
    r = check_rotary(XPOS_T, 16, cos=cos.astype(np.float32), sin=sin.astype(np.float32), positions=range(25, 65))
    assert r.verdict == "conforms", r.reason
    assert check_rotary(XPOS_T, 16, cos=cos.astype(np.float32)).verdict == "fails"  # read as 0..39


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_audiocraft_tables_conform(dtype):
    """audiocraft: the real and imaginary parts of rotation * decay (h columns: layout single); keys inverted;
    a streaming slice start..end at its positions."""
    re, im = audiocraft_caches(700, 64, dtype=dtype)
    assert check_rotary(XPOS_A, 64, cos=re.astype(np.float32), sin=im.astype(np.float32)).verdict == "conforms"
    kre, kim = audiocraft_caches(700, 64, invert=True, dtype=dtype)
    keys = XPOS_A.replace(xpos_downscale=True)
    assert check_rotary(keys, 64, cos=kre.astype(np.float32), sin=kim.astype(np.float32)).verdict == "conforms"
    sre, _ = audiocraft_caches(700, 64, start=500)
    assert check_rotary(XPOS_A, 64, cos=sre.astype(np.float32), positions=range(500, 700)).verdict == "conforms"


def test_float64_correctly_rounded_conforms_at_the_exact_tier():
    """REQ-REF-ROPE: a 50-digit mpmath table rounded to binary64 conforms at the exact tier (the certified
    enclosure decides what the float64 reference cannot); one ulp off fails there."""
    t = mp_torchscale_cos(7, 8)
    r = check_rotary(XPOS_T, 8, cos=t, tier="exact")
    assert r.verdict == "conforms", r.reason
    off = t.copy()
    off[5, 3] = np.nextafter(off[5, 3], 3.0)
    r = check_rotary(XPOS_T, 8, cos=off, tier="exact")
    assert r.verdict == "fails" and (r.failures[0].row, r.failures[0].column) == (5, 3)


def test_reference_and_enclosure_agree_with_the_written_out_formula():
    """The float64 reference is within a few ulps of the 50-digit value, and the certified enclosure holds it."""
    want = mp_torchscale_cos(9, 8)
    plan = rotary_plan(XPOS_T, 8, list(range(9)), "cos")
    v, _ = reference_f64(plan)
    assert np.max(np.abs(v - want) / np.spacing(np.abs(want))) <= 4
    lo, hi = enclose(plan, 8, 1, 200)
    with mpmath.workdps(60):
        zeta = mpmath.mpf(2) / 7
        exact = zeta ** (mpmath.mpf(8 - 5) / 512) * mpmath.cos(8)
    assert lo <= exact <= hi and hi - lo < mpmath.mpf(2) ** -150


def _fails(cos, rp=XPOS_T, dim=32, **kw):
    return check_rotary(rp, dim, cos=cos.astype(np.float32), **kw).verdict == "fails"


def test_wrong_tables_fail():
    """Every mistake a cache could carry fails: gamma, scale_base, the scale left out (plain RoPE), the keys'
    downscale for the queries' cache, positions off by one, torchscale's centring with floor for ceil."""
    length = 301
    assert _fails(torchscale_caches(length, 32, gamma=0.5)[0])
    assert _fails(torchscale_caches(length, 32, sb=256.0)[0])
    assert _fails(torchscale_caches(length, 32, downscale=True)[0])
    assert _fails(torchscale_caches(length, 32, centring="floor")[0])
    plain = np.repeat(np.cos(np.outer(np.arange(length), 10000.0 ** (-np.arange(0, 32, 2) / 32))), 2, axis=1)
    assert _fails(plain)
    assert not _fails(plain, get_rotary("gptj"))  # the same table is plain RoPE
    assert _fails(torchscale_caches(length, 32, offset=1)[0])  # rows at 1..length read as 0..length-1
    re, _ = audiocraft_caches(600, 32)
    assert _fails(re, XPOS_A, positions=range(1, 601))
    assert _fails(re, XPOS_A.replace(xpos_downscale=True))
    assert _fails(re, XPOS_A.replace(xpos_centred=True))
    assert not _fails(re, XPOS_A)


def test_profile_parameters_are_validated():
    """DEF-ROPE-XPOS: sb > 0, gamma > 0, one axis; the switches need xPos."""
    for bad in ({"xpos_scale_base": 0}, {"xpos_gamma": 0}, {"mrope_section": (4,)}):
        with pytest.raises(ValueError):
            XPOS_T.replace(**bad)
    with pytest.raises(ValueError, match="need xPos"):
        get_rotary("llama", xpos_downscale=True)


def test_cli_exit_codes_and_reproduce_line(tmp_path, capsys):
    """REQ-CHECK-ROPE through the CLI: 0 for the library's cache, 1 for a wrong one; the reproduce line names the
    preset and the flags that differ, and running it gives the same verdict; a switch without xPos is exit 2."""
    cos, sin = torchscale_caches(129, 16, downscale=True, dtype=np.float32)
    fc, fs = tmp_path / "cos.npy", tmp_path / "sin.npy"
    np.save(fc, cos.astype(np.float32))
    np.save(fs, sin.astype(np.float32))
    args = ["check", "--cos", str(fc), "--sin", str(fs), "--profile", "xpos-torchscale", "--xpos-downscale",
            "--dim", "16", "--json"]
    assert main(args) == 0
    js = json.loads(capsys.readouterr().out)
    assert js["verdict"] == "conforms" and js["kind"] == "rotary"
    assert js["reproduce"].endswith("--profile xpos-torchscale --xpos-downscale"), js["reproduce"]
    assert main(shlex.split(js["reproduce"])[1:]) == 0
    capsys.readouterr()
    assert main(["check", "--cos", str(fc), "--profile", "xpos-torchscale", "--dim", "16"]) == 1  # not downscaled
    out = capsys.readouterr().out
    assert "fails" in out
    assert main(["check", "--cos", str(fc), "--profile", "xpos-audiocraft", "--layout", "pairs", "--xpos-centred",
                 "--xpos-downscale", "--json"]) == 0
    js = json.loads(capsys.readouterr().out)
    assert "--profile xpos-torchscale --xpos-downscale" in js["reproduce"]  # the same profile, named by its preset
    np.save(fc, torchscale_caches(129, 16, gamma=0.5)[0].astype(np.float32))
    assert main(["check", "--cos", str(fc), "--profile", "xpos-torchscale", "--xpos-gamma", "1/2", "--json"]) == 0
    js = json.loads(capsys.readouterr().out)
    assert "--xpos-gamma 1/2" in js["reproduce"]
    assert main(["check", "--cos", str(fc), "--profile", "llama", "--xpos-downscale"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "xPos" in err


@pytest.mark.parametrize("fmt", ["binary64", "binary32", "binary16"])
def test_golden_cases_independently(fmt):
    """REQ-REF-ROPE: the golden xPos cases (data/angles/golden-angles-v1.json) equal the 50-digit formulas rounded
    once: torchscale's queries (centred on n = 7) and audiocraft's keys (decay inverted), down to float16."""
    from sinpe.reference.golden import angles_vectors as G
    from sinpe.reference.numerics.rounding import round_to_format
    want_t, want_a = [], []
    with mpmath.workdps(50):
        def zeta(k):
            return (mpmath.mpf(2 * k) / 8 + mpmath.mpf(2) / 5) / (1 + mpmath.mpf(2) / 5)

        def w(k):
            return mpmath.mpf(10000) ** (-mpmath.mpf(2 * k) / 8)
        for p in range(7):
            want_t.append([round_to_format(zeta(j // 2) ** (mpmath.mpf(p - 4) / 512) * mpmath.cos(p * w(j // 2)), fmt)
                           for j in range(8)])
        for p in (0, 1, 2, 1000, 4096):
            want_a.append([round_to_format(zeta(k) ** (-mpmath.mpf(p) / 512) * mpmath.sin(p * w(k)), fmt)
                           for k in range(4)])
    assert np.array_equal(G.load("rope-xpos-torchscale-d8-cos", fmt), np.array(want_t))
    assert np.array_equal(G.load("rope-xpos-audiocraft-keys-d8-sin", fmt), np.array(want_a))
    underflow = G.load("rope-xpos-audiocraft-d8-cos", fmt)[3]  # (2/7)^(65535/512) ~ 1e-70: 0 with cos's sign
    with mpmath.workdps(50):
        assert [round_to_format(zeta(k) ** (mpmath.mpf(65535) / 512) * mpmath.cos(65535 * w(k)), fmt)
                for k in range(4)] == underflow.tolist()


@pytest.mark.parametrize("library,words", [("torchscale", "--profile xpos-torchscale"),
                                           ("torchscale-keys", "--profile xpos-torchscale --xpos-downscale"),
                                           ("audiocraft", "--profile xpos-audiocraft")])
def test_detect_names_the_xpos_preset(library, words):  # REQ-DETECT-ROPE, DEF-ROPE-XPOS
    """detect reads an xPos cache as its preset (the growth biases the frequency estimate: xPos candidates are
    checked, not filtered by it; a centred plan is not screened on a subset of rows, whose largest position would
    centre it elsewhere)."""
    if library == "audiocraft":
        cos, _ = audiocraft_caches(256, 64, dtype=np.float32)
    else:
        cos, _ = torchscale_caches(256, 64, downscale=library.endswith("keys"), dtype=np.float32)
    found = sinpe.detect(cos=cos.astype(np.float32))
    assert found.profile_flags == words, found.sentence


def test_a_plain_rotary_cache_is_not_read_as_xpos():  # REQ-DETECT-ROPE
    ang = np.outer(np.arange(256.0), 10000.0 ** (-np.arange(0, 64, 2) / 64))
    assert sinpe.detect(cos=np.repeat(np.cos(ang), 2, axis=1).astype(np.float32)).profile_flags == "--profile gptj"


def test_detect_asks_what_a_profile_does_not_which_it_is():  # issue 27: a variant lives in few files
    """detect/ reads a rotary profile's generic properties (has_growth: the growth biases the frequency estimate;
    depends_on_last_position: a plan not screened on a few rows) and names no variant; the properties hold for the
    xPos presets exactly, the centred one alone depending on the last position."""
    from pathlib import Path

    import sinpe.reference.checking.detect as D
    from sinpe.spec.rotary import ROTARY_PRESETS
    texts = {p.name: p.read_text().lower() for p in Path(D.__file__).resolve().parent.rglob("*.py")}
    assert "rotary.py" in texts and not [n for n, t in texts.items() if "xpos" in t]
    assert [n for n, rp in ROTARY_PRESETS.items() if rp.has_growth] == ["xpos-audiocraft", "xpos-torchscale"]
    assert [n for n, rp in ROTARY_PRESETS.items() if rp.depends_on_last_position] == ["xpos-torchscale"]
    assert get_rotary("llama", xpos_scale_base=512).has_growth and not get_rotary("llama").has_growth


def test_a_centred_cache_whose_largest_positions_the_screen_misses_is_read():  # REQ-DETECT-ROPE, DEF-ROPE-XPOS
    """A plan that depends on the last position is not screened on a few rows: with the two largest positions of a
    torchscale cache among rows the screen does not read, the screen's plan centres elsewhere (o = -127, not -128)
    and would refuse the preset (measured: detect names nothing when the property is False)."""
    cos, _ = torchscale_caches(256, 64, dtype=np.float32)
    order = list(range(254))
    order[100:100] = [254, 255]  # rows 100, 101: neither among the first 32 nor the 32 spread over the rest
    assert sinpe.detect(cos=cos[order], positions=order).profile_flags == "--profile xpos-torchscale"
