"""Calling a rotary *application* under the conventions real libraries use (SPEC.md REQ-CHECK-APPLY).

sinpe builds the inputs (queries, keys, positions and, where the convention passes them, the cos/sin
cache or the angles), packs them into one float64 array of ``width`` columns (:func:`pack`; the layout
of the named arrays travels as JSON), and :func:`call_apply` unpacks them, builds torch tensors in the
claimed dtype, calls the function and returns the rotated queries and keys stacked as one 2-D table
(rows ``2 * heads * seq``, columns ``dim``). The same function runs in the child process of
:mod:`sinpe.reference.checking.isolate` (a ``module:function`` named by text: the request's ``call`` is
``apply`` and its ``key`` the JSON spec) and in process for a Python callable.

Conventions (tensors ``q``, ``k`` of shape (batch, heads, seq, dim) unless said otherwise):

- ``hf``: ``fn(q, k, cos, sin) -> (q', k')``, cos/sin of shape (batch, seq, width) already taken at the
  positions (transformers' ``apply_rotary_pos_emb``); a width below dim rotates the first width channels;
- ``hf-ids``: ``fn(q, k, cos, sin, position_ids) -> (q', k')``, cos/sin the whole cache (rows 0..max
  position), ``position_ids`` (batch, seq) int64 (transformers before 4.38);
- ``module``: ``fn(x, positions) -> x'`` for a module that owns its cache, x of shape (batch, seq, heads,
  dim) (torchtune's layout), positions (batch, seq) int64, or (axes, batch, seq) for a multi-axis profile
  (DEF-ROPE-AXES: transformers' Qwen2-VL ``position_ids``); called once for q and once for k;
- ``freqs``: ``fn(freqs, t) -> t'`` with ``freqs`` the angles p * w (seq, width) in the cache layout
  (rotary-embedding-torch's ``apply_rotary_emb``); called once for q and once for k.

>>> import numpy as np
>>> packed, layout = pack({"a": np.arange(3.0), "b": np.ones((2, 2))}, 4)
>>> packed.shape, {k: v["shape"] for k, v in layout.items()}
((2, 4), {'a': [3], 'b': [2, 2]})
>>> unpack(packed, layout)["b"].tolist()
[[1.0, 1.0], [1.0, 1.0]]
"""
from __future__ import annotations

import json
from typing import Any

import numpy as np

from sinpe.reference.checking.loaded import Table
from sinpe.reference.checking.loaders import _invoke, _to_numpy

from ...inputs import LoadError

CONVENTIONS = ("hf", "hf-ids", "module", "freqs")
SIGNATURES = {"hf": "(q, k, cos, sin)", "hf-ids": "(q, k, cos, sin, position_ids)", "module": "(x, positions)",
              "freqs": "(freqs, t)"}
DTYPES = ("float64", "float32", "bfloat16", "float16")


