"""Run a user's ``module:callable`` in a child process (SPEC.md REQ-CHECK-ISOLATE).

``sinpe check`` and ``sinpe detect`` never import or call user code in their own process. A fresh
interpreter (``python -P``: the current directory is not put on ``sys.path``) confines itself first
(:mod:`.confine`: environment, capabilities, Landlock reads and writes, network), then imports NumPy and
sinpe's loaders, then the named module only: a finder serves the named module's top-level name from the
current directory and nothing else from there (a ``flint.py`` or ``numpy.py`` beside it is never imported).
The child then calls the target by :func:`sinpe.reference.checking.loaders.call_table` and hands each table
back as a ``.npy`` file read with ``allow_pickle=False``.

A :class:`Worker` is one such child for one target, serving every call of a run (the pytest plugin's
widths, a check's two calls): the import is paid once, and it is restarted only after a call failed or
timed out. :func:`call_isolated` uses the worker of the innermost :func:`run` block, or a child of its own;
:func:`shared_run` opens a run only where none is open (``check-apply``'s repeat of a failing call reaches the
child of the first).

Limits and failure modes, each one line (``LoadError``, exit 2) and never a traceback:

- a time limit per call (``timeout`` seconds, default :data:`DEFAULT_TIMEOUT`; the first call of a worker
  includes its start and the import): the child's process group is killed (:class:`CallTimeout`);
- a memory limit (``RLIMIT_AS``, :data:`DEFAULT_MEMORY` bytes) where the platform has ``resource``;
- a file-size limit (``RLIMIT_FSIZE``) per call: the result limit of the call and what it printed so far,
  plus 16 MiB (the hard limit: :data:`MAX_CALL_ENTRIES` float64, whatever the call);
- every exception the callable raises, ``BaseException`` subclasses and ``SystemExit`` included;
- every exit: ``os._exit(0)``, a signal, a crash -- the child's exit status and last stderr line are named;
- what the callable prints goes to files in a private directory: never to the report's stdout (``--json``);
  the report notes how much was printed;
- its ``os.chdir`` changes the child's directory only; positions reach it as a copy (a file), and the
  checker keeps its own; every process it starts is killed when its call returns.

>>> import numpy as np
>>> t = call_isolated("numpy:eye", np.arange(3), 2, call="n", timeout=60)   # numpy.eye(3, 2) in a child
>>> t.data.shape, t.dtype
((3, 2), 'float64')
"""
from __future__ import annotations

import errno
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from sinpe.reference.checking import confine, guard, loaders
from sinpe.reference.checking.apply.call import call_apply
from sinpe.reference.checking.loaded import Table
from sinpe.reference.checking.loaders import MAX_CALL_ENTRIES, _finish

from ..inputs import LoadError, escape, one_line

DEFAULT_TIMEOUT = 60.0          # seconds for import + call
DEFAULT_MEMORY = 4 << 30        # bytes of address space for the child (torch alone maps ~0.7 GiB)
_OUTPUT_SHOWN = 200             # characters of the child's stderr quoted in an error
_SLACK = 16 << 20               # bytes beyond the result limit a child may write (what it prints, caches)
_MAX_MESSAGE = 1 << 20          # bytes of one message from the child
_DTYPES = ("float64", "float32", "float16", "bfloat16")

# os._exit: threads or atexit handlers the callable left behind do not hold the child open
_CHILD = ("import os, sys; from sinpe.reference.checking.child import main; "
          "os._exit(main(sys.argv[1:]))")
_RUNS: list[dict[tuple[Any, ...], Worker]] = []
_LIVE: set[int] = set()         # process IDs of the workers alive in this process (spared between calls)


class CallTimeout(LoadError):
    """A call did not return within its time limit (the child was killed)."""


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
    """The table ``module:callable`` yields, computed in a child process (see the module docstring): the
    worker of the innermost :func:`run` block, or a child started and ended for this call alone."""
    if _RUNS:
        slot = (target, os.getcwd(), memory)
        worker = _RUNS[-1].setdefault(slot, Worker(target, memory))
        return worker.call(positions, d, call=call, key=key, timeout=timeout)
    worker = Worker(target, memory)
    try:
        return worker.call(positions, d, call=call, key=key, timeout=timeout)
    finally:
        worker.close()


@contextmanager
def run() -> Iterator[dict[tuple[Any, ...], Worker]]:
    """A run: every :func:`call_isolated` inside reuses one worker per (target, directory, memory limit);
    all of them are ended when the block is left."""
    workers: dict[tuple[Any, ...], Worker] = {}
    _RUNS.append(workers)
    try:
        yield workers
    finally:
        _RUNS.remove(workers)
        for w in workers.values():
            w.close()


