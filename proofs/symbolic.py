"""Every-d steps: the symbolic column plan is a bijection, and the odd-d shift step (SPEC.md section 5).

Steps are decided exactly: rational-function identities (numerator of ``together`` expands to 0),
polynomial positivity on an integer range (``positive_from``: shift to the range's corner, read the
coefficients), SymPy's assumption engine for signs and integrality, and Laurent coefficients with the
AX-CHARACTERS precondition checked (:func:`sinpe.proofs.canonical.coefficients`).

>>> from sinpe.spec.theorems import PLANS
>>> all(ok for ok, _, _ in plan_steps(PLANS[0]))
True
>>> bad = mutate_plan(PLANS[4], "plan-offset")          # sin-cos: cos_i moved to column n + i + 1
>>> [what for ok, _, what in plan_steps(bad) if not ok][:1]
['sin-cos, even d: segment cos columns i + n + 1 lie in [0, d) for n >= 1']
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from itertools import islice
from typing import Any

import sympy as sp

from sinpe.spec import theorems as T
from sinpe.spec.definition import column_data
from sinpe.spec.profiles import Profile
from sinpe.spec.theorems import ALPHA, BASE, DEN, SIGMA, K, N, P, SymbolicPlan

from . import normal
from .canonical import NotCanonical, coefficients
from .evidence import fact, quiet, records, step

Step = tuple[bool, int, str]

# Hypotheses of the odd-d steps, as symbols whose assumptions the suite reads into each theorem's
# ``hypotheses`` (and checks against its scope): alpha != 0, sigma != 0, and b != 1 as log b != 0.
ALPHA_NZ = sp.Symbol("alpha", real=True, nonzero=True)
SIGMA_NZ = sp.Symbol("sigma", real=True, nonzero=True)
LOG_B = sp.Symbol("log_b", real=True, nonzero=True)  # log b for b > 0, b != 1

RULE_REINDEX = ("RULE-REINDEX: a sum over the columns j < d equals the sum over the plan's labels "
                "(the plan is a bijection onto {0..d-1})")
RULE_BLOCK = ("RULE-BLOCK: for M = P^T diag(B_i) P with P a permutation, M^T M, M_a M_b and det M are computed "
              "block by block (det M = prod det B_i)")


@records("rational-identity", "lhs", "rhs", "at")
def rational_identity(a: sp.Expr, b: sp.Expr, at: tuple = ()) -> bool:
    """a == b as rational functions (at the substitution ``at``): the numerator of together(a - b) expands to 0."""
    num, _ = sp.fraction(sp.together((sp.sympify(a) - sp.sympify(b)).subs(list(at))))
    return sp.expand(num) == 0


@records("positivity", "expr", "var", "start")
def positive_from(poly: sp.Expr, var: sp.Symbol, start: int) -> bool:
    """poly(var) > 0 for every integer var >= start: after var -> start + m the coefficients are >= 0, constant > 0."""
    m = sp.Dummy("m")
    num, den = sp.fraction(sp.together(sp.sympify(poly).subs(var, start + m)))
    ok = True
    for part in (num, den):
        pp = sp.Poly(sp.expand(part), m)
        cs = pp.all_coeffs()
        ok = ok and all(c.is_Rational and c >= 0 for c in cs) and pp.eval(0) > 0
    return ok


@records("identity", "lhs", "rhs", "at")
def normal_identity(lhs: sp.Expr, rhs: sp.Expr, at: tuple = ()) -> bool:
    """lhs == rhs (``at`` substituted after the rewrite) decided by (E), the exponential normal form."""
    return normal.decide(lhs, rhs, at).proven


_ASSUMED = {"nonzero": lambda e: e.is_zero is False, "positive": lambda e: e.is_positive is True,
            "negative": lambda e: e.is_negative is True, "nonnegative": lambda e: e.is_nonnegative is True,
            "rational": lambda e: e.is_rational is True, "irrational": lambda e: e.is_irrational is True}


@records("assumption", "expr", "property")
def assumed(e: sp.Expr, prop: str) -> bool:
    """``e`` has ``prop`` by SymPy's assumption engine (a certificate re-derives it by explicit rules)."""
    return _ASSUMED[prop](sp.sympify(e))


