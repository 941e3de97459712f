"""Proof certificates (REQ-PROVE-CERT, SPEC.md section 5): every decided statement as data.

``sinpe prove --certificates DIR`` proves each theorem while recording it, then writes ``DIR/<ID>.json``
(deterministic bytes) and ``DIR/index.json``. One entry per decided statement, each carrying the statement
itself, never a polynomial the prover computed from it:

- an obligation of (E), (L), (G): ``identity``: lhs, rhs and its ``at`` substitution as expression trees
  (:func:`tree`: numbers "p/q", symbols with their assumptions, + * ^, sin cos tan exp log Abs Min Max, I pi E,
  Sum); of (S): ``bound`` (|lhs| <= rhs);
- a plan step: ``plan`` (the plan's integer linear forms), THM-LAYOUT's ``plan-match``; a conformance step
  (THM-LIFT's, THM-ROPE-*'s): ``conformance`` (the plan, the rule table of DEF-LAYOUT or DEF-ROPE-LAYOUT as
  segments of linear forms, and which of the step's claims: a segment inside a rule, a label count, d = 1);
- any other step: ``step`` with the facts its decision rests on (recorded by :mod:`.evidence` at the step
  site: rational identities, positivity on an integer range, assumption facts, ball signs, plan lookups,
  ideal memberships, linear systems and families, ...), each as data.

Each entry's ``text`` is rendered by :mod:`.certcheck` from its data. The witness's Arb balls (midpoint and
radius as exact dyadic rationals) at its seeded points are recorded too. :mod:`.certcheck` (standard library
only) re-derives and re-decides every entry; nothing the prover computed is trusted. An entry the exporter
cannot put into data is written ``uncertified`` (with the reason), never pretended.

>>> import sympy as sp
>>> from sinpe.spec.theorems import Obligation, K
>>> e = obligation_entry(Obligation("pythagoras", sp.sin(K)**2 + sp.cos(K)**2, sp.Integer(1), "groebner"))
>>> e["kind"], e["procedure"], e["text"], certcheck.check_entry(e)
('identity', 'G', 'cos(k)^2 + sin(k)^2 = 1  [k: real]', 'identity')
>>> tree(sp.Rational(-3, 4) * sp.Symbol("n", integer=True, positive=True))
['*', ['n', '-3/4'], ['s', 'n', ['integer', 'nonnegative', 'nonzero', 'positive', 'rational', 'real'], '']]
"""
from __future__ import annotations

import json
import os
import secrets
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

import sympy as sp

from . import certcheck, evidence, witness
from .certcheck import SCHEMA, TRUSTED

PROCEDURE = {"normal": "E", "laurent": "L", "groebner": "G", "sos": "S"}


class Unexportable(ValueError):
    """The statement has a node the certificate format does not carry (the entry is 'uncertified')."""


# ------------------------------------------------------------------------------ recording

@contextmanager
def recording() -> Iterator[tuple[evidence.Recorder, list[dict]]]:
    """Record the decided obligations, steps and facts (:mod:`.evidence`) and the witness's balls."""
    points: list[dict] = []
    before = witness.RECORD

    def point(ob: Any, env: dict, a: Any, b: Any) -> None:
        points.append({"obligation": ob.name, "relation": "<=" if ob.method == "sos" else "==",
                       "env": {s.name: ball(v) for s, v in sorted(env.items(), key=lambda kv: kv[0].name)},
                       "lhs": ball(a), "rhs": ball(b)})
    with evidence.recording() as rec:
        witness.RECORD = point
        try:
            yield rec, points
        finally:
            witness.RECORD = before


def dyadic(x: Any) -> str:
    """An exact Arb number (a midpoint or a radius) as "p/q" with q a power of two."""
    man, exp = x.man_exp()
    return str(Fraction(int(man)) * Fraction(2) ** int(exp))


def ball(z: Any) -> dict:
    """A python-flint ``acb`` as {"re": [mid, rad], "im": [mid, rad]}, exact dyadic strings."""
    return {"re": [dyadic(z.real.mid()), dyadic(z.real.rad())], "im": [dyadic(z.imag.mid()), dyadic(z.imag.rad())]}


# ------------------------------------------------------------------------------ expression trees

_HEADS = {sp.sin: "sin", sp.cos: "cos", sp.tan: "tan", sp.exp: "exp", sp.log: "log", sp.Abs: "Abs", sp.Min: "Min",
          sp.Max: "Max"}
_WORDS = ("integer", "negative", "nonnegative", "nonpositive", "positive", "rational", "real")


