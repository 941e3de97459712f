"""A JUnit XML file of named test cases, written whole or not at all (``sinpe check-apply``, ``sinpe scan``).

>>> import os, tempfile
>>> p = os.path.join(tempfile.mkdtemp(), "r.xml")
>>> write_cases(p, "sinpe.scan", [("a", None), ("b", "wrong"), ("c", ("skipped", "not a table"))])
>>> '<failure message="wrong"/>' in open(p).read(), 'skipped="1"' in open(p).read()
(True, True)
"""
from __future__ import annotations

import os
from typing import Any, Sequence
from xml.sax.saxutils import quoteattr


def write_cases(path: str, suite: str, cases: Sequence[tuple[str, Any]], seconds: float = 0.0,
                classname: str = "sinpe") -> None:
    """One testsuite; each case ``(name, None | failure message | ("skipped", message))``."""
    fails = sum(1 for _, m in cases if m and not isinstance(m, tuple))
    skips = sum(1 for _, m in cases if isinstance(m, tuple))
    out = ['<?xml version="1.0" encoding="utf-8"?>',
           f'<testsuite name={quoteattr(suite)} tests="{len(cases)}" failures="{fails}" errors="0" '
           f'skipped="{skips}" time="{seconds:.3f}">']
    for name, msg in cases:
        out.append(f'  <testcase classname={quoteattr(classname)} name={quoteattr(name)}>')
        if isinstance(msg, tuple):
            out.append(f'    <skipped message={quoteattr(msg[1])}/>')
        elif msg:
            out.append(f'    <failure message={quoteattr(msg)}/>')
        out.append('  </testcase>')
    out.append('</testsuite>')
    tmp = f"{path}.sinpe-tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write("\n".join(out) + "\n")
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def check_path(path: str | None) -> None:
    """A --junit FILE whose directory exists and that is not a directory (ValueError otherwise)."""
    if not path:
        return
    full = os.path.abspath(path)
    if os.path.isdir(full):
        raise ValueError(f"--junit: {path!r} is a directory; name the XML file to write")
    if not os.path.isdir(os.path.dirname(full)):
        raise ValueError(f"--junit: directory of {path!r} does not exist")
