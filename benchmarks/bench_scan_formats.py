"""sinpe scan of one model in four containers (REQ-IO-FORMATS): safetensors (the baseline), ONNX with inline
initializers, ONNX with external data, GGUF. The model: 8 sinusoid tables (1-D, a grid with a cls row, rotary
cos/sin caches) and 24 float32 weights of 1024 x 1024 (~110 MB); each scan runs in a fresh process (`sinpe scan
FILE --json`, one worker), which reports its tensors/s and its peak RSS (ru_maxrss). Ratios are against the
safetensors scan of the same tensors in the same run.

    python benchmarks/run.py scan_formats
"""
from __future__ import annotations

import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

SCAN = """
import json, resource, sys, time
from sinpe.reference.checking.scan import scan
t0 = time.perf_counter(); s = scan(sys.argv[1]); dt = time.perf_counter() - t0
print(json.dumps({"tensors": len(s.rows), "seconds": dt, "counts": s.counts(),
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _tensors() -> dict[str, np.ndarray]:
    p = np.arange(2048, dtype=np.float64)[:, None]
    w = np.exp(np.arange(0, 512, 2) * (-math.log(10000.0) / 512))
    pe = np.zeros((2048, 512))
    pe[:, 0::2], pe[:, 1::2] = np.sin(p * w), np.cos(p * w)
    inv = 1.0 / 10000 ** (np.arange(0, 128, 2) / 128)
    emb = np.concatenate([np.outer(np.arange(4096), inv)] * 2, axis=1)
    g = np.arange(14, dtype=np.float64)
    om = 1.0 / 10000 ** (np.arange(192) / 192.0)
    axis = lambda x: np.concatenate([np.sin(np.outer(x, om)), np.cos(np.outer(x, om))], axis=1)
    gw, gh = np.meshgrid(g, g)
    grid = np.concatenate([np.zeros((1, 768)), np.concatenate([axis(gw.reshape(-1)), axis(gh.reshape(-1))], 1)])
    out = {"encoder.pe": pe, "decoder.pe": pe[:1024], "rope.cos": np.cos(emb), "rope.sin": np.sin(emb),
           "vit.pos_embed": grid, "rope2.cos": np.cos(emb[:2048]), "rope2.sin": np.sin(emb[:2048]),
           "t5.timing": pe[:512, :256]}
    rng = np.random.default_rng(0)
    out.update({f"layers.{i}.weight": rng.normal(0, 0.02, (1024, 1024)) for i in range(24)})
    return {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in out.items()}


def _write(d: Path, tensors: dict[str, np.ndarray]) -> dict[str, Path]:
    import gguf
    import onnx
    from onnx import helper, numpy_helper
    from safetensors.numpy import save_file
    files = {"safetensors": d / "m.safetensors", "onnx": d / "m.onnx", "onnx-external": d / "ext" / "m.onnx",
             "gguf": d / "m.gguf"}
    save_file(tensors, str(files["safetensors"]))
    graph = helper.make_graph([], "m", [], [], initializer=[numpy_helper.from_array(v, k) for k, v in tensors.items()])
    onnx.save(helper.make_model(graph), str(files["onnx"]))
    files["onnx-external"].parent.mkdir()
    onnx.save(helper.make_model(graph), str(files["onnx-external"]), save_as_external_data=True, location="m.data",
              size_threshold=0)
    w = gguf.GGUFWriter(str(files["gguf"]), "llama")
    for k, v in tensors.items():
        w.add_tensor(k, v)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return files


def main() -> dict[str, float]:
    tensors = _tensors()
    out: dict[str, float] = {"model_mib": sum(v.nbytes for v in tensors.values()) / 2**20}
    with tempfile.TemporaryDirectory() as tmp:
        files = _write(Path(tmp), tensors)
        runs = {}
        for fmt, path in files.items():
            res = subprocess.run([sys.executable, "-c", SCAN, str(path)], capture_output=True, text=True, check=True)
            runs[fmt] = json.loads(res.stdout.strip().splitlines()[-1])
            assert runs[fmt]["counts"] == runs["safetensors"]["counts"], (fmt, runs[fmt]["counts"])
    base = runs["safetensors"]
    for fmt, r in runs.items():
        out[f"{fmt}_tensors_per_s"] = r["tensors"] / r["seconds"]
        out[f"{fmt}_peak_rss_mib"] = r["peak_rss_mib"]
        if fmt != "safetensors":
            out[f"{fmt}_time_vs_safetensors"] = r["seconds"] / base["seconds"]
            out[f"{fmt}_rss_vs_safetensors"] = r["peak_rss_mib"] / base["peak_rss_mib"]
    return out


if __name__ == "__main__":
    print(json.dumps(main(), indent=1))
