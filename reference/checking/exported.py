"""Deployment formats read as untrusted input: ONNX models and GGUF files (SPEC.md REQ-IO-FORMATS).

Each is read through its own library -- ``onnx`` (the protobuf parser) and ``gguf`` (llama.cpp's ``GGUFReader``),
the ``io`` extra -- and never executed: no graph is run, checked or shape-inferred, nothing is unpickled. The
rules of :mod:`containers` hold: the file is a regular file opened once (:func:`~sinpe.reference.inputs.open_regular`; the
libraries read that very file through ``/proc/self/fd``), its size and every declared count or size is
bounded before anything is allocated, and a container is parsed once per file (:func:`containers.per_file`).

- **ONNX** (:func:`onnx_tensors`, :func:`onnx_array`): every initializer of the main graph and the tensor of
  every ``Constant`` node (named by its output), as dims and element type; the model at most
  :data:`MAX_ONNX_BYTES` (protobuf's own limit). Values are the tensor's ``raw_data`` or its typed fields,
  their length checked against the dims, or external data: a ``location`` that is a plain relative path whose
  real path stays inside the model's directory (no absolute path, no ``..``, no link out), a regular file,
  ``offset``/``length`` checked against it, then memory-mapped.
- **GGUF** (:func:`gguf_file`, :func:`gguf_array`): the header's tensor and key counts are checked against the
  file's size before the reader walks them, every tensor's data range against the file; tensors are listed in
  NumPy order (GGUF's ``ne`` reversed: ``token_embd.weight`` of ne [n_embd, n_vocab] is (n_vocab, n_embd)) with
  GGML's type names (F32, F16, BF16, F64, Q4_K, ...), and the scalar metadata is kept for the rope check
  (:mod:`gguf_rope`).

BF16 values come as their raw 16-bit words when asked (``widen=False``), as for safetensors.

>>> import os, tempfile, numpy as np, onnx
>>> from onnx import helper, numpy_helper
>>> pe = np.arange(12, dtype=np.float32).reshape(3, 4)
>>> g = helper.make_graph([], "g", [], [], initializer=[numpy_helper.from_array(pe, "pe")])
>>> p = os.path.join(tempfile.mkdtemp(), "m.onnx"); onnx.save(helper.make_model(g), p)
>>> from sinpe.reference.inputs import open_regular
>>> with open_regular(p) as fh:
...     [(n, t.shape, t.dtype) for n, t in onnx_tensors(fh).items()], onnx_array(fh, "pe")[2].tolist()
([('pe', (3, 4), 'float32')], [8.0, 9.0, 10.0, 11.0])
"""
from __future__ import annotations

import math
import os
import struct
from dataclasses import dataclass
from typing import Any, BinaryIO

import numpy as np

from sinpe.reference.checking.containers import MAX_DECOMPRESSED, fd_path, per_file, widen_bf16

from ..inputs import LoadError, escape, mapped, one_line, open_regular, size_of

MAX_ONNX_BYTES = (2 << 30) - 1   # a model's protobuf (larger models keep their weights as external data)
MAX_TENSORS = 1_000_000          # initializers, Constant nodes or GGUF tensors of one file
MAX_GGUF_KV = 1 << 20            # metadata keys of a GGUF file
MAX_DIMS = 64

# ONNX element types sinpe reads, as (NumPy dtype of the stored words, dtype name); the rest are listed by name
ONNX_FLOATS = {1: ("<f4", "float32"), 10: ("<f2", "float16"), 11: ("<f8", "float64"), 16: ("<u2", "bfloat16")}
GGUF_FLOATS = {"F32": "<f4", "F16": "<f2", "F64": "<f8", "BF16": "<u2"}


@dataclass(frozen=True)
class Entry:
    """One tensor of an ONNX model or a GGUF file: its NumPy-order shape, dtype name and where it is."""

    shape: tuple[int, ...]
    dtype: str
    source: Any   # the TensorProto (ONNX) or the ReaderTensor (GGUF)


def _library(name: str, path: str) -> Any:
    import importlib
    try:
        return importlib.import_module(name)
    except ImportError:
        raise LoadError(f"{path}: reading .{'onnx' if name == 'onnx' else 'gguf'} needs the {name} package "
                        f"(pip install 'sinpe[io]')") from None


def _dims(dims: Any, where: str) -> tuple[int, ...]:
    out = tuple(int(x) for x in dims)
    if len(out) > MAX_DIMS or any(x < 0 for x in out):
        raise LoadError(f"{where}: dims {list(out)[:8]} are not a tensor's shape")
    return out


