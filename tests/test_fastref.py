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
