"""sinpe.proofs: why it holds. SymPy proofs of the theorems stated in sinpe.spec, and a claim prover.

Public API (the CLI ``sinpe prove`` is a thin shell over it):

- :func:`run_suite` ``(only=None)`` -> list of :class:`~sinpe.proofs.engine.ProofResult` (one per THM-*);
- :func:`prove_claim` ``(text, assume=None)`` -> :class:`~sinpe.proofs.claims.ClaimResult`;
- :func:`prove` ``(only=None, claim=None, assume=None)``: either of the two.

Every result has ``status`` and one ``to_json()`` method.

>>> prove(claim="cos(x)**2 + sin(x)**2 == 1").status            # x complex: still an identity
'proven'
>>> r = prove(claim="cos(2*x) == 1 - sin(x)**2", assume="x: real")   # a sign slip: 1 - 2 sin^2
>>> r.status, r.exit_code
('refuted', 1)
>>> [t.to_json()["scope"]["d"] for t in prove(only=["THM-CPLX"])]
['all']
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# One name per file: this folder is the package sinpe.proofs (pyproject.toml's package-dir), never a top-level
# `proofs` (the repository root is on sys.path under `python -m`).
if __name__ != "sinpe.proofs":
    raise ImportError(f"proofs/ is the package sinpe.proofs, not {__name__!r}: import sinpe.proofs (installed by make)")

__all__ = ["prove", "prove_claim", "run_suite"]


def run_suite(only: str | Sequence[str] | None = None) -> list[Any]:
    """Prove every THM-* of SPEC.md section 5 (or the IDs in ``only``); ValueError on an unknown ID."""
    from .suite import run_all
    return run_all(only)


def prove_claim(text: str, assume: str | None = None) -> Any:
    """Decide one user claim ``LHS == RHS`` / ``A <= B`` (see :mod:`sinpe.proofs.claims`)."""
    from .claims import prove_claim as _pc
    return _pc(text, assume)


def prove(only: str | Sequence[str] | None = None, claim: str | None = None, assume: str | None = None) -> Any:
    """``prove_claim(claim, assume)`` if a claim is given, else ``run_suite(only)``."""
    if claim is not None:
        if only:
            raise ValueError("give either theorem IDs or a claim, not both")
        return prove_claim(claim, assume)
    if assume is not None:
        raise ValueError("--assume needs --claim")
    return run_suite(only)
