"""The hostile corpus of what sinpe reads and writes (SPEC.md REQ-CHECK-INPUT, REQ-CHECK-LIMITS, REQ-CLI-OUTPUT,
REQ-CLI-EXIT, REQ-SCAN): files that are not what their names say, containers whose members would be read again
and again, tensors huge on paper, outputs aimed at the inputs, names that break reports, exit codes.

Every input is made here at test time in ``tmp_path`` (tests/hostile_inputs.py), each command runs in a scratch
directory, and every case asserts its exit status, one line on stderr and no traceback for an error, that
nothing outside the report asked for was written and every input is unchanged (SHA-256 before and after), a
peak RSS below 300 MB (wait4 over the command and its children) and a time limit (the subprocess timeout).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import hostile_inputs as H
import numpy as np
import pytest

MB_LIMIT = 300   # peak RSS of every rejected or bounded input
TIMEOUT = 60     # seconds: a case that hangs is killed and fails
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")


def run(tmp: Path, *args: str, rc: int, words: str = "", lines: int | None = None, report: str | None = None) -> H.Run:
    """``sinpe ARGS`` in the scratch directory ``tmp``: exit ``rc``, an error is one line holding ``words``, no
    traceback, bounded memory and time, every file of ``tmp`` unchanged and none added but ``report``."""
    before = H.snapshot(tmp)
    r = H.sinpe(*args, cwd=tmp, timeout=TIMEOUT)
    assert r.rc == rc, (r.rc, r.stdout[-800:], r.stderr[-800:])
    assert "Traceback" not in r.stderr + r.stdout, r.stderr
    err = r.stderr.splitlines()
    if rc == 2 or lines is not None:
        assert len(err) == (1 if lines is None else lines), r.stderr
    assert words in (err[0] if rc == 2 else r.stdout), (words, r.stderr, r.stdout[-800:])
    assert r.peak_mb < MB_LIMIT, f"peak RSS {r.peak_mb:.0f} MB"
    after = H.snapshot(tmp)
    assert {k: v for k, v in after.items() if k != report} == before, "a file was written, changed or removed"
    return r


def _pe(rows: int = 64, d: int = 16) -> np.ndarray:
    return H.pe(d, rows)


# --- 1. outputs never replace inputs: one rule for every output flag (REQ-CLI-OUTPUT) -------------------------

@pytest.fixture
def ckpt(tmp_path: Path) -> Path:
    H.safetensors(tmp_path / "w.safetensors", {"pe": H.f64(_pe())})
    return tmp_path


def test_a_scan_never_writes_its_report_over_the_checkpoint(ckpt):
    run(ckpt, "scan", "w.safetensors", "--junit", "w.safetensors", rc=2, words="is the input")
    run(ckpt, "scan", "w.safetensors", "--junit", "./w.safetensors", "--json", rc=2, words="is the input")


def test_nothing_is_written_under_a_scanned_directory(ckpt):
    (ckpt / "ck").mkdir()
    os.replace(ckpt / "w.safetensors", ckpt / "ck" / "w.safetensors")
    run(ckpt, "scan", "ck", "--junit", "ck/w.safetensors", rc=2, words="under the scanned directory")
    run(ckpt, "scan", "ck", "--junit", "ck/new.xml", rc=2, words="under the scanned directory")
    os.symlink("ck", ckpt / "alias")  # the same directory by another name
    run(ckpt, "scan", "ck", "--junit", "alias/new.xml", rc=2, words="under the scanned directory")
    run(ckpt, "scan", "ck", "--junit", "r.xml", rc=0, report="r.xml")


def test_a_shard_an_index_names_is_never_overwritten(ckpt):
    os.replace(ckpt / "w.safetensors", ckpt / "model-00001-of-00001.safetensors")
    (ckpt / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {"pe": "model-00001-of-00001.safetensors"}}))
    run(ckpt, "scan", "model.safetensors.index.json", "--junit", "model-00001-of-00001.safetensors", rc=2,
        words="a shard the index")


def test_the_named_module_and_its_package_are_never_overwritten(tmp_path):
    (tmp_path / "rope.py").write_text(H.ROPE)
    run(tmp_path, "check-apply", "rope:good", "--dim", "8", "--junit", "rope.py", rc=2, words="the source of module rope")
    run(tmp_path, "check", "rope:good", "--d", "8", "--junit", "rope.py", rc=2, words="the source of module rope")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "impl.py").write_text(H.ROPE)
    run(tmp_path, "check-apply", "pkg.impl:good", "--dim", "8", "--junit", "pkg/r.xml", rc=2,
        words="the package directory of pkg")


def test_a_table_is_never_written_over_its_positions_file(tmp_path):
    np.save(tmp_path / "p.npy", np.arange(8))
    run(tmp_path, "table", "--d", "8", "--positions", "p.npy", "--out", "p.npy", rc=2, words="is the input")


# --- 2. only regular files are read, each once (REQ-CHECK-INPUT) ----------------------------------------------

@needs_fifo
@pytest.mark.parametrize("name", ["t.npy", "t.npz", "t.safetensors", "t.pt", "t.csv", "t.json"])
def test_a_fifo_named_as_a_table_is_refused_not_read(tmp_path, name):
    os.mkfifo(tmp_path / name)
    run(tmp_path, "check", name, rc=2, words="is a FIFO")


@needs_fifo
def test_a_fifo_is_refused_as_a_scan_path_and_as_positions(tmp_path):
    os.mkfifo(tmp_path / "w.safetensors")
    run(tmp_path, "scan", "w.safetensors", rc=2, words="is a FIFO")
    np.save(tmp_path / "t.npy", _pe())
    os.mkfifo(tmp_path / "p.npy")
    run(tmp_path, "check", "t.npy", "--positions", "p.npy", rc=2, words="is a FIFO")


@needs_fifo
def test_what_is_not_a_regular_file_in_a_scanned_directory_is_a_row(tmp_path):
    (tmp_path / "ck").mkdir()
    H.safetensors(tmp_path / "ck" / "w.safetensors", {"pe": H.f64(_pe())})
    os.mkfifo(tmp_path / "ck" / "pipe.npz")
    os.mkfifo(tmp_path / "ck" / "pipe.pt")
    os.symlink("/dev/urandom", tmp_path / "ck" / "random.npz")  # reading it would never end
    r = run(tmp_path, "scan", "ck", "--json", rc=3)
    rows = {os.path.basename(t["file"]): t for t in json.loads(r.stdout)["tensors"]}
    assert rows["w.safetensors"]["verdict"] == "conforms"
    assert rows["random.npz"]["verdict"] == "error" and "character device" in rows["random.npz"]["reason"]
    assert all(rows[f]["verdict"] == "error" and "FIFO" in rows[f]["reason"] for f in ("pipe.npz", "pipe.pt"))


def test_an_npz_member_that_is_a_link_entry_is_refused(tmp_path):
    H.npz_with_link_member(tmp_path / "l.npz")
    run(tmp_path, "check", "l.npz", rc=2, words="symbolic link entry")
    run(tmp_path, "scan", "l.npz", rc=2, words="symbolic link entry")


def test_a_shared_list_dag_in_a_pt_is_refused_not_expanded(tmp_path):
    pytest.importorskip("torch")
    from sinpe.reference.checking.loaders import load_table
    from sinpe.reference.inputs import LoadError
    H.shared_list_pt(tmp_path / "dag.pt")  # 2 KB; walked by path: 2^48 lists
    run(tmp_path, "scan", "dag.pt", rc=2, words="shared again and again")
    with pytest.raises(LoadError, match="shared again and again"):  # sinpe check's loader, in process
        load_table(str(tmp_path / "dag.pt"), key="pe")


def test_a_pt_holding_a_cycle_is_refused(tmp_path):
    pytest.importorskip("torch")
    from sinpe.reference.checking.loaders import load_table
    from sinpe.reference.inputs import LoadError
    H.cycle_pt(tmp_path / "cycle.pt")
    with pytest.raises(LoadError, match="a cycle"):
        load_table(str(tmp_path / "cycle.pt"), key="pe")


def test_an_archive_is_indexed_once_not_once_per_member(tmp_path, monkeypatch):
    """600 members: each member header is read once (the old reader read every header for every member: 360 600)."""
    from numpy.lib import format as npf

    from sinpe.reference.checking.scan import scan
    np.savez(tmp_path / "many.npz", **{f"m{i}": np.arange(4.0) for i in range(600)})
    calls = []
    real = npf.read_magic
    monkeypatch.setattr(npf, "read_magic", lambda fh: calls.append(1) or real(fh))
    s = scan(str(tmp_path / "many.npz"))
    assert len(s.rows) == 600 and s.counts()["skipped"] == 600
    assert len(calls) <= 600, len(calls)


def test_a_pt_is_loaded_once_not_once_per_tensor(tmp_path, monkeypatch):
    """200 tensors, one torch.load (the old reader ran torch.load on the whole file for every tensor: 201)."""
    torch = pytest.importorskip("torch")
    from sinpe.reference.checking.scan import scan
    torch.save({f"t{i}": torch.arange(4.0) for i in range(200)}, tmp_path / "many.pt")
    calls = []
    real = torch.load
    monkeypatch.setattr(torch, "load", lambda *a, **k: calls.append(1) or real(*a, **k))
    s = scan(str(tmp_path / "many.pt"))
    assert len(s.rows) == 200 and len(calls) == 1, len(calls)


# --- 3. memory derived from the request (REQ-CHECK-LIMITS) -------------------------------------------------------

@pytest.mark.parametrize("shape", [[3, 1 << 26], [1 << 26, 3]], ids=["wide", "tall"])
def test_a_sparse_half_tensor_is_screened_in_bounded_memory(tmp_path, shape):
    """A 384 MiB F16 tensor that holds nothing on disk (a hole): the screen reads it in blocks (was 613 MB)."""
    H.safetensors(tmp_path / "s.safetensors", {"z": ("F16", shape, b"")}, sparse=True)
    r = run(tmp_path, "scan", "s.safetensors", "--json", rc=0)
    row = json.loads(r.stdout)["tensors"][0]
    assert row["verdict"] == "skipped" and row["reason"] == "all zeros", row


def test_a_wide_tensor_that_passes_the_screen_is_inconclusive_with_its_width(tmp_path):
    """REQ-SCAN-NO-SKIP: a sinusoid by the screen too wide to judge is inconclusive (exit 3), never skipped."""
    rows = np.sin(np.outer(np.arange(3), np.linspace(0.1, 1, (1 << 16) + 1))).astype("<f8")
    H.safetensors(tmp_path / "w.safetensors", {"wide": H.f64(rows)})
    r = run(tmp_path, "scan", "w.safetensors", "--json", rc=3)
    row = json.loads(r.stdout)["tensors"][0]
    assert row["verdict"] == "inconclusive" and "65537 columns: wider than" in row["reason"], row


def test_a_csv_of_64_mib_is_refused_by_its_count_streaming(tmp_path):
    """33 million one-digit numbers in 64 MiB: parsed line by line and refused at 2^22 (was 1.7 GB, 19 s)."""
    H.short_numbers_csv(tmp_path / "t.csv")
    run(tmp_path, "check", "t.csv", rc=2, words="more than 4194304 numbers")


def test_a_json_of_many_numbers_is_refused_before_parsing(tmp_path):
    row = "[" + ",".join(["1"] * 64) + "]"
    (tmp_path / "t.json").write_text("[" + ",".join([row] * ((1 << 16) + 1)) + "]")  # 2^22 + 64 numbers
    run(tmp_path, "check", "t.json", rc=2, words="more than 4194304 numbers")


def test_a_broadcast_view_is_refused_before_it_is_materialised(tmp_path):
    code = ("import numpy as np, sinpe\n"
            "from sinpe.reference.inputs import LoadError\n"
            "try:\n    sinpe.check(np.broadcast_to(np.zeros(64), (15625000, 64)), 'vaswani')\n"
            "except LoadError as e:\n    print('refused:', e)\n")
    r = _python(tmp_path, code)
    assert "refused: table: a broadcast view of 1000000000 entries over 64 stored ones" in r.stdout, r.stdout
    assert r.peak_mb < MB_LIMIT


def test_a_small_broadcast_view_is_judged_as_the_table_it_shows():
    import sinpe
    t = sinpe.table("vaswani", 8, 16)
    view = np.broadcast_to(t[None], (1, 16, 8))[0]
    assert sinpe.check(view, "vaswani").verdict == "conforms"
    assert sinpe.check(np.broadcast_to(t[:1], (16, 8)), "vaswani", detect=False).verdict == "fails"


def _python(tmp: Path, code: str) -> H.Run:
    """``python -c code`` through the same trampoline as the CLI cases (peak RSS, time limit)."""
    import hostile_inputs
    out, err, peak = tmp / ".o", tmp / ".e", tmp / ".p"
    with open(out, "wb") as fo, open(err, "wb") as fe:
        proc = subprocess.run([sys.executable, "-S", "-c", hostile_inputs._TRAMPOLINE, str(peak), str(TIMEOUT),
                               sys.executable, "-c", code], cwd=tmp, stdout=fo, stderr=fe, timeout=TIMEOUT + 30)
    r = H.Run(proc.returncode, out.read_text(), err.read_text(), 0.0, int(peak.read_text()) / 1024)
    for p in (out, err, peak):
        p.unlink()
    return r


# --- 4. reports that parse, and one JSON document (REQ-CLI-EXIT, REQ-CLI-JSON-ERROR) ---------------------------

def test_control_characters_in_names_keep_the_junit_well_formed(tmp_path):
    (tmp_path / "ck").mkdir()
    np.savez(tmp_path / "ck" / "bell\x07\x1b[31m.npz", **{"pe\x1b[2J\x07": _pe()})
    H.safetensors(tmp_path / "ck" / "w.safetensors", {"nul\x00\x1b": H.f64(_pe())})  # a zip name cannot hold NUL
    run(tmp_path, "scan", "ck", "--junit", "r.xml", rc=0, report="r.xml")
    suite = ET.parse(tmp_path / "r.xml").getroot()  # a strict XML 1.0 parser
    assert [c.get("name") for c in suite.iter("testcase")] == ["bell\\x07\\x1b[31m.npz:pe\\x1b[2J\\x07",
                                                            "w.safetensors:nul\\x00\\x1b"]


@pytest.mark.parametrize("command", [["scan", "w.safetensors"], ["check", "w.safetensors"]])
def test_a_junit_that_cannot_be_written_leaves_one_json_document(ckpt, command):
    r = run(ckpt, *command, "--json", "--junit", "/proc/self/r.xml", rc=2, words="r.xml")
    json.loads(r.stdout)  # exactly one document: the report; the failure is the one stderr line


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="SIGBUS and fork: Linux")
def test_a_file_truncated_under_two_workers_is_one_line(tmp_path):
    from safetensors.numpy import save_file
    ck = tmp_path / "ck"
    ck.mkdir()
    for n in "abc":
        np.savez(ck / f"{n}.npz", pe=_pe())
    save_file({"pe": H.pe(64, 4096).astype(np.float32)}, str(ck / "big.safetensors"))
    r = subprocess.run([sys.executable, "-c", H.TRUNCATES_IN_A_WORKER, str(ck)], capture_output=True, text=True,
                       timeout=TIMEOUT)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stderr.splitlines() == [("sinpe scan: error: an input file was truncated while it was read (SIGBUS); "
                                     "nothing was judged")], r.stderr


# --- 5. exit codes by the contract (REQ-CLI-EXIT, REQ-SCAN, REQ-CHECK-APPLY) -------------------------------------

def test_a_rotation_with_one_nan_is_a_finding(tmp_path):
    (tmp_path / "rope.py").write_text(H.ROPE)
    r = run(tmp_path, "check-apply", "rope:one_nan", "--dim", "8", rc=1, words="DOES NOT CONFORM")
    assert "nan" in r.stdout


def test_a_tensor_numpy_cannot_open_is_a_row_and_exit_3(tmp_path):
    H.safetensors(tmp_path / "w.safetensors", {"pe": H.f64(_pe()), "odd": ("F32", [1] * 102, bytes(4))})
    r = run(tmp_path, "scan", "w.safetensors", "--json", rc=3)
    rows = {t["name"]: t for t in json.loads(r.stdout)["tensors"]}
    assert rows["pe"]["verdict"] == "conforms" and rows["odd"]["verdict"] == "error", rows
    assert "maximum supported dimension" in rows["odd"]["reason"]


def test_an_internal_failure_of_a_check_is_exit_3_never_1(tmp_path, monkeypatch):
    from sinpe.reference.checking import door
    from sinpe.reference.checking.scan import scan
    H.safetensors(tmp_path / "w.safetensors", {"pe": H.f64(_pe())})

    def broken(*a, **k):
        raise RuntimeError("an internal failure")
    monkeypatch.setattr(door, "check", broken)
    s = scan(str(tmp_path / "w.safetensors"))
    assert [r.verdict for r in s.rows] == ["error"] and "internal failure" in s.rows[0].reason
    assert s.exit_code == 3


# --- 6. the API: every tensor it cannot read is its input error (REQ-CHECK-INPUT) --------------------------------

def _tensors():
    torch = pytest.importorskip("torch")
    z = torch.zeros(64, 8)
    return {"quantized": lambda: torch.quantize_per_tensor(z, 0.1, 0, torch.qint8),
            "conjugate complex": lambda: torch.zeros(64, 8, dtype=torch.complex64).conj(),
            "float8": lambda: z.to(torch.float8_e4m3fn), "sparse csr": lambda: z.to_sparse_csr(),
            "complex32": lambda: torch.zeros(64, 8, dtype=torch.complex32)}


@pytest.mark.parametrize("kind", ["quantized", "conjugate complex", "float8", "sparse csr", "complex32"])
def test_a_tensor_the_api_cannot_read_is_its_input_error(kind):
    import warnings

    import sinpe
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = _tensors()[kind]()
    for call in (sinpe.check, sinpe.detect):
        with pytest.raises(ValueError) as e:  # sinpe.InputError (REQ-API); on 0f1533a a RuntimeError or TypeError
            call(x)
        assert type(e.value).__name__ == "LoadError" and "\n" not in str(e.value)


def test_the_api_input_error_is_one_class():
    import sinpe
    from sinpe.reference.inputs import LoadError
    assert sinpe.InputError is LoadError and issubclass(sinpe.InputError, ValueError) and "InputError" in sinpe.__all__


def test_a_tensor_with_the_negative_bit_is_read_as_its_values():
    torch = pytest.importorskip("torch")
    import sinpe
    t = torch.tensor(sinpe.table("vaswani", 8, 64))
    view = torch._neg_view(-t)  # the values of t, stored negated with the negative bit set
    assert view.is_neg()
    assert sinpe.check(view, "vaswani").verdict == "conforms"
    assert sinpe.detect(view).profile == "vaswani"


def test_a_masked_array_is_refused():
    import sinpe
    from sinpe.reference.inputs import LoadError
    with pytest.raises(LoadError, match="masked"):
        sinpe.check(np.ma.masked_array(sinpe.table("vaswani", 8, 64)), "vaswani")
