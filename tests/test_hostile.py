"""A hostile-input corpus (SPEC.md REQ-CHECK-INPUT, REQ-CHECK-ISOLATE, REQ-CHECK-LIMITS, REQ-CHECK-FINITE,
REQ-CLI-EXIT, REQ-GOLDEN-PIN): code nobody named, false passes, expensive work before cheap checks,
hostile callables, lenient parsing, the output contract and golden tampering.

Every input is made here at test time (tests/hostile_inputs.py). Every command-line case asserts its
exit status, that an error is exactly one line on stderr with no traceback, a bounded time and, for
every rejected oversized input, a peak memory (measured by wait4 over the command and its children)
below 300 MB.
"""
from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import hostile_inputs as H
import numpy as np
import pytest

from sinpe.reference.checking import confine, guard, isolate

MB_LIMIT = 300  # peak RSS of a command that rejects an oversized input


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    """One directory holding every hostile file (a few KB on disk) and the callables module."""
    w = tmp_path_factory.mktemp("hostile")
    np.save(w / "t.npy", H.pe())
    (w / "hostile_impls.py").write_text(H.CALLABLES)
    # .npz: a 3 GiB member from ~3 KB, alone and beside a good table
    H.zip_file(w / "bomb.npz", [H.bomb_member("junk", (3 << 27,))])
    H.zip_file(w / "bomb2d.npz", [H.bomb_member("pe", (3 << 24, 8))])
    H.zip_file(w / "beside.npz", [H.member("pe.npy", _npy_bytes(H.pe())), H.bomb_member("junk.npy", (3 << 27,))])
    H.zip_file(w / "liar.npz", [H.bomb_member("pe.npy", (3 << 24, 8), declared=(10, 8))])
    H.zip_file(w / "bomb.pt", [H.bomb_member("archive/data/0", (3 << 27,))])
    (w / "huge_header.npy").write_bytes(H.npy_header((10**12, 8)) + bytes(64))
    (w / "huge_positions.npy").write_bytes(H.npy_header((10**12,)) + bytes(64))
    H.safetensors_bad_header(w / "bad_header.safetensors")
    H.safetensors_lying_shape(w / "lying.safetensors")
    with open(w / "big.csv", "wb") as fh:  # sparse: 65 MiB on paper, nothing on disk
        fh.truncate((64 << 20) + 1)
    (w / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (w / "bools.json").write_text(json.dumps([[True, False]] * 4))
    (w / "strings.json").write_text(json.dumps([["0.5", "1"]] * 4))
    (w / "nulls.json").write_text(json.dumps([[None, 1.0]] * 4))
    (w / "underscore.csv").write_text("0.8_4,1\n0.5,1\n")
    (w / "hex.csv").write_text("0x1p-3,1\n0.5,1\n")
    (w / "space.csv").write_text("1 2,1\n0.5,1\n")
    (w / "good.csv").write_text("\n".join(",".join(repr(float(x)) for x in r) for r in H.pe()) + "\n")
    return w


def _npy_bytes(a: np.ndarray) -> bytes:
    import io
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=False)
    return buf.getvalue()


def one_line_error(r: H.Run, *words: str) -> str:
    """Exit 2, exactly one line on stderr, no traceback; returns the line."""
    assert r.rc == 2, (r.rc, r.stdout[-500:], r.stderr[-2000:])
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


# --- 1. code nobody named (REQ-CHECK-INPUT) ----------------------------------------------------------

@pytest.mark.parametrize("shadow", ["flint", "numpy", "mpmath"])
@pytest.mark.parametrize("module", [False, True], ids=["script", "python-m"])
def test_nothing_beside_the_target_is_imported(work, tmp_path, shadow, module):
    shutil.copy(work / "hostile_impls.py", tmp_path)
    (tmp_path / f"{shadow}.py").write_text(H.MARKER_MODULE)
    # a mutating callable at non-integer positions: the check needs the Arb oracle (flint) for its figures
    r = H.sinpe("check", "hostile_impls:shifts_in_place", "--d", "8", "--positions", "0.5,1.5,2.25",
                "--no-detect", cwd=tmp_path, module=module)
    assert r.rc == 1, r.stderr
    assert not (tmp_path / f"{shadow}.imported").exists(), f"{shadow}.py in the current directory was imported"
    r = H.sinpe("check", str(work / "t.npy"), cwd=tmp_path, module=module)
    assert r.rc == 0 and not (tmp_path / f"{shadow}.imported").exists(), r.stderr


def test_only_the_named_module_comes_from_the_current_directory(tmp_path):
    (tmp_path / "helper.py").write_text(H.MARKER_MODULE)
    (tmp_path / "impl.py").write_text("import helper\ndef f(p, d):\n    return None\n")
    r = H.sinpe("check", "impl:f", "--d", "8", cwd=tmp_path)
    one_line_error(r, "cannot import 'impl'", "helper")
    assert not (tmp_path / "helper.imported").exists()


