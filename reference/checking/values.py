"""Option values read from text, files or sequences (SPEC.md REQ-CHECK-INPUT, REQ-CHECK-LIMITS): explicit frequencies
(DEF-ROPE-FREQ-EXPLICIT, LongRoPE's factors), M-RoPE sections and multi-axis positions (DEF-ROPE-AXES), a grid's
cell shape (DEF-GRID) and an explicit channel plan (DEF-CHANNELS-EXPLICIT). Every problem is a ``LoadError`` of one
line (exit 2); every count is checked before anything is parsed or allocated.
"""
from __future__ import annotations

import json
import os
from fractions import Fraction
from typing import Any

import numpy as np

from sinpe.reference.numerics.positions import read_axis_positions
from sinpe.spec.profiles import to_fraction
from sinpe.spec.rotary import MAX_AXES

from ..inputs import LoadError, npy_file, open_regular, size_of

MAX_FREQS = 1 << 16  # explicit frequencies (h = dim/2) accepted, counted before any is parsed
MAX_PLAN_BYTES = 1 << 23  # a --channels .json file read at most (8 MiB), its size checked before it is read


def parse_freqs(spec: Any, what: str = "--freqs") -> tuple[Fraction, ...]:
    """Explicit frequencies (DEF-ROPE-FREQ-EXPLICIT): a comma list of exact decimals, a ``.npy`` file of a 1-D
    float array (read without pickle; each value taken at its exact binary value) or a sequence of numbers.
    Each must be finite and positive; at most MAX_FREQS, counted before any is parsed or loaded. ``what`` names
    the flag in messages (``--ext-factors``, LongRoPE's factors, are read the same way).

    >>> parse_freqs("1,0.1,1e-2")
    (Fraction(1, 1), Fraction(1, 10), Fraction(1, 100))
    >>> parse_freqs("1,-0.5")
    Traceback (most recent call last):
    ...
    sinpe.reference.inputs.LoadError: --freqs: frequency 2 is -1/2; frequencies must be finite and positive
    """
    if isinstance(spec, str) and spec.strip().lower().endswith(".npy"):
        values: Any = _freqs_npy(spec.strip(), what)
    elif isinstance(spec, str):
        if spec.count(",") >= MAX_FREQS:
            raise LoadError(f"{what}: more than {MAX_FREQS} frequencies")
        values = [v for v in spec.split(",")]
    else:
        n = len(spec)  # a sequence: its length before any copy
        if n > MAX_FREQS:
            raise LoadError(f"{what}: {n} frequencies; at most {MAX_FREQS}")
        values = np.asarray(spec).tolist() if hasattr(spec, "__array__") else list(spec)
    if not values:
        raise LoadError(f"{what}: no frequencies given" if what == "--freqs" else f"{what}: no values given")
    return tuple(positive_fraction(v, f"{what}: frequency {i}", f"{what}: frequency {i} is {{}}; frequencies must be "
                                   "finite and positive") for i, v in enumerate(values, 1))


def positive_fraction(v: Any, label: str, too_small: str) -> Fraction:
    """``v`` (an exact decimal, a whitelisted expression or a number) as a Fraction > 0, else a LoadError:
    ``to_fraction``'s own message, or ``too_small`` formatted with the value."""
    try:
        w = to_fraction(v.strip() if isinstance(v, str) else v, label)
    except ValueError as e:
        raise LoadError(str(e)) from None
    if w <= 0:
        raise LoadError(too_small.format(w))
    return w


def _freqs_npy(path: str, what: str = "--freqs") -> list[float]:
    """A 1-D float .npy, its header read (and its size checked) before the data is."""
    try:
        a = npy_file(path)  # a regular file, its header checked against its size, memory-mapped
    except LoadError as e:
        raise LoadError(f"{what} {path}: a 1-D float array is needed ({e})") from None
    if a.dtype.kind != "f" or a.ndim != 1:
        raise LoadError(f"{what} {path}: a 1-D float array is needed; got {a.dtype} of shape {a.shape}")
    if a.shape[0] > MAX_FREQS:
        raise LoadError(f"{what} {path}: {a.shape[0]} frequencies; at most {MAX_FREQS}")
    return np.asarray(a, dtype=np.float64).tolist()


def parse_sections(spec: Any) -> tuple[int, ...] | None:
    """``--mrope-section 16,24,24`` (or a sequence of ints): the frequencies each position axis reads (DEF-ROPE-AXES).

    >>> parse_sections("16,24,24")
    (16, 24, 24)
    """
    if spec is None:
        return None
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    if not 0 < len(items) <= MAX_AXES:
        raise LoadError(f"--mrope-section: 1 to {MAX_AXES} section sizes; got {len(items)}")
    try:
        out = tuple(int(str(x).strip()) for x in items)
    except ValueError:
        raise LoadError(f"--mrope-section must be positive integers, e.g. 16,24,24; got {str(spec)[:40]!r}") from None
    if any(n < 1 for n in out):
        raise LoadError(f"--mrope-section must be positive integers; got {list(out)}")
    return out


