"""The conformance survey: call each library function of survey/cases.py, dump its table, and ask
`sinpe detect` and `sinpe check` about it. Writes survey/results.json, survey/RESULTS.md, the README
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
        "torch_geometric", "keras-hub", "keras", "positional-encodings", "openai-whisper", "torch", "torchvision",
        "numpy"]


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
            "notes": ["torchvision is the PyPI CUDA build (no CPU wheel on PyPI); its two op schemas are defined "
                      "without kernels so that it imports (survey/run.py torchvision_cpu_shim)",
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


def verdict_of(r: dict) -> tuple[str, str | None]:
    """(verdict, reach) from a `sinpe check` run: the `verdict` field when the checker has one, else
    `conformant`; exit 2 on an unknown profile is 'no profile yet'."""
    js, rc = r["json"], r["exit_code"]
    if rc is None:
        return "timeout", None
    if js is not None and js.get("verdict") in ("conforms", "fails", "inconclusive"):
        return js["verdict"], None
    if js is not None and "conformant" in js:
        return ("conforms" if js["conformant"] else "fails"), None
    if rc == 2 and "invalid choice" in r["stderr"] or "unknown profile" in r["stderr"].lower():
        return "no profile yet", "no profile yet"
    if rc == 3:
        return "inconclusive", None
    return "usage-error", None


def check_record(role, target, fname, profile, flags, dtype, d, pending) -> dict:
    args = ["check", fname, "--profile", profile, *flags, "--dtype", dtype, "--json"]
    r = sinpe(args)
    verdict, reach = verdict_of(r)
    js = r["json"] or {}
    rec = {"role": role, "target": target, "profile": profile, "flags": list(flags), "status":
           "pending" if pending else "preset", "command": "sinpe " + " ".join(
               [Path(a).name if a == fname else a for a in args]), "exit_code": r["exit_code"], "verdict": verdict,
           "reach": reach or ("checked" if verdict in ("conforms", "fails", "inconclusive") else verdict),
           "max_abs_error": js.get("max_abs_error"), "reason": js.get("reason"), "stderr": r["stderr"][:300]}
    worst = js.get("worst")
    if worst:
        rec["worst_position"] = str(worst.get("position"))
    return rec


def detect_record(fname: str) -> dict:
    r = sinpe(["detect", fname, "--json"])
    js = r["json"] or {}
    keep = ("profile", "profile_flags", "layout", "shift", "base", "offset", "amplitude", "zeroed_rows",
            "precision", "sentence", "nearest_preset")
    out = {"exit_code": r["exit_code"], **{k: js.get(k) for k in keep}, "stderr": r["stderr"][:300]}
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
    pending = case.profile in __import__("cases").PENDING_PROFILES
    jobs = []
    if case.kind == "rotary":
        cos, sin = (to_numpy(x) for x in table)
        v["table"] = table_facts(np.concatenate([cos, sin], axis=1))
        fcos, fsin = save(tmp, stem + "-cos", cos), save(tmp, stem + "-sin", sin)
        jobs.append(pool.submit(check_record, "intended", "cos cache", fcos, case.profile, case.flags, dtype, d,
                                pending))
        jobs.append(pool.submit(check_record, "canonical", "sin cache", fsin, "vaswani", [], dtype, d, False))
        det_file = fsin
        arr = None
    else:
        arr = to_numpy(table)
        v["table"] = table_facts(arr)
        fname = save(tmp, stem, arr)
        jobs.append(pool.submit(check_record, "intended", "table", fname, case.profile, case.flags, dtype, d, pending))
        jobs.append(pool.submit(check_record, "canonical", "table", fname, "vaswani", [], dtype, d, False))
        det_file = fname
    det = pool.submit(detect_record, det_file)
    if case.derive is not None and d_kind == "even":
        for i, (label, sub, prof, flags, _) in enumerate(case.derive(table)):
            f = save(tmp, f"{stem}-derived{i}", sub)
            jobs.append(pool.submit(check_record, "derived", label, f, prof, flags, dtype, d, False))
    v["_jobs"], v["_detect"] = jobs, det
    return v, ([arr] if arr is not None else [])


def reference(tmp, case, d, n) -> np.ndarray | None:
    """Float64 table of the intended profile from `sinpe table` (for the figure)."""
    if case.profile in __import__("cases").PENDING_PROFILES:
        return None
    f = tmp / f"ref-{case.profile}-{'_'.join(case.flags)}-{d}-{n}.npy"
    if not f.exists():
        p = subprocess.run([SINPE, "table", "--profile", case.profile, *case.flags, "--d", str(d), "--positions",
                            f"0:{n}", "--dtype", "float64", "--out", str(f)], capture_output=True, timeout=TIMEOUT)
        if p.returncode != 0:
            return None
    return np.load(f, allow_pickle=False)


def main() -> int:
    torchvision_cpu_shim()
    import cases
    t0 = time.time()
    env = environment()
    entries, curves = [], {}
    with tempfile.TemporaryDirectory(prefix="sinpe-survey-") as td, ThreadPoolExecutor(2) as pool:
        tmp = Path(td)
        for k, case in enumerate(cases.CASES, 1):
            print(f"[{k}/{len(cases.CASES)}] {case.id}", file=sys.stderr, flush=True)
            entry = {"id": case.id, "library": case.library, "library_version": env["libraries"].get(case.library),
                     "function": case.function, "source": source_of(case.function), "kind": case.kind,
                     "claim": case.claim, "odd_note": case.odd_note,
                     "intended": {"profile": case.profile, "flags": case.flags,
                                  "status": "pending" if case.profile in cases.PENDING_PROFILES else "preset"},
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
                    v["checks"] = [j.result() for j in v.pop("_jobs")]
                    v["detect"] = v.pop("_detect").result()
            entries.append(entry)
    results = {"schema": "survey/results.schema.json", "environment": env, "entries": entries,
               "pending_profiles": cases.PENDING_PROFILES, "seconds": round(time.time() - t0, 1)}
    import findings
    results["findings"] = findings.evaluate(results)
    errs = report.validate(results, json.loads(report.SCHEMA.read_text()))
    if errs:
        print("results do not match the schema:\n  " + "\n  ".join(errs[:20]), file=sys.stderr)
        return 1
    report.RESULTS.write_text(json.dumps(results, indent=1, sort_keys=False) + "\n")
    (HERE / "RESULTS.md").write_text("# Conformance survey of real libraries\n\n" + report.render(results))
    readme = ROOT / "README.md"
    readme.write_text(report.splice(readme.read_text(), report.readme_section(results)))
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
    for ax, dtype in zip(axes, ("float16", "bfloat16")):
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
    sys.exit(main())
