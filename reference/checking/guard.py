"""What keeps the code under test away from the verdict (SPEC.md REQ-CHECK-ISOLATION).

Used by :mod:`sinpe.reference.checking.isolate` around every child that runs user code:

- :func:`preload` imports, before the child starts, every sinpe module the verdict is computed and
  reported with: nothing the child changes on disk is imported afterwards;
- :func:`protect_parent`: on Linux the parent becomes a *child subreaper* (``PR_SET_CHILD_SUBREAPER``:
  a grandchild that double-forks or calls ``setsid`` is re-parented to sinpe, never to init) and
  non-dumpable (``PR_SET_DUMPABLE 0``: a process of the same user cannot open ``/proc/<pid>/fd/1``);
- :func:`identity`: run as root, the child is dropped to ``nobody`` (``setpriv``, keeping only
  ``CAP_DAC_READ_SEARCH`` to read the user's module; no write access to sinpe's files or the parent);
- :func:`kill_descendants`: every process the child left, found by ``/proc``, is killed and reaped.

>>> protection()[:10] in ("child subr", "none (not")
True
"""
from __future__ import annotations

import importlib
import os
import pkgutil
import shutil
import signal

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 1, 4, 36
NOBODY = 65534
# every package whose modules compute or print a verdict (imported before any user code runs)
VERDICT_PACKAGES = ("sinpe.spec", "sinpe.reference.checking", "sinpe.reference.oracles", "sinpe.reference.numerics",
                    "sinpe.reference.tables", "sinpe.reference.implementations")
_state = {"preloaded": False, "reaper": False}


def _prctl(option: int, value: int) -> bool:
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def preload() -> None:
    """Import every module of :data:`VERDICT_PACKAGES` (and what they import) once, before a child runs."""
    if _state["preloaded"]:
        return
    for name in VERDICT_PACKAGES:
        pkg = importlib.import_module(name)
        for info in pkgutil.walk_packages(pkg.__path__, name + "."):
            try:
                importlib.import_module(info.name)
            except ImportError:  # an optional dependency (torch, safetensors) that is not installed
                pass
    import xml.sax.saxutils  # noqa: F401  (the JUnit writer)
    _state["preloaded"] = True


def protect_parent() -> None:
    """Subreaper and non-dumpable (Linux); a no-op elsewhere."""
    if not _state["reaper"] and os.path.isdir("/proc/self"):
        _state["reaper"] = _prctl(PR_SET_CHILD_SUBREAPER, 1)
        _prctl(PR_SET_DUMPABLE, 0)


def drops_identity() -> bool:
    """Whether the child runs as ``nobody``: the parent is root and ``setpriv`` is installed."""
    return hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("setpriv") is not None


def identity(work: str) -> tuple[list[str], dict[str, str]]:
    """(command prefix, environment) of the child; as root the scratch dir is handed to ``nobody``."""
    env = dict(os.environ)
    if not drops_identity():
        return [], env
    os.chown(work, NOBODY, NOBODY)
    env.update(HOME=work, TMPDIR=work)
    caps = "-all,+dac_read_search"
    return [shutil.which("setpriv") or "setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
            f"--inh-caps={caps}", f"--ambient-caps={caps}", "--no-new-privs"], env


def protection() -> str:
    """The protections in effect, in words (the report notes it)."""
    parts = []
    if _state["reaper"] or (not _state["preloaded"] and os.path.isdir("/proc/self")):
        parts.append("child subreaper (every descendant killed at the end)")
    if drops_identity():
        parts.append("child run as uid 65534 (no write access to sinpe or its parent)")
    elif os.path.isdir("/proc/self"):
        parts.append("parent not dumpable (its /proc entries closed to the child)")
    return "; ".join(parts) or "none (not Linux: only the time and memory limits)"


def _parents() -> dict[int, int]:
    out = {}
    for e in os.listdir("/proc"):
        if e.isdigit():
            try:
                with open(f"/proc/{e}/stat", "rb") as fh:
                    out[int(e)] = int(fh.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    return out


def descendants(root: int, keep: frozenset[int] = frozenset()) -> set[int]:
    """Every live process below ``root`` except the subtrees rooted at ``keep``."""
    if not os.path.isdir("/proc"):
        return set()
    kids: dict[int, list[int]] = {}
    for pid, ppid in _parents().items():
        kids.setdefault(ppid, []).append(pid)
    out, todo = set(), [p for p in kids.get(root, []) if p not in keep]
    while todo:
        p = todo.pop()
        if p not in out:
            out.add(p)
            todo.extend(kids.get(p, []))
    return out


def kill_descendants(keep: frozenset[int]) -> None:
    """SIGKILL every descendant of this process outside ``keep`` and reap those re-parented to it."""
    me = os.getpid()
    for _ in range(200):
        pids = descendants(me, keep)
        if not pids:
            return
        for p in pids:
            try:
                os.kill(p, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        _reap(pids)


def _reap(pids: set[int]) -> None:
    for p in pids:
        try:
            os.waitpid(p, os.WNOHANG)  # only our own children are reaped; others are re-parented first
        except ChildProcessError:
            pass
    import time
    time.sleep(0.005)


def pdeathsig() -> None:
    """In the child: die with the parent (cleared again by a change of identity, so set after it)."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
