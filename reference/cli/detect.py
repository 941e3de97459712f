"""``sinpe detect FILE``: name the variant a table implements (SPEC.md REQ-DETECT-CLI).

Fits the parametric family (:mod:`sinpe.reference.checking.detect`) and prints one or two sentences, the
parameters, the precision fingerprint, the residual, the runner-up and the margin; ``--json``
prints them as JSON. Deviations are listed against ``--profile`` (default vaswani).
Exit status: 0 the table is the profile asked for, 1 it is something else, 2 usage or input error.
"""
from __future__ import annotations

import argparse
import json
from typing import Any

from sinpe.reference.checking.angles import other_readings
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
    from sinpe.reference.cli.args import add_selection_arguments
    add_selection_arguments(parser)
    add_profile_arguments(parser)
    from sinpe.reference.cli.args import add_timeout_argument
    add_timeout_argument(parser)


def _emit_other(args: argparse.Namespace, kind: str, readings: dict[str, Any]) -> int:
    """A table whose best reading is a grid or a rotary cache: the sentence, the preset, exit 0."""
    from sinpe.reference.checking.jsonout import exact_number, with_exact
    r = readings[kind]
    if isinstance(r.get("params"), dict):  # REQ-CLI-JSON: numbers, with the exact strings beside them
        r["params"] = dict(r["params"])
        with_exact(r["params"], tuple(k for k, v in r["params"].items()
                                      if isinstance(v, str) and not isinstance(exact_number(v), str)))
    if kind == "grid":
        sentence = (f"A 2-D sin-cos grid: preset {r['profile']}, shape {r['shape'][0]}x{r['shape'][1]}, "
                    f"{r['cls']} cls rows" + (f", options {r['options']}" if r.get("options") else "") +
                    (f"; equivalent here: {', '.join(e['profile'] for e in r['equivalent'])}" if r.get("equivalent") else "")
                    + ".")
        flags = (f"--profile {r['profile']} --shape {r['shape'][0]}x{r['shape'][1]} --cls {r['cls']}" +
                 "".join(f" --{k.replace('_', '-')}" + ("" if v is True else f" {v}") for k, v in r.get("options", {}).items()))
    else:
        sentence = (f"A rotary {r['cache']} cache: {r['describe']}, head dim {r['dim']}" +
                    (f" (preset {r['profile']})" if r.get("profile") else "") + ".")
        flags = (f"--{r['cache']} FILE --profile {r['profile']}" if r.get("profile") else None)
    out = {"kind": kind, "profile": r.get("profile"), "profile_flags": flags, "sentence": sentence,
           "target": args.target, "readings": readings}
    print(json.dumps(out, indent=1) if args.json else f"{sentence}\n  check with: sinpe check {args.target} {flags or ''}")
    return 0


def run(args: argparse.Namespace) -> int:
    from sinpe.reference.cli.args import load_target
    from sinpe.reference.checking.detect import detect_table

    against = profile_from_args(args)
    from sinpe.reference.checking.limits import binary64_parameters
    binary64_parameters(against)
    with input_errors("detect", args.target):  # never a traceback for bad input: one line, exit 2
        table, positions, _ = load_target(args, args.d)
    try:
        det, why = detect_table(table.data, positions=positions, against=against, d=args.d), None
    except ValueError as e:  # too few rows for the 1-D fit: the grid and rotary readings may still name it
        det, why = None, str(e)
    if det is not None and args.d is not None and det.d != args.d and "width" not in det.deviations:
        det.deviations["width"] = det.width  # asked for d, it has other columns: never "the profile asked for"
    readings = other_readings(table.data, positions, det)
    readings["1d"] = {"found": det is not None and det.profile_flags is not None and "no_fit" not in det.deviations,
                      **({"profile": det.profile, "profile_flags": det.profile_flags, "sentence": det.sentence}
                         if det is not None else {"reason": why})}
    kind = "1d" if readings["1d"]["found"] else next((k for k in ("grid", "rotary") if readings[k]["found"]), "1d")
    if kind != "1d":
        return _emit_other(args, kind, readings)
    if det is None:
        raise ValueError(f"{why}; no grid or rotary preset conforms either")
    out = det.to_json()
    out["target"], out["kind"], out["readings"] = args.target, "1d", readings
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
