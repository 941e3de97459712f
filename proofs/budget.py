"""Time budgets of proof steps (SPEC.md REQ-PROVE-BUDGET): a step that runs out fails its theorem, never hangs.

:func:`budget` arms a real-time timer (``signal.setitimer``) for the code inside it; when it fires,
:class:`OutOfTime` is raised there. OutOfTime derives from BaseException, so a procedure's own
``except Exception`` cannot swallow it. Budgets nest: the innermost deadline that comes first fires.
Signals reach only the main thread: elsewhere (or on a platform without ``setitimer``) the block runs
without a budget, and :func:`enforced` says so.

>>> import time
>>> try:
...     with budget(0.05):
...         while True:
...             time.sleep(0.01)
... except OutOfTime as e:
...     print("out of time:", e)
out of time: ran past its time budget of 0.05 s
"""
from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

BUDGET_MESSAGE = "ran past its time budget"


class OutOfTime(BaseException):
    """A proof step ran past its time budget."""


_deadlines: list[tuple[float, float]] = []  # (deadline, seconds) of the budgets entered, innermost last


def enforced() -> bool:
    """Whether budgets are enforced here (the main thread, a platform with ``setitimer``)."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _fire(signum: int, frame: object) -> None:
    now = time.monotonic()
    due = [s for t, s in _deadlines if t <= now]
    raise OutOfTime(f"{BUDGET_MESSAGE} of {min(due) if due else _deadlines[-1][1]:g} s")


def _arm() -> None:
    if not _deadlines:
        signal.setitimer(signal.ITIMER_REAL, 0)
        return
    left = min(t for t, _ in _deadlines) - time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, max(left, 1e-4))


@contextmanager
def budget(seconds: float) -> Iterator[None]:
    """Run the block for at most ``seconds`` (raising :class:`OutOfTime` in it when the time is up)."""
    if not enforced():
        yield
        return
    outer = signal.signal(signal.SIGALRM, _fire) if not _deadlines else None
    _deadlines.append((time.monotonic() + seconds, seconds))
    _arm()
    try:
        yield
    finally:
        _deadlines.pop()
        _arm()
        if outer is not None:
            signal.signal(signal.SIGALRM, outer)
