"""The surveyed library functions: how each is called, and which sinpe profile it should implement.

Imported only inside the survey environment (``make survey``): every import of a library happens
inside a case's ``run`` so that one missing or broken library fails its own entries, not the survey.

A case's ``run(d, n, dtype)`` calls the library the way a user would (a module moved with
``module.to(dtype)`` and called through its forward, a function given its dtype argument where it
has one, otherwise its float32 result cast with ``.to(dtype)``) and returns ``(table, call)``:
``table`` a tensor or array holding the encoding of positions 0..n-1 (1-D: rows = positions; 2-D
grids: rows = grid cells in row-major order; rotary: ``(cos, sin)``), ``call`` the exact code run.

``profile``/``flags`` name the profile the library's own documentation or code says it implements,
in ``sinpe check`` terms: a 1-D preset, a grid preset (``sinpe check FILE --profile mae --cls 1``) or a
rotary preset with its rule (``sinpe check --cos C.npy --sin S.npy --profile llama --rule yarn ...``),
or a ``NO_PRESET`` name when sinpe has none (recorded as such, never checked against a stand-in).
``derive`` (2-D and rotary) gives 1-D tables sliced out by hand, with the 1-D profile each slice
should implement: a cross-check of the grid/rotary verdict, and the only check of a NO_PRESET table.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

# Profiles the surveyed tables implement but sinpe has no preset for: each is recorded as "no preset" (no
# `sinpe check` is run for it), with why; its 1-D slices (``derive``) are what can be checked.
NO_PRESET: dict[str, str] = {}
# timm build_rotary_pos_embed (pixel-mode bands over linspace(-1, 1, n) coordinates, two axes) has the rotary preset
# timm-pixel since issue 16.1 (it was "rope2d-timm" here).
# positional-encodings PositionalEncoding2D has the grid preset pe2d since issue 16.1 (it was "grid2d-pe" here).

# The canonical profile of each kind, checked on every table beside the intended one: the paper's 1-D profile,
# the grid preset whose axes are the paper's frequencies side by side (MAE), the default rotary rule (DEF-ROPE-
# FREQ-DEFAULT, base 10^4) in rotate-half layout.
CANONICAL = {"1d": ("vaswani", []), "grid2d": ("mae", []), "grid3d": ("diffusers-3d", []), "rotary": ("llama", [])}

DTYPES = ("float32", "float64", "float16", "bfloat16")


@dataclass
class Case:
    id: str
    library: str            # distribution name (version read from its metadata)
    function: str           # importable qualified name
    kind: str               # "1d" | "grid2d" | "grid3d" | "rotary"
    profile: str            # intended profile (a 1-D, grid or rotary preset, or a NO_PRESET name)
    run: Callable
    flags: list = field(default_factory=list)
    claim: str = ""         # what the library's own docstring/comment says
    d_even: int = 64
    d_odd: int | None = 65  # None: the case does not take odd d (said in `odd_note`)
    odd_note: str = ""
    dtypes: tuple = DTYPES
    derive: Callable | None = None  # table -> [(label, 2-D array, profile, flags, d)]
    n: int = 1024
    # the plan the code computes where it differs from the intended claim (a finding, its evidence in findings.py):
    # (profile, flags); the survey checks it too (role "computes") and detect is scored against it
    computes: tuple | None = None


def _t(dtype):
    import torch
    return getattr(torch, dtype)


def _zeros_input(n, d, dtype):
    import torch
    return torch.zeros(1, n, d, dtype=_t(dtype))


# ---------------------------------------------------------------- transformers


def _hf(modpath):
    import importlib
    return importlib.import_module("transformers.models." + modpath)


def distilbert(d, n, dtype):
    import torch
    m = _hf("distilbert.modeling_distilbert")
    out = torch.empty(n, d, dtype=_t(dtype))
    m.create_sinusoidal_embeddings(n, d, out)
    return out, f"out = torch.empty({n}, {d}, dtype=torch.{dtype}); create_sinusoidal_embeddings({n}, {d}, out)"


def xlm(d, n, dtype):
    import torch
    m = _hf("xlm.modeling_xlm")
    out = torch.empty(n, d, dtype=_t(dtype))
    m.create_sinusoidal_embeddings(n, d, out)
    return out, f"out = torch.empty({n}, {d}, dtype=torch.{dtype}); create_sinusoidal_embeddings({n}, {d}, out)"


def _create_weight_module(modpath, cls):
    def run(d, n, dtype):
        import torch
        C = getattr(_hf(modpath), cls)
        emb = C(n, d).to(_t(dtype))
        with torch.no_grad():
            emb.weight.copy_(emb.create_weight())  # what _init_weights does
            out = emb(torch.Size([1, n]))
        return out, (f"emb = {cls}({n}, {d}).to(torch.{dtype}); emb.weight.copy_(emb.create_weight()); "
                     f"emb(torch.Size([1, {n}]))")
    return run


def _offset_module(modpath, cls, call):
    """Modules that read row position+padding_idx+1 (fairseq's make_positions); padding_idx = 1."""
    def run(d, n, dtype):
        import torch
        C = getattr(_hf(modpath), cls)
        with torch.no_grad():
            if call == "fsmt":
                emb = C(n + 2, d, 1)
                emb.make_weight(n + 2, d, 1)  # what _init_weights does
                emb = emb.to(_t(dtype))
                out = emb(torch.full((1, n), 5))
                code = (f"emb = {cls}({n + 2}, {d}, 1); emb.make_weight({n + 2}, {d}, 1); emb.to(torch.{dtype}); "
                        f"emb(torch.full((1, {n}), 5))")
            elif call == "position_ids":
                emb = C(n, d, 1).to(_t(dtype))
                out = emb(torch.arange(n)[None])
                code = f"{cls}({n}, {d}, padding_idx=1).to(torch.{dtype})(torch.arange({n})[None])"
            else:
                emb = C(n, d, 1).to(_t(dtype))
                out = emb(torch.full((1, n), 5))
                code = f"{cls}({n}, {d}, padding_idx=1).to(torch.{dtype})(torch.full((1, {n}), 5))"
        return out[0], code
    return run


def musicgen(d, n, dtype):
    import torch
    C = _hf("musicgen.modeling_musicgen").MusicgenSinusoidalPositionalEmbedding
    emb = C(n, d).to(_t(dtype))
    out = emb(torch.zeros(1, 1, n, dtype=torch.long))
    return out.reshape(n, -1), f"MusicgenSinusoidalPositionalEmbedding({n}, {d}).to(torch.{dtype})(torch.zeros(1, 1, {n}, dtype=torch.long))"


def hf_whisper(d, n, dtype):
    f = _hf("whisper.modeling_whisper").sinusoids
    return f(n, d).to(_t(dtype)), f"sinusoids({n}, {d}).to(torch.{dtype})"


def gptj(d, n, dtype):
    f = _hf("gptj.modeling_gptj").create_sinusoidal_positions
    return f(n, d).to(_t(dtype)), f"create_sinusoidal_positions({n}, {d}).to(torch.{dtype})"


ROPE = {
    "default": None,
    "linear": {"rope_type": "linear", "factor": 2.0},
    "dynamic": {"rope_type": "dynamic", "factor": 2.0},
    "llama3": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
               "original_max_position_embeddings": 256},
    "yarn": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 256},
}


