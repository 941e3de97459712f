"""The audit of the seed chapter (SPEC.md REQ-CLAIMS-CATALOGUE, REQ-CLAIMS-VERDICT).

Every verdict is recomputed in the test run: the audit itself computes from the formula, and the
numeric verdicts are re-derived here by an independent path (python-flint Arb balls with the textbook
formula written out, and rounding decided on the ball), so a wrong audit cannot pass by agreeing with
itself. Negative tests change a printed value, the formula, or a layout and see the verdict flip.
Reproduce any failure with ``sinpe claims --id CLAIM-...`` (or ``--json``).
"""
from __future__ import annotations

import dataclasses
import re
from decimal import Decimal
from fractions import Fraction

import mpmath
import pytest
from flint import arb, ctx

from sinpe.reference.audit import claims as audit
from sinpe.reference.audit.claims import VERDICTS, audit_claim, run_audit, tally
from sinpe.spec import theorems
from sinpe.spec.claims import CLAIMS, OUT_OF_SCOPE, get_claim
from sinpe.spec.profiles import get_profile

ID_RE = re.compile(r"^CLAIM-4\.1\.[1-7]-[A-Z0-9.-]+$")


@pytest.fixture(scope="module")
def results() -> dict[str, audit.AuditResult]:
    return {r.claim.id: r for r in run_audit()}


def _repro(cid: str) -> str:
    return f"reproduce: sinpe claims --id {cid} --json"


# ---------------------------------------------------------------- catalogue (REQ-CLAIMS-CATALOGUE)
def test_catalogue_is_well_formed() -> None:
    ids = [c.id for c in CLAIMS]
    assert len(ids) == len(set(ids)), "duplicate claim IDs"
    for c in CLAIMS:
        assert ID_RE.match(c.id), f"{c.id}: bad ID"
        assert c.section == c.id.split("-")[1], f"{c.id}: section {c.section} does not match the ID"
        assert c.quantity in audit.QUANTITIES, f"{c.id}: unknown quantity {c.quantity}"
        assert c.statement and c.where and c.claimed and c.method
        assert c.thm is None or c.thm in theorems.STATEMENTS, f"{c.id}: {c.thm} is not a THM of spec/theorems.py"
        assert not re.search(r"[\u4e00-\u9fff]", c.statement + c.where + (c.caveat or "")), f"{c.id}: copies the chapter's prose"
    assert OUT_OF_SCOPE


def test_catalogue_is_exhaustive_on_the_tables() -> None:
    """Every cell of table 4-1 (4 x 4) and table 4-2 (7 distances) has an entry."""
    t1 = {c.id for c in CLAIMS if re.match(r"CLAIM-4\.1\.1-T1-R\dC\d$", c.id)}
    assert t1 == {f"CLAIM-4.1.1-T1-R{p}C{j}" for p in range(4) for j in range(4)}
    t2 = {c.args["k"] for c in CLAIMS if c.id.startswith("CLAIM-4.1.4-T2-K") and c.quantity == "dot_sum"}
    assert t2 == {0, 1, 2, 10, 100, 1000, 2000}


def test_every_claim_is_audited(results: dict[str, audit.AuditResult]) -> None:
    assert set(results) == {c.id for c in CLAIMS}
    for cid, r in results.items():
        assert r.verdict in VERDICTS, _repro(cid)
        assert r.computed, _repro(cid)
        if r.verdict != "holds":
            assert r.note, f"{cid}: a {r.verdict} verdict needs a note; {_repro(cid)}"
    t = tally(list(results.values()))
    assert sum(t.values()) == len(CLAIMS)


# ---------------------------------------------------------------- independent oracle (python-flint Arb)
PREC = 256


def _arb_pi() -> arb:
    return arb.pi()


def _arb_omega(d: int, i: int) -> arb:
    # textbook formula, written out independently of spec/definition.py: omega_i = 10000^(-2i/d)
    return arb(10000) ** (arb(-2 * i) / d)


