"""The certified mpmath path (REQ-REF-MP, REQ-GOLDEN-ROUND) against independent computations.

Expected values come from python-flint's Arb (sinpe.reference.oracles.arb, a different library
and argument reduction) or from mpmath at a much higher precision through ``mpmath.sin``/``cos``
(a different code path from the libmpi intervals); each test says which.
"""
from __future__ import annotations

import math
import os
import random
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from mpmath.libmp import from_man_exp

from sinpe.reference.numerics.rounding import round_to_format
from sinpe.reference.oracles import arb as oracle_flint, interval as C
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
        for f, g in zip(FMTS, got, strict=True):
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
    # Arb cannot hold 3/7 exactly: its ball around the zero phase still gives +0.0, bit for bit
    arb_row = oracle_flint.rounded_table(prof, 5, [Fraction(3, 7)], "binary16")
    assert np.array_equal(arb_row.view(np.int64), C.rounded_table(prof, 5, [Fraction(3, 7)], "binary16").view(np.int64))


# --- the fixed-point fast path (REQ-GOLDEN-ROUND, REQ-REF-MP) ----------------------------------

def _rand_ends(rng: random.Random) -> tuple[int, int, int]:
    """Integer intervals [lo, hi] * 2^e around the dyadics of _rand_mpf: ties, near ties, powers of
    two, subnormals and overflow in every format, zero-width and zero-straddling ones."""
    x = _rand_mpf(rng)._mpf_
    sign, man, exp, bc = x
    m = -int(man) if sign else int(man)
    extra = rng.choice([0, 8, 40])
    m, e = m << extra, exp - extra
    w = rng.choice([0, 0, 1, rng.randrange(1, 1 << 12), abs(m) + 1])  # the last straddles zero
    return m - rng.choice([0, w]), m + rng.choice([0, w]), e


def test_round_fixed_matches_both_ends() -> None:
    """round_fixed_all and round_fixed_batch give what rounding both ends with round_to_format
    gives (None where the ends differ), bit for bit, including ties and signed zeros."""
    rng = random.Random(SEED + 5)
    cases = [_rand_ends(rng) for _ in range(6000)]
    cases += [(0, 0, 0), (-1, 1, -2000), (1, 1, 2000), (-(1 << 80), -(1 << 80), -1200)]
    batch = C.round_fixed_batch(cases, FMTS)
    for i, (lo, hi, e) in enumerate(cases):
        want = []
        for f in FMTS:
            a, b = round_to_format(_mpf(lo, e), f), round_to_format(_mpf(hi, e), f)
            want.append(a if C._same(a, b) else None)
        got = C.round_fixed_all(lo, hi, e, FMTS)
        for f, g, w in zip(FMTS, got, want, strict=True):
            assert (g is None) == (w is None) and (g is None or C._same(g, w)), \
                f"seed {SEED + 5}, case {i}: round_fixed_all({lo}, {hi}, {e}) {f.name} = {g!r}, want {w!r}"
        wb = None if None in want else tuple(want)
        gb = batch[i]
        assert (gb is None) == (wb is None) and (gb is None or all(map(C._same, gb, wb))), \
            f"seed {SEED + 5}, case {i}: round_fixed_batch({lo}, {hi}, {e}) = {gb!r}, want {wb!r}"


def test_round_fixed_refuses_the_double_rounding_trap() -> None:
    """Negative: 1 + 2^-11 + 2^-60 becomes the binary16 tie 1 + 2^-11 in binary64, which rounds to
    even (1.0) — wrong. The fast path sees that the binary64 value is a boundary and rounds the
    exact ends instead: 1 + 2^-10."""
    lo = hi = 2 ** 60 + 2 ** 49 + 1
    a = math.ldexp(float(lo), -60)
    assert float(np.float16(a)) == 1.0  # what a float64 shortcut would give
    h = get_format("binary16")
    assert C.round_fixed_all(lo, hi, -60, [h]) == [1 + 2 ** -10]
    assert C.round_fixed_batch([(lo, hi, -60)], [h]) == [(1 + 2 ** -10,)]
    # an interval straddling that boundary is undecided (the Ziv loop must retry)
    assert C.round_fixed_all(2 ** 60 + 2 ** 49 - 1, 2 ** 60 + 2 ** 49 + 1, -60, [h]) == [None]


