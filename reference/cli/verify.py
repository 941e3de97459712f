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
    parser.add_argument("--plot", metavar="FILE.png", help="also draw the certification figure (each implementation's "
                        "error ratio per position band against TOL-PHASE's c) to FILE.png (REQ-CHECK-PLOT; the plot "
                        "extra: pip install 'sinpe[plot]')")
    parser.add_argument("--no-progress", dest="progress", action="store_false",
                        help="no progress bar (default: shown on a terminal)")


def run(args: argparse.Namespace) -> int:
    if args.plot:
        _plot_first(args)
    rep = verify(args.only, sample=args.sample, seed=args.seed, quick=args.quick, max_position=args.max_position,
                 progress=args.progress and sys.stderr.isatty(),
                 log=None if args.json else (lambda s: print(s, file=sys.stderr, flush=True)))
    if args.json:
        json.dump(rep.to_json(), sys.stdout, indent=2, sort_keys=True, default=str)
        print()
    else:
        print(rep.render())
    if args.plot:
        _plot(args, rep)
    return 0 if rep.ok else 1


def _plot_first(args: argparse.Namespace) -> None:
    """Before any work: matplotlib is there, the implementations part runs, FILE.png may be written (else exit 2)."""
    from sinpe.reference import plot
    plot.require("verify")
    if args.only and "implementations" not in args.only:
        raise ValueError("--plot draws the implementations part's certification; add --only implementations")
    problem = plot.output_problem(args.plot)
    if problem:
        raise ValueError(problem)


def _plot(args: argparse.Namespace, rep: object) -> None:
    from sinpe.reference import plot
    part = next(p for p in rep.parts if p.name == "implementations")  # type: ignore[attr-defined]
    if "implementations" not in part.detail:
        print(f"sinpe verify: no picture: the implementations part did not run ({part.summary})", file=sys.stderr)
        return
    out = plot.plot_certification(part.detail, args.plot)
    print(f"sinpe verify: picture {out['path']} ({out['failing']} failing implementations marked)", file=sys.stderr)
