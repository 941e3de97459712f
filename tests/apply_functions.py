"""Small rotary application functions for tests/test_apply.py (REQ-CHECK-APPLY): correct ones per layout and
convention, written after the libraries' code, and one deliberate bug per class. Importable by name
(``sinpe check-apply apply_functions:llama_hf`` with this directory as the current one)."""
from __future__ import annotations

import torch


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def rotate_every_two(x):
    x1, x2 = x[..., ::2], x[..., 1::2]
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


# --- hf: fn(q, k, cos, sin) ------------------------------------------------------------------------

def llama_hf(q, k, cos, sin):
    """transformers' LLaMA apply_rotary_pos_emb (halves)."""
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


def gptj_hf(q, k, cos, sin):
    """GPT-J's rotate_every_two on a pairs cache."""
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    return q * cos + rotate_every_two(q) * sin, k * cos + rotate_every_two(k) * sin


def complex_hf(q, k, cos, sin):
    """Meta LLaMA's freqs_cis form (single: h = dim/2 columns, channel pairs (2k, 2k+1) as complex numbers)."""
    f = torch.complex(cos.float(), sin.float()).unsqueeze(1)
    def one(x):
        xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
        return torch.view_as_real(xc * f).flatten(-2).to(x.dtype)
    return one(q), one(k)


def partial_hf(q, k, cos, sin):
    """GPT-NeoX / Phi partial rotary: the first cos.shape[-1] channels rotated, the rest passed through."""
    r = cos.shape[-1]
    qo, ko = llama_hf(q[..., :r], k[..., :r], cos, sin)
    return torch.cat([qo, q[..., r:]], dim=-1), torch.cat([ko, k[..., r:]], dim=-1)


def llama_hf_ids(q, k, cos, sin, position_ids):
    """transformers before 4.38: the whole cache, indexed by position_ids."""
    return llama_hf(q, k, cos[position_ids], sin[position_ids])


# --- module: fn(x, positions), x (batch, seq, heads, dim) -----------------------------------------------

def _cache(positions, dim, base=10000.0, scale=1.0):
    inv = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
    freqs = positions[..., None].float() * (inv / scale)
    return freqs


def llama_module(x, positions):
    """A module owning its cache (float32), applied in x's dtype (torchtune / HF's rotary module)."""
    emb = torch.cat([_cache(positions, x.shape[-1])] * 2, dim=-1)
    cos, sin = emb.cos()[:, :, None, :].to(x.dtype), emb.sin()[:, :, None, :].to(x.dtype)
    return x * cos + rotate_half(x) * sin


def gptj_module(x, positions):
    emb = torch.repeat_interleave(_cache(positions, x.shape[-1]), 2, dim=-1)
    cos, sin = emb.cos()[:, :, None, :].to(x.dtype), emb.sin()[:, :, None, :].to(x.dtype)
    return x * cos + rotate_every_two(x) * sin


# --- freqs: fn(freqs, t), t (batch, heads, seq, dim) ---------------------------------------------------------

def freqs_apply(freqs, t):
    """rotary-embedding-torch's apply_rotary_emb (interleaved pairs; rot_dim = freqs.shape[-1])."""
    r = freqs.shape[-1]
    tr, tp = t[..., :r], t[..., r:]
    out = tr * freqs.cos().to(t.dtype) + rotate_every_two(tr) * freqs.sin().to(t.dtype)
    return torch.cat([out, tp], dim=-1)


# --- one deliberate bug per class ----------------------------------------------------------------------

def bug_pairing_hf(q, k, cos, sin):
    """rotate_every_two on a halves (LLaMA) cache."""
    return gptj_hf(q, k, cos, sin)


def bug_pairing_module(x, positions):
    """The module rotates as GPT-J (pairs) while LLaMA (halves) is claimed."""
    return gptj_module(x, positions)


def bug_sign_hf(q, k, cos, sin):
    def rot(x):
        x1, x2 = x.chunk(2, dim=-1)
        return torch.cat((x2, -x1), dim=-1)   # the sign of rotate_half flipped
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    return q * cos + rot(q) * sin, k * cos + rot(k) * sin