def _label(s: T.Segment) -> str:
    return f"segment {s.kind} columns {s.a * sp.Symbol('i') + s.c}"


# The plan each plan/label step was decided on, by the step's text: `sinpe prove --certificates` exports it so
# that proofs/certcheck.py decides the same bijection and label partition again, from the linear forms.
STEP_PLANS: dict[str, SymbolicPlan] = {}
STEP_MATCHES: dict[str, tuple[SymbolicPlan, SymbolicPlan]] = {}  # THM-LAYOUT: (plan, interleaved plan) per step
# A conformance step (THM-LIFT's, THM-ROPE-*'s): (plan, rule table, claim); claim ("segment", k) | ("labels", kind)
# | ("d=1",): certcheck decides the same containment, column maps, label counts and n = 0 from the linear forms.
STEP_CONFORMS: dict[str, tuple[SymbolicPlan, tuple, tuple]] = {}


def _noted(plan: SymbolicPlan, steps: list[Step]) -> list[Step]:
    for _, _, what in steps:
        STEP_PLANS[what] = plan
    return steps


def prefixed(prefix: str, steps: list[Step]) -> list[Step]:
    """The steps named ``prefix + what``, what certifies each (its plan, match or conformance) kept for the new name."""
    out = []
    for ok, size, what in steps:
        registries: tuple[dict[str, Any], ...] = (STEP_PLANS, STEP_MATCHES, STEP_CONFORMS)
        for registry in registries:
            if what in registry:
                registry[prefix + what] = registry[what]
        out.append((ok, size, prefix + what))
    return out


def plan_json(plan: SymbolicPlan) -> dict:
    """The plan as integer linear forms [q, r] (q n + r) per segment bound: the certificate checker's input."""
    def form(e: sp.Expr) -> list[int]:
        q, r = (sp.Poly(sp.sympify(e), N).all_coeffs() + [0, 0])[:2] if sp.sympify(e).has(N) else (0, sp.sympify(e))
        return [int(q), int(r)]
    return {"odd": plan.odd, "unpaired": plan.unpaired(),
            "segments": [{"kind": s.kind, "lo": form(s.lo), "hi": form(s.hi), "a": int(s.a), "c": form(s.c)}
                         for s in plan.segments()]}


@quiet  # certified by the plan itself (the 'plan' entries)
def plan_steps(plan: SymbolicPlan, n0: int = 1) -> list[Step]:
    """The plan maps its d labels injectively into [0, d) for every n >= n0, hence bijectively (pigeonhole);
    and for odd plans the case n = 0 (d = 1) is computed."""
    return _noted(plan, _plan_steps(plan, n0))


def _plan_steps(plan: SymbolicPlan, n0: int) -> list[Step]:
    out: list[Step] = []
    d = plan.d()
    segs = plan.segments()
    total = sum((s.hi - s.lo for s in segs), sp.Integer(0))
    out.append((rational_identity(total, d), 1, f"{plan.name}: the plan has {total} = d labels"))
    lo_hi = []
    for s in segs:
        first, last = s.a * s.lo + s.c, s.a * (s.hi - 1) + s.c
        lo_hi.append((first, last))
        out.append((positive_from(s.hi - s.lo, N, n0), 1, f"{plan.name}: {_label(s)} nonempty for n >= {n0}"))
        out.append((positive_from(first + 1, N, n0) and positive_from(d - last, N, n0) and s.a >= 0, 1,
                    f"{plan.name}: {_label(s)} lie in [0, d) for n >= {n0}"))
        out.append((s.a != 0 or rational_identity(s.hi - s.lo, 1), 1, f"{plan.name}: {_label(s)} injective"))
    for x in range(len(segs)):
        for y in range(x + 1, len(segs)):
            s, t = segs[x], segs[y]
            parity = s.a == t.a == 2 and sp.sympify(s.c - t.c).is_Integer and int(s.c - t.c) % 2 == 1
            apart = positive_from(lo_hi[y][0] - lo_hi[x][1], N, n0) or positive_from(lo_hi[x][0] - lo_hi[y][1], N, n0)
            out.append((bool(parity or apart), 1, f"{plan.name}: {_label(s)} and {_label(t)} disjoint for n >= {n0}"))
    if plan.odd:  # n = 0, d = 1: the single odd column at index 0
        at0 = [(s.kind, int(s.a * i + sp.sympify(s.c).subs(N, 0))) for s in segs
               for i in range(int(s.lo.subs(N, 0)), int(s.hi.subs(N, 0)))]
        out.append((len(at0) == 1 and at0[0][1] == 0, 1, f"{plan.name}: n = 0 (d = 1): one column, at index 0: {at0}"))
    return out


