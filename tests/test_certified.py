"""The certified mpmath path (REQ-REF-MP, REQ-GOLDEN-ROUND) against independent computations.

Expected values come from python-flint's Arb (sinpe.reference.oracle_flint, a different library
and argument reduction) or from mpmath at a much higher precision through ``mpmath.sin``/``cos``
(a different code path from the libmpi intervals); each test says which.
"""
from __future__ import annotations

import math
import os
import random
from fractions import Fraction

import mpmath
from mpmath.libmp import from_man_exp
import numpy as np
import pytest

from sinpe.reference import certified as C
from sinpe.reference import oracle_flint
from sinpe.reference.rounding import round_to_format
from sinpe.spec.formats import FORMATS, get_format
from sinpe.spec.profiles import get_profile

SEED = int(os.environ.get("SINPE_TEST_SEED", "20261130"))
FMTS = list(FORMATS.values())


def _mpf(man: int, exp: int) -> mpmath.mpf:
    """man * 2^exp exactly (``mpmath.mpf((man, exp))`` would round to the working precision)."""
    return mpmath.mp.make_mpf(from_man_exp(man, exp))


def _rand_mpf(rng: random.Random) -> mpmath.mpf:
    """Random dyadics that hit ties, subnormals, overflow and powers of two in every format."""
    kind = rng.randrange(6)
    e = rng.randrange(-160, 140)
    if kind == 0:  # exactly a tie in some format: m + 1/2 at precision 8/11/24/53
        prec = rng.choice([8, 11, 24, 53])
        m = (rng.getrandbits(prec - 1) | (1 << (prec - 1))) * 2 + 1
        return _mpf(rng.choice([1, -1]) * m, e - prec)
    if kind == 1:  # a tie plus or minus a tiny amount
        prec = rng.choice([8, 11, 24, 53])
        m = ((rng.getrandbits(prec - 1) | (1 << (prec - 1))) * 2 + 1) << 70
        return _mpf(rng.choice([1, -1]) * (m + rng.choice([-1, 1])), e - prec - 70)
    if kind == 2:  # near a power of two
        return _mpf(rng.choice([1, -1]) * ((1 << 90) - rng.randrange(1, 4)), e - 90)
    return _mpf(rng.choice([1, -1]) * (rng.getrandbits(120) | 1), e - 120)


def test_round_raw_matches_round_to_format() -> None:
    """REQ-GOLDEN-ROUND: the raw-tuple rounding is round_to_format bit for bit."""
    rng = random.Random(SEED)
    for i in range(20000):
        x = _rand_mpf(rng)
        for f in FMTS:
            a, b = C.round_raw(x._mpf_, f), round_to_format(x, f)
            assert C._same(a, b), f"seed {SEED}, case {i}: round_raw({x._mpf_}, {f.name}) = {a!r}, round_to_format = {b!r}"


def test_round_interval_matches_both_ends() -> None:
    """REQ-GOLDEN-ROUND: the shared two-end rounding agrees with rounding each end (incl. straddled ties)."""
    rng = random.Random(SEED + 1)
    for i in range(20000):
        x = _rand_mpf(rng)
        w = _mpf(rng.randrange(0, 4), x._mpf_[2] + x._mpf_[3] - rng.choice([20, 60, 100, 130]))
        lo = mpmath.fsub(x, w, exact=True)
        hi = mpmath.fadd(x, w if rng.random() < 0.5 else 0, exact=True)
        got = C.round_interval_all(lo._mpf_, hi._mpf_, FMTS)
        for f, g in zip(FMTS, got):
            a, b = round_to_format(lo, f), round_to_format(hi, f)
            want = a if C._same(a, b) else None
            assert (g is None and want is None) or (g is not None and want is not None and C._same(g, want)), \
                f"seed {SEED + 1}, case {i}: {f.name} [{lo}, {hi}] -> {g!r}, want {want!r}"


def test_no_double_rounding_through_float64() -> None:
    """REQ-GOLDEN-ROUND: 1 + 2^-11 + 2^-60 is above a binary16 tie; via float64 it becomes the tie
    itself and rounds to even (1.0) — wrong. Direct rounding gives 1 + 2^-10."""
    x = _mpf(2 ** 60 + 2 ** 49 + 1, -60)  # exactly 1 + 2^-11 + 2^-60
    assert float(np.float16(float(x))) == 1.0  # the double-rounding trap is real
    assert C.round_raw(x._mpf_, get_format("binary16")) == 1 + 2 ** -10
    assert C.round_interval(x._mpf_, x._mpf_, get_format("binary16")) == 1 + 2 ** -10


def test_cos_sin_enclosure_contains_high_precision_value() -> None:
    """The midpoint-radius enclosure contains sin/cos computed by mpmath.sin/cos at 400 bits
    (a different code path) over random intervals, and is no wider than radius + a few ulps."""
    rng = random.Random(SEED + 2)
    for i in range(3000):
        prec = rng.choice([60, 128, 256])
        a = _mpf(rng.getrandbits(80) * rng.choice([1, -1]), -80 + rng.randrange(-20, 30))
        b = mpmath.fadd(a, _mpf(rng.getrandbits(8), -prec - rng.randrange(0, 40)), exact=True)
        (clo, chi), (slo, shi) = C.cos_sin_enclosure(a._mpf_, b._mpf_, prec)
        with mpmath.workprec(400):
            for x in (a, b, (a + b) / 2):
                c, s = mpmath.cos(x), mpmath.sin(x)
                assert mpmath.mp.make_mpf(clo) <= c <= mpmath.mp.make_mpf(chi), f"seed {SEED + 2} case {i}: cos({x})"
                assert mpmath.mp.make_mpf(slo) <= s <= mpmath.mp.make_mpf(shi), f"seed {SEED + 2} case {i}: sin({x})"
            width = mpmath.mp.make_mpf(chi) - mpmath.mp.make_mpf(clo)
            assert width <= (b - a) + mpmath.mpf(2) ** (-prec + 14), f"seed {SEED + 2} case {i}: too wide"


