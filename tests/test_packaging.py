"""Packaging: one namespace `sinpe`, nothing squatting generic top-level names, data shipped."""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(ROOT)]
    res = subprocess.run(cmd, capture_output=True, text=True, cwd=out)
    assert res.returncode == 0, f"{' '.join(cmd)} failed:\n{res.stderr[-2000:]}"
    (whl,) = out.glob("sinpe-*.whl")
    return whl


def test_wheel_has_one_namespace(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names}
    assert {t for t in top if not t.endswith(".dist-info")} == {"sinpe"}, sorted(top)
    for must in ("sinpe/spec/definition.py", "sinpe/spec/SPEC.md", "sinpe/proofs/__init__.py",
                 "sinpe/reference/cli/__init__.py", "sinpe/reference/conformance/plugin.py"):
        assert must in names, f"{must} missing from {wheel.name}"
    assert "sinpe/py.typed" in names  # the type information mypy reads in an installed sinpe
    assert not [n for n in names if n.startswith("sinpe/reference/api/")]  # reference/api/ is sinpe itself, once


def test_wheel_ships_golden_data(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    golden = ROOT / "reference" / "golden"
    shipped = sorted(p.relative_to(golden).as_posix() for p in golden.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    assert shipped, "reference/golden/ is empty"
    missing = [s for s in shipped if f"sinpe/reference/golden/{s}" not in names]
    assert not missing, f"golden files not in the wheel: {missing[:5]}"


def test_entry_points(wheel):
    z = zipfile.ZipFile(wheel)
    (ep,) = [n for n in z.namelist() if n.endswith("entry_points.txt")]
    text = z.read(ep).decode()
    assert "sinpe = sinpe.reference.cli:main" in text
    assert "sinpe = sinpe.reference.conformance.plugin" in text


def test_cli_runs_as_installed():
    res = subprocess.run([sys.executable, "-m", "sinpe.reference.cli", "--version"], capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.startswith("sinpe 4.0.0"), res
