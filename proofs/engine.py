"""Running obligations through the decision procedures; results; statement mutations (negative tests).

A theorem is proven iff every one of its obligations is decided true by its procedure
(``laurent``: :mod:`.canonical`; ``groebner``: :mod:`.groebner` with a re-checked quotient
certificate; ``sos``: remainder a manifest sum of squares; ``normal``: :mod:`.normal`, the exponential
normal form with RULE-SUM-LINEARITY). Obligations already equal after plain ``expand`` are counted
apart as *syntactic*. The numeric witness
(:mod:`.witness`) is reported next to it and is never part of the proof.

Mutations (``MUTATIONS``) turn a true statement into a false one the way a typo would; each
proof procedure must then report ``not-proven`` (tests/test_proofs_negative.py):

- ``sign``: a sin atom of the claim gets the opposite sign (a sign flipped in M_k); a nonzero
  constant claim (a norm, an origin value) is negated;
- ``sin-for-cos``: a cos atom of the claim becomes sin;
- ``shift``: one trig atom's ``omega*k`` becomes ``omega*(k+1)`` (``omega*(p+1)`` if it has no k);
- ``drop``: one term of a sum in the claim is dropped;
- ``tighten`` (bounds only): the claimed bound is halved.

Each applies to the first obligation a procedure really decides (never a syntactic one); ``KIND@last``
to the last, so mutants reach past the first few obligations.

>>> import sympy as sp
>>> from sinpe.spec.theorems import Obligation, K
>>> ob = Obligation("demo", sp.cos(K)**2 + sp.sin(K)**2, sp.Integer(1), "groebner")
>>> decide_obligation(ob)[0], decide_obligation(mutate([ob], "sin-for-cos")[0])[0]
(True, False)
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import sympy as sp

from sinpe.spec.theorems import K, P, Obligation

from . import canonical, groebner, normal

MUTATIONS: tuple[str, ...] = ("sign", "sin-for-cos", "shift", "drop")
KNOWN_MUTATIONS: tuple[str, ...] = MUTATIONS + ("tighten",)


@dataclass
class ProofResult:
    """One theorem's outcome. ``witness`` is a numeric smoke test, never the proof.

    ``obligations`` counts the statements the procedures *decided* (steps included), ``syntactic`` those
    already equal after plain ``expand`` (no real work), ``cross_check`` the concrete-d instances checked
    next to the proof (never part of it); ``scope`` says for which d, alpha, sigma, o it is proven.
    """

    id: str
    title: str
    statement: str
    method: str
    status: str  # 'proven' | 'not-proven'
    seconds: float
    certificate_size: int
    witness: str
    obligations: int = 0
    instances: list[str] = field(default_factory=list)
    axioms: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    mutation: str | None = None
    syntactic: int = 0
    cross_check: int = 0
    scope: dict[str, Any] = field(default_factory=dict)
    rules: list[str] = field(default_factory=list)
    merged: int = 0  # duplicate obligations merged before counting (same sides, names differ)
    hypotheses: dict[str, list[str]] = field(default_factory=dict)  # symbol -> assumptions the decision used

    @property
    def proven(self) -> bool:
        return self.status == "proven"

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "statement": self.statement, "scope": self.scope,
                "method": self.method, "status": self.status, "seconds": round(self.seconds, 3),
                "obligations": {"decided": self.obligations, "syntactic": self.syntactic, "cross_check": self.cross_check,
                                "merged": self.merged},
                "hypotheses": self.hypotheses,
                "certificate_size": self.certificate_size, "witness": self.witness, "instances": self.instances,
                "axioms": self.axioms, "rules": self.rules, "failures": self.failures[:5], "mutation": self.mutation,
                "reproduce": f"sinpe prove --only {self.id}"}

    def summary_line(self) -> str:
        sc = ", ".join(f"{k} {v}" for k, v in self.scope.items())
        head = (f"{self.id:<12} {self.status:<10} {self.seconds:6.2f}s  {self.obligations:>4} decided, {self.syntactic:>3} syntactic, "
                f"{self.cross_check:>4} cross-check" + (f", {self.merged} duplicates merged" if self.merged else "") + f"  [{sc}]")
        lines = [head, f"{'':<12} {self.statement}", f"{'':<12} method: {self.method}", f"{'':<12} witness: {self.witness}"]
        if self.axioms:
            lines.append(f"{'':<12} axioms: {'; '.join(self.axioms)}")
        lines += [f"{'':<12} FAILED: {f}  (reproduce: sinpe prove --only {self.id})" for f in self.failures[:3]]
        return "\n".join(lines)


_WORDS = ("integer", "rational", "real", "positive", "nonnegative", "nonzero")
_IMPLIED = {"integer": {"rational", "real"}, "rational": {"real"}, "positive": {"real", "nonzero", "nonnegative"},
            "nonnegative": {"real"}}


def assumption_words(sym: sp.Symbol) -> str:
    """The assumptions a symbol carries, implied ones dropped: 'real, nonzero', 'positive', 'integer, nonnegative'."""
    have = [w for w in _WORDS if sym.assumptions0.get(w)]
    implied = set().union(*(_IMPLIED.get(w, set()) for w in have))
    return ", ".join(w for w in have if w not in implied) or "complex"


def hypotheses(obs: list[Obligation], extra: tuple[sp.Symbol, ...] = ()) -> dict[str, list[str]]:
    """Every symbol the obligations (and the steps' ``extra`` symbols) are decided with, and its assumptions:
    what the proof assumes of it (a symbol may occur with several assumption sets, e.g. alpha real in the
    identities and real, nonzero in an odd-d step)."""
    syms = {x for ob in obs for side in (ob.lhs, ob.rhs) for x in sp.sympify(side).free_symbols} | set(extra)
    out: dict[str, set[str]] = {}
    for x in syms:
        out.setdefault(x.name, set()).add(assumption_words(x))
    return {k: sorted(v) for k, v in sorted(out.items())}


# What a scope must say for each hypothesis of the named parameters (the others are the statement's variables).
_PHRASES = {("alpha", "nonzero"): "alpha != 0", ("sigma", "nonzero"): "sigma != 0", ("log_b", "nonzero"): "b != 1",
            ("b", "positive"): "b > 0", ("D", "positive"): "D > 0", ("sigma", "rational"): "sigma rational"}


def scope_gaps(scope: dict[str, Any], hyps: dict[str, list[str]]) -> list[str]:
    """The hypotheses the decision used that ``scope`` does not state (REQ-PROVE: the scope lists them all).
    A phrase counts when the scope's text says it, or the parameter's own entry carries the word."""
    text = " ".join(f"{k} {v}" for k, v in scope.items())
    gaps = []
    for (name, word), phrase in _PHRASES.items():
        used = any(word in w.split(", ") or (word == "nonzero" and "positive" in w) for w in hyps.get(name, ()))
        if used and phrase not in text and word not in str(scope.get(name, "")):
            gaps.append(f"{phrase} ({name}: {', '.join(hyps[name])})")
    return gaps


def distinct(obs: list[Obligation]) -> tuple[list[Obligation], int]:
    """The obligations with duplicates merged (same method, sides and ``at``; names differ): counts are of
    distinct decided statements. Returns (distinct, how many were merged)."""
    seen: dict[tuple, Obligation] = {}
    for ob in obs:
        seen.setdefault((ob.method, sp.srepr(ob.lhs), sp.srepr(ob.rhs), ob.at), ob)
    return list(seen.values()), len(obs) - len(seen)


def is_syntactic(ob: Obligation) -> bool:
    """Equal after plain ``expand``, before any ``at`` substitution: the obligation is true as built
    (definitional) and needs no decision procedure. An obligation with ``at`` whose sides differ as built
    is never syntactic: it is decided with ``at`` applied by the procedure (after the exponential rewrite
    for (E)), so SymPy's automatic cos(-x) -> cos(x) when a statement is built decides nothing."""
    if ob.method == "sos":
        return False
    return sp.expand(sp.sympify(ob.lhs) - sp.sympify(ob.rhs)) == 0


def decide_obligation(ob: Obligation) -> tuple[bool, int, str]:
    """(proven, certificate size, reason) for one obligation by its method."""
    lhs, rhs = ob.lhs, ob.rhs
    if ob.method == "normal":  # (E) applies ``at`` itself, after its rewrite
        try:
            canonical.reject_floats(lhs, rhs)
        except canonical.NotCanonical as exc:
            return False, 0, f"outside the decided fragment: {exc}"
        w = normal.decide(lhs, rhs, ob.at)
        return w.proven, w.size, w.reason
    if ob.at:
        lhs, rhs = sp.sympify(lhs).subs(dict(ob.at)), sp.sympify(rhs).subs(dict(ob.at))
    try:
        canonical.reject_floats(lhs, rhs)  # before ``lhs - rhs``: float subtraction can round to 0
    except canonical.NotCanonical as exc:
        return False, 0, f"outside the decided fragment: {exc}"
    if ob.method == "laurent":
        v = canonical.decide(lhs, rhs)
        return v.proven, v.size, v.reason
    if ob.method == "normal":
        w = normal.decide(lhs, rhs)
        return w.proven, w.size, w.reason
    if ob.method == "groebner":
        c = groebner.certify(lhs - rhs)
        ok = c.proven and groebner.recheck(c)
        return ok, c.size, c.reason or ("" if ok else "certificate failed the expand re-check")
    if ob.method == "sos":
        c = groebner.sos_bound(lhs, rhs)
        ok = c.proven and groebner.recheck(c)
        return ok, c.size, c.reason
    raise ValueError(f"unknown method {ob.method!r}")


# ------------------------------------------------------------------------------ mutations

def _first(atoms: set[sp.Expr]) -> sp.Expr | None:
    return sorted(atoms, key=sp.default_sort_key)[0] if atoms else None


def _mutate_expr(e: sp.Expr, kind: str) -> sp.Expr | None:
    e = sp.sympify(e)
    if kind == "sign":
        a = _first(e.atoms(sp.sin))
        if a is None:  # a constant claim (a norm, an origin value): flip its sign
            return -e if e != 0 and not e.has(sp.cos, sp.exp) else None
        return e.xreplace({a: -a})
    if kind == "sin-for-cos":
        a = _first(e.atoms(sp.cos))
        return None if a is None else e.xreplace({a: sp.sin(a.args[0])})
    if kind == "shift":
        trig = e.atoms(sp.sin, sp.cos, sp.exp)
        for var in (K, P):
            a = _first({t for t in trig if t.has(var)})
            if a is not None:
                return e.xreplace({a: a.func(a.args[0].subs(var, var + 1))})
        return None
    if kind == "drop":
        adds = sorted((x for x in sp.preorder_traversal(e) if isinstance(x, sp.Add)), key=lambda x: (-len(x.args), sp.default_sort_key(x)))
        if not adds:
            return None
        big = adds[0]
        return e.xreplace({big: sp.Add(*sorted(big.args, key=sp.default_sort_key)[1:])})
    if kind == "tighten":
        return e / 2 if e != 0 else None
    raise ValueError(f"unknown mutation {kind!r}; known: {', '.join(KNOWN_MUTATIONS)}")


def mutate(obs: list[Obligation], kind: str) -> list[Obligation] | None:
    """The statement with one *decided* claim mutated (rhs preferred, else lhs); None if nothing to mutate.

    ``kind@last`` mutates the last decided obligation instead of the first. Syntactic obligations
    (equal after ``expand``) are never the target: a mutant must change what a procedure decides.
    """
    base, _, where = kind.partition("@")
    if base == "origin-at-0":  # the pre-1.1 THM-BOUND claim PE(0)[cos] = alpha, false for o != 0
        for i, ob in enumerate(obs):
            if ob.at and ob.rhs != 0 and any(v != 0 for _, v in ob.at):
                return obs[:i] + [replace(ob, at=tuple((s, sp.Integer(0)) for s, _ in ob.at),
                                          name=f"{ob.name} [mutated: {kind}]")] + obs[i + 1:]
        return None
    order = list(range(len(obs)))
    if where == "last":
        order.reverse()
    elif where:
        raise ValueError(f"unknown mutation position {where!r} (use @last)")
    for i in order:
        ob = obs[i]
        if (base == "tighten") != (ob.method == "sos") or is_syntactic(ob):
            continue
        for side in ("rhs", "lhs"):
            new = _mutate_expr(getattr(ob, side), base)
            if new is not None and new != getattr(ob, side):
                return obs[:i] + [replace(ob, **{side: new}, name=f"{ob.name} [mutated: {kind}]")] + obs[i + 1:]
    return None


# ------------------------------------------------------------------------------ theorems made of obligations

class ObligationTheorem:
    """A THM-* proven by symbolic (every-d) obligations and steps; concrete instances are a cross-check.

    ``symbolic() -> [Obligation]`` is the proof; ``steps(mutation) -> [(ok, size, what)]`` are decided steps
    that are not identities (plan bijection, odd-d systems); ``concrete() -> [Obligation]`` the cross-check.
    """

    def __init__(self, id: str, method: str, symbolic: Any, scope: dict[str, Any], concrete: Any = None,
                 steps: Any = None, mutations: tuple[str, ...] = MUTATIONS, step_mutations: tuple[str, ...] = (),
                 axioms: tuple[str, ...] = (), rules: tuple[str, ...] = (), instances: Any = None,
                 step_symbols: tuple[sp.Symbol, ...] = ()) -> None:
        from sinpe.spec.theorems import STATEMENTS
        self.id, self.method, self._symbolic, self.scope = id, method, symbolic, scope
        self.step_symbols = step_symbols  # the symbols (with assumptions) the steps decide with
        self.title, self.statement = STATEMENTS[id]
        self._concrete, self._steps, self.axioms, self.rules = concrete, steps, axioms, rules
        self._instances = instances
        self.step_mutations = step_mutations
        self._bases = mutations
        self._cache: list[Obligation] | None = None

    @property
    def mutations(self) -> tuple[str, ...]:
        """The mutations that apply: each base kind on the first and on the last decided obligation."""
        obs = self.obligations()
        out = [m for base in self._bases for m in (base, f"{base}@last") if mutate(obs, m) is not None]
        return tuple(dict.fromkeys(out)) + self.step_mutations

    def obligations(self) -> list[Obligation]:
        if self._cache is None:
            self._cache = list(self._symbolic())
        return list(self._cache)

    def prove(self, mutation: str | None = None) -> ProofResult:
        import time

        from .witness import witness
        t0 = time.perf_counter()
        obs = self.obligations()
        if mutation is not None and mutation not in self.step_mutations:
            if mutation not in self.mutations:
                raise ValueError(f"mutation {mutation!r} does not apply to {self.id}; known: {', '.join(self.mutations)}")
            m = mutate(obs, mutation)
            if m is None:
                raise ValueError(f"mutation {mutation!r} does not apply to {self.id}")
            obs = m
        size, failures, decided, syntactic = 0, [], 0, 0
        obs, merged = distinct(obs)
        for ob in obs:
            if is_syntactic(ob):
                syntactic += 1
                continue
            ok, n, why = decide_obligation(ob)
            size += n
            decided += 1
            if not ok:
                failures.append(f"{ob.name}: {why}")
                break  # one failed obligation decides the theorem; the rest would only cost time
        if self._steps is not None and not failures:
            for ok, n, what in self._steps(mutation if mutation in self.step_mutations else None):
                size += n
                decided += 1
                if not ok:
                    failures.append(what)
        checked = 0
        if self._concrete is not None and mutation is None and not failures:
            for item in self._concrete():
                if isinstance(item, Obligation):
                    ok, n, why = decide_obligation(item)
                    what = f"cross-check {item.name}: {why}"
                else:
                    ok, n, what = item
                    what = f"cross-check {what}"
                checked += 1
                if not ok:
                    failures.append(what)
                    break
        hyps = hypotheses(obs, self.step_symbols)
        if not failures:
            failures += [f"scope omits a hypothesis the decision used: {h}" for h in scope_gaps(self.scope, hyps)]
        ok_w, wtext = witness(obs)
        status = "proven" if not failures and ok_w else "not-proven"
        if not failures and not ok_w:
            failures.append("numeric witness contradicts the symbolic verdict: " + wtext)
        names = list(self._instances()) if self._instances else []
        return ProofResult(self.id, self.title, self.statement, self.method, status, time.perf_counter() - t0, size,
                           wtext, decided, names, list(self.axioms), failures, mutation, syntactic, checked,
                           dict(self.scope), list(self.rules), merged, hyps)
