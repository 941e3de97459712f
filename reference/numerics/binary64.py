"""A profile's parameters within binary64 (SPEC.md REQ-CHECK-LIMITS), checked before any expensive work.

The checker computes its reference in binary64 (:mod:`sinpe.reference.oracles.fast`) and decides
close calls with Arb: a parameter beyond binary64's range would make that reference non-finite, and a
report against it would be a false pass. Such a profile is refused up front, naming the flag. Positions
are held to the same bound (:mod:`.positions`).

>>> from sinpe.spec.profiles import get_profile
>>> binary64_parameters(get_profile("vaswani", phase_scale="1e309"))
Traceback (most recent call last):
...
ValueError: --phase-scale 1e+309 is beyond binary64 (|x| < 2^1024); the checker's reference would not be finite
>>> binary64_parameters(get_profile("vaswani", base="1e4"))
"""
from __future__ import annotations

import math
from fractions import Fraction

from ...spec.profiles import Profile

BINARY64_LIMIT = Fraction(2) ** 1024  # positions and parameters are binary64 values in every kernel

_FLAGS = {"base": "--base", "phase_scale": "--phase-scale", "amplitude": "--amplitude", "offset": "--offset",
          "shift": "--shift"}


def binary64_parameters(profile: Profile) -> None:
    """ValueError (one line, the flag named) when a parameter's magnitude is not below 2^1024."""
    for field, flag in _FLAGS.items():
        v = getattr(profile, field)
        if v is not None and abs(v) >= BINARY64_LIMIT:
            raise ValueError(f"{flag} {_short(v)} is beyond binary64 (|x| < 2^1024); the checker's reference "
                             f"would not be finite")


def _short(v: Fraction) -> str:
    """A short decimal for a huge rational: 1e+309."""
    e = math.floor(math.log10(abs(v.numerator)) - math.log10(v.denominator))
    m = v / Fraction(10) ** e
    return f"{'-' if v < 0 else ''}{float(abs(m)):g}e+{e}"
