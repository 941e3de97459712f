"""The committed conformance survey (survey/results.json): schema, profile names, README section.

Runs in `make test` without the survey's libraries: it reads the committed results and the
standard-library renderer survey/report.py, loaded by path (survey/ is not a package).
"""
import copy
import json
from pathlib import Path

import pytest
from helpers import survey_report

from sinpe.spec.grid import GRID_PRESETS
from sinpe.spec.profiles import PRESETS
from sinpe.spec.rotary import ROTARY_PRESETS

ROOT = Path(__file__).resolve().parents[1]
report = survey_report()


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


KIND_PRESETS = {"1d": PRESETS, "grid": GRID_PRESETS, "rotary": ROTARY_PRESETS}
ENTRY_KIND = {"1d": "1d", "grid2d": "grid", "grid3d": "grid", "rotary": "rotary"}


def _checks(results):
    for e in results["entries"]:
        for v in e["variants"]:
            for c in v["checks"]:
                yield e, v, c


def test_every_named_profile_exists_or_is_recorded_as_no_preset(results):  # REQ-CHECK-KINDS
    """Every profile the survey checked against is a sinpe preset of the kind the checker reported; a
    table without one names a profile listed in no_preset, with its reason."""
    no_preset = results["no_preset"]
    for e in results["entries"]:
        name, status = e["intended"]["profile"], e["intended"]["status"]
        if status == "no preset":
            assert name in no_preset and no_preset[name], e["id"]
        else:
            assert name in KIND_PRESETS[ENTRY_KIND[e["kind"]]], f"{e['id']}: {name!r} is not a {e['kind']} preset"
    for e, _v, c in _checks(results):
        if c["status"] == "preset" and c["reach"] == "checked" and c["role"] != "auto":  # auto: what detect found
            assert c["profile"] in KIND_PRESETS[c["kind"]], (e["id"], c["profile"], c["kind"])


def test_no_preset_is_honest(results):
    """What sinpe has no profile for is recorded as such: no command run, no verdict claimed."""
    seen = 0
    for e, _v, c in _checks(results):
        if c["status"] == "no preset":
            seen += 1
            assert c["verdict"] == "no preset" and c["exit_code"] is None and c["command"] == "", (e["id"], c)
            assert c["reason"] == results["no_preset"][c["profile"]]
        else:
            assert c["verdict"] != "no preset", (e["id"], c)
    # every "no preset" record is one of cases.NO_PRESET (empty since 2.0.0: every surveyed table has a preset)
    assert (seen > 0) == bool(results["no_preset"]), (seen, results["no_preset"])
    for e in results["entries"]:
        assert e["intended"]["status"] == ("no preset" if e["intended"]["profile"] in results["no_preset"] else "preset")


def test_grid_and_rotary_tables_are_checked_as_such(results):
    """Every grid/rotary table with a preset got a real verdict from the grid/rotary checker, with the
    command that reproduces it (--cos/--sin for caches)."""
    for e, v, c in _checks(results):
        if e["kind"] != "1d" and c["role"] == "intended" and c["status"] == "preset":
            assert c["reach"] == "checked" and c["kind"] == ENTRY_KIND[e["kind"]], (e["id"], v["dtype"], c)
            assert c["exit_code"] == {"conforms": 0, "fails": 1, "inconclusive": 3}[c["verdict"]]
            if e["kind"] == "rotary":
                assert " --cos " in c["command"] and " --sin " in c["command"], c["command"]


def test_every_recorded_command_is_one_that_sinpe_parses(results):
    """A recorded command is a shell command line sinpe check accepts as written: a file name with a space (a case
    id "[CogVideoX scales]", "[text positions]") is one quoted word (survey/run.py writes them with shlex.join;
    bare, 'sinpe check --cos a b-cos.npy' is 'unrecognized arguments', exit 2)."""
    import argparse
    import shlex

    from sinpe.reference.cli import check
    parser = argparse.ArgumentParser(prog="sinpe check")
    check.configure(parser)
    seen = 0
    for e, _v, c in _checks(results):
        if c["command"]:
            words = shlex.split(c["command"])
            assert words[:2] == ["sinpe", "check"] and "sinpe " + shlex.join(words[1:]) == c["command"], c["command"]
            try:
                parser.parse_args(words[2:])
            except SystemExit:
                pytest.fail(f"{e['id']}: sinpe does not parse {c['command']!r}")
            seen += 1
    assert seen > 1000


