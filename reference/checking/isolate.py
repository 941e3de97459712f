"""Run a user's ``module:callable`` in a child process (SPEC.md REQ-CHECK-ISOLATE).

``sinpe check`` and ``sinpe detect`` never import or call user code in their own process. A fresh
interpreter (``python -P``: the current directory is not put on ``sys.path``) imports NumPy and
sinpe's loaders first, then the named module only: a finder serves the named module's top-level name
from the current directory and nothing else from there (a ``flint.py`` or ``numpy.py`` beside it is
never imported). The child then calls the target by :func:`sinpe.reference.checking.loaders.call_table`
and hands the table back as a ``.npy`` file read with ``allow_pickle=False`` (memory-mapped).

Limits and failure modes, each one line (``LoadError``, exit 2) and never a traceback:

- a time limit (``timeout`` seconds, default :data:`DEFAULT_TIMEOUT`): the child's process group is killed;
- a memory limit (``RLIMIT_AS``, :data:`DEFAULT_MEMORY` bytes) where the platform has ``resource``;
- every exception the callable raises, ``BaseException`` subclasses and ``SystemExit`` included;
- every exit: ``os._exit(0)``, a signal, a crash -- the child's exit status and last stderr line are named;
- what the callable prints goes to files in a private directory: never to the report's stdout (``--json``);
  the report notes how much was printed;
- its ``os.chdir`` changes the child's directory only; positions reach it as a copy (a file), and the
  checker keeps its own.

>>> import numpy as np
>>> t = call_isolated("numpy:eye", np.arange(3), 2, call="n", timeout=60)   # numpy.eye(3, 2) in a child
>>> t.data.shape, t.dtype
((3, 2), 'float64')
"""
from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any

import numpy as np

from sinpe.reference.checking import guard
from sinpe.reference.checking.loaders import LoadError, Table, _finish, escape, _short

DEFAULT_TIMEOUT = 60.0          # seconds for import + call
DEFAULT_MEMORY = 4 << 30        # bytes of address space for the child (torch alone maps ~0.7 GiB)
MAX_CALL_ENTRIES = 1 << 27      # rows x d a callable may be asked for (1 GiB of float64)
_OUTPUT_SHOWN = 200             # characters of the child's stderr quoted in an error
_SLACK = 16 << 20               # bytes beyond the result limit a child may write (what it prints, caches)
_DTYPES = ("float64", "float32", "float16", "bfloat16")

# os._exit: threads or atexit handlers the callable left behind do not hold the child open
_CHILD = "import os, sys; from sinpe.reference.checking.isolate import _child; os._exit(_child(sys.argv[1]))"


def check_request(n_positions: int, d: int | None, call: str, positions: np.ndarray | None) -> None:
    """Refuse, before anything runs, a call whose table would exceed :data:`MAX_CALL_ENTRIES`."""
    if d is None or positions is None or call == "buffer":
        return
    rows = n_positions
    if call == "n" and positions.size:
        rows = int(np.max(positions)) + 1 if np.all(np.isfinite(positions)) else rows
    if rows * d > MAX_CALL_ENTRIES:
        raise LoadError(f"asking for {rows} rows x d={d} = {rows * d} entries; the limit for a callable is "
                        f"{MAX_CALL_ENTRIES} (pass fewer --positions or a smaller --d)")


def call_isolated(target: str, positions: np.ndarray | None, d: int | None, *, call: str = "positions",
                  key: str | None = None, timeout: float | None = None, memory: int | None = DEFAULT_MEMORY) -> Table:
    """The table ``module:callable`` yields, computed in a child process (see the module docstring)."""
    timeout = DEFAULT_TIMEOUT if timeout is None else float(timeout)
    if not timeout > 0:
        raise LoadError(f"--timeout must be > 0 seconds; got {timeout}")
    check_request(0 if positions is None else len(positions), d, call, positions)
    guard.preload()          # REQ-CHECK-ISOLATION: nothing the child writes is imported afterwards
    guard.protect_parent()
    limit = result_limit(0 if positions is None else len(positions), d, call)
    work = tempfile.mkdtemp(prefix="sinpe-call-")
    try:
        req = {"target": target, "d": d, "call": call, "key": key, "positions": positions is not None,
               "cwd": os.getcwd(), "limit": limit, "confine": guard.landlock_abi()}
        if positions is not None:
            np.save(os.path.join(work, "positions.npy"), np.array(positions, copy=True), allow_pickle=False)
        with open(os.path.join(work, "request.json"), "w", encoding="utf-8") as fh:
            json.dump(req, fh)
        status, seconds = _spawn(work, timeout, memory, limit + _SLACK)
        return _collect(work, target, status, seconds, timeout, limit)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def result_limit(rows: int, d: int | None, call: str) -> int:
    """Bytes of the table a call may hand back: four float64 tables of the size asked for (a buffer,
    whose size nobody asked: :data:`MAX_CALL_ENTRIES` float64), at least 1 MiB."""
    if call == "buffer" or d is None:
        return MAX_CALL_ENTRIES * 8
    return min(MAX_CALL_ENTRIES * 8, max(1 << 20, 4 * 8 * rows * d))


