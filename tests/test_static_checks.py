"""What standard tools see (issue 27 item 3): every file of the package under one module name, the strict
editable install's link tree complete (the folder ``sinpe/`` that mypy, import-linter and IDEs follow), and the
gates ``make test`` runs: ruff, mypy and import-linter clean, each shown failing on a planted error."""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from helpers import tool

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"spec": "sinpe.spec", "proofs": "sinpe.proofs", "reference": "sinpe.reference"}


def module_names() -> dict[Path, str]:
    """Each package source file and the one module name it has (reference/api/ is the package ``sinpe``)."""
    out = {ROOT / "reference" / "api" / "__init__.py": "sinpe"}
    for folder, name in PACKAGES.items():
        for p in sorted((ROOT / folder).rglob("*.py")):
            rel = p.relative_to(ROOT / folder).with_suffix("")
            if "__pycache__" in rel.parts or rel.parts[0] == "api":
                continue
            parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
            out[p] = ".".join((name, *parts))
    return out


def _one_name_per_file(modules: dict[str, str]) -> dict[str, list[str]]:
    """``{real path: [names]}`` of the files under the repository loaded under more than one name."""
    names: dict[str, list[str]] = {}
    for name, file in modules.items():
        names.setdefault(os.path.realpath(file), []).append(name)
    ours = tuple(str(ROOT / folder) + os.sep for folder in PACKAGES)
    return {f: sorted(n) for f, n in names.items() if len(n) > 1 and f.startswith(ours)}


_IMPORT_ALL = """
import importlib, json, sys
loaded, refused = [], {}
for name in json.loads(sys.argv[1]):
    importlib.import_module(name)
for name in ("spec", "proofs", "reference", "sinpe.reference.api", "spec.definition", "reference.checking"):
    try:
        importlib.import_module(name)
        refused[name] = None
    except ImportError as e:
        refused[name] = str(e)
print(json.dumps({"path": sys.path, "refused": refused,
                  "modules": {n: m.__file__ for n, m in list(sys.modules.items()) if getattr(m, "__file__", None)}}))
"""


