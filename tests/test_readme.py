"""The README's promises (REQ-API, REQ-CHECK-CLI): at most 150 lines, every relative link of the user pages
resolves, and the console transcripts it shows are what the commands print today (each ``$ command``
is run in a fresh directory; every shown output line must appear, in order; ``...`` stands for lines left out).
Reproduce: python -m pytest tests/test_readme.py
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from helpers import PYTEST, run_sinpe

ROOT = Path(__file__).resolve().parents[1]
PAGES = ("README.md", "reference/README.md", "proofs/README.md", "survey/README.md", "reference/audit/README.md",
         "spec/CHANGELOG.md")

# the module the README's "check your function" and "in your CI" examples name (described there in words)
MYPOS = '''import numpy as np


def pe(positions, d):
    """The PyTorch-tutorial table, with positions rounded to float16 on the way (a real bug class)."""
    p = np.asarray(positions, dtype=np.float16).astype(np.float32)[:, None]
    w = np.exp(np.arange(0, d, 2, dtype=np.float32) * (-np.log(np.float32(10000.0)) / d))
    out = np.zeros((len(p), d), dtype=np.float32)
    out[:, 0::2], out[:, 1::2] = np.sin(p * w), np.cos(p * w)[:, : d // 2]
    return out
'''


def test_readme_is_short():  # REQ-API: the first hour starts here
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 150, len(lines)
    assert lines[2:6] == ["```sh", "make verify", "make test", "```"], lines[:6]


@pytest.mark.parametrize("page", PAGES)
def test_relative_links_resolve(page):
    text = (ROOT / page).read_text()
    links = [m for m in re.findall(r"\]\(([^)\s]+)\)", text) if not re.match(r"[a-z]+:", m) and not m.startswith("#")]
    missing = [m for m in links if not (ROOT / page).parent.joinpath(m.split("#")[0]).exists()]
    assert not missing, (page, missing)


def _transcripts() -> list[tuple[list[str], list[str]]]:
    """(commands, expected output lines) of each ```console block of the README."""
    out = []
    for block in re.findall(r"```console\n(.*?)```", (ROOT / "README.md").read_text(), re.S):
        cmds, want = [], []
        for line in block.splitlines():
            (cmds if line.startswith("$ ") else want).append(line[2:] if line.startswith("$ ") else line)
        out.append((cmds, want))
    return out


def _run(cmd: str, cwd: Path) -> subprocess.CompletedProcess:
    argv = shlex.split(cmd)
    if argv[0] == "sinpe":
        return run_sinpe(*argv[1:], cwd=cwd)
    assert argv[0] == "pytest", cmd
    env = dict(os.environ, PYTHONPATH=str(cwd))
    return subprocess.run([*PYTEST, *argv[1:]], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("i", range(3))
def test_console_transcripts_are_current(i, tmp_path):
    blocks = _transcripts()
    assert len(blocks) == 3, "the README shows three console examples: table, function, CI"
    cmds, want = blocks[i]
    (tmp_path / "mypos.py").write_text(MYPOS)
    got: list[str] = []
    for cmd in cmds:
        res = _run(cmd, tmp_path)
        got += res.stdout.splitlines()
    at = 0
    for line in (w for w in want if w != "..."):
        assert line in got[at:], f"README line not printed (in order) by {cmds}: {line!r}\n" + "\n".join(got[:40])
        at = got.index(line, at) + 1
