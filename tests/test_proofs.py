"""The proof suite proves every THM-* (SPEC.md section 5) and its procedures are decision procedures.

Reproduce any failure with: sinpe prove --only <ID>   (or python -m pytest -q tests/test_proofs.py)
"""
from __future__ import annotations

import json
from dataclasses import replace

import pytest
import sympy as sp

from sinpe.proofs import canonical, groebner
from sinpe.proofs.suite import run_all
from sinpe.reference.cli import main
from sinpe.spec import theorems as T
from sinpe.spec.definition import denominator, n_frequencies, pairs_exponent
from sinpe.spec.profiles import PRESETS, get_profile
from sinpe.spec.theorems import STATEMENTS

p, k, w = sp.symbols("p k omega", real=True)


@pytest.fixture(scope="module")
def results():
    """The suite proven without the numeric witness: soundness rests on the procedures alone (REQ-PROVE)."""
    return {r.id: r for r in run_all(witness=False)}


def test_the_suite_proves_the_spec_theorems_in_order(results):  # THM-* all
    assert list(results) == list(STATEMENTS)
    assert all(r.witness.startswith("not run") for r in results.values() if r.id != "THM-ATTN")  # ATTN's is a step


def test_the_witness_agrees_with_the_procedures(proof_certificates):  # REQ-PROVE
    """A disagreement would be an internal error (exit 3). The results are the session's certificates' (conftest):
    their write_suite proves each theorem with the witness, so these four are not proven a second time here."""
    for r in (proof_certificates[2][i] for i in ("THM-DOT", "THM-NORM", "THM-CPLX", "THM-WAVE")):
        assert r.status == "proven" and "REFUTED" not in r.witness and r.exit_code == 0, (r.id, r.witness)


@pytest.mark.parametrize("tid", list(STATEMENTS))
def test_theorem_is_proven(results, tid):  # one test per THM-* ID: pytest -k THM-SHIFT
    r = results[tid]
    assert r.status == "proven", f"{tid} not proven: {r.failures[:2]}; reproduce: sinpe prove --only {tid}"


def test_results_report_the_interface_fields(results):
    for r in results.values():
        d = r.to_json()
        for key in ("id", "statement", "scope", "method", "status", "seconds", "certificate_size", "witness", "obligations"):
            assert key in d, (r.id, key)
        assert d["seconds"] >= 0 and d["certificate_size"] > 0 and d["obligations"]["decided"] > 0, d
        assert set(d["obligations"]) == {"decided", "syntactic", "cross_check", "merged"}, d
        assert {"d", "alpha", "sigma", "o"} <= set(d["scope"]), d


EVERY_D = ("THM-LIFT", "THM-SHIFT", "THM-DOT", "THM-EVEN", "THM-ROT", "THM-NORM", "THM-BOUND", "THM-WAVE",
           "THM-DIR", "THM-CPLX")


def test_scope_says_every_d_where_the_statement_does(results):
    for i in EVERY_D:
        assert results[i].to_json()["scope"]["d"].startswith("all"), (i, results[i].scope)
    # THM-LAYOUT: the concatenated plans that are permutations (not cos-sin ceil-split), generated from its coverage
    lay = results["THM-LAYOUT"].scope["d"]
    assert "sin-cos, odd d (ceil-split)" in lay and "cos-sin, odd d (ceil-split)" not in lay, lay
    assert results["THM-INJ"].scope["d"].startswith("every d >= 2") and "nonzero" in results["THM-INJ"].scope["sigma"]
    assert "4" in results["THM-ATTN"].scope["d"]  # narrowed: the 'iff' is proven at listed d only
    for i in ("THM-SHIFT", "THM-DOT", "THM-NORM", "THM-BOUND", "THM-DIR", "THM-CPLX"):
        assert results[i].scope["alpha"].startswith("symbolic") and results[i].scope["o"].startswith("symbolic"), i


def test_every_d_proof_does_real_work(results):
    """The decided obligations are more than syntactic ones; the concrete d are a cross-check, counted apart."""
    for i in ("THM-SHIFT", "THM-DOT", "THM-NORM", "THM-DIR", "THM-CPLX", "THM-LIFT"):
        j = results[i].to_json()["obligations"]
        assert j["decided"] > j["syntactic"] and j["cross_check"] > 0, (i, j)


