"""The audit of the seed chapter's claims (SPEC.md REQ-CLAIMS-VERDICT): every verdict computed at run time.

Each claim of :data:`sinpe.spec.claims.CLAIMS` names a *quantity*; the functions registered in
:data:`QUANTITIES` compute it from the one definition (:mod:`sinpe.spec.definition`): numbers in
mpmath at :data:`DPS` digits through :mod:`sinpe.reference.oracles.mp`'s backend, identities exactly in
SymPy through the definition's SymPy backend, and the variants of named public implementations
(tensor2tensor, Whisper, Transformer-XL, diffusers) as profiles of :mod:`sinpe.spec.profiles`.

A quantity returns one or more *readings* (e.g. "wavelength <= 512" and "< 512"; "the printed
inputs" and "all inputs at 4 decimals"). The claimed value is compared with each reading
(REQ-CLAIMS-VERDICT: exact half-to-even rounding to the printed digits; at an exact tie both
tie rules are tried). All readings match: ``holds``; some: ``holds-with-note`` (the note says
which do not); none: ``fails``. A holding claim with a caveat (or a computed qualification)
becomes ``holds-with-note``.

>>> r = audit_claim(get_claim("CLAIM-4.1.1-T1-R2C1"))     # cos 2 = -0.41614683...
>>> r.verdict, r.computed
('holds', '-0.41614683654714')
>>> audit_claim(get_claim("CLAIM-4.1.1-T1-R2C1").with_claimed("-0.4162")).verdict
'fails'
>>> r = audit_claim(get_claim("CLAIM-4.1.4-T2-K2000"))
>>> r.verdict, r.computed
('fails', '22.5245494909')
>>> audit_claim(get_claim("CLAIM-4.1.4-W-CELL3")).verdict     # 0.99985 is a tie at 4 decimals
'holds-with-note'
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from fractions import Fraction
from itertools import pairwise
from typing import Any

import mpmath

from sinpe.reference.oracles.mp import MP, pe_row, pe_value
from sinpe.spec.claims import CLAIMS, OUT_OF_SCOPE, WORKED_INPUTS, Claim, get_claim
from sinpe.spec.definition import SYMPY, column_data, columns, exponent, frequency, n_frequencies, phase, row
from sinpe.spec.profiles import Profile, get_profile

DPS = 60            # working precision in decimal digits (REQ-CLAIMS-VERDICT)
MARGIN_DIGITS = 40  # a rounding decision closer than 10^-40 to its boundary is refused, not guessed
VERDICTS = ("holds", "holds-with-note", "fails")

__all__ = ["DPS", "VERDICTS", "Quantity", "AuditResult", "QUANTITIES", "audit_claim", "run_audit", "tally",
           "readme_section", "render_table", "get_claim"]


class AuditError(RuntimeError):
    """A claim the audit cannot decide (rounding boundary too close, unknown quantity)."""


class MissingExtra(AuditError):
    """The check needs an optional extra that is not installed: reported as ``not-checked``."""


@dataclass
class Quantity:
    """What a quantity computes: ``readings`` [(label, value)], a ``detail`` line, and an optional
    computed ``qualifies`` remark that turns a holding verdict into holds-with-note."""

    readings: list[tuple[str, Any]]
    detail: str = ""
    qualifies: str | None = None


@dataclass
class AuditResult:
    claim: Claim
    computed: str
    verdict: str
    note: str
    detail: str
    checks: list[tuple[str, str, bool]] = field(default_factory=list)  # (reading, value shown, matches)
    reason: str = ""  # the note without the quantity's detail line

    def to_json(self) -> dict[str, Any]:
        c = self.claim
        return {"id": c.id, "section": c.section, "where": c.where, "claim": c.statement, "claimed": c.claimed,
                "precision": c.precision, "compare": c.compare, "computed": self.computed, "verdict": self.verdict,
                "note": self.note, "detail": self.detail, "method": c.method, "thm": c.thm,
                "readings": [{"reading": r, "value": v, "matches": ok} for r, v, ok in self.checks],
                "reproduce": f"sinpe claims --id {c.id}",
                "proof": f"sinpe prove --only {c.thm}" if c.thm else None}


QUANTITIES: dict[str, Callable[..., Quantity]] = {}


def quantity(name: str) -> Callable[[Callable[..., Quantity]], Callable[..., Quantity]]:
    def register(fn: Callable[..., Quantity]) -> Callable[..., Quantity]:
        QUANTITIES[name] = fn
        return fn
    return register


def _paper() -> Profile:
    return get_profile("vaswani")


def _omega(d: int, k: int, profile: Profile | None = None) -> mpmath.mpf:
    return frequency(column_data(profile or _paper(), d), k, MP)


def _fmt(x: Any, digits: int = 14) -> str:
    if isinstance(x, bool):
        return str(x).lower()
    if isinstance(x, (int, Fraction)) and Fraction(x).denominator == 1:
        return str(int(x))
    if isinstance(x, Decimal):
        return format(x.normalize(), "f")
    if isinstance(x, Fraction):
        return f"{x} = {mpmath.nstr(mpmath.mpf(x.numerator) / x.denominator, digits)}"
    return mpmath.nstr(x, digits, min_fixed=-30, max_fixed=30, strip_zeros=False)


def _is_zero(e: Any) -> bool:
    """Exact zero test by the Laurent normal form of ``sinpe.proofs.canonical`` (a decision procedure,
    not ``simplify``). Outside its fragment (real exponentials) only ``expand`` is used; a False
    there means "not shown zero". Inside it, a nonzero residual in independent atoms is a nonzero
    function (AX-CHARACTERS, SPEC.md THM-ATTN).

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> _is_zero(sp.sin(2 * x) - 2 * sp.sin(x) * sp.cos(x)), _is_zero(sp.sin(2 * x) - 2 * sp.sin(x))
    (True, False)
    """
    import sympy as sp

    from sinpe.proofs.canonical import decide
    v = decide(e, sp.Integer(0))
    if v.proven:
        return True
    if v.reason.startswith("outside"):
        return sp.expand(e, power_exp=True) == 0
    return False


# ---------------------------------------------------------------- numbers (mpmath via the definition)
@quantity("pe")
def q_pe(d: int, p: int, j: int) -> Quantity:
    v = pe_value(_paper(), d, p, j)
    c = columns(_paper(), d)[j]
    return Quantity([("exact value", v)], f"PE({p})[{j}] = {c.kind}({p}*w_{c.k}) at d = {d}")


@quantity("frequency_exact")
def q_frequency_exact(d: int, k: int) -> Quantity:
    w = frequency(column_data(_paper(), d), k, SYMPY)
    if not w.is_Rational:
        raise AuditError(f"omega_{k} at d={d} is not rational: {w}")
    return Quantity([("exact value", Fraction(int(w.p), int(w.q)))], f"omega_{k} = 10000^(-{exponent(_paper(), d, k)}) = {w}")


@quantity("rot_entry")
def q_rot_entry(d: int, k: int, shift: int, fn: str) -> Quantity:
    th = phase(column_data(_paper(), d), k, Fraction(shift), MP)
    v = mpmath.cos(th) if fn == "cos" else mpmath.sin(th)
    return Quantity([("exact value", v)], f"{fn}(omega_{k} * {shift}) with omega_{k} = {_fmt(_omega(d, k), 6)}")


@quantity("angle_deg")
def q_angle_deg(d: int, k: int, p: int) -> Quantity:
    th = phase(column_data(_paper(), d), k, Fraction(p), MP)
    return Quantity([("degrees", mpmath.degrees(th))], f"{p} * omega_{k} = {_fmt(th, 10)} rad at d = {d}")


@quantity("more_than_half_turn")
def q_more_than_half_turn(d: int, k: int, ps: Sequence[int]) -> Quantity:
    deg = [mpmath.degrees(phase(column_data(_paper(), d), k, Fraction(p), MP)) for p in ps]
    return Quantity([(f"within {p} steps", x > 180) for p, x in zip(ps, deg, strict=True)],
                    "; ".join(f"{p} steps turn {_fmt(x, 6)} degrees" for p, x in zip(ps, deg, strict=True)))


def _wavelength(d: int, k: int, profile: Profile | None = None) -> mpmath.mpf:
    return 2 * mpmath.pi / _omega(d, k, profile)


@quantity("wavelength")
def q_wavelength(d: int, k: int, also_ds: Sequence[int] = ()) -> Quantity:
    readings = [("2*pi/omega" + (f" at d = {d}" if also_ds else ""), _wavelength(d, k))]
    readings += [(f"2*pi/omega at d = {e}", _wavelength(e, k)) for e in also_ds]  # "always": every width
    return Quantity(readings, f"pair {k} of d = {d}: exponent {exponent(_paper(), d, k)}")


@quantity("wavelength_column")
def q_wavelength_column(d: int, j: int) -> Quantity:
    c = columns(_paper(), d)[j]
    return Quantity([("2*pi/omega", _wavelength(d, c.k))],
                    f"column {j} is {c.label}: omega = 10000^(-{exponent(_paper(), d, c.k)})")


@quantity("cycles")
def q_cycles(d: int, j: int, n: int) -> Quantity:
    c = columns(_paper(), d)[j]
    per = _omega(d, c.k) / (2 * mpmath.pi)
    return Quantity([(f"over {n} position units", n * per), (f"positions 0..{n - 1} ({n - 1} steps)", (n - 1) * per)],
                    f"column {j} = {c.label}")


@quantity("decades")
def q_decades(d: int) -> Quantity:
    n = n_frequencies(_paper(), d)
    # log10(lambda_max / lambda_0) = e_max * log10(10000), exact: the exponent is rational
    e = exponent(_paper(), d, n - 1) * 4
    return Quantity([("log10(longest / shortest wavelength)", e)], f"= 4 * {exponent(_paper(), d, n - 1)}")


@quantity("paper_top")
def q_paper_top() -> Quantity:
    b = _paper().base
    return Quantity([("10000 * 2*pi", 2 * mpmath.pi * MP.num(b))], "the paper's upper end of the wavelength range")


@quantity("paper_gap")
def q_paper_gap(ds: Sequence[int]) -> Quantity:
    gaps = [Fraction(1) - exponent(_paper(), d, n_frequencies(_paper(), d) - 1) for d in ds]
    ok = all(g == Fraction(2, d) for g, d in zip(gaps, ds, strict=True)) and all(a > b for a, b in pairwise(gaps))
    ratio = mpmath.power(10000, mpmath.mpf(2) / 512)
    return Quantity([("gap exponent 2/d, decreasing in d", ok)],
                    f"10000*2*pi / longest wavelength = 10000^(2/d): {_fmt(ratio, 6)} at d = 512; "
                    f"tensor2tensor's schedule (THM-WAVE) reaches 10000*2*pi exactly")


@quantity("dot_sum")
def q_dot_sum(d: int, k: int) -> Quantity:
    P = _paper()
    s = mpmath.fsum(mpmath.cos(phase(column_data(P, d), i, Fraction(k), MP)) for i in range(n_frequencies(P, d)))
    return Quantity([("sum_i cos(omega_i k)", s)], f"{n_frequencies(P, d)} terms")


def _dot_values(d: int, ks: Iterable[int]) -> list[mpmath.mpf]:
    return [q_dot_sum(d, k).readings[0][1] for k in ks]


@quantity("dot_falls")
def q_dot_falls(d: int, ks: Sequence[int]) -> Quantity:
    v = _dot_values(d, ks)
    return Quantity([("strictly decreasing at the tabulated k", all(a > b for a, b in pairwise(v)))],
                    ", ".join(f"f({k}) = {_fmt(x, 8)}" for k, x in zip(ks, v, strict=True)))


@quantity("dot_nonmonotone")
def q_dot_nonmonotone(d: int, kmax: int) -> Quantity:
    v = _dot_values(d, range(kmax + 1))
    rises = [k for k in range(kmax) if v[k + 1] > v[k]]
    detail = (f"first rise: f({rises[0]}) = {_fmt(v[rises[0]], 10)} < f({rises[0] + 1}) = {_fmt(v[rises[0] + 1], 10)}; "
              f"{len(rises)} rises for k < {kmax}") if rises else f"no rise for k <= {kmax}"
    return Quantity([(f"some integer k < {kmax} with f(k+1) > f(k)", bool(rises))], detail)


@quantity("n_pairs")
def q_n_pairs(d: int) -> Quantity:
    return Quantity([("number of (sin, cos) pairs", n_frequencies(_paper(), d))])


def _lengths(d: int) -> list[mpmath.mpf]:
    return [_wavelength(d, k) for k in range(n_frequencies(_paper(), d))]


def _cmp_margin(x: mpmath.mpf, L: float) -> None:
    if abs(x - L) < mpmath.mpf(10) ** (-MARGIN_DIGITS):
        raise AuditError(f"wavelength {x} too close to {L} to decide")


def _lengths_decidable(d: int, L: int) -> list[mpmath.mpf]:
    """The wavelengths at d, each checked to be decidably on one side of L and of L - 1."""
    lam = _lengths(d)
    for x in lam:
        _cmp_margin(x, L)
        _cmp_margin(x, L - 1)
    return lam


@quantity("count_short")
def q_count_short(d: int, L: int) -> Quantity:
    lam = _lengths_decidable(d, L)
    return Quantity([(f"wavelength <= {L}", sum(1 for x in lam if x <= L)),
                     (f"wavelength < {L}", sum(1 for x in lam if x < L)),
                     (f"a full turn within positions 0..{L - 1} (wavelength <= {L - 1})", sum(1 for x in lam if x <= L - 1))],
                    f"of {len(lam)} pairs; shortest wavelength above {L}: {_fmt(min(x for x in lam if x > L), 8)}")


@quantity("count_long")
def q_count_long(d: int, L: int) -> Quantity:
    lam = _lengths_decidable(d, L)
    return Quantity([(f"wavelength > {L}", sum(1 for x in lam if x > L)),
                     (f"less than a full turn over positions 0..{L - 1} (wavelength > {L - 1})", sum(1 for x in lam if x > L - 1))],
                    f"of {len(lam)} pairs")


@quantity("share_short")
def q_share_short(d: int, L: int) -> Quantity:
    q = q_count_short(d, L)
    n = n_frequencies(_paper(), d)
    return Quantity([(label.replace("a full turn", "share with a full turn"), Fraction(100 * c, n))
                     for label, c in q.readings[:2]], f"{q.readings[0][1]} of {n}")


# ---------------------------------------------------------------- the worked M_1 check of 4.1.4 (exact decimals)
def _dec(s: str) -> Decimal:
    return Decimal(s.replace("\u2212", "-"))


def _worked(cell: int, cos001: str | None = None) -> Decimal:
    """Entry ``cell`` of M_1 . PE(1) from printed decimals: blocks [[c, s], [-s, c]] (THM-SHIFT)."""
    pe1 = [_dec(x) for x in WORKED_INPUTS["pe1"].split()]
    c1, s1 = _dec(WORKED_INPUTS["cos1"]), _dec(WORKED_INPUTS["sin1"])
    c2, s2 = _dec(cos001 or WORKED_INPUTS["cos001"]), _dec(WORKED_INPUTS["sin001"])
    block = [((c1, s1), (-s1, c1)), ((c2, s2), (-s2, c2))][cell // 2]
    a, b = block[cell % 2]
    return a * pe1[2 * (cell // 2)] + b * pe1[2 * (cell // 2) + 1]


@quantity("worked_cell")
def q_worked_cell(cell: int) -> Quantity:
    readings: list[tuple[str, Any]] = [("from the printed inputs", _worked(cell))]
    if cell >= 2:  # table 4-1 prints cos 0.01 as 1.0000; the M_1 block uses 0.99995
        readings.append(("with cos 0.01 at 4 decimals as in table 4-1",
                         _worked(cell, get_claim("CLAIM-4.1.1-T1-R1C3").claimed)))
    exact = pe_value(_paper(), 4, 2, cell)
    return Quantity(readings, f"exact PE(2)[{cell}] = {_fmt(exact, 12)}")


@quantity("worked_cause")
def q_worked_cause() -> Quantity:
    printed = _worked(1)
    exact = pe_value(_paper(), 4, 2, 1)  # M_1 . PE(1) with exact inputs is PE(2) (THM-SHIFT)
    table = get_claim("CLAIM-4.1.1-T1-R2C1").claimed
    r_exact = _round_places(Fraction(mpmath.nstr(exact, 30)), 4)[0]
    r_printed = _round_places(Fraction(printed), 4)[0]
    ok = r_exact == _dec(table) and r_printed != r_exact and abs(mpmath.mpf(str(printed)) - exact) < mpmath.mpf("1e-4")
    return Quantity([("exact inputs give the table's digit, 4-decimal inputs shift it", ok)],
                    f"printed inputs: {printed} -> {r_printed}; exact cos 2 = {_fmt(exact, 10)} -> {r_exact}")


@quantity("worked_match")
def q_worked_match() -> Quantity:
    got = [_worked(0), _worked(1)]
    table = [_dec(get_claim(f"CLAIM-4.1.1-T1-R2C{j}").claimed) for j in (0, 1)]
    rounded = [_round_places(Fraction(g), 4)[0] for g in got]
    return Quantity([("digit for digit at 4 decimals", rounded == table),
                     ("within one unit of the 4th decimal", all(abs(r - t) <= Decimal("0.0001") for r, t in zip(rounded, table, strict=False)))],
                    f"computed {', '.join(map(str, rounded))} vs table {', '.join(map(str, table))}")


# ---------------------------------------------------------------- exact identities (SymPy through the definition)
def _syms() -> tuple[Any, Any, Any]:
    import sympy as sp
    return sp.symbols("p k w", real=True)


def _shift_matrix(profile: Profile, d: int, k: Any) -> Any:
    """M_k built from the column plan: a [[cos, sin], [-sin, cos]] block on each (sin_i, cos_i) pair."""
    import sympy as sp
    cols = columns(profile, d)
    where = {(c.kind, c.k): j for j, c in enumerate(cols)}
    M = sp.zeros(d, d)
    for j, c in enumerate(cols):
        if c.kind == "zero":
            M[j, j] = 1
    for (kind, i), s in where.items():
        if kind != "sin":
            continue
        th = phase(column_data(profile, d), i, k, SYMPY)
        if ("cos", i) not in where:
            raise AuditError(f"column sin{i} of d={d} is unpaired")
        jc = where[("cos", i)]
        M[s, s], M[s, jc], M[jc, s], M[jc, jc] = sp.cos(th), sp.sin(th), -sp.sin(th), sp.cos(th)
    return M


def _pe_sym(d: int, p: Any, profile: Profile | None = None) -> Any:
    import sympy as sp
    return sp.Matrix(row(column_data(profile or _paper(), d), p, SYMPY))


@quantity("shift_matrix")
def q_shift_matrix(d: int) -> Quantity:
    p, k, _ = _syms()
    M = _shift_matrix(_paper(), d, k)
    ok = all(_is_zero(e) for e in (M * _pe_sym(d, p) - _pe_sym(d, p + k))) and p not in M.free_symbols
    return Quantity([("M_k PE(p) = PE(p+k), M_k free of p", ok)], f"d = {d}, symbolic p and k")


@quantity("block_diagonal")
def q_block_diagonal(d: int) -> Quantity:
    p, k, _ = _syms()
    M = _shift_matrix(_paper(), d, k)
    diag = all(M[r, c] == 0 for r in range(d) for c in range(d) if r // 2 != c // 2)
    ok = diag and all(_is_zero(e) for e in (M * _pe_sym(d, p) - _pe_sym(d, p + k)))
    return Quantity([("2x2 blocks on the diagonal, nothing else", ok)], f"d = {d}: {d // 2} blocks")


@quantity("angle_addition")
def q_angle_addition() -> Quantity:
    import sympy as sp
    p, k, w = _syms()
    ok = _is_zero(sp.sin(w * (p + k)) - (sp.sin(w * p) * sp.cos(w * k) + sp.cos(w * p) * sp.sin(w * k))) and \
        _is_zero(sp.cos(w * (p + k)) - (sp.cos(w * p) * sp.cos(w * k) - sp.sin(w * p) * sp.sin(w * k)))
    return Quantity([("both identities", ok)])


@quantity("block_form")
def q_block_form() -> Quantity:
    import sympy as sp
    p, k, w = _syms()
    B = sp.Matrix([[sp.cos(w * k), sp.sin(w * k)], [-sp.sin(w * k), sp.cos(w * k)]])
    lhs = B * sp.Matrix([sp.sin(w * p), sp.cos(w * p)]) - sp.Matrix([sp.sin(w * (p + k)), sp.cos(w * (p + k))])
    return Quantity([("block maps (sin, cos)(p) to (sin, cos)(p+k); no p in it",
                      all(_is_zero(e) for e in lhs) and p not in B.free_symbols)])


@quantity("orthogonal")
def q_orthogonal(d: int) -> Quantity:
    import sympy as sp
    _, k, _ = _syms()
    M = _shift_matrix(_paper(), d, k)
    ok = all(_is_zero(e) for e in (M.T * M - sp.eye(d))) and _is_zero(M.det() - 1)
    return Quantity([("M_k^T M_k = I and det M_k = 1", ok)], f"d = {d}")


@quantity("rotation_step")
def q_rotation_step(d: int) -> Quantity:
    import sympy as sp
    p, _, _ = _syms()
    M = _shift_matrix(_paper(), d, sp.Integer(1))
    ok = all(_is_zero(e) for e in (M * _pe_sym(d, p) - _pe_sym(d, p + 1)))
    # each block is a rotation by omega_i: orthogonal, det 1, trace 2 cos(omega_i)
    for i in range(d // 2):
        blk = M[2 * i:2 * i + 2, 2 * i:2 * i + 2]
        w = frequency(column_data(_paper(), d), i, SYMPY)
        ok = ok and _is_zero(blk.det() - 1) and _is_zero(blk.trace() - 2 * sp.cos(w))
    return Quantity([("PE(p+1) = M_1 PE(p), block i a rotation by omega_i", ok)], f"d = {d}")


@quantity("norm")
def q_norm(d: int) -> Quantity:
    import sympy as sp
    p, _, _ = _syms()
    v = _pe_sym(d, p)
    pairs_on_circle = all(_is_zero(v[2 * i] ** 2 + v[2 * i + 1] ** 2 - 1) for i in range(d // 2))
    return Quantity([("each pair on the unit circle, |PE|^2 = d/2", pairs_on_circle and _is_zero((v.T * v)[0] - sp.Rational(d, 2)))])


@quantity("pe0_cos_ones")
def q_pe0(ds: Sequence[int]) -> Quantity:
    ok = True
    for d in ds:
        v = row(column_data(_paper(), d), 0, SYMPY)
        ok = ok and all((x == 1) if c.kind == "cos" else (x == 0) for x, c in zip(v, columns(_paper(), d), strict=True))
        ok = ok and any(x != 0 for x in v)
    return Quantity([("cos columns 1, sin columns 0, vector nonzero", ok)], f"d in {tuple(ds)}")


@quantity("injective")
def q_injective() -> Quantity:
    import sympy as sp
    p, _, _ = _syms()
    # integers: PE(p) = PE(q) forces sin/cos(p) = sin/cos(q), so p - q in 2*pi*Z: impossible, pi irrational
    on_integers = bool(sp.pi.is_irrational) and columns(_paper(), 4)[:2] == columns(_paper(), 2)
    periodic = all(_is_zero(e) for e in (_pe_sym(4, p + 200 * sp.pi) - _pe_sym(4, p)))
    return Quantity([("integer positions", on_integers), ("all real positions (constraint 5), d = 4", not periodic)],
                    "PE(p + 200*pi) = PE(p) at d = 4 (omega_1 = 1/100 is rational)" if periodic else "")


@quantity("bounded")
def q_bounded(ds: Sequence[int]) -> Quantity:
    P = _paper()
    ok = P.amplitude == 1 and all(c.kind in ("sin", "cos", "zero") for d in ds for c in columns(P, d))
    return Quantity([("every column is sin, cos or 0 with amplitude 1", ok)], f"d in {tuple(ds)}")


@quantity("any_real")
def q_any_real(positions: Sequence[str]) -> Quantity:
    vals = [pe_row(_paper(), 8, x) for x in positions]
    ok = all(mpmath.isfinite(v) and abs(v) <= 1 for r in vals for v in r)
    return Quantity([("finite values in [-1, 1] at every position", ok)],
                    "; ".join(f"PE({x})[0] = {_fmt(r[0], 8)}" for x, r in zip(positions, vals, strict=True)))


@quantity("exp_1d")
def q_exp_1d() -> Quantity:
    import sympy as sp
    p, k, _ = _syms()
    a = sp.Symbol("a", positive=True)
    covariant = _is_zero(sp.exp(a * (p + k)) - sp.exp(a * k) * sp.exp(a * p))
    unbounded = sp.limit(sp.exp(a * p), p, sp.oo) == sp.oo and sp.limit(sp.exp(-a * p), p, -sp.oo) == sp.oo
    return Quantity([("e^(a p) shift-covariant and unbounded for a != 0", covariant and unbounded)])


@quantity("sin_ambiguity")
def q_sin_ambiguity() -> Quantity:
    import sympy as sp
    t = sp.Symbol("t", real=True)
    ok = _is_zero(sp.sin(sp.pi - t) - sp.sin(t)) and _is_zero(sp.cos(sp.pi - t) + sp.cos(t))
    return Quantity([("sin(pi - t) = sin t while cos(pi - t) = -cos t", ok)])


@quantity("complex_form")
def q_complex_form(d: int) -> Quantity:
    import sympy as sp
    p, k, _ = _syms()
    v, w = _pe_sym(d, p), _pe_sym(d, p + k)
    ok = True
    for i in range(d // 2):
        th = phase(column_data(_paper(), d), i, p, SYMPY)
        z = v[2 * i + 1] + sp.I * v[2 * i]
        ok = ok and _is_zero((sp.exp(sp.I * th) - z).rewrite(sp.cos))
        shift = sp.exp(sp.I * phase(column_data(_paper(), d), i, k, SYMPY))
        ok = ok and _is_zero((w[2 * i + 1] + sp.I * w[2 * i] - shift * z).rewrite(sp.cos))
    return Quantity([("cos + i sin = exp(i omega p); a shift multiplies by exp(i omega k)", ok)], f"d = {d}")


@quantity("geometric_schedule")
def q_geometric(ds: Sequence[int]) -> Quantity:
    ok = True
    for d in ds:
        e = [exponent(_paper(), d, k) for k in range(n_frequencies(_paper(), d))]
        ok = ok and all(b - a == Fraction(2, d) for a, b in pairwise(e))
    return Quantity([("consecutive exponents differ by 2/d", ok)], f"d in {tuple(ds)}")


@quantity("lowest_exponent")
def q_lowest_exponent(ds: Sequence[int]) -> Quantity:
    ok = all(exponent(_paper(), d, d // 2 - 1) == 1 - Fraction(2, d) for d in ds)
    return Quantity([("e_(d/2-1) = 1 - 2/d", ok)], f"d in {tuple(ds)}")


@quantity("frequency_decreasing")
def q_frequency_decreasing(d: int) -> Quantity:
    cols = columns(_paper(), d)
    e = [exponent(_paper(), d, c.k) for c in cols]
    ok = all(a <= b for a, b in pairwise(e)) and all(e[2 * i] < e[2 * i + 2] for i in range(d // 2 - 1))
    return Quantity([("omega falls with the column pair index", ok)], f"d = {d}")


@quantity("pair_share")
def q_pair_share(d: int) -> Quantity:
    cols = columns(_paper(), d)
    return Quantity([("columns 2i, 2i+1 use frequency i", all(cols[2 * i].k == cols[2 * i + 1].k == i for i in range(d // 2)))])


@quantity("paper_layout")
def q_paper_layout(ds: Sequence[int]) -> Quantity:
    ok = True
    for d in ds:
        cols = columns(_paper(), d)
        ok = ok and all(cols[2 * i].label == f"sin{i}" and cols[2 * i + 1].label == f"cos{i}"
                        and exponent(_paper(), d, i) == Fraction(2 * i, d) for i in range(d // 2))
    return Quantity([("interleaved sin/cos, exponent 2i/d", ok)], f"d in {tuple(ds)}")


@quantity("code_schedule")
def q_code_schedule(d: int) -> Quantity:
    import sympy as sp
    i = sp.Symbol("i", integer=True, nonnegative=True)
    dd = sp.Symbol("d", integer=True, positive=True)
    # exp(2i * (-ln b / d)) = b^(-2i/d) by the definition b^x := exp(x ln b) (b > 0): compare the exponents exactly
    code_arg, def_exponent = 2 * i * (-sp.log(10000) / dd), -2 * i / dd
    same = sp.expand(code_arg - def_exponent * sp.log(10000)) == 0
    cols = columns(_paper(), d)
    layout = all(c.kind == ("sin" if j % 2 == 0 else "cos") and c.k == j // 2 for j, c in enumerate(cols))
    return Quantity([("same frequencies and layout as DEF-PE", same and layout)], f"d = {d}")


@quantity("dot_identity")
def q_dot_identity(d: int) -> Quantity:
    import sympy as sp
    p, k, _ = _syms()
    lhs = (_pe_sym(d, p).T * _pe_sym(d, p + k))[0]
    rhs = sum(sp.cos(phase(column_data(_paper(), d), i, k, SYMPY)) for i in range(n_frequencies(_paper(), d)))
    return Quantity([("PE(p).PE(p+k) = sum_i cos(omega_i k)", _is_zero(lhs - rhs))], f"d = {d}")


@quantity("dot_at_zero")
def q_dot_at_zero(d: int) -> Quantity:
    import sympy as sp
    s = sum(sp.cos(phase(column_data(_paper(), d), i, 0, SYMPY)) for i in range(n_frequencies(_paper(), d)))
    return Quantity([("sum_i cos(0)", int(s) if s.is_Integer else s)])


@quantity("dot_even")
def q_dot_even(d: int) -> Quantity:
    import sympy as sp
    _, k, _ = _syms()
    f = lambda s: sum(sp.cos(phase(column_data(_paper(), d), i, s, SYMPY)) for i in range(n_frequencies(_paper(), d)))
    return Quantity([("f(-k) = f(k)", _is_zero(f(-k) - f(k)))], f"d = {d}")


@quantity("dot_direction")
def q_dot_direction(d: int) -> Quantity:
    import sympy as sp
    p, k, _ = _syms()
    v = _pe_sym(d, p)
    blind = _is_zero((v.T * _pe_sym(d, p + k))[0] - (v.T * _pe_sym(d, p - k))[0])
    # but the vectors differ, and the block 90-degree form PE(p)^T J PE(p+k) is odd in k (THM-DIR)
    J = sp.zeros(d, d)
    for i in range(d // 2):
        J[2 * i, 2 * i + 1], J[2 * i + 1, 2 * i] = 1, -1
    g = lambda s: (v.T * J * _pe_sym(d, p + s))[0]
    odd = _is_zero(g(k) + g(-k)) and not _is_zero(g(k))
    return Quantity([("PE(p).PE(p+k) = PE(p).PE(p-k)", blind)],
                    "PE(p)^T J PE(p+k) = -sum_i sin(omega_i k) is odd in k",
                    qualifies=("only the dot product is direction-blind: PE(p)^T J PE(p+k) (J the block 90-degree "
                               "rotation) is odd in k, so a fixed bilinear form tells k from -k (THM-DIR)") if odd else None)


@quantity("four_terms")
def q_four_terms() -> Quantity:
    import sympy as sp
    n = 3
    xm, pm, xn, pn = (sp.Matrix(sp.symbols(f"{s}0:{n}")) for s in ("x", "u", "y", "v"))
    W = sp.Matrix(n, n, sp.symbols(f"a0:{n * n}"))
    lhs = ((xm + pm).T * W * (xn + pn))[0]
    rhs = (xm.T * W * xn + xm.T * W * pn + pm.T * W * xn + pm.T * W * pn)[0]
    return Quantity([("bilinear expansion into four terms", sp.expand(lhs - rhs) == 0)], f"{n}-dimensional symbolic vectors and matrix")


@quantity("attention_shift")
def q_attention_shift() -> Quantity:
    import sympy as sp
    # counterexample at d = 2 (omega_0 = 1): W = e_0 e_0^T, shift k = 1
    M = _shift_matrix(_paper(), 2, sp.Integer(1))
    W = sp.Matrix([[1, 0], [0, 0]])
    from sinpe.proofs.balls import certified_sign
    conj = (M.T * W * M - W).applyfunc(sp.expand)
    s = sp.Integer(1)
    pp = lambda m, n: (_pe_sym(2, m).T * W * _pe_sym(2, n))[0]
    changed = sp.expand(pp(0 + s, 0 + s) - pp(0, 0))
    # nonzero is certified by ball arithmetic (python-flint), not read off an unsimplified expression
    ok = any(certified_sign(x) is not None for x in conj) and certified_sign(changed) is not None
    return Quantity([("M_1^T W M_1 != W and p_m^T W p_n changes under a common shift", ok)],
                    f"W = e_0 e_0^T, d = 2: M_1^T W M_1 - W = {conj.tolist()}, score change {changed}")


# ---------------------------------------------------------------- named public implementations (profiles)
def _freq_multiset(profile: Profile, d: int) -> list[tuple[str, Fraction | None]]:
    """Each column as (kind, exponent): two tables are column permutations of each other iff these agree."""
    return sorted((c.kind, None if c.kind == "zero" else exponent(profile, d, c.k)) for c in columns(profile, d))


def _shared_frequencies(profile: Profile, d: int) -> tuple[int, int]:
    a = {exponent(profile, d, k) for k in range(n_frequencies(profile, d))}
    b = {exponent(_paper(), d, k) for k in range(n_frequencies(_paper(), d))}
    return len(a & b), len(b)


@quantity("t2t_layout")
def q_t2t_layout(ds: Sequence[int]) -> Quantity:
    P = get_profile("t2t")
    ok = all([c.kind for c in columns(P, d)] == ["sin"] * (d // 2) + ["cos"] * (d // 2) for d in ds)
    return Quantity([("first half sin, second half cos", ok)], f"d in {tuple(ds)}")


@quantity("permutation_of_paper")
def q_permutation_of_paper(profile: str, ds: Sequence[int]) -> Quantity:
    P = get_profile(profile)
    readings = [(f"d = {d}", _freq_multiset(P, d) == _freq_multiset(_paper(), d)) for d in ds]
    notes = []
    shares = [(d, *_shared_frequencies(P, d)) for d in ds]
    if any(s != n for _, s, n in shares):
        notes.append(f"{profile} ({P.describe()}) shares only " + ", ".join(f"{s} of {n}" for _, s, n in shares)
                     + " frequencies with the paper's (d = " + ", ".join(str(d) for d, _, _ in shares) + ")")
    if notes:
        d = 512 if 512 in ds else max(ds)
        n = n_frequencies(P, d)
        idx_a = {(c.kind, c.k): j for j, c in enumerate(columns(P, d))}
        idx_b = {(c.kind, c.k): j for j, c in enumerate(columns(_paper(), d))}
        gaps = []
        for pos in (100, 10000):  # the same (kind, k) column in both tables, at one position
            a, b = pe_row(P, d, pos), pe_row(_paper(), d, pos)
            gaps.append(f"{_fmt(max(abs(a[idx_a[key]] - b[idx_b[key]]) for key in idx_a), 3)} at position {pos}")
        notes.append(f"lowest frequency at d = {d}: 10000^(-{exponent(P, d, n - 1)}) (wavelength "
                     f"{_fmt(_wavelength(d, n - 1, P), 8)}) vs the paper's 10000^(-{exponent(_paper(), d, n - 1)}) "
                     f"({_fmt(_wavelength(d, n - 1), 8)}); same-label columns differ by up to " + ", ".join(gaps))
    return Quantity(readings, "; ".join(notes) or f"{profile}: same (kind, frequency) columns as the paper's")


@quantity("layouts_differ")
def q_layouts_differ(d: int, positions: int) -> Quantity:
    a = [pe_row(_paper(), d, p) for p in range(1, positions + 1)]
    b = [pe_row(get_profile("vaswani-concat"), d, p) for p in range(1, positions + 1)]
    differ = sum(1 for j in range(d) if any(abs(x[j] - y[j]) > mpmath.mpf(10) ** -30 for x, y in zip(a, b, strict=True)))
    return Quantity([("interleaved and concatenated tables differ", differ > 0)],
                    f"{differ} of {d} columns differ at positions 1..{positions} (d = {d})")


@quantity("buffer_frozen")
def q_buffer_frozen() -> Quantity:
    try:
        import torch
    except ImportError as e:  # optional extra
        raise MissingExtra("needs the optional torch extra: pip install 'sinpe[torch]'") from e
    from sinpe.reference.implementations import torch_impl as impl_torch
    m = torch.nn.Module()
    m.register_buffer("pe", impl_torch.pe_table(_paper(), 8, list(range(4)), "float32"))
    ok = len(list(m.parameters())) == 0 and "pe" in m.state_dict() and not m.pe.requires_grad
    return Quantity([("a registered buffer is no parameter and needs no gradient", ok)],
                    "torch.nn.Module.register_buffer: parameters() is empty, the table is in state_dict()")


@quantity("impl_family")
def q_impl_family(impls: Sequence[tuple[str, str]], d: int = 512) -> Quantity:
    readings, notes = [], []
    for label, name in impls:
        P = get_profile(name)
        same = {exponent(P, d, k) for k in range(n_frequencies(P, d))} == \
               {exponent(_paper(), d, k) for k in range(n_frequencies(_paper(), d))}
        shared, n = _shared_frequencies(P, d)
        readings.append((label, same))
        notes.append(f"{label} = profile {name} ({P.describe()}): {shared} of {n} frequencies shared with the paper at d = {d}")
    qualifies = None
    if len(impls) == 1 and not readings[0][1]:
        # a claim about a frozen sinusoidal table, not about frequencies: it holds, with the variant named
        readings = [(readings[0][0] + ": a sinusoidal table of the DEF-FAMILY, base 10000", True)]
        qualifies = "it is tensor2tensor's variant, not the paper's table: " + notes[0]
        notes = []
    return Quantity(readings, "; ".join(notes), qualifies=qualifies)


# ---------------------------------------------------------------- comparing and judging
def _norm_claimed(s: str) -> str:
    return s.replace("\u2212", "-").replace(",", "").replace("%", "").strip()


def _round_places(x: Fraction, places: int) -> tuple[Decimal, Decimal]:
    """Exact rounding of a rational to ``places`` decimals: (half-to-even, half-away-from-zero)."""
    q = Decimal(1).scaleb(-places)
    num = Decimal(x.numerator)
    from decimal import localcontext
    with localcontext() as ctx:
        ctx.prec = 200
        v = num / Decimal(x.denominator)
        # exactness: a rational with a non-terminating expansion is never a tie; 200 digits decide the rest
        return v.quantize(q, rounding=ROUND_HALF_EVEN), v.quantize(q, rounding=ROUND_HALF_UP)


def _as_fraction(v: Any) -> Fraction | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, Fraction)):
        return Fraction(v)
    if isinstance(v, Decimal):
        return Fraction(v)
    return None


def _round_mp(v: mpmath.mpf, places: int) -> Decimal:
    y = v * mpmath.mpf(10) ** places
    lo = mpmath.floor(y)
    if abs(y - lo - mpmath.mpf(1) / 2) < mpmath.mpf(10) ** (-MARGIN_DIGITS):
        raise AuditError(f"{mpmath.nstr(v, 30)} is within 1e-{MARGIN_DIGITS} of a rounding boundary at {places} decimals")
    n = int(mpmath.nint(y))
    return Decimal(n).scaleb(-places)


def compare(claim: Claim, value: Any) -> list[tuple[str, str, bool]]:
    """(tie rule or '', value shown, matches) for one reading (REQ-CLAIMS-VERDICT)."""
    if claim.compare == "true":
        return [("", _fmt(value), value is True)]
    target = _norm_claimed(claim.claimed)
    if claim.compare == "exact":
        f = _as_fraction(value)
        return [("", _fmt(value), f is not None and f == Fraction(target))]
    places = len(target.split(".")[1]) if "." in target else 0
    want = Decimal(target)
    exact = _as_fraction(value)
    out: list[tuple[str, str, bool]] = []
    if exact is not None:
        even, away = _round_places(exact, places)
        below = exact < Fraction(want)
        shown = _fmt(exact if exact.denominator != 1 else int(exact), 14) if not isinstance(value, Decimal) else _fmt(value)
        if even == away:
            out.append(("", shown, even == want and (claim.compare != "nearly" or below)))
        else:  # an exact tie: the two usual rules disagree
            out.append(("round half to even", shown, even == want and (claim.compare != "nearly" or below)))
            out.append(("round half away from zero", shown, away == want and (claim.compare != "nearly" or below)))
        return out
    r = _round_mp(value, places)
    ok = r == want and (claim.compare != "nearly" or value < mpmath.mpf(target))
    return [("", _fmt(value, max(8, places + 10)), ok)]


def _diagnose(claim: Claim, value: Any) -> str:
    """Why a rounded value fails: the correct rounding, and whether double rounding explains the print."""
    if claim.compare not in ("round", "nearly") or isinstance(value, bool):
        return ""
    target = _norm_claimed(claim.claimed)
    places = len(target.split(".")[1]) if "." in target else 0
    x = _as_fraction(value)
    mp = mpmath.mpf(x.numerator) / x.denominator if x is not None else value
    correct = _round_mp(mp, places) if x is None else _round_places(x, places)[0]
    msg = f"the exact value {_fmt(mp, places + 8)} rounds to {correct}"
    once = _round_mp(mp, places + 1) if x is None else _round_places(x, places + 1)[0]
    twice = once.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    if twice == Decimal(target) and correct != Decimal(target):
        msg += f"; {claim.claimed} is what rounding twice gives ({_fmt(mp, places + 4)} -> {once} -> {twice})"
    return msg


def audit_claim(claim: Claim) -> AuditResult:
    """Compute one claim's verdict from the formula (never from a stored verdict)."""
    if claim.quantity not in QUANTITIES:
        raise AuditError(f"{claim.id}: unknown quantity {claim.quantity!r}")
    with mpmath.workdps(DPS):
        try:
            q = QUANTITIES[claim.quantity](**dict(claim.args))
        except MissingExtra as e:  # reported, never silently skipped
            return AuditResult(claim, "-", "not-checked", str(e), "", [], str(e))
        checks: list[tuple[str, str, bool]] = []
        for label, value in q.readings:
            for rule, shown, ok in compare(claim, value):
                checks.append((" / ".join(x for x in (label, rule) if x), shown, ok))
        computed = checks[0][1]
        good = [c for c in checks if c[2]]
        bad = [c for c in checks if not c[2]]
        if not bad:
            verdict, note = "holds", ""
            extra = [x for x in (claim.caveat, q.qualifies) if x]
            if extra:
                verdict, note = "holds-with-note", "; ".join(extra)
        elif good:
            verdict = "holds-with-note"
            note = ("holds for: " + "; ".join(f"{r}" for r, _, _ in good) + ". Not for: "
                    + "; ".join(f"{r} ({v})" for r, v, _ in bad))
        else:
            verdict = "fails"
            note = _diagnose(claim, q.readings[0][1]) or (
                "false for " + ", ".join(r for r, _, _ in bad) if claim.compare == "true"
                else "; ".join(f"{r}: {v}" for r, v, _ in bad))
        reason = note
        if verdict != "holds" and q.detail:
            note = f"{note}. {q.detail}" if note else q.detail
    return AuditResult(claim, computed, verdict, note, q.detail, checks, reason)


