"""The explicit-channel-plan kind (SPEC.md DEF-CHANNELS-EXPLICIT, REQ-DETECT-READ): a 1-D table (a file, an array or
a callable) whose columns are each sin, cos or zero of their own exact frequency, given per column (``--channels``)
or read from the data. Its plan is :func:`~sinpe.reference.oracles.angles.channels_plan`; its check the one judge.

>>> import numpy as np
>>> p = np.arange(40.0)[:, None]
>>> t = np.hstack([np.sin(p), np.cos(p / 8), np.zeros_like(p)]).astype(np.float32)
>>> r = KIND.read(t, None, None)
>>> r["profile_flags"], r["verdict"]
('--channels sin:1,cos:1/8,zero', 'conforms')
"""
from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

import numpy as np

from sinpe.reference.checking.cause import Cause, attach
from sinpe.reference.checking.judge import check_plan
from sinpe.reference.checking.kinds.base import command_word, with_command
from sinpe.reference.checking.options import Option, Request, flag, refused
from sinpe.reference.checking.result import CheckResult
from sinpe.reference.checking.targets import load_target
from sinpe.reference.checking.values import parse_channels
from sinpe.spec.profiles import to_fraction

from ...inputs import LoadError

OPTIONS = (
    Option("channels", ("channels",), "explicit channel plan of a 1-D table (DEF-CHANNELS-EXPLICIT): per column "
           "f:omega, f in sin, cos (omega an exact decimal or a/b) or zero, comma separated (sin:1,cos:1,sin:1/8,cos:1/8), "
           "or a .json file {\"channels\": [...]} of the same items; --amplitude, --offset and --phase-scale apply",
           metavar="PLAN"),
)
SCALARS = ("amplitude", "offset", "phase_scale")  # the 1-D parameters a plan takes (DEF-CHANNELS-EXPLICIT)


class ChannelsKind:
    """The explicit-channel-plan kind (see the module docstring)."""

    name = "channels"
    noun = "an explicit channel plan"
    options: tuple[Option, ...] = OPTIONS

    def claims(self, profile: Any, req: Request) -> bool:
        return req.channels is not None and profile is None and req.cos is None and req.sin is None

    def applicable(self, profile: Any, req: Request) -> None:
        refused(req, "channels", "does not apply to an explicit channel plan (--channels; a zero row is not a "
                "plan's channel)")

    def flags(self, channels: Any, given: Any = None, extra: dict[str, Fraction] | None = None) -> str:
        """The ``sinpe check`` flags of an explicit channel plan: the file as given, else every column exactly."""
        words = given if isinstance(given, str) and given.strip().lower().endswith(".json") else ",".join(
            "zero" if f == "zero" else f"{f}:{w}" for f, w in channels)
        return f"--channels {words}" + "".join(f" {flag(k)} {v}" for k, v in (extra or {}).items())

    def check(self, target: Any, profile: Any, req: Request) -> CheckResult:
        """DEF-CHANNELS-EXPLICIT: a 1-D table (file, array or callable) against an explicit channel plan."""
        if target is None:
            raise LoadError("--channels checks a 1-D table: TARGET is required")
        t0 = time.perf_counter()
        chans = parse_channels(req.channels)
        try:
            extra = {k: to_fraction(getattr(req, k), flag(k)) for k in SCALARS if getattr(req, k) is not None}
        except ValueError as e:
            raise LoadError(str(e)) from None
        t, pos, _ = load_target(target, len(chans), positions=req.positions, key=req.key, call=req.call,
                                timeout=req.timeout, rows=req.rows, skip_rows=req.skip_rows, columns=req.columns)
        from sinpe.reference.oracles.angles import channels_plan  # the plans' oracle (mpmath), when one is checked

        data = np.asarray(t.data)
        plan = channels_plan(chans, list(range(data.shape[0])) if pos is None else list(pos), **extra)
        res = check_plan(data, plan, "channels", kind="channels", dtype=req.dtype or t.dtype, tier=req.tier,
                         working=req.working, max_failures=req.max_failures)
        n = {f: sum(c[0] == f for c in chans) for f in ("sin", "cos", "zero")}
        res.profile_params = {"describe": f"explicit channel plan: {len(chans)} columns ({n['sin']} sin, {n['cos']} "
                              f"cos, {n['zero']} zero), {len(set(plan.fids[plan.kinds != 2].tolist()))} frequencies"
                              + "".join(f", {k} {v}" for k, v in extra.items())}
        if req.detect and res.verdict == "fails":  # what the data reads as instead: the cause
            reading = self.read(data, pos, res.dtype, req.tier)
            if reading is not None:
                res.detected = dict(reading, sentence=f"reads as {reading['profile_flags']}")
                attach(res, Cause("channels", f"reads as {reading['profile_flags']}"))
        return with_command(res, self.flags(chans, req.channels, extra), command_word(target), t.notes, t0)

    def read(self, table: Any, positions: Any, dtype: str | None, tier: str = "phase") -> dict[str, Any] | None:
        """DEF-CHANNELS-EXPLICIT read from a 1-D table no family member fits (REQ-DETECT-READ): every column sin, cos
        or zero of its own frequency, one amplitude; at each amplitude reading, simplest first, the frequencies read
        with the amplitude and function known (``channel_frequencies``). Returned (with the ``--channels`` flags) only
        if the plan conforms."""
        from sinpe.reference.checking.detect.channels import (  # the reading: imported when a table is read
            _amplitudes,
            channel_frequencies,
            read_channels,
        )
        from sinpe.reference.checking.detect.ladder import stored_dtype
        from sinpe.reference.oracles.angles import channels_plan

        t = np.asarray(table)
        try:
            rd = read_channels(t, positions)
        except ValueError:
            return None
        live = np.array([k != "zero" for k in rd.kinds])
        if any(k not in ("sin", "cos", "zero") for k in rd.kinds) or not live.any():
            return None
        run, p = rd.run, rd.positions
        y = np.asarray(t[run], dtype=np.float64)
        turns = live & (rd.omega * rd.span > 2 * np.pi)
        amp = float(np.median(rd.amplitude[turns if turns.any() else live]))
        dt = dtype or stored_dtype(t)
        pos = list(range(t.shape[0])) if positions is None else list(positions)
        for a in _amplitudes(amp, dt):  # the frequencies read at each amplitude reading (a slow band's w and A trade)
            w = channel_frequencies(rd, y, p, float(a), turns, dt)
            if w is None or not np.all(w[live] > 0):  # (a constant column is no cos of frequency 0: no plan)
                continue
            chans = [("zero", None) if k == "zero" else (k, Fraction(float(x))) for k, x in zip(rd.kinds, w, strict=True)]
            try:
                r = check_plan(t, channels_plan(chans, pos, amplitude=a), "channels", dtype=dt, tier=tier)
            except (ValueError, ArithmeticError):
                continue
            if r.fits:
                extra = {} if a == 1 else {"amplitude": a}
                plan = self.flags(chans).split(" ", 1)[1]
                return {"found": True, "profile_flags": self.flags(chans, None, extra), "plan": plan,
                        "columns": len(chans), "frequencies": len({c[1] for c in chans if c[1] is not None}),
                        "read_from_data": rd.to_json(), "amplitude": str(a), "verdict": r.verdict}
        return None

    def reading_words(self, r: dict[str, Any], found: Any) -> tuple[str, str, Any]:
        return (r["profile_flags"], (f"A 1-D table no family member fits, read as an explicit channel plan: "
                f"{r['columns']} columns, {r['frequencies']} frequencies, amplitude {r['amplitude']}."), None)


KIND = ChannelsKind()
