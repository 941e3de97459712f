"""The Kind protocol (SPEC.md REQ-CHECK-KINDS, REQ-DETECT-KINDS): what every kind of table implements, once.

A kind is one module of :mod:`sinpe.reference.checking.kinds` with one object implementing :class:`Kind`: its
options (declared once, :mod:`~sinpe.reference.checking.options`: they make the CLI flags, the API keywords, the JSON
keys and the usage errors), how to load a target, its plan, its reference and its oracle enclosure, its check (the
one judge, :mod:`~sinpe.reference.checking.judge`), its candidates and reading for detect, and the ``sinpe check``
flags that reproduce a check or a reading. The door (:mod:`sinpe.reference.checking.door`) dispatches to the kinds;
nothing else imports them.
"""
from __future__ import annotations

import time
from typing import Any, Protocol

from sinpe.reference.checking.loaded import Table
from sinpe.reference.checking.loaders import _finish, _to_numpy, is_callable_target, load_table
from sinpe.reference.checking.options import Option, Request
from sinpe.reference.checking.result import CheckResult

from ...inputs import LoadError, path_word


class Kind(Protocol):
    """One kind of table: ``name`` (the result's ``kind``), ``noun`` (how messages name it), its ``options``."""

    name: str
    noun: str
    options: tuple[Option, ...]

    def claims(self, profile: Any, req: Request) -> bool:
        """Is ``profile`` (a name or an object) with ``req`` a profile of this kind?"""

    def applicable(self, profile: Any, req: Request) -> None:
        """A LoadError (a usage error) for a keyword of another kind, or a profile this kind cannot take."""

    def check(self, target: Any, profile: Any, req: Request) -> CheckResult:
        """Load ``target``, build the plan, judge it, name the command that reproduces it and the cause."""

    def flags(self, profile: Any, *args: Any, **kwargs: Any) -> str:
        """The ``sinpe check`` flags of ``profile`` (the reproduce line); what else it takes is the kind's own (a grid's
        options, a rotary profile's frequency lists, a channel plan's extra parameters)."""

    def reading_words(self, reading: Any, found: Any) -> tuple[str, str, Any]:
        """(flags, sentence, profile object) of what a detect reading of this kind names (``found``: the door's
        :class:`~sinpe.reference.checking.door.found.Found`, the table or caches read)."""


def label(target: Any, req: Request | None = None) -> str:
    """How a report names its target: the path or ``module:callable``, else ``table``."""
    t = target if target is not None else (req.cos if req and req.cos is not None else getattr(req, "sin", None))
    return str(t) if isinstance(t, str) or hasattr(t, "__fspath__") else "table"


def command_word(target: Any, req: Request | None = None) -> str:
    """:func:`label` as one shell word of a printed ``sinpe check`` line (a name with a space, a quote or a control
    character quoted, one that starts with ``-`` as ``./-t.npy``: the line runs as printed, REQ-CLI-EXIT;
    :func:`~sinpe.reference.inputs.path_word`). A ``module:callable`` never starts with ``-``."""
    return path_word(label(target, req))


def load_plain(target: Any, key: str | None, what: str) -> Table:
    """A table given as an array, a tensor or a file (a grid or a cache: no callable, no selection)."""
    if callable(target) or (isinstance(target, str) and is_callable_target(target)):
        raise LoadError(f"{target if isinstance(target, str) else 'a callable'}: {what} is checked from a table "
                        "(an array or a file), not a callable")
    if isinstance(target, str) or hasattr(target, "__fspath__"):
        return load_table(str(target), key=key)
    return _finish(Table(*_to_numpy(target, "table"), "table"))


def with_command(res: CheckResult, flags: str, target_words: str, notes: list[str], t0: float) -> CheckResult:
    """A grid, rotary or channel-plan result with what the command knows: its flags, notes, command, time."""
    res.profile_flags, res.notes = flags, list(notes) + res.notes
    res.reproduce = f"sinpe check {target_words} {flags}"
    for p in res.parts.values():  # a rotary pair's caches: the same profile, checked by the same command
        p.profile_flags, p.profile_params, p.reproduce = flags, res.profile_params, res.reproduce
    res.seconds = time.perf_counter() - t0
    return res

