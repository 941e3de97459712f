"""Every kind through every door (SPEC.md REQ-CHECK-KINDS, REQ-DETECT-KINDS, REQ-CHECK-AUTO, REQ-API,
DEF-ROPE-FREQ-EXPLICIT): 1-D tables, 2-D grids and rotary caches through `sinpe check`, `sinpe detect`,
`sinpe grid|rotary` (aliases) and `sinpe.check`/`sinpe.detect`, with the same detection, verdicts and JSON keys.
Reproduce: python -m pytest tests/test_check_doors.py
"""
from __future__ import annotations

import json
import shlex
from pathlib import Path

import library_formulas as L
import numpy as np
import pytest
from test_loaders import assert_one_line_exit_2, run_clean

import sinpe

F16 = np.float16


def _timm_in_float16(dim: int, n: int) -> np.ndarray:
    """timm's grid with its bands and products in float16 (a half-precision evaluation, not a rounded float32 one)."""
    bands = (1.0 / 10000.0 ** (np.arange(dim // 4) / (dim // 4))).astype(F16)
    grid = np.stack(np.meshgrid(np.arange(n).astype(F16), np.arange(n).astype(F16), indexing="ij")).reshape(2, -1).T
    pos2 = grid[:, :, None] * bands[None, None, :]
    return np.stack([np.sin(pos2), np.cos(pos2)], axis=1).reshape(n * n, -1).astype(F16)


@pytest.fixture()
def files(tmp_path):
    np.save(tmp_path / "timm.npy", L.timm_2d(32, (6, 6)))
    bad = L.timm_2d(32, (6, 6))
    bad[20, 5] += 1e-3  # one perturbed entry
    np.save(tmp_path / "timm_bad.npy", bad)
    np.save(tmp_path / "timm16.npy", _timm_in_float16(32, 6))
    np.save(tmp_path / "mae.npy", L.mae_2d(32, 6, cls=True).astype(np.float32))
    c, s = L.rope_cache(L.inv_freq_default(32), 200)
    np.save(tmp_path / "cos.npy", c)
    np.save(tmp_path / "sin.npy", s)
    s_bad = s.copy()
    s_bad[150, 3] = -s_bad[150, 3]
    np.save(tmp_path / "sin_bad.npy", s_bad)
    np.save(tmp_path / "inv_freq.npy", L.inv_freq_default(32))
    from sinpe.reference.tables import table
    np.save(tmp_path / "t2t.npy", table("t2t", 32, 64, "float32"))
    return tmp_path


def _json(res):
    return json.loads(res.stdout)


# --- 1. --profile auto: the detection of sinpe detect, for every kind ------------------------------------

@pytest.mark.parametrize("name, profile", [("timm.npy", "timm"), ("mae.npy", "mae")])
def test_auto_checks_the_grid_detect_names(files, name, profile):
    det = _json(run_clean(files, "detect", name, "--json"))
    res = run_clean(files, "check", name, "--profile", "auto", "--json")
    assert res.returncode == 0, res.stdout + res.stderr
    out = _json(res)
    assert (out["kind"], out["profile"], out["profile_source"]) == ("grid", profile, "detected")
    assert det["profile"] == profile and out["detected"]["profile_flags"] == det["profile_flags"]
    assert out["notes"][0].startswith("--profile auto: checked against what detect found: --profile " + profile)


def test_auto_is_no_free_pass_for_grids(files):
    assert run_clean(files, "check", "timm_bad.npy", "--profile", "auto").returncode == 1  # one entry off
    assert run_clean(files, "check", "timm_bad.npy", "--profile", "timm").returncode == 1
    half = run_clean(files, "check", "timm16.npy", "--profile", "auto", "--json")  # computed in float16
    assert half.returncode == 1 and _json(half)["verdict"] == "fails"


def test_auto_checks_rotary_caches(files):
    res = run_clean(files, "check", "--cos", "cos.npy", "--sin", "sin.npy", "--profile", "auto", "--json")
    assert res.returncode == 0, res.stdout + res.stderr
    out = _json(res)
    assert (out["kind"], out["profile"], out["profile_source"]) == ("rotary", "llama", "detected")
    one = _json(run_clean(files, "check", "sin.npy", "--profile", "auto", "--json"))  # a table read as a sin cache
    assert (one["kind"], one["verdict"], set(one["parts"])) == ("rotary", "conforms", {"sin"})
    assert run_clean(files, "check", "--cos", "cos.npy", "--sin", "sin_bad.npy", "--profile", "auto").returncode == 1
    assert_one_line_exit_2(run_clean(files, "check", "--cos", "cos.npy", "--profile", "auto", "--factor", "2"),
                           "drop --factor")


def test_auto_still_checks_1d_tables(files):
    out = _json(run_clean(files, "check", "t2t.npy", "--profile", "auto", "--json"))
    assert (out["kind"], out["profile"], out["verdict"], out["profile_source"]) == ("1d", "t2t", "conforms", "detected")


# --- 2. sinpe detect takes caches --------------------------------------------------------------------------

def test_detect_takes_caches(files):
    res = run_clean(files, "detect", "--cos", "cos.npy", "--sin", "sin.npy", "--json")
    assert res.returncode == 0, res.stdout + res.stderr
    out = _json(res)
    assert (out["kind"], out["profile"], out["readings"]["rotary"]["dim"]) == ("rotary", "llama", 32)
    assert out["profile_flags"] == "--profile llama"
    np.save(files / "noise.npy", np.random.default_rng(2).uniform(-1, 1, (50, 32)))
    none = run_clean(files, "detect", "--cos", "noise.npy", "--json")
    assert none.returncode == 1 and _json(none)["profile"] is None
    assert run_clean(files, "detect", "--cos", "cos.npy", "--profile", "gptj").returncode == 1  # not what was asked
    one = run_clean(files, "detect", "sin.npy")  # a table read as the sin cache: the flags say so
    assert one.returncode == 0 and "check with: sinpe check --sin sin.npy --profile llama" in one.stdout


def test_the_check_with_line_reads_the_table_as_detect_did(files):  # REQ-DETECT-CLI: the round trip
    """Rows at positions from a file: the line detect prints carries --positions (it named the cache on those
    rows), and the check it prints conforms; without them it would judge the rows at 0, 1, 2... and fail."""
    c, s = L.rope_cache(L.inv_freq_default(32), 200)
    pos = np.array([0, 3, 4, 5, 6, 7, 8, 9, 10, 40, 41, 42, 43, 44, 45, 46, 47, 90, 91, 92, 93, 94, 150, 199])
    np.save(files / "sub.npy", c[pos])
    np.save(files / "pos.npy", pos)
    res = run_clean(files, "detect", "--cos", "sub.npy", "--positions", "pos.npy")
    assert res.returncode == 0, res.stdout + res.stderr
    line = next(x for x in res.stdout.splitlines() if "check with:" in x).split("sinpe check ", 1)[1]
    assert "--positions pos.npy" in line, line
    assert run_clean(files, "check", *shlex.split(line)).returncode == 0
    dropped = shlex.split(line.replace("--positions pos.npy", ""))
    assert run_clean(files, "check", *dropped).returncode == 1  # the line the previous code printed


def _check_line(res) -> str:
    lines = [x for x in res.stdout.splitlines() if "check with:" in x]
    assert len(lines) == 1, res.stdout + res.stderr
    return lines[0].split("sinpe check ", 1)[1]


@pytest.mark.parametrize("name", ["my cos.npy", "it's.npy", "odd\x1b[31mname.npy"])
def test_the_check_with_line_runs_as_printed_whatever_the_file_name(files, name):  # REQ-DETECT-CLI, REQ-CLI-EXIT
    """Each file name one shell word: a space or a quote in single quotes, a control character (printed escaped)
    in ANSI-C quotes, which bash gives back as the name (the previous line printed the name bare: 'sinpe check
    --cos my cos.npy ...' is exit 2, unrecognized arguments)."""
    import shutil
    import subprocess
    (files / name).write_bytes((files / "cos.npy").read_bytes())
    np.save(files / "pos 0.npy", np.arange(200))
    line = _check_line(run_clean(files, "detect", "--cos", name, "--positions", "pos 0.npy"))
    assert line.isprintable(), line
    if "\x1b" not in name:
        words = shlex.split(line)
    elif shutil.which("bash"):
        out = subprocess.run(["bash", "-c", f'for w in {line}; do printf "%s\\0" "$w"; done'], capture_output=True)
        words = [w.decode() for w in out.stdout.split(b"\0")[:-1]]
    else:
        pytest.skip("no bash to read ANSI-C quotes")
    assert words[:2] == ["--cos", name] and "pos 0.npy" in words, words
    assert run_clean(files, "check", *words).returncode == 0


def test_a_check_with_line_only_where_the_check_reads_what_detect_read(files):  # REQ-DETECT-CLI, REQ-CHECK-SELECT
    """A flag the check of the kind named refuses is not printed: --d of a file read as a cache read nothing else
    (left out; the line conforms); --rows chose the rows a cache was named on, and a cache is checked whole, so
    detect says there is no such check (the previous line carried --rows: exit 2 'does not apply to a rotary
    cache'); with --cos/--sin or --shape, where detect read the whole file and ignored them, they are refused as the
    check refuses them, by detect and by --profile auto (which judged all 200 rows of a cache asked for 10:50, as it
    did for a table read as a cache)."""
    c = np.load(files / "cos.npy")
    c[:10] = 0.5
    np.save(files / "cos_head_bad.npy", c)  # rows 10.. are llama's, rows 0..9 are not
    line = _check_line(run_clean(files, "detect", "cos.npy", "--d", "32"))
    assert "--d" not in line and run_clean(files, "check", *shlex.split(line)).returncode == 0
    res = run_clean(files, "detect", "cos_head_bad.npy", "--rows", "10:50")
    assert res.returncode == 0 and "(preset llama)" in res.stdout and "check with:" not in res.stdout, res.stdout
    assert "no check line: --rows selected the entries detect read" in res.stdout, res.stdout
    # --profile auto judged the whole file there: rows 0..9, left out, failed it (exit 1)
    assert_one_line_exit_2(run_clean(files, "check", "cos_head_bad.npy", "--rows", "10:50", "--profile", "auto"),
                           "--rows chose the entries detect read as a rotary cache")
    for args in (("detect", "--cos", "cos_head_bad.npy", "--rows", "10:50"), ("detect", "--sin", "sin.npy", "--d", "32"),
                 ("check", "--cos", "cos_head_bad.npy", "--rows", "10:50", "--profile", "auto")):
        assert_one_line_exit_2(run_clean(files, *args), f"{args[3]} does not apply to a rotary cache")
    for cmd in ("detect", "check"):
        assert_one_line_exit_2(run_clean(files, cmd, "timm.npy", "--shape", "6x6", "--positions", "0:36",
                                         *(("--profile", "auto") if cmd == "check" else ())),
                               "--positions does not apply to a 2-D grid")


def _narrow_values(a: np.ndarray, fmt: str) -> np.ndarray:
    """``a`` rounded to ``fmt`` and stored in the next wider format: float16 and bfloat16 values as float32 (what
    sinpe's own ``table(..., "bfloat16")`` returns, a half-precision cache or grid saved as float32), float32 values
    as float64 (transformers' rotary caches computed in float32 and cast to a float64 model)."""
    import ml_dtypes

    if fmt == "float32":
        return a.astype(np.float32).astype(np.float64)
    return a.astype(ml_dtypes.bfloat16 if fmt == "bfloat16" else F16).astype(np.float32)


@pytest.mark.parametrize("fmt", ["bfloat16", "float16", "float32"])
@pytest.mark.parametrize("what, flag", [("cos", "--cos"), ("sin", "--sin"), ("timm", None)])
def test_the_check_with_line_judges_narrow_values_as_detect_did(files, what, flag, fmt):  # REQ-DETECT-ROPE
    """A file of values of a narrower format (half values in float32, float32 values in float64) read as a cache or
    a grid from the table (``sinpe detect FILE``): detect judges it in the narrowest format holding its values, so
    the line it prints carries ``--dtype`` and conforms as detect's check did (the previous line had no --dtype: the
    check judged the file's format and failed, 6082 of 6400 entries of the bfloat16 cos cache, 780 of 1152 of the
    grid; with --cos the flag was printed). The JSON's profile_flags and the API's carry it too, and ``--profile
    auto`` checks that claim (it judged the file's format and failed)."""
    np.save(files / "half.npy", _narrow_values(np.load(files / f"{what}.npy"), fmt))
    for args in (("half.npy",), *((("--cos", "half.npy"),) if what == "cos" else ())):
        res = run_clean(files, "detect", *args)
        assert res.returncode == 0, res.stdout + res.stderr
        line = _check_line(res)
        assert f" --dtype {fmt}" in f" {line} " and (flag is None or line.startswith(f"{flag} half.npy")), line
        assert run_clean(files, "check", *shlex.split(line)).returncode == 0, line
        js = _json(run_clean(files, "detect", *args, "--json"))
        assert f"--dtype {fmt}" in js["profile_flags"], js["profile_flags"]
        auto = _json(run_clean(files, "check", *args, "--profile", "auto", "--json"))  # the claim detect judged
        assert (auto["verdict"], auto["dtype"]) == ("conforms", fmt), (auto["verdict"], auto["dtype"])
    assert run_clean(files, "check", *shlex.split(line.replace(f"--dtype {fmt}", ""))).returncode == 1  # the file's
    assert f"--dtype {fmt}" in sinpe.detect(str(files / "half.npy")).profile_flags
    assert f"--dtype {fmt}" in sinpe.detect(files / "half.npy", dtype=fmt).profile_flags  # asked: said as well


def test_a_sin_cache_alone_is_read_at_any_first_position(files):  # REQ-DETECT-ROPE
    """A sin cache whose first positive position is 3: arcsin reads p w only below pi/2, so the frequencies are
    compared there (w_0 = 1 rad at p = 3 was read as 0.14/3 and every candidate was filtered out: exit 1)."""
    _, s = L.rope_cache(L.inv_freq_default(32), 200)
    pos = np.array([0, 3, 4, 5, 6, 7, 8, 9, 10, 40, 41, 42, 90, 91, 92, 150, 199])
    np.save(files / "sub_sin.npy", s[pos])
    np.save(files / "pos_sin.npy", pos)
    res = run_clean(files, "detect", "--sin", "sub_sin.npy", "--positions", "pos_sin.npy")
    assert res.returncode == 0 and "(preset llama)" in res.stdout, res.stdout + res.stderr


# --- 3. the Python API takes every kind and every flag ------------------------------------------------------

def test_api_checks_grids_and_caches(files):
    mae = np.load(files / "mae.npy")
    r = sinpe.check(mae, "mae", cls=1)
    assert (r.verdict, r.conformant, r.exit_code, r.kind) == ("conforms", True, 0, "grid")
    bad = mae.copy()
    bad[9, 3] += 1e-3
    assert sinpe.check(bad, "mae", cls=1).verdict == "fails"
    with pytest.raises(ValueError, match="37 grid rows are not a square"):  # the cls row not named
        sinpe.check(mae, "mae")
    inv, att = L.inv_freq_yarn(64, 10000.0, 4.0, 2048)
    c, s = L.rope_cache(inv, 512, scaling=att)
    r = sinpe.check(cos=c, sin=s, profile="llama", rule="yarn", factor=4, original_max=2048)
    assert (r.verdict, r.kind, set(r.parts)) == ("conforms", "rotary", {"cos", "sin"})
    assert sinpe.check(cos=c, sin=s, profile="llama", rule="yarn", factor=8, original_max=2048).verdict == "fails"
    assert sinpe.check(str(files / "timm.npy"), "auto").profile == "timm"
    with pytest.raises(ValueError, match="does not apply to a 2-D grid"):
        sinpe.check(mae, "mae", amplitude=2)
    with pytest.raises(TypeError, match="unknown argument"):
        sinpe.check(mae, "mae", colour=1)


def test_api_detects_every_kind(files):
    assert sinpe.detect(np.load(files / "timm.npy")).kind == "grid"
    found = sinpe.detect(cos=np.load(files / "cos.npy"), sin=np.load(files / "sin.npy"))
    assert (found.kind, found.profile, found.exit_code) == ("rotary", "llama", 0)
    t2t = sinpe.detect(np.load(files / "t2t.npy"))
    assert (t2t.kind, t2t.profile, t2t.layout) == ("1d", "t2t", "sin-cos")  # the Detection's attributes too


# --- 4. explicit frequencies -------------------------------------------------------------------------------

def test_explicit_frequencies_from_the_cli_and_the_api(files):
    ok = run_clean(files, "check", "--cos", "cos.npy", "--sin", "sin.npy", "--freqs", "inv_freq.npy", "--json")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert _json(ok)["reproduce"].endswith("--rule explicit --freqs inv_freq.npy")
    inv = L.inv_freq_default(32).astype(np.float64)
    listed = ",".join(repr(float(w)) for w in inv)
    assert run_clean(files, "check", "--cos", "cos.npy", "--rule", "explicit", "--freqs", listed).returncode == 0
    wrong = inv.copy()
    wrong[3] *= 1.001
    assert run_clean(files, "check", "--cos", "cos.npy", "--freqs",
                     ",".join(repr(float(w)) for w in wrong)).returncode == 1
    c = np.load(files / "cos.npy")
    assert sinpe.check(cos=c, freqs=inv.tolist()).verdict == "conforms"
    assert sinpe.check(cos=c, freqs=wrong.tolist()).verdict == "fails"


@pytest.mark.parametrize("freqs, words", [
    ("1,0.1,0.01", ("3 explicit frequencies need dim 6",)),
    ("1,nan", ("frequency 2",)),
    ("1,0,2", ("frequency 2 is 0", "positive")),
    ("1,-1e-3", ("frequency 2 is -1/1000",)),
    ("obj.npy", ("a 1-D float array is needed",)),
    ("big.npy", ("70000 frequencies; at most 65536",)),
    (",".join(["1"] * 70000), ("more than 65536",)),
])
def test_explicit_frequencies_are_validated(files, freqs, words):
    np.save(files / "obj.npy", np.array([1, "a"], dtype=object), allow_pickle=True)
    np.save(files / "big.npy", np.ones(70000))
    assert_one_line_exit_2(run_clean(files, "check", "--cos", "cos.npy", "--freqs", freqs), *words)


# --- 5. the report header ----------------------------------------------------------------------------------

def test_report_header_names_the_profile_once(files):
    text = run_clean(files, "check", "timm.npy", "--profile", "timm-interleaved").stdout.splitlines()[0]
    assert ", profile timm-interleaved, " in text and "--profile" not in text
    one_d = run_clean(files, "check", "t2t.npy", "--profile", "t2t", "--base", "500").stdout.splitlines()[0]
    assert ", profile t2t --base 500, " in one_d and "--profile" not in one_d
    bad = run_clean(files, "check", "timm.npy", "--profile", "timm-interleaved").stdout.splitlines()
    assert bad[2].startswith("DOES NOT CONFORM: 576 of 1152 entries exceed the phase tolerance in float32")


# --- 6. one verdict, one JSON key set ------------------------------------------------------------------------

def test_inconclusive_is_not_conformant_in_every_kind():
    from helpers import check_rotary

    from sinpe.spec.rotary import get_rotary
    pos = np.arange(10**7, 10**7 + 8)
    inv = 1.0 / (10000.0 ** (np.arange(0, 16, 2) / 16))
    emb = np.concatenate([np.outer(pos, inv)] * 2, axis=1)
    r = check_rotary(get_rotary("llama"), 16, cos=np.cos(emb).astype(np.float32), positions=pos.tolist())
    assert r.verdict == "inconclusive" and r.conformant is False and r.exit_code == 3
    api = sinpe.check(cos=np.cos(emb).astype(np.float32), positions=pos.tolist())
    assert (api.verdict, api.conformant, api.to_json()["conformant"]) == ("inconclusive", False, False)
    assert api.unjudged["count"] > 0 and api.unjudged["from_position"] == str(pos[0])


def _keys(files, *args):
    res = run_clean(files, "check", *args, "--json")
    assert res.returncode in (0, 1), res.stdout + res.stderr
    return _json(res)


def test_check_json_keys_are_the_same_for_every_kind(files):
    one_d = _keys(files, "t2t.npy", "--profile", "t2t")
    grid = _keys(files, "timm.npy", "--profile", "timm")
    rotary = _keys(files, "--cos", "cos.npy", "--sin", "sin.npy", "--profile", "llama")
    auto_grid = _keys(files, "mae.npy", "--profile", "auto")
    failing = _keys(files, "timm_bad.npy", "--profile", "timm")
    assert [o["kind"] for o in (one_d, grid, rotary)] == ["1d", "grid", "rotary"]
    assert set(one_d) == set(grid) == set(rotary) == set(auto_grid) == set(failing)
    assert set(one_d["unjudged"]) == set(grid["unjudged"]) == set(rotary["unjudged"])
    assert {"count", "share", "from_position"} <= set(rotary["unjudged"])
    assert (failing["worst"]["position"], failing["worst"]["column"]) == ("(3, 2)", 5)  # row 20, the one perturbed


# --- 7. sinpe grid / sinpe rotary are aliases ------------------------------------------------------------------

@pytest.mark.parametrize("alias, args", [
    ("grid", ("check", "mae.npy", "--profile", "mae", "--cls", "1")),
    ("grid", ("check", "timm_bad.npy", "--profile", "timm")),
    ("grid", ("detect", "mae.npy", "--json")),
    ("rotary", ("check", "--cos", "cos.npy", "--sin", "sin_bad.npy")),
    ("rotary", ("detect", "--cos", "cos.npy", "--sin", "sin.npy")),
    ("rotary", ("detect", "--cos", "cos.npy", "--json")),
])
def test_grid_and_rotary_commands_are_aliases(files, alias, args):
    a, b = run_clean(files, alias, *args), run_clean(files, *args)
    assert (a.returncode, a.stdout, a.stderr) == (b.returncode, b.stdout, b.stderr)
    assert a.stdout


# --- 8. the CLI is a thin shell --------------------------------------------------------------------------------

def test_check_and_detect_commands_only_parse_call_and_print():
    cli = Path(__file__).resolve().parent.parent / "reference" / "cli"
    banned = ("load_table", "load_target", "check_table", "check_grid", "check_rotary", "detect_table", "detect_grid",
              "detect_rotary", "other_readings", "GRID_PRESETS:", "in GRID_PRESETS", "in ROTARY_PRESETS", "np.")
    for name in ("check.py", "detect.py", "alias.py", "check_apply.py", "args.py"):
        text = (cli / name).read_text()
        assert not [b for b in banned if b in text], name


def test_junit_for_grids_and_caches(files):  # REQ-CHECK-CLI, REQ-CHECK-KINDS: one JUnit writer for every kind
    """--junit was written for 1-D tables only (a warning for grids and caches); now one testsuite per check
    of every kind, its case failing for a wrong grid and a wrong cache, passing for correct ones."""
    from helpers import run_sinpe
    for args, fails in ((["timm.npy", "--profile", "timm"], 0), (["timm_bad.npy", "--profile", "timm"], 1),
                        (["--cos", "cos.npy", "--sin", "sin_bad.npy", "--profile", "llama"], 1),
                        (["--cos", "cos.npy", "--sin", "sin.npy", "--profile", "llama"], 0)):
        xml = files / "r.xml"
        xml.unlink(missing_ok=True)
        res = run_sinpe("check", *[str(files / a) if a.endswith(".npy") else a for a in args], "--junit", str(xml))
        assert res.returncode == fails, (res.repro, res.stdout, res.stderr)
        text = xml.read_text()
        assert f'failures="{fails}"' in text and 'tests="1"' in text, (args, text)
        assert "not written" not in res.stderr


def test_the_reproduce_line_of_a_check_runs_as_printed(files):  # REQ-CLI-EXIT: a printed command runs as printed
    """A file name with a space: the check's `reproduce` (text and JSON) names it as one shell word, so the line
    reproduces the verdict; it was printed bare ('sinpe check my t.npy ...': exit 2, no such file 'my')."""
    from sinpe.reference.tables import table
    t = table("vaswani", 16, 64, "float64")
    t[5, 3] += 0.1
    np.save(files / "my t.npy", t)
    (files / "my cos.npy").write_bytes((files / "cos.npy").read_bytes())
    for args, rc in ((["my t.npy"], 1), (["--cos", "my cos.npy", "--profile", "llama"], 0)):
        res = run_clean(files, "check", *args, "--json")
        assert res.returncode == rc, res.stdout + res.stderr
        line = _json(res)["reproduce"]
        assert line.startswith("sinpe check ") and "'my " in line, line
        assert run_clean(files, "check", *shlex.split(line)[2:]).returncode == rc, line


def _printed_lines(files, args, xml):
    """Every ``sinpe check`` line a check prints for ``args`` (the JSON ``reproduce``, the text report's
    ``reproduce:`` lines, the JUnit failure messages' ``reproduce:``), each as the words a shell gives."""
    js = _json(run_clean(files, "check", "--json", *args))
    text = run_clean(files, "check", *args).stdout
    run_clean(files, "check", "--junit", str(xml), *args)
    junit = xml.read_text()
    lines = [js["reproduce"]] + [x.split("reproduce: ", 1)[1] for x in text.splitlines() if "reproduce: sinpe check" in x]
    lines += [m.split("reproduce: ", 1)[1].split(";")[0] for m in junit.split('message="')[1:]
              if "reproduce: sinpe check" in m.split('"')[0]]
    return js, [shlex.split(x.split('"')[0], comments=True) for x in lines]


@pytest.mark.parametrize("name, kind", [("-t.npy", "1d"), ("--t.npy", "1d"), ("-timm.npy", "grid"), ("-cos.npy", "rotary")])
def test_a_file_named_like_a_flag_is_printed_as_a_file(files, name, kind):  # REQ-CHECK-REPRO, REQ-DETECT-CLI
    """A file name that starts with '-' (given after `--`, or as `--cos=-cos.npy`) is printed as `./-t.npy` in
    every line a check or detect prints, so that the line reads the same file: printed bare ('sinpe check -t.npy
    --profile vaswani'), argparse reads it as an option (exit 2). Each printed line, run as printed, checks the
    same file (the report's header names it) with the same verdict and the same largest error."""
    from sinpe.reference.tables import table
    if kind == "1d":
        t = table("vaswani", 16, 64, "float64")
        t[5, 3] += 0.1
        np.save(files / "t.npy", t)
        (files / name).write_bytes((files / "t.npy").read_bytes())
        args, rc, detect = ["--profile", "vaswani", "--", name], 1, None
    elif kind == "grid":
        (files / name).write_bytes((files / "timm_bad.npy").read_bytes())
        (files / f"-{name}").write_bytes((files / "timm.npy").read_bytes())  # detect reads the grid it names
        args, rc, detect = ["--profile", "timm", "--", name], 1, ["--", f"-{name}"]
    else:
        (files / name).write_bytes((files / "cos.npy").read_bytes())
        np.save(files / "-pos.npy", np.arange(200))  # a flag's value named like a flag: --positions=-pos.npy
        args, rc, detect = [f"--cos={name}", "--sin", "sin_bad.npy", "--profile", "llama"], 1, \
            ["--positions=-pos.npy", f"--cos={name}"]
    (files / "out").mkdir()
    js, lines = _printed_lines(files, args, files / "out" / "r.xml")
    assert js["exit_code"] == rc and len(lines) == 2 + (kind != "1d"), lines  # JSON, text, JUnit (not 1-D: a table line)
    for words in lines:
        assert words[:2] == ["sinpe", "check"], words
        again = run_clean(files, "check", "--json", *words[2:])
        assert again.returncode == rc, (words, again.stdout, again.stderr)
        assert f"./{name}" in words, words
        out = _json(again)
        assert (out["verdict"], out["max_abs_error"]) == (js["verdict"], js["max_abs_error"]), words
        header = run_clean(files, *words[1:]).stdout.splitlines()[0]
        assert header.startswith(f"sinpe check {'--cos ' if kind == 'rotary' else ''}./{name}"), header
    if detect is not None:  # detect's `check with` line: the same file, the check of what detect named
        line = _check_line(run_clean(files, "detect", *detect))
        words = shlex.split(line)
        assert f"./{detect[-1].split('=')[-1]}" in words and (kind != "rotary" or "--positions=-pos.npy" in words), words
        again = run_clean(files, "check", "--json", *words)
        assert again.returncode in (0, 1) and _json(again)["kind"] == kind, (words, again.stderr)
