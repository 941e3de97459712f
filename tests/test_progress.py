"""The one progress line of long work (reference/progress.py, issue 28 item 5): drawn when stderr is a terminal
(a pseudo-terminal here, pty.openpty), nothing when it is not one, nothing under --json / --jsonl."""
from __future__ import annotations

import contextlib
import io
import os
import pty
import sys

import numpy as np
import pytest

from sinpe.reference import progress
from sinpe.reference.cli import main
from sinpe.reference.tables import table


class _Terminal:
    """sys.stderr made the slave end of a pseudo-terminal on first use (inside the test: pytest's own capture
    sets sys.stderr when the test body starts); calling it returns what was written since."""

    def __init__(self, monkeypatch) -> None:
        self.master, slave = pty.openpty()
        self.stream = os.fdopen(slave, "w", buffering=1)
        self.mp, self.on = monkeypatch, False

    def install(self) -> None:
        if not self.on:
            self.mp.setattr(sys, "stderr", self.stream)
            self.on = True

    def __call__(self) -> str:
        stream, master = self.stream, self.master
        stream.flush()
        os.set_blocking(master, False)
        chunks = []
        while True:
            try:
                chunks.append(os.read(master, 1 << 16))
            except (BlockingIOError, OSError):
                return b"".join(chunks).decode(errors="replace")


@pytest.fixture
def terminal(monkeypatch):
    monkeypatch.setattr(progress, "DELAY", 0.0)  # the first line at once (else after a second of work)
    t = _Terminal(monkeypatch)
    yield t
    monkeypatch.undo()
    t.stream.close()
    os.close(t.master)


def test_drawn_on_a_terminal(terminal):
    terminal.install()
    assert sys.stderr.isatty()
    bar = progress.Progress(3, "work", unit="items")
    bar.step(3, 3, "last")
    bar.close()
    out = terminal()
    assert "work [" in out and "100.0% (3/3 items) last" in out and out.endswith("\n")


def test_nothing_when_not_a_terminal(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(progress, "DELAY", 0.0)
    bar = progress.Progress(3, "work")
    bar(3)
    bar.close()
    assert err.getvalue() == ""


def test_nothing_while_silenced(terminal):
    terminal.install()
    with progress.silenced():
        bar = progress.Progress(3, "work", enabled=True)
        bar(3)
        bar.close()
    assert terminal() == ""


def test_a_quick_job_draws_nothing(terminal, monkeypatch):
    terminal.install()
    monkeypatch.setattr(progress, "DELAY", 3600.0)
    bar = progress.Progress(3, "work")
    bar(3)
    bar.close()
    assert terminal() == ""


def _cli(*args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(list(args))
    return out.getvalue()


def test_cli_draws_on_a_terminal_and_not_under_json(terminal, tmp_path):
    """``sinpe check`` on a terminal draws its line on stderr; with ``--json`` stdout is the document only and
    stderr gets no progress line."""
    terminal.install()
    np.save(tmp_path / "t.npy", table("vaswani", 16, 300, "float32"))
    _cli("check", str(tmp_path / "t.npy"))
    drawn = terminal()
    assert "sinpe check" in drawn and "100.0% (300/300 rows)" in drawn
    doc = _cli("check", str(tmp_path / "t.npy"), "--json")
    assert doc.lstrip().startswith("{") and terminal() == ""
