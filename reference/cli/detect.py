"""``sinpe detect [FILE] [--cos FILE] [--sin FILE]``: name the variant a table, grid or rotary cache implements
(SPEC.md REQ-DETECT-CLI, REQ-DETECT-KINDS).

Tries the 1-D fit (:mod:`sinpe.reference.checking.detect`), the grid presets and the rotary readings, and
prints what it names (the 1-D reading: the parameters, the precision fingerprint, the residual, the runner-up
and the margin); ``--json`` prints them as JSON. ``--cos``/``--sin`` read rotary caches, ``--shape`` or
``--channels-first`` a grid. 1-D deviations are listed against ``--profile`` (default vaswani).
Exit status: 0 the table is the profile asked for (a grid or cache: a preset of its kind fits), 1 it is
something else, 2 usage or input error.
"""
from __future__ import annotations

import argparse
import json
import shlex

from sinpe.reference.checking import door
from sinpe.reference.checking.loaders import input_errors
from sinpe.reference.checking.report import render_detection
from sinpe.reference.cli.args import (
    add_grid_arguments,
    add_options,
    add_profile_arguments,
    add_rotary_arguments,
    add_selection_arguments,
    add_timeout_argument,
    options,
    request,
    target_words,
)
from sinpe.spec.grid import GRID_PRESETS
from sinpe.spec.rotary import ROTARY_PRESETS

HELP = {"positions": "position of each row (default 0..rows-1)",
        "d": "the width the implementation was asked for, when known", "call": "calling convention of a callable",
        "dtype": "format the grid and rotary readings claim (default: the narrowest holding every value)",
        "tier": "tier of the grid and rotary readings"}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="FILE", nargs="?", help="table file (.npy .npz .safetensors .pt .pth "
                        ".csv .json) or module:callable (rotary caches may come as --cos/--sin instead)")
    add_options(parser, options("positions", "d", "key", "call"), HELP)
    parser.add_argument("--json", action="store_true", help="print the result as JSON on stdout")
    add_options(parser, options("dtype", "tier"), HELP)
    add_selection_arguments(parser)
    add_profile_arguments(parser, extra=(*GRID_PRESETS, *ROTARY_PRESETS),
                          extra_help="; what the table is expected to be (exit 0 when it is)")
    add_grid_arguments(parser.add_argument_group("2-D grids: --shape HxW, --channels-first (the table is a grid)"))
    add_rotary_arguments(parser.add_argument_group("rotary caches: --cos FILE, --sin FILE"))
    add_timeout_argument(parser)


def run(args: argparse.Namespace) -> int:
    """argparse -> :func:`sinpe.detect` (the door's detect) -> what it names (text or ``--json``)."""
    where = target_words(args)
    with input_errors("detect", where):  # never a traceback for bad input: one line, exit 2
        found = door.detect(args.target, against=args.profile, **request(args))
    if args.json:
        print(json.dumps(dict(found.to_json(), target=args.target or args.cos or args.sin), indent=1))
    else:
        print(render_detection(found, where, reading_flags(args, found.profile_flags or "")))
    return found.exit_code


READING = ("positions", "d", "key", "call", "rows", "skip_rows", "zero_rows", "columns", "timeout", "dtype", "tier")


def reading_flags(args: argparse.Namespace, named: str) -> str:
    """The flags of how the user had the table read (positions, selection, format...), for the ``check with``
    line: the check reads the same entries as detect did (REQ-DETECT-CLI's round trip); a flag the named
    profile's flags already carry (a detected ``--dtype``) is not repeated."""
    words = named.split()
    return " ".join(f"{o.flag} {shlex.quote(str(getattr(args, o.name)))}" for o in options(*READING)
                    if o.given(getattr(args, o.name, None)) and o.flag not in words)
