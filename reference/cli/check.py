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
from xml.sax.saxutils import quoteattr

import numpy as np

from sinpe.spec.tolerance import TIERS, WORKING_CHOICES

from sinpe.reference.cli.args import add_dtype_argument, add_profile_arguments, profile_from_args
from sinpe.spec.profiles import get_profile
from sinpe.reference.checking.limits import binary64_parameters
from sinpe.reference.checking.loaders import CALLS, LoadError, Table, input_errors, is_callable_target, load_table


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
    g = parser.add_argument_group("2-D grids (--profile mae|diffusers|timm|...; SPEC.md DEF-GRID)")
    g.add_argument("--shape", help="spatial shape HxW (default: square, from the rows)")
    g.add_argument("--cls", type=int, default=0, help="leading zero rows (cls/extra tokens)")
    g.add_argument("--base-size", dest="base_size", help="diffusers base_size (exact decimal)")
    g.add_argument("--interpolation-scale", dest="interpolation_scale", help="diffusers interpolation_scale")
    g.add_argument("--temperature", help="timm/DETR temperature (frequency base)")
    g.add_argument("--reverse-coord", dest="reverse_coord", action="store_true", help="timm reverse_coord")
    g.add_argument("--channels-first", dest="channels_first", action="store_true",
                   help="the file holds (C, H, W) (DETR's output)")
    r = parser.add_argument_group("rotary caches (--profile llama|gptj|llama3.1; SPEC.md DEF-ROPE)")
    r.add_argument("--cos", help="cos cache file (TARGET, if given, is read as the cos cache)")
    r.add_argument("--sin", help="sin cache file")
    r.add_argument("--dim", type=int, help="head dimension (default: the cache width)")
    r.add_argument("--rule", help="frequency rule (default, linear, dynamic, llama3, yarn, explicit)")
    r.add_argument("--factor", help="scaling factor s")
    r.add_argument("--original-max", dest="original_max", type=int, help="pre-training context L")
    r.add_argument("--seq-len", dest="seq_len", type=int, help="dynamic NTK: the length the cache was built for")
    r.add_argument("--low-freq-factor", dest="low_freq_factor")
    r.add_argument("--high-freq-factor", dest="high_freq_factor")
    r.add_argument("--beta-fast", dest="beta_fast")
    r.add_argument("--beta-slow", dest="beta_slow")
    r.add_argument("--attention-factor", dest="attention_factor", help="A multiplied into both caches")


ANGLE_ONLY = ("shape", "base_size", "interpolation_scale", "temperature", "cos", "sin", "dim", "rule", "factor",
              "original_max", "seq_len", "low_freq_factor", "high_freq_factor", "beta_fast", "beta_slow",
              "attention_factor")


def add_selection_arguments(parser: argparse.ArgumentParser) -> None:
    """--rows/--skip-rows/--columns (REQ-CHECK-SELECT)."""
    g = parser.add_argument_group("selection (SPEC.md REQ-CHECK-SELECT)")
    g.add_argument("--rows", help="rows to use, by index: a:b, a:b:step, a: or a comma list (a row keeps its "
                   "position: row i is position i unless --positions names the selected rows' positions)")
    g.add_argument("--skip-rows", dest="skip_rows", type=int, help="drop the first N rows (padding rows): --rows N:")
    g.add_argument("--columns", help="columns to use, by index: a:b, a:b:step, a: or a comma list (d defaults "
                   "to their number)")


def index_spec(spec: str, n: int, what: str) -> np.ndarray:
    """Indices into an axis of length n: ``a:b``, ``a:b:step``, ``a:``, ``:b`` or a comma list.

    >>> index_spec("2:", 5, "--rows").tolist(), index_spec("0:6:2", 8, "--columns").tolist(), index_spec("4,1", 5, "--rows").tolist()
    ([2, 3, 4], [0, 2, 4], [4, 1])
    """
    s = spec.strip()
    try:
        if ":" in s:
            parts = s.split(":")
            if len(parts) > 3:
                raise ValueError
            a = int(parts[0]) if parts[0] else 0
            b = int(parts[1]) if parts[1] else n
            step = int(parts[2]) if len(parts) == 3 and parts[2] else 1
            if a < 0 or b < 0 or step < 1:
                raise ValueError
            idx = np.arange(a, min(b, n), step)
        else:
            idx = np.array([int(x) for x in s.split(",")], dtype=np.int64)
    except ValueError:
        raise LoadError(f"{what} {spec!r}: expected a:b, a:b:step, a:, :b or a comma list of indices >= 0") from None
    if idx.size == 0:
        raise LoadError(f"{what} {spec!r} selects nothing (the axis has {n})")
    if idx.min() < 0 or idx.max() >= n:
        raise LoadError(f"{what} {spec!r}: index {int(idx.max())} out of range (the axis has {n})")
    return idx


