"""sinpe check (SPEC.md REQ-CHECK-CONFORM, REQ-CHECK-DECIDE, REQ-CHECK-REPRO, REQ-CHECK-STREAM, REQ-CHECK-CLI): verdicts, figures, reproduction lines, streaming, the JSON contract.

Expected values come from the Arb oracle (python-flint, :mod:`sinpe.reference.oracles.arb`), never
from the fast reference the checker uses; every certifying check has a negative twin.
"""
from __future__ import annotations

import json
import types
from fractions import Fraction

import numpy as np
import pytest
from helpers import run_sinpe

import sinpe
from sinpe.reference.bugs import CATALOGUE
from sinpe.reference.checking.check import check_table
from sinpe.reference.checking.targets import check_target
from sinpe.reference.implementations.numpy_impl import pe_table as np_table
from sinpe.reference.oracles import fast as fastref
from sinpe.reference.oracles.arb import rounded_table
from sinpe.reference.tables import table
from sinpe.spec.formats import DTYPES, get_format
from sinpe.spec.profiles import PRESETS, get_profile
from sinpe.spec.tolerance import TIERS, allowed_abs_error, ulp_array

VAS = get_profile("vaswani")
RNG = np.random.default_rng(20170612)
# sample positions up to 10^7: the start, random ones per decade, and the float16/bfloat16 edges
SAMPLE = np.unique(np.concatenate([np.arange(64), [255, 256, 257, 2047, 2048, 2049, 65504, 65519, 65520, 70000],
                                   *[RNG.integers(10**k, 10**(k + 1), 6) for k in range(2, 7)], [10**7]]))


def sinpe_cli(*args, cwd=None):
    """The installed console script, as a user runs it (tests/helpers.py)."""
    return run_sinpe(*args, cwd=cwd)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("tier", TIERS)
def test_in_place_tolerance_equals_the_allocating_one(dtype, tier):  # REQ-CHECK-DECIDE
    # the streaming checker calls allowed_abs_error/ulp_array with out=: same values, edge binades included
    ref = np.concatenate([RNG.uniform(-2, 2, 2000), [0.0, -0.0, 1.0, 0.5, 2.0**-140, 2.0**-1070, 1e-6, 65504.0]])
    th = np.concatenate([RNG.uniform(0, 1e7, ref.size - 3), [np.nan, np.nan, 0.0]])
    want = allowed_abs_error(tier, dtype, ref, th, 0.75, base=500.0)
    got = allowed_abs_error(tier, get_format(dtype), ref, th, 0.75, base=500.0, out=np.empty_like(ref))
    assert np.array_equal(want, got)
    # and the ulp by exponent bits equals the scalar rounding.ulp at every edge value
    from sinpe.reference.numerics.rounding import ulp
    assert ulp_array(ref, dtype).tolist() == [ulp(float(x), dtype) for x in ref]


# --- zero false rejections: the bundled implementations pass (REQ-CHECK-CONFORM) ----------------------

def _bundled(profile, d, dtype):
    return _bundled_at(profile, d, dtype, SAMPLE)


def _bundled_at(profile, d, dtype, positions):
    if dtype in ("float64", "float32"):
        return np_table(profile, d, positions, dtype)
    from sinpe.reference.implementations.torch_impl import pe_table
    return pe_table(profile, d, positions, dtype)


