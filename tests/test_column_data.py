"""DEF-CHANNELS: one executable definition. The kernels evaluate :class:`~sinpe.spec.definition.ColumnData`
and nothing else, and ColumnData is the Definition the proofs read (n a SymPy symbol) evaluated at n.

The expected columns and exponents here are read off the *symbolic* Definition (``sinpe.spec.theorems``:
the plan's segments and the schedule's D(n) with n = N, turned into integer/rational coefficients once), not
from ``column_data``; the kernels' copy instructions are decoded by running them on marked inputs.
"""
from __future__ import annotations

import ast
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy as sp

from sinpe.reference.oracles import fast
from sinpe.spec import definition as D, theorems as T
from sinpe.spec.profiles import LAYOUTS, ODD_RULES, Profile

ROOT = Path(__file__).resolve().parents[1]
WIDTHS = range(1, 1101)
PLANS = [Profile(layout=lay, odd=rule) for lay in LAYOUTS for rule in ODD_RULES if rule != "error"]
SCHEDULES = [None, Fraction(0), Fraction(1), Fraction(2)]


def _coeffs(e: sp.Expr) -> tuple[Fraction, Fraction]:
    """q, r with e = q n + r (e a SymPy expression in the proofs' N)."""
    poly = sp.Poly(sp.sympify(e), T.N)
    q, r = ([0, 0] + poly.all_coeffs())[-2:]
    return Fraction(int(sp.Rational(q).p), int(sp.Rational(q).q)), Fraction(int(sp.Rational(r).p), int(sp.Rational(r).q))


def _symbolic_reading(profile: Profile, odd: bool) -> tuple[list, tuple[Fraction, Fraction]]:
    """The proofs' reading: segments (kind, lo, hi, a, c) as linear forms, and D(n) = q n + r."""
    df = D.definition(profile, odd)
    plan = T.symbolic(df.plan)
    segs = [(s.kind, _coeffs(s.lo), _coeffs(s.hi), int(s.a), _coeffs(s.c)) for s in plan.segments()]
    return segs, _coeffs(df.schedule.denominator(T.N))


def _expected(segs: list, d: int) -> tuple[list[str], list[int]]:
    n = d // 2
    at = lambda f: int(f[0] * n + f[1])
    kinds, labels = np.full(d, "", dtype=object), np.full(d, -1)
    for kind, lo, hi, a, c in segs:
        i = np.arange(at(lo), at(hi))
        j = a * i + at(c) if a else np.arange(at(c), at(c) + i.size)
        assert (kinds[j] == "").all(), (d, j)
        kinds[j], labels[j] = kind, (0 if kind == "zero" else i)
    return kinds.tolist(), labels.tolist()


def _decoded(cd: D.ColumnData) -> tuple[list[str], list[int]]:
    """What the fast kernel's copy (``fast.assemble`` over ``cd.index``) puts in each column: sin k as k + 1,
    cos k as -(k + 1), a zero column as 0."""
    nf = cd.n_frequencies
    S = np.arange(1, nf + 1, dtype=np.float64)[None, :]
    vals, _ = fast.assemble(cd, S, -S, np.zeros_like(S))
    v = (vals[0] / float(cd.amplitude)).round().astype(int).tolist()
    return ["zero" if x == 0 else "sin" if x > 0 else "cos" for x in v], [abs(x) - 1 if x else 0 for x in v]


@pytest.mark.parametrize("profile", PLANS, ids=lambda p: f"{p.layout}-{p.odd}")
def test_column_data_is_the_symbolic_definition_at_every_width(profile):  # DEF-CHANNELS, DEF-LAYOUT, DEF-ODD
    """d = 1..1100: kinds, labels, partners and the kernels' copy instructions are the symbolic plan at n."""
    reading = {odd: _symbolic_reading(profile, odd)[0] for odd in (False, True)}
    for d in WIDTHS:
        cd = D.column_data(profile, d)
        kinds, labels = _expected(reading[bool(d % 2)], d)
        assert list(cd.kinds) == kinds and list(cd.labels) == labels, (profile, d)
        kind_arr, k_arr = fast.column_plan(cd)
        assert [("sin", "cos", "zero")[x] for x in kind_arr.tolist()] == kinds and k_arr.tolist() == labels
        assert _decoded(cd) == (kinds, labels), (profile, d)
        where = {(f, k): j for j, (f, k) in enumerate(zip(kinds, labels, strict=True))}
        partner = [where.get(("cos" if f == "sin" else "sin", k)) if f != "zero" else None for f, k in zip(kinds, labels, strict=True)]
        assert list(cd.partner) == partner, (profile, d)


