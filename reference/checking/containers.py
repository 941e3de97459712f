"""The containers a table or a checkpoint comes in, read as untrusted input (SPEC.md REQ-CHECK-INPUT, REQ-CHECK-LIMITS).

Every file is opened by :func:`sinpe.reference.inputs.open_regular` (a regular file only, judged by the
``fstat`` of the descriptor it reads) and a ``.npy`` file read by :func:`sinpe.reference.inputs.npy_file`;
this module reads the containers above that.

Each container is read once per file (:func:`per_file`: an ``.npz`` archive's member index, a ``.pt``'s
tensors, a ``.safetensors`` header), so listing or reading its N tensors costs N, not N^2. Every size is
checked against the file before it is used; a ``.pt`` pickle is bounded by its size, its operations
(:data:`MAX_PICKLE_OPS`) and the objects and references visited naming its tensors (:data:`MAX_GRAPH_VISITS`:
a shared-list DAG ``L = [L, L]`` would expand to 2^depth paths); text tables are parsed line by line
into float64, at most :data:`MAX_TEXT_ENTRIES` numbers.
"""
from __future__ import annotations

import io
import json
import math
import os
import re
import stat
from array import array
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, BinaryIO

import numpy as np

from ..inputs import LoadError, escape, mapped, not_regular, npy_header, one_line, open_regular, size_of

MAX_TEXT_BYTES = 64 << 20       # a .csv/.json table (bigger ones: save as .npy, which is streamed)
MAX_TEXT_ENTRIES = 1 << 22      # numbers in a .csv/.json table (4 194 304: 32 MiB as float64)
MAX_DECOMPRESSED = 1 << 31      # bytes an .npz member or a .pt archive may expand to
MAX_HEADER_BYTES = 100 << 20    # a .safetensors header
MAX_MEMBERS = 10_000            # members of an .npz / .pt archive
MAX_PICKLE_BYTES = 16 << 20     # the pickle of a .pt archive (its tensors' storages excluded)
MAX_PICKLE_OPS = 1 << 22        # operations in that pickle (objects built and references taken)
MAX_GRAPH_VISITS = 1 << 20      # objects and references visited naming a .pt's tensors
MAX_GRAPH_DEPTH = 100           # containers nested in a .pt (a state dict is a few deep)

# a decimal number as text: no underscores, no hex, no spaces inside ('0.8_4' is not a number)
_DECIMAL = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:inf|infinity|nan)"
_NUMBER = re.compile(_DECIMAL, re.IGNORECASE)
_CSV_LINE = re.compile(rf"\s*(?:{_DECIMAL})\s*(?:,\s*(?:{_DECIMAL})\s*)*", re.IGNORECASE)


# --- open files, each container read once ------------------------------------------------------------

@contextmanager
def opened(src: str | os.PathLike[str] | BinaryIO) -> Iterator[BinaryIO]:
    """``src`` itself when it is an open file, else :func:`open_regular` of it (closed afterwards)."""
    if isinstance(src, (str, os.PathLike)):
        with open_regular(os.fspath(src)) as fh:
            yield fh
    else:
        yield src


def identity(fh: BinaryIO) -> tuple[Any, ...]:
    """What a file is for :func:`per_file`: its name, device, inode, size and modification time."""
    st = os.fstat(fh.fileno())
    return fh.name, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def fd_path(fh: BinaryIO) -> str:
    """A path that opens the very file ``fh`` has open (``/proc/self/fd/N`` on Linux; else its name): for
    readers that take only a path (torch's memory-mapped load), so no other file can be swapped in."""
    proc = f"/proc/self/fd/{fh.fileno()}"
    return proc if os.path.exists(proc) else str(fh.name)


_CACHE: dict[str, tuple[tuple[Any, ...], Any]] = {}


def per_file(kind: str, fh: BinaryIO, build: Callable[[BinaryIO], Any]) -> Any:
    """``build(fh)``, computed once per file (:func:`identity`) and process for each ``kind``: the last file of
    each kind is remembered (a scan reads a container's tensors one after the other). A value with a
    ``close`` method is closed when another file replaces it."""
    key = (os.getpid(), *identity(fh))
    hit = _CACHE.get(kind)
    if hit is not None and hit[0] == key:
        return hit[1]
    value = build(fh)
    if hit is not None and hasattr(hit[1], "close"):
        hit[1].close()
    _CACHE[kind] = (key, value)
    return value


