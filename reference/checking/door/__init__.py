"""The one door of every kind (SPEC.md REQ-CHECK-KINDS, REQ-DETECT-KINDS, REQ-CHECK-AUTO): :func:`check` and
:func:`detect` take the same keywords as the ``sinpe check``/``sinpe detect`` flags (their ``dest`` names, each
option declared once by its kind, :data:`~sinpe.reference.checking.kinds.OPTIONS`), ask each kind whether the
profile is its own (:data:`~sinpe.reference.checking.kinds.KINDS`, in order) and dispatch to it. The kind comes
from the profile (a grid preset, a rotary preset) or from ``cos=``/``sin=``/``channels=``; ``profile="auto"``
checks against what :func:`detect` names, for every kind. A keyword of another kind (``amplitude=`` with a grid,
``shape=`` with a 1-D preset) is a usage error. ``sinpe.check``, ``sinpe.detect`` and the two commands are shells
over these; :func:`check_apply` is the door of the application check.

>>> from sinpe.reference.tables import table
>>> check(table("vaswani", 8, 64, "float32"), "vaswani").verdict
'conforms'
>>> check(table("vaswani", 8, 64, "float32"), "mae", amplitude=2)
Traceback (most recent call last):
...
sinpe.reference.inputs.LoadError: --amplitude does not apply to a 2-D grid (--profile mae)
"""
from __future__ import annotations

from typing import Any

from sinpe.reference.checking.door import auto
from sinpe.reference.checking.door.found import Found
from sinpe.reference.checking.kinds import DECLARED, KINDS, OPTIONS, grid, one_d, rotary
from sinpe.reference.checking.options import READING, Option, Request, refuse_all, refused
from sinpe.reference.checking.result import CheckResult

from ...inputs import LoadError

__all__ = ["DECLARED", "GRID", "KINDS", "OPTIONS", "ROTARY", "PROFILE_OPTIONS", "Found", "Request", "apply_options", "check",
           "check_apply", "detect", "kind_of", "request"]
PROFILE_OPTIONS = one_d.PROFILE_OPTIONS  # a 1-D profile's parameters, in DEF-FAMILY's order (sinpe table too)
GRID, ROTARY = grid.KIND, rotary.KIND  # the two kinds called by their own methods (corrupted.py's readings: a grid, flags)


def request(kw: dict[str, Any]) -> Request:
    """The request of keywords ``kw`` (an unknown one is a TypeError naming every option)."""
    return Request.of(OPTIONS, kw)


def kind_of(profile: Any, req: Request) -> str:
    """``channels`` (a 1-D table against an explicit plan, ``channels=``), ``rotary``, ``grid`` or ``1d``: the first
    kind that claims the profile (a preset's name or object), ``cos=``/``sin=`` or ``channels=``."""
    return next(name for name, kind in KINDS.items() if kind.claims(profile, req))


def applicable(kind: str, profile: Any, req: Request) -> None:
    """Usage errors: ``channels=`` with a profile or caches, a keyword of another kind (each kind's words)."""
    if kind != "channels" and req.channels is not None:
        raise LoadError("--channels is the whole plan of a 1-D table: drop --profile" if req.cos is None and
                        req.sin is None else "--channels describes a 1-D table, not rotary caches (--cos/--sin)")
    KINDS[kind].applicable(profile, req)


def check(target: Any = None, profile: Any = None, **kw: Any) -> CheckResult:
    """Check ``target`` (or the ``cos=``/``sin=`` caches) against ``profile``: a 1-D preset or
    :class:`~sinpe.spec.profiles.Profile` (default vaswani; llama for caches), a grid preset, a rotary preset, or
    ``"auto"``. Every kind's result is a :class:`~sinpe.reference.checking.result.CheckResult` (``kind`` says which):
    ``verdict``, ``conformant``, ``exit_code``, ``unjudged``, ``cause`` and one ``to_json()`` with the same keys."""
    req = request(kw)
    if profile == "auto":
        return auto.check_auto(target, req, detect)
    kind = kind_of(profile, req)
    applicable(kind, profile, req)
    return KINDS[kind].check(target, profile, req)


def detect(target: Any = None, *, against: Any = "vaswani", _request: Request | None = None, _first: bool = False,
           **kw: Any) -> Found:
    """Name what ``target`` (or the ``cos=``/``sin=`` caches) is: the 1-D fit (REQ-DETECT-FIT) when it names a
    member, else a grid preset (REQ-DETECT-GRID), else a rotary reading as a cos or a sin cache
    (REQ-DETECT-ROPE). ``against`` (default vaswani) is what 1-D deviations are listed against."""
    from sinpe.reference.checking.door import readings  # detect and its oracles: a check that conforms needs neither

    req = _request or request(kw)
    if _request is None:
        refuse_all(req, lambda o: o.detected, "{flag} does not apply to detect (it finds the parameters)")
    against_kind = kind_of(against, request({}))
    if req.cos is not None or req.sin is not None:
        refused(req, "rotary", "does not apply to a rotary cache (--cos/--sin: read whole)", where=_reads_a_table)
        return readings.detect_caches(target, req, against, against_kind)
    if target is None:
        raise LoadError("FILE is required (a table file or module:callable; a rotary cache: --cos/--sin)")
    if req.channels_first or req.shape is not None:
        refused(req, "grid", "does not apply to a 2-D grid (--shape/--channels-first: read whole)",
                where=_reads_a_table)
        return readings.detect_grid_only(target, req, against, against_kind)
    if readings.three_d_npy(target):  # a (C, H, W) array (DETR's, PositionalEncodingPermute2D's): channels first
        refused(req, "grid", "does not apply to a (C, H, W) array (a 2-D grid, read whole)", where=_reads_a_table)
        return readings.detect_grid_only(target, req.replace(channels_first=True), against, against_kind)
    return readings.detect_table_kinds(target, req, against, _first, against_kind)


def _reads_a_table(o: Any) -> bool:
    """An option of how a 1-D table is read (its rows, columns, width, a callable's call): a grid or a cache given
    as such is read whole, from a file or an array, as its check reads it (which refuses these options too)."""
    return o.name in READING


def apply_options() -> tuple[tuple[Option, ...], tuple[Option, ...]]:
    """The application check's options and its profile's, as its kind declares them. (The application kind and
    its oracles are imported by the functions that use them: a table's check needs neither.)"""
    from sinpe.reference.checking.kinds import application
    return application.OPTIONS, application.PROFILE_OPTIONS


def check_apply(fn: Any, profile: Any = "llama", **kw: Any) -> Any:
    """REQ-CHECK-APPLY: does ``fn`` rotate q and k as the rotary ``profile`` says
    (:meth:`~sinpe.reference.checking.kinds.application.ApplicationKind.check`)?"""
    from sinpe.reference.checking.kinds import application
    return application.KIND.check(fn, profile, **kw)
