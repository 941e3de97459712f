"""The claim prover (REQ-PROVE-CLAIM), the every-d engine rules and the soundness regressions of issue 11.

Reproduce any case: sinpe prove --claim "<claim>" --assume "<assumptions>" --json
"""
from __future__ import annotations

import json

import pytest
import sympy as sp

from sinpe.proofs import groebner, normal, prove, prove_claim
from sinpe.proofs.canonical import NotCanonical, coefficients
from sinpe.proofs.claims import ClaimError, parse_claim
from sinpe.reference.cli import main

# (claim, assumptions, truth). Truth is decided by hand (a textbook identity or a named counterexample).
CORPUS = [
    # --- true trig identities, shifted / scaled frequencies, complex arguments
    ("sin(x + y) == sin(x)*cos(y) + cos(x)*sin(y)", None, True),
    ("cos(x + y) == cos(x)*cos(y) - sin(x)*sin(y)", None, True),
    ("sin(2*x) == 2*sin(x)*cos(x)", None, True),
    ("cos(2*x) == 1 - 2*sin(x)**2", None, True),
    ("sin(3*x) == 3*sin(x) - 4*sin(x)**3", None, True),
    ("cos(x)**2 + sin(x)**2 == 1", None, True),
    ("sin(x/2)*cos(x/2) == sin(x)/2", None, True),
    ("sin(w*(p + k)) == sin(w*p)*cos(w*k) + cos(w*p)*sin(w*k)", "p k: real; w: positive", True),
    ("cos(x - pi/2) == sin(x)", None, True),
    ("sin(x + pi) == -sin(x)", None, True),
    ("cos(x + 2*pi) == cos(x)", None, True),
    ("exp(I*x) == cos(x) + I*sin(x)", None, True),
    ("exp(I*w*(p + k)) == exp(I*w*k)*exp(I*w*p)", None, True),
    ("tan(x) == sin(x)/cos(x)", None, True),
    ("sin(x)**4 - cos(x)**4 == sin(x)**2 - cos(x)**2", None, True),
    ("cos(a)*cos(b) == (cos(a - b) + cos(a + b))/2", None, True),
    ("sin(a)*sin(b) == (cos(a - b) - cos(a + b))/2", None, True),
    ("sin(Rational(1, 3)*x)*cos(Rational(1, 3)*x) == sin(Rational(2, 3)*x)/2", None, True),
    ("sin(sqrt(2)*x)**2 + cos(sqrt(2)*x)**2 == 1", None, True),
    ("exp(I*pi/3)**6 == 1", None, True),
    # --- powers with symbolic exponents, exp/log (true)
    ("exp(2*k*(-log(10000)/d)) == 10000**(-2*k/d)", "k: integer; d: positive", True),
    ("10000**(-2*k/d) == 100**(-4*k/d)", "k: integer; d: positive", True),
    ("exp(a)*exp(b) == exp(a + b)", None, True),
    ("2**x * 3**x == 6**x", "x: real", True),
    ("b**(x + y) == b**x * b**y", "b: positive; x y: real", True),
    ("exp(x*log(10)) == 10**x", None, True),
    ("sqrt(2)**2 == 2", None, True),
    ("log(exp(x)) == x", "x: real", True),
    ("E**(2*x) == exp(x)**2", None, True),
    ("exp(log(x)) == x", "x: positive", True),
    # --- sums over symbolic ranges (true)
    ("Sum(sin(w*j)**2 + cos(w*j)**2, (j, 0, n - 1)) == n", "n: positive integer", True),
    ("Sum(2*cos(w*j*k), (j, 0, n - 1)) == 2*Sum(cos(w*j*k), (j, 0, n - 1))", "n: integer", True),
    ("Sum(cos(w*j*(-k)), (j, 0, n - 1)) == Sum(cos(w*j*k), (i, 0, n - 1)).subs(i, j)", "n: integer", None),  # attribute access: usage error
    ("Sum(sin(p*b**(-j/n))*sin((p + k)*b**(-j/n)) + cos(p*b**(-j/n))*cos((p + k)*b**(-j/n)), (j, 0, n - 1)) == Sum(cos(k*b**(-j/n)), (j, 0, n - 1))",
     "n: positive integer; b: positive", True),
    ("Sum(sin(w*j*k), (j, 0, n - 1)) + Sum(sin(-w*j*k), (j, 0, n - 1)) == 0", "n: integer", True),
    ("Sum(x**j, (j, 0, n - 1)) + Sum(1, (j, 0, n - 1)) == Sum(x**j + 1, (j, 0, n - 1))", "n: integer", True),
    ("Sum(exp(I*j*x), (j, 0, n - 1))*(exp(I*x) - 1) == exp(I*n*x) - 1", "n: positive integer", True),  # geometric: RULE-ANTIDIFFERENCE
    # --- bounds (true)
    ("Abs(sin(p)) <= 1", "p: real", True),
    ("Abs(3*cos(2*p + 1)) <= 3", "p: real", True),
    ("sin(p)**2 <= 1", "p: real", True),
    ("sin(p)*cos(p) <= Rational(1, 2)", "p: real", True),
    ("0 <= (x - y)**2", "x y: real", True),
    ("Abs(a*sin(p)) <= Abs(a)", "a p: real", True),
    # --- false: sign slips, shifted / scaled frequencies
    ("sin(x + y) == sin(x)*cos(y) - cos(x)*sin(y)", None, False),
    ("cos(x + y) == cos(x)*cos(y) + sin(x)*sin(y)", None, False),
    ("sin(2*x) == 2*sin(x)", None, False),
    ("cos(2*x) == 1 - sin(x)**2", None, False),
    ("sin(3*x) == 3*sin(x) - 3*sin(x)**3", None, False),
    ("sin(w*(p + k)) == sin(w*p)*cos(w*(k + 1)) + cos(w*p)*sin(w*(k + 1))", "p k: real; w: positive", False),
    ("sin(x + pi/3) == sin(x) + sin(pi/3)", None, False),
    ("cos(x - pi/2) == cos(x)", None, False),
    ("sin(x/2) == sin(x)/2", "x: real", False),
    ("exp(I*x) == cos(x) - I*sin(x)", "x: real", False),
    ("tan(2*x) == 2*tan(x)", "x: real", False),
    # --- false: powers with symbolic exponents, exp/log branch traps
    ("exp(2*k*(-log(10000)/d)) == 10000**(-k/d)", "k: integer; d: positive", False),
    ("log(exp(z)) == z", None, False),
    ("log(z**2) == 2*log(z)", None, False),
    ("sqrt(z**2) == z", None, False),
    ("(x*y)**Rational(1, 2) == sqrt(x)*sqrt(y)", None, False),
    ("log(x*y) == log(x) + log(y)", None, False),
    ("(z**2)**Rational(1, 2) == Abs(z)", None, False),
    ("2**x * 3**x == 5**x", "x: real", False),
    # --- false: sums over symbolic ranges
    ("Sum(sin(w*j)**2 + cos(w*j)**2, (j, 0, n - 1)) == n - 1", "n: positive integer", False),
    ("Sum(cos(w*j*k), (j, 0, n - 1)) == Sum(cos(w*j*k), (j, 1, n))", "n: positive integer", False),
    ("Sum(j, (j, 0, n - 1)) == n**2/2", "n: positive integer", False),
    # --- false: bounds over complex arguments, tightened bounds
    ("Abs(sin(z)) <= 1", None, False),
    ("Abs(cos(z)) <= 1", None, False),
    ("Abs(sin(p)) <= Rational(99, 100)", "p: real", False),
    ("sin(p)*cos(p) <= Rational(1, 3)", "p: real", False),
    ("Abs(2*sin(p)) <= 1", "p: real", False),
    ("sin(z) <= 1", None, False),
]
CASES = [c for c in CORPUS if c[2] is not None]


