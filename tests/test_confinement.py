"""Confidentiality of the isolated child (SPEC.md REQ-CHECK-ISOLATION): a hostile callable that reads a
protected file, reads a secret from the caller's environment, sends a UDP datagram or connects to a pathname
UNIX socket is refused; and each attack succeeds with the mechanism that stops it switched off (in the parent,
``confine.OFF``: tests only), so that the test shows the mechanism is what stops it. Also one child per run
(REQ-CHECK-ISOLATE): the worker serves every call of a run and is restarted only after a failure."""
from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np
import pytest

from sinpe.reference.checking import confine, guard, isolate
from sinpe.reference.inputs import LoadError

linux = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="the child's confinement is Linux only")

ATTACKS = textwrap.dedent('''
    import os, socket, sys, subprocess, time
    import numpy as np

    def _beside(name):
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), name)) as fh:
            return fh.read()

    def _outcome(attempt):
        try:
            got = attempt()
        except BaseException as e:
            raise RuntimeError(f"REFUSED {type(e).__name__}") from None
        raise RuntimeError(f"GOT {got!r}")

    def reads_file(p, d):
        return _outcome(lambda: open(_beside("file.txt")).read(40))

    def reads_env(p, d):
        return _outcome(lambda: os.environ["SINPE_TEST_SECRET"])

    def sends_udp(p, d):
        def send():
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            return s.sendto(b"exfiltrated", ("127.0.0.1", int(_beside("port.txt"))))
        return _outcome(send)

    def connects_unix(p, d):
        return _outcome(lambda: socket.socket(socket.AF_UNIX).connect(_beside("socket.txt")))

    def pid(p, d):                       # every entry the worker's process ID
        return np.full((len(p), d), float(os.getpid()))

    def raises_at_3(p, d):
        if d == 3:
            raise ValueError("three")
        return pid(p, d)

    def sleeps_at_3(p, d):
        if d == 3:
            time.sleep(3600)
        return pid(p, d)

    def leaves_a_sleeper(p, d):          # its sleeper's PID in every entry
        proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
        return np.full((len(p), d), float(proc.pid))

    def forges_an_answer(p, d):          # answers for another call on sinpe's channel (its fd is in argv)
        os.write(int(sys.argv[-1]), b'{"n": 99}\\n')
        return pid(p, d)

    def closes_the_channel(p, d):
        os.close(int(sys.argv[-1]))
        time.sleep(3600)

    def torch_loaded(p, d):
        return np.full((len(p), d), float("torch" in sys.modules))
''')


@pytest.fixture(scope="module")
def here(tmp_path_factory):
    d = tmp_path_factory.mktemp("confine")
    (d / "attacks.py").write_text(ATTACKS)
    return d


@pytest.fixture
def in_here(here, monkeypatch):
    monkeypatch.chdir(here)
    return here


def outcome(target: str) -> str:
    """What the hostile callable reported: ``GOT ...`` (the attack worked) or ``REFUSED <error>``."""
    with pytest.raises(LoadError) as e:
        isolate.call_isolated(target, np.arange(2), 2, timeout=60)
    msg = str(e.value).partition("; hint: ")[0]
    return msg[msg.index("raised RuntimeError: ") + len("raised RuntimeError: "):] if "RuntimeError" in msg else msg


def note(target: str = "attacks:pid") -> str:
    t = isolate.call_isolated(target, np.arange(2), 2, timeout=60)
    return next(n for n in t.notes if n.startswith("isolation: "))


@pytest.fixture(scope="module")
def held(here):
    """The isolation note of an honest call with every mechanism on (what this kernel offers)."""
    cwd = os.getcwd()
    os.chdir(here)
    try:
        return note()
    finally:
        os.chdir(cwd)


def _offers_seccomp() -> bool:
    """Whether this kernel and machine offer what the child's seccomp filter needs (probed here, not by sinpe)."""
    import platform
    status = Path("/proc/self/status")
    return platform.machine() in ("x86_64", "aarch64") and status.exists() and "Seccomp:" in status.read_text()


