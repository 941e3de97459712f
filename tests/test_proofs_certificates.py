"""REQ-PROVE-CERT: `sinpe prove --certificates DIR` writes what each decision computed, and the standard-library
checker (`sinpe prove --check-certificates DIR`, proofs/certcheck.py) re-verifies it and can fail.

A fast subset of the suite covers every exported procedure: THM-BOUND ((S) and (E)), THM-INJ ((G) with named
hypotheses, (L), and uncertified steps), THM-ROPE-REL ((L)), THM-CPLX ((E) with a witness), THM-DOT ((E) with
sums, RULE-SUM-LINEARITY) and THM-ROT ((G), (E)).
Reproduce: sinpe prove --only THM-BOUND --certificates /tmp/c && sinpe prove --check-certificates /tmp/c
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sinpe.proofs import certcheck
from sinpe.proofs.certificates import write_suite
from sinpe.reference.cli import main

SUBSET = ["THM-BOUND", "THM-INJ", "THM-ROPE-REL", "THM-CPLX", "THM-DOT", "THM-ROT", "THM-LIFT", "THM-LAYOUT"]
CHECKER = Path(certcheck.__file__)


@pytest.fixture(scope="module")
def certdir(tmp_path_factory):
    d = tmp_path_factory.mktemp("certs")
    results, summary = write_suite(str(d), SUBSET)
    assert all(r.proven for r in results)
    return d, summary


def _copy(certdir, tmp_path, only=None) -> Path:
    d = tmp_path / "c"
    shutil.copytree(certdir[0], d)
    if only is not None:  # keep only these theorems in the index
        index = json.loads((d / "index.json").read_text())
        index["files"] = [f"{t}.json" for t in only]
        (d / "index.json").write_text(json.dumps(index))
    return d


def _check(d, capsys) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["prove", "--check-certificates", str(d)])
    out = capsys.readouterr()
    return code, out.out + out.err


def test_subset_certificates_verify_and_count_uncertified_steps(certdir, capsys):
    d, summary = certdir
    code, out = _check(d, capsys)
    assert code == 3 and "0 failed" in out.splitlines()[-1], out  # THM-INJ's assumption steps are uncertified
    procs = {p for s in summary.values() for p in s["certified"]}
    assert procs == {"E", "L", "G", "S", "P"}, summary
    assert summary["THM-LIFT"]["uncertified"] == {} and summary["THM-LAYOUT"]["uncertified"] == {}, summary
    assert sum(summary["THM-INJ"]["uncertified"].values()) > 0 and summary["THM-BOUND"]["uncertified"] == {}
    code, reports, problems = certcheck.check_directory(str(d))
    assert not problems and sum(r["verified"] for r in reports) == sum(sum(s["certified"].values()) for s in summary.values())
    assert all(r["witness_points"] > 0 for r in reports if r["theorem"] not in ("THM-INJ", "THM-LIFT"))  # steps only


def _full(certdir) -> list[str]:
    """The theorems of the subset whose every decided obligation is certified."""
    full = [t for t, s in certdir[1].items() if not s["uncertified"]]
    assert len(full) >= 2, certdir[1]
    return full


def test_fully_certified_theorems_exit_0(certdir, tmp_path, capsys):
    d = _copy(certdir, tmp_path, _full(certdir))
    code, out = _check(d, capsys)
    assert code == 0 and "all verified" in out, out


def test_certificates_are_deterministic_bytes(certdir, tmp_path):
    write_suite(str(tmp_path), ["THM-INJ", "THM-BOUND"])
    for name in ("THM-INJ.json", "THM-BOUND.json"):
        assert (tmp_path / name).read_bytes() == (certdir[0] / name).read_bytes(), name


def _entry(doc: dict, kind: str, pred=lambda e: True) -> dict:
    return next(e for e in doc["entries"] if e["kind"] == kind and pred(e))


def _bump(coef):
    """A coefficient changed by one."""
    if isinstance(coef, list):
        return [str(certcheck.rational(coef[0]) + 1), coef[1]]
    return str(certcheck.rational(coef) + 1)


def _tamper_normal(doc):  # (E): one coefficient of a side's numerator changed
    e = _entry(doc, "normal-form", lambda e: e["procedure"] == "E" and e["lhs"]["num"])
    e["lhs"]["num"][0][1] = _bump(e["lhs"]["num"][0][1])
    return e["name"]


def _tamper_laurent(doc):  # (L): one coefficient of the rhs changed
    e = _entry(doc, "normal-form", lambda e: e["procedure"] == "L" and e["rhs"]["num"])
    e["rhs"]["num"][-1][1] = _bump(e["rhs"]["num"][-1][1])
    return e["name"]


def _tamper_cofactor(doc):  # (G): one cofactor (quotient) term dropped
    e = _entry(doc, "ideal-membership", lambda e: any(e["quotients"]))
    q = next(q for q in e["quotients"] if q)
    q.pop(0)
    return e["name"]


def _tamper_sos(doc):  # (S): one sum-of-squares coefficient negated (f adjusted so the identity still holds)
    e = _entry(doc, "sos")
    term = e["remainder"][0]
    term[1] = str(-certcheck.rational(term[1]))
    e["f"] = [t for t in e["f"] if t[0] != term[0]] + [[term[0], term[1]]]
    return e["name"]


def _tamper_denominator(doc):  # (E): a denominator made the zero polynomial (a vacuous identity)
    e = _entry(doc, "normal-form", lambda e: e["procedure"] == "E")
    e["lhs"]["den"], e["rhs"]["den"] = [], []
    return e["name"]


def _tamper_witness(doc):  # a witness ball moved away from the other side's
    pt = doc["witness"]["points"][0]
    pt["lhs"]["re"][0] = str(certcheck.rational(pt["lhs"]["re"][0]) + 1)
    return pt["obligation"]


def _tamper_plan_column(doc):  # a plan segment moved one column (the checker decides the bijection again)
    e = _entry(doc, "plan", lambda e: e["plan"]["segments"][1]["a"] == 2)
    e["plan"]["segments"][1]["c"][1] += 2
    return e["name"]


def _tamper_plan_labels(doc):  # two sin segments and no cos: still a bijection onto the columns
    e = _entry(doc, "plan")
    e["plan"]["segments"][1]["kind"] = e["plan"]["segments"][0]["kind"]
    return e["name"]


def _tamper_plan_match(doc):  # THM-LAYOUT: the interleaved plan's bounds changed
    e = _entry(doc, "plan-match")
    e["interleaved"]["segments"][0]["hi"][1] -= 1
    return e["name"]


TAMPER = {"THM-LIFT:plan-column": ("THM-LIFT", _tamper_plan_column),
          "THM-LIFT:plan-labels": ("THM-LIFT", _tamper_plan_labels),
          "THM-LAYOUT:plan-match": ("THM-LAYOUT", _tamper_plan_match),
          "THM-BOUND:normal-coefficient": ("THM-BOUND", _tamper_normal),
          "THM-ROPE-REL:laurent-coefficient": ("THM-ROPE-REL", _tamper_laurent),
          "THM-INJ:cofactor-dropped": ("THM-INJ", _tamper_cofactor),
          "THM-BOUND:sos-negated": ("THM-BOUND", _tamper_sos),
          "THM-CPLX:zero-denominator": ("THM-CPLX", _tamper_denominator),
          "THM-CPLX:witness-ball": ("THM-CPLX", _tamper_witness)}


@pytest.mark.parametrize("case", list(TAMPER))
def test_a_tampered_certificate_fails_and_names_the_obligation(certdir, tmp_path, capsys, case):
    tid, tamper = TAMPER[case]
    d = _copy(certdir, tmp_path)
    path = d / f"{tid}.json"
    doc = json.loads(path.read_text())
    name = tamper(doc)
    path.write_text(json.dumps(doc))
    code, out = _check(d, capsys)
    assert code == 1, (case, out)
    failed = [line for line in out.splitlines() if line.startswith("FAILED")]
    assert failed and any(name in line for line in failed), (case, name, out)


def test_uncertified_is_never_counted_as_verified(certdir, tmp_path, capsys):
    tid = _full(certdir)[0]
    d = _copy(certdir, tmp_path, [tid])
    path = d / f"{tid}.json"
    doc = json.loads(path.read_text())
    doc["entries"][0] = {"name": doc["entries"][0]["name"], "procedure": "E", "kind": "uncertified", "why": "test"}
    path.write_text(json.dumps(doc))
    code, out = _check(d, capsys)
    assert code == 3 and "1 uncertified" in out.splitlines()[-1], out
    doc["entries"].pop()  # an entry removed: fewer entries than decided obligations
    path.write_text(json.dumps(doc))
    assert _check(d, capsys)[0] == 1


@pytest.mark.parametrize("bad", ["not json {", json.dumps({"schema": "other"}), json.dumps({"schema": certcheck.SCHEMA})])
def test_unreadable_input_is_exit_2_one_line(certdir, tmp_path, capsys, bad):
    d = _copy(certdir, tmp_path)
    (d / "THM-BOUND.json").write_text(bad)
    code, out = _check(d, capsys)
    assert code == 2 and len(out.strip().splitlines()) == 1 and "Traceback" not in out, out


def test_checker_refuses_oversize_input_and_non_rational_numbers(certdir, tmp_path, monkeypatch, capsys):
    d = _copy(certdir, tmp_path)
    monkeypatch.setattr(certcheck, "MAX_FILE_BYTES", 1000)
    code, out = _check(d, capsys)
    assert code == 2 and "refused before parsing" in out, out
    monkeypatch.undo()
    for text in ("1e3", "0.5", "__import__('os')", "1/0x2", "9" * 9000):
        with pytest.raises(certcheck.Malformed):
            certcheck.rational(text)


def test_checker_imports_only_the_standard_library(certdir):
    """Loaded from its file alone (as a reader would copy it), it checks the certificates without SymPy."""
    code = (f"import importlib.util, sys\n"
            f"spec = importlib.util.spec_from_file_location('certcheck', {str(CHECKER)!r})\n"
            f"m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
            f"rc = m.main([{str(certdir[0])!r}])\n"
            f"bad = sorted(n for n in sys.modules if n.split('.')[0] in ('sympy', 'mpmath', 'flint', 'sinpe', 'numpy'))\n"
            f"print('BAD', bad); sys.exit(rc)\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 3 and "BAD []" in p.stdout, (p.stdout, p.stderr)
    import ast
    tree = ast.parse(CHECKER.read_text())
    mods = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    mods |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert mods <= {"__future__", "fractions", "functools", "json", "hashlib", "os", "re", "sys"}, mods
    assert "eval(" not in CHECKER.read_text() and "exec(" not in CHECKER.read_text()


def test_cli_reports_certificate_counts(tmp_path, capsys):
    assert main(["prove", "--only", "THM-INJ", "--certificates", str(tmp_path), "--json"]) == 0
    c = json.loads(capsys.readouterr().out)[0]["certificates"]
    certified, uncertified = sum(c["certified"].values()), sum(c["uncertified"].values())
    assert {"G", "L"} <= set(c["certified"]) and uncertified > 0, c
    assert main(["prove", "--only", "THM-INJ", "--certificates", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    by = ", ".join(f"{k} {v}" for k, v in sorted(c["certified"].items()))
    assert f"certificates: {certified} certified ({by}), {uncertified} uncertified" in out, out
    assert main(["prove", "--check-certificates", str(tmp_path), "--only", "THM-DOT"]) == 2


def test_cyclotomic_relation_is_recomputed_by_the_checker():
    """(E) reduces atoms of i*pi modulo their cyclotomic polynomial: the checker recomputes it from the order."""
    import sympy as sp

    from sinpe.proofs.certificates import export_obligation
    from sinpe.spec.theorems import Obligation
    ob = Obligation("heptagon", sp.cos(2 * sp.pi / 7) + sp.cos(4 * sp.pi / 7) + sp.cos(6 * sp.pi / 7), sp.Rational(-1, 2), "normal")
    e = export_obligation(ob)
    assert e["kind"] == "normal-form" and e["relations"][0]["order"] == 14, e
    certcheck.check_entry(e)
    e["relations"][0]["order"] = 7  # a different root of unity: Phi_7 is not the recorded polynomial
    with pytest.raises(certcheck.Failed, match="heptagon: relation"):
        certcheck.check_entry(e)
    e["relations"][0]["order"] = 14
    e["relations"][0]["cofactor"] = []  # the cofactor dropped: the reduction no longer adds up
    with pytest.raises(certcheck.Failed, match="heptagon"):
        certcheck.check_entry(e)
