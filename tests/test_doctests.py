"""Every docstring example in sinpe runs as a doctest (the mpmath style: formula + high-precision example)."""
from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import sinpe.proofs
import sinpe.reference
import sinpe.spec


def _modules() -> list[str]:
    names = []
    for pkg in (sinpe.spec, sinpe.proofs, sinpe.reference):
        names.append(pkg.__name__)
        for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            if not m.name.endswith(".__main__"):  # running it would run the CLI
                names.append(m.name)
    return sorted(set(names))


@pytest.mark.parametrize("name", _modules())
def test_doctests(name: str) -> None:
    mod = importlib.import_module(name)
    res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert res.failed == 0, f"{res.failed} doctest(s) failed in {name}; run: python -m doctest -v $(python -c 'import {name} as m; print(m.__file__)')"
