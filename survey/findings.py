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


def _check(results, cid, role, dtype="float32", d_kind="even"):
    v = _v(results, cid, dtype, d_kind)
    if v is None or v["outcome"] != "table":
        return None
    return next((c for c in v["checks"] if c["role"] == role), None)


def _ids(results, kind=None, status="preset"):
    return [e["id"] for e in results["entries"] if (kind is None or e["kind"] == kind)
            and e["intended"]["status"] == status]


def _detect(results, cid, key, dtype="float32"):
    v = _v(results, cid, dtype)
    return None if v is None or not v.get("detect") else v["detect"].get(key)


HF = "transformers.models."
OFFSET2 = ["fsmt.SinusoidalPositionalEmbedding", "xglm.XGLMSinusoidalPositionalEmbedding",
           "m2m_100.M2M100SinusoidalPositionalEmbedding", "speech_to_text.Speech2TextSinusoidalPositionalEmbedding"]
GRIDS = {"open_clip_torch/get_2d_sincos_pos_embed": "mae", "open_clip_torch/get_2d_sincos_pos_embed[cls_token=True]": "mae",
         "diffusers/get_2d_sincos_pos_embed": "diffusers",
         "diffusers/get_2d_sincos_pos_embed[base_size=8,interpolation_scale=2]": "diffusers",
         "timm/build_sincos2d_pos_embed": "timm", "transformers/detr.DetrSinePositionEmbedding": "detr"}
LLAMA = [f"transformers/llama.LlamaRotaryEmbedding[{k}]" for k in ("default", "linear", "dynamic", "llama3", "yarn")]
PAIRS = ["diffusers/get_1d_rotary_pos_embed", "x-transformers/RotaryEmbedding", "rotary-embedding-torch/RotaryEmbedding"]
HALVES = [*LLAMA, "transformers/gpt_neox.GPTNeoXRotaryEmbedding", "keras-hub/RotaryEmbedding"]
HALF_1D = ["diffusers/get_1d_sincos_pos_embed_from_grid", "keras-hub/SinePositionEncoding",
           "positional-encodings/PositionalEncoding1D", "x-transformers/ScaledSinusoidalEmbedding"]
