"""`sinpe claims` (SPEC.md REQ-CLAIMS-CLI): exit codes, JSON shape, one-line errors."""
from __future__ import annotations

import json

import pytest
from helpers import run_sinpe

from sinpe.reference.cli import main
from sinpe.spec.claims import CLAIMS

REQUIRED = {"id", "section", "claimed", "computed", "verdict", "note"}


def test_full_audit_exits_0_with_failing_claims() -> None:
    """A failing claim is a finding of the audit, not an error of the command (REQ-CLAIMS-CLI)."""
    p = run_sinpe("claims", "--json", module=True, timeout=300)
    assert p.returncode == 0, f"reproduce: sinpe claims --json\n{p.stderr}"
    rows = json.loads(p.stdout)
    assert isinstance(rows, list) and len(rows) == len(CLAIMS)
    for r in rows:
        assert REQUIRED <= set(r), r
        assert r["verdict"] in ("holds", "holds-with-note", "fails")
    assert any(r["verdict"] == "fails" for r in rows)
    assert "fails" in p.stderr  # the tally line


def test_selected_ids_and_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["claims", "--id", "CLAIM-4.1.4-T2-K2000", "--id", "CLAIM-4.1.1-T1-R2C1"]) == 0
    out = capsys.readouterr().out
    assert "CLAIM-4.1.4-T2-K2000" in out and "fails" in out and "22.5245" in out
    assert "2 claims: 1 holds, 0 holds-with-note, 1 fails" in out


def test_json_for_one_claim(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["claims", "--json", "--id", "CLAIM-4.1.6-COUNT-512"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["id"] == "CLAIM-4.1.6-COUNT-512" and row["claimed"] == "123" and row["computed"] == "123"
    assert row["verdict"] == "holds" and row["precision"] == "exact count"
    assert [r["value"] for r in row["readings"]] == ["123", "123", "123"]  # <=, < and a full turn in 0..511


def test_unknown_id_is_a_one_line_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["claims", "--id", "CLAIM-9.9-NOPE"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "unknown claim 'CLAIM-9.9-NOPE'" in err


def test_readme_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["claims", "--readme", "--id", "CLAIM-4.1.4-T2-K2000"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("## What the chapter gets right and wrong") and "CLAIM-4.1.4-T2-K2000" in out
