"""How the golden files write values (SPEC.md REQ-GOLDEN-SCHEMA): exact decimal positions, ``float.hex`` values,
content-derived case IDs, the sampled columns of wide tables, deterministic JSON and ``.npy`` bytes."""
from __future__ import annotations

import hashlib
import io
import json
import math
import random
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from sinpe.spec.formats import Format
from sinpe.spec.profiles import Profile

from .contents import SAMPLED_COLUMNS, SMALL_D


def position_str(p: Fraction) -> str:
    """The exact decimal of a dyadic position (``'1000.25'``, ``'-10000000'``)."""
    if p.denominator == 1:
        return str(p.numerator)
    den = p.denominator
    if den & (den - 1):
        raise ValueError(f"golden positions must be dyadic; got {p}")
    s = format(Decimal(p.numerator) / Decimal(den), "f")
    return s


def float_hex(x: float) -> str:
    """``float.hex`` without trailing mantissa zeros (``0x1.f38p-1``); parses back with ``float.fromhex``."""
    if not math.isfinite(x):
        return ("-" if x < 0 else "") + "inf" if not math.isnan(x) else "nan"
    h = x.hex()
    if "." in h:
        mant, exp = h.split("p")
        mant = mant.rstrip("0").rstrip(".")
        h = mant + "p" + exp
    return h


def case_id(profile: Profile, d: int, position: str, column: int, dtype: str) -> str:
    """Stable content-derived ID: SHA-256 of the profile parameters, d, position, column, dtype."""
    return case_id_of(params_json(profile), d, position, column, dtype)


def params_json(profile: Profile) -> str:
    return json.dumps(profile.params(), sort_keys=True, separators=(",", ":"))


def case_id_of(params_json: str, d: int, position: str, column: int, dtype: str) -> str:
    """:func:`case_id` with the profile's parameters already serialised (computed once per file):
    the compact, key-sorted JSON of {params, d, position, column, dtype}, as ``json.dumps`` writes it."""
    enc = json.encoder.encode_basestring_ascii  # what json.dumps (ensure_ascii) writes for a str
    key = (f'{{"column":{int(column)},"d":{int(d)},"dtype":{enc(dtype)},'
           f'"params":{params_json},"position":{enc(position)}}}')
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def sampled_columns(profile_name: str, d: int, position: str) -> list[int]:
    """Columns of the case files at one position: all for d <= SMALL_D; else first, last and 2 seeded."""
    if d <= SMALL_D:
        return list(range(d))
    rng = random.Random(hashlib.sha256(f"{profile_name}|{d}|{position}".encode()).digest())
    rest = rng.sample(range(1, d - 1), SAMPLED_COLUMNS - 2)
    return sorted({0, d - 1, *rest})


def dump(obj: Any, depth: int = 0, expand: int = 4) -> str:
    """Deterministic JSON: sorted keys, containers indented down to ``expand`` levels, compact below."""
    if depth >= expand or not isinstance(obj, (dict, list)) or not obj:
        return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    pad = " " * (depth + 1)
    if isinstance(obj, dict):
        items = [f"{pad}{json.dumps(k)}: {dump(obj[k], depth + 1, expand)}" for k in sorted(obj)]
        return "{\n" + ",\n".join(items) + "\n" + " " * depth + "}"
    items = [f"{pad}{dump(v, depth + 1, expand)}" for v in obj]
    return "[\n" + ",\n".join(items) + "\n" + " " * depth + "]"


def npy_bytes(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=False)
    return buf.getvalue()


def storage_type(fmt: Format) -> np.dtype:
    return np.dtype(fmt.storage)
