"""``sinpe table``: write the correctly rounded PE table as ``.npy`` or ``.safetensors`` (SPEC.md REQ-CLI-TABLE).

A thin shell over :func:`sinpe.reference.tables.write_table` (REQ-TABLE-API, REQ-TABLE-STREAM): rows are
positions, columns are channels; every entry is the value of the format nearest to the exact PE value
(ties to even): the fast path of :mod:`sinpe.reference.tables.rounded` decides what its rigorous
bound allows, the certified oracle (:mod:`sinpe.reference.oracles.interval`, mpmath intervals + Ziv)
the rest. The table is streamed in row blocks (memory bounded whatever its size, checked against
the free disk space first, written under a temporary name and renamed when complete) on all cores.
``--cross-check`` also recomputes the table with the Arb oracle and exits 1 on any difference.
bfloat16 has no NumPy dtype: its ``.npy`` table is stored as float32 holding exactly the bfloat16
values (every bfloat16 value is a float32 value), and the command says so on stderr; ``.safetensors``
stores real BF16.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from sinpe.reference.cli import UsageError
from sinpe.reference.cli.args import add_dtype_argument, add_profile_arguments, profile_from_args
from sinpe.reference.numerics.positions import PositionSource, parse_position_source
from sinpe.reference.progress import Progress
from sinpe.reference.tables.build import write_table
from sinpe.reference.tables.rounded import Stats
from sinpe.spec.formats import Format, get_format
from sinpe.spec.profiles import Profile

CROSS_CHECK_MAX = 1_000_000  # entries: Arb takes about 20 us per entry


OUTPUTS = ("out",)  # the files it writes: the one output rule (REQ-CLI-OUTPUT)


def configure(parser: argparse.ArgumentParser) -> None:
    add_profile_arguments(parser)
    parser.add_argument("--d", type=int, required=True, help="width d >= 1 (number of channels)")
    parser.add_argument("--positions", required=True,
                        help="start:stop (stop excluded), a comma list like 0,1,65535,1e6,-3,2.5, or a .npy file")
    add_dtype_argument(parser)
    parser.add_argument("--out", required=True, help="output file, .npy or .safetensors")
    parser.add_argument("--workers", type=int, default=None,
                        help="threads (default and at most: the cores this process may use; more are clamped)")
    parser.add_argument("--cross-check", dest="cross_check", action="store_true",
                        help=f"also compute the table with the Arb oracle and fail (exit 1) on any difference "
                             f"(at most {CROSS_CHECK_MAX} entries)")


def run(args: argparse.Namespace) -> int:
    profile = profile_from_args(args)
    if args.d < 1:
        raise UsageError(f"--d must be >= 1; got {args.d}")
    fmt = get_format(args.dtype)
    src = parse_position_source(args.positions)
    out = Path(args.out)
    if out.suffix not in (".npy", ".safetensors"):
        raise UsageError(f"--out must end in .npy or .safetensors; got {args.out!r}")
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be >= 1; got {args.workers}")
    args.workers = min(args.workers or cores(), cores())  # memory is bounded by the threads' blocks in flight
    if args.cross_check and len(src) * args.d > CROSS_CHECK_MAX:
        raise UsageError(f"--cross-check recomputes every entry with Arb: at most {CROSS_CHECK_MAX} entries; "
                         f"this table has {len(src) * args.d}")
    bar = Progress(len(src), "sinpe table", unit="rows")
    stats = Stats()
    shape = write_table(out, profile, args.d, src, fmt, workers=args.workers, stats=stats, progress=bar)
    bar.close()
    if args.cross_check:
        rc = _cross_check(out, profile, args, src, fmt)
        if rc:
            return rc
    if fmt.name == "bfloat16" and out.suffix == ".npy":
        print("sinpe table: bfloat16 table stored as float32 holding exactly the bfloat16 values "
              "(convert with torch.from_numpy(a).to(torch.bfloat16), which is exact)", file=sys.stderr)
    print(f"sinpe table: wrote {out} ({shape[0]} x {shape[1]} {fmt.name} correctly rounded; "
          f"{stats.oracle} of {stats.entries} entries settled by the certified oracle"
          f"{', cross-checked against Arb' if args.cross_check else ''})", file=sys.stderr)
    return 0


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform says)."""
    import os
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _cross_check(out: Path, profile: Profile, args: argparse.Namespace, src: PositionSource, fmt: Format) -> int:
    from sinpe.reference.oracles import arb as oracle_flint
    positions = [src.fraction(i) for i in range(len(src))]
    ref = oracle_flint.rounded_tables(profile, args.d, positions, [fmt])[fmt.name]
    if out.suffix == ".npy":
        table = np.load(out, allow_pickle=False).astype(np.float64)
    else:
        from sinpe.reference.checking.loaders import read_safetensors
        table = read_safetensors(out).astype(np.float64)
    bad = np.argwhere(table.view(np.int64) != ref.view(np.int64))
    if bad.size:
        r, j = bad[0]
        print(f"sinpe table: the table and Arb disagree at {len(bad)} entries; first: position "
              f"{positions[r]} column {j}: {table[r, j]!r} vs {ref[r, j]!r}; reproduce: sinpe table "
              f"{profile.cli_flags()} --d {args.d} --positions {src.spec()} "
              f"--dtype {fmt.dtype} --out {args.out} --cross-check", file=sys.stderr)
        return 1
    return 0
