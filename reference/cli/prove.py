"""``sinpe prove [--json] [--only ID[,ID]] [--certificates DIR] | --check-certificates DIR | --claim "LHS == RHS"``
(SPEC.md section 5, 8).

A thin shell over :mod:`sinpe.proofs` (``run_suite``, ``prove_claim``). Exit status: suite: 0 every
theorem proven, 1 some theorem not proven, 3 an internal error (the witness refutes what the procedures proved),
2 unknown ID; claim: 0 proven, 1 refuted, 2 bad input, 3 unknown; --check-certificates: 0 verified, 1 a
certificate fails (named), 2 unreadable, 3 some undecided.
"""
from __future__ import annotations

import argparse
import json


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--only", metavar="ID", help="prove only these theorems (comma-separated, e.g. THM-SHIFT,THM-DOT)")
    parser.add_argument("--claim", metavar="CLAIM", help='decide a claim, e.g. "exp(2*k*(-log(10000)/d)) == 10000**(-2*k/d)"')
    parser.add_argument("--assume", metavar="FACTS", help='assumptions, e.g. "p q: real; k: integer; d: positive". '
                        "Every symbol is a finite complex number unless narrowed; words: " + _WORDS)
    parser.add_argument("--timeout", type=float, default=CLAIM_TIMEOUT, metavar="SECONDS",
                        help=f"time limit of a --claim (default {CLAIM_TIMEOUT:g} s, at most {MAX_CLAIM_TIMEOUT:g} s; "
                             "memory: 4 GiB); on expiry the claim is unknown (exit 3)")
    parser.add_argument("--no-witness", action="store_true",
                        help="prove without the numeric witness (never part of a proof; with it, a witness that refutes "
                             "what the procedures proved is an internal error, exit 3)")
    parser.add_argument("--mutants", action="store_true",
                        help="run the mutation suite instead: every false variant of every theorem must be refuted; "
                             "prints the kill rate (exit 0 all killed, 1 a mutant survived)")
    parser.add_argument("--kind", metavar="KIND", help="with --mutants: only these kinds (comma-separated: statement, "
                        "scope, procedure, definition; default all, or statement,scope with --only)")
    parser.add_argument("--certificates", metavar="DIR", help="also write each theorem's certificate to DIR/<ID>.json (REQ-PROVE-CERT)")
    parser.add_argument("--check-certificates", metavar="DIR",
                        help="re-derive and re-decide every statement of the certificates in DIR (standard library "
                             "only), then require each to be the statement this suite decides; with --only, DIR must "
                             "hold exactly those theorems: exit 0 verified, 1 a certificate fails, 2 unreadable, 3 "
                             "some entry undecided")


CLAIM_TIMEOUT = 60.0
MAX_CLAIM_TIMEOUT = 86400.0  # a day: larger (or inf, nan) is a usage error, not an overflow in the child's clock
_WORDS = ("complex (default); real; rational (real); integer (real); positive (real > 0); negative (real < 0); "
          "nonnegative (real >= 0); nonzero (!= 0, still complex unless also real); imaginary (i times a nonzero real). "
          "Claims and assumptions must be ASCII (a non-ASCII character is exit 2).")
EXIT = {"proven": 0, "refuted": 1, "unknown": 3}


def run(args: argparse.Namespace) -> int:
    if args.check_certificates is not None:
        if args.claim is not None or args.certificates is not None or args.mutants:
            raise ValueError("--check-certificates takes DIR (and --only, --json)")
        only = [s.strip() for s in (args.only or "").split(",") if s.strip()]
        return _check_certificates(args.check_certificates, args.json, only or None)
    if args.claim is not None and args.certificates is not None:
        raise ValueError("--certificates is for the theorem suite, not --claim")
    if args.claim is not None:
        j = decide(args.claim, args.assume, args.only, args.timeout)
        if args.json:
            print(json.dumps(j, indent=2))
        else:
            print(f"{j['status']}: {j['claim']}  [{j['method']}]")
            for line in _claim_lines(j):
                print(f"  {line}")
        return EXIT[j["status"]]
    from sinpe.proofs.suite import get_theorem, run_all
    from sinpe.reference.progress import Progress
    only = [s for s in (args.only or "").split(",") if s.strip()]
    for i in only:
        get_theorem(i)  # ValueError -> one-line error, exit 2
    if args.assume is not None:
        raise ValueError("--assume needs --claim")
    if args.mutants:
        if args.certificates is not None:
            raise ValueError("--mutants runs the mutation suite; --certificates is for the proofs")
        return _mutants(only or None, args.json, [k.strip() for k in args.kind.split(",")] if args.kind else None)
    certs: dict = {}
    if args.certificates is not None:
        from sinpe.proofs.certificates import write_suite
        results, certs = write_suite(args.certificates, only or None)
    else:
        bar = Progress(1, "sinpe prove", unit="theorems")
        results = run_all(only or None, progress=bar.step, witness=not args.no_witness)
        bar.close()
    if args.json:
        print(json.dumps([{**r.to_json(), **({"certificates": certs[r.id]} if certs else {})} for r in results], indent=2))
    else:
        for r in results:
            print(r.summary_line())
            if certs:
                print(f"{'':<12} certificates: {_cert_line(certs[r.id])}")
        if certs:
            print(_cert_total(certs, args.certificates))
        bad = [r.id for r in results if not r.proven]
        total = sum(r.seconds for r in results)
        print(f"{len(results) - len(bad)}/{len(results)} proven in {total:.1f}s" + (f"; not proven: {', '.join(bad)}" if bad else ""))
    return max((r.exit_code for r in results), key=lambda c: (c == 1, c), default=0)