def test_no_code_adds_the_current_directory_to_sys_path():
    root = Path(__file__).resolve().parents[1] / "reference"
    for p in root.rglob("*.py"):
        assert not re.search(r"sys\.path\.insert\([^)]*getcwd", p.read_text()), p


# --- 2. false passes (REQ-CHECK-FINITE, REQ-CHECK-ISOLATE) -------------------------------------------

def test_a_callable_that_shifts_its_positions_in_place_does_not_conform(work):
    r = H.sinpe("check", "hostile_impls:shifts_in_place", "--d", "8", "--positions", "0.5,1.5,2.25",
                "--json", "--no-detect", cwd=work)
    assert r.rc == 1, r.stderr
    rep = json.loads(r.stdout)
    assert not rep["conformant"]
    assert {f["position_exact"] for f in rep["failures"]} <= {"0.5", "1.5", "2.25"}  # the checker's own positions


def test_in_process_callables_get_a_copy_of_the_positions():
    from sinpe.reference.checking.targets import check_target
    from sinpe.reference.implementations.numpy_impl import pe_table
    from sinpe.spec.profiles import get_profile
    V = get_profile("vaswani")

    def shifts(p, d):
        p += 1
        return pe_table(V, d, p, "float64")
    res = check_target(shifts, V, d=8, positions=[0.5, 1.5, 2.25], detect=False)
    assert not res.conformant and res.failures[0].position == "0.5"


@pytest.mark.parametrize("flags,words", [
    (["--phase-scale", "1e309"], ["--phase-scale 1e+309", "not be finite"]),
    (["--phase-scale", "1e400"], ["--phase-scale 1e+400"]),
    (["--amplitude=-1e400"], ["--amplitude -1e+400"]),
    (["--offset", "1e999"], ["--offset 1e+999"]),
    (["--phase-scale", "1e300", "--positions", "1e10,2,3,4,5,6,7,8,9,10"], ["reference is not finite"]),
])
def test_a_non_finite_reference_is_an_error_never_a_pass(work, flags, words):
    r = H.sinpe("check", "t.npy", *flags, cwd=work)
    one_line_error(r, *words)
    assert r.stdout == ""


# --- 3. cheap checks before expensive work (REQ-CHECK-LIMITS): peak memory measured -------------------

OVERSIZED = [
    # (id, args, exit status, words in the error line or None for a report)
    ("check --d 1e9 on 8 columns", ["check", "t.npy", "--d", "1000000000", "--no-detect"], 1, None),
    ("check --d 1e9 with detect", ["check", "t.npy", "--d", "1000000000"], 1, None),
    ("detect --d 1e9 on 8 columns", ["detect", "t.npy", "--d", "1000000000"], 1, None),
    ("positions 0:1e8 for 10 rows", ["check", "t.npy", "--positions", "0:100000000"], 2, "the table has 10 rows"),
    ("positions 1e1000000000", ["check", "t.npy", "--positions", "1e1000000000"], 2, "exponent"),
    ("positions 1e-1000000000", ["check", "t.npy", "--positions", "0,1,2,3,4,5,6,7,8,1e-1000000000"], 2, "exponent"),
    ("positions of 10^12 in .npy", ["check", "t.npy", "--positions", "huge_positions.npy"], 2, "positions file"),
    ("base 1e1000000000", ["check", "t.npy", "--base", "1e1000000000"], 2, "exponent"),
    ("npz bomb, only member", ["check", "bomb.npz"], 2, None),
    ("npz bomb, 2-D member", ["check", "bomb2d.npz"], 2, "save it as .npy"),
    ("npz bomb whose header lies", ["check", "liar.npz"], 2, "the archive says"),
    ("npz bomb beside a good member", ["check", "beside.npz", "--key", "junk"], 2, "save it as .npy"),
    ("pt archive bomb", ["check", "bomb.pt"], 2, "expanding to"),
    ("npy header of 10^12 rows", ["check", "huge_header.npy"], 2, "not a readable .npy"),
    ("safetensors header 2^60", ["check", "bad_header.safetensors"], 2, "header of"),
    ("safetensors shape beyond file", ["check", "lying.safetensors"], 2, "do not fit"),
    ("csv of 64 MiB + 1", ["check", "big.csv"], 2, "bytes of text"),
    ("json nested 10^5 deep", ["check", "deep.json"], 2, "not valid JSON"),
    ("callable --d 1e9", ["check", "hostile_impls:good", "--d", "1000000000"], 2, "entries"),
    ("callable 10^8 positions", ["check", "hostile_impls:good", "--d", "64", "--positions", "0:100000000"], 2, "entries"),
    ("callable n-style 10^12", ["check", "hostile_impls:good", "--d", "64", "--call", "n", "--positions", "999999999999"], 2,
     "entries"),
]


