"""The tensors of a checkpoint, listed from headers and read one at a time (SPEC.md REQ-SCAN).

:func:`list_tensors` names every tensor of a ``.safetensors`` file, a sharded safetensors index
(``*.safetensors.index.json``: its ``weight_map`` names shards beside it), an ``.npz``, a ``.pt``/``.pth``
(``torch.load(weights_only=True)``, memory-mapped; nothing else is unpickled), an ``.onnx`` model's
initializers and Constant tensors, a ``.gguf`` file's tensors (:mod:`exported`) or a directory of them,
from headers only, every size checked against the file first (:mod:`containers`). Only regular files are
read (a FIFO or a link to a device is an ``unreadable`` entry of the listing, never opened for reading), each
container's index once per file. :func:`read_tensor` reads one tensor: a safetensors tensor is memory-mapped
at its validated offset (BF16 widened exactly to float32), an ``.npz`` member is read alone after its header
is checked, a ``.pt`` tensor comes from the memory map.

>>> import os, tempfile, numpy as np
>>> d = tempfile.mkdtemp(); np.savez(os.path.join(d, "w.npz"), pe=np.zeros((4, 2)), ids=np.arange(3))
>>> [(r.name, r.shape, r.dtype) for r in list_tensors(d)]
[('pe', (4, 2), 'float64'), ('ids', (3,), 'int64')]
>>> read_tensor(list_tensors(d)[0]).shape
(4, 2)
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from sinpe.reference.checking import containers, exported
from sinpe.reference.checking.loaders import _to_numpy

from ..inputs import LoadError, escape, not_regular, one_line, open_regular, size_of

SUFFIXES = (".safetensors", ".npz", ".pt", ".pth", ".onnx", ".gguf")
INDEX_SUFFIX = ".index.json"
MAX_INDEX_BYTES = 64 << 20
MAX_TENSORS = 1_000_000
ROPE_FREQS = "rope_freqs.weight"   # llama.cpp's Llama-3 scaling factors (REQ-IO-FORMATS)


@dataclass(frozen=True)
class TensorRef:
    """One tensor: its file, name, shape, dtype name and container format; ``problem``: why a file of the
    listing could not be read (its row is an ``error``; ``fmt`` is then ``"unreadable"``)."""

    file: str
    name: str
    shape: tuple[int, ...]
    dtype: str
    fmt: str
    problem: str | None = None
    role: str | None = None   # "gguf-rope": a GGUF file's rope_freqs, judged against its metadata (gguf_rope)


@dataclass(frozen=True)
class Shard:
    """Shard ``k`` of ``n`` (1 <= k <= n) of a scan (REQ-SCAN-SHARD): a checkpoint file belongs to the shard
    :func:`shard_of` its path relative to the scanned root names -- every file in exactly one shard, the same
    on every machine that sees the same tree (a SHA-256 of the relative path, not Python's salted hash).

    >>> s = Shard.of("2/3"); s, s.words
    (Shard(k=2, n=3), '2/3')
    >>> sorted({Shard(k, 3).holds(f"ckpt-{i}.pt") for i in range(20) for k in (1, 2, 3)} )
    [False, True]
    """

    k: int
    n: int

    @classmethod
    def of(cls, spec: str) -> Shard:
        k, slash, n = str(spec).partition("/")
        try:
            shard = cls(int(k), int(n)) if slash else None
        except ValueError:
            shard = None
        if shard is None or not 1 <= shard.k <= shard.n or shard.n > MAX_SHARDS:
            raise LoadError(f"--shard must be K/N with 1 <= K <= N <= {MAX_SHARDS} (e.g. 3/8); got {escape(str(spec))!r}")
        return shard

    @property
    def words(self) -> str:
        return f"{self.k}/{self.n}"

    def holds(self, relative: str) -> bool:
        return shard_of(relative, self.n) == self.k


MAX_SHARDS = 1 << 20


def shard_of(relative: str, n: int) -> int:
    """The shard (1..n) of a file by its path relative to the scanned root ('/'-separated)."""
    import hashlib
    digest = hashlib.sha256(relative.replace(os.sep, "/").encode("utf-8", "surrogateescape")).digest()
    return int.from_bytes(digest[:8], "big") % n + 1


def list_tensors(path: str, shard: Shard | None = None) -> list[TensorRef]:
    """Every tensor under ``path`` (a regular file or a directory), from headers only; with ``shard``, those of
    the files in it (the other files' headers are never read). In a directory (or under an index) a file that
    cannot be read -- not a regular file, corrupt, refused -- is one ``unreadable`` entry with the reason;
    ``path`` itself unreadable is a LoadError."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise LoadError(f"{path}: no such file or directory") from None
    except OSError as e:
        raise LoadError(f"{path}: cannot be read ({e.strerror})") from None
    root = path if os.path.isdir(path) else os.path.dirname(path)
    mine = (lambda f: True) if shard is None else (lambda f: shard.holds(os.path.relpath(f, root or ".")))
    if os.path.isdir(path):
        return _list_dir(path, mine)
    why = not_regular(st.st_mode)
    if why:
        raise LoadError(f"{path}: {why}, not a regular file (a checkpoint file or a directory)")
    if path.lower().endswith(INDEX_SUFFIX):  # an index that cannot be read is an input error, in every shard
        return [r for s in _index_shards(path) if mine(s) for r in _readable(_list_file, s)]
    return _list_file(path) if mine(path) else []


def _list_index(path: str, mine: Any) -> list[TensorRef]:
    """The tensors of the shard files an index names that are in the scan's shard (each by its own path); an
    index that cannot be read is one unreadable entry, in the shard of the index's path."""
    try:
        shards = _index_shards(path)
    except LoadError as e:
        return [TensorRef(path, "", (), "", "unreadable", str(e))] if mine(path) else []
    return [r for s in shards if mine(s) for r in _readable(_list_file, s)]


def _list_dir(path: str, mine: Any) -> list[TensorRef]:
    files = sorted(os.path.join(r, f) for r, _, fs in os.walk(path) for f in fs
                   if f.endswith(INDEX_SUFFIX) or f.lower().endswith(SUFFIXES))
    covered = set()
    for f in files:
        if f.endswith(INDEX_SUFFIX):
            covered |= {os.path.realpath(s) for s in _readable(_index_shards, f, [])}
    out: list[TensorRef] = []
    for f in files:
        if f.endswith(INDEX_SUFFIX):
            out += _list_index(f, mine)
        elif os.path.realpath(f) not in covered and mine(f):
            out += _readable(_list_file, f)
        if len(out) > MAX_TENSORS:
            raise LoadError(f"{path}: more than {MAX_TENSORS} tensors")
    return out


def _readable(read: Any, path: str, default: Any = None) -> Any:
    """``read(path)``; a file that cannot be read is one unreadable entry (or ``default``) instead."""
    try:
        return read(path)
    except LoadError as e:
        return [TensorRef(path, "", (), "", "unreadable", str(e))] if default is None else default


def _list_file(path: str) -> list[TensorRef]:
    low = path.lower()
    if low.endswith(INDEX_SUFFIX):
        return [r for s in _index_shards(path) for r in _readable(_list_file, s)]
    if not low.endswith(SUFFIXES):
        raise LoadError(f"{path}: not a checkpoint ({', '.join(SUFFIXES)}, *{INDEX_SUFFIX} or a directory)")
    with open_regular(path) as fh:
        if low.endswith(".safetensors"):
            return [TensorRef(path, k, tuple(v["shape"]), str(v["dtype"]), "safetensors")
                    for k, v in containers.safetensors_header(fh)[1].items()]
        if low.endswith(".npz"):
            return [TensorRef(path, k, m.shape, str(m.dtype), "npz")
                    for k, m in containers.npz_archive(fh).members.items()]
        if low.endswith((".onnx", ".gguf")):  # REQ-IO-FORMATS: their own libraries, the io extra
            fmt = low.rsplit(".", 1)[1]
            listed = exported.onnx_tensors(fh) if fmt == "onnx" else exported.gguf_file(fh).tensors
            return [TensorRef(path, k, e.shape, e.dtype, fmt, role="gguf-rope" if fmt == "gguf" and
                              k == ROPE_FREQS else None) for k, e in listed.items()]
        return [TensorRef(path, k, tuple(v.shape), str(v.dtype).replace("torch.", ""), "pt")
                for k, v in containers.torch_tensors(fh).items()]


def _index_shards(path: str) -> list[str]:
    """The shard files a safetensors index names: plain names beside the index (no '..', no absolute path)."""
    with open_regular(path) as fh:
        if size_of(fh) > MAX_INDEX_BYTES:
            raise LoadError(f"{path}: an index of more than {MAX_INDEX_BYTES} bytes")
        try:
            index = json.loads(fh.read().decode("utf-8"))
            shards = sorted(set(index["weight_map"].values()))
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as e:
            raise LoadError(f"{path}: not a safetensors index (a JSON object with a weight_map): {one_line(e)}") from None
    base = os.path.dirname(os.path.abspath(path))
    out = []
    for s in shards:
        if not isinstance(s, str) or os.path.isabs(s) or ".." in s.replace("\\", "/").split("/"):
            raise LoadError(f"{path}: shard {escape(str(s))!r} is not a file name beside the index")
        out.append(os.path.join(base, s))
    return out


def read_tensor(ref: TensorRef, widen: bool = True) -> np.ndarray:
    """The tensor's values (a read-only memory map where the container allows it). ``widen`` False: a bfloat16
    tensor comes as its raw 16-bit words (the caller widens what it reads: :func:`containers.widen_bf16`)."""
    if ref.problem is not None:
        raise LoadError(ref.problem)
    where = f"{ref.file}[{ref.name}]"
    with open_regular(ref.file) as fh:
        if ref.fmt == "safetensors":
            return containers.safetensors_tensor(fh, ref.name, widen=widen)[0]
        if ref.fmt == "npz":
            return containers.npz_archive(fh).read(ref.name)
        if ref.fmt in ("onnx", "gguf"):
            return (exported.onnx_array if ref.fmt == "onnx" else exported.gguf_array)(fh, ref.name, widen=widen)
        t = containers.torch_tensors(fh)[ref.name]
    import torch
    if not widen and t.dtype == torch.bfloat16 and t.layout == torch.strided:
        return t.detach().view(torch.int16).numpy().view(np.uint16)
    return _to_numpy(t, where)[0]