def test_cos_sin_fixed_contains_high_precision_value() -> None:
    """cos_sin_fixed contains sin/cos computed by mpmath.sin/cos at 400 bits at both ends and the
    midpoint of random intervals, and is no wider than the interval + 2^(14 - prec)."""
    rng = random.Random(SEED + 6)
    for i in range(2000):
        prec = rng.choice([60, 128, 256])
        x = -80 + rng.randrange(-20, 30)
        tl = rng.getrandbits(80) * rng.choice([1, -1])
        th = tl + (rng.getrandbits(8) >> rng.randrange(0, 9) if rng.random() < 0.8 else 0) * (1 << rng.randrange(0, 40) if x + 80 < prec else 1)
        (cl, ch, ce), (sl, sh, se) = C.cos_sin_fixed(tl, th, x, prec)
        with mpmath.workprec(400):
            a, b = _mpf(tl, x), _mpf(th, x)
            for t in (a, b, (a + b) / 2):
                c, s = mpmath.cos(t), mpmath.sin(t)
                assert _mpf(cl, ce) <= c <= _mpf(ch, ce), f"seed {SEED + 6} case {i}: cos({t})"
                assert _mpf(sl, se) <= s <= _mpf(sh, se), f"seed {SEED + 6} case {i}: sin({t})"
            assert _mpf(ch - cl, ce) <= (b - a) + mpmath.mpf(2) ** (-prec + 14), f"seed {SEED + 6} case {i}: too wide"


def test_cos_sin_fixed_radius_and_exact_zero() -> None:
    """Negative: without the radius (the point [a, a]) the enclosure misses cos(b) for b = a + 2^-20;
    theta = 0 exactly gives the points cos = 1, sin = 0, an inexact [0, 0] keeps cos's error bound."""
    a = 1 << 20
    (cl, ch, ce), _ = C.cos_sin_fixed(a, a + 1, -20, 80)
    (pl, ph, pe), _ = C.cos_sin_fixed(a, a, -20, 80)
    with mpmath.workprec(200):
        cb = mpmath.cos(1 + mpmath.mpf(2) ** -20)
        assert _mpf(cl, ce) <= cb <= _mpf(ch, ce)
        assert not (_mpf(pl, pe) <= cb <= _mpf(ph, pe))
    assert C.cos_sin_fixed(0, 0, 0, 64, exact=True) == ((1, 1, 0), (0, 0, 0))
    (cl, ch, ce), (sl, sh, se) = C.cos_sin_fixed(0, 0, 0, 64)
    assert sl == sh == 0 and cl < ch == 1 << -ce


def test_fast_rows_equal_the_general_path(monkeypatch) -> None:
    """The row path (phase factor and amplitude read off the spec by tracing) gives the tables of
    the general path (the spec's phase/value on FixedBackend for every pair), bit for bit."""
    rng = random.Random(SEED + 7)
    pos = [Fraction(rng.randrange(-10 ** 7, 10 ** 7), rng.choice([1, 2, 3, 1024])) for _ in range(6)] + [0, 1]
    for prof in PROFILES:
        d = rng.choice([5, 9, 16])
        fast = C.Certifier().tables(prof, d, pos)
        with monkeypatch.context() as m:
            m.setattr(C.Certifier, "_linear", lambda self, pl, p: None)
            slow = C.Certifier().tables(prof, d, pos)
        for f in fast:
            assert np.array_equal(fast[f].view(np.int64), slow[f].view(np.int64)), \
                f"seed {SEED + 7}: {prof.cli_flags()} d={d} {f}: fast rows differ from the general path"


