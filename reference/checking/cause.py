"""The cause of a failing verdict, in one sentence, from one place (SPEC.md REQ-CHECK-CLI, REQ-CHECK-APPLY, REQ-SCAN).

Every result carries ``cause`` (the sentence) and ``cause_code`` (one word: ``precision``, ``base``, ``axes``,
``offset``, ``pairing``, ...), both None when the result conforms or nothing names one. The sentence comes
from what detect reads in the table (the precision finding first, then what it reads differently from the claim)
or, for an application, from the hypothesis that explains every output (:mod:`sinpe.reference.checking.apply.
diagnose`) -- unless a second call with the same inputs returned other bits (:func:`of_repeat`: ``nondeterministic``). The text report, the JSON, the JSONL of a scan and the JUnit message all print this sentence.

>>> of_deviations({"precision": "positions-float16", "base": 500}).sentence
'the table reads as positions in float16 (precision loss), base 500'
>>> of_rotary({"layout": "halves", "base": "1000000", "rule": "default"},
...           {"found": True, "params": {"layout": "halves", "base": "500000", "rule": "default"}}).sentence
'base 500000 where 1000000 is claimed'
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

DEVIATION_WORDS = {"layout": "layout", "shift": "schedule shift", "base": "base", "phase_scale": "phase scale",
                   "amplitude": "amplitude", "offset": "position offset", "odd": "odd rule", "width": "width"}


@dataclass(frozen=True)
class Cause:
    """``code``: one word naming the kind of bug; ``sentence``: what the report prints after ``cause:``."""

    code: str
    sentence: str


def attach(res: Any, cause: Cause | None) -> None:
    """``res.cause`` and ``res.cause_code`` from ``cause``, when ``res`` does not conform (else both None)."""
    named = cause if cause is not None and res.verdict != "conforms" else None
    res.cause = None if named is None else named.sentence
    res.cause_code = None if named is None else named.code


def lowered_words(fmt: str, working: str | None) -> str:
    """The sentence of a reading found on a later step of :func:`precision_ladder`."""
    if working == "native":
        return (f"computed natively in {fmt}: it fits only the bound of --working native, not TOL-WORKING's default "
                "(computed in float32, rounded once).")
    return f"computed in {fmt}: it fits only the bound of a {fmt} table, not that of the format it is stored in."


def precision_words(precision: str) -> str:
    """detect's precision reading in words: ``positions-float16`` -> ``positions in float16 (precision loss)``."""
    return f"{precision.replace('-', ' in ')} (precision loss)"


def of_deviations(dev: dict[str, Any], parameters: bool = True) -> Cause | None:
    """A 1-D table's cause from detect's deviations: the precision finding first, then (``parameters``: when the
    check was against a claimed profile, not the one detect found) the parameters in which the table differs, then
    NaN/Inf entries and the other deviations."""
    out = [precision_words(str(dev["precision"]))] if "precision" in dev else []
    words = DEVIATION_WORDS if parameters else {}
    out += [f"{w} {dev[k]}" for k, w in words.items() if k in dev]
    if dev.get("zeroed_rows"):
        out.append(f"{len(dev['zeroed_rows'])} zeroed rows (padding)")
    if dev.get("non_finite"):
        out.append(f"{dev['non_finite']} NaN/Inf entries")
    other = [k for k in dev if k not in DEVIATION_WORDS and k not in ("precision", "zeroed_rows", "non_finite")]
    out += [k.replace("_", " ") for k in other]
    codes = (["precision"] if "precision" in dev else []) + [k for k in words if k in dev] + \
        [k for k in ("zeroed_rows", "non_finite") if dev.get(k)] + other
    return Cause(codes[0], "the table reads as " + ", ".join(out)) if out else None


def of_table(res: Any, parameters: bool = True) -> Cause | None:
    """The cause of a 1-D result from the detection it carries (``res.detected``; None without one)."""
    det = getattr(res, "detected", None) or {}
    return of_deviations(det.get("deviations") or {}, parameters) if det.get("deviations") else None


def _claimed(key: str, read: Any, claimed: Any) -> str:
    return f"{key.replace('_', ' ')} {read} where {claimed} is claimed"