@pytest.mark.parametrize("case", OVERSIZED, ids=[c[0] for c in OVERSIZED])
def test_oversized_input_is_refused_before_allocating(work, case):
    _, args, rc, words = case
    r = H.sinpe(*args, cwd=work, timeout=60)
    if rc == 2:
        one_line_error(r, *([words] if words else []))
    else:
        assert r.rc == rc, (r.rc, r.stderr)
        assert "width" in r.stdout, r.stdout
    assert r.peak_mb < MB_LIMIT, f"peak RSS {r.peak_mb:.0f} MB"
    assert r.seconds < 30, r.seconds


def test_a_bomb_member_the_check_does_not_use_is_never_expanded(work):
    r = H.sinpe("check", "beside.npz", "--key", "pe", cwd=work)
    assert r.rc == 0, r.stderr
    assert r.peak_mb < MB_LIMIT


# --- 4. hostile callables run isolated (REQ-CHECK-ISOLATE) -------------------------------------------

@pytest.mark.parametrize("name,words", [
    ("hangs", "did not return within 3 s"),
    ("raises_base", "raised Custom: not an Exception"),
    ("raises_interrupt", "raised KeyboardInterrupt"),
    ("exits_hard", "ended the process (exit status 0)"),
    ("exits_soft", "raised SystemExit"),
    ("hogs_memory", "MemoryError"),
    ("segfaults", "killed by signal SIGSEGV"),
    ("returns_strings", "strings"),
])
def test_every_way_a_callable_fails_is_one_line(work, name, words):
    r = H.sinpe("check", f"hostile_impls:{name}", "--d", "8", "--timeout", "3", cwd=work, timeout=60)
    one_line_error(r, words)
    assert r.seconds < 20
    assert r.stdout == ""


def test_an_import_that_hangs_is_killed(tmp_path):
    (tmp_path / "slow.py").write_text("import time\ntime.sleep(3600)\n")
    r = H.sinpe("check", "slow:f", "--d", "8", "--timeout", "2", cwd=tmp_path)
    one_line_error(r, "did not return within 2 s")


def test_what_a_callable_prints_never_reaches_the_json(work):
    r = H.sinpe("check", "hostile_impls:prints", "--d", "8", "--json", cwd=work)
    assert r.rc == 0, r.stderr
    rep = json.loads(r.stdout)  # the whole of stdout is the report
    assert rep["conformant"] and any("printed" in n for n in rep["notes"])
    assert "chatter" not in r.stdout + r.stderr


def test_a_callable_that_changes_directory_moves_nothing(work, tmp_path):
    shutil.copy(work / "hostile_impls.py", tmp_path)
    r = H.sinpe("check", "hostile_impls:chdirs", "--d", "8", "--junit", "r.xml", cwd=tmp_path)
    assert r.rc == 0, r.stderr
    assert (tmp_path / "r.xml").is_file() and not Path("/r.xml").exists()


def test_a_grandchild_left_behind_does_not_hold_the_check(work):
    r = H.sinpe("check", "hostile_impls:leaves_a_grandchild", "--d", "8", "--timeout", "20", cwd=work)
    assert r.rc == 0 and r.seconds < 20, (r.rc, r.stderr)


# --- 5. strict parsing (REQ-CHECK-INPUT) --------------------------------------------------------------

@pytest.mark.parametrize("name,words", [
    ("bools.json", "(bool)"), ("strings.json", "(str)"), ("nulls.json", "(NoneType)"),
    ("underscore.csv", "'0.8_4' is not a decimal number"), ("hex.csv", "'0x1p-3'"), ("space.csv", "'1 2'"),
])
def test_tables_hold_numbers_and_nothing_else(work, name, words):
    one_line_error(H.sinpe("check", name, cwd=work), words)


def test_strict_parsing_still_accepts_a_good_text_table(work):
    assert H.sinpe("check", "good.csv", cwd=work).rc == 0


# --- 6. the output contract (REQ-CLI-EXIT) ------------------------------------------------------------

def test_no_arguments_is_a_usage_error(tmp_path):
    one_line_error(H.sinpe(cwd=tmp_path), "a command is required")


@pytest.mark.parametrize("name", ["t\nx.npy", "t\x1b[31mred.npy", "t\rx.csv", "t\u2028x.json"])
def test_control_characters_in_a_file_name_stay_escaped(tmp_path, name):
    line = one_line_error(H.sinpe("check", name, cwd=tmp_path), "no such file")
    assert "\x1b" not in line and "\r" not in line and "\u2028" not in line


