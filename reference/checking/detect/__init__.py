"""Detect: what a table implements (SPEC.md REQ-DETECT-FIT, REQ-DETECT-PRECISION, REQ-DETECT-SPARSE, REQ-DETECT-READ,
REQ-DETECT-GRID, REQ-DETECT-ROPE), one concern per module:

- :mod:`.fit` -- the 1-D fit of DEF-FAMILY (:func:`detect_table`), on :mod:`.plans` (the column plans tried),
  :mod:`.snap` (fitted numbers made simple), :mod:`.precision` (the precision fingerprint) and :mod:`.reading`
  (the :class:`Detection`, its sentence and the profile it names);
- :mod:`.sparse` -- a few rows at any positions: candidates checked, not fitted;
- :mod:`.channels` -- each channel's function, frequency and amplitude read from the data;
- :mod:`.grid`, :mod:`.rotary` -- the readings of a grid and of a rotary cache, written once for every preset of
  their kind (what is particular to a preset comes from the kind);
- :mod:`.ladder` -- the format a reading claims and the precision ladder it climbs.
"""
from __future__ import annotations

from sinpe.reference.checking.detect.channels import read_channels
from sinpe.reference.checking.detect.fit import column_frequencies, detect_table
from sinpe.reference.checking.detect.precision import PRECISIONS, decide_precision, evaluate_precision
from sinpe.reference.checking.detect.reading import Detection, profile_of, zero_row_indices
from sinpe.reference.checking.detect.sparse import SparseDetection, detect_sparse

__all__ = ["PRECISIONS", "Detection", "SparseDetection", "column_frequencies", "decide_precision", "detect_sparse",
           "detect_table", "evaluate_precision", "profile_of", "read_channels", "zero_row_indices"]
