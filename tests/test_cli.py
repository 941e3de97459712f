"""The CLI contract shared by every command: exit codes and one-line errors (REQ-CLI-EXIT)."""
from __future__ import annotations

import subprocess

import pytest
from helpers import run_sinpe

from sinpe.reference.cli import COMMANDS, main


def sinpe(*args: str) -> subprocess.CompletedProcess:
    return run_sinpe(*args)  # in process: main(args), what the console script runs


def test_help_lists_every_command():
    res = run_sinpe("--help", module=True)  # python -m sinpe.reference.cli: the module entry point, in its own process
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


def test_verify_max_position_parses_like_certify(capsys):  # REQ-VERIFY
    """REQ-VERIFY: --max-position parses as certify parses it."""
    # review regression: verify's --max-position was int(): "1e7" (its own default's spelling) was refused,
    # and 0 ran the certification and reported a failed part instead of a usage error
    for bad, why in (("0", "must be an integer"), ("2.5", "must be an integer"), ("1e8", "must be <= 2^24")):
        assert main(["verify", "--max-position", bad]) == 2
        err = capsys.readouterr().err
        assert err.startswith("sinpe verify: error:") and why in err, err
    import argparse

    from sinpe.reference.cli import verify as cli_verify
    p = argparse.ArgumentParser()
    cli_verify.configure(p)
    assert p.parse_args(["--max-position", "1e7"]).max_position == 10**7


def test_os_errors_are_one_line_exit_2(tmp_path, capsys, monkeypatch):
    # review regression: only FileNotFoundError was caught; another OSError (here from the command itself) was
    # a traceback. A BrokenPipeError (also an OSError) still exits 0.
    from sinpe.reference.cli import check as cli_check

    def boom(args):
        raise IsADirectoryError(21, "Is a directory", str(tmp_path))
    monkeypatch.setattr(cli_check, "run", boom)
    assert main(["check", "x.npy"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Is a directory" in err and "Traceback" not in err


@pytest.mark.parametrize("args,msg", [(("check", "no-such.npy", "--json"), "no such file"),
                                      (("detect", "no-such.npy", "--json"), "no such file"),
                                      (("check", "x.npy", "--json", "--tier", "bogus"), "invalid choice"),
                                      (("check", "x.npy", "--json", "--amplitude", "1/sqrt(512)"), "irrational")])
def test_json_error_object_on_stdout(args, msg, tmp_path):
    """REQ-CLI-JSON-ERROR: under --json an error is a JSON object on stdout (and one line on stderr, exit 2)."""
    import json
    res = run_sinpe(*args, cwd=tmp_path)
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1, res.stderr
    err = json.loads(res.stdout)["error"]
    assert err["exit_code"] == 2 and msg in err["message"] and err["command"] == args[0]
    plain = run_sinpe(*[a for a in args if a != "--json"], cwd=tmp_path)
    assert plain.returncode == 2 and plain.stdout == ""  # without --json stdout stays empty
