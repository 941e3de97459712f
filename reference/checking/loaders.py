"""Loading a third-party table for ``sinpe check`` / ``sinpe detect`` (SPEC.md REQ-CHECK-INPUT).

A TARGET is a file or ``module:callable``. Nothing is ever unpickled (``numpy.load(...,
allow_pickle=False)``, ``torch.load(..., weights_only=True)``) and no code is imported except the
module the user named. Every problem is a :class:`LoadError` (a ``ValueError``) with one line.

Files (regular files only, each opened once and read by :mod:`containers`): ``.npy`` (memory-mapped: big
tables are streamed, never read whole), ``.npz`` and ``.safetensors`` (``key`` or the only 2-D array),
``.pt``/``.pth`` (a tensor or a state dict, nested dicts searched; ``key`` or the only 2-D tensor), ``.csv``
(rows of numbers, no header), ``.json`` (a list of rows, or an object whose ``key`` / only 2-D entry is one),
``.onnx`` and ``.gguf`` (an initializer or tensor: ``key`` or the only 2-D one; :mod:`exported`).
Arrays and tensors handed over in process are read as the values they show (:func:`_to_numpy`: a tensor's
negative and conjugate bits resolved; a quantized, sparse, meta or nested tensor, a masked array and a
broadcast view of more than :data:`MAX_VIEW_ENTRIES` entries refused).
Singleton axes are squeezed: the usual ``(1, n, d)`` and sequence-first ``(n, 1, d)`` buffers load
as ``(n, d)`` (the report says so); any other 1-D or 3-D array is refused.

Callables, the one calling convention (``call="positions"``, the default)::

    fn(positions: numpy.ndarray[int64 or float64], d: int) -> array-like of shape (len(positions), d)

Adapters for the other common shapes (``call=``), the callable contract of SPEC.md REQ-CHECK-CALL:

- ``"n"`` -- ``fn(n, d)`` returns the table of positions 0..n-1 (rows are then taken at the requested
  positions);
- ``"buffer"`` -- the object is an ``nn.Module`` (or a factory returning one: a class or function called
  as ``factory(d)`` when it takes an argument and ``--d`` is given, else ``factory()``) whose state-dict
  entry ``key`` (a name of ``module.state_dict()`` or of ``named_buffers()``, non-persistent buffers
  included; default the only one with two non-singleton axes) is the table;
- ``"forward"`` -- the module (or ``factory(d)``) applied to ``zeros(1, n, d)`` in eval mode is the
  table (``x + pe`` modules); without positions n is the module's own length (:func:`module_length`).

A NumPy array or tensor attribute is a table as is. Torch tensors come back as NumPy (bfloat16 as
float32 holding the same values, ``dtype`` says bfloat16). When a call fails, the error carries a hint
(:func:`call_hint`) naming the convention the callable's signature suggests: the wrong convention never
ends in a bare ``TypeError: empty()``.

>>> import numpy as np, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "t.npy")
>>> np.save(path, np.zeros((3, 4), dtype=np.float32))
>>> t = load_table(path)
>>> t.data.shape, t.dtype, t.streamable
((3, 4), 'float32', True)
>>> open(path, "wb").close()
>>> try:
...     load_table(path)
... except LoadError as e:
...     print(e)
/...t.npy: empty file
"""
from __future__ import annotations

import errno
import importlib
import math
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from sinpe.reference.checking.containers import (
    csv_values,
    flatten,
    json_document,
    npz_archive,
    opened,
    safetensors_header,
    safetensors_tensor,
    torch_tensors,
)
from sinpe.reference.checking.errors import reading_input
from sinpe.reference.checking.loaded import Table

from ..inputs import LoadError, escape, npy_array, one_line, open_regular, size_of

CALLS = ("positions", "n", "buffer", "forward")
SUFFIXES = (".npy", ".npz", ".safetensors", ".pt", ".pth", ".csv", ".json", ".onnx", ".gguf")

# Limits checked before anything is allocated (REQ-CHECK-LIMITS); the file formats' own: containers.py (and inputs.py: .npy)
MAX_VIEW_ENTRIES = 1 << 22      # entries of a broadcast view (stride 0) copied to be checked; a bigger one is refused
MAX_CALL_ENTRIES = 1 << 27      # rows x d a callable may be asked for (1 GiB of float64; isolate.py enforces it)


