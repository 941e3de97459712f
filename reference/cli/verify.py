"""``sinpe verify``: the main job (SPEC.md REQ-VERIFY).

Runs, in order, and reports in one table:

1. the proof suite (``sinpe prove``): every THM-* proven by its decision procedure;
2. golden self-certification (REQ-GOLDEN-PIN): the manifest's own SHA-256 against the hash pinned in
   the code, every shipped file against the manifest, the table index, the schema; then the whole
   golden set re-derived and compared byte for byte (seconds; ``--quick`` skips it), and a random
   sample re-derived through the second oracle with a fresh seed (printed; ``--seed`` reruns it);
3. certification of the bundled NumPy and PyTorch implementations against the correctly
   rounded reference, per dtype, tier and position band.

Exit status 0 only if every part holds; a part that cannot run (a missing extra, an import
error) is a failure, never a skip.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass
class Part:
    name: str
    ok: bool
    seconds: float
    summary: str
    detail: dict[str, Any] = field(default_factory=dict)
    text: str = ""


def _proofs(args: argparse.Namespace) -> Part:
    from sinpe.proofs.suite import run_all

    results = run_all()
    rows = [r.to_dict() for r in results]
    bad = [r["id"] for r in rows if r["status"] != "proven"]
    lines = [f"  {r['id']:<22} {r['status']:<11} {r['seconds']:7.2f}s  {r['method']}" for r in rows]
    return Part("proofs", not bad and bool(rows), 0.0,
                f"{len(rows) - len(bad)}/{len(rows)} theorems proven" + (f"; not proven: {', '.join(bad)}" if bad else ""),
                {"theorems": rows}, "\n".join(lines))


def _golden(args: argparse.Namespace) -> Part:
    from sinpe.reference.golden.vectors import self_certify

    rep = self_certify(sample=args.sample, seed=args.seed, full=not args.quick)
    d = rep.to_dict()
    return Part("golden", bool(rep.ok), 0.0, d.get("summary", "golden self-certification"), d, rep.render())


def _certify(args: argparse.Namespace) -> Part:
    from sinpe.reference.implementations.certify import certify_all

    rep = certify_all(max_position=args.max_position, progress=args.progress)
    d = rep.to_dict()
    return Part("implementations", bool(rep.ok), 0.0, d.get("summary", "implementation certification"), d, rep.render())


PARTS: dict[str, Callable[[argparse.Namespace], Part]] = {
    "proofs": _proofs,
    "golden": _golden,
    "implementations": _certify,
}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.add_argument("--only", choices=list(PARTS), action="append", help="run only this part (repeatable)")
    parser.add_argument("--sample", type=int, default=2000, help="golden values re-derived by the second oracle (default 2000)")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of that sample (default: a fresh one, printed in the report)")
    parser.add_argument("--quick", action="store_true",
                        help="do not re-derive the whole golden set (only the pinned hashes and the sample)")
    from sinpe.reference.cli.certify import _max_position  # the same parsing as sinpe certify: 1e7 is accepted, 0 refused
    parser.add_argument("--max-position", dest="max_position", type=_max_position, default=10**7,
                        help="largest position band certified (default 1e7; at most 2^24)")
    parser.add_argument("--no-progress", dest="progress", action="store_false",
                        help="no progress bar (default: shown on a terminal)")


def run(args: argparse.Namespace) -> int:
    if args.sample < 1:
        raise ValueError("--sample must be >= 1")
    args.progress = args.progress and sys.stderr.isatty()
    parts: list[Part] = []
    for name in args.only or list(PARTS):
        if not args.json:
            print(f"[sinpe verify] {name} ...", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        try:
            part = PARTS[name](args)
        except Exception as e:  # a part that cannot run is a failure, reported, never skipped
            part = Part(name, False, 0.0, f"could not run: {type(e).__name__}: {e}",
                        {"error": traceback.format_exc(limit=3)})
        part.seconds = time.perf_counter() - t0
        parts.append(part)
    ok = all(p.ok for p in parts)
    if args.json:
        json.dump({"ok": ok, "parts": [{"name": p.name, "ok": p.ok, "seconds": round(p.seconds, 3),
                                        "summary": p.summary, "detail": p.detail} for p in parts]},
                  sys.stdout, indent=2, sort_keys=True, default=str)
        print()
    else:
        for p in parts:
            print(f"== {p.name}: {'OK' if p.ok else 'FAILED'} ({p.seconds:.1f}s) — {p.summary}")
            if p.text:
                print(p.text)
        print(f"sinpe verify: {'all parts hold' if ok else 'FAILED: ' + ', '.join(p.name for p in parts if not p.ok)}")
    return 0 if ok else 1
