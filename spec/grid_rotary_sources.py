"""Which public code ships each grid and rotary preset (SPEC.md DEF-GRID-SOURCES, DEF-ROPE-SOURCES).

As :mod:`sinpe.spec.sources` does for 1-D tables: each record names one function, read in its
repository (commit = the stored version read), the preset and the exact options that make the
spec's table equal the code's, and what the code does in its own dtype. ``tests/library_formulas.py``
transcribes each formula and ``tests/test_grid_rotary.py`` checks it against the preset.

>>> [s.key for s in GRID_SOURCES]
['mae', 'diffusers-2d', 'timm-2d', 'detr-sine', 'deformable-detr-sine', 'pe2d', 'vit-pytorch', 'diffusers-3d', 'aifi']
>>> get_grid_source("detr-sine").preset
'detr'
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class NdSource:
    key: str
    library: str
    repo: str
    path: str
    function: str
    preset: str
    options: Mapping[str, object] = field(default_factory=dict)
    commit: str | None = None
    dtype: str = ""
    notes: str = ""

    @property
    def url(self) -> str:
        return f"https://github.com/{self.repo}/blob/{self.commit or 'HEAD'}/{self.path}"


GRID_SOURCES: tuple[NdSource, ...] = (
    NdSource("mae", "MAE (also open_clip, MoCo v3 copies)", "facebookresearch/mae", "util/pos_embed.py",
             "get_2d_sincos_pos_embed(embed_dim, grid_size, cls_token)", "mae", {"cls": "1 if cls_token"},
             commit="a9f5c70165c6ec81ce4036d9c2296ab70b7042f9",
             dtype="float32 grid and omega (np.arange float32); float64 zero cls row concatenated",
             notes="meshgrid(grid_w, grid_h): the first embed_dim/2 channels encode the column index x, the "
                   "second the row index y, each 1-D vaswani-concat of width embed_dim/2; odd embed_dim/2 fails "
                   "(assert)."),
    NdSource("diffusers-2d", "diffusers (PixArt, SD3, DiT patch embeddings)", "huggingface/diffusers",
             "src/diffusers/models/embeddings.py",
             "get_2d_sincos_pos_embed(embed_dim, grid_size, cls_token, extra_tokens, interpolation_scale, base_size)",
             "diffusers", {"base_size": "base_size (default 16)", "interpolation_scale": "interpolation_scale",
                           "cls": "extra_tokens if cls_token"},
             dtype="float32 grid i / (n / base_size) / interpolation_scale, float64 omega; PatchEmbed casts to float32",
             notes="read in copies of embeddings.py (find_string on the grid line); the commit stored for the upstream "
                   "file is the early flag-less version. The reshape [2, 1, grid_size[1], grid_size[0]] keeps the "
                   "row-major order, so non-square grids are rows (h, w) with x channels first, as MAE."),
    NdSource("timm-2d", "timm", "huggingface/pytorch-image-models", "timm/layers/pos_embed_sincos.py",
             "build_sincos2d_pos_embed(feat_shape, dim, temperature, reverse_coord, interleave_sin_cos)", "timm",
             {"reverse_coord": "reverse_coord", "interleave_sin_cos": "preset timm-interleaved"},
             commit="0647e283021a2a7b0c7dc989d10564aa55bbf5e7",
             dtype="float32 (int64 arange cast to float32), output cast to dtype",
             notes="bands T^(-k/(dim/4)) per axis (vaswani-concat of width dim/2); ndgrid 'ij' over feat_shape; "
                   "stack dim 1 gives [sin_y | sin_x | cos_y | cos_x], dim 2 gives [sin_y | cos_y | sin_x | cos_x]; "
                   "reverse_coord reverses feat_shape, so rows run over (W, H)."),
    NdSource("detr-sine", "DETR (and Deformable/Conditional DETR ports)", "facebookresearch/detr",
             "models/position_encoding.py", "PositionEmbeddingSine(num_pos_feats, temperature, normalize, scale)",
             "detr", {"normalize=True": "preset detr-normalized"},
             commit="11c5d51642a8bbe26d71ee85edcd5fc5eaf70abb",
             dtype="float32 (cumsum of the mask in float32)",
             notes="positions are cumsum(not_mask) = i + 1; normalize gives (i + 1) / (n + 1e-6) * 2 pi "
                   "(the default scale); dim_t = T^(2 floor(j/2)/num_pos_feats): vaswani interleaved per axis; "
                   "channels [y | x]; output (B, C, H, W): flatten to (H*W, C) before checking."),
    NdSource("deformable-detr-sine", "Deformable DETR (and the transformers port)", "fundamentalvision/Deformable-DETR",
             "models/position_encoding.py", "PositionEmbeddingSine(num_pos_feats, temperature, normalize=True, scale)",
             "detr-deformable", {"normalize=True": "preset detr-deformable"},
             dtype="float32 (cumsum of the mask in float32); transformers' port computes in the dtype it is given",
             notes="y_embed = (y_embed - 0.5) / (y_embed[:, -1:, :] + eps) * scale: the cell centre (i + 1/2) / (n + 1e-6) "
                   "* 2 pi, otherwise DETR's plan (dim_t, [y | x], interleaved). Read in transformers 5.24 "
                   "modeling_deformable_detr.py DeformableDetrSinePositionEmbedding (the same line)."),
    NdSource("pe2d", "positional-encodings (multidim-positional-encoding)", "tatp22/multidim-positional-encoding",
             "positional_encodings/torch_encodings.py", "PositionalEncoding2D(channels)", "pe2d",
             commit="00521a59543e7759a2d36c1a826d5d15ea27e6ca",
             dtype="float32 (arange typed as inv_freq, einsum), output in the input tensor's type",
             notes="c = ceil(C/4)*2, inv_freq = 10000^(-2k/c): vaswani interleaved of width c per axis (get_emb stacks "
                   "sin, cos and flattens), positions from 0; [axis 0 (the input's x, our rows) | axis 1], truncated "
                   "to C channels (axis 1 keeps C - c). DETR's plan at o = 0 and width ceil(C/4)*2."),
    NdSource("vit-pytorch", "vit-pytorch (SimpleViT and copies)", "lucidrains/vit-pytorch", "vit_pytorch/simple_vit.py",
             "posemb_sincos_2d(h, w, dim, temperature)", "vit", {"temperature": "temperature"},
             commit="2a2ba50f075fc58df96ab8aed9624ccdddf2558f", dtype="float32 (arange / (dim//4 - 1), pow), .type(dtype)",
             notes="meshgrid 'ij' (y outer); omega = T^(-k/(dim/4 - 1)): the tensor2tensor schedule (t2t, shift 1) of "
                   "width dim/2; cat(x.sin, x.cos, y.sin, y.cos): [x | y]; dim = 4 divides by zero (refused)."),
    NdSource("diffusers-3d", "diffusers (CogVideoX, copies in Open-Sora-style code)", "huggingface/diffusers",
             "src/diffusers/models/embeddings.py",
             "get_3d_sincos_pos_embed(embed_dim, spatial_size, temporal_size, spatial_interpolation_scale, "
             "temporal_interpolation_scale)", "diffusers-3d",
             {"spatial_size=(W, H), temporal_size=T": "--shape TxHxW",
              "spatial_interpolation_scale": "--interpolation-scale",
              "temporal_interpolation_scale": "--temporal-interpolation-scale"},
             dtype="float32 grids (arange / scale), float64 omega; the model casts to its dtype",
             notes="read in copies of embeddings.py (find_string on 'embed_dim_spatial = 3 * embed_dim // 4'); the "
                   "spatial part is get_2d_sincos_pos_embed_from_grid(3 dim/4) over meshgrid(grid_w, grid_h) (x "
                   "channels first, rows (H, W)), the temporal part get_1d_sincos_pos_embed_from_grid(dim/4); repeated "
                   "over (T, H*W) and concatenated [temporal | spatial]. CogVideoX prepends its text tokens' zero rows "
                   "(cls rows) and uses spatial_interpolation_scale 1.875."),
    NdSource("aifi", "ultralytics (RT-DETR's AIFI)", "ultralytics/ultralytics", "ultralytics/nn/modules/transformer.py",
             "AIFI.build_2d_sincos_position_embedding(w, h, embed_dim, temperature)", "timm-interleaved",
             {"temperature": "--temperature", "(w, h)": "--shape WxH (w outermost)"},
             dtype="float32",
             notes="meshgrid(grid_w, grid_h, indexing='ij'): rows over (w, h), w outermost; omega = T^(-k/(dim/4)); "
                   "cat(sin_w, cos_w, sin_h, cos_h): timm-interleaved over the cells (w, h). Read in copies of the "
                   "file (find_string on the function name)."),
)

ROTARY_SOURCES: tuple[NdSource, ...] = (
    NdSource("transformers-llama", "transformers (LLaMA family)", "huggingface/transformers",
             "src/transformers/modeling_rope_utils.py",
             "ROPE_INIT_FUNCTIONS (default, linear, dynamic, llama3, yarn) + LlamaRotaryEmbedding",
             "llama", {"rope_type": "rule", "rope_scaling.factor": "factor",
                       "original_max_position_embeddings / max_position_embeddings": "original_max"},
             commit="0044e3b3facff1a1ad60b235c69d5b45beae75a4",
             dtype="inv_freq float32 (int64 arange .float()); cos/sin of cat(freqs, freqs) in float32 times "
                   "attention_scaling, then cast to x.dtype",
             notes="LlamaRotaryEmbedding.forward (emb = cat(freqs, freqs); cos = emb.cos() * attention_scaling, float32 under autocast disabled) read in copies of modeling_llama.py; halves layout; yarn's attention_factor default 0.1 ln(factor) + 1; llama3 blends frequencies "
                   "whose wavelength 2 pi / w lies between L/high and L/low; dynamic rebuilds b for seq_len > L."),
    NdSource("gpt-neox", "GPT-NeoX", "EleutherAI/gpt-neox", "megatron/model/positional_embeddings.py",
             "RotaryEmbedding(dim, base)", "llama", commit="007003aae8d00e9526fa7babf564ea4751d64018",
             dtype="inv_freq a registered buffer: float16 after model.half(), and t = arange(...).type_as(inv_freq) "
                   "(EleutherAI/gpt-neox#1003)",
             notes="emb = cat((freqs, freqs)): halves layout."),
    NdSource("gptj", "transformers (GPT-J, CodeGen)", "huggingface/transformers",
             "src/transformers/models/gptj/modeling_gptj.py", "create_sinusoidal_positions + apply_rotary_pos_emb",
             "gptj", commit="cb6cd7e984c1482cfcf62aeb3b2921bfeca71e95",
             dtype="float32",
             notes="the stored table is [sin | cos] of the h frequencies (1-D vaswani-concat of width rotary_dim); "
                   "at use each is repeat_interleave'd by 2 (rotate_every_two): the pairs layout."),
    NdSource("timm-rotary", "timm", "huggingface/pytorch-image-models", "timm/layers/pos_embed_sincos.py",
             "build_rotary_pos_embed(feat_shape, dim, max_res=224, linear_bands=False, in_pixels=True)", "timm-pixel",
             {"feat_shape=[H, W]": "--shape HxW", "max_res": "--max-res", "linear_bands=True": "--linear-bands",
              "RotaryEmbedding(rotate_half=True)": "--layout halves"},
             commit="0647e283021a2a7b0c7dc989d10564aa55bbf5e7", dtype="float32 (bands, coordinates, products)",
             notes="DEF-ROPE-FREQ-PIXEL: bands pi * 2^linspace(0, log2(max_res) - 1, dim/4) (linear_bands: "
                   "linspace(1, max_res/2, dim/4)) over coordinates linspace(-1, 1, n) per axis ('ij' grid); "
                   "[y bands | x bands], each repeat_interleave'd by 2: pairs layout; returns (sin, cos). "
                   "ref_feat_shape / grid_offset / 'xy' indexing change the coordinates: --positions (rows, 2)."),
    NdSource("timm-fourier", "timm", "huggingface/pytorch-image-models", "timm/layers/pos_embed_sincos.py",
             "build_fourier_pos_embed(feat_shape, num_bands, max_res, temperature, linear_bands, in_pixels)",
             "timm-pixel", {"sin / cos reshaped (cells, axes * num_bands)": "--sin / --cos, --layout single",
                            "feat_shape=[H, W]": "--shape HxW", "linear_bands=True": "--linear-bands",
                            "in_pixels=False": "no preset: detect reads it as --rule explicit --mrope-section n,n"},
             commit="0647e283021a2a7b0c7dc989d10564aa55bbf5e7", dtype="float32",
             notes="pos = grid[..., None] * bands with the grid linspace(-1, 1) per axis (in_pixels) or arange; returns "
                   "[sin, cos] of shape (*feat_shape, axes, num_bands): per cell [y bands | x bands], the timm-pixel "
                   "cache of layout single (build_rotary_pos_embed repeats each column twice: pairs). in_pixels=False "
                   "bands are freq_bands(n, T, step=1) = T^(-i/n) per axis over integer cells (no rule: explicit)."),
    NdSource("qwen2-vl", "transformers (Qwen2-VL M-RoPE)", "huggingface/transformers",
             "src/transformers/models/qwen2_vl/modeling_qwen2_vl.py",
             "Qwen2VLRotaryEmbedding + apply_multimodal_rotary_pos_emb(q, k, cos, sin, mrope_section)", "qwen2-vl",
             {"rope_theta": "--base", "mrope_section": "--mrope-section", "position_ids (3, batch, seq)":
              "--positions FILE.npy of shape (seq, 3)"},
             commit="00b676f8f0489b88652a31d70751cc540dd06305", dtype="float32 (autocast disabled), cast to x.dtype",
             notes="DEF-ROPE-AXES: cos/sin of cat(freqs, freqs) per position axis (t, h, w); the cache applied is "
                   "chunk i of mrope_section * 2 taken from axis i % 3 (halves layout, sections over k)."),
    NdSource("transformers-longrope", "transformers (Phi-3, Phi-3.5, Phi-4-mini LongRoPE)", "huggingface/transformers",
             "src/transformers/modeling_rope_utils.py", "_compute_longrope_parameters", "llama",
             {"rope_type": "--rule longrope", "long_factor or short_factor": "--ext-factors (the list the cache used)",
              "max_position_embeddings / original_max_position_embeddings": "--factor",
              "original_max_position_embeddings": "--original-max"},
             dtype="ext_factors float32 tensor; inv_freq = 1/(ext_factors * b^(arange(0, dim, 2)/dim)) in float32",
             notes="read in stored copies of modeling_rope_utils.py (junjinyong/Qwen3-MoE and others); long factors when "
                   "seq_len > original_max_position_embeddings, else short; attention_factor sqrt(1 + ln s / ln L) for "
                   "s > 1, else 1 (unless given); halves layout (LlamaRotaryEmbedding-style forward)."),
    NdSource("pyg-temporal", "PyTorch Geometric", "pyg-team/pytorch_geometric", "torch_geometric/nn/encoding.py",
             "TemporalEncoding(out_channels)", "llama",
             {"--layout": "single", "--freqs": "the module's weight buffer (float32), e.g. saved as a .npy",
              "--cos": "the table", "--positions": "the timestamps x"},
             commit="04b24f1f423f34f6af8388b6d0cb57d3f75a92dd", dtype="float32 (weight and x @ weight), cos in float32",
             notes="cos(x * w_k), w_k = sqrt(d)^(-k sqrt(d)/(d-1)): a cos-only single-layout cache. Not a preset: the "
                   "exponent sqrt(d)/(d-1) is irrational unless d is a perfect square, and even then w_k = (m^m)^(-k/(d-1)) "
                   "(d = m^2) has denominator d - 1, which no rotary rule (2k/dim) has; its float32 weight given as "
                   "--freqs (DEF-ROPE-FREQ-EXPLICIT) is exact, and sinpe detect reads it from the table."),
)

_ALL = {s.key: s for s in GRID_SOURCES + ROTARY_SOURCES}


def get_grid_source(key: str) -> NdSource:
    try:
        return _ALL[key]
    except KeyError:
        raise ValueError(f"unknown grid/rotary source {key!r}; known: {', '.join(_ALL)}") from None
