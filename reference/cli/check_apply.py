"""``sinpe check-apply TARGET``: does a function apply the rotary encoding right? (SPEC.md REQ-CHECK-APPLY)

TARGET is ``module:function``, run isolated in a child process (REQ-CHECK-ISOLATE), called under
``--convention`` (hf, hf-ids, module, freqs: :mod:`sinpe.reference.checking.apply.call`). Exit status: 0
conforms, 1 does not (the cause named when a known bug explains it), 2 usage or input error, 3
inconclusive. ``--json`` prints the report as JSON on stdout; ``--junit FILE`` also writes JUnit XML.
"""
from __future__ import annotations

import argparse
import json

from sinpe.reference.checking import door
from sinpe.reference.checking.loaders import input_errors
from sinpe.reference.checking.report import apply_cases, render_apply, write_cases
from sinpe.reference.cli.args import add_options, add_rotary_arguments, add_timeout_argument
from sinpe.spec.rotary import ROTARY_LAYOUTS, ROTARY_PRESETS

OUTPUTS = ("junit",)  # the files it writes: the one output rule (REQ-CLI-OUTPUT)
APPLY, PROFILE = door.apply_options()


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="TARGET", help="module:function (run isolated in a child process)")
    add_options(parser, [o for o in APPLY if o.name == "convention"])
    g = parser.add_argument_group("rotary profile (SPEC.md DEF-ROPE)")
    g.add_argument("--profile", choices=list(ROTARY_PRESETS), default="llama", help="rotary preset (default llama)")
    add_options(g, [o for o in PROFILE if o.name in ("layout", "base")], {"layout": "halves, pairs or single "
                "(complex)", "base": "frequency base b (exact decimal)"}, layout={"choices": ROTARY_LAYOUTS})
    add_rotary_arguments(g, files=False)
    add_options(parser, [o for o in APPLY if o.name not in ("convention", "timeout", "random_heads")])
    parser.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    parser.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report to FILE")
    add_timeout_argument(parser)


def run(args: argparse.Namespace) -> int:
    """argparse -> :func:`sinpe.check_apply` (the door's) -> the report."""
    with input_errors("check-apply", args.target):
        res = door.check_apply(args.target, args.profile, **{o.name: getattr(args, o.name) for o in APPLY + PROFILE
                                                             if hasattr(args, o.name)})
    print(json.dumps(res.to_json(), indent=1) if args.json else render_apply(res))
    if args.junit:
        write_cases(args.junit, f"sinpe.check-apply[{res.profile}-{res.convention}-{res.dtype}]", apply_cases(res),
                    res.seconds, res.target)
    return res.exit_code
