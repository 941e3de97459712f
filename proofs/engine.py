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

from sinpe.spec.theorems import ALL_PLANS, PAIRED_PLANS, PARAMETERS, Claim, K, Obligation, P, statement_text

from . import canonical, groebner, normal
from .budget import OutOfTime, budget

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
    status: str  # 'proven' | 'not-proven' | 'internal-error' (the witness refutes what the procedures proved)
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

    @property
    def exit_code(self) -> int:
        """REQ-CLI-EXIT: 0 proven, 1 not proven, 3 an internal error (procedures and witness disagree)."""
        return {"proven": 0, "not-proven": 1}.get(self.status, 3)

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


def symbols_of(obs: list[Obligation], extra: tuple[sp.Symbol, ...] = ()) -> set[sp.Symbol]:
    """Every symbol the obligations are decided with (their ``at`` values included), and the steps' ``extra``."""
    out = set(extra)
    for ob in obs:
        for side in (ob.lhs, ob.rhs, *(v for _, v in ob.at)):
            out |= sp.sympify(side).free_symbols
        out -= {s for s, _ in ob.at}
    return {x for x in out if not isinstance(x, sp.Dummy)}


def hypotheses(obs: list[Obligation], extra: tuple[sp.Symbol, ...] = ()) -> dict[str, list[str]]:
    """Every symbol the obligations (and the steps' ``extra`` symbols) are decided with, and its assumptions:
    what the proof assumes of it (a symbol may occur with several assumption sets, e.g. alpha real in the
    identities and real, nonzero in an odd-d step)."""
    out: dict[str, set[str]] = {}
    for x in symbols_of(obs, extra):
        out.setdefault(x.name, set()).add(assumption_words(x))
    return {k: sorted(v) for k, v in sorted(out.items())}


def coverage_text(plans: set[str]) -> str:
    """The widths a statement is about, by the plans its obligations cover."""
    if set(plans) == set(ALL_PLANS):
        return "all"
    if set(plans) == set(PAIRED_PLANS):
        return "all with every column paired or zero (even d; odd d: zero-pad)"
    return "; ".join(p for p in ALL_PLANS if p in plans)


def scope_of(hyps: dict[str, list[str]], plans: set[str] | None, d: str | None = None) -> dict[str, Any]:
    """The scope printed from what was decided: the widths (``d``, from the plans covered, or as given), each
    parameter of DEF-FAMILY with its assumptions ('n/a' where no obligation uses it) and the other variables."""
    out: dict[str, Any] = {"d": d if d is not None else coverage_text(plans or set())}
    for name in PARAMETERS:
        if name in hyps:
            out[name] = "symbolic " + " | ".join(hyps[name])
        elif name in ("alpha", "sigma", "o"):
            out[name] = "n/a (not in the statement)"
    out["variables"] = {k: " | ".join(v) for k, v in hyps.items() if k not in PARAMETERS}
    return out


def scope_mismatch(declared: tuple[str, ...], hyps: dict[str, list[str]]) -> list[str]:
    """REQ-PROVE: a scope names exactly the parameters the decision used: one it names that no obligation uses
    (the statement is narrower than claimed), or one used that it omits (wider), is refused."""
    used = {k for k in hyps if k in PARAMETERS}
    out = [f"scope names {name}, which no obligation uses" for name in declared if name not in used]
    out += [f"scope omits {name} ({', '.join(hyps[name])}), which the decision used" for name in sorted(used - set(declared))]
    return out


def distinct(obs: list[Obligation]) -> tuple[list[Obligation], int]:
    """The obligations with duplicates merged (same method, sides and ``at``; names differ): counts are of
    distinct decided statements. Returns (distinct, how many were merged)."""
    seen: dict[tuple, Obligation] = {}
    for ob in obs:
        seen.setdefault(same_statement(ob), ob)
    return list(seen.values()), len(obs) - len(seen)


def same_statement(ob: Obligation) -> tuple:
    """What decides an obligation (method, sides, ``at``), never its name: two obligations with the same key
    get the same verdict from :func:`decide_obligation`."""
    return ob.method, sp.srepr(ob.lhs), sp.srepr(ob.rhs), ob.at


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