def select(args: argparse.Namespace, table: Table, positions: Any) -> tuple[Table, Any]:
    """Apply --rows/--skip-rows/--columns: the selected rows keep their positions (row i is position i, or
    the i-th of the table's --positions); the report notes the selection (REQ-CHECK-SELECT)."""
    rows_spec, skip, cols_spec = getattr(args, "rows", None), getattr(args, "skip_rows", None), getattr(args, "columns", None)
    if rows_spec is None and skip is None and cols_spec is None:
        return table, positions
    if rows_spec is not None and skip is not None:
        raise LoadError("--rows and --skip-rows: give one of them")
    if skip is not None and skip < 0:
        raise LoadError(f"--skip-rows must be >= 0; got {skip}")
    n, w = table.data.shape
    rows = index_spec(f"{skip}:" if skip is not None else rows_spec, n, "--rows" if skip is None else "--skip-rows") \
        if rows_spec is not None or skip is not None else None
    cols = index_spec(cols_spec, w, "--columns") if cols_spec is not None else None
    data = np.asarray(table.data if rows is None else table.data[rows])
    if cols is not None:
        data = data[:, cols]
    pos = np.arange(n, dtype=np.float64) if positions is None else np.asarray(positions)
    if len(pos) != n:
        raise LoadError(f"{n} rows but {len(pos)} positions")
    new_pos = pos if rows is None else pos[rows]
    notes = list(table.notes)
    if rows is not None:
        notes.append(f"rows {_indices(rows)} of {n} selected ({len(rows)} rows)")
    if cols is not None:
        notes.append(f"columns {_indices(cols)} of {w} selected ({len(cols)} columns)")
    t = Table(np.ascontiguousarray(data), table.dtype, table.source, notes)
    return t, new_pos


def _indices(idx: np.ndarray) -> str:
    if len(idx) > 2 and np.all(np.diff(idx) == idx[1] - idx[0]) and idx[1] > idx[0]:
        step = int(idx[1] - idx[0])
        return f"{idx[0]}:{idx[-1] + 1}" + (f":{step}" if step != 1 else "")
    return ",".join(str(int(i)) for i in idx[:8]) + ("..." if len(idx) > 8 else "")


def add_timeout_argument(parser: argparse.ArgumentParser) -> None:
    from sinpe.reference.checking.isolate import DEFAULT_TIMEOUT
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                        help=f"time limit of a module:callable TARGET, run in a child process (default {DEFAULT_TIMEOUT:g})")


def load_target(args: argparse.Namespace, d: int | None) -> tuple[Table, Any, bool]:
    """(table, positions or None, called) for TARGET and the --positions/--key/--call flags, with the
    --rows/--skip-rows/--columns selection applied; ``called``: a callable was asked for width d (a buffer
    read whole, like a file, was not)."""
    table, positions, called = _load_target(args, d)
    return (*select(args, table, positions), called)