@quiet
def label_steps(plan: SymbolicPlan) -> list[Step]:
    """The segments hold exactly the labels {sin_i, cos_i : i < n}, plus the odd column's label (sin_n or
    cos_n for an unpaired frequency, or the zero column): per function, its segments' label ranges chain
    from 0 to n (n + 1 with the unpaired frequency) for every n (rational identities), nothing else."""
    return _noted(plan, _label_steps(plan))


def _label_steps(plan: SymbolicPlan) -> list[Step]:
    out: list[Step] = []
    kinds = {s.kind for s in plan.segments()}
    out.append((kinds <= {"sin", "cos", "zero"} and {"sin", "cos"} <= kinds, 1,
                f"{plan.name}: the segments hold sin and cos labels (and at most a zero column): {sorted(kinds)}"))
    for kind in ("sin", "cos"):
        segs = sorted((s for s in plan.segments() if s.kind == kind), key=lambda s: int(sp.sympify(s.lo).subs(N, 1)))
        top = N + int(plan.unpaired() == kind)
        chain = [sp.Integer(0)] + [x for s in segs for x in (s.lo, s.hi)] + [top]
        ok = bool(segs) and all(rational_identity(chain[m], chain[m + 1]) for m in range(0, len(chain), 2))
        out.append((ok, 1, f"{plan.name}: the {kind} labels are exactly {kind}_i, 0 <= i < {top}, each once"))
    zeros = [s for s in plan.segments() if s.kind == "zero"]
    out.append((len(zeros) == int(plan.unpaired() == "zero") and all(rational_identity(s.hi - s.lo, 1) for s in zeros), 1,
                f"{plan.name}: {len(zeros)} zero column(s), as the odd rule says"))
    return out


def mutate_plan(plan: SymbolicPlan, kind: str) -> SymbolicPlan:
    """A wrong plan, as a typo would make it: 'plan-offset' (second paired segment one column right),
    'plan-stride' (stride 1 in an interleaved plan), 'plan-count' (the second segment one label short)
    or 'plan-labels' (the second segment holds the first one's function: two sin segments, no cos)."""
    a, b = plan.paired
    if kind == "plan-offset":
        b = dataclasses.replace(b, c=b.c + 1)
    elif kind == "plan-stride":
        b = dataclasses.replace(b, a=1 if b.a == 2 else 2)
    elif kind == "plan-count":
        b = dataclasses.replace(b, hi=b.hi - 1)
    elif kind == "plan-labels":
        b = dataclasses.replace(b, kind=a.kind)
    else:
        raise ValueError(f"unknown plan mutation {kind!r}")
    return dataclasses.replace(plan, paired=(a, b))


@quiet  # certified by 'conformance' entries (the plan and the table as linear forms)
def conformance_steps(plan: SymbolicPlan, rules: tuple, source: str) -> list[Step]:
    """The plan places every label where ``rules`` (the table SPEC.md words, typed apart from the definition:
    ``sinpe.spec.theorems.LAYOUT_RULES``) says, for every n: each segment of the plan lies inside a rule of its
    function (label bounds by polynomial positivity for n >= 1) with the same column map (stride and offset
    equal as polynomials in n; for a single label, the same column), the plan and the table hold as many labels
    of each function (rational identities), and n = 0 (d = 1) is computed."""
    steps, claims = _conformance_steps(plan, rules, source)
    STEP_CONFORMS.update({what: (plan, tuple(rules), claim) for (_, _, what), claim in zip(steps, claims, strict=True)})
    return steps


