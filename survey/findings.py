"""Findings stated with evidence. Each cites the installed library source (file:line, located by its
text so the citation follows the installed version) and is re-checked against the survey's results:
``holds`` is computed, never written by hand.
"""
from __future__ import annotations

import importlib.metadata as md
import importlib.util
from pathlib import Path


def cite(dist: str, module: str, needle: str) -> str:
    """``path:line (dist version)`` of the first line of ``module``'s installed source containing ``needle``."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return f"{module}: not installed"
    path = Path(spec.origin)
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if needle in line:
            rel = str(path).split("site-packages/", 1)[-1]
            return f"{rel}:{i} `{line.strip()[:90]}` ({dist} {md.version(dist)})"
    return f"{module}: text {needle!r} not found ({dist} {md.version(dist)})"


def _v(results, cid, dtype="float32", d_kind="even"):
    for e in results["entries"]:
        if e["id"] == cid:
            for v in e["variants"]:
                if v["dtype"] == dtype and v["d_kind"] == d_kind:
                    return v
    return None


def _verdict(results, cid, role, dtype="float32", d_kind="even"):
    v = _v(results, cid, dtype, d_kind)
    if v is None or v["outcome"] != "table":
        return None if v is None else "raises"
    return next((c["verdict"] for c in v["checks"] if c["role"] == role), None)


def _detect(results, cid, key, dtype="float32"):
    v = _v(results, cid, dtype)
    return None if v is None or not v.get("detect") else v["detect"].get(key)


HF = "transformers.models."
OFFSET2 = ["fsmt.SinusoidalPositionalEmbedding", "xglm.XGLMSinusoidalPositionalEmbedding",
           "m2m_100.M2M100SinusoidalPositionalEmbedding", "speech_to_text.Speech2TextSinusoidalPositionalEmbedding"]
F64 = ["distilbert.create_sinusoidal_embeddings", "marian.MarianSinusoidalPositionalEmbedding",
       "speech_to_text.Speech2TextSinusoidalPositionalEmbedding", "whisper.sinusoids"]


def findings() -> list[dict]:
    return [
        {"id": "pyg-docstring-vaswani-code-t2t",
         "text": "PyG's `PositionalEncoding` documents the paper's interleaved formula, but its code is tensor2tensor's "
                 "(frequencies logspace(0, 1, d/2, base 1e-4) = 10000^(-k/(d/2-1)), [sin | cos]): it fails "
                 "`vaswani` in every dtype and `detect` names t2t.",
         "evidence": [cite("torch_geometric", "torch_geometric.nn.encoding", "Attention Is All You Need"),
                      cite("torch_geometric", "torch_geometric.nn.encoding", "torch.logspace(0, 1"),
                      cite("torch_geometric", "torch_geometric.nn.encoding", "torch.cat([torch.sin(out)")],
         "holds": lambda r: all(_verdict(r, "torch_geometric/nn.encoding.PositionalEncoding", "intended", t) == "fails"
                                for t in ("float32", "float64", "float16", "bfloat16"))
                  and _detect(r, "torch_geometric/nn.encoding.PositionalEncoding", "profile") == "t2t"},
        {"id": "offset-2",
         "text": "FSMT, XGLM, M2M100 and Speech2Text give the token at index i the row of position i + 2 "
                 "(fairseq's make_positions: positions begin at padding_idx + 1 = 2, or self.offset = 2): as called "
                 "by the model they conform to `t2t --offset 2`, fail plain `t2t`-at-0 readings, and `detect` finds "
                 "offset 2.",
         "evidence": [cite("transformers", HF + "fsmt.modeling_fsmt", "Position numbers begin at padding_idx+1"),
                      cite("transformers", HF + "xglm.modeling_xglm", "position_ids = position_ids + self.offset"),
                      cite("transformers", HF + "m2m_100.modeling_m2m_100", "self.offset = 2"),
                      cite("transformers", HF + "speech_to_text.modeling_speech_to_text",
                           "incremental_indices.long() + padding_idx")],
         "holds": lambda r: all(_verdict(r, "transformers/" + c, "intended") == "conforms"
                                and str(_detect(r, "transformers/" + c, "offset")) == "2" for c in OFFSET2)},
        {"id": "float64-tables-are-float32",
         "text": "A model moved to float64 gets a float32 table: DistilBERT/XLM/Marian/Pegasus/RoFormer/TimeSeries "
                 "round float64 NumPy values through torch.FloatTensor, and the fairseq-derived modules, Musicgen, "
                 "Whisper and diffusers' get_timestep_embedding compute in float32; their float64 tables fail the "
                 "float64 check by 3e-8 to 5e-5 (diffusers' get_1d_sincos_pos_embed_from_grid with dtype=float64 "
                 "and keras-hub pass).",
         "evidence": [cite("transformers", HF + "distilbert.modeling_distilbert", "torch.FloatTensor(np.sin"),
                      cite("transformers", HF + "marian.modeling_marian", "torch.FloatTensor(np.sin"),
                      cite("transformers", HF + "speech_to_text.modeling_speech_to_text",
                           "torch.arange(num_embeddings, dtype=torch.int64).float()")],
         "holds": lambda r: all(_verdict(r, "transformers/" + c, "intended", "float64") == "fails"
                                and _verdict(r, "transformers/" + c, "intended", "float32") == "conforms" for c in F64)
                  and _verdict(r, "diffusers/get_1d_sincos_pos_embed_from_grid", "intended", "float64") == "conforms"},
        {"id": "odd-d",
         "text": "Odd d: Whisper (both copies), PyG, diffusers' get_1d_sincos_pos_embed_from_grid and open_clip refuse "
                 "it; diffusers' `SinusoidalPositionalEmbedding` fails with a bare shape RuntimeError; "
                 "positional-encodings' `PositionalEncoding1D` rounds d up to d + 1 and truncates, so its "
                 "frequencies are 10000^(-2k/(d+1)) and it fails `vaswani` at odd d; GPT-J's table has d + 1 "
                 "columns.",
         "evidence": [cite("openai-whisper", "whisper.model", "assert channels % 2 == 0"),
                      cite("positional-encodings", "positional_encodings.torch_encodings",
                           "channels = int(np.ceil(channels / 2) * 2)"),
                      cite("diffusers", "diffusers.models.embeddings", 'pe[0, :, 1::2] = torch.cos(position * div_term)')],
         "holds": lambda r: _verdict(r, "openai-whisper/model.sinusoids", "intended", d_kind="odd") == "raises"
                  and _verdict(r, "diffusers/SinusoidalPositionalEmbedding", "intended", d_kind="odd") == "raises"
                  and _verdict(r, "positional-encodings/PositionalEncoding1D", "intended", d_kind="odd") == "fails"
                  and _verdict(r, "positional-encodings/PositionalEncoding1D", "intended") == "conforms"},
        {"id": "half-precision",
         "text": "No float16/bfloat16 table of this survey (d = 64, positions < 1024) has NaN or infinite rows, and every "
                 "1-D one that conforms in float32 also passes the phase tier in float16 and bfloat16; the phase "
                 "tolerance grows with the phase, so at these positions it does not separate half-precision "
                 "frequencies (x-transformers, PyG, positional-encodings compute with float16 inv_freq after "
                 ".to(float16): `detect` reports 'frequencies-float16') from correctly rounded tables.",
         "evidence": [cite("x-transformers", "x_transformers.x_transformers", "emb = einsum('i, j -> i j', pos, self.inv_freq)"),
                      cite("positional-encodings", "positional_encodings.torch_encodings",
                           "pos_x = torch.arange(x, device=tensor.device, dtype=self.inv_freq.dtype)")],
         "holds": lambda r: all(v.get("table", {}).get("non_finite_rows", 0) == 0 for e in r["entries"]
                                for v in e["variants"] if v["outcome"] == "table")
                  and _detect(r, "x-transformers/ScaledSinusoidalEmbedding", "precision", "float16") == "frequencies-float16"},
        {"id": "detect-half-t2t",
         "text": "`detect` on float16 tables names t2t tables (Whisper, diffusers' default timestep embedding, PyG) as "
                 "vaswani-concat, while `check --profile t2t` accepts them: at d = 64 the two schedules differ by "
                 "less than float16 resolution over positions < 1024 in most columns (a detect limit to report).",
         "evidence": ["survey/results.json: detect.profile of the float16 variants"],
         "holds": lambda r: _detect(r, "openai-whisper/model.sinusoids", "profile", "float16") == "vaswani-concat"
                  and _verdict(r, "openai-whisper/model.sinusoids", "intended", "float16") == "conforms"},
        {"id": "rope-slices",
         "text": "Rotary caches sliced by hand (first half of sin and cos) are the paper's frequencies: LLaMA default, "
                 "dynamic (below its original length) and GPT-NeoX conform to vaswani-concat, linear scaling to "
                 "vaswani-concat --phase-scale 0.5; llama3 and YaRN fail it (their frequencies are rescaled per band, "
                 "and YaRN multiplies cos/sin by its attention factor) and need the explicit-frequency profile.",
         "evidence": [cite("transformers", "transformers.modeling_rope_utils", "def _compute_llama3_parameters"),
                      cite("transformers", "transformers.modeling_rope_utils", "def _compute_yarn_parameters")],
         "holds": lambda r: all(
             next(c["verdict"] for c in _v(r, f"transformers/llama.LlamaRotaryEmbedding[{k}]")["checks"]
                  if c["role"] == "derived") == want
             for k, want in (("default", "conforms"), ("linear", "conforms"), ("dynamic", "conforms"),
                             ("llama3", "fails"), ("yarn", "fails")))},
    ]


def evaluate(results: dict) -> list[dict]:
    out = []
    for f in findings():
        try:
            holds = bool(f["holds"](results))
        except (KeyError, StopIteration, TypeError):
            holds = False
        out.append({"id": f["id"], "text": f["text"], "evidence": f["evidence"], "holds": holds})
    return out
