"""Running obligations through the decision procedures; results; statement mutations (negative tests).

A theorem is proven iff every one of its obligations is decided true by its procedure
(``laurent``: :mod:`.canonical`; ``groebner``: :mod:`.groebner` with a re-checked quotient
certificate; ``sos``: remainder a manifest sum of squares). The numeric witness
(:mod:`.witness`) is reported next to it and is never part of the proof.

Mutations (``MUTATIONS``) turn a true statement into a false one the way a typo would; each
proof procedure must then report ``not-proven`` (tests/test_proofs_negative.py):

- ``sign``: a sin atom of the claim gets the opposite sign (a sign flipped in M_k); a nonzero
  constant claim (a norm, an origin value) is negated;
- ``sin-for-cos``: a cos atom of the claim becomes sin;
- ``shift``: one trig atom's ``omega*k`` becomes ``omega*(k+1)`` (``omega*(p+1)`` if it has no k);
- ``drop``: one term of a sum in the claim is dropped;
- ``tighten`` (bounds only): the claimed bound is halved.

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

from . import canonical, groebner

MUTATIONS: tuple[str, ...] = ("sign", "sin-for-cos", "shift", "drop")
KNOWN_MUTATIONS: tuple[str, ...] = MUTATIONS + ("tighten",)


@dataclass
class ProofResult:
    """One theorem's outcome. ``witness`` is a numeric smoke test, never the proof."""

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

    @property
    def proven(self) -> bool:
        return self.status == "proven"

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "statement": self.statement, "method": self.method,
                "status": self.status, "seconds": round(self.seconds, 3), "certificate_size": self.certificate_size,
                "witness": self.witness, "obligations": self.obligations, "instances": self.instances,
                "axioms": self.axioms, "failures": self.failures[:5], "mutation": self.mutation,
                "reproduce": f"sinpe prove --only {self.id}"}


def decide_obligation(ob: Obligation) -> tuple[bool, int, str]:
    """(proven, certificate size, reason) for one obligation by its method."""
    lhs, rhs = ob.lhs, ob.rhs
    if ob.at:
        lhs, rhs = sp.sympify(lhs).subs(dict(ob.at)), sp.sympify(rhs).subs(dict(ob.at))
    try:
        canonical.reject_floats(lhs, rhs)  # before ``lhs - rhs``: float subtraction can round to 0
    except canonical.NotCanonical as exc:
        return False, 0, f"outside the decided fragment: {exc}"
    if ob.method == "laurent":
        v = canonical.decide(lhs, rhs)
        return v.proven, v.size, v.reason
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
            return -e if e.is_number and e != 0 else None
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
        return e / 2 if e.is_number and e != 0 else None
    raise ValueError(f"unknown mutation {kind!r}; known: {', '.join(KNOWN_MUTATIONS)}")


def mutate(obs: list[Obligation], kind: str) -> list[Obligation] | None:
    """The statement with one claim mutated (rhs preferred, else lhs); None if nothing to mutate."""
    for side in ("rhs", "lhs"):
        for i, ob in enumerate(obs):
            if kind == "tighten" and ob.method != "sos":
                continue
            new = _mutate_expr(getattr(ob, side), kind)
            if new is not None and new != getattr(ob, side):
                return obs[:i] + [replace(ob, **{side: new}, name=f"{ob.name} [mutated: {kind}]")] + obs[i + 1:]
    return None


# ------------------------------------------------------------------------------ theorems made of obligations

class ObligationTheorem:
    """A THM-* whose statement is a list of obligations over instances (spec.theorems builders)."""

    mutations: tuple[str, ...] = MUTATIONS
    axioms: tuple[str, ...] = ()

    def __init__(self, id: str, method: str, build: Any, instances: Any, mutations: tuple[str, ...] = MUTATIONS,
                 extra: Any = None, axioms: tuple[str, ...] = ()) -> None:
        from sinpe.spec.theorems import STATEMENTS
        self.id, self.method, self._build, self._instances = id, method, build, instances
        self.title, self.statement = STATEMENTS[id]
        self.mutations = mutations
        self.extra = extra  # () -> list[(ok, size, what)]: steps that are not identities (odd-d, direction)
        self.axioms = axioms

    def obligations(self) -> tuple[list[Obligation], list[str]]:
        """The statement's obligations over its instances (built once; SymPy expressions are immutable)."""
        if getattr(self, "_cache", None) is None:
            self._cache = self._obligations()
        return list(self._cache[0]), list(self._cache[1])

    def _obligations(self) -> tuple[list[Obligation], list[str]]:
        obs: list[Obligation] = []
        names: list[str] = []
        for inst in self._instances():
            got = self._build(inst)
            if got:
                obs += got
                names.append(inst.name)
        return obs, names

    def prove(self, mutation: str | None = None) -> ProofResult:
        import time

        from .witness import witness
        t0 = time.perf_counter()
        obs, names = self.obligations()
        if mutation is not None:
            m = mutate(obs, mutation)
            if m is None:
                raise ValueError(f"mutation {mutation!r} does not apply to {self.id}")
            obs = m
        size, failures = 0, []
        for ob in obs:
            ok, n, why = decide_obligation(ob)
            size += n
            if not ok:
                failures.append(f"{ob.name}: {why}")
                break  # one failed obligation decides the theorem; the rest would only cost time
        n_extra = 0
        if self.extra is not None and not failures:
            for ok, n, what in self.extra():
                size += n
                n_extra += 1
                if not ok:
                    failures.append(what)
        ok_w, wtext = witness(obs)
        status = "proven" if not failures and ok_w else "not-proven"
        if not failures and not ok_w:
            failures.append("numeric witness contradicts the symbolic verdict: " + wtext)
        return ProofResult(self.id, self.title, self.statement, self.method, status, time.perf_counter() - t0, size,
                           wtext, len(obs) + n_extra, names, list(self.axioms), failures, mutation)
