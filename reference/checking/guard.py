"""What keeps the code under test away from the verdict and from what it does not need (SPEC.md
REQ-CHECK-ISOLATION), on the parent's side. Used by :mod:`sinpe.reference.checking.isolate` around every
child that runs user code:

- :func:`preload` imports, before the child starts, every sinpe module the verdict is computed and
  reported with: nothing the child changes on disk is imported afterwards (where Landlock confines its
  writes to its scratch directory it can change nothing sinpe imports, and nothing is preloaded);
- :func:`protect_parent`: on Linux the parent becomes a *child subreaper* (``PR_SET_CHILD_SUBREAPER``:
  a grandchild that double-forks or calls ``setsid`` is re-parented to sinpe, never to init) and
  non-dumpable (``PR_SET_DUMPABLE 0``: a process of the same user cannot open ``/proc/<pid>/fd/1``);
- :func:`child_env`: the child's environment, an allow-list (:data:`ENV_PASSED`; HOME and TMPDIR its
  scratch directory): a token in the caller's environment never reaches it;
- :func:`give_to_child`: run as root, the child is ``nobody`` (:mod:`.confine`), and its scratch directory is
  handed to it;
- :func:`protection`: what held, in words (the report's ``isolation:`` note);
- :func:`kill_descendants`: every process the child left, found by ``/proc``, is killed and reaped.

The child's own confinement (capabilities, Landlock, network, seccomp) is :mod:`.confine`.

>>> protection({"uid": 1000, "landlock": 0}, ["PATH"])[:31]
'environment: an allow-list (PAT'
"""
from __future__ import annotations

import importlib
import os
import pkgutil
import signal

from sinpe.reference.checking import confine

PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 4, 36
NOBODY = confine.NOBODY
# every package whose modules compute or print a verdict (imported before any user code runs)
VERDICT_PACKAGES = ("sinpe.spec", "sinpe.reference.checking", "sinpe.reference.oracles", "sinpe.reference.numerics",
                    "sinpe.reference.tables", "sinpe.reference.implementations")
# the caller's variables the child sees (locale and thread counts; PYTHONPATH: where the named module may be)
ENV_PASSED = ("LANG", "LANGUAGE", "TZ", "PYTHONPATH", "PYTHONHASHSEED", "PYTHONIOENCODING", "PYTHONUTF8",
              "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
CHILD_PATH = "/usr/bin:/bin"
_state: dict[str, int | bool] = {"preloaded": False, "reaper": False}


def _prctl(option: int, value: int) -> bool:
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def writes_confined() -> bool:
    """Whether the child can write nothing outside its scratch directory: Landlock is offered (the child then
    confines itself or runs nothing, :mod:`.confine`) and not switched off."""
    return landlock_abi() > 0 and "landlock" not in confine.OFF


def preload() -> None:
    """Import every module of :data:`VERDICT_PACKAGES` (and what they import) once, before a child runs;
    unneeded where :func:`writes_confined` (the child cannot change a file sinpe imports)."""
    if _state["preloaded"] or writes_confined():
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
    """Whether the child runs as ``nobody``: the parent is root on Linux (:func:`confine.before_exec`)."""
    return hasattr(os, "geteuid") and os.geteuid() == 0 and os.path.isdir("/proc/self")


def child_env(scratch: str) -> dict[str, str]:
    """The child's environment: :data:`ENV_PASSED` and ``LC_*`` from the caller's, a minimal PATH, HOME and
    TMPDIR its scratch directory, the caller's user site (PYTHONUSERBASE) or none; nothing else."""
    if "env" in confine.OFF:  # tests only: the caller's whole environment
        return dict(os.environ, TMPDIR=scratch)
    import site
    env = {k: v for k, v in os.environ.items() if k in ENV_PASSED or k.startswith("LC_")}
    env.update(PATH=CHILD_PATH, HOME=scratch, TMPDIR=scratch, TMP=scratch, TEMP=scratch, PYTHONDONTWRITEBYTECODE="1")
    if site.ENABLE_USER_SITE:
        env["PYTHONUSERBASE"] = site.getuserbase()
    else:
        env["PYTHONNOUSERSITE"] = "1"
    return env


def give_to_child(path: str) -> None:
    """Run as root, hand ``path`` (the scratch directory or a request's) to ``nobody``, the child's uid."""
    if drops_identity():
        os.chown(path, NOBODY, NOBODY)


def landlock_abi() -> int:
    """The Landlock ABI version this kernel offers (0: none, or not Linux on x86_64/aarch64)."""
    if "landlock" not in _state:
        _state["landlock"] = confine.landlock_abi()
    return int(_state["landlock"])


def protection(held: dict, env_names: list[str]) -> str:
    """The protections in effect, in words (the report notes it): what the child said held (:mod:`.confine`)
    and the parent's own."""
    parts = [confine.describe(held, env_names)] if os.path.isdir("/proc/self") else [
        "none (not Linux: only the environment allow-list and the time and memory limits)"]
    if _state["reaper"]:
        parts.append("child subreaper (every descendant killed at the end)")
    if os.path.isdir("/proc/self") and not drops_identity():
        parts.append("parent not dumpable (its /proc entries closed to the child)")
    return "; ".join(parts)


def _processes() -> dict[int, tuple[int, bool]]:
    """Every process in ``/proc``: its parent and whether it is a zombie."""
    out = {}
    for e in os.listdir("/proc"):
        if e.isdigit():
            try:
                with open(f"/proc/{e}/stat", "rb") as fh:
                    fields = fh.read().rsplit(b")", 1)[1].split()
                out[int(e)] = (int(fields[1]), fields[0] == b"Z")
            except (OSError, ValueError, IndexError):
                pass
    return out


def descendants(root: int, keep: frozenset[int] = frozenset(), procs: dict | None = None) -> set[int]:
    """Every process below ``root`` (zombies included) except the subtrees rooted at ``keep``."""
    if not os.path.isdir("/proc"):
        return set()
    kids: dict[int, list[int]] = {}
    for pid, (ppid, _) in (_processes() if procs is None else procs).items():
        kids.setdefault(ppid, []).append(pid)
    out, todo = set(), [p for p in kids.get(root, []) if p not in keep]
    while todo:
        p = todo.pop()
        if p not in out:
            out.add(p)
            todo.extend(kids.get(p, []))
    return out


def kill_descendants(keep: frozenset[int], spare: frozenset[int] = frozenset()) -> None:
    """SIGKILL every descendant of this process outside the subtrees of ``keep`` (the processes ``spare``
    themselves excepted: a worker between calls, whose descendants go) and reap those re-parented to it;
    a zombie another live process will reap is left to it."""
    me = os.getpid()
    for _ in range(200):
        procs = _processes()
        below = descendants(me, keep, procs) - spare
        ours = {p for p in below if procs[p][0] == me}
        live = {p for p in below if not procs[p][1]}
        if not live:
            _reap(ours, pause=False)
            return
        for p in live:
            try:
                os.kill(p, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        _reap(ours | live)


def _reap(pids: set[int], pause: bool = True) -> None:
    for p in pids:
        try:
            os.waitpid(p, os.WNOHANG)  # only our own children are reaped; others are re-parented first
        except ChildProcessError:
            pass
    if pause:
        import time
        time.sleep(0.005)