def _conformance_steps(plan: SymbolicPlan, rules: tuple, source: str) -> tuple[list[Step], list[tuple]]:
    out: list[Step] = []
    claims: list[tuple] = [("segment", k) for k in range(len(plan.segments()))]
    claims += [("labels", f) for f in ("sin", "cos", "zero")]
    rs = [(k, sp.sympify(lo), sp.sympify(hi), int(a), sp.sympify(c)) for k, lo, hi, a, c in rules]
    for s in plan.segments():
        single = rational_identity(s.hi - s.lo, 1)

        def same_map(r: tuple, s: Any = s, single: bool = single) -> bool:  # this segment's, bound now
            _, _, _, a, c = r
            if single:
                return rational_identity(a * s.lo + c, s.a * s.lo + s.c)
            return a == s.a and rational_identity(c, s.c)
        hit = next((r for r in rs if r[0] == s.kind and _nonneg(s.lo - r[1]) and _nonneg(r[2] - s.hi) and same_map(r)), None)
        out.append((hit is not None, 1, f"{plan.name}: {_label(s)} (labels {s.kind}_i, {s.lo} <= i < {s.hi}) is where "
                    f"{source} puts them" + ("" if hit else f": {T.rule_text(tuple(rules))}")))
    for kind in ("sin", "cos", "zero"):
        mine = sum((s.hi - s.lo for s in plan.segments() if s.kind == kind), sp.Integer(0))
        told = sum((r[2] - r[1] for r in rs if r[0] == kind), sp.Integer(0))
        # the count says the rows hold no label twice only if no row has a negative width (a row "lo <= i < hi"
        # with hi < lo would offset a row claiming one label too many)
        empty = [r for r in rs if r[0] == kind and not (_nonneg(r[2] - r[1]) and (r[2] - r[1]).subs(N, 0) >= 0)]
        out.append((rational_identity(mine, told) and not empty, 1, f"{plan.name}: {mine} {kind} labels, as {source} says "
                    f"({told})" + (f"; a row of negative width: {T.rule_text(tuple(empty))}" if empty else "")))
    if plan.odd:
        at0 = lambda segs: sorted((k, int(a * i + sp.sympify(c).subs(N, 0)), i) for k, lo, hi, a, c in segs
                                  for i in range(int(sp.sympify(lo).subs(N, 0)), int(sp.sympify(hi).subs(N, 0))))
        mine0 = at0([(t.kind, t.lo, t.hi, t.a, t.c) for t in plan.segments()])
        out.append((mine0 == at0(rs), 1, f"{plan.name}: n = 0 (d = 1): {mine0}, as {source} says"))
        claims.append(("d=1",))
    return out, claims


CROSSCHECK_WIDTHS = tuple(range(1, 1101)) + (2047, 2048, 2049, 4095, 4096, 4097, 32767, 32768, 32769, 65535, 65536, 65537)


SHOWN_BAD = 3  # the widths a failed cross-check names: it stops at the third


def first_bad(widths: Iterable[int], agrees: Callable[[int], bool]) -> list[int]:
    """The first :data:`SHOWN_BAD` widths of ``widths`` where ``agrees`` is false, in order (a cross-check that
    fails stops there: the widths after them cannot make it pass)."""
    return list(islice((d for d in widths if not agrees(d)), SHOWN_BAD))


def _linear(e: sp.Expr) -> tuple[int, int]:
    """(r, q) of an integer linear form e(n) = q n + r."""
    if not sp.sympify(e).has(N):
        return int(e), 0
    r, q = ([0, 0] + sp.Poly(sp.sympify(e), N).all_coeffs())[-2:][::-1]
    return int(r), int(q)


