"""``sinpe certify``: certify the bundled NumPy/PyTorch implementations (SPEC.md REQ-IMPL-CERT).

Exit 0 when every implementation meets the tier SPEC.md requires of it (REQ-IMPL-TIER,
REQ-IMPL-LATE-CAST), 1 otherwise, 2 on bad input. ``--json`` prints the report as JSON
(schema ``sinpe-certify/1``: ``ok``, ``implementations[].bands[]`` with ``max_abs``, ``max_ulp``,
``phase_ratio``, ``tier``; ``failures[].reproduce`` is a command that reproduces each failure).
"""
from __future__ import annotations

import argparse
import json
from fractions import Fraction

from sinpe.reference.implementations.certify import PER_BAND, SEED, certify_all
from sinpe.spec.formats import DTYPES


def _max_position(s: str) -> int:
    try:
        f = Fraction(s.strip())
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"max position must be an integer, got {s!r}") from None
    if f.denominator != 1 or f < 1:
        raise argparse.ArgumentTypeError(f"max position must be an integer >= 1, got {s!r}")
    if f > 2**24:  # certify_all's own limit (TOL-EVAL): a usage error, not a failed part
        raise argparse.ArgumentTypeError(f"max position must be <= 2^24 = {2**24} (float32 positions are exact "
                                         f"only up to there), got {s!r}")
    return int(f)


def _positive(s: str) -> int:
    try:
        n = int(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {s!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {s!r}")
    return n


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the report as JSON (schema sinpe-certify/1)")
    parser.add_argument("--max-position", dest="max_position", type=_max_position, default=10**7, metavar="N",
                        help="largest position certified (default 1e7; at most 2^24)")
    parser.add_argument("--dtype", action="append", choices=DTYPES,
                        help="certify only this dtype (repeatable; default all)")
    parser.add_argument("--per-band", dest="per_band", type=_positive, default=PER_BAND, metavar="K",
                        help=f"positions sampled per band (default {PER_BAND})")
    parser.add_argument("--seed", type=int, default=SEED, metavar="S", help=f"sampling seed (default {SEED})")


def run(args: argparse.Namespace) -> int:
    report = certify_all(max_position=args.max_position, progress=True, dtypes=args.dtype,
                         per_band=args.per_band, seed=args.seed)
    if args.json:
        print(json.dumps(report.to_json(), indent=1, allow_nan=False, default=str))
    else:
        print(report.render())
    return 0 if report.ok else 1