# the `sinpe check` rotary flags of each LLaMA configuration above (n = 1024 positions, head_dim 64)
ROPE_FLAGS = {
    "default": [],
    "linear": ["--rule", "linear", "--factor", "2"],
    "dynamic": ["--rule", "dynamic", "--factor", "2", "--original-max", "1024", "--seq-len", "1024"],
    "llama3": ["--rule", "llama3", "--factor", "8", "--low-freq-factor", "1", "--high-freq-factor", "4",
               "--original-max", "256"],
    "yarn": ["--rule", "yarn", "--factor", "4", "--original-max", "256"],
}


def llama_rope(kind):
    def run(d, n, dtype):
        import torch
        mod = _hf("llama.modeling_llama")
        cfgmod = _hf("llama.configuration_llama")
        params = {"rope_type": "default", "rope_theta": 10000.0}
        if ROPE[kind]:
            params.update(ROPE[kind])
        cfg = cfgmod.LlamaConfig(hidden_size=d * 2, num_attention_heads=2, head_dim=d,
                                 max_position_embeddings=n, rope_parameters=params)
        rope = mod.LlamaRotaryEmbedding(cfg).to(_t(dtype))
        x = torch.zeros(1, n, d, dtype=_t(dtype))
        cos, sin = rope(x, torch.arange(n)[None])
        code = (f"LlamaRotaryEmbedding(LlamaConfig(hidden_size={2 * d}, num_attention_heads=2, head_dim={d}, "
                f"max_position_embeddings={n}, rope_parameters={params!r})).to(torch.{dtype})"
                f"(torch.zeros(1, {n}, {d}, dtype=torch.{dtype}), torch.arange({n})[None])")
        return (cos[0], sin[0]), code
    return run


def neox_rope(d, n, dtype):
    import torch
    mod = _hf("gpt_neox.modeling_gpt_neox")
    cfg = _hf("gpt_neox.configuration_gpt_neox").GPTNeoXConfig(
        hidden_size=d * 2, num_attention_heads=2, rotary_pct=1.0, max_position_embeddings=n)
    rope = mod.GPTNeoXRotaryEmbedding(cfg).to(_t(dtype))
    cos, sin = rope(torch.zeros(1, n, d, dtype=_t(dtype)), torch.arange(n)[None])
    code = (f"GPTNeoXRotaryEmbedding(GPTNeoXConfig(hidden_size={2 * d}, num_attention_heads=2, rotary_pct=1.0, "
            f"max_position_embeddings={n})).to(torch.{dtype})(torch.zeros(1, {n}, {d}), torch.arange({n})[None])")
    return (cos[0], sin[0]), code


