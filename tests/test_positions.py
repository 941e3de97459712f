"""REQ-CLI-POSITIONS: position specs."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from sinpe.reference.numerics.positions import parse_positions, positions_spec


def test_forms(tmp_path):
    assert parse_positions("3:6") == [3, 4, 5]
    assert parse_positions("0,1,65535,1e6,-3,2.5") == [0, 1, 65535, 10**6, -3, Fraction(5, 2)]
    f = tmp_path / "p.npy"
    np.save(f, np.array([0.1, 7.0]))
    assert parse_positions(str(f)) == [Fraction(0.1), Fraction(7)]  # the float's exact value


@pytest.mark.parametrize("spec,msg", [
    ("", "empty"), ("1:2:3:4", "start:stop"), ("0:9:0", "step must be a positive integer"),
    ("0:9:-1", "step must be"), ("0:9:1.5", "step must be"), ("4:4", "empty"), ("0.5:3", "integer bounds"),
    ("1,x", "finite number"), ("0:1000000000", "more than"), ("nope.npy", "does not exist"),
])
def test_bad_specs(spec, msg):
    with pytest.raises(ValueError, match=msg):
        parse_positions(spec)


def test_bad_npy(tmp_path):
    obj = tmp_path / "obj.npy"
    np.save(obj, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError, match="cannot read"):  # a pickled payload is refused, never executed
        parse_positions(str(obj))
    two = tmp_path / "two.npy"
    np.save(two, np.zeros((2, 2)))
    with pytest.raises(ValueError, match="1-D"):
        parse_positions(str(two))
    inf = tmp_path / "inf.npy"
    np.save(inf, np.array([1.0, np.inf]))
    with pytest.raises(ValueError, match="non-finite"):
        parse_positions(str(inf))


def test_spec_round_trip():
    for ps in ([Fraction(i) for i in range(5, 9)], [Fraction(0), Fraction(-3), Fraction(5, 2)], [Fraction(1, 3)]):
        assert parse_positions(positions_spec(ps)) == ps


def test_spec_round_trip_of_binary_fractions():
    # review regression: the binary64 value of 0.1 was written "0.1", which parses to 1/10
    ps = [Fraction(0.1), Fraction(2.5), Fraction(-0.3)]
    assert parse_positions(positions_spec(ps)) == ps
    assert positions_spec([Fraction(2.5), Fraction(-3)]) == "2.5,-3"


def test_range_with_step():
    """REQ-CLI-POSITIONS: start:stop:step (stop excluded), counted before it is built."""
    from sinpe.reference.numerics.positions import count_positions, parse_position_source, positions_from_spec
    assert parse_positions("0:10:3") == [Fraction(i) for i in (0, 3, 6, 9)]
    assert positions_from_spec("5:1e6:250000").tolist() == [5.0, 250005.0, 500005.0, 750005.0]
    assert count_positions("0:10:3") == 4 and count_positions("0:12:3") == 4
    assert parse_position_source("0:10:5").block(0, 2).tolist() == [0.0, 5.0]
    with pytest.raises(ValueError, match="more than 3"):
        positions_from_spec("0:100:25", limit=3)
