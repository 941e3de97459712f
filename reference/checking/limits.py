"""Cheap checks of a check's parameters before any expensive work (SPEC.md REQ-CHECK-LIMITS).

The checker computes its reference in binary64 (:mod:`sinpe.reference.oracles.fast`) and decides
close calls with Arb: a parameter beyond binary64's range would make that reference non-finite, and a
report against it would be a false pass. Such a profile is refused up front, naming the flag.

>>> from sinpe.spec.profiles import get_profile
>>> binary64_parameters(get_profile("vaswani", phase_scale="1e309"))
Traceback (most recent call last):
...
ValueError: --phase-scale 1e+309 is beyond binary64 (|x| < 2^1024); the checker's reference would not be finite
>>> binary64_parameters(get_profile("vaswani", base="1e4"))
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

from sinpe.spec.profiles import Profile

_FLAGS = {"base": "--base", "phase_scale": "--phase-scale", "amplitude": "--amplitude", "offset": "--offset",
          "shift": "--shift"}
_LIMIT = Fraction(2) ** 1024


def binary64_parameters(profile: Profile) -> None:
    """ValueError (one line, the flag named) when a parameter's magnitude is not below 2^1024."""
    for field, flag in _FLAGS.items():
        v = getattr(profile, field)
        if v is not None and abs(v) >= _LIMIT:
            raise ValueError(f"{flag} {_short(v)} is beyond binary64 (|x| < 2^1024); the checker's reference "
                             f"would not be finite")


def _short(v: Fraction) -> str:
    """A short decimal for a huge rational: 1e+309."""
    import math
    e = math.floor(math.log10(abs(v.numerator)) - math.log10(v.denominator))
    m = v / Fraction(10) ** e
    return f"{'-' if v < 0 else ''}{float(abs(m)):g}e+{e}"


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