@contextmanager
def shared_run() -> Iterator[None]:
    """The innermost :func:`run` block if one is open, else a run of this block's own: the calls inside reach one
    worker per target (REQ-CHECK-APPLY: the repeat of a failing call runs in the child of the first call)."""
    if _RUNS:
        yield
        return
    with run():
        yield


def _spawn(argv: list[str], **popen: Any) -> subprocess.Popen:
    """Start the child (one place, so that a test can see what the parent had imported by then)."""
    return subprocess.Popen(argv, **popen)


class Worker:
    """One isolated child for ``target``, started at its first call and serving every later one (each
    under its own time limit) until :meth:`close` or a failed call ends it."""

    def __init__(self, target: str, memory: int | None = DEFAULT_MEMORY) -> None:
        self.target, self.memory = target, memory
        self.proc: subprocess.Popen | None = None
        self.held: dict[str, Any] | None = None
        self.scratch, self.calls, self.started = "", 0, 0.0
        self.env: dict[str, str] = {}
        self.keep: frozenset[int] = frozenset()
        self._inbox: Any = None
        self._outbox = -1
        self._buffer = b""

    def call(self, positions: np.ndarray | None, d: int | None, *, call: str = "positions", key: str | None = None,
             timeout: float | None = None) -> Table:
        """One call (REQ-CHECK-ISOLATE); any failure ends the child, and the next call starts a new one."""
        timeout = DEFAULT_TIMEOUT if timeout is None else float(timeout)
        if not timeout > 0:
            raise LoadError(f"--timeout must be > 0 seconds; got {timeout}")
        check_request(0 if positions is None else len(positions), d, call, positions)
        guard.preload()          # REQ-CHECK-ISOLATION: nothing the child writes is imported afterwards
        guard.protect_parent()
        limit = result_limit(0 if positions is None else len(positions), d, call)
        try:
            if self.proc is None:
                self._start()
            deadline = (self.started if self.calls == 0 else time.monotonic()) + timeout
            return self._request(positions, d, call, key, limit, deadline, timeout)
        except BaseException:
            self.close()
            raise

    def _start(self) -> None:
        self.scratch = tempfile.mkdtemp(prefix="sinpe-call-")
        guard.give_to_child(self.scratch)
        self.env = guard.child_env(self.scratch)
        self.keep = _host_processes()  # the host's own children (the API in a long process)
        ctl_r, ctl_w = os.pipe()
        res_r, res_w = os.pipe()
        plan = confine.plan(guard.landlock_abi())
        out = open(os.path.join(self.scratch, "stdout"), "wb")
        err = open(os.path.join(self.scratch, "stderr"), "wb")
        self.started, self.calls = time.monotonic(), 0
        try:
            self.proc = _spawn([sys.executable, "-P", "-c", _CHILD, self.scratch, str(ctl_r), str(res_w)],
                               stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=os.getcwd(),
                               start_new_session=True, env=self.env, pass_fds=(ctl_r, res_w),
                               preexec_fn=_before_exec(plan, self.memory) if os.name == "posix" else None)
        except (OSError, subprocess.SubprocessError) as e:
            os.close(ctl_w)
            os.close(res_r)
            raise LoadError(f"the child for {self.target} could not be started ({one_line(e)}); nothing was run") from None
        finally:
            out.close()
            err.close()
            os.close(ctl_r)
            os.close(res_w)
        _LIVE.add(self.proc.pid)
        self._inbox, self._outbox, self._buffer = os.fdopen(ctl_w, "w", encoding="utf-8"), res_r, b""
        self._send({"target": self.target, "cwd": os.getcwd(), "plan": plan})

    def _send(self, obj: dict[str, Any]) -> None:
        try:
            self._inbox.write(json.dumps(obj) + "\n")
            self._inbox.flush()
        except (OSError, ValueError):
            pass  # the child is gone: its end is read from the other pipe

    def _receive(self, deadline: float, timeout: float) -> dict[str, Any] | None:
        """The child's next message; None when it closed its end (ended) or broke the protocol."""
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._outbox], [], [], left)[0]:
                raise CallTimeout(f"{self.target} did not return within {timeout:g} s (--timeout); the call was killed")
            chunk = os.read(self._outbox, 1 << 16)
            if not chunk or len(self._buffer) > _MAX_MESSAGE:
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            msg = json.loads(line)
        except ValueError:
            return None
        return msg if isinstance(msg, dict) else None

    def _request(self, positions: np.ndarray | None, d: int | None, call: str, key: str | None, limit: int,
                 deadline: float, timeout: float) -> Table:
        self.calls += 1
        self.keep = _host_processes()
        where = os.path.join(self.scratch, f"call-{self.calls}")
        os.mkdir(where)
        guard.give_to_child(where)
        if positions is not None:
            np.save(os.path.join(where, "positions.npy"), np.array(positions, copy=True), allow_pickle=False)
        printed = self._printed()
        self._send({"n": self.calls, "dir": where, "d": d, "call": call, "key": key, "limit": limit,
                    "positions": positions is not None, "slack": _SLACK})
        if self.held is None:
            self.held = self._ready(deadline, timeout)
        msg = self._receive(deadline, timeout)
        if msg is None or msg.get("n") != self.calls:
            raise self._ended(msg is None)
        table = _collect(where, self.target, limit)
        guard.kill_descendants(self.keep, frozenset(_LIVE))  # what the call started; the workers stay
        if self._printed() > printed:
            table.notes.append(f"the callable printed {self._printed() - printed} bytes (captured, not shown)")
        table.notes.append(f"isolation: {guard.protection(self.held, sorted(self.env))}")
        shutil.rmtree(where, ignore_errors=True)
        return _finish(table)

    def _ready(self, deadline: float, timeout: float) -> dict[str, Any]:
        msg = self._receive(deadline, timeout)
        if msg is None:
            raise self._ended(True)
        if "confine_error" in msg or not isinstance(msg.get("held"), dict):
            raise LoadError(f"the child could not be confined ({escape(str(msg.get('confine_error')))[:300]}); "
                            f"nothing was run")
        return msg["held"]

    def _printed(self) -> int:
        return sum(os.path.getsize(os.path.join(self.scratch, s)) for s in ("stdout", "stderr"))

    def _ended(self, closed: bool) -> LoadError:
        """How the child ended before answering: its channel ``closed`` (it is given a moment to exit), or a
        message that is not the answer to this call (it is killed at once)."""
        assert self.proc is not None
        try:
            status = self.proc.wait(timeout=2 if closed else 0)
        except subprocess.TimeoutExpired:
            return LoadError(f"{self.target} broke the call protocol (closed or garbled its channel to sinpe); "
                             f"the child was killed")
        return _ended(self.target, self.scratch, status)

    def close(self) -> None:
        """End the child, everything it started, and its scratch directory."""
        if self.proc is not None:
            _LIVE.discard(self.proc.pid)
            _kill_group(self.proc)
            self.proc.wait()
            guard.kill_descendants(self.keep, frozenset(_LIVE))
            self.proc = None
        try:
            if self._inbox is not None:
                self._inbox.close()
        except OSError:
            pass
        if self._outbox >= 0:
            os.close(self._outbox)
        self._inbox, self._outbox, self.held = None, -1, None
        if self.scratch:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = ""


