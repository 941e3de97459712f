"""`sinpe figures` (SPEC.md REQ-FIGURES): tables to more digits, PNGs, matplotlib optional.

Table values are checked against python-flint Arb balls with the formula written out here (an
independent path from the mpmath reference the command uses).
"""
from __future__ import annotations

import csv
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from flint import arb, ctx

from sinpe.reference.cli import main

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def figdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("figs")
    assert main(["figures", "--out", str(out)]) == 0, f"reproduce: sinpe figures --out {out}"
    return out


def _arb_str_close(text: str, x: arb, places: int) -> bool:
    # |printed - exact| <= half a unit in the last printed place (plus the ball's radius)
    d = arb(str(Decimal(text))) - x
    return bool(abs(d) < arb(10) ** (-places) / 2 + arb(10) ** -60)


def test_table_4_1_csv_matches_arb(figdir: Path) -> None:
    old = ctx.prec
    ctx.prec = 256
    try:
        rows = list(csv.reader((figdir / "table_4_1.csv").open()))
        assert rows[0][0] == "position" and len(rows) == 5
        for r in rows[1:]:
            p = int(r[0])
            for j, text in enumerate(r[1:]):
                w = arb(10000) ** (arb(-2 * (j // 2)) / 4)
                x = (w * p).sin() if j % 2 == 0 else (w * p).cos()
                assert len(text.split(".")[1]) == 20
                assert _arb_str_close(text, x, 20), f"table 4-1 position {p} column {j}: {text} vs {x}"
    finally:
        ctx.prec = old


def test_table_4_2_csv_matches_arb(figdir: Path) -> None:
    old = ctx.prec
    ctx.prec = 256
    try:
        rows = list(csv.reader((figdir / "table_4_2.csv").open()))
        assert [int(r[0]) for r in rows[1:]] == [0, 1, 2, 10, 100, 1000, 2000]
        for k, text in ((int(r[0]), r[1]) for r in rows[1:]):
            x = sum((arb(10000) ** (arb(-2 * i) / 512) * k).cos() for i in range(256))
            assert _arb_str_close(text, x, 15), f"table 4-2 k={k}: {text} vs {x}"
    finally:
        ctx.prec = old


def test_markdown_and_pngs(figdir: Path) -> None:
    md = (figdir / "table_4_2.md").read_text()
    assert "| 2000 | 22.524549490928820 | 22.53 (fails) |" in md
    assert "0.8415 (holds)" in (figdir / "table_4_1.md").read_text()
    for name in ("figure_4_1_heatmap.png", "figure_4_1_waveforms.png", "dot_product_d512.png", "error_vs_position.png"):
        data = (figdir / name).read_bytes()
        assert data.startswith(PNG) and len(data) > 5000, name


def test_without_matplotlib_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    assert main(["figures", "--out", str(tmp_path / "a")]) == 2
    assert "pip install 'sinpe[plot]'" in capsys.readouterr().err
    assert not (tmp_path / "a").exists()
    assert main(["figures", "--tables-only", "--out", str(tmp_path / "b")]) == 0
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == ["table_4_1.csv", "table_4_1.md",
                                                                  "table_4_2.csv", "table_4_2.md"]


def test_out_must_be_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    assert main(["figures", "--tables-only", "--out", str(f)]) == 2
    assert "is not a folder" in capsys.readouterr().err