def test_control_characters_from_a_callable_stay_escaped(tmp_path):
    (tmp_path / "esc.py").write_text("def f(p, d):\n    raise ValueError('a\\nb\\x1b[2J')\n")
    line = one_line_error(H.sinpe("check", "esc:f", "--d", "8", cwd=tmp_path), "a b\\x1b[2J")  # whitespace runs: one space
    assert "\x1b" not in line


def test_warnings_of_dependencies_never_precede_the_error_line(monkeypatch, capsys):
    import sys
    import types
    import warnings

    from sinpe.reference import cli
    mod = types.ModuleType("sinpe_fake_command")
    mod.configure = lambda parser: None

    def run(args):
        warnings.warn("overflow encountered in cast", RuntimeWarning, stacklevel=2)
        raise ValueError("bad input")
    mod.run = run
    monkeypatch.setitem(sys.modules, "sinpe_fake_command", mod)
    monkeypatch.setitem(cli.COMMANDS, "fake", ("sinpe_fake_command", "a test command"))
    assert cli.main(["fake"]) == 2
    assert capsys.readouterr().err.splitlines() == ["sinpe fake: error: bad input"]


def test_no_partial_junit_file_after_a_refused_input(work, tmp_path):
    r = H.sinpe("check", str(work / "bools.json"), "--junit", "r.xml", cwd=tmp_path)
    one_line_error(r)
    assert list(tmp_path.iterdir()) == []


# --- 7. golden tampering (REQ-GOLDEN-PIN, REQ-GOLDEN-MANIFEST) -----------------------------------------

@pytest.fixture(scope="module")
def regenerated() -> dict[str, bytes]:
    """The whole golden set, re-derived once for the module (about 10 s)."""
    from sinpe.reference.golden import vectors as G
    return G.generate(progress=False).files


def _rehash(root: Path, rel: str) -> None:
    """What a careful tamperer does after editing ``rel``: update its hash (and totals) in the manifest."""
    import hashlib
    man = json.loads((root / "MANIFEST.json").read_text())
    data = (root / rel).read_bytes()
    man["files"][rel] = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    (root / "MANIFEST.json").write_text(json.dumps(man, indent=1))


def _one_ulp(root: Path) -> None:
    rel = "cases/vaswani/d8.json"
    doc = json.loads((root / rel).read_text())
    case = doc["testGroups"][0]["tests"][3]
    v = float.fromhex(case["hex"])
    case["hex"] = float.hex(float(np.nextafter(v, np.inf)))
    (root / rel).write_text(json.dumps(doc, indent=1))
    _rehash(root, rel)


def _bit_flip(root: Path) -> None:
    rel = "tables/vaswani/d64-float32.npy"
    data = bytearray((root / rel).read_bytes())
    data[-7] ^= 0x01
    (root / rel).write_bytes(bytes(data))
    _rehash(root, rel)


def _metadata(root: Path) -> None:
    man = json.loads((root / "MANIFEST.json").read_text())
    man["provenance"]["note"] = "edited"
    man["dateReleased"] = "2000-01-01"
    (root / "MANIFEST.json").write_text(json.dumps(man, indent=1))


def _drop_index(root: Path) -> None:
    man = json.loads((root / "MANIFEST.json").read_text())
    man["tables"] = man["tables"][:1]  # 219 of 220 entries dropped: the sample would re-derive one table
    (root / "MANIFEST.json").write_text(json.dumps(man, indent=1))


TAMPER = {"one case 1 ulp, manifest rehashed": _one_ulp, "one table bit flipped, manifest rehashed": _bit_flip,
          "manifest metadata edited": _metadata, "219 of 220 table-index entries dropped": _drop_index}


@pytest.mark.parametrize("how", list(TAMPER))
def test_every_golden_tampering_is_caught(tmp_path, monkeypatch, regenerated, how):
    import hashlib

    from sinpe.reference.golden import (
        manifest as pin,  # the pin and the cache, where they are read
        vectors as G,
    )
    root = tmp_path / "golden"
    shutil.copytree(G.GOLDEN_DIR, root)
    assert G.self_certify(2, 1, root, regenerated=regenerated).ok  # the untouched copy passes
    TAMPER[how](root)
    pin._MANIFEST_CACHE.pop(root, None)  # a fresh process would not have the untouched copy cached
    # 1. the pin in the code catches it, on load and in the self-certification
    with pytest.raises(G.GoldenIntegrityError, match="pinned"):
        G.manifest(root)
    rep = G.self_certify(2, 1, root)
    assert not rep.ok and not rep.checks[0].ok, rep.render()
    # 2. a tamperer who also edits the pin is caught by re-deriving the whole set
    monkeypatch.setattr(pin, "MANIFEST_SHA256", hashlib.sha256((root / "MANIFEST.json").read_bytes()).hexdigest())
    pin._MANIFEST_CACHE.pop(root, None)
    rep = G.self_certify(2, 1, root, regenerated=regenerated)
    assert not rep.ok, rep.render()
    assert rep.checks[0].ok  # the pin was bypassed: something else caught it
    assert any(not c.ok for c in rep.checks[1:]), rep.render()


