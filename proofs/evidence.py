"""What each decided step rests on, recorded while certificates are written (REQ-PROVE-CERT).

The decision helpers of the proofs (:func:`sinpe.proofs.symbolic.rational_identity`, ``positive_from``, the plan
lookups, :func:`sinpe.proofs.balls.certified_sign`, ...) are wrapped by :func:`records`; a step site that decides
inline states its fact with :func:`fact`. Facts wait until the step they belong to is counted: :func:`step`
(a step tuple of a step list) or :func:`note_step` (a structural proof's ``Steps.check``) attaches them.
:mod:`.certificates` turns them into data that :mod:`.certcheck` re-decides. Nothing is recorded (and nothing
costs more than one test) unless :func:`recording` is active; a helper called inside another recorded one, or
inside a :func:`quiet` function (a search, not a step), records nothing.

>>> @records("positivity", "expr")
... def positive(x):
...     return x > 0
>>> with recording() as rec:
...     _ = step(positive(3), 1, "three is positive")
>>> rec.items
[('step', 'three is positive', [('positivity', {'expr': 3}, True)], None)]
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Recorder:
    items: list[tuple] = field(default_factory=list)  # ("obligation", ob) | ("step", what, facts, ideal certificate)
    pending: list[tuple] = field(default_factory=list)  # (kind, data, result) since the last step
    depth: int = 0


_ACTIVE: Recorder | None = None


@contextmanager
def recording() -> Iterator[Recorder]:
    global _ACTIVE
    rec, before = Recorder(), _ACTIVE
    _ACTIVE = rec
    try:
        yield rec
    finally:
        _ACTIVE = before


def records(kind: str, *names: str) -> Callable:
    """Decorate a decision helper: a true (truthy) answer is a fact of ``kind`` with the helper's arguments
    (positional ones under ``names``) and its result."""
    def wrap(f: Callable) -> Callable:
        @functools.wraps(f)
        def helper(*args: Any, **kwargs: Any) -> Any:
            rec = _ACTIVE
            if rec is None or rec.depth:
                return f(*args, **kwargs)
            rec.depth += 1
            try:
                out = f(*args, **kwargs)
            finally:
                rec.depth -= 1
            if out:
                rec.pending.append((kind, {**dict(zip(names, args, strict=False)), **kwargs}, out))
            return out
        return helper
    return wrap


def quiet(f: Callable) -> Callable:
    """Decorate a function whose helper calls are a search or another certificate's business, not facts."""
    @functools.wraps(f)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        rec = _ACTIVE
        if rec is None:
            return f(*args, **kwargs)
        rec.depth += 1
        try:
            return f(*args, **kwargs)
        finally:
            rec.depth -= 1
    return wrapped


def fact(kind: str, **data: Any) -> None:
    """A step site states the fact its inline decision rests on (certcheck re-decides it)."""
    if _ACTIVE is not None and not _ACTIVE.depth:
        _ACTIVE.pending.append((kind, data, True))


def note_step(what: str, certificate: Any = None) -> None:
    """A step is counted: it rests on the facts recorded since the last one (and an ideal ``certificate``)."""
    rec = _ACTIVE
    if rec is not None and not rec.depth:
        rec.items.append(("step", what, rec.pending, certificate))
        rec.pending = []


def step(ok: bool, size: int, what: str) -> tuple[bool, int, str]:
    """The step tuple ``(ok, size, what)`` of a step list, its facts attached (:func:`note_step`)."""
    note_step(what)
    return ok, size, what


def note_obligation(ob: Any) -> None:
    """A structural proof decided ``ob`` through its procedure."""
    if _ACTIVE is not None and not _ACTIVE.depth:
        _ACTIVE.items.append(("obligation", ob))
