"""The committed application and checkpoint-scan survey (survey/apply_results.json, issue 19 point 3): schema,
scope (at least 6 libraries in float32 and bfloat16, every control failing), and the generated sections of
survey/RESULTS.md and survey/README.md against the results.

Runs in `make test` without the survey's libraries: it reads the committed results and the standard-library renderer
survey/report.py, loaded by path (survey/ is not a package).
"""
import copy
import json
from pathlib import Path

import pytest
from helpers import survey_report

from sinpe.spec.rotary import ROTARY_PRESETS

ROOT = Path(__file__).resolve().parents[1]
report = survey_report()


@pytest.fixture(scope="module")
def ap():
    return json.loads((ROOT / "survey" / "apply_results.json").read_text())


@pytest.fixture(scope="module")
def schema():
    return json.loads((ROOT / "survey" / "apply_results.schema.json").read_text())


def test_results_match_schema(ap, schema):
    assert report.validate(ap, schema) == []


@pytest.mark.parametrize("damage", ["drop-required", "bad-enum", "extra-key", "wrong-type"])
def test_validator_rejects_damaged_results(ap, schema, damage):
    bad = copy.deepcopy(ap)
    c = bad["applications"][0]["checks"][0]
    if damage == "drop-required":
        del c["relative"]
    elif damage == "bad-enum":
        c["verdict"] = "passes"
    elif damage == "extra-key":
        bad["checkpoints"][0]["surprise"] = 1
    else:
        bad["checkpoints"][0]["tensors"] = "50"
    assert report.validate(bad, schema) != []


def test_scope_six_libraries_in_float32_and_bfloat16(ap):  # issue 19.3
    libs = {a["library"] for a in ap["applications"]
            if {c["dtype"] for c in a["checks"] if c["role"] == "claimed"} >= {"float32", "bfloat16"}}
    assert len(libs) >= 6, libs
    assert any("mrope" in " ".join(c["flags"]) or "qwen2-vl" in c["flags"] for a in ap["applications"]
               for c in a["checks"])


def test_every_check_was_judged_and_every_control_fails(ap):  # a pass means the check could have failed
    for a in ap["applications"]:
        for c in a["checks"]:
            assert c["verdict"] in ("conforms", "fails", "inconclusive"), (a["id"], c["stderr"])
            assert c["exit_code"] == {"conforms": 0, "fails": 1, "inconclusive": 3}[c["verdict"]]
            assert c["command"].startswith(f"sinpe check-apply apply_adapters:{a['target']} ")
            prof = c["flags"][c["flags"].index("--profile") + 1]
            assert prof in ROTARY_PRESETS
        control = [c for c in a["checks"] if c["role"] == "control"]
        assert control and all(c["verdict"] == "fails" for c in control), a["id"]


def test_calls_are_the_adapters_source(ap):  # the recorded call is the code check-apply ran
    src = (ROOT / "survey" / "apply_adapters.py").read_text()
    for a in ap["applications"]:
        line = a["call"].splitlines()[0]
        assert line.startswith(f"def {a['target']}(") or line.startswith(f"{a['target']} = "), line
        if line.startswith("def "):
            assert a["call"] in src


def test_checkpoint_figures(ap):
    for c in ap["checkpoints"]:
        assert c["found"] == sum(c["verdicts"].values()) and c["found"] + c["skipped"] + c["errors"] == c["tensors"]
        assert c["tensors_per_second"] and c["tensors_per_second"] > 0 and c["peak_rss_mb"] and c["peak_rss_mb"] > 0
        assert c["exit_code"] == (1 if c["verdicts"]["fails"] else 3 if c["verdicts"]["inconclusive"] or c["errors"]
                                  else 0)
        names = {t["name"] for t in c["tables"]}
        assert c["missed"] == [n for n in c["expected"] if n not in names]


def test_every_judged_checkpoint_table_records_its_plan(ap):  # REQ-SCAN: a scan row's profile_flags
    """A table the scan judged names the flags of what detect named and its unjudged share: the survey read them
    under the scan's old keys (plan, unjudged_share) and recorded null for all 13 tables."""
    tables = [t for c in ap["checkpoints"] for t in c["tables"] if t["verdict"] in ("conforms", "fails")]
    assert tables and all(t["plan"] and t["plan"].startswith("--") for t in tables), tables
    assert all(isinstance(t["unjudged_share"], (int, float)) for t in tables), tables


def test_sections_are_regenerated_text(ap):
    results = (ROOT / "survey" / "RESULTS.md").read_text()
    assert report.apply_block(ap, calls=True) in results
    readme = (ROOT / "survey" / "README.md").read_text()
    assert report.apply_block(ap, calls=False) in readme


def test_sections_change_with_results(ap):
    bad = copy.deepcopy(ap)
    bad["applications"][0]["checks"][1]["verdict"] = "fails"
    assert report.render_apply(bad) != report.render_apply(ap)
    bad = copy.deepcopy(ap)
    bad["checkpoints"][0]["peak_rss_mb"] = 1e6
    assert report.render_apply(bad) != report.render_apply(ap)
    assert report.splice_block("a\n" + report.APPLY_BEGIN + "old" + report.APPLY_END + "\nb", "NEW") == "a\nNEW\nb"
