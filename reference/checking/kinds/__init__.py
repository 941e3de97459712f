"""The kinds of table sinpe checks and detects (SPEC.md REQ-CHECK-KINDS, REQ-DETECT-KINDS), one module each, each
implementing one protocol (:class:`~sinpe.reference.checking.kinds.base.Kind`):

- :mod:`.one_d` -- a 1-D table of DEF-FAMILY (rows = positions);
- :mod:`.grid` -- an N-D sin-cos grid (DEF-GRID);
- :mod:`.rotary` -- a rotary cos/sin cache (DEF-ROPE);
- :mod:`.channels` -- a 1-D table against an explicit channel plan (DEF-CHANNELS-EXPLICIT);
- :mod:`.application` -- a function applying the rotary encoding to q and k (DEF-ROPE-APPLY).

:data:`KINDS` holds the table kinds in the order the door asks them whether a profile is theirs; :data:`OPTIONS`
every option of every kind, each declared once. Only the door (:mod:`sinpe.reference.checking.door`) imports this.
"""
from __future__ import annotations

from sinpe.reference.checking.kinds import channels, grid, one_d, rotary
from sinpe.reference.checking.kinds.base import Kind
from sinpe.reference.checking.options import COMMON, SHARED, Option, option_table

KINDS: dict[str, Kind] = {"channels": channels.KIND, "rotary": rotary.KIND, "grid": grid.KIND, "1d": one_d.KIND}
DECLARED: dict[str, tuple[Option, ...]] = {"shared": SHARED, "1d": one_d.OPTIONS, "grid": grid.OPTIONS,
                                           "rotary": rotary.OPTIONS, "channels": channels.OPTIONS, "common": COMMON}
OPTIONS: dict[str, Option] = option_table(o for group in DECLARED.values() for o in group)
