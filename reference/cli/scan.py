"""``sinpe scan PATH``: find and judge every sinusoid table in a checkpoint (SPEC.md REQ-SCAN).

PATH is a ``.safetensors`` file, a sharded ``*.safetensors.index.json``, an ``.npz``, a ``.pt``/``.pth``
(read with ``weights_only=True``), an ``.onnx`` model, a ``.gguf`` file or a directory of them. Exit status: 0
every table found conforms, 1 some table does not, 3 something could not be judged (an inconclusive table or
an unreadable tensor), 2 usage or input error. ``--json`` prints one JSON document, ``--jsonl`` one JSON line
per tensor and a summary line (``--out FILE`` writes those lines to FILE), ``--junit FILE`` one test case per
tensor. ``--shard K/N`` judges the files of shard K of N (REQ-SCAN-SHARD); ``sinpe scan --merge FILE...`` merges
the JSON lines of many scans or shards into those of one.
"""
from __future__ import annotations

import argparse
import json
import os
from typing import Any

OUTPUTS = ("junit", "out")  # the files it writes: the one output rule (REQ-CLI-OUTPUT)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="PATH", nargs="+", help="checkpoint file or directory (with --merge: the "
                        "JSON-lines files to merge)")
    parser.add_argument("--workers", type=int, default=1, help=f"processes judging tensors in parallel "
                        f"(at most the CPU count, {os.cpu_count()}; default 1)")
    parser.add_argument("--shard", metavar="K/N", help="judge only the files of shard K of N (1 <= K <= N): a "
                        "split by each file's path relative to PATH, the same on every machine (REQ-SCAN-SHARD)")
    parser.add_argument("--merge", action="store_true", help="PATH... are JSON-lines files of scans (--jsonl, "
                        "--out): print (or --out) their rows sorted and one summary of all; exit as that scan")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    out.add_argument("--jsonl", action="store_true", help="print one JSON line per tensor, then a summary line")
    parser.add_argument("--out", metavar="FILE", help="also write the JSON lines (as --jsonl prints them) to FILE")
    parser.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report to FILE")
    parser.add_argument("--plot", metavar="DIR", help="also draw each judged 1-D table's picture (as sinpe check "
                        "--plot) to DIR/FILE-TENSOR.png (REQ-CHECK-PLOT; created if missing; the plot extra)")


def run(args: argparse.Namespace) -> int:
    """argparse -> :func:`sinpe.reference.checking.scan.scan` (or the merge of JSON lines) -> the report."""
    from sinpe.reference.checking import scan_files
    from sinpe.reference.checking.loaders import input_errors
    if args.merge:
        return _merge(args)
    if len(args.path) != 1:
        raise ValueError(f"one PATH to scan (a file or a directory); got {len(args.path)} (--merge merges JSON lines)")
    args.path = args.path[0]
    with input_errors("scan", args.path):
        shard = scan_files.Shard.of(args.shard) if args.shard is not None else None
    if args.plot:
        _plot_dir(args.plot, args.path)
    with input_errors("scan", args.path):
        res = _scan(args, shard)
    _report(args, res)
    if args.plot:
        with input_errors("scan", args.path):
            _plots(args.plot, res)
    return res.exit_code


def _scan(args: argparse.Namespace, shard: Any) -> Any:
    from sinpe.reference.checking import scan_files
    from sinpe.reference.checking.scan import scan
    from sinpe.reference.progress import Progress
    total = len(scan_files.list_tensors(args.path, shard))  # headers only: the bar, input errors first
    bar = Progress(total, "sinpe scan", unit="tensors")
    try:
        return scan(args.path, workers=args.workers, progress=bar, shard=shard)
    finally:
        bar.close()


def _report(args: argparse.Namespace, res: object) -> None:
    from sinpe.reference.checking.outputs import write_atomic
    from sinpe.reference.checking.report import write_cases
    from sinpe.reference.checking.scan import junit_cases, render
    from sinpe.reference.checking.scan_jsonl import jsonl_lines
    lines = jsonl_lines(res)  # type: ignore[arg-type]
    if args.json:
        print(json.dumps(res.to_json(), indent=1))  # type: ignore[attr-defined]
    elif args.jsonl:
        print("\n".join(lines))
    else:
        print(render(res))  # type: ignore[arg-type]
    if args.out:
        write_atomic(args.out, "\n".join(lines) + "\n")
    if args.junit:
        write_cases(args.junit, f"sinpe.scan[{os.path.basename(os.path.abspath(res.path))}]",  # type: ignore[attr-defined]
                    junit_cases(res), res.seconds, res.path)  # type: ignore[arg-type, attr-defined]


def _merge(args: argparse.Namespace) -> int:
    """``--merge FILE...``: the rows of every file, sorted, and one summary (scan_jsonl.merge_files)."""
    from sinpe.reference.checking.loaders import input_errors
    from sinpe.reference.checking.outputs import write_atomic
    from sinpe.reference.checking.scan_jsonl import merge_files
    unused = [f"--{k}" for k in ("shard", "junit", "plot") if getattr(args, k) is not None] + \
        [f"--{k}" for k in ("json",) if getattr(args, k)] + (["--workers"] if args.workers != 1 else [])
    if unused:
        raise ValueError(f"{unused[0]} does not apply to --merge (it merges JSON lines; it judges nothing)")
    with input_errors("scan", args.path[0]):
        lines = merge_files(args.path)
    if args.out:
        write_atomic(args.out, "\n".join(lines) + "\n")
    else:
        print("\n".join(lines))
    return int(json.loads(lines[-1])["summary"]["exit_code"])


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
    from sinpe.reference.cli import _Parser, check as cli_check
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