def test_tracer_reads_the_spec_and_refuses_other_forms() -> None:
    """The traced phase factor is phase_scale * (p + offset) (and the amplitude), checked against
    the profile's fields; a form that is not linear in the traced unit is refused (None)."""
    prof = get_profile("vaswani", base="500", phase_scale="1/3", amplitude="-2", offset="7/8")
    cert = C.Certifier()
    f, a_sin, a_cos = cert._linear(cert.plan(prof, 8), Fraction(5, 2))
    assert f == Fraction(1, 3) * (Fraction(5, 2) + Fraction(7, 8)) and a_sin == a_cos == -2
    u = C._Linear(Fraction(1))
    assert C._traced_factor(lambda: u + 1) is None  # a sum: not c * u
    assert C._traced_factor(lambda: Fraction(3)) is None  # no unit at all
    assert C._traced_factor(lambda: Fraction(3) * u * 2) == 6


# --- the second oracle's fast decision (REQ-GOLDEN-ORACLE) -------------------------------------

def test_oracle_decide_agrees_with_the_exact_path() -> None:
    """oracle_flint._decide never accepts a ball that the exact path (both ends through
    round_to_format) rounds differently, and then gives the same values; it settles the
    ordinary balls (no tie in sight)."""
    from flint import arb, ctx
    rng = random.Random(SEED + 8)
    old = ctx.prec
    ctx.prec = 300
    try:
        balls = []
        for _ in range(3000):
            x = _rand_mpf(rng)
            sign, man, exp, bc = x._mpf_
            mid = arb(int(man) * (-1 if sign else 1)) * arb(2) ** int(exp)
            rad = rng.choice([0, 2.0 ** (exp + bc - rng.choice([30, 60, 200]))])
            balls.append(mid + arb(0, rad) if rad else mid)
        balls += [arb(1) / 3, -arb(1) / 3, arb(0), arb(2) ** -30000, arb(0, 1e-300)]
        out, ok = oracle_flint._decide(balls, FMTS)
        for i, v in enumerate(balls):
            want = oracle_flint._slow(v, FMTS)
            if ok[i]:
                assert want is not None and all(map(C._same, out[i].tolist(), want)), \
                    f"seed {SEED + 8}, ball {i} = {v}: decided {out[i].tolist()}, exact {want}"
        assert ok[-5] and ok[-4] and not ok[-3] and not ok[-1]  # zero and a ball around zero: the exact path
        # ordinary values (sin/cos-like, radius 2^-200): the fast test settles nearly all
        plain = [arb(rng.getrandbits(120) * rng.choice([1, -1])) * arb(2) ** -121 + arb(0, 2.0 ** -200) for _ in range(500)]
        out, ok = oracle_flint._decide(plain, FMTS)
        assert ok.sum() >= 490, f"seed {SEED + 8}: only {ok.sum()} of 500 ordinary balls settled"
        for i in range(len(plain)):
            assert all(map(C._same, out[i].tolist(), oracle_flint._slow(plain[i], FMTS))), f"seed {SEED + 8}, plain ball {i}"
    finally:
        ctx.prec = old


def test_oracle_decide_rejects_a_ball_across_a_boundary() -> None:
    """Negative: a ball containing the binary16 tie 1 + 2^-11 is not settled by the fast test
    (nor by the exact one), although its midpoint rounds cleanly to 1 + 2^-10 (and binary64 is
    fine); the Ziv loop must retry it."""
    from flint import arb, ctx
    old = ctx.prec
    ctx.prec = 200
    try:
        v = arb(1) + arb(2) ** -11 + arb(2) ** -40 + arb(0, 2.0 ** -39)
        out, ok = oracle_flint._decide([v], [get_format("binary16")])
        assert not ok[0] and oracle_flint._slow(v, [get_format("binary16")]) is None
        out, ok = oracle_flint._decide([v], [get_format("binary64")])
        assert not ok[0]  # the ball spans many binary64 values too
        w = arb(1) + arb(2) ** -11 + arb(2) ** -40 + arb(0, 2.0 ** -60)
        out, ok = oracle_flint._decide([w], [get_format("binary16")])
        assert ok[0] and out[0, 0] == 1 + 2 ** -10
    finally:
        ctx.prec = old
