"""The report of a check, of every kind (SPEC.md REQ-CHECK-VERDICT, REQ-CHECK-KINDS, REQ-CHECK-UNJUDGED).

One type, :class:`CheckResult`, for every kind: 1-D tables (:func:`sinpe.reference.checking.check.check_table`),
grids, rotary caches and explicit channel plans (:func:`sinpe.reference.checking.judge.judge`), rotary applications
(:class:`sinpe.reference.checking.apply.result.ApplyResult`, a CheckResult) and the rows of a scan (views of one):
the same verdicts and exit codes (:data:`EXIT`), ``conformant`` (True only for ``conforms``), ``unjudged`` as
``{count, share, from_position}``, ``undecided`` (entries the oracle left open: the verdict is then at best
inconclusive), ``cause`` and ``cause_code`` (:mod:`sinpe.reference.checking.cause`), ``parts`` (a rotary pair's cos
and sin caches, each a CheckResult) and one ``to_json()``, the ``sinpe check --json`` contract, with the same keys
for every kind (:data:`SUMMARY_KEYS` in every result and every scan row).

>>> r = CheckResult("mae", "--profile mae", {}, "phase", "float32", 8, 4, kind="grid")
>>> r.verdict, r.conformant, r.exit_code, r.fits
('conforms', True, 0, True)
>>> r.verdict, r.unjudged["count"] = "inconclusive", 32    # every entry unjudged: judged nowhere
>>> r.conformant, r.exit_code, r.fits
(False, 3, False)
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from sinpe.reference.checking.jsonout import json_float, profile_params_json, with_exact

VERDICTS = ("conforms", "fails", "inconclusive")  # exit 0, 1, 3 (REQ-CHECK-VERDICT)
EXIT = {"conforms": 0, "fails": 1, "inconclusive": 3, "skipped": 0, "error": 3}  # a scan row: skipped, error too
MIN_JUDGED_SHARE = 0.5  # a reading fits only where at least this share of its check's entries is judged (fits)
WORSE_FIRST = ("fails", "error", "inconclusive", "skipped", "conforms")
# the keys every result's JSON and every scan row carries (REQ-CHECK-KINDS, REQ-SCAN)
SUMMARY_KEYS = ("kind", "verdict", "conformant", "exit_code", "profile", "profile_flags", "dtype", "reason", "cause",
                "cause_code", "entries", "n_failures", "max_abs_error", "max_bound_ratio", "unjudged", "undecided",
                "seconds")


def worst(verdicts: Any) -> str:
    """The worst of ``verdicts`` (fails, then error, inconclusive, skipped, conforms; none: conforms).

    >>> worst(["conforms", "inconclusive"]), worst([]), combined_exit(["conforms", "error", "fails"])
    ('inconclusive', 'conforms', 1)
    """
    vs = list(verdicts)
    return min(vs, key=WORSE_FIRST.index) if vs else "conforms"


def combined_exit(verdicts: Any) -> int:
    """The exit status of several results (a rotary pair, a scan): 1 when one fails, else 3 when one is
    inconclusive or an error, else 0."""
    return EXIT[worst(verdicts)]


@dataclass
class Failure:
    """One failing entry: where, the value, the reference, the error and its bound, how to reproduce."""

    position: str
    column: int
    label: str
    value: float
    reference: float
    abs_error: float
    allowed: float
    ulp_error: float
    reason: str
    repro: str             # the ``sinpe table`` command writing the reference row ("" where there is none)
    python: str            # a Python line printing the exact reference entry ("" where there is none)
    row: int = -1          # the entry's row in the table checked (REQ-CHECK-REPRO: --rows selects it)
    cache: str | None = None  # a rotary check's cache, ``cos`` or ``sin``

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        for k in ("value", "reference", "abs_error", "allowed", "ulp_error"):
            out[k] = json_float(out[k])
        with_exact(out, ("position",))
        return out


@dataclass
class BandFigures:
    """Errors over the rows whose |position| lies in [lo, hi)."""

    lo: float
    hi: float
    rows: int = 0
    max_abs_error: float = 0.0
    max_ulp_error: float = 0.0
    failures: int = 0
    unjudged: int = 0
    max_bound_ratio: float = 0.0


def no_unjudged() -> dict[str, Any]:
    return {"count": 0, "share": 0.0, "from_position": None}


@dataclass
class CheckResult:
    """The report of a check of any kind (``to_json()`` is the ``sinpe check --json`` contract)."""

    profile: str | None
    profile_flags: str
    profile_params: dict[str, Any]  # a 1-D profile's parameters; {"describe": ...} for the other kinds
    tier: str
    dtype: str
    d: int
    rows: int
    width: int = 0  # the table's columns (d when it conforms in shape)
    max_abs_error: float = 0.0
    max_ulp_error: float = 0.0
    worst: dict[str, Any] = field(default_factory=dict)  # {position, column, label}; {} when nothing was compared
    n_failures: int = 0
    failures: list[Failure] = field(default_factory=list)
    bands: list[BandFigures] = field(default_factory=list)  # 1-D: per decade of positions
    reason: str | None = None
    detected: dict[str, Any] | None = None
    oracle_decided: int = 0  # entries close to their bound that the oracle decided (REQ-CHECK-DECIDE)
    notes: list[str] = field(default_factory=list)
    source: str = ""
    seconds: float = 0.0
    verdict: str = "conforms"
    working: str = ""
    max_bound_ratio: float = 0.0
    unjudged: dict[str, Any] = field(default_factory=no_unjudged)
    structural: dict[str, Any] = field(default_factory=lambda: {"judged": 0, "violations": 0, "findings": []})
    alternatives: list[dict[str, Any]] = field(default_factory=list)
    profile_source: str = "given"  # "detected" under --profile auto (REQ-CHECK-AUTO)
    kind: str = "1d"       # REQ-CHECK-KINDS: "1d", "grid", "rotary" or "channels"
    undecided: int = 0     # entries the oracle left open (its precision cap or budget, REQ-CHECK-DECIDE)
    parts: dict[str, CheckResult] = field(default_factory=dict)  # the cos and sin caches of a rotary check
    reproduce: str = ""    # the sinpe check command of this check
    non_finite: int = 0    # NaN/Inf entries (REQ-CHECK-FINITE); a 1-D ``worst`` is then the first of them
    cause: str | None = None       # why it fails, in one sentence (REQ-CHECK-CLI: :mod:`cause`)
    cause_code: str | None = None  # the cause in one word (precision, base, axes, offset, pairing, ...)

    @property
    def conformant(self) -> bool:
        """True only for ``conforms`` (REQ-CHECK-VERDICT: an inconclusive result is not conformant)."""
        return self.verdict == "conforms"

    @property
    def exit_code(self) -> int:
        """0 conforms, 1 fails, 3 inconclusive (REQ-CHECK-VERDICT)."""
        return EXIT[self.verdict]

    @property
    def entries(self) -> int:
        """The entries compared: rows x d, per cache of a rotary pair."""
        return self.rows * self.d * max(1, len(self.parts))

    @property
    def fits(self) -> bool:
        """What detect takes as a reading that fits (REQ-DETECT-FIT; every reading a check confirms: the precision
        ladder, grids, rotary caches, explicit plans): nothing fails and at least :data:`MIN_JUDGED_SHARE` of the
        entries are judged, each of them an entry the check could have failed (REQ-CHECK-UNJUDGED). Entries a bound
        cannot judge name nothing: a reading judged nowhere would fit any table, and one judged on a few entries
        fits noise (bfloat16 noise at positions near 10^6 passed a YaRN plan under ``--working native``, 64 of its
        2048 entries judged, the rest passing whatever they held). Where no reading fits so, detect names none."""
        judged = self.entries - self.unjudged["count"]
        return self.verdict != "fails" and judged > 0 and judged >= MIN_JUDGED_SHARE * self.entries

    def summary(self) -> dict[str, Any]:
        """The :data:`SUMMARY_KEYS` of :meth:`to_json` (a scan row's keys)."""
        out = self.to_json()
        return {k: out[k] for k in SUMMARY_KEYS}

    def to_json(self) -> dict[str, Any]:
        out = {"conformant": self.conformant, "exit_code": self.exit_code, "entries": self.entries, **asdict(self)}
        out["failures"] = [f.to_json() for f in self.failures]
        out["bands"] = [asdict(b) for b in self.bands]
        out["parts"] = {k: p.to_json() for k, p in self.parts.items()}
        out["structural"] = dict(self.structural, findings=[f.to_json() for f in self.structural["findings"]])
        for k in ("max_abs_error", "max_ulp_error", "max_bound_ratio"):
            out[k] = json_float(out[k])
        for b in out["bands"]:
            for k in ("max_abs_error", "max_ulp_error", "hi", "max_bound_ratio"):
                b[k] = json_float(b[k])
        out["profile_params"] = profile_params_json(out["profile_params"])  # REQ-CLI-JSON
        with_exact(out["worst"], ("position",))
        with_exact(out["unjudged"], ("from_position",))
        return out


@dataclass
class ApplyResult(CheckResult):
    """The report of a rotary application check (REQ-CHECK-APPLY): a CheckResult of kind ``apply`` (tier ``apply``:
    TOL-APPLY), with the function's ``target``, its ``convention``, the rotary dim, the positions, the diagnosis of a
    failure (every hypothesis tried), the unit vectors that leak into other channels, THM-ROPE-REL's figures and
    ``repeat``: a failing function is called a second time with the same inputs (``{"calls": 2, "differing": N}``,
    N the entries whose bits differ; ``"error"`` where the second call failed), None where it was called once."""

    target: str = ""
    convention: str = ""
    rotary_dim: int = 0
    layout: str = ""
    positions: list[Any] = field(default_factory=list)  # ints, or one list of coordinates per row (DEF-ROPE-AXES)
    compared: int = 0       # the entries compared: 2 (q, k) x heads x positions x dim
    diagnosis: dict[str, Any] | None = None
    leaks: list[str] = field(default_factory=list)
    relative: dict[str, Any] = field(default_factory=dict)
    output_dtype: str = ""
    repeat: dict[str, Any] | None = None  # a failing call made again: {calls, differing}; None: made once

    @property
    def entries(self) -> int:
        return self.compared

    @property
    def dim(self) -> int:
        return self.d
