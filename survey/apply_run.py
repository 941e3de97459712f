"""The survey's real-world evidence for rotary applications and checkpoints (issue 19): every application of
survey/apply_cases.py APPLY through `sinpe check-apply apply_adapters:TARGET` (isolated, as a user runs it) in
float32 and bfloat16 plus one control claim, and every checkpoint of CHECKPOINTS built by the library, saved by
it and read by `sinpe scan DIR --json` under /usr/bin/time -v (peak RSS of the scan process). Writes
survey/apply_results.json and the "Application" and "Checkpoint scan" sections of survey/RESULTS.md and
survey/README.md (survey/report.py renders them).

Run alone (survey environment): `KERAS_BACKEND=torch .venv-survey/bin/python survey/apply_run.py`
(`--apply` or `--scan` for one part, the other kept from apply_results.json; `--render` rewrites the pages only).
`make survey` runs it after survey/run.py.
"""
from __future__ import annotations

import ast
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("KERAS_BACKEND", "torch")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import report  # noqa: E402
import run  # noqa: E402

SCAN_TIMEOUT = 600


def adapter_source(target: str) -> str:
    """The code `sinpe check-apply apply_adapters:TARGET` calls: the adapter's def, or the re-export line."""
    text = (HERE / "apply_adapters.py").read_text()
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name == target:
            return ast.get_source_segment(text, node)
        if isinstance(node, ast.ImportFrom) and any((a.asname or a.name) == target for a in node.names):
            name = next(a.name for a in node.names if (a.asname or a.name) == target)
            return f"{target} = {node.module}.{name}  # the library's function itself, unchanged"
    raise KeyError(target)


def check(case, dtype: str, flags: list, role: str) -> dict:
    args = ["check-apply", f"apply_adapters:{case.target}", "--convention", case.convention, *flags,
            "--dim", str(case.dim), "--dtype", dtype, "--json"]
    r = run.sinpe(args)  # the current directory is survey/: the isolated child imports apply_adapters from it
    js = r["json"] or {}
    rel = js.get("relative") or {}
    return {"role": role, "dtype": dtype, "flags": list(flags), "command": "sinpe " + shlex.join(args),
            "exit_code": r["exit_code"], "verdict": js.get("verdict") or ("timeout" if r["exit_code"] is None
                                                                          else "usage-error"),
            "cause": js.get("cause"), "reason": (js.get("reason") or "")[:400] or None,
            "max_abs_error": run._num(js.get("max_abs_error")), "max_bound_ratio": run._num(js.get("max_bound_ratio")),
            "relative": {"holds": rel.get("holds"), "comparisons": rel.get("comparisons", 0),
                         "violations": rel.get("violations", 0)},
            "unjudged": (js.get("unjudged") or {}).get("count", 0), "entries": js.get("entries", 0),
            "output_dtype": js.get("output_dtype"), "seconds": js.get("seconds"), "stderr": r["stderr"][:300],
            "repeat": js.get("repeat")}  # a failing call made again: {calls, differing[, error]}, or null


def applications(env: dict) -> list:
    import apply_cases

    from sinpe.reference.progress import Progress
    out = []
    bar = Progress(len(apply_cases.APPLY), "survey apply", unit="applications")  # on a terminal only
    for i, case in enumerate(apply_cases.APPLY, 1):
        bar.update(i - 1, case.id)
        checks = [check(case, dt, case.flags, "claimed") for dt in apply_cases.DTYPES]
        checks.append(check(case, "float32", case.control, "control"))
        out.append({"id": case.id, "library": case.library, "library_version": env["libraries"].get(case.library),
                    "function": case.function, "source": run.source_of(case.function), "target": case.target,
                    "convention": case.convention, "dim": case.dim, "call": adapter_source(case.target),
                    "control_words": case.control_words, "checks": checks})
    bar.update(len(apply_cases.APPLY))
    bar.close()
    return out


def _time_v(stderr: str, key: str) -> str | None:
    m = re.search(rf"^\s*{re.escape(key)}: (.+)$", stderr, re.M)
    return m.group(1).strip() if m else None


