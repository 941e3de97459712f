"""DEF-PE, DEF-FAMILY, DEF-LAYOUT, DEF-ODD, DEF-SCHEDULE-*: the one definition and its parameters."""
from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from sinpe.reference.oracles.mp import pe_row
from sinpe.spec import PRESETS, get_profile
from sinpe.spec.definition import columns, denominator, exponent, n_frequencies


def labels(name: str, d: int, **kw: object) -> list[str]:
    return [c.label for c in columns(get_profile(name, **kw), d)]


def test_vaswani_columns_interleave_sin_cos():  # DEF-PE
    assert labels("vaswani", 6) == ["sin0", "cos0", "sin1", "cos1", "sin2", "cos2"]
    assert labels("vaswani", 1) == ["sin0"]
    assert labels("vaswani", 7)[-1] == "sin3"  # DEF-PE odd d: trailing sin


@pytest.mark.parametrize("name,d,expected", [
    ("vaswani-concat", 6, ["sin0", "sin1", "sin2", "cos0", "cos1", "cos2"]),
    ("vaswani-concat-cos", 6, ["cos0", "cos1", "cos2", "sin0", "sin1", "sin2"]),
    ("vaswani-concat", 7, ["sin0", "sin1", "sin2", "sin3", "cos0", "cos1", "cos2"]),  # ceil-split
    ("t2t", 7, ["sin0", "sin1", "sin2", "cos0", "cos1", "cos2", "zero"]),  # zero-pad
    ("t2t-cos", 7, ["cos0", "cos1", "cos2", "sin0", "sin1", "sin2", "zero"]),
])
def test_layouts_and_odd_rules(name, d, expected):  # DEF-LAYOUT, DEF-ODD
    assert labels(name, d) == expected


def test_trailing_sin_on_concat_layout():  # DEF-ODD trailing-sin
    assert labels("vaswani-concat", 5, odd="trailing-sin") == ["sin0", "sin1", "cos0", "cos1", "sin2"]
    assert labels("vaswani", 5, odd="zero-pad") == ["sin0", "cos0", "sin1", "cos1", "zero"]


def test_odd_rule_error_raises():  # DEF-ODD error
    with pytest.raises(ValueError, match="odd d=5"):
        columns(get_profile("vaswani", odd="error"), 5)
    assert len(columns(get_profile("vaswani", odd="error"), 4)) == 4


def test_schedules():  # DEF-SCHEDULE-HALF, DEF-SCHEDULE-SHIFT
    """DEF-SCHEDULE-HALF, DEF-SCHEDULE-SHIFT: the schedules of the definition."""
    v, t = get_profile("vaswani"), get_profile("t2t")
    assert [exponent(v, 8, k) for k in range(4)] == [0, Fraction(1, 4), Fraction(1, 2), Fraction(3, 4)]
    assert [exponent(t, 8, k) for k in range(4)] == [0, Fraction(1, 3), Fraction(2, 3), 1]
    assert denominator(v, 7) == Fraction(7, 2)
    assert denominator(get_profile("vaswani", shift=0), 7) == 3  # s = 0 differs from d/2 only for odd d
    assert denominator(get_profile("vaswani", shift=0), 8) == denominator(v, 8)
    # t2t at d = 2: one frequency, D = 0 is harmless (tensor2tensor's max(n-1, 1))
    assert exponent(t, 2, 0) == 0
    with pytest.raises(ValueError, match="schedule undefined"):
        exponent(get_profile("t2t", shift=2), 4, 1)


def test_n_frequencies():
    assert n_frequencies(PRESETS["vaswani"], 65) == 33
    assert n_frequencies(PRESETS["t2t"], 65) == 32
    assert n_frequencies(PRESETS["vaswani-concat"], 65) == 33


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "4"])
def test_bad_width(bad):
    with pytest.raises(ValueError, match="d must be an integer"):
        columns(PRESETS["vaswani"], bad)


@pytest.mark.parametrize("kw,msg", [
    ({"layout": "diagonal"}, "layout must be one of"),
    ({"odd": "drop"}, "odd rule must be one of"),
    ({"base": 1}, "base must be positive"),
    ({"base": "-3"}, "base must be positive"),
    ({"base": "ten"}, "base must be a finite number"),
    ({"amplitude": "nan"}, "amplitude must be a finite number"),
])
def test_bad_parameters(kw, msg):
    with pytest.raises(ValueError, match=msg):
        get_profile("vaswani", **kw)


def test_parameters_enter_the_value():  # DEF-FAMILY: sigma, alpha, offset, base
    p = get_profile("vaswani", base=100, phase_scale="0.5", amplitude=3, offset=2)
    with mpmath.workprec(120):
        row = pe_row(p, 4, 5)
    # column 2 = alpha * sin(sigma * (p + o) * b^(-2/4)) with b = 100: 3 sin(0.5 * 7 / 10)
        assert abs(row[2] - 3 * mpmath.sin(mpmath.mpf(7) / 20)) < mpmath.mpf(2) ** -110
        assert abs(row[1] - 3 * mpmath.cos(mpmath.mpf(7) / 2)) < mpmath.mpf(2) ** -110


def test_replace_keeps_preset_name_only_when_equal():
    assert get_profile("t2t", base=10000).name == "t2t"
    assert get_profile("t2t", base=500).name is None
    assert get_profile("vaswani", layout="sin-cos", odd="ceil-split").name == "vaswani-concat"
    assert get_profile("vaswani", shift="half") == PRESETS["vaswani"]


@pytest.mark.parametrize("overrides", [dict(base=500, offset=2), dict(offset=-1), dict(offset=Fraction(-1, 3)),
                                       dict(amplitude=-1e-05, phase_scale=-0.5), dict(offset=Fraction(-3, 2), base=7)])
def test_cli_flags_round_trip(overrides):  # REQ-CLI-PROFILE, REQ-CHECK-REPRO: the printed flags parse as printed
    p = get_profile("t2t", **overrides)
    import argparse

    from sinpe.reference.cli import build_parser  # noqa: F401  (import check)
    from sinpe.reference.cli.args import add_profile_arguments, profile_from_args
    ap = argparse.ArgumentParser(exit_on_error=False)
    add_profile_arguments(ap)
    q = profile_from_args(ap.parse_args(p.cli_flags().split()))  # '--offset -1/3' was 'expected one argument'
    assert q == p


@pytest.mark.parametrize("text,value", [("1/sqrt(64)", Fraction(1, 8)), ("1/8", Fraction(1, 8)),
                                        ("2**-3", Fraction(1, 8)), ("(1e4 - 1) * 2", Fraction(19998)),
                                        ("-sqrt(9/4)", Fraction(-3, 2)), ("1e-3", Fraction(1, 1000))])
def test_simple_expressions_are_exact(text, value):
    """REQ-CLI-PROFILE: --amplitude 1/sqrt(64) and friends, read exactly through a whitelist."""
    assert get_profile("vaswani", amplitude=text).amplitude == value


@pytest.mark.parametrize("text,msg", [("1/sqrt(512)", "irrational.*0.044194173824159216"),
                                      ("__import__('os').getcwd()", "accepted: decimals"),
                                      ("2**100", "integer powers"), ("1/0", "divides by zero"),
                                      ("sqrt(-4)", "negative"), ("abs(-1)", "accepted"), ("0x10", "accepted")])
def test_expressions_outside_the_whitelist_are_refused(text, msg):
    with pytest.raises(ValueError, match=msg):
        get_profile("vaswani", amplitude=text)
