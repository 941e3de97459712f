"""The tensors of a checkpoint, listed from headers and read one at a time (SPEC.md REQ-SCAN).

:func:`list_tensors` names every tensor of a ``.safetensors`` file, a sharded safetensors index
(``*.safetensors.index.json``: its ``weight_map`` names shards beside it), an ``.npz``, a ``.pt``/``.pth``
(``torch.load(weights_only=True)``, memory-mapped; nothing else is unpickled) or a directory of them,
from headers only, every size checked against the file first (:mod:`loaders`' validators). :func:`read_tensor`
reads one: a safetensors tensor is memory-mapped at its validated offset (BF16 widened exactly to float32),
an ``.npz`` member is read alone after its header is checked, a ``.pt`` tensor comes from the memory map.

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
from functools import lru_cache
from typing import Any

import numpy as np

from sinpe.reference.checking import loaders
from sinpe.reference.checking.loaders import LoadError

SUFFIXES = (".safetensors", ".npz", ".pt", ".pth")
INDEX_SUFFIX = ".index.json"
MAX_INDEX_BYTES = 64 << 20
MAX_TENSORS = 1_000_000
_ST_NUMPY = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2"}


@dataclass(frozen=True)
class TensorRef:
    """One tensor: its file, name, shape, dtype name and container format."""

    file: str
    name: str
    shape: tuple[int, ...]
    dtype: str
    fmt: str


def list_tensors(path: str) -> list[TensorRef]:
    """Every tensor under ``path`` (a file or a directory), from headers only."""
    if not os.path.exists(path):
        raise LoadError(f"{path}: no such file or directory")
    if os.path.isdir(path):
        return _list_dir(path)
    return _list_file(path)


def _list_dir(path: str) -> list[TensorRef]:
    files = sorted(os.path.join(r, f) for r, _, fs in os.walk(path) for f in fs
                   if f.endswith(INDEX_SUFFIX) or f.lower().endswith(SUFFIXES))
    covered = set()
    for f in files:
        if f.endswith(INDEX_SUFFIX):
            covered |= {os.path.realpath(s) for s in _index_shards(f)}
    out: list[TensorRef] = []
    for f in files:
        if f.endswith(INDEX_SUFFIX) or os.path.realpath(f) not in covered:
            out += _list_file(f)
        if len(out) > MAX_TENSORS:
            raise LoadError(f"{path}: more than {MAX_TENSORS} tensors")
    return out


def _list_file(path: str) -> list[TensorRef]:
    low = path.lower()
    if low.endswith(INDEX_SUFFIX):
        return [r for s in _index_shards(path) for r in _safetensors_list(s)]
    if low.endswith(".safetensors"):
        return _safetensors_list(path)
    if low.endswith(".npz"):
        return _npz_list(path)
    if low.endswith((".pt", ".pth")):
        return [TensorRef(path, k, tuple(v.shape), str(v.dtype).replace("torch.", ""), "pt")
                for k, v in _torch_tensors(path).items()]
    raise LoadError(f"{path}: not a checkpoint ({', '.join(SUFFIXES)}, *{INDEX_SUFFIX} or a directory)")


def _index_shards(path: str) -> list[str]:
    """The shard files a safetensors index names: plain names beside the index (no '..', no absolute path)."""
    if os.path.getsize(path) > MAX_INDEX_BYTES:
        raise LoadError(f"{path}: an index of more than {MAX_INDEX_BYTES} bytes")
    try:
        with open(path, encoding="utf-8") as fh:
            index = json.load(fh)
        wm = index["weight_map"]
        shards = sorted(set(wm.values()))
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise LoadError(f"{path}: not a safetensors index (a JSON object with a weight_map): {loaders._short(e)}") from None
    base = os.path.dirname(os.path.abspath(path))
    out = []
    for s in shards:
        if not isinstance(s, str) or os.path.isabs(s) or ".." in s.replace("\\", "/").split("/"):
            raise LoadError(f"{path}: shard {loaders.escape(str(s))!r} is not a file name beside the index")
        out.append(os.path.join(base, s))
    return out


@lru_cache(maxsize=64)
def _st_header(path: str, size: int, mtime: float) -> tuple[int, dict[str, Any]]:
    loaders._safetensors_sizes(path)  # header length, shapes and offsets checked against the file (REQ-CHECK-LIMITS)
    with open(path, "rb") as fh:
        n = int.from_bytes(fh.read(8), "little")
        header = json.loads(fh.read(n))
    return n, {k: v for k, v in header.items() if k != "__metadata__"}


def _header(path: str) -> tuple[int, dict[str, Any]]:
    st = os.stat(path)
    return _st_header(path, st.st_size, st.st_mtime)


def _safetensors_list(path: str) -> list[TensorRef]:
    _, header = _header(path)
    return [TensorRef(path, k, tuple(int(s) for s in v["shape"]), str(v["dtype"]), "safetensors")
            for k, v in header.items()]


def _npz_list(path: str) -> list[TensorRef]:
    zf, infos = loaders.open_npz(path)
    with zf:
        out = []
        for i in infos:
            shape, _, dtype, _ = loaders._member_header(zf, i, path)
            out.append(TensorRef(path, loaders.npz_name(i), shape, str(dtype), "npz"))
    return out


def _torch_tensors(path: str) -> dict[str, Any]:
    """The tensors of a .pt file by dotted name: ``weights_only=True`` (no code unpickled), memory-mapped."""
    loaders._archive_budget(path)  # member sizes against the budget before torch reads anything
    import torch
    try:
        obj = torch.load(path, map_location="cpu", weights_only=True, mmap=True)
    except RuntimeError:  # not a zip archive (legacy format): cannot be mapped; read with the same restriction
        try:
            obj = torch.load(path, map_location="cpu", weights_only=True)
        except Exception as e:
            raise LoadError(f"{path}: not a readable torch file ({loaders._short(e)})") from None
    except Exception as e:
        raise LoadError(f"{path}: refused or unreadable (weights_only=True: tensors only; {loaders._short(e)})") from None
    return {k: v for k, v in loaders._flatten(obj).items() if isinstance(v, torch.Tensor)}


def read_tensor(ref: TensorRef) -> np.ndarray:
    """The tensor's values (a read-only memory map where the container allows it)."""
    if ref.fmt == "safetensors":
        n, header = _header(ref.file)
        meta = header[ref.name]
        if meta["dtype"] not in _ST_NUMPY:
            raise LoadError(f"{ref.file}[{ref.name}]: dtype {meta['dtype']} is not a float format")
        start = meta["data_offsets"][0]
        if not meta["shape"] or 0 in meta["shape"]:
            return np.zeros(meta["shape"], dtype=_ST_NUMPY[meta["dtype"]])
        a = np.memmap(ref.file, dtype=_ST_NUMPY[meta["dtype"]], mode="r", offset=8 + n + start,
                      shape=tuple(meta["shape"]))
        return (a.astype(np.uint32) << 16).view(np.float32) if meta["dtype"] == "BF16" else a
    if ref.fmt == "npz":
        return np.asarray(loaders._npz(ref.file, ref.name).data)
    t = _torch_tensors(ref.file)[ref.name]
    return loaders._to_numpy(t, f"{ref.file}[{ref.name}]")[0]
