"""The variants detect reads from the data (issue 29.2; SPEC.md REQ-DETECT-GRID, REQ-DETECT-ROPE, REQ-DETECT-FIT,
REQ-DETECT-READ, REQ-CLI-EXIT).

Every table is built at test time by a NumPy transcription of the library's own formula (``tests/library_formulas.py``:
timm, diffusers, ultralytics, ESPnet, a Pixtral-style ``freqs_cis``), never by sinpe. Each variant is named by
``sinpe.detect`` and accepted by ``--profile auto`` (exit 0); the same variant with one entry changed is rejected
by ``--profile auto`` (exit 1).
"""
from __future__ import annotations

import json

import numpy as np
import pytest

import library_formulas as L
import sinpe
from sinpe.reference import cli


def corrupt(t: np.ndarray, row: int, col: int, by: float = 0.02) -> np.ndarray:
    bad = np.array(t, copy=True)
    bad[row, col] += by
    return bad


# --- REQ-CLI-EXIT: an internal error is exit 3, never bad input ---------------------------------------------------

def test_internal_error_is_exit_3_not_a_usage_error(tmp_path, monkeypatch, capsys):
    """A NumPy error raised while sinpe computes (here planted in the rotary reading) is an internal error: exit 3,
    one line saying so, the JSON error object with exit_code 3; a value sinpe refuses stays exit 2."""
    from sinpe.reference.checking import angles
    cos, _ = L.rope_cache(L.inv_freq_default(16), 64)
    path = tmp_path / "cos.npy"
    np.save(path, cos)

    def broken(*a, **k):
        return np.ones(32) + np.ones(2)  # "operands could not be broadcast together"
    monkeypatch.setattr(angles, "detect_rotary", broken)
    assert cli.main(["detect", "--cos", str(path)]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("sinpe detect: internal error") and "broadcast" in err[0]
    assert cli.main(["detect", "--cos", str(path), "--json"]) == 3
    doc = json.loads(capsys.readouterr().out)
    assert doc["error"]["exit_code"] == 3 and doc["error"]["internal"] is True
    assert cli.main(["check", "--cos", str(path), "--profile", "llama", "--mrope-section", "0"]) == 2
    assert "error: --mrope-section" in capsys.readouterr().err
