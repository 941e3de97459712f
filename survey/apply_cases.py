"""The surveyed rotary applications and checkpoints (survey/apply_run.py; survey environment only).

``APPLY``: each library's application function, checked by ``sinpe check-apply apply_adapters:TARGET`` (the
adapters are in survey/apply_adapters.py) under the profile its code implements, in float32 and bfloat16, and once
against a **control** claim it does not implement (the other pairing, another base or other M-RoPE sections):
the control must fail, showing the claimed check could have.

``CHECKPOINTS``: small models built from a config by the library's own code and saved by its own saver
(``save_pretrained``, ``torch.save(state_dict)``), then read by ``sinpe scan DIR --json``. ``expect`` names the
tensors whose values the library's code sets to a sinusoid (what a scan should find), ``note`` what its code
says about persistence.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Apply:
    id: str
    library: str            # distribution name
    function: str           # importable qualified name of the library's function
    target: str             # apply_adapters:TARGET
    convention: str
    flags: list
    control: list           # the flags of a claim the function does not implement
    control_words: str
    dim: int = 64


LAYOUT_SWAP = "the other pairing"
APPLY = [
    Apply("transformers/llama.apply_rotary_pos_emb", "transformers", "transformers.models.llama.modeling_llama."
          "apply_rotary_pos_emb", "llama_apply", "hf", ["--profile", "llama"], ["--profile", "gptj"], LAYOUT_SWAP),
    Apply("transformers/gptj.apply_rotary_pos_emb", "transformers", "transformers.models.gptj.modeling_gptj."
          "apply_rotary_pos_emb", "gptj_apply", "hf", ["--profile", "gptj"], ["--profile", "llama"], LAYOUT_SWAP),
    Apply("transformers/gpt_neox.apply_rotary_pos_emb[rotary_pct=0.25]", "transformers",
          "transformers.models.gpt_neox.modeling_gpt_neox.apply_rotary_pos_emb", "neox_apply", "hf",
          ["--profile", "llama", "--rotary-fraction", "0.25"], ["--profile", "gptj", "--rotary-fraction", "0.25"],
          LAYOUT_SWAP),
    Apply("transformers/llama.LlamaRotaryEmbedding+apply_rotary_pos_emb", "transformers",
          "transformers.models.llama.modeling_llama.LlamaRotaryEmbedding", "llama_module", "module",
          ["--profile", "llama"], ["--profile", "llama", "--base", "500000"], "base 500000"),
    Apply("transformers/qwen2_vl.Qwen2VLRotaryEmbedding+apply_rotary_pos_emb[M-RoPE]", "transformers",
          "transformers.models.qwen2_vl.modeling_qwen2_vl.Qwen2VLRotaryEmbedding", "qwen2_vl_module", "module",
          ["--profile", "qwen2-vl"], ["--profile", "qwen2-vl", "--mrope-section", "24,24,16"],
          "sections 24,24,16", dim=128),
    Apply("rotary-embedding-torch/apply_rotary_emb", "rotary-embedding-torch",
          "rotary_embedding_torch.rotary_embedding_torch.apply_rotary_emb", "ret_apply", "freqs", ["--profile", "gptj"],
          ["--profile", "llama"], LAYOUT_SWAP),
    Apply("x-transformers/apply_rotary_pos_emb", "x-transformers", "x_transformers.x_transformers.apply_rotary_pos_emb",
          "xt_apply", "freqs", ["--profile", "gptj"], ["--profile", "llama"], LAYOUT_SWAP),
    Apply("diffusers/apply_rotary_emb[use_real_unbind_dim=-1]", "diffusers", "diffusers.models.embeddings."
          "apply_rotary_emb", "diffusers_pairs", "hf", ["--profile", "gptj"], ["--profile", "llama"], LAYOUT_SWAP),
    Apply("diffusers/apply_rotary_emb[use_real_unbind_dim=-2]", "diffusers", "diffusers.models.embeddings."
          "apply_rotary_emb", "diffusers_halves", "hf", ["--profile", "llama"], ["--profile", "gptj"], LAYOUT_SWAP),
    Apply("timm/apply_rot_embed", "timm", "timm.layers.pos_embed_sincos.apply_rot_embed", "timm_apply", "hf",
          ["--profile", "gptj"], ["--profile", "llama"], LAYOUT_SWAP),
    Apply("timm/apply_rot_embed_cat[half=True]", "timm", "timm.layers.pos_embed_sincos.apply_rot_embed_cat",
          "timm_apply_cat", "hf", ["--profile", "llama"], ["--profile", "gptj"], LAYOUT_SWAP),
    Apply("keras-hub/RotaryEmbedding", "keras-hub", "keras_hub.src.layers.modeling.rotary_embedding.RotaryEmbedding",
          "keras_module", "module", ["--profile", "llama"], ["--profile", "llama", "--base", "500000"],
          "base 500000"),
]
DTYPES = ("float32", "bfloat16")


# ---------------------------------------------------------------- checkpoints


def _hf():
    import transformers
    return transformers


SMALL = dict(d_model=64, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2,
             encoder_ffn_dim=64, decoder_ffn_dim=64, vocab_size=100, max_position_embeddings=128)


def pegasus(out, dtype="float32"):
    import torch
    T = _hf()
    model = T.PegasusForConditionalGeneration(T.PegasusConfig(**SMALL))
    model.to(getattr(torch, dtype)).save_pretrained(out)


def pegasus_bf16(out):
    pegasus(out, "bfloat16")


def pegasus_pt(out):
    import os

    import torch
    T = _hf()
    model = T.PegasusForConditionalGeneration(T.PegasusConfig(**SMALL))
    torch.save(model.state_dict(), os.path.join(out, "pytorch_model.pt"))


def fsmt(out):
    T = _hf()
    cfg = T.FSMTConfig(langs=["en", "de"], src_vocab_size=100, tgt_vocab_size=100, d_model=64, encoder_layers=1,
                       decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64,
                       decoder_ffn_dim=64, max_position_embeddings=128)
    T.FSMTForConditionalGeneration(cfg).save_pretrained(out)


def whisper(out):
    T = _hf()
    cfg = T.WhisperConfig(vocab_size=100, d_model=64, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                          decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, num_mel_bins=8,
                          max_source_positions=64, max_target_positions=64, pad_token_id=0, bos_token_id=1,
                          eos_token_id=2, decoder_start_token_id=1)
    T.WhisperForConditionalGeneration(cfg).save_pretrained(out)


def whisper_base(out):
    """Whisper base's shapes (d_model 512, 6 + 6 layers, 1500 encoder positions, vocabulary 51865): 72 M parameters."""
    T = _hf()
    cfg = T.WhisperConfig(vocab_size=51865, d_model=512, encoder_layers=6, decoder_layers=6, encoder_attention_heads=8,
                          decoder_attention_heads=8, encoder_ffn_dim=2048, decoder_ffn_dim=2048, num_mel_bins=80,
                          max_source_positions=1500, max_target_positions=448, pad_token_id=50257,
                          bos_token_id=50257, eos_token_id=50257, decoder_start_token_id=50258)
    T.WhisperForConditionalGeneration(cfg).save_pretrained(out)


