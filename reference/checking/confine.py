"""What the child that runs user code may read, reach and hold (SPEC.md REQ-CHECK-ISOLATION: confidentiality).

Standard library only: the child imports this module, confines itself, and only then imports NumPy (whose
thread pool would otherwise start unconfined: Landlock, seccomp and capabilities are per thread and are
inherited only by threads started later). Two halves, Linux only:

- :func:`before_exec` runs in the forked child before ``exec`` (the parent's ``preexec_fn``): a network
  namespace of its own (as root ``CLONE_NEWNET``; any other user ``CLONE_NEWUSER | CLONE_NEWNET`` with its uid
  and gid mapped to themselves), an empty capability bounding set, as root the identity ``nobody`` (65534)
  keeping ``CAP_DAC_READ_SEARCH`` in the ambient set only (the child drops it unless Landlock confines its
  reads and ``nobody`` could not reach the named module without it), and ``no_new_privs``;
- :func:`confine` runs in the child before the named module is imported: Landlock (writes only beneath the
  scratch directory, reads only beneath :func:`read_roots`, no TCP, no signal to or abstract socket of a
  process outside), the capabilities dropped (:func:`drop_capabilities`), a seccomp filter refusing
  ``socket()``, ``connect()``, file handles and io_uring (:func:`deny_sockets`), and what held, in words
  (:func:`describe`).

Tests switch single mechanisms off through :data:`OFF` of the parent (never an environment variable: a
user's environment cannot weaken the child), to show that each one is what stops its attack.

>>> sorted(MECHANISMS)[:3]
['caps', 'env', 'landlock']
"""
from __future__ import annotations

import importlib.util
import json
import os
import platform
import sys
from typing import Any

MECHANISMS = ("env", "caps", "landlock", "landlock-read", "netns", "seccomp")
OFF: set[str] = set()   # mechanisms switched off (tests only, in the parent; sent to the child in its plan)
NOBODY = 65534
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_KEEPCAPS, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 1, 4, 8, 24, 38
PR_SET_SECCOMP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, PR_CAP_AMBIENT_CLEAR_ALL = 22, 47, 2, 4
CAP_DAC_READ_SEARCH, CAP_SETPCAP = 2, 8
CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000
_CAP_V3 = 0x20080522
# Landlock (linux/landlock.h): syscall numbers (the same on x86_64 and aarch64) and access bits by ABI version
_LL_CREATE, _LL_ADD_RULE, _LL_RESTRICT = 444, 445, 446
_LL_VERSION_FLAG, _LL_PATH_BENEATH = 1, 1
_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR, _TRUNCATE = 1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 14
_FS_WRITES = {1: sum(1 << b for b in (1, 4, 5, 6, 7, 8, 9, 10, 11, 12)),  # write, remove, make_*
              2: 1 << 13, 3: _TRUNCATE, 5: 1 << 15}                          # refer, truncate, ioctl_dev
_FS_READS = _EXECUTE | _READ_FILE | _READ_DIR
_FILE_RIGHTS = _EXECUTE | _WRITE_FILE | _READ_FILE | _TRUNCATE | (1 << 15)   # those a rule on a file may hold
_NET_TCP = (1 << 0) | (1 << 1)       # ABI 4: bind, connect
_SCOPES = (1 << 0) | (1 << 1)        # ABI 6: abstract unix sockets, signals
# seccomp: (audit arch, syscalls refused with EACCES: socket, connect, name_to_handle_at, open_by_handle_at,
# io_uring_setup/enter/register); x86_64's x32 numbers (bit 30) and every other arch are refused too
_SECCOMP = {"x86_64": (0xC000003E, (41, 42, 303, 304, 425, 426, 427), True),
            "aarch64": (0xC00000B7, (198, 203, 264, 265, 425, 426, 427), False)}
# the loader and libc: shared libraries, the loader's cache, the CPU topology NumPy and torch size their pools by
# (and /proc/cpuinfo, which torch's cpuinfo reads before its first float16 conversion: "Failed to initialize cpuinfo!")
_SYSTEM_READS = ("/lib", "/lib64", "/lib32", "/usr/lib", "/usr/lib64", "/usr/lib32", "/usr/local/lib",
                 "/etc/ld.so.cache", "/sys/devices/system/cpu", "/proc/cpuinfo", "/dev/urandom")