def plan_crosscheck(plan: SymbolicPlan, widths: tuple[int, ...] = CROSSCHECK_WIDTHS, data: Any = None,
                    what: str = "the kernels' column data", partners: Any = lambda d: d <= 64 or d > 1100) -> list[Step]:
    """Cross-check (not the proof): the symbolic segments, read back as integer linear forms in n, give the
    same columns as the column data the kernels read (``column_data``: kinds, labels, the copy instructions and
    the partner columns M_k pairs, at the widths ``partners`` selects) at every width of ``widths`` of the plan's
    parity; ``data(d)`` is the column data compared (by default the 1-D tables')."""
    prof = Profile(layout=plan.layout, odd=plan.odd_rule)
    data = data or (lambda d: column_data(prof, d))
    forms = [(s.kind, _linear(s.lo), _linear(s.hi), _linear(s.c), s.a) for s in plan.segments()]  # (kind, lo, hi, c, a)
    ds = [d for d in widths if d % 2 == int(plan.odd)]

    def agrees(d: int) -> bool:
        n, cd = d // 2, data(d)
        kinds, labels = [""] * d, [-1] * d
        for kind, (lo0, lo1), (hi0, hi1), (c0, c1), a in forms:
            lo, hi, c = lo0 + lo1 * n, hi0 + hi1 * n, c0 + c1 * n
            # label i (lo <= i < hi) in column a i + c (a = 0: c + i - lo), copied as one slice of the columns
            js = range(a * lo + c, a * hi + c, a) if a else range(c, c + max(hi - lo, 0))
            if not js:
                continue
            if min(js[0], js[-1]) < 0 or max(js[0], js[-1]) >= d:
                return False
            end = js[-1] + (1 if js.step > 0 else -1)
            sl = slice(js[0], end if end >= 0 else None, js.step)
            if any(kinds[sl]):  # a column written twice
                return False
            kinds[sl], labels[sl] = [kind] * len(js), [0] * len(js) if kind == "zero" else list(range(lo, hi))
        return (tuple(kinds) == cd.kinds and tuple(labels) == cd.labels and _copies_agree(cd, kinds, labels)
                and not (partners(d) and cd.partner != _partners(kinds, labels)))
    bad = first_bad(ds, agrees)
    return [(not bad, len(ds), f"{plan.name}: symbolic plan = {what} at {len(ds)} "
             f"{'odd' if plan.odd else 'even'} widths d <= {max(ds)}" + (f"; differs at d = {bad}" if bad else ""))]


def _partners(kinds: list[str], labels: list[int]) -> tuple[int | None, ...]:
    """Per column, the column of the other function with the same label in the plan's columns (None for a zero
    or an unpaired column): the partner M_k rotates it with, and a rotary layout's other pair member."""
    at: dict[str, dict[int, int]] = {"sin": {}, "cos": {}}  # function -> label -> its column (the last, as a dict keeps)
    for j, (f, k) in enumerate(zip(kinds, labels, strict=True)):
        if f != "zero":
            at[f][k] = j
    sin_at, cos_at = at["sin"], at["cos"]
    return tuple([cos_at.get(k) if f == "sin" else sin_at.get(k) if f == "cos" else None
                  for f, k in zip(kinds, labels, strict=True)])


def _copies_agree(cd: Any, kinds: list[str], labels: list[int]) -> bool:
    """The kernels' copy instructions (``cd.index``: column dst[f] takes frequency src[f] of function f) put
    exactly the plan's labels where the plan puts them."""
    ci = cd.index
    for f in ("sin", "cos"):
        dst, src = ci.dst[f], ci.src[f]
        dst = list(range(cd.d)[dst]) if isinstance(dst, slice) else [int(j) for j in dst]
        src = list(range(cd.n_frequencies + 1)[src]) if isinstance(src, slice) else [int(k) for k in src]
        if sorted(dst) != [j for j, kind in enumerate(kinds) if kind == f] or [labels[j] for j in dst] != src:
            return False
    return sorted(ci.zero) == [j for j, kind in enumerate(kinds) if kind == "zero"]


