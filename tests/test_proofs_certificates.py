"""REQ-PROVE-CERT: `sinpe prove --certificates DIR` writes every decided statement as data, and the standard-library
checker (`sinpe prove --check-certificates DIR`, proofs/certcheck.py) re-derives and re-decides each one, and fails
on wrong data: one tamper per entry kind and per fact kind below, the text re-rendered so that only the decision
can reject it.

The theorems of conftest.CERTIFIED_SUBSET are written once per session (the ``proof_certificates`` fixture); the
plan entries and THM-SHIFT's facts (plan lookups, ranges, the odd-d inconsistency) are recorded here from the step
functions themselves. Reproduce: sinpe prove --only THM-DOT --certificates /tmp/c &&
sinpe prove --check-certificates /tmp/c --only THM-DOT
"""
from __future__ import annotations

import ast
import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp
from conftest import CERTIFIED_SUBSET, certificates_of
from helpers import run_sinpe

from sinpe.proofs import certcheck, evidence
from sinpe.proofs.certificates import obligation_entry, step_entry, write_suite

CHECKER = Path(certcheck.__file__)
ONLY = ",".join(CERTIFIED_SUBSET)


def _check(d: Path, only: str | None = ONLY) -> tuple[int, str]:
    res = run_sinpe("prove", "--check-certificates", d, *(["--only", only] if only else []), in_process=True)
    return res.returncode, res.stdout + res.stderr


def _doc(d: Path, tid: str) -> dict:
    return json.loads((d / f"{tid}.json").read_text())


def _save(d: Path, tid: str, doc: dict) -> None:
    (d / f"{tid}.json").write_text(json.dumps(doc))


def test_subset_certificates_verify_exit_0(proof_certificates):
    d, summary, _ = proof_certificates
    code, out = _check(d)
    assert code == 0 and out.splitlines()[-1].endswith("0 undecided, 0 failed: all verified"), out
    assert all(s["uncertified"] == 0 for s in summary.values()), summary
    kinds = {k for s in summary.values() for k in s["entries"]}
    facts = {k for s in summary.values() for k in s["facts"]}
    assert kinds == {"identity", "bound", "plan", "step", "conformance"}, kinds
    assert facts == {"rational-identity", "positivity", "assumption", "ball-sign", "identity", "ideal", "plan",
                     "linear-family", "distinct-on-integers"}, facts


def test_the_index_must_list_exactly_the_suite(proof_certificates, tmp_path):
    d = certificates_of(proof_certificates[0], tmp_path, "THM-DOT", "THM-EVEN")
    code, out = _check(d, only=None)  # two theorems are not the suite
    assert code == 1 and "index.json: THM-LIFT is missing" in out, out
    code, out = _check(d, only="THM-DOT")  # nor is the pair only THM-DOT
    assert code == 1 and "index.json: lists THM-EVEN, which --only did not name" in out, out


def test_certificates_are_deterministic_bytes(proof_certificates, tmp_path):
    write_suite(str(tmp_path), ["THM-INJ", "THM-BOUND"])
    for name in ("THM-INJ.json", "THM-BOUND.json"):
        assert (tmp_path / name).read_bytes() == (proof_certificates[0] / name).read_bytes(), name


# ---------------------------------------------------------------------------------------- tampering, per kind

def _entry(doc: dict, kind: str, pred=lambda e: True) -> dict:
    return next(e for e in doc["entries"] if e["kind"] == kind and pred(e))


def _fact(doc: dict, kind: str, pred=lambda f: True) -> tuple[dict, dict]:
    return next((e, f) for e in doc["entries"] if e["kind"] == "step" for f in e["facts"] if f["kind"] == kind and pred(f))


def _rerender(x: dict) -> None:
    x["text"] = certcheck.render_fact(x) if "name" not in x else certcheck.render_entry(x)


def _twice(t: list) -> list:
    return ["*", ["n", "2"], t]


