"""``sinpe check TARGET``: does a third-party table or callable conform? (SPEC.md REQ-CHECK-CLI)

TARGET is a table file (.npy .npz .safetensors .pt .pth .csv .json) or ``module:callable``
(:mod:`sinpe.reference.checking.loaders` documents the calling convention ``fn(positions, d)`` and the
adapters ``--call n|buffer|forward``). Exit status: 0 conforms, 1 does not, 2 usage or input error,
3 inconclusive (nothing failed, but some entries could not be judged: REQ-CHECK-VERDICT).
``--json`` prints the report as JSON on stdout; ``--junit FILE`` also writes a JUnit XML file.
"""
from __future__ import annotations

import argparse
import json
import sys

from sinpe.reference.checking import door
from sinpe.reference.checking.loaders import input_errors
from sinpe.reference.checking.report import render, write_junit
from sinpe.reference.cli.args import (
    add_channels_argument,
    add_grid_arguments,
    add_options,
    add_profile_arguments,
    add_rotary_arguments,
    add_selection_arguments,
    add_timeout_argument,
    options,
    profile_from_args,
    request,
    target_words,
)
from sinpe.spec.grid import GRID_PRESETS
from sinpe.spec.rotary import ROTARY_PRESETS

OUTPUTS = ("junit",)  # the files it writes: the one output rule (REQ-CLI-OUTPUT)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="TARGET", nargs="?", help="table file (.npy .npz .safetensors .pt .pth "
                        ".csv .json) or module:callable (a rotary cache may come as --cos/--sin instead)")
    add_profile_arguments(parser, default=None, extra=("auto", *GRID_PRESETS, *ROTARY_PRESETS),
                          extra_help="; default vaswani, llama for --cos/--sin caches; auto: check against what "
                          "detect finds, for every kind (the report says so); "
                          f"2-D grids: {', '.join(GRID_PRESETS)}; rotary caches: {', '.join(ROTARY_PRESETS)}")
    add_angle_arguments(parser)
    add_channels_argument(parser)
    add_options(parser, options("d", "positions", "dtype", "tier", "working", "key", "call"))
    add_selection_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    parser.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report to FILE")
    parser.add_argument("--plot", metavar="FILE.png", help="also draw a 1-D table's errors against position (per "
                        "band and column group, the bound overlaid, failing entries marked) to FILE.png "
                        "(REQ-CHECK-PLOT; the plot extra: pip install 'sinpe[plot]'; a callable is called once more "
                        "for it)")
    add_options(parser, options("max_failures", "detect"))
    add_timeout_argument(parser)


def add_angle_arguments(parser: argparse.ArgumentParser) -> None:
    """The grid (SPEC.md DEF-GRID) and rotary (DEF-ROPE) flags ``sinpe check`` takes with their presets."""
    add_grid_arguments(parser.add_argument_group("2-D grids (--profile mae|diffusers|timm|...; SPEC.md DEF-GRID)"))
    add_rotary_arguments(parser.add_argument_group("rotary caches (--profile llama|gptj|llama3.1; SPEC.md DEF-ROPE); "
                                                   "TARGET, if given, is read as the cos cache"))


def run(args: argparse.Namespace) -> int:
    """argparse -> :func:`sinpe.check` (the door's check) -> the report (text or ``--json``, ``--junit``)."""
    where = target_words(args)
    if args.plot:
        _plot_first(args)
    with input_errors("check", where):  # never a traceback for bad input: one line, exit 2
        res = door.check(args.target, args.profile, **request(args))
    if args.json:
        print(json.dumps(dict(res.to_json(), target=args.target or args.cos or args.sin), indent=1))
    else:
        print(render(res, where))
    if args.junit:
        write_junit(args.junit, res, where)
    if args.plot:
        with input_errors("check", where):
            _plot(args, res)
    return res.exit_code


def _plot_first(args: argparse.Namespace) -> None:
    """Before any work: matplotlib is there, the kind is 1-D and FILE.png may be written (else exit 2)."""
    from sinpe.reference import plot  # local: the plot extra (matplotlib), only --plot needs it
    plot.require("check")
    kind = door.kind_of(args.profile, door.request(request(args)))
    if kind != "1d" or args.profile == "auto":
        raise ValueError(f"--plot draws a 1-D table checked against a named profile; not --profile {args.profile}"
                         f"{'' if kind == '1d' else f' ({kind})'}")
    problem = plot.output_problem(args.plot, [args.target, args.positions])
    if problem:
        raise ValueError(problem)


def _plot(args: argparse.Namespace, res: object) -> None:
    """The picture of ``res`` (:func:`sinpe.reference.plot.draw_check`: the target loaded again as the check did)."""
    from sinpe.reference import plot  # local: the plot extra (matplotlib), only --plot needs it
    load = {k: getattr(args, k) for k in ("positions", "key", "call", "timeout", "rows", "skip_rows", "columns")}
    out = plot.draw_check(res, args.target, args.plot, profile_from_args(args), args.d, load, args.zero_rows,
                          [args.target, args.positions])
    if out is None:
        print(f"sinpe check: no picture: {getattr(res, 'reason', None) or 'no entry was compared'}", file=sys.stderr)
    else:
        print(f"sinpe check: picture {out['path']} ({out['failing']} failing entries marked)", file=sys.stderr)
