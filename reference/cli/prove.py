"""``sinpe prove [--json] [--only ID[,ID]] | --claim "LHS == RHS" [--assume "p: real"]`` (SPEC.md section 5, 8).

A thin shell over :mod:`sinpe.proofs` (``run_suite``, ``prove_claim``). Exit status: suite: 0 every
theorem proven, 1 some theorem not proven, 2 unknown ID; claim: 0 proven, 1 refuted, 2 bad input,
3 unknown.
"""
from __future__ import annotations

import argparse
import json
import sys


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--only", metavar="ID", help="prove only these theorems (comma-separated, e.g. THM-SHIFT,THM-DOT)")
    parser.add_argument("--claim", metavar="CLAIM", help='decide a claim, e.g. "exp(2*k*(-log(10000)/d)) == 10000**(-2*k/d)"')
    parser.add_argument("--assume", metavar="FACTS", help='assumptions, e.g. "p q: real; k: integer; d: positive"')


def run(args: argparse.Namespace) -> int:
    from sinpe.proofs import prove
    if args.claim is not None:
        r = prove(claim=args.claim, assume=args.assume, only=args.only)
        if args.json:
            print(json.dumps(r.to_json(), indent=2))
        else:
            print(f"{r.status}: {r.claim}  [{r.method}]")
            for line in _claim_lines(r.to_json()):
                print(f"  {line}")
        return r.exit_code
    from sinpe.proofs.suite import get_theorem, tty_progress, run_all
    only = [s for s in (args.only or "").split(",") if s.strip()]
    for i in only:
        get_theorem(i)  # ValueError -> one-line error, exit 2
    if args.assume is not None:
        raise ValueError("--assume needs --claim")
    results = run_all(only or None, progress=tty_progress if sys.stderr.isatty() else None)
    if args.json:
        print(json.dumps([r.to_json() for r in results], indent=2))
    else:
        for r in results:
            print(r.summary_line())
        bad = [r.id for r in results if not r.proven]
        total = sum(r.seconds for r in results)
        print(f"{len(results) - len(bad)}/{len(results)} proven in {total:.1f}s" + (f"; not proven: {', '.join(bad)}" if bad else ""))
    return 1 if any(not r.proven for r in results) else 0


def _claim_lines(j: dict) -> list[str]:
    out = []
    if j["reason"]:
        out.append(f"reason: {j['reason']}")
    for k, v in j["certificate"].items():
        out.append(f"{k}: {v}")
    if j["counterexample"]:
        c = j["counterexample"]
        out.append(f"counterexample: {c['point']}  lhs = {c['lhs']}  rhs = {c['rhs']}  ({c['certified']})")
    return out
