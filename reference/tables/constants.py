"""The table kernels' constant tables (SPEC.md REQ-TABLE-FAST): sin and cos of 2 pi n / 1024 (the reduction's angle
table, :mod:`sinpe.reference.tables.rounded`) and of 2 pi n / 2^9 and 2 pi n / 2^18 (the progression kernel's fine
tables, :mod:`sinpe.reference.tables.progression`), each a double-double pair hi + lo within 2^-106.

They are defined by mpmath at 256 bits (:func:`build_angle_table`, :func:`build_fine_tables`: the definition) and
shipped as data, ``data/angles-1024.npy`` and ``data/fine-512.npy``, each pinned by the SHA-256 of its bytes
(:data:`PINS`): a process reads 96 KiB instead of spending about 45 ms in mpmath (and importing it). A file that is
missing or is not its pinned bytes is not read: the table is built. ``tests/test_tables.py`` rebuilds both and
compares them with the files bit for bit (``python -m sinpe.reference.tables.constants`` rewrites the files and
prints the pins).

>>> t = angle_table()
>>> t[[0, 2, 1, 2], [256, 256, 512, 512]].tolist()   # sin pi/2, cos pi/2, sin pi (lo), cos pi: exact
[1.0, 0.0, 0.0, -1.0]
>>> f = fine_tables()
>>> f[[0, 2, 2], [128, 128, 256]].tolist()   # sin pi/2, cos pi/2, cos pi: exact
[1.0, 0.0, -1.0]
>>> abs(float(t[0, 1]) - 0.00613588464915447536) < 1e-19   # sin(2 pi / 1024)
True
"""
from __future__ import annotations

import hashlib
import io
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from sinpe.reference.oracles import fast

from ..inputs import LoadError, open_regular, size_of

TABLE_BITS = 10
N_TABLE = 1 << TABLE_BITS   # the angle table's rows: 2 pi n / 1024
FINE_BITS = 9               # the fine tables: 2 pi n / 2^9 and 2 pi n / 2^18, 512 rows each

DATA = Path(__file__).resolve().parent / "data"
# file name -> SHA-256 of its bytes (printed by `python -m sinpe.reference.tables.constants`)
PINS = {
    "angles-1024.npy": "f709c3e55a25349606cfdd3debd272e76ae8929032b07ce8b94aa1e637cafcc4",
    "fine-512.npy": "f098594ccd67daa7a23c4669835b2868006138f3523a99238e7ee95c598dd37d",
}

_TABLES: dict[str, np.ndarray] = {}
_LOCK = threading.Lock()


def angle_table() -> np.ndarray:
    """Array (8, 1024): sin a_n hi, lo, cos a_n hi, lo, then Dekker halves of sin hi and cos hi (a_n = 2 pi n/1024);
    read once, under a lock (worker threads may ask for it at the same time)."""
    return _table("angles-1024.npy", build_angle_table)


def fine_tables() -> np.ndarray:
    """Array (8, 512): sin hi, lo, cos hi, lo of 2 pi n / 2^9, then of 2 pi n / 2^18 (each within 2^-106 and
    |lo| <= u |hi|; exact 0 and +-1 at multiples of pi/2); read once, under a lock."""
    return _table("fine-512.npy", build_fine_tables)


def _table(name: str, build: Callable[[], np.ndarray]) -> np.ndarray:
    with _LOCK:
        if name not in _TABLES:
            got = shipped(name)
            _TABLES[name] = got if got is not None else build()
    return _TABLES[name]


_MAX_BYTES = 1 << 20  # the shipped files are 64 KiB and 32 KiB


def shipped(name: str) -> np.ndarray | None:
    """The shipped table ``name``, read-only; None when its file is missing, is no regular file (a FIFO, a device or
    a directory is never read: :func:`~sinpe.reference.inputs.open_regular`), is over 1 MiB, or is not its pinned
    bytes. (A link to a regular file is read like it: its bytes are pinned.)"""
    try:
        with open_regular(str(DATA / name)) as fh:
            raw = fh.read(_MAX_BYTES + 1) if size_of(fh) <= _MAX_BYTES else b""
    except (LoadError, OSError):
        return None
    if hashlib.sha256(raw).hexdigest() != PINS[name]:
        return None
    out = np.load(io.BytesIO(raw), allow_pickle=False)
    out.setflags(write=False)
    return out


def _dd(v: Any) -> tuple[float, float]:
    """An mpmath value as hi + lo (each rounded to nearest)."""
    hi = float(v)
    return hi, float(v - hi)


def build_angle_table() -> np.ndarray:
    """The angle table by mpmath at 256 bits, in a private context (``mpmath.workprec`` would change the one
    global context under another thread)."""
    import mpmath
    ctx = mpmath.MPContext()
    ctx.prec = 256
    out = np.zeros((8, N_TABLE))
    for n in range(N_TABLE):
        if n % (N_TABLE // 4) == 0:
            q = n // (N_TABLE // 4)
            out[0:4, n] = ((0.0, 0.0, 1.0, 0.0), (1.0, 0.0, 0.0, 0.0), (0.0, 0.0, -1.0, 0.0), (-1.0, 0.0, 0.0, 0.0))[q]
            continue
        a = 2 * ctx.pi * n / N_TABLE
        out[0, n], out[1, n] = _dd(ctx.sin(a))
        out[2, n], out[3, n] = _dd(ctx.cos(a))
    for i, src in ((4, 0), (6, 2)):
        out[i], out[i + 1] = fast._split(out[src])
    out.setflags(write=False)
    return out


def build_fine_tables() -> np.ndarray:
    """The fine tables by mpmath at 256 bits, in a private context."""
    import mpmath
    ctx = mpmath.MPContext()
    ctx.prec = 256
    n_tab = 1 << FINE_BITS
    out = np.zeros((8, n_tab))
    for row, scale in ((0, n_tab), (4, n_tab * n_tab)):
        for n in range(n_tab):
            if scale == n_tab and n % (n_tab // 4) == 0:
                s, c = ((0, 1), (1, 0), (0, -1), (-1, 0))[n // (n_tab // 4)]
                out[row:row + 4, n] = (s, 0.0, c, 0.0)
                continue
            a = 2 * ctx.pi * n / scale
            out[row, n], out[row + 1, n] = _dd(ctx.sin(a))
            out[row + 2, n], out[row + 3, n] = _dd(ctx.cos(a))
    out.setflags(write=False)
    return out


BUILDERS: dict[str, Callable[[], np.ndarray]] = {"angles-1024.npy": build_angle_table, "fine-512.npy": build_fine_tables}


def write() -> dict[str, str]:
    """Build every table, write its file under ``data/`` and return the pins (file name -> SHA-256)."""
    DATA.mkdir(exist_ok=True)
    pins = {}
    for name, build in BUILDERS.items():
        buf = io.BytesIO()
        np.save(buf, np.ascontiguousarray(build()), allow_pickle=False)
        (DATA / name).write_bytes(buf.getvalue())
        pins[name] = hashlib.sha256(buf.getvalue()).hexdigest()
    return pins


if __name__ == "__main__":
    for file, pin in write().items():
        print(f"{file} {pin}")
