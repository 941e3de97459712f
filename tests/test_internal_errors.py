"""REQ-CLI-EXIT: a failure of sinpe itself is exit 3 (inconclusive), one line, never a usage error (2) and never a
traceback; an unexpected exception while the input is read stays a one-line input error (2)."""
from __future__ import annotations

import numpy as np
from helpers import assert_exit, run_sinpe

from sinpe.reference.checking import loaders
from sinpe.reference.checking.check import table as check_module
from sinpe.reference.tables import table


def test_a_failure_while_judging_is_exit_3_not_bad_input(tmp_path, monkeypatch):  # REQ-CLI-EXIT
    np.save(tmp_path / "t.npy", table("vaswani", 8, 40, "float32"))

    def broken(*a, **k):
        raise TypeError("a bug planted in the judge")
    monkeypatch.setattr(check_module, "_conclude", broken)
    res = run_sinpe("check", "t.npy", "--profile", "vaswani", "--no-detect", cwd=tmp_path)
    assert_exit(res, 3)
    assert res.stderr.count("\n") == 1 and "internal error" in res.stderr and "Traceback" not in res.stderr
    res = run_sinpe("check", "t.npy", "--profile", "vaswani", "--no-detect", "--json", cwd=tmp_path)
    assert_exit(res, 3)
    assert '"exit_code": 3' in res.stdout


def test_an_unexpected_failure_while_reading_stays_an_input_error(tmp_path, monkeypatch):  # REQ-CLI-EXIT
    np.save(tmp_path / "t.npy", table("vaswani", 8, 40, "float32"))

    def unreadable(*a, **k):
        raise TypeError("the reader of the input fails")
    monkeypatch.setattr(loaders, "_finish", unreadable)  # inside the reader of the file
    res = run_sinpe("check", "t.npy", "--profile", "vaswani", "--no-detect", cwd=tmp_path)
    assert_exit(res, 2)
    assert "cannot check" in res.stderr and "internal error" not in res.stderr  # the reader: the input's fault