def test_a_repeated_cross_check_instance_is_decided_once_and_a_false_one_still_fails(monkeypatch):
    """The cross-check decides each distinct obligation once (the instances of many plans and widths repeat); a
    repeat is counted, and a false instance after repeats of a true one still ends the check with its name."""
    from sinpe.proofs import engine
    from sinpe.spec.theorems import Obligation
    true = Obligation("sin double angle", sp.sin(2 * p), 2 * sp.sin(p) * sp.cos(p))
    false = Obligation("wrong sign", sp.sin(2 * p), -2 * sp.sin(p) * sp.cos(p))
    decided = []
    real = engine.decide_obligation
    monkeypatch.setattr(engine, "decide_obligation", lambda ob: decided.append(ob.name) or real(ob))

    def theorem(*instances: Obligation) -> engine.ObligationTheorem:
        return engine.ObligationTheorem("THM-DOT", "laurent", lambda: [], (), concrete=lambda: iter(instances))

    assert theorem(true, replace(true, name="again"), true)._cross_check() == (3, [])
    assert decided == ["sin double angle"]
    checked, failures = theorem(true, true, false, true)._cross_check()
    assert checked == 3 and len(failures) == 1 and "wrong sign" in failures[0], (checked, failures)
    assert theorem(false, false)._cross_check()[0] == 1


def test_thm_inj_names_pi_irrational(results):  # THM-INJ depends on AX-PI-IRRATIONAL explicitly
    assert any("pi is irrational" in a for a in results["THM-INJ"].axioms)
    assert all("pi is irrational" not in a for i, r in results.items() if i != "THM-INJ" for a in r.axioms)


def test_concrete_instances_cover_all_presets_even_and_odd():
    names = {(i.profile.name, i.d) for i in T.CONCRETE}
    assert {n for n, _ in names} == set(PRESETS) and {d % 2 for _, d in names} == {0, 1}
    assert {g.profile.layout for g in T.GENERIC} == {"interleaved", "sin-cos", "cos-sin"}


# ------------------------------------------------------------------ the decision procedures themselves

def test_laurent_decides_true_and_false_identities():
    assert canonical.decide(sp.cos(w * (p + k)), sp.cos(w * p) * sp.cos(w * k) - sp.sin(w * p) * sp.sin(w * k)).proven
    assert canonical.decide(sp.sin(3 * p), 3 * sp.sin(p) - 4 * sp.sin(p) ** 3).proven
    assert not canonical.decide(sp.sin(3 * p), 3 * sp.sin(p) - 3 * sp.sin(p) ** 3).proven
    assert not canonical.decide(sp.cos(w * (p + k)), sp.cos(w * p) * sp.cos(w * k) + sp.sin(w * p) * sp.sin(w * k)).proven
    # rational multiples share one atom: sin(p) = 2 sin(p/2) cos(p/2)
    assert canonical.decide(sp.sin(p), 2 * sp.sin(p / 2) * sp.cos(p / 2)).proven


def test_laurent_refuses_outside_its_fragment():
    v = canonical.decide(sp.Abs(sp.sin(p)), sp.sin(p))
    assert not v.proven and "outside" in v.reason
    v = canonical.decide(sp.sin(sp.sqrt(2) * p) - sp.sin(sp.sqrt(2) * p), 0)  # equal atoms still cancel
    assert v.proven


def test_procedures_refuse_floats_and_complex_phases():
    # binary-float arithmetic rounds: Float(1e20) + 1 == Float(1e20) must not count as a proven identity
    from sinpe.proofs.engine import decide_obligation
    from sinpe.spec.theorems import Obligation
    big = sp.Float(1e20)
    assert not canonical.decide(big + 1, big).proven
    assert not canonical.decide(sp.sin(p) * big + 1, sp.sin(p) * big + 1).proven  # refused even when "true"
    for method in ("laurent", "groebner", "sos"):
        ok, _, why = decide_obligation(Obligation("float", big + 1, big, method))
        assert not ok and "floating-point" in why, (method, why)
    assert not groebner.certify(sp.sin(p) * big + 1 - big * sp.sin(p) - 1 + sp.Float(0.5)).proven
    # the (S) argument needs real phases: sin of a complex argument is unbounded
    z = sp.Symbol("z")
    assert not groebner.sos_bound(sp.sin(z), 1).proven and groebner.sos_bound(sp.sin(p), 1).proven