def _assumptions(s: sp.Symbol) -> list[str]:
    a = s.assumptions0
    words = [w for w in _WORDS if a.get(w) is True] + (["nonzero"] if s.is_zero is False else [])
    return sorted(words)


def tree(e: Any, names: dict | None = None) -> list:
    """The SymPy expression ``e`` as a JSON expression tree (the checker's input; children of + and * sorted,
    so the bytes do not depend on SymPy's internal order). ``names``: distinct Dummies keep distinct names."""
    e = sp.sympify(e)
    names = {} if names is None else names
    if e.is_Rational:
        return ["n", str(e)]
    if e in (sp.I, sp.pi, sp.E):
        return [{sp.I: "I", sp.pi: "pi", sp.E: "E"}[e]]
    if isinstance(e, sp.Symbol):
        return _symbol(e, names)
    if isinstance(e, (sp.Add, sp.Mul)):
        return ["+" if isinstance(e, sp.Add) else "*", *_sorted(e.args, names)]
    if isinstance(e, sp.Pow):
        return ["^", tree(e.base, names), tree(e.exp, names)]
    if isinstance(e, sp.Sum) and len(e.limits) == 1:
        j, lo, hi = e.limits[0]
        return ["Sum", tree(e.function, names), tree(j, names), tree(lo, names), tree(hi, names)]
    if e.func in _HEADS:
        args = _sorted(e.args, names) if e.func in (sp.Min, sp.Max) else [tree(a, names) for a in e.args]
        return [_HEADS[e.func], *args]
    raise Unexportable(f"{type(e).__name__} ({str(e)[:60]}) has no place in a certificate's expression tree")


def _sorted(args: tuple, names: dict) -> list:
    return sorted((tree(a, names) for a in args), key=lambda t: json.dumps(t, sort_keys=True))


def _symbol(s: sp.Symbol, names: dict) -> list:
    if s not in names:
        if not certcheck._NAME.match(s.name):
            raise Unexportable(f"symbol name {s.name!r}")
        words, tag = tuple(_assumptions(s)), "dummy" if isinstance(s, sp.Dummy) else ""
        taken, name, k = set(names.values()), s.name, 1
        while (name, words, tag) in taken:  # two Dummies of one name: kept apart
            k += 1
            name = f"{s.name}_{k}"
        names[s] = (name, words, tag)
    name, words, tag = names[s]
    return ["s", name, list(words), tag]


class _Trees:
    """Trees of one entry, its symbols named consistently."""

    def __init__(self) -> None:
        self.names: dict = {}

    def __call__(self, e: Any) -> list:
        return tree(e, self.names)

    def all(self, es: Any) -> list:
        return [self(e) for e in es]


# ------------------------------------------------------------------------------ entries

def obligation_entry(ob: Any) -> dict:
    """One decided obligation as an ``identity`` or ``bound`` entry: the statement's trees and its text."""
    t = _Trees()
    e = {"name": ob.name, "kind": "bound" if ob.method == "sos" else "identity", "procedure": PROCEDURE[ob.method],
         "lhs": t(ob.lhs), "rhs": t(ob.rhs)}
    if ob.method == "sos":
        if ob.at:
            raise Unexportable("a bound at a substitution")
    else:
        e["at"] = [[t(s), t(v)] for s, v in ob.at]
    e["text"] = certcheck.render_entry(e)
    return e


def _linear_n(e: Any) -> list[int]:
    from sinpe.spec.theorems import N
    return _integer_form(e, (N,))


def _column(e: Any) -> list[int]:
    from sinpe.spec.theorems import I_, N
    return _integer_form(e, (I_, N))


def _integer_form(e: Any, vs: tuple) -> list[int]:
    e = sp.expand(sp.sympify(e))
    cs = [e.coeff(v) for v in vs] + [e.subs({v: 0 for v in vs})]
    if sp.expand(sum((c * v for c, v in zip(cs[:-1], vs, strict=True)), sp.Integer(0)) + cs[-1] - e) != 0 or not all(c.is_Integer for c in cs):
        raise Unexportable(f"{e} is not an integer linear form in {vs}")
    return [int(c) for c in cs]


def _plan(plan: Any) -> dict:
    from .symbolic import plan_json
    return plan_json(plan)


def _lookup(plan: Any, col: Any, row: Any, out: Any = None) -> dict:
    data = {"plan": _plan(plan), "row": {"lo": _linear_n(row.lo), "hi": _linear_n(row.hi)}, "column": _column(col)}
    return {**data, "label": [out[0], _column(out[1])]} if out is not None and out is not True else data