def test_corpus_is_big_and_a_third_false():
    assert len(CASES) >= 60 and sum(1 for c in CASES if c[2] is False) * 3 >= len(CASES)


@pytest.fixture(scope="module")
def answers():
    return {(c, a): prove_claim(c, a) for c, a, _ in CASES}


@pytest.mark.parametrize("claim,assume,truth", CASES, ids=[c[0][:60] for c in CASES])
def test_no_false_claim_is_proven_and_no_true_one_refuted(claim, assume, truth, answers):  # REQ-PROVE-CLAIM
    r = answers[(claim, assume)]
    if truth:
        assert r.status in ("proven", "unknown"), (claim, r.to_json())
    else:
        assert r.status in ("refuted", "unknown"), (claim, r.to_json())
        assert r.status != "proven"
    if r.status == "refuted":
        assert r.counterexample and "excludes 0" in r.counterexample["certified"] or "lhs >" in r.counterexample["certified"] \
            or "not real" in r.counterexample["certified"], r.to_json()


def test_corpus_counts(answers):
    """Most true claims are proven and most false ones refuted (the counts are in the report of issue 11)."""
    tally = {}
    for c, a, truth in CASES:
        key = (truth, answers[(c, a)].status)
        tally[key] = tally.get(key, 0) + 1
    assert tally.get((True, "proven"), 0) >= 35, tally
    assert tally.get((False, "refuted"), 0) >= 20, tally
    print("corpus tally (truth, status) -> count:", tally)