def odd_shift_steps(plan: SymbolicPlan, mutation: str | None = None) -> list[Step]:
    """THM-SHIFT, odd d, every n: the unpaired column u = alpha f(sigma (p+o) w_n) is no fixed linear image of PE(p).

    (i) its frequency sigma w_n differs from +-sigma w_i for every i < n (i = n - 1 - m, m >= 0: the
    exponent -(m+1)/D is nonzero, b != 1; sigma != 0, w > 0), so by AX-CHARACTERS only u's own coefficient
    a_u meets the characters exp(+-i sigma w_n p); (ii) matching those two coefficients is a linear system
    in a_u (Laurent coefficients, characters precondition checked) with no solution over the field of
    functions of k (a_u = e^(i phi) and a_u = e^(-i phi)): true for every k with sin(sigma w_n k) != 0.
    Needs alpha != 0 and sigma != 0 (else u is identically 0) and b != 1 (else every frequency is 1);
    mutation 'base-1' drops the last hypothesis (log b = 0), and the first step fails.
    """
    u = plan.unpaired()
    if u not in ("sin", "cos"):
        return []
    sig, alp = SIGMA_NZ, ALPHA_NZ
    log_b = sp.Integer(0) if mutation == "base-1" else LOG_B
    m = sp.Symbol("m", integer=True, nonnegative=True)
    wn, wi = BASE ** (-N / DEN), BASE ** (-(N - 1 - m) / DEN)
    out: list[Step] = []
    expo = sp.expand(-N / DEN + (N - 1 - m) / DEN)
    out.append(step(assumed(expo * log_b, "nonzero"), 1, f"{plan.name}: log(w_n / w_i) = ({expo}) log b != 0 (b != 1, "
                    f"i = n - 1 - m < n), so w_n != w_i"))
    out.append(step(assumed(sig * (wn + wi), "nonzero"), 1, f"{plan.name}: sigma (w_n + w_i) != 0 (sigma != 0, w > 0): sigma w_n != -sigma w_i"))
    a = sp.Symbol("a_u")
    sub = {SIGMA: sig, ALPHA: alp}
    e = (T.val(u, N, P + K) - a * T.val(u, N, P)).xreplace(sub)
    try:
        conds = coefficients(e, (P,))
        sol = sp.linsolve(conds, [a])
        ok = sol == sp.EmptySet
        why = f"{plan.name}: u(p+k) = a_u u(p) on the characters exp(+-i sigma w_n p): {len(conds)} conditions, solutions {sol}"
        fact("inconsistent", expr=e, unknowns=[a], variables=[P], of=[K])
    except NotCanonical as exc:
        ok, why = False, f"{plan.name}: {exc}"
    out.append(step(ok, 2, why))
    return out


@quiet  # certified by 'plan-match' entries
def layout_label_steps(plan: SymbolicPlan, odd_rule: str | None = None) -> list[Step]:
    """THM-LAYOUT: every segment of the plan holds the same labels as a segment of the interleaved plan
    (same odd rule): same function, and label bounds equal as polynomials in n (rational identities), the
    segments matched one to one. Both plans are bijections onto [0, d) (THM-LIFT), so PE_plan is
    PE_interleaved composed with the column permutation a*i + c -> a'*i + c' segment by segment."""
    whole = T.symbolic_plan("interleaved", odd_rule or plan.odd_rule, plan.odd)
    inter = list(whole.segments())
    out: list[Step] = []
    for s in plan.segments():
        match = next((t for t in inter if t.kind == s.kind and rational_identity(s.lo, t.lo)
                      and rational_identity(s.hi, t.hi)), None)
        if match is not None:
            inter.remove(match)
        out.append((match is not None, 1, f"{plan.name}: {_label(s)} (labels {s.kind}_i, {s.lo} <= i < {s.hi}) "
                    f"is a segment of the interleaved plan" + ("" if match is None else f": columns {_label(match)}")))
    out.append((not inter, 1, f"{plan.name}: no interleaved segment left unmatched: {[_label(t) for t in inter]}"))
    STEP_MATCHES.update({what: (plan, whole) for _, _, what in out})
    return out


# ------------------------------------------------------------------------ THM-SHIFT: M_k formed on the plan

def _integer_poly(e: sp.Expr, vs: tuple[sp.Symbol, ...]) -> bool:
    try:
        return all(c.is_Integer for c in sp.Poly(sp.expand(e), *vs).coeffs())
    except sp.PolynomialError:
        return False


def _nonneg(e: sp.Expr) -> bool:
    """e(n) >= 0 for every integer n >= 1: after n -> 1 + n', every coefficient is >= 0."""
    n1 = sp.Dummy("n1", nonnegative=True)
    return all(c.is_Rational and c >= 0 for c in sp.Poly(sp.expand(sp.sympify(e).subs(N, 1 + n1)), n1).coeffs())


@records("plan-lookup", "plan", "col", "row")
def column_label(plan: SymbolicPlan, col: sp.Expr, row: T.Segment) -> tuple[str, sp.Expr] | None:
    """The label the symbolic column ``col`` (linear in the row's label i, and in n) holds, for every i in the
    row segment's range: the segment U with col = a_U i' + c_U, i' linear with integer coefficients and inside
    U's label range at both ends of the row's range (so everywhere between), or None."""
    for u in plan.segments():
        ip = (col - u.c) / u.a if u.a else (u.lo if rational_identity(col, u.c) else None)
        if ip is None or not _integer_poly(ip, (T.I_, N)) or sp.degree(sp.expand(ip), T.I_) > 1:
            continue
        ends = [ip.subs(T.I_, row.lo), ip.subs(T.I_, row.hi - 1)]
        if all(_nonneg(x - u.lo) and _nonneg(u.hi - 1 - x) for x in ends):
            return u.kind, sp.expand(ip)
    return None


