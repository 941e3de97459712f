"""Loading the golden files, each checked against the manifest, and the manifest against the hash pinned in the code
(SPEC.md REQ-GOLDEN-MANIFEST, REQ-GOLDEN-PIN)."""
from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from sinpe.spec.formats import get_format
from sinpe.spec.profiles import PRESETS

from . import contents
from .contents import GOLDEN_DIR, MANIFEST_NAME, WIDTHS


class GoldenIntegrityError(Exception):
    """A golden file is missing, unlisted or does not match its SHA-256 in MANIFEST.json."""


_MANIFEST_CACHE: dict[Path, dict[str, Any]] = {}


def manifest(root: Path | None = None) -> dict[str, Any]:
    """MANIFEST.json of ``root`` (default: the shipped golden set), after checking its own SHA-256
    against :data:`.contents.MANIFEST_SHA256` (REQ-GOLDEN-PIN)."""
    root = Path(root or GOLDEN_DIR)
    if root not in _MANIFEST_CACHE:
        path = root / MANIFEST_NAME
        if not path.exists():
            raise GoldenIntegrityError(f"{path} is missing; run: sinpe golden")
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if digest != contents.MANIFEST_SHA256:
            raise GoldenIntegrityError(f"{path}: SHA-256 {digest} != the hash pinned in sinpe "
                                       f"(sinpe.reference.golden.vectors.contents.MANIFEST_SHA256 {contents.MANIFEST_SHA256[:16]}...); "
                                       f"the golden set was edited")
        _MANIFEST_CACHE[root] = json.loads(data)
    return _MANIFEST_CACHE[root]


def read_verified(rel: str, root: Path | None = None) -> bytes:
    """The bytes of golden file ``rel`` after checking them against the manifest's SHA-256."""
    root = Path(root or GOLDEN_DIR)
    entry = manifest(root)["files"].get(rel)
    if entry is None:
        raise GoldenIntegrityError(f"{rel} is not listed in {root / MANIFEST_NAME}")
    data = (root / rel).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != entry["sha256"]:
        raise GoldenIntegrityError(f"{root / rel}: SHA-256 {digest} != manifest {entry['sha256']}; "
                                   f"regenerate with: sinpe golden")
    return data


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
