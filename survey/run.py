"""The conformance survey: call each library function of survey/cases.py, dump its table, and ask
`sinpe detect` and `sinpe check` about it. Writes survey/results.json, survey/RESULTS.md, survey/README.md's
section between the survey markers, and survey/errors.png.

Run it with `make survey` (its own pinned environment, .venv-survey); never part of `make test`.
"""
from __future__ import annotations

import datetime
import importlib.metadata as md
import inspect
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

os.environ.setdefault("KERAS_BACKEND", "torch")
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402
import report  # noqa: E402

SINPE = str(Path(sys.executable).parent / "sinpe")
TIMEOUT = 120
LIBS = ["transformers", "diffusers", "timm", "open_clip_torch", "x-transformers", "rotary-embedding-torch",
        "torch_geometric", "keras-hub", "keras", "positional-encodings", "openai-whisper", "torchscale", "torch",
        "torchvision", "numpy"]


def torchvision_cpu_shim() -> None:
    """The PyPI torchvision wheel for torch 2.13.0 is a CUDA build whose C ops cannot load next to the
    CPU torch; importing it then fails registering fake kernels for two ops. Define their schemas
    (no kernels) so that transformers/timm/open_clip import; no surveyed function calls them."""
    import torch
    try:
        torch.ops.torchvision.nms  # noqa: B018
        return
    except (AttributeError, RuntimeError):
        pass
    lib = torch.library.Library("torchvision", "DEF")
    lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    lib.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    torchvision_cpu_shim.lib = lib  # keep the library alive


def environment() -> dict:
    import torch
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "spec", "proofs", "reference"], cwd=ROOT,
                           capture_output=True, text=True).stdout.strip()
    versions = {}
    for name in LIBS:
        try:
            versions[name] = md.version(name)
        except md.PackageNotFoundError:
            versions[name] = None
    return {"python": platform.python_version(), "torch": torch.__version__, "platform": platform.platform(),
            "sinpe_commit": commit + ("+dirty" if dirty else ""), "libraries": versions,
            "date": datetime.date.today().isoformat(),
            "notes": [("torchvision is the PyPI CUDA build (no CPU wheel on PyPI); its two op schemas are defined "
                      "without kernels so that it imports (survey/run.py torchvision_cpu_shim)"),
                      "keras runs on KERAS_BACKEND=torch; keras-hub installed without tensorflow-text",
                      "openai-whisper installed without triton (only its GPU kernels use it)"]}


def source_of(qualname: str) -> str:
    import importlib
    parts = qualname.split(".")
    for i in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for p in parts[i:]:
            obj = getattr(obj, p)
        path = inspect.getsourcefile(obj)
        line = inspect.getsourcelines(obj)[1]
        return f"{path.split('site-packages/', 1)[-1]}:{line}"
    return "?"


# ---------------------------------------------------------------- sinpe calls