def _identity_E(doc):  # (E): THM-DOT's rhs doubled
    e = _entry(doc, "identity", lambda e: e["procedure"] == "E")
    e["rhs"] = _twice(e["rhs"])
    _rerender(e)
    return e["name"]


def _identity_L(doc):  # (L): a sin of THM-ROPE-REL's rhs made a cos
    e = _entry(doc, "identity", lambda e: e["procedure"] == "L" and "sin" in json.dumps(e["rhs"]))
    e["rhs"] = json.loads(json.dumps(e["rhs"]).replace('"sin"', '"cos"', 1))
    _rerender(e)
    return e["name"]


def _bound(doc):  # (S): the bound |alpha| halved
    e = _entry(doc, "bound")
    e["rhs"] = ["*", ["n", "1/2"], e["rhs"]]
    _rerender(e)
    return e["name"]


def _rational(doc):  # THM-WAVE: e_(i+1) - e_i claimed twice the ratio
    e, f = _fact(doc, "rational-identity", lambda f: "n^(-1)" in f["text"] and "i" in f["text"])
    f["rhs"] = _twice(f["rhs"])
    _rerender(f)
    return e["name"]


def _positivity(doc):  # THM-WAVE: D = n - 1 > 0 claimed from n = 0 on (false at n = 0)
    e, f = _fact(doc, "positivity", lambda f: f["from"] == 2)
    f["from"] = 0
    _rerender(f)
    return e["name"]


def _assumption(doc):  # THM-INJ: alpha != 0 with alpha's 'nonzero' withdrawn
    e, f = _fact(doc, "assumption", lambda f: f["property"] == "nonzero" and f["expr"][0] == "s")
    f["expr"][2] = [w for w in f["expr"][2] if w != "nonzero"]
    _rerender(f)
    return e["name"]


def _ball_sign(doc):  # THM-NONPERM: pi/2 - 1 claimed negative
    e, f = _fact(doc, "ball-sign")
    f["sign"] = -f["sign"]
    _rerender(f)
    return e["name"]


def _distinct(doc):  # THM-NONPERM: the two max exponents made equal
    e, f = _fact(doc, "distinct-on-integers")
    f["rhs"] = f["lhs"]
    _rerender(f)
    return e["name"]


def _ideal(doc):  # THM-INJ: a quotient of the ideal membership replaced by 0
    e, f = _fact(doc, "ideal")
    f["quotients"][0] = ["n", "0"]
    _rerender(f)
    return e["name"]


def _identity_fact(doc):  # THM-NORM: u(p)^2 at p = -o claimed 1 more
    e, f = _fact(doc, "identity")
    f["rhs"] = ["+", f["rhs"], ["n", "1"]]
    _rerender(f)
    return e["name"]


def _family_dimension(doc):  # THM-ATTN: the commutant's dimension claimed one larger
    e, f = _fact(doc, "linear-family", lambda f: f["claim"] == "dimension")
    f["dimension"] += 1
    _rerender(f)
    return e["name"]


def _family_contains(doc):  # THM-ATTN: the family a I + b J made a I + b [[0, 1], [1, 0]] (a reflection)
    e, f = _fact(doc, "linear-family", lambda f: f["claim"] == "contains")
    f["family"][1] = f["family"][2]
    _rerender(f)
    return e["name"]


def _plan_fact(doc):  # THM-INJ: a plan segment moved two columns (a column repeated)
    e, f = _fact(doc, "plan", lambda f: f["plan"]["segments"][1]["a"] == 2)
    f["plan"]["segments"][1]["c"][1] += 2
    _rerender(f)
    return e["name"]


def _rotary_schedule(doc):  # THM-ROPE-REL: DEF-ROPE-FREQ-DEFAULT's exponent 2i/dim claimed twice as large
    e, f = _fact(doc, "rational-identity", lambda f: "dim" in f["text"])
    f["rhs"] = _twice(f["rhs"])
    _rerender(f)
    return e["name"]