def _host_processes() -> frozenset[int]:
    """Every process below this one that is not a live worker or below one: the host's own, never killed."""
    me = os.getpid()
    below = guard.descendants(me)
    for pid in _LIVE:
        below -= guard.descendants(pid) | {pid}
    return frozenset(below)


def _before_exec(plan: dict[str, Any], memory: int | None) -> Any:
    """The child's limits and its confinement before exec (:func:`confine.before_exec`)."""
    libc = confine.load_libc() if sys.platform.startswith("linux") else None
    fsize = MAX_CALL_ENTRIES * 8 + _SLACK

    def limits() -> None:  # in the child, before exec
        try:
            import resource
            if memory:
                resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))  # lowered per call by the child
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        except (ImportError, ValueError, OSError):
            pass
        if libc is not None:
            confine.before_exec(plan, libc)
    return limits


def result_limit(rows: int, d: int | None, call: str) -> int:
    """Bytes of the table a call may hand back: four float64 tables of the size asked for (a buffer,
    whose size nobody asked: :data:`MAX_CALL_ENTRIES` float64), at least 1 MiB."""
    if call == "buffer" or d is None or (call == "forward" and rows == 0):  # its own length (loaders.module_length)
        return MAX_CALL_ENTRIES * 8
    return min(MAX_CALL_ENTRIES * 8, max(1 << 20, 4 * 8 * rows * d))


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


