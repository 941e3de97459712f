"""The main job (SPEC.md REQ-VERIFY): proofs, golden self-certification, implementation certification.

:func:`verify` runs the parts in order and returns a :class:`VerifyReport`; a part that cannot run (a
missing extra, an import error) is a failure, never a skip. ``sinpe verify`` prints it.
"""
from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any


@dataclass
class Part:
    name: str
    ok: bool
    seconds: float
    summary: str
    detail: dict[str, Any] = field(default_factory=dict)
    text: str = ""


def _proofs(args: Any) -> Part:
    from sinpe.proofs.suite import run_all
    from sinpe.reference.progress import Progress

    bar = Progress(1, "sinpe verify: proofs", None if args.progress else False, unit="theorems")
    results = run_all(progress=bar.step)
    bar.close()
    rows = [r.to_json() for r in results]
    bad = [r["id"] for r in rows if r["status"] != "proven"]
    lines = [f"  {r['id']:<22} {r['status']:<11} {r['seconds']:7.2f}s  {r['method']}" for r in rows]
    return Part("proofs", not bad and bool(rows), 0.0,
                f"{len(rows) - len(bad)}/{len(rows)} theorems proven" + (f"; not proven: {', '.join(bad)}" if bad else ""),
                {"theorems": rows}, "\n".join(lines))


def _golden(args: Any) -> Part:
    from sinpe.reference.golden.vectors import self_certify

    rep = self_certify(sample=args.sample, seed=args.seed, full=not args.quick)
    d = rep.to_json()
    return Part("golden", bool(rep.ok), 0.0, d.get("summary", "golden self-certification"), d, rep.render())


def _certify(args: Any) -> Part:
    from sinpe.reference.implementations.certify import certify_all

    rep = certify_all(max_position=args.max_position, progress=args.progress)
    d = rep.to_json()
    return Part("implementations", bool(rep.ok), 0.0, d.get("summary", "implementation certification"), d, rep.render())


PARTS: dict[str, Callable[[Any], Part]] = {
    "proofs": _proofs,
    "golden": _golden,
    "implementations": _certify,
}



@dataclass
class VerifyReport:
    """Every part's verdict; ``ok`` only if all hold."""

    parts: list[Part]

    @property
    def ok(self) -> bool:
        return bool(self.parts) and all(p.ok for p in self.parts)

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "parts": [{"name": p.name, "ok": p.ok, "seconds": round(p.seconds, 3),
                                          "summary": p.summary, "detail": p.detail} for p in self.parts]}

    def render(self) -> str:
        out = []
        for p in self.parts:
            out.append(f"== {p.name}: {'OK' if p.ok else 'FAILED'} ({p.seconds:.1f}s) — {p.summary}")
            if p.text:
                out.append(p.text)
        out.append(f"sinpe verify: {'all parts hold' if self.ok else 'FAILED: ' + ', '.join(p.name for p in self.parts if not p.ok)}")
        return "\n".join(out)


def verify(only: Sequence[str] | None = None, *, sample: int = 2000, seed: int | None = None, quick: bool = False,
           max_position: int = 10**7, progress: bool = False, log: Callable[[str], None] | None = None) -> VerifyReport:
    """Run the parts named in ``only`` (default all: proofs, golden, implementations) and report.

    ``sample``/``seed``: the golden values re-derived by the second oracle (a fresh seed by default,
    printed in the report); ``quick`` skips re-deriving the whole golden set; ``max_position``: the
    largest position band certified.
    """
    if sample < 1:
        raise ValueError("sample must be >= 1")
    unknown = [n for n in (only or []) if n not in PARTS]
    if unknown:
        raise ValueError(f"unknown part(s) {unknown}; parts: {', '.join(PARTS)}")
    args = SimpleNamespace(sample=sample, seed=seed, quick=quick, max_position=max_position, progress=progress)
    parts: list[Part] = []
    for name in only or list(PARTS):
        if log:
            log(f"[sinpe verify] {name} ...")
        t0 = time.perf_counter()
        try:
            part = PARTS[name](args)
        except Exception as e:  # a part that cannot run is a failure, reported, never skipped
            part = Part(name, False, 0.0, f"could not run: {type(e).__name__}: {e}",
                        {"error": traceback.format_exc(limit=3)})
        part.seconds = time.perf_counter() - t0
        parts.append(part)
    return VerifyReport(parts)