def _offers_netns() -> bool:
    """Whether a process of this user may have a network namespace of its own (probed in a forked child)."""
    import ctypes
    if not hasattr(os, "fork"):
        return False
    pid = os.fork()
    if pid == 0:
        libc = ctypes.CDLL(None, use_errno=True)
        flags = 0x40000000 if os.geteuid() == 0 else 0x50000000   # CLONE_NEWNET (| CLONE_NEWUSER)
        os._exit(0 if libc.unshare(flags) == 0 else 1)
    return os.waitpid(pid, 0)[1] == 0


OFFERS = {"Landlock": lambda: guard.landlock_abi() > 0, "seccomp": _offers_seccomp, "a network namespace": _offers_netns}


def _needs(what: str) -> None:
    if not OFFERS[what]():
        pytest.skip(f"{what} is not available on this kernel")


# --- the environment --------------------------------------------------------------------------------------

@pytest.mark.parametrize("off,works", [((), False), (("env",), True)])
def test_the_callers_environment_is_not_visible(in_here, monkeypatch, off, works):
    """REQ-CHECK-ISOLATION: a CI token in the caller's environment never reaches the code under test."""
    monkeypatch.setenv("SINPE_TEST_SECRET", "ci-token-1234")
    monkeypatch.setattr(confine, "OFF", set(off))
    got = outcome("attacks:reads_env")
    assert got == ("GOT 'ci-token-1234'" if works else "REFUSED KeyError"), got


def test_the_childs_environment_is_the_allow_list(tmp_path, monkeypatch):
    monkeypatch.setenv("SINPE_TEST_SECRET", "x")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    env = guard.child_env(str(tmp_path))
    assert "SINPE_TEST_SECRET" not in env and env["LC_ALL"] == "C.UTF-8"
    assert env["HOME"] == env["TMPDIR"] == str(tmp_path) and env["PATH"] == guard.CHILD_PATH
    assert set(env) <= set(guard.ENV_PASSED) | {"LC_ALL", "PATH", "HOME", "TMPDIR", "TMP", "TEMP",
                                                "PYTHONDONTWRITEBYTECODE", "PYTHONUSERBASE", "PYTHONNOUSERSITE"}


# --- files the child does not need ------------------------------------------------------------------------

@pytest.fixture
def secret_file(in_here, tmp_path):
    """As root /etc/shadow (root's 0640 file); otherwise a 0600 file of the test's outside every allowed tree."""
    if os.geteuid() == 0 and os.path.exists("/etc/shadow"):
        path = "/etc/shadow"
    else:
        path = str(Path(tempfile.mkdtemp(prefix="sinpe-secret-")) / "secret.txt")
        Path(path).write_text("the user's secret")
        os.chmod(path, 0o600)
    (in_here / "file.txt").write_text(path)
    yield path
    if path != "/etc/shadow":
        os.unlink(path)
        os.rmdir(os.path.dirname(path))


@linux
def test_a_protected_file_is_refused(secret_file):
    """Landlock read rules (and, as root, no CAP_DAC_READ_SEARCH outside them) refuse it."""
    _needs("Landlock")
    assert outcome("attacks:reads_file") == "REFUSED PermissionError"


@linux
def test_with_landlock_reads_off_the_protected_file_is_read(secret_file, monkeypatch):
    """The test above could fail: with Landlock's read rules off (and, as root, the capability kept as the
    old child kept it) the same callable reads the file."""
    _needs("Landlock")
    monkeypatch.setattr(confine, "OFF", {"landlock-read", "caps"} if os.geteuid() == 0 else {"landlock-read"})
    assert outcome("attacks:reads_file").startswith("GOT ")


@linux
@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="capabilities matter when sinpe runs as root")
def test_as_root_landlock_alone_refuses_the_file_the_capability_opens(secret_file, monkeypatch):
    """Capabilities as the old child had them (CAP_DAC_READ_SEARCH): Landlock still refuses /etc/shadow; and
    with Landlock's reads off but the capabilities dropped, the child cannot read it either (or, where uid
    65534 cannot reach the interpreter, refuses to run: no capability without Landlock)."""
    _needs("Landlock")
    monkeypatch.setattr(confine, "OFF", {"caps"})
    assert outcome("attacks:reads_file") == "REFUSED PermissionError"
    monkeypatch.setattr(confine, "OFF", {"landlock-read"})
    got = outcome("attacks:reads_file")
    assert got == "REFUSED PermissionError" or "not readable by uid 65534" in got, got


# --- the network ------------------------------------------------------------------------------------------

