"""A catalogue of realistic buggy implementations (issue 4, "Discriminating power"): what ``check`` must reject,
shipped for users' own test suites.

Each :class:`Bug` is a small NumPy function ``fn(positions, d) -> table`` (rows = positions,
columns = channels, unless the bug is about the shape) reproducing one mistake that public code
made, with the report or code it comes from and the deviation ``sinpe detect`` should name when it
compares the table with the canonical profile ``vaswani``. ``source`` cites only what was found
and read with the search tools; a bug class without a report found says ``constructed``.

Logic bugs are derived from the spec, not re-typed: a wrong :class:`~sinpe.spec.profiles.Profile`
(``get_profile("vaswani", base=1000)``) or a wrong column plan, evaluated in float64 by
:func:`evaluate` from :func:`sinpe.spec.definition.columns` and
:func:`~sinpe.spec.definition.exponent`. Precision bugs round positions or frequencies to a
narrow format inside an otherwise usual float32 (or float64) evaluation, :func:`usual_table`.

Vocabulary of ``Bug.expected(d)`` (the deviation ``detect`` should report):

- a Profile parameter, as in ``Profile.params()``: ``layout``, ``shift``, ``base``,
  ``phase_scale``, ``amplitude``, ``offset``, ``odd`` (value = what the buggy table implements);
- ``exponent``: a schedule outside the family, as a formula (``"2j/d"`` for column j);
- ``sin_cos_swapped`` (interleaved, cos first), ``sin_cos_by_row`` (sin/cos chosen by row parity);
- ``precision``: ``positions-float16``, ``positions-bfloat16``, ``frequencies-float16``,
  ``frequencies-bfloat16`` or ``frequencies-float32`` (in a float64 table);
- ``zeroed_rows``: the positions whose rows are all zero;
- ``width``: the number of columns returned when it is not d; ``transposed``: a (d, n) array;
- ``seq_first``: ``"broadcast"`` (a sequence-first buffer added to batch-first input: every row
  is PE(0)); ``corrupted_columns``: columns holding values of no family member.

>>> bug = get_bug("BUG-BASE-1000")
>>> bug.expected(64), bug.source
({'base': 1000}, 'maxjcohen/transformer#62')
>>> import numpy as np
>>> float(bug(np.array([1]), 4)[0, 2])   # sin(1000^(-1/2)); mpmath: 0.031617506402433710095...
0.0316175064024337...
>>> float(canonical_table(np.array([1]), 4)[0, 2])   # sin(0.01); mpmath: 0.0099998333341666646...
0.00999983333416...
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from sinpe.spec.catalogue import lookup
from sinpe.spec.definition import check_width, columns, exponent
from sinpe.spec.profiles import Profile, get_profile

Table = np.ndarray
# A column plan: (kind in sin/cos/zero, exponent e with w = base^(-e)); the spec's plan or a buggy one.
Plan = Sequence[tuple[str, Fraction]]

VASWANI = get_profile("vaswani")


def _positions(positions: Any) -> np.ndarray:
    p = np.asarray(positions)
    if p.ndim != 1 or p.dtype.kind not in "iuf":
        raise ValueError(f"positions must be a 1-D numeric array; got shape {p.shape}, dtype {p.dtype}")
    return p


def spec_plan(profile: Profile, d: int) -> list[tuple[str, Fraction]]:
    """The spec's column plan: ``(kind, e_k)`` per column, from ``columns`` and ``exponent``."""
    return [(c.kind, Fraction(0) if c.kind == "zero" else exponent(profile, d, c.k)) for c in columns(profile, d)]


