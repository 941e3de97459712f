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
import os
from typing import Any

from sinpe.spec.tolerance import TIERS, WORKING_CHOICES

from sinpe.reference.cli.args import (add_dtype_argument, add_grid_arguments, add_profile_arguments,
                                      add_rotary_arguments, add_selection_arguments,
                                      add_timeout_argument, load_flags, profile_from_args)
from sinpe.reference.checking.limits import binary64_parameters
from sinpe.reference.checking import targets
from sinpe.reference.checking.loaders import CALLS, LoadError, input_errors
from sinpe.reference.checking.report import angle_report, render, render_angle, write_junit  # noqa: F401  (re-exported)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="TARGET", nargs="?", help="table file (.npy .npz .safetensors .pt .pth "
                        ".csv .json) or module:callable (a rotary cache may come as --cos/--sin instead)")
    from sinpe.spec.grid import GRID_PRESETS
    from sinpe.spec.rotary import ROTARY_PRESETS
    add_profile_arguments(parser, extra=("auto", *GRID_PRESETS, *ROTARY_PRESETS),
                          extra_help="; auto: check against what detect finds (the report says so); "
                          f"2-D grids: {', '.join(GRID_PRESETS)}; rotary caches: {', '.join(ROTARY_PRESETS)}")
    add_angle_arguments(parser)
    parser.add_argument("--d", type=int, help="width d (default: the table's or buffer's width; a callable "
                        "must be given it: it cannot be inferred)")
    parser.add_argument("--positions", help="position of each row: start:stop, a comma list or a .npy file "
                        "(default 0..rows-1; callables: 0..2047 plus 2049, 4097, 65519, 65520, 70000, 1e5; "
                        "--call n/forward: 0..2047; --call buffer: every row)")
    add_dtype_argument(parser, default=None, help="IEEE format the table claims (default: the one it is stored "
                       "in; a table stored wider must hold values of this format)")
    parser.add_argument("--tier", choices=TIERS, default="phase", help="tolerance tier (default phase)")
    parser.add_argument("--working", choices=WORKING_CHOICES, default=None,
                        help="precision the table was computed in before its one rounding to --dtype (TOL-WORKING; "
                        "default float32 for float16/bfloat16 tables, the table's own otherwise; native = the "
                        "table's own)")
    parser.add_argument("--key", help="array name inside .npz/.safetensors/.pt/.json or a module's buffer")
    parser.add_argument("--call", choices=CALLS, default="positions",
                        help="calling convention of a callable TARGET (default positions: fn(positions, d))")
    add_selection_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    parser.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report to FILE")
    parser.add_argument("--max-failures", dest="max_failures", type=int, default=10,
                        help="failures listed (all are counted; default 10)")
    parser.add_argument("--no-detect", dest="detect", action="store_false",
                        help="do not run detect on a non-conforming table")
    add_timeout_argument(parser)


def add_angle_arguments(parser: argparse.ArgumentParser) -> None:
    """The grid (SPEC.md DEF-GRID) and rotary (DEF-ROPE) flags ``sinpe check`` takes with their presets."""
    add_grid_arguments(parser.add_argument_group("2-D grids (--profile mae|diffusers|timm|...; SPEC.md DEF-GRID)"))
    add_rotary_arguments(parser.add_argument_group("rotary caches (--profile llama|gptj|llama3.1; SPEC.md DEF-ROPE); "
                                                   "TARGET, if given, is read as the cos cache"))


ANGLE_ONLY = ("shape", "base_size", "interpolation_scale", "temperature", "cos", "sin", "dim", "rule", "factor",
              "original_max", "seq_len", "low_freq_factor", "high_freq_factor", "beta_fast", "beta_slow",
              "attention_factor")


def run(args: argparse.Namespace) -> int:
    from sinpe.spec.grid import GRID_PRESETS
    from sinpe.spec.rotary import ROTARY_PRESETS
    if args.profile in GRID_PRESETS:
        return _run_grid(args)
    if args.profile in ROTARY_PRESETS or args.cos or args.sin:
        return _run_rotary(args)
    if args.target is None:
        raise LoadError("TARGET is required (a table file or module:callable; a rotary cache: --cos/--sin "
                        "with --profile llama|gptj|llama3.1)")
    used = [f for f in ANGLE_ONLY if getattr(args, f, None)] + (["cls"] if args.cls else []) + \
        (["reverse_coord"] if args.reverse_coord else []) + (["channels_first"] if args.channels_first else [])
    if used:
        raise LoadError(f"--{used[0].replace('_', '-')} applies to grid or rotary profiles, not {args.profile}")
    if args.layout in ("halves", "pairs", "single"):
        raise LoadError(f"--layout {args.layout} is a rotary layout: pass --profile llama|gptj|llama3.1")
    return _run_1d(args)


