"""Bounded computations (SPEC.md REQ-CHECK-ISOLATION: ``sinpe prove --claim``): :func:`run_limited` runs a
function in a forked child under a memory and a wall-clock limit; running out of either is :class:`Undecided`
(exit 3), never a verdict. (A profile's parameters are checked finite in binary64 below checking/:
:mod:`sinpe.reference.numerics.binary64`.)
"""
from __future__ import annotations

from typing import Any


class Undecided(Exception):
    """A bounded computation ran out of its time or memory (the caller reports "unknown", exit 3)."""


def run_limited(fn: Any, args: tuple, timeout: float, memory: int | None = 4 << 30) -> Any:
    """``fn(*args)`` (a JSON-able result) in a forked child with ``RLIMIT_AS = memory`` and a wall-clock
    limit; :class:`Undecided` when either runs out; an exception of ``fn`` comes back as ``ValueError``
    (its class a ``ValueError``) or :class:`Undecided` (anything else: never a verdict). Where the
    platform cannot fork, ``fn`` runs here without limits."""
    import json
    import os
    import select
    import signal
    import time
    if not hasattr(os, "fork"):
        return fn(*args)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, write one JSON line, leave without cleanup
        os.close(r)
        os._exit(_limited_child(fn, args, w, memory))
    os.close(w)
    chunks, end = [], time.monotonic() + timeout
    try:
        while (left := end - time.monotonic()) > 0 and select.select([r], [], [], left)[0]:
            b = os.read(r, 1 << 16)
            if not b:
                break
            chunks.append(b)
    finally:
        os.close(r)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
    if time.monotonic() >= end and not chunks:
        raise Undecided(f"time limit ({timeout:g} s, --timeout)")
    try:
        out = json.loads(b"".join(chunks))
    except ValueError:
        raise Undecided(f"memory limit ({(memory or 0) >> 20} MiB) or a crash") from None
    if "value" in out:
        return out["value"]
    if out.get("input"):
        raise ValueError(out["error"])
    raise Undecided(out["error"])


def _limited_child(fn: Any, args: tuple, w: int, memory: int | None) -> int:
    import json
    import os
    try:
        import resource
        if memory:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    except (ImportError, ValueError, OSError):
        pass
    try:
        out = {"value": fn(*args)}
    except ValueError as e:
        out = {"input": True, "error": str(e)}
    except MemoryError:
        out = {"error": f"memory limit ({(memory or 0) >> 20} MiB)"}
    except RecursionError:
        out = {"error": "recursion limit (the expression is nested too deeply to decide)"}
    except BaseException as e:  # noqa: B036 -- an internal failure is never a verdict
        out = {"error": f"internal error: {type(e).__name__}: {str(e)[:200]}"}
    data = json.dumps(out).encode()
    while data:
        data = data[os.write(w, data):]
    return 0