def is_callable_target(target: str) -> bool:
    """``module:callable`` (and not an existing file or a known file suffix)."""
    if os.path.exists(target) or target.lower().endswith(SUFFIXES):
        return False
    mod, sep, attr = target.partition(":")
    return bool(sep and mod and attr and all(p.isidentifier() for p in mod.split(".")) and
                all(p.isidentifier() for p in attr.split(".")))


def load_table(target: str, key: str | None = None) -> Table:
    """Load a table file (see the module docstring); LoadError with one line on any problem. The file is
    opened once, and only if it is a regular file (:func:`~sinpe.reference.inputs.open_regular`: a FIFO or a device
    named ``t.npy`` is refused, never read)."""
    path = str(target)
    readers: dict[str, Callable[[Any, str | None], Table]] = {
        ".npy": _npy, ".npz": _npz, ".safetensors": _safetensors, ".pt": _torch_file, ".pth": _torch_file,
        ".csv": _csv, ".json": _json, ".onnx": _exported, ".gguf": _exported,
    }
    suffix = os.path.splitext(path)[1].lower()
    with open_regular(path, what=" (a table file or module:callable)") as fh:
        if size_of(fh) == 0:
            raise LoadError(f"{path}: empty file")
        if suffix not in readers:
            raise LoadError(f"{path}: unknown table format {suffix or '(no suffix)'!r}; use {', '.join(SUFFIXES)}")
        table = readers[suffix](fh, key)
    return _finish(table)


def _finish(t: Table) -> Table:
    a = t.data
    if a.dtype.kind not in "f":
        kind = {"i": "integers", "u": "integers", "b": "booleans", "c": "complex numbers", "O": "objects",
                "U": "strings", "S": "bytes", "V": "raw records"}.get(a.dtype.kind, str(a.dtype))
        raise LoadError(f"{t.source}: holds {kind} (dtype {a.dtype}); a PE table is floating point")
    if a.ndim > 2 and sum(s != 1 for s in a.shape) <= 2 and a.shape[-1] != 1:
        before = a.shape
        a = a.reshape([s for s in a.shape if s != 1] if sum(s != 1 for s in a.shape) == 2 else (1, a.shape[-1]))
        t.notes.append(f"squeezed shape {before} to {a.shape}")
    if a.ndim != 2:
        raise LoadError(f"{t.source}: a {a.ndim}-D array of shape {a.shape}; expected a 2-D table (positions, d)")
    if a.shape[0] == 0 or a.shape[1] == 0:
        raise LoadError(f"{t.source}: empty table of shape {a.shape}")
    if t.dtype == "":
        t.dtype = {"float64": "float64", "float32": "float32", "float16": "float16"}.get(a.dtype.name, "")
        if not t.dtype:
            raise LoadError(f"{t.source}: unsupported floating dtype {a.dtype}; use float64/32/16 or bfloat16")
    t.data = a
    return t


def _no_key(path: str, key: str | None) -> None:
    if key is not None:
        raise LoadError(f"{path}: --key {key!r} applies to .npz/.safetensors/.pt/.pth/.json files; a "
                        f"{os.path.splitext(path)[1]} file holds one array")


def _npy(src: Any, key: str | None) -> Table:
    """A ``.npy`` file (a path or an open regular file), memory-mapped: streamed, never read whole."""
    with opened(src) as fh:
        _no_key(fh.name, key)
        a = npy_array(fh)
        return Table(a, "", fh.name, streamable=isinstance(a, np.memmap))


def _pick(named: dict[str, Any], key: str | None, path: str, shape_of: Callable[[Any], tuple[int, ...]]) -> tuple[str, Any]:
    if key is not None:
        if key not in named:
            raise LoadError(f"{path}: no array named {key!r}; it holds {_names(named)}")
        return key, named[key]
    cands = [k for k, v in named.items() if sum(s != 1 for s in shape_of(v)) == 2]
    if len(cands) != 1:
        what = _names({k: tuple(shape_of(v)) for k, v in named.items()}, shapes=True) or "no arrays"
        reason = "no 2-D array" if not cands else f"{len(cands)} 2-D arrays"
        raise LoadError(f"{path}: {reason} to choose from ({what}); pass --key NAME")
    return cands[0], named[cands[0]]