def test_cos_sin_enclosure_rejects_a_wrong_midpoint() -> None:
    """Negative: an enclosure built without the radius misses values of a wide interval."""
    a, b = mpmath.mpf(1), mpmath.mpf(1) + mpmath.mpf(2) ** -20
    (clo, chi), _ = C.cos_sin_enclosure(a._mpf_, b._mpf_, 80)
    with mpmath.workprec(200):
        assert mpmath.mp.make_mpf(clo) <= mpmath.cos(b) <= mpmath.mp.make_mpf(chi)
        (plo, phi), _ = C.cos_sin_enclosure(a._mpf_, a._mpf_, 80)  # the point enclosure at a
        assert not (mpmath.mp.make_mpf(plo) <= mpmath.cos(b) <= mpmath.mp.make_mpf(phi))


PROFILES = [get_profile("vaswani"), get_profile("t2t-cos"), get_profile("vaswani-concat"),
            get_profile("vaswani", base="500", phase_scale="1/3", amplitude="-2", offset="7/8"),
            get_profile("t2t", shift=0, base="0.5", odd="trailing-sin")]


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.cli_flags())
def test_certified_tables_match_arb(profile) -> None:
    """REQ-REF-MP, REQ-GOLDEN-ORACLE: certified tables equal Arb's (python-flint) bit for bit."""
    rng = random.Random(SEED + 3)
    d = rng.choice([5, 9, 16])
    pos = [Fraction(rng.randrange(-10 ** 7, 10 ** 7), rng.choice([1, 2, 8, 1024])) for _ in range(12)] + [0, 1]
    fmts = ["binary64", "binary32", "binary16", "bfloat16"]
    got = C.rounded_tables(profile, d, pos, fmts)
    ref = oracle_flint.rounded_tables(profile, d, pos, fmts)
    for f in fmts:
        bad = np.argwhere(got[f].view(np.int64) != ref[f].view(np.int64))
        assert not bad.size, (f"seed {SEED + 3}: {f} differs at {len(bad)} entries, first position {pos[bad[0][0]]} "
                              f"column {bad[0][1]}; reproduce: sinpe table {profile.cli_flags()} --d {d} "
                              f"--positions {pos[bad[0][0]]} --dtype {get_format(f).dtype} --out t.npy --cross-check")


def test_decimal_is_correctly_rounded() -> None:
    """40-digit decimals agree with mpmath.sin/cos at 100 digits rounded to 40 (a different path)."""
    rng = random.Random(SEED + 4)
    prof = get_profile("vaswani")
    for i in range(60):
        d = rng.choice([4, 64, 4096])
        j = rng.randrange(d)
        p = Fraction(rng.randrange(-10 ** 7, 10 ** 7), rng.choice([1, 4]))
        got = C.decimal(prof, d, p, j)
        k = j // 2
        with mpmath.workdps(100):
            th = mpmath.mpf(p.numerator) / p.denominator * mpmath.power(10000, -mpmath.mpf(2 * k) / d)
            v = mpmath.sin(th) if j % 2 == 0 else mpmath.cos(th)
            want = mpmath.nstr(v, 40, min_fixed=1, max_fixed=0)  # 100 digits make nstr's own rounding exact here
        from decimal import Decimal
        assert len(got.split("e")[0].lstrip("-").replace(".", "")) == 40, got
        assert Decimal(got) == Decimal(want), f"seed {SEED + 4} case {i}: d={d} j={j} p={p}: {got} vs {want}"


def test_ziv_escalates_from_a_too_low_precision(monkeypatch) -> None:
    """Started at 8 bits, the Ziv loop must raise the precision and still land on Arb's values."""
    monkeypatch.setattr(C.Certifier, "start_prec", staticmethod(lambda *a, **k: 8))
    prof = get_profile("vaswani")
    cert = C.Certifier()
    pos = [0, 1, 2.5, 1000, 65536, -10 ** 7]
    got = cert.tables(prof, 8, pos)
    ref = oracle_flint.rounded_tables(prof, 8, pos, [f.name for f in cert.formats])
    assert cert.stats.escalations > 0
    for f in ref:
        assert np.array_equal(got[f], ref[f]), f


def test_exact_values_and_zero() -> None:
    """theta = 0 gives the exact point enclosures sin = 0, cos = 1 (no Ziv loop needed)."""
    prof = get_profile("t2t", offset="-3/7")
    lo, hi = C.enclose(prof, 4, Fraction(3, 7), 0, 64)
    assert lo == hi == 0
    lo, hi = C.enclose(prof, 4, Fraction(3, 7), 2, 64)
    assert lo == hi == 1
    assert C.rounded_table(prof, 5, [Fraction(3, 7)], "binary16").tolist() == [[0.0, 0.0, 1.0, 1.0, 0.0]]
