"""Reports lead with the diagnosis (issue 20.2, REQ-CHECK-CLI, REQ-CHECK-REPRO): the verdict, the likeliest
cause, the summary, then capped per-entry lines whose ``reproduce:`` command reproduces the failure."""
from __future__ import annotations

import shlex

import numpy as np
import pytest
from helpers import run_sinpe

from sinpe.reference.tables import table

F16_POSITIONS = '''
import numpy as np
def pe(positions, d):
    p = np.asarray(positions, dtype=np.float16).astype(np.float64)[:, None]
    w = 10000.0 ** (-2 * np.arange(d // 2) / d)
    out = np.zeros((len(p), d))
    out[:, 0::2], out[:, 1::2] = np.sin(p * w), np.cos(p * w)
    return out.astype(np.float32)
'''


@pytest.fixture(scope="module")
def f16_report(tmp_path_factory):
    """``sinpe check`` of a function that rounds its positions to float16 (the issue's example)."""
    work = tmp_path_factory.mktemp("f16")
    (work / "f16pos.py").write_text(F16_POSITIONS)
    res = run_sinpe("check", "f16pos:pe", "--d", "64", "--profile", "vaswani", cwd=work)
    return work, res


def _reproduce_lines(out: str) -> list[str]:
    return [ln.split("reproduce:", 1)[1].split("#")[0].strip() for ln in out.splitlines() if "reproduce:" in ln]


def test_report_leads_with_verdict_and_cause(f16_report):
    """REQ-CHECK-CLI: the two lines after the header are the verdict and the cause sentence."""
    _, res = f16_report
    assert res.returncode == 1, res.stdout + res.stderr
    lines = res.stdout.splitlines()
    assert lines[1].startswith("DOES NOT CONFORM: "), lines[:3]
    assert lines[2].startswith("cause: ") and "positions in float16 (precision loss)" in lines[2], lines[:3]


def test_report_caps_per_entry_lines(f16_report):
    """The per-entry lines are capped, and the rest counted."""
    _, res = f16_report
    shown = [ln for ln in res.stdout.splitlines() if ln.startswith("  position ")]
    assert len(shown) == 5, shown
    assert "more failing entries" in res.stdout


def test_reproduce_is_the_failing_check(f16_report):
    """REQ-CHECK-REPRO: each ``reproduce:`` is ``sinpe check`` on the user's callable at that entry's position,
    and running it gives the same verdict (exit 1); ``sinpe table`` appears only as ``reference:``."""
    work, res = f16_report
    cmds = _reproduce_lines(res.stdout)
    assert cmds and all(c.startswith("sinpe check f16pos:pe ") and "--positions" in c for c in cmds), cmds
    assert not any("sinpe table" in c for c in cmds)
    again = run_sinpe(*shlex.split(cmds[0])[1:], cwd=work)
    assert again.returncode == 1, again.stdout + again.stderr
    assert "reference: sinpe table" in res.stdout


def test_reproduce_of_a_file_selects_the_row(tmp_path):
    """A file's failing entry is reproduced with ``--rows``; that command fails, a neighbouring row conforms."""
    t = table("vaswani", 16, 40, "float32")
    t[30, 2] += np.float32(0.01)
    np.save(tmp_path / "bad.npy", t)
    res = run_sinpe("check", "bad.npy", "--profile", "vaswani", cwd=tmp_path)
    assert res.returncode == 1
    cmd = _reproduce_lines(res.stdout)[0]
    assert cmd.endswith("--rows 30"), cmd
    assert run_sinpe(*shlex.split(cmd)[1:], cwd=tmp_path).returncode == 1
    assert run_sinpe(*shlex.split(cmd.replace("--rows 30", "--rows 29"))[1:], cwd=tmp_path).returncode == 0


def test_non_finite_is_reported_as_such(tmp_table, sinpe_cli):
    """A NaN entry is 'non-finite entries: N (first at position p, column j)', never 'max |error| inf'."""
    def spoil(t):
        t[7, 3], t[9, 0] = np.nan, np.inf
    res = sinpe_cli("check", tmp_table(edit=spoil), "--profile", "vaswani")
    assert res.returncode == 1
    assert "non-finite entries: 2 (first at position 7, column 3)" in res.stdout, res.stdout
    assert "max |error| inf" not in res.stdout and "e+308" not in res.stdout, res.stdout


def test_cause_is_none_for_a_conforming_table():
    """The cause sentence exists only for a failing verdict; a conforming report has no 'cause:' line."""
    import sinpe
    from sinpe.reference.checking.report import cause, render
    ok = sinpe.check(table("vaswani", 16, 40, "float32"), "vaswani")
    assert cause(ok) is None and "cause:" not in render(ok, "t.npy")
    assert cause(sinpe.check(table("vaswani", 16, 40, "float32") * 0.5, "vaswani")) == "the table reads as amplitude 1/2"
    t2t = sinpe.check(table("t2t", 16, 40, "float32"), "vaswani")
    assert cause(t2t) == "the table reads as layout sin-cos, schedule shift 1", cause(t2t)
