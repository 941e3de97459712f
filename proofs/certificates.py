"""Proof certificates (REQ-PROVE-CERT, SPEC.md section 5): what each decision computed, as exact data.

``sinpe prove --certificates DIR`` proves each theorem while recording it, then writes ``DIR/<ID>.json``
(deterministic bytes) and ``DIR/index.json``. Per decided obligation, one entry:

- (E), (L): ``normal-form``: both sides as numerator/denominator polynomials (exponent vectors over named
  atoms, Gaussian-rational coefficients "p/q" or ["p/q", "r/s"]); the atoms' meanings as text; cofactors of
  the cyclotomic / log-power relations the reduction used;
- (G): ``ideal-membership``: f, the generators (Pythagorean s**2 + c**2 - 1, or a named hypothesis), the
  quotients and the remainder 0;
- (S): ``sos``: the same with the remainder, a manifest sum of squares, and the variables that are real;
- any other decided step (rational identities in n, positivity, assumption-engine facts, linear algebra,
  ball signs): ``uncertified`` with the reason: its internal form is not exported.

The witness's Arb balls (midpoint and radius as exact dyadic rationals) at its seeded points are recorded
too. :mod:`.certcheck` (standard library only) re-verifies the files; every entry is also checked by it
before it is written, and one that does not verify is written as ``uncertified`` (never pretended).
Recording is off unless asked: :func:`note_obligation`, :func:`note_step` and the witness hook cost
nothing otherwise.

>>> import sympy as sp
>>> from sinpe.spec.theorems import Obligation, K
>>> e = export_obligation(Obligation("pythagoras", sp.sin(K)**2 + sp.cos(K)**2, sp.Integer(1), "groebner"))
>>> e["kind"], e["variables"], e["quotients"], certcheck.check_entry(e)
('ideal-membership', ['s0', 'c0'], [[[[0, 0], '1']]], None)
>>> export_obligation(Obligation("double angle", sp.sin(2*K), 2*sp.sin(K)*sp.cos(K), "normal"))["procedure"]
'E'
"""
from __future__ import annotations

import json
import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from math import gcd
from typing import Any, Iterator

import sympy as sp

from . import canonical, certcheck, groebner, normal, witness
from .certcheck import SCHEMA

PROCEDURE = {"normal": "E", "laurent": "L", "groebner": "G", "sos": "S"}
TRUSTED = ("the rewrite of each statement into the recorded polynomials (each variable's meaning is recorded as text)",
           "assumption-engine facts (signs, realness, integrality) and the preconditions they discharge",
           "entries of kind 'uncertified' (counted, never verified)")


class Unexportable(ValueError):
    """The procedure's internal form has no exact polynomial export (the entry is 'uncertified')."""


# ------------------------------------------------------------------------------ recording

@dataclass
class Recorder:
    items: list[tuple] = field(default_factory=list)  # ("obligation", ob) | ("step", what, certificate)
    points: list[dict] = field(default_factory=list)  # the witness's balls

    def point(self, ob: Any, env: dict, a: Any, b: Any) -> None:
        self.points.append({"obligation": ob.name, "relation": "<=" if ob.method == "sos" else "==",
                            "env": {s.name: ball(v) for s, v in sorted(env.items(), key=lambda kv: kv[0].name)},
                            "lhs": ball(a), "rhs": ball(b)})


_ACTIVE: Recorder | None = None


def note_obligation(ob: Any) -> None:
    """A structural proof decided ``ob`` through its procedure (recorded only while certificates are written)."""
    if _ACTIVE is not None:
        _ACTIVE.items.append(("obligation", ob))


def note_step(what: str, certificate: groebner.Certificate | None = None) -> None:
    """A structural proof decided a step; ``certificate``: its ideal membership, exported when given."""
    if _ACTIVE is not None:
        _ACTIVE.items.append(("step", what, certificate))


@contextmanager
def recording() -> Iterator[Recorder]:
    global _ACTIVE
    rec, before = Recorder(), (_ACTIVE, witness.RECORD)
    _ACTIVE, witness.RECORD = rec, rec.point
    try:
        yield rec
    finally:
        _ACTIVE, witness.RECORD = before


# ------------------------------------------------------------------------------ exact data

def dyadic(x: Any) -> str:
    """An exact Arb number (a midpoint or a radius) as "p/q" with q a power of two."""
    man, exp = x.man_exp()
    v = Fraction(int(man)) * Fraction(2) ** int(exp)
    return str(v)