def _names(named: dict[str, Any], shapes: bool = False, shown: int = 20) -> str:
    """The first ``shown`` names (with their shapes), and how many more: one line whatever the archive holds."""
    keys = sorted(named)
    words = [f"{k} {named[k]}" if shapes else k for k in keys[:shown]]
    more = f", ... {len(keys) - shown} more" if len(keys) > shown else ""
    return ", ".join(words) + more if keys else "nothing"


def _npz(fh: Any, key: str | None) -> Table:
    """The chosen member only, after its header's size is checked against the archive and the budget;
    the other members' headers are read once per archive, never their data (:class:`containers.Npz`)."""
    archive = npz_archive(fh)
    k, _ = _pick({n: m.shape for n, m in archive.members.items()}, key, fh.name, lambda v: v)
    return Table(archive.read(k), "", f"{fh.name}[{k}]")


def _safetensors(fh: Any, key: str | None) -> Table:
    """The chosen tensor, memory-mapped at its validated offset (BF16 widened exactly to float32)."""
    _, header = safetensors_header(fh)
    k, _ = _pick({n: tuple(m["shape"]) for n, m in header.items()}, key, fh.name, lambda v: v)
    a, dtype = safetensors_tensor(fh, k)
    return Table(a, dtype, f"{fh.name}[{k}]", streamable=isinstance(a, np.memmap))


def _exported(fh: Any, key: str | None) -> Table:
    """An ``.onnx`` initializer or ``.gguf`` tensor (REQ-IO-FORMATS): ``key`` or the only 2-D one (BF16 widened)."""
    from sinpe.reference.checking import exported  # (only for an .onnx/.gguf file: kept off the start-up path)
    onnx = fh.name.lower().endswith(".onnx")
    listed = exported.onnx_tensors(fh) if onnx else exported.gguf_file(fh).tensors
    k, entry = _pick({n: e.shape for n, e in listed.items()}, key, fh.name, lambda v: v)
    a = (exported.onnx_array if onnx else exported.gguf_array)(fh, k)
    return Table(a, "bfloat16" if listed[k].dtype in ("bfloat16", "BF16") else "", f"{fh.name}[{k}]",
                 streamable=isinstance(a, np.memmap))


def read_safetensors(path: str | os.PathLike[str], name: str = "table") -> np.ndarray:
    """The tensor ``name`` of a safetensors file as a NumPy array (read whole; BF16 widened exactly to
    float32), its header validated first (REQ-CHECK-LIMITS); no pickle, no safetensors package."""
    with open_regular(os.fspath(path)) as fh:
        return np.array(safetensors_tensor(fh, name)[0])


def _torch_file(fh: Any, key: str | None) -> Table:
    """A tensor or the chosen tensor of a state dict (nested containers searched: :func:`containers.flatten`)."""
    named = torch_tensors(fh)
    if list(named) == [""]:  # the file holds one tensor
        return Table(*_to_numpy(named[""], fh.name), fh.name)
    if not named:
        raise LoadError(f"{fh.name}: holds no tensors")
    k, t = _pick(named, key, fh.name, lambda v: tuple(v.shape))
    return Table(*_to_numpy(t, f"{fh.name}[{k}]"), f"{fh.name}[{k}]")


