"""ONNX and GGUF in `sinpe scan` and `sinpe check` (REQ-IO-FORMATS), every file built here with the formats' own
writers (onnx.helper / numpy_helper, gguf.GGUFWriter): every ONNX initializer (and Constant tensor) and GGUF tensor
is judged as a safetensors tensor is -- the screen, detect, the check -- and a GGUF file's rope_freqs.weight is
checked against its rope metadata (llama.cpp's llama-3 factors, computed here as its converter does, in float32).
Wrong files: a negated entry, wrong factors, a metadata field that disagrees, external data leading out of the
model's directory, lying sizes and counts. Reproduce: python -m pytest tests/test_exported_formats.py -q
"""
from __future__ import annotations

import json
import math
import os

import library_formulas as L
import numpy as np
import pytest
from helpers import run_sinpe

from sinpe.reference.checking.scan import scan

onnx = pytest.importorskip("onnx", reason="the io extra (onnx) is not installed")
gguf = pytest.importorskip("gguf", reason="the io extra (gguf) is not installed")
from onnx import helper, numpy_helper  # noqa: E402


def _vaswani(n: int, d: int) -> np.ndarray:
    p = np.arange(n, dtype=np.float64)[:, None]
    w = np.exp(np.arange(0, d, 2) * (-math.log(10000.0) / d))
    pe = np.zeros((n, d))
    pe[:, 0::2], pe[:, 1::2] = np.sin(p * w), np.cos(p * w)
    return pe.astype(np.float32)


def _tensors(broken: bool) -> dict[str, np.ndarray]:
    """A sinusoid table, a rotary cos/sin pair and a weight, as an exported encoder holds them."""
    cos, sin = (np.asarray(x, np.float32) for x in L.rope_cache(L.inv_freq_default(64), 256))
    pe = _vaswani(256, 64)
    if broken:
        pe[200, 11] = -pe[200, 11]
        cos[100, 5] = -cos[100, 5]
    return {"encoder.pe": pe, "cos_cache": cos, "sin_cache": sin,
            "layer0.weight": np.random.default_rng(1).normal(0, 0.02, (64, 64)).astype(np.float32)}


def _onnx_model(tensors: dict[str, np.ndarray], constant: np.ndarray | None = None):
    """A graph y = x @ layer0.weight + pe-slice..., its tensors as initializers (and one Constant node)."""
    inits = [numpy_helper.from_array(v, k) for k, v in tensors.items()]
    nodes = [helper.make_node("MatMul", ["x", "layer0.weight"], ["y"])]
    if constant is not None:
        nodes.append(helper.make_node("Constant", [], ["timing_table"], value=numpy_helper.from_array(constant)))
    graph = helper.make_graph(nodes, "encoder", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 64])],
                              [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1, 64])], initializer=inits)
    return helper.make_model(graph)


def _rows(path: str) -> dict[str, object]:
    return {r.name: r for r in scan(path).rows}


# --- ONNX ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("external", [False, True])
def test_onnx_initializers_scanned_with_the_right_verdicts(tmp_path, external):
    """REQ-IO-FORMATS: every initializer judged: the table and the cos/sin caches conform, the weight is skipped,
    a float16 Constant table conforms (exit 0); one negated entry in the table and in the cos cache fails each
    (exit 1), whether the values are inline or external data beside the model."""
    for broken in (False, True):
        d = tmp_path / ("broken" if broken else "good")
        d.mkdir()
        model = _onnx_model(_tensors(broken), constant=_vaswani(128, 32).astype(np.float16))
        onnx.save(model, str(d / "encoder.onnx"), save_as_external_data=external, location="encoder.onnx.data",
                  size_threshold=0)
        assert (d / "encoder.onnx.data").exists() == external
        s = scan(str(d / "encoder.onnx"))
        rows = {r.name: r for r in s.rows}
        assert s.exit_code == (1 if broken else 0), rows
        assert rows["layer0.weight"].verdict == "skipped"
        assert (rows["timing_table"].verdict, rows["timing_table"].dtype) == ("conforms", "float16")
        assert rows["sin_cache"].verdict == "conforms" and rows["sin_cache"].kind == "rotary"
        want = "fails" if broken else "conforms"
        assert (rows["encoder.pe"].verdict, rows["encoder.pe"].kind) == (want, "1d"), rows["encoder.pe"]
        assert (rows["cos_cache"].verdict, rows["cos_cache"].kind) == (want, "rotary"), rows["cos_cache"]
    ok = run_sinpe("check", str(tmp_path / "good" / "encoder.onnx"), "--key", "encoder.pe", "--profile", "vaswani")
    assert ok.returncode == 0, ok.stdout
    assert run_sinpe("scan", str(tmp_path / "broken" / "encoder.onnx")).returncode == 1
    if external:  # REQ-CLI-OUTPUT: the model's external data is an input, never a report's file
        res = run_sinpe("scan", str(tmp_path / "good" / "encoder.onnx"), "--out",
                        str(tmp_path / "good" / "encoder.onnx.data"))
        assert res.returncode == 2 and "external data of the model" in res.stderr, res.stderr
    bad = run_sinpe("check", str(tmp_path / "broken" / "encoder.onnx"), "--key", "encoder.pe", "--json")
    assert bad.returncode == 1 and json.loads(bad.stdout)["failures"][0]["position"] == 200


