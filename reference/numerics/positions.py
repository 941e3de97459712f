"""Position specs on the command line (SPEC.md REQ-CLI-POSITIONS).

``start:stop`` or ``start:stop:step`` (stop excluded, step a positive integer), a comma list (``0,1,65535,1e6,-3,2.5``), or a ``.npy`` file.
Positions are exact rationals; a ``.npy`` file's floats are taken at their exact binary value.

>>> parse_positions("0:4")
[Fraction(0, 1), Fraction(1, 1), Fraction(2, 1), Fraction(3, 1)]
>>> parse_positions("0:10:4")
[Fraction(0, 1), Fraction(4, 1), Fraction(8, 1)]
>>> parse_positions("1e6,-3,2.5")
[Fraction(1000000, 1), Fraction(-3, 1), Fraction(5, 2)]
>>> parse_positions("5:2")
Traceback (most recent call last):
...
ValueError: position range '5:2' is empty (stop must exceed start)
"""
from __future__ import annotations

import math
import os
from fractions import Fraction
from typing import Any

import numpy as np

from sinpe.spec.profiles import format_number, to_fraction

from ..inputs import npy_file
from .binary64 import BINARY64_LIMIT

MAX_POSITIONS = 10**8
EXACT_FLOAT = 2**53  # integers up to this magnitude are binary64 values


def count_positions(spec: str) -> int:
    """How many positions ``spec`` names, found without building them (REQ-CHECK-LIMITS).

    >>> count_positions("0:100000000"), count_positions("1,2,3"), count_positions("0:1e6:1000")
    (100000000, 3, 1000)
    """
    s = str(spec).strip()
    if s.endswith(".npy"):
        return _npy_header(s).size
    if ":" in s:
        start, stop, step = _range_bounds(s)
        return max(0, -(-int(stop - start) // step))
    return s.count(",") + 1


def _limit(spec: str, limit: int | None, why: str | None) -> None:
    n = count_positions(spec)
    if limit is not None and n > limit:
        if why is None:
            raise ValueError(f"position spec {spec[:40]!r} has more than {limit} positions ({n})")
        raise ValueError(f"--positions {spec[:40]!r} names {n} positions; {why}")


def positions_from_spec(spec: str, limit: int | None = MAX_POSITIONS, why: str | None = None) -> np.ndarray:
    """The positions of ``spec`` as float64 when every one is a binary64 value, else an object array of
    Fractions; their number is checked against ``limit`` before any is built (``why`` says what the
    limit is in the error).

    >>> positions_from_spec("0:3").tolist(), positions_from_spec("1/3").dtype
    ([0.0, 1.0, 2.0], dtype('O'))
    >>> positions_from_spec("0:100000000", limit=10, why="the table has 10 rows")
    Traceback (most recent call last):
    ...
    ValueError: --positions '0:100000000' names 100000000 positions; the table has 10 rows
    """
    s = str(spec).strip()
    _limit(s, limit, why)
    if ":" in s and not s.endswith(".npy"):
        start, stop, step = _range_bounds(s)
        if abs(start) <= EXACT_FLOAT and abs(stop) <= EXACT_FLOAT:
            return np.arange(int(start), int(stop), step, dtype=np.float64)
    if s.endswith(".npy"):
        arr = _read_npy(s)
        if arr.dtype.kind == "f" or np.all(np.abs(arr.astype(np.float64)) <= EXACT_FLOAT):
            return arr.astype(np.float64)
    fr = parse_positions(s, limit)
    if all(abs(p) <= 2**1023 and Fraction(float(p)) == p for p in fr):
        return np.array([float(p) for p in fr], dtype=np.float64)
    return np.array(fr, dtype=object)


def _range_bounds(s: str) -> tuple[Fraction, Fraction, int]:
    """(start, stop, step) of ``start:stop`` or ``start:stop:step``."""
    parts = s.split(":")
    if len(parts) not in (2, 3):
        raise ValueError(f"position range {s!r} must be start:stop or start:stop:step")
    start, stop, *rest = (to_fraction(x, "range bound") for x in parts)
    step = rest[0] if rest else Fraction(1)
    if start.denominator != 1 or stop.denominator != 1:
        raise ValueError(f"position range {s!r} needs integer bounds")
    if step.denominator != 1 or step < 1:
        raise ValueError(f"position range {s!r}: the step must be a positive integer")
    return start, stop, int(step)


def parse_positions(spec: str, limit: int | None = MAX_POSITIONS) -> list[Fraction]:
    """Parse a position spec into exact rationals; raise ValueError with a clear message. The count is
    checked against ``limit`` before any position is built, and every number's exponent is bounded
    (:func:`sinpe.spec.profiles.to_fraction`) before exact arithmetic."""
    s = str(spec).strip()
    if not s:
        raise ValueError("empty position spec")
    if limit is not None:
        _limit(s, limit, None)
    if s.endswith(".npy"):
        return _from_npy(s)
    if ":" in s:
        start, stop, step = _range_bounds(s)
        if stop <= start:
            raise ValueError(f"position range {s!r} is empty (stop must exceed start)")
        if (stop - start) / step > MAX_POSITIONS:
            raise ValueError(f"position range {s!r} has more than {MAX_POSITIONS} positions")
        return [Fraction(i) for i in range(int(start), int(stop), step)]
    return [to_fraction(x, "position") for x in s.split(",")]


def _npy_header(path: str) -> np.ndarray:
    """The positions file memory-mapped (its header checked against its size; no data read)."""
    if not os.path.exists(path):
        raise ValueError(f"positions file {path!r} does not exist")
    try:
        arr = npy_file(path)  # a regular file only, its header checked (REQ-CHECK-INPUT)
    except Exception as e:  # corrupt file, pickled payload, header larger than the file, ...
        raise ValueError(f"cannot read positions file {path!r}: {' '.join(str(e).split())[:160]}") from None
    if not isinstance(arr, np.ndarray) or arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"positions file {path!r} must hold a non-empty 1-D array; got shape "
                         f"{getattr(arr, 'shape', None)}")
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"positions file {path!r} must hold numbers; got dtype {arr.dtype}")
    return arr


