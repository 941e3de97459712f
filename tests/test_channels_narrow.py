"""REQ-DETECT-READ on half-precision columns: a low frequency's quantised sin or cos column is read as that function
(step 4 of sinpe.reference.checking.detect.channels), and a phase the data determines is still read as a phase.

Reproduce: python -c "import numpy as np, torch; from sinpe.reference.checking.detect.channels import read_channels;
t = np.arange(2048.0)[:, None]; print(read_channels(torch.tensor(np.hstack([np.sin(1e-3 * t), np.cos(1e-3 * t)]))
.to(torch.bfloat16).double().numpy()).kinds)"
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

from sinpe.reference.checking.detect.channels import read_channels

ROWS = np.arange(2048.0)[:, None]
OMEGAS = (1.0, 0.3, 0.1, 0.03, 0.01, 3e-3, 1e-3, 3e-4, 1e-4)


def rounded(x: np.ndarray, fmt: str) -> np.ndarray:
    return torch.tensor(x).to(getattr(torch, fmt)).double().numpy()


@pytest.mark.parametrize("fmt", ["bfloat16", "float16"])
@pytest.mark.parametrize("omega", OMEGAS)
def test_a_quantised_sin_cos_pair_is_read_as_sin_and_cos(fmt, omega):  # REQ-DETECT-READ
    """Before step 4, bfloat16 at omega 0.01 read the cos column as a phase (phi 1.5696), at 3e-3 and 1e-3 both
    columns; float16 from 3e-3 down read phases and constant 'cos' columns of frequency 0. The frequency is held to
    1% where the rows span two radians or more; below that a sin's amplitude and frequency are nearly one
    parameter (A w) on quantised values, so 5% (the channel plan refits w with the amplitude known)."""
    r = read_channels(rounded(np.hstack([np.sin(omega * ROWS), np.cos(omega * ROWS)]), fmt))
    assert r.kinds == ["sin", "cos"], (r.kinds, r.omega, r.phase)
    tol = 1e-2 if omega * 2047 >= 2 else 5e-2
    assert np.allclose(r.omega, omega, rtol=tol, atol=0), r.omega
    assert np.allclose(r.amplitude, 1.0, rtol=tol if omega * 2047 >= 2 else 0.1), r.amplitude


@pytest.mark.parametrize("fmt", ["float64", "float32", "bfloat16"])
@pytest.mark.parametrize("phase", [0.3, 1.0])
@pytest.mark.parametrize("omega", [0.3, 0.01])
def test_a_phase_the_data_determines_stays_a_phase(fmt, phase, omega):  # REQ-DETECT-READ
    r = read_channels(rounded(np.sin(omega * ROWS + phase), fmt))
    assert r.kinds == ["phase"], (r.kinds, r.phase)
    assert abs(r.phase[0] - phase) < 1e-2, r.phase


def test_a_small_phase_in_float32_is_not_rounded_to_a_function():  # REQ-DETECT-READ
    """0.01 rad is far beyond float32's resolution at these rows: no sin reading fits within PHASE_FIT."""
    r = read_channels(rounded(np.sin(0.01 * ROWS + 0.01), "float32"))
    assert r.kinds == ["phase"], (r.kinds, r.phase)


def test_a_column_the_free_fit_loses_is_not_named():  # REQ-DETECT-READ: no confident wrong reading
    """float16 sin(1e-3 p + 1): the free fit misses by 0.17 of R, and a cos of frequency 6.7e-4 would miss by less
    than twice that: READ_MISS keeps it a phase (no function is named that misses by 2^-6)."""
    r = read_channels(rounded(np.sin(1e-3 * ROWS + 1.0), "float16"))
    assert r.kinds[0] not in ("sin", "cos", "-sin", "-cos"), (r.kinds, r.omega)
