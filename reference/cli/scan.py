"""``sinpe scan PATH``: find and judge every sinusoid table in a checkpoint (SPEC.md REQ-SCAN).

PATH is a ``.safetensors`` file, a sharded ``*.safetensors.index.json``, an ``.npz``, a ``.pt``/``.pth``
(read with ``weights_only=True``) or a directory of them. Exit status: 0 every table found conforms, 1 some
table does not, 3 something could not be judged (an inconclusive table or an unreadable tensor), 2 usage or
input error. ``--json`` prints one JSON document, ``--jsonl`` one JSON line per tensor and a summary line
(``cat`` many scans' lines to merge them), ``--junit FILE`` one test case per tensor.
"""
from __future__ import annotations

import argparse
import json
import os


OUTPUTS = ("junit",)  # the files it writes: the one output rule (REQ-CLI-OUTPUT)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="PATH", help="checkpoint file or directory")
    parser.add_argument("--workers", type=int, default=1, help=f"processes judging tensors in parallel "
                        f"(at most the CPU count, {os.cpu_count()}; default 1)")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    out.add_argument("--jsonl", action="store_true", help="print one JSON line per tensor, then a summary line")
    parser.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report to FILE")
    parser.add_argument("--plot", metavar="DIR", help="also draw each judged 1-D table's picture (as sinpe check "
                        "--plot) to DIR/FILE-TENSOR.png (REQ-CHECK-PLOT; created if missing; the plot extra)")


def run(args: argparse.Namespace) -> int:
    """argparse -> :func:`sinpe.reference.checking.scan.scan` -> the report."""
    from sinpe.reference.checking import scan_files
    from sinpe.reference.checking.report import write_cases
    from sinpe.reference.checking.loaders import input_errors
    from sinpe.reference.checking.scan import junit_cases, render, scan
    from sinpe.reference.progress import Progress
    if args.plot:
        _plot_dir(args.plot, args.path)
    with input_errors("scan", args.path):
        total = len(scan_files.list_tensors(args.path))  # headers only: the bar's length, and input errors first
        bar = Progress(total, "sinpe scan", unit="tensors")
        try:
            res = scan(args.path, workers=args.workers, progress=bar)
        finally:
            bar.close()
    if args.json:
        print(json.dumps(res.to_json(), indent=1))
    elif args.jsonl:
        for r in res.rows:
            print(json.dumps(dict(r.to_json(), path=res.path)))
        print(json.dumps({"summary": res.summary(), "path": res.path}))
    else:
        print(render(res))
    if args.junit:
        write_cases(args.junit, f"sinpe.scan[{os.path.basename(os.path.abspath(res.path))}]", junit_cases(res),
                    res.seconds, res.path)
    if args.plot:
        with input_errors("scan", args.path):
            _plots(args.plot, res)
    return res.exit_code


def _plot_dir(path: str, scanned: str) -> None:
    """Before any work: matplotlib is there and DIR is (or can be made) a real directory (else exit 2)."""
    from sinpe.reference import plot
    plot.require("scan")
    if os.path.islink(path) or (os.path.exists(path) and not os.path.isdir(path)):
        raise ValueError(f"--plot {path!r} is not a directory (a link is not followed)")
    if not os.path.isdir(os.path.dirname(os.path.abspath(path))):
        raise ValueError(f"--plot: directory of {path!r} does not exist")
    made = not os.path.exists(path)
    os.makedirs(path, exist_ok=True)
    problem = plot.output_problem(os.path.join(os.path.abspath(path), "picture.png"), [scanned])
    if problem:  # REQ-CLI-OUTPUT: no picture is written among the scanned files
        if made:
            os.rmdir(path)
        raise ValueError(problem.replace(repr(os.path.join(os.path.abspath(path), "picture.png")), repr(path)))


def _plots(folder: str, res: object) -> None:
    """Each judged 1-D tensor read again and checked with its plan (what the scan found), then drawn."""
    import re
    import shlex
    import sys
    from sinpe.reference import plot
    from sinpe.reference.checking import door, scan as scanning, scan_files
    from sinpe.reference.cli import check as cli_check, _Parser
    from sinpe.reference.cli.args import profile_from_args, request
    refs = {(r.file, r.name): r for r in scan_files.list_tensors(res.path)}  # type: ignore[attr-defined]
    n = 0
    for row in res.rows:  # type: ignore[attr-defined]
        if row.kind != "1d" or row.verdict not in scanning.JUDGED or not (row.profile_flags or "").startswith("--profile"):
            continue
        parser = _Parser(prog="sinpe scan --plot")
        cli_check.configure(parser)
        args, _ = parser.parse_known_args(["table", *shlex.split(row.profile_flags)])
        matrix, _ = scanning._matrix(scan_files.read_tensor(refs[(row.file, row.name)]))
        assert matrix is not None  # the scan judged it as a table
        m = matrix.full()
        checked = door.check(m, args.profile, **dict(request(args), positions=None))
        name = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{os.path.basename(row.file)}-{row.name}")[:200] + ".png"
        plot.plot_table(checked, m, None, profile_from_args(args), os.path.join(folder, name), [row.file])
        n += 1
    print(f"sinpe scan: {n} pictures in {folder}", file=sys.stderr)
