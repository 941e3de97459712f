"""Position specs on the command line (SPEC.md REQ-CLI-POSITIONS).

``start:stop`` (stop excluded), a comma list (``0,1,65535,1e6,-3,2.5``), or a ``.npy`` file.
Positions are exact rationals; a ``.npy`` file's floats are taken at their exact binary value.

>>> parse_positions("0:4")
[Fraction(0, 1), Fraction(1, 1), Fraction(2, 1), Fraction(3, 1)]
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

import numpy as np

from sinpe.spec.profiles import to_fraction

MAX_POSITIONS = 10**8


def parse_positions(spec: str) -> list[Fraction]:
    """Parse a position spec into exact rationals; raise ValueError with a clear message."""
    s = str(spec).strip()
    if not s:
        raise ValueError("empty position spec")
    if s.endswith(".npy"):
        return _from_npy(s)
    if ":" in s:
        parts = s.split(":")
        if len(parts) != 2:
            raise ValueError(f"position range {s!r} must be start:stop")
        start, stop = (to_fraction(x, "range bound") for x in parts)
        if start.denominator != 1 or stop.denominator != 1:
            raise ValueError(f"position range {s!r} needs integer bounds")
        if stop <= start:
            raise ValueError(f"position range {s!r} is empty (stop must exceed start)")
        if stop - start > MAX_POSITIONS:
            raise ValueError(f"position range {s!r} has more than {MAX_POSITIONS} positions")
        return [Fraction(i) for i in range(int(start), int(stop))]
    return [to_fraction(x, "position") for x in s.split(",")]


def _from_npy(path: str) -> list[Fraction]:
    if not os.path.exists(path):
        raise ValueError(f"positions file {path!r} does not exist")
    try:
        arr = np.load(path, allow_pickle=False)
    except Exception as e:  # corrupt file, pickled payload, ...
        raise ValueError(f"cannot read positions file {path!r}: {e}") from None
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"positions file {path!r} must hold a non-empty 1-D array; got shape {arr.shape}")
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"positions file {path!r} must hold numbers; got dtype {arr.dtype}")
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
    return ",".join(_fmt(p) for p in positions)


def _fmt(p: Fraction) -> str:
    if p.denominator == 1:
        return str(p.numerator)
    # the shortest decimal when it denotes p exactly (2.5); else n/d (the binary value of 0.1 is not 1/10)
    f = float(p)
    if Fraction(repr(f)) == p:
        return repr(f)
    return f"{p.numerator}/{p.denominator}"


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
                 values: "list[Fraction] | np.ndarray | None" = None) -> None:
        self.start, self.stop, self.values = start, stop, values
        if values is None:
            assert start is not None and stop is not None
            if max(abs(start), abs(stop)) > 2 ** 53:
                raise ValueError(f"position range {start}:{stop} reaches beyond 2^53")
        self.dyadic_f64 = values is None or isinstance(values, np.ndarray) or all(
            Fraction(float(p)) == p for p in values)

    def __len__(self) -> int:
        return (self.stop - self.start) if self.values is None else len(self.values)  # type: ignore[operator]

    def block(self, a: int, b: int) -> "np.ndarray | list[Fraction]":
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
        parts = s.split(":")
        if len(parts) != 2:
            raise ValueError(f"position range {s!r} must be start:stop")
        start, stop = (to_fraction(x, "range bound") for x in parts)
        if start.denominator != 1 or stop.denominator != 1:
            raise ValueError(f"position range {s!r} needs integer bounds")
        if stop <= start:
            raise ValueError(f"position range {s!r} is empty (stop must exceed start)")
        return PositionSource(start=int(start), stop=int(stop))
    return PositionSource(values=parse_positions(s))


def _npy_array(path: str) -> np.ndarray:
    if not os.path.exists(path):
        raise ValueError(f"positions file {path!r} does not exist")
    try:
        arr = np.load(path, allow_pickle=False, mmap_mode="r")
    except Exception as e:  # corrupt file, pickled payload, ...
        raise ValueError(f"cannot read positions file {path!r}: {e}") from None
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"positions file {path!r} must hold a non-empty 1-D array; got shape {arr.shape}")
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"positions file {path!r} must hold numbers; got dtype {arr.dtype}")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError(f"positions file {path!r} holds a non-finite position")
    return arr
