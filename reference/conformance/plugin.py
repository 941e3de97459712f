"""pytest plugin (entry point ``pytest11: sinpe``): options for the conformance suite.

Loaded in every pytest session where sinpe is installed, so it only registers options.
"""
from __future__ import annotations


def pytest_addoption(parser):  # type: ignore[no-untyped-def]
    g = parser.getgroup("sinpe", "sinpe conformance")
    g.addoption("--sinpe-impl", default=None, help="module:callable to check")