def test_the_sample_seed_is_fresh_and_printed():
    from sinpe.reference.golden import vectors as G
    a, b = G.self_certify(1), G.self_certify(1)
    assert a.ok and b.ok and a.seed != b.seed
    assert f"seed={a.seed}" in a.render() and f"--seed {a.seed}" in a.to_json()["reproduce"]


def test_the_pin_is_the_shipped_manifest_hash():
    import hashlib

    from sinpe.reference.golden import vectors as G
    assert hashlib.sha256((G.GOLDEN_DIR / G.MANIFEST_NAME).read_bytes()).hexdigest() == G.MANIFEST_SHA256


def test_a_file_name_with_a_newline_stays_one_line_in_the_report(tmp_path):  # REQ-CLI-EXIT (the text report too)
    from sinpe.reference.implementations.numpy_impl import pe_table
    from sinpe.spec.profiles import get_profile
    name = tmp_path / "pe\nCONFORMS: forged.npy"
    np.save(name, pe_table(get_profile("vaswani"), 8, np.arange(16), "float64"))
    r = H.sinpe("check", str(name), "--no-detect", cwd=tmp_path)
    assert r.rc == 0, r.stderr
    first = r.stdout.splitlines()[0]
    assert "\\n" in first and "forged.npy" in first and not r.stdout.splitlines()[1].startswith("CONFORMS: forged")


# --- 8. the code under test cannot touch the verdict or outlive the check (REQ-CHECK-ISOLATION) -------

linux_only = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="subreaper and /proc are Linux")


class _Watcher:
    """Every process whose command line holds ``mark``, seen while a check runs (polled from /proc)."""

    def __init__(self, mark: str) -> None:
        import threading
        self.mark, self.found, self._stop = mark.encode(), set(), threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()

    def _poll(self) -> None:
        while not self._stop.is_set():
            for e in os.listdir("/proc"):
                try:
                    if e.isdigit() and self.mark in Path(f"/proc/{e}/cmdline").read_bytes():
                        self.found.add(int(e))
                except OSError:
                    pass
            self._stop.wait(0.01)

    def stop(self) -> set[int]:
        self._stop.set()
        self._thread.join()
        return self.found


@pytest.fixture
def pids(work, tmp_path):
    """The mark of the hostile callables' grandchildren (mark.txt beside them), and the watcher that sees them;
    afterwards every one must be gone (checked by PID); any survivor is killed so the test leaves nothing."""
    mark = f"sinpe-orphan-{os.getpid()}-{tmp_path.name}"
    (work / "mark.txt").write_text(mark)
    w = _Watcher(mark)
    yield {}, w
    for pid in w.stop():
        if H.alive(pid):
            os.kill(pid, 9)


@linux_only
@pytest.mark.parametrize("name,rc", [("orphans_setsid", 0), ("orphans_double_fork", 0), ("orphans_then_hangs", 2),
                                     ("orphans_then_dies", 2), ("orphan_holds_stdout", 0)])
def test_no_descendant_outlives_the_check(work, pids, name, rc):
    env, w = pids
    r = H.sinpe("check", f"hostile_impls:{name}", "--d", "8", "--timeout", "3", cwd=work, env=env)
    assert r.rc == rc, (r.rc, r.stderr)
    _all_gone(w)
    assert r.seconds < 20


@linux_only
def test_no_descendant_outlives_detect(work, pids):
    env, w = pids
    r = H.sinpe("detect", "hostile_impls:orphans_setsid", "--d", "8", "--timeout", "3", cwd=work, env=env)
    assert r.rc in (0, 1) and "Traceback" not in r.stderr, (r.rc, r.stderr)
    _all_gone(w)


def _all_gone(w: _Watcher) -> None:
    started = set(w.found)
    assert started, "the callable started no grandchild"
    assert not [p for p in started if H.alive(p)], "a grandchild outlived the check"


@linux_only
def test_command_substitution_does_not_wait_for_a_grandchild(work, pids):
    import subprocess
    import sys
    env, _ = pids
    cmd = [os.path.join(os.path.dirname(sys.executable), "sinpe"), "check", "hostile_impls:orphan_holds_stdout",
           "--d", "8", "--json"]
    r = subprocess.run(cmd, cwd=work, capture_output=True, timeout=60, env={**os.environ, **env})
    assert r.returncode == 0, r.stderr  # `out=$(sinpe check ...)` returned: no one else holds the pipe
    json.loads(r.stdout)


