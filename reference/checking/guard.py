"""What keeps the code under test away from the verdict (SPEC.md REQ-CHECK-ISOLATION).

Used by :mod:`sinpe.reference.checking.isolate` around every child that runs user code:

- :func:`preload` imports, before the child starts, every sinpe module the verdict is computed and
  reported with: nothing the child changes on disk is imported afterwards;
- :func:`protect_parent`: on Linux the parent becomes a *child subreaper* (``PR_SET_CHILD_SUBREAPER``:
  a grandchild that double-forks or calls ``setsid`` is re-parented to sinpe, never to init) and
  non-dumpable (``PR_SET_DUMPABLE 0``: a process of the same user cannot open ``/proc/<pid>/fd/1``);
- :func:`identity`: run as root, the child is dropped to ``nobody`` (``setpriv``, keeping only
  ``CAP_DAC_READ_SEARCH`` to read the user's module; no write access to sinpe's files or the parent);
- :func:`confine`: in the child, before the user's module is imported, a Landlock domain (Linux 5.13+,
  unprivileged): writes only beneath its scratch directory (and to ``/dev/null``), no TCP bind or connect
  (ABI 4+), no signal to and no abstract socket of a process outside the domain (ABI 6+: sinpe cannot be
  killed by it); ptrace of processes outside the domain is refused by every ABI;
- :func:`kill_descendants`: every process the child left, found by ``/proc``, is killed and reaped.

>>> protection()[:10] in ("child conf", "child subr", "none (not")
True
"""
from __future__ import annotations

import importlib
import os
import pkgutil
import shutil
import signal

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 4, 36, 38
NOBODY = 65534
# every package whose modules compute or print a verdict (imported before any user code runs)
VERDICT_PACKAGES = ("sinpe.spec", "sinpe.reference.checking", "sinpe.reference.oracles", "sinpe.reference.numerics",
                    "sinpe.reference.tables", "sinpe.reference.implementations")
_state: dict[str, int | bool] = {"preloaded": False, "reaper": False}
# Landlock (linux/landlock.h): syscall numbers (the same on x86_64 and aarch64) and access bits by ABI version
_LL_CREATE, _LL_ADD_RULE, _LL_RESTRICT = 444, 445, 446
_LL_VERSION_FLAG, _LL_PATH_BENEATH = 1, 1
_FS_WRITE_FILE, _FS_TRUNCATE = 1 << 1, 1 << 14
_FS_WRITES = {1: sum(1 << b for b in (1, 4, 5, 6, 7, 8, 9, 10, 11, 12)),  # write, remove, make_*
              2: 1 << 13, 3: _FS_TRUNCATE, 5: 1 << 15}                       # refer, truncate, ioctl_dev
_NET_TCP = (1 << 0) | (1 << 1)       # ABI 4: bind, connect
_SCOPES = (1 << 0) | (1 << 1)        # ABI 6: abstract unix sockets, signals


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
    env = dict(os.environ, TMPDIR=work)  # tempfile in the child: its scratch directory
    if not drops_identity():
        return [], env
    os.chown(work, NOBODY, NOBODY)
    env.update(HOME=work, TMPDIR=work)
    caps = "-all,+dac_read_search"
    return [shutil.which("setpriv") or "setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
            f"--inh-caps={caps}", f"--ambient-caps={caps}", "--no-new-privs"], env


def _libc():  # noqa: ANN202 -- a ctypes handle
    import ctypes
    return ctypes, ctypes.CDLL(None, use_errno=True)


def landlock_abi() -> int:
    """The Landlock ABI version this kernel offers (0: none, or not Linux on x86_64/aarch64)."""
    if "landlock" not in _state:
        _state["landlock"] = _probe_landlock()
    return int(_state["landlock"])


def _probe_landlock() -> int:
    import platform
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "aarch64"):
        return 0
    try:
        _, libc = _libc()
        return max(0, int(libc.syscall(_LL_CREATE, None, 0, _LL_VERSION_FLAG)))
    except (OSError, AttributeError):
        return 0


def _fs_writes(abi: int) -> int:
    return sum(bits for version, bits in _FS_WRITES.items() if abi >= version)


def confine(work: str, abi: int) -> None:
    """In the child, before any user code runs: the Landlock domain of the module docstring. Raises
    OSError when the kernel refuses it (the child then reports that and runs nothing)."""
    ctypes, libc = _libc()
    fs = _fs_writes(abi)
    attr = (ctypes.c_uint64 * 3)(fs, _NET_TCP if abi >= 4 else 0, _SCOPES if abi >= 6 else 0)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = libc.syscall(_LL_CREATE, ctypes.byref(attr), size, 0)
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset")
    try:
        _allow(ctypes, libc, ruleset, work, fs)
        _allow(ctypes, libc, ruleset, os.devnull, _FS_WRITE_FILE | (_FS_TRUNCATE if abi >= 3 else 0))
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or libc.syscall(_LL_RESTRICT, ruleset, 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    finally:
        os.close(ruleset)


def _allow(ctypes, libc, ruleset: int, path: str, access: int) -> None:  # noqa: ANN001 -- ctypes handles
    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    try:
        rule = PathBeneath(access, fd)
        if libc.syscall(_LL_ADD_RULE, ruleset, _LL_PATH_BENEATH, ctypes.byref(rule), 0) != 0:
            raise OSError(ctypes.get_errno(), f"landlock_add_rule {path}")
    finally:
        os.close(fd)


def protection() -> str:
    """The protections in effect, in words (the report notes it)."""
    parts = []
    abi = landlock_abi()
    if abi:
        parts.append(f"child confined by Landlock ABI {abi} (writes only in its scratch directory"
                     + ("; no TCP" if abi >= 4 else "") + ("; cannot signal sinpe" if abi >= 6 else "") + ")")
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
