"""Golden vectors (SPEC.md REQ-GOLDEN-SCHEMA, REQ-GOLDEN-MANIFEST, REQ-GOLDEN-ORACLE), one concern per module:
:mod:`.contents` (what the set holds), :mod:`.encoding` (how values are written),
:mod:`.casefile` (the schema, the provenance), :mod:`.generation` (``sinpe golden``), :mod:`.second_oracle`
(Arb's word on a decimal), :mod:`.loading` (every load checked against the manifest,
:mod:`sinpe.reference.golden.manifest`) and :mod:`.certify` (self-certification). The names below are the package's interface.

Every value comes from :mod:`sinpe.reference.oracles.interval` (mpmath intervals + Ziv) and is
cross-checked, at generation, against :mod:`sinpe.reference.oracles.arb` (Arb balls + Ziv);
generation refuses to write anything if the two disagree on a single bit.

>>> ids = {c["id"] for c in iter_cases(profile="vaswani", dtype="float32", d=4)}
>>> len(ids) == len(GOLDEN_POSITIONS) * 4
True
>>> c = next(c for c in iter_cases(profile="vaswani", dtype="float64", d=4) if c["position"] == "1" and c["column"] == 0)
>>> c["value"], c["hex"], c["decimal"]     # sin 1
(0.8414709848078965, '0x1.aed548f090ceep-1', '8.414709848078965066525023216302989996226e-1')
"""
from __future__ import annotations

from ..manifest import GOLDEN_DIR, MANIFEST_NAME, MANIFEST_SHA256, GoldenIntegrityError, manifest, read_verified
from .casefile import provenance, schema, validate, versions
from .certify import Check, SelfCertReport, check_case, fresh_seed, self_certify
from .contents import BULK_POSITIONS, FLAGS, GOLDEN_POSITIONS, RELEASE_DATES, SCHEMA_NAME, WIDTHS
from .encoding import case_id, float_hex, position_str, sampled_columns
from .generation import GenReport, generate, manifest_bytes, write
from .loading import iter_cases, load_case_file, load_table

__all__ = ["BULK_POSITIONS", "FLAGS", "GOLDEN_DIR", "GOLDEN_POSITIONS", "MANIFEST_NAME", "MANIFEST_SHA256", "RELEASE_DATES",
           "SCHEMA_NAME", "WIDTHS", "Check", "GenReport",
           "GoldenIntegrityError", "SelfCertReport", "case_id", "check_case", "float_hex", "fresh_seed", "generate",
           "iter_cases", "load_case_file", "load_table", "manifest", "manifest_bytes", "position_str", "provenance",
           "read_verified", "sampled_columns", "schema", "self_certify", "validate", "versions", "write"]
