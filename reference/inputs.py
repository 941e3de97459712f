"""Reading an untrusted input file, below every layer that reads one (SPEC.md REQ-CHECK-INPUT, REQ-CLI-EXIT): the
error every reader raises (:class:`LoadError`, one line), the helpers that keep what such a line quotes printable and
short (:func:`escape`, :func:`one_line`), regular files opened once and the safe ``.npy`` reader.

Only regular files are read: :func:`open_regular` opens with ``O_NONBLOCK`` (a FIFO never blocks the
open) and ``fstat``\\ s the descriptor it got; a FIFO, a device, a socket or a directory is refused in one
line, whatever name it has and wherever a link points. Everything after reads that descriptor: the
check of what a file is and the read of it are one open. A ``.npy`` file is memory-mapped read-only after
its header is checked against the file's size; a pickled (object) array is refused (:func:`npy_file`).
The other containers (``.npz``, ``.pt``, ``.safetensors``, text tables) are read by
:mod:`sinpe.reference.checking.containers`.

It imports none of sinpe: the numerics (a ``--positions`` file) and the checker read through it alike.

>>> import os, tempfile, numpy as np
>>> d = tempfile.mkdtemp(); p = os.path.join(d, "t.npy"); np.save(p, np.eye(3))
>>> with open_regular(p) as fh:
...     npy_array(fh).shape
(3, 3)
>>> os.mkfifo(os.path.join(d, "pipe.npy"))
>>> open_regular(os.path.join(d, "pipe.npy"))
Traceback (most recent call last):
...
sinpe.reference.inputs.LoadError: /...pipe.npy: is a FIFO (named pipe), not a regular file
>>> one_line(ValueError("bad\\n  value\\x1b[31m"))
'bad value\\\\x1b[31m'
"""
from __future__ import annotations

import errno
import math
import os
import shlex
import stat
from typing import Any, BinaryIO

import numpy as np


class LoadError(ValueError):
    """A table or callable that cannot be used: one line, exit status 2."""


def one_line(e: BaseException) -> str:
    """``e``'s message (or its type's name) on one line, escaped, at most 160 characters."""
    s = escape(" ".join(str(e).split()) or type(e).__name__)
    return s if len(s) <= 160 else s[:157] + "..."


def escape(s: str) -> str:
    """``s`` with control and other non-printable characters as Python escapes: one line, no terminal
    control sequences (REQ-CLI-EXIT).

    >>> escape("a\\nb\\x1b[31m")
    'a\\\\nb\\\\x1b[31m'
    """
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in s)


def shell_word(s: str) -> str:
    """``s`` as one printable shell word that gives ``s`` back: as is when it needs no quoting, in single quotes
    when it is printable, else in ANSI-C quotes (``$'...'``: bash, zsh, ksh, POSIX.1-2024 sh) with the other
    characters escaped: ``\\xHH`` for an ASCII control character and for a byte that is not UTF-8 (a name
    decoded with ``surrogateescape``), ``\\uHHHH`` / ``\\UHHHHHHHH`` for any other character (REQ-CLI-EXIT: no
    control sequence reaches the terminal; a printed command runs as printed).

    >>> print(shell_word("t.npy"), shell_word("my cos.npy"), shell_word("it's"), shell_word("a\\nb\\x1b"))
    t.npy 'my cos.npy' 'it'"'"'s' $'a\\nb\\x1b'
    >>> print(shell_word("\\u00a0x'\\\\"), shell_word("\\udcff.npy"))
    $'\\u00a0x\\'\\\\' $'\\xff.npy'
    """
    if all(c.isprintable() for c in s):
        return shlex.quote(s)
    out = []
    for c in s:
        n = ord(c)
        if c in "\\'":
            out.append("\\" + c)
        elif c.isprintable():
            out.append(c)
        elif c in "\n\t\r":
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}[c])
        elif n < 0x80:
            out.append(f"\\x{n:02x}")
        elif 0xDC80 <= n <= 0xDCFF:  # a byte of a name that is not UTF-8 (os.fsdecode's surrogateescape)
            out.append(f"\\x{n - 0xDC00:02x}")
        else:
            out.append(f"\\u{n:04x}" if n <= 0xFFFF else f"\\U{n:08x}")
    return "$'" + "".join(out) + "'"


def path_word(s: str) -> str:
    """A file name as one shell word (:func:`shell_word`) that a command line reads as that file, never as an
    option: a name that starts with ``-`` (``-t.npy``, ``--t.npy``, given after ``--`` or as ``--cos=-c.npy``),
    which argparse would read as a flag, is printed relative to the current directory (``./-t.npy``: the same
    file); an absolute name, or one that starts otherwise, is printed as :func:`shell_word` prints it.

    >>> print(path_word("-t.npy"), path_word("--my t.npy"), path_word("t.npy"), path_word("/d/-t.npy"))
    ./-t.npy './--my t.npy' t.npy /d/-t.npy
    """
    return shell_word("./" + s if s.startswith("-") else s)