def ball(z: Any) -> dict:
    """A python-flint ``acb`` as {"re": [mid, rad], "im": [mid, rad]}, exact dyadic strings."""
    return {"re": [dyadic(z.real.mid()), dyadic(z.real.rad())], "im": [dyadic(z.imag.mid()), dyadic(z.imag.rad())]}


def _coefficient(c: sp.Expr) -> str | list[str]:
    re_, im = sp.re(c), sp.im(c)
    if not (re_.is_Rational and im.is_Rational):
        raise Unexportable(f"coefficient {c} is not a Gaussian rational")
    return str(re_) if im == 0 else [str(re_), str(im)]


def terms(e: sp.Expr, index: dict[sp.Symbol, int]) -> list:
    """The expanded (Laurent) polynomial ``e`` as sorted [[exponents], coefficient] over ``index``'s variables."""
    acc: dict[tuple[int, ...], sp.Expr] = {}
    for t in sp.Add.make_args(sp.expand(e)):
        if t == 0:
            continue
        c, exps = sp.Integer(1), [0] * len(index)
        for f in sp.Mul.make_args(t):
            base, x = f.as_base_exp()
            if f.is_number:
                c *= f
            elif base in index and x.is_Integer:
                exps[index[base]] += int(x)
            else:
                raise Unexportable(f"factor {f} is not a power of a named variable")
        key = tuple(exps)
        acc[key] = acc.get(key, sp.Integer(0)) + c
    return [[list(k), _coefficient(v)] for k, v in sorted(acc.items()) if sp.expand(v) != 0]


def variables(exprs: list[sp.Expr], first: list[sp.Symbol] = ()) -> tuple[dict[sp.Symbol, int], list[str]]:
    """Index and unique names of the free symbols of ``exprs`` (``first`` in order, then by name)."""
    syms = list(dict.fromkeys(first))
    rest = set().union(*(sp.sympify(e).free_symbols for e in exprs)) - set(syms)
    syms += sorted(rest, key=lambda s: (not isinstance(s, sp.Dummy), s.name, sp.srepr(s)))
    names: list[str] = []
    for s in syms:
        name, k = s.name, 1
        while name in names:
            k += 1
            name = f"{s.name}_{k}"
        names.append(name)
    return {s: i for i, s in enumerate(syms)}, names


# ------------------------------------------------------------------------------ per procedure

def _prepared(ob: Any) -> tuple[sp.Expr, sp.Expr]:
    lhs, rhs = sp.sympify(ob.lhs), sp.sympify(ob.rhs)
    if ob.at and ob.method != "normal":  # (E) substitutes ``at`` after its rewrite, as the engine does
        lhs, rhs = lhs.subs(dict(ob.at)), rhs.subs(dict(ob.at))
    canonical.reject_floats(lhs, rhs)
    return lhs, rhs


def _side(num: sp.Expr, den: sp.Expr, index: dict) -> dict:
    return {"num": terms(num, index), "den": terms(den, index)}


def _normal(ob: Any) -> dict:
    lhs, rhs = _prepared(ob)
    L, R, table, sums, _ = normal.normal_sides(lhs, rhs, ob.at)
    (ln, ld), (rn, rd) = (tuple(sp.expand(x) for x in sp.fraction(sp.together(s))) for s in (L, R))
    polys = [ln, ld, rn, rd]
    meaning = {**table.meaning, **table.opaque, **{S: sp.Sum(dep, (normal.JC, lo, hi)) for (dep, lo, hi), S in sums.items()}}
    rels, cofactors = _relations(table, ln * rd - rn * ld)
    index, names = variables(polys + [r for _, r in rels] + cofactors, [X for X in meaning if any(p.has(X) for p in polys)])
    return {"kind": "normal-form", **_named(index, names, meaning), "lhs": _side(ln, ld, index), "rhs": _side(rn, rd, index),
            "relations": [_relation(X, rel, q, table, index, names) for (X, rel), q in zip(rels, cofactors)]}


def _relations(table: normal.Table, diff: sp.Expr) -> tuple[list, list]:
    """The relations the reduction uses and their cofactors: diff = sum q_j rel_j (remainder 0, checked later)."""
    rels, cofactors, rest = [], [], sp.expand(diff)
    for X, rel in table.relations:
        if rest.has(X):
            q, rest = sp.div(rest, rel, X)
            rels.append((X, rel))
            cofactors.append(sp.expand(q))
    return rels, cofactors