def bug_swap_hf(q, k, cos, sin):
    return llama_hf(q, k, sin, cos)


def bug_offset_module(x, positions):
    """A KV-cache bug: the positions passed are ignored, rows rotated as 0..seq-1."""
    seq = torch.arange(x.shape[1])[None].expand(x.shape[0], -1)
    return llama_module(x, seq)


def bug_offset_by_one_module(x, positions):
    return llama_module(x, positions + 1)


def bug_base_module(x, positions):
    """Base 500000 (LLaMA 3) where 10000 is claimed."""
    emb = torch.cat([_cache(positions, x.shape[-1], base=500000.0)] * 2, dim=-1)
    return x * emb.cos()[:, :, None, :] + rotate_half(x) * emb.sin()[:, :, None, :]


def bug_linear_module(x, positions):
    """Linear scaling by 4 applied where none is claimed."""
    emb = torch.cat([_cache(positions, x.shape[-1], scale=4.0)] * 2, dim=-1)
    return x * emb.cos()[:, :, None, :] + rotate_half(x) * emb.sin()[:, :, None, :]


def bug_dtype_hf(q, k, cos, sin):
    """cos/sin rounded to bfloat16 and multiplied into float32 queries."""
    return llama_hf(q, k, cos.to(torch.bfloat16), sin.to(torch.bfloat16))


def bug_slice_hf(q, k, cos, sin):
    """Partial rotary on the last r channels instead of the first r."""
    r = cos.shape[-1]
    d = q.shape[-1]
    qo, ko = llama_hf(q[..., d - r:], k[..., d - r:], cos, sin)
    return torch.cat([q[..., :d - r], qo], dim=-1), torch.cat([k[..., :d - r], ko], dim=-1)


# --- multi-axis (M-RoPE, DEF-ROPE-AXES): positions (axes, batch, seq), written after transformers' Qwen2-VL ----------

def _mrope_emb(positions, dim, sections, base=1e6):
    """Qwen2VLRotaryEmbedding: the angles of every axis, then frequency chunk i taken from axis i mod 3."""
    inv = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
    freqs = positions[..., None].float() * inv                     # (axes, batch, seq, dim/2)
    freqs = torch.cat([f[i % 3] for i, f in enumerate(freqs.split(sections, dim=-1))], dim=-1)
    return torch.cat([freqs, freqs], dim=-1)


def mrope_module(x, positions):
    emb = _mrope_emb(positions, x.shape[-1], [4, 6, 6])
    cos, sin = emb.cos()[:, :, None, :].to(x.dtype), emb.sin()[:, :, None, :].to(x.dtype)
    return x * cos + rotate_half(x) * sin


def bug_axes_module(x, positions):
    """M-RoPE given 1-D ids: the temporal axis read by every frequency (sections ignored)."""
    return mrope_module(x, positions[:1].expand_as(positions))


# --- not deterministic (REQ-CHECK-APPLY's repeat): wrong on the first call in a process, right on every later one ----
# Run isolated (``apply_functions:NAME``), each check's child counts its calls afresh; in this process the count
# is shared by every test, so tests/test_apply_repeat.py calls these by name only.

_CALLS = [0]


def flaky_first_call_hf(q, k, cos, sin):
    """Rotates by -theta on its first call, right afterwards: the same inputs, other outputs."""
    _CALLS[0] += 1
    return bug_sign_hf(q, k, cos, sin) if _CALLS[0] == 1 else llama_hf(q, k, cos, sin)


def flaky_first_call_mrope_module(x, positions):
    """Qwen2-VL's M-RoPE whose first call (the queries of the first request) takes a low-accuracy cos, as torch 2.13's
    MKL VML picked when two threads made the first call at once (pytorch/pytorch#188792)."""
    _CALLS[0] += 1
    emb = _mrope_emb(positions, x.shape[-1], [4, 6, 6])
    cos = emb.cos() * (1 + 2.0 ** -16) if _CALLS[0] == 1 else emb.cos()   # about 2^7 float32 ulps off
    cos, sin = cos[:, :, None, :].to(x.dtype), emb.sin()[:, :, None, :].to(x.dtype)
    return x * cos + rotate_half(x) * sin
