"""No silent skip (REQ-SCAN-NO-SKIP): a tensor the scan's screen reads as a sinusoid is judged -- read with corrupted
rows or entries (the 1-D rule, for every kind) and failed -- or reported inconclusive with the reason (exit 3);
never skipped. The must-show case: an MAE-style decoder checkpoint (a (1, 1 + 14*14, 512) float32 2-D sin-cos
table with a cls row, MAE's own formula: tests/library_formulas.py) whose ``pos_embedding`` has one entry negated,
saved by torch.save of a state_dict and as safetensors: at 0f1533a `sinpe scan` skipped it ("no sinusoid reading")
and exited 0; it must exit 1 naming the tensor.
Reproduce: python -m pytest tests/test_scan_no_skip.py -q
"""
from __future__ import annotations

import json

import library_formulas as L
import numpy as np
import pytest
from helpers import run_sinpe

from sinpe.reference.checking.scan import scan


def _decoder(negate: bool) -> dict[str, np.ndarray]:
    pe = L.mae_2d(512, 14, cls=True).astype(np.float32)[None]   # MAE's decoder_pos_embed, (1, 197, 512)
    if negate:
        pe[0, 50, 7] = -pe[0, 50, 7]
    rng = np.random.default_rng(3)
    return {"decoder.pos_embedding": pe, "decoder.embed.weight": rng.normal(0, 0.02, (512, 768)).astype(np.float32),
            "decoder.mask_token": rng.normal(0, 0.02, (1, 1, 512)).astype(np.float32)}


def _save(tmp_path, tensors, fmt):
    if fmt == "pt":
        torch = pytest.importorskip("torch")
        path = tmp_path / "decoder.pth"
        torch.save({k: torch.from_numpy(v) for k, v in tensors.items()}, path)   # a state_dict, as the library saves it
    else:
        from safetensors.numpy import save_file
        path = tmp_path / "decoder.safetensors"
        save_file(tensors, str(path))
    return str(path)


@pytest.mark.parametrize("fmt", ["pt", "safetensors"])
def test_corrupted_mae_decoder_fails_naming_the_tensor(tmp_path, fmt):
    """REQ-SCAN-NO-SKIP: one negated entry of the decoder's pos_embedding: exit 1, the tensor named as a failing
    grid (read with its corrupted row); the intact decoder conforms (exit 0), so the verdict is the entry's."""
    bad = _save(tmp_path, _decoder(negate=True), fmt)
    res = run_sinpe("scan", bad, "--json")
    assert res.returncode == 1, res.stdout[-2000:] + res.stderr
    rows = {r["name"]: r for r in json.loads(res.stdout)["tensors"]}
    row = rows["decoder.pos_embedding"]
    assert (row["verdict"], row["kind"]) == ("fails", "grid"), row
    assert row["profile_flags"] == "--profile mae --shape 14x14 --cls 1", row
    assert "corrupted rows 50" in row["reason"] and "1 of 100864 entries" in row["reason"], row["reason"]
    assert rows["decoder.embed.weight"]["verdict"] == "skipped"
    text = run_sinpe("scan", bad)
    assert text.returncode == 1 and "decoder.pos_embedding" in text.stdout and "fails" in text.stdout
    good = tmp_path / "good"
    good.mkdir()
    ok = run_sinpe("scan", _save(good, _decoder(negate=False), fmt), "--json")
    assert ok.returncode == 0, ok.stdout[-2000:]
    assert {r["name"]: r["verdict"] for r in json.loads(ok.stdout)["tensors"]}["decoder.pos_embedding"] == "conforms"


def test_corrupted_rotary_cache_fails(tmp_path):
    """The 1-D rule for rotary caches: a llama cos cache (base 10000) and a base-500000 one, one entry negated
    each: read as their rotary plan (the second's base read off the data) and failed; a sin cache with a negated
    entry fails too (detect's 1-D fit reads it with a corrupted column)."""
    cos, _ = L.rope_cache(L.inv_freq_default(64), 256)
    cos5, sin = L.rope_cache(L.inv_freq_default(64, base=500000.0), 256)
    cos, cos5, sin = (np.array(x, np.float32) for x in (cos, cos5, sin))
    cos[100, 5] = -cos[100, 5]
    cos5[30, 40] = -cos5[30, 40]
    sin[30, 40] = -sin[30, 40]
    np.savez(tmp_path / "rope.npz", cos_cached=cos, cos_500k=cos5, sin_cached=sin)
    rows = {r.name: r for r in scan(str(tmp_path / "rope.npz")).rows}
    assert (rows["cos_cached"].verdict, rows["cos_cached"].kind) == ("fails", "rotary"), rows["cos_cached"]
    assert rows["cos_cached"].profile_flags == "--cos FILE --profile llama" and "corrupted rows 100" in rows["cos_cached"].reason
    assert (rows["cos_500k"].verdict, rows["cos_500k"].kind) == ("fails", "rotary"), rows["cos_500k"]
    assert rows["cos_500k"].profile_flags == "--cos FILE --profile llama --base 500000", rows["cos_500k"].profile_flags
    assert rows["sin_cached"].verdict == "fails", rows["sin_cached"]


def test_unreadable_sinusoid_is_inconclusive_never_skipped(tmp_path):
    """A grid with 40 of its 256 rows overwritten is beyond the 1-D rule (at most 5% of the rows): the screen
    still reads it as a sinusoid, so it is inconclusive with the reason (exit 3), not skipped (exit 0)."""
    pe = L.mae_2d(64, 16).astype(np.float32)
    pe[100:140] = np.random.default_rng(0).uniform(-1, 1, (40, 64))
    np.savez(tmp_path / "g.npz", pos_embed=pe)
    s = scan(str(tmp_path / "g.npz"))
    assert s.rows[0].verdict == "inconclusive", s.rows[0]
    assert s.rows[0].reason.startswith("not judged: the screen reads it as a sinusoid table"), s.rows[0].reason
    assert s.exit_code == 3
    res = run_sinpe("scan", str(tmp_path / "g.npz"))
    assert res.returncode == 3 and "inconclusive" in res.stdout