def pack(arrays: dict[str, np.ndarray], width: int) -> tuple[np.ndarray, dict[str, Any]]:
    """Every array flattened into one (rows, width) float64 array; the layout names offset and shape."""
    layout, flat, at = {}, [], 0
    for name, a in arrays.items():
        a = np.asarray(a, dtype=np.float64)
        layout[name] = {"offset": at, "shape": list(a.shape)}
        flat.append(a.ravel())
        at += a.size
    rows = max(1, -(-at // width))
    out = np.zeros(rows * width)
    if flat:
        out[:at] = np.concatenate(flat)
    return out.reshape(rows, width), layout


def unpack(packed: np.ndarray, layout: dict[str, Any]) -> dict[str, np.ndarray]:
    """The named arrays of :func:`pack` (views into ``packed``), their sizes checked against it."""
    flat = np.asarray(packed, dtype=np.float64).ravel()
    out = {}
    for name, v in layout.items():
        shape = [int(s) for s in v["shape"]]
        n, at = int(np.prod(shape, dtype=np.int64)), int(v["offset"])
        if at < 0 or at + n > flat.size or any(s < 0 for s in shape):
            raise LoadError(f"apply request: array {name!r} does not fit the packed inputs")
        out[name] = flat[at:at + n].reshape(shape)
    return out


def request_key(convention: str, dtype: str, layout: dict[str, Any]) -> str:
    """The JSON spec that travels as the isolated request's ``key``."""
    return json.dumps({"convention": convention, "dtype": dtype, "layout": layout})


def _torch_dtype(name: str) -> Any:
    import torch
    return {"float64": torch.float64, "float32": torch.float32, "bfloat16": torch.bfloat16,
            "float16": torch.float16}[name]


def call_apply(obj: Any, target: str, packed: np.ndarray, key: str) -> Table:
    """Call ``obj`` under the convention the spec ``key`` names; the rotated q and k as one table."""
    import torch
    spec = json.loads(key)
    conv, dt = spec["convention"], spec["dtype"]
    if conv not in CONVENTIONS or dt not in DTYPES:
        raise LoadError(f"apply request: unknown convention {conv!r} or dtype {dt!r}")
    a = unpack(packed, spec["layout"])
    t = {n: torch.from_numpy(np.ascontiguousarray(v)) for n, v in a.items()}
    q, k = t["q"].to(_torch_dtype(dt)), t["k"].to(_torch_dtype(dt))
    sig = SIGNATURES[conv]
    with torch.no_grad():
        if conv in ("hf", "hf-ids"):
            cache = [t[n].to(_torch_dtype(spec.get("cache_dtype", dt))) for n in ("cos", "sin")]
            extra = [t["position_ids"].to(torch.int64)] if conv == "hf-ids" else []
            res = _invoke(obj, target, sig, q, k, *cache, *extra)
            if not isinstance(res, (tuple, list)) or len(res) < 2:
                raise LoadError(f"{target}{sig} returned {type(res).__name__}; expected (q_embed, k_embed)")
            qo, ko = res[0], res[1]
        elif conv == "module":
            pos = t["positions"].to(torch.int64)
            qo, ko = (_transposed(obj, target, sig, x, pos) for x in (q, k))
        else:
            freqs = t["freqs"].to(torch.float32 if dt != "float64" else torch.float64)
            qo, ko = (_invoke(obj, target, sig, freqs, x) for x in (q, k))
    return _stack(qo, ko, tuple(q.shape), target + sig)


def differing_entries(first: np.ndarray, second: np.ndarray) -> int:
    """The entries of ``first`` whose bits ``second`` does not repeat (all of them when the shapes or dtypes
    differ): the comparison of a failing call with its repeat (REQ-CHECK-APPLY). NaNs compare by their bits.

    >>> a = np.array([[0.0, np.nan], [1.0, 2.0]])
    >>> differing_entries(a, a.copy()), differing_entries(a, np.array([[-0.0, np.nan], [1.0, 2.0]]))
    (0, 1)
    >>> differing_entries(a, a.astype(np.float32))
    4
    """
    a, b = np.ascontiguousarray(first), np.ascontiguousarray(second)
    if a.shape != b.shape or a.dtype != b.dtype:
        return int(a.size)
    ba, bb = (x.reshape(-1).view(np.uint8).reshape(a.size, a.dtype.itemsize) for x in (a, b))
    return int(np.count_nonzero((ba != bb).any(axis=1)))


def _transposed(obj: Any, target: str, sig: str, x: Any, pos: Any) -> Any:
    """``fn(x, positions)`` on x as (batch, seq, heads, dim); the result back as (batch, heads, seq, dim)."""
    out = _invoke(obj, target, sig, x.transpose(1, 2).contiguous(), pos)
    if not hasattr(out, "transpose") or tuple(out.shape) != (x.shape[0], x.shape[2], x.shape[1], x.shape[3]):
        raise LoadError(f"{target}{sig} returned {getattr(out, 'shape', type(out).__name__)}; expected the "
                        f"shape of x, {(x.shape[0], x.shape[2], x.shape[1], x.shape[3])}")
    return out.transpose(1, 2)


def _stack(qo: Any, ko: Any, shape: tuple[int, ...], where: str) -> Table:
    arrays, dts = [], set()
    for name, x in (("q", qo), ("k", ko)):
        if x is None or not hasattr(x, "shape") or tuple(x.shape) != shape:
            raise LoadError(f"{where}: rotated {name} has shape {getattr(x, 'shape', type(x).__name__)}; "
                            f"expected {shape}")
        a, dt = _to_numpy(x, where)
        if a.dtype.kind != "f":
            raise LoadError(f"{where}: rotated {name} holds {a.dtype}; expected floating point")
        arrays.append(np.asarray(a).reshape(-1, shape[-1]))
        dts.add(dt or a.dtype.name)
    out = np.concatenate([x.astype(np.float64) if x.dtype != arrays[0].dtype else x for x in arrays])
    dtype = dts.pop() if len(dts) == 1 else "float64"
    return Table(out, dtype if dtype in DTYPES else "", where)
