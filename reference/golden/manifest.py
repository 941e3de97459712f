"""The golden set's manifest (SPEC.md REQ-GOLDEN-MANIFEST, REQ-GOLDEN-PIN): ``data/MANIFEST.json`` lists the SHA-256 and
size of every other file of the set (the 1-D vectors, :mod:`.vectors`, and the grids and rotary caches,
:mod:`.angles_vectors`); its own SHA-256 is pinned here. Every file is read through :func:`read_verified`."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

GOLDEN_DIR = Path(__file__).resolve().parent / "data"
# REQ-GOLDEN-PIN: the SHA-256 of the shipped MANIFEST.json, pinned in code. The manifest pins every
# file; this pins the manifest: editing a value and rehashing the manifest is caught. After a deliberate
# regeneration (`sinpe golden`, which prints the new hash) this line changes in the same commit.
MANIFEST_SHA256 = "4e1c6e07b9ba21b69576eb2e58e514945e1ed3c464efa507c4fbddbf2ba91927"
MANIFEST_NAME = "MANIFEST.json"


class GoldenIntegrityError(Exception):
    """A golden file is missing, unlisted or does not match its SHA-256 in MANIFEST.json."""


_MANIFEST_CACHE: dict[Path, dict[str, Any]] = {}


def manifest(root: Path | None = None) -> dict[str, Any]:
    """MANIFEST.json of ``root`` (default: the shipped golden set), after checking its own SHA-256
    against :data:`.MANIFEST_SHA256` (REQ-GOLDEN-PIN)."""
    root = Path(root or GOLDEN_DIR)
    if root not in _MANIFEST_CACHE:
        path = root / MANIFEST_NAME
        if not path.exists():
            raise GoldenIntegrityError(f"{path} is missing; run: sinpe golden")
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if digest != MANIFEST_SHA256:
            raise GoldenIntegrityError(f"{path}: SHA-256 {digest} != the hash pinned in sinpe "
                                       f"(sinpe.reference.golden.vectors.MANIFEST_SHA256 {MANIFEST_SHA256[:16]}...); "
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
