"""What the 1-D golden vectors hold (SPEC.md REQ-GOLDEN-SCHEMA): the widths, positions and formats of the cases, and
the flags a case can carry.

Layout of ``reference/golden/data/`` (package data):

- ``golden-v1.schema.json``: the JSON schema of the case files (version in the name);
- ``cases/<preset>/d<d>.json``: Wycheproof-style files, one group per dtype, each case with a
  stable content-derived ``id``, the exact position, the column, the correctly rounded value
  (``hex``) and the exact value to 40 significant digits (``decimal``), and ``flags``;
- ``tables/<preset>/d<d>-<dtype>.npy``: full rows at :data:`BULK_POSITIONS` (``tables/positions.json``);
  bfloat16 tables are float32 arrays holding exactly the bfloat16 values;
- ``MANIFEST.json``: SHA-256 and size of every other file; checked whenever a file is loaded
  (:mod:`sinpe.reference.golden.manifest`).
"""
from __future__ import annotations

from fractions import Fraction

SCHEMA_NAME = "golden-v1.schema.json"
RELEASE_DATES = {"1.0.0": "2026-11-30", "2.0.0": "2026-12-01", "3.0.0": "2026-12-01", "4.0.0": "2026-12-02"}  # date-released per spec version (CITATION.cff); no other timestamp

WIDTHS = (1, 2, 3, 4, 8, 64, 65, 512, 768, 1024, 4096)
SMALL_D = 8  # up to this width the case files hold every column; above, a stable sample
SAMPLED_COLUMNS = 4  # per position for d > SMALL_D: first, last and 2 seeded
FORMAT_ORDER = ("binary64", "binary32", "binary16", "bfloat16")


def _golden_positions() -> tuple[Fraction, ...]:
    pos = [Fraction(i) for i in range(17)]                       # 0..16
    pos += [Fraction(2 ** i) for i in range(5, 24)]              # powers of two up to 2^23 < 10^7
    pos += [Fraction(10 ** i) for i in range(2, 8)]              # powers of ten up to 10^7
    pos += [Fraction(x) for x in ("0.5", "2.5", "1000.25", "65504.5")]  # dyadic: exact in binary32
    pos += [Fraction(x) for x in ("-1", "-2.5", "-1000", "-10000000")]
    return tuple(pos)


GOLDEN_POSITIONS = _golden_positions()
# Full rows (bulk .npy) at these positions only: every d up to 4096 at 50 positions would be ~32 MB.
BULK_POSITIONS = tuple(Fraction(x) for x in ("0", "1", "2", "3", "7", "16", "100", "1024", "10000", "65536",
                                             "1000000", "10000000", "2.5", "-1"))

# flag -> meaning (REQ-GOLDEN-SCHEMA); thresholds are part of the schema version.
FLAGS = {
    "exact": "the value is exactly representable (theta = 0 or a zero column); no rounding happened",
    "zero-column": "the column is identically zero (odd-d zero-pad rule)",
    "large-phase": "|theta| >= 2^16: float32 phase rounding alone is >= 2^-8 absolute",
    "near-zero": "0 < |PE| < 2^-10: an absolute tolerance dominates a relative one",
    "subnormal": "the rounded value is subnormal in the format",
    "underflow": "the value is nonzero but rounds to zero in the format",
    "overflow": "the value rounds to infinity in the format",
    "near-tie": "the exact value is within 2^-6 ulp of a rounding boundary (faithful != correct rounding)",
    "ziv-escalated": "the certified enclosure needed more than the starting precision",
    "non-integer-position": "the position is not an integer",
    "negative-position": "the position is negative",
}
