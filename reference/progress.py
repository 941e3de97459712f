"""The one progress bar of sinpe's long commands (check, golden, table, certify): one line on stderr, drawn
only when stderr is a terminal (or when asked), at most five times a second, with the elapsed seconds.

>>> bar = Progress(4, "demo", enabled=False)
>>> bar(); bar(2); bar.n
3
>>> bar.update(4); bar.n, bar.close()
(4, None)
"""
from __future__ import annotations

import sys
import time


class Progress:
    """``bar(k)`` advances by k, ``bar.update(n)`` sets the count, ``bar.close()`` ends the line."""

    def __init__(self, total: int, label: str, enabled: bool | None = None, unit: str = "") -> None:
        self.total, self.label, self.unit, self.n = max(int(total), 1), label, unit, 0
        self.on = (sys.stderr.isatty() if enabled is None else bool(enabled)) and total > 0
        self.t0 = time.monotonic()
        self.last = 0.0

    def __call__(self, k: int = 1) -> None:
        self.update(self.n + k)

    def update(self, done: int) -> None:
        self.n = done
        if not self.on:
            return
        now = time.monotonic()
        if now - self.last < 0.2 and done < self.total:
            return
        self.last = now
        frac = min(done / self.total, 1.0)
        unit = f" {self.unit}" if self.unit else ""
        sys.stderr.write(f"\r{self.label} [{'#' * int(30 * frac):<30s}] {100 * frac:5.1f}% ({done}/{self.total}{unit}) "
                         f"{now - self.t0:.0f}s")
        sys.stderr.flush()

    def close(self) -> None:
        if self.on:
            sys.stderr.write("\n")
            sys.stderr.flush()