def load_libc() -> Any:
    import ctypes
    return ctypes.CDLL(None, use_errno=True)


def _errno() -> str:
    import ctypes
    return os.strerror(ctypes.get_errno())


def landlock_abi() -> int:
    """The Landlock ABI version this kernel offers (0: none, or not Linux on x86_64/aarch64)."""
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "aarch64"):
        return 0
    try:
        return max(0, int(load_libc().syscall(_LL_CREATE, None, 0, _LL_VERSION_FLAG)))
    except (OSError, AttributeError):
        return 0


# --- before exec (in the forked child, Linux) --------------------------------------------------------

def before_exec(plan: dict[str, Any], libc: Any) -> None:
    """The parent's ``preexec_fn``: network namespace, bounding set, identity, no_new_privs (see the module
    docstring). What the kernel refuses is skipped (the child reports what held, :func:`describe`), but a
    failed change of identity raises: the child is then not started."""
    root = os.geteuid() == 0
    if "netns" not in plan["off"]:
        _own_network(libc, root)
    if root and "caps" not in plan["off"]:
        _as_nobody(libc)
    elif root:  # the old identity: nobody with CAP_DAC_READ_SEARCH, bounding set full (tests only)
        _as_nobody(libc, keep_bounding=True)
    elif "caps" not in plan["off"]:
        _drop_bounding(libc)  # possible only in a user namespace of its own (CAP_SETPCAP there)
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)


def _own_network(libc: Any, root: bool) -> None:
    if root:
        libc.unshare(CLONE_NEWNET)
        return
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0:
        return
    libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)  # inherited from the non-dumpable parent: /proc/self/*_map were root's
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        try:
            fd = os.open(f"/proc/self/{name}", os.O_WRONLY)
            try:
                os.write(fd, text.encode())
            finally:
                os.close(fd)
        except OSError:
            pass


def _last_cap() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap") as fh:
            return int(fh.read())
    except (OSError, ValueError):
        return 40


def _drop_bounding(libc: Any) -> None:
    for cap in range(_last_cap() + 1):
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)


def _capset(libc: Any, effective: int, permitted: int, inheritable: int) -> bool:
    import ctypes

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    data = (Data * 2)()
    for i in range(2):
        data[i].effective, data[i].permitted, data[i].inheritable = (
            (x >> (32 * i)) & 0xFFFFFFFF for x in (effective, permitted, inheritable))
    return libc.capset(ctypes.byref(Header(_CAP_V3, 0)), data) == 0


def _permitted() -> int:
    return int(_capabilities().get("prm", "0"), 16)


def _as_nobody(libc: Any, keep_bounding: bool = False) -> None:
    """Root to uid/gid 65534, no groups; CAP_DAC_READ_SEARCH carried across exec in the ambient set only."""
    held, drs = _permitted(), 1 << CAP_DAC_READ_SEARCH
    _capset(libc, held, held, drs)            # inheritable first: it must lie in the bounding set
    if not keep_bounding:
        _drop_bounding(libc)
    libc.prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)
    os.setgroups([])
    os.setresgid(NOBODY, NOBODY, NOBODY)
    os.setresuid(NOBODY, NOBODY, NOBODY)
    _capset(libc, drs, drs, drs)
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_DAC_READ_SEARCH, 0, 0)


# --- in the child, before the named module is imported ----------------------------------------------

def confine(plan: dict[str, Any], scratch: str, target: str) -> dict[str, Any]:
    """Apply the plan (Landlock, capabilities, seccomp) to this single-threaded child; what held, by
    mechanism. Raises OSError when a mechanism the kernel offers refuses to apply (nothing is then run)."""
    held: dict[str, Any] = {"uid": os.getuid() if hasattr(os, "getuid") else -1}
    if not sys.platform.startswith("linux"):
        return {**held, "landlock": 0, "caps": "not available", "netns": "not available (not Linux)",
                "seccomp": "not available (not Linux)"}
    off, libc = set(plan["off"]), load_libc()
    tree = module_tree(target)
    abi = int(plan.get("abi", 0)) if "landlock" not in off else 0
    reads = abi > 0 and "landlock-read" not in off
    if abi:
        landlock(libc, abi, scratch, read_roots(tree, scratch) if reads else None)
    held["landlock"] = abi if abi else ("off" if "landlock" in off else 0)
    held["reads"] = reads
    if "caps" not in off:
        drop_capabilities(libc, 1 << CAP_DAC_READ_SEARCH if _needs_search(tree, reads) else 0)
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    held["seccomp"] = "off" if "seccomp" in off else deny_sockets(libc)
    held["netns"] = "off" if "netns" in off else _netns_held(plan.get("netns", ""))
    held["caps"] = "off" if "caps" in off else _capabilities()
    return held


