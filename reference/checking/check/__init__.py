"""The 1-D check (SPEC.md REQ-CHECK-CONFORM, REQ-CHECK-DECIDE, REQ-CHECK-STREAM): :func:`check_table`, one concern
per module:

- :mod:`.table` -- the check of a table: its input normalised, the streamed pass, the conclusion;
- :mod:`.reference` -- PE for a chunk of positions, the oracle's enclosure of one entry, the positions;
- :mod:`.kernel` -- the pass over one chunk of rows, the fused phase bound, the certified exact/faithful verdicts;
- :mod:`.merge` -- the chunks' figures merged in row order;
- :mod:`.conclude` -- the oracle's decisions, the failures listed, the worst entry, the findings worded.
"""
from __future__ import annotations

from sinpe.reference.checking.check.reference import oracle_entry, positions_array, reference_chunk
from sinpe.reference.checking.check.table import CHUNK_ENTRIES, MAX_FAILURES, THREADS, _new_result, check_table, narrower_values

__all__ = ["CHUNK_ENTRIES", "MAX_FAILURES", "THREADS", "_new_result", "check_table", "narrower_values",
           "oracle_entry", "positions_array", "reference_chunk"]
