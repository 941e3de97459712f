"""``sinpe table``: write the correctly rounded PE table as ``.npy`` (SPEC.md REQ-CLI-TABLE).

Rows are positions, columns are channels. Every entry is the value of the format nearest to
the exact PE value (ties to even), certified by :mod:`sinpe.reference.oracles.interval` (mpmath
intervals + Ziv). ``--cross-check`` also recomputes the table with the Arb oracle and exits 1
on any difference. bfloat16 has no NumPy dtype: its table is stored as float32 holding exactly
the bfloat16 values (every bfloat16 value is a float32 value), and the command says so on stderr.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

from sinpe.spec.formats import get_format

from sinpe.reference.oracles.interval import Certifier
from sinpe.reference.cli import UsageError
from sinpe.reference.cli.args import add_dtype_argument, add_profile_arguments, profile_from_args
from sinpe.reference.golden.vectors import Progress
from sinpe.reference.numerics.positions import parse_positions, positions_spec

STORAGE = {"binary64": np.float64, "binary32": np.float32, "binary16": np.float16, "bfloat16": np.float32}
MAX_ENTRIES = 50_000_000  # a table this large takes hours at ~50k certified values/s


def configure(parser: argparse.ArgumentParser) -> None:
    add_profile_arguments(parser)
    parser.add_argument("--d", type=int, required=True, help="width d >= 1 (number of channels)")
    parser.add_argument("--positions", required=True,
                        help="start:stop (stop excluded), a comma list like 0,1,65535,1e6,-3,2.5, or a .npy file")
    add_dtype_argument(parser)
    parser.add_argument("--out", required=True, help="output .npy file")
    parser.add_argument("--cross-check", dest="cross_check", action="store_true",
                        help="also compute the table with the Arb oracle and fail (exit 1) on any difference")


def run(args: argparse.Namespace) -> int:
    profile = profile_from_args(args)
    if args.d < 1:
        raise UsageError(f"--d must be >= 1; got {args.d}")
    fmt = get_format(args.dtype)
    positions = parse_positions(args.positions)
    if len(positions) * args.d > MAX_ENTRIES:
        raise UsageError(f"{len(positions)} positions x d={args.d} is more than {MAX_ENTRIES} entries")
    out = Path(args.out)
    if out.suffix != ".npy":
        raise UsageError(f"--out must end in .npy; got {args.out!r}")
    if not out.parent.is_dir():
        raise UsageError(f"directory {str(out.parent)!r} does not exist")
    cert = Certifier((fmt,))
    bar = Progress(len(positions), "sinpe table")
    table = cert.tables(profile, args.d, positions, progress=bar)[fmt.name]
    bar.done()
    if args.cross_check:
        from sinpe.reference.oracles import arb as oracle_flint
        ref = oracle_flint.rounded_tables(profile, args.d, positions, [fmt])[fmt.name]
        bad = np.argwhere(table.view(np.int64) != ref.view(np.int64))
        if bad.size:
            r, j = bad[0]
            print(f"sinpe table: mpmath and Arb disagree at {len(bad)} entries; first: position "
                  f"{positions[r]} column {j}: {table[r, j]!r} vs {ref[r, j]!r}; reproduce: sinpe table "
                  f"{profile.cli_flags()} --d {args.d} --positions {positions_spec(positions)} "
                  f"--dtype {fmt.dtype} --out {args.out} --cross-check", file=sys.stderr)
            return 1
    arr = table.astype(STORAGE[fmt.name])
    assert np.array_equal(arr.astype(np.float64), table), "storage dtype must hold the format exactly"
    tmp = out.with_name(out.name + ".part")
    with open(tmp, "wb") as fh:
        np.save(fh, arr, allow_pickle=False)
    os.replace(tmp, out)
    if fmt.name == "bfloat16":
        print("sinpe table: bfloat16 table stored as float32 holding exactly the bfloat16 values "
              "(convert with torch.from_numpy(a).to(torch.bfloat16), which is exact)", file=sys.stderr)
    print(f"sinpe table: wrote {out} ({arr.shape[0]} x {arr.shape[1]} {arr.dtype}, {fmt.name} correctly rounded"
          f"{', cross-checked against Arb' if args.cross_check else ''})", file=sys.stderr)
    return 0
