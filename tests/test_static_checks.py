"""What standard tools see (issue 27 item 3): every file of the package under one module name, the strict
editable install's link tree complete (the folder ``sinpe/`` that mypy, import-linter and IDEs follow), and the
gates ``make test`` runs: ruff, mypy and import-linter clean, each shown failing on a planted error."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

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