def _external_model(tmp_path, location: str):
    t = numpy_helper.from_array(_vaswani(16, 8), "pe")
    t.ClearField("raw_data")
    t.data_location = onnx.TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", "0"), ("length", str(16 * 8 * 4))):
        e = t.external_data.add()
        e.key, e.value = k, v
    graph = helper.make_graph([], "g", [], [], initializer=[t])
    path = tmp_path / "model" / "m.onnx"
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(helper.make_model(graph).SerializeToString())
    return path


@pytest.mark.parametrize("location", ["../outside.bin", "/etc/hostname", "sub/../../outside.bin", "link.bin"])
def test_onnx_external_data_never_leaves_the_model_directory(tmp_path, location):
    """External data is a file inside the model's directory: a '..', an absolute path or a link leading out is
    refused -- an error row in a scan (exit 3), one line exit 2 in a check -- and the file outside is never read."""
    (tmp_path / "outside.bin").write_bytes(_vaswani(16, 8).tobytes())
    path = _external_model(tmp_path, location)
    os.symlink(tmp_path / "outside.bin", path.parent / "link.bin")
    s = scan(str(path))
    assert s.rows[0].verdict == "error" and s.exit_code == 3, s.rows[0]
    assert "model's directory" in s.rows[0].reason, s.rows[0].reason
    res = run_sinpe("check", str(path), "--profile", "vaswani")
    assert res.returncode == 2 and "model's directory" in res.stderr and len(res.stderr.splitlines()) == 1
    (path.parent / "inside.bin").write_bytes(_vaswani(16, 8).tobytes())  # the same values inside: read
    assert scan(str(_external_model(tmp_path, "inside.bin"))).rows[0].verdict == "conforms"


