"""Loading third-party tables and callables, and every class of bad input (SPEC.md REQ-CHECK-INPUT).

Bad input: one clear line on stderr and exit 2 (or, where the input is a table that can be judged, a
non-conformance finding with the reason and exit 1); never a traceback, never a file written other
than the one asked for, never a pickle executed.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from helpers import run_sinpe

from sinpe.reference.checking.loaders import call_table, load_table
from sinpe.reference.implementations.numpy_impl import pe_table
from sinpe.reference.inputs import LoadError
from sinpe.spec.profiles import get_profile

VAS = get_profile("vaswani")
GOOD = pe_table(VAS, 8, np.arange(16), "float32")


SINPE = os.path.join(os.path.dirname(sys.executable), "sinpe")   # the installed console script



def run_clean(cwd, *args):
    """``sinpe ARGS`` in ``cwd`` (in this process, tests/helpers.run_sinpe) that wrote nothing there. An
    uncaught exception (a traceback) fails the test by itself."""
    before = sorted(os.listdir(cwd))
    res = run_sinpe(*args, cwd=cwd, in_process=True)
    assert sorted(os.listdir(cwd)) == before, "a command wrote a file it was not asked for"
    return res


def assert_one_line_exit_2(res, *words):
    assert res.returncode == 2, (res.returncode, res.stdout, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    for w in words:
        assert w in lines[0], lines[0]


# --- every format loads --------------------------------------------------------------------------------

def test_formats_load_the_same_table(tmp_path):
    import torch
    from safetensors.numpy import save_file
    np.save(tmp_path / "t.npy", GOOD)
    np.savez(tmp_path / "t.npz", pe=GOOD)
    np.savez(tmp_path / "two.npz", pe=GOOD, other=GOOD)
    save_file({"pe": GOOD, "bias": np.zeros(3, np.float32)}, str(tmp_path / "t.safetensors"))
    torch.save({"encoder": {"pos.pe": torch.from_numpy(GOOD)[None], "w": torch.zeros(3)}}, tmp_path / "t.pt")
    torch.save(torch.from_numpy(GOOD), tmp_path / "bare.pth")
    (tmp_path / "t.csv").write_text("\n".join(",".join(repr(float(x)) for x in r) for r in GOOD))
    (tmp_path / "t.json").write_text(json.dumps({"pe": GOOD.astype(float).tolist()}))
    for name, key in (("t.npy", None), ("t.npz", None), ("two.npz", "pe"), ("t.safetensors", None),
                      ("t.pt", None), ("bare.pth", None), ("t.csv", None), ("t.json", None)):
        t = load_table(str(tmp_path / name), key=key)
        assert np.array_equal(np.asarray(t.data, dtype=np.float32), GOOD), name
        assert t.dtype == ("float64" if name.endswith((".csv", ".json")) else "float32"), name
    assert load_table(str(tmp_path / "t.pt")).notes == ["squeezed shape (1, 16, 8) to (16, 8)"]
    with pytest.raises(LoadError, match="2 2-D arrays .* pass --key NAME"):
        load_table(str(tmp_path / "two.npz"))


def test_bfloat16_tensors_keep_their_dtype(tmp_path):
    import torch
    from safetensors.torch import save_file
    t = torch.from_numpy(GOOD).to(torch.bfloat16)
    torch.save(t, tmp_path / "b.pt")
    save_file({"pe": t}, str(tmp_path / "b.safetensors"))
    for name in ("b.pt", "b.safetensors"):
        lt = load_table(str(tmp_path / name))
        assert lt.dtype == "bfloat16" and np.array_equal(lt.data, t.float().numpy()), name


def test_callable_conventions():
    pos = np.arange(10)
    assert call_table(lambda p, d: pe_table(VAS, d, p, "float32"), "m:f", pos, 8).data.shape == (10, 8)
    t = call_table(lambda n, d: pe_table(VAS, d, np.arange(n), "float32"), "m:f", np.array([3, 5]), 8, call="n")
    assert np.array_equal(t.data, GOOD[[3, 5]])
    import torch

    class PE(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("pe", torch.from_numpy(GOOD)[:, None, :])   # seq-first (n, 1, d) buffer

        def forward(self, x):
            return x + self.pe[: x.shape[1], 0][None]
    assert np.array_equal(call_table(PE(), "m:PE", pos, 8, call="buffer").data, GOOD[:10])
    assert np.array_equal(call_table(PE(), "m:PE", pos, 8, call="forward").data, GOOD[:10])


# --- bad input, one class per test (CLI level) -----------------------------------------------------------

def test_nan_inf_entries_are_a_finding(tmp_path):
    t = GOOD.copy()
    t[3, 1] = np.inf
    np.save(tmp_path / "t.npy", t)
    res = run_clean(tmp_path, "check", "t.npy", "--no-detect")
    assert res.returncode == 1 and "non-finite: 1 NaN/Inf entries, first at position 3 column 1" in res.stdout


def test_wrong_width_is_a_finding(tmp_path):
    np.save(tmp_path / "t.npy", GOOD[:, :7])
    res = run_clean(tmp_path, "check", "t.npy", "--d", "8", "--no-detect")
    assert res.returncode == 1 and "width: 7 columns where PE of width d=8 has 8" in res.stdout


def test_transposed_table_is_a_finding(tmp_path):
    t = pe_table(VAS, 8, np.arange(40), "float32")
    np.save(tmp_path / "t.npy", t.T.copy())
    res = run_clean(tmp_path, "check", "t.npy", "--d", "8", "--positions", "0:40")
    assert res.returncode == 1 and "transposed" in res.stdout


@pytest.mark.parametrize("shape", [(16,), (2, 3, 4)])
def test_1d_and_3d_arrays(tmp_path, shape):
    np.save(tmp_path / "t.npy", np.zeros(shape, np.float32))
    assert_one_line_exit_2(run_clean(tmp_path, "check", "t.npy"), f"{len(shape)}-D array", "expected a 2-D table")


def test_empty_files(tmp_path):
    (tmp_path / "e.npy").write_bytes(b"")
    (tmp_path / "e.csv").write_text("")
    np.save(tmp_path / "z.npy", np.zeros((0, 8), np.float32))
    assert_one_line_exit_2(run_clean(tmp_path, "check", "e.npy"), "empty file")
    assert_one_line_exit_2(run_clean(tmp_path, "check", "e.csv"), "empty file")
    assert_one_line_exit_2(run_clean(tmp_path, "check", "z.npy"), "empty table")


def test_non_numeric_data(tmp_path):
    (tmp_path / "t.csv").write_text("0,1\nzero,one\n")
    (tmp_path / "t.json").write_text('[[0, "a"], [1, 2]]')
    np.save(tmp_path / "s.npy", np.array([["a", "b"], ["c", "d"]]))
    np.save(tmp_path / "i.npy", np.zeros((4, 4), np.int64))
    assert_one_line_exit_2(run_clean(tmp_path, "check", "t.csv"), "non-numeric")
    assert_one_line_exit_2(run_clean(tmp_path, "check", "t.json"), "non-numeric")
    assert_one_line_exit_2(run_clean(tmp_path, "check", "s.npy"), "holds strings")
    assert_one_line_exit_2(run_clean(tmp_path, "check", "i.npy"), "holds integers")


def test_truncated_and_corrupt_files(tmp_path):
    np.save(tmp_path / "t.npy", GOOD)
    data = (tmp_path / "t.npy").read_bytes()
    (tmp_path / "trunc.npy").write_bytes(data[: len(data) // 2])
    (tmp_path / "junk.npy").write_bytes(b"this is not an npy file at all" * 10)
    (tmp_path / "junk.pt").write_bytes(b"\x00\x01garbage" * 50)
    (tmp_path / "junk.safetensors").write_bytes(b"\xff" * 64)
    (tmp_path / "junk.npz").write_bytes(b"PK\x03\x04 broken zip")
    (tmp_path / "bad.json").write_text("[[0, 1], [2,")
    for name in ("trunc.npy", "junk.npy", "junk.pt", "junk.safetensors", "junk.npz", "bad.json"):
        assert_one_line_exit_2(run_clean(tmp_path, "check", name), name)


class _Payload:
    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))   # unpickling would create the marker file


def test_pickled_payloads_are_refused_and_never_run(tmp_path):
    import torch
    marker = str(tmp_path / "PWNED")
    np.save(tmp_path / "obj.npy", np.array([_Payload(marker)], dtype=object), allow_pickle=True)
    with open(tmp_path / "evil.pt", "wb") as fh:
        torch.save({"pe": torch.zeros(4, 4), "x": _Payload(marker)}, fh)
    with open(tmp_path / "evil.npz", "wb") as fh:
        np.savez(fh, pe=np.array([_Payload(marker)], dtype=object))
    assert not os.path.exists(marker)
    assert_one_line_exit_2(run_clean(tmp_path, "check", "obj.npy"), "refused")
    assert_one_line_exit_2(run_clean(tmp_path, "check", "evil.pt"), "refused")
    assert_one_line_exit_2(run_clean(tmp_path, "check", "evil.npz"), "refused")
    assert not os.path.exists(marker), "a pickle was executed"
    res = subprocess.run([SINPE, "check", "evil.pt"], capture_output=True, text=True, cwd=tmp_path)  # the real script
    assert res.returncode == 2 and "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1
    assert not os.path.exists(marker)


def test_bad_callables(tmp_path):
    (tmp_path / "bad_impls.py").write_text(
        "import numpy as np\n"
        "def raises(p, d):\n    raise RuntimeError('boom')\n"
        "def text(p, d):\n    return 'not a table'\n"
        "def nothing(p, d):\n    return None\n"
        "def flat(p, d):\n    return np.zeros(len(p) * d)\n"
        "def wide(p, d):\n    return np.zeros((len(p), d + 1))\n"
        "NOT_CALLABLE = 3\n")
    assert_one_line_exit_2(run_clean(tmp_path, "check", "bad_impls:raises", "--d", "8"), "raised RuntimeError: boom")
    assert_one_line_exit_2(run_clean(tmp_path, "check", "bad_impls:text", "--d", "8"), "returned a str")
    assert_one_line_exit_2(run_clean(tmp_path, "check", "bad_impls:nothing", "--d", "8"), "returned None")
    assert_one_line_exit_2(run_clean(tmp_path, "check", "bad_impls:flat", "--d", "8"), "1-D array")
    assert_one_line_exit_2(run_clean(tmp_path, "check", "bad_impls:NOT_CALLABLE", "--d", "8"), "holds integers")
    assert_one_line_exit_2(run_clean(tmp_path, "check", "no_such_module:f", "--d", "8"), "cannot import")
    assert_one_line_exit_2(run_clean(tmp_path, "check", "bad_impls:missing", "--d", "8"), "no attribute")
    res = run_clean(tmp_path, "check", "bad_impls:wide", "--d", "8", "--no-detect")
    assert res.returncode == 1 and "width: 9 columns" in res.stdout


def test_usage_errors(tmp_path):
    np.save(tmp_path / "t.npy", GOOD)
    assert_one_line_exit_2(run_clean(tmp_path, "check", "missing.npy"), "no such file")
    assert_one_line_exit_2(run_clean(tmp_path, "check", "t.npy", "--positions", "0:3"), "16 rows but 3 positions")
    assert_one_line_exit_2(run_clean(tmp_path, "check", "t.npy", "--tier", "tight"), "invalid choice")
    assert_one_line_exit_2(run_clean(tmp_path, "check", "t.npy", "--junit", "nodir/r.xml"), "does not exist")
    assert_one_line_exit_2(run_clean(tmp_path, "detect", "t.npy", "--key", "x"), "--key")


def test_callable_calling_sys_exit_is_an_input_error(tmp_path):
    # review regression: SystemExit escaped _invoke (exit 3, no message) instead of one line, exit 2
    (tmp_path / "exiting_impls.py").write_text("import sys\ndef quits(p, d):\n    sys.exit(3)\n")
    assert_one_line_exit_2(run_clean(tmp_path, "check", "exiting_impls:quits", "--d", "8"), "raised SystemExit: 3")
    assert_one_line_exit_2(run_clean(tmp_path, "detect", "exiting_impls:quits", "--d", "8"), "raised SystemExit: 3")


def test_csv_values_are_rounded_to_the_dtype_checked(tmp_path):
    # decimal text denotes the float32 value nearest to it: shortest float32 strings check as float32 at the
    # exact tier (oracle-rounded table); the same strings checked as float64 do not meet float64's exact tier
    from sinpe.reference.oracles.arb import rounded_table
    t = np.asarray(rounded_table(VAS, 8, [str(p) for p in range(16)], "binary32"), dtype=np.float32)
    (tmp_path / "t.csv").write_text("\n".join(",".join(str(x) for x in r) for r in t))   # str(np.float32): shortest
    res = run_clean(tmp_path, "check", "t.csv", "--dtype", "float32", "--tier", "exact", "--no-detect")
    assert res.returncode == 0 and "text values rounded to float32" in res.stdout, res.stdout + res.stderr
    res = run_clean(tmp_path, "check", "t.csv", "--dtype", "float64", "--tier", "exact", "--no-detect")
    assert res.returncode == 1, res.stdout


def test_callable_positions_are_int64_or_float64_as_documented(tmp_path):  # REQ-CHECK-INPUT
    # review regression: 1e19 was cast to int64 (wrapped to -2^63, and passed: the phase bound is vacuous
    # there) and 1/3 was passed as an object array of Fractions
    (tmp_path / "pos_impls.py").write_text(
        "import numpy as np\n"
        "def strict(p, d):\n"
        "    if p.dtype != np.float64 or p.tolist() != [1e19, 5.0] and p.tolist() != [1 / 3, 5.0]:\n"
        "        raise TypeError(f'got {p.dtype} {p.tolist()}')\n"
        "    return np.full((len(p), d), 7.0)\n")
    for spec in ("1e19,5", "1/3,5"):
        res = run_clean(tmp_path, "check", "pos_impls:strict", "--positions", spec, "--d", "4", "--no-detect")
        assert res.returncode == 1 and "exceed the phase tolerance" in res.stdout, (spec, res.stdout, res.stderr)
    res = run_clean(tmp_path, "check", "pos_impls:strict", "--positions", "3,5", "--d", "4", "--no-detect")
    assert_one_line_exit_2(res, "raised TypeError: got int64 [3, 5]")   # the twin: integers come as int64
    # 2^53 + 1 is exact in int64 (not in float64): passed exactly, not rounded to 2^53
    res = run_clean(tmp_path, "check", "pos_impls:strict", "--positions", "9007199254740993", "--d", "4")
    assert_one_line_exit_2(res, "raised TypeError: got int64 [9007199254740993]")


def test_buffer_is_read_whole_at_its_own_width(tmp_path):  # REQ-CHECK-INPUT (--call buffer)
    # review regression: a 512-row buffer was probed at positions 0..2047 (exit 2) and at d=64 (a false
    # "width" finding, reported as a "512 x 64 table"); the row-taking note gave the size after taking
    (tmp_path / "buf_impls.py").write_text(
        "import numpy as np, torch\nfrom sinpe.reference.implementations.numpy_impl import pe_table\n"
        "from sinpe.spec.profiles import get_profile\n"
        "class PE(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        t = pe_table(get_profile('vaswani'), 16, np.arange(512), 'float32')\n"
        "        self.register_buffer('pe', torch.from_numpy(t)[None])\n")
    res = run_clean(tmp_path, "check", "buf_impls:PE", "--call", "buffer", "--no-detect")
    assert res.returncode == 0 and "512 x 16 table," in res.stdout, res.stdout + res.stderr
    res = run_clean(tmp_path, "check", "buf_impls:PE", "--call", "buffer", "--positions", "3,7", "--no-detect")
    assert res.returncode == 0 and "from a table of 512 rows" in res.stdout, res.stdout + res.stderr
    res = run_clean(tmp_path, "check", "buf_impls:PE", "--call", "buffer", "--d", "64", "--no-detect")
    assert res.returncode == 1 and "512 x 16 table (d=64)" in res.stdout and "width: 16 columns" in res.stdout


def test_junit_path_that_is_a_directory_is_one_line(tmp_path):
    # review regression: --junit DIR ended in an IsADirectoryError traceback after the report
    np.save(tmp_path / "t.npy", GOOD)
    (tmp_path / "out").mkdir()
    assert_one_line_exit_2(run_clean(tmp_path, "check", "t.npy", "--junit", "out"), "is a directory")
