"""Files written whole or not at all (SPEC.md REQ-CLI-OUTPUT): every file sinpe writes -- a table, a report, a
picture -- goes through :func:`atomic_file`.

>>> import os, tempfile
>>> d = tempfile.mkdtemp(); p = os.path.join(d, "out.txt")
>>> with atomic_file(p, text=True) as fh:
...     _ = fh.write("whole")
>>> open(p).read(), sorted(os.listdir(d))
('whole', ['out.txt'])
"""
from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any


@contextmanager
def atomic_file(path: str | os.PathLike[str], *, text: bool = False, suffix: str = ".sinpe-tmp") -> Iterator[IO[Any]]:
    """A file object whose contents replace ``path`` when the block ends, or nothing when it raises: a temporary
    file with a random name created ``O_CREAT | O_EXCL`` (``mkstemp``: never a symlink followed) beside ``path``,
    given the mode ``open()`` would give (the umask's, not mkstemp's 0600), then renamed over ``path`` (a link at
    ``path`` is replaced, never followed)."""
    full = os.path.abspath(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(full)}.", suffix=suffix, dir=os.path.dirname(full))
    try:
        mask = os.umask(0o022)
        os.umask(mask)
        os.fchmod(fd, 0o666 & ~mask)
        with os.fdopen(fd, "w" if text else "wb", encoding="utf-8" if text else None) as fh:
            yield fh
        os.replace(tmp, full)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