# --- ONNX --------------------------------------------------------------------------------------------

def onnx_tensors(fh: BinaryIO) -> dict[str, Entry]:
    """The initializers and Constant tensors of an ``.onnx`` model by name, parsed once per file."""
    return per_file("onnx", fh, _read_onnx)[1]


def _read_onnx(fh: BinaryIO) -> tuple[Any, dict[str, Entry]]:
    path = fh.name
    onnx = _library("onnx", path)
    size = size_of(fh)
    if size > MAX_ONNX_BYTES:
        raise LoadError(f"{path}: a model of {size} bytes; at most {MAX_ONNX_BYTES} (protobuf's limit: larger models "
                        f"keep their weights as external data)")
    model = onnx.ModelProto()
    fh.seek(0)
    try:
        model.ParseFromString(fh.read(size))
    except Exception as e:  # protobuf's DecodeError and whatever else its parser raises
        raise LoadError(f"{path}: not a readable .onnx model ({one_line(e)})") from None
    named = [(t.name, t) for t in model.graph.initializer]
    named += [(n.output[0], a.t) for n in model.graph.node if n.op_type == "Constant" and n.output
              for a in n.attribute if a.name == "value" and a.HasField("t")]
    if len(named) > MAX_TENSORS:
        raise LoadError(f"{path}: {len(named)} tensors; at most {MAX_TENSORS}")
    names = onnx.TensorProto.DataType
    out: dict[str, Entry] = {}
    for name, t in named:
        dtype = ONNX_FLOATS[t.data_type][1] if t.data_type in ONNX_FLOATS else (
            names.Name(t.data_type).lower() if t.data_type in names.values() else f"type {t.data_type}")
        out[name] = Entry(_dims(t.dims, f"{path}[{escape(name)}]"), dtype, t)
    return model, out


def onnx_array(fh: BinaryIO, name: str, widen: bool = True) -> np.ndarray:
    """The values of tensor ``name`` of the model ``fh`` (bfloat16: float32, or its raw words unless ``widen``)."""
    entry, where = onnx_tensors(fh)[name], f"{fh.name}[{name}]"
    t = entry.source
    if t.data_type not in ONNX_FLOATS:
        raise LoadError(f"{where}: {entry.dtype} values; a PE table is floating point")
    stored, dtype = ONNX_FLOATS[t.data_type]
    count = math.prod(entry.shape)
    nbytes = count * np.dtype(stored).itemsize
    if nbytes > MAX_DECOMPRESSED:
        raise LoadError(f"{where}: {nbytes} bytes; at most {MAX_DECOMPRESSED}")
    if t.data_location == 1:  # TensorProto.EXTERNAL
        a = _external(fh, t, stored, entry.shape, nbytes, where)
    elif t.raw_data:
        if len(t.raw_data) != nbytes:
            raise LoadError(f"{where}: {len(t.raw_data)} bytes of raw data for dims {list(entry.shape)} ({nbytes})")
        a = np.frombuffer(t.raw_data, dtype=stored).reshape(entry.shape)
    else:
        a = _typed(t, stored, count, where).reshape(entry.shape)
    return widen_bf16(a) if dtype == "bfloat16" and widen else a


def _typed(t: Any, stored: str, count: int, where: str) -> np.ndarray:
    """Values kept in the typed fields: float_data, double_data, or (float16, bfloat16) int32_data bit patterns."""
    field = {"<f4": t.float_data, "<f8": t.double_data}.get(stored, t.int32_data)
    if len(field) != count:
        raise LoadError(f"{where}: {len(field)} values for dims of {count} entries")
    if stored in ("<f4", "<f8"):
        return np.asarray(field, dtype=stored)
    return np.asarray(field, dtype=np.int64).astype(np.uint16).view(stored)


def external_files(path: str) -> list[str]:
    """The external-data files the model at ``path`` names inside its directory (what reading it reads)."""
    with open_regular(path) as fh:
        base = os.path.dirname(os.path.abspath(path))
        return sorted({os.path.join(base, loc) for e in onnx_tensors(fh).values() if e.source.data_location == 1
                       for loc in [next((x.value for x in e.source.external_data if x.key == "location"), "")]
                       if loc and not os.path.isabs(loc) and ".." not in loc.replace("\\", "/").split("/")})