def _arb_quantity(c) -> arb:
    a = c.args
    if c.quantity in ("pe",):
        i, fn = a["j"] // 2, ("sin" if a["j"] % 2 == 0 else "cos")
        th = _arb_omega(a["d"], i) * a["p"]
        return th.sin() if fn == "sin" else th.cos()
    if c.quantity == "rot_entry":
        th = _arb_omega(a["d"], a["k"]) * a["shift"]
        return th.sin() if a["fn"] == "sin" else th.cos()
    if c.quantity == "dot_sum":
        return sum((_arb_omega(a["d"], i) * a["k"]).cos() for i in range(a["d"] // 2))
    if c.quantity == "wavelength":
        return 2 * _arb_pi() / _arb_omega(a["d"], a["k"])
    if c.quantity == "wavelength_column":
        return 2 * _arb_pi() / _arb_omega(a["d"], a["j"] // 2)
    if c.quantity == "angle_deg":
        return _arb_omega(a["d"], a["k"]) * a["p"] * 180 / _arb_pi()
    if c.quantity == "cycles":
        return _arb_omega(a["d"], a["j"] // 2) * a["n"] / (2 * _arb_pi())
    if c.quantity == "paper_top":
        return 2 * _arb_pi() * 10000
    raise KeyError(c.quantity)


def _arb_round(x: arb, places: int) -> Decimal:
    """Round an Arb ball to nearest at ``places`` decimals; the ball must decide the rounding."""
    y = x * arb(10) ** places
    n = y.floor().unique_fmpz()
    assert n is not None, f"ball {x} straddles an integer at {places} decimals"
    frac = y - int(n)
    half = arb(1) / 2
    assert frac > half or frac < half, f"ball {x} touches a rounding boundary"
    return Decimal(int(n) + (1 if frac > half else 0)).scaleb(-places)


NUMERIC = [c for c in CLAIMS if c.quantity in ("pe", "rot_entry", "dot_sum", "wavelength", "wavelength_column",
                                               "angle_deg", "paper_top") and c.compare == "round"]


@pytest.mark.parametrize("cid", [c.id for c in NUMERIC])
def test_numeric_verdict_matches_arb(cid: str, results: dict[str, audit.AuditResult]) -> None:
    """REQ-CLAIMS-VERDICT: the exact value rounds to the printed digits <=> holds (Arb, 256 bits)."""
    c = get_claim(cid)
    old = ctx.prec
    ctx.prec = PREC
    try:
        x = _arb_quantity(c)
        target = c.claimed.replace(",", "")
        places = len(target.split(".")[1]) if "." in target else 0
        expected = "holds" if _arb_round(x, places) == Decimal(target) else "fails"
        # and the audit's computed value agrees with the ball to 30 digits (mpmath vs Arb)
        got = audit_claim(c)
        assert got.verdict == expected, f"{cid}: audit says {got.verdict}, Arb says {expected} ({x}); {_repro(cid)}"
        assert results[cid].verdict == expected, _repro(cid)
        with mpmath.workdps(40):
            m = audit.QUANTITIES[c.quantity](**dict(c.args)).readings[0][1]
            assert abs(mpmath.mpf(m) - mpmath.mpf(x.mid().str(45, radius=False))) < mpmath.mpf(10) ** -30, _repro(cid)
    finally:
        ctx.prec = old


def test_cycles_and_counts_match_arb() -> None:
    """Counts of pairs with wavelength <= 512 and the cycle counts, recomputed with Arb."""
    old = ctx.prec
    ctx.prec = PREC
    try:
        for d, want in ((512, 123), (1024, 245)):
            n = sum(1 for i in range(d // 2) if (2 * _arb_pi() / _arb_omega(d, i) - 512).upper() < 0)
            assert n == want
            res = audit.QUANTITIES["count_short"](d=d, L=512)
            assert res.readings[0][1] == n, "reproduce: sinpe claims --id CLAIM-4.1.6-COUNT-512"
        c = get_claim("CLAIM-4.1.3-CYCLES-COL0")
        x = _arb_quantity(c)
        assert _arb_round(x, 0) == 16 and x.upper() < 16
    finally:
        ctx.prec = old


def test_dot_sum_is_the_dot_product() -> None:
    """THM-DOT by a second formula path: PE(p).PE(p+k) from mpref rows equals sum_i cos(w_i k)."""
    from sinpe.reference.oracles.mp import pe_row
    P = get_profile("vaswani")
    with mpmath.workdps(50):
        for k in (1, 100, 2000):
            dot = mpmath.fsum(a * b for a, b in zip(pe_row(P, 512, 37), pe_row(P, 512, 37 + k), strict=True))
            s = audit.QUANTITIES["dot_sum"](d=512, k=k).readings[0][1]
            assert abs(dot - s) < mpmath.mpf(10) ** -40


# ---------------------------------------------------------------- the findings, recomputed
def test_table_4_2_k2000_fails_and_says_why() -> None:
    r = audit_claim(get_claim("CLAIM-4.1.4-T2-K2000"))
    assert r.verdict == "fails" and "22.52" in r.note and "rounding twice" in r.note, r.note


def test_t2t_is_not_a_permutation_of_the_paper() -> None:
    """tensor2tensor's log(b)/(n-1) schedule: only omega_0 is shared (THM-NONPERM)."""
    r = audit_claim(get_claim("CLAIM-4.1.7-T2T-PERMUTATION"))
    assert r.verdict == "fails"
    assert "shares only 1 of 2, 1 of 32, 1 of 256, 1 of 512 frequencies" in r.note, r.note
    # the same check on the concatenated layout of the paper's schedule holds
    assert audit_claim(get_claim("CLAIM-4.1.7-CONCAT-PERMUTATION")).verdict == "holds"


def test_worked_example_exact_decimals() -> None:
    """The M_1 check from the printed 4-decimal inputs, by hand in exact decimals."""
    q = audit.QUANTITIES["worked_cell"]
    assert q(cell=0).readings[0][1] == Decimal("0.5403") * Decimal("0.8415") * 2
    assert q(cell=1).readings[0][1] == Decimal("0.5403") ** 2 - Decimal("0.8415") ** 2 == Decimal("-0.41619816")
    assert q(cell=3).readings[0][1] == Decimal("0.99985")          # an exact tie at 4 decimals
    assert q(cell=3).readings[1][1] == Decimal("0.9999")           # with cos 0.01 printed as 1.0000
    r = audit_claim(get_claim("CLAIM-4.1.4-W-CELL3"))
    assert r.verdict == "holds-with-note" and "half away" in r.note, r.note
    assert audit_claim(get_claim("CLAIM-4.1.4-W-CELL1")).verdict == "holds"          # -0.4162 from 4-decimal inputs
    assert audit_claim(get_claim("CLAIM-4.1.4-W-CELL1-EXACT")).verdict == "holds"    # cos 2 = -0.4161
    assert audit_claim(get_claim("CLAIM-4.1.4-W-MATCH")).verdict == "holds-with-note"
    # printed 0.9999 instead: still a tie-dependent reading, now the other rule and 4-decimal inputs match
    other = audit_claim(get_claim("CLAIM-4.1.4-W-CELL3").with_claimed("0.9999"))
    assert other.verdict == "holds-with-note"
    assert other.note.startswith("holds for: from the printed inputs / round half away from zero; with cos 0.01"), other.note


def test_tie_rounding_is_exact() -> None:
    assert audit._round_places(Fraction(99985, 100000), 4) == (Decimal("0.9998"), Decimal("0.9999"))
    assert audit._round_places(Fraction(-41619816, 10**8), 4) == (Decimal("-0.4162"), Decimal("-0.4162"))


# ---------------------------------------------------------------- verdicts flip (negative tests)
FLIPS = [
    ("CLAIM-4.1.1-T1-R2C0", "0.9092", "fails"),        # a table-4-1 cell
    ("CLAIM-4.1.1-T1-R1C3", "0.9999", "fails"),        # 0.99995000042 rounds up to 1.0000
    ("CLAIM-4.1.4-T2-K2000", "22.52", "holds"),        # the failing cell with the correct digits
    ("CLAIM-4.1.4-T2-K1", "249.11", "fails"),
    ("CLAIM-4.1.2-LAMBDA-MIN-512", "60,612", "fails"),  # a wavelength
    ("CLAIM-4.1.6-ANGLE-512", "3.05", "fails"),        # an angle
    ("CLAIM-4.1.6-COUNT-512", "122", "fails"),         # an exact count
    ("CLAIM-4.1.6-COUNT-512", "124", "fails"),
    ("CLAIM-4.1.6-PCT-1024", "47%", "fails"),          # a percentage
    ("CLAIM-4.1.3-CYCLES-COL0", "15", "fails"),        # 'nearly 16'
    ("CLAIM-4.1.2-SPAN", "3", "fails"),
    ("CLAIM-4.1.1-OMEGA1", "0.1", "fails"),            # an exact rational
    ("CLAIM-4.1.4-W-CELL3", "0.9997", "fails"),
    ("CLAIM-4.1.4-W-CELL1", "-0.4161", "fails"),       # 4-decimal inputs do not give cos 2's digit
]


@pytest.mark.parametrize("cid,claimed,verdict", FLIPS)
def test_changed_value_flips_verdict(cid: str, claimed: str, verdict: str, results: dict[str, audit.AuditResult]) -> None:
    original = results[cid].verdict
    got = audit_claim(get_claim(cid).with_claimed(claimed)).verdict
    assert got == verdict, f"{cid} with printed value {claimed}: {got}, expected {verdict}; {_repro(cid)}"
    assert got != original, f"{cid}: changing the value did not change the verdict; {_repro(cid)}"


ARG_FLIPS = [
    ("CLAIM-4.1.7-T2T-PERMUTATION", {"profile": "vaswani-concat", "ds": (4, 512)}, "holds"),
    ("CLAIM-4.1.7-CONCAT-PERMUTATION", {"profile": "t2t", "ds": (4, 512)}, "fails"),
    ("CLAIM-4.1.7-CONCAT-PERMUTATION", {"profile": "vaswani-concat-cos", "ds": (4, 512)}, "holds"),
    ("CLAIM-4.1.7-DIFFUSION", {"impls": (("t2t", "t2t"),)}, "holds-with-note"),
    ("CLAIM-4.1.7-TRANSFORMER-XL", {"impls": (("a t2t schedule", "t2t"), ("also t2t", "t2t-cos"))}, "fails"),
    ("CLAIM-4.1.4-T2-NONMONOTONE", {"d": 512, "kmax": 40}, "fails"),     # the first rise is at k = 43
]


@pytest.mark.parametrize("cid,args,verdict", ARG_FLIPS)
def test_changed_check_flips_verdict(cid: str, args: dict, verdict: str) -> None:
    c = dataclasses.replace(get_claim(cid), args=args)
    assert audit_claim(c).verdict == verdict, f"{cid} with {args}; {_repro(cid)}"


# a mutated formula (the paper's profile replaced) must break the claims that depend on it
MUTANTS = [
    ("CLAIM-4.1.1-T1-R1C2", {"base": 1000}),            # sin(1/sqrt(1000)) != 0.0100
    ("CLAIM-4.1.4-T2-K100", {"base": 1000}),
    ("CLAIM-4.1.1-LAYOUT", {"layout": "sin-cos"}),
    ("CLAIM-4.1.3-PAIR-SHARE", {"layout": "cos-sin"}),
    ("CLAIM-4.1.3-CODE", {"layout": "sin-cos"}),
    ("CLAIM-4.1.2-GEOMETRIC-OMEGA", {"shift": 1}),
    ("CLAIM-4.1.2-LAMBDA-MIN-FORMULA", {"shift": 1}),
    ("CLAIM-4.1.2-CIRCLE", {"amplitude": 2}),
    ("CLAIM-4.1.2-BOUNDED", {"amplitude": 2}),
    ("CLAIM-4.1.1-PE0", {"offset": 1}),
    ("CLAIM-4.1.4-DOT", {"amplitude": 2}),
    ("CLAIM-4.1.6-COUNT-512", {"base": 100000}),
    ("CLAIM-4.1.4-BLOCKDIAG", {"layout": "sin-cos"}),
]


@pytest.mark.parametrize("cid,change", MUTANTS)
def test_mutated_formula_breaks_claim(cid: str, change: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    assert audit_claim(get_claim(cid)).verdict in ("holds", "holds-with-note")
    mutant = get_profile("vaswani", **change)
    monkeypatch.setattr(audit, "_paper", lambda: mutant)
    assert audit_claim(get_claim(cid)).verdict == "fails", f"{cid} still holds under {change}; {_repro(cid)}"


def test_wrong_shift_matrix_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    """THM-SHIFT check: a transposed M_k (a shift by -k) must not pass."""
    real = audit._shift_matrix
    monkeypatch.setattr(audit, "_shift_matrix", lambda P, d, k: real(P, d, k).T)
    for cid in ("CLAIM-4.1.4-SHIFT", "CLAIM-4.1.4-BLOCKDIAG", "CLAIM-4.1.2-STEP-ANGLE"):
        assert audit_claim(get_claim(cid)).verdict == "fails", _repro(cid)


def test_undecidable_rounding_is_refused() -> None:
    with mpmath.workdps(60):
        with pytest.raises(audit.AuditError):
            audit._round_mp(mpmath.mpf("0.99985"), 4)  # exactly on the boundary: refused, never guessed


def test_caveat_makes_holds_with_note() -> None:
    c = get_claim("CLAIM-4.1.4-T2-K1")
    assert audit_claim(c).verdict == "holds"
    assert audit_claim(dataclasses.replace(c, caveat="a reading")).verdict == "holds-with-note"


# ---------------------------------------------------------------- SPEC.md and README agree with the audit
def test_spec_lists_the_failing_claims(results: dict[str, audit.AuditResult]) -> None:
    from pathlib import Path

    import sinpe.spec
    text = (Path(sinpe.spec.__file__).parent / "SPEC.md").read_text()
    sect = text.split("<!-- BEGIN CLAIMS -->")[1].split("<!-- END CLAIMS -->")[0]
    listed = set(re.findall(r"`(CLAIM-[A-Z0-9.-]+)`: fails", sect))
    computed = {cid for cid, r in results.items() if r.verdict == "fails"}
    assert listed == computed, f"SPEC.md section 7 lists {sorted(listed)}, the audit finds {sorted(computed)}"
    noted = sect.split("Holding with a note:")[1]
    listed_notes = set(re.findall(r"`(CLAIM-[A-Z0-9.-]+)`", noted)) - computed
    with_note = {cid for cid, r in results.items() if r.verdict == "holds-with-note"}
    assert listed_notes == with_note, f"SPEC.md lists {sorted(listed_notes)} as holds-with-note, the audit {sorted(with_note)}"


def test_readme_section(results: dict[str, audit.AuditResult]) -> None:
    text = audit.readme_section(list(results.values()))
    assert text.startswith("## What the chapter gets right and wrong")
    for cid, r in results.items():
        if r.verdict != "holds":
            assert cid in text
    t = tally(list(results.values()))
    assert f"**{t['fails']} fail**" in text


def test_missing_torch_is_reported_not_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch -> ImportError
    r = audit_claim(get_claim("CLAIM-4.1.7-BUFFER"))
    assert r.verdict == "not-checked" and "pip install 'sinpe[torch]'" in r.note
    assert tally([r])["not-checked"] == 1


def test_readme_carries_the_generated_section(results: dict[str, audit.AuditResult]) -> None:
    # README.md's section is pasted from readme_section(); it must not drift from the audit
    from pathlib import Path
    readme = (Path(__file__).resolve().parents[1] / "reference" / "audit" / "README.md").read_text()
    text = audit.readme_section(list(results.values())).strip()
    assert text in readme, ("reference/audit/README.md is stale: paste `sinpe claims --readme` into its "
                            "'What the chapter gets right and wrong' section")


def test_identity_verdicts_use_the_decision_procedure() -> None:
    """REQ-CLAIMS-VERDICT: identity checks go through the Laurent normal form (proofs/canonical.py),
    not ``simplify``: a true identity is shown zero, a sign-flipped one is not, floats are refused."""
    import inspect

    import sympy as sp
    p, k = sp.symbols("p k", real=True)
    assert audit._is_zero(sp.cos(p + k) - (sp.cos(p) * sp.cos(k) - sp.sin(p) * sp.sin(k)))
    assert not audit._is_zero(sp.cos(p + k) - (sp.cos(p) * sp.cos(k) + sp.sin(p) * sp.sin(k)))
    assert not audit._is_zero(sp.Float(1e20) + 1 - sp.Float(1e20) + sp.sin(p) - sp.sin(p) + sp.Float(0.5))
    assert audit._is_zero(sp.cos(p - sp.pi / 2) - sp.sin(p))  # a quarter turn of pi is decided exactly
    assert "simplify(" not in inspect.getsource(audit)
