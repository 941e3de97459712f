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

import sympy as sp

from sinpe.spec import theorems as T
from sinpe.spec.definition import exponent, n_frequencies, pairs_exponent
from sinpe.spec.profiles import PRESETS, Profile, get_profile
from sinpe.spec.theorems import GENERIC, K, N, P, STATEMENTS, Instance, Obligation

from . import certificates
from .engine import ProofResult, decide_obligation, is_syntactic
from .evidence import fact
from .symbolic import assumed, positive_from, rational_identity
from .balls import certified_sign, enclosure
from .canonical import coefficients
from .groebner import Certificate, recheck
from .theorems_identities import AX_CHARACTERS

AX_PI_IRRATIONAL = "AX-PI-IRRATIONAL: pi is irrational (Lambert 1761; sympy.pi.is_rational is False)"
AX_EXP_KERNEL = "AX-EXP-KERNEL: exp(i x) = 1 for real x iff x is in 2 pi Z"
AX_PI_GT_3 = "AX-PI-GT-3: pi > 3 (Archimedes), so sin is strictly increasing on [0, 1]"
ALL_AXIOMS = (AX_PI_IRRATIONAL, AX_EXP_KERNEL, AX_PI_GT_3, AX_CHARACTERS)


class Steps:
    """A proof as a list of decided steps; the theorem is proven iff every step is."""

    def __init__(self) -> None:
        self.failures: list[str] = []
        self.size = 0
        self.count = 0
        self.syntactic = 0

    def check(self, ok: bool, what: str, size: int = 1, certificate: Certificate | None = None) -> bool:
        """Count one decided step; ``certificate`` (an ideal membership) is exported by ``--certificates``."""
        certificates.note_step(what, certificate)
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
        certificates.note_obligation(ob)
        ok, n, why = decide_obligation(ob)
        return self._count(ok, f"{ob.name}: {why}", n)


def _result(id: str, method: str, t0: float, st: Steps, witness: str, names: list[str], axioms: list[str],
            mutation: str | None, scope: dict, cross_check: int = 0) -> ProofResult:
    title, text = STATEMENTS[id]
    return ProofResult(id, title, text, method, "proven" if not st.failures else "not-proven", time.perf_counter() - t0,
                       st.size, witness, st.count, names, axioms, st.failures, mutation, st.syntactic, cross_check, scope)


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


RULE_FLOOR = "RULE-FLOOR: for an integer i and a real x, i <= x iff i <= floor(x) (the definition of floor)"


def _count_steps(st: "Steps", mutation: str | None) -> None:
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