def _ideal(c: Any) -> dict:
    """A Groebner certificate f = sum q_i g_i: the generators split into the statement's hypotheses and its
    circles s**2 + c**2 - 1; the quotients in that order; a rational point where every generator vanishes."""
    t = _Trees()
    hyps, circles, qh, qc = [], [], [], []
    for g, q in zip(c.generators, c.quotients, strict=False):
        syms = sorted(g.free_symbols, key=lambda s: c.variables.index(s) if s in c.variables else -1)
        if len(syms) == 2 and sp.expand(g - syms[0] ** 2 - syms[1] ** 2 + 1) == 0:
            circles.append(syms)
            qc.append(q)
        else:
            hyps.append(g)
            qh.append(q)
    point = _point(c.generators, circles)
    return {"hypotheses": t.all(hyps), "circles": [t.all(p) for p in circles], "conclusion": t(c.f),
            "quotients": t.all(qh + qc), "point": [[t(s), str(v)] for s, v in point.items()]}


def _point(gens: list, circles: list) -> dict:
    """Every circle at (s, c) = (0, 1) or (1, 0), the other symbols 0: the first such point where all vanish."""
    others = sorted(set().union(*(g.free_symbols for g in gens)) - {x for p in circles for x in p}, key=str)
    for s_val, c_val in ((0, 1), (1, 0)):
        at = {**{p[0]: sp.Integer(s_val) for p in circles}, **{p[1]: sp.Integer(c_val) for p in circles},
              **{x: sp.Integer(0) for x in others}}
        if all(sp.expand(g.subs(at)) == 0 for g in gens):
            return at
    return {}


def _fact_of(kind: str, data: dict, out: Any) -> dict:
    t = _Trees()
    make: dict[str, Callable[[], dict[str, Any]]] = {
        "rational-identity": lambda: {"lhs": t(data["lhs"]), "rhs": t(data["rhs"]),
                                      "at": [[t(x), t(v)] for x, v in data.get("at", ())]},
        "identity": lambda: {"procedure": "E", "lhs": t(data["lhs"]), "rhs": t(data["rhs"]),
                             "at": [[t(x), t(v)] for x, v in data.get("at", ())]},
        "positivity": lambda: {"expr": t(data["expr"]), "var": t(data["var"]), "from": int(data["start"])},
        "assumption": lambda: {"expr": t(data["expr"]), "property": data["property"]},
        "ball-sign": lambda: {"expr": t(data["expr"]), "sign": int(out)},
        "plan": lambda: {"plan": _plan(data["plan"])},
        "plan-lookup": lambda: _lookup(data["plan"], data["col"], data["row"], out),
        "plan-range": lambda: _lookup(data["plan"], data["col"], data["row"]),
        "inconsistent": lambda: {k: t.all(data[k]) if k != "expr" else t(data[k])
                                 for k in ("expr", "unknowns", "variables", "of")},
        "linear-family": lambda: {"claim": data["claim"], "expr": t(data["expr"]), "unknowns": t.all(data["unknowns"]),
                                  "variables": t.all(data["variables"]), "family": t.all(data["family"]),
                                  "params": t.all(data["params"]),
                                  **({"dimension": int(data["dimension"])} if data.get("dimension") is not None else {})},
        "distinct-on-integers": lambda: {"lhs": t(data["lhs"]), "rhs": t(data["rhs"]), "var": t(data["var"]),
                                         "from": int(data["start"])},
        "ideal": lambda: _ideal(data["certificate"]),
    }
    f = {"kind": kind, **make[kind]()}
    f["text"] = certcheck.render_fact(f)
    return f


def step_entry(what: str, facts: list[tuple], certificate: Any = None) -> dict:
    """A decided step: its facts as data; a plan step (no facts) certified by its plan."""
    from .symbolic import STEP_CONFORMS, STEP_MATCHES, STEP_PLANS
    found = facts + ([("ideal", {"certificate": certificate}, True)] if certificate is not None else [])
    if not found and what in STEP_CONFORMS:
        plan, rules, claim = STEP_CONFORMS[what]
        e = {"name": what, "kind": "conformance", "plan": _plan(plan), "rules": _rules(rules), "claim": list(claim)}
    elif not found and what in STEP_PLANS:
        e = {"name": what, "kind": "plan", "plan": _plan(STEP_PLANS[what])}
    elif not found and what in STEP_MATCHES:
        a, b = STEP_MATCHES[what]
        e = {"name": what, "kind": "plan-match", "plan": _plan(a), "interleaved": _plan(b)}
    elif not found:
        return uncertified(what, "the step recorded no fact")
    else:
        out = {json.dumps(f, sort_keys=True): f for f in (_fact_of(*x) for x in found) if not _as_built(f)}
        return {"name": what, "kind": "step", "facts": list(out.values())}
    e["text"] = certcheck.render_entry(e)
    return e