def evaluate_plan(plan: Plan, positions: Any, profile: Profile = VASWANI) -> Table:
    """Float64 table of a column plan with the profile's base, phase scale, amplitude and offset.

    Column j is ``amplitude * f_j(phase_scale * (p + offset) * base**(-e_j))`` (DEF-FAMILY), each
    step rounded to binary64: accurate to about |theta| * 2^-52, not correctly rounded.
    """
    p = _positions(positions).astype(np.float64) + float(profile.offset)
    out = np.zeros((p.size, len(plan)), dtype=np.float64)
    base, sigma, alpha = float(profile.base), float(profile.phase_scale), float(profile.amplitude)
    for j, (kind, e) in enumerate(plan):
        if kind == "zero":
            continue
        w = 1.0 if e == 0 else base ** (-float(e))
        th = sigma * p * w if sigma != 1 else p * w
        out[:, j] = alpha * (np.sin(th) if kind == "sin" else np.cos(th))
    return out


def evaluate(profile: Profile, positions: Any, d: int) -> Table:
    """Float64 table of any profile (the tiny evaluator the logic bugs are built on).

    >>> t = evaluate(get_profile("t2t"), np.array([2]), 4)   # [sin 2, sin 2e-4 | cos 2, cos 2e-4]
    >>> float(t[0, 1])   # mpmath: sin(2e-4) = 0.000199999998666666669333...
    0.000199999998666666...
    """
    check_width(d)
    return evaluate_plan(spec_plan(profile, d), positions, profile)


def canonical_table(positions: Any, d: int) -> Table:
    """The canonical ``vaswani`` table in float64 (same evaluator, correct profile)."""
    return evaluate(VASWANI, positions, d)


# --- precision: formats narrower than the table -------------------------------------------------

def to_bfloat16(x: Any) -> np.ndarray:
    """Round to bfloat16 (nearest, ties to even) and return float32 holding that value.

    >>> to_bfloat16(np.array([257.0, 259.0, 1.0 / 3.0])).tolist()
    [256.0, 260.0, 0.333984375]
    """
    u = np.ascontiguousarray(np.asarray(x, dtype=np.float32)).view(np.uint32).astype(np.uint64)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000  # RNE on the 16 dropped bits (finite inputs)
    return rounded.astype(np.uint32).view(np.float32)


def _round(x: np.ndarray, fmt: str | None) -> np.ndarray:
    """x (float32) rounded to ``fmt`` and back to float32; float16 overflows to inf at >= 65520."""
    if fmt is None:
        return x
    if fmt == "float16":
        with np.errstate(over="ignore"):
            return x.astype(np.float16).astype(np.float32)
    if fmt == "bfloat16":
        return to_bfloat16(x)
    raise ValueError(f"unknown format {fmt!r}")


def usual_table(positions: Any, d: int, dtype: str = "float32", positions_as: str | None = None,
                frequencies_as: str | None = None) -> Table:
    """``vaswani`` evaluated the usual way in ``dtype``: w_k = fl(b^(-e_k)), theta = fl(p * w_k), fl(sin theta).

    With ``positions_as`` / ``frequencies_as`` set, positions or frequencies are first rounded to that
    narrower format (the precision bugs). With both None this is the *control*: a correct
    implementation in ``dtype``, whose error the bugs must exceed.
    ``frequencies_as="float32"`` in a float64 table is MAE's float32 omega with float64 positions.
    """
    check_width(d)
    p = _positions(positions).astype(np.float64)
    plan = spec_plan(VASWANI, d)
    w64 = np.array([1.0 if e == 0 else 10000.0 ** (-float(e)) for _, e in plan])
    ft = np.float64 if dtype == "float64" else np.float32
    w = w64.astype(np.float32) if frequencies_as in ("float32", "float16", "bfloat16") else w64.astype(ft)
    if frequencies_as in ("float16", "bfloat16"):
        w = _round(w, frequencies_as)
    pp = p.astype(np.float32) if positions_as else p
    pp = _round(pp, positions_as) if positions_as else pp
    th = pp.astype(ft)[:, None] * w.astype(ft)[None, :]
    out = np.zeros((p.size, d), dtype=ft)
    with np.errstate(invalid="ignore"):
        for j, (kind, _) in enumerate(plan):
            if kind != "zero":
                out[:, j] = np.sin(th[:, j]) if kind == "sin" else np.cos(th[:, j])
    return out


