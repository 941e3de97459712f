"""sinpe.spec: what must hold.

The single definition of the sinusoidal positional encoding (:mod:`sinpe.spec.definition`),
its parameter family and named presets (:mod:`sinpe.spec.profiles`), the IEEE formats it is
rounded to (:mod:`sinpe.spec.formats`) and the normative text ``SPEC.md``.
"""
from __future__ import annotations

import os

# One name per file: this folder is the package sinpe.spec (pyproject.toml's package-dir), never a top-level
# `spec` (the repository root is on sys.path under `python -m`).
if __name__ != "sinpe.spec":
    raise ImportError(f"spec/ is the package sinpe.spec, not {__name__!r}: import sinpe.spec (installed by make)")
# Under the strict editable install (`make`) this package is a link tree under build/; its sources' own folder is
# a second entry, so that what reads the package's path (the sandbox's read roots, confine.read_roots) covers
# the files the links point to.
if os.path.realpath(__path__[0]) != os.path.dirname(os.path.realpath(__file__)):
    __path__.append(os.path.dirname(os.path.realpath(__file__)))

from .definition import Column, columns, exponent, phase, value
from .profiles import PRESETS, Profile, get_profile

SPEC_VERSION = "4.0.0"  # semver of the spec and its verdicts (spec/CHANGELOG.md)
# The version whose definitions (section 1) and reference values (section 3) the golden vectors follow:
# it moves only when a golden value could change, so the golden files stay byte-identical across
# releases that change checking, not values (REQ-GOLDEN-SCHEMA `specVersion`).
VALUES_VERSION = "1.0.0"

__all__ = ["SPEC_VERSION", "VALUES_VERSION", "PRESETS", "Profile", "get_profile", "Column", "columns", "exponent",
           "phase", "value"]
