"""The surveyed rotary *application* functions, as `sinpe check-apply` calls them (survey/apply_run.py).

Run only in the survey environment, as ``sinpe check-apply apply_adapters:NAME`` with survey/ as the current
directory: the check's isolated child imports this module (REQ-CHECK-ISOLATE). A library function whose signature
is one of check-apply's conventions is re-exported unchanged (``= library.function``); otherwise a few lines adapt
the convention's arguments to the library's signature and nothing else (no cast, no rounding: the library computes
in the dtype it is given). survey/apply_run.py records each adapter's source as the survey's "call".
"""
from __future__ import annotations

import os
import sys

os.environ.setdefault("KERAS_BACKEND", "torch")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from run import torchvision_cpu_shim  # (transformers and timm import torchvision)

torchvision_cpu_shim()

import torch  # noqa: E402
from transformers.models.gpt_neox.modeling_gpt_neox import apply_rotary_pos_emb as neox_apply  # noqa: E402,F401

# ---------------------------------------------------------------- transformers
from transformers.models.llama.modeling_llama import apply_rotary_pos_emb as llama_apply  # noqa: E402,F401


def gptj_apply(q, k, cos, sin):
    """GPT-J's apply_rotary_pos_emb(tensor, sin, cos): x (batch, seq, heads, dim), sin/cos one column per pair."""
    from transformers.models.gptj.modeling_gptj import apply_rotary_pos_emb
    s, c = sin[..., ::2], cos[..., ::2]
    return tuple(apply_rotary_pos_emb(x.transpose(1, 2), s, c).transpose(1, 2) for x in (q, k))


def llama_module(x, positions):
    """LlamaRotaryEmbedding (its float32 cache, cast to x's dtype) then apply_rotary_pos_emb, as LlamaAttention."""
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb
    d = x.shape[-1]
    rope = LlamaRotaryEmbedding(LlamaConfig(hidden_size=d, num_attention_heads=1, head_dim=d))
    cos, sin = rope(x, positions)
    q = x.transpose(1, 2)
    return apply_rotary_pos_emb(q, q, cos, sin)[0].transpose(1, 2)


def qwen2_vl_module(x, positions):
    """Qwen2VLRotaryEmbedding (M-RoPE: position_ids (3, batch, seq), mrope_section 16,24,24) then
    apply_rotary_pos_emb, as Qwen2VLAttention."""
    from transformers import Qwen2VLTextConfig
    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLRotaryEmbedding, apply_rotary_pos_emb
    d = x.shape[-1]
    cfg = Qwen2VLTextConfig(hidden_size=d, num_attention_heads=1,
                            rope_parameters={"rope_type": "default", "rope_theta": 1e6, "mrope_section": [16, 24, 24]})
    cos, sin = Qwen2VLRotaryEmbedding(cfg)(x, positions)
    q = x.transpose(1, 2)
    return apply_rotary_pos_emb(q, q, cos, sin)[0].transpose(1, 2)


# ---------------------------------------------------------------- rotary-embedding-torch, x-transformers

from rotary_embedding_torch import apply_rotary_emb as ret_apply  # noqa: E402,F401


def xt_apply(freqs, t):
    """x-transformers' apply_rotary_pos_emb(t, freqs): freqs (batch, seq, rot_dim)."""
    from x_transformers.x_transformers import apply_rotary_pos_emb
    return apply_rotary_pos_emb(t, freqs[None])


# ---------------------------------------------------------------- diffusers


def diffusers_pairs(q, k, cos, sin):
    """diffusers' apply_rotary_emb(x, (cos, sin)), use_real_unbind_dim=-1 (Flux, CogVideoX, HunyuanDiT)."""
    from diffusers.models.embeddings import apply_rotary_emb
    return tuple(apply_rotary_emb(x, (cos[0], sin[0])) for x in (q, k))


def diffusers_halves(q, k, cos, sin):
    """diffusers' apply_rotary_emb(x, (cos, sin), use_real_unbind_dim=-2) (Stable Audio, CogView4, Cosmos)."""
    from diffusers.models.embeddings import apply_rotary_emb
    return tuple(apply_rotary_emb(x, (cos[0], sin[0]), use_real_unbind_dim=-2) for x in (q, k))


# ---------------------------------------------------------------- timm


def timm_apply(q, k, cos, sin):
    """timm's apply_rot_embed(x, sin_emb, cos_emb) (interleaved pairs)."""
    from timm.layers.pos_embed_sincos import apply_rot_embed
    return tuple(apply_rot_embed(x, sin, cos) for x in (q, k))


def timm_apply_cat(q, k, cos, sin):
    """timm's apply_rot_embed_cat(x, emb) with emb = cat([sin, cos]) (RotaryEmbeddingCat's output), half=True."""
    from timm.layers.pos_embed_sincos import apply_rot_embed_cat
    return tuple(apply_rot_embed_cat(x, torch.cat([sin, cos], dim=-1), half=True) for x in (q, k))


# ---------------------------------------------------------------- keras-hub


def keras_module(x, positions):
    """keras_hub.layers.RotaryEmbedding (dtype policy the dtype of x) called on x (batch, seq, heads, dim)."""
    import keras_hub
    layer = keras_hub.layers.RotaryEmbedding(dtype=str(x.dtype).removeprefix("torch."))
    return layer(x, positions=positions)
