"""--call forward and --call buffer reach past 2048 by default (REQ-CHECK-CALL-REACH): a module computing its
positions in float16 is exact up to 2048 (every integer there is a float16 value) and wrong from 2049 on, so a
check of rows 0..2047 -- forward's default at 0f1533a -- passes it. The default is now the module's own length
(its max_len attribute, or the rows of its table; 8192 when it says none), said in the report.
Reproduce: python -m pytest tests/test_call_reach.py -q
"""
from __future__ import annotations

import json
import textwrap

import pytest
from helpers import run_sinpe

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

MODULES = textwrap.dedent('''
    import math
    import torch

    def table(d, max_len, dtype):
        pos = torch.arange(max_len, dtype=dtype).float()[:, None]   # float16: 2049 -> 2048, 2051 -> 2052, ...
        div = torch.exp(torch.arange(0, d, 2).float() * (-math.log(10000.0) / d))
        pe = torch.zeros(max_len, d)
        pe[:, 0::2], pe[:, 1::2] = torch.sin(pos * div), torch.cos(pos * div)
        return pe

    class Half(torch.nn.Module):          # the table buffer says the length: 5000 rows
        def __init__(self, d=64, max_len=5000, dtype=torch.float16):
            super().__init__()
            self.register_buffer("pe", table(d, max_len, dtype)[None])
        def forward(self, x):
            return x + self.pe[:, :x.size(1)]

    class Exact(Half):
        def __init__(self, d=64):
            super().__init__(d, 5000, torch.float32)

    class Computed(torch.nn.Module):      # computes its table at forward: the length is its max_len attribute
        def __init__(self, d=64):
            super().__init__()
            self.d, self.max_len = d, 3000
        def forward(self, x):
            return x + table(self.d, x.size(1), torch.float16)[None]
''')


@pytest.fixture
def mods(tmp_path):
    (tmp_path / "mods.py").write_text(MODULES)
    return tmp_path


def _check(cwd, *args):
    res = run_sinpe("check", *args, "--json", cwd=cwd)
    return res.returncode, json.loads(res.stdout)


def test_forward_of_float16_positions_fails_by_default(mods):
    """REQ-CHECK-CALL-REACH: --call forward without --positions checks the module's 5000 rows and fails from
    position 2049 (exit 1), the report saying which positions and why; rows 0..2047 alone (0f1533a's default)
    conform, which is the trap; the float32 module conforms at the same default."""
    code, doc = _check(mods, "mods:Half", "--call", "forward", "--d", "64")
    assert code == 1 and doc["verdict"] == "fails", doc.get("reason")
    assert doc["rows"] == 5000 and doc["failures"][0]["position"] == 2049, (doc["rows"], doc["failures"][:1])
    note = next(n for n in doc["notes"] if n.startswith("positions 0..4999"))
    assert "the rows of its pe, 5000" in note and "past 2048" in note, note
    assert _check(mods, "mods:Half", "--call", "forward", "--d", "64", "--positions", "0:2048")[0] == 0
    code, doc = _check(mods, "mods:Exact", "--call", "forward", "--d", "64")
    assert code == 0 and doc["rows"] == 5000, doc.get("reason")


def test_forward_length_from_max_len_attribute(mods):
    """A module that computes its table in forward has no buffer to count: its max_len attribute (3000) is the
    length; it fails past 2048 as well."""
    code, doc = _check(mods, "mods:Computed", "--call", "forward", "--d", "64")
    assert code == 1 and doc["rows"] == 3000, doc.get("reason")
    assert any("its max_len, 3000" in n for n in doc["notes"]), doc["notes"]


def test_buffer_default_reads_every_row_and_says_so(mods):
    """--call buffer reads every row of the buffer (its own length): the float16 buffer fails past 2048, and the
    report says the positions reach there."""
    code, doc = _check(mods, "mods:Half", "--call", "buffer")
    assert code == 1 and doc["rows"] == 5000
    assert any(n.startswith("positions 0..4999: every row of the buffer") and "past 2048" in n
               for n in doc["notes"]), doc["notes"]
