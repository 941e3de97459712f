"""Whose fault an exception is (SPEC.md REQ-CLI-EXIT): the input's (exit 2) or sinpe's (exit 3).

An exception is the *input's* when it escapes while the input is read (the readers below: files, positions,
frequency lists, the user's callable) or when sinpe itself refused a value (a ``raise`` of a ``ValueError`` in
sinpe's code, not in a library it calls: a bad base, a shape the rows do not make). Anything else -- NumPy's
"operands could not be broadcast", an IndexError, a ZeroDivisionError raised while sinpe computes on input it
has accepted -- is an *internal error*: reported as such (exit 3), never as bad input.

>>> import numpy as np
>>> try:
...     np.ones(3) + np.ones(2)
... except ValueError as e:
...     internal(e)
True
>>> try:
...     np.linalg.inv(np.zeros((2, 2)))
... except ValueError as e:     # numpy's own raise: a library's, not sinpe's refusal of a value
...     internal(e)
True
>>> from sinpe.spec.profiles import get_profile
>>> try:
...     get_profile("vaswani", base=-1)
... except ValueError as e:     # sinpe refused the value given
...     internal(e)
False
"""
from __future__ import annotations

import importlib.util
import linecache
import os
import sysconfig
from types import TracebackType

import sinpe.proofs
import sinpe.reference
import sinpe.spec

_API = importlib.util.find_spec("sinpe")  # the API root's folder, found without importing it (only the doors do)
_ROOTS = tuple(os.path.dirname(os.path.abspath(f or "")) + os.sep
               for f in (_API.origin if _API else None, sinpe.spec.__file__, sinpe.proofs.__file__,
                         sinpe.reference.__file__))
_LIBRARY_ROOTS = tuple(os.path.abspath(p) + os.sep for p in {sysconfig.get_path(k) for k in ("stdlib", "platstdlib",
                                                                                       "purelib", "platlib")} if p)
# the code that reads the user's input: an exception escaping from it is the input's (a corrupt file, a callable
# that raises, positions that are not numbers)
# (checking/values.py: the option values read from text and files: frequencies, sections, channel plans, shapes)
READER_MODULES = ("checking/loaders.py", "checking/isolate.py", "checking/scan_files.py", "checking/values.py",
                  "numerics/positions.py")
READER_FUNCTIONS = {"checking/kinds/base.py": ("load_plain",), "checking/kinds/grid.py": ("load",),
                    "checking/kinds/rotary.py": ("load",), "checking/targets.py": ("load_target", "_positions")}


def _sinpe_file(path: str) -> str | None:
    """``path`` relative to sinpe's package roots (``checking/targets.py``), or None for other code."""
    full = os.path.abspath(path)
    roots = [r for r in _ROOTS if full.startswith(r)]  # the innermost: the API root's folder may hold the others
    return full[len(max(roots, key=len)):].replace(os.sep, "/") if roots else None


def _frames(tb: TracebackType | None) -> list[tuple[str | None, str, int, str]]:
    """(path relative to sinpe or None, function, line, file) of each frame, outermost first."""
    out = []
    while tb is not None:
        code = tb.tb_frame.f_code
        out.append((_sinpe_file(code.co_filename), code.co_name, tb.tb_lineno, code.co_filename))
        tb = tb.tb_next
    return out


def reading_input(exc: BaseException) -> bool:
    """Did ``exc`` escape from the code that reads the input (READER_MODULES, READER_FUNCTIONS)?"""
    return any(rel is not None and fn != "input_errors"  # (the guard itself is no reader)
               and (rel in READER_MODULES or fn in READER_FUNCTIONS.get(rel, ()))
               for rel, fn, _, _ in _frames(exc.__traceback__))


def _library(path: str) -> bool:
    """A file of an installed library or of the standard library (NumPy, mpmath, fractions), not sinpe's."""
    full = os.path.abspath(path)
    return _sinpe_file(full) is None and (full.startswith(_LIBRARY_ROOTS) or not os.path.isfile(full))


def refused_by_sinpe(exc: BaseException) -> bool:
    """Is ``exc`` a ValueError (a LoadError among them) that sinpe's own code raised, not a library it called: its
    innermost frame a ``raise`` statement outside the installed and standard libraries?"""
    frames = _frames(exc.__traceback__)
    if not isinstance(exc, ValueError) or not frames or _library(frames[-1][3]):
        return False
    return linecache.getline(frames[-1][3], frames[-1][2]).strip().startswith("raise")


def internal(exc: BaseException) -> bool:
    """True unless ``exc`` is the input's: read from it, or a value sinpe refused (see the module docstring).
    An OSError (a path that cannot be read or written) and a MemoryError are the input's too."""
    if isinstance(exc, (OSError, MemoryError)):
        return False
    return not (reading_input(exc) or refused_by_sinpe(exc))


def internal_words(exc: BaseException) -> str:
    """One line naming the fault and where sinpe's code met it (``file:line in function``)."""
    ours = [f for f in _frames(exc.__traceback__) if f[0] is not None]
    where = f" (at {ours[-1][0]}:{ours[-1][2]} in {ours[-1][1]})" if ours else ""
    return f"{type(exc).__name__}: {str(exc)[:300]}{where}"
