"""``make bench``: run every ``benchmarks/bench_*.py`` and print one report.

Each benchmark file exposes ``main() -> dict`` of figures (throughputs in values/s and ratios
against a baseline measured in the same run). Files are loaded by path from this folder only
(never from the user's input). A failing benchmark is reported and makes the exit status 1;
the others still run.

    python benchmarks/run.py [--json] [NAME ...]    # NAME: e.g. impl for bench_impl.py
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import sys
import time
import traceback
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def discover(names: list[str] | None = None) -> list[Path]:
    files = sorted(HERE.glob("bench_*.py"))
    if names:
        want = {n.removeprefix("bench_").removesuffix(".py") for n in names}
        unknown = want - {f.stem.removeprefix("bench_") for f in files}
        if unknown:
            print(f"run.py: error: no benchmark named {', '.join(sorted(unknown))}; "
                  f"have {', '.join(f.stem.removeprefix('bench_') for f in files)}", file=sys.stderr)
            raise SystemExit(2)
        files = [f for f in files if f.stem.removeprefix("bench_") in want]
    return files


def run_one(path: Path) -> dict[str, Any]:
    spec = importlib.util.spec_from_file_location(f"sinpe_bench_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    if not callable(getattr(mod, "main", None)):
        raise TypeError(f"{path.name} has no main() -> dict")
    figures = mod.main()
    if not isinstance(figures, dict):
        raise TypeError(f"{path.name}: main() returned {type(figures).__name__}, not dict")
    return figures


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="benchmarks/run.py", description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("names", nargs="*", help="run only these benchmarks (e.g. impl golden check)")
    args = ap.parse_args(argv)
    report: dict[str, Any] = {"python": platform.python_version(), "machine": platform.machine(),
                              "benchmarks": {}}
    status = 0
    for path in discover(args.names):
        name = path.stem.removeprefix("bench_")
        t0 = time.perf_counter()
        try:
            figures = run_one(path)
            entry: dict[str, Any] = {"ok": True, "seconds": round(time.perf_counter() - t0, 2), "figures": figures}
        except Exception as e:  # report and go on with the other benchmarks
            status = 1
            entry = {"ok": False, "seconds": round(time.perf_counter() - t0, 2), "error": f"{type(e).__name__}: {e}",
                     "traceback": traceback.format_exc()}
        report["benchmarks"][name] = entry
        if not args.json:
            print(f"== {name} ({path.name}, {entry['seconds']} s)", flush=True)
            if entry["ok"]:
                for k, v in entry["figures"].items():
                    print(f"   {k:48s} {_fmt(v)}")
            else:
                print(f"   FAILED: {entry['error']}")
    if args.json:
        print(json.dumps(report, indent=1, default=str))
    return status


if __name__ == "__main__":
    sys.exit(main())
