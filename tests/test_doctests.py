"""Every docstring example in sinpe runs as a doctest (the mpmath style: formula + high-precision example)."""
from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import sinpe
import sinpe.proofs
import sinpe.reference
import sinpe.spec


def _modules() -> list[str]:
    names = [sinpe.__name__]  # the root package: the Python API (reference/api/)
    for pkg in (sinpe.spec, sinpe.proofs, sinpe.reference):
        names.append(pkg.__name__)
        for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            if not m.name.endswith(".__main__") and m.name != "sinpe.reference.api":  # the CLI; the root's folder
                names.append(m.name)
    return sorted(set(names))


@pytest.mark.parametrize("name", _modules())
def test_doctests(name: str) -> None:
    mod = importlib.import_module(name)
    res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert res.failed == 0, f"{res.failed} doctest(s) failed in {name}; run: python -m doctest -v $(python -c 'import {name} as m; print(m.__file__)')"


@pytest.mark.parametrize("page, least", [("README.md", 3), ("reference/README.md", 8)])
def test_readme_api_examples_run(page, least):  # REQ-API: the user pages' Python examples are doctests
    import re
    from pathlib import Path
    text = (Path(__file__).resolve().parents[1] / page).read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    examples = "\n".join(b for b in blocks if ">>>" in b)
    assert examples.count(">>>") >= least, f"{page}'s API examples are gone"
    test = doctest.DocTestParser().get_doctest(examples, {}, page, page, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0, f"a {page} API example fails; run: python -m doctest -v {page}"


def test_help_lists_the_api():  # REQ-API
    import pydoc
    text = pydoc.render_doc(sinpe, renderer=pydoc.plaintext)
    for name in ("table", "check", "detect", "golden_cases", "prove", "verify"):
        assert f"{name}(" in text, name
