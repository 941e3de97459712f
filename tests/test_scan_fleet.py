"""Scans at fleet scale (REQ-SCAN-SHARD): ``--shard K/N`` splits the files of PATH by their relative path (every
file in exactly one shard, the same wherever the tree is), ``--jsonl``/``--out`` lines merge without loss
(``sinpe scan --merge``), and the Dask recipe of reference/README.md, run as it stands on a
``LocalCluster(n_workers=2, processes=True)``, gives the JSON lines of a single-process scan (sorted; each row's
``seconds`` aside, the one key that is a measurement).
Reproduce: python -m pytest tests/test_scan_fleet.py -q
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from helpers import run_sinpe

from sinpe.reference.checking.scan_files import Shard, list_tensors
from sinpe.reference.checking.scan_jsonl import ROW_KEYS
from sinpe.reference.tables import table

README = Path(__file__).resolve().parents[1] / "reference" / "README.md"


@pytest.fixture
def fleet(tmp_path):
    """Nine checkpoints in three folders: tables (one wrong), weights, a corrupt file."""
    root = tmp_path / "ckpts"
    rng = np.random.default_rng(5)
    for i in range(9):
        d = root / f"family{i % 3}"
        d.mkdir(parents=True, exist_ok=True)
        pe = table("vaswani", 16, 40 + i, "float32")
        if i == 4:
            pe[7, 3] += 0.01
        np.savez(d / f"model{i}.npz", pe=pe, w=rng.normal(size=(32, 16)).astype(np.float32))
    (root / "family0" / "broken.npz").write_bytes(b"PK not a zip")
    return root


def _rows(lines):
    """The row lines as comparable objects: sorted, without the measured ``seconds``."""
    rows = [json.loads(x) for x in lines if x.strip() and "summary" not in json.loads(x)]
    return sorted(json.dumps({k: v for k, v in r.items() if k != "seconds"}, sort_keys=True) for r in rows)


def _summary(lines):
    s = json.loads([x for x in lines if x.strip()][-1])["summary"]
    return {k: s[k] for k in ("tensors", "found", "conforms", "fails", "inconclusive", "skipped", "error", "exit_code")}


def test_shards_partition_the_files_by_relative_path(fleet, tmp_path):
    """Every file in exactly one shard; the shard is SHA-256 of the path relative to PATH (first 8 bytes, big
    endian, mod N, plus 1: computed here with hashlib), so a copy of the tree elsewhere splits the same."""
    everything = {(os.path.relpath(r.file, fleet), r.name) for r in list_tensors(str(fleet))}
    copy = tmp_path / "elsewhere" / "ckpts"
    shutil.copytree(fleet, copy)
    for n in (1, 2, 5):
        parts = [{(os.path.relpath(r.file, fleet), r.name) for r in list_tensors(str(fleet), Shard(k, n))}
                 for k in range(1, n + 1)]
        assert set().union(*parts) == everything and sum(map(len, parts)) == len(everything)
        for k, part in enumerate(parts, 1):
            want = {int.from_bytes(hashlib.sha256(f.encode()).digest()[:8], "big") % n + 1 == k for f, _ in part}
            assert want <= {True}
            moved = {(os.path.relpath(r.file, copy), r.name) for r in list_tensors(str(copy), Shard(k, n))}
            assert moved == part


def test_shard_flag_is_checked():
    for bad in ("0/3", "4/3", "3", "a/b", "1/0", "-1/2"):
        res = run_sinpe("scan", ".", f"--shard={bad}")
        assert res.returncode == 2 and "--shard must be K/N" in res.stderr, (bad, res.stderr)


def test_sharded_scan_merges_to_the_single_scan(fleet, tmp_path):
    """REQ-SCAN-SHARD: three shards written with --out, merged with --merge: the single scan's rows (sorted) and
    summary, exit 1 as it (one wrong table) -- and the merge refuses a shard given twice."""
    single = run_sinpe("scan", str(fleet), "--jsonl")
    assert single.returncode == 1, single.stderr
    parts = []
    for k in (1, 2, 3):
        out = tmp_path / f"part-{k}.jsonl"
        res = run_sinpe("scan", str(fleet), "--shard", f"{k}/3", "--out", str(out))
        assert res.returncode in (0, 1, 3) and out.exists(), res.stderr
        assert json.loads(out.read_text().splitlines()[-1])["summary"]["shard"] == f"{k}/3"
        parts.append(str(out))
    merged = run_sinpe("scan", "--merge", *parts)
    assert merged.returncode == 1, merged.stderr
    lines, want = merged.stdout.splitlines(), single.stdout.splitlines()
    assert _rows(lines) == _rows(want) and len(_rows(want)) == 19
    assert _summary(lines) == _summary(want)
    assert json.loads(lines[-1])["summary"]["shards"] == 3
    again = run_sinpe("scan", "--merge", parts[0], parts[0])
    assert again.returncode == 2 and "listed twice" in again.stderr


def test_merge_input_is_untrusted(tmp_path):
    """--merge reads regular files of row or summary lines only: anything else is one line, exit 2."""
    cases = {"not-json.jsonl": "{nope\n", "wrong-keys.jsonl": '{"file": "a", "name": "b"}\n',
             "verdict.jsonl": json.dumps(dict.fromkeys(ROW_KEYS, "x")) + "\n"}  # every key, a verdict of none
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        res = run_sinpe("scan", "--merge", str(tmp_path / name))
        assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1, (name, res.stderr)
        assert f"{name} line 1" in res.stderr, res.stderr
    os.mkfifo(tmp_path / "pipe.jsonl")
    res = run_sinpe("scan", "--merge", str(tmp_path / "pipe.jsonl"))
    assert res.returncode == 2 and "FIFO" in res.stderr


def test_out_passes_the_one_output_rule(fleet, tmp_path):
    """REQ-CLI-OUTPUT: --out is never under the scanned directory, never a file --merge reads, never a directory."""
    res = run_sinpe("scan", str(fleet), "--out", str(fleet / "scan.jsonl"))
    assert res.returncode == 2 and "under the scanned directory" in res.stderr
    part = tmp_path / "p.jsonl"
    assert run_sinpe("scan", str(fleet), "--out", str(part)).returncode == 1
    res = run_sinpe("scan", "--merge", str(part), "--out", str(part))
    assert res.returncode == 2 and "it would be overwritten" in res.stderr
    res = run_sinpe("scan", str(fleet), "--out", str(tmp_path))
    assert res.returncode == 2 and "is a directory" in res.stderr


def _recipe() -> str:
    """The Dask recipe of reference/README.md, as written there."""
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(# fleet_scan\.py.*?)```", text, re.S)
    assert len(blocks) == 1, "reference/README.md has one fleet_scan.py recipe"
    return blocks[0]


def test_dask_recipe_on_a_local_cluster_matches_the_single_scan(fleet):
    """REQ-SCAN-SHARD: the README's recipe on two worker processes (6 shards) gives the single-process scan's
    JSON lines (sorted, rows' seconds aside) and its summary."""
    pytest.importorskip("distributed", reason="the fleet extra (dask.distributed) is not installed")
    from dask.distributed import Client, LocalCluster
    ns: dict = {"__name__": "sinpe_fleet_recipe"}
    exec(compile(_recipe(), str(README), "exec"), ns)
    single = run_sinpe("scan", str(fleet), "--jsonl").stdout.splitlines()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        lines = ns["scan_on_dask"](client, str(fleet), 6)
    assert _rows(lines) == _rows(single) and len(_rows(lines)) == 19
    assert _summary(lines) == _summary(single) and _summary(lines)["exit_code"] == 1