def marian(out):
    T = _hf()
    T.MarianMTModel(T.MarianConfig(**SMALL, pad_token_id=0, decoder_start_token_id=0)).save_pretrained(out)


def marian_pt(out):
    import os

    import torch
    T = _hf()
    model = T.MarianMTModel(T.MarianConfig(**SMALL, pad_token_id=0, decoder_start_token_id=0))
    torch.save(model.state_dict(), os.path.join(out, "pytorch_model.pt"))


def speech2text(out):
    T = _hf()
    cfg = T.Speech2TextConfig(**SMALL, max_source_positions=128, max_target_positions=128, input_feat_per_channel=8,
                              num_conv_layers=1, conv_channels=8, conv_kernel_sizes=[5])
    T.Speech2TextForConditionalGeneration(cfg).save_pretrained(out)


def xglm(out):
    T = _hf()
    cfg = T.XGLMConfig(vocab_size=100, d_model=64, num_layers=1, attention_heads=2, ffn_dim=64,
                       max_position_embeddings=128)
    T.XGLMForCausalLM(cfg).save_pretrained(out)


def sd3(out):
    from diffusers import SD3Transformer2DModel
    SD3Transformer2DModel(sample_size=16, patch_size=2, in_channels=4, num_layers=1, attention_head_dim=16,
                          num_attention_heads=2, joint_attention_dim=32, caption_projection_dim=32,
                          pooled_projection_dim=32, out_channels=4, pos_embed_max_size=24).save_pretrained(out)