def of_grid(claimed: dict[str, Any], reading: dict[str, Any], swapped: bool = False) -> Cause | None:
    """A grid's cause from its grid reading: computed in less precision than claimed, the axes swapped (another
    preset whose axes are the claimed ones in another order: ``swapped``), another preset, or other options, shape
    or cls rows than claimed (``claimed``: ``{"profile", "shape", "cls", "options"}`` as a reading writes them)."""
    if not reading.get("found"):
        return None
    if reading.get("lowered"):
        return Cause("precision", lowered_words(reading["dtype"], reading.get("working")).rstrip("."))
    if reading["profile"] != claimed["profile"]:
        return Cause("axes" if swapped else "preset", ("axes swapped: " if swapped else "") +
                     f"reads as {reading['profile']}" + _options_words(reading.get("options") or {}))
    diff = [(k, reading.get(k), claimed.get(k)) for k in ("shape", "cls") if reading.get(k) != claimed.get(k)]
    opts = {**(claimed.get("options") or {}), **(reading.get("options") or {})}
    diff += [(k, (reading.get("options") or {}).get(k), (claimed.get("options") or {}).get(k)) for k in opts
             if (reading.get("options") or {}).get(k) != (claimed.get("options") or {}).get(k)]
    if not diff:
        return None
    return Cause(diff[0][0], "; ".join(_claimed(k, _grid_value(r), _grid_value(c)) for k, r, c in diff))


def _grid_value(v: Any) -> str:
    return "x".join(map(str, v)) if isinstance(v, (list, tuple)) else "none" if v in (None, False) else str(v)


def _options_words(options: dict[str, Any]) -> str:
    return "".join(f", {k.replace('_', ' ')} {v}" for k, v in options.items() if v not in (None, False))


def of_rotary(claimed: dict[str, Any], reading: dict[str, Any]) -> Cause | None:
    """A rotary cache's cause from its rotary reading: computed in less precision than claimed, rows at positions
    offset from the claimed ones (``start``), the parameters it reads differently (``claimed``: the claimed profile's
    ``params()``), or frequencies that fit no rule (read from the data)."""
    if not reading.get("found"):
        return None
    if reading.get("lowered"):
        return Cause("precision", lowered_words(reading["dtype"], reading.get("working")).rstrip("."))
    words, codes = [], []
    if reading.get("start"):
        codes.append("offset")
        words.append(f"positions offset by +{reading['start']}: row i holds position i + {reading['start']}")
    if "read_from_data" in reading:
        codes.append("frequencies")
        words.append(f"its frequencies fit no rule: read from the data, {reading.get('describe')}")
    else:
        params = reading.get("params") or {}
        for k in dict.fromkeys([*claimed, *params]):
            if k != "explicit" and params.get(k) != claimed.get(k):
                codes.append(k)
                words.append(_claimed(k, _rotary_value(params.get(k)), _rotary_value(claimed.get(k))))
    if reading.get("shape"):
        codes.append("shape")
        words.append(f"rows the cells of a {'x'.join(map(str, reading['shape']))} grid")
    return Cause(codes[0], "; ".join(words)) if words else None


def _rotary_value(v: Any) -> str:
    return ",".join(map(str, v)) if isinstance(v, (list, tuple)) else "none" if v is None else str(v)


NONDETERMINISTIC = "nondeterministic"


def of_repeat(repeat: dict[str, Any] | None, entries: int) -> Cause | None:
    """An application's cause when a second call with the same inputs returned other bits (``repeat``:
    :attr:`~sinpe.reference.checking.result.ApplyResult.repeat`): the function is not deterministic, so the
    hypotheses read from its first output name nothing reproducible; None when the two calls agree bit for bit.

    >>> of_repeat({"calls": 2, "differing": 3}, 40).sentence  # doctest: +NORMALIZE_WHITESPACE
    'the function returned different values for the same inputs on a second call: 3 of 40 entries differ;
     the verdict is on the first call'
    >>> of_repeat({"calls": 2, "differing": 0}, 40) is None
    True
    """
    if not repeat or not repeat.get("differing"):
        return None
    return Cause(NONDETERMINISTIC, f"the function returned different values for the same inputs on a second call: "
                 f"{repeat['differing']} of {entries} entries differ; the verdict is on the first call")


def of_diagnosis(diagnosis: dict[str, Any] | None) -> Cause | None:
    """An application's cause: the hypothesis that explains every output (none when no known bug does)."""
    if not diagnosis or diagnosis.get("cause") is None:
        return None
    return Cause(str(diagnosis["cause"]), str(diagnosis["sentence"]))
