"""Rotary (RoPE) cos/sin caches (SPEC.md DEF-ROPE, DEF-ROPE-LAYOUT, DEF-ROPE-FREQ-*, DEF-ROPE-SCALE).

A rotary cache for head dimension ``dim`` (even, h = dim/2 frequencies) holds, at row p,
``A * cos(p * w_k)`` (the cos cache) and ``A * sin(p * w_k)`` (the sin cache); column j holds
frequency ``k = frequency_index(layout, dim, j)``:

- ``halves``  (rotate-half code: LLaMA, GPT-NeoX): ``[w_0 .. w_{h-1}, w_0 .. w_{h-1}]``, k = j mod h;
- ``pairs``   (GPT-J-style rotate-every-two code): ``[w_0, w_0, w_1, w_1, ...]``, k = j // 2;
- ``single``  (no duplication, h columns: the complex ``freqs_cis`` form), k = j.

The frequencies w_k are exact real numbers made by a *rule* (DEF-ROPE-FREQ-*) from exact
parameters, or given explicitly as exact decimals (DEF-ROPE-FREQ-EXPLICIT); A is the attention
scaling (DEF-ROPE-SCALE). Rules are written once against an mpmath context (``mpmath.iv`` for
certified enclosures; comparisons an interval cannot decide raise :class:`Undecided`, and the
caller raises the precision).

>>> import mpmath
>>> rp = get_rotary("llama")
>>> [mpmath.nstr(mpmath.mpf(w.mid), 12) for w in frequencies(rp, 8, mpmath.iv)]
['1.0', '0.1', '0.01', '0.001']
>>> [frequency_index("halves", 8, j) for j in range(8)], [frequency_index("pairs", 8, j) for j in range(8)]
([0, 1, 2, 3, 0, 1, 2, 3], [0, 0, 1, 1, 2, 2, 3, 3])
>>> get_rotary("llama", rule="linear", factor=4).describe()
'rotary halves [w0..w_{h-1}, w0..w_{h-1}], w_k = 10000^(-2k/dim) / 4 (linear)'
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .definition import rotary_data
from .profiles import Number, to_fraction

ROTARY_LAYOUTS = ("halves", "pairs", "single")
RULES = ("default", "linear", "dynamic", "llama3", "yarn", "longrope", "explicit", "pixel")
MAX_AXES = 8  # position axes a multi-axis profile may read (DEF-ROPE-AXES)


class Undecided(ArithmeticError):
    """An interval comparison or floor could not be decided at this precision (raise it and retry)."""


@dataclass(frozen=True)
class RotaryProfile:
    """DEF-ROPE: layout, base b, frequency rule and its exact parameters, attention scaling.

    ``factor``: the scaling factor s of linear / dynamic / llama3 / yarn. ``original_max``: the
    pre-training context L (dynamic's ``max_position_embeddings``, llama3's
    ``original_max_position_embeddings``, yarn's ``max_position_embeddings``). ``seq_len``: the
    length the dynamic-NTK cache was built for. ``low_freq_factor``/``high_freq_factor``: llama3's.
    ``beta_fast``/``beta_slow``: yarn's. ``attention_factor``: A (None: 1, or yarn's 0.1 ln s + 1).
    ``explicit``: the h frequencies as exact rationals (rule ``explicit``). ``ext_factors``: LongRoPE's h
    per-band rescale factors f_k (rule ``longrope``: the short or the long list, whichever the cache used).
    ``mrope_section``: DEF-ROPE-AXES, frequency k reads position axis a(k), the section holding k (Qwen2-VL
    M-RoPE: (16, 24, 24) over t, h, w; None: one axis, or two equal ones for rule ``pixel``). ``max_res`` and
    ``linear_bands``: DEF-ROPE-FREQ-PIXEL (timm's pixel-mode bands). ``xpos_scale_base`` (None: no xPos),
    ``xpos_gamma``, ``xpos_centred``, ``xpos_downscale``: DEF-ROPE-XPOS's sb, gamma, centring and sign.
    """

    name: str | None = None
    layout: str = "halves"
    base: Fraction = Fraction(10000)
    rule: str = "default"
    factor: Fraction = Fraction(1)
    original_max: int = 2048
    seq_len: int | None = None
    low_freq_factor: Fraction = Fraction(1)
    high_freq_factor: Fraction = Fraction(4)
    beta_fast: Fraction = Fraction(32)
    beta_slow: Fraction = Fraction(1)
    attention_factor: Fraction | None = None
    explicit: tuple[Fraction, ...] | None = None
    ext_factors: tuple[Fraction, ...] | None = None
    mrope_section: tuple[int, ...] | None = None
    max_res: Fraction = Fraction(224)
    linear_bands: bool = False
    xpos_scale_base: Fraction | None = None
    xpos_gamma: Fraction = Fraction(2, 5)
    xpos_centred: bool = False
    xpos_downscale: bool = False

    def __post_init__(self) -> None:
        if self.layout not in ROTARY_LAYOUTS:
            raise ValueError(f"rotary layout must be one of {', '.join(ROTARY_LAYOUTS)}; got {self.layout!r}")
        if self.rule not in RULES:
            raise ValueError(f"rotary rule must be one of {', '.join(RULES)}; got {self.rule!r}")
        for f in ("base", "factor", "low_freq_factor", "high_freq_factor", "beta_fast", "beta_slow"):
            object.__setattr__(self, f, to_fraction(getattr(self, f), f))
        if self.attention_factor is not None:
            object.__setattr__(self, "attention_factor", to_fraction(self.attention_factor, "attention_factor"))
        if self.base <= 0 or self.base == 1:
            raise ValueError(f"base must be positive and not 1; got {self.base}")
        if self.factor <= 0:
            raise ValueError(f"factor must be positive; got {self.factor}")
        if self.rule == "explicit":
            if not self.explicit:
                raise ValueError("rule 'explicit' needs the frequencies (explicit=...)")
            object.__setattr__(self, "explicit", tuple(to_fraction(w, "frequency") for w in self.explicit))
            if min(self.explicit) <= 0:  # DEF-ROPE-FREQ-EXPLICIT: each finite and positive
                raise ValueError(f"explicit frequencies must be positive; got {min(self.explicit)}")
        elif self.explicit is not None:
            raise ValueError(f"explicit frequencies given with rule {self.rule!r}; use rule 'explicit'")
        self._check_ext_factors()
        self._check_sections()
        self._check_xpos()
        if self.rule == "llama3" and self.high_freq_factor <= self.low_freq_factor:
            raise ValueError("llama3 needs high_freq_factor > low_freq_factor")

    def _check_ext_factors(self) -> None:
        if self.rule == "longrope":
            if not self.ext_factors:
                raise ValueError("rule 'longrope' needs the per-band factors (ext_factors=...)")
            fs = tuple(to_fraction(f, "ext factor") for f in self.ext_factors)
            if any(f <= 0 for f in fs):
                raise ValueError("LongRoPE factors must be positive")
            object.__setattr__(self, "ext_factors", fs)
        elif self.ext_factors is not None:
            raise ValueError(f"LongRoPE factors given with rule {self.rule!r}; use rule 'longrope'")

    def _check_sections(self) -> None:
        object.__setattr__(self, "max_res", to_fraction(self.max_res, "max_res"))
        if self.max_res <= 0:
            raise ValueError(f"max_res must be positive; got {self.max_res}")
        if self.mrope_section is None:
            return
        sec = tuple(self.mrope_section)
        if not 0 < len(sec) <= MAX_AXES or any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in sec):
            raise ValueError(f"mrope_section must be 1..{MAX_AXES} positive integers; got {self.mrope_section!r}")
        object.__setattr__(self, "mrope_section", sec)

    def _check_xpos(self) -> None:
        """DEF-ROPE-XPOS: sb > 0, gamma > 0 (every zeta_k positive), one position axis."""
        object.__setattr__(self, "xpos_gamma", to_fraction(self.xpos_gamma, "xpos_gamma"))
        if self.xpos_scale_base is None:
            if self.xpos_centred or self.xpos_downscale:
                raise ValueError("xpos_centred / xpos_downscale need xPos: give xpos_scale_base (DEF-ROPE-XPOS)")
            return
        object.__setattr__(self, "xpos_scale_base", to_fraction(self.xpos_scale_base, "xpos_scale_base"))
        if self.xpos_scale_base <= 0 or self.xpos_gamma <= 0:
            raise ValueError(f"xPos needs scale_base > 0 and gamma > 0; got {self.xpos_scale_base}, {self.xpos_gamma}")
        if self.mrope_section is not None or self.rule == "pixel":
            raise ValueError("xPos (DEF-ROPE-XPOS) reads one position axis: not with mrope_section or rule pixel")

    @property
    def depends_on_last_position(self) -> bool:
        """Whether an entry depends on the last (largest) position of the cache as well as its own: a cache read on
        some of its rows is then another plan's (DEF-ROPE-XPOS centred, o = -ceil(n/2), n = 1 + the last position).

        >>> get_rotary("xpos-torchscale").depends_on_last_position, get_rotary("xpos-audiocraft").depends_on_last_position
        (True, False)
        """
        return self.xpos_centred

    @property
    def has_growth(self) -> bool:
        """Whether the entries are scaled by a factor that grows or decays with the position (DEF-ROPE-XPOS's
        zeta_k^(s (p + o)/sb)), not the unit-modulus cos and sin of the angles alone.

        >>> get_rotary("xpos-audiocraft").has_growth, get_rotary("llama").has_growth
        (True, False)
        """
        return self.xpos_scale_base is not None

    def replace(self, **changes: object) -> RotaryProfile:
        changes.setdefault("name", None)  # a changed preset is no longer the preset
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def describe(self) -> str:
        lay = {"halves": "halves [w0..w_{h-1}, w0..w_{h-1}]", "pairs": "pairs [w0,w0,w1,w1,...]",
               "single": "single [w0..w_{h-1}]"}[self.layout]
        b = str(self.base)
        rule = {
            "default": f"w_k = {b}^(-2k/dim)",
            "linear": f"w_k = {b}^(-2k/dim) / {self.factor} (linear)",
            "dynamic": f"w_k = b'^(-2k/dim), b' = {b}*(s*n/L - (s-1))^(dim/(dim-2)), s={self.factor}, "
                       f"L={self.original_max}, n={self.seq_len} (dynamic NTK)",
            "llama3": f"w_k = llama3({b}; s={self.factor}, low={self.low_freq_factor}, high={self.high_freq_factor}, "
                      f"L={self.original_max})",
            "yarn": f"w_k = yarn({b}; s={self.factor}, beta_fast={self.beta_fast}, beta_slow={self.beta_slow}, "
                    f"L={self.original_max})",
            "longrope": f"w_k = {b}^(-2k/dim) / f_k ({len(self.ext_factors or ())} LongRoPE factors; s={self.factor}, "
                        f"L={self.original_max})",
            "explicit": f"w_k explicit ({len(self.explicit or ())} exact decimals)",
            "pixel": f"w_k = pi * {'linear' if self.linear_bands else 'log'} pixel band of its section "
                     f"(max_res {self.max_res})",
        }[self.rule]
        extra = "" if self.attention_factor is None else f", attention factor {self.attention_factor}"
        if self.mrope_section is not None:
            extra += f", sections {list(self.mrope_section)} (frequency k reads axis a(k))"
        if self.xpos_scale_base is not None:
            sign = "-" if self.xpos_downscale else ""
            at = "p - ceil(n/2)" if self.xpos_centred else "p"
            extra += (f", xPos zeta_k^({sign}({at})/{self.xpos_scale_base}), zeta_k = (2k/dim + {self.xpos_gamma})/"
                      f"(1 + {self.xpos_gamma})")
        return f"rotary {lay}, {rule}{extra}"

    def params(self) -> dict[str, object]:
        out: dict[str, object] = {"layout": self.layout, "base": str(self.base), "rule": self.rule}
        if self.rule in ("linear", "dynamic", "llama3", "yarn", "longrope"):
            out["factor"] = str(self.factor)
        if self.rule in ("dynamic", "llama3", "yarn", "longrope"):
            out["original_max"] = self.original_max
        if self.rule == "dynamic":
            out["seq_len"] = self.seq_len
        if self.rule == "llama3":
            out.update(low_freq_factor=str(self.low_freq_factor), high_freq_factor=str(self.high_freq_factor))
        if self.rule == "yarn":
            out.update(beta_fast=str(self.beta_fast), beta_slow=str(self.beta_slow))
        if self.attention_factor is not None:
            out["attention_factor"] = str(self.attention_factor)
        if self.explicit is not None:
            out["explicit"] = [str(w) for w in self.explicit]
        if self.ext_factors is not None:
            out["ext_factors"] = [str(f) for f in self.ext_factors]
        if self.mrope_section is not None:
            out["mrope_section"] = list(self.mrope_section)
        if self.rule == "pixel":
            out.update(max_res=str(self.max_res), linear_bands=self.linear_bands)
        if self.xpos_scale_base is not None:
            out.update(xpos_scale_base=str(self.xpos_scale_base), xpos_gamma=str(self.xpos_gamma),
                       xpos_centred=self.xpos_centred, xpos_downscale=self.xpos_downscale)
        return out


def check_dim(rp: RotaryProfile, dim: int) -> int:
    """h = dim/2; dim must be a positive even integer (and 2 * len(explicit) for explicit frequencies)."""
    if isinstance(dim, bool) or not isinstance(dim, int) or dim < 2 or dim % 2:
        raise ValueError(f"rotary dim must be an even integer >= 2; got {dim!r}")
    if rp.rule == "explicit" and len(rp.explicit or ()) != dim // 2:
        raise ValueError(f"{len(rp.explicit or ())} explicit frequencies need dim {2 * len(rp.explicit or ())}, got {dim}")
    if rp.rule == "longrope" and len(rp.ext_factors or ()) != dim // 2:
        raise ValueError(f"{len(rp.ext_factors or ())} LongRoPE factors need dim {2 * len(rp.ext_factors or ())}, "
                         f"got {dim}")
    if rp.rule == "dynamic" and dim == 2:
        raise ValueError("dynamic NTK divides by dim - 2: dim must be >= 4")
    if rp.mrope_section is not None and sum(rp.mrope_section) != dim // 2:
        raise ValueError(f"mrope_section {list(rp.mrope_section)} sums to {sum(rp.mrope_section)}; dim {dim} has "
                         f"{dim // 2} frequencies")
    if rp.rule == "pixel" and rp.mrope_section is None and dim % 4:
        raise ValueError(f"rule pixel over two axes needs dim divisible by 4 (timm's dim/4 bands per axis); got {dim}")
    return dim // 2


def sections(rp: RotaryProfile, dim: int) -> tuple[int, ...]:
    """DEF-ROPE-AXES: how many frequencies each position axis reads, in order (k in section i reads axis i):
    ``mrope_section``, else two equal halves for rule pixel (timm's (y, x)), else one axis.

    >>> sections(get_rotary("qwen2-vl"), 128), sections(get_rotary("timm-pixel"), 16), sections(get_rotary("llama"), 8)
    ((16, 24, 24), (4, 4), (4,))
    """
    h = check_dim(rp, dim)
    if rp.mrope_section is not None:
        return rp.mrope_section
    return (h // 2, h // 2) if rp.rule == "pixel" else (h,)


def axis_of(rp: RotaryProfile, dim: int) -> list[int]:
    """a(k) for k < dim/2: the position axis frequency k reads (DEF-ROPE-AXES)."""
    return [a for a, n in enumerate(sections(rp, dim)) for _ in range(n)]


def default_positions(rp: RotaryProfile, dim: int, rows: int, shape: Sequence[int] | None = None) -> list[Any]:
    """The rows of a cache given without positions: 0..rows-1 (on every axis of a multi-axis profile), or for rule
    pixel the coordinates of ``shape`` (default: the square of ``rows`` cells, over its two axes); a multi-axis
    profile of another rule given ``shape`` reads the cells' integer indices (timm's ``in_pixels=False`` grid)."""
    n_axes = len(sections(rp, dim))
    if rp.rule != "pixel" and (shape is None or n_axes == 1):
        return list(range(rows))
    if rp.rule != "pixel":
        cells = tuple(shape or ())
        if len(cells) != n_axes or _prod(cells) != rows:
            raise ValueError(f"shape {'x'.join(map(str, cells))} has {_prod(cells)} cells over {len(cells)} axes; the "
                             f"cache has {rows} rows and the profile {n_axes} axes")
        import itertools
        return list(itertools.product(*(range(int(n)) for n in cells)))
    if shape is None:
        side = round(rows ** (1 / n_axes)) if rows > 0 else 0
        if side ** n_axes != rows:
            raise ValueError(f"{rows} rows are not a {n_axes}-D square grid: give the grid shape (--shape HxW)")
        shape = (side,) * n_axes
    if len(shape) != n_axes or _prod(shape) != rows:
        raise ValueError(f"shape {'x'.join(map(str, shape))} has {_prod(shape)} cells over {len(shape)} axes; the cache "
                         f"has {rows} rows and the profile {n_axes} axes")
    return pixel_coordinates(shape)


def _prod(xs: Sequence[int]) -> int:
    out = 1
    for x in xs:
        out *= int(x)
    return out


def pixel_coordinates(shape: Sequence[int]) -> list[tuple[Fraction, ...]]:
    """DEF-ROPE-FREQ-PIXEL's coordinates: per axis of size n, -1 + 2i/(n - 1) (linspace(-1, 1, n); -1 when n = 1),
    over the cells in row-major order (the first axis outermost, timm's 'ij' grid).

    >>> [tuple(map(str, c)) for c in pixel_coordinates((2, 3))][:3]
    [('-1', '-1'), ('-1', '0'), ('-1', '1')]
    """
    import itertools
    axes = [[Fraction(-1) + (Fraction(2 * i, n - 1) if n > 1 else 0) for i in range(n)] for n in shape]
    return list(itertools.product(*axes))


def width(rp: RotaryProfile, dim: int) -> int:
    """Columns of a cache: dim (halves, pairs) or dim/2 (single)."""
    h = check_dim(rp, dim)
    return h if rp.layout == "single" else 2 * h


def frequency_index(layout: str, dim: int, j: int) -> int:
    """k of column j (DEF-ROPE-LAYOUT): the label of column j in the layout's channel plan
    (:func:`sinpe.spec.definition.rotary_pairs`; ``single`` holds w_0 .. w_{h-1} once)."""
    if layout == "single":
        return j
    if layout not in ROTARY_LAYOUTS:
        raise ValueError(f"rotary layout must be one of {', '.join(ROTARY_LAYOUTS)}; got {layout!r}")
    return rotary_data(layout, dim).labels[j]


def _q(ctx: Any, x: Fraction) -> Any:
    return ctx.mpf(x.numerator) / x.denominator


def _decide(x: Any) -> bool:
    if x is None:
        raise Undecided("comparison undecided at this precision")
    return bool(x)


def _floor(ctx: Any, x: Any) -> int:
    """floor of an exact real known through ``x`` (a ctx value); Undecided if x's ends straddle an integer."""
    a, b = (x.a, x.b) if hasattr(x, "a") else (x, x)
    import mpmath
    fa, fb = int(mpmath.floor(a)), int(mpmath.floor(b))
    if fa != fb:
        raise Undecided("floor undecided at this precision")
    return fa


def _ceil(ctx: Any, x: Any) -> int:
    return -_floor(ctx, -x)


def default_frequencies(base: Any, dim: int, ctx: Any) -> list[Any]:
    """DEF-ROPE-FREQ-DEFAULT: w_k = b^(-e_k), e_k = 2k/dim the exponents of :func:`rotary_data` (``base`` a ctx
    value)."""
    out = []
    for e in rotary_data("halves", dim).exponents:
        out.append(ctx.mpf(1) if e == 0 else ctx.power(base, -_q(ctx, e)))
    return out


def frequencies(rp: RotaryProfile, dim: int, ctx: Any) -> list[Any]:
    """The h frequencies w_k of DEF-ROPE-FREQ-* as ``ctx`` values (``ctx`` = mpmath.iv for enclosures)."""
    h = check_dim(rp, dim)
    if rp.rule == "explicit":
        return [_q(ctx, w) for w in rp.explicit or ()]
    if rp.rule == "pixel":
        return [w for n in sections(rp, dim) for w in pixel_bands(rp, n, ctx)]
    base = _q(ctx, rp.base)
    s = _q(ctx, rp.factor)
    if rp.rule == "dynamic":
        n = rp.seq_len if rp.seq_len is not None and rp.seq_len > rp.original_max else rp.original_max
        grow = Fraction(rp.factor * n, rp.original_max) - (rp.factor - 1)
        base = base * ctx.power(_q(ctx, grow), _q(ctx, Fraction(dim, dim - 2)))
    w = default_frequencies(base, dim, ctx)
    if rp.rule == "linear":
        return [x / s for x in w]
    if rp.rule == "longrope":  # DEF-ROPE-FREQ-LONGROPE: w_k = b^(-2k/dim) / f_k
        return [x / _q(ctx, f) for x, f in zip(w, rp.ext_factors or (), strict=False)]
    if rp.rule == "llama3":
        return [_llama3(rp, x, ctx) for x in w]
    if rp.rule == "yarn":
        return _yarn(rp, dim, w, ctx)
    assert len(w) == h
    return w


def pixel_bands(rp: RotaryProfile, n: int, ctx: Any) -> list[Any]:
    """DEF-ROPE-FREQ-PIXEL: pi * beta_i, i < n, with M = max_res / 2: beta_i = 1 + i (M - 1)/(n - 1) (linear_bands,
    timm's linspace(1, M, n)) or M^(i/(n - 1)) (timm's default 2^linspace(0, log2(max_res) - 1, n)); beta_0 = 1."""
    m = rp.max_res / 2
    out = []
    for i in range(n):
        e = Fraction(i, n - 1) if n > 1 else Fraction(0)
        beta = _q(ctx, 1 + e * (m - 1)) if rp.linear_bands else (ctx.mpf(1) if e == 0 else ctx.power(_q(ctx, m), _q(ctx, e)))
        out.append(ctx.pi * beta)
    return out


def _llama3(rp: RotaryProfile, w: Any, ctx: Any) -> Any:
    """DEF-ROPE-FREQ-LLAMA3: keep w when 2pi/w < L/high, w/s when 2pi/w > L/low, else blend."""
    s = _q(ctx, rp.factor)
    wavelen = 2 * ctx.pi / w
    if _decide(wavelen < _q(ctx, Fraction(rp.original_max) / rp.high_freq_factor)):
        return w
    if _decide(wavelen > _q(ctx, Fraction(rp.original_max) / rp.low_freq_factor)):
        return w / s
    smooth = (rp.original_max / wavelen - _q(ctx, rp.low_freq_factor)) / _q(ctx, rp.high_freq_factor - rp.low_freq_factor)
    return (1 - smooth) * w / s + smooth * w


def yarn_range(rp: RotaryProfile, dim: int, ctx: Any) -> tuple[int, int]:
    """YaRN's correction range [low, high] of frequency indices (floor/ceil of the correction dims)."""
    def corr(rot: Fraction) -> Any:
        return dim * ctx.log(rp.original_max / (_q(ctx, rot) * 2 * ctx.pi)) / (2 * ctx.log(_q(ctx, rp.base)))
    low = _floor(ctx, corr(rp.beta_fast))
    high = _ceil(ctx, corr(rp.beta_slow))
    return max(low, 0), min(high, dim - 1)


def _yarn(rp: RotaryProfile, dim: int, w: list[Any], ctx: Any) -> list[Any]:
    """DEF-ROPE-FREQ-YARN: w_k (1 - m_k)/s + w_k m_k with m_k = 1 - clamp((k - low)/(high - low), 0, 1)."""
    low, high = yarn_range(rp, dim, ctx)
    lo, hi = Fraction(low), Fraction(high)
    if lo == hi:
        hi += Fraction(1, 1000)  # the code's guard against a zero-width ramp
    s = _q(ctx, rp.factor)
    out = []
    for k, x in enumerate(w):
        ramp = min(max((k - lo) / (hi - lo), Fraction(0)), Fraction(1))
        m = 1 - ramp  # the extrapolation weight
        out.append(x / s * _q(ctx, 1 - m) + x * _q(ctx, m))
    return out


def attention_factor(rp: RotaryProfile, ctx: Any) -> Any:
    """DEF-ROPE-SCALE: A (1, the given factor, yarn's default 0.1 ln s + 1, or LongRoPE's
    sqrt(1 + ln s / ln L) when s > 1)."""
    if rp.attention_factor is not None:
        return _q(ctx, rp.attention_factor)
    if rp.rule == "yarn":
        return _q(ctx, Fraction(1, 10)) * ctx.log(_q(ctx, rp.factor)) + 1
    if rp.rule == "longrope" and rp.factor > 1:
        return ctx.sqrt(1 + ctx.log(_q(ctx, rp.factor)) / ctx.log(ctx.mpf(rp.original_max)))
    return ctx.mpf(1)


def xpos_zeta(rp: RotaryProfile, dim: int) -> list[Fraction]:
    """DEF-ROPE-XPOS: zeta_k = (2k/dim + gamma)/(1 + gamma), k < dim/2, exact (torchscale's (2k + 0.4 dim)/(1.4 dim),
    audiocraft's (k/(dim/2) + 0.4)/1.4).

    >>> [str(z) for z in xpos_zeta(get_rotary("xpos-torchscale"), 8)]
    ['2/7', '13/28', '9/14', '23/28']
    """
    h = check_dim(rp, dim)
    g = rp.xpos_gamma
    return [(Fraction(2 * k, dim) + g) / (1 + g) for k in range(h)]


def xpos_exponent(rp: RotaryProfile, positions: Sequence[Any]) -> tuple[Fraction, Fraction]:
    """DEF-ROPE-XPOS: (o, s/sb) such that row p's scale exponent is q = s (p + o)/sb: o = -ceil(n/2) with
    n = 1 + the largest position when centred (torchscale's min_pos = -(length + offset) // 2), else 0; s = -1 for
    the keys' cache (downscale), else 1.

    >>> xpos_exponent(get_rotary("xpos-torchscale"), range(5)), xpos_exponent(get_rotary("xpos-audiocraft"), range(5))
    ((Fraction(-3, 1), Fraction(1, 512)), (Fraction(0, 1), Fraction(1, 512)))
    """
    if rp.xpos_scale_base is None:
        raise ValueError("not an xPos profile (no xpos_scale_base)")
    o = Fraction(0)
    if rp.xpos_centred and len(positions):
        n = 1 + max(Fraction(p) for p in positions)
        o = Fraction(-math.ceil(n / 2))
    return o, (-1 if rp.xpos_downscale else 1) / rp.xpos_scale_base


# DEF-ROPE-PRESET-*: which public code ships each one is in spec/sources.py (ROTARY_SOURCES).
ROTARY_PRESETS: Mapping[str, RotaryProfile] = {
    "llama": RotaryProfile("llama", "halves"),
    "gptj": RotaryProfile("gptj", "pairs"),
    "llama3.1": RotaryProfile("llama3.1", "halves", Fraction(500000), "llama3", factor=Fraction(8),
                              original_max=8192, low_freq_factor=Fraction(1), high_freq_factor=Fraction(4)),
    "qwen2-vl": RotaryProfile("qwen2-vl", "halves", Fraction(10**6), mrope_section=(16, 24, 24)),
    "timm-pixel": RotaryProfile("timm-pixel", "pairs", rule="pixel"),
    # DEF-ROPE-PRESET-XPOS: audiocraft's complex rotation * decay (h columns), torchscale's duplicate_interleave'd
    "xpos-audiocraft": RotaryProfile("xpos-audiocraft", "single", xpos_scale_base=Fraction(512)),
    "xpos-torchscale": RotaryProfile("xpos-torchscale", "pairs", xpos_scale_base=Fraction(512), xpos_centred=True),
}


def get_rotary(name: str = "llama", **overrides: object) -> RotaryProfile:
    """A rotary preset with exact overrides (``None`` values ignored).

    >>> get_rotary("gptj").layout, get_rotary("llama3.1").base
    ('pairs', Fraction(500000, 1))
    >>> get_rotary("rope")
    Traceback (most recent call last):
    ...
    ValueError: unknown rotary profile 'rope'; presets: llama, gptj, llama3.1, qwen2-vl, timm-pixel, xpos-audiocraft, xpos-torchscale
    """
    if name not in ROTARY_PRESETS:
        raise ValueError(f"unknown rotary profile {name!r}; presets: {', '.join(ROTARY_PRESETS)}")
    changes = {k: v for k, v in overrides.items() if v is not None}
    if "explicit" in changes and "rule" not in changes:
        changes["rule"] = "explicit"
    if "ext_factors" in changes and "rule" not in changes:
        changes["rule"] = "longrope"
    return ROTARY_PRESETS[name].replace(**changes) if changes else ROTARY_PRESETS[name]


def explicit_from(values: Sequence[Number], **overrides: object) -> RotaryProfile:
    """DEF-ROPE-FREQ-EXPLICIT from given frequencies (floats are taken exactly: a float32 inv_freq is its value).

    >>> explicit_from([1.0, 0.5]).explicit
    (Fraction(1, 1), Fraction(1, 2))
    """
    return RotaryProfile(None, rule="explicit", explicit=tuple(to_fraction(v, "frequency") for v in values),
                         **overrides)  # type: ignore[arg-type]
