"""``sinpe claims``: the audit of the seed chapter's claims (SPEC.md REQ-CLAIMS-CLI).

Exit 0 when the audit ran, whatever the verdicts (a failing claim is a finding of the audit, not an
error of the command); 1 when a claim could not be decided; 2 on bad input (unknown ``--id``).
"""
from __future__ import annotations

import argparse
import json
import sys

from sinpe.reference.audit.claims import AuditError, readme_section, render_table, run_audit, tally
from sinpe.spec.claims import CLAIMS, get_claim


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print a JSON list of objects (id, section, claimed, computed, verdict, note, ...)")
    parser.add_argument("--id", action="append", metavar="CLAIM-ID", help="audit only this claim (repeatable)")
    parser.add_argument("--readme", action="store_true", help="print the section of reference/audit/README.md rendered from the audit")


def run(args: argparse.Namespace) -> int:
    claims = [get_claim(i) for i in args.id] if args.id else list(CLAIMS)  # ValueError -> exit 2
    try:
        results = run_audit(claims, progress=True)
    except AuditError as e:
        print(f"sinpe claims: undecided: {e} (reproduce: sinpe claims --json)", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps([r.to_json() for r in results], indent=1, ensure_ascii=False))
    elif args.readme:
        print(readme_section(results), end="")
    else:
        print(render_table(results))
    t = tally(results)
    print(f"sinpe claims: {len(results)} audited: " + ", ".join(f"{n} {v}" for v, n in t.items()), file=sys.stderr)
    return 0
