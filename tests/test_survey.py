"""The committed conformance survey (survey/results.json): schema, profile names, README section.

Runs in `make test` without the survey's libraries: it reads the committed results and the
standard-library renderer survey/report.py, loaded by path (survey/ is not a package).
"""
import copy
import importlib.util
import json
from pathlib import Path

import pytest

from sinpe.spec.profiles import PRESETS

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("sinpe_survey_report", ROOT / "survey" / "report.py")
report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(report)


@pytest.fixture(scope="module")
def results():
    return json.loads((ROOT / "survey" / "results.json").read_text())


@pytest.fixture(scope="module")
def schema():
    return json.loads((ROOT / "survey" / "results.schema.json").read_text())


def test_results_match_schema(results, schema):
    assert report.validate(results, schema) == []


@pytest.mark.parametrize("damage", ["drop-required", "bad-enum", "extra-key", "wrong-type"])
def test_validator_rejects_damaged_results(results, schema, damage):
    bad = copy.deepcopy(results)
    v = bad["entries"][0]["variants"][0]
    if damage == "drop-required":
        del v["dtype"]
    elif damage == "bad-enum":
        v["checks"][0]["verdict"] = "passes"
    elif damage == "extra-key":
        bad["entries"][0]["surprise"] = 1
    else:
        v["d"] = "64"
    assert report.validate(bad, schema) != []


def _named_profiles(results):
    for e in results["entries"]:
        yield e["id"], e["intended"]["profile"], e["intended"]["status"]
        for v in e["variants"]:
            for c in v["checks"]:
                yield e["id"], c["profile"], c["status"]


def test_every_named_profile_exists_or_is_pending(results):
    pending = results["pending_profiles"]
    for cid, name, status in _named_profiles(results):
        if status == "preset":
            assert name in PRESETS, f"{cid}: profile {name!r} is not a sinpe preset"
        else:
            assert name in pending, f"{cid}: pending profile {name!r} is not listed in pending_profiles"


def test_pending_profiles_are_honest(results):
    """A check against a pending profile never claims a verdict it could not have: until the profile
    exists, sinpe answers 'no profile yet' (exit 2); once it exists, the survey must be rerun."""
    for e in results["entries"]:
        for v in e["variants"]:
            for c in v["checks"]:
                if c["status"] == "pending" and c["profile"] not in PRESETS:
                    assert c["verdict"] == "no profile yet" and c["exit_code"] == 2, (e["id"], c)


def test_survey_reaches_its_scope(results):
    s = report.summary(results)
    assert s["functions"] >= 25 and s["libraries"] >= 10
    kinds = {e["kind"] for e in results["entries"]}
    assert kinds == {"1d", "grid2d", "rotary"}
    env = results["environment"]
    assert env["torch"].startswith("2.13.0") and env["sinpe_commit"]
    assert all(e["library_version"] for e in results["entries"])


def test_readme_section_is_regenerated_text(results):
    readme = (ROOT / "README.md").read_text()
    assert report.readme_section(results) in readme
    assert (ROOT / "survey" / "RESULTS.md").read_text().endswith(report.render(results))


def test_readme_section_changes_with_results(results):
    bad = copy.deepcopy(results)
    for c in bad["entries"][0]["variants"][0]["checks"]:
        c["verdict"] = "fails" if c["verdict"] == "conforms" else "conforms"
    assert report.readme_section(bad) not in (ROOT / "README.md").read_text()


def test_pending_names_map_to_real_presets():  # REQ-CHECK-KINDS: the survey's pending names and sinpe's presets
    import sys
    sys.path.insert(0, str(ROOT / "survey"))
    try:
        import cases
    finally:
        sys.path.remove(str(ROOT / "survey"))
    from sinpe.spec.grid import GRID_PRESETS
    from sinpe.spec.rotary import ROTARY_PRESETS
    assert set(cases.PRESET_FOR_PENDING) == set(cases.PENDING_PROFILES)
    mapped = {k: v[0] for k, v in cases.PRESET_FOR_PENDING.items() if v is not None}
    for pending, preset in mapped.items():
        assert preset in (GRID_PRESETS if pending.startswith("grid") else ROTARY_PRESETS), (pending, preset)
    assert {"grid2d-mae", "grid2d-timm", "grid2d-detr", "rope-halves", "rope-pairs"} <= set(mapped)
