"""What detect names (SPEC.md REQ-DETECT-KINDS, REQ-DETECT-CLI): :class:`Found`, one reading per kind, and the words
of the one it names (each kind's :meth:`~sinpe.reference.checking.kinds.base.Kind.reading_words`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sinpe.reference.checking.cause import lowered_words
from sinpe.reference.checking.jsonout import exact_number, with_exact
from sinpe.reference.checking.kinds import KINDS
from sinpe.spec.grid import Grid
from sinpe.spec.rotary import RotaryProfile


@dataclass
class Found:
    """What :func:`~sinpe.reference.checking.door.detect` names (REQ-DETECT-KINDS): ``kind`` (1d, grid, rotary,
    channels), ``profile``, ``profile_flags`` (the ``sinpe check`` flags), ``sentence``, every reading tried, and what
    a check against it needs. The 1-D ``Detection``'s attributes (``layout``, ``deviations``, ...) are readable on it
    directly."""

    kind: str
    profile: str | None
    profile_flags: str | None
    sentence: str
    readings: dict[str, dict[str, Any]]
    detection: Any = None          # the 1-D Detection, when the 1-D fit ran
    table: Any = None              # the loaded table (Table)
    positions: Any = None
    grid: Grid | None = None
    rotary: RotaryProfile | None = None
    cache_pair: bool = False
    arrays: dict[str, Any] = field(default_factory=dict)  # the caches read, by name
    dtype: str = ""                # the format of the file read: what a check of it claims unless told (--dtype)
    against: Any = None
    exit_code: int = 0

    def __getattr__(self, name: str) -> Any:
        if name == "detection":
            raise AttributeError(name)
        if self.detection is None:
            raise AttributeError(f"a {self.kind} detection has no {name!r}")
        return getattr(self.detection, name)

    def to_json(self) -> dict[str, Any]:
        if self.kind == "1d":
            out = self.detection.to_json()
            out["kind"], out["readings"] = "1d", self.readings
            return out
        return {"kind": self.kind, "profile": self.profile, "profile_flags": self.profile_flags,
                "sentence": self.sentence, "readings": self.readings}


def name(found: Found, kind: str, against_kind: str) -> Found:
    """Fill in what the reading of ``kind`` names: profile, flags, sentence, the object to check against, the exit
    status (0 when it is the preset asked for, ``found.against`` of kind ``against_kind``, or none was asked for)."""
    want = found.against if isinstance(found.against, str) and against_kind == kind else None
    found.kind = kind
    if kind == "1d":
        det = found.detection
        found.profile, found.profile_flags, found.sentence = det.profile, det.profile_flags, det.sentence
        found.exit_code = 0 if not det.deviations else 1
        return found
    r = found.readings["1d"]["channels"] if kind == "channels" else found.readings[kind]
    found.profile_flags, found.sentence, named = KINDS[kind].reading_words(r, found)
    found.profile = None if kind == "channels" else r.get("profile")
    if kind == "channels":
        found.exit_code = 0
        return found
    if kind == "grid":
        found.grid = named
    else:
        found.rotary = named
    if r.get("dtype") and (found.dtype and r["dtype"] != found.dtype or r.get("lowered") and not r.get("working")):
        # judged in another format than the file's (the narrowest holding its values: half values in a float32 file;
        # the ladder's float32; --dtype asked): the check reads the file's format unless told
        found.profile_flags += f" --dtype {r['dtype']}"
    if r.get("lowered"):  # fits only as computed in less precision than it claims: a deviation (exit 1)
        found.profile_flags += " --working native" if r.get("working") == "native" else ""
        found.sentence = found.sentence[:-1] + "; " + lowered_words(r["dtype"], r.get("working"))
    if isinstance(r.get("params"), dict):  # REQ-CLI-JSON: numbers, with the exact strings beside them
        r["params"] = dict(r["params"])
        with_exact(r["params"], tuple(k for k, v in r["params"].items()
                                      if isinstance(v, str) and not isinstance(exact_number(v), str)))
    found.exit_code = 0 if (want is None or want == found.profile) and not r.get("lowered") else 1
    return found


def none(found: Found, sentence: str) -> Found:
    """A grid or cache that no preset of its kind fits: a finding (exit 1), never a pass."""
    found.sentence, found.exit_code = sentence, 1
    return found
