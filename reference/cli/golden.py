"""``sinpe golden [--out DIR] [--check]``: regenerate the golden vectors byte for byte (SPEC.md REQ-GOLDEN-MANIFEST).

Every value is computed by the certified mpmath path and cross-checked against the Arb oracle;
nothing is written if the two disagree. ``--check`` regenerates in memory and compares with
the files in DIR (default: the shipped ``reference/golden/data``): exit 0 if byte-identical, 1 if not.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from sinpe.reference.golden import vectors as golden


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, default=None,
                        help=f"directory to write (default: the package's {golden.GOLDEN_DIR})")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; compare a fresh regeneration with the files in --out")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")


def run(args: argparse.Namespace) -> int:
    out = Path(args.out) if args.out else golden.GOLDEN_DIR
    if args.check and not out.is_dir():
        raise ValueError(f"--check: {out} is not a directory")
    t0 = time.perf_counter()
    rep = golden.generate()
    secs = time.perf_counter() - t0
    summary = {"cases": rep.cases, "table_values": rep.table_values, "oracle_checked": rep.oracle_checked,
               "disagreements": len(rep.disagreements), "files": len(rep.files),
               "bytes": sum(len(v) for v in rep.files.values()), "seconds": round(secs, 1),
               "ziv_escalations": rep.stats.get("escalations", 0), "flags": rep.flag_counts}
    if args.check:
        differ = []
        for rel, data in sorted(rep.files.items()):
            path = out / rel
            if not path.is_file() or path.read_bytes() != data:
                differ.append(rel)
        present = {str(p.relative_to(out)).replace("\\", "/") for p in out.rglob("*") if p.is_file()}
        extra = sorted(x for x in present - set(rep.files) if "__pycache__" not in x)
        summary["differ"], summary["extra"] = differ, extra
        ok = not differ and not extra
        if args.json:
            print(json.dumps(summary, sort_keys=True, indent=1))
        else:
            print(f"sinpe golden --check: {'byte-identical' if ok else 'MISMATCH'} ({len(rep.files)} files, "
                  f"{summary['bytes']} bytes, {secs:.0f} s)")
            for rel in differ[:20]:
                print(f"  differs: {rel}")
            for rel in extra[:20]:
                print(f"  not generated: {rel}")
            if not ok:
                print(f"  versions here: {golden.versions()} (the files record theirs in provenance)")
        return 0 if ok else 1
    golden.write(rep.files, out)
    import hashlib
    digest = hashlib.sha256(rep.files[golden.MANIFEST_NAME]).hexdigest()
    if digest != golden.MANIFEST_SHA256:  # REQ-GOLDEN-PIN: a new golden set needs its new pin in the code
        print(f"sinpe golden: MANIFEST.json SHA-256 is now {digest}; set MANIFEST_SHA256 in "
              f"reference/golden/manifest.py to it (the pin sinpe checks)", file=sys.stderr)
    if args.json:
        print(json.dumps(summary, sort_keys=True, indent=1))
    else:
        print(f"sinpe golden: wrote {len(rep.files)} files ({summary['bytes']} bytes) to {out} in {secs:.0f} s; "
              f"{rep.cases} cases, {rep.table_values} table values, {rep.oracle_checked} values cross-checked "
              f"against Arb, 0 disagreements")
    return 0