def axis_positions(spec: Any, rows: int) -> list[tuple[Any, ...]] | None:
    """Positions with several axes (DEF-ROPE-AXES): a (rows, n_axes) ``.npy`` file (header read first, no pickle)
    or 2-D array; None when ``spec`` is not 2-D (a 1-D spec: :func:`~sinpe.reference.checking.targets._positions`)."""
    if isinstance(spec, str):
        try:
            arr = read_axis_positions(spec.strip(), rows, MAX_AXES)
        except ValueError as e:
            raise LoadError(str(e)) from None
        return None if arr is None else [tuple(r) for r in arr.tolist()]
    if spec is None or isinstance(spec, range) or np.ndim(spec) != 2:
        return None
    shape = np.shape(spec)
    if shape[0] != rows or not 1 <= shape[1] <= MAX_AXES:
        raise LoadError(f"positions of shape {shape}: the cache has {rows} rows, 1..{MAX_AXES} axes")
    arr = np.asarray(spec)
    if arr.dtype.kind not in "iuf" or (arr.dtype.kind == "f" and not np.all(np.isfinite(arr))):
        raise LoadError("positions must be finite numbers")
    return [tuple(r) for r in arr.tolist()]


def grid_shape(shape: Any, rows: int, cls: int) -> tuple[int, ...]:
    """The cell shape from ``"HxW"`` (or ``"TxHxW"``, any number of axes), a sequence, or (None) the square the rows
    make after ``cls`` rows."""
    if shape is None:
        n = rows - cls
        s = int(round(max(n, 0) ** 0.5))
        if n <= 0 or s * s != n:
            raise LoadError(f"{n} grid rows are not a square: pass --shape HxW")
        return s, s
    if isinstance(shape, str):
        try:
            out = tuple(int(x) for x in shape.lower().split("x"))
        except ValueError:
            raise LoadError(f"--shape must be HxW or TxHxW, e.g. 14x14; got {shape!r}") from None
    else:
        out = tuple(int(x) for x in shape)
    if not 1 <= len(out) <= 8 or any(n < 1 for n in out):
        raise LoadError(f"--shape must be 1 to 8 positive sizes, e.g. 14x14; got {shape!r}")
    return out


def parse_channels(spec: Any) -> tuple[tuple[str, Fraction | None], ...]:
    """DEF-CHANNELS-EXPLICIT: per column ``f:omega`` (f sin or cos, omega an exact decimal or a/b, positive) or
    ``zero``, as a comma list, a sequence of such items or of (f, omega) pairs, or a ``.json`` file
    ``{"channels": [items]}`` (at most MAX_PLAN_BYTES, parsed as JSON, never evaluated); at most MAX_FREQS columns,
    counted before any is parsed.

    >>> parse_channels("sin:1,cos:1,sin:1/8,zero")
    (('sin', Fraction(1, 1)), ('cos', Fraction(1, 1)), ('sin', Fraction(1, 8)), ('zero', None))
    """
    if isinstance(spec, str) and spec.strip().lower().endswith(".json"):
        spec = _plan_file(spec.strip())
    if isinstance(spec, str):
        if spec.count(",") >= MAX_FREQS:
            raise LoadError(f"--channels: more than {MAX_FREQS} columns")
        spec = spec.split(",")
    if len(spec) > MAX_FREQS or not len(spec):
        raise LoadError(f"--channels: 1 to {MAX_FREQS} columns; got {len(spec)}")
    return tuple(_channel(c, j) for j, c in enumerate(spec))


def _channel(item: Any, j: int) -> tuple[str, Fraction | None]:
    f, _, w = item.strip().partition(":") if isinstance(item, str) else (list(item) + [None])[:3]
    if f == "zero" and not w:
        return "zero", None
    if f not in ("sin", "cos") or w in (None, ""):
        raise LoadError(f"--channels: column {j} is {str(item)[:40]!r}; each is sin:OMEGA, cos:OMEGA or zero")
    return f, positive_fraction(w, f"--channels: column {j}'s frequency",
                                f"--channels: column {j}'s frequency is {{}}; frequencies must be positive")


def _plan_file(path: str) -> list[Any]:
    if not os.path.lexists(path):
        raise LoadError(f"--channels {path}: no such file")
    try:
        with open_regular(path) as fh:  # a regular file only (REQ-CHECK-INPUT)
            if size_of(fh) > MAX_PLAN_BYTES:
                raise LoadError(f"--channels {path}: over {MAX_PLAN_BYTES} bytes")
            doc = json.loads(fh.read().decode("utf-8"))
    except LoadError:
        raise
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise LoadError(f"--channels {path}: not JSON ({str(e)[:80]})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("channels"), list):
        raise LoadError(f'--channels {path}: a JSON object {{"channels": ["sin:OMEGA", ...]}} is needed')
    return doc["channels"]
