"""The 1-D table kind (SPEC.md DEF-FAMILY, REQ-CHECK-CONFORM, REQ-CHECK-KINDS): a table of PE_P(p) rows, checked by
the streamed kernel (:mod:`sinpe.reference.checking.check`) and read by the 1-D fit
(:mod:`sinpe.reference.checking.detect.fit`). Its options are a 1-D profile's parameters (:data:`OPTIONS`, with
``layout`` and ``base`` shared with the rotary kind); its plan is the profile's column data; its reference for a
chunk of positions is :func:`~sinpe.reference.checking.check.reference_chunk` and its oracle the Arb enclosure of one
entry (:func:`~sinpe.reference.checking.check.oracle_entry`).
"""
from __future__ import annotations

from typing import Any

from sinpe.reference.checking import targets
from sinpe.reference.checking.cause import attach, of_table
from sinpe.reference.checking.check import oracle_entry, reference_chunk
from sinpe.reference.checking.kinds.base import command_word
from sinpe.reference.checking.options import SHARED, TABLES, Option, Request, refused
from sinpe.reference.checking.result import CheckResult
from sinpe.spec.definition import ColumnData, column_data
from sinpe.spec.profiles import ODD_RULES, PRESETS, Profile, get_profile
from sinpe.spec.rotary import ROTARY_LAYOUTS, ROTARY_PRESETS

from ...inputs import LoadError
from ...numerics.binary64 import binary64_parameters

OPTIONS = (
    Option("shift", ("1d",), "schedule shift s: D = floor(d/2) - s ('half' for Vaswani's D = d/2)", parameter=True,
           exact=True),
    Option("phase_scale", TABLES, "phase scale sigma (argument sigma*p*w)", parameter=True, exact=True),
    Option("amplitude", TABLES, "amplitude alpha", parameter=True, exact=True),
    Option("offset", TABLES, "position offset added to every position", parameter=True, exact=True),
    Option("odd", ("1d",), "rule for odd d", choices=ODD_RULES, parameter=True),
)
PARAMETERS = tuple(PRESETS["vaswani"].params())  # a 1-D profile's fields (DEF-FAMILY), in Profile.params() order
PROFILE_OPTIONS = tuple(sorted((o for o in SHARED + OPTIONS if o.name in PARAMETERS), key=lambda o: PARAMETERS.index(o.name)))
LOAD = ("d", "positions", "key", "call", "timeout", "rows", "skip_rows", "zero_rows", "columns")
CHECK = ("dtype", "tier", "working", "detect", "max_failures")


class OneD:
    """The 1-D table kind (see the module docstring)."""

    name = "1d"
    noun = "a 1-D table"
    options: tuple[Option, ...] = OPTIONS

    def claims(self, profile: Any, req: Request) -> bool:
        return True  # the kind of every profile no other kind claims (a 1-D preset, a Profile, None)

    def applicable(self, profile: Any, req: Request) -> None:
        name = getattr(profile, "name", None) or profile
        refused(req, "1d", f"applies to {{kinds}} profiles, not {name}")
        if req.layout in ROTARY_LAYOUTS:
            raise LoadError(f"--layout {req.layout} is a rotary layout: pass --profile {'|'.join(ROTARY_PRESETS)}")

    def profile(self, profile: Any, req: Request) -> Profile:
        """A 1-D preset (or :class:`Profile`; default vaswani) with the request's overrides."""
        over = {k: getattr(req, k) for k in PARAMETERS if getattr(req, k) is not None}
        if isinstance(profile, Profile):
            return profile.replace(**over) if over else profile
        return get_profile("vaswani" if profile is None else profile, **over)

    def plan(self, profile: Profile, d: int) -> ColumnData:
        return column_data(profile, d)

    reference = staticmethod(reference_chunk)
    enclose = staticmethod(oracle_entry)

    def check(self, target: Any, profile: Any, req: Request) -> CheckResult:
        if target is None:
            raise LoadError("TARGET is required (a table file or module:callable; a rotary cache: --cos/--sin "
                            f"with --profile {'|'.join(ROTARY_PRESETS)})")
        prof = self.profile(profile, req)
        binary64_parameters(prof)  # REQ-CHECK-LIMITS: a non-finite reference is refused before any work
        res = targets.check_target(target, prof, **keywords(req))
        return self.finish(res, target)

    def finish(self, res: CheckResult, target: Any, parameters: bool = True) -> CheckResult:
        """The reproduce line and the cause (``parameters``: the deviations of the profile's parameters are causes:
        the profile was claimed, not found by detect)."""
        res.reproduce = f"sinpe check {command_word(target)} {res.profile_flags}"
        attach(res, of_table(res, parameters))
        return res

    def flags(self, profile: Profile, req: Request | None = None) -> str:
        return profile.cli_flags()

    def reading_words(self, reading: Any, found: Any) -> tuple[str, str, Any]:
        return reading.profile_flags, reading.sentence, None

    def preset(self, name: Any) -> bool:
        return isinstance(name, str) and name in PRESETS


def keywords(req: Request) -> dict[str, Any]:
    """The loading and checking keywords of a 1-D check (usage errors for a bad ``d`` or ``max_failures``)."""
    if req.d is not None and req.d < 1:
        raise LoadError(f"--d must be >= 1; got {req.d}")
    if req.max_failures < 0:
        raise LoadError(f"--max-failures must be >= 0; got {req.max_failures}")
    return req.keywords(LOAD + CHECK)


KIND = OneD()