HALF_ROPE = [*LLAMA[:3], "transformers/gpt_neox.GPTNeoXRotaryEmbedding", "x-transformers/RotaryEmbedding",
             "rotary-embedding-torch/RotaryEmbedding"]
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
        {"id": "half-1d-computed-in-half",
         "text": "1-D float16/bfloat16 tables are judged as computed in float32 and rounded once (TOL-WORKING's "
                 "default): diffusers' get_1d_sincos_pos_embed_from_grid (given dtype=), keras-hub's "
                 "SinePositionEncoding, positional-encodings' PositionalEncoding1D and x-transformers' "
                 "ScaledSinusoidalEmbedding compute in half precision (inv_freq or omega in the table's dtype) and "
                 "fail by 0.05 to 1.99; every other 1-D table that conforms in float32 conforms in half precision. "
                 "With --working native almost every half table is inconclusive (the phase tier in half precision "
                 "cannot judge the fast columns at positions near 1000). No half table has NaN or infinite rows.",
         "evidence": [cite("diffusers", "diffusers.models.embeddings", "omega = torch.arange(embed_dim // 2, device=pos.device, dtype=dtype)"),
                      cite("positional-encodings", "positional_encodings.torch_encodings",
                           "pos_x = torch.arange(x, device=tensor.device, dtype=self.inv_freq.dtype)"),
                      cite("x-transformers", "x_transformers.x_transformers", "emb = einsum('i, j -> i j', pos, self.inv_freq)")],
         "holds": lambda r: {e["id"] for e in r["entries"] if e["kind"] == "1d"
                             and _verdict(r, e["id"], "intended") == "conforms"
                             and any(_verdict(r, e["id"], "intended", t) == "fails" for t in ("float16", "bfloat16"))}
                  == set(HALF_1D)
                  and all(v.get("table", {}).get("non_finite_rows", 0) == 0 for e in r["entries"]
                          for v in e["variants"] if v["outcome"] == "table")},
        {"id": "rotary-half-precision",
         "text": "Half-precision rotary caches: LLaMA and GPT-NeoX modules moved with .to(float16/bfloat16) round "
                 "their inv_freq buffer (Module.to casts it; forward widens the rounded values to float32), "
                 "x-transformers and rotary-embedding-torch compute in half precision (rotary-embedding-torch even "
                 "builds its positions with torch.arange(n, dtype=bfloat16): off by up to 1.99). `sinpe check "
                 "--profile llama|gptj` rejects all of these by default (a half cache is held to a float32 evaluation "
                 "rounded once, TOL-WORKING), and accepts diffusers' get_1d_rotary_pos_embed and keras-hub, which "
                 "compute in float32 and cast once. Under --working native every half cache is inconclusive, never "
                 "conforming: the native bound judges nothing at these angles.",
         "evidence": [cite("transformers", HF + "llama.modeling_llama", "self.inv_freq = nn.Buffer(inv_freq, persistent=False)"),
                      cite("transformers", HF + "llama.modeling_llama", "self.inv_freq.to(device=x.device, dtype=torch.float)"),
                      cite("rotary-embedding-torch", "rotary_embedding_torch.rotary_embedding_torch",
                           "return (torch.arange(seq_len, device = device, dtype = dtype) + offset)")],
         "holds": lambda r: all(_verdict(r, c, "intended", t) == "fails" for c in HALF_ROPE
                                for t in ("float16", "bfloat16"))
                  and all(_verdict(r, c, "intended", t) == "conforms"
                          for c in ("diffusers/get_1d_rotary_pos_embed", "keras-hub/RotaryEmbedding")
                          for t in ("float16", "bfloat16"))
                  and all(_verdict(r, c, "derived", t) == "fails" for c in HALF_ROPE for t in ("float16", "bfloat16"))
                  and _check(r, "rotary-embedding-torch/RotaryEmbedding", "intended", "bfloat16")["max_abs_error"] > 1.9
                  and all(_verdict(r, c, "native", t) == "inconclusive" for c in HALVES + PAIRS
                          for t in ("float16", "bfloat16"))},
        {"id": "rotary-presets",
         "text": "Every rotary cache with a preset conforms to it in float32: LLaMA's default, linear (factor 2), "
                 "dynamic NTK (below its original length), Llama-3 (factor 8, L = 256) and YaRN (factor 4, L = 256, "
                 "attention factor 0.1 ln 4 + 1) to `llama` with the matching --rule flags; GPT-NeoX and keras-hub to "
                 "`llama`; diffusers' get_1d_rotary_pos_embed(repeat_interleave_real=True), x-transformers and "
                 "rotary-embedding-torch to `gptj` (pairs). The pairs caches, Llama-3, YaRN and linear fail the "
                 "canonical `llama`; `detect` names every one of them, the scaled ones by their rule (`--rule linear "
                 "--factor 2`, `llama3.1 --base 10000 --original-max 256`, `--rule yarn --factor 4 --original-max 256`).",
         "evidence": [cite("transformers", "transformers.modeling_rope_utils", "def _compute_llama3_parameters"),
                      cite("transformers", "transformers.modeling_rope_utils", "def _compute_yarn_parameters"),
                      cite("diffusers", "diffusers.models.embeddings", "def get_1d_rotary_pos_embed")],
         "holds": lambda r: all(_verdict(r, c, "intended") == "conforms" for c in HALVES + PAIRS)
                  and all(_verdict(r, c, "canonical") == "fails" for c in PAIRS + LLAMA[1:2] + LLAMA[3:])
                  and all(w in (_detect(r, c, "profile_flags") or "") for c, w in zip(
                      LLAMA[1:2] + LLAMA[3:], ("--rule linear --factor 2", ("--profile llama3.1 --base 10000 "
                                               "--original-max 256"), "--rule yarn --factor 4 --original-max 256"), strict=True))
                  and _detect(r, LLAMA[0], "profile") == "llama"
                  and _detect(r, "rotary-embedding-torch/RotaryEmbedding", "profile") == "gptj"},
        {"id": "grid-axis-orders",
         "text": "Three channel plans for one 2-D grid: MAE/open_clip and diffusers put the width axis first, "
                 "[x | y], each [sin | cos] (the array named emb_h is computed from grid[0], which holds w); DETR "
                 "puts y first, [y | x], each interleaved, positions from 1; timm groups by function, "
                 "[sin_y | sin_x | cos_y | cos_x]. Each conforms to its preset in float32, timm's and DETR's fail "
                 "the canonical `mae`, and `detect` names MAE, timm and DETR grids (cls row included) in float32 and "
                 "MAE's and timm's in float16 too; diffusers' base_size/interpolation_scale grid (sigma = 1/4) "
                 "conforms to `diffusers --base-size 8 --interpolation-scale 2`, and `detect` reads it as "
                 "`diffusers --base-size 4` (the same sigma).",
         "evidence": [cite("open_clip_torch", "open_clip.pos_embed", "grid = np.meshgrid(grid_w, grid_h)"),
                      cite("timm", "timm.layers.pos_embed_sincos",
                           "pos_emb = torch.stack([torch.sin(pos2), torch.cos(pos2)], dim=stack_dim)"),
                      cite("transformers", HF + "detr.modeling_detr", "pos = torch.cat((pos_y, pos_x), dim=3)")],
         "holds": lambda r: all(_verdict(r, c, "intended") == "conforms" for c in GRIDS)
                  and all(_verdict(r, c, "canonical") == "fails" for c, p in GRIDS.items() if p in ("timm", "detr"))
                  and all(_detect(r, c, "profile") == p for c, p in GRIDS.items() if "[base_size" not in c
                          and p != "diffusers")
                  and "--base-size 4" in _detect(r, "diffusers/get_2d_sincos_pos_embed[base_size=8,"
                                                      "interpolation_scale=2]", "profile_flags")
                  and _verdict(r, "diffusers/get_2d_sincos_pos_embed[base_size=8,interpolation_scale=2]",
                               "detected") == "conforms"
                  and all(_detect(r, c, "profile", "float16") == p and _verdict(r, c, "detected", "float16") == "conforms"
                          for c, p in (("open_clip_torch/get_2d_sincos_pos_embed", "mae"),
                                       ("timm/build_sincos2d_pos_embed", "timm")))},
        {"id": "no-preset",
         "text": "Two tables that no preset described in 1.0.0 have one now, and conform to it: timm's "
                 "build_rotary_pos_embed defaults to pixel-mode bands (in_pixels=True: linspace(1, max_res/2, dim/4)"
                 " * pi over coordinates in [-1, 1]), not DEF-FAMILY's geometric schedule (`timm-pixel`); "
                 "positional-encodings' PositionalEncoding2D has DETR's plan ([axis 0 | axis 1], interleaved) at "
                 "positions from 0, which the detr preset (o = 1) cannot express (`pe2d`); its 1-D slices conform to "
                 "`vaswani` in float32.",
         "evidence": [cite("timm", "timm.layers.pos_embed_sincos", "def pixel_freq_bands("),
                      cite("positional-encodings", "positional_encodings.torch_encodings",
                           "emb[:, :, : self.channels] = emb_x")],
         "holds": lambda r: all(_verdict(r, c, "intended") == "conforms"
                                for c in ("timm/build_rotary_pos_embed", "positional-encodings/PositionalEncoding2D"))
                  and all(c["verdict"] == "conforms" for c in _v(r, "positional-encodings/PositionalEncoding2D")["checks"]
                          if c["role"] == "derived")},
        {"id": "detect-half-t2t",
         "text": "`detect` names float16 t2t tables (Whisper, diffusers' default timestep embedding) t2t, and the "
                 "check against what it named conforms, although at d = 64 the t2t and vaswani-concat schedules "
                 "differ by little more than float16 resolution over positions < 1024 (detect read them as "
                 "vaswani-concat until its noise floor became TOL-WORKING's).",
         "evidence": ["survey/results.json: detect.profile and the `detected` check of the float16 variants"],
         "holds": lambda r: all(_detect(r, c, "profile", "float16") == "t2t"
                                and _verdict(r, c, "intended", "float16") == "conforms"
                                and _verdict(r, c, "detected", "float16") == "conforms"
                                for c in ("openai-whisper/model.sinusoids", "diffusers/get_timestep_embedding[default]"))},
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
