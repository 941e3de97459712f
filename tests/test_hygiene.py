"""Project rules that code review alone would miss (DEVELOPERS.md): untrusted input, no ../shared."""
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


def test_every_spec_id_is_named_by_a_test():  # a newcomer follows one ID to its tests (README, REQ-API)
    spec = (ROOT / "spec" / "SPEC.md").read_text()
    defined = dict.fromkeys(re.findall(r"\*\*((?:DEF|REQ|THM|TOL)-[A-Z0-9-]+)[^*]*\*\*", spec))
    tests = "".join(p.read_text() for p in (ROOT / "tests").rglob("*.py"))
    untested = [i for i in defined if not re.search(r"\b" + re.escape(i) + r"\b", tests)]
    assert not untested, f"SPEC IDs no test names: {untested}"