def _conformance_counts(doc):  # THM-ROPE-REL: DEF-ROPE-LAYOUT's table one cos label short (n - 1 cos labels)
    e = _entry(doc, "conformance", lambda e: e["claim"] == ["labels", "cos"])
    next(r for r in e["rules"] if r["kind"] == "cos")["hi"][1] -= 1
    _rerender(e)
    return e["name"]


def _witness(doc):  # a witness ball moved away from the other side's
    pt = doc["witness"]["points"][0]
    pt["lhs"]["re"][0] = str(certcheck.rational(pt["lhs"]["re"][0]) + 1)
    return pt["obligation"]


TAMPER = {"identity-E": ("THM-DOT", _identity_E), "identity-L": ("THM-ROPE-REL", _identity_L),
          "bound-S": ("THM-BOUND", _bound), "rational-identity": ("THM-WAVE", _rational),
          "positivity": ("THM-WAVE", _positivity), "assumption": ("THM-INJ", _assumption),
          "ball-sign": ("THM-NONPERM", _ball_sign), "distinct-on-integers": ("THM-NONPERM", _distinct),
          "ideal": ("THM-INJ", _ideal), "identity-fact": ("THM-NORM", _identity_fact),
          "linear-family-dimension": ("THM-ATTN", _family_dimension),
          "linear-family-contains": ("THM-ATTN", _family_contains), "plan-fact": ("THM-INJ", _plan_fact),
          "rotary-schedule": ("THM-ROPE-REL", _rotary_schedule), "conformance-counts": ("THM-ROPE-REL", _conformance_counts),
          "witness": ("THM-CPLX", _witness)}


@pytest.mark.parametrize("case", list(TAMPER))
def test_a_tampered_certificate_fails_and_names_the_entry(proof_certificates, tmp_path, case):
    tid, tamper = TAMPER[case]
    d = certificates_of(proof_certificates[0], tmp_path, tid)
    doc = _doc(d, tid)
    name = tamper(doc)
    _save(d, tid, doc)
    code, out = _check(d, only=tid)
    failed = [line for line in out.splitlines() if line.startswith("FAILED")]
    assert code == 1 and failed and any(name in line and f"{tid}.json" in line for line in failed), (case, out)
    assert not any("its text is not" in line for line in failed), out  # the decision rejected it, not the text


# ------------------------------------------------------------- entries recorded from the step functions

def _recorded(steps) -> list[dict]:  # the entries `--certificates` writes for a step list
    with evidence.recording() as rec:
        listed = steps()
    seen = {i[1]: i[2:] for i in rec.items if i[0] == "step"}
    return [step_entry(what, *seen.get(what, ([], None))) for _, _, what in listed]


def _shift_entries() -> list[dict]:
    from sinpe.proofs.symbolic import block_shift, odd_shift_steps
    from sinpe.spec.theorems import PLANS
    return _recorded(lambda: block_shift(PLANS[2])[1] + odd_shift_steps(PLANS[1]))


def _with(entries: list[dict], kind: str) -> tuple[dict, dict]:
    return next((e, f) for e in entries if e["kind"] == "step" for f in e["facts"] if f["kind"] == kind)


def _lookup(entries):  # THM-SHIFT: the label a column holds, its index shifted by one
    e, f = _with(entries, "plan-lookup")
    f["label"][1][2] += 1
    return e, f


def _range(entries):  # THM-SHIFT: a column moved n to the right (past d - 1)
    e, f = _with(entries, "plan-range")
    f["column"][1] += 1
    return e, f


def _inconsistent(entries):  # THM-SHIFT odd d: u(p+k) dropped, so a_u = 0 solves the system
    e, f = _with(entries, "inconsistent")
    f["expr"] = next(t for t in f["expr"][1:] if "a_u" in json.dumps(t))
    return e, f


