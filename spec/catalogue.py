"""Looking an entry up in one of sinpe's catalogues (sources, claims, bugs) by its id: one rule for all.

>>> lookup({"a": 1}, "a", "source")
1
>>> lookup({"a": 1}, "b", "source")
Traceback (most recent call last):
...
ValueError: unknown source 'b'; known: a
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

T = TypeVar("T")


def lookup(index: Mapping[str, T], key: str, what: str, listed: bool = True, hint: str = "") -> T:
    """``index[key]``, or a one-line ValueError naming ``key`` (and the known ids when ``listed``, or ``hint``)."""
    try:
        return index[key]
    except KeyError:
        known = f"; known: {', '.join(index)}" if listed else ""
        raise ValueError(f"unknown {what} {key!r}{known}{hint}") from None