def test_half_precision_second_opinions_are_recorded(results):
    """Half-precision tables, grids and caches are also judged as computed natively (--working native);
    a float32 table is not."""
    for e in results["entries"]:
        for v in e["variants"]:
            if v["outcome"] != "table" or e["intended"]["status"] != "preset":
                continue
            roles = {c["role"] for c in v["checks"]}
            want = {"native"}
            if v["dtype"] in ("float16", "bfloat16"):
                assert want <= roles, (e["id"], v["dtype"], roles)
            else:
                assert not roles & {"native", "faithful"}, (e["id"], v["dtype"], roles)


def test_survey_reaches_its_scope(results):
    s = report.summary(results)
    assert s["functions"] >= 25 and s["libraries"] >= 10
    kinds = {e["kind"] for e in results["entries"]}
    assert kinds == {"1d", "grid2d", "grid3d", "rotary"}
    env = results["environment"]
    assert env["torch"].startswith("2.13.0") and env["sinpe_commit"]
    assert all(e["library_version"] for e in results["entries"])


def test_readme_section_is_regenerated_text(results):
    readme = (ROOT / "survey" / "README.md").read_text()
    assert report.readme_section(results) in readme
    assert (ROOT / "survey" / "RESULTS.md").read_text() == report.results_page(results, report.load_apply())
    assert report.render(results) in (ROOT / "survey" / "RESULTS.md").read_text()


def test_readme_section_changes_with_results(results):
    bad = copy.deepcopy(results)
    for c in bad["entries"][0]["variants"][0]["checks"]:
        c["verdict"] = "fails" if c["verdict"] == "conforms" else "conforms"
    assert report.readme_section(bad) not in (ROOT / "survey" / "README.md").read_text()


def test_cases_name_presets_of_their_kind():  # REQ-CHECK-KINDS: the survey's cases against sinpe's preset lists
    import sys
    sys.path.insert(0, str(ROOT / "survey"))
    try:
        import cases
    finally:
        sys.path.remove(str(ROOT / "survey"))
    for c in cases.CASES:
        if c.profile not in cases.NO_PRESET:
            assert c.profile in KIND_PRESETS[ENTRY_KIND[c.kind]], (c.id, c.profile)
    for kind, (name, _) in cases.CANONICAL.items():
        assert name in KIND_PRESETS[ENTRY_KIND[kind]], (kind, name)
    assert not set(cases.NO_PRESET) & (set(PRESETS) | set(GRID_PRESETS) | set(ROTARY_PRESETS))


def test_detect_rule_doctests():  # the rule of issue 16's detect figure, with its own examples
    import doctest
    assert doctest.testmod(report, verbose=False).failed == 0


def test_detect_names_the_right_plan_in_95_percent(results):  # issue 16 must-show, from the committed survey
    rates = report.summary(results)["detect"]
    named, total = rates["all"]
    assert total == sum(rates[k][1] for k in ("1d", "grid2d", "grid3d", "rotary")) >= 240
    assert named >= 0.95 * total, rates


def test_detect_rule_fails_a_wrong_plan(results):
    """The figure can fail: detected checks that fail with other values than the intended plan's count for nothing."""
    bad = copy.deepcopy(results)
    for e in bad["entries"]:
        for v in e["variants"]:
            for c in v.get("checks", []):
                if c["role"] == "detected":
                    c["verdict"], c["max_abs_error"] = "fails", -1.0
    assert report.summary(bad)["detect"]["all"][0] == 0


def test_the_round_trip_checks_in_the_format_detect_names():
    """survey/run.py's detect -> check round trip: detect's --dtype decides (check_args appends the variant's
    --dtype after the flags, and argparse keeps the last: a float32 file of bfloat16 values named '--profile llama
    --dtype bfloat16' was checked as float32)."""
    import importlib.util
    import sys
    saved = list(sys.path)
    try:
        spec = importlib.util.spec_from_file_location("sinpe_survey_run", Path(__file__).resolve().parents[1] / "survey" / "run.py")
        assert spec is not None and spec.loader is not None
        run = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(run)
    finally:
        sys.path[:] = saved
    prof, rest, dtype = run.detected_args(["--profile", "llama", "--dtype", "bfloat16"], "float32")
    args = run.check_args({"table": "c.npy"}, prof, rest, dtype, None)
    assert args.count("--dtype") == 1 and args[args.index("--dtype") + 1] == "bfloat16"
    assert run.detected_args(["--profile", "t2t", "--base", "500"], "float16") == ("t2t", ["--base", "500"], "float16")