def _plan_entry(entries):  # a plan step's plan: a segment one column right
    e = next(e for e in entries if e["kind"] == "plan")
    e["plan"]["segments"][1]["c"][1] += 1
    return e, e


def _plan_match(_):  # THM-LAYOUT: the interleaved plan's bounds changed
    from sinpe.proofs.symbolic import layout_label_steps
    from sinpe.spec.theorems import PLANS
    e = next(e for e in _recorded(lambda: layout_label_steps(PLANS[4])) if e["kind"] == "plan-match")
    e["interleaved"]["segments"][0]["hi"][1] -= 1
    return e, e


STEP_TAMPER = {"plan-lookup": _lookup, "plan-range": _range, "inconsistent": _inconsistent, "plan": _plan_entry,
               "plan-match": _plan_match}


@pytest.fixture(scope="module")
def shift_entries() -> list[dict]:
    entries = _shift_entries()
    kinds = {f["kind"] for e in entries if e["kind"] == "step" for f in e["facts"]}
    assert {"plan-lookup", "plan-range", "inconsistent", "assumption"} <= kinds and any(e["kind"] == "plan" for e in entries)
    for e in entries:
        assert certcheck.check_entry(e) == e["kind"], e["name"]
    return entries


@pytest.mark.parametrize("case", list(STEP_TAMPER))
def test_a_tampered_step_fails(shift_entries, case):
    e, part = STEP_TAMPER[case](copy.deepcopy(shift_entries))
    _rerender(part)
    with pytest.raises(certcheck.Failed, match=e["name"][:30].replace("(", r"\(").replace(")", r"\)").replace("*", r"\*")):
        certcheck.check_entry(e)


def _conformance_verdicts(steps) -> list[tuple[bool, bool, str]]:
    """(the prover's verdict, the checker's verdict on the written entry, the step) per conformance step."""
    from sinpe.proofs.symbolic import STEP_CONFORMS
    out = []
    for ok, _, what in steps():
        if what not in STEP_CONFORMS:
            continue
        e = step_entry(what, [])
        assert e["kind"] == "conformance", e
        try:
            certcheck.check_entry(e)
            out.append((ok, True, what))
        except certcheck.Failed:
            out.append((ok, False, what))
    return out


def test_conformance_entries_decide_what_the_steps_decide():
    """THM-LIFT's and THM-ROPE-*'s conformance steps (each plan segment inside a rule of DEF-LAYOUT's or
    DEF-ROPE-LAYOUT's table, label counts, d = 1) are written as 'conformance' entries carrying the plan and the
    table as linear forms; the checker's verdict on each entry is the prover's on its step, for the real tables
    (all hold) and for false variants: the table with sin and cos exchanged, the rotary tables swapped, plans
    with a segment moved, a stride changed, a label dropped or a function repeated."""
    from sinpe.proofs.symbolic import conformance_steps, mutate_plan
    from sinpe.proofs.theorems_identities import conform_steps
    from sinpe.proofs.theorems_rotary import pair_plan_steps
    from sinpe.spec.theorems import LAYOUT_RULES, PLANS

    def mutated_plans(kind):
        return lambda: [s for pl in PLANS for s in conformance_steps(
            mutate_plan(pl, kind), LAYOUT_RULES[(pl.layout, pl.odd_rule if pl.odd else "trailing-sin", pl.odd)], "DEF-LAYOUT")]
    real = _conformance_verdicts(lambda: conform_steps(None)) + _conformance_verdicts(lambda: pair_plan_steps(None))
    claims = {tuple(step_entry(w, [])["claim"][:1]) for _, _, w in real}
    assert len(real) == 78 + 10 and all(ok and verdict for ok, verdict, _ in real)
    assert claims == {("segment",), ("labels",), ("d=1",)}
    false = [v for steps in [lambda: conform_steps("layout-swap"), lambda: pair_plan_steps("pairs-swapped"),
                             lambda: pair_plan_steps("pair-offset")]
             + [mutated_plans(k) for k in ("plan-offset", "plan-stride", "plan-count", "plan-labels")]
             for v in _conformance_verdicts(steps)]
    assert [w for ok, verdict, w in false if ok != verdict] == []
    assert sum(not ok for ok, _, _ in false) >= 60, sum(not ok for ok, _, _ in false)