# --- .npz: the member index, read once per archive -----------------------------------------------------

@dataclass(frozen=True)
class Member:
    """An ``.npz`` member: its zip entry and its ``.npy`` header."""

    info: Any
    shape: tuple[int, ...]
    fortran: bool
    dtype: np.dtype
    header_bytes: int


class Npz:
    """An open ``.npz`` archive and every member's header (at most :data:`MAX_MEMBERS`), read once."""

    def __init__(self, fh: BinaryIO) -> None:
        import zipfile
        self.path = str(fh.name)
        self._file = os.fdopen(os.dup(fh.fileno()), "rb")  # its own descriptor: the caller may close fh
        try:
            self.zf = zipfile.ZipFile(self._file)
            infos = self.zf.infolist()
            if len(infos) > MAX_MEMBERS:
                raise LoadError(f"{self.path}: {len(infos)} members; at most {MAX_MEMBERS}")
            self.members = {npz_name(i): self._member(i) for i in infos}
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as e:
            self.close()
            if isinstance(e, LoadError):
                raise
            raise LoadError(f"{self.path}: not a readable .npz file ({one_line(e)})") from None
        except BaseException:
            self.close()
            raise

    def _member(self, info: Any) -> Member:
        plain_member(info, self.path)
        with self.zf.open(info) as fh:
            shape, fortran, dtype, hlen = npy_header(fh, f"{self.path}: member {escape(info.filename)!r}")
        return Member(info, shape, fortran, dtype, hlen)

    def read(self, name: str) -> np.ndarray:
        """The member ``name``'s values, after its header's size is checked against the archive and the budget
        (a 4 MB file cannot expand to 4 GiB); the member is read to its end (the CRC is checked)."""
        import zipfile
        m, where = self.members[name], f"{self.path}[{name}]"
        nbytes = math.prod(m.shape) * m.dtype.itemsize
        if nbytes > MAX_DECOMPRESSED:
            raise LoadError(f"{where}: shape {m.shape} of {m.dtype} is {nbytes} bytes, more than the "
                            f"{MAX_DECOMPRESSED} an .npz member may expand to; save it as .npy (streamed)")
        if m.info.file_size != m.header_bytes + nbytes:
            raise LoadError(f"{where}: the archive says {m.info.file_size} bytes, the header {m.header_bytes + nbytes}")
        try:
            with self.zf.open(m.info) as fh:
                fh.read(m.header_bytes)
                buf = fh.read(nbytes)
                fh.read(1)  # end of member: the CRC is checked
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as e:
            raise LoadError(f"{where}: corrupt member ({one_line(e)})") from None
        if len(buf) != nbytes:
            raise LoadError(f"{where}: truncated member")
        try:
            return np.frombuffer(buf, dtype=m.dtype).reshape(m.shape, order="F" if m.fortran else "C")
        except ValueError as e:
            raise LoadError(f"{where}: cannot be read ({one_line(e)})") from None

    def close(self) -> None:
        zf = getattr(self, "zf", None)
        if zf is not None:
            zf.close()
        self._file.close()


def npz_name(info: Any) -> str:
    """A member's array name (``pe.npy`` -> ``pe``)."""
    return info.filename[:-4] if info.filename.endswith(".npy") else info.filename


def npz_archive(fh: BinaryIO) -> Npz:
    """The :class:`Npz` of the file ``fh`` (built once per file: :func:`per_file`)."""
    return per_file("npz", fh, Npz)


def plain_member(info: Any, path: str) -> None:
    """A zip entry that is a file's bytes: not a symlink, device or directory entry, not encrypted."""
    kind = stat.S_IFMT(info.external_attr >> 16)
    why = "a directory entry" if info.is_dir() else None
    if kind and not stat.S_ISREG(kind):
        why = (not_regular(kind) or "").replace("is ", "", 1) + " entry"
    elif info.flag_bits & 0x1:
        why = "encrypted"
    if why:
        raise LoadError(f"{path}: member {escape(info.filename)!r} is {why}, not a file's bytes; refused")


# --- .safetensors: the header, read once per file -------------------------------------------------------