STEP_BUDGET = 60.0      # seconds for one obligation's decision, or one theorem's batch of steps (REQ-PROVE-BUDGET)
THEOREM_BUDGET = 300.0  # seconds for the cross-check of one theorem


def _timed(seconds: float, fn: Any, *args: Any) -> tuple[Any, str]:
    """``(fn(*args), "")``, or ``(None, why)`` when it ran past ``seconds`` (a failed step, never a hang)."""
    try:
        with budget(seconds):
            return fn(*args), ""
    except OutOfTime as exc:
        return None, str(exc)


def _cross_check_one(item: Any) -> tuple[bool, str]:
    """One cross-check item: an :class:`Obligation` decided (under :data:`STEP_BUDGET`), or a decided step
    ``(ok, size, what)``."""
    if isinstance(item, Obligation):
        got, late = _timed(STEP_BUDGET, decide_obligation, item)
        ok, _, why = got if got is not None else (False, 0, late)
        return ok, f"cross-check {item.name}: {why}"
    ok, _, what = item
    return ok, f"cross-check {what}"


class ObligationTheorem:
    """A THM-* proven by symbolic (every-d) claims and steps; concrete instances are a cross-check.

    ``claims() -> [Claim]`` is the statement and, through :meth:`Claim.obligations`, the proof; ``steps(mutation)
    -> [(ok, size, what)]`` are decided steps that are not identities (plan bijection, layout conformance, odd-d
    systems); ``concrete() -> [Obligation]`` the cross-check. ``params`` are the DEF-FAMILY parameters the
    statement quantifies over and ``plans`` the channel plans it is about (``per_label``: its claims are about
    one label, lifted to those plans by THM-LIFT): both are checked against what the obligations use and cover.
    ``describe()`` adds the clauses of its steps, printed from the data they decide (e.g. DEF-LAYOUT's table).
    """

    def __init__(self, id: str, method: str, claims: Any, params: tuple[str, ...], plans: tuple[str, ...] = ALL_PLANS,
                 per_label: bool = False, concrete: Any = None, steps: Any = None, mutations: tuple[str, ...] = MUTATIONS,
                 step_mutations: tuple[str, ...] = (), axioms: tuple[str, ...] = (), rules: tuple[str, ...] = (),
                 instances: Any = None, step_symbols: tuple[sp.Symbol, ...] = (), d: str | None = None,
                 describe: Any = None) -> None:
        from sinpe.spec.theorems import STATEMENTS
        self.id, self.method, self._claims, self.params, self.plans = id, method, claims, params, plans
        self.per_label, self.d, self._describe = per_label, d, describe
        self.step_symbols = step_symbols  # the symbols (with assumptions) the steps decide with
        self.title = STATEMENTS[id]
        self._concrete, self._steps, self.axioms, self.rules = concrete, steps, axioms, rules
        self._instances = instances
        self.step_mutations = step_mutations
        self._bases = mutations
        self._cache: list[Obligation] | None = None
        self._claim_cache: list[Claim] | None = None

    @property
    def mutations(self) -> tuple[str, ...]:
        """The mutations that apply: each base kind on the first and on the last decided obligation."""
        obs = self.obligations()
        out = [m for base in self._bases for m in (base, f"{base}@last") if mutate(obs, m) is not None]
        return tuple(dict.fromkeys(out)) + self.step_mutations

    def claims(self) -> list[Claim]:
        if self._claim_cache is None:
            self._claim_cache = list(self._claims())
        return list(self._claim_cache)

    def obligations(self) -> list[Obligation]:
        if self._cache is None:
            self._cache = [ob for c in self.claims() for ob in c.obligations()]
        return list(self._cache)

    @property
    def statement(self) -> str:
        """Printed from the claims (and the data the steps decide), never typed."""
        parts = [statement_text(self.claims(), self.plans)] if self.claims() else []
        if self._describe is not None:
            parts.append(self._describe())
        return "; ".join(p for p in parts if p)

    def _decide_all(self, obs: list[Obligation]) -> tuple[int, int, int, list[str]]:
        size, decided, syntactic, failures = 0, 0, 0, []
        for ob in obs:
            if is_syntactic(ob):
                syntactic += 1
                continue
            got, late = _timed(STEP_BUDGET, decide_obligation, ob)
            ok, n, why = got if got is not None else (False, 0, late)
            size += n
            decided += 1
            if not ok:
                failures.append(f"{ob.name}: {why}")
                break  # one failed obligation decides the theorem; the rest would only cost time
        return size, decided, syntactic, failures

    def _cross_check(self) -> tuple[int, list[str]]:
        """The concrete instances in the order ``concrete()`` yields them, each decided as it comes, the whole under
        :data:`THEOREM_BUDGET` (each obligation under :data:`STEP_BUDGET`); the first that fails ends it (those after
        it are not built). An obligation equal to one already decided (:func:`same_statement`: the instances of
        many plans and widths repeat) is counted and not decided again."""
        checked, held = 0, set()
        try:
            with budget(THEOREM_BUDGET):
                for item in self._concrete():
                    for x in item.obligations() if isinstance(item, Claim) else [item]:
                        key = same_statement(x) if isinstance(x, Obligation) else None
                        checked += 1
                        if key in held:
                            continue
                        ok, what = _cross_check_one(x)
                        if not ok:
                            return checked, [what]
                        if key is not None:
                            held.add(key)
        except OutOfTime as exc:
            return checked, [f"cross-check: {exc}"]
        return checked, []

    def _coverage(self, obs: list[Obligation], steps: list[tuple[bool, int, str]]) -> list[str]:
        """The plans the statement claims (``plans``) and those its obligations and plan steps cover agree."""
        if self.per_label:
            return []
        from .symbolic import STEP_PLANS
        # a statement of claims is covered by its claims (steps beside them are premises); a statement of steps
        # (THM-LIFT) by the plans its steps decide
        covered = {ob.plan for ob in obs if ob.plan} or {STEP_PLANS[w].name for _, _, w in steps if w in STEP_PLANS}
        out = [f"the statement claims {p}, which no obligation or step covers" for p in self.plans if p not in covered]
        out += [f"obligations cover {p}, which the statement does not claim" for p in sorted(covered - set(self.plans))]
        return out

    def prove(self, mutation: str | None = None, witness: bool = True) -> ProofResult:
        import time

        from .witness import witness as run_witness
        t0 = time.perf_counter()
        obs = self.obligations()
        if mutation is not None and mutation not in self.step_mutations:
            if mutation not in self.mutations:
                raise ValueError(f"mutation {mutation!r} does not apply to {self.id}; known: {', '.join(self.mutations)}")
            m = mutate(obs, mutation)
            if m is None:
                raise ValueError(f"mutation {mutation!r} does not apply to {self.id}")
            obs = m
        tagged = obs  # the plans covered, before duplicates (the same identity for two plans) are merged
        obs, merged = distinct(obs)
        size, decided, syntactic, failures = self._decide_all(obs)
        steps: list[tuple[bool, int, str]] = []
        if self._steps is not None and not failures:
            got, late = _timed(STEP_BUDGET, lambda: list(self._steps(mutation if mutation in self.step_mutations else None)))
            steps = got if got is not None else [(False, 0, f"steps: {late}")]
            for ok, n, what in steps:
                size += n
                decided += 1
                if not ok:
                    failures.append(what)
        hyps = hypotheses(obs, self.step_symbols)
        if not failures:
            failures += scope_mismatch(self.params, hyps) + self._coverage(tagged, steps)
        checked = 0  # the cross-check last: it costs the most, and a statement already refused needs no cross-check
        if self._concrete is not None and mutation is None and not failures:
            checked, bad = self._cross_check()
            failures += bad
        status = "proven" if not failures else "not-proven"
        wtext = "not run (--no-witness)"
        if witness:
            ok_w, wtext = run_witness(obs)
            if status == "proven" and not ok_w:  # the procedures and the witness disagree: never a proof
                status = "internal-error"
                failures.append("internal error: the numeric witness refutes what the procedures proved: " + wtext)
        names = list(self._instances()) if self._instances else []
        return ProofResult(self.id, self.title, self.statement, self.method, status, time.perf_counter() - t0, size,
                           wtext, decided, names, list(self.axioms), failures, mutation, syntactic, checked,
                           scope_of(hyps, set(self.plans), self.d), list(self.rules), merged, hyps)
