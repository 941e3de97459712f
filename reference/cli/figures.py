"""``sinpe figures --out DIR``: the seed chapter's tables and figures recomputed (SPEC.md REQ-FIGURES), a thin
shell over :mod:`sinpe.reference.audit.figures` (which says what each file holds). Matplotlib is the
optional ``plot`` extra: without it the command names the install and exits 2 (``--tables-only`` writes the
tables without it).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sinpe.reference.audit.figures import PLOT_INSTALL, plot_dot_product, plot_error_vs_position, plot_figure_4_1, write_tables


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, metavar="DIR", help="output folder (created if missing)")
    parser.add_argument("--tables-only", action="store_true", help="write the CSV/Markdown tables only (no matplotlib needed)")


def run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} exists and is not a folder")
    if not args.tables_only:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print(f"sinpe figures: the plots need matplotlib: {PLOT_INSTALL} (or use --tables-only)", file=sys.stderr)
            return 2
    out.mkdir(parents=True, exist_ok=True)
    written = write_tables(out)
    left: list[str] = []
    if not args.tables_only:
        written += plot_figure_4_1(out)
        written.append(plot_dot_product(out))
        try:
            import sinpe.reference.implementations.certify  # noqa: F401
        except ImportError:
            left.append("error_vs_position.png (sinpe.reference.implementations.certify is not available)")
        else:
            path, skipped = plot_error_vs_position(out)
            written.append(path)
            left += [f"error_vs_position.png: {s}" for s in skipped]
    for p in written:
        print(p)
    for s in left:
        print(f"sinpe figures: not drawn: {s}", file=sys.stderr)
    return 0
