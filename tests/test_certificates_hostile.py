"""REQ-PROVE-CERT: a hostile-certificate corpus, generated at test time from real certificates (the session's
``proof_certificates``): one forgery per class of issue 25, each rejected by ``sinpe prove --check-certificates``
with exit 1 (exit 2 for unreadable input), the certificate named in its line, no traceback, nothing hanging (every
run under a timeout). Plus the writer: a link or FIFO planted in ``--certificates DIR`` is refused, never followed.

Each case copies the certificates it is about (conftest.certificates_of). Reproduce one: sinpe prove --only THM-DOT
--certificates DIR, apply the forgery by hand, then sinpe prove --check-certificates DIR --only THM-DOT
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import certificates_of
from helpers import run_sinpe

from sinpe.proofs import certcheck

PAIR = ("THM-DOT", "THM-EVEN")  # the certificates the tests about more than one file copy
TIMEOUT = 120
FAKE = "-".join(("THM", "FABRICATED"))  # a theorem ID the suite does not have (built, so no SPEC ID is cited)


def _check(d: Path, *only: str) -> tuple[int, str]:
    res = run_sinpe("prove", "--check-certificates", d, "--only", ",".join(only), timeout=TIMEOUT)
    return res.returncode, res.stdout + res.stderr


def _edit(d: Path, tid: str, fn) -> None:
    path = d / f"{tid}.json"
    doc = json.loads(path.read_text())
    fn(doc)
    path.write_text(json.dumps(doc))


def _rendered(e: dict) -> dict:
    e["text"] = certcheck.render_entry(e) if e["kind"] != "step" else e.get("text")
    return e


def _sym(name: str, *assumptions: str) -> list:
    return ["s", name, sorted(assumptions), ""]


def _forge_entry(doc: dict, entry: dict) -> None:
    doc["entries"][0] = _rendered({"name": doc["entries"][0]["name"], **entry})


def _exp_ip(doc):  # exp(i p) = 1 for real p, with an order-1 cyclotomic relation attached
    p = _sym("p", "real")
    _forge_entry(doc, {"kind": "identity", "procedure": "E", "lhs": ["exp", ["*", ["I"], p]], "rhs": ["n", "1"], "at": []})
    doc["entries"][0]["relations"] = [{"atom": "exp(I*p)", "kind": "cyclotomic", "order": 1}]


def _exp_ip_bare(doc):  # the same statement, no relation: the checker's own reduction must refuse it
    p = _sym("p", "real")
    _forge_entry(doc, {"kind": "identity", "procedure": "E", "lhs": ["exp", ["*", ["I"], p]], "rhs": ["n", "1"], "at": []})


def _sin_z_bound(doc):  # |sin z| <= 1 for complex z (realness not declared)
    _forge_entry(doc, {"kind": "bound", "procedure": "S", "lhs": ["sin", _sym("z")], "rhs": ["n", "1"]})


def _ideal_fact(doc: dict) -> dict:
    return next(f for e in doc["entries"] if e["kind"] == "step" for f in e["facts"] if f["kind"] == "ideal")


def _sin_x_2_generator(doc):  # sin x = 2 from a fake "hypothesis" generator 1 (a second quotient for it)
    s, c = _sym("s_x"), _sym("c_x")
    f = _ideal_fact(doc)
    f.update({"hypotheses": [], "circles": [[s, c]], "conclusion": ["+", s, ["n", "-2"]],
              "quotients": [["+", s, ["n", "-2"]], ["n", "0"]], "point": [[s, "0"], [c, "1"]]})
    f["text"] = certcheck.render_fact(f)


def _sin_x_2_hypothesis(doc):  # sin x = 2 from the hypothesis 1 = 0, written into the statement
    s, c = _sym("s_x"), _sym("c_x")
    f = _ideal_fact(doc)
    f.update({"hypotheses": [["n", "1"]], "circles": [[s, c]], "conclusion": ["+", s, ["n", "-2"]],
              "quotients": [["+", s, ["n", "-2"]], ["n", "0"]], "point": [[s, "0"], [c, "1"]]})
    f["text"] = certcheck.render_fact(f)


def _sin_x_2_identity(doc):  # sin x = 2 as a (G) identity with a generator field attached
    x = _sym("x", "real")
    _forge_entry(doc, {"kind": "identity", "procedure": "G", "lhs": ["sin", x], "rhs": ["n", "2"], "at": []})
    doc["entries"][0]["generators"] = [{"hypothesis": "1", "poly": [[[0], "1"]]}]


def _empty(doc):  # a certificate with no entries
    doc["entries"], doc["decided"] = [], 0


def _text_only(doc):  # a statement text not bound to its data
    doc["entries"][0]["text"] = doc["entries"][0]["text"].replace("cos", "sin", 1)


def _data_only(doc):  # the data changed under an unchanged text
    doc["entries"][0]["rhs"] = ["*", ["n", "2"], doc["entries"][0]["rhs"]]


def _renamed(doc):  # the theorem renamed inside the file
    doc["theorem"] = "THM-EVEN"


def _status(doc):  # status claims a proof the entries do not make: recomputed, a not-proven file fails
    doc["status"] = "not-proven"


def _conformance(doc: dict, layout: str = "") -> list[dict]:
    return [e for e in doc["entries"] if e["kind"] == "conformance" and e["name"].startswith(layout)]


def _rules_exchanged(doc):  # DEF-ROPE-LAYOUT's table with sin and cos exchanged, the plans unchanged
    for e in _conformance(doc):
        for r in e["rules"]:
            r["kind"] = {"sin": "cos", "cos": "sin"}.get(r["kind"], r["kind"])
        _rendered(e)


def _plan_off_its_table(doc):  # rotate-half's plan (a bijection) in rotate-every-two's conformance entries
    halves = _conformance(doc, "halves:")[0]["plan"]
    certcheck.check_plan(halves)
    for e in _conformance(doc, "pairs:"):
        e["plan"] = json.loads(json.dumps(halves))
        _rendered(e)


def _trusted_dropped(doc):  # a certificate that no longer says what it does not certify claims more than it shows
    doc["trusted"] = doc["trusted"][1:]


def _about_changed(doc):  # the statement it says it proves, changed under entries that prove the real one
    doc["about"]["statement"] = doc["about"]["statement"].replace("=", "<=", 1)


def _scope_widened(doc):  # the scope it says it covers, widened
    doc["about"]["scope"]["d"] = "all, and every other encoding"


def _axioms_dropped(doc):  # an axiom the proof rests on, left out
    doc["about"]["axioms"] = []


def _syntactic_added(doc):  # a statement claimed as a syntactic obligation (never decided, never exported)
    doc["syntactic"] = [*doc["syntactic"], "|sin x| <= 1/2 for every x"]


# case -> (file edited, edit, exit code, what the failing line says)
FORGERIES = {
    "exp-ip-order-1-relation": ("THM-CPLX", _exp_ip, 1, "THM-CPLX.json"),
    "exp-ip-bare": ("THM-CPLX", _exp_ip_bare, 1, "(E) leaves"),
    "sin-z-bound-complex": ("THM-BOUND", _sin_z_bound, 1, "is not shown to be real"),
    "sin-x-2-fake-generator": ("THM-INJ", _sin_x_2_generator, 1, "2 quotients for the statement's 1 generators"),
    "sin-x-2-hypothesis-1": ("THM-INJ", _sin_x_2_hypothesis, 1, "hypotheses are not shown consistent"),
    "sin-x-2-generator-field": ("THM-DOT", _sin_x_2_identity, 1, "'generators'"),
    "empty-certificate": ("THM-DOT", _empty, 1, "no entries"),
    "text-not-bound": ("THM-DOT", _text_only, 1, "its text is not the statement"),
    "data-not-bound": ("THM-DOT", _data_only, 1, "its text is not the statement"),
    "renamed-inside": ("THM-DOT", _renamed, 1, "holds the certificate of 'THM-EVEN', not of THM-DOT"),
    "status-recomputed": ("THM-DOT", _status, 1, "not proven"),
    "rotary-rules-sin-cos-exchanged": ("THM-ROPE-REL", _rules_exchanged, 1, "lies inside no rule of its function"),
    "rotary-plan-off-its-table": ("THM-ROPE-REL", _plan_off_its_table, 1, "lies inside no rule of its function"),
    "trusted-list-shortened": ("THM-DOT", _trusted_dropped, 1, "'trusted' list is not the one every certificate carries"),
    "about-statement-changed": ("THM-DOT", _about_changed, 1, "its 'about' is not what this suite proves there"),
    "about-scope-widened": ("THM-BOUND", _scope_widened, 1, "its 'about' is not what this suite proves there"),
    "about-axioms-dropped": ("THM-INJ", _axioms_dropped, 1, "its 'about' is not what this suite proves there"),
    "syntactic-added": ("THM-DOT", _syntactic_added, 1, "its 'syntactic' is not what this suite proves there"),
}
CONFORMANCE_FORGERIES = ("rotary-rules-sin-cos-exchanged", "rotary-plan-off-its-table")


@pytest.mark.parametrize("case", list(FORGERIES))
def test_a_forged_certificate_is_rejected_naming_it(proof_certificates, tmp_path, case):
    tid, forge, want, says = FORGERIES[case]
    d = certificates_of(proof_certificates[0], tmp_path, tid)
    _edit(d, tid, forge)
    code, out = _check(d, tid)
    lines = [line for line in out.splitlines() if line.startswith("FAILED") and f"{tid}.json" in line]
    assert code == want and lines and any(says in line for line in lines), (case, out)
    assert "Traceback" not in out


@pytest.mark.parametrize("case", CONFORMANCE_FORGERIES)
def test_the_standalone_checker_decides_conformance_to_the_table(proof_certificates, tmp_path, case):
    """The forged rule table (or a plan off its table) is rejected by proofs/certcheck.py alone, from the entries'
    data (not by the binding to the installed suite): each forged segment entry fails, the counts still hold."""
    tid, forge, _, says = FORGERIES[case]
    d = certificates_of(proof_certificates[0], tmp_path, tid)
    _edit(d, tid, forge)
    alone = subprocess.run([sys.executable, "-I", str(Path(certcheck.__file__)), str(d), "--only", tid],
                           capture_output=True, text=True, timeout=TIMEOUT)
    failed = [line for line in alone.stdout.splitlines() if line.startswith("FAILED") and f"{tid}.json" in line]
    assert alone.returncode == 1 and len(failed) == (4 if "exchanged" in case else 2), alone.stdout
    assert all(says in line and "segment" in line for line in failed), failed


@pytest.mark.parametrize("key", ["about", "theorem", "entries"])
def test_a_key_written_twice_is_refused(proof_certificates, tmp_path, key):  # REQ-PROVE-CERT
    """A JSON object with a key twice: Python's reader keeps the last value, others the first, so a file could
    show one statement and be checked on another. A forged first copy is put before the real one: refused as
    unreadable (exit 2, one line), never checked on either value."""
    d = certificates_of(proof_certificates[0], tmp_path, "THM-DOT")
    path = d / "THM-DOT.json"
    doc = json.loads(path.read_text())
    forged = {"about": {**doc["about"], "statement": "PE(p).PE(p+k) <= 0"}, "theorem": "THM-EVEN", "entries": []}[key]
    path.write_text("{" + json.dumps(key) + ": " + json.dumps(forged) + ", " + json.dumps(doc)[1:])
    assert json.loads(path.read_text()) == doc  # the reader the checker uses sees only the real value
    code, out = _check(d, "THM-DOT")
    assert code == 2 and f"the key '{key}' appears twice in one object" in out and "Traceback" not in out, out


def test_a_certificate_copied_over_another_is_rejected(proof_certificates, tmp_path):
    d = certificates_of(proof_certificates[0], tmp_path, *PAIR)
    shutil.copy(d / "THM-DOT.json", d / "THM-EVEN.json")
    code, out = _check(d, *PAIR)
    assert code == 1 and "FAILED: THM-EVEN.json: holds the certificate of 'THM-DOT', not of THM-EVEN" in out, out


def test_a_symlink_between_certificates_is_refused(proof_certificates, tmp_path):
    d = certificates_of(proof_certificates[0], tmp_path, *PAIR)
    (d / "THM-EVEN.json").unlink()
    (d / "THM-EVEN.json").symlink_to("THM-DOT.json")
    code, out = _check(d, *PAIR)
    assert code == 2 and "THM-EVEN.json: unreadable (a symbolic link (refused))" in out and len(out.splitlines()) == 1, out


def _index(d: Path, fn) -> None:
    index = json.loads((d / "index.json").read_text())
    fn(index)
    (d / "index.json").write_text(json.dumps(index))


def test_a_fabricated_theorem_in_the_index_is_rejected(proof_certificates, tmp_path):
    d = certificates_of(proof_certificates[0], tmp_path, "THM-DOT")
    shutil.copy(d / "THM-DOT.json", d / f"{FAKE}.json")
    _index(d, lambda ix: (ix["theorems"].append(FAKE), ix["files"].append(f"{FAKE}.json")))
    code, out = _check(d, "THM-DOT")
    assert code == 1 and f"FAILED: index.json: lists {FAKE}, not a theorem of the suite" in out, out


def test_an_index_missing_a_theorem_is_rejected(proof_certificates, tmp_path):
    d = certificates_of(proof_certificates[0], tmp_path, *PAIR)
    _index(d, lambda ix: (ix["theorems"].remove("THM-DOT"), ix["files"].remove("THM-DOT.json")))
    code, out = _check(d, *PAIR)
    assert code == 1 and "FAILED: index.json: THM-DOT is missing" in out, out


@pytest.mark.parametrize("number", ["1/0", "9" * 5000, "0.5", 5, None, "1e3"])
def test_a_malformed_number_is_an_exit_2_line(proof_certificates, tmp_path, number):
    d = certificates_of(proof_certificates[0], tmp_path, "THM-DOT")
    _edit(d, "THM-DOT", lambda doc: doc["entries"][0].update(rhs=["+", doc["entries"][0]["rhs"], ["n", number]]))
    code, out = _check(d, "THM-DOT")
    assert code == 2 and len(out.strip().splitlines()) == 1 and "THM-DOT.json" in out and "Traceback" not in out, out


def test_a_fifo_index_is_refused_without_waiting(proof_certificates, tmp_path):
    d = certificates_of(proof_certificates[0], tmp_path, "THM-DOT")
    (d / "index.json").unlink()
    os.mkfifo(d / "index.json")
    code, out = _check(d, "THM-DOT")  # a blocking open would hang until the timeout
    assert code == 2 and "index.json: not a regular file" in out and len(out.splitlines()) == 1, out


@pytest.mark.parametrize("plant", ["symlink", "dangling-symlink", "fifo"])
def test_a_link_or_fifo_planted_in_the_output_dir_is_refused(tmp_path, plant):
    out_dir, target = tmp_path / "out", tmp_path / "target.json"
    out_dir.mkdir()
    target.write_text("precious\n")
    planted = out_dir / "THM-CPLX.json"
    if plant == "fifo":
        os.mkfifo(planted)
    else:
        planted.symlink_to(target if plant == "symlink" else tmp_path / "nowhere.json")
    res = run_sinpe("prove", "--only", "THM-CPLX", "--certificates", out_dir, timeout=TIMEOUT)
    err = res.stdout + res.stderr
    assert res.returncode == 2 and "THM-CPLX.json exists and is not a regular file" in err and "Traceback" not in err, err
    assert target.read_text() == "precious\n" and not (tmp_path / "nowhere.json").exists()
    assert planted.is_symlink() if plant != "fifo" else planted.is_fifo()
    assert not any(out_dir.glob("*.tmp")) and not (out_dir / "index.json").exists()


def test_an_unsound_prover_writes_certificates_the_checker_rejects(tmp_path, monkeypatch):
    """A normal form that merges sums over different ranges "proves" a false THM-DOT (the pairs' sum stopped one
    short), the witness switched off so the prover says proven; its certificates carry the statement and the
    checker's own RULE-SUM-LINEARITY (ranges in the unknown's key) rejects it."""
    import sympy as sp

    from sinpe.proofs import normal, witness
    from sinpe.proofs.certificates import write_suite
    from sinpe.spec import theorems as T
    sound = normal.normal_sides

    def merged_ranges(lhs, rhs, at=()):
        one = lambda e: sp.sympify(e).replace(lambda x: isinstance(x, sp.Sum),
                                              lambda s: sp.Sum(s.function, (s.limits[0][0], 0, T.N - 1)))
        return sound(one(lhs), one(rhs), at)
    short = lambda f: sp.Sum(f(sp.Symbol("i", integer=True)), (sp.Symbol("i", integer=True), 0, T.N - 2))
    monkeypatch.setattr(normal, "normal_sides", merged_ranges)
    monkeypatch.setattr(T, "pair_sum", short)
    monkeypatch.setattr(witness, "witness", lambda obs, *a, **k: (True, "switched off"))
    monkeypatch.setattr("sinpe.proofs.engine.ObligationTheorem.obligations",  # no cached (true) statements
                        lambda self: [ob for c in self._claims() for ob in c.obligations()])
    results, _ = write_suite(str(tmp_path), ["THM-DOT"])
    assert results[0].proven  # the unsound prover believes it
    monkeypatch.undo()
    code, out = _check(tmp_path, "THM-DOT")
    failed = [line for line in out.splitlines() if line.startswith("FAILED: THM-DOT.json")]
    assert code == 1 and sum("(E) leaves" in line for line in failed) == 3, out  # its 3 obligations, re-decided
    standalone = subprocess.run([sys.executable, "-I", str(Path(certcheck.__file__)), str(tmp_path), "--only", "THM-DOT"],
                                capture_output=True, text=True, timeout=TIMEOUT)
    assert standalone.returncode == 1 and standalone.stdout.count("(E) leaves") == 3, standalone.stdout


def test_a_true_statement_in_place_of_the_theorems_is_rejected(proof_certificates, tmp_path):
    """lhs = lhs + 0 holds: the standard-library checker alone verifies it, and `sinpe prove --check-certificates`
    refuses it because it is not the statement this suite decides there."""
    d = certificates_of(proof_certificates[0], tmp_path, "THM-DOT")

    def trivial(doc):
        e = doc["entries"][0]
        e["rhs"] = ["+", e["lhs"], ["n", "0"]]
        e["text"] = certcheck.render_entry(e)
    _edit(d, "THM-DOT", trivial)
    alone = subprocess.run([sys.executable, "-I", str(Path(certcheck.__file__)), str(d), "--only", "THM-DOT"],
                           capture_output=True, text=True, timeout=TIMEOUT)
    assert alone.returncode == 0, alone.stdout
    code, out = _check(d, "THM-DOT")
    assert code == 1 and "FAILED: THM-DOT.json / interleaved, even d: PE(p).PE(p+k)" in out \
        and "not the statement this suite decides there" in out, out


@pytest.mark.parametrize("value", ["1e308", "inf", "nan", "-1", "0"])
def test_prove_claim_timeout_is_validated(value):
    """REQ-PROVE-CLAIM: --timeout beyond its documented maximum (or inf, nan, <= 0) is a usage error (exit 2,
    one line), never an OverflowError with exit 1 for a true claim."""
    res = run_sinpe("prove", "--claim", "x == x", "--timeout", value, timeout=TIMEOUT)
    assert res.returncode == 2 and "--timeout must be > 0 and at most 86400" in res.stderr, (res.returncode, res.stderr)
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1
