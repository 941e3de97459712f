"""THM-WAVE, THM-INJ, THM-NONPERM, THM-ATTN: proofs with steps beyond one identity.

Each step is decided exactly: rational-function identities by ``together`` + ``expand`` of the
numerator, polynomial positivity by shifting to the domain's corner and reading the coefficients,
ideal membership by Groebner reduction with a re-checked quotient certificate, trigonometric
identities by the Laurent normal form, linear systems by exact row reduction, and a single sign
of a transcendental constant by python-flint ball arithmetic (a rigorous enclosure, not a float).
Facts taken as axioms are named in the result's ``axioms`` (THM-INJ depends on pi being irrational).
"""
from __future__ import annotations

import math
import time
from fractions import Fraction
from functools import partial

import sympy as sp

from sinpe.spec import theorems as T
from sinpe.spec.definition import column_data, definition, denominator, exponent, n_frequencies, pairs_exponent, weight
from sinpe.spec.profiles import PRESETS, Profile, get_profile
from sinpe.spec.theorems import GENERIC, STATEMENTS, Claim, Instance, K, N, Obligation, P, show, statement_text

from . import evidence
from .balls import certified_sign, enclosure
from .canonical import coefficients
from .engine import (
    STEP_BUDGET,
    ProofResult,
    _timed,
    assumption_words,
    decide_obligation,
    hypotheses,
    is_syntactic,
    scope_mismatch,
    scope_of,
)
from .evidence import fact
from .groebner import Certificate, recheck
from .symbolic import assumed, positive_from, rational_identity
from .theorems_identities import AX_CHARACTERS

AX_PI_IRRATIONAL = "AX-PI-IRRATIONAL: pi is irrational (Lambert 1761; sympy.pi.is_rational is False)"
AX_EXP_KERNEL = "AX-EXP-KERNEL: exp(i x) = 1 for real x iff x is in 2 pi Z"
AX_PI_GT_3 = "AX-PI-GT-3: pi > 3 (Archimedes), so sin is strictly increasing on [0, 1]"
ALL_AXIOMS = (AX_PI_IRRATIONAL, AX_EXP_KERNEL, AX_PI_GT_3, AX_CHARACTERS)


class Steps:
    """A proof as a list of decided steps; the theorem is proven iff every step is. The claims it decides
    (:meth:`claim`) and the symbols its other steps use (:meth:`uses`) make its statement and scope."""

    def __init__(self) -> None:
        self.failures: list[str] = []
        self.size = 0
        self.count = 0
        self.syntactic = 0
        self.claims: list[Claim] = []
        self.clauses: list[str] = []
        self.symbols: set[sp.Symbol] = set()
        self.crosschecked = 0

    def check(self, ok: bool, what: str, size: int = 1, certificate: Certificate | None = None) -> bool:
        """Count one decided step; ``certificate`` (an ideal membership) is exported by ``--certificates``."""
        evidence.note_step(what, certificate)
        return self._count(ok, what, size)

    def _count(self, ok: bool, what: str, size: int) -> bool:
        self.count += 1
        self.size += size
        if not ok:
            self.failures.append(what)
        return ok

    def obligation(self, ob: Obligation) -> bool:
        if is_syntactic(ob):
            self.syntactic += 1
            return True
        evidence.note_obligation(ob)
        got, late = _timed(STEP_BUDGET, decide_obligation, ob)
        ok, n, why = got if got is not None else (False, 0, late)
        return self._count(ok, f"{ob.name}: {why}", n)

    def cross_check(self, ok: bool, what: str) -> bool:
        """A cross-check (never part of the proof, not certified): a failure still fails the theorem."""
        self.crosschecked += 1
        if not ok:
            self.failures.append(f"cross-check {what}")
        return ok

    def claim(self, c: Claim) -> bool:
        """Decide a clause of the statement (its obligations), and record it for the statement's text."""
        self.claims.append(c)
        return all([self.obligation(ob) for ob in c.obligations()])

    def says(self, clause: str, *symbols: sp.Symbol) -> None:
        """A clause of the statement decided by steps (its text printed from ``symbols``' names and assumptions)."""
        self.clauses.append(clause)
        self.symbols |= set(symbols)


def _result(id: str, method: str, t0: float, st: Steps, witness: str, names: list[str], axioms: list[str],
            mutation: str | None, params: tuple[str, ...], d: str, cross_check: int = 0) -> ProofResult:
    """The result, its statement, scope and hypotheses printed from what the steps decided (REQ-PROVE)."""
    obs = [ob for c in st.claims for ob in c.obligations()]
    hyps = hypotheses(obs, tuple(st.symbols))
    failures = list(st.failures) or scope_mismatch(params, hyps)
    text = "; ".join([statement_text(st.claims)] * bool(st.claims) + st.clauses)
    return ProofResult(id, STATEMENTS[id], text, method, "proven" if not failures else "not-proven",
                       time.perf_counter() - t0, st.size, witness, st.count, names, axioms, failures, mutation,
                       st.syntactic, cross_check, scope_of(hyps, None, d), hypotheses=hyps)


# ----------------------------------------------------------------------------------------- THM-WAVE