def _run_1d(args: argparse.Namespace) -> int:
    auto = args.profile == "auto"
    if auto:
        overrides = [f for f in ("layout", "shift", "base", "phase_scale", "amplitude", "offset", "odd")
                     if getattr(args, f) is not None]
        if overrides:
            raise LoadError(f"--profile auto takes the parameters detect finds; drop --{overrides[0].replace('_', '-')}")
    profile = profile_from_args(args) if not auto else "auto"
    if not auto:
        binary64_parameters(profile)  # REQ-CHECK-LIMITS: a non-finite reference is refused before any work
    if args.d is not None and args.d < 1:
        raise LoadError(f"--d must be >= 1; got {args.d}")
    if args.max_failures < 0:
        raise LoadError(f"--max-failures must be >= 0; got {args.max_failures}")
    if args.junit and os.path.dirname(os.path.abspath(args.junit)) and \
            not os.path.isdir(os.path.dirname(os.path.abspath(args.junit))):
        raise LoadError(f"--junit: directory of {args.junit!r} does not exist")
    if args.junit and os.path.isdir(args.junit):
        raise LoadError(f"--junit: {args.junit!r} is a directory; name the XML file to write")
    with input_errors("check", args.target):  # never a traceback for bad input: one line, exit 2
        res = targets.check_target(args.target, profile, d=args.d, dtype=args.dtype, tier=args.tier,
                                   working=args.working, detect=args.detect, max_failures=args.max_failures,
                                   **load_flags(args))
    return _emit(args, res)


def _angle_emit(args: argparse.Namespace, r: Any, kind: str, describe: str, flags: str, notes: list[str],
                repro: str) -> int:
    """A grid/rotary result reported with the 1-D report contract (REQ-CHECK-KINDS)."""
    out = angle_report(r, kind, describe, flags, notes, repro)
    out["target"] = args.target or args.cos or args.sin
    print(json.dumps(out, indent=1) if args.json else
          render_angle(r, out, kind, describe, flags, notes, repro, args.max_failures))
    return r.exit_code


def _run_grid(args: argparse.Namespace) -> int:
    """``sinpe check FILE --profile mae|...``: the grid checker (REQ-CHECK-GRID) under check's contract."""
    from sinpe.reference.cli.grid import grid_check, load_grid
    if args.target is None:
        raise LoadError(f"--profile {args.profile} (a 2-D grid) needs TARGET, the grid table file")
    _refuse(args, ("layout", "shift", "base", "phase_scale", "amplitude", "offset", "odd", "cos", "sin", "dim", "rule",
                   "factor", "original_max", "seq_len", "low_freq_factor", "high_freq_factor", "beta_fast",
                   "beta_slow", "attention_factor", "positions", "rows", "skip_rows", "columns", "d"), "a 2-D grid")
    with input_errors("check", args.target):
        data, dtype = load_grid(args)
    r, g, repro = grid_check(args, data, args.dtype or dtype)
    return _angle_emit(args, r, "grid", g.describe(), f"--profile {args.profile}", [], repro)


def _run_rotary(args: argparse.Namespace) -> int:
    """``sinpe check [COS] --cos/--sin FILE --profile llama|...``: the rotary checker (REQ-CHECK-ROPE)."""
    from sinpe.reference.cli.rotary import load_caches, rotary_check
    from sinpe.spec.rotary import ROTARY_PRESETS
    if args.profile not in ROTARY_PRESETS:
        raise LoadError(f"--cos/--sin are rotary caches: pass --profile {'|'.join(ROTARY_PRESETS)}, not {args.profile}")
    if args.target and args.cos:
        raise LoadError("give the cos cache as TARGET or as --cos, not both")
    _refuse(args, ("shift", "phase_scale", "amplitude", "offset", "odd", "shape", "base_size", "interpolation_scale",
                   "temperature", "rows", "skip_rows", "columns", "d"), "a rotary cache")
    ns = argparse.Namespace(**vars(args))
    ns.cos = args.cos or args.target
    if ns.layout is not None and ns.layout not in ("halves", "pairs", "single"):
        raise LoadError(f"--layout {ns.layout} is a 1-D layout; rotary layouts: halves, pairs, single")
    cos, sin, positions, dtype = load_caches(ns)
    r, rp, dim = rotary_check(ns, cos, sin, positions, dtype)
    given = " ".join(f"--{k} FILE" for k in ("cos", "sin") if getattr(ns, k))
    repro = f"sinpe check {given} --profile {args.profile}"
    return _angle_emit(args, r, "rotary", rp.describe() + f", dim {dim}", f"--profile {args.profile}", [], repro)


def _refuse(args: argparse.Namespace, flags: tuple[str, ...], what: str) -> None:
    for f in flags:
        if getattr(args, f, None) not in (None, False):
            raise LoadError(f"--{f.replace('_', '-')} does not apply to {what} (--profile {args.profile})")


def _emit(args: argparse.Namespace, res: Any) -> int:
    """Print the report (text or ``--json``), write ``--junit``; the exit status of the verdict."""
    report = res.to_json()
    report["target"] = args.target
    report.setdefault("kind", "1d")  # REQ-CHECK-KINDS: grids and rotary caches say "grid" / "rotary"
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(render(res, args.target))
    if args.junit:
        write_junit(args.junit, res, args.target)
    return res.exit_code