@pytest.mark.parametrize("shift", SCHEDULES, ids=lambda s: "half" if s is None else f"shift{s}")
def test_exponents_are_the_symbolic_schedule_at_every_width(shift):  # DEF-SCHEDULE-HALF, DEF-SCHEDULE-SHIFT
    prof = Profile(layout="sin-cos", odd="zero-pad", shift=shift)
    sched = {odd: _symbolic_reading(prof, odd)[1] for odd in (False, True)}
    for d in WIDTHS:
        q, r = sched[bool(d % 2)]
        den = q * (d // 2) + r
        nf = d // 2
        if nf > 1 and den <= 0:
            with pytest.raises(ValueError, match="schedule undefined"):
                D.column_data(prof, d)
            continue
        cd = D.column_data(prof, d)
        # e_k = k / den, compared as integers (e = u/v is k/den iff u * den.numerator == k * den.denominator * v)
        a, b = den.numerator, den.denominator
        assert len(cd.exponents) == nf and all(isinstance(e, Fraction) and e.numerator * a == k * b * e.denominator
                                               for k, e in enumerate(cd.exponents)), (shift, d)


@pytest.mark.parametrize("d", [1, 2, 3, 5, 8, 33, 100, 600, 601, 1025])
def test_tables_evaluate_the_column_data(d):  # DEF-FAMILY, REQ-TABLE-API
    """The correctly rounded float64 table equals alpha f(sigma (p + o) b^(-e)) computed here in mpmath from
    the symbolic reading of the plan and schedule (every parameter of DEF-FAMILY away from its preset value)."""
    from sinpe.reference.tables import table
    prof = Profile(layout="cos-sin", odd="zero-pad", shift=Fraction(0), base=Fraction(500), phase_scale=Fraction(3, 2),
                   offset=Fraction(-7, 2), amplitude=Fraction(1, 8))
    segs, (q, r) = _symbolic_reading(prof, bool(d % 2))
    kinds, labels = _expected(segs, d)
    den = q * (d // 2) + r
    pos = [0, 1, 17, 1000]
    got = table(prof, d, pos, "float64")
    mpmath.mp.prec = 200
    try:
        for row, p in zip(got, pos, strict=True):
            for j, (f, k) in enumerate(zip(kinds, labels, strict=True)):
                if f == "zero":
                    assert row[j] == 0
                    continue
                w = mpmath.mpf(500) ** (-mpmath.mpf(k) / (mpmath.mpf(den.numerator) / den.denominator)) if k else 1
                th = mpmath.mpf(3) / 2 * (p - mpmath.mpf(7) / 2) * w
                want = (mpmath.sin(th) if f == "sin" else mpmath.cos(th)) / 8
                assert abs(row[j] - want) <= mpmath.mpf(2) ** -52 * abs(want) + mpmath.mpf(2) ** -1074, (d, p, j)
    finally:
        mpmath.mp.prec = 53


def test_a_wrong_copy_instruction_is_caught(monkeypatch):  # DEF-CHANNELS (the tests above can fail)
    """Negative test: the copy instructions of one width edited (cos labels reversed at d = 600) are found."""
    real = D.ColumnData.index.func  # the cached_property's function

    def index(self):
        ci = real(self)
        if self.d == 600:
            src = np.arange(self.n_frequencies)[ci.src["cos"]][::-1]
            return D.ColumnIndex(ci.dst, {**ci.src, "cos": src}, ci.zero)
        return ci

    monkeypatch.setattr(D.ColumnData, "index", property(index))
    cd = D.column_data(PLANS[0], 600)
    kinds, labels = _expected(_symbolic_reading(PLANS[0], False)[0], 600)
    assert _decoded(cd) != (kinds, labels)


KERNELS = ["reference/oracles/fast.py", "reference/oracles/interval.py", "reference/oracles/arb.py",
           "reference/oracles/mp.py", "reference/oracles/angles.py", "reference/tables/rounded.py", "reference/tables/progression.py",
           "reference/tables/build.py", *(f"reference/checking/check/{m}.py" for m in ("table", "reference", "kernel",
                                                                                        "merge", "conclude")),
           "reference/checking/structure.py", "reference/checking/apply/exact.py", "spec/grid.py", "spec/rotary.py"]
PROFILE_FIELDS = {"base", "offset", "amplitude", "phase_scale", "shift", "layout", "odd"}
PLAN_READERS = {"exponent", "columns", "column_index", "n_frequencies", "denominator", "pairs_exponent",
                "pairs_denominator", "channel_plan", "plan_of"}


def kernel_violations(source: str) -> list[str]:
    """Reads of a profile's fields (``profile.x``, ``prof.x``, ``<...>.profile.x``) and calls of the plan's other
    readers in a kernel's source: a kernel reads ColumnData (``cd.scale``, ``cd.exponents``, ...) only."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in PROFILE_FIELDS:
            v = node.value
            name = v.id if isinstance(v, ast.Name) else v.attr if isinstance(v, ast.Attribute) else ""
            if name in ("profile", "prof", "profile_"):
                out.append(f"line {node.lineno}: {name}.{node.attr}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in PLAN_READERS:
            out.append(f"line {node.lineno}: {node.func.id}()")
    return out


@pytest.mark.parametrize("path", KERNELS)
def test_kernels_read_only_column_data(path):  # DEF-CHANNELS
    """No kernel rebuilds a phase, a plan or a schedule from a profile's fields (issue 25: the definition edited
    must move every kernel with the proofs)."""
    src = (ROOT / path).read_text()
    if path == "spec/rotary.py":  # the rotary profile's own fields are its rule's parameters; only the plan readers count
        assert not [v for v in kernel_violations(src) if v.endswith("()")], path
        return
    assert kernel_violations(src) == [], path


def test_the_kernel_rule_finds_a_profile_read():  # DEF-CHANNELS (the rule above can fail)
    src = "def f(profile, d):\n    return profile.phase_scale * exponent(profile, d, 1) + self.profile.offset\n"
    assert sorted(kernel_violations(src)) == ["line 2: exponent()", "line 2: profile.offset", "line 2: profile.phase_scale"]