# ------------------------------------------------------------------ input handling

@pytest.mark.parametrize("bad", ["__import__('os').system('true') == 0", "x.real == x", "lambda: 1 == 1", "x == [1]",
                                 "sin(x, y) == 1", "foo(x) == 1", "x ** 10**9 == 1", "x < 1", "x", "1 == 1 == 1",
                                 "(" * 300 + "x" + ")" * 300 + " == x", "x" * 3000 + " == 1", "Sum(x, (j, 0, n)) == 1",
                                 "x == 1e", "sin(x) == 1j"])
def test_bad_claims_are_usage_errors(bad):
    with pytest.raises(ClaimError):
        parse_claim(bad)


def test_bad_assumptions_are_usage_errors():
    for bad in ("x: purple", "x real", "x: positive negative", "sin: real"):
        with pytest.raises(ClaimError):
            parse_claim("x == x", bad)


def test_unassumed_symbols_are_complex():
    lhs, _, _ = parse_claim("z == 0")
    assert lhs.is_complex and lhs.is_real is None


def test_cli_claim_exit_codes_and_json(capsys):  # REQ-PROVE-CLAIM
    assert main(["prove", "--claim", "exp(2*k*(-log(10000)/d)) == 10000**(-2*k/d)", "--assume", "k: integer; d: positive", "--json"]) == 0
    j = json.loads(capsys.readouterr().out)
    assert j["status"] == "proven" and j["certificate"]["rules"], j
    assert main(["prove", "--claim", "sin(2*x) == 2*sin(x)", "--json"]) == 1
    j = json.loads(capsys.readouterr().out)
    assert j["status"] == "refuted" and j["counterexample"]["point"], j
    assert main(["prove", "--claim", "Sum(exp(I*j*x), (j, 0, n - 1))*(exp(I*x) - 1) == exp(I*n*x) - 1",
                 "--assume", "n: positive integer"]) == 0  # RULE-ANTIDIFFERENCE (was unknown)
    assert "RULE-ANTIDIFFERENCE" in capsys.readouterr().out
    assert main(["prove", "--claim", "Sum(cos(w*j**2), (j, 0, n - 1)) <= n", "--assume", "w: real; n: positive integer"]) == 3
    assert "unknown" in capsys.readouterr().out
    assert main(["prove", "--claim", "__import__('os') == 1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and err.startswith("sinpe prove: error:")
    assert main(["prove", "--assume", "x: real"]) == 2


def test_python_api_matches_cli():
    r = prove(claim="cos(x)**2 == 1 - sin(x)**2")
    assert r.status == "proven" and r.exit_code == 0 and r.to_json()["method"]
    with pytest.raises(ValueError):
        prove(only=["THM-DOT"], claim="x == x")


# ------------------------------------------------------------------ soundness regressions (issue 11)

def test_sos_bound_refuses_imaginary_symbols():  # was "proven": I*a with a = 5i is 5 > 0
    a = sp.Symbol("a", imaginary=True)
    c = groebner.sos_bound(sp.I * a, 0)
    assert not c.proven and "not known to be real" in c.reason
    assert not groebner.is_manifest_sos(a**2) and groebner.is_manifest_sos(sp.Symbol("r", real=True) ** 2)
    assert groebner.sos_bound(sp.Symbol("r", real=True) * 0 + sp.sin(sp.Symbol("p", real=True)), 1).proven


def test_a_statement_defined_nowhere_is_not_proven():  # REQ-PROVE-CLAIM (issue 25: was "proven", 0/0 = 0 and = 5)
    """lhs - rhs whose denominator is 0 at every point proves nothing: (E) reduced the numerator to 0 modulo the
    root-of-unity relation and never looked at the denominator, so a 0/0 was 'equal' to 0 and to 5 at once.
    w = exp(i pi/3): w^2 - w + 1 = 0 (the 6th cyclotomic polynomial), the numerator is the same polynomial."""
    w = sp.exp(sp.pi * sp.I / 3)
    nowhere = ((w + 1) * (w - 2) + 3) / ((w - 1) * w + 1)
    for rhs in (0, 5):
        v = normal.decide(nowhere, rhs)
        assert not v.proven and "vanishes identically" in v.reason, (rhs, v)
    r = prove_claim("((exp(I*pi/3)+1)*(exp(I*pi/3)-2)+3)/((exp(I*pi/3)-1)*exp(I*pi/3)+1) == 5")
    assert r.status != "proven" and r.exit_code != 0, r.to_json()
    # a denominator nonzero modulo the relations that is still 0 at every point: exp(i pi/4) beside sqrt(2) (the
    # relations define no integral domain); 2 cos(pi/4) - sqrt(2) = 0, substituted after the rewrite
    x = sp.Symbol("x")
    v = normal.decide((4 * sp.cos(x) ** 2 - 2) / (2 * sp.cos(x) - sp.sqrt(2)), 0, at=((x, sp.pi / 4),))
    assert not v.proven and "not shown nonzero" in v.reason, v
    # a denominator that is a nonzero function is no obstacle: the check is not "refuse every quotient"
    assert normal.decide(1 / (1 + x) + 1, (2 + x) / (1 + x)).proven
    assert normal.decide(sp.sin(2 * x) / (sp.cos(x) + 3), 2 * sp.sin(x) * sp.cos(x) / (sp.cos(x) + 3)).proven


def test_coefficients_refuse_equal_frequencies_written_differently():
    P, K = sp.symbols("P K", real=True)
    a0, a1 = sp.symbols("a0 a1")
    w = 1 + sp.sqrt(2)
    e = sp.sin(sp.sqrt(3 + 2 * sp.sqrt(2)) * (P + K)) - a0 * sp.sin(w * P) - a1 * sp.cos(w * P)
    with pytest.raises(NotCanonical, match="AX-CHARACTERS"):
        coefficients(e, (P,))
    # written alike, the same system is solvable: (cos wK, sin wK)
    e2 = sp.sin(w * (P + K)) - a0 * sp.sin(w * P) - a1 * sp.cos(w * P)
    (sol,) = sp.linsolve(coefficients(e2, (P,)), [a0, a1])
    assert normal.decide(sol[0], sp.cos(w * K)).proven and normal.decide(sol[1], sp.sin(w * K)).proven


def test_witness_covers_every_obligation_and_respects_domains():
    from sinpe.proofs.witness import witness
    from sinpe.spec.theorems import Obligation
    x = sp.Symbol("x")
    true = [Obligation(f"t{i}", sp.sin(2 * x), 2 * sp.sin(x) * sp.cos(x)) for i in range(60)]
    ok, text = witness(true + [Obligation("late", sp.sin(x) ** 2, 1 - sp.cos(x) ** 2 + 1)])
    assert not ok and "late" in text and "61 obligations" in text  # the 61st obligation is evaluated
    a = sp.Symbol("a", imaginary=True)  # a**2 = -|a|**2 for imaginary a: sampled on the real line it would pass
    assert not witness([Obligation("im", a**2, sp.Abs(a) ** 2)])[0]


# ------------------------------------------------------------------ the engine's rules

def test_rule_sum_linearity():  # RULE-SUM-LINEARITY
    j, n = sp.Symbol("j", integer=True), sp.Symbol("n", integer=True)
    x, c = sp.symbols("x c")
    S = lambda f, lo=0, hi=n - 1: sp.Sum(f, (j, lo, hi))
    assert normal.decide(S(c * sp.sin(x * j) + 3), c * S(sp.sin(x * j)) + 3 * n).proven  # constants out, sum of 1
    assert normal.decide(S(sp.sin(x * j)), sp.Sum(sp.sin(x * sp.Symbol("i", integer=True)), (sp.Symbol("i", integer=True), 0, n - 1))).proven
    assert not normal.decide(S(sp.sin(x * j)), S(sp.sin(x * j), 1, n)).proven  # other range: not the same unknown
    assert not normal.decide(S(sp.sin(x * j) ** 2), S(sp.sin(x * j)) ** 2).proven  # not multiplicative
    assert not normal.decide(S(j * sp.sin(x)), sp.sin(x) * S(1)).proven  # j-dependent factors stay inside
    v = normal.decide(S(x), x * n)
    assert v.proven and "RULE-SUM-LINEARITY" in v.rules
    m = sp.Symbol("m")  # a non-integer limit is refused
    assert "not known to be integers" in normal.decide(sp.Sum(x, (j, 0, m)), x * (m + 1)).reason


def test_every_d_statements_fail_on_a_wrong_plan():  # THM-LIFT, THM-LAYOUT
    """Each plan's steps hold and fail on the plan moved, strided or cut. (The plans' cross-check against the
    kernels' column data is THM-LIFT's own, run when test_proofs proves it.)"""
    from sinpe.proofs.symbolic import layout_label_steps, mutate_plan, plan_steps
    from sinpe.spec.theorems import PLANS, symbolic_plan
    for pl in PLANS:
        assert all(ok for ok, _, _ in plan_steps(pl)), pl.name
        for kind in ("plan-offset", "plan-stride", "plan-count"):
            assert not all(ok for ok, _, _ in plan_steps(mutate_plan(pl, kind))), (pl.name, kind)
    # the cos-sin ceil-split table holds cos_n unpaired: no interleaved table is a permutation of it
    assert not all(ok for ok, _, _ in layout_label_steps(symbolic_plan("cos-sin", "ceil-split", True)))


def test_bound_origin_is_at_minus_offset():  # THM-BOUND: PE(0)[cos] = alpha is false for o != 0
    from sinpe.proofs.suite import get_theorem
    r = get_theorem("THM-BOUND").prove("origin-at-0")
    assert r.status == "not-proven" and "mutated: origin-at-0" in r.failures[0]


def test_lift_formula_for_amplitude_and_offset():  # THM-SHIFT/DOT at alpha = 3, sigma = 2, o = 1/2 (was 8 of 16 unproven)
    from sinpe.proofs.engine import decide_obligation
    from sinpe.spec.profiles import get_profile
    from sinpe.spec.theorems import Instance, dot_obligations, shift_obligations
    inst = Instance(get_profile("vaswani", amplitude=3, phase_scale=2, offset="0.5"), 4)
    for ob in shift_obligations(inst) + dot_obligations(inst):
        assert decide_obligation(ob)[0], ob.name