@pytest.fixture
def udp(in_here):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    s.settimeout(0.5)
    (in_here / "port.txt").write_text(str(s.getsockname()[1]))
    yield s
    s.close()


def _received(s: socket.socket) -> bytes:
    try:
        return s.recv(100)
    except (TimeoutError, BlockingIOError):
        return b""


@linux
@pytest.mark.parametrize("off", [(), ("netns",), ("seccomp",)])
def test_udp_is_refused(udp, monkeypatch, off):
    """Either mechanism alone stops it: seccomp refuses socket(); the network namespace has no route."""
    _needs("seccomp")
    if "seccomp" in off:
        _needs("a network namespace")
    monkeypatch.setattr(confine, "OFF", set(off))
    got = outcome("attacks:sends_udp")
    assert got.startswith("REFUSED"), got
    assert _received(udp) == b""


@linux
def test_with_seccomp_and_the_namespace_off_the_datagram_arrives(udp, monkeypatch):
    _needs("seccomp")
    monkeypatch.setattr(confine, "OFF", {"seccomp", "netns"})
    assert outcome("attacks:sends_udp") == "GOT 11"
    assert _received(udp) == b"exfiltrated"


@pytest.fixture
def unix_listener(in_here):
    d = Path(tempfile.mkdtemp(prefix="sinpe-sock-"))
    os.chmod(d, 0o755)
    path = d / "listener.sock"
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    os.chmod(path, 0o777)
    s.listen(1)
    s.settimeout(0.5)
    (in_here / "socket.txt").write_text(str(path))
    yield s
    s.close()
    path.unlink()
    d.rmdir()


def _accepted(s: socket.socket) -> bool:
    try:
        s.accept()[0].close()
        return True
    except (TimeoutError, BlockingIOError):
        return False


@linux
@pytest.mark.parametrize("off,works", [((), False), (("seccomp",), True)])
def test_a_pathname_unix_socket_is_refused(unix_listener, monkeypatch, off, works):
    """A network namespace does not stop a pathname UNIX socket (nor Landlock up to ABI 7): seccomp does."""
    _needs("seccomp")
    monkeypatch.setattr(confine, "OFF", set(off))
    got = outcome("attacks:connects_unix")
    assert got == ("GOT None" if works else "REFUSED PermissionError"), got
    assert _accepted(unix_listener) == works


# --- what the report says held ------------------------------------------------------------------------------

@linux
def test_the_isolation_note_says_what_held(held, in_here, monkeypatch):
    assert "environment: an allow-list (" in held and "capabilities: " in held and "network: " in held, held
    if guard.landlock_abi():
        assert f"Landlock ABI {guard.landlock_abi()} (writes only in its scratch directory; reads only" in held, held
    else:
        assert "Landlock: not available on this kernel" in held, held
    assert ("seccomp: no socket(), connect()" in held) == _offers_seccomp(), held
    assert ("own network namespace (no interfaces)" in held) == _offers_netns(), held
    monkeypatch.setattr(confine, "OFF", {"env", "seccomp", "netns"})
    off = note()
    assert "environment: the caller's, whole (switched off)" in off, off
    assert "own network namespace switched off, seccomp switched off" in off, off


def test_the_seccomp_program_refuses_exactly_the_listed_calls():
    """The BPF program, run by a tiny interpreter here: another arch and every denied number are refused."""
    arch, denied, x32 = confine._SECCOMP["x86_64"]
    prog = confine._bpf(arch, denied, x32)

    def run(nr: int, a: int) -> int:
        acc, pc = 0, 0
        while True:
            code, jt, jf, k = prog[pc]
            if code == 0x20:
                acc = a if k == 4 else nr
            elif code == 0x06:
                return k
            elif code in (0x15, 0x35):
                pc += jt if (acc == k if code == 0x15 else acc >= k) else jf
            pc += 1

    refuse = 0x00050000 | 13
    assert [run(n, arch) for n in denied] == [refuse] * len(denied)
    assert run(0, arch) == run(53, arch) == 0x7FFF0000          # read, socketpair
    assert run(41, 0x40000003) == refuse and run(41 | 0x40000000, arch) == refuse  # i386, x32


# --- one child per run (REQ-CHECK-ISOLATE) -----------------------------------------------------------------

