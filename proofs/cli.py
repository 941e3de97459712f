"""``sinpe prove [--json] [--only ID]``: run the proof suite (SPEC.md section 5, section 8).

Exit status: 0 every theorem proven, 1 some theorem not proven, 2 unknown ID.
"""
from __future__ import annotations

import argparse
import json
import sys


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print a JSON list of results")
    parser.add_argument("--only", metavar="ID", help="prove only this theorem (e.g. THM-SHIFT)")


def run(args: argparse.Namespace) -> int:
    from .suite import get_theorem, run_all, tty_progress
    if args.only:
        get_theorem(args.only)  # ValueError -> one-line error, exit 2
    results = run_all(args.only, progress=tty_progress if sys.stderr.isatty() else None)
    if args.json:
        print(json.dumps([r.to_dict() for r in results], indent=2))
    else:
        for r in results:
            print(f"{r.id:<12} {r.status:<10} {r.seconds:6.2f}s  cert {r.certificate_size:>5}  {r.obligations:>5} obligations  {r.method}")
            print(f"{'':<12} {r.statement}")
            print(f"{'':<12} witness: {r.witness}")
            if r.axioms:
                print(f"{'':<12} axioms: {'; '.join(r.axioms)}")
            for f in r.failures[:3]:
                print(f"{'':<12} FAILED: {f}  (reproduce: sinpe prove --only {r.id})")
        bad = [r.id for r in results if not r.proven]
        total = sum(r.seconds for r in results)
        print(f"{len(results) - len(bad)}/{len(results)} proven in {total:.1f}s" + (f"; not proven: {', '.join(bad)}" if bad else ""))
    return 1 if any(not r.proven for r in results) else 0