def test_a_plan_that_violates_its_table_is_rejected_per_claim():
    """THM-LIFT's sin-cos zero-pad plan against tables it violates: a segment's column map (the table's sin and
    cos rows exchanged), a label count (the table's cos row one label short) and the columns at d = 1 (the table's
    zero column at 2n + 1): each claim's entry fails, the plan itself (a bijection) still verifies."""
    from sinpe.proofs.symbolic import conformance_steps
    from sinpe.spec.theorems import LAYOUT_RULES, PLANS
    pl = next(p for p in PLANS if p.layout == "sin-cos" and p.odd and p.odd_rule == "zero-pad")
    entries = [step_entry(w, []) for _, _, w in conformance_steps(pl, LAYOUT_RULES[("sin-cos", "zero-pad", True)], "DEF-LAYOUT")]
    assert all(certcheck.check_entry(e) == "conformance" for e in entries)
    certcheck.check_plan(entries[0]["plan"])
    swap = {"sin": "cos", "cos": "sin", "zero": "zero"}
    forged = {("segment", 0): lambda r: r.update(kind=swap[r["kind"]]),
              ("labels", "cos"): lambda r: r["kind"] == "cos" and r["hi"].__setitem__(1, r["hi"][1] - 1),
              ("d=1",): lambda r: r["kind"] == "zero" and r["c"].__setitem__(1, 1)}
    for claim, edit in forged.items():
        e = copy.deepcopy(next(e for e in entries if tuple(e["claim"]) == claim))
        for r in e["rules"]:
            edit(r)
        _rerender(e)
        with pytest.raises(certcheck.Failed, match="lies inside no rule|labels, the table|negative width|at n = 0 the plan places"):
            certcheck.check_entry(e)


def test_a_rule_row_of_negative_width_does_not_balance_a_count():  # THM-LIFT, DEF-LAYOUT (issue 25)
    """The interleaved table's sin row widened to 0 <= i < n + 1 (it claims sin_n, which the plan does not hold)
    and a row 5 <= i < 4 (width -1) beside it: every plan segment still lies inside a row and the label counts
    agree (n + 1 - 1 = n), so the prover's step and the checker's entry both 'conformed'. A row of negative width
    is now refused by both."""
    from sinpe.proofs.symbolic import conformance_steps
    from sinpe.spec.theorems import LAYOUT_RULES, PLANS
    n = sp.Symbol("n", integer=True, positive=True)
    pl = next(p for p in PLANS if p.layout == "interleaved" and not p.odd)
    real = LAYOUT_RULES[("interleaved", "trailing-sin", False)]
    forged = tuple(("sin", lo, hi + 1, a, c) if k == "sin" else (k, lo, hi, a, c) for k, lo, hi, a, c in real)
    forged += (("sin", 5, 4, 1, 0),)
    assert all(ok for ok, _, _ in conformance_steps(pl, real, "DEF-LAYOUT"))
    steps = conformance_steps(pl, forged, "DEF-LAYOUT")
    verdicts = {w.split(": ", 1)[1].split(" labels")[0]: ok for ok, _, w in steps if "labels, as" in w}
    assert verdicts == {f"{n} sin": False, f"{n} cos": True, "0 zero": True}, [w for _, _, w in steps]
    assert all(ok for ok, _, w in steps if "labels, as" not in w)  # the segments do lie inside the (widened) rows
    entry = next(step_entry(w, []) for _, _, w in steps if "sin labels, as" in w)
    with pytest.raises(certcheck.Failed, match="negative width"):
        certcheck.check_entry(entry)