def _largest_claim(profile: Profile, odd: bool, d: sp.Expr) -> sp.Expr:
    """Claimed exponent of the largest wavelength, lambda_max = 2 pi b**claim, in d (SPEC.md THM-WAVE (c))."""
    zero_pad = profile.odd == "zero-pad"
    if profile.shift is None:  # DEF-SCHEDULE-HALF
        return (1 - 3 / d if zero_pad else 1 - 1 / d) if odd else 1 - 2 / d
    if profile.shift == 1:  # tensor2tensor: the smallest frequency is exactly 1/b
        if odd and not zero_pad:
            raise ValueError("no closed form claimed for shift 1 with an unpaired column")
        return sp.Integer(1)
    if profile.shift == 0:
        if odd and not zero_pad:
            raise ValueError("no closed form claimed for shift 0 with an unpaired column")
        return 1 - 2 / (d - 1) if odd else 1 - 2 / d
    raise ValueError(f"no closed form claimed for shift {profile.shift}")


# The schedules THM-WAVE's cross-check reads the kernels' exponents for: the presets' (half, shift 0, shift 1) and
# shifts away from them (fractional, larger, negative; DEF-SCHEDULE-SHIFT allows any rational s)
KERNEL_SHIFTS: tuple[Fraction | None, ...] = (None, Fraction(0), Fraction(1), Fraction(1, 2), Fraction(5, 3),
                                              Fraction(2), Fraction(3), Fraction(-1))


def _schedule_agrees(prof: Profile, d: int, den: Fraction) -> bool:
    """At width d: the column data's exponents are k/D with DEF-SCHEDULE's D = ``den`` (compared as integers:
    e_k = u/v is k/D iff u * D.numerator == k * D.denominator * v), N agrees with ``n_frequencies``, and
    ``denominator`` and (at d <= 64) ``exponent`` give the same; where D <= 0 and N > 1 the definition refuses the
    width (ValueError), and only there."""
    nf = d // 2 + int(bool(d % 2) and prof.odd != "zero-pad")
    if nf > 1 and den <= 0:
        try:
            column_data(prof, d)
        except ValueError:
            return True
        return False
    try:
        cd = column_data(prof, d)
    except ValueError:
        return False
    es, a, b = cd.exponents, den.numerator, den.denominator
    ok = len(es) == nf == cd.n_frequencies == n_frequencies(prof, d) and (nf <= 1 or denominator(prof, d) == den)
    ok = ok and (not es or es[0] == 0) and all(e.numerator * a == k * b * e.denominator for k, e in enumerate(es))
    return ok and (d > 64 or all(exponent(prof, d, k) == es[k] for k in range(nf)))