@pytest.mark.parametrize("name", list(PRESETS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_bundled_implementations_pass(name, dtype):  # REQ-CHECK-CONFORM, REQ-CHECK-VERDICT, REQ-CHECK-UNJUDGED
    prof = get_profile(name)
    short = SAMPLE[SAMPLE <= 10**5]
    for d in (7, 64):
        # up to 10^5 every entry is judged (float16/bfloat16: computed in float32, the default W) and conforms
        r = check_table(_bundled_at(prof, d, dtype, short), prof, positions=short, detect=False)
        assert r.verdict == "conforms" and r.conformant and r.unjudged["count"] == 0, (name, d, dtype, r.reason)
        assert r.dtype == dtype and r.rows == short.size
        # up to 10^7 nothing fails; a float32 phase is no longer judged there, so only float64 conforms
        r = check_table(_bundled(prof, d, dtype), prof, positions=SAMPLE, detect=False)
        assert r.n_failures == 0 and r.structural["violations"] == 0, (name, d, dtype, r.reason)
        if dtype == "float64":
            assert r.verdict == "conforms", (name, d, r.reason)
        elif d == 64:
            assert r.verdict == "inconclusive" and r.exit_code == 3 and not r.conformant, (name, dtype, r.reason)
            assert float(r.unjudged["from_position"]) > 10**5 and "--working float64 would judge" in r.reason


def test_correctly_rounded_table_passes_exact_and_one_ulp_off_fails():  # REQ-CHECK-DECIDE
    pos = [0, 1, 2, 3, 1000, 65519, 10**6]
    t = rounded_table(VAS, 16, pos, "binary32").astype(np.float32)   # Arb: correctly rounded
    assert check_table(t, VAS, positions=np.array(pos), tier="exact", detect=False).conformant
    bad = t.copy()
    pe = rounded_table(VAS, 16, [1000], "binary64")[0, 5]   # Arb; RN32 != PE here
    toward = np.float32(2 if pe > bad[4, 5] else -2)
    bad[4, 5] = np.nextafter(bad[4, 5], toward)  # the other faithful neighbour
    r = check_table(bad, VAS, positions=np.array(pos), tier="exact", detect=False)
    assert not r.conformant and r.n_failures == 1
    f = r.failures[0]
    assert (f.position, f.column, f.label) == ("1000", 5, "cos2")
    assert "--positions 1000 --dtype float32" in f.repro and "# column 5" in f.repro
    assert check_table(bad, VAS, positions=np.array(pos), tier="faithful", detect=False).conformant
    bad[4, 5] = np.nextafter(bad[4, 5], toward)  # two ulps from RN, beyond PE by more than an ulp
    assert not check_table(bad, VAS, positions=np.array(pos), tier="faithful", detect=False).conformant


def test_float64_exact_tier_is_decided_by_the_certified_fast_path():  # REQ-CHECK-DECIDE, REQ-TABLE-FAST
    """In float64 the fast reference cannot tell RN(PE) from its neighbours; the correctly rounded fast
    path can: no entry goes to Arb, and a 1-ulp change is caught."""
    pos = np.arange(40)
    t = rounded_table(VAS, 16, pos, "binary64")
    r = check_table(t, VAS, tier="exact", detect=False)
    assert r.conformant and r.oracle_decided == 0
    t[33, 9] = np.nextafter(t[33, 9], 2.0)
    r = check_table(t, VAS, tier="exact", detect=False, threads=1)
    assert not r.conformant and r.n_failures == 1 and (r.failures[0].position, r.failures[0].column) == ("33", 9)


def test_undecided_entries_go_to_the_oracle(monkeypatch):  # REQ-CHECK-DECIDE
    """With the fast paths' error bounds inflated, every entry is undecided: the certified oracle rounds
    each (exact tier) and Arb settles each one that is not RN(PE) (faithful tier), with the same verdicts."""
    from sinpe.reference.tables import rounded
    pos = np.array([0, 1, 5, 77])
    t = rounded_table(VAS, 6, pos, "binary32").astype(np.float32)
    bad = t.copy()
    bad[2, 3] = np.nextafter(bad[2, 3], np.float32(-2))
    want = {tier: check_table(bad, VAS, positions=pos, tier=tier, detect=False).verdict for tier in ("exact", "faithful")}
    monkeypatch.setattr(rounded, "K_REL_N", 2.0 ** -20)
    good_r = check_table(t, VAS, positions=pos, tier="exact", detect=False)
    bad_r = check_table(bad, VAS, positions=pos, tier="exact", detect=False)
    assert good_r.conformant and any("settled by the certified oracle" in n for n in good_r.notes)
    assert not bad_r.conformant and bad_r.n_failures == 1 and bad_r.failures[0].column == 3
    faith = check_table(bad, VAS, positions=pos, tier="faithful", detect=False)
    assert faith.oracle_decided == 1 and faith.verdict == want["faithful"] and bad_r.verdict == want["exact"]
    monkeypatch.setattr(fastref, "ERROR_ULPS", 2.0 ** 40)  # the phase tier's fast reference, likewise
    ph = check_table(bad, VAS, positions=pos, tier="phase", detect=False)
    assert ph.conformant and ph.oracle_decided > 0


def test_repro_command_writes_the_reference_value(tmp_path):  # REQ-CHECK-REPRO
    t = np_table(VAS, 8, np.arange(40), "float32")
    t[33, 6] += 0.25
    r = check_table(t, VAS, detect=False)
    f = r.failures[0]
    cmd = f.repro.split("#")[0].split()[1:]
    out = tmp_path / "pe.npy"
    cmd[cmd.index("--out") + 1] = str(out)
    res = sinpe_cli(*cmd)
    assert res.returncode == 0, res.stderr
    assert float(np.load(out)[0, f.column]) == rounded_table(VAS, 8, [33], "binary32")[0, 6]


# --- discriminating power: the catalogue is rejected and detect names it (REQ-CHECK-CATALOGUE) --------

@pytest.mark.parametrize("bug", CATALOGUE, ids=[b.id for b in CATALOGUE])
def test_catalogue_is_rejected_and_named(bug):
    """REQ-CHECK-CATALOGUE: every catalogued bug is rejected and detect names it."""
    d = bug.witness_d
    pos = np.unique(np.concatenate([np.arange(256), np.array(bug.witness_positions)])).astype(np.int64)
    try:
        t = bug(pos, d)
    except ValueError:
        pytest.fail(f"{bug.id} raises at d={d}")
    positions = pos if t.shape[0] == len(pos) else None
    r = check_table(t, VAS, positions=positions, d=d)
    assert not r.conformant, bug.id
    det = r.detected
    assert det is not None and "error" not in det, (bug.id, det)
    for k, v in bug.expected(d).items():
        got = det["deviations"].get(k)
        if isinstance(v, float):
            assert got is not None and abs(float(got) - v) <= 1e-6 * abs(v), (bug.id, k, got, v)
        else:
            assert got == v or str(got) == str(v), (bug.id, k, got, v, det["deviations"])


# --- findings that are not entry comparisons (REQ-CHECK-SHAPE) ---------------------------------------

def test_non_finite_entries_are_a_finding():
    t = np_table(VAS, 8, np.arange(20), "float32")
    t[7, 2] = np.inf
    t[9, 0] = np.nan
    r = check_table(t, VAS, detect=False)
    assert not r.conformant and r.reason.startswith("non-finite: 2 NaN/Inf")
    assert r.worst == {"position": "7", "column": 2, "label": "sin1"}


def test_wrong_width_and_transposed_are_findings():
    t = np_table(VAS, 64, np.arange(128), "float32")
    r = check_table(t[:, :63], VAS, d=64, detect=False)
    assert not r.conformant and r.reason.startswith("width")
    r = check_table(np.ascontiguousarray(t.T), VAS, d=64, positions=np.arange(128), detect=False)
    assert not r.conformant and r.reason.startswith("transposed")


# --- streaming (REQ-CHECK-STREAM) ---------------------------------------------------------------------

def test_streamed_memmap_equals_in_memory(tmp_path):
    from sinpe.reference.checking.loaders import load_table
    t = np_table(VAS, 96, np.arange(3000), "float32")
    t[2500, 17] *= 1.5
    path = tmp_path / "t.npy"
    np.save(path, t)
    whole = check_table(t, VAS, detect=False, chunk_entries=10**9)
    lt = load_table(str(path))
    assert lt.streamable
    streamed = check_table(lt, VAS, detect=False, chunk_entries=96 * 7)   # 429 chunks, 2 threads
    assert not whole.conformant and whole.n_failures == streamed.n_failures == 1
    assert whole.failures[0].position == streamed.failures[0].position == "2500"
    assert whole.max_abs_error == streamed.max_abs_error
    assert [b.rows for b in whole.bands] == [b.rows for b in streamed.bands] == [10, 90, 900, 2000]


def test_progress_bar_only_when_asked(capsys):
    t = np_table(VAS, 8, np.arange(50), "float32")
    check_table(t, VAS, detect=False, progress=True, chunk_entries=80)
    assert "100.0%" in capsys.readouterr().err
    check_table(t, VAS, detect=False, chunk_entries=80)   # stderr is not a terminal here
    assert capsys.readouterr().err == ""


# --- the CLI and its JSON contract (REQ-CHECK-CLI) ------------------------------------------------------

def test_cli_json_contract_and_exit_codes(tmp_path):
    good = tmp_path / "good.npy"
    bad = tmp_path / "bad.npy"
    np.save(good, np_table(get_profile("t2t"), 32, np.arange(100), "float32"))
    np.save(bad, np_table(get_profile("t2t"), 32, np.arange(2, 102), "float32"))
    res = sinpe_cli("check", good, "--profile", "t2t", "--json")
    assert res.returncode == 0, res.stderr
    rep = json.loads(res.stdout)
    for k in ("conformant", "profile", "tier", "dtype", "max_abs_error", "max_ulp_error", "worst", "failures", "detected"):
        assert k in rep
    assert rep["conformant"] is True and rep["profile"] == "t2t" and rep["dtype"] == "float32"
    assert set(rep["worst"]) >= {"position", "column"}
    junit = tmp_path / "r.xml"
    res = sinpe_cli("check", bad, "--profile", "t2t", "--json", "--junit", junit)
    assert res.returncode == 1
    rep = json.loads(res.stdout)
    assert rep["conformant"] is False and rep["failures"] and rep["failures"][0]["repro"].startswith("sinpe table")
    assert rep["detected"]["deviations"] == {"offset": 2}
    assert "<failure" in junit.read_text()
    res = sinpe_cli("check", bad, "--profile", "t2t")
    assert res.returncode == 1 and "DOES NOT CONFORM" in res.stdout and "first row is position 2" in res.stdout


def test_cli_callable_target(tmp_path):
    (tmp_path / "check_impls.py").write_text(
        "from sinpe.reference.implementations.numpy_impl import pe_table\nfrom sinpe.spec.profiles import get_profile\n"
        "def good(p, d):\n    return pe_table(get_profile('vaswani'), d, p, 'float32')\n"
        "def n_style(n, d):\n    import numpy as np\n    return good(np.arange(n), d)\n")
    res = sinpe_cli("check", "check_impls:good", "--d", "32", cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    res = sinpe_cli("check", "check_impls:n_style", "--call", "n", "--d", "32", cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    res = sinpe_cli("check", "check_impls:good", "--d", "32", "--profile", "t2t", cwd=tmp_path)
    assert res.returncode == 1


def test_odd_rule_error_requires_the_callable_to_raise(tmp_path, monkeypatch, capsys):  # REQ-CHECK-CONFORM
    from sinpe.reference.cli import main
    (tmp_path / "odd_impls.py").write_text(
        "import numpy as np\nfrom sinpe.reference.implementations.numpy_impl import pe_table\nfrom sinpe.spec.profiles import get_profile\n"
        "def strict(p, d):\n    if d % 2:\n        raise ValueError('odd d')\n"
        "    return pe_table(get_profile('vaswani'), d, p, 'float32')\n"
        "def zeros_even(p, d):\n    if d % 2:\n        raise ValueError('odd d')\n    return np.zeros((len(p), d))\n"
        "def broken(p, d):\n    raise RuntimeError('boom')\n"
        "def lax(p, d):\n    return np.zeros((len(p), d))\n")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "odd_impls:strict", "--odd", "error", "--d", "9", "--no-detect"]) == 0
    assert "checked at the even d=10" in capsys.readouterr().out
    assert main(["check", "odd_impls:lax", "--odd", "error", "--d", "9"]) == 1
    assert "requires it to raise" in capsys.readouterr().out
    # review regression: raising was enough; one that raises for every d, or is wrong at even d, does not conform
    assert main(["check", "odd_impls:zeros_even", "--odd", "error", "--d", "9", "--no-detect"]) == 1
    assert main(["check", "odd_impls:broken", "--odd", "error", "--d", "9"]) == 2
    assert "d=10) raised RuntimeError: boom" in capsys.readouterr().err
    assert main(["check", "odd_impls:lax", "--odd", "error", "--d", "9", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["conformant"] is False   # --json stays JSON on this path


# --- review regressions: the dtype claimed must be the dtype held; messages say only what applies -----

def test_values_not_in_the_claimed_dtype_do_not_conform():  # REQ-CHECK-SHAPE (dtype)
    """REQ-CHECK-SHAPE (dtype): values that are not of the claimed dtype do not conform."""
    pos = np.arange(64)
    t64 = np_table(VAS, 16, pos, "float64")            # float64 values: |error| ~ 1e-16, inside any float16 bound
    r = check_table(t64, VAS, dtype="float16", tier="exact", detect=False)
    assert not r.conformant and r.reason.startswith("dtype: ") and "stored as float64" in r.reason, r.reason
    r = check_table(t64, VAS, dtype="float32", tier="phase", detect=False)
    assert not r.conformant and "not float32 values" in r.reason
    # the negative twin: float32 values stored as float64 (and bfloat16 values stored as float32) conform
    t32 = np_table(VAS, 16, pos, "float32")
    assert check_table(t32.astype(np.float64), VAS, dtype="float32", detect=False).conformant
    from sinpe.reference.implementations.torch_impl import pe_table as torch_table
    bf = torch_table(VAS, 16, pos, "bfloat16").float().numpy()
    assert check_table(bf, VAS, dtype="bfloat16", detect=False).conformant
    assert not check_table(t32, VAS, dtype="bfloat16", detect=False).conformant


def test_non_finite_reason_mentions_float16_overflow_only_when_it_applies():  # REQ-CHECK-SHAPE
    t = np_table(VAS, 8, np.arange(100), "float32")
    t[7, 3] = np.nan
    r = check_table(t, VAS, detect=False)
    assert r.reason.startswith("non-finite: 1 NaN/Inf entries, first at position 7 column 3") and "float16" not in r.reason
    from sinpe.reference.implementations.torch_impl import pe_table as torch_table
    pos = np.array([0, 1, 65519, 65520])
    h = torch_table(VAS, 8, pos, "float16").numpy()
    h[3, 0] = np.inf                                   # what float16 positions give at 65520
    r = check_table(h, VAS, positions=pos, detect=False)
    assert not r.conformant and "float16 positions >= 65520 overflow to inf" in r.reason


def test_junit_reports_the_dtype_finding_and_negative_max_failures_is_refused(tmp_path):  # REQ-CHECK-CLI
    np.save(tmp_path / "t.npy", np_table(VAS, 8, np.arange(32), "float64"))
    res = sinpe_cli("check", tmp_path / "t.npy", "--dtype", "float32", "--no-detect", "--junit", tmp_path / "r.xml")
    assert res.returncode == 1 and "not float32 values" in res.stdout
    xml = (tmp_path / "r.xml").read_text()
    assert 'failures="1"' in xml and 'name="dtype"' in xml, xml
    res = sinpe_cli("check", tmp_path / "t.npy", "--no-detect", "--junit", tmp_path / "ok.xml")
    assert res.returncode == 0 and 'failures="0"' in (tmp_path / "ok.xml").read_text()
    res = sinpe_cli("check", tmp_path / "t.npy", "--max-failures", "-1")
    assert res.returncode == 2 and res.stderr.strip().count("\n") == 0 and "--max-failures" in res.stderr


def test_repro_position_is_the_exact_binary_position():  # REQ-CHECK-REPRO
    # review regression: a row at float position 0.1 was reported as "0.1" (= 1/10 when parsed), so the
    # reproduction computed PE at another position
    from sinpe.reference.numerics.positions import parse_positions
    pos = np.array([0.1, 0.75])
    t = np_table(VAS, 4, pos, "float64")
    t[0, 1] += 1e-3
    f = check_table(t, VAS, positions=pos, detect=False).failures[0]
    assert parse_positions(f.position) == [Fraction(0.1)] and f.position in f.repro
    assert check_table(np_table(VAS, 4, pos, "float64"), VAS, positions=pos, detect=False).conformant


def test_check_callable_is_checked_at_the_positions_it_was_given():  # REQ-CHECK-INPUT
    # review regression: 1/3 was passed to the callable as float64 but PE was taken at exactly 1/3; the
    # correctly rounded table at the float64 positions it got (Arb) failed the exact tier (16 of 24 entries
    # of RN(PE(1/3)) and RN(PE(fl(1/3))) differ here)
    ps = [Fraction(1, 3), Fraction(1001, 3), Fraction(2**30 + 1, 3)]

    def fn(p, d):
        assert p.dtype == np.float64
        return rounded_table(VAS, d, [Fraction(float(x)) for x in p], "binary64")
    r = check_target(fn, VAS, d=8, positions=ps, tier="exact", detect=False)
    assert r.conformant, (r.reason, r.failures[:1])
    # the twin: a function that computes at the exact rationals is not what it was asked for
    wrong = lambda p, d: rounded_table(VAS, d, ps, "binary64")
    assert not check_target(wrong, VAS, d=8, positions=ps, tier="exact", detect=False).conformant


def test_the_worst_error_is_reported_to_the_digits_it_is_good_to() -> None:
    """REQ-CHECK-DECIDE: the worst entry's |error| from the fast reference is within 2^-20 of the oracle's figure
    and is reported to 7 significant digits (not the 16 of a float's repr, of which the last 9 are noise); the
    oracle's own figure (float64 tables) is reported in full."""
    from sinpe.reference.checking.check import conclude
    t = table("vaswani", 64, 100, "float32")
    t[37, 5] += np.float32(1.2345678e-3)
    res = sinpe.check(t, "vaswani", detect=False)
    assert res.verdict == "fails"
    ctx = types.SimpleNamespace(profile=get_profile("vaswani"), d=64, pos=np.arange(100.0))
    exact = conclude._oracle_error(ctx, 37, 5, float(t[37, 5]))  # type: ignore[arg-type]
    assert abs(res.max_abs_error - exact) <= 2.0 ** -20 * exact
    assert float(f"{res.max_abs_error:.7g}") == res.max_abs_error != exact