def _load_target(args: argparse.Namespace, d: int | None) -> tuple[Table, Any, bool]:
    from sinpe.reference.checking.check import callable_positions, default_callable_positions
    from sinpe.reference.checking.isolate import MAX_CALL_ENTRIES, call_isolated
    from sinpe.reference.numerics.positions import positions_from_spec

    spec, timeout = getattr(args, "positions", None), getattr(args, "timeout", None)
    if is_callable_target(args.target) and args.call == "buffer" and spec is None:
        # a module's buffer is a table like a file's: every row, its own width (nothing is asked of it)
        return call_isolated(args.target, None, d, call="buffer", key=args.key, timeout=timeout), None, False
    if is_callable_target(args.target):
        if d is None and args.call != "buffer":
            raise LoadError(f"{args.target}: pass --d, the width to ask the callable for (it cannot be inferred "
                            f"from a function; --call buffer reads a module's table at its own width)")
        if spec is None:
            pos = default_callable_positions() if args.call == "positions" else np.arange(2048, dtype=np.float64)
        else:
            lim = MAX_CALL_ENTRIES // max(1, d or 1)
            pos = positions_from_spec(spec, lim, f"at d={d} a callable is asked for at most "
                                                 f"{lim} ({MAX_CALL_ENTRIES} entries)")
        pos, arg, rounded = callable_positions(pos)  # int64 or float64 (REQ-CHECK-INPUT)
        asks = args.call != "buffer"  # a buffer is not asked for a width: it has its own
        table = call_isolated(args.target, arg, d, call=args.call, key=args.key, timeout=timeout)  # REQ-CHECK-ISOLATE
        if spec is None and asks:
            extra = "".join(f", {int(x)}" for x in pos[2048:])
            table.notes.append(f"positions 0..2047{extra} (the default; --positions to choose)")
        if rounded:
            table.notes.append("positions that are not binary64 values were passed (and are checked) "
                               "as the nearest binary64 values")
        return table, pos, asks
    if args.call != "positions":
        raise LoadError(f"--call {args.call} applies to a module:callable TARGET, not a file")
    table = load_table(args.target, key=args.key)
    rows = table.data.shape[0]  # counted before any position is built (REQ-CHECK-LIMITS)
    positions = None if spec is None else positions_from_spec(spec, max(table.data.shape), f"the table has {rows} rows")
    selected = getattr(args, "rows", None) is not None or getattr(args, "skip_rows", None) is not None
    if positions is not None and selected:  # --positions names the selected rows: give the others a placeholder
        sel = select(argparse.Namespace(rows=getattr(args, "rows", None), skip_rows=getattr(args, "skip_rows", None),
                                        columns=None), Table(np.empty((rows, 0)), "", ""), None)[1]
        if len(positions) != len(sel):
            raise LoadError(f"--positions names {len(positions)} positions for the {len(sel)} selected rows")
        full = np.zeros(rows, dtype=positions.dtype)
        full[sel.astype(np.int64)] = positions
        positions = full
    return table, positions, False


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
    from sinpe.reference.checking.check import check_table

    auto = args.profile == "auto"
    if auto:
        overrides = [f for f in ("layout", "shift", "base", "phase_scale", "amplitude", "offset", "odd")
                     if getattr(args, f) is not None]
        if overrides:
            raise LoadError(f"--profile auto takes the parameters detect finds; drop --{overrides[0].replace('_', '-')}")
    profile = profile_from_args(args) if not auto else get_profile("vaswani")
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
    if profile.odd == "error" and args.d is not None and args.d % 2 and is_callable_target(args.target):
        return _check_must_raise(args, profile)
    with input_errors("check", args.target):  # never a traceback for bad input: one line, exit 2
        table, positions, is_callable = load_target(args, args.d)
        d = args.d
        if auto:
            profile, found = auto_profile(table, positions, d)
            if profile is None:
                return _emit(args, _no_auto(found, table, args, d))
        res = check_table(table, profile, positions=positions, dtype=args.dtype, tier=args.tier, d=d,
                          detect=args.detect, max_failures=args.max_failures, working=args.working)
    if auto:
        res.notes.insert(0, f"--profile auto: checked against what detect found: {profile.cli_flags()} "
                            f"({found['sentence']})")
        res.profile_source = "detected"
    return _emit(args, res)