@linux_only
def test_the_child_cannot_write_the_parents_stdout(work):
    r = H.sinpe("check", "hostile_impls:forges_stdout", "--d", "8", "--json", "--no-detect", cwd=work)
    assert r.rc == 1, (r.rc, r.stderr)
    rep = json.loads(r.stdout)  # one document, the honest one (a forged prefix would not parse)
    assert rep["verdict"] == "fails" and "conforms" not in r.stderr


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0 or not os.path.isdir("/proc/self"),
                    reason="the child drops to nobody only when sinpe runs as root (Linux)")
def test_the_child_cannot_write_sinpes_files(work):
    r = H.sinpe("check", "hostile_impls:writes_sinpe", "--d", "8", "--json", cwd=work)
    assert r.rc == 0, r.stderr
    assert any("uid 65534" in n for n in json.loads(r.stdout)["notes"])  # the report says which protection held


landlock = pytest.mark.skipif(not guard.landlock_abi(), reason="the kernel offers no Landlock")


def _targets(tmp_path: Path) -> list[Path]:
    """A world-writable directory (reachable by nobody too) and a file the user owns."""
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    own = tmp_path / "own.txt"
    own.write_text("the user's file")
    os.chmod(own, 0o666)
    return [shared / "dropped.txt", own]


@landlock
def test_the_child_writes_nothing_outside_its_scratch_directory(work, tmp_path):
    paths = _targets(tmp_path)
    (work / "targets.txt").write_text(os.pathsep.join(map(str, paths)))
    r = H.sinpe("check", "hostile_impls:writes_outside", "--d", "8", "--json", "--no-detect", cwd=work)
    assert r.rc == 1, r.stderr  # zeros: an honest finding, computed by a parent the child could not touch
    assert not paths[0].exists() and paths[1].read_text() == "the user's file"
    assert any("Landlock ABI" in n for n in json.loads(r.stdout)["notes"])  # the report says it held


@landlock
def test_without_landlock_the_same_child_does_write(work, tmp_path, monkeypatch):
    """The test above could fail: with the confinement off (in process only), the writes happen."""
    paths = _targets(tmp_path)
    # Landlock off; capabilities as before (a root child keeps CAP_DAC_READ_SEARCH, which writes nothing)
    monkeypatch.setattr(confine, "OFF", {"landlock", "caps"})
    (work / "targets.txt").write_text(os.pathsep.join(map(str, paths)))
    monkeypatch.chdir(work)
    isolate.call_isolated("hostile_impls:writes_outside", np.arange(4.0), 8, timeout=60)
    assert paths[0].exists() and paths[1].read_text() != "the user's file"


@landlock
@pytest.mark.parametrize("name,words", [("kills_sinpe", "PermissionError"), ("listens_tcp", "PermissionError")])
def test_the_child_cannot_signal_sinpe_or_use_tcp(work, name, words):
    if guard.landlock_abi() < (6 if name == "kills_sinpe" else 4):
        pytest.skip("this Landlock ABI does not scope signals / TCP")
    r = H.sinpe("check", f"hostile_impls:{name}", "--d", "8", "--timeout", "20", cwd=work)
    assert one_line_error(r, words) and r.rc == 2  # sinpe is alive to say so, not killed (137)