def test_an_identity_true_as_built_is_no_evidence():
    """A fact whose sides are one tree is no evidence even with a substitution that touches neither side (THM-WAVE's
    t2t exponent e_(N-1) = (n - 1)/(n - 1), cancelled when built, was '1 = 1 at d = 2n'): the exporter leaves it out
    and the checker refuses it. 'n = m at m = n' (the rule in its own variable) is a fact, and so is t2t's exponent
    stated at i = N - 1."""
    n = ["s", "n", ["integer", "nonnegative", "nonzero", "positive", "rational", "real"], ""]
    d, m = ["s", "d", ["integer", "positive"], ""], ["s", "m", ["integer", "nonnegative"], ""]
    one = {"kind": "rational-identity", "lhs": ["n", "1"], "rhs": ["n", "1"], "at": [[d, ["*", ["n", "2"], n]]]}
    rule = {"kind": "rational-identity", "lhs": n, "rhs": m, "at": [[m, n]]}
    for f, evidence_ in ((one, False), (rule, True)):
        step = {"name": "s", "kind": "step", "facts": [{**f, "text": certcheck.render_fact(f)}]}
        if evidence_:
            assert certcheck.check_entry(step) == "step"
        else:
            with pytest.raises(certcheck.Failed, match="no evidence"):
                certcheck.check_entry(step)
    i, top = sp.Symbol("i", integer=True, nonnegative=True), sp.Symbol("n", integer=True, positive=True) - 1
    D = sp.Symbol("n", integer=True, positive=True) - 1
    built = step_entry("t2t e_(N-1)", [("rational-identity", {"lhs": top / D, "rhs": sp.Integer(1),
                                                             "at": ((sp.Symbol("d"), 2 * top + 2),)}, True)])
    assert built["facts"] == []
    stated = step_entry("t2t e_(N-1)", [("rational-identity", {"lhs": i / D, "rhs": sp.Integer(1), "at": ((i, top),)}, True)])
    assert certcheck.check_entry(stated) == "step"


def test_no_fact_of_the_certificates_is_true_as_built(proof_certificates):
    """Every identity entry and identity fact of the subset's certificates rests on its data; THM-ROPE-REL's
    rotary schedule step is DEF-ROPE-FREQ-DEFAULT's exponent 2i/dim at dim = 2n, and its DEF-ROPE-LAYOUT steps are
    conformance entries."""
    for tid in CERTIFIED_SUBSET:
        for e in _doc(proof_certificates[0], tid)["entries"]:
            for f in [e] + e.get("facts", []):
                if f["kind"] in ("identity", "rational-identity"):
                    assert not certcheck.as_built(f["lhs"], f["rhs"], f.get("at", [])), (tid, e["name"], f["text"])
    doc = _doc(proof_certificates[0], "THM-ROPE-REL")
    sched = [e for e in doc["entries"] if "rotary schedule" in e["name"]]
    assert len(sched) == 2 and all(e["kind"] == "step" and [f["at"][0][0][1] for f in e["facts"]] == ["dim"] for e in sched)
    layout = [e for e in doc["entries"] if "DEF-ROPE-LAYOUT" in e["name"]]
    assert len(layout) == 10 and {e["kind"] for e in layout} == {"conformance"}


def test_a_pythagorean_identity_is_reduced_by_the_checker():
    """(G): THM-ROT's (R^T R)[0,0] = 1 verifies; = 2 or a cos for a sin fails."""
    from sinpe.spec.theorems import every_d_rotation
    ob = next(o for c in every_d_rotation() if c.method == "groebner" for o in c.obligations())
    e = obligation_entry(ob)
    assert certcheck.check_entry(e) == "identity" and e["procedure"] == "G"
    for bad in (["n", "2"], json.loads(json.dumps(e["lhs"]).replace('"sin"', '"cos"'))):
        x = {**e, "rhs": bad} if bad[0] == "n" else {**e, "lhs": bad}
        _rerender(x)
        with pytest.raises(certcheck.Failed, match=r"\(G\) leaves"):
            certcheck.check_entry(x)