def _angle_emit(args: argparse.Namespace, r: Any, kind: str, describe: str, flags: str, notes: list[str],
                repro: str) -> int:
    """A grid/rotary AngleResult reported with the 1-D report contract (REQ-CHECK-KINDS): the same verdicts,
    exit codes and JSON keys, plus ``kind`` and ``parts``."""
    out = angle_report(r, kind, describe, flags, notes, repro)
    out["target"] = args.target or args.cos or args.sin
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        verdict = {"conforms": "CONFORMS", "fails": "DOES NOT CONFORM", "inconclusive": "INCONCLUSIVE"}[r.verdict]
        L = [f"sinpe check {out['target']}: {r.rows} x {r.d} {kind} table, profile {flags}, tier {r.tier}, "
             f"dtype {r.dtype}", f"  {describe}"]
        L += [f"  note: {n}" for n in notes]
        L.append(f"{verdict}: {r.reason or 'every entry within the ' + r.tier + ' tolerance'}")
        for k, p in r.parts.items():
            L.append(f"  {k}: {p.verdict}, {p.n_failures} failures, max abs error {p.max_abs_error:.3g}")
        L.append(f"max |error| {r.max_abs_error:.3g}; {r.n_failures} failures; unjudged entries: {r.unjudged}"
                 + (f" from row {r.unjudged_from} on" if r.unjudged else "") + f"; {r.undecided} undecided")
        for f in r.failures[:args.max_failures]:
            L.append(f"  {f.get('cache', '')} row {f['row']} (position {f['position']}) column {f['index']} "
                     f"({f['column']}): {f['value']!r} vs {f['reference']!r} (error {f['abs_error']:.3g} > "
                     f"{f['allowed']:.3g}); reproduce: {repro}")
        print("\n".join(L))
    return r.exit_code


def angle_report(r: Any, kind: str, describe: str, flags: str, notes: list[str], repro: str) -> dict[str, Any]:
    """The ``sinpe check --json`` keys of a 1-D report, filled from a grid/rotary AngleResult."""
    entries = r.rows * r.d * max(1, len(r.parts))
    worst = max(r.failures, key=lambda f: f["abs_error"], default=None)
    return {"kind": kind, "conformant": r.verdict == "conforms", "verdict": r.verdict, "profile": r.profile,
            "profile_flags": flags, "profile_params": {"describe": describe}, "profile_source": "given",
            "tier": r.tier, "dtype": r.dtype, "working": r.working, "d": r.d, "rows": r.rows, "width": r.d,
            "max_abs_error": r.to_json()["max_abs_error"], "max_ulp_error": r.to_json()["max_ulp_error"],
            "max_bound_ratio": None, "worst": {} if worst is None else {"position": worst["position"],
                                                                        "column": worst["index"]},
            "n_failures": r.n_failures, "failures": r.failures, "bands": [], "reason": r.reason, "detected": None,
            "oracle_decided": r.oracle_decided, "notes": notes, "source": "", "seconds": 0.0,
            "unjudged": {"count": r.unjudged, "share": r.unjudged / entries if entries else 0.0,
                         "from_position": r.unjudged_from}, "undecided": r.undecided,
            "structural": {"judged": 0, "violations": 0, "findings": []}, "alternatives": [],
            "parts": {k: v.to_json() for k, v in r.parts.items()}, "reproduce": repro}


def _run_grid(args: argparse.Namespace) -> int:
    """``sinpe check FILE --profile mae|...``: the grid checker (REQ-CHECK-GRID) under check's contract."""
    from sinpe.reference.cli.grid import grid_check, load_grid
    if args.target is None:
        raise LoadError(f"--profile {args.profile} (a 2-D grid) needs TARGET, the grid table file")
    _refuse(args, ("layout", "shift", "base", "phase_scale", "amplitude", "offset", "odd", "cos", "sin", "dim", "rule",
                   "factor", "original_max", "seq_len", "low_freq_factor", "high_freq_factor", "beta_fast",
                   "beta_slow", "attention_factor", "positions", "rows", "skip_rows", "columns", "d"), "a 2-D grid")
    if args.working not in (None, "native"):
        raise LoadError("--working applies to 1-D profiles; a grid is checked in its --dtype")
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
    if args.working not in (None, "native"):
        raise LoadError("--working applies to 1-D profiles; a rotary cache is checked in its --dtype")
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