# --- the catalogue -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Bug:
    """One buggy implementation: ``bug(positions, d)`` returns its table."""

    id: str
    summary: str
    source: str
    fn: Callable[[np.ndarray, int], Table]
    deviation: Callable[[int], Mapping[str, Any]]
    dtype: str = "float64"
    witness_d: int = 64  # a width at which the bug shows (odd for odd-d bugs)
    witness_positions: tuple[float, ...] = (0, 1, 2, 3, 7, 50, 63)  # positions where it is far from vaswani

    def __call__(self, positions: Any, d: int) -> Table:
        check_width(d)
        return self.fn(_positions(positions), d)

    def expected(self, d: int) -> dict[str, Any]:
        """The deviation ``detect`` should name for width d (empty: identical to vaswani at this d)."""
        return dict(self.deviation(d))


def _const(dev: Mapping[str, Any]) -> Callable[[int], Mapping[str, Any]]:
    return lambda d: dev


def _odd_only(dev: Callable[[int], Mapping[str, Any]]) -> Callable[[int], Mapping[str, Any]]:
    return lambda d: dev(d) if d % 2 else {}


def _profile_bug(**changes: Any) -> Callable[[np.ndarray, int], Table]:
    prof = VASWANI.replace(**changes)
    return lambda p, d: evaluate(prof, p, d)


def _preset_bug(name: str, **changes: Any) -> Callable[[np.ndarray, int], Table]:
    prof = get_profile(name, **changes)
    return lambda p, d: evaluate(prof, p, d)


def _sin_cos_swapped(p: np.ndarray, d: int) -> Table:
    swap = {"sin": "cos", "cos": "sin", "zero": "zero"}
    return evaluate_plan([(swap[k], e) for k, e in spec_plan(VASWANI, d)], p)


def _exponent_per_column(p: np.ndarray, d: int) -> Table:
    # pos / 10000 ** (2 * j / d) for column j, then sin on even j, cos on odd j
    return evaluate_plan([(k, Fraction(2 * j, d)) for j, (k, _) in enumerate(spec_plan(VASWANI, d))], p)


def _cos_exponent_shifted(p: np.ndarray, d: int) -> Table:
    # cos columns take torch.arange(1, d, 2) / d: exponent (2k+1)/d instead of 2k/d
    return evaluate_plan([(k, e if k != "cos" else Fraction(j, d)) for j, (k, e) in enumerate(spec_plan(VASWANI, d))], p)


def _floordiv_factor(d: int) -> float:
    return (-math.log(10000.0) / d) // 2  # the bug: / and // associate left to right