def sinpe(args: list[str]) -> dict:
    try:
        p = subprocess.run([SINPE, *args], capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return {"exit_code": None, "json": None, "stderr": f"timeout after {TIMEOUT} s"}
    try:
        js = json.loads(p.stdout) if p.stdout.strip() else None
    except json.JSONDecodeError:
        js = None
    return {"exit_code": p.returncode, "json": js, "stderr": p.stderr.strip().splitlines()[-1] if p.stderr.strip()
            else ""}


def verdict_of(r: dict) -> str:
    """The verdict of a `sinpe check --json` run: its `verdict` field (conforms/fails/inconclusive, exit 0/1/3);
    a run that gave none is a usage error (exit 2) or a timeout."""
    js, rc = r["json"], r["exit_code"]
    if rc is None:
        return "timeout"
    if js is not None and js.get("verdict") in ("conforms", "fails", "inconclusive"):
        return js["verdict"]
    return "usage-error"


def check_args(files: dict, profile: str, flags: list, dtype: str, tier: str | None) -> list[str]:
    """`sinpe check` arguments: a table file (1-D, grid) or the --cos/--sin pair (rotary)."""
    target = [files["table"]] if "table" in files else ["--cos", files["cos"], "--sin", files["sin"]]
    return ["check", *target, "--profile", profile, *flags, "--dtype", dtype,
            *(["--tier", tier] if tier else []), "--json"]


def check_record(role: str, target: str, files: dict, profile: str, flags: list, dtype: str,
                 tier: str | None = None) -> dict:
    args = check_args(files, profile, flags, dtype, tier)
    r = sinpe(args)
    verdict = verdict_of(r)
    js = r["json"] or {}
    names = {f: Path(f).name for f in files.values()}
    rec = {"role": role, "target": target, "profile": profile, "flags": list(flags), "status": "preset",
           "command": "sinpe " + shlex.join(names.get(a, a) for a in args), "exit_code": r["exit_code"],
           "verdict": verdict, "reach": "checked" if verdict in ("conforms", "fails", "inconclusive") else verdict,
           "max_abs_error": _num(js.get("max_abs_error")), "reason": js.get("reason"), "stderr": r["stderr"][:300]}
    if js.get("verdict"):
        rec.update(kind=js.get("kind", "1d"), tier=js.get("tier"), working=js.get("working"),
                   n_failures=js.get("n_failures"), unjudged=(js.get("unjudged") or {}).get("count", 0))
    worst = js.get("worst")
    if worst and worst.get("position") is not None:
        rec["worst_position"] = str(worst.get("position"))
    return rec


def _num(x):
    """JSON numbers stay numbers; a non-finite error (the checker writes the string 'inf') is null here, the
    table's non-finite rows being recorded in its facts."""
    return None if isinstance(x, str) else x


def no_preset_record(profile: str, why: str) -> dict:
    """What cannot be checked, said so: sinpe has no preset for this table (no command is run)."""
    return {"role": "intended", "target": "table", "profile": profile, "flags": [], "status": "no preset",
            "command": "", "exit_code": None, "verdict": "no preset", "reach": "no preset", "max_abs_error": None,
            "reason": why, "stderr": ""}


STRUCTURAL = {"--cls": 1, "--shape": 1, "--channels-first": 0}  # how the table is laid out, not which profile


def structural(flags: list) -> list:
    """The layout flags of a grid check (cls rows, shape), kept when checking against another profile."""
    out, i = [], 0
    while i < len(flags):
        n = STRUCTURAL.get(flags[i])
        if n is not None:
            out += flags[i:i + 1 + n]
        i += 1 + (n or 0)
    return out


def round_trip(det, files: dict, det_file: str, dtype: str) -> dict | None:
    """detect -> check: the file detect read checked against the profile `sinpe detect` named, with the flags it
    printed (REQ-DETECT-KINDS says they reproduce it); None when detect named none."""
    d = det.result()
    flags = (d.get("profile_flags") or "").split()
    if not flags:
        return None
    if flags[0] in ("--cos", "--sin"):  # a rotary reading of the cos cache: check the pair
        flags = flags[2:]
    else:  # a 1-D or grid reading: the one file detect read
        files = {"table": det_file}
    prof, rest, dtype = detected_args(flags, dtype)
    return check_record("detected", "what detect named", files, prof, rest, dtype)


def detected_args(flags: list[str], dtype: str) -> tuple[str, list[str], str]:
    """(profile, the other flags, dtype) of the check detect's flags name: its ``--dtype`` where it prints one (a
    float32 file of bfloat16 values judged in bfloat16), else the variant's ``dtype``.

    >>> detected_args(["--profile", "llama", "--dtype", "bfloat16", "--working", "native"], "float32")
    ('llama', ['--working', 'native'], 'bfloat16')
    """
    prof = flags[flags.index("--profile") + 1] if "--profile" in flags else "vaswani"
    rest = [f for i, f in enumerate(flags) if f != "--profile" and (i == 0 or flags[i - 1] != "--profile")]
    if "--dtype" in rest:  # detect's format decides: check_args would add the variant's after it, and the last wins
        i = rest.index("--dtype")
        dtype = rest[i + 1]
        del rest[i:i + 2]
    return prof, rest, dtype


def detect_record(fname: str) -> dict:
    r = sinpe(["detect", fname, "--json"])
    js = r["json"] or {}
    keep = ("kind", "profile", "profile_flags", "layout", "shift", "base", "offset", "amplitude", "zeroed_rows",
            "precision", "sentence", "nearest_preset")
    out = {"exit_code": r["exit_code"], **{k: js.get(k) for k in keep}, "stderr": r["stderr"][:300]}
    out["readings"] = {k: {"found": bool(v.get("found")), "profile": v.get("profile"),
                           "reason": v.get("reason")} for k, v in (js.get("readings") or {}).items()}
    out["summary"] = js.get("sentence") or r["stderr"][:120] or None
    return out


# ---------------------------------------------------------------- dumping


def to_numpy(t) -> np.ndarray:
    if isinstance(t, np.ndarray):
        return t
    import torch
    t = t.detach().cpu()
    if t.dtype == torch.bfloat16:
        t = t.float()  # exact: bfloat16 values held in float32, checked with --dtype bfloat16
    return t.numpy()


def save(tmp: Path, stem: str, arr: np.ndarray) -> str:
    f = tmp / f"{stem}.npy"
    np.save(f, np.ascontiguousarray(arr), allow_pickle=False)
    return str(f)


def table_facts(a: np.ndarray) -> dict:
    finite = np.isfinite(a)
    return {"shape": list(a.shape), "stored_dtype": str(a.dtype),
            "non_finite_rows": int((~finite.all(axis=1)).sum()),
            "first_non_finite_row": int(np.argmax(~finite.all(axis=1))) if not finite.all() else None}


def run_variant(case, d_kind, d, dtype, tmp: Path, pool) -> tuple[dict, list]:
    import cases
    stem = f"{case.id.replace('/', '_').replace('[', '_').replace(']', '').replace(',', '_').replace('=', '')}" \
           f"-d{d}-{dtype}"
    v = {"d": d, "d_kind": d_kind, "dtype": dtype, "n": case.n}
    try:
        table, call = case.run(d, case.n, dtype)
    except Exception as e:  # the library refused: that is the finding
        msg = str(e).strip().splitlines()[0][:200] if str(e).strip() else ""
        v.update(outcome="raises", call=getattr(e, "_call", None) or f"{case.function}(d={d}) in {dtype}",
                 error=f"{type(e).__name__}: {msg}", checks=[], detect=None)
        return v, []
    v.update(outcome="table", call=call, error=None)
    if case.kind == "rotary":
        cos, sin = (to_numpy(x) for x in table)
        v["table"] = table_facts(np.concatenate([cos, sin], axis=1))
        files = {"cos": save(tmp, stem + "-cos", cos), "sin": save(tmp, stem + "-sin", sin)}
        target, det_file, arr = "cos/sin caches", files["cos"], None
    else:
        arr = to_numpy(table)
        v["table"] = table_facts(arr)
        files = {"table": save(tmp, stem, arr)}
        target, det_file = "table", files["table"]
    jobs = []
    if case.profile in cases.NO_PRESET:
        v["_fixed"] = [no_preset_record(case.profile, cases.NO_PRESET[case.profile])]
    else:
        jobs.append(pool.submit(check_record, "intended", target, files, case.profile, case.flags, dtype))
        if dtype in ("float16", "bfloat16"):
            # the default judges a half table (1-D, grid or cache) as computed in float32 and rounded once
            # (TOL-WORKING); --working native as computed in its own format: a table that fails the first and
            # passes the second was computed in half precision
            jobs.append(pool.submit(check_record, "native", target, files, case.profile,
                                    [*case.flags, "--working", "native"], dtype))
    if case.computes is not None:  # what the code computes, where it differs from the claim (a finding)
        jobs.append(pool.submit(check_record, "computes", target, files, case.computes[0], case.computes[1], dtype))
    canon, cflags = cases.CANONICAL[case.kind]
    jobs.append(pool.submit(check_record, "canonical", target, files, canon, [*cflags, *structural(case.flags)],
                            dtype))
    det = pool.submit(detect_record, det_file)
    jobs.append(pool.submit(round_trip, det, files, det_file, dtype))
    # --profile auto (REQ-CHECK-AUTO): detect, then the check at the claimed dtype's default working precision
    auto_flags = ["--channels-first"] if "--channels-first" in case.flags else []
    jobs.append(pool.submit(check_record, "auto", target, files, "auto", auto_flags, dtype))
    if case.derive is not None and d_kind == "even":
        for i, (label, sub, prof, flags, _) in enumerate(case.derive(table)):
            f = save(tmp, f"{stem}-derived{i}", sub)
            jobs.append(pool.submit(check_record, "derived", label, {"table": f}, prof, flags, dtype))
    v["_jobs"], v["_detect"] = jobs, det
    return v, ([arr] if arr is not None else [])


def reference(tmp, case, d, n) -> np.ndarray | None:
    """Float64 table of the intended 1-D profile from `sinpe table` (for the figure)."""
    if case.kind != "1d":
        return None
    f = tmp / f"ref-{case.profile}-{'_'.join(case.flags)}-{d}-{n}.npy"
    if not f.exists():
        p = subprocess.run([SINPE, "table", "--profile", case.profile, *case.flags, "--d", str(d), "--positions",
                            f"0:{n}", "--dtype", "float64", "--out", str(f)], capture_output=True, timeout=TIMEOUT)
        if p.returncode != 0:
            return None
    return np.load(f, allow_pickle=False)


def refresh() -> int:
    """`survey/run.py --findings`: re-evaluate the findings (installed sources, committed results) and rewrite the
    reports from survey/results.json without calling any library again (errors.png is left as it is)."""
    torchvision_cpu_shim()
    import findings
    results = json.loads(report.RESULTS.read_text())
    results["findings"] = findings.evaluate(results)
    return write(results)


def write(results: dict) -> int:
    errs = report.validate(results, json.loads(report.SCHEMA.read_text()))
    if errs:
        print("results do not match the schema:\n  " + "\n  ".join(errs[:20]), file=sys.stderr)
        return 1
    report.RESULTS.write_text(json.dumps(results, indent=1, sort_keys=False) + "\n")
    (HERE / "RESULTS.md").write_text(report.results_page(results, report.load_apply()))
    readme = HERE / "README.md"  # the survey's own page (the top-level README links to it)
    readme.write_text(report.splice(readme.read_text(), report.readme_section(results)))
    return 0


def selected(all_cases: list) -> list:
    """SURVEY_ONLY=prefix,prefix: only the cases whose id starts with one of them (a partial run)."""
    only = tuple(p for p in os.environ.get("SURVEY_ONLY", "").split(",") if p)
    return [c for c in all_cases if not only or c.id.startswith(only)]


def write_partial(results: dict) -> int:
    """A partial run never touches the committed reports: its results go to SURVEY_OUT (a scratch file)."""
    out = Path(os.environ.get("SURVEY_OUT", Path(tempfile.gettempdir()) / "survey-only.json"))
    out.write_text(json.dumps(results, indent=1) + "\n")
    print(f"survey (SURVEY_ONLY): {len(results['entries'])} entries -> {out}", file=sys.stderr)
    return 0


def main() -> int:
    torchvision_cpu_shim()
    import cases
    todo = selected(cases.CASES)
    t0 = time.time()
    env = environment()
    entries, curves = [], {}
    from sinpe.reference.progress import Progress
    bar = Progress(len(todo), "survey", unit="cases")  # on a terminal only
    with tempfile.TemporaryDirectory(prefix="sinpe-survey-") as td, ThreadPoolExecutor(2) as pool:
        tmp = Path(td)
        for k, case in enumerate(todo, 1):
            bar.update(k - 1, case.id)
            entry = {"id": case.id, "library": case.library, "library_version": env["libraries"].get(case.library),
                     "function": case.function, "source": source_of(case.function), "kind": case.kind,
                     "claim": case.claim, "odd_note": case.odd_note,
                     "intended": {"profile": case.profile, "flags": case.flags,
                                  "status": "no preset" if case.profile in cases.NO_PRESET else "preset"},
                     **({"computes": {"profile": case.computes[0], "flags": case.computes[1]}} if case.computes
                        else {}),
                     "variants": []}
            plan = [("even", case.d_even, t) for t in case.dtypes]
            if case.d_odd is not None:
                plan.append(("odd", case.d_odd, "float32"))
            for d_kind, d, dtype in plan:
                v, arrs = run_variant(case, d_kind, d, dtype, tmp, pool)
                entry["variants"].append(v)
                if arrs and d_kind == "even" and dtype in ("float16", "bfloat16") and case.kind == "1d":
                    ref = reference(tmp, case, d, case.n)
                    if ref is not None and ref.shape == arrs[0].shape:
                        err = np.abs(arrs[0].astype(np.float64) - ref).max(axis=1)
                        curves[(case.id, dtype)] = err
            for v in entry["variants"]:
                if "_jobs" in v:
                    v["checks"] = [c for c in v.pop("_fixed", []) + [j.result() for j in v.pop("_jobs")] if c]
                    v["detect"] = v.pop("_detect").result()
            entries.append(entry)
    bar.update(len(todo))
    bar.close()
    results = {"schema": "survey/results.schema.json", "environment": env, "entries": entries,
               "no_preset": cases.NO_PRESET,
               "canonical": {k: {"profile": p, "flags": f} for k, (p, f) in cases.CANONICAL.items()}, "seconds": round(time.time() - t0, 1)}
    if len(todo) < len(cases.CASES):
        return write_partial(results)
    import findings
    results["findings"] = findings.evaluate(results)
    if write(results):
        return 1
    figure(curves, HERE / "errors.png")
    s = report.summary(results)
    print(f"survey: {s['functions']} functions, {s['entries']} configurations, {s['libraries']} libraries, "
          f"{s['variants']} calls in {results['seconds']} s; verdicts {s['verdicts']}", file=sys.stderr)
    return 0


def figure(curves: dict, out: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True, dpi=80)
    for ax, dtype in zip(axes, ("float16", "bfloat16"), strict=True):
        for (cid, dt), err in sorted(curves.items()):
            if dt != dtype:
                continue
            pos = np.arange(len(err))
            ax.loglog(pos[1:], np.maximum(err[1:], 1e-8), lw=0.8, label=cid.split("/", 1)[1][:34])
        ax.set_title(f"{dtype}: max |error| per position, d = 64")
        ax.set_xlabel("position")
        ax.grid(True, which="major", lw=0.3)
    axes[0].set_ylabel("max over columns of |table - exact|")
    axes[1].legend(fontsize=5, loc="lower right", ncol=2)
    fig.tight_layout()
    fig.savefig(out)


if __name__ == "__main__":
    sys.exit(refresh() if sys.argv[1:] == ["--findings"] else main())