def auto_profile(table: Table, positions: Any, d: int | None) -> tuple[Any, dict[str, Any]]:
    """(the profile detect names for the table, the detection as JSON); the profile is None when detect
    names no family member (REQ-CHECK-AUTO)."""
    from sinpe.reference.checking.detect import detect_table, profile_of
    det = detect_table(table.data, positions=positions, d=d)
    p = profile_of(det)
    if p is not None:
        binary64_parameters(p)
    return p, det.to_json()


def _no_auto(found: dict[str, Any], table: Table, args: argparse.Namespace, d: int | None) -> Any:
    """The report when --profile auto finds nothing to check against: a finding (exit 1), never a pass."""
    from sinpe.reference.checking.check import _new_result
    from sinpe.spec.profiles import get_profile as _gp
    res = _new_result(_gp("vaswani"), args.tier, args.dtype or table.dtype, d or table.data.shape[1],
                      table.data.shape[0], table.source)
    res.profile, res.profile_flags, res.profile_params = None, "auto", {}
    res.width = table.data.shape[1]
    res.conformant, res.verdict = False, "fails"
    res.reason = f"--profile auto: detect names no member of the family to check against: {found.get('sentence')}"
    res.detected = found
    res.profile_source = "detected"
    return res


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


def _check_must_raise(args: argparse.Namespace, profile: Any) -> int:
    """DEF-ODD rule 'error': PE is undefined for odd d, so a conforming implementation MUST raise there,
    and MUST conform at even d: it is checked at d + 1 too (a callable that raises for every d, or
    returns garbage for even d, does not conform)."""
    from sinpe.reference.checking.check import _new_result, check_table
    try:
        odd_table, _, _ = load_target(args, args.d)
    except LoadError as e:
        if "raised" not in str(e):
            raise
        raised = str(e)
    else:
        res = _new_result(profile, args.tier, args.dtype or odd_table.dtype, args.d, odd_table.data.shape[0],
                          args.target)
        res.width = odd_table.data.shape[1]
        res.conformant, res.verdict = False, "fails"
        res.reason = f"returned a table for odd d={args.d}; odd rule 'error' requires it to raise"
        return _emit(args, res)
    with input_errors("check", args.target):
        table, positions, _ = load_target(args, args.d + 1)
        res = check_table(table, profile, positions=positions, dtype=args.dtype, tier=args.tier, d=args.d + 1,
                          detect=args.detect, max_failures=args.max_failures, working=args.working)
    res.notes.insert(0, f"raises for odd d={args.d}, as odd rule 'error' requires ({raised}); "
                        f"checked at the even d={args.d + 1}")
    return _emit(args, res)