def _mutants(only: list[str] | None, as_json: bool, kinds: list[str] | None) -> int:
    """``sinpe prove --mutants``: the kill rate of the mutation suite (exit 0 every mutant killed, 1 not)."""
    from sinpe.proofs.mutation import mutation_report
    from sinpe.reference.progress import Progress
    bar = Progress(1, "sinpe prove --mutants", unit="mutants")
    rep = mutation_report(only, progress=bar.step, kinds=kinds)
    bar.close()
    if as_json:
        print(json.dumps(rep, indent=2))
    else:
        per: dict[str, list[int]] = {}
        for m in rep["mutants"]:
            k = per.setdefault(m["theorem"] if m["kind"] in ("statement", "scope") else f"{m['kind']} mutants", [0, 0])
            k[0] += m["killed"]
            k[1] += 1
        for tid, (killed, n) in per.items():
            print(f"{tid:<20} {killed:>3}/{n:<3} mutants killed")
        for m in rep["mutants"]:
            if m["kind"] == "definition":
                print(f"  definition {m['mutation']:<28} {m['verdict']:<9} {m['theorem'] or '-':<14} {m['failure'][:90]}")
        for s in rep["survivors"]:
            print(f"SURVIVED: {s}  (reproduce: sinpe prove --mutants --json)")
        print(f"mutation suite: {rep['killed']}/{rep['total']} killed ({100 * rep['rate']:.1f} %)")
    return 0 if rep["killed"] == rep["total"] else 1


def decide(claim: str, assume: str | None, only: str | None, timeout: float) -> dict:
    """The claim's JSON answer, decided in a child under a time and memory limit (REQ-PROVE-CLAIM): a
    limit reached, a RecursionError or any internal failure is ``unknown`` (exit 3), never ``refuted``;
    bad claim text is a ValueError (exit 2)."""
    from sinpe.reference.checking.limits import Undecided, run_limited
    if only:
        raise ValueError("give either theorem IDs or a claim, not both")
    if not 0 < timeout <= MAX_CLAIM_TIMEOUT:  # also nan
        raise ValueError(f"--timeout must be > 0 and at most {MAX_CLAIM_TIMEOUT:g} seconds; got {timeout}")
    try:
        return run_limited(_decide, (claim, assume), timeout)
    except ValueError:
        raise  # the claim's text: exit 2
    except Exception as e:  # Undecided, or an internal failure of the decision: unknown (exit 3), never exit 1
        why = f"undecided: {e}" if isinstance(e, Undecided) else f"internal failure ({type(e).__name__}: {str(e)[:200]})"
        return {"claim": claim.strip(), "relation": "", "status": "unknown", "method": "none",
                "reason": why, "certificate": {}, "counterexample": None, "assumptions": {}, "seconds": timeout}


def _decide(claim: str, assume: str | None) -> dict:
    from sinpe.proofs import prove
    from sinpe.proofs.claims import ClaimError
    try:
        return prove(claim=claim, assume=assume).to_json()
    except ClaimError:
        raise
    except ValueError as e:  # SymPy's own: an internal failure, not the user's input
        raise RuntimeError(str(e)) from None


def _kinds(counts: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none"


def _cert_line(c: dict) -> str:
    return (f"{sum(c['entries'].values())} entries ({_kinds(c['entries'])}; step facts: {_kinds(c['facts'])}), "
            f"{c['uncertified']} uncertified, {c['witness_points']} witness points ({c['file']})")


def _cert_total(certs: dict, directory: str) -> str:
    total: dict = {}
    for c in certs.values():
        for k, v in c["entries"].items():
            total[k] = total.get(k, 0) + v
    unc = sum(c["uncertified"] for c in certs.values())
    return f"certificates: {sum(total.values())} entries ({_kinds(total)}), {unc} uncertified, written to {directory}"


def _check_certificates(directory: str, as_json: bool, only: list[str] | None = None) -> int:
    """REQ-PROVE-CERT: the standard-library checker; unreadable input is one line, exit 2."""
    from sinpe.proofs import certcheck
    code, reports, problems = certcheck.check_directory(directory, only)
    if code == 2:
        raise ValueError(problems[0])
    from sinpe.proofs.certificates import suite_mismatches
    problems += suite_mismatches(directory, [r["theorem"] for r in reports])  # this suite's statements (regenerated)
    code = 1 if problems else code
    if as_json:
        print(json.dumps({"exit": code, "files": reports, "problems": problems}, indent=2, sort_keys=True))
    else:
        print("\n".join(certcheck.report_lines(code, reports, problems)))
    return code


def _claim_lines(j: dict) -> list[str]:
    out = []
    if j.get("effective_assumptions"):  # what every symbol was taken to be (REQ-PROVE-CLAIM)
        out.append("domains: " + "; ".join(f"{n}: {v['domain']}" for n, v in j["effective_assumptions"].items()))
    if j["reason"]:
        out.append(f"reason: {j['reason']}")
    for k, v in j["certificate"].items():
        out.append(f"{k}: {v}")
    if j["counterexample"]:
        c = j["counterexample"]
        out.append(f"counterexample: {c['point']}  lhs = {c['lhs']}  rhs = {c['rhs']}  ({c['certified']})")
    return out
