"""The tensors of a checkpoint, listed from headers and read one at a time (SPEC.md REQ-SCAN).

:func:`list_tensors` names every tensor of a ``.safetensors`` file, a sharded safetensors index
(``*.safetensors.index.json``: its ``weight_map`` names shards beside it), an ``.npz``, a ``.pt``/``.pth``
(``torch.load(weights_only=True)``, memory-mapped; nothing else is unpickled) or a directory of them,
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

from sinpe.reference.checking import containers
from sinpe.reference.checking.containers import open_regular
from sinpe.reference.checking.loaders import LoadError, _short, _to_numpy, escape

SUFFIXES = (".safetensors", ".npz", ".pt", ".pth")
INDEX_SUFFIX = ".index.json"
MAX_INDEX_BYTES = 64 << 20
MAX_TENSORS = 1_000_000


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


def list_tensors(path: str) -> list[TensorRef]:
    """Every tensor under ``path`` (a regular file or a directory), from headers only. In a directory (or under
    an index) a file that cannot be read -- not a regular file, corrupt, refused -- is one ``unreadable`` entry
    with the reason; ``path`` itself unreadable is a LoadError."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise LoadError(f"{path}: no such file or directory") from None
    except OSError as e:
        raise LoadError(f"{path}: cannot be read ({e.strerror})") from None
    if os.path.isdir(path):
        return _list_dir(path)
    why = containers.not_regular(st.st_mode)
    if why:
        raise LoadError(f"{path}: {why}, not a regular file (a checkpoint file or a directory)")
    return _list_file(path)


def _list_dir(path: str) -> list[TensorRef]:
    files = sorted(os.path.join(r, f) for r, _, fs in os.walk(path) for f in fs
                   if f.endswith(INDEX_SUFFIX) or f.lower().endswith(SUFFIXES))
    covered = set()
    for f in files:
        if f.endswith(INDEX_SUFFIX):
            covered |= {os.path.realpath(s) for s in _readable(_index_shards, f, [])}
    out: list[TensorRef] = []
    for f in files:
        if f.endswith(INDEX_SUFFIX) or os.path.realpath(f) not in covered:
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
        return [TensorRef(path, k, tuple(v.shape), str(v.dtype).replace("torch.", ""), "pt")
                for k, v in containers.torch_tensors(fh).items()]


def _index_shards(path: str) -> list[str]:
    """The shard files a safetensors index names: plain names beside the index (no '..', no absolute path)."""
    with open_regular(path) as fh:
        if containers.size_of(fh) > MAX_INDEX_BYTES:
            raise LoadError(f"{path}: an index of more than {MAX_INDEX_BYTES} bytes")
        try:
            index = json.loads(fh.read().decode("utf-8"))
            shards = sorted(set(index["weight_map"].values()))
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as e:
            raise LoadError(f"{path}: not a safetensors index (a JSON object with a weight_map): {_short(e)}") from None
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
        t = containers.torch_tensors(fh)[ref.name]
    import torch
    if not widen and t.dtype == torch.bfloat16 and t.layout == torch.strided:
        return t.detach().view(torch.int16).numpy().view(np.uint16)
    return _to_numpy(t, where)[0]