def test_roots_of_unity_are_recomputed_from_the_statement():
    """(E) reduces exp(i pi u/v) modulo the cyclotomic polynomial of the order it recomputes: the heptagon sum
    cos(2pi/7) + cos(4pi/7) + cos(6pi/7) = -1/2 verifies, = -1/3 fails; nothing in the entry names an order."""
    from sinpe.spec.theorems import Obligation
    heptagon = sp.cos(2 * sp.pi / 7) + sp.cos(4 * sp.pi / 7) + sp.cos(6 * sp.pi / 7)
    e = obligation_entry(Obligation("heptagon", heptagon, sp.Rational(-1, 2), "normal"))
    assert certcheck.check_entry(e) == "identity" and "order" not in json.dumps(e)
    bad = obligation_entry(Obligation("heptagon", heptagon, sp.Rational(-1, 3), "normal"))
    with pytest.raises(certcheck.Failed, match="heptagon: "):
        certcheck.check_entry(bad)


def test_no_statement_mutant_of_the_suite_verifies():
    """The statement mutations of the suite's obligations (the mutation suite's sign, sin-for-cos, shift, drop,
    tighten) re-decided by the checker: every one it verifies is true (the prover proves it too, e.g. a sign
    flipped inside sin(0)); the others fail."""
    from sinpe.proofs.engine import MUTATIONS, ObligationTheorem, decide_obligation, distinct, is_syntactic, mutate
    from sinpe.proofs.suite import theorems
    verified, failed = [], 0
    for t in theorems():
        if not isinstance(t, ObligationTheorem):
            continue
        for ob in (o for o in distinct(t.obligations())[0] if not is_syntactic(o)):
            for kind in MUTATIONS + ("tighten",):
                m = mutate([ob], kind)
                if m is None:
                    continue
                try:
                    certcheck.check_entry(obligation_entry(m[0]))
                    verified.append(m[0])
                except certcheck.Failed:
                    failed += 1
    assert failed >= 100 and len(verified) <= 5, (failed, [o.name for o in verified])
    assert all(decide_obligation(o)[0] for o in verified), [o.name for o in verified]


# ---------------------------------------------------------------------------------------- counts, input

def test_an_uncertified_entry_is_exit_3_and_a_missing_one_exit_1(proof_certificates, tmp_path):
    """The standard-library checker counts an uncertified entry (exit 3); `sinpe prove --check-certificates` also
    refuses it as not the entry this suite writes (exit 1)."""
    d = certificates_of(proof_certificates[0], tmp_path, "THM-DOT")
    doc = _doc(d, "THM-DOT")
    doc["entries"][0] = {"name": doc["entries"][0]["name"], "kind": "uncertified", "why": "test"}
    _save(d, "THM-DOT", doc)
    code, reports, problems = certcheck.check_directory(str(d), ["THM-DOT"])
    out = "\n".join(certcheck.report_lines(code, reports, problems))
    assert code == 3 and "1 undecided, 0 failed" in out.splitlines()[-1] and "UNDECIDED: THM-DOT.json" in out, out
    code, out = _check(d, only="THM-DOT")
    assert code == 1 and "not the statement this suite decides there" in out, out
    doc["entries"].pop()  # an entry removed: fewer entries than decided statements
    _save(d, "THM-DOT", doc)
    code, out = _check(d, only="THM-DOT")
    assert code == 1 and "THM-DOT.json: 2 entries for 3 decided statements" in out, out


@pytest.mark.parametrize("bad", ["not json {", json.dumps({"schema": "other"}), json.dumps({"schema": certcheck.SCHEMA}),
                                 json.dumps({"schema": certcheck.SCHEMA, "entries": [], "x": 1.5})])