def _collect(where: str, target: str, limit: int) -> Table:
    """The table of the call whose files are in ``where``, or a one-line LoadError saying why not."""
    res_path = os.path.join(where, "result.json")
    if not os.path.isfile(res_path) or os.path.islink(res_path):
        raise LoadError(f"{target}: the call returned no table")
    res = _report(res_path, target)
    if "error" in res:
        raise LoadError(escape(str(res["error"]))[:2000])
    data = read_result(os.path.join(where, "result.npy"), target, limit)
    notes = [escape(str(n))[:500] for n in res.get("notes", [])][:20]
    dtype = str(res.get("dtype", ""))
    return Table(data, dtype if dtype in _DTYPES else "", escape(str(res.get("source", target)))[:500], notes)


def _report(path: str, target: str) -> dict[str, Any]:
    """The child's result.json: an object of at most 1 MiB."""
    try:
        if os.path.getsize(path) > 1 << 20:
            raise LoadError(f"{target}: the call's report is too large")
        with open(path, encoding="utf-8") as fh:
            res = json.load(fh)
    except (OSError, ValueError, RecursionError) as e:
        raise LoadError(f"{target}: unreadable result ({one_line(e)})") from None
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
            raise LoadError(f"{target}: unreadable result ({one_line(e)})") from None
        nbytes = int(np.prod(shape, dtype=object)) * dtype.itemsize
        if dtype.hasobject or dtype.kind not in "fiub" or nbytes != size - fh.tell():
            raise LoadError(f"{target}: unreadable result (header {shape} {dtype} does not match its {size} bytes)")
        a = np.empty(shape, dtype=dtype, order="F" if fortran else "C")
        if fh.readinto(a.reshape(-1, order="A").data.cast("B")) != nbytes:
            raise LoadError(f"{target}: unreadable result (truncated)")
    return a


# --- the child -----------------------------------------------------------------------------------

def serve(target: str, scratch: str, inbox: Any, outbox: Any) -> int:
    """The confined child's loop (:func:`sinpe.reference.checking.child.main`): one request a line, answered once its files
    are written; the named module is imported at the first call."""
    found: list[Any] = []
    for line in inbox:
        req = json.loads(line)
        _reap_children()
        _limit_files(int(req["limit"]) + int(req["slack"]))
        _answer(loaders, target, found, req)
        for stream in (sys.stdout, sys.stderr):  # what it printed is counted per call
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        outbox.write(json.dumps({"n": req["n"]}) + "\n")
        outbox.flush()
    return 0


def _answer(loaders: Any, target: str, found: list[Any], req: dict[str, Any]) -> None:
    """Call the target for one request; its table, or its error, written to the request's directory."""
    where = req["dir"]
    try:
        positions = np.load(os.path.join(where, "positions.npy"), allow_pickle=False) if req["positions"] else None
        if not found:
            found.append(loaders.resolve_callable(target))  # the named module only (REQ-CHECK-INPUT)
        if req["call"] == "apply" and positions is not None and req["key"] is not None:  # REQ-CHECK-APPLY
            table = call_apply(found[0], target, positions, req["key"])  # a rotary application
        else:
            table = loaders.call_table(found[0], target, positions, req["d"], call=req["call"], key=req["key"])
        a = np.asarray(table.data)
        if a.dtype.hasobject:
            raise LoadError(f"{target}: returned an object array; expected numbers")
        if a.nbytes > req["limit"]:
            raise LoadError(f"{target}: returned a table of {a.nbytes} bytes (shape {a.shape}); at most "
                            f"{req['limit']} for this request")
        np.save(os.path.join(where, "result.npy"), a, allow_pickle=False)
        _write(where, {"dtype": table.dtype, "source": table.source, "notes": table.notes})
    except LoadError as e:
        _write(where, {"error": str(e)})
    except OSError as e:
        big = getattr(e, "errno", None) == errno.EFBIG
        _write(where, {"error": f"{target} " + ("wrote more than the file-size limit (its result and what it "
                       "printed; RLIMIT_FSIZE)" if big else f"raised {type(e).__name__}: {one_line(e)}")})
    except BaseException as e:  # noqa: B036 -- anything else the user's code did is still one line
        _write(where, {"error": f"{target} raised {type(e).__name__}: {one_line(e)}"})


def _limit_files(limit: int) -> None:
    """This call's file-size limit: its result and what it may print, beyond what was printed before."""
    try:
        import resource
        printed = max(os.fstat(fd).st_size for fd in (1, 2))
        hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
        soft = printed + limit
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))
    except (ImportError, ValueError, OSError):
        pass


def _reap_children() -> None:
    """Reap what the parent killed of the previous call's processes (zombies of this child)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass


def _write(work: str, obj: dict[str, Any]) -> None:
    tmp = os.path.join(work, "result.json.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(obj, fh)
    os.replace(tmp, os.path.join(work, "result.json"))