def run_audit(claims: Sequence[Claim] = CLAIMS, progress: bool = False) -> list[AuditResult]:
    """Audit every claim (progress on stderr when asked and stderr is a TTY)."""
    from sinpe.reference.progress import Progress
    out = []
    bar = Progress(len(claims), "sinpe claims", None if progress else False, unit="claims")
    for i, c in enumerate(claims, 1):
        out.append(audit_claim(c))
        bar.update(i, c.id)
    bar.close()
    return out


def tally(results: Sequence[AuditResult]) -> dict[str, int]:
    """Counts per verdict, in the order of :data:`VERDICTS` (plus ``not-checked`` when an extra is missing)."""
    t = {v: sum(1 for r in results if r.verdict == v) for v in VERDICTS}
    missing = sum(1 for r in results if r.verdict == "not-checked")
    if missing:
        t["not-checked"] = missing
    return t


def render_table(results: Sequence[AuditResult]) -> str:
    """A plain-text table: ID, claimed, computed, verdict, note."""
    lines = [f"{'ID':<34} {'claimed':>9} {'computed':>22}  {'verdict':<15} note"]
    for r in results:
        note = r.note if len(r.note) < 160 else r.note[:157] + "..."
        lines.append(f"{r.claim.id:<34} {r.claim.claimed:>9} {r.computed[:22]:>22}  {r.verdict:<15} {note}")
    t = tally(results)
    lines.append(f"{len(results)} claims: " + ", ".join(f"{n} {v}" for v, n in t.items()))
    lines.append(f"not judged ({len(OUT_OF_SCOPE)}: about other texts, or qualitative):")
    lines += [f"  §{s} {what}" for s, what in OUT_OF_SCOPE]
    return "\n".join(lines)


