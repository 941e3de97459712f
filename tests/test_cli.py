"""The CLI contract shared by every command: exit codes and one-line errors (REQ-CLI-EXIT)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from sinpe.reference.cli import COMMANDS, main


def sinpe(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sinpe.reference.cli", *args], capture_output=True, text=True)


def test_help_lists_every_command():
    res = sinpe("--help")
    assert res.returncode == 0
    for name in COMMANDS:
        assert name in res.stdout


def test_unknown_command_is_usage_error():
    res = sinpe("frobnicate")
    assert res.returncode == 2 and "invalid choice" in res.stderr and "Traceback" not in res.stderr


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_module_exists_and_has_help(name):
    res = sinpe(name, "--help")
    assert res.returncode == 0, f"sinpe {name} --help: {res.stderr[-500:]}"
    assert f"sinpe {name}" in res.stdout


def test_bad_flag_is_one_line_exit_2():
    res = sinpe("table", "--no-such-flag")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1, res.stderr


def test_bad_value_is_one_line_exit_2(capsys):
    assert main(["table", "--profile", "vaswani", "--d", "4", "--positions", "5:2", "--dtype", "float32",
                 "--out", "/nonexistent-dir/x.npy"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sinpe table: error:") and len(err.strip().splitlines()) == 1, err