def _relation(X: sp.Symbol, rel: sp.Expr, q: sp.Expr, table: normal.Table, index: dict, names: list[str]) -> dict:
    out = {"variable": names[index[X]], "poly": terms(rel, index), "cofactor": terms(q, index)}
    g = sp.expand(table.meaning[X].args[0] / (sp.I * sp.pi))
    if g.is_Rational:
        u, v = int(g.p), int(g.q)
        return {**out, "kind": "cyclotomic", "order": (2 * v) // gcd(u, 2 * v)}
    raise Unexportable(f"the relation {rel} (X**v = x**u for X = exp((u/v) log x)) is not re-derivable by the checker")


def _named(index: dict, names: list[str], meaning: dict) -> dict:
    return {"variables": names, "meaning": {names[i]: str(meaning.get(s, "a symbol of the statement")) for s, i in index.items()}}


def _laurent(ob: Any) -> dict:
    lhs, rhs = _prepared(ob)
    rewrite, meaning = canonical.atom_table(lhs, rhs)
    L, R = canonical.laurent(lhs, rewrite), canonical.laurent(rhs, rewrite)
    index, names = variables([L, R], [X for X in meaning if L.has(X) or R.has(X)])
    return {"kind": "normal-form", **_named(index, names, meaning), "lhs": _side(L, sp.Integer(1), index),
            "rhs": _side(R, sp.Integer(1), index), "relations": []}


def _generator(g: sp.Expr, index: dict, names: list[str]) -> dict:
    syms = sorted(g.free_symbols, key=lambda s: index.get(s, -1))
    if len(syms) == 2 and sp.expand(g - syms[0] ** 2 - syms[1] ** 2 + 1) == 0:
        return {"poly": terms(g, index), "pythagorean": [names[index[s]] for s in syms]}
    return {"poly": terms(g, index), "hypothesis": str(g)}


def ideal(c: groebner.Certificate, kind: str = "ideal-membership") -> dict:
    """A (re-checked) Groebner certificate f = sum q_i g_i + r as exact data."""
    if not c.proven:
        raise Unexportable(f"not proven: {c.reason}")
    polys = [c.f, c.remainder, *c.generators, *c.quotients]
    index, names = variables(polys, list(c.variables))
    out = {"kind": kind, "variables": names, "meaning": {n: "an indeterminate for sin / cos of a phase" if s in c.variables
                                                          else "a symbol of the statement" for s, n in zip(index, names)},
           "f": terms(c.f, index), "generators": [_generator(g, index, names) for g in c.generators],
           "quotients": [terms(q, index) for q in c.quotients], "remainder": terms(c.remainder, index)}
    if kind == "sos":
        out["real"] = [n for s, n in zip(index, names) if s in c.variables or s.is_real is True]
    return out


def _groebner(ob: Any) -> dict:
    lhs, rhs = _prepared(ob)
    return ideal(groebner.certify(lhs - rhs))


def _sos(ob: Any) -> dict:
    lhs, rhs = _prepared(ob)
    out = ideal(groebner.sos_bound(lhs, rhs), "sos")
    out["premises"] = [f"the bound {rhs} is nonnegative and every symbol and phase is real (assumption engine)",
                       "f = bound**2 - x**2 >= 0 on the real points gives |x| <= bound"]
    return out


_EXPORT = {"normal": _normal, "laurent": _laurent, "groebner": _groebner, "sos": _sos}


def uncertified(name: str, why: str, procedure: str = "step") -> dict:
    return {"name": name, "procedure": procedure, "kind": "uncertified", "why": why}


def export_obligation(ob: Any) -> dict:
    """One decided obligation as a certificate entry, verified by :mod:`.certcheck` before it is returned."""
    head = {"name": ob.name, "procedure": PROCEDURE.get(ob.method, ob.method),
            "statement": {"lhs": str(ob.lhs), "rhs": str(ob.rhs), "at": str(list(ob.at))}}
    try:
        entry = {**head, **_EXPORT[ob.method](ob)}
        certcheck.check_entry(entry)
        return entry
    except (certcheck.Failed, certcheck.Malformed) as exc:
        return {**head, "kind": "uncertified", "why": f"the exported form does not verify: {exc}"}
    except (Unexportable, canonical.NotCanonical, normal.Unsupported, sp.PolynomialError, KeyError, TypeError) as exc:
        return {**head, "kind": "uncertified", "why": f"not exportable: {exc}"}


def export_step(what: str, certificate: groebner.Certificate | None) -> dict:
    from .symbolic import STEP_MATCHES, STEP_PLANS, plan_json
    entry = None
    if certificate is None and what in STEP_PLANS:  # a plan or label step: the plan, decided again by certcheck
        entry = {"name": what, "procedure": "P", "kind": "plan", "plan": plan_json(STEP_PLANS[what])}
    elif certificate is None and what in STEP_MATCHES:  # THM-LAYOUT: the two plans' segments matched again
        a, b = STEP_MATCHES[what]
        entry = {"name": what, "procedure": "P", "kind": "plan-match", "plan": plan_json(a), "interleaved": plan_json(b)}
    if entry is not None:
        try:
            certcheck.check_entry(entry)
            return entry
        except (certcheck.Failed, certcheck.Malformed) as exc:
            return uncertified(what, f"its plan does not verify: {exc}", "P")
    if certificate is None:
        return uncertified(what, "a decided step (rational identity, polynomial positivity, assumption-engine fact, "
                                 "linear algebra or a ball sign) whose internal form is not exported")
    try:
        entry = {"name": what, "procedure": "G", **ideal(certificate)}
        certcheck.check_entry(entry)
        return entry
    except (certcheck.Failed, certcheck.Malformed, Unexportable) as exc:
        return uncertified(what, f"its ideal certificate is not exportable: {exc}", "G")


# ------------------------------------------------------------------------------ theorems and the suite

def _items(t: Any, rec: Recorder) -> tuple[list[tuple], list[str]]:
    """The decided items of theorem ``t`` (proof obligations, then steps) and its syntactic obligations' names."""
    from .engine import ObligationTheorem, distinct, is_syntactic
    if not isinstance(t, ObligationTheorem):
        return rec.items, []
    obs, _ = distinct(t.obligations())
    items: list[tuple] = [("obligation", ob) for ob in obs if not is_syntactic(ob)]
    if t._steps is not None:  # the steps of proofs/symbolic.py: rerun for their names (their form is not exported)
        items += [("step", what, None) for _, _, what in t._steps(None)]
    return items, [ob.name for ob in obs if is_syntactic(ob)]


def theorem_certificate(t: Any) -> tuple[Any, dict]:
    """Prove ``t`` while recording; (its ProofResult, its certificate document)."""
    with recording() as rec:
        result = t.prove()
    items, syntactic = _items(t, rec)
    entries = [export_obligation(i[1]) if i[0] == "obligation" else export_step(i[1], i[2]) for i in items]
    entries += [uncertified(f"{t.id}: decided step {i + 1} not seen by the recorder", "counted by the proof, not recorded")
                for i in range(result.obligations - len(entries))]
    wit = ({"points": rec.points} if rec.points else
           {"kind": "uncertified", "why": f"this theorem's witness is not balls at seeded points: {result.witness}"})
    doc = {"schema": SCHEMA, "theorem": t.id, "status": result.status, "method": result.method, "scope": result.scope,
           "decided": result.obligations, "syntactic": syntactic, "entries": entries, "witness": wit,
           "axioms": result.axioms, "trusted": list(TRUSTED), "counts": counts(entries)}
    return result, doc


def counts(entries: list[dict]) -> dict:
    """{"certified": {procedure: n}, "uncertified": {procedure: n}}."""
    out: dict[str, dict[str, int]] = {"certified": {}, "uncertified": {}}
    for e in entries:
        slot = out["uncertified" if e["kind"] == "uncertified" else "certified"]
        slot[e["procedure"]] = slot.get(e["procedure"], 0) + 1
    return {k: dict(sorted(v.items())) for k, v in out.items()}


def dumps(doc: dict) -> bytes:
    """Deterministic bytes: sorted keys, no whitespace, one trailing newline."""
    return (json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True) + "\n").encode("ascii")


def write_suite(directory: str, only: list[str] | None = None) -> tuple[list[Any], dict[str, dict]]:
    """Prove the theorems (all, or ``only``) and write their certificates; (results, summary per theorem)."""
    from .suite import get_theorem, theorems
    todo = [get_theorem(i) for i in only] if only else theorems()
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"--certificates {directory}: {exc.strerror or exc}") from None
    results, summary = [], {}
    for t in todo:
        result, doc = theorem_certificate(t)
        name = f"{t.id}.json"
        _write(os.path.join(directory, name), dumps(doc))
        results.append(result)
        summary[t.id] = {"file": name, **doc["counts"], "witness_points": len(doc["witness"].get("points", []))}
    index = {"schema": SCHEMA, "files": [s["file"] for s in summary.values()], "theorems": summary}
    _write(os.path.join(directory, certcheck.INDEX), dumps(index))
    return results, summary


def _write(path: str, data: bytes) -> None:
    try:
        with open(path, "wb") as fh:
            fh.write(data)
    except OSError as exc:
        raise ValueError(f"cannot write {path}: {exc.strerror or exc}") from None
