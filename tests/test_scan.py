"""sinpe scan (SPEC.md REQ-SCAN): a generated 20-tensor checkpoint (8 correct tables of every kind, 2 wrong ones,
10 unrelated tensors) is found, judged and skipped tensor by tensor, in every container; JSON, JSON lines and
JUnit; input errors exit 2; peak RSS stays below 2x the largest tensor over a small scan's.

Reproduce: python -m pytest tests/test_scan.py -k NAME
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import torch
from safetensors.numpy import save_file

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from helpers import SCRIPT, assert_exit, run_sinpe  # noqa: E402
from scan_checkpoints import twenty, vaswani  # noqa: E402

from sinpe.reference.checking.scan import scan  # noqa: E402

TWENTY = twenty()


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory):
    p = tmp_path_factory.mktemp("scan") / "model.safetensors"
    save_file({k: np.ascontiguousarray(v) for k, (v, _) in TWENTY.items()}, str(p))
    return p


def test_twenty_tensors_found_judged_and_skipped(ckpt, tmp_path):  # REQ-SCAN
    junit = tmp_path / "scan.xml"
    res = run_sinpe("scan", ckpt, "--json", "--workers", 2, "--junit", junit)
    assert_exit(res, 1)  # two tables do not conform
    out = json.loads(res.stdout)
    rows = {r["name"]: r for r in out["tensors"]}
    assert len(rows) == 20
    for name, (_, want) in TWENTY.items():
        assert rows[name]["verdict"] == want, (name, rows[name])
        if want == "skipped":
            assert rows[name]["reason"] and rows[name]["max_abs_error"] is None and rows[name]["kind"] is None
    assert {rows[n]["kind"] for n in ("encoder.pe", "vit.pos_embed", "rope.cos_cached")} == {"1d", "grid", "rotary"}
    assert rows["vit.pos_embed"]["profile_flags"].startswith("--profile mae") and rows["gptj.cos"]["profile_flags"] == "--profile gptj"
    assert "3 of 32768 entries" in rows["bad.pe_corrupted"]["reason"] and rows["bad.pe_corrupted"]["max_abs_error"] > 0.04
    s = out["summary"]
    assert (s["found"], s["conforms"], s["fails"], s["skipped"], s["exit_code"]) == (10, 8, 2, 10, 1)
    xml = junit.read_text()
    assert xml.count("<testcase") == 20 and 'failures="2"' in xml and 'skipped="10"' in xml


def test_every_container(tmp_path):  # REQ-SCAN: .npz, .pt (weights_only), sharded index, directory
    pick = ["encoder.pe", "bad.pe_corrupted", "rope.sin_cached", "layer0.q_proj.weight", "position_ids"]
    arrays = {k: np.ascontiguousarray(TWENTY[k][0]) for k in pick}
    want = {k: TWENTY[k][1] for k in pick}
    np.savez(tmp_path / "a.npz", **arrays)
    torch.save({k: torch.from_numpy(v) for k, v in arrays.items()}, tmp_path / "a.pt")
    shards = tmp_path / "sharded"
    shards.mkdir()
    save_file({k: arrays[k] for k in pick[:2]}, str(shards / "m-1.safetensors"))
    save_file({k: arrays[k] for k in pick[2:]}, str(shards / "m-2.safetensors"))
    (shards / "m.safetensors.index.json").write_text(json.dumps(
        {"weight_map": {k: "m-1.safetensors" if k in pick[:2] else "m-2.safetensors" for k in pick}}))
    for path in (tmp_path / "a.npz", tmp_path / "a.pt", shards / "m.safetensors.index.json", shards):
        s = scan(str(path))
        assert {r.name: r.verdict for r in s.rows} == want, path
        assert s.exit_code == 1


def test_jsonl_lines_merge(ckpt):  # REQ-SCAN: one line per tensor, then the summary; cat merges scans
    res = run_sinpe("scan", ckpt, "--jsonl", "--workers", 2)
    assert_exit(res, 1)
    lines = [json.loads(x) for x in res.stdout.splitlines()]
    assert len(lines) == 21 and lines[-1]["summary"]["tensors"] == 20
    assert all(x["path"] == str(ckpt) for x in lines[:-1])


def test_only_conforming_tables_exit_0(tmp_path):
    p = tmp_path / "ok.safetensors"
    save_file({"pe": TWENTY["encoder.pe"][0], "w": TWENTY["layer0.q_proj.weight"][0]}, str(p))
    res = run_sinpe("scan", p)
    assert_exit(res, 0)
    assert "1 sinusoid tables found (1 conform" in res.stdout


@pytest.mark.parametrize("make, words", [
    (lambda d: d / "missing.safetensors", "no such file"),
    (lambda d: _write(d / "bad.safetensors", (10**9).to_bytes(8, "little") + b"{}"), "header"),
    (lambda d: _write(d / "i.safetensors.index.json", json.dumps({"weight_map": {"x": "../x.safetensors"}})), "beside"),
    (lambda d: _pickled(d / "code.pt"), "weights_only"),
])
def test_input_errors_are_one_line(tmp_path, make, words):  # REQ-SCAN: sizes validated, nothing unpickled
    res = run_sinpe("scan", make(tmp_path))
    assert_exit(res, 2)
    assert words in res.stderr and res.stderr.count("\n") == 1 and "Traceback" not in res.stderr


def _write(p, data):
    p.write_bytes(data) if isinstance(data, bytes) else p.write_text(data)
    return p


class _Obj:
    pass


def _pickled(p):
    torch.save({"x": _Obj()}, p)
    return p


def test_peak_memory_is_bounded(tmp_path):  # REQ-SCAN: < 2x the largest tensor over a small scan's peak
    big, small = tmp_path / "big.safetensors", tmp_path / "small.safetensors"
    table = vaswani(32768, 512)                                     # 64 MiB, the largest tensor
    weight = np.random.default_rng(0).normal(0, 0.02, table.shape).astype(np.float32)
    save_file({"pe": table, "w": weight}, str(big))
    save_file({"pe": vaswani(64, 16)}, str(small))
    del weight

    def peak(path):
        code = ("import resource, subprocess, sys; r = subprocess.run([sys.argv[1], 'scan', sys.argv[2]], "
                "capture_output=True); print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
        out = subprocess.run([sys.executable, "-c", code, SCRIPT, str(path)], capture_output=True, text=True,
                             check=True).stdout.split()
        assert out[0] == "0", out
        return int(out[1]) * 1024
    base, top = peak(small), peak(big)
    assert top < base + 2 * table.nbytes, f"peak {top / 2**20:.0f} MiB, small scan {base / 2**20:.0f} MiB"
