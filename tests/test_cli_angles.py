"""``sinpe grid`` and ``sinpe rotary`` (REQ-CHECK-GRID, REQ-CHECK-ROPE, REQ-DETECT-GRID, REQ-DETECT-ROPE):
exit codes, JSON, one-line usage errors.
Reproduce: python -m pytest tests/test_cli_angles.py
"""
from __future__ import annotations

import json

import library_formulas as L
import numpy as np
import pytest

from sinpe.reference.cli import main


@pytest.fixture()
def files(tmp_path):
    out = {}
    out["mae"] = tmp_path / "mae.npy"
    np.save(out["mae"], L.mae_2d(32, 6, cls=True).astype(np.float32))
    out["detr"] = tmp_path / "detr.npy"
    np.save(out["detr"], L.detr_sine(32, 4, 5).reshape(4, 5, 32).transpose(2, 0, 1)[None])
    c, s = L.rope_cache(L.inv_freq_default(32), 200)
    out["cos"], out["sin"] = tmp_path / "cos.npy", tmp_path / "sin.npy"
    np.save(out["cos"], c[None, None])
    np.save(out["sin"], s[None, None])
    return {k: str(v) for k, v in out.items()}


def test_grid_check_and_detect(files, capsys):
    assert main(["grid", "check", files["mae"], "--profile", "mae", "--cls", "1"]) == 0
    assert main(["grid", "check", files["mae"], "--profile", "timm", "--cls", "1"]) == 1
    capsys.readouterr()
    assert main(["grid", "detect", files["mae"], "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    g = d["readings"]["grid"]
    assert (d["kind"], d["profile"], g["cls"], g["shape"]) == ("grid", "mae", 1, [6, 6])
    assert main(["grid", "check", files["detr"], "--profile", "detr", "--shape", "4x5", "--channels-first"]) == 0
    assert main(["grid", "check", files["detr"], "--profile", "detr-normalized", "--shape", "4x5",
                 "--channels-first"]) == 1


def test_rotary_check_and_detect(files, capsys):
    assert main(["rotary", "check", "--cos", files["cos"], "--sin", files["sin"]]) == 0
    assert main(["rotary", "check", "--cos", files["cos"], "--profile", "gptj"]) == 1
    assert main(["rotary", "check", "--sin", files["sin"], "--rule", "linear", "--factor", "2"]) == 1
    capsys.readouterr()
    assert main(["rotary", "detect", "--cos", files["cos"], "--sin", files["sin"], "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    r = d["readings"]["rotary"]
    assert (d["kind"], r["layout"], r["dim"], d["profile"]) == ("rotary", "halves", 32, "llama")
    assert main(["rotary", "check", "--cos", files["cos"], "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "conforms" and out["parts"]["cos"]["rows"] == 200


def test_usage_errors_are_one_line_exit_2(files, capsys):
    assert main(["rotary", "check"]) == 2
    assert main(["grid", "check", files["mae"], "--profile", "mae", "--amplitude", "2"]) == 2  # a 1-D flag
    assert main(["grid", "check", files["mae"], "--profile", "mae", "--shape", "7by7"]) == 2
    assert main(["rotary", "check", "--cos", files["cos"], "--positions", "0:3"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err and all(line.startswith("sinpe ") and "Traceback" not in line for line in err)
