"""``sinpe verify``: the main job (SPEC.md REQ-VERIFY), a thin shell over :func:`sinpe.reference.verify.verify`.

Runs, in order, and reports in one table: the proof suite; golden self-certification (REQ-GOLDEN-PIN:
pinned manifest hash, every file, the table index, the whole set re-derived byte for byte unless
``--quick``, and a second-oracle sample with a fresh printed seed); certification of the bundled NumPy
and PyTorch implementations. Exit status 0 only if every part holds.
"""
from __future__ import annotations

import argparse
import json
import sys

from sinpe.reference.verify import PARTS, verify


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
    rep = verify(args.only, sample=args.sample, seed=args.seed, quick=args.quick, max_position=args.max_position,
                 progress=args.progress and sys.stderr.isatty(),
                 log=None if args.json else (lambda s: print(s, file=sys.stderr, flush=True)))
    if args.json:
        json.dump(rep.to_json(), sys.stdout, indent=2, sort_keys=True, default=str)
        print()
    else:
        print(rep.render())
    return 0 if rep.ok else 1
