"""The claimed format of a reading and the precision ladder (SPEC.md REQ-DETECT-PRECISION, REQ-DETECT-KINDS).

Every reading of detect judges a table in the narrowest format holding its values (:func:`stored_dtype`), first at
TOL-WORKING's default, then on the later steps of :func:`precision_ladder` (a computation in less precision than the
table claims: a deviation, worded by :func:`sinpe.reference.checking.cause.lowered_words`). Candidates are screened on a few rows first
(:func:`screen_rows`): an entry that fails there fails in the whole check too, so the screen only skips work.
"""
from __future__ import annotations

import numpy as np

from sinpe.reference.numerics.rounding import narrowest_format


def stored_dtype(table: np.ndarray) -> str:
    """The narrowest of bfloat16/float16/float32/float64 holding every value of ``table`` exactly (detect's
    default claim; :func:`sinpe.reference.numerics.rounding.narrowest_format`): a half-precision grid or cache
    stored as float32 is judged as one, and MAE's float32 grid, which comes back as float64 after its float64
    cls row is concatenated, as float32."""
    return narrowest_format(np.asarray(table)) or "float64"


def precision_ladder(dtype: str, tier: str) -> tuple[tuple[str, str | None], ...]:
    """REQ-DETECT-PRECISION: the (format, working precision) pairs a reading tries, in order. First the table's
    format at TOL-WORKING's default; then, for a table no plan fits so, a computation in less precision than it
    claims: a half-precision table computed natively in its own format (``--working native``), a float64 table
    computed in float32 (``--dtype float32``). A plan found on a later step is named with that flag as a
    deviation (exit 1); ``sinpe check``'s default (and ``--profile auto``) still rejects the table.

    >>> precision_ladder("bfloat16", "phase"), precision_ladder("float64", "phase")[1], precision_ladder("float32", "phase")
    ((('bfloat16', None), ('bfloat16', 'native')), ('float32', None), (('float32', None),))
    """
    if tier == "phase" and dtype in ("float16", "bfloat16"):
        return (dtype, None), (dtype, "native")
    if tier == "phase" and dtype == "float64":
        return (dtype, None), ("float32", None)
    return ((dtype, None),)


def screen_rows(n: int, rows: int) -> np.ndarray | None:
    """The rows a candidate is first checked on: the first ``n // 2`` and ``n // 2`` spread over the rest (None:
    ``rows`` is small enough to check whole, at most ``2 n``).

    >>> screen_rows(4, 20).tolist(), screen_rows(4, 8)
    ([0, 1, 2, 19], None)
    """
    if rows <= 2 * n:
        return None
    return np.unique(np.concatenate([np.arange(n // 2), np.linspace(n // 2, rows - 1, n // 2).astype(np.intp)]))
