"""Self-certification of the golden set (``sinpe verify --only golden``, SPEC.md REQ-GOLDEN-MANIFEST, REQ-GOLDEN-PIN,
REQ-GOLDEN-ORACLE): the pin, every file's hash, the table index, the schema, optionally every file re-derived, and
a random sample re-derived through the second oracle."""
from __future__ import annotations

import hashlib
import json
import math
import os
import random
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from sinpe.spec.profiles import PRESETS, get_profile

from .. import manifest as golden_manifest
from ..manifest import GOLDEN_DIR, MANIFEST_NAME, read_verified
from .casefile import validate
from .contents import FORMAT_ORDER, SCHEMA_NAME, WIDTHS
from .encoding import float_hex
from .generation import generate
from .loading import load_case_file, load_table
from .second_oracle import decimal_confirmed


@dataclass
class Check:
    name: str
    ok: bool
    detail: str


@dataclass
class SelfCertReport:
    seed: int
    sample: int
    checks: list[Check] = field(default_factory=list)
    full: bool = False

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c.ok for c in self.checks)

    def to_json(self) -> dict[str, Any]:
        passed = sum(c.ok for c in self.checks)
        return {"ok": self.ok, "seed": self.seed, "sample": self.sample, "full": self.full,
                "summary": f"{passed}/{len(self.checks)} checks hold: pinned manifest, file hashes, table index, "
                           f"schema, {'every file re-derived, ' if self.full else ''}second oracle on "
                           f"{self.sample} sampled values (seed {self.seed})",
                "reproduce": f"sinpe verify --only golden --sample {self.sample} --seed {self.seed}"
                             + ("" if self.full else " --quick"),
                "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in self.checks]}

    def render(self) -> str:
        lines = [(f"golden self-certification (REQ-GOLDEN-MANIFEST, REQ-GOLDEN-PIN, REQ-GOLDEN-ORACLE), "
                 f"sample={self.sample} seed={self.seed}: {'OK' if self.ok else 'FAILED'}")]
        for c in self.checks:
            lines.append(f"  [{'ok' if c.ok else 'FAIL'}] {c.name}: {c.detail}")
        return "\n".join(lines)


def check_case(profile: str, d: int, group: dict[str, Any], case: dict[str, Any]) -> str | None:
    """Re-derive one case through the second oracle (Arb): None if its hex value and its decimal
    both hold, else a one-line description with the command that reproduces the value."""
    from sinpe.reference.oracles import arb as of
    prof = get_profile(profile)
    p = Fraction(case["position"])
    fmt = group["format"]
    ref = of.rounded_tables(prof, d, [p], [fmt], only=[case["column"]])[fmt][0, 0]
    got = float.fromhex(case["hex"]) if "inf" not in case["hex"] else float(case["hex"])
    same = ref == got and math.copysign(1, ref) == math.copysign(1, got)
    if same and decimal_confirmed(prof, d, p, case["column"], case["decimal"]):
        return None
    return (f"case {case['id']} ({profile} d={d} position={case['position']} column={case['column']} "
            f"{group['dtype']}): golden {case['hex']} / {case['decimal']}, Arb {float_hex(ref)}; reproduce: "
            f"sinpe table --profile {profile} --d {d} --positions {case['position']} --dtype {group['dtype']} "
            f"--out t.npy --cross-check")


def fresh_seed() -> int:
    """A seed nobody chose in advance (printed in every report, so the sample can be rerun)."""
    import secrets
    return secrets.randbits(31)


def self_certify(sample: int = 200, seed: int | None = None, root: Path | None = None, full: bool = False,
                 regenerated: dict[str, bytes] | None = None) -> SelfCertReport:
    """Check the golden set in ``root`` (default: the shipped one): the manifest's own hash against the
    pin (REQ-GOLDEN-PIN), every file against the manifest, the table index against the files, the
    schema; with ``full`` every file is re-derived (:func:`generate`, which cross-checks every value with
    Arb) and compared byte for byte; then ``sample`` random case values and table entries are re-derived
    through the second oracle (Arb), with ``seed`` (default: a fresh one, reported)."""
    from sinpe.reference.oracles import arb as of
    root = Path(root or GOLDEN_DIR)
    golden_manifest._MANIFEST_CACHE.pop(root, None)  # read afresh: a file changed since the last load is seen
    seed = fresh_seed() if seed is None else int(seed)
    rep = SelfCertReport(seed=seed, sample=sample, full=full or regenerated is not None)
    # 0. the manifest's own hash against the pin in the code
    try:
        man_bytes = (root / MANIFEST_NAME).read_bytes()
    except OSError as e:
        rep.checks.append(Check("pinned manifest", False, str(e)))
        return rep
    digest = hashlib.sha256(man_bytes).hexdigest()
    rep.checks.append(Check("pinned manifest", digest == golden_manifest.MANIFEST_SHA256,
                            f"SHA-256 {digest[:16]}..." + ("" if digest == golden_manifest.MANIFEST_SHA256 else
                                                            f" != pinned {golden_manifest.MANIFEST_SHA256[:16]}...: the golden set was edited")))
    # 1. every listed file matches; no unlisted file (checked even when the pin fails: say what changed)
    try:
        man = json.loads(man_bytes)
        bad = []
        for rel in man["files"]:
            data = (root / rel).read_bytes() if (root / rel).is_file() else None
            if data is None or hashlib.sha256(data).hexdigest() != man["files"][rel]["sha256"]:
                bad.append(f"{rel}: " + ("missing" if data is None else "SHA-256 differs from the manifest"))
        present = {str(p.relative_to(root)).replace(os.sep, "/") for p in root.rglob("*") if p.is_file()}
        unlisted = sorted(present - set(man["files"]) - {MANIFEST_NAME} - {x for x in present if "__pycache__" in x})
        rep.checks.append(Check("manifest SHA-256", not bad and not unlisted,
                                f"{len(man['files'])} files, {man.get('totalBytes', 0)} bytes"
                                + (f"; {len(bad)} bad, first: {bad[0]}" if bad else "")
                                + (f"; unlisted: {unlisted[:3]}" if unlisted else "")))
        rep.checks.append(_index_check(man))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        rep.checks.append(Check("manifest SHA-256", False, f"unreadable manifest: {type(e).__name__}: {e}"))
        return rep
    if not rep.ok:
        return rep
    # 2. schema
    sch = json.loads(read_verified(SCHEMA_NAME, root))
    errs: list[str] = []
    n_cases = 0
    all_cases: list[tuple[str, int, dict, dict]] = []
    for name in PRESETS:
        for w in WIDTHS:
            doc = load_case_file(name, w, root)
            errs += validate(doc, sch, f"cases/{name}/d{w}.json")[:3]
            for g in doc["testGroups"]:
                for c in g["tests"]:
                    all_cases.append((name, w, g, c))
            n_cases += doc["numberOfTests"]
    rep.checks.append(Check(f"schema {SCHEMA_NAME}", not errs,
                            f"{n_cases} cases in {len(PRESETS) * len(WIDTHS)} files" + (f"; {errs[0]}" if errs else "")))
    # 3. every file re-derived (primary path, every value cross-checked by Arb) and compared byte for byte
    if rep.full:
        files = regenerated if regenerated is not None else generate(progress=False).files
        differ = [rel for rel, data in sorted(files.items()) if not (root / rel).is_file() or (root / rel).read_bytes() != data]
        rep.checks.append(Check("every file re-derived", not differ,
                                f"{len(files)} files regenerated" + (f"; {len(differ)} differ, first: {differ[0]}" if differ else "")))
    # 4. second oracle on a random sample of cases and bulk entries
    rng = random.Random(seed)
    picked = rng.sample(all_cases, min(sample, len(all_cases)))
    wrong = [w for w in (check_case(name, w, g, c) for name, w, g, c in picked) if w]
    rep.checks.append(Check("second oracle (Arb) on sampled cases", not wrong,
                            f"{len(picked)} cases re-derived" + (f"; {len(wrong)} wrong, first: {wrong[0]}" if wrong else "")))
    wrong = []
    for t in rng.sample(man["tables"], min(sample, len(man["tables"]))):
        pos, arr = load_table(t["profile"], t["d"], t["dtype"], root)
        r, j = rng.randrange(arr.shape[0]), rng.randrange(arr.shape[1])
        prof = get_profile(t["profile"])
        ref = of.rounded_tables(prof, t["d"], [pos[r]], [t["format"]], only=[j])[t["format"]][0, 0]
        if float(arr[r, j]) != ref:
            wrong.append(f"{t['path']}[{r}, {j}] = {float(arr[r, j])!r}, Arb {ref!r}")
    rep.checks.append(Check("second oracle (Arb) on sampled table entries", not wrong,
                            f"{min(sample, len(man['tables']))} entries re-derived" + (f"; first wrong: {wrong[0]}" if wrong else "")))
    return rep


def _index_check(man: dict[str, Any]) -> Check:
    """The manifest's table index names every table file once, and only table files (a dropped entry
    would shrink what the sample re-derives)."""
    files = sorted(r for r in man["files"] if r.startswith("tables/") and r.endswith(".npy"))
    index = [t.get("path") for t in man["tables"]]
    expected = len(PRESETS) * len(WIDTHS) * len(FORMAT_ORDER)
    ok = sorted(index) == files and len(set(index)) == len(index) and len(files) == expected
    return Check("table index", ok, f"{len(index)} entries, {len(files)} table files, {expected} expected"
                 + ("" if ok else f"; missing from the index: {sorted(set(files) - set(index))[:3]}"))