def readme_section(results: Sequence[AuditResult] | None = None) -> str:
    """The section "What the chapter gets right and wrong" of reference/audit/README.md, rendered from a fresh audit."""
    results = list(results) if results is not None else run_audit()
    t = tally(results)
    fails = [r for r in results if r.verdict == "fails"]
    notes = [r for r in results if r.verdict == "holds-with-note"]
    out = ["## What the chapter gets right and wrong", "",
           (f"`sinpe claims` audits {len(results)} checkable claims of the seed chapter (§4.1, sinusoidal position "
           f"encoding): every cell of tables 4-1 and 4-2, the worked M_1 check, the angles, wavelengths, cycle and "
           f"pair counts, the statements about the dot product, and the remarks on implementations. Each verdict "
           f"is computed from the formula when the command runs (mpmath at {DPS} digits, exact SymPy identities, "
           f"or the formula of the named implementation); see SPEC.md section 7."), "",
           f"- **{t['holds']} hold**, **{t['holds-with-note']} hold with a note**, **{t['fails']} fail**.", ""]
    if fails:
        out += ["Wrong:", ""]
        for r in fails:
            c = r.claim
            why = r.detail if c.compare == "true" else r.reason
            shown = "the chapter's statement is false" if c.compare == "true" else f"printed {c.claimed}, computed {r.computed}"
            out.append(f"- §{c.section}, {c.where} (`{c.id}`): {c.statement}: {shown}; {why}.")
        out.append("")
    if notes:
        out += ["Right, with a qualification:", ""]
        for r in notes:
            c = r.claim
            out.append(f"- §{c.section}, {c.where} (`{c.id}`): {c.statement}: {r.reason}.")
        out.append("")
    def group(pred: Callable[[Claim], bool]) -> tuple[int, int, list[str]]:
        rs = [r for r in results if pred(r.claim)]
        return len(rs), sum(1 for r in rs if r.verdict != "fails"), [r.claim.claimed for r in rs if r.verdict != "fails"]

    n1, ok1, _ = group(lambda c: c.id.startswith("CLAIM-4.1.1-T1-R"))
    n2, ok2, _ = group(lambda c: c.quantity == "dot_sum")
    _, _, waves = group(lambda c: c.quantity in ("wavelength", "wavelength_column"))
    _, _, angles = group(lambda c: c.quantity == "angle_deg")
    _, _, counts = group(lambda c: c.quantity in ("count_short", "count_long", "share_short", "cycles"))
    _, _, thms = group(lambda c: c.thm is not None and c.compare == "true")
    out.append(f"Right: {ok1} of {n1} cells of table 4-1 and {ok2} of {n2} of table 4-2; the wavelengths "
               f"{', '.join(dict.fromkeys(waves))}; the angles {', '.join(dict.fromkeys(angles))} degrees; the counts "
               f"{', '.join(dict.fromkeys(counts))}; and {len(thms)} statements that are theorems of the spec "
               f"(SPEC.md section 5).")
    return "\n".join(out) + "\n"