def _needs_search(tree: list[str], reads: bool) -> bool:
    """Whether the child (uid 65534) keeps CAP_DAC_READ_SEARCH: only when it cannot reach the interpreter,
    what it imports from or the module's tree without it (``access`` judges as the real uid, without
    capabilities) and Landlock confines its reads (the capability then opens nothing outside them).
    Without Landlock such a module (or interpreter) is refused."""
    needed = [*tree, os.path.realpath(sys.executable), *(p for p in sys.path if os.path.isdir(p))]
    blocked = [p for p in needed if not os.access(p, os.R_OK | (os.X_OK if os.path.isdir(p) else 0))]
    if blocked and os.getuid() == NOBODY and not reads:
        raise PermissionError(f"{blocked[0]} is not readable by uid 65534, and without Landlock the child gets no "
                              f"capability to read it: make it readable by others, or run sinpe as another user")
    return bool(blocked) and os.getuid() == NOBODY


def module_tree(target: str) -> list[str]:
    """The directories of the named module's top-level package (or the directory holding a single-file
    module, data files beside it included), found as the child will import it (the current directory
    first), without running it."""
    import importlib.machinery
    import importlib.util
    top = target.partition(":")[0].split(".")[0]
    try:
        spec = importlib.machinery.PathFinder.find_spec(top, [os.getcwd()]) or importlib.util.find_spec(top)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        return []
    if spec.submodule_search_locations:
        return [os.path.realpath(p) for p in spec.submodule_search_locations if os.path.isdir(p)]
    origin = spec.origin or ""
    return [os.path.dirname(os.path.realpath(origin))] if os.path.isfile(origin) else []


def read_roots(tree: list[str], scratch: str) -> list[str]:
    """Where the child may read: the interpreter and what it imports from (``sys.path``: the stdlib,
    site-packages, what ``.pth`` files and ``PYTHONPATH`` add), sinpe's packages, the shared libraries loaded
    so far and the loader's directories, ``/proc/self``, ``/dev/null``, ``/dev/urandom``, the named module's
    tree and the scratch directory. Nothing else: not ``/etc`` (but the loader's cache), not the caller's home."""
    import sysconfig
    roots = [p for p in sys.path if p]
    roots += sinpe_dirs()
    roots += [sys.executable, os.path.realpath(sys.executable), os.path.join(sys.prefix, "pyvenv.cfg")]
    roots += [sysconfig.get_path(k) for k in ("stdlib", "platstdlib")] + [sysconfig.get_config_var("LIBDIR") or ""]
    roots += [*_SYSTEM_READS, *_mapped_directories(), os.path.realpath("/proc/self"), os.devnull, *tree, scratch]
    return sorted({os.path.realpath(p) for p in roots if p and os.path.exists(p)})


SINPE_PACKAGES = ("sinpe", "sinpe.spec", "sinpe.proofs", "sinpe.reference")


def sinpe_dirs() -> list[str]:
    """The directories sinpe's own packages are read from, found without importing them (the child imports what
    its check needs, ``sinpe.proofs`` included): each package's search locations and the directory its
    ``__init__.py`` resolves to (a strict editable install links each file into a tree of its own; a default
    editable install maps each package to its source folder, which need not be on ``sys.path``)."""
    out = []
    for name in SINPE_PACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        for p in (spec.submodule_search_locations or []) if spec is not None else []:
            out += [p, os.path.dirname(os.path.realpath(os.path.join(p, "__init__.py")))]
    return out


def _mapped_directories() -> set[str]:
    """Directories of the files this process has mapped (the interpreter's shared libraries)."""
    out = set()
    try:
        with open("/proc/self/maps") as fh:
            for line in fh:
                path = line.split(maxsplit=5)[5].strip() if line.count(" ") >= 5 else ""
                if path.startswith("/") and not path.endswith("(deleted)"):
                    out.add(os.path.dirname(path))
    except (OSError, IndexError):
        pass
    return out


