"""One JSON form for the numbers and names every report shares (SPEC.md REQ-CLI-JSON).

Exact parameters and positions are JSON numbers, with the exact decimal string beside them under
``<key>_exact`` (a JSON number may be read as binary64; ``"base_exact": "10000"`` is the value itself).
The schedule shift is ``"half"`` for Vaswani's D = d/2 (the ``--shift half`` flag), else a number; the
odd-d rule is ``odd`` everywhere (the ``--odd`` flag).

>>> exact_number("10000"), exact_number("1/3"), exact_number("2.5")
(10000, 0.3333333333333333, 2.5)
>>> out = {"base": "10000", "shift": None, "odd_rule": "zero-pad"}
>>> with_exact(out, ("base",)); shift_json(out); rename_odd(out); out
{'base': 10000, 'shift': 'half', 'base_exact': '10000', 'odd': 'zero-pad'}
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any


def exact_number(s: Any) -> Any:
    """A decimal/rational string as a JSON number (int when integral, else the nearest binary64)."""
    if s is None or isinstance(s, (int, float)) and not isinstance(s, bool):
        return s
    try:
        q = Fraction(str(s))
    except (ValueError, ZeroDivisionError):
        return s
    return int(q) if q.denominator == 1 else float(q)


def with_exact(out: dict[str, Any], keys: tuple[str, ...]) -> None:
    """``out[k]`` becomes a number and ``out[k + '_exact']`` keeps the exact string, for each k present."""
    for k in keys:
        if k in out and isinstance(out[k], str):
            out[f"{k}_exact"] = out[k]
            out[k] = exact_number(out[k])


def shift_json(out: dict[str, Any], key: str = "shift") -> None:
    """``None`` (D = d/2) -> ``"half"``; a rational string -> a number with ``shift_exact``."""
    if key not in out:
        return
    if out[key] is None or out[key] == "half":
        out[key] = "half"
    else:
        with_exact(out, (key,))


def rename_odd(out: dict[str, Any]) -> None:
    """``odd_rule`` -> ``odd`` (one name per concept, as the ``--odd`` flag and profile parameters)."""
    if "odd_rule" in out:
        out["odd"] = out.pop("odd_rule")


PARAMS = ("base", "phase_scale", "amplitude", "offset")


def profile_params_json(params: dict[str, Any]) -> dict[str, Any]:
    """A profile's parameters (:meth:`Profile.params`) in the shared JSON form."""
    out = dict(params)
    with_exact(out, PARAMS)
    shift_json(out)
    return out


def json_float(x: float) -> float | str:
    """A float for JSON: itself when finite, else ``"nan"``, ``"inf"`` or ``"-inf"`` (JSON has no non-finite numbers).

    >>> json_float(0.5), json_float(float("inf")), json_float(float("nan"))
    (0.5, 'inf', 'nan')
    """
    return x if math.isfinite(x) else ("nan" if math.isnan(x) else ("inf" if x > 0 else "-inf"))