def test_every_module_file_is_loaded_under_one_name():
    """With the repository root first on sys.path (as ``python -m pytest`` and ``python -m sinpe...`` put it),
    every module of the package imports under its ``sinpe`` name, ``import spec`` / ``reference`` / ``proofs`` /
    ``sinpe.reference.api`` are refused (one line naming the right name), and no file is loaded twice."""
    names = sorted(n for n in module_names().values() if not n.endswith("__main__"))
    res = subprocess.run([sys.executable, "-c", _IMPORT_ALL, json.dumps(names)], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    got = json.loads(res.stdout.strip().splitlines()[-1])
    assert got["path"][0] in ("", str(ROOT)), got["path"][:3]  # the root is importable from: the guards matter
    for name, error in got["refused"].items():
        assert error and "is the package sinpe" in error, f"import {name} from the repository root: {error!r}"
    assert not _one_name_per_file(got["modules"]), _one_name_per_file(got["modules"])
    assert len(names) > 100


def test_this_test_session_loads_each_file_once():
    """The pytest process itself (its sys.path: tests/, the root under ``python -m pytest``): nothing it has
    imported so far is one file under two names."""
    modules = {n: m.__file__ for n, m in list(sys.modules.items()) if getattr(m, "__file__", None)}
    assert not _one_name_per_file(modules)
    assert "spec" not in sys.modules and "reference" not in sys.modules and "proofs" not in sys.modules


def test_the_one_name_check_sees_a_second_name():
    """The checker of the two tests above finds a file loaded twice (its own negative case)."""
    f = str(ROOT / "spec" / "grid.py")
    assert _one_name_per_file({"sinpe.spec.grid": f, "spec.grid": f}) == {f: ["sinpe.spec.grid", "spec.grid"]}
    assert not _one_name_per_file({"sinpe.spec.grid": f})


def test_the_link_tree_has_every_module():
    """The installed ``sinpe`` folder (``make``: a strict editable install, links under build/) holds every source
    file under its module's path, each link naming its source: what mypy, import-linter and an IDE see. A module
    added since the install is missing until ``make`` re-runs the install (it does when the set of files changes)."""
    spec = importlib.util.find_spec("sinpe")
    assert spec is not None and spec.submodule_search_locations
    tree = Path(list(spec.submodule_search_locations)[0])
    missing, wrong = [], []
    for src, name in module_names().items():
        parts = name.split(".")[1:]
        dest = tree.joinpath(*parts, "__init__.py") if src.name == "__init__.py" else tree.joinpath(*parts[:-1], parts[-1] + ".py")
        if not dest.exists():
            missing.append(src.relative_to(ROOT).as_posix())
        elif dest.is_symlink() and os.path.realpath(dest) != str(src):
            wrong.append(f"{dest} -> {os.path.realpath(dest)}")
    assert not missing, (f"{len(missing)} modules are not in the installed tree {tree} (not a strict editable install, "
                         f"or files added since it ran; run `make`, or add a new package to pyproject.toml): {missing[:8]}")
    assert not wrong, wrong[:5]
    assert (tree / "py.typed").is_file()


# --- the gates of `make lint` (run by `make test` inside pytest), each shown failing on a planted error --------

def _copy_sources(dest: Path) -> None:
    """The repository's Python files and pyproject.toml (what ruff reads), without the data."""
    for p in ROOT.rglob("*.py"):
        rel = p.relative_to(ROOT)
        if rel.parts[0] in (".venv", ".venv-survey", "build") or "__pycache__" in rel.parts:
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_bytes(p.read_bytes())
    (dest / "pyproject.toml").write_bytes((ROOT / "pyproject.toml").read_bytes())


def _package_tree(dest: Path) -> Path:
    """A copy of the installed ``sinpe`` folder (every module, links resolved) under ``dest``: what mypy and
    import-linter read, here editable without touching the sources."""
    for src, name in module_names().items():
        parts = name.split(".")
        out = dest.joinpath(*parts, "__init__.py") if src.name == "__init__.py" else dest.joinpath(*parts[:-1], parts[-1] + ".py")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(src.read_bytes())
    (dest / "sinpe" / "py.typed").touch()
    return dest / "sinpe"


def _plant(path: Path, line: str) -> int:
    """Insert ``line`` after the module's ``from __future__`` import; returns its line number."""
    text = path.read_text()
    cut = text.index("from __future__ import annotations\n") + len("from __future__ import annotations\n")
    path.write_text(text[:cut] + line + "\n" + text[cut:])
    return text[:cut].count("\n") + 1


def test_make_test_runs_the_steps_of_make_lint():
    """``make lint``'s recipe is ruff, mypy and lint-imports, step for step helpers.LINT_STEPS, which ``make test``'s
    pytest runs (conftest.lint_run, asserted clean by test_hygiene); the pre-commit hooks call the same pinned tools,
    offline (local hooks)."""
    from helpers import LINT_STEPS
    make = (ROOT / "Makefile").read_text()
    test = make.split("\ntest: $(STAMP)\n", 1)[1].split("\n\n", 1)[0]
    assert "$(BIN)/python -m pytest" in test, test
    recipe = make.split("\nlint: $(STAMP)\n", 1)[1].split("\n\n", 1)[0]
    assert [line.strip().removeprefix("$(BIN)/").split() for line in recipe.splitlines()] == [list(s) for s in LINT_STEPS]
    hooks = (ROOT / ".pre-commit-config.yaml").read_text()
    assert "repo: local" in hooks and "http" not in hooks.split("repos:", 1)[1]
    for entry in (".venv/bin/ruff check", ".venv/bin/mypy\n", ".venv/bin/mypy benchmarks\n", ".venv/bin/lint-imports\n"):
        assert f"entry: {entry}" in hooks, entry
    lock = (ROOT / "requirements.lock").read_text()
    assert all(f"\n{name}==" in lock for name in ("ruff", "mypy", "import-linter"))


def test_ruff_fails_on_a_planted_unused_import(tmp_path):
    """``ruff check .`` (the lint step) on a copy of the tree: clean, then exit 1 naming a planted unused import
    (F401) and a planted mis-sorted import block (I001) in package code."""
    _copy_sources(tmp_path)
    ok = subprocess.run([tool("ruff"), "check", "--no-cache", "."], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stdout[-2000:]
    _plant(tmp_path / "spec" / "grid.py", "import os")
    _plant(tmp_path / "reference" / "progress.py", "import time\nimport sys")
    bad = subprocess.run([tool("ruff"), "check", "--no-cache", "--output-format", "concise", "."], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1, bad.stdout[-2000:]
    assert "spec/grid.py" in bad.stdout and "F401" in bad.stdout and "reference/progress.py" in bad.stdout and "I001" in bad.stdout


def _mypy(tmp_path: Path, target: Path) -> list[str]:
    """mypy as configured (pyproject.toml) on ``target``, with a cache in ``tmp_path``: a copy of the one the session's
    lint steps left (the standard library's and torch's analysis; a copy, never shared)."""
    if (ROOT / ".mypy_cache").is_dir():
        shutil.copytree(ROOT / ".mypy_cache", tmp_path / ".cache")
    return [tool("mypy"), "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(tmp_path / ".cache"), str(target)]


def test_mypy_fails_on_a_planted_type_error(tmp_path, lint_run):
    """mypy as configured (pyproject.toml) on a copy of the package with one wrong annotation: exit 1, naming it.
    (``lint_run``: after the session's lint steps, whose .mypy_cache it copies.)"""
    tree = _package_tree(tmp_path)
    target = tree / "reference" / "progress.py"
    env = {**os.environ, "MYPYPATH": str(tmp_path)}
    cmd = _mypy(tmp_path, target)
    ok = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0, ok.stdout[-2000:] + ok.stderr[-1000:]
    line = _plant(target, 'WIDTH: int = "wide"')
    res = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 1, res.stdout[-2000:] + res.stderr[-1000:]
    assert f"progress.py:{line}: error: Incompatible types in assignment" in res.stdout, res.stdout[-2000:]


TORCH_CALLS = """\
import numpy as np
import torch

t = torch.from_numpy(np.zeros(3))
t0: str = t
t1: str = torch.zeros(1, 2, 3)
t2: str = torch.arange(3)
t3: str = torch.sin(t) + torch.cos(t)
t4: str = torch.cat([t, t])
t5: str = torch.equal(t, t)
t6: str = torch.tensor([1.0])
t7: str = t.to(torch.float32)
t8: str = t.to("cpu")
t9: str = torch.no_grad()
t10: str = torch.nn.Module()
t11: str = t.layout
t12: str = torch.bfloat16
t.to(device=b"cpu")
"""


def test_mypy_types_the_torch_calls_the_package_makes(tmp_path, lint_run):
    """mypy as configured (pyproject.toml follows none of torch's internals) still types the torch calls the package
    makes: each of them given a wrong type is an error on its own line, and so is a device of the wrong type."""
    target = tmp_path / "torch_calls.py"
    target.write_text(TORCH_CALLS)
    cmd = _mypy(tmp_path, target)
    res = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    wrong = [i for i, line in enumerate(TORCH_CALLS.splitlines(), 1) if line.startswith("t") and ": str = " in line]
    errors = {int(line.split(":")[1]) for line in res.stdout.splitlines() if ": error: " in line}
    assert res.returncode == 1 and errors == {*wrong, len(TORCH_CALLS.splitlines())}, res.stdout[-3000:]


def test_mypy_over_benchmarks_fails_on_a_name_the_api_no_longer_has(tmp_path, lint_run):
    """``mypy benchmarks`` (a lint step: ``make bench`` is not run by ``make test``) on a copy of a benchmark that
    reads a name the golden package no longer exports (bench_golden read vectors.PRESETS after the package split
    and failed only when someone ran make bench): exit 1, naming it."""
    target = tmp_path / "bench_golden.py"
    shutil.copy(ROOT / "benchmarks" / "bench_golden.py", target)
    cmd = _mypy(tmp_path, target)
    ok = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0, ok.stdout[-2000:] + ok.stderr[-1000:]
    with target.open("a") as fh:
        fh.write("\n\nfrom sinpe.reference.golden import vectors as _G  # noqa: E402\n_NAMES = list(_G.PRESETS)\n")
    res = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert res.returncode == 1 and 'has no attribute "PRESETS"' in res.stdout, res.stdout[-2000:]


def _lint_imports(tmp_path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}  # the copy is the package sinpe grimp finds first
    return subprocess.run([tool("lint-imports"), "--config", str(ROOT / "pyproject.toml"), "--no-cache"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)


def test_lint_imports_fails_on_a_planted_upward_import_and_a_cycle(tmp_path):
    """The import-linter contracts on a copy of the package: kept as shipped; broken by an upward import (spec ->
    the command line) and by a cycle between two modules of one package (spec.profiles <-> spec.definition)."""
    tree = _package_tree(tmp_path)
    kept = _lint_imports(tmp_path)
    assert kept.returncode == 0 and "0 broken" in kept.stdout, kept.stdout[-3000:]
    _plant(tree / "spec" / "grid.py", "import sinpe.reference.cli")
    upward = _lint_imports(tmp_path)
    assert upward.returncode == 1, upward.stdout[-3000:]
    assert "sinpe.spec is not allowed to import sinpe.reference.cli" in upward.stdout, upward.stdout[-3000:]
    (tree / "spec" / "grid.py").write_bytes((ROOT / "spec" / "grid.py").read_bytes())
    assert "from .profiles import" in (tree / "spec" / "definition.py").read_text()  # definition -> profiles, so:
    _plant(tree / "spec" / "profiles.py", "import sinpe.spec.definition")
    cycle = _lint_imports(tmp_path)
    assert cycle.returncode == 1, cycle.stdout[-3000:]
    assert "No cycles are allowed in sinpe.spec" in cycle.stdout, cycle.stdout[-3000:]


def test_lint_imports_fails_on_a_cycle_inside_checking(tmp_path):
    """checking/ is under the acyclic contract too: a planted import back from the lowest module (loaded.py) to one
    that imports it (loaders.py) is a cycle between two modules of sinpe.reference.checking, and is refused."""
    tree = _package_tree(tmp_path)
    assert "from sinpe.reference.checking.loaded import" in (tree / "reference" / "checking" / "loaders.py").read_text()
    _plant(tree / "reference" / "checking" / "loaded.py", "import sinpe.reference.checking.loaders")
    cycle = _lint_imports(tmp_path)
    assert cycle.returncode == 1, cycle.stdout[-3000:]
    assert "No cycles are allowed in sinpe.reference.checking" in cycle.stdout, cycle.stdout[-3000:]


def test_lint_imports_fails_when_a_module_but_the_door_imports_the_kinds(tmp_path):
    """Only the door imports checking/kinds/ (the checking-kinds contract): scan.py sits above the kinds in
    checking's layers, so only that contract refuses its planted import of a kind; a planted import of the door
    from a low layer (gguf_rope.py, which imports nothing of checking: no cycle) breaks checking's layers."""
    tree = _package_tree(tmp_path)
    _plant(tree / "reference" / "checking" / "scan.py", "import sinpe.reference.checking.kinds.grid")
    kinds = _lint_imports(tmp_path)
    said = " ".join(kinds.stdout.split())  # (the report wraps its lines)
    assert kinds.returncode == 1, kinds.stdout[-3000:]
    assert "sinpe.reference.checking.scan is not allowed to import sinpe.reference.checking.kinds:" in said, said[-3000:]
    assert "Contracts: 5 kept, 1 broken." in said, said[-3000:]
    (tree / "reference" / "checking" / "scan.py").write_bytes((ROOT / "reference" / "checking" / "scan.py").read_bytes())
    _plant(tree / "reference" / "checking" / "gguf_rope.py", "import sinpe.reference.checking.check")
    upward = _lint_imports(tmp_path)
    said = " ".join(upward.stdout.split())
    assert upward.returncode == 1, upward.stdout[-3000:]
    assert "sinpe.reference.checking.gguf_rope is not allowed to import sinpe.reference.checking.check:" in said, said[-3000:]
    assert "Contracts: 5 kept, 1 broken." in said, said[-3000:]


def test_the_kinds_contract_names_every_module_of_checking_but_the_door_and_the_kinds():
    """The checking-kinds contract lists its source modules one by one (the door is a sibling it must leave out):
    the list is every module and subpackage of reference/checking/ except door/ and kinds/, so a new module is
    covered the day it is added (checking's layers contract is exhaustive: it must be placed there too)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: import-linter's own dependency
        import tomli as tomllib
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    (kinds,) = [c for c in contracts if c["id"] == "checking-kinds"]
    folder = ROOT / "reference" / "checking"
    children = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"} | \
        {p.parent.name for p in folder.glob("*/__init__.py")}
    want = set()
    for name in children - {"door", "kinds"}:
        want.add(f"sinpe.reference.checking.{name}")
        if (folder / name).is_dir():
            want.add(f"sinpe.reference.checking.{name}.**")
    assert set(kinds["source_modules"]) == want
    assert kinds["forbidden_modules"] == ["sinpe.reference.checking.kinds"] and {"door", "kinds"} <= children
