"""sinpe.reference: what the numbers are, and checking others'.

Subpackages, one job each: :mod:`.numerics` (rounding, positions), :mod:`.oracles` (mpmath, intervals,
Arb, fast double-double), :mod:`.golden` (golden vectors), :mod:`.implementations` (bundled NumPy and
PyTorch implementations and their certification), :mod:`.checking` (load, check, detect),
:mod:`.conformance` (the pytest entry point), :mod:`.audit` (the audit of the seed chapter's claims, its figures),
:mod:`.bugs` (the catalogue of buggy implementations the checker must reject) and :mod:`.cli` (one thin module per command).
"""
from __future__ import annotations

import os

# One name per file: this folder is the package sinpe.reference (pyproject.toml's package-dir), never a top-level
# `reference` (the repository root is on sys.path under `python -m`).
if __name__ != "sinpe.reference":
    raise ImportError(f"reference/ is the package sinpe.reference, not {__name__!r}: import sinpe.reference (installed by make)")
# Under the strict editable install (`make`) this package is a link tree under build/; its sources' own folder is
# a second entry, so that what reads the package's path (the sandbox's read roots, confine.read_roots) covers
# the files the links point to.
if os.path.realpath(__path__[0]) != os.path.dirname(os.path.realpath(__file__)):
    __path__.append(os.path.dirname(os.path.realpath(__file__)))
