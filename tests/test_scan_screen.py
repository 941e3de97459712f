"""The scan's cheap screen (REQ-SCAN): a tensor is read by detect only when at least half of its columns (or
rows) are sinusoids of the index (the three-term recurrence of the shift theorem). Every kind of table the
tests build independently (tests/library_formulas.py) passes it, in float32 and half precision, with a cls
row, padding or corrupted rows, transposed; random and smooth random-walk weights do not, and are skipped with
the reason, never read by detect (whose readings took 10-17 s on one random 512 x 512 float32 weight).
Reproduce: python -m pytest tests/test_scan_screen.py -q
"""
from __future__ import annotations

import library_formulas as L
import numpy as np
import pytest

from sinpe.reference.checking.scan import SINUSOID_SHARE, scan, sinusoid_share
from sinpe.reference.tables import table


def _tables() -> dict[str, np.ndarray]:
    v = table("vaswani", 64, 300, "float32")
    bad = v.copy()
    bad[50] = np.random.default_rng(1).uniform(-1, 1, 64)
    pad = table("t2t", 64, 130, "float32")
    pad[1] = 0
    return {"vaswani": v, "vaswani-f16": table("vaswani", 64, 300, "float16"), "t2t-pad": pad,
            "corrupted-row": bad, "transposed": v.T.copy(), "detr": L.detr_sine(64, 16, 16),
            "detr-norm": L.detr_sine(64, 16, 16, normalize=True), "diffusers": L.diffusers_2d(64, 16),
            "mae-cls": L.mae_2d(64, 16, True), "pe2d": L.pe2d(64, 16, 16), "timm": L.timm_2d(64, (16, 16)),
            "vit": L.vit_posemb_sincos_2d(16, 16, 64), "pixel-rope": L.timm_pixel_rope(16, 16, 64)[0],
            "pixel-rope-f16": L.timm_pixel_rope(16, 16, 64)[1].astype(np.float16),
            "llama-cos": L.rope_cache(L.inv_freq_default(64), 256)[0],
            "mrope-cos": np.asarray(L.qwen2_vl_mrope(np.stack([np.arange(64)] * 3))[0])}


@pytest.mark.parametrize("name", sorted(_tables()))
def test_every_kind_of_table_passes_the_screen(name):
    t = np.asarray(_tables()[name])
    assert sinusoid_share(t.reshape(-1, t.shape[-1])) >= SINUSOID_SHARE


def test_weights_are_screened_out_fast(tmp_path):
    rng = np.random.default_rng(0)
    weights = {"normal": (rng.normal(size=(512, 512)) * 0.02).astype(np.float32),
               "walk": np.cumsum(rng.normal(size=(512, 64)), axis=0).astype(np.float32),
               "uniform": rng.uniform(-1, 1, (256, 64)).astype(np.float32)}
    for w in weights.values():
        assert sinusoid_share(w) < SINUSOID_SHARE
    np.savez(tmp_path / "w.npz", pe=table("vaswani", 64, 300, "float32"), **weights)
    rows = {r.name: r for r in scan(str(tmp_path / "w.npz")).rows}
    assert rows["pe"].verdict == "conforms"
    for k in weights:
        assert rows[k].verdict == "skipped" and rows[k].reason.startswith("screened out"), rows[k].reason