def test_the_proofs_read_the_definition_with_a_strict_backend(monkeypatch):  # DEF-FAMILY, THM-BOUND (issue 25)
    """The numeric backends (mpmath, Arb, intervals) take only their own values; SymPy converts a Python number
    silently. The proofs' backend refuses one, so a definition that hands a raw Fraction to pow (the weight
    without its conversion: every rotary reference and grid raises) fails the proofs instead of proving."""
    from fractions import Fraction

    from sinpe.spec import definition as D, theorems as T
    from sinpe.spec.profiles import get_profile
    with pytest.raises(TypeError, match="Fraction"):
        T.STRICT.pow(Fraction(10000), sp.Rational(1, 2))
    with pytest.raises(TypeError, match="int"):
        T.STRICT.sin(1)
    assert T.Instance(get_profile("vaswani"), 4).pe(T.P)[2] == sp.sin(T.P / 100)  # the real definition passes
    real = D.weight

    def raw(e, base, ops):  # the weight as the mutant writes it: the base handed over unconverted
        return D.geometric(e, lambda x: ops.pow(base, x), D._num(ops, Fraction(1)))
    monkeypatch.setattr(D, "weight", raw)
    with pytest.raises(TypeError, match="Fraction"):
        T.family_obligations(T.Instance(get_profile("vaswani"), 4))
    monkeypatch.setattr(D, "weight", real)
    assert all(T.family_obligations(T.Instance(get_profile("vaswani"), 4)))


def test_groebner_certificate_is_rechecked_by_expand():
    c = groebner.certify(sp.sin(p) ** 4 - sp.cos(p) ** 4 - sp.sin(p) ** 2 + sp.cos(p) ** 2)
    assert c.proven and groebner.recheck(c)
    tampered = groebner.Certificate(c.f, c.generators, [q + 1 for q in c.quotients], c.remainder, c.variables, True)
    assert not groebner.recheck(tampered)
    assert not groebner.certify(sp.sin(p) ** 2 - sp.cos(p) ** 2).proven


def test_sos_bound_rejects_wrong_bounds():
    assert groebner.sos_bound(sp.sin(p), 1).proven
    assert not groebner.sos_bound(sp.sin(p), sp.Rational(99, 100)).proven
    assert not groebner.sos_bound(2 * sp.sin(p), 1).proven


# ------------------------------------------------------------------ the symbolic schedule is the definition's

@pytest.mark.parametrize("profile", list(PRESETS.values()) + [get_profile("t2t", shift=0), get_profile("vaswani", shift=2)],
                         ids=lambda pr: pr.name or pr.describe())
def test_symbolic_schedule_matches_definition(profile):  # DEF-SCHEDULE-HALF, DEF-SCHEDULE-SHIFT, DEF-ODD
    from fractions import Fraction
    for d in range(1, 257):
        n, odd = d // 2, d % 2 == 1
        # the schedule as SPEC.md section 1 words it, typed here independently of spec/definition.py
        D = Fraction(d, 2) if profile.shift is None else n - profile.shift
        N = n + 1 if odd and profile.odd != "zero-pad" else n
        assert T.symbolic_denominator(profile, sp.Integer(n), odd) == sp.Rational(denominator(profile, d)) == sp.Rational(D), (profile, d)
        assert T.symbolic_n_frequencies(profile, sp.Integer(n), odd) == n_frequencies(profile, d) == N, (profile, d)
        if N > 1 and D > 0:
            assert pairs_exponent(profile, sp.Integer(n), odd, sp.Integer(N - 1)) == sp.Rational(Fraction(N - 1) / D), (profile, d)


# ------------------------------------------------------------------ CLI contract

