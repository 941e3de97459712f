"""``sinpe detect FILE``: name the variant a table implements (SPEC.md REQ-DETECT-CLI).

Fits the parametric family (:mod:`sinpe.reference.checking.detect`) and prints one or two sentences, the
parameters, the precision fingerprint, the residual, the runner-up and the margin; ``--json``
prints them as JSON. Deviations are listed against ``--profile`` (default vaswani).
Exit status: 0 the table is the profile asked for, 1 it is something else, 2 usage or input error.
"""
from __future__ import annotations

import argparse
import json

from sinpe.reference.cli.args import add_profile_arguments, profile_from_args
from sinpe.reference.checking.loaders import CALLS, input_errors


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="FILE", help="table file (.npy .npz .safetensors .pt .pth .csv .json) "
                        "or module:callable")
    parser.add_argument("--positions", help="position of each row (default 0..rows-1)")
    parser.add_argument("--d", type=int, help="the width the implementation was asked for, when known")
    parser.add_argument("--key", help="array name inside .npz/.safetensors/.pt/.json or a module's buffer")
    parser.add_argument("--call", choices=CALLS, default="positions", help="calling convention of a callable")
    parser.add_argument("--json", action="store_true", help="print the result as JSON on stdout")
    from sinpe.reference.cli.check import add_selection_arguments
    add_selection_arguments(parser)
    add_profile_arguments(parser)
    from sinpe.reference.cli.check import add_timeout_argument
    add_timeout_argument(parser)


def run(args: argparse.Namespace) -> int:
    from sinpe.reference.cli.check import load_target
    from sinpe.reference.checking.detect import detect_table

    against = profile_from_args(args)
    from sinpe.reference.checking.limits import binary64_parameters
    binary64_parameters(against)
    with input_errors("detect", args.target):  # never a traceback for bad input: one line, exit 2
        table, positions, _ = load_target(args, args.d)
        det = detect_table(table.data, positions=positions, against=against, d=args.d)
    if args.d is not None and det.d != args.d and "width" not in det.deviations:
        det.deviations["width"] = det.width  # asked for d, it has other columns: never "the profile asked for"
    out = det.to_json()
    out["target"] = args.target
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        print(det.sentence)
        print(f"  layout {det.layout}, shift {det.shift}, base {det.base}, phase scale {det.phase_scale}, "
              f"amplitude {det.amplitude}, offset {det.offset}, odd rule {det.odd_rule}, d {det.d} "
              f"({det.width} columns), precision {det.precision}")
        print(f"  profile {det.profile} (nearest preset {det.nearest_preset}); residual {det.residual:.3g}"
              + (f"; runner-up {det.runner_up['plan']} (residual {det.runner_up['residual']}), margin {det.margin:.3g}"
                 if det.runner_up else ""))
        if det.zeroed_rows:
            print(f"  zeroed rows at positions {', '.join(det.zeroed_rows[:20])}")
        if det.deviations:
            print(f"  deviations from {against.name or against.cli_flags()}: {json.dumps(det.deviations)}")
    return 0 if not det.deviations else 1
