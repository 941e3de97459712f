"""Loading the 1-D golden vectors (case files, bulk tables), each file checked against the manifest first
(SPEC.md REQ-GOLDEN-MANIFEST, :mod:`sinpe.reference.golden.manifest`)."""
from __future__ import annotations

import io
import json
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from sinpe.spec.formats import get_format
from sinpe.spec.profiles import PRESETS

from ..manifest import read_verified
from .contents import WIDTHS


def load_case_file(preset: str, d: int, root: Path | None = None) -> dict[str, Any]:
    return json.loads(read_verified(f"cases/{preset}/d{d}.json", root))


def load_table(preset: str, d: int, dtype: str, root: Path | None = None) -> tuple[list[Fraction], np.ndarray]:
    """(positions, table) of a bulk table; bfloat16 comes as float32 holding the bfloat16 values."""
    f = get_format(dtype)
    data = read_verified(f"tables/{preset}/d{d}-{f.dtype}.npy", root)
    arr = np.load(io.BytesIO(data), allow_pickle=False)
    pos = json.loads(read_verified("tables/positions.json", root))["positions"]
    return [Fraction(p) for p in pos], arr


def iter_cases(profile: str | None = None, dtype: str | None = None, d: int | None = None,
               root: Path | None = None) -> Iterator[dict[str, Any]]:
    """Every golden case (optionally filtered), as a flat dict.

    Keys: ``id``, ``profile``, ``params``, ``d``, ``dtype``, ``format``, ``position`` (exact decimal
    string), ``position_float``, ``column``, ``label``, ``value`` (float, the correctly rounded
    value), ``hex``, ``decimal`` (exact value, 40 digits), ``flags``, ``file``, ``repro`` (a
    ``sinpe table`` command that recomputes the value).
    """
    want_fmt = None if dtype is None else get_format(dtype).name
    for name in (PRESETS if profile is None else [profile]):
        if name not in PRESETS:
            raise ValueError(f"unknown profile {name!r}; presets: {', '.join(PRESETS)}")
        for w in (WIDTHS if d is None else [d]):
            if w not in WIDTHS:
                raise ValueError(f"no golden cases for d={w}; widths: {', '.join(map(str, WIDTHS))}")
            doc = load_case_file(name, w, root)
            for g in doc["testGroups"]:
                if want_fmt is not None and g["format"] != want_fmt:
                    continue
                for c in g["tests"]:
                    v = float.fromhex(c["hex"]) if c["hex"] not in ("inf", "-inf") else float(c["hex"])
                    yield {"id": c["id"], "profile": name, "params": g["params"], "d": w, "dtype": g["dtype"],
                           "format": g["format"], "position": c["position"],
                           "position_float": float(Fraction(c["position"])), "column": c["column"],
                           "label": c["label"], "value": v, "hex": c["hex"], "decimal": c["decimal"],
                           "flags": c["flags"], "file": f"cases/{name}/d{w}.json",
                           "repro": f"sinpe table --profile {name} --d {w} --positions {c['position']} "
                                    f"--dtype {g['dtype']} --out t.npy  # column {c['column']}"}