def test_onnx_lying_sizes_are_refused(tmp_path):
    """A raw_data shorter than its dims, external data longer than its file, a truncated protobuf: one line each."""
    t = numpy_helper.from_array(_vaswani(16, 8), "pe")
    t.dims[0] = 17
    (tmp_path / "dims.onnx").write_bytes(helper.make_model(helper.make_graph([], "g", [], [], initializer=[t]))
                                         .SerializeToString())
    short = _external_model(tmp_path, "short.bin")
    (short.parent / "short.bin").write_bytes(b"\0" * 100)
    whole = _onnx_model(_tensors(False)).SerializeToString()
    (tmp_path / "cut.onnx").write_bytes(whole[: len(whole) // 2])
    for path, words in ((tmp_path / "dims.onnx", "bytes of raw data"), (short, "external data of 512 bytes"),
                        (tmp_path / "cut.onnx", "not a readable .onnx")):
        res = run_sinpe("check", str(path), "--key", "pe", "--profile", "vaswani")
        assert res.returncode == 2 and words in res.stderr and len(res.stderr.splitlines()) == 1, res.stderr


# --- GGUF ----------------------------------------------------------------------------------------------------

def llamacpp_rope_factors(base: float, dim: int, factor: float, low: float, high: float, old: int) -> np.ndarray:
    """llama.cpp convert_hf_to_gguf's Llama-3 rope_freqs: float32 frequencies, the bands in Python floats."""
    freqs = (1.0 / (np.float32(base) ** (np.arange(0, dim, 2, dtype=np.float32) / np.float32(dim)))).astype(np.float32)
    out = []
    for f in freqs:
        wavelen = 2 * math.pi / float(f)
        if wavelen < old / high:
            out.append(1.0)
        elif wavelen > old / low:
            out.append(factor)
        else:
            smooth = (old / wavelen - low) / (high - low)
            out.append(1 / ((1 - smooth) / factor + smooth))
    return np.array(out, dtype=np.float32)


def _gguf(path, factors: np.ndarray, metadata: dict[str, object], broken_cache: bool = False) -> str:
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_embedding_length(4096)
    w.add_head_count(32)
    w.add_rope_freq_base(float(metadata.get("freq_base", 500000.0)))
    w.add_rope_dimension_count(int(metadata.get("dimension_count", 128)))
    if "factor" in metadata:
        w.add_rope_scaling_factor(float(metadata["factor"]))
    if "scaling_type" in metadata:
        w.add_rope_scaling_type(gguf.RopeScalingType(metadata["scaling_type"]))
    cos, _ = L.rope_cache(L.inv_freq_default(128, 500000.0), 300)
    cos = np.array(cos, np.float32)
    if broken_cache:
        cos[200, 3] = -cos[200, 3]
    w.add_tensor("rope_freqs.weight", factors)
    w.add_tensor("rope.cos_cache", cos)
    w.add_tensor("token_embd.weight", np.random.default_rng(2).normal(size=(1000, 128)).astype(np.float16))
    w.add_tensor("blk.0.attn_q.weight", np.random.default_rng(3).normal(size=(128, 128)).astype(np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return str(path)


LLAMA31 = llamacpp_rope_factors(500000.0, 128, 8.0, 1.0, 4.0, 8192)


def test_gguf_tensors_and_rope_metadata_conform(tmp_path):
    """A Llama-3.1 GGUF (llama.cpp's factors for base 500000, dim 128, factor 8): the cos cache and the rope
    factors conform, the weights are skipped (exit 0); `sinpe check --key` reads a tensor."""
    path = _gguf(tmp_path / "llama31.gguf", LLAMA31, {"factor": 8.0})
    rows = _rows(path)
    assert (rows["rope_freqs.weight"].verdict, rows["rope_freqs.weight"].kind) == ("conforms", "gguf-rope")
    assert rows["rope_freqs.weight"].max_abs_error < 1e-6
    assert rows["rope.cos_cache"].verdict == "conforms" and rows["rope.cos_cache"].profile_flags.endswith("--base 500000")
    assert {rows[k].verdict for k in ("token_embd.weight", "blk.0.attn_q.weight")} == {"skipped"}
    assert rows["token_embd.weight"].shape == [1000, 128] and rows["token_embd.weight"].stored_dtype == "F16"
    assert run_sinpe("scan", path).returncode == 0
    res = run_sinpe("check", path, "--key", "rope.cos_cache", "--profile", "llama", "--base", "500000")
    assert res.returncode == 0, res.stdout


@pytest.mark.parametrize("factors,metadata,verdict,words", [
    (LLAMA31 * np.float32(1.01), {"factor": 8.0}, "fails", "no one field changed explains it"),      # wrong factors
    (LLAMA31, {"factor": 16.0}, "fails", "llama.rope.scaling.factor = 16 disagrees"),                # the field lies
    (LLAMA31, {"freq_base": 10000.0}, "fails", "llama.rope.freq_base = 10000 disagrees"),
    (LLAMA31, {"dimension_count": 64}, "fails", "llama.rope.dimension_count = 64 disagrees"),
    (LLAMA31, {"scaling_type": "linear", "factor": 8.0}, "fails", "llama.cpp applies both"),
    (llamacpp_rope_factors(500000.0, 128, 8.0, 1.0, 4.0, 4096), {}, "inconclusive",
     "original_context_length = 4096, a field the file does not hold"),
])
def test_gguf_rope_metadata_mismatch_names_the_field(tmp_path, factors, metadata, verdict, words):
    """REQ-IO-FORMATS: the factors recomputed from the metadata by the llama-3 rule; a mismatch names the field
    (fails, exit 1), or the field the file leaves to llama.cpp's default (inconclusive, exit 3)."""
    path = _gguf(tmp_path / "m.gguf", factors, metadata)
    row = _rows(path)["rope_freqs.weight"]
    assert row.verdict == verdict and words in row.reason, (row.verdict, row.reason)
    assert run_sinpe("scan", path).returncode == {"fails": 1, "inconclusive": 3}[verdict]


def test_gguf_negated_cache_entry_fails(tmp_path):
    path = _gguf(tmp_path / "m.gguf", LLAMA31, {"factor": 8.0}, broken_cache=True)
    row = _rows(path)["rope.cos_cache"]
    assert row.verdict == "fails" and row.kind == "rotary", row
    assert run_sinpe("scan", path).returncode == 1


def test_gguf_lying_header_is_refused(tmp_path):
    """A header declaring 2^40 tensors, a file cut short, a wrong magic: one line each (exit 2), nothing walked;
    in a scanned directory each is an error row (exit 3)."""
    good = open(_gguf(tmp_path / "m.gguf", LLAMA31, {"factor": 8.0}), "rb").read()
    lying = good[:8] + (1 << 40).to_bytes(8, "little") + good[16:]
    cases = {"count.gguf": (lying, "declares 1099511627776 tensors"), "cut.gguf": (good[:4000], "not a readable GGUF"),
             "magic.gguf": (b"FUGG" + good[4:], "no GGUF magic")}
    bad = tmp_path / "bad"
    bad.mkdir()
    for name, (data, words) in cases.items():
        (bad / name).write_bytes(data)
        for command in (("check", str(bad / name), "--key", "rope.cos_cache"), ("scan", str(bad / name))):
            res = run_sinpe(*command)
            assert res.returncode == 2 and words in res.stderr and len(res.stderr.splitlines()) == 1, (name, res.stderr)
    s = scan(str(bad))
    assert [r.verdict for r in s.rows] == ["error"] * 3 and s.exit_code == 3