def _spawn(work: str, timeout: float, memory: int | None, fsize: int) -> tuple[int | None, float]:
    """Run the child; its exit status (None: killed at the time limit) and its wall time. Every
    process it leaves is killed before this returns (REQ-CHECK-ISOLATION)."""
    def limits() -> None:  # in the child, before exec
        try:
            import resource
            if memory:
                resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))  # result and captured output
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        except (ImportError, ValueError, OSError):
            pass

    prefix, env = guard.identity(work)
    keep = frozenset(guard.descendants(os.getpid()))  # the host's own children (the API in a long process)
    out = open(os.path.join(work, "stdout"), "wb")
    err = open(os.path.join(work, "stderr"), "wb")
    t0 = time.monotonic()
    try:
        proc = subprocess.Popen([*prefix, sys.executable, "-P", "-c", _CHILD, work], stdin=subprocess.DEVNULL,
                                stdout=out, stderr=err, cwd=os.getcwd(), start_new_session=True, env=env,
                                preexec_fn=limits if os.name == "posix" else None)
        try:
            status: int | None = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            status = None
        finally:  # a timeout, Ctrl-C or SIGTERM in the parent: the child and all it started go too
            _kill_group(proc)
            proc.wait()
            guard.kill_descendants(keep)
    finally:
        out.close()
        err.close()
    return status, time.monotonic() - t0


def _kill_group(proc: subprocess.Popen) -> None:
    for kill in (lambda: os.killpg(proc.pid, signal.SIGKILL), proc.kill):
        try:
            kill()
        except (ProcessLookupError, PermissionError, AttributeError, OSError):
            pass


