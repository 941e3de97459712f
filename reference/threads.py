"""The one thread pool of sinpe's NumPy work (exact tables, the check's streamed pass, detect's precision
fingerprint): NumPy releases the GIL inside its loops, so a few threads share the cores.

Two things a bare :class:`concurrent.futures.ThreadPoolExecutor` gets wrong here, both kept by :class:`Pool`:

- NumPy's floating-point error state (``np.errstate``) is per thread: a worker starts with NumPy's defaults, so
  work the caller runs under ``np.errstate(all="ignore")`` warned in the worker (an error under ``-W error``).
  Each job runs under the error state of the thread that made the pool.
- After the interpreter has begun to shut down (an ``atexit`` handler) no thread can be started: ``submit``
  raised ``RuntimeError``. The job then runs in the caller's thread: the same result, one core.

>>> import numpy as np
>>> with np.errstate(over="ignore"), Pool(2) as pool:
...     list(pool.map(lambda x: float(np.float32(x) * np.float32(x)), [2.0, 1e30]))
[4.0, inf]
>>> with Pool(1) as pool:
...     pool.submit(sum, [1, 2]).result()
3
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np


class Pool:
    """``workers`` threads (none when 1: every job runs in the caller's thread), as a context manager."""

    def __init__(self, workers: int) -> None:
        self._err = np.geterr()
        self._ex = ThreadPoolExecutor(max_workers=workers) if workers > 1 else None

    def _run(self, fn: Callable[..., Any], *args: Any) -> Any:
        with np.errstate(**self._err):
            return fn(*args)

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        """``fn(*args)`` on a worker (in the caller's thread when there is none or none can start)."""
        if self._ex is not None:
            try:
                return self._ex.submit(self._run, fn, *args)
            except RuntimeError:  # the interpreter is shutting down: no new thread
                pass
        done: Future[Any] = Future()
        try:
            done.set_result(self._run(fn, *args))
        except BaseException as e:
            done.set_exception(e)
        return done

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        """``fn`` of every item, results in the items' order (all submitted at once)."""
        futures = [self.submit(fn, x) for x in items]
        return (f.result() for f in futures)

    def close(self) -> None:
        """Wait for the running jobs; the queued ones are cancelled."""
        if self._ex is not None:
            self._ex.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