def render(res: Any, target: str) -> str:
    """The human report."""
    L = []
    prof = res.profile or res.profile_flags
    shape = f"{res.rows} x {res.width or res.d} table" + (f" (d={res.d})" if res.width and res.width != res.d else "")
    work = f", computed in {res.working}" if res.working and res.working != res.dtype else ""
    L.append(f"sinpe check {target}: {shape}, profile {prof}, tier {res.tier}, dtype {res.dtype}{work}")
    for n in res.notes:
        L.append(f"  note: {n}")
    verdict = {"conforms": "CONFORMS", "fails": "DOES NOT CONFORM", "inconclusive": "INCONCLUSIVE"}[res.verdict]
    L.append(f"{verdict}: {res.reason or 'every entry judged and within the ' + res.tier + ' tolerance'}")
    st = res.structural
    if st["judged"] or st["violations"]:
        L.append(f"structural checks (THM-SHIFT, THM-INJ): {st['judged']} comparisons judged, {st['violations']} violations")
        for f in st["findings"]:
            L.append(f"  {f.theorem} positions {f.positions[0]}, {f.positions[1]} frequency {f.k}: angle off by "
                     f"{f.residual:.3g} rad > slack {f.slack:.3g}")
            L.append(f"    reproduce: {f.repro}")
    if res.bands:
        ulp = f", max error {res.max_ulp_error:.3g} ulp of {res.dtype}" if res.tier != "phase" else ""
        L.append(f"max |error| {res.max_abs_error:.3g} ({res.max_bound_ratio:.3g} of its bound){ulp}; "
                 f"worst at position {res.worst.get('position')} column {res.worst.get('column')} ({res.worst.get('label')})")
        L.append("  positions             rows   max |error|  of bound   failures   unjudged")
        for b in res.bands:
            hi = f"{b.hi:.0e}" if b.hi >= 1e3 else f"{b.hi:g}"
            lo = f"{b.lo:.0e}" if b.lo >= 1e3 else f"{b.lo:g}"
            L.append(f"  [{lo}, {hi}){'':<{max(0, 14 - len(lo) - len(hi))}} {b.rows:7d}   {b.max_abs_error:11.3g} "
                     f"{b.max_bound_ratio:9.3g}   {b.failures:8d}   {b.unjudged:8d}")
    u = res.unjudged
    L.append(f"unjudged entries: {u['count']} ({100 * u['share']:.3g} %)" +
             (f", from position {u['from_position']} on" if u["count"] else ""))
    if res.failures:
        L.append(f"first failures ({len(res.failures)} of {res.n_failures}):")
        for f in res.failures:
            L.append(f"  position {f.position} column {f.column} ({f.label}): value {f.value!r}, reference "
                     f"{f.reference!r}, |error| {f.abs_error:.3g} > allowed {f.allowed:.3g} ({f.reason})")
            L.append(f"    reproduce: {f.repro}")
    if res.oracle_decided:
        L.append(f"{res.oracle_decided} entries within the fast reference's error of the tolerance were decided by the Arb oracle")
    if res.detected:
        det = res.detected
        if "error" in det:
            L.append(f"detect: {det['error']}")
        else:
            L.append(f"detected: {det.get('sentence')}")
            if det.get("deviations"):
                L.append(f"  deviations from {prof}: {json.dumps(det['deviations'])}")
    L.append(f"({res.seconds:.2f} s)")
    return "\n".join(L)


def write_junit(path: str, res: Any, target: str) -> None:
    """One testsuite, one testcase per position band (plus shape/non-finite findings)."""
    cases = []
    name = f"sinpe.check[{res.profile or res.profile_flags}-{res.tier}-{res.dtype}]"
    if res.reason and not res.bands:
        cases.append(("shape", res.reason))
    for b in res.bands:
        msg = None
        if b.unjudged and not b.failures:
            msg = ("skipped", f"{b.unjudged} entries unjudged (the bound allows any value); "
                   f"{res.reason or ''}")
        if b.failures:
            fl = [f for f in res.failures if b.lo <= abs(float(_num(f.position))) < b.hi]
            msg = f"{b.failures} entries exceed the {res.tier} tolerance; max |error| {b.max_abs_error:.3g}"
            if fl:
                msg += f"; first: position {fl[0].position} column {fl[0].column}; reproduce: {fl[0].repro}"
        cases.append((f"positions [{b.lo:g}, {b.hi:g})", msg))
    if res.structural["violations"]:
        f = res.structural["findings"][0]
        cases.append((f.theorem, f"{res.structural['violations']} row pairs break {f.theorem}; first at positions "
                      f"{f.positions[0]}, {f.positions[1]}; reproduce: {f.repro}"))
    if res.reason and res.reason.startswith("non-finite"):
        cases.append(("finite", res.reason))
    if res.reason and res.reason.startswith("dtype"):
        cases.append(("dtype", res.reason))
    fails = sum(1 for _, m in cases if m and not isinstance(m, tuple))
    skips = sum(1 for _, m in cases if isinstance(m, tuple))
    out = [f'<?xml version="1.0" encoding="utf-8"?>',
           f'<testsuite name={quoteattr(name)} tests="{len(cases)}" failures="{fails}" errors="0" skipped="{skips}" '
           f'time="{res.seconds:.3f}">']
    for case, msg in cases:
        out.append(f'  <testcase classname={quoteattr(target)} name={quoteattr(case)}>')
        if isinstance(msg, tuple):
            out.append(f'    <skipped message={quoteattr(msg[1])}/>')
        elif msg:
            out.append(f'    <failure message={quoteattr(msg)}/>')
        out.append('  </testcase>')
    out.append('</testsuite>')
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(out) + "\n")


def _num(s: str) -> float:
    from fractions import Fraction
    return float(Fraction(s))