def test_cli_prove_json_only(capsys):  # REQ-PROVE
    assert main(["prove", "--json", "--only", "thm-cplx,THM-INJ"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [o["id"] for o in out] == ["THM-CPLX", "THM-INJ"] and {o["status"] for o in out} == {"proven"}
    assert out[0]["scope"]["d"] == "all" and out[0]["obligations"]["decided"] >= 1


def test_cli_unknown_id_exits_2(capsys):  # REQ-PROVE
    assert main(["prove", "--only", "nope"]) == 2
    assert "unknown theorem ID" in capsys.readouterr().err


def test_cli_exits_1_when_not_proven(monkeypatch, capsys):  # REQ-PROVE
    import sinpe.proofs.suite as suite
    real = suite.get_theorem("THM-DOT")

    class Mutated:
        id = real.id

        def prove(self, mutation=None, witness=True):
            return real.prove("drop@last", witness=witness)

    monkeypatch.setattr(suite, "get_theorem", lambda _id: Mutated())
    assert main(["prove", "--only", "THM-DOT"]) == 1
    assert "not proven: THM-DOT" in capsys.readouterr().out


def test_odd_shift_step_is_not_vacuous():  # THM-SHIFT odd d: the same solver finds M_k's row for a paired column
    from sinpe.proofs.canonical import coefficients
    from sinpe.spec.theorems import Instance, K, P
    inst = Instance(PRESETS["vaswani"], 3)
    a = sp.symbols("a0:3")
    for u, solvable in ((0, True), (2, False)):  # column 0 = sin_0 (paired), column 2 = unpaired sin_1
        e = inst.pe(P + K)[u] - sum(ai * x for ai, x in zip(a, inst.pe(P), strict=True))
        sol = sp.linsolve(coefficients(e, (P,)), a)
        assert (sol != sp.EmptySet) == solvable, (u, sol)
    (row,) = sp.linsolve(coefficients(inst.pe(P + K)[0] - sum(ai * x for ai, x in zip(a, inst.pe(P), strict=True)), (P,)), a)
    assert canonical.decide(row[0], sp.cos(K)).proven and canonical.decide(row[1], sp.sin(K)).proven and row[2] == 0


def test_injectivity_needs_both_frequency_one_columns():  # THM-INJ: a cos-only table (d = 1) is not covered
    from sinpe.spec.theorems import symbolic_plan
    plan = symbolic_plan("cos-sin", "ceil-split", True)
    assert plan.at(0) == ["cos0"]  # d = 1: one cos column
    # and indeed cos(1) = cos(-1): the d = 1 cos-only table is not injective on integers
    assert canonical.decide(sp.cos(sp.Integer(1)), sp.cos(sp.Integer(-1))).proven


def test_scope_lists_every_hypothesis_the_decision_used(results):  # THM-SHIFT, THM-NORM, REQ-PROVE
    """The odd-d clause of THM-SHIFT is decided with alpha, sigma != 0 and log b != 0: the result lists them,
    and a scope that omits a parameter the decision used, or names one no obligation uses, is refused."""
    import copy

    from sinpe.proofs.suite import get_theorem
    h = results["THM-SHIFT"].hypotheses
    assert "real, nonzero" in h["alpha"] and "real, nonzero" in h["sigma"] and h["log_b"] == ["real, nonzero"], h
    assert results["THM-SHIFT"].scope["log_b"] == "symbolic real, nonzero", results["THM-SHIFT"].scope
    t = get_theorem("THM-SHIFT")
    narrow = copy.copy(t)
    narrow.params = tuple(p for p in t.params if p != "log_b")
    r = narrow.prove()
    assert r.status == "not-proven" and any("scope omits log_b" in f for f in r.failures), r.failures
    wide = copy.copy(get_theorem("THM-ROT"))
    wide.params = wide.params + ("alpha",)  # M_k has no amplitude: a scope naming alpha claims too much
    r = wide.prove()
    assert r.status == "not-proven" and any("names alpha, which no obligation uses" in f for f in r.failures), r.failures


def test_spec_md_states_the_layout_table_the_proofs_use():  # DEF-CHANNELS, DEF-LAYOUT, DEF-ODD, THM-LIFT
    from pathlib import Path
    text = (Path(__file__).resolve().parents[1] / "spec" / "SPEC.md").read_text()
    block = text.split("<!-- BEGIN LAYOUT-RULES -->\n", 1)[1].split("\n<!-- END LAYOUT-RULES -->", 1)[0]
    assert block == T.layout_rules_text(), "SPEC.md's DEF-CHANNELS block differs from spec/theorems.py LAYOUT_RULES"
