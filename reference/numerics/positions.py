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

from typing import Any

from sinpe.spec.profiles import format_number, to_fraction

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