ST_NUMPY = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2", "I64": "<i8", "I32": "<i4", "I16": "<i2",
            "I8": "i1", "U8": "u1", "U16": "<u2", "U32": "<u4", "U64": "<u8", "BOOL": "?"}
_ST_ITEMSIZE = {**{k: np.dtype(v).itemsize for k, v in ST_NUMPY.items()}, "F8_E4M3": 1, "F8_E5M2": 1}


def safetensors_header(fh: BinaryIO) -> tuple[int, dict[str, Any]]:
    """(header bytes, {tensor name: its entry}) of a ``.safetensors`` file, read once per file; the header's
    length, every shape and every offset checked against the file's real size (REQ-CHECK-LIMITS)."""
    return per_file("safetensors", fh, _read_safetensors_header)


def _read_safetensors_header(fh: BinaryIO) -> tuple[int, dict[str, Any]]:
    path, size = fh.name, size_of(fh)
    fh.seek(0)
    n = int.from_bytes(fh.read(8), "little")
    if size < 8 or n > min(size - 8, MAX_HEADER_BYTES):
        raise LoadError(f"{path}: header of {n} bytes in a file of {size}; not a readable .safetensors file")
    try:
        header = json.loads(fh.read(n))
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise LoadError(f"{path}: not a readable .safetensors file ({one_line(e)})") from None
    if not isinstance(header, dict):
        raise LoadError(f"{path}: not a readable .safetensors file (header is not an object)")
    header.pop("__metadata__", None)
    for name, info in header.items():
        if not _fits(info, 8 + n, size):
            raise LoadError(f"{path}: tensor {escape(str(name))!r}: shape and offsets do not fit the file's "
                            f"{size} bytes")
    return n, header


def _fits(info: Any, base: int, size: int) -> bool:
    try:
        shape, (start, stop), dt = info["shape"], info["data_offsets"], str(info["dtype"])
        ints = all(type(x) is int and x >= 0 for x in [*shape, start, stop])
        return bool(ints and dt.upper() in _ST_ITEMSIZE and start <= stop and base + stop <= size
                    and stop - start == math.prod(shape) * _ST_ITEMSIZE[dt.upper()])
    except (KeyError, TypeError, ValueError):
        return False


def safetensors_tensor(fh: BinaryIO, name: str, widen: bool = True) -> tuple[np.ndarray, str]:
    """(values, dtype name) of tensor ``name``: memory-mapped at its validated offset; BF16 widened exactly to
    float32 (dtype ``bfloat16``) unless ``widen`` is False (its raw 16-bit words, for a reader that widens
    window by window)."""
    n, header = safetensors_header(fh)
    meta, where = header[name], f"{fh.name}[{name}]"
    if meta["dtype"] not in ST_NUMPY:
        raise LoadError(f"{where}: dtype {meta['dtype']} has no NumPy form; save it as F32, F16 or BF16")
    a = mapped(fh, ST_NUMPY[meta["dtype"]], 8 + n + meta["data_offsets"][0], tuple(meta["shape"]), "C", where)
    if meta["dtype"] != "BF16":
        return a, ""
    return (widen_bf16(a) if widen else a), "bfloat16"


def widen_bf16(bits: np.ndarray) -> np.ndarray:
    """bfloat16 bit patterns (uint16) as the float32 values they are (exact)."""
    return (np.asarray(bits).astype(np.uint32) << 16).view(np.float32)


# --- .pt / .pth: the tensors, read once per file --------------------------------------------------------

def torch_tensors(fh: BinaryIO) -> dict[str, Any]:
    """The tensors of a ``.pt``/``.pth`` file by dotted name (``torch.load(weights_only=True)``: nothing but
    tensors and plain containers is unpickled; a zip archive memory-mapped), read once per file, every bound
    of the module docstring checked first."""
    return per_file("pt", fh, _load_torch)