def test_the_parent_imports_nothing_after_the_child_ran(work):
    """Whatever the child changes on disk, the parent has already imported every module of the verdict."""
    import subprocess
    import sys
    code = ("import sys\n"
            "from sinpe.reference.checking import confine, isolate, targets\n"
            "confine.OFF.update({'landlock', 'caps'})  # writes unconfined: the preload is what protects\n"
            "from sinpe.spec.profiles import get_profile\n"
            "real = isolate._spawn\n"
            "seen = {}\n"
            "def spawn(*a, **k):\n"
            "    seen['before'] = set(sys.modules)\n"
            "    return real(*a, **k)\n"
            "isolate._spawn = spawn\n"
            "from sinpe.reference.checking.report import render, write_junit\n"
            "res = targets.check_target('hostile_impls:shifts_in_place', get_profile('vaswani'), d=8)\n"
            "render(res, 't'); res.to_json()\n"
            "res = targets.check_target('hostile_impls:good', get_profile('vaswani'), d=8)\n"
            "render(res, 't'); write_junit('r.xml', res, 't'); res.to_json()\n"
            "print(sorted(m for m in set(sys.modules) - seen['before'] if m.startswith('sinpe')))\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=work, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]", r.stdout
    os.unlink(work / "r.xml")


def test_text_from_the_child_is_escaped(work):
    r = H.sinpe("check", "hostile_impls:forges_notes", "--d", "8", "--no-detect", cwd=work)
    assert r.rc == 1, r.stderr
    assert "\x1b" not in r.stdout and "\r" not in r.stdout and "\\x1b[2K" in r.stdout


@pytest.mark.parametrize("name,words", [
    ("sparse_result", "file-size limit"),
    ("prints_a_lot", "more than the file-size limit of the call"),
    ("huge_return", "at most"),
])
def test_what_the_child_hands_back_is_bounded(work, name, words):
    r = H.sinpe("check", f"hostile_impls:{name}", "--d", "8", cwd=work, timeout=60)
    one_line_error(r, words)
    assert r.peak_mb < MB_LIMIT, f"peak RSS {r.peak_mb:.0f} MB"
    assert r.seconds < 30


# --- 9. files nobody asked for, and the output contract under failure (REQ-CLI-EXIT) -------------------

def test_the_junit_temporary_name_is_not_a_symlink_followed(work, tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("keep")
    for name in ("r.xml.sinpe-tmp", "r.xml.tmp", ".r.xml.tmp"):  # every name an attacker can predict
        os.symlink(victim, tmp_path / name)
    r = H.sinpe("check", str(work / "t.npy"), "--junit", "r.xml", cwd=tmp_path)
    assert r.rc == 0, r.stderr
    assert victim.read_text() == "keep" and "<testsuite" in (tmp_path / "r.xml").read_text()
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".") or p.is_symlink()) == \
        sorted(["victim", "r.xml", "r.xml.sinpe-tmp", "r.xml.tmp", ".r.xml.tmp"])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_junit_onto_a_non_regular_file_is_refused(work, tmp_path):
    fifo = tmp_path / "pipe.xml"
    os.mkfifo(fifo)
    one_line_error(H.sinpe("check", str(work / "t.npy"), "--junit", str(fifo), cwd=tmp_path), "not a regular file")
    assert fifo.is_fifo()


def test_junit_onto_the_input_is_refused(work, tmp_path):
    shutil.copy(work / "t.npy", tmp_path / "t.npy")
    before = (tmp_path / "t.npy").read_bytes()
    one_line_error(H.sinpe("check", "t.npy", "--junit", "./t.npy", cwd=tmp_path), "is the input")
    assert (tmp_path / "t.npy").read_bytes() == before


def test_a_failing_junit_after_the_report_leaves_one_json_document(work, monkeypatch, capsys):
    from sinpe.reference import cli
    from sinpe.reference.cli import check as check_cmd

    def fail(*a, **k):
        raise OSError("disk full")
    monkeypatch.setattr(check_cmd, "write_junit", fail)
    assert cli.main(["check", str(work / "t.npy"), "--json", "--junit", str(work / "never.xml")]) == 2
    out = capsys.readouterr()
    json.loads(out.out)  # exactly one document: the report (the error is the one line on stderr)
    assert out.err.splitlines() == ["sinpe check: error: disk full"]


@pytest.mark.parametrize("flag", ["--js", "--jso", "--no-det"])
def test_no_abbreviated_flags(work, flag):
    one_line_error(H.sinpe("check", "t.npy", flag, cwd=work), "unrecognized arguments")


def test_sigterm_during_table_removes_its_part_file(tmp_path):
    import signal
    import subprocess
    import sys
    import time
    cmd = [os.path.join(os.path.dirname(sys.executable), "sinpe"), "table", "--d", "256", "--positions",
           "0:400000", "--out", "big.npy", "--workers", "1"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60  # a busy machine may take seconds to start the CLI
        while not any(p.suffix == ".part" for p in tmp_path.iterdir()):
            assert proc.poll() is None and time.monotonic() < deadline, "no .part file while the table ran"
            time.sleep(0.02)
        proc.send_signal(signal.SIGTERM)
        err = proc.communicate(timeout=60)[1].decode()
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert list(tmp_path.iterdir()) == [] and "Traceback" not in err


def test_absurd_workers_are_clamped(tmp_path):
    r = H.sinpe("table", "--d", "64", "--positions", "0:20000", "--out", "w.npy", "--workers", "1000000", cwd=tmp_path)
    assert r.rc == 0, r.stderr
    assert r.peak_mb < MB_LIMIT, r.peak_mb


@linux_only
def test_a_npy_truncated_while_read_is_one_line_not_sigbus(tmp_path):
    import subprocess
    import sys
    np.save(tmp_path / "t.npy", np.zeros((4096, 512)))
    code = ("import os, numpy as np\n"
            "from sinpe.reference import cli\n"
            "from sinpe.reference.checking.loaders import load_table\n"
            "cli._process_guards()\n"
            "t = load_table('t.npy')\n"
            "os.truncate('t.npy', 4096)\n"
            "print(float(np.asarray(t.data).sum()))\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stderr.splitlines() == [("sinpe: error: an input file was truncated while it was read (SIGBUS); "
                                     "nothing was judged")]


