"""A GGUF file's rope metadata checked against the rule it names (SPEC.md REQ-IO-FORMATS, DEF-ROPE-FREQ-LLAMA3).

llama.cpp stores Llama-3 frequency scaling as the tensor ``rope_freqs.weight``: h = dim/2 factors f_k, the model
rotating by w_k = b^(-2k/dim) / f_k. The factors are fixed by the metadata: ``{arch}.rope.freq_base`` (b),
``{arch}.rope.dimension_count`` (dim) and the scaling fields ``{arch}.rope.scaling.factor`` (s),
``.original_context_length`` (L), ``.low_freq_factor`` and ``.high_freq_factor`` (llama.cpp's conversion
defaults 8, 8192, 1 and 4 where a field is absent; s absent is read off the factors' low-frequency band, where
f_k = s). :func:`check_rope_freqs` recomputes them by sinpe's llama3 rule (``spec.rotary.frequencies``: f_k =
w_k(default) / w_k(llama3), in binary64) and compares, relative :data:`MATCH` (the conversion's float32
frequencies move a factor by ~1e-7). A mismatch names the field: each field is solved for from the factors, one
at a time, and the one whose value alone makes them match is named with that value -- a finding (``fails``)
for a field the file holds, ``inconclusive`` for one it leaves to the default; no field alone: the factors are
named. A ``{arch}.rope.scaling.type`` other than none beside the factors is a finding (llama.cpp applies both).

>>> import numpy as np
>>> meta = {"general.architecture": "llama", "llama.rope.freq_base": 500000.0, "llama.rope.dimension_count": 8}
>>> good = llama3_factors(500000, 8, 8, 8192, 1, 4)
>>> check_rope_freqs(meta, good).verdict, check_rope_freqs(meta, good * 1.5).verdict
('conforms', 'fails')
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from sinpe.spec.rotary import RotaryProfile, frequencies

MATCH = 2.0 ** -16   # relative difference a recomputed factor may have from the stored float32 one
DEFAULTS = {"scaling.factor": 8.0, "scaling.original_context_length": 8192, "scaling.low_freq_factor": 1.0,
            "scaling.high_freq_factor": 4.0, "freq_base": 10000.0}
FIELDS = ("freq_base", "dimension_count", "scaling.factor", "scaling.original_context_length",
          "scaling.low_freq_factor", "scaling.high_freq_factor")


@dataclass
class RopeCheck:
    """The verdict on ``rope_freqs.weight``, the fields used (``fields``; those the file lacks in ``defaulted``),
    the largest relative difference and the sentence (naming the field on a mismatch)."""

    verdict: str
    fields: dict[str, Any]
    defaulted: list[str] = field(default_factory=list)
    max_rel_error: float = 0.0
    reason: str = ""

    @property
    def plan(self) -> str:
        how = {k: " (absent: read off the factors)" if k == "scaling.factor" else " (absent: default)"
               for k in self.defaulted}
        return "llama.cpp llama-3 factors of " + ", ".join(f"{k}={_show(v)}{how.get(k, '')}"
                                                            for k, v in self.fields.items())


def _show(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def llama3_factors(base: Any, dim: int, factor: Any, original: int, low: Any, high: Any) -> np.ndarray:
    """f_k = w_k(default) / w_k(llama3) for k < dim/2 (DEF-ROPE-FREQ-LLAMA3, binary64)."""
    import mpmath

    exact = lambda x: Fraction(x) if not isinstance(x, float) else Fraction(x).limit_denominator(1 << 24)
    plain = RotaryProfile(None, "halves", exact(base))
    scaled = plain.replace(rule="llama3", factor=exact(factor), original_max=int(original),
                           low_freq_factor=exact(low), high_freq_factor=exact(high))
    w0, w = (np.array([float(x) for x in frequencies(p, dim, mpmath.fp)]) for p in (plain, scaled))
    return w0 / w


def _fields(meta: dict[str, Any], stored: np.ndarray) -> tuple[dict[str, Any], list[str]]:
    arch = str(meta.get("general.architecture", "llama"))
    out, defaulted = {}, []
    for k in FIELDS:
        v = meta.get(f"{arch}.rope.{k}")
        if v is None and k == "dimension_count":
            v = _head_dim(meta, arch)
        if v is None:
            v = float(np.max(stored)) if k == "scaling.factor" else DEFAULTS.get(k)
            defaulted.append(k)
        out[k] = v
    return out, defaulted


def _head_dim(meta: dict[str, Any], arch: str) -> int | None:
    n, heads = meta.get(f"{arch}.embedding_length"), meta.get(f"{arch}.attention.head_count")
    return int(n) // int(heads) if isinstance(n, int) and isinstance(heads, int) and heads > 0 else None


def _mismatch(fields: dict[str, Any], stored: np.ndarray) -> float | None:
    """The largest relative difference of the recomputed factors (None: they cannot be computed from these)."""
    dim = fields["dimension_count"]
    if not isinstance(dim, int) or dim < 2 or dim % 2 or dim // 2 != stored.size:
        return None
    try:
        want = llama3_factors(fields["freq_base"], dim, fields["scaling.factor"],
                              fields["scaling.original_context_length"], fields["scaling.low_freq_factor"],
                              fields["scaling.high_freq_factor"])
    except (ValueError, ArithmeticError, TypeError, OverflowError):
        return None
    return float(np.max(np.abs(stored - want) / np.abs(want)))


def check_rope_freqs(meta: dict[str, Any], stored: Any) -> RopeCheck:
    """``rope_freqs.weight`` (``stored``) against the metadata ``meta`` (module docstring)."""
    arch = str(meta.get("general.architecture", "llama"))
    stored = np.asarray(stored, dtype=np.float64).reshape(-1)
    fields, defaulted = _fields(meta, stored)
    kind = meta.get(f"{arch}.rope.scaling.type")
    if not np.isfinite(stored).all() or not (stored > 0).all():
        return RopeCheck("fails", fields, defaulted, math.inf, "rope_freqs.weight holds factors that are not positive")
    err = _mismatch(fields, stored)
    if kind not in (None, "none", ""):
        return RopeCheck("fails", fields, defaulted, err or 0.0,
                         f"{arch}.rope.scaling.type is {kind!r} beside the llama-3 factors of rope_freqs.weight: "
                         f"llama.cpp applies both")
    if err is not None and err <= MATCH:
        return RopeCheck("conforms", fields, defaulted, err, "")
    return _named(arch, fields, defaulted, stored, err)


def _named(arch: str, fields: dict[str, Any], defaulted: list[str], stored: np.ndarray,
           err: float | None) -> RopeCheck:
    """The field whose value alone, solved for from the factors, makes them match."""
    for k in FIELDS:
        v = _solved(k, fields, stored)
        if v is None or v == fields[k]:
            continue
        e = _mismatch({**fields, k: v}, stored)
        if e is not None and e <= MATCH:
            if k in defaulted:
                return RopeCheck("inconclusive", fields, defaulted, err or math.inf,
                                 f"rope_freqs.weight are the llama-3 factors of {arch}.rope.{k} = {_show(v)}, a field "
                                 f"the file does not hold (llama.cpp's default is {_show(fields[k])})")
            return RopeCheck("fails", fields, defaulted, err or math.inf,
                             f"{arch}.rope.{k} = {_show(fields[k])} disagrees with rope_freqs.weight, whose factors "
                             f"are those of {_show(v)}")
    where = "" if err is None else f" (relative difference up to {err:.3g})"
    return RopeCheck("fails", fields, defaulted, err if err is not None else math.inf,
                     f"rope_freqs.weight is not the llama-3 factors of this metadata{where}, and no one field changed "
                     f"explains it")


def _solved(k: str, f: dict[str, Any], stored: np.ndarray) -> Any:
    """The value of field ``k`` that the stored factors imply, the others as they are (None: not determined)."""
    if k == "dimension_count":
        return 2 * stored.size
    if k == "scaling.factor":
        return float(np.max(stored))
    s, lo, hi, L = (float(f[x]) for x in ("scaling.factor", "scaling.low_freq_factor", "scaling.high_freq_factor",
                                          "scaling.original_context_length"))
    blend = [j for j, x in enumerate(stored) if 1 + 1e-4 < x < s * (1 - 1e-4)]
    dim = f["dimension_count"]
    if not blend or s == 1 or not isinstance(dim, int) or dim // 2 != stored.size:
        return None
    j = blend[0]
    smooth = (1 / stored[j] - 1 / s) / (1 - 1 / s)
    try:
        wavelen = 2 * math.pi * float(f["freq_base"]) ** (2 * j / dim)
        if k == "scaling.original_context_length":
            return int(round(wavelen * (smooth * (hi - lo) + lo)))
        if k == "freq_base":
            w = 2 * math.pi * (smooth * (hi - lo) + lo) / L
            return float(np.float32(w ** (-dim / (2 * j)))) if j else None
        if k == "scaling.low_freq_factor":
            return float(np.float32((L / wavelen - smooth * hi) / (1 - smooth)))
        return float(np.float32((L / wavelen - lo * (1 - smooth)) / smooth))
    except (ZeroDivisionError, OverflowError, ValueError):
        return None