def _rules(rules: tuple) -> list[dict]:
    """A rule table (``LAYOUT_RULES``, ``ROTARY_RULES``: "column a*i + c holds (kind, i) for lo <= i < hi") as
    segments of integer linear forms, the plan's format."""
    return [{"kind": k, "lo": _linear_n(lo), "hi": _linear_n(hi), "a": int(a), "c": _linear_n(c)}
            for k, lo, hi, a, c in rules]


def _as_built(f: dict) -> bool:
    """An identity whose two sides are one tree (true as SymPy built it, e.g. a label index compared with
    itself), with no substitution or one that touches neither side, is no evidence: left out (a step with no
    other fact is then no certificate). The checker's rule: :func:`certcheck.as_built`."""
    return f["kind"] in ("identity", "rational-identity") and certcheck.as_built(f["lhs"], f["rhs"], f["at"])


def uncertified(name: str, why: str) -> dict:
    return {"name": name, "kind": "uncertified", "why": why}


def _export(item: tuple) -> dict:
    try:
        return obligation_entry(item[1]) if item[0] == "obligation" else step_entry(*item[1:])
    except (Unexportable, certcheck.Malformed) as exc:
        return uncertified(item[1].name if item[0] == "obligation" else item[1], f"not exportable: {exc}")


# ------------------------------------------------------------------------------ theorems and the suite

def _items(t: Any, rec: evidence.Recorder) -> tuple[list[tuple], list[str]]:
    """The decided items of theorem ``t`` (obligations, then steps with their facts) and its syntactic
    obligations' names. An ObligationTheorem's steps are listed again (recorded) for their names and facts."""
    from .engine import ObligationTheorem, distinct, is_syntactic
    if not isinstance(t, ObligationTheorem):
        return rec.items, []
    obs, _ = distinct(t.obligations())
    items: list[tuple] = [("obligation", ob) for ob in obs if not is_syntactic(ob)]
    if t._steps is not None:
        with evidence.recording() as srec:
            listed = t._steps(None)
        seen: dict[str, list] = {}
        for item in srec.items:
            if item[0] == "step":
                seen.setdefault(item[1], []).append(item[2:])
        for _, _, what in listed:
            facts, cert = seen[what].pop(0) if seen.get(what) else ([], None)
            items.append(("step", what, facts, cert))
    return items, [ob.name for ob in obs if is_syntactic(ob)]


def theorem_certificate(t: Any) -> tuple[Any, dict]:
    """Prove ``t`` while recording; (its ProofResult, its certificate document)."""
    with recording() as (rec, points):
        result = t.prove()
    items, syntactic = _items(t, rec)
    entries = [_export(i) for i in items]
    wit = ({"points": points} if points else
           {"kind": "none", "why": f"this theorem's witness is not balls at seeded points: {result.witness}"})
    about = _about(result)  # the prover's description of what the entries prove: not re-decided
    doc = {"schema": SCHEMA, "theorem": t.id, "status": result.status, "decided": result.obligations,
           "syntactic": syntactic, "entries": entries, "witness": wit, "about": about, "trusted": list(TRUSTED)}
    return result, doc


def _about(r: Any) -> dict:
    """What a certificate says its entries prove (its ``about``): the result's title, statement, method, scope and
    axioms, as the suite prints them."""
    return {"title": r.title, "statement": r.statement, "method": r.method, "scope": r.scope, "axioms": list(r.axioms)}


def _live(t: Any) -> tuple[list[tuple], list[str], dict]:
    """The items this suite decides for ``t``, its syntactic obligations' names and its ``about``, regenerated by
    the same code: an ObligationTheorem's obligations built (not decided), its steps listed and its statement and
    scope printed from them; a structural proof run (its facts come from its decisions)."""
    from .engine import ObligationTheorem, distinct, hypotheses, scope_of
    if isinstance(t, ObligationTheorem):
        items, syntactic = _items(t, evidence.Recorder())
        hyps = hypotheses(distinct(t.obligations())[0], t.step_symbols)
        about = {"title": t.title, "statement": t.statement, "method": t.method,
                 "scope": scope_of(hyps, set(t.plans), t.d), "axioms": list(t.axioms)}
        return items, syntactic, about
    with recording() as (rec, _):
        result = t.prove()
    items, syntactic = _items(t, rec)
    return items, syntactic, _about(result)