# --- 10. sinpe prove --claim ends in time and never says "refuted" for an internal failure (REQ-PROVE-CLAIM) -

@pytest.mark.parametrize("claim", ["(x+y+z+w+1)**256 == 1", "cos(pi/100003) == 1"])
def test_a_claim_that_never_returns_is_unknown_at_the_time_limit(tmp_path, claim):
    r = H.sinpe("prove", "--claim", claim, "--timeout", "2", cwd=tmp_path, timeout=60)
    assert r.rc == 3, (r.rc, r.stdout, r.stderr)
    assert "undecided: time limit" in r.stdout and "Traceback" not in r.stdout + r.stderr
    assert r.seconds < 20


def test_a_recursion_error_is_unknown_never_refuted(tmp_path):
    r = H.sinpe("prove", "--claim", "exp(" * 200 + "x" + ")" * 200 + " == 1", "--json", cwd=tmp_path, timeout=120)
    assert r.rc == 3, (r.rc, r.stdout[-300:], r.stderr[-300:])
    assert json.loads(r.stdout)["status"] == "unknown" and "Traceback" not in r.stderr


@pytest.mark.parametrize("claim", ["x == 1e99999999", "x == 1e-99999999", "x <= 2.5E+5000"])
def test_a_huge_literal_is_refused_at_parse_time(tmp_path, claim):
    one_line_error(H.sinpe("prove", "--claim", claim, cwd=tmp_path, timeout=30), "decimal exponent")


def test_a_claim_out_of_memory_is_undecided():
    from sinpe.reference.checking.limits import Undecided, run_limited
    with pytest.raises(Undecided, match="memory"):
        run_limited(lambda: len(bytearray(4 << 30)), (), 30, memory=1 << 30)
    assert run_limited(lambda a: a + 1, (41,), 30) == 42


# --- 11. the API: every unsupported input is sinpe's input error (REQ-CHECK-INPUT) ----------------------

def _odd_tensors():
    torch = pytest.importorskip("torch")
    dense = torch.zeros(4, 8)
    class Raises:
        def __array__(self, *a, **k):
            raise RuntimeError("no")
    return {"meta": torch.zeros(4, 8, device="meta"), "sparse": dense.to_sparse(),
            "nested": torch.nested.nested_tensor([torch.zeros(2, 8), torch.zeros(3, 8)]), "raises": Raises()}


@pytest.mark.parametrize("kind", ["meta", "sparse", "nested", "raises"])
def test_an_unsupported_tensor_is_an_input_error(kind):
    import warnings

    import sinpe
    from sinpe.reference.inputs import LoadError
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = _odd_tensors()[kind]
    with pytest.raises(LoadError):
        sinpe.check(x, "vaswani")


@pytest.mark.parametrize("flags", [["--positions", "1e400"], ["--positions", "0:4", "--amplitude", "1e400"],
                                   ["--positions", "0:4", "--offset=-1e400"], ["--positions", "0,2.5,1e999"],
                                   ["--positions", "0:4", "--phase-scale", "1e309"]])
def test_table_beyond_binary64_is_one_line(tmp_path, flags):  # REQ-TABLE-API, REQ-CHECK-LIMITS
    """sinpe table with a position or parameter beyond binary64 (|x| >= 2^1024) was an OverflowError traceback;
    now one line, exit 2, and no file is written."""
    from helpers import run_sinpe
    from test_loaders import assert_one_line_exit_2
    res = run_sinpe("table", "--profile", "vaswani", "--d", "8", *flags, "--out", str(tmp_path / "t.npy"))
    assert_one_line_exit_2(res, "beyond binary64")
    assert not list(tmp_path.iterdir())


def test_detect_on_a_huge_zero_table_is_bounded(tmp_path):  # REQ-CHECK-LIMITS, REQ-DETECT-KINDS
    """A sparse 512 MiB all-zero .npy (2^16 x 1024 float64): the grid and rotary readings are bounded (no grid
    reading over 2^22 entries, the rotary one on the first rows); a 2 GiB one took 204 s and 23.8 GB before."""
    import subprocess
    import sys
    path = tmp_path / "zeros.npy"
    m = np.lib.format.open_memmap(path, mode="w+", dtype=np.float64, shape=(1 << 16, 1024))
    del m
    code = ("import resource, sys\nfrom sinpe.reference.cli import main\nrc = main(['detect', sys.argv[1]])\n"
            "print('RSS', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\nsys.exit(rc)")
    res = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=300)
    assert res.returncode == 2 and "every entry of the table is zero" in res.stderr, res.stderr
    rss_kb = int(res.stderr.rsplit("RSS", 1)[1].split()[0])
    assert rss_kb < 1 << 20, rss_kb  # under 1 GiB for a 512 MiB table