def _fs_writes(abi: int) -> int:
    return sum(bits for version, bits in _FS_WRITES.items() if abi >= version)


def landlock(libc: Any, abi: int, scratch: str, reads: list[str] | None) -> None:
    """The Landlock domain: writes only beneath ``scratch`` (and ``/dev/null``); with ``reads``, reads only
    beneath those paths; no TCP (ABI 4+); no signal to or abstract socket of a process outside (ABI 6+).
    OSError when the kernel refuses it."""
    import ctypes
    fs = _fs_writes(abi) | (_FS_READS if reads is not None else 0)
    attr = (ctypes.c_uint64 * 3)(fs, _NET_TCP if abi >= 4 else 0, _SCOPES if abi >= 6 else 0)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = libc.syscall(_LL_CREATE, ctypes.byref(attr), size, 0)
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset")
    try:
        for path in reads or []:
            if path != scratch:
                _allow(libc, ruleset, path, fs & _FS_READS)
        _allow(libc, ruleset, scratch, fs)
        _allow(libc, ruleset, os.devnull, fs & (_WRITE_FILE | _READ_FILE | _TRUNCATE))
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or libc.syscall(_LL_RESTRICT, ruleset, 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    finally:
        os.close(ruleset)


def _allow(libc: Any, ruleset: int, path: str, access: int) -> None:
    import ctypes

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    try:
        if not os.path.isdir(path):
            access &= _FILE_RIGHTS
        if access and libc.syscall(_LL_ADD_RULE, ruleset, _LL_PATH_BENEATH, ctypes.byref(PathBeneath(access, fd)), 0):
            raise OSError(ctypes.get_errno(), f"landlock_add_rule {path}")
    finally:
        os.close(fd)


def drop_capabilities(libc: Any, keep: int = 0) -> None:
    """Every capability but ``keep`` out of the effective, permitted and inheritable sets, the ambient set
    cleared, the bounding set emptied where this process may (CAP_SETPCAP)."""
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    _drop_bounding(libc)
    _capset(libc, keep, keep, 0)


def _capabilities() -> dict[str, str]:
    """The capability sets of this process (hex, as /proc/self/status shows them)."""
    out = {}
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("Cap"):
                    name, _, value = line.partition(":")
                    out[name[3:].lower()] = value.strip()
    except OSError:
        pass
    return out


def deny_sockets(libc: Any) -> str:
    """A seccomp filter: ``socket()``, ``connect()``, ``name_to_handle_at``/``open_by_handle_at`` and io_uring
    fail with EACCES (``socketpair`` and pipes still work); "applied" or why not."""
    import ctypes
    machine = platform.machine()
    if platform.system() != "Linux" or machine not in _SECCOMP:
        return f"not available ({platform.system()} {machine})"
    arch, denied, x32 = _SECCOMP[machine]
    prog = _bpf(arch, denied, x32)

    class Filter(ctypes.Structure):
        _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]

    class Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(Filter))]

    filters = (Filter * len(prog))(*[Filter(*ins) for ins in prog])
    if libc.prctl(PR_SET_SECCOMP, 2, ctypes.byref(Prog(len(prog), filters)), 0, 0) != 0:
        return f"not available (prctl PR_SET_SECCOMP: {_errno()})"
    return "applied"


def _bpf(arch: int, denied: tuple[int, ...], x32: bool) -> list[tuple[int, int, int, int]]:
    """The filter program: another arch, an x32 number or a denied syscall returns EACCES; the rest runs."""
    ld, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06
    allow, refuse = 0x7FFF0000, 0x00050000 | 13
    checks = [(jge, 0x40000000)] if x32 else []
    checks += [(jeq, nr) for nr in denied]
    prog = [(ld, 0, 0, 4), (jeq, 0, len(checks) + 2, arch), (ld, 0, 0, 0)]
    for i, (op, k) in enumerate(checks):
        prog.append((op, len(checks) - i, 0, k))   # true: jump to the refusal after the allow
    return prog + [(ret, 0, 0, allow), (ret, 0, 0, refuse)]


def _netns_held(parent: str) -> str:
    try:
        mine = os.readlink("/proc/self/ns/net")
    except OSError:
        return "not available (no /proc/self/ns/net)"
    return "applied" if parent and mine != parent else "not available (unshare refused)"