def read_axis_positions(path: str, rows: int, max_axes: int) -> np.ndarray | None:
    """A ``.npy`` file of shape (rows, n_axes), 1 <= n_axes <= ``max_axes`` (DEF-ROPE-AXES), memory-mapped without
    pickle, its shape checked before any data is read; None when the file holds a 1-D array or ``path`` is no
    ``.npy`` (a 1-D position spec)."""
    if not path.endswith(".npy") or not os.path.exists(path):
        return None
    try:
        arr = npy_file(path)  # a regular file only, its header checked (REQ-CHECK-INPUT)
    except Exception as e:
        raise ValueError(f"cannot read positions file {path!r}: {' '.join(str(e).split())[:160]}") from None
    if not isinstance(arr, np.ndarray) or arr.ndim != 2:
        return None
    if arr.shape[0] != rows or not 1 <= arr.shape[1] <= max_axes:
        raise ValueError(f"positions file {path!r} has shape {arr.shape}; the table has {rows} rows, 1..{max_axes} axes")
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"positions file {path!r} must hold numbers; got dtype {arr.dtype}")
    out = np.array(arr)
    if out.dtype.kind == "f" and not np.all(np.isfinite(out)):
        raise ValueError(f"positions file {path!r} holds a non-finite position")
    return out


def _read_npy(path: str) -> np.ndarray:
    return np.array(_npy_array(path))


def _from_npy(path: str) -> list[Fraction]:
    arr = _read_npy(path)
    out = []
    for x in arr.tolist():
        if isinstance(x, float) and not math.isfinite(x):
            raise ValueError(f"positions file {path!r} holds a non-finite position {x}")
        out.append(Fraction(x))
    return out


def positions_spec(positions: list[Fraction]) -> str:
    """A compact spec string that parses back to ``positions`` (used in reproduction lines)."""
    if positions and all(p.denominator == 1 for p in positions) and len(positions) > 2 and \
            all(positions[i + 1] - positions[i] == 1 for i in range(len(positions) - 1)):
        return f"{positions[0]}:{positions[-1] + 1}"
    return ",".join(format_position(p) for p in positions)