def suite_mismatches(directory: str, ids: list[str]) -> list[str]:
    """REQ-PROVE-CERT, binding to this suite: each certificate's entries must be, in order, the entries this
    installed suite writes (its statements regenerated, not decided again), so a true statement put in place
    of the theorem's (lhs = lhs + 0, a weaker bound) is refused. One line per mismatch, the file named."""
    from .suite import get_theorem
    out = []
    for t in [get_theorem(i) for i in ids]:
        name = f"{t.id}.json"
        doc = certcheck.parse(certcheck.read_file(os.path.join(directory, name)), name)
        entries = doc.get("entries") if isinstance(doc, dict) else None
        got: list[Any] = entries if isinstance(entries, list) else []
        items, syntactic, about = _live(t)
        want = [_export(i) for i in items]
        for field, value in (("about", about), ("syntactic", syntactic)):  # what the file says it proves, bound too
            if not isinstance(doc, dict) or json.dumps(doc.get(field), sort_keys=True) != json.dumps(value, sort_keys=True):
                out.append(f"{name}: its '{field}' is not what this suite proves there (statement, scope, method, axioms "
                           f"and syntactic obligations are regenerated and compared)")
        if len(got) != len(want):
            out.append(f"{name}: {len(got)} entries where this suite decides {len(want)} statements")
        bad = [(g, w) for g, w in zip(got, want, strict=False) if json.dumps(g, sort_keys=True) != json.dumps(w, sort_keys=True)]
        out += [f"{name} / {str(g.get('name') if isinstance(g, dict) else g)[:120]}: not the statement this suite "
                f"decides there ({w['name'][:80]})" for g, w in bad[:5]]
        if len(bad) > 5:
            out.append(f"{name}: {len(bad) - 5} more entries differ from this suite's")
    return out


def counts(entries: list[dict]) -> dict:
    """{"entries": {kind: n}, "facts": {kind: n}, "uncertified": n}."""
    out: dict = {"entries": {}, "facts": {}, "uncertified": 0}
    for e in entries:
        out["entries"][e["kind"]] = out["entries"].get(e["kind"], 0) + 1
        out["uncertified"] += e["kind"] == "uncertified"
        for f in e.get("facts", []):
            out["facts"][f["kind"]] = out["facts"].get(f["kind"], 0) + 1
    return {k: dict(sorted(v.items())) if isinstance(v, dict) else v for k, v in out.items()}


def dumps(doc: dict) -> bytes:
    """Deterministic bytes: sorted keys, no whitespace, one trailing newline."""
    return (json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True) + "\n").encode("ascii")


def write_suite(directory: str, only: list[str] | None = None) -> tuple[list[Any], dict[str, dict]]:
    """Prove the theorems (all, or ``only``) and write their certificates; (results, summary per theorem).
    Every target is checked before any proof runs: one that is a link, FIFO or device is refused (ValueError)."""
    from .suite import get_theorem, theorems
    todo = [get_theorem(i) for i in only] if only else theorems()
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"--certificates {directory}: {exc.strerror or exc}") from None
    names = [f"{t.id}.json" for t in todo] + [certcheck.INDEX]
    for name in names:
        _refuse_special(directory, name)
    results, summary = [], {}
    for t in todo:
        result, doc = theorem_certificate(t)
        write_file(directory, f"{t.id}.json", dumps(doc))
        results.append(result)
        summary[t.id] = {"file": f"{t.id}.json", **counts(doc["entries"]),
                         "witness_points": len(doc["witness"].get("points", []))}
    index = {"schema": SCHEMA, "theorems": [t.id for t in todo], "files": names[:-1]}
    write_file(directory, certcheck.INDEX, dumps(index))
    return results, summary


def _refuse_special(directory: str, name: str) -> None:
    path = os.path.join(directory, name)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise ValueError(f"--certificates: {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"--certificates: {path} exists and is not a regular file (a link, FIFO, device or "
                         "directory): refused, never followed or replaced")


def write_file(directory: str, name: str, data: bytes) -> None:
    """Write ``directory/name`` whole or not at all: a new temporary file (O_CREAT | O_EXCL | O_NOFOLLOW, in
    the directory opened once), renamed over the name, which must be absent or a regular file (a link planted
    there is refused, and a rename never writes through one)."""
    _refuse_special(directory, name)
    try:
        dfd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError as exc:
        raise ValueError(f"--certificates {directory}: {exc.strerror or exc}") from None
    tmp = f".{name}.{secrets.token_hex(6)}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666, dir_fd=dfd)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
    except OSError as exc:
        try:
            os.unlink(tmp, dir_fd=dfd)
        except OSError:
            pass
        raise ValueError(f"cannot write {os.path.join(directory, name)}: {exc.strerror or exc}") from None
    finally:
        os.close(dfd)
