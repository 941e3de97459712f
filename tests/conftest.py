"""Shared fixtures of the test suite: the one CLI runner (tests/helpers.run_sinpe) and tables written to a
temporary directory; and the fast subset: ``pytest -m "not slow"`` (``make test-fast``) skips the modules
listed in :data:`SLOW_MODULES`, each of which takes more than ~10 s on a quiet 2-core machine."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

from helpers import run_sinpe

SLOW_MODULES = ("test_proofs.py", "test_proofs_negative.py", "test_proofs_certificates.py", "test_proofs_claims.py",
                "test_claims_cli.py", "test_golden_regen.py", "test_certify.py", "test_packaging.py",
                "test_hostile.py", "test_survey.py", "test_certificates_hostile.py")


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    for item in items:
        if item.nodeid.split("::")[0].rsplit("/", 1)[-1] in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def sinpe_cli() -> Callable[..., Any]:
    """``sinpe_cli("check", "t.npy", cwd=...)``: tests/helpers.run_sinpe, the suite's one CLI runner."""
    return run_sinpe


@pytest.fixture
def tmp_table(tmp_path: Any) -> Callable[..., Any]:
    """``tmp_table(profile, d, rows, dtype, name="t.npy", edit=None)``: the correctly rounded table written as
    ``.npy`` in a temporary directory (``edit(table)`` may change it first); returns the path."""
    from sinpe.reference.tables import table

    def write(profile: str = "vaswani", d: int = 16, rows: int = 40, dtype: str = "float32", name: str = "t.npy",
              edit: Callable[[np.ndarray], Any] | None = None) -> Any:
        t = table(profile, d, rows, dtype)
        if edit is not None:
            edit(t)
        np.save(tmp_path / name, t)
        return tmp_path / name
    return write


# REQ-PROVE-CERT: the theorems whose certificates tests/test_proofs_certificates.py and
# tests/test_certificates_hostile.py read (every entry kind but the plan steps and THM-SHIFT's, which those
# modules record from the step functions themselves): written once per test session.
CERTIFIED_SUBSET = ("THM-DOT", "THM-EVEN", "THM-NORM", "THM-BOUND", "THM-WAVE", "THM-INJ", "THM-NONPERM", "THM-ATTN",
                    "THM-CPLX", "THM-ROPE-REL")


@pytest.fixture(scope="session")
def proof_certificates(tmp_path_factory: Any) -> tuple[Any, dict]:
    """(directory, summary): ``write_suite`` of :data:`CERTIFIED_SUBSET`, once per session; copy before editing."""
    from sinpe.proofs.certificates import write_suite
    d = tmp_path_factory.mktemp("certificates")
    results, summary = write_suite(str(d), list(CERTIFIED_SUBSET))
    assert all(r.proven for r in results), [r.id for r in results if not r.proven]
    return d, summary
