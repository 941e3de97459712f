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
    parser.add_argument("--timeout", type=float, default=CLAIM_TIMEOUT, metavar="SECONDS",
                        help=f"time limit of a --claim (default {CLAIM_TIMEOUT:g} s; memory: 4 GiB); on expiry the "
                             "claim is unknown (exit 3)")


CLAIM_TIMEOUT = 60.0
EXIT = {"proven": 0, "refuted": 1, "unknown": 3}


def run(args: argparse.Namespace) -> int:
    if args.claim is not None:
        j = decide(args.claim, args.assume, args.only, args.timeout)
        if args.json:
            print(json.dumps(j, indent=2))
        else:
            print(f"{j['status']}: {j['claim']}  [{j['method']}]")
            for line in _claim_lines(j):
                print(f"  {line}")
        return EXIT[j["status"]]
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


def decide(claim: str, assume: str | None, only: str | None, timeout: float) -> dict:
    """The claim's JSON answer, decided in a child under a time and memory limit (REQ-PROVE-CLAIM): a
    limit reached, a RecursionError or any internal failure is ``unknown`` (exit 3), never ``refuted``;
    bad claim text is a ValueError (exit 2)."""
    from sinpe.reference.checking.limits import Undecided, run_limited
    if only:
        raise ValueError("give either theorem IDs or a claim, not both")
    if not timeout > 0:
        raise ValueError(f"--timeout must be > 0 seconds; got {timeout}")
    try:
        return run_limited(_decide, (claim, assume), timeout)
    except Undecided as e:
        return {"claim": claim.strip(), "relation": "", "status": "unknown", "method": "none",
                "reason": f"undecided: {e}", "certificate": {}, "counterexample": None, "assumptions": {},
                "seconds": timeout}


def _decide(claim: str, assume: str | None) -> dict:
    from sinpe.proofs import prove
    from sinpe.proofs.claims import ClaimError
    try:
        return prove(claim=claim, assume=assume).to_json()
    except ClaimError:
        raise
    except ValueError as e:  # SymPy's own: an internal failure, not the user's input
        raise RuntimeError(str(e)) from None


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
