"""Project rules that code review alone would miss (SPEC.md REQ-CHECK-INPUT: untrusted input; no ../shared), and the
ID coverage of the tests."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CODE = [p for d in ("spec", "proofs", "reference") for p in (ROOT / d).rglob("*.py")]


def test_never_unpickles():
    for p in CODE:
        text = p.read_text()
        assert "allow_pickle=True" not in text, f"{p}: allow_pickle=True"
        for m in re.finditer(r"torch\.load\(([^)]*)\)", text):
            assert "weights_only=True" in m.group(1), f"{p}: torch.load without weights_only=True"
        assert not re.search(r"\bpickle\.loads?\(", text), f"{p}: pickle.load"


def test_does_not_read_the_seed_at_run_time():
    for p in CODE:
        assert "shared/seed" not in p.read_text(), f"{p} refers to ../shared (the project must ship what it needs)"


def test_every_spec_id_is_defined_once():
    text = (ROOT / "spec" / "SPEC.md").read_text()
    defined = re.findall(r"\*\*((?:DEF|REQ|THM|TOL)-[A-Z0-9-]+)[^*]*\*\*", text)
    dupes = {i for i in defined if defined.count(i) > 1}
    assert not dupes, f"IDs defined more than once in SPEC.md: {sorted(dupes)}"


def test_every_cited_id_exists_in_spec():
    spec = (ROOT / "spec" / "SPEC.md").read_text()
    known = set(re.findall(r"\b(?:DEF|REQ|THM|TOL)-[A-Z0-9]+(?:-[A-Z0-9]+)*\b", spec))
    missing = {}
    for p in CODE + list((ROOT / "tests").rglob("*.py")):
        for i in set(re.findall(r"\b(?:DEF|REQ|THM|TOL)-[A-Z0-9]+(?:-[A-Z0-9]+)*\b", p.read_text())):
            if i not in known:
                missing.setdefault(i, p.relative_to(ROOT).as_posix())
    assert not missing, f"IDs cited in code/tests but absent from SPEC.md: {missing}"


def test_code_text_skips_comments():
    """The ID-coverage test reads strings and test names, never comments (a test of the reader itself)."""
    src = 'def test_req_api():\n    """THM-SHIFT"""\n    f("TOL-PHASE")  # REQ-CLI-EXIT\n# DEF-ODD\n'
    text = code_text(src)
    assert "THM-SHIFT" in text and "TOL-PHASE" in text and "REQ-API" in text
    assert "REQ-CLI-EXIT" not in text and "DEF-ODD" not in text


def code_text(source: str) -> str:
    """The strings (docstrings, messages, parametrize ids) and test names of a module, without its comments:
    where a test can *name* a SPEC ID (``test_req_check_repro`` reads as REQ-CHECK-REPRO)."""
    import io
    import tokenize
    out, prev = [], ""
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.STRING:
            out.append(tok.string)
        elif tok.type == tokenize.NAME and prev == "def" and tok.string.startswith("test_"):
            out.append(tok.string[5:].upper().replace("_", "-"))
        prev = tok.string if tok.type == tokenize.NAME else ""
    return "\n".join(out)


def test_every_spec_id_is_named_by_a_test():
    """A newcomer follows one ID to its tests (README, REQ-API): each SPEC ID is in a test's name, docstring or
    a string of the tests (an assertion message, a parametrize id), not only in a comment."""
    spec = (ROOT / "spec" / "SPEC.md").read_text()
    defined = dict.fromkeys(re.findall(r"\*\*((?:DEF|REQ|THM|TOL)-[A-Z0-9-]+)[^*]*\*\*", spec))
    tests = "\n".join(code_text(p.read_text()) for p in (ROOT / "tests").rglob("*.py"))
    untested = [i for i in defined if not re.search(r"\b" + re.escape(i) + r"\b", tests)]
    assert not untested, f"SPEC IDs no test names outside a comment: {untested}"


def test_tests_cite_only_files_that_exist():
    """A test module that names a project file (``*.md``, ``*.py`` under the tree) names one that exists."""
    missing = {}
    for p in (ROOT / "tests").glob("*.py"):
        for name in re.findall(r"\b([A-Z][A-Z_]+\.md)\b", p.read_text()):
            if not any((ROOT / d / name).exists() for d in (".", "spec", "survey", "docs")):
                missing.setdefault(name, p.name)
    assert not missing, f"test modules cite files that do not exist: {missing}"


DOCS = ("README.md", "spec/SPEC.md", "reference/README.md")  # not the CHANGELOG: it records renames by their old names
TREE = ("spec/", "proofs/", "reference/", "tests/", "benchmarks/", "survey/", "checking/")


def _code_paths(text: str) -> set[str]:
    """The project paths a document names in backquotes (``reference/checking/judge.py``, ``checking/scan.py``,
    ``reference/checking/`` ...): those beginning with a folder of the tree (``checking/`` is short for
    ``reference/checking/``); a library's own paths (``timm/layers/...``) are not the project's."""
    found = set()
    for quoted in re.findall(r"`([^`]+)`", text):
        path = (quoted.split() or [""])[0].split(":", 1)[0].rstrip(".,;")
        if path.startswith(TREE) and re.fullmatch(r"[\w./-]+", path) and (path.endswith((".py", "/")) or "." not in path):
            found.add("reference/" + path if path.startswith("checking/") else path)
    return found


def test_docs_name_only_code_that_exists():
    """Every module or folder of the tree that README.md, SPEC.md or reference/README.md names exists (a module
    that became a package, or was renamed, is renamed in the docs too)."""
    missing = {}
    for doc in DOCS:
        text = (ROOT / doc).read_text(encoding="utf-8")
        for path in sorted(_code_paths(text)):
            if not (ROOT / path).exists():
                missing.setdefault(doc, []).append(path)
    assert not missing, f"the docs name code that does not exist: {missing}"


def test_the_docs_path_rule_sees_a_stale_name():  # the rule above could pass on anything
    assert _code_paths("`reference/checking/rotary_read.py`, `checking/scan.py: Row`, `timm/layers/x.py`, `0.5`") \
        == {"reference/checking/rotary_read.py", "reference/checking/scan.py"}
    assert not (ROOT / "reference/checking/rotary_read.py").exists()


def test_lint_and_types_are_clean(lint_run):
    """``make lint``'s steps (helpers.LINT_STEPS, run once by the session fixture ``lint_run``): ruff, mypy and
    import-linter, as configured in pyproject.toml, report nothing. The tools are pinned in requirements.lock and
    installed by ``make``: missing, this fails (it never skips, so CI cannot pass without them). Each step is shown
    failing on a planted error in tests/test_static_checks.py."""
    for step, res in lint_run:
        assert res.returncode == 0, f"{' '.join(step)}:\n{res.stdout[-3000:]}{res.stderr[-1000:]}"
