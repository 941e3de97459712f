"""What loading an input gives (SPEC.md REQ-CHECK-INPUT): a :class:`Table` (what cannot be loaded is a
:class:`sinpe.reference.inputs.LoadError` of one line).

The table every reader of checking/ builds (:mod:`loaders`, :mod:`exported`, :mod:`isolate`, ...), below all of
them: it imports none of sinpe.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Table:
    """A loaded table: ``data`` (rows = positions, columns = channels; may be a read-only memmap),
    its IEEE ``dtype`` name, where it came from and what was done to it (``notes``)."""

    data: np.ndarray
    dtype: str
    source: str
    notes: list[str] = field(default_factory=list)
    streamable: bool = False  # a memory-mapped file: read in chunks
    from_text: bool = False   # decimal text parsed as float64 (.csv/.json): rounded to the dtype checked