def _schedule_at(prof: Profile, q: Fraction, r: Fraction, d: int) -> bool:
    """:func:`_schedule_agrees` with D = q n + r, n = floor(d/2)."""
    return _schedule_agrees(prof, d, q * (d // 2) + r)


def _count_at(prof: Profile, extra: int, d: int) -> bool:
    """The kernels' N, ``n_frequencies`` and DEF-LAYOUT's n + ``extra`` agree at width d."""
    return column_data(prof, d).n_frequencies == n_frequencies(prof, d) == d // 2 + extra


RULE_FLOOR = "RULE-FLOOR: for an integer i and a real x, i <= x iff i <= floor(x) (the definition of floor)"


def _count_steps(st: Steps, mutation: str | None) -> sp.Expr:
    """THM-WAVE (d), every schedule: #{0 <= i < N : lambda_i <= L} = min(N, floor(x) + 1) for L >= 2 pi and 0 for
    L < 2 pi, x = D log_b(L / 2 pi). b = 1 + beta (beta > 0), D > 0, L = 2 pi r (r > 0): decided by the assumption
    engine (signs of logs), a rational identity (the rearrangement), RULE-FLOOR and min evaluated in both cases
    m <= N - 1 and m >= N of the integer m = floor(x) (Karr's sum of 1 over 0..min(N-1, m))."""
    beta, gam = sp.Symbol("beta", positive=True), sp.Symbol("gamma", nonnegative=True)
    D, i, Nn = sp.Symbol("D", positive=True), sp.Symbol("i", integer=True, nonnegative=True), N
    logb = sp.log(1 + beta)
    st.check(assumed(logb, "positive"), "b = 1 + beta, beta > 0: log b > 0, so log_b is increasing")
    lgr = sp.Symbol("log_r", real=True)  # log(L / 2 pi)
    x = D * lgr / logb
    sign = -1 if mutation == "count-direction" else 1  # the rearrangement with the inequality reversed
    # D * log b * (log_b lambda_i - log_b L) = log b * (i - x): lambda_i <= L <=> i <= x, the factor D log b > 0
    st.check(rational_identity(D * logb * (i / D - lgr / logb), sign * logb * (i - x)) and assumed(D * logb, "positive"),
             "lambda_i <= L <=> i <= x = D log_b(L/2pi) (multiplied by D log b > 0)")
    st.check(assumed(sp.log(1 + gam), "nonnegative"), "L = 2 pi (1 + gamma), gamma >= 0: log(L/2pi) >= 0, so x >= 0 and m = floor(x) >= 0")
    st.check(assumed(sp.log(1 / (1 + beta)), "negative"), "L = 2 pi / (1 + beta): log(L/2pi) < 0, so x < 0 and no i >= 0 counts: 0")
    t = sp.Symbol("t", integer=True, nonnegative=True)
    claim = (lambda m, **kw: sp.Min(Nn, m, **kw)) if mutation == "count" else (lambda m, **kw: sp.Min(Nn, m + 1, **kw))
    for case, m in (("m = N - 1 - t <= N - 1", Nn - 1 - t), ("m = N + t >= N", Nn + t)):
        fact("rational-identity", lhs=sp.Min(Nn - 1, m, evaluate=False) + 1, rhs=claim(m, evaluate=False))
        st.check(sp.expand(sp.Min(Nn - 1, m) + 1 - claim(m)) == 0,
                 f"{case}: sum_(i=0)^(min(N-1, m)) 1 = min(N-1, m) + 1 = {claim(sp.Symbol('m'))}")
    return claim(sp.Symbol("m"), evaluate=False)  # the count claimed for L >= 2 pi, m = floor(D log_b(L / 2 pi))


class Wavelengths:
    """THM-WAVE from the definition's own frequencies: for every preset and parity, D(n) of the definition's
    schedule is the D SPEC.md's DEF-SCHEDULE-* states (typed apart, ``schedule_rule``), positive on the schedule's
    domain (decided before anything cancels), and lambda_i = 2 pi / w_i with w_i the definition's ``weight`` of its
    exponent e_i is 2 pi b^(i/D) (geometric, ratio b^(1/D), lambda_0 = 2 pi, the largest as claimed), by (E)."""

    id = "THM-WAVE"
    method = ("the definition's schedule = DEF-SCHEDULE's D (rational identity), D > 0 on its domain (polynomial "
              "positivity), lambda_i from the definition's weights by (E), symbolic in n and i; count by steps")
    mutations = ("ratio", "largest", "drop", "lambda0", "count", "count-direction", "t2t-every-d")
    axioms: tuple[str, ...] = ()
    params = ("b", "D")

    def prove(self, mutation: str | None = None, witness: bool = True) -> ProofResult:
        if mutation not in (None, *self.mutations):
            raise ValueError(f"mutation {mutation!r} does not apply to {self.id}")
        t0 = time.perf_counter()
        st = Steps()
        names, domain = [], {}
        for name, prof in PRESETS.items():
            for odd in (False, True):
                if odd and prof.odd == "error":
                    continue
                names.append(f"{name} ({'odd' if odd else 'even'} d)")
                domain[f"{name} ({'odd' if odd else 'even'} d)"] = self._preset(st, name, prof, odd, mutation)
        count = _count_steps(st, mutation)
        checked = self._kernel_exponents(st) if mutation is None else 0  # st.crosschecked widths
        st.says("for b > 1 and L > 0: #{i < N : lambda_i <= L} = 0 if L < 2*pi, else "
                f"{show(count.subs({sp.Symbol('m'): sp.Symbol('floor(D*log_b(L/(2*pi)))'), N: sp.Symbol('N')}))}",
                sp.Symbol("b", positive=True), sp.Symbol("D", positive=True))
        wtext = self._witness() if witness else "not run (--no-witness)"
        return _result(self.id, self.method, t0, st, wtext, names, [RULE_FLOOR], mutation, self.params,
                       "all (each preset's schedule, both parities; where D > 0: " + "; ".join(
                           f"{where} d >= {2 * n0}" for where, n0 in domain.items() if n0 > 1) + ")",
                       checked)

    @staticmethod
    def _kernel_exponents(st: Steps) -> int:
        """Cross-check (not the proof): what the kernels and the public helpers read at each width is DEF-SCHEDULE's
        (``schedule_rule``, typed apart) for the presets' schedules at every width THM-LIFT cross-checks up to 4097
        and for schedules away from them (KERNEL_SHIFTS) at d <= 128 and 2047-2049, 4095-4097: every exponent k/D, N,
        ``n_frequencies``, ``denominator`` (and ``exponent`` at d <= 64), the refusal where D <= 0 with more than
        one frequency; and, for every layout and odd rule at every width, N = n plus DEF-LAYOUT's unpaired label
        (``LAYOUT_RULES``)."""
        from .symbolic import CROSSCHECK_WIDTHS, first_bad
        checked = 0
        for shift in KERNEL_SHIFTS:
            preset = shift in (None, 0, 1)
            for odd, rule in ((False, "trailing-sin"), (True, "trailing-sin"), (True, "zero-pad")):
                q, r = ([0, 0] + sp.Poly(T.schedule_rule(shift, odd), N).all_coeffs())[-2:]  # D = q n + r, typed apart
                q, r = Fraction(int(q.p), int(q.q)), Fraction(int(r.p), int(r.q))
                prof = get_profile("t2t", shift="half" if shift is None else shift, odd=rule)
                ds = [w for w in CROSSCHECK_WIDTHS if w % 2 == odd and w <= 4097
                      and (w <= 128 or w > 1100 or preset and rule == "trailing-sin")]
                bad = first_bad(ds, partial(_schedule_at, prof, q, r))
                checked += len(ds)
                if not st.cross_check(not bad, f"schedule {'half' if shift is None else f'shift {shift}'} ({rule if odd else 'even d'}): "
                               f"the kernels' exponents, N, D and the D <= 0 refusal are DEF-SCHEDULE's at {len(ds)} widths "
                               f"d <= {ds[-1]}" + (f"; differ at d = {bad}" if bad else "")):
                    return checked  # one failed cross-check fails the theorem
        for (layout, rule, odd), rules in T.LAYOUT_RULES.items():
            counts = [sum((sp.sympify(hi) - sp.sympify(lo) for k, lo, hi, _, _ in rules if k == f), sp.Integer(0)) for f in ("sin", "cos")]
            extra = max(int(sp.expand(c - N)) for c in counts)  # N = n + 1 where a function holds label n
            prof = get_profile("vaswani", layout=layout, odd=rule)
            bad = first_bad((d for d in CROSSCHECK_WIDTHS if d % 2 == odd), partial(_count_at, prof, extra))
            checked += 1
            if not st.cross_check(not bad, f"{layout}, {rule if odd else 'even d'}: the kernels' N = n + {extra} "
                                  f"(DEF-LAYOUT's labels) at every width" + (f"; differ at d = {bad}" if bad else "")):
                return checked
        return checked

    @staticmethod
    def _preset(st: Steps, name: str, prof: Profile, odd: bool, mutation: str | None) -> int:
        """The steps for one preset and parity; the first n of the schedule's domain D(n) > 0 (printed in the scope)."""
        i = sp.Symbol("i", integer=True, nonnegative=True)
        df = definition(prof, odd)
        D = df.schedule.denominator(N)
        D_says, D_at = T.schedule_statement(prof.shift, odd)
        D_claim = D_says.subs(list(D_at))
        parity = "odd d" if odd else "even d"
        st.check(rational_identity(D, D_says, D_at),
                 f"{name} ({parity}): the definition's D(n) = {D} is DEF-SCHEDULE's {D_says} at {show(D_at[0][0])} = "
                 f"{show(D_at[0][1])}")
        # the schedule's domain, decided before any expression in e_i = i/D is built (SymPy cancels (n-1)/(n-1))
        n0 = 1 if prof.shift is None or mutation == "t2t-every-d" else max(1, int(prof.shift) + 1)
        st.check(positive_from(D, N, n0), f"{name} ({parity}): D = {D} > 0 for n >= {n0}")
        lam = lambda j: 2 * sp.pi / weight(df.schedule.exponent(N, j), T.BASE, T.STRICT)
        b, where = T.BASE, f"{name}, {parity}" + (f", n >= {n0}" if n0 > 1 else "")
        ratio = 2 / D_claim if mutation == "ratio" else 1 / D_claim
        st.claim(Claim("lambda_i = 2*pi/w_i", lam(i), 2 * sp.pi * b ** (i / D_claim), plan=where))
        st.claim(Claim("lambda_(i+1)/lambda_i", lam(i + 1) / lam(i), b ** ratio, plan=where))
        st.claim(Claim("lambda_0", lam(0), 2 * sp.pi * (b ** sp.Rational(1, 2) if mutation == "lambda0" else 1), plan=where))
        d = sp.Symbol("d", positive=True)
        claim = _largest_claim(prof, odd, d)
        if mutation == "largest" and prof.shift is not None:
            claim = 1 - 2 / d  # Vaswani's closed form claimed for tensor2tensor
        if mutation == "drop" and prof.shift is None and not odd:
            claim = sp.Integer(1)  # the -2/d term dropped
        top = df.plan.n_labels(N) - 1  # the largest is lambda_i at i = N - 1 (above): its exponent is the claim's
        # e_i at i = N - 1 as a substitution: built at i = N - 1, t2t's (n - 1)/(n - 1) would be 1 = 1 as built
        st.check(rational_identity(df.schedule.exponent(N, i), claim, ((i, top), (d, 2 * N + int(odd)))),
                 f"{name} ({parity}): e_(N-1) = {df.schedule.exponent(N, top)} is {show(claim)} at d = {2 * N + int(odd)}")
        st.says(f"lambda_(N-1), the largest = 2*pi*b**({show(claim)}) [{where}]")
        if n0 > 1:  # below the domain: n = 1 (d = 2, 3) holds one frequency, w_0 = 1
            one = df.plan.n_labels(1) - 1
            st.claim(Claim("lambda_(N-1), the largest", lam(sp.Integer(one)).subs(N, 1), 2 * sp.pi, plan=f"{name}, {parity}, n = 1"))
        return n0

    @staticmethod
    def _witness() -> str:
        """Count formula vs direct count with flint ball comparisons, every preset, even d = 2..64 (smoke test)."""
        import flint
        checked = 0
        for prof in PRESETS.values():
            b = flint.arb(prof.base.numerator) / prof.base.denominator  # exact rational base, as a ball
            for dd in range(2, 65, 2):
                nf = n_frequencies(prof, dd)
                D = T.symbolic_denominator(prof, sp.Integer(dd // 2))
                for L in (5, 7, 100, 1000, 10**4, 10**5):
                    direct = 0
                    for j in range(nf):
                        e = exponent(prof, dd, j)
                        lam = 2 * flint.arb.pi() * b ** (flint.arb(e.numerator) / e.denominator) if e else 2 * flint.arb.pi()
                        if lam < L:
                            direct += 1
                        elif not lam > L:
                            raise AssertionError("ball comparison undecided")
                    if D <= 0:  # a single frequency (tensor2tensor's max(n - 1, 1) guard)
                        assert direct == (0 if L < 2 * flint.arb.pi() else 1)
                        checked += 1
                        continue
                    x = flint.arb(D.p) / D.q * (flint.arb(L) / (2 * flint.arb.pi())).log() / b.log()
                    fl = math.floor(float(x.mid()))
                    if not (x > fl and x < fl + 1):
                        raise AssertionError("ball floor undecided")
                    formula = 0 if L < 2 * flint.arb.pi() else min(nf, fl + 1)
                    assert formula == direct, (prof.name, dd, L, formula, direct)
                    checked += 1
        return f"count formula = direct count (flint balls) at {checked} (preset, even d <= 64, L) cases"


# ----------------------------------------------------------------------------------------- THM-INJ

class Injectivity:
    """THM-INJ for every d >= 2, symbolic alpha != 0, sigma != 0 rational, o real, positions rational.

    Each step is a computation: plan segments (sin_0, cos_0 exist for n >= 1), the schedules' e_0 = 0,
    SymPy's assumption engine for alpha != 0, p - q rational, sigma (p - q)/(2m) rational and sigma != 0,
    a Groebner certificate, a Laurent identity (Euler), and pi's irrationality as SymPy records it
    (``pi.is_rational is False``). Mutations change the inputs of those computations: positions only real,
    pi replaced by an arbitrary positive constant (the axiom withdrawn), sigma or alpha possibly 0, a
    hypothesis dropped or replaced.
    """

    id = "THM-INJ"
    method = ("symbolic plan (sin_0, cos_0 for n >= 1) + e_0 = 0 + groebner ideal membership with certificate + "
              "assumption-engine steps (alpha != 0, p - q rational, pi = sigma (p-q)/2m rational, sigma != 0)")
    mutations = ("sin-for-cos", "drop", "real-positions", "no-pi-axiom", "kernel-sqrt2", "sigma-any", "alpha-any")
    axioms = (AX_EXP_KERNEL, AX_PI_IRRATIONAL)

    def prove(self, mutation: str | None = None, witness: bool = True) -> ProofResult:
        if mutation not in (None, *self.mutations):
            raise ValueError(f"mutation {mutation!r} does not apply to {self.id}")
        t0 = time.perf_counter()
        st = Steps()
        dom = {"real": True} if mutation == "real-positions" else {"rational": True}
        p, q = sp.Symbol("p", **dom), sp.Symbol("q", **dom)
        sigma = sp.Symbol("sigma", rational=True, **({} if mutation == "sigma-any" else {"nonzero": True}))
        alpha = sp.Symbol("alpha", real=True, **({} if mutation == "alpha-any" else {"nonzero": True}))
        # the constant of AX-EXP-KERNEL: pi, or (axiom withdrawn) an arbitrary positive real constant
        period = {"no-pi-axiom": sp.Symbol("c", positive=True), "kernel-sqrt2": sp.sqrt(2)}.get(mutation or "", sp.pi)
        for plan in T.PLANS:  # (1) every plan holds sin_0 and cos_0 once n >= 1 (d >= 2)
            kinds = {s.kind for s in plan.paired if s.lo == 0 and positive_from(s.hi - s.lo, N, 1)}
            fact("plan", plan=plan)
            st.check({"sin", "cos"} <= kinds, f"{plan.name}: labels sin_0 and cos_0 exist for n >= 1")
        for name, prof in PRESETS.items():  # (2) e_0 = 0 for every schedule, so theta_0 = sigma (p + o)
            for odd in (False, True):
                st.check(rational_identity(pairs_exponent(prof, N, odd, T.I_), 0, ((T.I_, 0),)), f"{name}: e_0 = 0 (odd={odd})")
        sub = {T.SIGMA: sigma, T.ALPHA: alpha}
        th = lambda x: T.theta_sym(sp.Integer(0), x).xreplace(sub)
        st.check(rational_identity(T.theta_sym(T.I_, p).xreplace(sub), sigma * (p + T.OFFSET), ((T.I_, 0),)),
                 f"theta_0(p) = {th(p)} = sigma (p + o)")
        # (3) alpha != 0: equality of alpha sin, alpha cos gives equality of sin, cos
        st.check(assumed(alpha, "nonzero"), f"alpha = {alpha} is nonzero (assumptions {alpha.assumptions0.get('nonzero')})")
        self._groebner(st, mutation)
        # (4) Euler: exp(i(a - b)) = (cos a + i sin a)(cos b - i sin b)
        st.obligation(Obligation("exp(i(a-b)) = (cos a + i sin a)(cos b - i sin b)", sp.exp(sp.I * (th(p) - th(q))),
                                 (sp.cos(th(p)) + sp.I * sp.sin(th(p))) * (sp.cos(th(q)) - sp.I * sp.sin(th(q)))))
        # (5) AX-EXP-KERNEL: theta_p - theta_q = sigma (p - q) = 2 period m, m an integer
        st.check(rational_identity(th(p) - th(q), sigma * (p - q)), "theta_0(p) - theta_0(q) = sigma (p - q)")
        m = sp.Symbol("m", integer=True, nonzero=True)
        # the constant of the kernel is computed, not typed: exp(2 i c m) = 1 for every integer m only for c = pi
        fact("identity", lhs=sp.exp(2 * sp.I * period * m, evaluate=False), rhs=sp.Integer(1))
        st.check(sp.exp(2 * sp.I * period * m) == 1, f"exp(2 i {period} m) = {sp.exp(2 * sp.I * period * m)} for every "
                 f"integer m: 2 {period} Z is in the kernel of exp(i x), the kernel AX-EXP-KERNEL names")
        # (6) p - q rational (positions' domain), so period = sigma (p - q)/(2m) would be rational if m != 0
        st.check(assumed(p - q, "rational"), f"p - q is rational (positions: {dom})")
        st.check(assumed(sigma * (p - q) / (2 * m), "rational"), "sigma (p - q)/(2m) is rational for m != 0")
        st.check(assumed(period, "irrational"), f"{period} is irrational (AX-PI-IRRATIONAL), so m = 0")
        # (7) m = 0: sigma (p - q) = 0 and sigma != 0 give p = q
        st.check(assumed(sigma, "nonzero"), f"sigma = {sigma} is nonzero, so sigma (p - q) = 0 gives p = q")
        st.says(f"PE(p) = PE(q) implies p = q, for p, q {assumption_words(p)} (integers in particular), alpha "
                f"{assumption_words(alpha)}, sigma {assumption_words(sigma)}, o {assumption_words(T.OFFSET)}",
                p, q, alpha, sigma, T.OFFSET)
        wtext = self._witness() if witness else "not run (--no-witness)"
        names = [pl.name for pl in T.PLANS]
        axioms = [AX_EXP_KERNEL] + ([AX_PI_IRRATIONAL] if mutation != "no-pi-axiom" else [])
        return _result(self.id, self.method, t0, st, wtext, names, axioms, mutation, ("alpha", "sigma", "o"),
                       "every d >= 2 (every plan holds sin_0 and cos_0), every preset's schedule")

    @staticmethod
    def _groebner(st: Steps, mutation: str | None) -> None:
        """cos(a - b) - 1 and sin(a - b) lie in <sin a - sin b, cos a - cos b, s^2 + c^2 - 1> (certificate)."""
        sa, ca, sb, cb = sp.symbols("s_p c_p s_q c_q")
        hyps = [sa - sb, ca - cb]
        if mutation == "sin-for-cos":
            hyps[1] = sa - sb
        if mutation == "drop":
            hyps = hyps[:1]
        gens = hyps + [sa**2 + ca**2 - 1, sb**2 + cb**2 - 1]
        vs = [sa, ca, sb, cb]
        for g in (ca * cb + sa * sb - 1, sa * cb - ca * sb):
            Qs, r = sp.reduced(g, gens, *vs, order="lex")
            G = sp.groebner(gens, *vs, order="lex")
            _, r_gb = G.reduce(g)
            cert = Certificate(g, gens, Qs, r, vs, r == 0)
            st.check(r == 0 and r_gb == 0 and recheck(cert), f"{g} in <PE(p)=PE(q) on sin_0,cos_0; s^2+c^2-1> (remainder {r_gb})", cert.size,
                     certificate=cert)

    @staticmethod
    def _witness() -> str:
        import flint
        # min over 0 <= q < p < 400 of |PE(p) - PE(q)| on (sin_0, cos_0) = 2|sin((p - q)/2)|, in balls
        worst = min(abs((flint.arb(delta) / 2).sin()) * 2 for delta in range(1, 400))
        return f"min over integer gaps 1..399 of |(sin,cos)(p)-(sin,cos)(q)| = {worst.str(5)} > 0 (flint balls)"


# ----------------------------------------------------------------------------------------- THM-NONPERM

class NonPermutation:
    id = "THM-NONPERM"
    method = "symbolic max-exponent separation in n = d/2 (univariate polynomial roots) + laurent (d = 2)"
    mutations = ("same-schedule", "shift", "include-d2", "pi-small")
    axioms = (AX_PI_GT_3,)
    PAIRS = (("t2t", "vaswani-concat"), ("t2t-cos", "vaswani-concat-cos"), ("t2t", "vaswani"))

    def prove(self, mutation: str | None = None, witness: bool = True) -> ProofResult:
        if mutation not in (None, *self.mutations):
            raise ValueError(f"mutation {mutation!r} does not apply to {self.id}")
        t0 = time.perf_counter()
        st = Steps()
        names = []
        for a_name, b_name in self.PAIRS:
            A_, B_ = PRESETS[a_name], PRESETS[b_name]
            if mutation == "same-schedule":
                A_ = get_profile(a_name, shift="half")
            if mutation == "shift":
                A_ = get_profile(a_name, shift=0)  # D = floor(d/2) = d/2 for even d: Vaswani's schedule
            names.append(f"{a_name} vs {b_name}")
            n_min = 1 if mutation == "include-d2" else 2
            self._separate(A_, B_, n_min, st, f"{a_name} vs {b_name}", mutation)
            # d = 2: the two tables are equal column by column (t2t's max(n - 1, 1) guard)
            ia, ib = Instance(PRESETS[a_name], 2), Instance(PRESETS[b_name], 2)
            for j, (x, y) in enumerate(zip(ia.pe(P), ib.pe(P), strict=True)):
                st.obligation(Obligation(f"{a_name} vs {b_name}, d=2: column {j} equal", x, y))
        st.says("no column permutation maps the tensor2tensor table to the Vaswani table (" + ", ".join(
            f"{a} vs {b}" for a, b in self.PAIRS) + ") at even d >= 4; at d = 2 they are equal")
        wtext = self._witness() if witness else "not run (--no-witness)"
        return _result(self.id, self.method, t0, st, wtext, names, list(self.axioms), mutation, (),
                       "every even d >= 4 (and d = 2); the presets' alpha = 1, sigma = 1, o = 0")

    @staticmethod
    def _separate(A_: Profile, B_: Profile, n_min: int, st: Steps, tag: str, mutation: str | None = None) -> None:
        """For every integer n >= n_min (d = 2n): the frequency multisets of A and B differ. Mutation
        'pi-small' replaces pi by 3/2 in the AX-PI-GT-3 step (sin would not be injective on (0, 1])."""
        # step 1: a column permutation preserves the multiset of column functions (it is a bijection of columns);
        # at p = 0 sin columns are 0 and cos columns 1 (THM-BOUND), so sin columns go to sin columns;
        # step 2: at p = 1 a sin column is sin(w), w = b^(-e) in (0, 1] (e >= 0, b > 1), and sin is injective on
        # (0, 1] (AX-PI-GT-3): the multisets of frequencies, hence of exponents e_k = k/D, must agree.
        half_turn = sp.Rational(3, 2) if mutation == "pi-small" else sp.pi
        sign = certified_sign(half_turn / 2 - 1)  # AX-PI-GT-3 tied to a computation: 1 < pi/2, by a ball
        st.check(sign == 1, f"{tag}: 1 < {half_turn}/2 (ball sign {sign}; AX-PI-GT-3), so sin is injective on (0, 1]")
        for prof in (A_, B_):
            st.check(assumed(sp.Add(sp.Rational(prof.base), -1, evaluate=False), "positive"), f"{tag}: base {prof.base} > 1")
            D = T.symbolic_denominator(prof, N)
            st.check(positive_from(D, N, n_min) if (D.subs(N, n_min) > 0) else False,
                     f"{tag}: D = {D} > 0 for n >= {n_min} (exponents k/D >= 0, increasing)")
        # step 3: the largest exponents (N - 1)/D differ for every integer n >= n_min
        Ea = pairs_exponent(A_, N, False, T.symbolic_n_frequencies(A_, N) - 1)
        Eb = pairs_exponent(B_, N, False, T.symbolic_n_frequencies(B_, N) - 1)
        num, _ = sp.fraction(sp.together(Ea - Eb))
        num = sp.expand(num)
        fact("distinct-on-integers", lhs=Ea, rhs=Eb, var=N, start=n_min)
        if not st.check(num != 0, f"{tag}: max exponents {Ea} and {Eb} are the same rational function of n"):
            return
        roots = sp.Poly(num, N).all_roots() if sp.Poly(num, N).degree() > 0 else []
        bad = [r for r in roots if r.is_integer and r >= n_min]
        fact("distinct-on-integers", lhs=Ea, rhs=Eb, var=N, start=n_min)
        st.check(not bad, f"{tag}: max exponents {Ea} vs {Eb} coincide at n = {bad} (d = {[2 * r for r in bad]})",
                 len(sp.Add.make_args(num)))

    @staticmethod
    def _witness() -> str:
        """Exact exponent multisets from the definition for even d = 2..200 (consistency, not the proof)."""
        differ = []
        for dd in range(2, 201, 2):
            ea = sorted(exponent(PRESETS["t2t"], dd, j) for j in range(n_frequencies(PRESETS["t2t"], dd)))
            eb = sorted(exponent(PRESETS["vaswani"], dd, j) for j in range(n_frequencies(PRESETS["vaswani"], dd)))
            differ.append(ea != eb)
        ok = differ[0] is False and all(differ[1:])
        return f"definition.exponent multisets: equal at d=2, differ at all even d in 4..200: {ok}"


# ----------------------------------------------------------------------------------------- THM-ATTN

def _block_family(inst: Instance, mutation: str | None, invisible: bool = False) -> tuple[sp.Matrix, list[sp.Symbol]]:
    """The claimed commutant: per pair a_i I + b_i J (J = the 90-degree block); a free diagonal entry per zero column.

    ``invisible``: also free entries in every row and column of a zero column (the scores never see them).
    """
    n = len(inst.cols())
    W = sp.zeros(n, n)
    params: list[sp.Symbol] = []
    for k, js, jc in inst.pairs():
        a, b = sp.symbols(f"a{k} b{k}")
        params += [a, b]
        W[js, js] += a
        W[jc, jc] += a
        if mutation == "reflection":
            W[js, jc] += b
            W[jc, js] += b
        elif mutation != "drop":
            W[js, jc] += -b
            W[jc, js] += b
    for j in inst.zeros():
        for i in range(n) if invisible else [j]:
            for (r, c) in {(i, j), (j, i)}:
                z = sp.Symbol(f"z{r}_{c}")
                if z not in params:
                    params.append(z)
                    W[r, c] = z
    return W, params


class Attention:
    id = "THM-ATTN"
    method = "counterexample in flint balls + laurent coefficients -> exact linear solve (commutant dimension)"
    mutations = ("identity-W", "reflection", "drop")
    axioms = (AX_CHARACTERS,)
    M_, N_, T_ = sp.symbols("m n t", real=True)

    def prove(self, mutation: str | None = None, witness: bool = True) -> ProofResult:
        if mutation not in (None, *self.mutations):
            raise ValueError(f"mutation {mutation!r} does not apply to {self.id}")
        t0 = time.perf_counter()
        st = Steps()
        # (a) not a function of n - m: vaswani d = 2, W = e_sin0 e_sin0^T (or I under the mutation), (m,n) = (0,1), (1,2)
        inst = Instance(PRESETS["vaswani"], 2)
        W = sp.eye(2) if mutation == "identity-W" else sp.Matrix([[1, 0], [0, 0]])
        score = lambda m, n: (sp.Matrix(inst.pe(sp.Integer(m))).T * W * sp.Matrix(inst.pe(sp.Integer(n))))[0, 0]
        diff = sp.expand(score(1, 2) - score(0, 1))
        enc = enclosure(diff)
        st.check(certified_sign(diff) is not None, f"score(1,2) - score(0,1) = {diff} = {enc.str(5)} is certified nonzero (flint ball)")
        # (b) f(m,n,t) = PE(m+t)^T W PE(n+t) - PE(m)^T W PE(n) == 0 for all m,n,t  <=>  W in the block family
        names = ["vaswani d=2 counterexample"]
        for inst in (GENERIC[0], Instance(PRESETS["vaswani"], 4), Instance(PRESETS["vaswani-concat"], 4),
                     Instance(PRESETS["t2t-cos"], 4), Instance(PRESETS["vaswani-concat-cos"], 5)):
            if st.failures:
                break  # one failed step decides; the rest would only cost time
            names.append(inst.name)
            self._commutant(inst, st, mutation)
        st.says(f"(a) PE(m)^T W PE(n) is not a function of n - m for W = {list(W)} at vaswani d = 2; (b) at "
                + ", ".join(names[1:]) + " it is one for all m, n iff W is block-diagonal with 2x2 blocks a*I + b*J "
                "(entries in the row or column of a zero column free)")
        return _result(self.id, self.method, t0, st, f"score difference enclosure {enc.str(8)}", names, list(self.axioms),
                       mutation, (), "(a) d = 2; (b) 'iff' at d in {2 (generic pair), 4, 5}: " + ", ".join(names[1:]))

    def _commutant(self, inst: Instance, st: Steps, mutation: str | None) -> None:
        n = len(inst.cols())
        ws = sp.symbols(f"w0:{n * n}")
        W = sp.Matrix(n, n, ws)
        m, nn, t = self.M_, self.N_, self.T_

        def s(a: sp.Expr, b: sp.Expr, Wm: sp.Matrix) -> sp.Expr:
            return (sp.Matrix(inst.pe(a)).T * Wm * sp.Matrix(inst.pe(b)))[0, 0]

        f = s(m + t, nn + t, W) - s(m, nn, W)
        conds = coefficients(f, (m, nn, t))
        A, _ = sp.linear_eq_to_matrix(conds, ws)
        nullity = n * n - A.rank()
        fam, params = _block_family(inst, mutation, invisible=True)
        sub = dict(zip(ws, fam, strict=False))
        ok_in = all(sp.expand(c.xreplace(sub)) == 0 for c in conds)
        fact("linear-family", claim="contains", expr=f, unknowns=ws, variables=(m, nn, t), family=list(fam), params=params)
        st.check(ok_in, f"{inst.name}: the claimed family a I + b J satisfies every coefficient condition")
        # the family's dimension (its parameters are independent entries) must equal the solution space's
        dim = sp.Matrix([[sp.diff(e, p_) for p_ in params] for e in fam]).rank() if params else 0
        fact("linear-family", claim="dimension", expr=f, unknowns=ws, variables=(m, nn, t), family=list(fam),
             params=params, dimension=nullity)
        st.check(dim == nullity, f"{inst.name}: claimed family has dimension {dim}, solution space {nullity}", len(conds))
        # W in the family commutes with M_k: [W, M_k] = 0 by the Laurent normal form
        fam, _ = _block_family(inst, mutation)
        C = fam * inst.shift_matrix(K) - inst.shift_matrix(K) * fam
        for i in range(n):
            for j in range(n):
                if C[i, j] != 0:
                    st.obligation(Obligation(f"{inst.name}: [W, M_k][{i},{j}] = 0", C[i, j], sp.Integer(0)))
