"""sinpe.spec: what must hold.

The single definition of the sinusoidal positional encoding (:mod:`sinpe.spec.definition`),
its parameter family and named presets (:mod:`sinpe.spec.profiles`), the IEEE formats it is
rounded to (:mod:`sinpe.spec.formats`) and the normative text ``SPEC.md``.
"""
from __future__ import annotations

from .profiles import PRESETS, Profile, get_profile
from .definition import Column, columns, exponent, phase, value

SPEC_VERSION = "1.0.0"

__all__ = ["SPEC_VERSION", "PRESETS", "Profile", "get_profile", "Column", "columns", "exponent",
           "phase", "value"]