def scan_one(ck, root: Path) -> dict:
    import inspect
    out = root / ck.id.replace("/", "_").replace("[", "_").replace("]", "").replace(" ", "_").replace(".", "_")
    out.mkdir()
    t0 = time.perf_counter()
    ck.build(str(out))
    build_s = time.perf_counter() - t0
    files = sorted(p for p in out.rglob("*") if p.is_file())
    cmd = ["/usr/bin/time", "-v", run.SINPE, "scan", str(out), "--json"]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=SCAN_TIMEOUT)
    wall = time.perf_counter() - t0
    js = json.loads(p.stdout) if p.stdout.strip().startswith("{") else {}
    rss = _time_v(p.stderr, "Maximum resident set size (kbytes)")
    s = js.get("summary") or {}
    found = [t for t in js.get("tensors", []) if t["verdict"] not in ("skipped", "error")]
    return {"id": ck.id, "library": ck.library, "model": ck.model, "note": ck.note,
            "build": inspect.getsource(ck.build).strip(), "build_seconds": round(build_s, 2),
            "files": [f.name for f in files], "bytes": sum(f.stat().st_size for f in files),
            "command": f"sinpe scan {out.name} --json", "exit_code": p.returncode,
            "tensors": s.get("tensors", 0), "found": s.get("found", 0), "skipped": s.get("skipped", 0),
            "errors": s.get("error", 0), "verdicts": {k: s.get(k, 0) for k in ("conforms", "fails", "inconclusive")},
            "expected": ck.expect, "missed": [n for n in ck.expect if n not in {t["name"] for t in found}],
            "unexpected": [t["name"] for t in found if t["name"] not in ck.expect],
            "tables": [_table_record(t) for t in found],
            "scan_seconds": s.get("seconds"), "tensors_per_second": s.get("tensors_per_second"),
            "wall_seconds": round(wall, 2), "peak_rss_mb": round(int(rss) / 1024, 1) if rss else None,
            "stderr": "\n".join(ln for ln in p.stderr.splitlines() if ln.startswith("sinpe"))[:300]}


def _table_record(row: dict) -> dict:
    """The survey's record of one scan row (``sinpe scan --json``: the check's summary keys, REQ-SCAN): ``plan`` is
    the row's ``profile_flags``, ``unjudged_share`` its ``unjudged.share`` (read under the old names, both were null)."""
    return {**{k: row.get(k) for k in ("name", "shape", "dtype", "kind", "verdict", "max_abs_error", "reason")},
            "plan": row.get("profile_flags"), "unjudged_share": (row.get("unjudged") or {}).get("share")}


def checkpoints() -> list:
    import apply_cases

    from sinpe.reference.progress import Progress
    out = []
    bar = Progress(len(apply_cases.CHECKPOINTS), "survey scan", unit="checkpoints")  # on a terminal only
    with tempfile.TemporaryDirectory(prefix="sinpe-survey-ckpt-") as td:
        for i, ck in enumerate(apply_cases.CHECKPOINTS, 1):
            bar.update(i - 1, ck.id)
            out.append(scan_one(ck, Path(td)))
    bar.update(len(apply_cases.CHECKPOINTS))
    bar.close()
    return out


def write(ap: dict) -> int:
    errs = report.validate(ap, json.loads(report.APPLY_SCHEMA.read_text()))
    if errs:
        print("apply results do not match the schema:\n  " + "\n  ".join(errs[:20]), file=sys.stderr)
        return 1
    report.APPLY_RESULTS.write_text(json.dumps(ap, indent=1) + "\n")
    report.write_apply_pages(ap)
    return 0


def main(argv: list[str]) -> int:
    if argv == ["--render"]:
        return write(report.load_apply())
    run.torchvision_cpu_shim()
    os.chdir(HERE)
    t0 = time.time()
    env = run.environment()
    old = report.load_apply() if argv else {}
    kept = (old.get("environment") or {}).get("parts") or {}
    env["parts"] = {part: env["sinpe_commit"] if argv in ([], [f"--{flag}"]) else kept.get(part, "?")
                    for part, flag in (("applications", "apply"), ("checkpoints", "scan"))}  # the commit each ran at
    ap = {"schema": "survey/apply_results.schema.json", "environment": env,
          "applications": applications(env) if argv in ([], ["--apply"]) else old.get("applications", []),
          "checkpoints": checkpoints() if argv in ([], ["--scan"]) else old.get("checkpoints", []),
          "seconds": round(time.time() - t0, 1)}
    return write(ap)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