def _tail(path: str) -> str:
    """The last non-empty line of a captured stream, escaped and cut short."""
    try:
        with open(path, "rb") as fh:
            fh.seek(max(0, os.path.getsize(path) - 4096))
            lines = [ln for ln in fh.read().decode("utf-8", "replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    return escape(lines[-1])[:_OUTPUT_SHOWN] if lines else ""


def _ended(target: str, work: str, status: int) -> LoadError:
    last = _tail(os.path.join(work, "stderr"))
    if status == -signal.SIGXFSZ:
        how = "wrote more than the file-size limit (its result and what it printed) and was killed"
    elif status < 0 and -status in signal.Signals._value2member_map_:
        how = f"was killed by signal {signal.Signals(-status).name}"
    else:
        how = f"ended the process (exit status {status})"
    return LoadError(f"{target} {how} before returning a table" + (f"; last stderr line: {last}" if last else ""))


def _collect(work: str, target: str, status: int | None, seconds: float, timeout: float, limit: int) -> Table:
    """The child's table, or a one-line LoadError saying how it ended."""
    if status is None:
        raise LoadError(f"{target} did not return within {timeout:g} s (--timeout); the call was killed")
    res_path = os.path.join(work, "result.json")
    if not os.path.isfile(res_path) or os.path.islink(res_path):
        raise _ended(target, work, status)
    res = _report(res_path, target)
    if "error" in res:
        raise LoadError(escape(str(res["error"]))[:2000])
    data = read_result(os.path.join(work, "result.npy"), target, limit)
    notes = [escape(str(n))[:500] for n in res.get("notes", [])][:20]
    printed = sum(os.path.getsize(os.path.join(work, s)) for s in ("stdout", "stderr"))
    if printed:
        notes.append(f"the callable printed {printed} bytes (captured, not shown)")
    notes.append(f"isolation: {guard.protection()}")
    dtype = str(res.get("dtype", ""))
    t = Table(data, dtype if dtype in _DTYPES else "", escape(str(res.get("source", target)))[:500], notes)
    return _finish(t)


def _report(path: str, target: str) -> dict[str, Any]:
    """The child's result.json: an object of at most 1 MiB."""
    try:
        if os.path.getsize(path) > 1 << 20:
            raise LoadError(f"{target}: the call's report is too large")
        with open(path, encoding="utf-8") as fh:
            res = json.load(fh)
    except (OSError, ValueError, RecursionError) as e:
        raise LoadError(f"{target}: unreadable result ({_short(e)})") from None
    if not isinstance(res, dict) or not isinstance(res.get("notes", []), list):
        raise LoadError(f"{target}: unreadable result (not a report object)")
    return res


def read_result(path: str, target: str, limit: int) -> np.ndarray:
    """The child's ``.npy``: a regular file of at most ``limit`` bytes whose header (a float array,
    no pickle) matches its size, read whole with plain reads (no memory map: nothing can truncate it
    under the checker)."""
    from numpy.lib import format as npf
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)) if os.path.exists(path) else -1
    if fd < 0:
        raise LoadError(f"{target}: the call returned no table")
    with os.fdopen(fd, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > limit + 4096:
            raise LoadError(f"{target}: returned a table of {size} bytes; at most {limit} for this request")
        try:
            version = npf.read_magic(fh)
            read = {(1, 0): npf.read_array_header_1_0, (2, 0): npf.read_array_header_2_0}[version]
            shape, fortran, dtype = read(fh)
        except Exception as e:
            raise LoadError(f"{target}: unreadable result ({_short(e)})") from None
        nbytes = int(np.prod(shape, dtype=object)) * dtype.itemsize
        if dtype.hasobject or dtype.kind not in "fiub" or nbytes != size - fh.tell():
            raise LoadError(f"{target}: unreadable result (header {shape} {dtype} does not match its {size} bytes)")
        a = np.empty(shape, dtype=dtype, order="F" if fortran else "C")
        if fh.readinto(memoryview(a.reshape(-1, order="A")).cast("B")) != nbytes:
            raise LoadError(f"{target}: unreadable result (truncated)")
    return a


# --- the child -----------------------------------------------------------------------------------

def _child(work: str) -> int:
    """Entry point of the child process: import the named module, call it, write the table."""
    # sinpe's own imports first (python -P: nothing from the current directory is importable yet)
    from sinpe.reference.checking import loaders
    guard.pdeathsig()
    req: dict[str, Any] = {}
    try:
        with open(os.path.join(work, "request.json"), encoding="utf-8") as fh:
            req = json.load(fh)
        positions = np.load(os.path.join(work, "positions.npy"), allow_pickle=False) if req["positions"] else None
        target = req["target"]
        _confine(work, int(req.get("confine", 0)))
        os.chdir(req["cwd"])
        obj = loaders.resolve_callable(target)  # the named module only (REQ-CHECK-INPUT)
        table = loaders.call_table(obj, target, positions, req["d"], call=req["call"], key=req["key"])
        a = np.asarray(table.data)
        if a.dtype.hasobject:
            raise LoadError(f"{target}: returned an object array; expected numbers")
        if a.nbytes > req["limit"]:
            raise LoadError(f"{target}: returned a table of {a.nbytes} bytes (shape {a.shape}); at most "
                            f"{req['limit']} for this request")
        np.save(os.path.join(work, "result.npy"), a, allow_pickle=False)
        _write(work, {"dtype": table.dtype, "source": table.source, "notes": table.notes})
    except LoadError as e:
        _write(work, {"error": str(e)})
    except OSError as e:
        big = getattr(e, "errno", None) == errno.EFBIG
        _write(work, {"error": f"{req.get('target', '?')} " + ("wrote more than the file-size limit (its result and "
                      "what it printed; RLIMIT_FSIZE)" if big else f"raised {type(e).__name__}: {_short(e)}")})
    except BaseException as e:  # noqa: B036 -- anything else the user's code did is still one line
        _write(work, {"error": f"{req.get('target', '?')} raised {type(e).__name__}: {_short(e)}"})
    return 0


def _confine(work: str, abi: int) -> None:
    """Landlock before the user's module is imported (guard.confine); refusing it runs nothing."""
    if abi:
        try:
            guard.confine(work, abi)
        except OSError as e:
            raise LoadError(f"the child could not be confined (Landlock ABI {abi}: {_short(e)}); nothing was run") \
                from None


def _write(work: str, obj: dict[str, Any]) -> None:
    tmp = os.path.join(work, "result.json.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(obj, fh)
    os.replace(tmp, os.path.join(work, "result.json"))