@records("plan-range", "plan", "col", "row")
def _in_columns(plan: SymbolicPlan, col: sp.Expr, row: T.Segment) -> bool:
    """0 <= col <= d - 1 at both ends of the row's label range (col linear in i), for every n >= 1."""
    ends = [sp.sympify(col).subs(T.I_, row.lo), sp.sympify(col).subs(T.I_, row.hi - 1)]
    return all(_nonneg(x) and _nonneg(plan.d() - 1 - x) for x in ends)


@quiet  # a search for partners, not a step
def block_rows(plan: SymbolicPlan) -> list[tuple[T.Segment, T.Segment | None]]:
    """M_k as a block operator on the plan: each paired segment (label (f, i), column a i + c) with its partner,
    the segment of the other function over the same labels (bounds equal as polynomials in n); a zero segment
    maps to itself (partner None). The unpaired odd column has no row (THM-SHIFT's odd-d clause)."""
    out: list[tuple[T.Segment, T.Segment | None]] = []
    for s in plan.segments():
        if s.kind == "zero":
            out.append((s, None))
            continue
        t = next((t for t in plan.segments() if t.kind not in (s.kind, "zero") and rational_identity(t.lo, s.lo)
                  and rational_identity(t.hi, s.hi)), None)
        if t is not None or s is not plan.extra:
            out.append((s, t))
    return out


def block_shift(plan: SymbolicPlan, mutation: str | None = None) -> tuple[list[T.Claim], list[Step]]:
    """PE(p+k) = M_k PE(p) column by column, for symbolic n: for each row segment the values at its column
    and at its partner's column are read back through the plan (:func:`column_label`), so a plan whose
    partner column holds another label gives a false obligation or a failed step (mutation 'block-partner':
    M_k's off-diagonal entry one pair to the right)."""
    obs: list[T.Claim] = []
    steps = plan_steps(plan) + label_steps(plan)  # M_k is a block operator of a bijective plan (THM-LIFT's steps)
    i = T.I_
    for s, t in block_rows(plan):
        col = s.a * i + s.c
        own = column_label(plan, col, s)
        want = (s.kind, s.lo if s.kind == "zero" else i)
        steps.append(step(own is not None and own[0] == want[0] and rational_identity(own[1], want[1]) and _in_columns(plan, col, s), 1,
                      f"{plan.name}: column {col} lies in [0, d) and holds {s.kind}_i ({own})"))
        if s.kind == "zero":
            obs.append(T.Claim(f"PE(p+k)[{col}] (a zero column)", T.val("zero", i, P + K), T.val("zero", i, P),
                               plan=plan.name, rhs_says=f"PE(p)[{col}]"))
            continue
        pcol = None if t is None else t.a * i + t.c + (t.a if mutation == "block-partner" else 0)
        other = None if pcol is None else column_label(plan, pcol, s)
        steps.append(step(other is not None and other[0] != s.kind and rational_identity(other[1], i) and _in_columns(plan, pcol, s), 1,
                      f"{plan.name}: the partner of column {col} is column {pcol} in [0, d), holding {other}"))
        if other is None or own is None:
            continue
        phi = T.SIGMA * T.omega(i) * K
        diag, off = sp.cos(phi), (sp.sin(phi) if s.kind == "sin" else -sp.sin(phi))
        rhs = diag * T.val(own[0], own[1], P) + off * T.val(other[0], other[1], P)
        obs.append(T.Claim(f"PE(p+k)[{col}]", T.val(s.kind, i, P + K), rhs, plan=plan.name,
                           rhs_says=f"M[{col},{col}] PE(p)[{col}] + M[{col},{pcol}] PE(p)[{pcol}], M[{col},{col}] = "
                                    f"{T.show(diag)}, M[{col},{pcol}] = {T.show(off)}"))
    return obs, steps