def _load_torch(fh: BinaryIO) -> dict[str, Any]:
    path = fh.name
    zipped = torch_archive_budget(fh)  # before torch is even imported
    try:
        import torch
    except ImportError:
        raise LoadError(f"{path}: reading .pt/.pth needs torch (pip install sinpe[torch])") from None
    fh.seek(0)
    source = fd_path(fh) if zipped else fh  # a zip archive is memory-mapped, which takes a path
    try:
        obj = torch.load(source, map_location="cpu", weights_only=True, mmap=zipped)
    except Exception as e:  # weights_only refuses arbitrary pickles: that refusal lands here too
        msg = one_line(e)
        if "weights only" in msg.lower() or "weights_only" in msg or "Unsupported global" in msg or "GLOBAL" in msg:
            raise LoadError(f"{path}: refused: holds pickled objects other than tensors (loaded with "
                            f"weights_only=True; sinpe never unpickles code); save a state_dict or a tensor") from None
        raise LoadError(f"{path}: not a readable torch file ({msg})") from None
    return {k: v for k, v in flatten(obj, path).items() if isinstance(v, torch.Tensor)}


def torch_archive_budget(fh: BinaryIO) -> bool:
    """Whether ``fh`` is a zip archive (the format ``torch.save`` writes); a legacy file is bounded by its size.
    An archive whose members would expand beyond :data:`MAX_DECOMPRESSED`, that holds a link or device entry, or
    whose pickle is over :data:`MAX_PICKLE_BYTES` or :data:`MAX_PICKLE_OPS` operations is refused unread."""
    import zipfile
    path = fh.name
    if not zipfile.is_zipfile(fh):
        if size_of(fh) > MAX_DECOMPRESSED:
            raise LoadError(f"{path}: a legacy torch file of {size_of(fh)} bytes; at most {MAX_DECOMPRESSED}")
        return False
    try:
        fh.seek(0)
        with zipfile.ZipFile(fh) as zf:
            infos = zf.infolist()
            total = sum(i.file_size for i in infos)
            if len(infos) > MAX_MEMBERS or total > MAX_DECOMPRESSED:
                raise LoadError(f"{path}: {len(infos)} members expanding to {total} bytes; at most {MAX_MEMBERS} "
                                f"members and {MAX_DECOMPRESSED} bytes")
            for i in infos:
                plain_member(i, path)
            pickles = [i for i in infos if i.filename.endswith("data.pkl")]
            for i in pickles[:1]:
                _pickle_budget(zf, i, path)
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError) as e:
        raise LoadError(f"{path}: not a readable torch file ({one_line(e)})") from None
    return True


def _pickle_budget(zf: Any, info: Any, path: str) -> None:
    """The archive's pickle walked without running it (``pickletools.genops``): at most :data:`MAX_PICKLE_BYTES`
    and :data:`MAX_PICKLE_OPS` operations."""
    import pickletools
    if info.file_size > MAX_PICKLE_BYTES:
        raise LoadError(f"{path}: a pickle of {info.file_size} bytes; at most {MAX_PICKLE_BYTES}")
    data = zf.read(info)
    try:
        for count, _ in enumerate(pickletools.genops(data), 1):
            if count > MAX_PICKLE_OPS:
                raise LoadError(f"{path}: its pickle has more than {MAX_PICKLE_OPS} operations; refused")
    except LoadError:
        raise
    except Exception as e:  # not a pickle at all: torch.load says so in its own words
        raise LoadError(f"{path}: not a readable torch file (its pickle: {one_line(e)})") from None


def flatten(obj: Any, where: str) -> dict[str, Any]:
    """Every object with a ``shape`` in nested dicts, lists and tuples, by dotted path (``layer.0.weight``).
    A name is a path, so a container reached twice is walked twice: the walk's size is counted first over the
    object graph (:func:`walk_size`, linear in its containers and references) and refused beyond
    :data:`MAX_GRAPH_VISITS`, with a cycle or a nesting deeper than :data:`MAX_GRAPH_DEPTH`."""
    size = walk_size(obj, where)
    if size > MAX_GRAPH_VISITS:
        count = f"about 2^{size.bit_length() - 1}" if size > 1 << 40 else str(size)
        raise LoadError(f"{where}: walked by path, its containers hold {count} objects (containers shared again "
                        f"and again); at most {MAX_GRAPH_VISITS}; refused")
    out: dict[str, Any] = {}
    stack: list[tuple[Any, str]] = [(obj, "")]
    while stack:
        node, prefix = stack.pop()
        if _container(node):
            stack.extend((v, f"{prefix}{k}.") for k, v in reversed(list(_items(node))))
        elif hasattr(node, "shape"):
            out[prefix[:-1]] = node
    return out


