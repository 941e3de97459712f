"""What loading an input gives (SPEC.md REQ-CHECK-INPUT, REQ-CLI-EXIT): a :class:`Table`, or a :class:`LoadError`
of one line; :func:`escape` and :func:`one_line` keep what such a line quotes printable and short.

The vocabulary every reader shares (:mod:`loaders`, :mod:`containers`, :mod:`exported`, :mod:`isolate`, ...),
below all of them: it imports none of sinpe.

>>> one_line(ValueError("bad\\n  value\\x1b[31m"))
'bad value\\\\x1b[31m'
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


class LoadError(ValueError):
    """A table or callable that cannot be used: one line, exit status 2."""


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


def one_line(e: BaseException) -> str:
    """``e``'s message (or its type's name) on one line, escaped, at most 160 characters."""
    s = escape(" ".join(str(e).split()) or type(e).__name__)
    return s if len(s) <= 160 else s[:157] + "..."


def escape(s: str) -> str:
    """``s`` with control and other non-printable characters as Python escapes: one line, no terminal
    control sequences (REQ-CLI-EXIT).

    >>> escape("a\\nb\\x1b[31m")
    'a\\\\nb\\\\x1b[31m'
    """
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in s)
