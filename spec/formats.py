"""The IEEE 754 binary formats sinpe rounds to (SPEC.md DEF-FORMAT).

>>> FORMATS["binary32"].unit_roundoff == 2.0 ** -24
True
>>> get_format("bf16").name, get_format("float16").name
('bfloat16', 'binary16')
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Format:
    """A binary floating-point format: ``precision`` significand bits (hidden bit included),
    normal exponents ``emin..emax`` (value = 1.f * 2^e), gradual underflow below 2^emin."""

    name: str
    dtype: str  # the name used on the command line and in NumPy/PyTorch
    precision: int
    emin: int
    emax: int

    @property
    def unit_roundoff(self) -> float:
        """u = 2^-precision: the relative error bound of round-to-nearest."""
        return 2.0 ** -self.precision

    @property
    def storage(self) -> str:
        """The NumPy dtype a table in this format is stored in: its own, and float32 for bfloat16 (NumPy
        has none; the float32 array holds exactly the bfloat16 values).

        >>> [f.storage for f in FORMATS.values()]
        ['float64', 'float32', 'float16', 'float32']
        """
        return "float32" if self.name == "bfloat16" else self.dtype

    @property
    def max_finite(self) -> float:
        return (2.0 - 2.0 ** (1 - self.precision)) * 2.0 ** self.emax

    @property
    def min_subnormal(self) -> float:
        return 2.0 ** (self.emin - self.precision + 1)


FORMATS: dict[str, Format] = {
    "binary64": Format("binary64", "float64", 53, -1022, 1023),
    "binary32": Format("binary32", "float32", 24, -126, 127),
    "binary16": Format("binary16", "float16", 11, -14, 15),
    "bfloat16": Format("bfloat16", "bfloat16", 8, -126, 127),
}

DTYPES = ("float64", "float32", "float16", "bfloat16")

_ALIASES = {
    "float64": "binary64", "f64": "binary64", "double": "binary64", "fp64": "binary64",
    "float32": "binary32", "f32": "binary32", "float": "binary32", "fp32": "binary32", "single": "binary32",
    "float16": "binary16", "f16": "binary16", "half": "binary16", "fp16": "binary16",
    "bfloat16": "bfloat16", "bf16": "bfloat16",
}


def get_format(name: str) -> Format:
    """Look a format up by IEEE name, dtype name or common alias."""
    key = str(name).strip().lower()
    key = _ALIASES.get(key, key)
    if key not in FORMATS:
        raise ValueError(f"unknown dtype {name!r}; use one of {', '.join(DTYPES)}")
    return FORMATS[key]