def network_namespace() -> str:
    """This process's network namespace (the parent's, compared with the child's)."""
    try:
        return os.readlink("/proc/self/ns/net")
    except OSError:
        return ""


def plan(abi: int) -> dict[str, Any]:
    """What the parent asks of the child: the mechanisms switched off, the Landlock ABI, its network namespace."""
    return {"off": sorted(OFF), "abi": abi, "netns": network_namespace()}


def describe(held: dict[str, Any], env_names: list[str]) -> str:
    """What held, in words, one clause per mechanism (the report's ``isolation:`` note)."""
    return "; ".join(clause for clause in (_env_words(env_names), _identity_words(held), _caps_words(held),
                                           _landlock_words(held), _network_words(held)) if clause)


def _env_words(names: list[str]) -> str:
    if "env" in OFF:
        return "environment: the caller's, whole (switched off)"
    return f"environment: an allow-list ({', '.join(names)}; HOME and TMPDIR its scratch directory)"


def _identity_words(held: dict[str, Any]) -> str:
    uid = held.get("uid")
    return f"run as uid {uid} (no write access to sinpe or its parent)" if uid == NOBODY else f"run as uid {uid}"


def _caps_words(held: dict[str, Any]) -> str:
    caps = held.get("caps")
    if caps == "off":
        return "capabilities: not dropped (switched off)"
    if not isinstance(caps, dict):
        return "capabilities: not available"
    eff, bnd, amb = (int(caps.get(k, "0"), 16) for k in ("eff", "bnd", "amb"))
    kept = "none" if not eff else ("CAP_DAC_READ_SEARCH only (uid 65534 cannot reach the interpreter or the "
                                   "module without it; reads confined by Landlock)" if eff == 1 << CAP_DAC_READ_SEARCH else f"{eff:#x}")
    bound = "bounding set empty" if not bnd else "bounding set kept (no CAP_SETPCAP to drop it; no_new_privs)"
    return f"capabilities: {kept}, ambient {'empty' if not amb else hex(amb)}, {bound}"


def _landlock_words(held: dict[str, Any]) -> str:
    abi = held.get("landlock")
    if abi == "off":
        return "Landlock: switched off"
    if not abi:
        return "Landlock: not available on this kernel (writes and reads as the child's identity allows)"
    reads = ("reads only the interpreter, its libraries, site-packages, sinpe and the module's directory"
             if held.get("reads") else "reads not confined (switched off)")
    return (f"child confined by Landlock ABI {abi} (writes only in its scratch directory; {reads}"
            + ("; no TCP" if abi >= 4 else "") + ("; cannot signal sinpe" if abi >= 6 else "") + ")")


def _network_words(held: dict[str, Any]) -> str:
    ns, sc = held.get("netns", "not available"), held.get("seccomp", "not available")
    ns_words = {"applied": "own network namespace (no interfaces)", "off": "own network namespace switched off"}
    sc_words = {"applied": "seccomp: no socket(), connect(), file handles or io_uring", "off": "seccomp switched off"}
    return (f"network: {ns_words.get(ns, 'network namespace ' + ns)}, {sc_words.get(sc, 'seccomp ' + sc)}")


# --- the child's entry point -----------------------------------------------------------------------

def child_setup(argv: list[str]) -> tuple[str, str, Any, Any] | None:
    """``SCRATCH CTL RES`` of the child (:mod:`sinpe.reference.checking.child`): read the plan, confine, answer what
    held; (target, scratch, inbox, outbox) to serve calls on, or None when the confinement failed (said on the
    outbox)."""
    scratch, ctl, res = argv[0], int(argv[1]), int(argv[2])
    if sys.platform.startswith("linux"):
        load_libc().prctl(PR_SET_PDEATHSIG, 9, 0, 0, 0)  # die with the parent (set after the identity change)
    inbox = os.fdopen(ctl, "r", encoding="utf-8")
    outbox = os.fdopen(res, "w", encoding="utf-8")
    setup = json.loads(inbox.readline() or "{}")
    try:
        os.chdir(setup["cwd"])
        held = confine(setup["plan"], scratch, setup["target"])
    except (OSError, KeyError, ValueError) as e:
        outbox.write(json.dumps({"confine_error": f"{type(e).__name__}: {e}"}) + "\n")
        outbox.flush()
        return None
    outbox.write(json.dumps({"held": held}) + "\n")
    outbox.flush()
    return setup["target"], scratch, inbox, outbox
