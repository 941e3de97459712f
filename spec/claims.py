"""Catalogue of the checkable claims of the seed chapter, §4.1 (SPEC.md REQ-CLAIMS-CATALOGUE).

The seed chapter is the Chinese book section "4.1 正弦位置编码" (the project's starting text).
Each :class:`Claim` cites it by section, table, row and value, restates the claim in one line
of our own words, and records the value exactly as printed (``claimed``) and how the audit
compares it. *No verdict is stored here*: :mod:`sinpe.reference.audit.claims` computes every verdict
from the formula (``sinpe.spec.definition``) at run time. The catalogue never reads the chapter.

Comparison kinds (``compare``), fixed by SPEC.md REQ-CLAIMS-VERDICT:

- ``round``: the exact value, rounded half-to-even to the number of decimals printed, must equal
  the printed value (``"60,611"`` is 0 decimals, ``"48%"`` compares 100 x value).
- ``nearly``: as ``round``, and the exact value must lie strictly below the printed one ("nearly 16").
- ``exact``: the exact rational (or integer) value must equal the printed one.
- ``true``: a statement; the computed value must be True.

``quantity`` names the computation in ``sinpe.reference.audit.claims.QUANTITIES`` and ``args`` its
arguments; ``thm`` links the theorem of the spec (SPEC.md section 5) a claim is an instance of;
``caveat`` is a reading the chapter does not state and that a holding verdict then carries
(the verdict becomes ``holds-with-note``).

>>> len(CLAIMS) == len({c.id for c in CLAIMS})
True
>>> get_claim("CLAIM-4.1.1-T1-R2C1").claimed, get_claim("CLAIM-4.1.1-T1-R2C1").precision
('-0.4161', '4 decimals')
>>> get_claim("CLAIM-4.1.6-COUNT-512").precision
'exact count'
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .catalogue import lookup

COMPARE_KINDS = ("round", "nearly", "exact", "true")


@dataclass(frozen=True)
class Claim:
    """One checkable claim of §4.1 (no verdict: that is computed by the audit)."""

    id: str
    section: str
    where: str
    statement: str
    claimed: str
    compare: str
    quantity: str
    args: Mapping[str, Any] = field(default_factory=dict)
    method: str = "mpmath"
    thm: str | None = None
    caveat: str | None = None

    def __post_init__(self) -> None:
        if self.compare not in COMPARE_KINDS:
            raise ValueError(f"{self.id}: compare must be one of {COMPARE_KINDS}; got {self.compare!r}")

    @property
    def precision(self) -> str:
        """The precision the chapter states, read off the printed value."""
        if self.compare == "true":
            return "statement"
        if self.compare == "exact":
            return "exact count" if self.claimed.lstrip("-").isdigit() else "exact"
        s = self.claimed.rstrip("%")
        places = len(s.split(".")[1]) if "." in s else 0
        unit = " (percent)" if self.claimed.endswith("%") else ""
        return (f"{places} decimal{'s' if places != 1 else ''}" if places else "nearest integer") + unit

    def with_claimed(self, claimed: str) -> Claim:
        """The same claim with another printed value (used to show that verdicts flip)."""
        return replace(self, claimed=claimed)


def _t1(pos: int, col: int, value: str) -> Claim:
    fn = "sin" if col % 2 == 0 else "cos"
    w = "omega_0 = 1" if col < 2 else "omega_1 = 0.01"
    return Claim(
        f"CLAIM-4.1.1-T1-R{pos}C{col}", "4.1.1", f"table 4-1, position {pos}, column {col}",
        f"PE({pos})[{col}] = {fn}({pos} * {w}) for d = 4, to 4 decimals", value, "round",
        "pe", {"d": 4, "p": pos, "j": col})


# Table 4-1: d = 4, positions 0..3, columns 0..3, as printed (ASCII minus).
_TABLE_4_1 = {
    0: ("0.0000", "1.0000", "0.0000", "1.0000"),
    1: ("0.8415", "0.5403", "0.0100", "1.0000"),
    2: ("0.9093", "-0.4161", "0.0200", "0.9998"),
    3: ("0.1411", "-0.9900", "0.0300", "0.9996"),
}
# Table 4-2: d = 512, distance k -> sum_i cos(omega_i k), as printed (2 decimals).
_TABLE_4_2 = {0: "256.00", 1: "249.10", 2: "231.73", 10: "173.79", 100: "111.95", 1000: "44.97", 2000: "22.53"}

# The M_1 check of §4.1.4 uses these printed inputs: PE(1) and the four entries of M_1.
WORKED_INPUTS: Mapping[str, str] = {
    "pe1": "0.8415 0.5403 0.0100 1.0000", "cos1": "0.5403", "sin1": "0.8415",
    "cos001": "0.99995", "sin001": "0.0100",
}

T2T_SOURCE = ("tensorflow/tensor2tensor, tensor2tensor/layers/common_attention.py, add_timing_signal_1d / "
              "get_timing_signal_1d: log_timescale_increment = log(max/min) / (num_timescales - 1), "
              "signal = concat([sin, cos]) (commit 017f83a91da0a4f481834fa0eac44d446774acfe)")

CLAIMS: tuple[Claim, ...] = (
    # ---- 4.1.1 the formula and table 4-1 --------------------------------------------------
    Claim("CLAIM-4.1.1-LAYOUT", "4.1.1", "formula and the paragraph after it",
          "column 2i holds sin(pos*omega_i) and column 2i+1 holds cos(pos*omega_i), i = 0..d/2-1, "
          "omega_i = 10000^(-2i/d)", "true", "true", "paper_layout", {"ds": (2, 4, 64, 512)},
          method="exact (column plan of spec/definition.py)", thm="THM-LAYOUT"),
    Claim("CLAIM-4.1.1-OMEGA0", "4.1.1", "d = 4 example", "omega_0 = 10000^0 = 1 for d = 4", "1", "exact",
          "frequency_exact", {"d": 4, "k": 0}, method="exact (SymPy)"),
    Claim("CLAIM-4.1.1-OMEGA1", "4.1.1", "d = 4 example", "omega_1 = 10000^(-1/2) = 0.01 for d = 4", "0.01",
          "exact", "frequency_exact", {"d": 4, "k": 1}, method="exact (SymPy)"),
    Claim("CLAIM-4.1.1-TWO-PAIRS", "4.1.1", "d = 4 example", "at d = 4 there are exactly two frequency pairs",
          "2", "exact", "n_pairs", {"d": 4}, method="exact (column plan)"),
    Claim("CLAIM-4.1.1-TEXT-SIN1", "4.1.1", "d = 4 example, position 1 column 0",
          "sin(1 * 1) = 0.8415 to 4 decimals", "0.8415", "round", "pe", {"d": 4, "p": 1, "j": 0}),
    Claim("CLAIM-4.1.1-TEXT-SIN001", "4.1.1", "d = 4 example, position 1 column 2",
          "sin(1 * 0.01) = 0.0100 to 4 decimals", "0.0100", "round", "pe", {"d": 4, "p": 1, "j": 2}),
    *(_t1(pos, col, v) for pos, row in _TABLE_4_1.items() for col, v in enumerate(row)),
    Claim("CLAIM-4.1.1-T1-ANGLE-HIGH", "4.1.1", "caption of table 4-1",
          "the omega_0 = 1 pair turns about 172 degrees over three steps", "172", "round",
          "angle_deg", {"d": 4, "k": 0, "p": 3}),
    Claim("CLAIM-4.1.1-T1-ANGLE-LOW", "4.1.1", "caption of table 4-1",
          "the omega_1 = 0.01 pair turns about 1.7 degrees over three steps", "1.7", "round",
          "angle_deg", {"d": 4, "k": 1, "p": 3}),
    Claim("CLAIM-4.1.1-HALF-TURN", "4.1.1", "second observation after table 4-1",
          "within a few steps the high-frequency pair goes more than half way round the circle", "true", "true",
          "more_than_half_turn", {"d": 4, "k": 0, "ps": (3, 4)}),
    Claim("CLAIM-4.1.1-PE0", "4.1.1", "first observation after table 4-1",
          "PE(0) is not the zero vector: every cosine column is 1 at position 0", "true", "true",
          "pe0_cos_ones", {"ds": (4, 64, 512)}, method="exact (SymPy)", thm="THM-BOUND"),
    # ---- 4.1.2 why sinusoids ---------------------------------------------------------------
    Claim("CLAIM-4.1.2-UNIQUE", "4.1.2", "constraint 1 (uniqueness), as met by the encoding",
          "distinct positions get distinct encoding vectors", "true", "true", "injective", {},
          method="exact (SymPy): pi is irrational; period of the d = 4 table", thm="THM-INJ"),
    Claim("CLAIM-4.1.2-BOUNDED", "4.1.2", "constraint 2 (boundedness), as met by the encoding",
          "every component lies in [-1, 1]", "true", "true", "bounded", {"ds": (1, 4, 64, 512, 513)},
          method="exact (column plan: each column is sin, cos or 0 with amplitude 1)", thm="THM-BOUND"),
    Claim("CLAIM-4.1.2-ANY-REAL", "4.1.2", "constraint 5 (no lookup table)",
          "the encoding is defined at any real position, not only at trained integer positions", "true",
          "true", "any_real", {"positions": ("-3", "0.5", "1e6", "1e15")},
          method="mpmath (DEF-PE evaluated at non-integer, negative and large positions)"),
    Claim("CLAIM-4.1.2-EXP-1D", "4.1.2", "paragraph on constraint 4",
          "a one-dimensional real exponential e^(a*pos) is shift-covariant (f(pos+k) = e^(ak) f(pos)) "
          "but unbounded or vanishing unless a = 0, so boundedness rules out 1-D solutions", "true", "true",
          "exp_1d", {}, method="exact (SymPy)",
          caveat="the constant function (a = 0) is a bounded 1-D solution the text passes over; "
                 "it carries no position, so the minimal useful real solution is the (sin, cos) pair"),
    Claim("CLAIM-4.1.2-CIRCLE", "4.1.2", "geometric view",
          "each (sin, cos) pair lies on the unit circle, so PE(pos) lies on a product of d/2 circles "
          "(a torus) and |PE(pos)|^2 = d/2", "true", "true", "norm", {"d": 4},
          method="exact (SymPy, symbolic pos)", thm="THM-NORM"),
    Claim("CLAIM-4.1.2-STEP-ANGLE", "4.1.2", "geometric view",
          "moving one position on turns pair i by omega_i radians, the same 2-D rotation for every pos",
          "true", "true", "rotation_step", {"d": 4}, method="exact (SymPy, symbolic pos)",
          thm="THM-ROT"),
    Claim("CLAIM-4.1.2-SIN-AMBIGUOUS", "4.1.2", "why sin and cos come in pairs",
          "sin alone does not fix the angle (sin t = sin(pi - t)); sin with cos does", "true", "true",
          "sin_ambiguity", {}, method="exact (SymPy)"),
    Claim("CLAIM-4.1.2-COMPLEX", "4.1.2", "Euler's formula",
          "each (cos, sin) pair is the real and imaginary part of exp(i*omega*pos)", "true", "true",
          "complex_form", {"d": 4}, method="exact (SymPy, symbolic pos)", thm="THM-CPLX"),
    Claim("CLAIM-4.1.2-GEOMETRIC-OMEGA", "4.1.2", "frequency schedule",
          "the omega_i form a geometric sequence with fixed ratio 10000^(-2/d)", "true", "true",
          "geometric_schedule", {"ds": (4, 64, 512, 1024)}, method="exact (rational exponents of DEF-PE)"),
    Claim("CLAIM-4.1.2-GEOMETRIC-LAMBDA", "4.1.2", "frequency schedule",
          "the wavelengths 2*pi/omega_i = 2*pi*10000^(2i/d) are also geometric", "true", "true",
          "geometric_schedule", {"ds": (4, 64, 512, 1024)}, method="exact (rational exponents of DEF-PE)",
          thm="THM-WAVE"),
    Claim("CLAIM-4.1.2-LAMBDA0", "4.1.2", "frequency schedule",
          "the highest frequency (i = 0) always has wavelength 2*pi = 6.28", "6.28", "round",
          "wavelength", {"d": 512, "k": 0, "also_ds": (2, 4, 64, 1024, 4096)}, thm="THM-WAVE"),
    Claim("CLAIM-4.1.2-LAMBDA-MIN-FORMULA", "4.1.2", "frequency schedule",
          "the lowest frequency (i = d/2-1) has wavelength 2*pi*10000^(1-2/d)", "true", "true",
          "lowest_exponent", {"ds": (4, 64, 512, 1024)}, method="exact (rational exponents of DEF-PE)",
          thm="THM-WAVE"),
    Claim("CLAIM-4.1.2-LAMBDA-MIN-512", "4.1.2", "frequency schedule, d = 512",
          "the longest wavelength at d = 512 is 60,611", "60,611", "round", "wavelength",
          {"d": 512, "k": 255}, thm="THM-WAVE"),
    Claim("CLAIM-4.1.2-SPAN", "4.1.2", "frequency schedule, d = 512",
          "the wavelengths span nearly four orders of magnitude", "4", "nearly", "decades", {"d": 512}),
    Claim("CLAIM-4.1.2-PAPER-RANGE", "4.1.2", "the original paper's range",
          "the paper's upper end 10000*2*pi is 62,832", "62,832", "round", "paper_top", {}),
    Claim("CLAIM-4.1.2-PAPER-APPROX", "4.1.2", "the original paper's range",
          "the paper's 10000*2*pi replaces the exponent 1-2/d by 1 (the longest wavelength is "
          "10000^(2/d) times shorter), and the gap shrinks as d grows", "true", "true", "paper_gap",
          {"ds": (64, 128, 256, 512, 1024, 2048, 4096)}, method="exact + mpmath"),
    # ---- 4.1.3 visualisation ----------------------------------------------------------------
    Claim("CLAIM-4.1.3-CODE", "4.1.3", "the PE-matrix code block",
          "exp(2i * -(ln 10000)/d) equals 10000^(-2i/d), and writing sin to even and cos to odd "
          "columns is the interleaved layout of the formula", "true", "true", "code_schedule", {"d": 64},
          method="exact (SymPy)", thm="THM-LAYOUT"),
    Claim("CLAIM-4.1.3-PAIR-SHARE", "4.1.3", "caption of figure 4-1",
          "columns 2i and 2i+1 share pair i's frequency", "true", "true", "pair_share", {"d": 64},
          method="exact (column plan)", thm="THM-LAYOUT"),
    Claim("CLAIM-4.1.3-HEATMAP", "4.1.3", "reading of figure 4-1, left panel",
          "low-index columns oscillate fastest and the frequency falls with the column pair index "
          "(the figure's script draws column 0 at the bottom)", "true", "true", "frequency_decreasing",
          {"d": 64}, method="exact (rational exponents)"),
    Claim("CLAIM-4.1.3-LAMBDA-COL0", "4.1.3", "reading of figure 4-1, right panel",
          "column 0 has wavelength 2*pi = 6.3", "6.3", "round", "wavelength_column", {"d": 64, "j": 0}),
    Claim("CLAIM-4.1.3-CYCLES-COL0", "4.1.3", "reading of figure 4-1, right panel",
          "column 0 goes through nearly 16 cycles over the 100 plotted positions", "16", "nearly",
          "cycles", {"d": 64, "j": 0, "n": 100}),
    Claim("CLAIM-4.1.3-LAMBDA-COL30", "4.1.3", "reading of figure 4-1, right panel",
          "column 30 has wavelength 2*pi*10000^(30/64) = 471", "471", "round", "wavelength_column",
          {"d": 64, "j": 30}),
    Claim("CLAIM-4.1.3-CYCLES-COL30", "4.1.3", "reading of figure 4-1, right panel",
          "column 30 covers 0.21 of a cycle over the 100 plotted positions", "0.21", "round", "cycles",
          {"d": 64, "j": 30, "n": 100}),
    # ---- 4.1.4 the linear shift and the dot product ----------------------------------------
    Claim("CLAIM-4.1.4-SHIFT", "4.1.4", "main statement",
          "a matrix M_k depending only on k maps PE(pos) to PE(pos+k) for every pos", "true", "true",
          "shift_matrix", {"d": 4}, method="exact (SymPy, symbolic pos and k, d = 4 block matrix)",
          thm="THM-SHIFT"),
    Claim("CLAIM-4.1.4-ADDITION", "4.1.4", "the two angle-addition identities",
          "sin(w(p+k)) = sin(wp)cos(wk) + cos(wp)sin(wk) and cos(w(p+k)) = cos(wp)cos(wk) - sin(wp)sin(wk)",
          "true", "true", "angle_addition", {}, method="exact (SymPy)", thm="THM-SHIFT"),
    Claim("CLAIM-4.1.4-BLOCK", "4.1.4", "the 2x2 matrix form",
          "(sin, cos) at p+k is [[cos wk, sin wk], [-sin wk, cos wk]] times (sin, cos) at p, and the "
          "block contains no pos", "true", "true", "block_form", {}, method="exact (SymPy)",
          thm="THM-ROT"),
    Claim("CLAIM-4.1.4-BLOCKDIAG", "4.1.4", "structure of M_k",
          "M_k is block diagonal with d/2 such 2x2 blocks (in the interleaved layout)", "true", "true",
          "block_diagonal", {"d": 8}, method="exact (SymPy, symbolic pos and k)", thm="THM-SHIFT"),
    Claim("CLAIM-4.1.4-W-COS1", "4.1.4", "M_1 check, first block", "cos 1 = 0.5403", "0.5403", "round",
          "rot_entry", {"d": 4, "k": 0, "shift": 1, "fn": "cos"}),
    Claim("CLAIM-4.1.4-W-SIN1", "4.1.4", "M_1 check, first block", "sin 1 = 0.8415", "0.8415", "round",
          "rot_entry", {"d": 4, "k": 0, "shift": 1, "fn": "sin"}),
    Claim("CLAIM-4.1.4-W-COS001", "4.1.4", "M_1 check, second block",
          "cos 0.01 = 0.99995 (5 decimals, while table 4-1 prints it as 1.0000)", "0.99995", "round",
          "rot_entry", {"d": 4, "k": 1, "shift": 1, "fn": "cos"}),
    Claim("CLAIM-4.1.4-W-SIN001", "4.1.4", "M_1 check, second block", "sin 0.01 = 0.0100", "0.0100", "round",
          "rot_entry", {"d": 4, "k": 1, "shift": 1, "fn": "sin"}),
    Claim("CLAIM-4.1.4-W-CELL0", "4.1.4", "M_1 check, first output",
          "M_1 times the printed PE(1), first entry: 0.5403*0.8415 + 0.8415*0.5403 = 0.9093", "0.9093",
          "round", "worked_cell", {"cell": 0}, method="exact decimal arithmetic on the printed inputs"),
    Claim("CLAIM-4.1.4-W-CELL1", "4.1.4", "M_1 check, second output",
          "M_1 times the printed PE(1), second entry: -0.8415*0.8415 + 0.5403*0.5403 = -0.4162", "-0.4162",
          "round", "worked_cell", {"cell": 1}, method="exact decimal arithmetic on the printed inputs"),
    Claim("CLAIM-4.1.4-W-CELL1-EXACT", "4.1.4", "M_1 check, second output",
          "the exact second entry is cos 2 = -0.4161", "-0.4161", "round", "pe", {"d": 4, "p": 2, "j": 1}),
    Claim("CLAIM-4.1.4-W-CAUSE", "4.1.4", "M_1 check, second output",
          "the last-digit gap (-0.4162 vs -0.4161) comes only from using 4-decimal inputs", "true", "true",
          "worked_cause", {}, method="exact decimal arithmetic vs mpmath"),
    Claim("CLAIM-4.1.4-W-MATCH", "4.1.4", "M_1 check",
          "the two computed entries agree with PE(2)'s first two columns in table 4-1", "true", "true",
          "worked_match", {}, method="exact decimal arithmetic vs the table's printed values"),
    Claim("CLAIM-4.1.4-W-CELL2", "4.1.4", "M_1 check, third output",
          "M_1 times the printed PE(1), third entry = 0.0200", "0.0200", "round", "worked_cell", {"cell": 2},
          method="exact decimal arithmetic on the printed inputs"),
    Claim("CLAIM-4.1.4-W-CELL3", "4.1.4", "M_1 check, fourth output",
          "M_1 times the printed PE(1), fourth entry = 0.9998", "0.9998", "round", "worked_cell", {"cell": 3},
          method="exact decimal arithmetic on the printed inputs"),
    Claim("CLAIM-4.1.4-DOT", "4.1.4", "dot-product corollary",
          "PE(pos) . PE(pos+k) = sum_i cos(omega_i k), independent of pos", "true", "true", "dot_identity",
          {"d": 4}, method="exact (SymPy, symbolic pos and k)", thm="THM-DOT"),
    *(Claim(f"CLAIM-4.1.4-T2-K{k}", "4.1.4", f"table 4-2, k = {k}",
            f"sum over the 256 pairs of cos(omega_i * {k}) at d = 512, to 2 decimals", v, "round",
            "dot_sum", {"d": 512, "k": k}, thm="THM-DOT") for k, v in _TABLE_4_2.items()),
    Claim("CLAIM-4.1.4-T2-TERMS", "4.1.4", "caption of table 4-2",
          "the d = 512 dot product is a sum of 256 cosines", "256", "exact", "n_pairs", {"d": 512},
          method="exact (column plan)"),
    Claim("CLAIM-4.1.4-T2-K0-HALF", "4.1.4", "caption of table 4-2",
          "at k = 0 every term is 1 and the sum is d/2 = 256", "256", "exact", "dot_at_zero", {"d": 512},
          method="exact (SymPy)", thm="THM-NORM"),
    Claim("CLAIM-4.1.4-T2-FALLS", "4.1.4", "caption of table 4-2",
          "the dot product falls as the distance grows (over the tabulated distances)", "true", "true",
          "dot_falls", {"d": 512, "ks": tuple(_TABLE_4_2)}),
    Claim("CLAIM-4.1.4-T2-NONMONOTONE", "4.1.4", "caption of table 4-2",
          "the dot product is not monotone in the distance", "true", "true", "dot_nonmonotone",
          {"d": 512, "kmax": 60}),
    Claim("CLAIM-4.1.4-T2-EVEN", "4.1.4", "caption of table 4-2",
          "k and -k give the same dot product (cos is even)", "true", "true", "dot_even", {"d": 4},
          method="exact (SymPy, symbolic pos and k)", thm="THM-EVEN"),
    Claim("CLAIM-4.1.4-T2-DIRECTION", "4.1.4", "caption of table 4-2",
          "the dot product cannot tell 'k before' from 'k after': PE(p).PE(p+k) = PE(p).PE(p-k)", "true",
          "true", "dot_direction", {"d": 4}, method="exact (SymPy, symbolic pos and k)", thm="THM-EVEN"),
    # ---- 4.1.5 in attention -----------------------------------------------------------------
    Claim("CLAIM-4.1.5-FOUR-TERMS", "4.1.5", "score expansion",
          "(x_m+p_m)^T A (x_n+p_n) splits into content-content, content-position, position-content and "
          "position-position terms", "true", "true", "four_terms", {}, method="exact (SymPy)"),
    Claim("CLAIM-4.1.5-ORTHOGONAL", "4.1.5", "M_k and W_Q^T W_K",
          "M_k is orthogonal", "true", "true", "orthogonal", {"d": 4}, method="exact (SymPy)",
          thm="THM-ROT"),
    Claim("CLAIM-4.1.5-NOT-INVARIANT", "4.1.5", "M_k and W_Q^T W_K",
          "in general M_k^T A M_k != A, so the position-position score changes under a common shift",
          "true", "true", "attention_shift", {}, method="exact (SymPy counterexample)", thm="THM-ATTN"),
    Claim("CLAIM-4.1.5-AMPLITUDE", "4.1.5", "scale of additive injection",
          "no component of the encoding exceeds 1 in magnitude", "true", "true", "bounded",
          {"ds": (1, 4, 64, 512, 513)}, method="exact (column plan)", thm="THM-BOUND"),
    # ---- 4.1.6 extrapolation -----------------------------------------------------------------
    Claim("CLAIM-4.1.6-COUNT-512", "4.1.6", "d = 512, training length 512",
          "123 of the 256 pairs have wavelength at most 512", "123", "exact", "count_short",
          {"d": 512, "L": 512}),
    Claim("CLAIM-4.1.6-REST-512", "4.1.6", "d = 512, training length 512",
          "the other 133 pairs never complete a full turn within the training length", "133", "exact",
          "count_long", {"d": 512, "L": 512}),
    Claim("CLAIM-4.1.6-LAMBDA-512", "4.1.6", "d = 512, lowest pair", "its wavelength is 60,611", "60,611",
          "round", "wavelength", {"d": 512, "k": 255}, thm="THM-WAVE"),
    Claim("CLAIM-4.1.6-ANGLE-512", "4.1.6", "d = 512, lowest pair",
          "at position 512 it has turned 3.04 degrees", "3.04", "round", "angle_deg",
          {"d": 512, "k": 255, "p": 512}),
    Claim("CLAIM-4.1.6-COUNT-1024", "4.1.6", "d = 1024, training length 512",
          "245 of the 512 pairs have wavelength at most 512", "245", "exact", "count_short",
          {"d": 1024, "L": 512}),
    Claim("CLAIM-4.1.6-PCT-512", "4.1.6", "share of short-wavelength pairs",
          "123/256 is 48%", "48%", "round", "share_short", {"d": 512, "L": 512}),
    Claim("CLAIM-4.1.6-PCT-1024", "4.1.6", "share of short-wavelength pairs",
          "245/512 is the same 48%", "48%", "round", "share_short", {"d": 1024, "L": 512}),
    Claim("CLAIM-4.1.6-LAMBDA-1024", "4.1.6", "d = 1024, lowest pair", "its wavelength is 61,712", "61,712",
          "round", "wavelength", {"d": 1024, "k": 511}, thm="THM-WAVE"),
    Claim("CLAIM-4.1.6-ANGLE-1024", "4.1.6", "d = 1024, lowest pair",
          "at position 512 it has turned 2.99 degrees", "2.99", "round", "angle_deg",
          {"d": 1024, "k": 511, "p": 512}),
    # ---- 4.1.7 implementations ------------------------------------------------------------------
    Claim("CLAIM-4.1.7-T2T-LAYOUT", "4.1.7", "first implementation remark",
          "tensor2tensor puts all sines in the first half and all cosines in the second", "true", "true",
          "t2t_layout", {"ds": (4, 64, 512)}, method="formula of a named implementation: " + T2T_SOURCE),
    Claim("CLAIM-4.1.7-CONCAT-PERMUTATION", "4.1.7", "first implementation remark",
          "with the paper's frequencies, the interleaved and the concatenated layouts differ only by a "
          "fixed column permutation", "true", "true", "permutation_of_paper",
          {"profile": "vaswani-concat", "ds": (4, 64, 512, 1024)},
          method="exact (column plan + rational exponents)", thm="THM-LAYOUT"),
    Claim("CLAIM-4.1.7-T2T-PERMUTATION", "4.1.7", "first implementation remark",
          "tensor2tensor's table is a fixed column permutation of the paper's, mathematically equivalent",
          "true", "true", "permutation_of_paper", {"profile": "t2t", "ds": (4, 64, 512, 1024)},
          method="formula of a named implementation: " + T2T_SOURCE, thm="THM-NONPERM"),
    Claim("CLAIM-4.1.7-LAYOUT-BOUND", "4.1.7", "first implementation remark",
          "weights trained with one layout do not transfer to the other: the two tables differ", "true",
          "true", "layouts_differ", {"d": 512, "positions": 8}),
    Claim("CLAIM-4.1.7-BUFFER", "4.1.7", "second implementation remark",
          "a table registered with register_buffer is not a parameter, so the optimizer never sees it",
          "true", "true", "buffer_frozen", {}, method="PyTorch nn.Module (register_buffer vs parameters())",
          caveat="'usually' is not checkable; fairseq (SinusoidalPositionalEmbedding) also keeps it out of "
                 "the parameters, while e.g. Whisper's decoder learns its positions"),
    Claim("CLAIM-4.1.7-RECOMPUTE", "4.1.7", "second implementation remark",
          "the table can be recomputed from the formula for longer inputs, so it never runs short", "true",
          "true", "any_real", {"positions": ("4096", "100000", "1e9")},
          method="mpmath (DEF-PE at positions beyond any training length)",
          caveat="only where the implementation recomputes (fairseq grows its table); a table built once "
                 "to a fixed max_len and sliced does run short"),
    Claim("CLAIM-4.1.7-WHISPER", "4.1.7", "third implementation remark",
          "Whisper's encoder uses a frozen sinusoidal table", "true", "true", "impl_family",
          {"impls": (("Whisper encoder: sinusoids(), register_buffer", "t2t"),)},
          method="formula of a named implementation: openai/whisper whisper/model.py sinusoids(): "
                 "log(10000)/(channels//2 - 1), concat([sin, cos]); AudioEncoder.register_buffer"),
    Claim("CLAIM-4.1.7-TRANSFORMER-XL", "4.1.7", "third implementation remark",
          "Transformer-XL applies the sinusoids to relative distances, with the paper's frequencies",
          "true", "true", "impl_family", {"impls": (("Transformer-XL PositionalEmbedding", "vaswani-concat"),)},
          method="formula of a named implementation: kimiyoung/transformer-xl mem_transformer.py "
                 "PositionalEmbedding: inv_freq = 1/10000^(arange(0, d, 2)/d), cat([sin, cos]), "
                 "pos_seq = klen-1 .. 0"),
    Claim("CLAIM-4.1.7-DIFFUSION", "4.1.7", "third implementation remark",
          "diffusion-model timestep embeddings reuse the same set of frequencies", "true", "true",
          "impl_family",
          {"impls": (("DDPM / diffusers get_timestep_embedding default (downscale_freq_shift=1)", "t2t"),
                     ("Stable Diffusion UNet config (flip_sin_to_cos=True, freq_shift=0)", "vaswani-concat-cos"))},
          method="formula of a named implementation: diffusers embeddings.get_timestep_embedding: "
                 "exponent = -log(10000)*arange(half)/(half - downscale_freq_shift)"),
)

# Statements of §4.1 that are not about the formula and cannot be checked from it (cited, not judged).
OUT_OF_SCOPE: tuple[tuple[str, str], ...] = (
    ("4.1.2", "square and sawtooth waves need a whole Fourier series to shift (qualitative)"),
    ("4.1.2", "the binary-counter analogy (qualitative)"),
    ("4.1.5", "what the original paper says about scaling embeddings by sqrt(d_model) (a claim about another text)"),
    ("4.1.6", "ALiBi's perplexity measurements at L_train + 20 / + 50 and the width of its baseline (another paper's experiments)"),
    ("4.1.7", "what the original paper's table 3 row (E) reports and the reasons it gives (another text)"),
    ("4.1.5", "how Transformer-XL rewrites the two position terms as global biases (another paper; the chapter's 4.4.2)"),
    ("4.1.6 / 4.1.7", "that the same extrapolation mechanism and layout split recur in RoPE (the chapter's 4.3)"),
    ("4.1.2", "the Fourier-decomposition reading of the multi-scale design (qualitative)"),
)

_BY_ID = {c.id: c for c in CLAIMS}


def get_claim(claim_id: str) -> Claim:
    """The catalogue entry with this ID (ValueError naming the ID when unknown)."""
    return lookup(_BY_ID, claim_id, "claim", listed=False, hint="; see `sinpe claims`")