def _external(fh: BinaryIO, t: Any, stored: str, shape: tuple[int, ...], nbytes: int, where: str) -> np.ndarray:
    """External data: a file inside the model's directory (real paths compared: no link leads out), memory-mapped
    at its checked offset."""
    info = {e.key: e.value for e in t.external_data}
    location = info.get("location", "")
    base = os.path.realpath(os.path.dirname(os.path.abspath(fh.name)))
    parts = location.replace("\\", "/").split("/")
    if not location or os.path.isabs(location) or ".." in parts:
        raise LoadError(f"{where}: external data {escape(location)!r} is not a file name inside the model's directory")
    real = os.path.realpath(os.path.join(base, location))
    if os.path.commonpath([real, base]) != base:
        raise LoadError(f"{where}: external data {escape(location)!r} leads out of the model's directory; refused")
    try:
        offset, length = int(info.get("offset", 0)), int(info.get("length", nbytes))
    except ValueError:
        raise LoadError(f"{where}: external data offset/length are not integers") from None
    with open_regular(real, follow=False) as data:
        if offset < 0 or length != nbytes or offset + nbytes > size_of(data):
            raise LoadError(f"{where}: external data of {length} bytes at {offset} in a file of {size_of(data)} "
                            f"bytes; dims need {nbytes}")
        return np.asarray(mapped(data, stored, offset, shape, "C", where))


# --- GGUF --------------------------------------------------------------------------------------------

@dataclass
class Gguf:
    """A parsed GGUF file: its tensors by name and its scalar metadata (strings, numbers, booleans)."""

    tensors: dict[str, Entry]
    metadata: dict[str, Any]


def gguf_file(fh: BinaryIO) -> Gguf:
    """The :class:`Gguf` of the file ``fh``, parsed once per file."""
    return per_file("gguf", fh, _read_gguf)


def _counts(fh: BinaryIO) -> tuple[int, int]:
    """(tensors, keys) from the header, checked against the file's size before the reader walks them."""
    path, size = fh.name, size_of(fh)
    fh.seek(0)
    head = fh.read(24)
    if len(head) < 24 or head[:4] != b"GGUF":
        raise LoadError(f"{path}: not a GGUF file (no GGUF magic)")
    version, n_tensors, n_kv = struct.unpack("<IQQ", head[4:])
    if version not in (2, 3):
        raise LoadError(f"{path}: GGUF version {version}; versions 2 and 3 are read (a big-endian file is not)")
    if n_tensors > min(MAX_TENSORS, size // 24) or n_kv > min(MAX_GGUF_KV, size // 12):
        raise LoadError(f"{path}: the header declares {n_tensors} tensors and {n_kv} keys in {size} bytes; refused")
    return n_tensors, n_kv


def _read_gguf(fh: BinaryIO) -> Gguf:
    path = fh.name
    gguf = _library("gguf", path)
    _counts(fh)
    try:
        reader = gguf.GGUFReader(fd_path(fh), "r")
    except Exception as e:  # ValueError, IndexError, KeyError, OverflowError ... of a malformed file
        raise LoadError(f"{path}: not a readable GGUF file ({type(e).__name__}: {one_line(e)})") from None
    size = size_of(fh)
    tensors = {}
    for t in reader.tensors:
        where = f"{path}[{escape(t.name)}]"
        if t.data_offset + t.n_bytes > size or t.n_bytes > MAX_DECOMPRESSED:
            raise LoadError(f"{where}: {t.n_bytes} bytes at {t.data_offset} in a file of {size}")
        shape = tuple(reversed(_dims(t.shape.tolist(), where)))
        tensors[t.name] = Entry(shape, t.tensor_type.name, t)
    return Gguf(tensors, _scalars(reader))


def _scalars(reader: Any) -> dict[str, Any]:
    from gguf import GGUFValueType
    out = {}
    for name, f in reader.fields.items():
        if f.types and f.types[0] != GGUFValueType.ARRAY:
            try:
                out[name] = f.contents()
            except (UnicodeDecodeError, IndexError, ValueError):
                continue  # a key sinpe cannot read is not one it uses
    return out


def gguf_array(fh: BinaryIO, name: str, widen: bool = True) -> np.ndarray:
    """The values of tensor ``name`` (F32/F16/F64; BF16 widened to float32 unless ``widen`` is False)."""
    entry, where = gguf_file(fh).tensors[name], f"{fh.name}[{name}]"
    if entry.dtype not in GGUF_FLOATS:
        raise LoadError(f"{where}: {entry.dtype} values (quantized or integer); a PE table is read from F32, F16, "
                        f"BF16 or F64")
    t = entry.source
    a = mapped(fh, GGUF_FLOATS[entry.dtype], int(t.data_offset), entry.shape, "C", where)
    return widen_bf16(a) if entry.dtype == "BF16" and widen else a
