"""Which public code ships each preset (SPEC.md DEF-PRESET-SOURCES, DEF-PRESET-*).

Each :class:`Source` names one function in a public repository, read in the repository itself
(the commit that was read is recorded), and says which member of the family DEF-FAMILY it
computes: a preset name plus exact parameter overrides, so that ``source.resolve()`` is the
:class:`~sinpe.spec.profiles.Profile` whose table the code produces for every d it accepts.
What the code does beyond the family (a zeroed padding row, a NaN at tiny d, the dtype it
computes in, a width other than d) is in the free-text fields.

``matches_preset`` is True when the code's table equals the preset's for every d the code
accepts (a code that raises for odd d can still match: the preset then only matters for even d).

>>> get_source("marian").resolve().name
'vaswani-concat'
>>> [s.key for s in sources_for("vaswani")]
['distilbert', 'keras-hub', 'pytorch-tutorial', 'annotated-transformer', 'opennmt-interleaved']
>>> s = get_source("guided-diffusion"); s.profile, s.overrides, s.matches_preset
('vaswani-concat-cos', {}, True)
>>> s.resolve().describe()
'[cos...|sin...], w_k = 10000^(-k/floor(d/2)), odd d: zero-pad'

The preset's D is floor(d/2), as in this code; for even d that is Vaswani's d/2, for odd d it is not:

>>> from sinpe.spec.definition import exponent
>>> from sinpe.spec.profiles import get_profile
>>> exponent(s.resolve(), 64, 5) == exponent(get_profile("vaswani"), 64, 5)
True
>>> exponent(s.resolve(), 65, 5), exponent(get_profile("vaswani"), 65, 5)
(Fraction(5, 32), Fraction(2, 13))
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .catalogue import lookup
from .profiles import PRESETS, Profile, get_profile


@dataclass(frozen=True)
class Source:
    """One public function and the family member it computes.

    ``profile`` is the preset it is filed under, ``overrides`` the exact parameter changes that
    make ``resolve()`` equal the code for every d it accepts (empty when it is the preset itself).
    ``profile`` is None for code that is not a 1-D member of the family (kept for the record).
    ``exact`` is False when no member equals the code for some d it accepts (then ``resolve()``
    is exact only for even d; ``odd`` says what the code does).
    """

    key: str
    library: str
    repo: str
    path: str
    function: str
    profile: str | None
    overrides: Mapping[str, object] = field(default_factory=dict)
    matches_preset: bool = True
    exact: bool = True
    odd: str = ""
    offset: str = "0"
    dtype: str = ""
    commit: str | None = None
    notes: str = ""

    def resolve(self) -> Profile:
        """The exact Profile the code computes (preset plus overrides)."""
        if self.profile is None:
            raise ValueError(f"source {self.key!r} ({self.function}) is not a 1-D member of the family")
        return get_profile(self.profile, **dict(self.overrides))

    @property
    def url(self) -> str:
        ref = self.commit or "HEAD"
        return f"https://github.com/{self.repo}/blob/{ref}/{self.path}"


# Every entry was read in the repository named (commit = the stored version that was read).
# "seen in copies" means the newer text was read in verbatim copies found by find_string, not in
# the upstream repository itself; the upstream path is the one the copies cite.
SOURCES: tuple[Source, ...] = (
    Source(
        "tensor2tensor", "tensor2tensor", "tensorflow/tensor2tensor", "tensor2tensor/layers/common_attention.py",
        "get_timing_signal_1d", "t2t",
        odd="zero-pad: tf.pad(signal, [[0,0],[0, channels % 2]])",
        offset="start_index (default 0)",
        dtype="float32 (tf.to_float positions; log increment divided by a float32 tensor)",
        commit="75b75f2e2281101b9b3637e14ef519afd6a11b68",
        notes="w_k = min_timescale*exp(-k*ln(max/min)/(n-1)), n = channels//2: with the defaults 1, 1e4 this is "
              "t2t (base = max/min, phase scale = min_timescale otherwise; issue tensorflow/tensor2tensor#1923 argues "
              "the factor should divide). The commit read divides by (n-1) unguarded: channels 2 or 3 give "
              "log(1e4)/0 = inf and 0*inf = NaN; later versions (seen in copies) use tf.maximum(n-1, 1) and cite "
              "PR tensorflow/tensor2tensor#177 for the difference from the paper's interleaving."),
    Source(
        "fairseq", "fairseq", "facebookresearch/fairseq", "fairseq/modules/sinusoidal_positional_embedding.py",
        "SinusoidalPositionalEmbedding.get_embedding", "t2t",
        odd="zero-pad: torch.cat([emb, zeros(num_embeddings, 1)])",
        offset="table row r = PE(r); forward reads row padding_idx+1+i for token i (utils.make_positions), "
               "so with padding_idx = 1 token i gets t2t with offset 2",
        dtype="float32 (torch.float arange and exp)",
        commit="0491f2696114f5e35e14b6c133fc55c2e60d8077",
        notes="row padding_idx is zeroed (emb[padding_idx, :] = 0); d = 2 or 3 raises ZeroDivisionError "
              "(math.log(10000) / (half_dim - 1)). Docstring: 'matches tensor2tensor, differs slightly from "
              "Section 3.5'."),
    Source(
        "whisper", "OpenAI Whisper", "openai/whisper", "whisper/model.py", "sinusoids", "t2t", {"odd": "error"},
        odd="error: assert channels % 2 == 0",
        dtype="float32 (np.log scalar times torch.arange; default dtype)",
        commit="0060c61428cc2f432b346c803e405f1cd7fbfc87",
        notes="audio encoder buffer sinusoids(n_audio_ctx, n_audio_state); channels = 2 divides by 0 in NumPy "
              "(inf) and gives NaN."),
    Source(
        "diffusers-default", "diffusers", "huggingface/diffusers", "src/diffusers/models/embeddings.py",
        "get_timestep_embedding (defaults flip_sin_to_cos=False, downscale_freq_shift=1)", "t2t",
        odd="zero-pad: F.pad(emb, (0, 1, 0, 0))",
        offset="timesteps as given (may be fractional)",
        dtype="float32 (exponent = -log(max_period)*arange(float32)/(half_dim - shift); timesteps.float())",
        commit="168e5b7ffa4949fca82ed2fcd17d3451c5804401",
        notes="the commit read is the early (flag-less) file; the flagged function was read in copies citing "
              "diffusers v0.30.3 embeddings.py#L27: D = half_dim - downscale_freq_shift (our shift s), "
              "base = max_period, phase scale = scale (applied before sin/cos), flip_sin_to_cos swaps the halves. "
              "shift 1 at d = 2 or 3 divides by 0 (NaN)."),
    Source(
        "diffusers-unet", "diffusers", "huggingface/diffusers", "src/diffusers/models/unets/unet_2d_condition.py",
        "UNet2DConditionModel: Timesteps(block_out_channels[0], flip_sin_to_cos=True, freq_shift=0)",
        "vaswani-concat-cos",
        odd="zero-pad with D = floor(d/2), as the preset",
        dtype="float32",
        commit="00f354d14d00ed60cfce2ea7c5efceca2e4c4c3f",
        notes="config defaults flip_sin_to_cos=True, freq_shift=0 (Stable Diffusion). The same "
              "Timesteps(256, flip_sin_to_cos=True, downscale_freq_shift=0) is built by "
              "PixArtAlphaCombinedTimestepSizeEmbeddings and CombinedTimestepTextProjEmbeddings (SD3/Flux) "
              "(seen in copies of embeddings.py): d = 256, so the preset's table exactly."),
    Source(
        "diffusers-dit", "diffusers", "huggingface/diffusers", "src/diffusers/models/embeddings.py",
        "CombinedTimestepLabelEmbeddings: Timesteps(256, flip_sin_to_cos=True, downscale_freq_shift=1)",
        "t2t-cos",
        odd="zero-pad (d = 256 in use)", dtype="float32",
        notes="DiT class-conditional embedding (seen in copies of diffusers' embeddings.py). "
              "huggingface/diffusers#12791 (PRX) and kohya-ss/sd-scripts#1187 (SDXL) fixed models that "
              "passed shift 1 where the original used 0."),
    Source(
        "guided-diffusion", "guided-diffusion", "openai/guided-diffusion", "guided_diffusion/nn.py",
        "timestep_embedding", "vaswani-concat-cos",
        odd="zero-pad with D = floor(d/2) (freqs = exp(-log(max_period)*arange(half)/half)), as the preset",
        dtype="float32 (freqs float32, timesteps.float())",
        commit="aca3097a89fab9c9962b22224d5f48950eb57e29",
        notes="cat([cos(args), sin(args)]); max_period = base."),
    Source(
        "marian", "transformers (Marian)", "huggingface/transformers",
        "src/transformers/models/marian/modeling_marian.py", "MarianSinusoidalPositionalEmbedding._init_weight",
        "vaswani-concat",
        odd="ceil-split: sentinel = dim//2 (+1 for odd dim); sin of the ceil(d/2) even-index angles, "
            "cos of the floor(d/2) odd-index angles",
        offset="position_ids from past_key_values_length",
        dtype="float64 NumPy (pos / np.power(10000, 2*(j//2)/dim)), then torch.FloatTensor (float32), "
              "then the weight dtype",
        commit="00b676f8f0489b88652a31d70751cc540dd06305",
        notes="the same sentinel was introduced for BART's SinusoidalPositionalEmbedding in "
              "huggingface/transformers#8226 (odd embedding_dim used to fail). The TF port had an in-place "
              "overwrite bug (huggingface/transformers#11724; see reference/bugs.py BUG-CONCAT-INPLACE)."),
    Source(
        "distilbert", "transformers (DistilBERT)", "huggingface/transformers",
        "src/transformers/models/distilbert/modeling_distilbert.py", "_create_sinusoidal_embeddings", "vaswani",
        odd="trailing-sin: out[:, 0::2] takes ceil(d/2) sin columns (exponent 2*(j//2)/dim)",
        dtype="float64 NumPy, then torch.FloatTensor (float32)",
        commit="00b326f4caca2d1fbebe5c86e1693475fd4d0c9a",
        notes="the XLM/FSMT variants use the same position_enc formula."),
    Source(
        "mae", "MAE", "facebookresearch/mae", "util/pos_embed.py", "get_1d_sincos_pos_embed_from_grid",
        "vaswani-concat", {"odd": "error"},
        odd="error: assert embed_dim % 2 == 0",
        dtype="omega float32 (np.arange(float32), in-place /=); the table is float32 for float32 positions "
              "(MAE's 2-D grid) and float64 with float32 frequencies for float64 positions (einsum promotes)",
        commit="a9f5c70165c6ec81ce4036d9c2296ab70b7042f9",
        notes="used per axis by get_2d_sincos_pos_embed (d/2 columns for each of h, w)."),
    Source(
        "timm-2d", "timm", "huggingface/pytorch-image-models", "timm/layers/pos_embed_sincos.py",
        "build_sincos2d_pos_embed", None, matches_preset=False,
        odd="error: assert dim % 4 == 0",
        dtype="float32 (int64 arange cast to float32), output cast to dtype",
        commit="0647e283021a2a7b0c7dc989d10564aa55bbf5e7",
        notes="2-D only: w_k = T^(-k/(dim/4)); columns [sin_y | sin_x | cos_y | cos_x] (interleave_sin_cos "
              "stacks per axis instead). Not a 1-D member; listed so nobody files timm under a 1-D preset."),
    Source(
        "audiocraft", "audiocraft (MusicGen)", "facebookresearch/audiocraft", "audiocraft/modules/transformer.py",
        "create_sin_embedding", "t2t-cos", {"odd": "error"},
        odd="error: assert dim % 2 == 0",
        offset="arange(T) + streaming offsets",
        dtype="the caller's dtype: StreamingTransformer passes dtype=x.dtype, so positions, the exponent and "
              "max_period**(adim/(half_dim-1)) are float16/bfloat16 when the model runs in half precision",
        commit="4111584a41cc3e94e6b5b85fad0ecbeef20fbbb5",
        notes="phase = positions / max_period**(k/(n-1)) (division by the timescale); "
              "StreamingTransformer adds positional_scale * pos_emb (an amplitude, default 1)."),
    Source(
        "keras-hub", "keras-hub (keras-nlp)", "keras-team/keras-hub", "keras_hub/src/layers/modeling/sine_position_encoding.py",
        "SinePositionEncoding.call", "vaswani",
        odd="trailing-sin: column j is sin for even j with exponent 2*(j//2)/d",
        offset="start_index",
        dtype="self.compute_dtype for positions, 1/max_wavelength and the exponent: float16 positions "
              "under a mixed_float16 policy",
        commit="0e1444fdfbc088d2e736a43927f4719a30becd19",
        notes="w_j = fl(1/max_wavelength)^(2*(j//2)/d): 1e-4 is rounded to the compute dtype before the power "
              "(float32 1e-4 = 9.99999974737875e-05, i.e. base 10000.00025)."),
    Source(
        "pytorch-tutorial", "PyTorch tutorials", "pytorch/tutorials", "beginner_source/transformer_tutorial.py",
        "PositionalEncoding", "vaswani", {"odd": "error"},
        odd="error: pe[:, 0, 1::2] = cos(position * div_term) has floor(d/2) slots for ceil(d/2) values "
            "(RuntimeError)",
        dtype="float32 (div_term = exp(arange(0, d, 2) * (-log(1e4)/d)); int64 positions times float32)",
        commit="00109f5abe4d664833ae7cde8b694b41356adb2b",
        notes="buffer is sequence-first (max_len, 1, d) and forward adds pe[:x.size(0)]: with batch-first "
              "input it broadcasts per batch index (pytorch/tutorials#1547; BUG-SEQ-FIRST-BROADCAST)."),
    Source(
        "annotated-transformer", "The Annotated Transformer", "harvardnlp/annotated-transformer",
        "the_annotated_transformer.py", "PositionalEncoding", "vaswani", {"odd": "error"},
        odd="error: same 1::2 shape mismatch as the PyTorch tutorial",
        dtype="float32",
        notes="read in verbatim copies (find_string 'Implement the PE function.'); buffer (1, max_len, d), "
              "batch-first."),
    Source(
        "opennmt-interleaved", "OpenNMT-py", "OpenNMT/OpenNMT-py", "onmt/modules/embeddings.py",
        "PositionalEncoding (SinusoidalInterleaved)", "vaswani", {"odd": "error"},
        odd="error: raises ValueError('Cannot use sin/cos positional encoding with odd dim')",
        offset="step for incremental decoding",
        dtype="float32",
        commit="0f2852c1849d7f70d4445161ba6f0aea4abfc0af",
        notes="buffer (max_len, 1, d), sequence-first; forward multiplies the word embedding by sqrt(dim)."),
    Source(
        "opennmt-concat", "OpenNMT-py", "OpenNMT/OpenNMT-py", "onmt/modules/embeddings.py",
        "PositionalEncoding (SinusoidalConcat)", "t2t", {"odd": "error"},
        odd="error (same ValueError)", dtype="float32",
        notes="later versions (seen in copies): 'default Fairseq imported models'; math.log(10000)/(half_dim-1)."),
    Source(
        "mlx", "MLX", "ml-explore/mlx", "python/mlx/nn/layers/positional_encoding.py",
        "SinusoidalPositionalEncoding(dims, scale=1.0)", "t2t", matches_preset=False, exact=False,
        odd="neither rule: concatenates two dims//2 halves, so odd dims gives d-1 columns",
        dtype="float32 sigmas; x's dtype otherwise",
        commit="05ddf3ff481fce2e9610bb98753d8dda414dad7d",
        notes="sigma_k = exp((1 - k/(n-1))*(ln max_freq - ln min_freq) + ln min_freq) = 10000^(-k/(n-1)) for "
              "the defaults min_freq=1e-4, max_freq=1: the t2t schedule; cos_first=True gives t2t-cos; "
              "resolve() is the scale=1.0 call; the default amplitude scale = sqrt(2/dims) (rational only when d/2 is a perfect square, "
              "e.g. d = 8 gives 1/2); full_turns multiplies w by 2*pi; n = 1 gives 0/0 = NaN."),
    Source(
        "fairseq2", "fairseq2", "facebookresearch/fairseq2", "src/fairseq2/nn/_position_encoder.py",
        "SinusoidalPositionEncoder (_fill_sin_freq_table)", "t2t", {"odd": "error"},
        odd="error: raises ValueError('`encoding_dim` must be even')",
        offset="_legacy_pad_idx: steps start at 1 + pad_idx (fairseq-compatible offset, no zeroed row)",
        dtype="float32 table; added to seqs.float() (facebookresearch/fairseq2#65: 'always in fp32')",
        commit="152a0a6cbccabb3d03a8ea7aef7f529a8867af43",
        notes="comment in the code: 'identical to tensor2tensor's implementation' (correction = 1)."),
)

_BY_KEY = {s.key: s for s in SOURCES}


def get_source(key: str) -> Source:
    """The Source with this key (one-line error listing the keys otherwise)."""
    return lookup(_BY_KEY, key, "source")


def sources_for(preset: str) -> tuple[Source, ...]:
    """The sources filed under a preset (exact or up to their odd-d behaviour)."""
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; presets: {', '.join(PRESETS)}")
    return tuple(s for s in SOURCES if s.profile == preset)