def test_unreadable_input_is_exit_2_one_line(proof_certificates, tmp_path, bad):
    d = certificates_of(proof_certificates[0], tmp_path, "THM-BOUND")
    (d / "THM-BOUND.json").write_text(bad)
    code, out = _check(d, only="THM-BOUND")
    assert code == 2 and len(out.strip().splitlines()) == 1 and "THM-BOUND.json" in out and "Traceback" not in out, out


def test_a_json_object_with_a_key_twice_is_unreadable():  # REQ-PROVE-CERT (issue 25)
    """Python's json keeps a repeated key's last value, other readers the first: refused at any depth."""
    for raw in (b'{"theorem": "THM-EVEN", "theorem": "THM-DOT"}', b'{"entries": [{"lhs": 1, "rhs": 2, "lhs": 3}]}'):
        with pytest.raises(certcheck.Malformed, match="appears twice in one object"):
            certcheck.parse(raw, "THM-DOT.json")
    assert certcheck.parse(b'{"a": {"a": 1}, "b": [{"a": 2}]}', "x.json") == {"a": {"a": 1}, "b": [{"a": 2}]}


def test_checker_refuses_oversize_input_and_non_rational_numbers(proof_certificates, tmp_path, monkeypatch):
    d = certificates_of(proof_certificates[0], tmp_path, "THM-DOT")
    monkeypatch.setattr(certcheck, "MAX_FILE_BYTES", 1000)
    code, out = _check(d, only="THM-DOT")
    assert code == 2 and "refused before parsing" in out, out
    monkeypatch.undo()
    for text in ("1e3", "0.5", "__import__('os')", "1/0x2", "9" * 9000, "1/0", "-0/0", 7, None, ["1"]):
        with pytest.raises(certcheck.Malformed):
            certcheck.rational(text)


def test_checker_imports_only_the_standard_library(proof_certificates):
    """Loaded from its file alone (as a reader would copy it), it checks the certificates without SymPy."""
    code = (f"import importlib.util, sys\n"
            f"spec = importlib.util.spec_from_file_location('certcheck', {str(CHECKER)!r})\n"
            f"m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
            f"rc = m.main([{str(proof_certificates[0])!r}, '--only', {ONLY!r}])\n"
            f"bad = sorted(n for n in sys.modules if n.split('.')[0] in ('sympy', 'mpmath', 'flint', 'sinpe', 'numpy'))\n"
            f"print('BAD', bad); sys.exit(rc)\n")
    p = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "BAD []" in p.stdout, (p.stdout, p.stderr)
    tree = ast.parse(CHECKER.read_text())
    mods = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    mods |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert mods <= {"__future__", "collections", "fractions", "functools", "json", "hashlib", "math", "os", "re", "stat", "sys",
                    "typing"}, mods
    assert "eval(" not in CHECKER.read_text() and "exec(" not in CHECKER.read_text()


def test_checker_suite_is_the_spec_suite():
    from sinpe.spec.theorems import STATEMENTS
    assert certcheck.SUITE == tuple(STATEMENTS)


def test_cli_reports_certificate_counts(tmp_path):
    res = run_sinpe("prove", "--only", "THM-INJ", "--certificates", tmp_path, "--json", in_process=True)
    assert res.returncode == 0, res.stderr
    c = json.loads(res.stdout)[0]["certificates"]
    assert c["uncertified"] == 0 and {"identity", "step"} <= set(c["entries"]) and "ideal" in c["facts"], c
    res = run_sinpe("prove", "--only", "THM-INJ", "--certificates", tmp_path, in_process=True)
    by = ", ".join(f"{k} {v}" for k, v in sorted(c["entries"].items()))
    assert f"certificates: {sum(c['entries'].values())} entries ({by}), 0 uncertified" in res.stdout, res.stdout
    assert _check(tmp_path, only="THM-INJ")[0] == 0
