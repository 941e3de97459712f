"""The one progress line of sinpe's long work (``verify``, ``prove``, ``table``, ``check``, ``scan``, ``golden``,
``certify``, ``claims``, the pytest plugin, the survey): one line on stderr, redrawn in place at most five times a
second with the count, the current item and the elapsed seconds.

It is drawn only when stderr is a terminal (``enabled=None``) and the work has taken :data:`DELAY` seconds (a
quick command draws nothing), or when a caller asks for it (``enabled=True``, drawn at once); never while
:func:`silenced` is on (the CLI turns it on under ``--json`` / ``--jsonl``: a machine reading the output gets
only the document), and never when stderr is not a terminal unless asked.

>>> bar = Progress(4, "demo", enabled=False)
>>> bar(); bar(2); bar.n
3
>>> bar.update(4); bar.n, bar.close()
(4, None)
>>> with silenced():
...     Progress(4, "demo", enabled=True).on
False
"""
from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from typing import Any

DELAY = 1.0        # seconds of work before the first line is drawn (enabled=None)
INTERVAL = 0.2     # seconds between two redraws
_silent = [False]


@contextlib.contextmanager
def silenced(on: bool = True) -> Iterator[None]:
    """No progress line is drawn inside (``on``): the CLI's ``--json``/``--jsonl``."""
    before = _silent[0]
    _silent[0] = before or bool(on)
    try:
        yield
    finally:
        _silent[0] = before


def _tty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False


class Progress:
    """``bar(k)`` advances by k, ``bar.update(n, item)`` sets the count, ``bar.step(i, n, item)`` is the
    ``(done, total, label)`` callback form (the proof suite's), ``bar.close()`` ends the line."""

    def __init__(self, total: int, label: str, enabled: bool | None = None, unit: str = "") -> None:
        self.total, self.label, self.unit, self.n, self.item = max(int(total), 1), label, unit, 0, ""
        self.stream = sys.stderr
        asked = _tty(self.stream) if enabled is None else bool(enabled)
        self.on = asked and total > 0 and not _silent[0]
        self.t0 = time.monotonic()
        self.first = self.t0 + (DELAY if enabled is None else 0.0)
        self.last = 0.0
        self.drawn = False

    def __call__(self, k: int = 1) -> None:
        self.update(self.n + k)

    def step(self, done: int, total: int, item: str = "") -> None:
        """The callback ``progress(done, total, label)`` of :func:`sinpe.proofs.suite.run_all` and friends."""
        self.total = max(int(total), 1)
        self.update(done, item)

    def update(self, done: int, item: str = "") -> None:
        self.n, self.item = done, item or self.item
        if not self.on:
            return
        now = time.monotonic()
        if now < self.first or (now - self.last < INTERVAL and done < self.total):
            return
        self.last, self.drawn = now, True
        frac = min(done / self.total, 1.0)
        unit = f" {self.unit}" if self.unit else ""
        what = f" {self.item[:30]}" if self.item else ""
        self.stream.write(f"\r{self.label} [{'#' * int(30 * frac):<30s}] {100 * frac:5.1f}% ({done}/{self.total}{unit})"
                          f"{what} {now - self.t0:.0f}s\x1b[K")
        self.stream.flush()

    def close(self) -> None:
        if self.on and self.drawn:
            self.stream.write("\n")
            self.stream.flush()