def _to_numpy(x: Any, where: str) -> tuple[np.ndarray, str]:
    """NumPy array and IEEE dtype name ('' = from the array) of an array-like or torch tensor; anything NumPy
    cannot hold as plain values is a LoadError (REQ-CHECK-INPUT)."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        return _torch_numpy(x, where)
    if type(x).__module__.startswith("torch"):
        raise LoadError(f"{where}: a {type(x).__name__}, not a tensor")
    if isinstance(x, np.ndarray):
        return _plain(x, where), ""
    try:
        a = np.asarray(x)
    except Exception as e:  # an __array__ that raises, a ragged list
        raise LoadError(f"{where}: not an array ({type(e).__name__}: {one_line(e)})") from None
    if a.dtype.kind == "O" or a.dtype.kind in "USV":
        raise LoadError(f"{where}: a {type(x).__name__} that is not a numeric array")
    return _plain(a, where), ""


def _torch_numpy(x: Any, where: str) -> tuple[np.ndarray, str]:
    """A dense tensor's values as NumPy (the negative and conjugate bits resolved; bfloat16 as the float32
    values it holds); a meta, nested, sparse, quantized tensor or one NumPy has no dtype for is a LoadError."""
    import torch
    kind = "meta" if x.is_meta else "nested" if getattr(x, "is_nested", False) else \
        "quantized" if x.is_quantized else f"{x.layout}".replace("torch.", "") if x.layout != torch.strided else None
    if kind:
        fix = "x.dequantize()" if kind == "quantized" else "x.to_dense()"
        raise LoadError(f"{where}: a {kind} tensor has no plain values to check; pass a dense one ({fix})")
    try:
        x = x.detach().cpu().resolve_conj().resolve_neg()
        if x.dtype == torch.bfloat16:
            return x.float().numpy(), "bfloat16"
        return _plain(x.numpy(), where), ""
    except LoadError:
        raise
    except Exception as e:
        raise LoadError(f"{where}: a {x.dtype} tensor NumPy cannot read ({one_line(e)})") from None


def _plain(a: np.ndarray, where: str) -> np.ndarray:
    """``a`` as the values it shows: a masked array is refused (its mask would be ignored); a broadcast view
    (a stride 0 over more than one index) is copied when it has at most :data:`MAX_VIEW_ENTRIES` entries and
    refused otherwise, before anything is allocated (its entries are not stored: 8 bytes repeated 10^9 times)."""
    if np.ma.isMaskedArray(a):
        raise LoadError(f"{where}: a masked array (its mask would be ignored); pass a.filled(value) or an array")
    if type(a) is not np.ndarray and not isinstance(a, np.memmap):
        a = np.asarray(a)
    if not any(s == 0 and n > 1 for s, n in zip(a.strides, a.shape, strict=True)):
        return a
    if a.size > MAX_VIEW_ENTRIES:
        raise LoadError(f"{where}: a broadcast view of {a.size} entries over {_stored(a)} stored ones; at most "
                        f"{MAX_VIEW_ENTRIES} entries of a view are copied to be checked: pass the array itself")
    return np.ascontiguousarray(a)


def _stored(a: np.ndarray) -> int:
    return math.prod(n for s, n in zip(a.strides, a.shape, strict=True) if s != 0)


def _from_object(obj: Any, key: str | None, where: str, call: str | None) -> Table:
    if isinstance(obj, dict) or isinstance(obj, (list, tuple)) and obj and not _is_number_list(obj):
        named = flatten(obj, where)
        if not named:
            raise LoadError(f"{where}: holds no tensors")
        k, obj = _pick(named, key, where, lambda v: tuple(v.shape))
        where = f"{where}[{k}]"
    a, dt = _to_numpy(obj, where)
    return Table(a, dt, where)


def _is_number_list(x: Any) -> bool:
    return isinstance(x, (list, tuple)) and all(isinstance(r, (list, tuple, int, float)) for r in x[:3])


def _csv(fh: Any, key: str | None) -> Table:
    """Rows of decimal numbers, parsed line by line (:func:`containers.csv_values`)."""
    _no_key(fh.name, key)
    return Table(csv_values(fh), "", fh.name, notes=["text values parsed as float64"], from_text=True)


def _json(fh: Any, key: str | None) -> Table:
    """A list of rows of JSON numbers (not booleans, not strings, not null)."""
    path, obj = fh.name, json_document(fh)
    if isinstance(obj, dict):
        named = {k: v for k, v in obj.items() if isinstance(v, list)}
        shapes = {k: _json_shape(v) for k, v in named.items()}
        k, _ = _pick(shapes, key, path, lambda v: v)
        obj, path = named[k], f"{path}[{k}]"
    if not isinstance(obj, list):
        raise LoadError(f"{path}: expected a list of rows of numbers")
    rows = obj if obj and isinstance(obj[0], list) else [obj]
    for i, r in enumerate(rows):
        if not isinstance(r, list):
            raise LoadError(f"{path}: row {i} is a {type(r).__name__}, not a list of numbers")
        for x in r:
            if isinstance(x, bool) or not isinstance(x, (int, float)):
                raise LoadError(f"{path}: non-numeric data: row {i} holds {escape(repr(x)[:40])} ({type(x).__name__}); a table "
                                f"holds JSON numbers only")
    try:
        a = np.array(obj, dtype=np.float64)
    except (ValueError, TypeError, OverflowError) as e:
        raise LoadError(f"{path}: non-numeric or ragged data ({one_line(e)})") from None
    return Table(a, "", path, notes=["text values parsed as float64"], from_text=True)


def _json_shape(v: Any) -> tuple[int, ...]:
    if isinstance(v, list) and v and isinstance(v[0], list):
        return (len(v), len(v[0]))
    return (len(v),) if isinstance(v, list) else ()


@contextmanager
def input_errors(verb: str, target: str) -> Iterator[None]:
    """Turn any exception but a ``ValueError`` (already one clear line) raised while the input is read
    (:func:`sinpe.reference.checking.errors.reading_input`) into a one-line :class:`LoadError`: bad input never
    ends in a traceback (``sinpe check`` and ``sinpe detect``: exit 2); any other is left to the command, which
    reports it as an internal error (exit 3).

    >>> try:
    ...     with input_errors("check", "t.npy"):
    ...         load_table("t.npz", key="x")   # no such file: the input's fault, one line
    ... except LoadError as e:
    ...     print(e)
    t.npz: no such file (a table file or module:callable)
    >>> try:
    ...     with input_errors("check", "t.npy"):
    ...         raise KeyError("x")            # not raised while reading the input: left to the command
    ... except KeyError as e:
    ...     print(repr(e))
    KeyError('x')
    """
    try:
        yield
    except ValueError:
        raise
    except MemoryError:
        raise LoadError(f"out of memory reading {target}") from None
    except Exception as e:
        if not reading_input(e):
            raise  # sinpe's own fault, not the input's: the command reports an internal error (exit 3)
        raise LoadError(f"cannot {verb} {target}: {type(e).__name__}: {one_line(e)}") from None


# --- callables -----------------------------------------------------------------------------------

def resolve_callable(target: str) -> Any:
    """Import ``module`` and return ``attr`` of ``module:attr`` (REQ-CHECK-INPUT): the named module's
    top-level name is looked up in the current directory first, then on ``sys.path``; nothing else is
    imported from the current directory and ``sys.path`` is left as it was. (``sinpe check`` runs this
    in a child process: :mod:`sinpe.reference.checking.isolate`.)"""
    mod_name, _, attr = target.partition(":")
    finder = _NamedOnly(mod_name.split(".")[0], os.getcwd())
    sys.meta_path.insert(0, finder)
    try:
        obj: Any = importlib.import_module(mod_name)
    except Exception as e:
        raise LoadError(f"cannot import {mod_name!r} for {target}: {type(e).__name__}: {one_line(e)}") from None
    finally:
        sys.meta_path.remove(finder)
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise LoadError(f"{target}: module {mod_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    return obj


class _NamedOnly:
    """A meta-path finder that serves one top-level module name from one directory, nothing else."""

    def __init__(self, name: str, directory: str) -> None:
        self.name, self.directory = name, directory

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != self.name:
            return None
        from importlib.machinery import PathFinder
        return PathFinder.find_spec(fullname, [self.directory])


def call_table(obj: Any, target: str, positions: np.ndarray | None, d: int | None, call: str = "positions",
               key: str | None = None) -> Table:
    """The table a callable/module/array yields at ``positions`` for width ``d`` (see module docstring).
    ``positions`` None (``call="buffer"`` only): every row of the buffer, as it is.

    >>> import numpy as np
    >>> t = call_table(lambda p, d: np.ones((len(p), d)), "f", np.arange(3), 4)
    >>> t.data.shape, t.dtype
    ((3, 4), 'float64')
    >>> try:
    ...     call_table(lambda p, d: 1 / 0, "mod:f", np.arange(3), 4)
    ... except LoadError as e:
    ...     print(e)
    mod:f(positions, d=4) raised ZeroDivisionError: division by zero
    """
    if call not in CALLS:
        raise LoadError(f"unknown calling convention {call!r}; use one of {', '.join(CALLS)}")
    if _is_module(obj) or call in ("buffer", "forward"):
        return _from_module(obj, target, positions, d, call, key)
    if positions is None:
        raise LoadError(f"{target}: positions are needed for --call {call}")
    if not callable(obj):
        t = _finish(_from_object(obj, key, target, None))
        return _rows_at(t, positions, target)
    if d is None:
        raise LoadError(f"{target}: a callable needs --d (the width to ask for)")
    pos = np.array(positions, copy=True)  # the callable gets a copy: the checker's own stay as they were
    if call == "positions":
        res = _invoke(obj, target, f"(positions, d={d})", pos, d, call=call)
        t = _finish(_as_table(res, f"{target}(positions, d={d})"))
    else:  # "n": fn(n, d) gives positions 0..n-1
        if pos.dtype.kind not in "iu" and not np.all(pos == np.rint(pos)) or np.any(pos < 0):
            raise LoadError(f"{target}: the (n, d) convention covers positions 0..n-1 only")
        n = int(pos.max()) + 1
        res = _invoke(obj, target, f"(n={n}, d={d})", n, d, call=call)
        t = _finish(_as_table(res, f"{target}(n={n}, d={d})"))
        t = _rows_at(t, pos, f"{target}(n={n}, d={d})")
    return t


def _rows_at(t: Table, pos: np.ndarray, where: str) -> Table:
    """Rows at integer positions of a table whose row i is position i (when it covers them)."""
    if t.data.shape[0] == len(pos) and np.array_equal(pos, np.arange(len(pos))):
        return t
    if pos.size and np.all(pos == np.rint(pos)) and pos.min() >= 0 and pos.max() < t.data.shape[0]:
        n = t.data.shape[0]
        t.data = np.asarray(t.data)[np.asarray(pos, dtype=np.int64)]
        t.notes.append(f"rows taken at the requested positions from a table of {n} rows")
        return t
    if t.data.shape[0] == len(pos):
        return t
    raise LoadError(f"{where}: gives {t.data.shape[0]} rows; cannot take {len(pos)} positions "
                    f"{_pos_str(pos)} from it")


def _pos_str(pos: np.ndarray) -> str:
    return f"[{pos.min()}..{pos.max()}]" if pos.size else "[]"


def _invoke(fn: Any, target: str, sig: str, *args: Any, call: str | None = None) -> Any:
    try:
        return fn(*args)
    except KeyboardInterrupt:  # the user's Ctrl-C, not the callable's answer
        raise
    except BaseException as e:  # noqa: B036 -- sys.exit(), GeneratorExit, any BaseException subclass
        # the errors a wrong calling convention ends in (an array where an int was meant, or the reverse)
        hint = call_hint(fn, call) if call is not None and isinstance(
            e, (TypeError, AttributeError, IndexError, RuntimeError, ValueError)) else ""
        if isinstance(e, OSError) and e.errno == errno.EFBIG:  # in an isolated child (isolate: RLIMIT_FSIZE)
            hint = "it printed or wrote more than the file-size limit of the call (its result and captured output)"
        raise LoadError(f"{target}{sig} raised {type(e).__name__}: {one_line(e)}" + (f"; hint: {hint}" if hint else "")) \
            from None


# parameter names that say "a count of positions" / "the positions themselves" (call_hint)
_COUNT_NAMES = {"n", "seq_len", "seqlen", "length", "max_len", "max_length", "max_seq_len", "num_positions",
                "n_positions", "num_embeddings", "n_ctx", "context_length", "size", "num_pos", "max_position_embeddings",
                "length_or_positions"}
_POSITION_NAMES = {"positions", "pos", "position_ids", "timesteps", "t", "x", "p", "grid", "position", "idx"}


def call_hint(fn: Any, call: str) -> str:
    """What to try when ``fn`` failed under convention ``call`` (REQ-CHECK-CALL), read from its signature.

    >>> def sinusoids(length, channels): ...
    >>> call_hint(sinusoids, "positions")[:96]
    'its signature is sinusoids(length, channels): if it takes a count n of positions 0..n-1, pass --'
    >>> call_hint(lambda positions, d: None, "n").startswith("its signature is <lambda>(positions, d): if it takes")
    True
    """
    import inspect
    conventions = ("conventions: --call positions fn(positions, d), --call n fn(n, d), --call buffer "
                   "(an nn.Module, or a factory(d) returning one, and --key NAME of its state dict), "
                   "--call forward (module(zeros(1, n, d)))")
    if _is_module(fn) or isinstance(fn, type) and any(c.__name__ == "Module" and c.__module__.startswith("torch.nn")
                                                      for c in fn.__mro__):
        return "it is a torch nn.Module (or its class): pass --call buffer (--key NAME) or --call forward; " + conventions
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return conventions
    names = [p.name for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    shown = f"its signature is {getattr(fn, '__name__', type(fn).__name__)}({', '.join(names)})"
    first = names[0].lower() if names else ""
    if call == "positions" and first in _COUNT_NAMES:
        return f"{shown}: if it takes a count n of positions 0..n-1, pass --call n; {conventions}"
    if call == "n" and first in _POSITION_NAMES:
        return f"{shown}: if it takes the positions themselves, pass --call positions; {conventions}"
    if len(names) < 2 and call in ("positions", "n"):
        return f"{shown} takes {len(names)} positional argument(s), not (positions, d): wrap it, or use " + conventions
    return f"{shown}; {conventions}"


def _as_table(res: Any, where: str) -> Table:
    if res is None:
        raise LoadError(f"{where} returned None; expected an array of shape (rows, d)")
    if isinstance(res, (str, bytes, dict, int, float)):
        raise LoadError(f"{where} returned a {type(res).__name__}; expected an array of shape (rows, d)")
    a, dt = _to_numpy(res, where)
    return Table(a, dt, where)


def _is_module(obj: Any) -> bool:
    return any(c.__module__.startswith("torch.nn") and c.__name__ == "Module" for c in type(obj).__mro__)


def _from_module(obj: Any, target: str, positions: np.ndarray | None, d: int | None, call: str,
                 key: str | None) -> Table:
    if not _is_module(obj) and callable(obj):  # a factory returning the module: factory(d) when it takes d
        if d is not None and _takes_one_argument(obj):
            obj = _invoke(obj, target, f"(d={d})", d, call=call)
        else:
            obj = _invoke(obj, target, "()", call=call)
    if not _is_module(obj):
        raise LoadError(f"{target}: expected a torch nn.Module for --call {call}; got {type(obj).__name__}")
    import torch
    obj.eval()
    pos = np.asarray(positions) if positions is not None else None
    if call == "forward":
        if d is None:
            raise LoadError(f"{target}: --call forward needs --d")
        n, said = (len(pos), None) if pos is not None else module_length(obj, d)
        if pos is not None and np.any(pos != np.arange(len(pos))):
            raise LoadError(f"{target}: --call forward yields positions 0..n-1 only")
        with torch.no_grad():
            res = _invoke(obj, target, f"(zeros(1, {n}, {d}))", torch.zeros(1, n, d))
        t = _finish(_as_table(res, f"{target}.forward(zeros(1, {n}, {d}))"))
        if said:
            t.notes.append(said)
        return t
    named = {**{n: p for n, p in obj.named_parameters()}, **{n: b for n, b in obj.named_buffers()}}
    k, tensor = _pick(named, key, f"{target} (module buffers)", lambda v: tuple(v.shape))
    t = _finish(Table(*_to_numpy(tensor, f"{target}.{k}"), f"{target}.{k}"))
    return t if pos is None else _rows_at(t, pos, f"{target}.{k}")


# the module attributes that say how many positions it encodes (module_length), and the rows asked for when none does
LENGTH_NAMES = ("max_len", "max_length", "max_seq_len", "max_seq_length", "max_position_embeddings", "num_positions",
                "n_positions", "max_positions", "context_length", "n_ctx", "seq_len", "num_embeddings")
FORWARD_ROWS = 8192       # --call forward without --positions on a module that says no length
MAX_FORWARD_ROWS = 1 << 16


def module_length(obj: Any, d: int) -> tuple[int, str]:
    """(rows, the note that says why) for ``--call forward`` without positions (REQ-CHECK-CALL): the module's own
    length -- the largest integer attribute of it or a submodule named in :data:`LENGTH_NAMES` (``max_len``), else
    the most rows of a parameter or buffer with two non-singleton axes whose last is ``d`` (a ``pe`` buffer) --
    else :data:`FORWARD_ROWS`; at most :data:`MAX_FORWARD_ROWS` and ``MAX_CALL_ENTRIES / d``. Past 2048 rows it
    reaches where half-precision positions stop being exact (2049 is no float16 or bfloat16 value)."""
    said = [(v, f"its {n}") for m in obj.modules() for n in LENGTH_NAMES
            if type(v := getattr(m, n, None)) is int and v > 0]
    if not said:
        tensors = [*obj.named_parameters(), *obj.named_buffers()]
        said = [(max(t.shape[:-1]), f"the rows of its {k}") for k, t in tensors
                if t.ndim >= 2 and t.shape[-1] == d and sum(s != 1 for s in t.shape) == 2]
    n, why = max(said) if said else (FORWARD_ROWS, "the default for a module that says no length")
    cap = min(MAX_FORWARD_ROWS, MAX_CALL_ENTRIES // max(1, d))
    reach = ("past 2048, where float16 and bfloat16 positions stop being exact" if min(n, cap) > 2049 else
             "not past 2048, where float16 and bfloat16 positions stop being exact: pass --positions 0:N")
    note = (f"positions 0..{min(n, cap) - 1} (--call forward's default: {why}, {n}" +
            (f", capped at {cap}" if n > cap else "") + f"; {reach}; --positions to choose)")
    return min(n, cap), note


def _takes_one_argument(fn: Any) -> bool:
    """Whether ``fn(d)`` is a valid call (a factory that receives the width)."""
    import inspect
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    try:
        sig.bind(0)
    except TypeError:
        return False
    return any(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL) for p in sig.parameters.values())


def release_pages(data: np.ndarray, row_stop: int, extra_bytes: int = 0) -> None:
    """Drop the pages of a memory-mapped table's rows [0, row_stop) (and ``extra_bytes`` of the next row) from
    this process's memory (the file stays in the page cache): streaming keeps the resident set bounded."""
    mm = getattr(data, "_mmap", None)
    if mm is None:
        return
    try:
        import mmap
        start = getattr(data, "offset", 0) % mmap.ALLOCATIONGRANULARITY  # where the array begins in the mapping
        upto = ((start + row_stop * data.strides[0] + extra_bytes) // mmap.PAGESIZE) * mmap.PAGESIZE
        if upto > 0:
            mm.madvise(mmap.MADV_DONTNEED, 0, min(upto, len(mm)))
    except (AttributeError, ValueError, OSError):
        pass


def read_rows(data: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Rows ``idx`` of a table; a memory-mapped C-contiguous table is read with ``pread`` instead of
    through the mapping (a page fault maps whole cached folios: spread rows would map most of the file)."""
    fn = getattr(data, "filename", None)
    if fn is None or getattr(data, "_mmap", None) is None or not data.flags.c_contiguous:
        return np.asarray(data[idx])
    row = data.strides[0]
    out = np.empty((len(idx),) + data.shape[1:], dtype=data.dtype)
    with open_regular(str(fn)) as fh:
        for k, i in enumerate(np.asarray(idx, dtype=np.int64)):
            buf = os.pread(fh.fileno(), row, int(data.offset) + int(i) * row)  # type: ignore[attr-defined]  # a memmap
            out[k] = np.frombuffer(buf, dtype=data.dtype).reshape(data.shape[1:])
    return out


_ON_SIGBUS: list[object] = []  # the C handlers installed (kept alive)


def exit_on_sigbus(fd: int, message: bytes, status: int) -> None:
    """When a memory-mapped input is truncated under its reader (SIGBUS), write ``message`` to ``fd`` and end the
    process with ``status`` (a C-level handler: Python's own cannot run on a faulting load). A no-op where
    ``ctypes`` or SIGBUS is missing."""
    import signal
    try:
        import ctypes

        @ctypes.CFUNCTYPE(None, ctypes.c_int)
        def on_bus(signum: int) -> None:
            os.write(fd, message)
            os._exit(status)
        ctypes.CDLL(None).signal(signal.SIGBUS, on_bus)
        _ON_SIGBUS.append(on_bus)
    except (OSError, AttributeError):
        pass


def chunks(data: np.ndarray, rows: int) -> Any:
    """Yield ``(start, float64 block)`` over row blocks of ``rows`` (a memmap is read block by block)."""
    for a in range(0, data.shape[0], rows):
        yield a, np.asarray(data[a:a + rows], dtype=np.float64)
