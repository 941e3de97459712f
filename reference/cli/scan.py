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


def run(args: argparse.Namespace) -> int:
    """argparse -> :func:`sinpe.reference.checking.scan.scan` -> the report."""
    from sinpe.reference.checking import scan_files
    from sinpe.reference.checking.report import write_cases
    from sinpe.reference.checking.loaders import input_errors
    from sinpe.reference.checking.scan import junit_cases, render, scan
    from sinpe.reference.progress import Progress
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
    return res.exit_code
