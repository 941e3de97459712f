"""Golden vectors for grids and rotary caches (SPEC.md REQ-REF-GRID, REQ-REF-ROPE): correctly rounded
entries from the certified interval oracle, stored apart from the 1-D golden set.

``angles/golden-angles-v1.json`` holds, per case, the profile (preset name and options), the rows
and, for each format, every entry as a ``float.hex`` string of the correctly rounded value.
``generate()`` rebuilds the file byte for byte; ``tests/test_golden_angles.py`` pins its SHA-256 and
checks it regenerates identically.

>>> [c["id"] for c in CASES][:2]
['grid-mae-d16-2x3-cls1', 'grid-timm-d16-2x3']
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from sinpe.spec.grid import get_grid
from sinpe.spec.rotary import get_rotary

from sinpe.reference.oracles.angles import grid_plan, rotary_plan, rounded_table

PATH = Path(__file__).resolve().parent / "angles" / "golden-angles-v1.json"
FORMATS = ("binary64", "binary32", "binary16")

CASES: list[dict[str, Any]] = [
    {"id": "grid-mae-d16-2x3-cls1", "kind": "grid", "preset": "mae", "dim": 16, "shape": [2, 3], "options": {"cls": 1}},
    {"id": "grid-timm-d16-2x3", "kind": "grid", "preset": "timm", "dim": 16, "shape": [2, 3], "options": {}},
    {"id": "grid-diffusers-d16-3x3", "kind": "grid", "preset": "diffusers", "dim": 16, "shape": [3, 3],
     "options": {"base_size": 16}},
    {"id": "grid-detr-normalized-d8-2x2", "kind": "grid", "preset": "detr-normalized", "dim": 8, "shape": [2, 2],
     "options": {}},
    {"id": "rope-llama-d8-cos", "kind": "rotary", "preset": "llama", "dim": 8, "which": "cos",
     "positions": [0, 1, 2, 1000, 65535], "options": {}},
    {"id": "rope-llama-d8-sin", "kind": "rotary", "preset": "llama", "dim": 8, "which": "sin",
     "positions": [0, 1, 2, 1000, 65535], "options": {}},
    {"id": "rope-gptj-d8-sin", "kind": "rotary", "preset": "gptj", "dim": 8, "which": "sin",
     "positions": [0, 1, 1000], "options": {}},
    {"id": "rope-llama3.1-d16-cos", "kind": "rotary", "preset": "llama3.1", "dim": 16, "which": "cos",
     "positions": [0, 1, 8191, 100000], "options": {}},
    {"id": "rope-yarn-s4-d16-sin", "kind": "rotary", "preset": "llama", "dim": 16, "which": "sin",
     "positions": [0, 1, 4096], "options": {"rule": "yarn", "factor": 4, "original_max": 2048}},
]


def plan_of(case: dict[str, Any]) -> Any:
    if case["kind"] == "grid":
        return grid_plan(get_grid(case["preset"], case["dim"], tuple(case["shape"]), **case["options"]))
    rp = get_rotary(case["preset"], **case["options"])
    return rotary_plan(rp, case["dim"], case["positions"], case["which"])


def generate() -> bytes:
    """The golden file's bytes (deterministic)."""
    out = []
    for case in CASES:
        plan = plan_of(case)
        entry = dict(case)
        entry["columns"] = plan.labels
        entry["rows"] = plan.row_labels
        for f in FORMATS:
            entry[f] = [[float(x).hex() for x in row] for row in rounded_table(plan, f)]
        out.append(entry)
    doc = {"schema": "sinpe-angles-golden-v1", "rounding": "round to nearest, ties to even, from certified enclosures",
           "generator": "python -c 'from sinpe.reference.golden.angles_vectors import write; write()'",
           "cases": out}
    return (json.dumps(doc, indent=1, sort_keys=True) + "\n").encode()


def write() -> Path:
    PATH.write_bytes(generate())
    return PATH


def load(case_id: str, fmt: str) -> np.ndarray:
    """One case's table in one format, from the stored file."""
    doc = json.loads(PATH.read_text())
    for c in doc["cases"]:
        if c["id"] == case_id:
            return np.array([[float.fromhex(x) for x in row] for row in c[fmt]])
    raise ValueError(f"no golden case {case_id!r}")
