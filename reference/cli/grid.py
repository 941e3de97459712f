"""``sinpe grid check|detect FILE``: 2-D sin-cos grids (SPEC.md REQ-CHECK-GRID, REQ-DETECT-GRID).

The table is (rows, dim) with rows = cls + H*W in row-major order; ``--channels-first`` reads a
(C, H, W) tensor such as DETR's (leading size-1 dimensions are dropped). Exit status: check 0
conforms, 1 fails, 3 inconclusive; detect 0 a preset conforms, 1 none does; 2 usage or input error.
"""
from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np

from sinpe.reference.checking.loaders import LoadError, input_errors, load_table
from sinpe.reference.cli.args import add_grid_arguments
from sinpe.spec.formats import FORMATS
from sinpe.spec.grid import GRID_PRESETS
from sinpe.spec.tolerance import TIERS

DTYPES = sorted({f.dtype for f in FORMATS.values()})


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("check", "detect"))
    parser.add_argument("target", metavar="FILE", help="table file (.npy .npz .safetensors .pt .pth .csv .json)")
    parser.add_argument("--key", help="array name inside .npz/.safetensors/.pt/.json")
    parser.add_argument("--profile", choices=list(GRID_PRESETS), help="grid preset (check: required)")
    add_grid_arguments(parser)
    parser.add_argument("--dtype", choices=DTYPES, help="format claimed (default: the file's)")
    parser.add_argument("--tier", choices=TIERS, default="phase", help="tolerance tier (default phase)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON on stdout")


def _shape(args: argparse.Namespace, rows: int) -> tuple[int, int] | None:
    if not args.shape:
        return None
    try:
        h, w = (int(x) for x in args.shape.lower().split("x"))
    except ValueError:
        raise ValueError(f"--shape must be HxW, e.g. 14x14; got {args.shape!r}") from None
    return h, w


def load_grid(args: argparse.Namespace) -> tuple[np.ndarray, str]:
    if args.channels_first:
        return _channels_first(args)
    t = load_table(args.target, key=args.key)
    data = np.asarray(t.data)
    while data.ndim > 2 and data.shape[0] == 1:
        data = data[0]
    if args.channels_first:
        if data.ndim != 3:
            raise LoadError(f"--channels-first needs a (C, H, W) array; got shape {data.shape}")
        data = data.reshape(data.shape[0], -1).T
    elif data.ndim == 3:
        data = data.reshape(-1, data.shape[-1])
    if data.ndim != 2:
        raise LoadError(f"a grid table is (rows, dim); got shape {data.shape}")
    return data, t.dtype


def _channels_first(args: argparse.Namespace) -> tuple[np.ndarray, str]:
    """A (C, H, W) .npy (leading size-1 dimensions dropped) read as (H*W, C); the loader's checks on the result."""
    from sinpe.reference.checking import loaders
    if not args.target.lower().endswith(".npy"):
        raise LoadError("--channels-first reads a .npy file")
    t = loaders._npy(args.target, args.key)
    data = np.asarray(t.data)
    while data.ndim > 3 and data.shape[0] == 1:
        data = data[0]
    if data.ndim != 3:
        raise LoadError(f"--channels-first needs a (C, H, W) array; got shape {data.shape}")
    t.data = np.ascontiguousarray(data.reshape(data.shape[0], -1).T)
    t = loaders._finish(t)
    return np.asarray(t.data), t.dtype


def grid_check(args: argparse.Namespace, data: np.ndarray, dtype: str) -> tuple[Any, Any, str]:
    """(the AngleResult, the Grid, the reproducing command) of checking ``data`` against ``--profile``
    with the grid flags (shape, cls, options): shared by ``sinpe grid check`` and ``sinpe check``."""
    from sinpe.reference.checking.angles import check_grid
    from sinpe.spec.grid import Grid, get_grid
    shape = _shape(args, data.shape[0])
    if shape is None:
        n = data.shape[0] - args.cls
        s = int(round(max(n, 0) ** 0.5))
        if n <= 0 or s * s != n:
            raise ValueError(f"{n} grid rows are not a square: pass --shape HxW")
        shape = (s, s)
    opts = {k: getattr(args, k) for k in ("base_size", "interpolation_scale", "temperature") if getattr(args, k)}
    if args.reverse_coord:
        opts["reverse_coord"] = True
    try:
        g = get_grid(args.profile, data.shape[1], shape, **opts)
    except TypeError:
        raise ValueError(f"grid {args.profile} takes none of these options: {sorted(opts)}") from None
    if args.cls:
        g = Grid(g.name, g.shape, g.axes, g.order, args.cls)
    r = check_grid(data, g, dtype=dtype, tier=args.tier, working=getattr(args, "working", None))
    repro = f"sinpe check {args.target} --profile {args.profile} --shape {shape[0]}x{shape[1]} --cls {args.cls}"
    return r, g, repro


def run(args: argparse.Namespace) -> int:
    from sinpe.reference.checking.angles import detect_grid

    with input_errors(f"grid {args.action}", args.target):
        data, dtype = load_grid(args)
    dtype = args.dtype or dtype
    shape = _shape(args, data.shape[0])
    if args.action == "detect":
        det = detect_grid(data, shape=shape, dtype=args.dtype, tier=args.tier)
        det["target"] = args.target
        print(json.dumps(det, indent=1) if args.json else
              (f"{args.target}: grid {det['profile']} {det['shape']} with {det['cls']} cls rows, options {det['options']}"
               + (f"; equivalent here: {', '.join(e['profile'] for e in det['equivalent'])}" if det['equivalent'] else "")
               if det["found"] else f"{args.target}: {det['reason']}"))
        return 0 if det["found"] else 1
    if not args.profile:
        raise ValueError("grid check needs --profile (or run `sinpe grid detect`)")
    r, g, repro = grid_check(args, data, dtype)
    out = r.to_json()
    out["target"], out["describe"] = args.target, g.describe()
    out["reproduce"] = repro
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        print(f"{args.target}: {r.verdict} ({r.tier} tier, {r.dtype}) against {g.describe()}")
        print(f"  {r.rows} rows x {r.d} columns, {r.n_failures} failures, max abs error {r.max_abs_error:.3g}")
        for f in r.failures[:5]:
            print(f"  row {f['row']} {f['position']} column {f['index']} ({f['column']}): {f['value']!r} vs "
                  f"{f['reference']!r} (error {f['abs_error']:.3g} > {f['allowed']:.3g}); reproduce: {repro}")
        if r.reason:
            print(f"  {r.reason}")
    return r.exit_code
