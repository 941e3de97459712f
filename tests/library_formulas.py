"""Library formulas for 2-D grids and rotary caches, transcribed in NumPy (our own code, not theirs).

Each function follows what the cited public function computes, in the dtype it computes in (the
source, path and commit read are in ``spec/sources.py`` GRID_SOURCES / ROTARY_SOURCES). The tests
check these tables against the spec's profiles, and wrong variants against the right profile.
"""
from __future__ import annotations

import math

import numpy as np

F32 = np.float32


def sincos_1d_concat(dim: int, pos: np.ndarray, dtype=np.float64) -> np.ndarray:
    """MAE/diffusers get_1d_sincos_pos_embed_from_grid: w = 1/10000^(k/(dim/2)); [sin | cos]."""
    omega = np.arange(dim // 2, dtype=dtype) / dtype(dim / 2.0)
    omega = (1.0 / 10000 ** omega).astype(dtype)
    out = np.einsum("m,d->md", pos.reshape(-1), omega)
    return np.concatenate([np.sin(out), np.cos(out)], axis=1)


def mae_2d(dim: int, n: int, cls: bool = False) -> np.ndarray:
    """facebookresearch/mae util/pos_embed.py get_2d_sincos_pos_embed (float32 grid and omega)."""
    g = np.arange(n, dtype=F32)
    gw, gh = np.meshgrid(g, g)  # w first: gw varies along columns
    emb = np.concatenate([sincos_1d_concat(dim // 2, gw, F32), sincos_1d_concat(dim // 2, gh, F32)], axis=1)
    if cls:
        emb = np.concatenate([np.zeros([1, dim]), emb], axis=0)
    return emb


def diffusers_2d(dim: int, n: int, base_size: float = 16, interpolation_scale: float = 1.0,
                 extra_tokens: int = 0) -> np.ndarray:
    """diffusers get_2d_sincos_pos_embed: float32 grid i / (n / base_size) / scale, float64 omega;
    the model casts the table to float32 (``.float()``)."""
    g = np.arange(n, dtype=F32) / F32(n / base_size) / F32(interpolation_scale)
    gw, gh = np.meshgrid(g, g)
    emb = np.concatenate([sincos_1d_concat(dim // 2, gw.astype(np.float64)),
                          sincos_1d_concat(dim // 2, gh.astype(np.float64))], axis=1)
    if extra_tokens:
        emb = np.concatenate([np.zeros([extra_tokens, dim]), emb], axis=0)
    return emb.astype(F32)


def timm_2d(dim: int, shape: tuple[int, int], reverse_coord: bool = False, interleave: bool = False,
            temperature: float = 10000.0) -> np.ndarray:
    """timm build_sincos2d_pos_embed (float32): bands T^(-k/(dim/4)); ij grid; stack sin/cos on dim 1 or 2."""
    pos_dim = dim // 4
    bands = (1.0 / (F32(temperature) ** (np.arange(pos_dim).astype(F32) / F32(pos_dim)))).astype(F32)
    shp = shape[::-1] if reverse_coord else shape
    grid = np.stack(np.meshgrid(*[np.arange(s).astype(F32) for s in shp], indexing="ij")).reshape(2, -1).T
    pos2 = grid[:, :, None] * bands[None, None, :]  # (HW, 2, pos_dim)
    st = np.stack([np.sin(pos2), np.cos(pos2)], axis=2 if interleave else 1)
    return st.reshape(st.shape[0], -1).astype(F32)


def vitmae_2d(dim: int, h: int, w: int, cls: bool = False, temperature: float = 10000.0) -> np.ndarray:
    """transformers build_2d_sinusoidal_position_embedding (ViTMAE, RT-DETR): omega = 1/T^(k/(dim/4)) in float64,
    ij grid, [sin_h | cos_h | sin_w | cos_w], an optional zero cls row, then cast to float32."""
    omega = 1.0 / temperature ** (np.arange(dim // 4, dtype=np.float64) / (dim // 4))
    gh, gw = np.meshgrid(np.arange(h, dtype=np.float64), np.arange(w, dtype=np.float64), indexing="ij")
    eh, ew = np.outer(gh.ravel(), omega), np.outer(gw.ravel(), omega)
    pos = np.concatenate([np.sin(eh), np.cos(eh), np.sin(ew), np.cos(ew)], axis=1)
    if cls:
        pos = np.concatenate([np.zeros((1, dim)), pos])
    return pos.astype(F32)


def detr_sine(dim: int, h: int, w: int, normalize: bool = False, temperature: float = 10000.0,
              centre: bool = False) -> np.ndarray:
    """facebookresearch/detr PositionEmbeddingSine(num_pos_feats=dim/2) (float32), returned as (H*W, dim);
    ``centre``: Deformable DETR's normalize, (y_embed - 0.5) / (y_embed[:, -1:, :] + eps) * scale."""
    npf = dim // 2
    y = np.broadcast_to(np.arange(1, h + 1, dtype=F32)[:, None], (h, w))
    x = np.broadcast_to(np.arange(1, w + 1, dtype=F32)[None, :], (h, w))
    if normalize:
        eps, half = F32(1e-6), F32(0.5 if centre else 0.0)
        y = (y - half) / (y[-1:, :] + eps) * F32(2 * math.pi)
        x = (x - half) / (x[:, -1:] + eps) * F32(2 * math.pi)
    j = np.arange(npf, dtype=F32)
    dim_t = (F32(temperature) ** (F32(2) * np.floor(j / 2) / F32(npf))).astype(F32)
    px, py = x[..., None] / dim_t, y[..., None] / dim_t
    def inter(p: np.ndarray) -> np.ndarray:
        return np.stack([np.sin(p[..., 0::2]), np.cos(p[..., 1::2])], axis=3).reshape(h, w, npf)
    pos = np.concatenate([inter(py), inter(px)], axis=2)  # (H, W, C); DETR returns it permuted to (C, H, W)
    return pos.reshape(h * w, dim).astype(F32)


# --- rotary -------------------------------------------------------------------------------------

def inv_freq_default(dim: int, base: float = 10000.0, dtype=F32) -> np.ndarray:
    """transformers _compute_default_rope_parameters / gpt-neox RotaryEmbedding: 1/(b^(arange(0,dim,2)/dim))."""
    return (1.0 / (dtype(base) ** (np.arange(0, dim, 2).astype(dtype) / dtype(dim)))).astype(dtype)


def rope_cache(inv_freq: np.ndarray, n: int, layout: str = "halves", scaling: float = 1.0,
               dtype=F32) -> tuple[np.ndarray, np.ndarray]:
    """LlamaRotaryEmbedding / gpt-neox: emb = cat(freqs, freqs) (halves) or repeat_interleave(2) (pairs)."""
    t = np.arange(n).astype(inv_freq.dtype)
    freqs = np.outer(t, inv_freq).astype(inv_freq.dtype)
    emb = np.concatenate([freqs, freqs], axis=1) if layout == "halves" else np.repeat(freqs, 2, axis=1)
    return ((np.cos(emb) * scaling).astype(dtype), (np.sin(emb) * scaling).astype(dtype))


def inv_freq_linear(dim: int, factor: float, base: float = 10000.0) -> np.ndarray:
    return (inv_freq_default(dim, base) / F32(factor)).astype(F32)


def inv_freq_dynamic(dim: int, factor: float, max_pos: int, seq_len: int, base: float = 10000.0) -> np.ndarray:
    n = seq_len if seq_len > max_pos else max_pos
    b = base * ((factor * n / max_pos) - (factor - 1)) ** (dim / (dim - 2))
    return inv_freq_default(dim, b)


def inv_freq_llama3(dim: int, base: float, factor: float, low: float, high: float, old: int) -> np.ndarray:
    inv = inv_freq_default(dim, base).astype(np.float64)
    wavelen = 2 * math.pi / inv
    out = np.where(wavelen > old / low, inv / factor, inv)
    smooth = (old / wavelen - low) / (high - low)
    blended = (1 - smooth) * out / factor + smooth * out
    medium = ~(wavelen < old / high) & ~(wavelen > old / low)
    return np.where(medium, blended, out).astype(F32)


def inv_freq_yarn(dim: int, base: float, factor: float, max_pos: int, beta_fast: float = 32,
                  beta_slow: float = 1) -> tuple[np.ndarray, float]:
    def corr(rot: float) -> float:
        return (dim * math.log(max_pos / (rot * 2 * math.pi))) / (2 * math.log(base))
    low = max(math.floor(corr(beta_fast)), 0)
    high = min(math.ceil(corr(beta_slow)), dim - 1)
    if low == high:
        high += 0.001
    pos_freqs = base ** (np.arange(0, dim, 2).astype(F32) / F32(dim))
    extra, inter = 1.0 / pos_freqs, 1.0 / (factor * pos_freqs)
    ramp = np.clip((np.arange(dim // 2, dtype=F32) - low) / (high - low), 0, 1)
    m = 1 - ramp
    return (inter * (1 - m) + extra * m).astype(F32), 0.1 * math.log(factor) + 1.0


# --- variants with presets since issue 16.1 ------------------------------------------------------

def pe2d(channels: int, x: int, y: int) -> np.ndarray:
    """positional-encodings PositionalEncoding2D(channels) on a (1, x, y, channels) input (float32), as (x*y, C):
    c = ceil(C/4)*2; inv_freq = 1/10000^(arange(0, c, 2)/c); per axis sin/cos interleaved; [axis x | axis y][:C]."""
    c = int(np.ceil(channels / 4) * 2)
    inv = (1.0 / (10000 ** (np.arange(0, c, 2).astype(F32) / F32(c)))).astype(F32)
    def emb(n: int) -> np.ndarray:
        s = np.outer(np.arange(n).astype(F32), inv).astype(F32)
        return np.stack([np.sin(s), np.cos(s)], axis=-1).reshape(n, c)
    out = np.zeros((x, y, 2 * c), dtype=F32)
    out[:, :, :c] = emb(x)[:, None, :]
    out[:, :, c:] = emb(y)[None, :, :]
    return out[:, :, :channels].reshape(x * y, channels)


def vit_posemb_sincos_2d(h: int, w: int, dim: int, temperature: float = 10000.0) -> np.ndarray:
    """lucidrains/vit-pytorch posemb_sincos_2d (float32): omega = T^(-arange(dim/4)/(dim/4 - 1)); [x | y] each
    [sin | cos]; rows over the ij meshgrid (y outer)."""
    yy, xx = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    q = dim // 4
    omega = (1.0 / (F32(temperature) ** (np.arange(q).astype(F32) / F32(q - 1)))).astype(F32)
    ya = (yy.reshape(-1)[:, None].astype(F32) * omega[None, :]).astype(F32)
    xa = (xx.reshape(-1)[:, None].astype(F32) * omega[None, :]).astype(F32)
    return np.concatenate([np.sin(xa), np.cos(xa), np.sin(ya), np.cos(ya)], axis=1).astype(F32)


def inv_freq_longrope(dim: int, factors: list[float], base: float = 10000.0, factor: float = 1.0,
                      original_max: int = 4096) -> tuple[np.ndarray, float]:
    """transformers _compute_longrope_parameters: inv_freq = 1/(ext_factors * b^(arange(0, dim, 2)/dim)) in float32,
    attention factor sqrt(1 + ln(s)/ln(L)) when s > 1, else 1."""
    ext = np.asarray(factors, dtype=F32)
    inv = (1.0 / (ext * (F32(base) ** (np.arange(0, dim, 2).astype(F32) / F32(dim))))).astype(F32)
    att = 1.0 if factor <= 1.0 else math.sqrt(1 + math.log(factor) / math.log(original_max))
    return inv, att


def pyg_temporal(out_channels: int, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """torch_geometric.nn.encoding.TemporalEncoding (float32): weight = 1/sqrt(d)^linspace(0, sqrt(d), d);
    cos(x @ weight). Returns (table, weight)."""
    sq = math.sqrt(out_channels)
    weight = (1.0 / (F32(sq) ** np.linspace(0, sq, out_channels, dtype=F32))).astype(F32)
    return np.cos((x.astype(F32)[:, None] * weight[None, :]).astype(F32)).astype(F32), weight


# --- multi-axis rotary (issue 16.1): Qwen2-VL M-RoPE and timm's pixel-band 2-D rotary ----------------------------

def qwen2_vl_mrope(pos3: np.ndarray, dim: int = 128, base: float = 1e6,
                   section=(16, 24, 24)) -> tuple[np.ndarray, np.ndarray]:
    """transformers Qwen2VLRotaryEmbedding + apply_multimodal_rotary_pos_emb (float32): inv_freq = 1/b^(arange(0, dim,
    2)/dim); per axis a (t, h, w) emb_a = cat(p_a * inv, p_a * inv); the cache columns are the chunks of
    section * 2 = [16, 24, 24, 16, 24, 24], chunk i taken from axis i % 3. ``pos3``: (rows, 3) position ids."""
    inv = (1.0 / (F32(base) ** (np.arange(0, dim, 2).astype(F32) / F32(dim)))).astype(F32)
    caches = []
    for fn in (np.cos, np.sin):
        per_axis = []
        for a in range(3):
            f = (pos3[:, a].astype(F32)[:, None] * inv[None, :]).astype(F32)
            per_axis.append(fn(np.concatenate([f, f], axis=1)).astype(F32))
        chunks, start = [], 0
        for i, n in enumerate(list(section) * 2):
            chunks.append(per_axis[i % 3][:, start:start + n])
            start += n
        caches.append(np.concatenate(chunks, axis=1))
    return caches[0], caches[1]


def timm_pixel_rope(h: int, w: int, dim: int, max_res: float = 224.0, linear_bands: bool = False,
                    dtype=F32) -> tuple[np.ndarray, np.ndarray]:
    """timm build_rotary_pos_embed(feat_shape=[h, w], dim, in_pixels=True) (float32): bands = pi * linspace(1, max_res/2,
    dim/4) (linear_bands) or pi * 2^linspace(0, log2(max_res) - 1, dim/4) (the default); coordinates linspace(-1, 1, n)
    per axis on the 'ij' grid; columns [y bands | x bands], each repeated twice (repeat_interleave). Returns (cos, sin)
    (``dtype`` float64: the same formula in binary64)."""
    F32 = dtype
    nb = dim // 4
    if linear_bands:
        bands = np.linspace(1.0, max_res / 2, nb, dtype=F32)
    else:
        bands = (F32(2.0) ** np.linspace(0.0, math.log(max_res, 2) - 1, nb, dtype=F32)).astype(F32)
    bands = (bands * F32(math.pi)).astype(F32)
    ty, tx = np.linspace(-1.0, 1.0, h, dtype=F32), np.linspace(-1.0, 1.0, w, dtype=F32)
    gy, gx = np.meshgrid(ty, tx, indexing="ij")
    grid = np.stack([gy, gx], axis=-1).reshape(h * w, 2)
    ang = (grid[:, :, None] * bands[None, None, :]).astype(F32).reshape(h * w, 2 * nb)
    return np.repeat(np.cos(ang), 2, axis=1).astype(F32), np.repeat(np.sin(ang), 2, axis=1).astype(F32)


# --- variants detect reads since issue 29.2 ----------------------------------------------------------------------

def diffusers_2d_hw(dim: int, shape: tuple[int, int], base_size: float = 16, interpolation_scale: float = 1.0,
                    extra_tokens: int = 0) -> np.ndarray:
    """diffusers get_2d_sincos_pos_embed with grid_size = (h, w) (a non-square grid): grid_h = arange(h) / (h /
    base_size) / scale, grid_w likewise with w (float32), meshgrid(grid_w, grid_h) so the rows run over (h, w) with
    x channels first; float64 omega; ``extra_tokens`` zero rows first (cls_token=True); the model's ``.float()``."""
    h, w = shape
    gh = np.arange(h, dtype=F32) / F32(h / base_size) / F32(interpolation_scale)
    gw = np.arange(w, dtype=F32) / F32(w / base_size) / F32(interpolation_scale)
    xx, yy = np.meshgrid(gw, gh)  # (h, w): xx[i, j] = gw[j]
    emb = np.concatenate([sincos_1d_concat(dim // 2, xx.astype(np.float64)),
                          sincos_1d_concat(dim // 2, yy.astype(np.float64))], axis=1)
    if extra_tokens:
        emb = np.concatenate([np.zeros([extra_tokens, dim]), emb], axis=0)
    return emb.astype(F32)


def diffusers_3d(dim: int, spatial_size: tuple[int, int], temporal_size: int, spatial_interpolation_scale: float = 1.0,
                 temporal_interpolation_scale: float = 1.0, dtype=F32) -> np.ndarray:
    """diffusers get_3d_sincos_pos_embed (CogVideoX): spatial_size = (W, H); the spatial part is
    get_2d_sincos_pos_embed_from_grid(3 dim/4) over grid_w = arange(W) / s, grid_h = arange(H) / s (float32, w first:
    [x | y]), the temporal part get_1d_sincos_pos_embed_from_grid(dim/4, arange(T) / t) (float64 omega); rows over
    (T, H, W), columns [t | x | y]; returned as (T*H*W, dim), cast to float32 as the model does. ``dtype=np.float64``:
    the same formula with float64 grids and no cast (the formula in binary64, to compare with exact values)."""
    w, h = spatial_size
    ds, dt = 3 * dim // 4, dim // 4
    gh = np.arange(h, dtype=dtype) / dtype(spatial_interpolation_scale)
    gw = np.arange(w, dtype=dtype) / dtype(spatial_interpolation_scale)
    xx, yy = np.meshgrid(gw, gh)
    spatial = np.concatenate([sincos_1d_concat(ds // 2, xx.astype(np.float64)),
                              sincos_1d_concat(ds // 2, yy.astype(np.float64))], axis=1)  # (H*W, 3D/4)
    gt = np.arange(temporal_size, dtype=dtype) / dtype(temporal_interpolation_scale)
    temporal = sincos_1d_concat(dt, gt.astype(np.float64))  # (T, D/4)
    spatial = np.repeat(spatial[None], temporal_size, axis=0)
    temporal = np.repeat(temporal[:, None], h * w, axis=1)
    return np.concatenate([temporal, spatial], axis=-1).reshape(temporal_size * h * w, dim).astype(dtype)


def aifi_2d(w: int, h: int, dim: int = 256, temperature: float = 10000.0) -> np.ndarray:
    """ultralytics AIFI.build_2d_sincos_position_embedding(w, h, embed_dim, temperature) (float32): meshgrid(grid_w,
    grid_h, indexing='ij') (w outermost), omega = 1/T^(arange(dim/4)/(dim/4)), [sin_w | cos_w | sin_h | cos_h]."""
    gw, gh = np.meshgrid(np.arange(w, dtype=F32), np.arange(h, dtype=F32), indexing="ij")
    q = dim // 4
    omega = (1.0 / (F32(temperature) ** (np.arange(q, dtype=F32) / F32(q)))).astype(F32)
    ow = (gw.reshape(-1)[:, None] * omega[None, :]).astype(F32)
    oh = (gh.reshape(-1)[:, None] * omega[None, :]).astype(F32)
    return np.concatenate([np.sin(ow), np.cos(ow), np.sin(oh), np.cos(oh)], axis=1).astype(F32)


def timm_fourier(feat_shape: tuple[int, ...], num_bands: int = 64, max_res: float = 224.0, linear_bands: bool = False,
                 in_pixels: bool = True, temperature: float = 10000.0) -> tuple[np.ndarray, np.ndarray]:
    """timm build_fourier_pos_embed(feat_shape, num_bands, max_res, temperature, linear_bands, in_pixels) (float32):
    bands pixel_freq_bands (pi * 2^linspace(0, log2(max_res) - 1, n), or pi * linspace(1, max_res/2, n)) or
    freq_bands(n, temperature, step=1) = 1/T^(arange(n)/n); coordinates linspace(-1, 1, s) (in_pixels) or arange(s)
    per axis on the 'ij' grid; pos = grid[..., None] * bands. Returns (sin, cos), each reshaped (cells, axes * n):
    per cell [axis 0 bands | axis 1 bands | ...]."""
    if in_pixels:
        b = (np.linspace(1.0, max_res / 2, num_bands, dtype=F32) if linear_bands else
             (F32(2.0) ** np.linspace(0.0, math.log(max_res, 2) - 1, num_bands, dtype=F32)).astype(F32))
        bands = (b * F32(math.pi)).astype(F32)
        t = [np.linspace(-1.0, 1.0, s, dtype=F32) for s in feat_shape]
    else:
        bands = (1.0 / (F32(temperature) ** (np.arange(num_bands).astype(F32) / F32(num_bands)))).astype(F32)
        t = [np.arange(s).astype(F32) for s in feat_shape]
    grid = np.stack(np.meshgrid(*t, indexing="ij"), axis=-1)  # (*feat_shape, axes)
    pos = (grid[..., None] * bands).astype(F32)               # (*feat_shape, axes, n)
    cells = int(np.prod(feat_shape))
    return np.sin(pos).reshape(cells, -1).astype(F32), np.cos(pos).reshape(cells, -1).astype(F32)


def timm_rotary(feat_shape: tuple[int, int], dim: int, in_pixels: bool = True, temperature: float = 10000.0,
                max_res: float = 224.0, linear_bands: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """timm build_rotary_pos_embed(feat_shape, dim, in_pixels, temperature, ...) (float32): build_fourier_pos_embed
    with num_bands = dim/4, each of (sin, cos) reshaped (cells, -1) and repeat_interleave'd by 2. Returns (sin, cos),
    timm's order."""
    s, c = timm_fourier(feat_shape, dim // 4, max_res, linear_bands, in_pixels, temperature)
    return np.repeat(s, 2, axis=1), np.repeat(c, 2, axis=1)


def espnet_pe(n: int, d: int, reverse: bool = False) -> np.ndarray:
    """ESPnet PositionalEncoding.extend_pe (float32): position = arange(n - 1, -1, -1.0) when ``reverse`` else
    arange(n); div_term = exp(arange(0, d, 2) * -(ln 10000 / d)); pe[:, 0::2] = sin, pe[:, 1::2] = cos."""
    pos = (np.arange(n - 1, -1, -1.0) if reverse else np.arange(n)).astype(F32)[:, None]
    div = np.exp(np.arange(0, d, 2, dtype=F32) * F32(-(math.log(10000.0) / d))).astype(F32)
    ang = (pos * div).astype(F32)
    pe = np.zeros((n, d), dtype=F32)
    pe[:, 0::2], pe[:, 1::2] = np.sin(ang), np.cos(ang)
    return pe


def freqs_cis_2d(h: int, w: int, dim: int, theta: float = 10000.0) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                               np.ndarray]:
    """A complex ``freqs_cis`` over 2-D positions (Pixtral/Llama-4-vision style, float32): freqs = 1/theta^(arange(0,
    dim, 2)/dim); the first dim/4 columns read the row index with freqs[0::2], the others the column index with
    freqs[1::2]; torch.polar(1, angles) split into (real, imag). Returns (cos, sin, positions (cells, 2), the dim/2
    frequencies in column order)."""
    freqs = (1.0 / (F32(theta) ** (np.arange(0, dim, 2).astype(F32) / F32(dim)))).astype(F32)
    fh, fw = freqs[0::2], freqs[1::2]
    ii, jj = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    pos = np.stack([ii.reshape(-1), jj.reshape(-1)], axis=1)
    ang = np.concatenate([(pos[:, :1].astype(F32) * fh[None, :]).astype(F32),
                          (pos[:, 1:].astype(F32) * fw[None, :]).astype(F32)], axis=1)
    return np.cos(ang).astype(F32), np.sin(ang).astype(F32), pos, np.concatenate([fh, fw])
