"""The callable contract (SPEC.md REQ-CHECK-CALL, REQ-CHECK-INPUT): every convention library code comes in, a hint when the
call fails, and --d required when it cannot be inferred."""
from __future__ import annotations

import textwrap

import pytest
from test_loaders import assert_one_line_exit_2, run_clean

IMPLS = textwrap.dedent('''
    import math
    import numpy as np

    def _table(n, d):
        pe = np.zeros((n, d))
        pos = np.arange(n, dtype=np.float64)[:, None]
        div = np.exp(np.arange(0, d, 2) * (-math.log(10000.0) / d))
        pe[:, 0::2] = np.sin(pos * div)
        pe[:, 1::2] = np.cos(pos * div)
        return pe

    def sinusoids(length, channels):          # fn(n, d), like Whisper's
        return _table(np.empty((length, 1)).shape[0], channels)

    def at_positions(positions, d):           # fn(positions, d)
        return _table(int(np.max(positions)) + 1, d)[np.asarray(positions, dtype=np.int64)]

    def one_arg(positions):
        return positions
''')

MODULES = textwrap.dedent('''
    import math
    import torch

    class PE(torch.nn.Module):                 # a factory that receives d: PE(d)
        def __init__(self, d, max_len=64):
            super().__init__()
            pe = torch.zeros(max_len, d, dtype=torch.float64)
            pos = torch.arange(max_len, dtype=torch.float64)[:, None]
            div = torch.exp(torch.arange(0, d, 2, dtype=torch.float64) * (-math.log(10000.0) / d))
            pe[:, 0::2] = torch.sin(pos * div)
            pe[:, 1::2] = torch.cos(pos * div)
            self.register_buffer("pe", pe)
            self.register_buffer("other", torch.ones(max_len, d), persistent=False)

        def forward(self, x):
            return x + self.pe[: x.shape[1]].to(x.dtype)

    def make():                                # a factory of no arguments (its width is its own)
        return PE(16)

    class Wrapper(torch.nn.Module):            # a state-dict key one level down
        def __init__(self):
            super().__init__()
            self.encoder = PE(8)
''')


@pytest.fixture
def impls(tmp_path):
    (tmp_path / "impls.py").write_text(IMPLS)
    (tmp_path / "mods.py").write_text(MODULES)
    return tmp_path


def test_callable_needs_d(impls):
    """No silent default width: a callable without --d is a usage error naming the flag."""
    assert_one_line_exit_2(run_clean(impls, "check", "impls:at_positions"), "pass --d")
    assert_one_line_exit_2(run_clean(impls, "detect", "impls:at_positions"), "pass --d")
    assert run_clean(impls, "check", "impls:at_positions", "--d", "16", "--positions", "0:64").returncode == 0


def test_wrong_convention_ends_in_a_hint(impls):
    """fn(n, d) called as fn(positions, d): the error names --call n, read from the signature."""
    res = run_clean(impls, "check", "impls:sinusoids", "--d", "16", "--positions", "0:32")
    assert_one_line_exit_2(res, "raised TypeError", "hint: its signature is sinusoids(length, channels)", "--call n")
    assert run_clean(impls, "check", "impls:sinusoids", "--d", "16", "--call", "n").returncode == 0
    res = run_clean(impls, "check", "impls:one_arg", "--d", "16", "--positions", "0:4")
    assert_one_line_exit_2(res, "hint: its signature is one_arg(positions) takes 1 positional argument(s)")


def test_factories_receive_d(impls):
    """A module class (or factory) taking the width is called as factory(d): the same module at two widths."""
    for d in ("8", "16"):
        res = run_clean(impls, "check", "mods:PE", "--call", "buffer", "--key", "pe", "--d", d, "--json")
        assert res.returncode == 0, res.stdout + res.stderr
        assert f'"d": {d}' in res.stdout
    res = run_clean(impls, "check", "mods:PE", "--call", "forward", "--d", "12", "--positions", "0:32")
    assert res.returncode == 0, res.stdout + res.stderr
    assert run_clean(impls, "check", "mods:make", "--call", "buffer", "--key", "pe").returncode == 0


def test_state_dict_keys(impls):
    """--key names a state-dict entry (dotted for submodules); a wrong key lists the ones there are, and the
    wrong buffer (ones) does not conform."""
    assert run_clean(impls, "check", "mods:Wrapper", "--call", "buffer", "--key", "encoder.pe").returncode == 0
    assert_one_line_exit_2(run_clean(impls, "check", "mods:Wrapper", "--call", "buffer", "--key", "pe"),
                           "encoder.pe")
    res = run_clean(impls, "check", "mods:Wrapper", "--call", "buffer", "--key", "encoder.other", "--no-detect")
    assert res.returncode == 1
    res = run_clean(impls, "check", "mods:PE", "--call", "buffer", "--d", "8")
    assert_one_line_exit_2(res, "2 2-D arrays", "--key")
