"""Where sinpe writes (SPEC.md REQ-CLI-OUTPUT): one rule for every output file, and one way to write it.

:func:`output_problem` is the rule every output flag (``--junit``, ``sinpe table --out``, ``sinpe scan --out``)
passes before a command does any work: the file to write is never one of the files the command reads (the
table, the caches, a positions file, the checkpoint, a shard an index names, an ONNX model's external data, the
JSON lines ``scan --merge`` merges), never under a directory it reads (the scanned directory, the named
module's package), never the named module's source, and never an existing
directory, FIFO or device. :func:`reads_of` says what a command's argument reads. :func:`write_atomic`
writes whole or not at all: a temporary file created ``O_EXCL`` beside the target (``mkstemp``: never a
link followed), renamed over it (a link at the target is replaced, never followed).

>>> import os, tempfile
>>> d = tempfile.mkdtemp(); p = os.path.join(d, "w.safetensors"); open(p, "wb").close()
>>> output_problem("--junit", p, reads_of(p))
"--junit '/...w.safetensors' is the input '/...w.safetensors'; it would be overwritten"
>>> output_problem("--junit", os.path.join(d, "r.xml"), reads_of(d))
"--junit '/...r.xml' is under the scanned directory '/...'; a report is never written among the inputs"
>>> output_problem("--junit", os.path.join(d, "r.xml"), reads_of(p)) is None
True
"""
from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass

from sinpe.reference.checking.loaders import is_callable_target

from ..inputs import LoadError

INDEX_SUFFIX = ".index.json"


@dataclass(frozen=True)
class Read:
    """A file (or, ``tree``, a whole directory) a command reads, and what it is to it."""

    path: str
    what: str
    tree: bool = False


def reads_of(value: str | None) -> list[Read]:
    """What reading the argument ``value`` reads: a ``module:callable``'s source or package directory, a directory
    (scanned: everything under it), a file (and, for a safetensors index, every shard it names); nothing for a
    value that names no file (a position spec such as ``0:64``)."""
    if not isinstance(value, str) or not value:
        return []
    if is_callable_target(value):
        return module_reads(value)
    if os.path.isdir(value):
        return [Read(value, "the scanned directory", tree=True)]
    if not os.path.lexists(value):
        return []
    return [Read(value, "the input")] + (_shards(value) if value.endswith(INDEX_SUFFIX) else
                                         _external_data(value) if value.lower().endswith(".onnx") else [])


def _shards(index: str) -> list[Read]:
    from sinpe.reference.checking.scan_files import _index_shards  # (read only for an index: kept off the start-up path)
    try:
        return [Read(s, f"a shard the index {index!r} names") for s in _index_shards(index)]
    except LoadError:  # the scan says why; the index itself is still an input
        return []


def _external_data(model: str) -> list[Read]:
    """The external-data files an ``.onnx`` model names (REQ-IO-FORMATS): inputs too."""
    from sinpe.reference.checking.exported import external_files  # (only for an .onnx: kept off the start-up path)
    try:
        return [Read(f, f"external data of the model {model!r}") for f in external_files(model)]
    except LoadError:  # the scan or check says why; the model itself is still an input
        return []


def module_reads(target: str) -> list[Read]:
    """The named module's source file, or its package directory, found as the child finds it (the current
    directory first, then ``sys.path``) without importing anything."""
    from importlib.machinery import PathFinder
    top = target.partition(":")[0].split(".")[0]
    try:
        spec = PathFinder.find_spec(top, [os.getcwd()]) or PathFinder.find_spec(top)
    except (ImportError, ValueError, OSError):
        spec = None
    if spec is None:
        return []
    if spec.submodule_search_locations:
        return [Read(d, f"the package directory of {top}", tree=True) for d in spec.submodule_search_locations]
    return [Read(spec.origin, f"the source of module {top}")] if spec.origin and os.path.exists(spec.origin) else []


def output_problem(flag: str, path: str, reads: Iterable[Read]) -> str | None:
    """Why ``path`` may not be written by ``flag`` (one line), or None: the one rule of every output (module
    docstring). Links are resolved in the directory part only: the file itself is replaced, never followed."""
    if not path:
        return f"{flag}: an empty file name"
    out = os.path.abspath(path)
    parent = os.path.dirname(out)
    if os.path.isdir(out):
        return f"{flag}: {path!r} is a directory; name the file to write"
    if not os.path.isdir(parent):
        return f"{flag}: directory of {path!r} does not exist"
    try:
        mode = os.lstat(out).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        return f"{flag} {path!r} exists and is not a regular file; name a new or regular file"
    real = os.path.join(os.path.realpath(parent), os.path.basename(out))
    for r in reads:
        why = _clash(real, r)
        if why:
            return f"{flag} {path!r} {why}"
    return None


def _clash(real: str, r: Read) -> str | None:
    where = os.path.realpath(r.path)
    if r.tree:
        if os.path.commonpath([real, where]) == where:
            return f"is under {r.what} {r.path!r}; a report is never written among the inputs"
        return None
    if real == where or real == os.path.join(os.path.realpath(os.path.dirname(os.path.abspath(r.path))),
                                             os.path.basename(r.path)) or _same_file(real, r.path):
        return f"is {r.what} {r.path!r}; it would be overwritten"
    return None


def _same_file(a: str, b: str) -> bool:
    """The same inode (a hard link to the input), links not followed for ``a`` (the entry a rename replaces)."""
    try:
        x, y = os.lstat(a), os.stat(b)
    except OSError:
        return False
    return (x.st_dev, x.st_ino) == (y.st_dev, y.st_ino)


def write_atomic(path: str, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all: a temporary file with a random name created
    ``O_CREAT | O_EXCL`` (``mkstemp``: never a symlink followed) beside it, then renamed over it. A
    ``path`` that exists and is not a regular file (a device, a FIFO) is refused, never replaced."""
    from sinpe.reference.files import atomic_file
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        raise OSError(f"{path}: exists and is not a regular file; not replaced")
    with atomic_file(path, text=True) as fh:
        fh.write(text)