def walk_size(obj: Any, where: str) -> int:
    """The objects a walk by path visits (a container once per path that reaches it), counted once per container
    (post-order over the graph, memoised by identity); LoadError for a cycle or a nesting deeper than
    :data:`MAX_GRAPH_DEPTH`."""
    size: dict[int, int] = {}
    open_: set[int] = set()
    stack: list[tuple[Any, bool, int]] = [(obj, False, 0)]
    while stack:
        node, done, depth = stack.pop()
        key = id(node)
        if done:
            open_.discard(key)
            size[key] = 1 + sum(size[id(v)] if _container(v) else 1 for _, v in _items(node))
            continue
        if not _container(node) or key in size:
            continue
        if key in open_:
            raise LoadError(f"{where}: a container that holds itself (a cycle); refused")
        if depth >= MAX_GRAPH_DEPTH:
            raise LoadError(f"{where}: containers nested more than {MAX_GRAPH_DEPTH} deep; refused")
        open_.add(key)
        stack.append((node, True, depth))
        stack.extend((v, False, depth + 1) for _, v in _items(node) if _container(v) and id(v) not in size)
    return size.get(id(obj), 1)


def _container(x: Any) -> bool:
    return isinstance(x, (dict, list, tuple))


def _items(node: Any) -> Any:
    return node.items() if isinstance(node, dict) else enumerate(node)


# --- text tables: parsed line by line ---------------------------------------------------------------------

def text_bytes(fh: BinaryIO) -> int:
    """The size of a text table, at most :data:`MAX_TEXT_BYTES` (checked before anything is read)."""
    size = size_of(fh)
    if size > MAX_TEXT_BYTES:
        raise LoadError(f"{fh.name}: {size} bytes of text; at most {MAX_TEXT_BYTES} (save a big table as .npy)")
    return size


def _too_many(path: str) -> LoadError:
    return LoadError(f"{path}: more than {MAX_TEXT_ENTRIES} numbers; a text table holds at most "
                     f"{MAX_TEXT_ENTRIES} (save a big table as .npy, which is streamed)")


def csv_values(fh: BinaryIO) -> np.ndarray:
    """Rows of decimal numbers (no header, no underscores, hex or words) as a float64 array, parsed line by line
    (each line matched whole, its numbers appended to one float64 buffer: 8 bytes a number)."""
    path = fh.name
    text_bytes(fh)
    values, width = array("d"), 0
    lines = io.TextIOWrapper(fh, encoding="utf-8", newline=None)
    try:
        for i, line in enumerate(lines, 1):
            if not line.strip():
                continue
            if not _CSV_LINE.fullmatch(line.rstrip("\r\n")):
                raise _not_a_number(path, i, line)
            row = line.split(",")
            if width and len(row) != width:
                raise LoadError(f"{path}: ragged rows (widths {sorted({width, len(row)})}; line {i})")
            width = len(row)
            values.extend(map(float, row))
            if len(values) > MAX_TEXT_ENTRIES:
                raise _too_many(path)
    except UnicodeDecodeError:
        raise LoadError(f"{path}: not a text CSV file") from None
    finally:
        lines.detach()
    if not values:
        raise LoadError(f"{path}: no rows")
    return np.frombuffer(values, dtype=np.float64).reshape(-1, width)


def _not_a_number(path: str, i: int, line: str) -> LoadError:
    bad = next((x.strip() for x in line.rstrip("\r\n").split(",") if not _NUMBER.fullmatch(x.strip())), line)
    return LoadError(f"{path}: non-numeric data: line {i}: {escape(bad[:40])!r} is not a decimal number")


def json_document(fh: BinaryIO) -> Any:
    """The JSON document of a text table: at most :data:`MAX_TEXT_BYTES`, and no more separators than
    :data:`MAX_TEXT_ENTRIES` numbers need (counted before it is parsed)."""
    path = fh.name
    text_bytes(fh)
    raw = fh.read(MAX_TEXT_BYTES + 1)
    if raw.count(b",") >= MAX_TEXT_ENTRIES:
        raise _too_many(path)
    try:
        return json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise LoadError(f"{path}: not valid JSON ({one_line(e)})") from None
