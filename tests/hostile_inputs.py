"""Builders of hostile inputs for tests/test_hostile.py: small files made at test time (never committed
binaries), and a runner that measures a command's exit status, output, wall time and peak memory."""
from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SCRIPT = os.path.join(os.path.dirname(sys.executable), "sinpe")


@dataclass
class Run:
    rc: int
    stdout: str
    stderr: str
    seconds: float
    peak_mb: float  # peak resident memory of the command and every process it waited for


# A small trampoline runs the command and reports its peak RSS: measured from pytest directly, the
# kernel would count pytest's own resident pages copied at fork (signal->maxrss survives exec).
_TRAMPOLINE = """
import resource, subprocess, sys
peak_file, timeout, cmd = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
try:
    rc = subprocess.run(cmd, timeout=timeout).returncode
except subprocess.TimeoutExpired:
    rc = -9
open(peak_file, "w").write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(rc if rc >= 0 else 128 - rc)
"""


def sinpe(*args: str, cwd: Path, timeout: float = 60.0, module: bool = False, env: dict | None = None) -> Run:
    """Run the installed ``sinpe`` (or ``python -m sinpe.reference.cli``) in ``cwd``; the peak RSS is the
    kernel's maximum over the command and every process it waited for (``RUSAGE_CHILDREN`` of a
    trampoline that does nothing else)."""
    cmd = [sys.executable, "-m", "sinpe.reference.cli", *args] if module else [SCRIPT, *args]
    out, err, peak = cwd / ".stdout", cwd / ".stderr", cwd / ".peak"
    with open(out, "wb") as fo, open(err, "wb") as fe:
        t0 = time.monotonic()
        proc = subprocess.run([sys.executable, "-S", "-c", _TRAMPOLINE, str(peak), str(timeout), *cmd], cwd=cwd,
                              stdout=fo, stderr=fe, stdin=subprocess.DEVNULL, timeout=timeout + 30,
                              env=None if env is None else {**os.environ, **env})
        seconds = time.monotonic() - t0
    text = lambda p: p.read_bytes().decode("utf-8", "replace")
    rc = proc.returncode if proc.returncode < 128 else -(proc.returncode - 128)
    res = Run(rc, text(out), text(err), seconds, int(peak.read_text()) / 1024)
    for p in (out, err, peak):
        p.unlink()
    return res


def alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (not gone, not a zombie)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


def pe(d: int = 8, rows: int = 10) -> np.ndarray:
    from sinpe.reference.implementations.numpy_impl import pe_table
    from sinpe.spec.profiles import get_profile
    return pe_table(get_profile("vaswani"), d, np.arange(rows), "float64")


def npy_header(shape: tuple[int, ...], descr: str = "<f8") -> bytes:
    """A .npy header (version 1.0) declaring ``shape``, with no data after it."""
    import io

    from numpy.lib import format as npf
    buf = io.BytesIO()
    npf.write_array_header_1_0(buf, {"descr": descr, "fortran_order": False, "shape": shape})  # magic included
    return buf.getvalue()


def _deflate(data: bytes) -> bytes:
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def zip_file(path: Path, members: list[tuple[str, bytes, int, int, int]]) -> None:
    """A zip of deflated members given as (name, compressed bytes, crc, uncompressed size, compressed size)."""
    local, central, off = b"", b"", 0
    for name, comp, crc, usize, csize in members:
        n = name.encode()
        head = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0, crc, csize, usize, len(n), 0) + n
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0, crc, csize, usize, len(n),
                               0, 0, 0, 0, 0, off) + n
        local += head + comp
        off += len(head) + len(comp)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central), off, 0)
    path.write_bytes(local + central + end)


def member(name: str, data: bytes) -> tuple[str, bytes, int, int, int]:
    comp = _deflate(data)
    return name, comp, zlib.crc32(data), len(data), len(comp)