def _precedence(p: np.ndarray, d: int) -> Table:
    # div_term = exp(arange(0, d, 2) * (-log(1e4) / d // 2)): w_k = exp(2k * factor), factor = -1 for d >= 5
    f = _floordiv_factor(d)
    th = p.astype(np.float64)[:, None] * np.exp(2.0 * np.arange((d + 1) // 2) * f)[None, :]
    out = np.zeros((p.size, d))
    out[:, 0::2] = np.sin(th)
    out[:, 1::2] = np.cos(th[:, : d // 2])
    return out


def _zero_rows(rows: tuple[int, ...]) -> Callable[[np.ndarray, int], Table]:
    def fn(p: np.ndarray, d: int) -> Table:
        t = canonical_table(p, d)
        t[np.isin(p, rows)] = 0.0
        return t
    return fn


def _odd_column_missing(p: np.ndarray, d: int) -> Table:
    return canonical_table(p, d)[:, : 2 * (d // 2)]


def _width_plus_one(p: np.ndarray, d: int) -> Table:
    # pe = zeros(n, d + 1); angles over arange(0, d + 1, 2) with exponent i/d: one extra column
    wide = evaluate_plan([("sin" if j % 2 == 0 else "cos", Fraction(j - j % 2, d)) for j in range(d + 1)], p)
    return wide


def _seq_first_broadcast(p: np.ndarray, d: int) -> Table:
    # pe has shape (max_len, 1, d); x is (batch, seq, d); x + pe[:x.size(0)] gives batch row b the
    # single vector PE(b) at every sequence step: batch element 0 sees PE(0) everywhere.
    return np.repeat(canonical_table(np.array([0]), d), p.size, axis=0)


def _transposed(p: np.ndarray, d: int) -> Table:
    return np.ascontiguousarray(canonical_table(p, d).T)


def _sin_cos_by_row(p: np.ndarray, d: int) -> Table:
    # embeddings[::2] = embeddings[::2].sin(); embeddings[1::2] = embeddings[1::2].cos()
    # applied to an (n, d) array of angles p * w_floor(j/2): sin on even rows, cos on odd rows
    plan = spec_plan(VASWANI, d)
    s = evaluate_plan([("sin", e) for _, e in plan], p)
    c = evaluate_plan([("cos", e) for _, e in plan], p)
    out = s.copy()
    out[1::2] = c[1::2]
    return out


def _concat_inplace(p: np.ndarray, d: int) -> Table:
    # TF Marian/Pegasus before the fix: the cos half is computed from an array whose first half was
    # already overwritten with sines.
    if d % 2:
        raise ValueError(f"could not broadcast: {(d + 1) // 2} sin columns into {d // 2} slots (odd d={d})")
    e = [Fraction(2 * (j // 2), d) for j in range(d)]
    pos = p.astype(np.float64)
    enc = pos[:, None] / np.array([10000.0 ** float(x) for x in e])[None, :]
    enc[:, : d // 2] = np.sin(enc[:, 0::2])
    enc[:, d // 2:] = np.cos(enc[:, 1::2])
    return enc


def _inplace_corrupted(d: int) -> list[int]:
    # cos column k (table column d/2 + k) reads enc[:, 2k+1], overwritten when 2k+1 < d/2
    return [d // 2 + k for k in range(d // 2) if 2 * k + 1 < d // 2]


def _usual(**kw: Any) -> Callable[[np.ndarray, int], Table]:
    return lambda p, d: usual_table(p, d, **kw)


_HIGH = (2049.0, 4097.0, 65519.0, 65520.0, 70000.0, 1e6)

CATALOGUE: tuple[Bug, ...] = (
    Bug("BUG-SIN-COS-SWAPPED", "interleaved with cos in the even columns and sin in the odd ones",
        "Open-Deep-ML/DML-OpenProblem#595", _sin_cos_swapped, _const({"sin_cos_swapped": True})),
    Bug("BUG-HALVES-SWAPPED", "concatenated halves in the wrong order: [cos...|sin...] for [sin...|cos...]",
        "flashinfer-ai/flashinfer#3819", _preset_bug("vaswani-concat", layout="cos-sin"),
        lambda d: {"layout": "cos-sin", **({"odd": "ceil-split"} if d % 2 else {})}),
    Bug("BUG-CONCAT-FOR-INTERLEAVED", "sin and cos concatenated where the paper interleaves them",
        "allenai/allennlp#2993; tensorflow/tensor2tensor#177", _preset_bug("vaswani-concat"),
        lambda d: {"layout": "sin-cos", **({"odd": "ceil-split"} if d % 2 else {})}),
    Bug("BUG-T2T-FOR-VASWANI", "the tensor2tensor/fairseq table (halves, log(b)/(n-1)) used as Vaswani's",
        "facebookresearch/fairseq:fairseq/modules/sinusoidal_positional_embedding.py (docstring: "
        "'differs slightly from Section 3.5'); allenai/allennlp#2993", _preset_bug("t2t"),
        lambda d: {"layout": "sin-cos", "shift": 1} if d % 2 == 0 else {"layout": "sin-cos", "shift": 1, "odd": "zero-pad"}),
    Bug("BUG-EXPONENT-PER-COLUMN", "column j uses 10000^(2j/d) instead of 10000^(2*floor(j/2)/d)",
        "jadore801120/attention-is-all-you-need-pytorch#32; Kyubyong/transformer#38; shenweichen/DeepCTR#379",
        _exponent_per_column, _const({"exponent": "2j/d"})),
    Bug("BUG-COS-EXPONENT-SHIFTED", "cos columns use arange(1, d, 2)/d: exponent (2k+1)/d, not 2k/d",
        "maxjcohen/transformer#62", _cos_exponent_shifted, _const({"exponent": "cos_k: (2k+1)/d"})),
    Bug("BUG-SHIFT-ONE", "log(b)/(n-1) denominator (downscale_freq_shift=1) where n = d/2 was meant",
        "kohya-ss/sd-scripts#1187; huggingface/diffusers#12791", _profile_bug(shift=1), _const({"shift": 1})),
    Bug("BUG-BASE-1000", "base 1000 instead of 10000", "maxjcohen/transformer#62",
        _profile_bug(base=1000), _const({"base": 1000})),
    Bug("BUG-PRECEDENCE-FLOORDIV", "-log(10000)/d//2 parses as (-log(10000)/d)//2 = -1: w_k = e^(-2k)",
        "zju3dv/LoFTR#41; GrumpyZhou/image-matching-toolbox#36", _precedence,
        lambda d: {"base": math.exp(-_floordiv_factor(d) * d)}),
    Bug("BUG-OFFSET-ONE", "positions counted from 1 (row for token i is PE(i+1))",
        "graykode/nlp-tutorial#66", _profile_bug(offset=1), _const({"offset": 1})),
    Bug("BUG-OFFSET-FAIRSEQ", "fairseq positions padding_idx+1+i (= i+2) read where i was meant",
        "facebookresearch/fairseq#1187; huggingface/transformers#1761", _profile_bug(offset=2),
        _const({"offset": 2})),
    Bug("BUG-PAD-ROW-ZEROED", "row of position 0 zeroed as a padding row (padding_idx = 0)",
        "jadore801120/attention-is-all-you-need-pytorch#99; kaushalshetty/Positional-Encoding#1",
        _zero_rows((0,)), _const({"zeroed_rows": [0]})),
    Bug("BUG-FAIRSEQ-PAD-ROW", "fairseq table (row padding_idx = 1 zeroed) indexed from position 0",
        "facebookresearch/fairseq#1187; takase/control-length#7", _zero_rows((1,)), _const({"zeroed_rows": [1]})),
    Bug("BUG-POSITIONS-FLOAT16", "positions cast to float16 (integers lost above 2048, inf at >= 65520)",
        "NVIDIA/Megatron-LM#535; keras-team/keras-hub:keras_hub/src/layers/modeling/sine_position_encoding.py "
        "(positions in compute_dtype)", _usual(positions_as="float16"),
        _const({"precision": "positions-float16"}), "float32", 64, _HIGH),
    Bug("BUG-POSITIONS-BFLOAT16", "positions cast to bfloat16 inside a float32 table (integers lost above 256)",
        "modelscope/DiffSynth-Studio#1025; modelscope/DiffSynth-Studio#562; wfondrie/depthcharge#82",
        _usual(positions_as="bfloat16"), _const({"precision": "positions-bfloat16"}), "float32", 64,
        (257.0, 513.0, 1001.0, 2047.0) + _HIGH),
    Bug("BUG-FREQUENCIES-FLOAT16", "frequencies (inv_freq) held in float16 inside a float32 table",
        "EleutherAI/gpt-neox#1003; openvinotoolkit/openvino#35674", _usual(frequencies_as="float16"),
        _const({"precision": "frequencies-float16"}), "float32", 64, (1001.0, 2047.0) + _HIGH),
    Bug("BUG-FREQUENCIES-BFLOAT16", "frequencies (inv_freq) held in bfloat16 inside a float32 table",
        "huggingface/transformers#29496; Modalities/modalities#462", _usual(frequencies_as="bfloat16"),
        _const({"precision": "frequencies-bfloat16"}), "float32", 64, (1001.0, 2047.0) + _HIGH),
    Bug("BUG-FREQUENCIES-FLOAT32-IN-FLOAT64", "float32 frequencies in a float64 table",
        "facebookresearch/mae:util/pos_embed.py (float32 omega, float64 positions promote)",
        _usual(dtype="float64", frequencies_as="float32"), _const({"precision": "frequencies-float32"}),
        "float64", 64, (1001.0, 2047.0) + _HIGH),
    Bug("BUG-ODD-COLUMN-MISSING", "odd d returns 2*floor(d/2) = d-1 columns",
        "ml-explore/mlx:python/mlx/nn/layers/positional_encoding.py (SinusoidalPositionalEncoding); "
        "huggingface/diffusers:src/diffusers/models/embeddings.py@168e5b7 (SinusoidalPosEmb, no pad)",
        _odd_column_missing, _odd_only(lambda d: {"width": d - 1}), witness_d=65),
    Bug("BUG-ODD-COLUMN-ZERO", "odd d: last column zero where the interleaved rule has sin_{(d-1)/2}",
        "constructed (the zero-pad rule of tensor2tensor/fairseq/diffusers applied to the interleaved layout)",
        _profile_bug(odd="zero-pad"), _odd_only(lambda d: {"odd": "zero-pad"}), witness_d=65),
    Bug("BUG-WIDTH-PLUS-ONE", "loop over range(0, d + 1, 2): one extra trailing sin column (d+1 columns)",
        "constructed", _width_plus_one, lambda d: {"width": d + 1}),
    Bug("BUG-SEQ-FIRST-BROADCAST", "(max_len, 1, d) buffer added to batch-first input: every step gets PE(batch index)",
        "AkiRusProd/numpy-transformer#1; tanjimin/C.Origami#42; pytorch/tutorials#1547",
        _seq_first_broadcast, _const({"seq_first": "broadcast"})),
    Bug("BUG-TRANSPOSED", "table returned as (d, n): feature-first buffer read as rows = positions",
        "constructed", _transposed, _const({"transposed": True})),
    Bug("BUG-SIN-COS-BY-ROW", "sin/cos chosen by row (position) parity instead of column parity",
        "gmongaras/Diffusion_models_from_scratch#10", _sin_cos_by_row, _const({"sin_cos_by_row": True})),
    Bug("BUG-AMPLITUDE-2", "table scaled by 2",
        "constructed (an amplitude is a real parameter: audiocraft positional_scale, MLX scale)",
        _profile_bug(amplitude=2), _const({"amplitude": 2})),
    Bug("BUG-CONCAT-INPLACE", "cos half computed from an array already overwritten by the sin half",
        "huggingface/transformers#11724", _concat_inplace,
        lambda d: {"layout": "sin-cos", "corrupted_columns": _inplace_corrupted(d)}),
)

_BY_ID = {b.id: b for b in CATALOGUE}


def get_bug(bug_id: str) -> Bug:
    """The catalogue entry with this id (one-line error listing the ids otherwise)."""
    return lookup(_BY_ID, bug_id, "bug")


def max_abs_deviation(table: Table, reference: Table) -> float:
    """max |table - reference|; inf for NaN/inf entries; NaN when the shapes differ (not comparable)."""
    if table.shape != reference.shape:
        return float("nan")
    diff = np.abs(table.astype(np.float64) - reference)
    diff[~np.isfinite(diff)] = np.inf
    return float(diff.max()) if diff.size else 0.0


def deviation_report(positions: Any = None, d: int = 64) -> list[tuple[str, str, float]]:
    """(id, shape, max abs deviation from the float64 vaswani table) for every bug.

    Default positions 0..2047. A bug that raises at this d reports its error as the shape.
    """
    p = np.arange(2048) if positions is None else _positions(positions)
    ref = canonical_table(p, d)
    rows = []
    for bug in CATALOGUE:
        try:
            t = bug(p, d)
        except ValueError as exc:
            rows.append((bug.id, f"error: {exc}", float("nan")))
            continue
        rows.append((bug.id, "x".join(map(str, t.shape)), max_abs_deviation(t, ref)))
    return rows


if __name__ == "__main__":  # python -m sinpe.reference.bugs: the catalogue's deviations at 0..2047, d=64
    for bug_id, shape, dev in deviation_report():
        print(f"{bug_id:38s} {shape:12s} {dev:.3e}")
