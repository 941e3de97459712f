"""The fast reference for big tables (SPEC.md REQ-CHECK-FASTREF): within 1 ulp of binary64 of the Arb oracle.

The oracle (python-flint Arb balls, :mod:`sinpe.reference.oracles.arb`) is an independent library
and algorithm; its correctly rounded binary64 values are the expected values here.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from sinpe.reference.oracles import fast as fastref
from sinpe.reference.oracles.arb import reference_f64
from sinpe.spec.definition import column_data
from sinpe.spec.profiles import PRESETS, get_profile

RNG = np.random.default_rng(20170612)
POSITIONS = np.concatenate([np.arange(5.0), RNG.integers(0, 10**7, 10).astype(float),
                            [65519.0, 65520.0, 2.0**26 - 1, 2.0**26 + 1, 2.0**40 + 3, 2.0**53 - 1]])


def ulps(v: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """|v - ref| in binary64 ulps of ref (exact zeros must be exact)."""
    sp = np.spacing(np.abs(ref))
    out = np.abs(v - ref) / np.where(ref == 0, np.inf, sp)
    out[(ref == 0) & (v != 0)] = np.inf
    return out


@pytest.mark.parametrize("name", list(PRESETS))
@pytest.mark.parametrize("d", [7, 64, 257])
def test_within_one_ulp_of_the_arb_oracle(name, d):  # REQ-CHECK-FASTREF
    prof = get_profile(name)
    v, _ = fastref.table_f64(prof, d, POSITIONS)
    assert ulps(v, reference_f64(prof, d, POSITIONS)).max() <= 1.0


def test_general_path_offset_scale_fractions_negative():  # REQ-CHECK-FASTREF
    prof = get_profile("vaswani", base="500", phase_scale="1/3", amplitude="1", offset="1/3")
    pos = [Fraction(0), Fraction(5, 2), Fraction(-7, 4), Fraction(1, 3), Fraction(10**7), Fraction(123456789)]
    v, _ = fastref.table_f64(prof, 33, pos)
    assert ulps(v, reference_f64(prof, 33, pos)).max() <= 1.0


def test_a_mutilated_reduction_is_caught(monkeypatch):
    """Negative test: dropping the second word of 1/(2 pi) (a one-word reduction constant) must break
    the 1-ulp agreement at large positions, so the test above can fail."""
    prof = get_profile("vaswani")
    fw = fastref.frequency_words(column_data(prof, 8)).copy()
    fw[0] += fw[1]  # a 53-bit first word: p * g1 is no longer exact
    fw[1] = 0.0
    monkeypatch.setattr(fastref, "frequency_words", lambda cd: fw)
    v, _ = fastref.table_f64(prof, 8, POSITIONS)
    assert ulps(v, reference_f64(prof, 8, POSITIONS)).max() > 1.0


def test_error_bound_covers_measured_error():
    prof = get_profile("t2t")
    v, th = fastref.table_f64(prof, 64, POSITIONS)
    ref = reference_f64(prof, 64, POSITIONS)
    assert np.all(np.abs(v - ref) <= fastref.error_bound(v, th))


def _random_frequencies(n: int, seed: int) -> list[tuple[Fraction, Fraction, Fraction]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        scale = Fraction(int(rng.integers(1, 10**6)), int(rng.integers(1, 10**4)))
        base = Fraction(int(rng.integers(2, 10**7)), int(rng.choice([1, 1, 3, 7, 1000])))
        e = Fraction(int(rng.integers(-50, 4000)), int(rng.integers(1, 4097)))
        out.append((scale, base, e))
    return out


def test_frequency_words_from_decimals_are_mpmaths():  # REQ-CHECK-FASTREF: the words the decisions rely on
    """Every preset at six widths and 400 random (scale, base, exponent): the decimals' words are mpmath's at 320 bits
    bit for bit, or the decimals leave the frequency to mpmath (frequency_words takes mpmath's then)."""
    cases = [(cd.scale, cd.base, e) for name in PRESETS for d in (2, 4, 16, 64, 512, 4096)
             for cd in [column_data(get_profile(name), d)] for e in cd.exponents[:: max(1, len(cd.exponents) // 40)]]
    cases += _random_frequencies(400, 7)
    answered = 0
    for scale, base, e in cases:
        got = fastref._words_decimal(scale, base, e)
        if got is not None:
            answered += 1
            assert got == fastref._words_mp(scale, base, e), (scale, base, e)
    assert answered >= len(cases) - 2 and len(cases) > 1000  # the two left: base^-e below 2^-1000 (mpmath's)


def test_frequency_words_near_a_rounding_boundary_come_from_mpmath():
    """scale = 1 + j 2^-53 (odd j) is a binary64 midpoint: 50 digits cannot tell which way it rounds, so the
    decimals answer None and frequency_words gives mpmath's words (ties to even). Without the error bound the
    decimals round some of them the other way: the bound is what keeps the words mpmath's."""
    from decimal import Context, Decimal

    from sinpe.spec.definition import ColumnData
    wrong = 0
    for j in range(1, 12, 2):
        scale = 1 + Fraction(j, 2**53)
        assert fastref._words_decimal(scale, Fraction(10000), Fraction(0)) is None
        want = fastref._words_mp(scale, Fraction(10000), Fraction(0))
        x = Fraction(Context(prec=fastref._DIGITS).divide(Decimal(scale.numerator), Decimal(scale.denominator)))
        wrong += float(x) != want[4]  # x rounded to nearest (an exact division), no error bound
        cd = column_data(get_profile("vaswani", phase_scale=scale), 2)
        assert isinstance(cd, ColumnData) and tuple(fastref.frequency_words(cd)[:5, 0]) == want
    assert wrong >= 2


def test_one_over_two_pi_constant():
    import mpmath
    with mpmath.workprec(300):
        want = mpmath.nstr(1 / (2 * mpmath.pi), 80)
    assert fastref._INV_TWO_PI == want


def test_frequency_words_of_a_huge_exponent_fall_back_to_mpmath():
    """--shift 2-1e-400 at d = 4 makes e_1 = 10^400: base^-e_1 underflows to 0 in the decimals and float(e_1)
    overflows in their error bound. The frequency is mpmath's (w = 0: all words 0), as before the decimals; it
    was an OverflowError out of frequency_words ('sinpe check' exit 3, internal error)."""
    cd = column_data(get_profile("t2t", shift="2-1e-400"), 4)
    assert cd.exponents[1] == 10**400
    assert fastref._words_decimal(cd.scale, cd.base, cd.exponents[1]) is None
    fw = fastref.frequency_words(cd)
    assert tuple(fw[:5, 1]) == fastref._words_mp(cd.scale, cd.base, cd.exponents[1]) == (0.0, -0.0, -0.0, 0.0, 0.0)


def test_frequency_words_do_not_read_the_callers_decimal_context(monkeypatch):
    """The decimals' context is all explicit: a program that narrowed decimal.DefaultContext's exponent range
    (Emin = -99) made 1/(7e120), the base, a subnormal decimal of a few digits, and g4 came out wrong
    (-1.3011591080110384e+34 for mpmath's -1.2948428420208215e+34) while the bound said it was decided. A
    subnormal or underflowing decimal is now left to mpmath, whatever the caller's context."""
    import decimal

    scale, base, e = Fraction(1), Fraction(1, 7 * 10**120), Fraction(1, 2)
    want = fastref._words_mp(scale, base, e)
    assert fastref._words_decimal(scale, base, e) == want
    for field, value in (("Emin", -99), ("Emax", 99), ("rounding", decimal.ROUND_FLOOR)):
        monkeypatch.setattr(decimal.DefaultContext, field, value)
        assert fastref._words_decimal(scale, base, e) in (None, want), field


def test_nearest_refuses_an_interval_across_a_binade_edge():
    """_nearest decides only when every value within err rounds as n does: just above 2^k the grid below is twice
    as fine. At 2 bits 268 rounds to 256 (= 2^8) and 220, within 48 of it, to 192 (a quarter ulp under 256 is 224):
    the answer was 256. With err 30 (down to 238) every value rounds to 256."""
    assert fastref._nearest(268, 2, 0) == 256 and fastref._nearest(220, 2, 0) == 192
    assert fastref._nearest(268, 2, 48) is None
    assert fastref._nearest(268, 2, 30) == 256
    assert fastref._nearest(-268, 2, 30) == -256 and fastref._nearest(268 + 64 - 30, 2, 30) is None  # a midpoint