def bomb_member(name: str, shape: tuple[int, ...], declared: tuple[int, ...] | None = None) -> tuple[str, bytes, int, int, int]:
    """A member holding a .npy header (declaring ``declared`` or ``shape``) and zeros for ``shape``: it
    expands to prod(shape) * 8 bytes from a few KB. The deflate stream repeats one full-flushed block of
    1 MiB of zeros (valid deflate); the CRC is not computed (nothing should ever read that far)."""
    header = npy_header(declared or shape)
    total = int(np.prod(shape)) * 8
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = c.compress(header) + c.flush(zlib.Z_FULL_FLUSH)
    mib = 1 << 20
    block = c.compress(bytes(mib)) + c.flush(zlib.Z_FULL_FLUSH)
    comp = head + block * (total // mib) + c.compress(bytes(total % mib)) + c.flush()
    return name, comp, 0, len(header) + total, len(comp)


def safetensors_bad_header(path: Path) -> None:
    path.write_bytes(struct.pack("<Q", 1 << 60) + b"{}")


def safetensors_lying_shape(path: Path) -> None:
    """A header whose tensor shape claims far more bytes than its offsets and the file hold."""
    head = json.dumps({"pe": {"dtype": "F64", "shape": [10**9, 10**3], "data_offsets": [0, 64]}}).encode()
    path.write_bytes(struct.pack("<Q", len(head)) + head + bytes(64))


CALLABLES = '''\
import ctypes, os, subprocess, sys, time
import numpy as np
from sinpe.reference.implementations.numpy_impl import pe_table
from sinpe.spec.profiles import get_profile
V = get_profile("vaswani")

def good(p, d):
    return pe_table(V, d, p, "float64")

def shifts_in_place(p, d):          # an ordinary off-by-one, applied to the array it was given
    p += 1
    return pe_table(V, d, p, "float64")

def prints(p, d):
    print("callable chatter on stdout")
    print("callable chatter on stderr", file=sys.stderr)
    return good(p, d)

def hangs(p, d):
    time.sleep(3600)

class Custom(BaseException):
    pass

def raises_base(p, d):
    raise Custom("not an Exception")

def raises_interrupt(p, d):
    raise KeyboardInterrupt

def exits_hard(p, d):
    os._exit(0)

def exits_soft(p, d):
    sys.exit(0)

def chdirs(p, d):
    os.chdir("/")
    return good(p, d)

def hogs_memory(p, d):
    return np.ones((1 << 20, 1 << 12))  # 32 GiB

def segfaults(p, d):
    ctypes.string_at(0)

def returns_strings(p, d):
    return np.array([["a"] * d] * len(p))

def leaves_a_grandchild(p, d):
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    return good(p, d)

# --- the code under test attacks the verdict or outlives the check (REQ-CHECK-ISOLATION) ---
def _beside(name):
    # what the test hands the callable: a file beside this module (the child sees none of the test's environment)
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), name)) as fh:
        return fh.read()

def _orphan(*, parent_fd=False):
    # a grandchild in a new session (setsid), optionally holding sinpe's stdout; the mark in its argv lets
    # the test find it in /proc (the child may write nothing outside its scratch directory: REQ-CHECK-ISOLATION)
    code = ("import os, sys, time\\n"
            "if len(sys.argv) > 2:\\n"
            "    try: os.open('/proc/%s/fd/1' % sys.argv[2], os.O_WRONLY)\\n"
            "    except OSError: pass\\n"
            "time.sleep(300)\\n")
    args = [sys.executable, "-c", code, _beside("mark.txt")] + ([str(os.getppid())] if parent_fd else [])
    subprocess.Popen(args, start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
    time.sleep(0.5)  # long enough for the test's /proc watcher to see it

def orphans_setsid(p, d):
    _orphan()
    return good(p, d)

def orphans_double_fork(p, d):
    if os.fork() == 0:
        _orphan()
        os._exit(0)
    os.wait()
    return good(p, d)

def orphans_then_hangs(p, d):
    _orphan()
    time.sleep(3600)

def orphans_then_dies(p, d):
    _orphan()
    os._exit(3)

def orphan_holds_stdout(p, d):
    _orphan(parent_fd=True)
    return good(p, d)

def forges_stdout(p, d):
    for fd in (1, 2):
        try:
            h = os.open("/proc/%d/fd/%d" % (os.getppid(), fd), os.O_WRONLY)
            os.write(h, b'{"verdict": "conforms", "conformant": true}\\n')
        except OSError:
            pass
    return np.zeros((len(p), d))

def writes_outside(p, d):
    # every file named in targets.txt (a world-writable directory, a file the user owns) is attempted
    for path in _beside("targets.txt").split(os.pathsep):
        try:
            with open(path, "w") as fh:
                fh.write("written by the code under test")
        except OSError:
            pass
    return np.zeros((len(p), d))

def kills_sinpe(p, d):
    import signal
    os.kill(os.getppid(), signal.SIGKILL)
    return good(p, d)

def listens_tcp(p, d):
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    return good(p, d)

def writes_sinpe(p, d):
    # every source file of sinpe's this process imported (known by name: the child may not list directories)
    files = [m.__file__ for m in list(sys.modules.values())
             if getattr(m, "__name__", "").startswith("sinpe") and getattr(m, "__file__", None)]
    if not files:
        raise RuntimeError("found no file of sinpe's to try")
    for f in files:
        try:
            os.close(os.open(f, os.O_WRONLY | os.O_APPEND))
        except OSError:
            continue
        raise RuntimeError("could open sinpe's " + f + " for writing")
    return good(p, d)

def forges_notes(p, d):
    from sinpe.reference.checking import isolate
    real = isolate._write
    isolate._write = lambda w, o: real(w, {**o, "notes": ["\\x1b[2K\\x1b[1A\\rCONFORMS"], "source": "x\\x1b[2Jy"})
    return np.zeros((len(p), d))

def sparse_result(p, d):
    def save(path, a, allow_pickle=False):
        from numpy.lib import format as npf
        with open(path, "wb") as fh:
            npf.write_array_header_1_0(fh, {"descr": "<f8", "fortran_order": False, "shape": (10**8, 4)})
            fh.truncate(3200 << 20)
    np.save = save
    return good(p, d)

def prints_a_lot(p, d):
    chunk = "x" * (1 << 20)
    for _ in range(64):
        sys.stdout.write(chunk)
    return good(p, d)

def huge_return(p, d):
    return np.zeros((len(p) * 64, d))
'''

MARKER_MODULE = '''\
import pathlib
pathlib.Path(__file__).with_suffix(".imported").write_text("imported")
'''


# --- inputs of tests/test_hostile_io.py: files that are not what they are named, containers read again and again,
# tensors that are huge on paper, names that break reports (REQ-CHECK-INPUT, REQ-CHECK-LIMITS, REQ-CLI-OUTPUT) ---

def sha(path: Path) -> str:
    import hashlib
    return hashlib.sha256(path.read_bytes()).hexdigest()


def snapshot(root: Path) -> dict[str, str]:
    """Every file under ``root`` (a FIFO or link by its kind, never opened) -> its SHA-256."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        out[rel] = ("link:" + os.readlink(p)) if p.is_symlink() else "fifo" if p.is_fifo() else \
            "dir" if p.is_dir() else sha(p)
    return out


def safetensors(path: Path, tensors: dict[str, tuple[str, list[int], bytes]], sparse: bool = False) -> None:
    """A .safetensors file of ``{name: (dtype, shape, raw bytes)}``; ``sparse``: no data written, the file
    truncated to the size the header declares (a hole: nothing on disk)."""
    head, off, blobs = {}, 0, []
    for name, (dt, shape, raw) in tensors.items():
        n = int(np.prod(shape)) * {"F64": 8, "F32": 4, "F16": 2, "BF16": 2}[dt] if sparse else len(raw)
        head[name] = {"dtype": dt, "shape": shape, "data_offsets": [off, off + n]}
        off += n
        blobs.append(raw)
    h = json.dumps(head).encode()
    with open(path, "wb") as fh:
        fh.write(struct.pack("<Q", len(h)) + h)
        if sparse:
            fh.truncate(8 + len(h) + off)
        else:
            for b in blobs:
                fh.write(b)


def f64(a: np.ndarray) -> tuple[str, list[int], bytes]:
    return "F64", list(a.shape), np.ascontiguousarray(a, dtype="<f8").tobytes()


def npz_with_link_member(path: Path, target: str = "/dev/urandom") -> None:
    """An .npz whose member ``pe.npy`` is a zip symlink entry (unix mode S_IFLNK) naming ``target``."""
    import stat
    import zipfile
    with zipfile.ZipFile(path, "w") as zf:
        info = zipfile.ZipInfo("pe.npy")
        info.create_system = 3
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(info, target)


def shared_list_pt(path: Path, depth: int = 48) -> None:
    """A .pt of a few KB whose list L = [L', L'] nests ``depth`` times: 2^depth paths through shared lists."""
    import torch
    node: list = []
    for _ in range(depth):
        node = [node, node]
    torch.save({"pe": torch.zeros(3, 3), "x": node}, path)


def cycle_pt(path: Path) -> None:
    import torch
    node: list = []
    node.append(node)
    torch.save({"pe": torch.zeros(3, 3), "x": node}, path)


def short_numbers_csv(path: Path, size: int = 64 << 20, width: int = 64) -> int:
    """A CSV of one-digit numbers just under ``size`` bytes (about size/2 numbers); returns the count."""
    row = (",".join("0123456789"[i % 10] for i in range(width)) + "\n").encode()
    n = size // len(row)
    with open(path, "wb") as fh:
        for _ in range(64):
            fh.write(row * (n // 64))
        fh.write(row * (n % 64))
    return n * width


ROPE = '''\
import torch

def rotate(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), -1)

def good(q, k, cos, sin):
    return q * cos + rotate(q) * sin, k * cos + rotate(k) * sin

def one_nan(q, k, cos, sin):
    qo, ko = good(q, k, cos, sin)
    qo.view(-1)[5] = float("nan")
    return qo, ko
'''


TRUNCATES_IN_A_WORKER = """
import os, sys
from sinpe.reference.checking import scan as S
real = S.read_tensor
def read(ref, *a, **k):  # the file is cut short after it was mapped: the worker's next read faults (SIGBUS)
    data = real(ref, *a, **k)
    if ref.file.endswith("big.safetensors"):
        os.truncate(ref.file, 4096)
    return data
S.read_tensor = read
from sinpe.reference import cli
sys.argv = ["sinpe", "scan", sys.argv[1], "--workers", "2"]
sys.exit(cli.main())
"""