def format_position(p: Any) -> str:
    """A position as text that parses back to exactly it (int, float or Fraction): ``2``, ``2.5``,
    ``1/3``; a binary64 value with no short decimal (0.1 as a float) is written as its exact decimal.

    >>> format_position(Fraction(5, 2)), format_position(7.0), format_position(Fraction(1, 3))
    ('2.5', '7', '1/3')
    >>> format_position(0.1)
    '0.1000000000000000055511151231257827021181583404541015625'
    """
    return format_number(p if isinstance(p, (Fraction, int)) else Fraction(float(p)))


class PositionSource:
    """Positions for a streamed table, without materialising them all: a range, a list, or an array.

    ``block(a, b)`` gives positions a..b-1 as a float64 array when every one is a binary64 value
    (ranges within 2^53, float/int arrays), else as exact Fractions. ``fraction(i)`` is position i exactly.

    >>> src = parse_position_source("0:100000000")   # nothing is built up front
    >>> len(src), src.block(5, 8).tolist(), src.spec()
    (100000000, [5.0, 6.0, 7.0], '0:100000000')
    >>> parse_position_source("2.5,1/3").block(0, 2)
    [Fraction(5, 2), Fraction(1, 3)]
    """

    def __init__(self, *, start: int | None = None, stop: int | None = None,
                 values: list[Fraction] | np.ndarray | None = None) -> None:
        self.start, self.stop, self.values = start, stop, values
        if isinstance(values, list):
            big = next((v for v in values if abs(v) >= BINARY64_LIMIT), None)
            if big is not None:
                e = len(str(abs(big.numerator))) - len(str(big.denominator))
                raise ValueError(f"a position of about 1e+{e} is beyond binary64 (|p| < 2^1024): no table is finite there")
        if values is None:
            assert start is not None and stop is not None
            if max(abs(start), abs(stop)) > 2 ** 53:
                raise ValueError(f"position range {start}:{stop} reaches beyond 2^53")

    def __len__(self) -> int:
        return (self.stop - self.start) if self.values is None else len(self.values)  # type: ignore[operator]

    def block(self, a: int, b: int) -> np.ndarray | list[Fraction]:
        if self.values is None:
            return np.arange(self.start + a, self.start + b, dtype=np.float64)  # type: ignore[operator]
        chunk = self.values[a:b]
        if isinstance(chunk, np.ndarray):
            return np.asarray(chunk, dtype=np.float64)
        return list(chunk)

    def fraction(self, i: int) -> Fraction:
        if self.values is None:
            return Fraction(self.start + i)  # type: ignore[operator]
        v = self.values[i]
        return v if isinstance(v, Fraction) else Fraction(v.item() if hasattr(v, "item") else v)

    def spec(self) -> str:
        if self.values is None:
            return f"{self.start}:{self.stop}"
        if len(self) <= 64:
            return positions_spec([self.fraction(i) for i in range(len(self))])
        return "<positions file>"


def parse_position_source(spec: str) -> PositionSource:
    """Like :func:`parse_positions`, as a :class:`PositionSource` (a range stays a range, a ``.npy`` file is mapped)."""
    s = str(spec).strip()
    if s.endswith(".npy"):
        arr = _npy_array(s)
        if arr.dtype.kind in "iu" and arr.size and int(np.max(np.abs(arr.astype(np.float64)))) >= 2 ** 53:
            return PositionSource(values=[Fraction(int(x)) for x in arr.tolist()])
        return PositionSource(values=arr)
    if ":" in s and "," not in s:
        start, stop, step = _range_bounds(s)
        if stop <= start:
            raise ValueError(f"position range {s!r} is empty (stop must exceed start)")
        if step != 1:
            return PositionSource(values=positions_from_spec(s))
        return PositionSource(start=int(start), stop=int(stop))
    return PositionSource(values=parse_positions(s))


def _npy_array(path: str) -> np.ndarray:
    """The positions file memory-mapped, header checked (:func:`_npy_header`), every position finite."""
    arr = _npy_header(path)
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError(f"positions file {path!r} holds a non-finite position")
    return arr