def _pid_at(d: int, target: str = "attacks:pid") -> int:
    return int(isolate.call_isolated(target, np.arange(2), d, timeout=20).data[0, 0])


def test_one_child_serves_every_call_of_a_run(in_here):
    from hostile_inputs import alive
    with isolate.run():
        first = [_pid_at(d) for d in (1, 2, 4)]
        other = _pid_at(2, "attacks:raises_at_3")      # a second target: a worker of its own
        assert _pid_at(8) == first[0] and alive(other)   # neither call ends the other target's worker
    assert len(set(first)) == 1 and other != first[0]
    assert _pid_at(1) != first[0]                      # outside a run: a child of its own
    assert not alive(first[0])                          # the run's worker ended with the run


def test_the_worker_is_restarted_after_a_failure_or_a_time_out(in_here):
    with isolate.run():
        before = _pid_at(2, "attacks:raises_at_3")
        with pytest.raises(LoadError, match="raised ValueError: three"):
            _pid_at(3, "attacks:raises_at_3")
        after = _pid_at(4, "attacks:raises_at_3")
        assert before != after
        with pytest.raises(isolate.CallTimeout, match="did not return within 2 s"):
            isolate.call_isolated("attacks:sleeps_at_3", np.arange(2), 3, timeout=2)
        assert _pid_at(4, "attacks:sleeps_at_3") > 0   # the next call runs under its own limit, in a new child


@pytest.mark.parametrize("name", ["forges_an_answer", "closes_the_channel"])
def test_a_child_that_breaks_the_protocol_is_one_error_and_killed(in_here, name):
    with pytest.raises(LoadError, match="broke the call protocol"):
        isolate.call_isolated(f"attacks:{name}", np.arange(2), 2, timeout=20)
    assert not isolate._LIVE


@linux
def test_what_a_call_starts_dies_when_it_returns_even_in_a_run(in_here):
    from hostile_inputs import alive
    with isolate.run():
        sleeper = _pid_at(2, "attacks:leaves_a_sleeper")
        worker = _pid_at(2)
        assert not alive(sleeper) and alive(worker)
    assert not alive(worker)


def test_the_child_imports_no_torch_for_a_numpy_target(in_here):
    """The child imports what the target needs: NumPy and sinpe's loaders, not torch."""
    assert float(isolate.call_isolated("attacks:torch_loaded", np.arange(2), 2, timeout=60).data[0, 0]) == 0.0


def test_check_apply_of_a_named_function_imports_no_torch_in_the_parent(in_here):
    pytest.importorskip("torch")
    (in_here / "rope_fn.py").write_text(textwrap.dedent('''
        import torch
        def apply(q, k, cos, sin):
            def half(x):
                a, b = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
                return torch.cat((-b, a), dim=-1)
            cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
            return q * cos + half(q) * sin, k * cos + half(k) * sin
    '''))
    code = ("import sys; from sinpe import check_apply\n"
            "r = check_apply('rope_fn:apply', 'llama', dim=16)\n"
            "print(r.verdict, 'torch' in sys.modules)\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=in_here, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["conforms", "False"], r.stdout


def test_every_sinpe_package_is_a_read_root_whatever_the_install(monkeypatch):  # REQ-CHECK-ISOLATION
    """The child reads sinpe's packages from where they lie: each package's folder (its files' real directory:
    a strict editable install links them from the sources; a default editable install, ``pip install -e .``,
    maps each package to its own source folder, so a child could not import ``sinpe.proofs`` and every
    check-apply in the survey's environment ended with exit 2, PermissionError on proofs/__init__.py)."""
    spec_init = importlib.util.find_spec("sinpe.spec").origin  # type: ignore[union-attr]
    sources = os.path.dirname(os.path.dirname(os.path.realpath(str(spec_init))))  # the checkout
    # as the `sinpe` command runs: the checkout is not on sys.path (`python -m pytest` puts the current directory there)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p and os.path.realpath(p) != sources])
    roots = confine.read_roots([], tempfile.gettempdir())
    for name in ("sinpe", "sinpe.spec", "sinpe.proofs", "sinpe.reference"):
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.origin is not None, name
        where = os.path.dirname(os.path.realpath(spec.origin))
        assert any(where == r or where.startswith(r + os.sep) for r in roots), (name, where)