@dataclass
class Checkpoint:
    id: str
    library: str
    model: str
    build: Callable
    expect: list = field(default_factory=list)   # tensors the library's code fills with a sinusoid, and persists
    note: str = ""


CHECKPOINTS = [
    Checkpoint("transformers/pegasus", "transformers", "PegasusForConditionalGeneration", pegasus,
               ["model.encoder.embed_positions.weight", "model.decoder.embed_positions.weight"],
               "PegasusSinusoidalPositionalEmbedding is an nn.Embedding: its weight is saved"),
    Checkpoint("transformers/pegasus[bfloat16]", "transformers", "PegasusForConditionalGeneration", pegasus_bf16,
               ["model.encoder.embed_positions.weight", "model.decoder.embed_positions.weight"],
               "model.to(torch.bfloat16).save_pretrained: BF16 tensors"),
    Checkpoint("transformers/pegasus[torch.save]", "transformers", "PegasusForConditionalGeneration", pegasus_pt,
               ["model.encoder.embed_positions.weight", "model.decoder.embed_positions.weight"],
               "torch.save(model.state_dict()): a .pt read with weights_only=True"),
    Checkpoint("transformers/fsmt", "transformers", "FSMTForConditionalGeneration", fsmt,
               ["model.encoder.embed_positions.weight", "model.decoder.embed_positions.weight"],
               "fairseq's SinusoidalPositionalEmbedding: t2t rows 0..n-1 with row padding_idx = 1 zeroed"),
    Checkpoint("transformers/whisper", "transformers", "WhisperForConditionalGeneration", whisper,
               ["model.encoder.embed_positions.weight"],
               "the encoder's positions are sinusoids(); the decoder's are learned (random at init)"),
    Checkpoint("transformers/whisper[base shapes]", "transformers", "WhisperForConditionalGeneration", whisper_base,
               ["model.encoder.embed_positions.weight"], "72 M parameters: the throughput figure"),
    Checkpoint("transformers/marian", "transformers", "MarianMTModel", marian, [],
               "MarianMTModel._keys_to_ignore_on_save lists both embed_positions weights: save_pretrained drops them"),
    Checkpoint("transformers/marian[torch.save]", "transformers", "MarianMTModel", marian_pt,
               ["model.encoder.embed_positions.weight", "model.decoder.embed_positions.weight"],
               "torch.save(model.state_dict()) keeps what save_pretrained drops"),
    Checkpoint("transformers/speech2text", "transformers", "Speech2TextForConditionalGeneration", speech2text, [],
               "Speech2TextSinusoidalPositionalEmbedding keeps its weights as a non-persistent buffer"),
    Checkpoint("transformers/xglm", "transformers", "XGLMForCausalLM", xglm, [],
               "XGLMSinusoidalPositionalEmbedding keeps its weights as a non-persistent buffer"),
    Checkpoint("diffusers/SD3Transformer2DModel", "diffusers", "SD3Transformer2DModel", sd3, ["pos_embed.pos_embed"],
               "PatchEmbed with pos_embed_max_size: a persistent get_2d_sincos_pos_embed buffer (1, 24*24, 32)"),
]