def detr(d, n, dtype):
    import torch
    C = _hf("detr.modeling_detr").DetrSinePositionEmbedding
    g = int(round(math.sqrt(n)))
    emb = C(num_position_features=d // 2)
    out = emb(shape=torch.Size([1, 3, g, g]), device="cpu", dtype=_t(dtype))
    # [1, C, h, w] or [1, h*w, C]: bring to rows = cells (row-major), columns = channels
    t = out[0]
    if t.dim() == 3:
        t = t.permute(1, 2, 0).reshape(g * g, -1)
    return t, (f"DetrSinePositionEmbedding(num_position_features={d // 2})(shape=torch.Size([1, 3, {g}, {g}]), "
               f"device='cpu', dtype=torch.{dtype})")


def _square(n):
    return int(round(math.sqrt(n)))


def vitmae_2d(d, n, dtype):
    f = _hf("vit_mae.modeling_vit_mae").build_2d_sinusoidal_position_embedding
    g = _square(n)
    return f(g, g, d, cls_token=True, dtype=_t(dtype)), (
        f"build_2d_sinusoidal_position_embedding({g}, {g}, {d}, cls_token=True, dtype=torch.{dtype})")


def rtdetr_2d(d, n, dtype):
    import torch
    C = _hf("rt_detr.modeling_rt_detr").RTDetrSinePositionEmbedding
    g = _square(n)
    out = C(embed_dim=d)(width=g, height=g, device=torch.device("cpu"), dtype=_t(dtype))
    return out[0], (f"RTDetrSinePositionEmbedding(embed_dim={d})(width={g}, height={g}, device=torch.device('cpu'), "
                    f"dtype=torch.{dtype})")


def detr_family(modpath, cls):
    """The DETR-style sine modules built as their models build them (normalize=True): (B, C, H, W) -> rows = cells."""
    def run(d, n, dtype):
        import torch
        C = getattr(_hf(modpath), cls)
        g = _square(n)
        out = C(num_position_features=d // 2, normalize=True)(shape=torch.Size([1, 3, g, g]), device="cpu",
                                                              dtype=_t(dtype))
        return out[0].permute(1, 2, 0).reshape(g * g, -1), (
            f"{cls}(num_position_features={d // 2}, normalize=True)(shape=torch.Size([1, 3, {g}, {g}]), "
            f"device='cpu', dtype=torch.{dtype})[0].permute(1, 2, 0).reshape({g * g}, {d})")
    return run


def table_transformer(d, n, dtype):
    import torch
    C = _hf("table_transformer.modeling_table_transformer").TableTransformerSinePositionEmbedding
    g = _square(n)
    m = C(embedding_dim=d // 2, normalize=True)
    out = m(torch.zeros(1, 3, g, g, dtype=_t(dtype)), torch.ones(1, g, g, dtype=torch.long)).to(_t(dtype))
    return out[0].permute(1, 2, 0).reshape(g * g, -1), (
        f"TableTransformerSinePositionEmbedding(embedding_dim={d // 2}, normalize=True)(pixel_values, "
        f"torch.ones(1, {g}, {g}, dtype=torch.long)).to(torch.{dtype})  # pixel_values: zeros (1, 3, {g}, {g})")


def hf_rope(model, cls, cfg_cls, rope_parameters, **cfg):
    """A transformers rotary class built from its model's config (head_dim d) and called through its forward."""
    def run(d, n, dtype):
        import torch
        mod = _hf(f"{model}.modeling_{model}")
        Cfg = getattr(_hf(f"{model}.configuration_{model}"), cfg_cls)
        config = Cfg(hidden_size=d * 2, num_attention_heads=2, max_position_embeddings=n,
                     rope_parameters=dict(rope_parameters), **cfg)
        rope = getattr(mod, cls)(config).to(_t(dtype))
        x = torch.zeros(1, n, d, dtype=_t(dtype))
        cos, sin = rope(x, torch.arange(n)[None])
        code = (f"{cls}({cfg_cls}(hidden_size={2 * d}, num_attention_heads=2, max_position_embeddings={n}, "
                f"rope_parameters={dict(rope_parameters)!r}{''.join(f', {k}={v!r}' for k, v in cfg.items())}))"
                f".to(torch.{dtype})(torch.zeros(1, {n}, {d}, dtype=torch.{dtype}), torch.arange({n})[None])")
        return (cos.reshape(n, -1), sin.reshape(n, -1)), code
    return run


# Phi-3 LongRoPE: per-band factors (dyadic, so the float32 tensor holds them exactly), long ones used past 256
LONG_FACTORS = [1 + k / 8 for k in range(32)]
SHORT_FACTORS = [1.0] * 32
PHI3_LONGROPE = {"rope_type": "longrope", "rope_theta": 10000.0, "short_factor": SHORT_FACTORS,
                 "long_factor": LONG_FACTORS, "original_max_position_embeddings": 256}


# ---------------------------------------------------------------- diffusers


def diffusers_timestep(flip, shift):
    def run(d, n, dtype):
        import torch
        from diffusers.models.embeddings import get_timestep_embedding
        out = get_timestep_embedding(torch.arange(n), d, flip_sin_to_cos=flip, downscale_freq_shift=shift)
        return out.to(_t(dtype)), (f"get_timestep_embedding(torch.arange({n}), {d}, flip_sin_to_cos={flip}, "
                                   f"downscale_freq_shift={shift}).to(torch.{dtype})")
    return run


def diffusers_1d_grid(d, n, dtype):
    import torch
    from diffusers.models.embeddings import get_1d_sincos_pos_embed_from_grid
    out = get_1d_sincos_pos_embed_from_grid(d, torch.arange(n), output_type="pt", dtype=_t(dtype))
    return out, (f"get_1d_sincos_pos_embed_from_grid({d}, torch.arange({n}), output_type='pt', "
                 f"dtype=torch.{dtype})")


def diffusers_sinusoidal_module(d, n, dtype):
    import torch  # noqa: F401 -- loaded before the library that needs it
    from diffusers.models.embeddings import SinusoidalPositionalEmbedding
    m = SinusoidalPositionalEmbedding(d, max_seq_length=n).to(_t(dtype))
    return m(_zeros_input(n, d, dtype))[0], (
        f"SinusoidalPositionalEmbedding({d}, max_seq_length={n}).to(torch.{dtype})(torch.zeros(1, {n}, {d}))")


def diffusers_2d(base_size=None, interpolation_scale=1):
    def run(d, n, dtype):
        from diffusers.models.embeddings import get_2d_sincos_pos_embed
        g = int(round(math.sqrt(n)))
        bs = g if base_size is None else base_size
        out = get_2d_sincos_pos_embed(d, g, base_size=bs, interpolation_scale=interpolation_scale, output_type="pt")
        return out.to(_t(dtype)), (f"get_2d_sincos_pos_embed({d}, {g}, base_size={bs}, interpolation_scale="
                                   f"{interpolation_scale}, output_type='pt').to(torch.{dtype})")
    return run


def diffusers_3d(t, h, w, spatial_scale=1.0, temporal_scale=1.0):
    """get_3d_sincos_pos_embed (CogVideoX, Latte): spatial_size = (W, H), temporal_size = T; rows over (T, H, W)."""
    def run(d, n, dtype):
        from diffusers.models.embeddings import get_3d_sincos_pos_embed
        out = get_3d_sincos_pos_embed(d, (w, h), t, spatial_interpolation_scale=spatial_scale,
                                      temporal_interpolation_scale=temporal_scale, output_type="pt")
        return out.reshape(t * h * w, d).to(_t(dtype)), (
            f"get_3d_sincos_pos_embed({d}, ({w}, {h}), {t}, spatial_interpolation_scale={spatial_scale}, "
            f"temporal_interpolation_scale={temporal_scale}, output_type='pt').reshape({t * h * w}, {d})"
            f".to(torch.{dtype})")
    return run


def diffusers_rope(d, n, dtype):
    import torch  # noqa: F401 -- loaded before the library that needs it
    from diffusers.models.embeddings import get_1d_rotary_pos_embed
    cos, sin = get_1d_rotary_pos_embed(d, n, use_real=True, repeat_interleave_real=True)
    return (cos.to(_t(dtype)), sin.to(_t(dtype))), (
        f"get_1d_rotary_pos_embed({d}, {n}, use_real=True, repeat_interleave_real=True) -> .to(torch.{dtype})")


def diffusers_patch_embed(d, n, dtype):
    from diffusers.models.embeddings import PatchEmbed
    g = _square(n)
    m = PatchEmbed(height=2 * g, width=2 * g, patch_size=2, in_channels=4, embed_dim=d).to(_t(dtype))
    return m.pos_embed[0], (f"PatchEmbed(height={2 * g}, width={2 * g}, patch_size=2, in_channels=4, embed_dim={d})"
                            f".to(torch.{dtype}).pos_embed[0]")


# ---------------------------------------------------------------- timm / open_clip


def timm_2d(d, n, dtype):
    from timm.layers import build_sincos2d_pos_embed
    g = int(round(math.sqrt(n)))
    return build_sincos2d_pos_embed([g, g], d, dtype=_t(dtype)), (
        f"timm.layers.build_sincos2d_pos_embed([{g}, {g}], {d}, dtype=torch.{dtype})")


def timm_rope(d, n, dtype):
    from timm.layers import build_rotary_pos_embed
    g = int(round(math.sqrt(n)))
    sin, cos = build_rotary_pos_embed([g, g], dim=d, dtype=_t(dtype))
    return (cos, sin), f"timm.layers.build_rotary_pos_embed([{g}, {g}], dim={d}, dtype=torch.{dtype})  # -> (sin, cos)"


def open_clip_2d(cls_token=False):
    def run(d, n, dtype):
        import torch
        from open_clip.pos_embed import get_2d_sincos_pos_embed
        g = int(round(math.sqrt(n)))
        out = torch.from_numpy(get_2d_sincos_pos_embed(d, g, cls_token=cls_token)).to(_t(dtype))
        return out, (f"torch.from_numpy(open_clip.pos_embed.get_2d_sincos_pos_embed({d}, {g}, cls_token={cls_token}))"
                     f".to(torch.{dtype})")
    return run


def open_clip_1d(d, n, dtype):
    import torch
    from open_clip.pos_embed import get_1d_sincos_pos_embed_from_grid
    out = torch.from_numpy(get_1d_sincos_pos_embed_from_grid(d, np.arange(n, dtype=np.float64))).to(_t(dtype))
    return out, (f"torch.from_numpy(open_clip.pos_embed.get_1d_sincos_pos_embed_from_grid({d}, "
                 f"np.arange({n}, dtype=np.float64))).to(torch.{dtype})")


def timm_rope_module(rotate_half):
    def run(d, n, dtype):
        from timm.layers.pos_embed_sincos import RotaryEmbedding
        g = _square(n)
        m = RotaryEmbedding(d, feat_shape=[g, g], rotate_half=rotate_half).to(_t(dtype))
        sin, cos = m.get_embed()
        return (cos, sin), (f"RotaryEmbedding({d}, feat_shape=[{g}, {g}], rotate_half={rotate_half})"
                            f".to(torch.{dtype}).get_embed()  # -> (sin, cos)")
    return run


def timm_rope_cat(d, n, dtype):
    from timm.layers.pos_embed_sincos import RotaryEmbeddingCat
    g = _square(n)
    emb = RotaryEmbeddingCat(d, feat_shape=[g, g]).to(_t(dtype)).get_embed()
    return (emb[:, d:], emb[:, :d]), (f"RotaryEmbeddingCat({d}, feat_shape=[{g}, {g}]).to(torch.{dtype}).get_embed()"
                                      f"  # -> cat([sin, cos], -1)")


# ---------------------------------------------------------------- lucidrains


def xt_scaled(d, n, dtype):
    import torch
    from x_transformers.x_transformers import ScaledSinusoidalEmbedding
    m = ScaledSinusoidalEmbedding(d).to(_t(dtype))
    with torch.no_grad():
        out = m(torch.zeros(1, n, d, dtype=_t(dtype)))
    return out, f"ScaledSinusoidalEmbedding({d}).to(torch.{dtype})(torch.zeros(1, {n}, {d}))"


def xt_rope(d, n, dtype):
    import torch
    from x_transformers.x_transformers import RotaryEmbedding
    m = RotaryEmbedding(d).to(_t(dtype))
    freqs, _ = m(torch.arange(n))
    freqs = freqs.reshape(n, -1)
    return (freqs.cos(), freqs.sin()), f"f, _ = RotaryEmbedding({d}).to(torch.{dtype})(torch.arange({n})); (f.cos(), f.sin())"


def ret_rope(d, n, dtype):
    import torch
    from rotary_embedding_torch import RotaryEmbedding
    m = RotaryEmbedding(d).to(_t(dtype))
    freqs = m(torch.arange(n, dtype=_t(dtype)))
    return (freqs.cos(), freqs.sin()), (
        f"f = RotaryEmbedding({d}).to(torch.{dtype})(torch.arange({n}, dtype=torch.{dtype})); (f.cos(), f.sin())")


def torchscale_xpos(d, n, dtype):
    """torchscale XPOS (DEF-ROPE-PRESET-XPOS) through its forward on x = (1, 0, 1, 0, ...): its even columns are
    x * duplicate_interleave(cos * scale) = cos * scale, its odd ones rotate_every_two(x) * (sin * scale) =
    sin * scale, exactly (products with 1 and sums with 0); each read once per pair and repeated (pairs layout)."""
    import torch
    from torchscale.component.xpos_relative_position import XPOS
    m = XPOS(d).to(_t(dtype))
    x = torch.zeros(1, n, d, dtype=_t(dtype))
    x[..., ::2] = 1
    out = m(x)[0]
    cos, sin = out[:, ::2].repeat_interleave(2, -1), out[:, 1::2].repeat_interleave(2, -1)
    return (cos, sin), (f"x = zeros(1, {n}, {d}); x[..., ::2] = 1; y = XPOS({d}).to(torch.{dtype})(x)[0]; "
                        "(y[:, ::2], y[:, 1::2]).repeat_interleave(2, -1)")


# ---------------------------------------------------------------- others


def pyg(d, n, dtype):
    import torch
    from torch_geometric.nn.encoding import PositionalEncoding
    m = PositionalEncoding(d).to(_t(dtype))
    return m(torch.arange(n, dtype=_t(dtype))), f"PositionalEncoding({d}).to(torch.{dtype})(torch.arange({n}, dtype=torch.{dtype}))"


def keras_sine(d, n, dtype):
    import keras
    from keras_hub.layers import SinePositionEncoding
    layer = SinePositionEncoding(dtype=dtype)
    out = layer(keras.ops.zeros((1, n, d), dtype=dtype))
    return keras.ops.convert_to_numpy(keras.ops.cast(out[0], "float32" if dtype == "bfloat16" else dtype)), (
        f"SinePositionEncoding(dtype='{dtype}')(keras.ops.zeros((1, {n}, {d}), dtype='{dtype}'))  # KERAS_BACKEND=torch")


def keras_rope(d, n, dtype):
    import keras
    from keras_hub.layers import RotaryEmbedding
    layer = RotaryEmbedding(dtype=dtype)
    # the layer rotates its input x: x*cos + rotate_half(x)*sin with rotate_half([x1, x2]) = [-x2, x1].
    # x = [1, 0] gives exactly [cos[:h], sin[h:]] (products with 1 and 0, sums with 0).
    half = keras.ops.concatenate([keras.ops.ones((1, n, d // 2), dtype=dtype),
                                  keras.ops.zeros((1, n, d // 2), dtype=dtype)], axis=-1)
    y = layer(half)  # x*cos + rotate_half(x)*sin, rotate_half(x) = [-x2, x1] = [0, 1]
    y = keras.ops.convert_to_numpy(keras.ops.cast(y[0], "float32" if dtype == "bfloat16" else dtype))
    h = d // 2
    cos = np.concatenate([y[:, :h], y[:, :h]], axis=1)
    sin = np.concatenate([y[:, h:], y[:, h:]], axis=1)
    return (cos, sin), (f"y = RotaryEmbedding(dtype='{dtype}')(concat(ones(1, {n}, {h}), zeros(1, {n}, {h}))): "
                        f"cos = y[..., :{h}], sin = y[..., {h}:]  # KERAS_BACKEND=torch")


def pe1d(d, n, dtype):
    from positional_encodings.torch_encodings import PositionalEncoding1D
    m = PositionalEncoding1D(d).to(_t(dtype))
    return m(_zeros_input(n, d, dtype))[0], f"PositionalEncoding1D({d}).to(torch.{dtype})(torch.zeros(1, {n}, {d}, dtype=torch.{dtype}))"


def pe2d(d, n, dtype):
    import torch
    from positional_encodings.torch_encodings import PositionalEncoding2D
    g = int(round(math.sqrt(n)))
    m = PositionalEncoding2D(d).to(_t(dtype))
    out = m(torch.zeros(1, g, g, d, dtype=_t(dtype)))[0]
    return out.reshape(g * g, d), f"PositionalEncoding2D({d}).to(torch.{dtype})(torch.zeros(1, {g}, {g}, {d}))"


def pe2d_permute(d, n, dtype):
    import torch
    from positional_encodings.torch_encodings import PositionalEncodingPermute2D
    g = _square(n)
    m = PositionalEncodingPermute2D(d).to(_t(dtype))
    out = m(torch.zeros(1, d, g, g, dtype=_t(dtype)))[0]
    return out, f"PositionalEncodingPermute2D({d}).to(torch.{dtype})(torch.zeros(1, {d}, {g}, {g}))[0]  # (C, H, W)"


def whisper(d, n, dtype):
    from whisper.model import sinusoids
    return sinusoids(n, d).to(_t(dtype)), f"whisper.model.sinusoids({n}, {d}).to(torch.{dtype})"


# ---------------------------------------------------------------- derived 1-D slices


def _np(t):
    if isinstance(t, np.ndarray):
        return t
    import torch
    if t.dtype == torch.bfloat16:
        t = t.float()
    return t.detach().cpu().numpy()


def derive_rope(layout, profile, flags=()):
    """1-D tables from a rotary (cos, sin) cache: the first half of each (halves layout) or every
    other column (pairs layout), put side by side as [sin | cos] (vaswani-concat) or interleaved."""
    def f(table):
        cos, sin = (_np(x) for x in table)
        if layout == "halves":
            h = cos.shape[1] // 2
            t = np.concatenate([sin[:, :h], cos[:, :h]], axis=1)
        else:
            t = np.empty_like(cos)
            t[:, 0::2] = sin[:, 0::2]
            t[:, 1::2] = cos[:, 0::2]
        return [("cos/sin cache sliced: " + ("[sin[:, :h] | cos[:, :h]]" if layout == "halves"
                                               else "interleave(sin[:, ::2], cos[:, ::2])"),
                 t, profile, list(flags), t.shape[1])]
    return f


def derive_grid(groups, profile, flags=(), cls=0):
    """1-D tables from a 2-D grid (``cls`` zero rows, then rows = cells, row-major over a g x g grid): for
    each group of columns, the rows along the axis that group varies with (the other axis at its first index)."""
    def f(table):
        t = _np(table)[cls:]
        g = int(round(math.sqrt(t.shape[0])))
        out = []
        for label, cols in groups(t.shape[1]):
            sub = t[:, cols]
            along_j = sub[:g]            # i = 0, j = 0..g-1
            along_i = sub[::g][:g]       # j = 0, i = 0..g-1
            vary_j = float(np.ptp(along_j, axis=0).max()) if g > 1 else 0.0
            pick, name = (along_j, "j") if vary_j > 0 else (along_i, "i")
            out.append((f"{label}: columns {cols[0]}..{cols[-1]}, rows along axis {name}",
                        np.ascontiguousarray(pick), profile, list(flags), len(cols)))
        return out
    return f


def _halves(w):
    h = w // 2
    return [("first half", list(range(h))), ("second half", list(range(h, w)))]


def _timm_quarters(w):
    q = w // 4
    return [("axis 0 (sin q0 + cos q2)", list(range(0, q)) + list(range(2 * q, 3 * q))),
            ("axis 1 (sin q1 + cos q3)", list(range(q, 2 * q)) + list(range(3 * q, 4 * q)))]


CASES: list[Case] = [
    # transformers: absolute 1-D tables
    Case("transformers/distilbert.create_sinusoidal_embeddings", "transformers",
         "transformers.models.distilbert.modeling_distilbert.create_sinusoidal_embeddings", "1d", "vaswani", distilbert),
    Case("transformers/xlm.create_sinusoidal_embeddings", "transformers",
         "transformers.models.xlm.modeling_xlm.create_sinusoidal_embeddings", "1d", "vaswani", xlm),
    Case("transformers/marian.MarianSinusoidalPositionalEmbedding", "transformers",
         "transformers.models.marian.modeling_marian.MarianSinusoidalPositionalEmbedding", "1d", "vaswani-concat",
         _create_weight_module("marian.modeling_marian", "MarianSinusoidalPositionalEmbedding"),
         claim="'Identical to the XLM create_sinusoidal_embeddings except features are not interleaved'"),
    Case("transformers/pegasus.PegasusSinusoidalPositionalEmbedding", "transformers",
         "transformers.models.pegasus.modeling_pegasus.PegasusSinusoidalPositionalEmbedding", "1d", "vaswani-concat",
         _create_weight_module("pegasus.modeling_pegasus", "PegasusSinusoidalPositionalEmbedding")),
    Case("transformers/roformer.RoFormerSinusoidalPositionalEmbedding", "transformers",
         "transformers.models.roformer.modeling_roformer.RoFormerSinusoidalPositionalEmbedding", "1d", "vaswani-concat",
         _create_weight_module("roformer.modeling_roformer", "RoFormerSinusoidalPositionalEmbedding")),
    Case("transformers/time_series_transformer.TimeSeriesSinusoidalPositionalEmbedding", "transformers",
         "transformers.models.time_series_transformer.modeling_time_series_transformer."
         "TimeSeriesSinusoidalPositionalEmbedding", "1d", "vaswani-concat",
         _create_weight_module("time_series_transformer.modeling_time_series_transformer",
                               "TimeSeriesSinusoidalPositionalEmbedding")),
    Case("transformers/fsmt.SinusoidalPositionalEmbedding", "transformers",
         "transformers.models.fsmt.modeling_fsmt.SinusoidalPositionalEmbedding", "1d", "t2t",
         _offset_module("fsmt.modeling_fsmt", "SinusoidalPositionalEmbedding", "fsmt"), flags=["--offset", "2"],
         claim="'matches the implementation in tensor2tensor'; positions begin at padding_idx+1"),
    Case("transformers/xglm.XGLMSinusoidalPositionalEmbedding", "transformers",
         "transformers.models.xglm.modeling_xglm.XGLMSinusoidalPositionalEmbedding", "1d", "t2t",
         _offset_module("xglm.modeling_xglm", "XGLMSinusoidalPositionalEmbedding", "position_ids"),
         flags=["--offset", "2"], claim="'matches the implementation in tensor2tensor'; self.offset = 2"),
    Case("transformers/m2m_100.M2M100SinusoidalPositionalEmbedding", "transformers",
         "transformers.models.m2m_100.modeling_m2m_100.M2M100SinusoidalPositionalEmbedding", "1d", "t2t",
         _offset_module("m2m_100.modeling_m2m_100", "M2M100SinusoidalPositionalEmbedding", "input_ids"),
         flags=["--offset", "2"]),
    Case("transformers/speech_to_text.Speech2TextSinusoidalPositionalEmbedding", "transformers",
         "transformers.models.speech_to_text.modeling_speech_to_text.Speech2TextSinusoidalPositionalEmbedding",
         "1d", "t2t", _offset_module("speech_to_text.modeling_speech_to_text",
                                     "Speech2TextSinusoidalPositionalEmbedding", "input_ids"),
         flags=["--offset", "2"]),
    Case("transformers/musicgen.MusicgenSinusoidalPositionalEmbedding", "transformers",
         "transformers.models.musicgen.modeling_musicgen.MusicgenSinusoidalPositionalEmbedding", "1d", "t2t-cos",
         musicgen),
    Case("transformers/whisper.sinusoids", "transformers", "transformers.models.whisper.modeling_whisper.sinusoids",
         "1d", "t2t", hf_whisper),
    Case("transformers/gptj.create_sinusoidal_positions", "transformers",
         "transformers.models.gptj.modeling_gptj.create_sinusoidal_positions", "1d", "vaswani-concat", gptj,
         claim="GPT-J's rotary sin/cos table, [sin | cos] of inv_freq = 10000^(-2k/d)"),
    # transformers: rotary caches
    *[Case(f"transformers/llama.LlamaRotaryEmbedding[{k}]", "transformers",
           "transformers.models.llama.modeling_llama.LlamaRotaryEmbedding", "rotary", "llama", llama_rope(k),
           flags=ROPE_FLAGS[k], d_odd=None, odd_note="head_dim must be even (rotate-half)",
           derive=derive_rope("halves", "vaswani-concat",
                              {"linear": ["--phase-scale", "0.5"]}.get(k, []))
           if k in ("default", "linear", "dynamic") else derive_rope("halves", "vaswani-concat"))
      for k in ROPE],
    Case("transformers/gpt_neox.GPTNeoXRotaryEmbedding", "transformers",
         "transformers.models.gpt_neox.modeling_gpt_neox.GPTNeoXRotaryEmbedding", "rotary", "llama", neox_rope,
         d_odd=None, odd_note="head_dim must be even", derive=derive_rope("halves", "vaswani-concat")),
    Case("transformers/detr.DetrSinePositionEmbedding", "transformers",
         "transformers.models.detr.modeling_detr.DetrSinePositionEmbedding", "grid2d", "detr", detr,
         d_even=64, d_odd=None, odd_note="2 x num_position_features channels", n=256,
         derive=derive_grid(_halves, "vaswani", ["--offset", "1"])),
    # diffusers
    Case("diffusers/get_timestep_embedding[default]", "diffusers",
         "diffusers.models.embeddings.get_timestep_embedding", "1d", "t2t", diffusers_timestep(False, 1)),
    Case("diffusers/get_timestep_embedding[flip_sin_to_cos,shift=0]", "diffusers",
         "diffusers.models.embeddings.get_timestep_embedding", "1d", "vaswani-concat-cos",
         diffusers_timestep(True, 0)),
    Case("diffusers/get_1d_sincos_pos_embed_from_grid", "diffusers",
         "diffusers.models.embeddings.get_1d_sincos_pos_embed_from_grid", "1d", "vaswani-concat", diffusers_1d_grid),
    Case("diffusers/SinusoidalPositionalEmbedding", "diffusers",
         "diffusers.models.embeddings.SinusoidalPositionalEmbedding", "1d", "vaswani", diffusers_sinusoidal_module),
    Case("diffusers/get_2d_sincos_pos_embed", "diffusers", "diffusers.models.embeddings.get_2d_sincos_pos_embed",
         "grid2d", "diffusers", diffusers_2d(), flags=["--base-size", "16"], d_odd=None,
         odd_note="embed_dim must be divisible by 4", n=256, derive=derive_grid(_halves, "vaswani-concat")),
    Case("diffusers/get_2d_sincos_pos_embed[base_size=8,interpolation_scale=2]", "diffusers",
         "diffusers.models.embeddings.get_2d_sincos_pos_embed", "grid2d", "diffusers", diffusers_2d(8, 2),
         flags=["--base-size", "8", "--interpolation-scale", "2"], claim="grid index i read as i / (16/8) / 2",
         d_odd=None, odd_note="embed_dim must be divisible by 4", n=256,
         derive=derive_grid(_halves, "vaswani-concat", ["--phase-scale", "0.25"])),
    Case("diffusers/get_3d_sincos_pos_embed", "diffusers", "diffusers.models.embeddings.get_3d_sincos_pos_embed",
         "grid3d", "diffusers-3d", diffusers_3d(4, 6, 8), flags=["--shape", "4x6x8"], d_odd=None,
         odd_note="embed_dim must be divisible by 16", n=192),
    Case("diffusers/get_3d_sincos_pos_embed[CogVideoX scales]", "diffusers",
         "diffusers.models.embeddings.get_3d_sincos_pos_embed", "grid3d", "diffusers-3d",
         diffusers_3d(3, 4, 6, 1.875, 1.0), flags=["--shape", "3x4x6", "--interpolation-scale", "1.875"],
         claim="CogVideoX: spatial_interpolation_scale = 1.875, temporal 1", d_odd=None,
         odd_note="embed_dim must be divisible by 16", n=72),
    Case("diffusers/get_1d_rotary_pos_embed", "diffusers", "diffusers.models.embeddings.get_1d_rotary_pos_embed",
         "rotary", "gptj", diffusers_rope, d_odd=None, odd_note="dim must be even",
         derive=derive_rope("pairs", "vaswani")),
    # timm, open_clip
    Case("timm/build_sincos2d_pos_embed", "timm", "timm.layers.pos_embed_sincos.build_sincos2d_pos_embed", "grid2d",
         "timm", timm_2d, d_odd=None, odd_note="dim must be divisible by 4", n=256,
         derive=derive_grid(_timm_quarters, "vaswani-concat")),
    Case("timm/build_rotary_pos_embed", "timm", "timm.layers.pos_embed_sincos.build_rotary_pos_embed", "rotary",
         "timm-pixel", timm_rope, flags=["--shape", "16x16"], d_odd=None, odd_note="dim must be divisible by 4", n=256),
    Case("open_clip_torch/get_2d_sincos_pos_embed", "open_clip_torch", "open_clip.pos_embed.get_2d_sincos_pos_embed",
         "grid2d", "mae", open_clip_2d(), d_odd=None, odd_note="embed_dim must be divisible by 4", n=256,
         derive=derive_grid(_halves, "vaswani-concat")),
    Case("open_clip_torch/get_2d_sincos_pos_embed[cls_token=True]", "open_clip_torch",
         "open_clip.pos_embed.get_2d_sincos_pos_embed", "grid2d", "mae", open_clip_2d(True), flags=["--cls", "1"],
         claim="a row of zeros for the cls token, then the 16 x 16 grid", d_odd=None,
         odd_note="embed_dim must be divisible by 4", n=256, derive=derive_grid(_halves, "vaswani-concat", cls=1)),
    Case("open_clip_torch/get_1d_sincos_pos_embed_from_grid", "open_clip_torch",
         "open_clip.pos_embed.get_1d_sincos_pos_embed_from_grid", "1d", "vaswani-concat", open_clip_1d),
    # lucidrains
    Case("x-transformers/ScaledSinusoidalEmbedding", "x-transformers",
         "x_transformers.x_transformers.ScaledSinusoidalEmbedding", "1d", "vaswani-concat", xt_scaled,
         flags=["--amplitude", "0.125"], claim="scale parameter initialised to dim ** -0.5 (1/8 at d = 64)",
         d_odd=None, odd_note="assert divisible_by(dim, 2)"),
    # pairs: forward stacks (freqs, freqs) and rearranges '... d r -> ... (d r)' (first read as halves; the sliced
    # check against vaswani-concat failed with error 2 and showed it)
    Case("x-transformers/RotaryEmbedding", "x-transformers", "x_transformers.x_transformers.RotaryEmbedding",
         "rotary", "gptj", xt_rope, d_odd=None, odd_note="dim must be even",
         derive=derive_rope("pairs", "vaswani")),
    Case("rotary-embedding-torch/RotaryEmbedding", "rotary-embedding-torch", "rotary_embedding_torch.RotaryEmbedding",
         "rotary", "gptj", ret_rope, d_odd=None, odd_note="dim must be even",
         derive=derive_rope("pairs", "vaswani")),
    Case("torchscale/XPOS", "torchscale", "torchscale.component.xpos_relative_position.XPOS", "rotary",
         "xpos-torchscale", torchscale_xpos, d_odd=None, odd_note="rotate_every_two needs even d",
         claim="xPos (Sun et al. 2022): scale (arange(0, d, 2) + 0.4 d)/(1.4 d) to the power of centred positions / 512"),
    # others
    Case("torch_geometric/nn.encoding.PositionalEncoding", "torch_geometric",
         "torch_geometric.nn.encoding.PositionalEncoding", "1d", "vaswani", pyg,
         claim="docstring: 'from the Attention Is All You Need paper', PE_2i = sin(x/10000^(2i/d)), "
               "PE_2i+1 = cos(x/10000^(2i/d))", computes=("t2t", [])),
    Case("keras-hub/SinePositionEncoding", "keras-hub", "keras_hub.layers.SinePositionEncoding", "1d", "vaswani",
         keras_sine),
    Case("keras-hub/RotaryEmbedding", "keras-hub", "keras_hub.layers.RotaryEmbedding", "rotary", "llama",
         keras_rope, d_odd=None, odd_note="rotate-half needs even d", derive=derive_rope("halves", "vaswani-concat")),
    Case("positional-encodings/PositionalEncoding1D", "positional-encodings",
         "positional_encodings.torch_encodings.PositionalEncoding1D", "1d", "vaswani", pe1d),
    Case("positional-encodings/PositionalEncoding2D", "positional-encodings",
         "positional_encodings.torch_encodings.PositionalEncoding2D", "grid2d", "pe2d", pe2d, n=256,
         d_odd=None, odd_note="not surveyed", derive=derive_grid(_halves, "vaswani")),
    Case("openai-whisper/model.sinusoids", "openai-whisper", "whisper.model.sinusoids", "1d", "t2t", whisper),
    # issue 16: more grids (n = 256 cells, a 16 x 16 grid)
    Case("transformers/vit_mae.build_2d_sinusoidal_position_embedding[cls_token=True]", "transformers",
         "transformers.models.vit_mae.modeling_vit_mae.build_2d_sinusoidal_position_embedding", "grid2d",
         "timm-interleaved", vitmae_2d, flags=["--cls", "1"],
         claim="docstring: '[sin_h | cos_h | sin_w | cos_w], with row-major (H-outer) patch ordering', "
               "'frequency arithmetic uses float64 internally'; a zero row first for the CLS token",
         d_odd=None, odd_note="embed_dim must be divisible by 4", n=256,
         derive=derive_grid(_halves, "vaswani-concat", cls=1)),
    Case("transformers/rt_detr.RTDetrSinePositionEmbedding", "transformers",
         "transformers.models.rt_detr.modeling_rt_detr.RTDetrSinePositionEmbedding", "grid2d", "timm-interleaved",
         rtdetr_2d, claim="'2D sinusoidal position embedding used in RT-DETR hybrid encoder' (ViTMAE's builder)",
         d_odd=None, odd_note="embed_dim must be divisible by 4", n=256,
         derive=derive_grid(_halves, "vaswani-concat")),
    Case("transformers/conditional_detr.ConditionalDetrSinePositionEmbedding[normalize=True]", "transformers",
         "transformers.models.conditional_detr.modeling_conditional_detr.ConditionalDetrSinePositionEmbedding",
         "grid2d", "detr-normalized", detr_family("conditional_detr.modeling_conditional_detr",
                                                  "ConditionalDetrSinePositionEmbedding"),
         claim="cumulative positions i + 1 divided by (n + 1e-6), times scale 2 pi; computed in the dtype given",
         d_odd=None, odd_note="2 x num_position_features channels", n=256),
    Case("transformers/deformable_detr.DeformableDetrSinePositionEmbedding[normalize=True]", "transformers",
         "transformers.models.deformable_detr.modeling_deformable_detr.DeformableDetrSinePositionEmbedding",
         "grid2d", "detr-deformable", detr_family("deformable_detr.modeling_deformable_detr",
                                                  "DeformableDetrSinePositionEmbedding"),
         claim="'(y_embed - 0.5) / (y_embed[:, -1:, :] + eps) * scale': cell centres i + 0.5",
         d_odd=None, odd_note="2 x num_position_features channels", n=256),
    Case("transformers/maskformer.MaskFormerSinePositionEmbedding[normalize=True]", "transformers",
         "transformers.models.maskformer.modeling_maskformer.MaskFormerSinePositionEmbedding", "grid2d",
         "detr-normalized", detr_family("maskformer.modeling_maskformer", "MaskFormerSinePositionEmbedding"),
         claim="the pixel decoder builds it with normalize=True", d_odd=None,
         odd_note="2 x num_position_features channels", n=256),
    Case("transformers/table_transformer.TableTransformerSinePositionEmbedding[normalize=True]", "transformers",
         "transformers.models.table_transformer.modeling_table_transformer.TableTransformerSinePositionEmbedding",
         "grid2d", "detr-normalized", table_transformer,
         claim="build_position_encoding: TableTransformerSinePositionEmbedding(n_steps, normalize=True); "
               "cumsum in float32", d_odd=None, odd_note="2 x embedding_dim channels", n=256),
    Case("diffusers/PatchEmbed.pos_embed", "diffusers", "diffusers.models.embeddings.PatchEmbed", "grid2d",
         "diffusers", diffusers_patch_embed, flags=["--base-size", "16"],
         claim="base_size = height // patch_size, interpolation_scale 1, pos_embed_type 'sincos' (its buffer)",
         d_odd=None, odd_note="embed_dim must be divisible by 4", n=256, derive=derive_grid(_halves, "vaswani-concat")),
    Case("positional-encodings/PositionalEncodingPermute2D", "positional-encodings",
         "positional_encodings.torch_encodings.PositionalEncodingPermute2D", "grid2d", "pe2d", pe2d_permute,
         flags=["--channels-first"], claim="PositionalEncoding2D on a (batch, ch, x, y) tensor", n=256,
         d_odd=None, odd_note="not surveyed"),
    # issue 16: more rotary caches (n = 1024 positions; grids 16 x 16)
    Case("transformers/qwen2_vl.Qwen2VLRotaryEmbedding[text positions]", "transformers",
         "transformers.models.qwen2_vl.modeling_qwen2_vl.Qwen2VLRotaryEmbedding", "rotary", "qwen2-vl",
         hf_rope("qwen2_vl", "Qwen2VLRotaryEmbedding", "Qwen2VLTextConfig",
                 {"rope_type": "default", "rope_theta": 1000000.0, "mrope_section": [16, 24, 24]}),
         claim="mrope_section [16, 24, 24] over (t, h, w); text tokens have one position on every axis",
         d_even=128, d_odd=None, odd_note="head_dim must be even", derive=derive_rope("halves", "vaswani-concat",
                                                                                     ["--base", "1000000"])),
    Case("transformers/phi3.Phi3RotaryEmbedding[longrope]", "transformers",
         "transformers.models.phi3.modeling_phi3.Phi3RotaryEmbedding", "rotary", "llama",
         hf_rope("phi3", "Phi3RotaryEmbedding", "Phi3Config", PHI3_LONGROPE, original_max_position_embeddings=256),
         flags=["--rule", "longrope", "--ext-factors", ",".join(f"{f:g}" for f in LONG_FACTORS), "--factor", "4",
                "--original-max", "256"],
         claim="long_factor used when seq_len > original_max_position_embeddings; attention factor "
               "sqrt(1 + ln(factor) / ln(original_max))", d_odd=None, odd_note="head_dim must be even"),
    Case("transformers/cohere.CohereRotaryEmbedding", "transformers",
         "transformers.models.cohere.modeling_cohere.CohereRotaryEmbedding", "rotary", "gptj",
         hf_rope("cohere", "CohereRotaryEmbedding", "CohereConfig", {"rope_type": "default", "rope_theta": 10000.0}),
         claim="'diff from Llama: we interleave() instead of cat()'", d_odd=None, odd_note="head_dim must be even",
         derive=derive_rope("pairs", "vaswani")),
    Case("transformers/persimmon.PersimmonRotaryEmbedding[partial_rotary_factor=0.5]", "transformers",
         "transformers.models.persimmon.modeling_persimmon.PersimmonRotaryEmbedding", "rotary", "llama",
         hf_rope("persimmon", "PersimmonRotaryEmbedding", "PersimmonConfig",
                 {"rope_type": "default", "rope_theta": 25000.0, "partial_rotary_factor": 0.5}),
         flags=["--base", "25000"], claim="rotary on the first head_dim * 0.5 channels (cache width 32), "
                                          "rope_theta 25000", d_odd=None, odd_note="head_dim must be even",
         derive=derive_rope("halves", "vaswani-concat", ["--base", "25000"])),
    Case("transformers/stablelm.StableLmRotaryEmbedding[partial_rotary_factor=0.25]", "transformers",
         "transformers.models.stablelm.modeling_stablelm.StableLmRotaryEmbedding", "rotary", "llama",
         hf_rope("stablelm", "StableLmRotaryEmbedding", "StableLmConfig",
                 {"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.25}),
         claim="rotary on the first head_dim * 0.25 channels (cache width 16)", d_odd=None,
         odd_note="head_dim must be even", derive=derive_rope("halves", "vaswani-concat")),
    Case("transformers/mistral.MistralRotaryEmbedding[rope_theta=1e6]", "transformers",
         "transformers.models.mistral.modeling_mistral.MistralRotaryEmbedding", "rotary", "llama",
         hf_rope("mistral", "MistralRotaryEmbedding", "MistralConfig",
                 {"rope_type": "default", "rope_theta": 1000000.0}), flags=["--base", "1000000"],
         claim="rope_theta 1e6 (Mistral 7B v0.2 and later)", d_odd=None, odd_note="head_dim must be even",
         derive=derive_rope("halves", "vaswani-concat", ["--base", "1000000"])),
    Case("timm/RotaryEmbedding[rotate_half=True]", "timm", "timm.layers.pos_embed_sincos.RotaryEmbedding", "rotary",
         "timm-pixel", timm_rope_module(True), flags=["--shape", "16x16", "--layout", "halves"],
         claim="'Set rotate_half=True for the half layout instead of interleaved pairs'", d_odd=None,
         odd_note="dim must be divisible by 4", n=256),
    Case("timm/RotaryEmbeddingCat", "timm", "timm.layers.pos_embed_sincos.RotaryEmbeddingCat", "rotary",
         "timm-pixel", timm_rope_cat, flags=["--shape", "16x16"],
         claim="'Axial rotary position embeddings with concatenated sine and cosine outputs'", d_odd=None,
         odd_note="dim must be divisible by 4", n=256),
]