class Wavelengths:
    id = "THM-WAVE"
    method = "rational-function identities (together + expand) and polynomial positivity, symbolic in d"
    mutations = ("ratio", "largest", "drop", "lambda0", "count", "count-direction")
    axioms: tuple[str, ...] = ()

    def prove(self, mutation: str | None = None) -> ProofResult:
        if mutation not in (None, *self.mutations):
            raise ValueError(f"mutation {mutation!r} does not apply to {self.id}")
        t0 = time.perf_counter()
        st = Steps()
        i = sp.Symbol("i", integer=True, nonnegative=True)
        d = sp.Symbol("d", positive=True)
        names = []
        for name, prof in PRESETS.items():
            for odd in (False, True):
                if odd and prof.odd == "error":
                    continue
                names.append(f"{name} ({'odd' if odd else 'even'} d)")
                D = T.symbolic_denominator(prof, N, odd)
                Nf = T.symbolic_n_frequencies(prof, N, odd)
                e = lambda j, prof=prof, odd=odd: pairs_exponent(prof, N, odd, j)  # noqa: E731  the definition's e_j, symbolic in n
                ratio = 2 / D if mutation == "ratio" else 1 / D
                # log_b(lambda_(i+1)/lambda_i) = e_(i+1) - e_i: constant, so lambda_i is geometric with ratio b^(1/D)
                st.check(rational_identity(e(i + 1) - e(i), ratio), f"{name}: e_(i+1) - e_i = {ratio}")
                n0 = 2 if prof.shift is not None else 1  # domain of the schedule: D > 0
                st.check(positive_from(D, N, n0), f"{name}: D = {D} > 0 for n >= {n0}, so lambda_i increases")
                lam0 = sp.Rational(1, 2) if mutation == "lambda0" else 0  # lambda_0 = 2 pi b^(e_0), e_0 = 0
                st.check(rational_identity(e(i), lam0, ((i, 0),)), f"{name}: e_0 = {lam0}")  # at i = 0: e(0) is built as 0
                claim = _largest_claim(prof, odd, d)
                if mutation == "largest" and prof.shift is not None:
                    claim = 1 - 2 / d  # Vaswani's closed form claimed for tensor2tensor
                if mutation == "drop" and prof.shift is None and not odd:
                    claim = sp.Integer(1)  # the -2/d term dropped
                dn = 2 * N + 1 if odd else 2 * N
                st.check(rational_identity(e(i), claim, ((i, Nf - 1), (d, dn))),
                         f"{name}: e_(N-1) = {e(Nf - 1)} vs claimed {claim}")
        # count: lambda_i <= L <=> e_i <= log_b(L/2pi) <=> i <= D log_b(L/2pi) (b > 1, D > 0): an initial segment
        bsym, L = sp.symbols("b L", positive=True)
        D = sp.Symbol("D", positive=True)
        lhs = sp.expand_log(sp.log(2 * sp.pi * bsym ** (i / D)), force=True) / sp.log(bsym)
        fact("rational-identity", lhs=sp.log(2 * sp.pi * bsym ** (i / D)) / sp.log(bsym),
             rhs=sp.log(2 * sp.pi) / sp.log(bsym) + i / D)  # the statement before SymPy's expand_log
        st.check(rational_identity(sp.expand(lhs - sp.log(2 * sp.pi) / sp.log(bsym)), i / D), "log_b lambda_i = log_b(2 pi) + i/D")
        _count_steps(st, mutation)
        wtext = self._witness()
        return _result(self.id, self.method, t0, st, wtext, names, [RULE_FLOOR], mutation,
                       {"d": "all", "alpha": "n/a", "sigma": "n/a (lambda_i = 2 pi / w_i)", "o": "n/a",
                        "schedule": "every preset's, symbolic in n, both parities",
                        "part (d)": "b > 1 (b = 1 + beta, beta > 0), D > 0, L > 0; decided: log b > 0, the rearrangement "
                                    "i <= x <=> lambda_i <= L, RULE-FLOOR, RULE-SUM-LINEARITY, min by cases"})

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

    def prove(self, mutation: str | None = None) -> ProofResult:
        if mutation not in (None, *self.mutations):
            raise ValueError(f"mutation {mutation!r} does not apply to {self.id}")
        t0 = time.perf_counter()
        st = Steps()
        dom = {"real": True} if mutation == "real-positions" else {"rational": True}
        p, q = sp.Symbol("p", **dom), sp.Symbol("q", **dom)
        sigma = sp.Symbol("sigma", rational=True, **({} if mutation == "sigma-any" else {"nonzero": True}))
        alpha = sp.Symbol("alpha", real=True, **({} if mutation == "alpha-any" else {"nonzero": True}))
        # the constant of AX-EXP-KERNEL: pi, or (axiom withdrawn) an arbitrary positive real constant
        period = {"no-pi-axiom": sp.Symbol("c", positive=True), "kernel-sqrt2": sp.sqrt(2)}.get(mutation, sp.pi)
        for plan in T.PLANS:  # (1) every plan holds sin_0 and cos_0 once n >= 1 (d >= 2)
            kinds = {s.kind for s in plan.paired if s.lo == 0 and positive_from(s.hi - s.lo, N, 1)}
            fact("plan", plan=plan)
            st.check({"sin", "cos"} <= kinds, f"{plan.name}: labels sin_0 and cos_0 exist for n >= 1")
        for name, prof in PRESETS.items():  # (2) e_0 = 0 for every schedule, so theta_0 = sigma (p + o)
            for odd in (False, True):
                st.check(rational_identity(pairs_exponent(prof, N, odd, T.I_), 0, ((T.I_, 0),)), f"{name}: e_0 = 0 (odd={odd})")
        sub = {T.SIGMA: sigma, T.ALPHA: alpha}
        th = lambda x: T.theta_sym(sp.Integer(0), x).xreplace(sub)  # noqa: E731
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
        wtext = self._witness()
        names = [pl.name for pl in T.PLANS]
        axioms = [AX_EXP_KERNEL] + ([AX_PI_IRRATIONAL] if mutation != "no-pi-axiom" else [])
        return _result(self.id, self.method, t0, st, wtext, names, axioms, mutation,
                       {"d": "every d >= 2", "alpha": "symbolic real, nonzero", "sigma": "symbolic rational, nonzero",
                        "o": "symbolic real", "positions": "rational (integers in particular)", "schedule": "every preset's"})

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

    def prove(self, mutation: str | None = None) -> ProofResult:
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
            for j, (x, y) in enumerate(zip(ia.pe(P), ib.pe(P))):
                st.obligation(Obligation(f"{a_name} vs {b_name}, d=2: column {j} equal", x, y))
        wtext = self._witness()
        return _result(self.id, self.method, t0, st, wtext, names, list(self.axioms), mutation,
                       {"d": "every even d >= 4 (and d = 2)", "alpha": "1", "sigma": "1", "o": "0",
                        "schedule": "tensor2tensor (D = n - 1) vs Vaswani (D = n)"})

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

    def prove(self, mutation: str | None = None) -> ProofResult:
        if mutation not in (None, *self.mutations):
            raise ValueError(f"mutation {mutation!r} does not apply to {self.id}")
        t0 = time.perf_counter()
        st = Steps()
        # (a) not a function of n - m: vaswani d = 2, W = e_sin0 e_sin0^T (or I under the mutation), (m,n) = (0,1), (1,2)
        inst = Instance(PRESETS["vaswani"], 2)
        W = sp.eye(2) if mutation == "identity-W" else sp.Matrix([[1, 0], [0, 0]])
        score = lambda m, n: (sp.Matrix(inst.pe(sp.Integer(m))).T * W * sp.Matrix(inst.pe(sp.Integer(n))))[0, 0]  # noqa: E731
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
        return _result(self.id, self.method, t0, st, f"score difference enclosure {enc.str(8)}", names, list(self.axioms), mutation,
                       {"d": "(a) d = 2; (b) 'iff' at d in {2 (generic pair), 4, 5}: vaswani 4, vaswani-concat 4, t2t-cos 4, "
                        "vaswani-concat-cos 5", "alpha": "1", "sigma": "1", "o": "0"})

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
        sub = dict(zip(ws, fam))
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
