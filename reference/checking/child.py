"""The isolated child's entry point (SPEC.md REQ-CHECK-ISOLATE): ``python -P -c ... SCRATCH CTL RES``.

It confines itself first (:func:`sinpe.reference.checking.confine.child_setup`: environment, capabilities, Landlock
reads and writes, network), and only then imports NumPy and the loaders and serves the calls
(:func:`sinpe.reference.checking.isolate.serve`): nothing the child imports after it is confined can reach what the
confinement took away.
"""
from __future__ import annotations

from sinpe.reference.checking.confine import child_setup


def main(argv: list[str]) -> int:
    """Confine, then serve; 0 when the confinement failed (the parent reads why on the outbox)."""
    ready = child_setup(argv)
    if ready is None:
        return 0
    from sinpe.reference.checking.isolate import serve  # local: imported once confined (NumPy, the loaders come after)
    return serve(*ready)