def option_words(flag: str, value: str) -> str:
    """``--flag VALUE`` as a printed command line gives it back: ``--flag=VALUE`` when the value starts with ``-``
    (argparse reads ``--positions -3:5`` or ``--key -x`` as a flag with no value), the value one shell word.

    >>> print(option_words("--positions", "-3:5"), option_words("--positions", "my p.npy"))
    --positions=-3:5 --positions 'my p.npy'
    """
    return f"{flag}={shell_word(value)}" if value.startswith("-") else f"{flag} {shell_word(value)}"


# --- regular files, opened once -------------------------------------------------------------------------

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_MODES = ((stat.S_ISDIR, "is a directory"), (stat.S_ISFIFO, "is a FIFO (named pipe)"),
          (stat.S_ISCHR, "is a character device"), (stat.S_ISBLK, "is a block device"),
          (stat.S_ISSOCK, "is a socket"), (stat.S_ISLNK, "is a symbolic link"))


def not_regular(mode: int) -> str | None:
    """Why a file of this ``st_mode`` is not read (``is a FIFO (named pipe)``, ...); None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((words for test, words in _MODES if test(mode)), "is not a regular file")


def open_regular(path: str, *, follow: bool = True, what: str = "") -> BinaryIO:
    """``path`` open for reading (binary, named ``path``) when it is a regular file, else LoadError in one line:
    opened ``O_NONBLOCK`` (and ``O_NOFOLLOW`` unless ``follow``), then the descriptor's ``fstat`` decides.
    ``what`` ends the message of a missing file (`` (a table file or module:callable)``)."""
    def opener(p: str, _flags: int) -> int:
        fd = os.open(p, os.O_RDONLY | _NONBLOCK | _CLOEXEC | (0 if follow else _NOFOLLOW))
        why = not_regular(os.fstat(fd).st_mode)
        if why:
            os.close(fd)
            raise LoadError(f"{p}: {why}, not a regular file")
        return fd
    try:
        return open(path, "rb", opener=opener)
    except LoadError:
        raise
    except FileNotFoundError:
        raise LoadError(f"{path}: no such file{what}") from None
    except OSError as e:
        if e.errno == errno.ELOOP and not follow:
            raise LoadError(f"{path}: is a symbolic link; not followed") from None
        raise LoadError(f"{path}: cannot be read ({e.strerror or one_line(e)})") from None


def size_of(fh: BinaryIO) -> int:
    return os.fstat(fh.fileno()).st_size


# --- .npy -------------------------------------------------------------------------------------------

def npy_header(fh: Any, where: str) -> tuple[tuple[int, ...], bool, np.dtype, int]:
    """(shape, fortran order, dtype, header bytes) of the ``.npy`` stream at ``fh``'s position; a pickled
    (object) dtype or a bad shape is refused."""
    from numpy.lib import format as npf
    try:
        version = npf.read_magic(fh)
        if version == (1, 0):
            shape, fortran, dtype = npf.read_array_header_1_0(fh)
        elif version == (2, 0):
            shape, fortran, dtype = npf.read_array_header_2_0(fh)
        else:  # 3.0: utf-8 field names
            from numpy.lib import _format_impl
            shape, fortran, dtype = _format_impl._read_array_header(fh, version)  # type: ignore[attr-defined]
    except Exception as e:
        raise LoadError(f"{where}: not a readable .npy file ({one_line(e)})") from None
    if dtype.hasobject:
        raise LoadError(f"{where} holds a pickled object array: refused (sinpe never unpickles)")
    if not isinstance(shape, tuple) or any(not isinstance(n, int) or n < 0 for n in shape):
        raise LoadError(f"{where}: not a readable .npy file (bad shape {shape})")
    return shape, bool(fortran), dtype, fh.tell()


def npy_array(fh: BinaryIO) -> np.ndarray:
    """The ``.npy`` file ``fh`` as a read-only memory map, its header checked against the file's size first."""
    shape, fortran, dtype, hlen = npy_header(fh, fh.name)
    nbytes = math.prod(shape) * dtype.itemsize
    if hlen + nbytes > size_of(fh):
        raise LoadError(f"{fh.name}: not a readable .npy file (its header declares {nbytes} bytes of data; the "
                        f"file holds {size_of(fh) - hlen})")
    return mapped(fh, dtype, hlen, shape, "F" if fortran else "C", fh.name)


def npy_file(path: str) -> np.ndarray:
    """The ``.npy`` file at ``path`` (a regular file), memory-mapped after its header is checked (:func:`npy_array`)."""
    with open_regular(path) as fh:
        return npy_array(fh)


def mapped(fh: BinaryIO, dtype: Any, offset: int, shape: tuple[int, ...], order: Any, where: str) -> np.ndarray:
    """``shape`` values of ``dtype`` at ``offset`` of ``fh``, memory-mapped read-only (no bytes: an empty array);
    an array NumPy cannot represent (more than 64 dimensions) is a LoadError."""
    try:
        if math.prod(shape) == 0:
            return np.zeros(shape, dtype=dtype)
        return np.memmap(fh, dtype=dtype, mode="r", offset=offset, shape=shape or (1,), order=order).reshape(shape)
    except (ValueError, TypeError, OverflowError, OSError) as e:
        raise LoadError(f"{where}: cannot be read ({one_line(e)})") from None
