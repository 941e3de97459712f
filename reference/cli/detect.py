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
from typing import Any

from sinpe.reference.checking import door
from sinpe.reference.checking.loaders import input_errors, is_callable_target
from sinpe.reference.checking.options import SELECTION
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
from sinpe.reference.inputs import escape, option_words, path_word
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
        flags, why_not = check_reading(args, found)
        print(render_detection(found, target_words(args, path_word), flags, why_not))  # each one shell word
    return found.exit_code


CARRIED = ("positions", "d", "key", "call", *SELECTION, "timeout", "dtype", "tier")  # into the check line, in order
SELECTING = ("positions", *SELECTION)  # flags that change which entries detect read
NOUNS = {"grid": "a 2-D grid", "rotary": "a rotary cache"}  # the kinds checked from a file or an array, whole


def check_reading(args: argparse.Namespace, found: Any) -> tuple[str, str]:
    """The flags of how the user had the table read (positions, selection, format...) for the ``check with`` line,
    and why there is no such line (empty when there is one): the check reads the same entries as detect did
    (REQ-DETECT-CLI's round trip). A flag the named profile's flags already carry (a detected ``--dtype``) is not
    repeated; one that does not apply to the kind named and did not change what was read (``--d`` of a file read
    as a cache) is left out. A grid or a cache read from a callable, or from some of a table's rows or columns,
    has no check that reads the same entries (its check reads a file or an array whole)."""
    named = (found.profile_flags or "").split()
    given = [o for o in options(*CARRIED) if o.given(getattr(args, o.name, None)) and o.flag not in named]
    noun = NOUNS.get(found.kind)
    if noun is not None and args.target and is_callable_target(args.target):
        return "", (f"sinpe check reads {noun} from a file or an array, not a callable: save what "
                    f"{escape(args.target)} returns to a .npy file and check that")
    lost = [o.flag for o in given if found.kind not in o.kinds and o.name in SELECTING]
    if noun is not None and lost:
        return "", (f"{lost[0]} selected the entries detect read, and sinpe check reads {noun} whole: save them "
                    f"to a .npy file and check that")
    return " ".join(option_words(o.flag, str(getattr(args, o.name))) for o in given if found.kind in o.kinds), ""
