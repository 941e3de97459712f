"""Correctly rounded tables (REQ-TABLE-FAST, TOL-TABLE-BOUND, REQ-TABLE-API, REQ-TABLE-STREAM, REQ-CLI-TABLE):
bit-identical to the certified oracle on every golden table and on a random sample; a bound that does
not cover the estimate's error is caught; streaming writes whole files or none."""
from __future__ import annotations

import json
import os
import random
from fractions import Fraction

import numpy as np
import pytest
from helpers import scaled_estimates

from sinpe.reference.checking.loaders import read_safetensors
from sinpe.reference.cli import main
from sinpe.reference.golden import vectors as G
from sinpe.reference.oracles.interval import Certifier
from sinpe.reference.tables import build, rounded, table, table_torch, write_table
from sinpe.reference.tables.rounded import Stats
from sinpe.spec.formats import DTYPES, get_format
from sinpe.spec.profiles import PRESETS, get_profile


def _bits(a: np.ndarray) -> np.ndarray:
    return np.asarray(a, dtype=np.float64).view(np.int64)


def _golden_tables() -> list[tuple[str, int]]:
    from pathlib import Path

    import sinpe.reference.golden as g
    root = Path(g.__file__).parent / "data" / "tables"
    return [(preset, int(f.name[1:].split("-")[0])) for preset in PRESETS
            for f in sorted((root / preset).glob("d*-float64.npy"))]


@pytest.mark.parametrize("preset,d", _golden_tables())
def test_every_golden_table_bit_identical(preset: str, d: int) -> None:
    """REQ-TABLE-FAST: table() reproduces every golden bulk table in every format, bit for bit."""
    for dtype in DTYPES:
        pos, want = G.load_table(preset, d, dtype)
        got = table(preset, d, pos, dtype)
        assert got.dtype == want.dtype and np.array_equal(_bits(got), _bits(want)), \
            f"sinpe table --profile {preset} --d {d} --dtype {dtype} differs from the golden table"


def _random_cases(seed: int = 12):  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    cases = []
    for preset in PRESETS:
        for extra in ({}, {"base": rng.choice(["500", "10000", "1/7"]), "phase_scale": rng.choice(["1", "1/3", "1000"]),
                           "amplitude": rng.choice(["1", "2", "-0.75", "1/3"]), "offset": rng.choice(["0", "0.25", "-3"])}):
            d = rng.choice([7, 32, 65])
            pos = [Fraction(rng.randrange(0, 10**7)) for _ in range(6)]
            pos += [Fraction(rng.randrange(-2**30, 2**30), 2 ** rng.randrange(1, 20)) for _ in range(3)]
            pos += [Fraction(0), Fraction(1), Fraction(10**7)]
            cases.append((get_profile(preset, **extra), d, pos))
    return cases


@pytest.mark.parametrize("case", range(len(_random_cases())))
def test_random_sample_bit_identical(case: int) -> None:
    """REQ-TABLE-FAST: presets and overrides, positions up to 10^7 and dyadic non-integers, all four formats."""
    prof, d, pos = _random_cases()[case]
    cert = Certifier()
    want = cert.tables(prof, d, pos)
    for f in cert.formats:
        got = table(prof, d, pos, f.dtype)
        bad = np.argwhere(_bits(got) != _bits(want[f.name]))
        assert bad.size == 0, (f"{len(bad)} entries differ, first at position {pos[bad[0][0]]} column {bad[0][1]}: "
                               f"sinpe table {prof.cli_flags()} --d {d} --positions {pos[bad[0][0]]} --dtype {f.dtype}")


def _perturbed(monkeypatch, delta_ulps: float, cover: bool) -> None:  # type: ignore[no-untyped-def]
    """Wrap the double-double kernel: move every estimate by delta_ulps binary64 ulps; widen B by as much iff ``cover``."""
    real = rounded.sincos_dd

    def wrong(*a, **k):  # type: ignore[no-untyped-def]
        out = real(*a, **k)
        for h, T, B in out:
            shift = delta_ulps * np.spacing(np.abs(h))
            T += shift
            if cover:
                B += 2 * np.abs(shift)
        return out

    monkeypatch.setattr(rounded, "sincos_dd", wrong)


def _perturbed_narrow(monkeypatch, delta: float, cover: bool) -> None:  # type: ignore[no-untyped-def]
    """Wrap the narrow kernel: scale every estimate by (1 + delta); widen K_REL_N by 2 delta iff ``cover``."""
    monkeypatch.setattr(rounded, "sincos_narrow", scaled_estimates(rounded.sincos_narrow, delta))
    if cover:
        monkeypatch.setattr(rounded, "K_REL_N", rounded.K_REL_N + 2 * delta)


@pytest.mark.parametrize("kernel,dtype", [("dd", "float64"), ("dd", "float32"), ("narrow", "float32"),
                                          ("narrow", "float16"), ("narrow", "bfloat16")])
def test_bound_that_does_not_cover_the_error_is_caught(monkeypatch, kernel: str, dtype: str) -> None:
    """TOL-TABLE-BOUND, TOL-TABLE-NARROW, negative: an estimate off by more than its bound claims gives wrong
    bits, which the comparison with the oracle finds; the same estimate with a bound that covers the error
    gives the right bits (through the oracle for the entries the wider bound leaves undecided)."""
    prof = get_profile("vaswani")
    pos = sorted(random.Random(3).sample(range(1, 10**4), 199))  # not a progression: the general kernels
    f = get_format(dtype)
    want = Certifier((f,)).tables(prof, 64, pos)[f.name]
    if kernel == "dd":
        monkeypatch.setattr(rounded, "NARROW_MAX_PRECISION", 0)  # the double-double kernel for every format
        delta = 0.05 * 2.0 ** (53 - f.precision)
        perturb = _perturbed
    else:
        delta = 2.0 ** -(f.precision + 6)  # 1/64 of the format's relative spacing
        perturb = _perturbed_narrow
    assert build.resolve(prof, 64, dtype, {}).kernel == kernel
    perturb(monkeypatch, delta, cover=False)
    wrong = table(prof, 64, pos, dtype)
    assert np.count_nonzero(_bits(wrong) != _bits(want)) > 0
    monkeypatch.undo()
    if kernel == "dd":
        monkeypatch.setattr(rounded, "NARROW_MAX_PRECISION", 0)
    perturb(monkeypatch, delta, cover=True)
    stats = Stats()
    right = table(prof, 64, pos, dtype, stats=stats)
    assert np.array_equal(_bits(right), _bits(want)) and stats.oracle > 0


def test_narrow_bound_covers_the_error_and_is_tight() -> None:
    """TOL-TABLE-NARROW: on 16384 entries (positions up to 10^7, a non-integer offset, amplitude -3/7) the
    narrow kernel's estimate lies within its bound B of the Arb value, and the bound is not vacuous: the
    largest error reaches a tenth of B."""
    import mpmath

    from sinpe.reference.oracles.arb import _endpoints, enclose
    prof = get_profile("vaswani", offset="0.375", amplitude="-3/7")
    pl = build.resolve(prof, 256, "float32", {})
    assert pl.kernel == "narrow"
    pos = sorted(random.Random(7).sample(range(10**7), 64))
    _, enc = build.rounded_block(pl, np.array(pos, dtype=np.float64), estimate=True)
    v, B = enc.v, enc.bound_at(...)
    assert enc.lo is None and enc.B is None
    worst = 0.0
    for r, p in enumerate(pos):
        for j in range(256):
            lo, hi = _endpoints(enclose(prof, 256, Fraction(p), j, 128))
            err = max(abs(mpmath.mpf(v[r, j]) - lo), abs(mpmath.mpf(v[r, j]) - hi))
            worst = max(worst, float(err / mpmath.mpf(B[r, j])))
    assert 0.1 < worst <= 1, worst  # measured: about 0.3


@pytest.mark.parametrize("amplitude", ["1/1048576", "60000", "-3/7"])
def test_narrow_kernel_extreme_amplitudes(amplitude: str) -> None:
    """TOL-TABLE-NARROW: float16 values in the subnormal range (settled by the uniform grid) and in the top
    binade (sent to the oracle) and a negative amplitude: the oracle's bits."""
    prof = get_profile("t2t", amplitude=amplitude)
    pos = [Fraction(p) for p in (0, 1, 2, 3, 17, 1000, 65519, 10**6)]
    want = Certifier(("binary16", "bfloat16")).tables(prof, 24, pos)
    for dtype, name in (("float16", "binary16"), ("bfloat16", "bfloat16")):
        got = table(prof, 24, pos, dtype)
        assert np.array_equal(_bits(got), _bits(want[name])), (amplitude, dtype)


def test_oracle_share_is_small() -> None:
    """REQ-TABLE-FAST: the fast path decides almost every entry (the benchmark reports the share at scale)."""
    for dtype, limit in (("float64", 1e-3), ("float32", 1e-5)):
        st = Stats()
        table("vaswani", 256, 2000, dtype, stats=st)
        assert st.share <= limit, (dtype, st.share)


@pytest.mark.parametrize("positions", [300, np.random.default_rng(5).permutation(300)])
def test_threads_and_blocks_do_not_change_bits(monkeypatch, positions) -> None:
    """REQ-TABLE-STREAM: one thread or two, big blocks or tiny ones, a progression or shuffled positions
    (the general kernels): the same bits, in table() and in a streamed file."""
    a = table("t2t", 33, positions, "float16", workers=1)
    monkeypatch.setattr(build, "BLOCK_ENTRIES", 100)
    monkeypatch.setattr(rounded, "WORK", 64)
    monkeypatch.setattr(build.progression, "JOB_ROWS", 32)
    b = table("t2t", 33, positions, "float16", workers=2)
    pl = build.resolve("t2t", 33, "float16", {})
    c = np.concatenate(list(build.iter_blocks(pl, build.as_source(positions), workers=2)))
    assert np.array_equal(_bits(a), _bits(b)) and np.array_equal(_bits(a), _bits(c))


def test_write_npy_and_safetensors(tmp_path) -> None:
    """REQ-TABLE-STREAM: the streamed files hold table()'s bits; safetensors stores real BF16."""
    want = table("vaswani", 12, "0:500", "bfloat16", offset="0.5")
    write_table(tmp_path / "t.npy", "vaswani", 12, "0:500", "bfloat16", offset="0.5")
    write_table(tmp_path / "t.safetensors", "vaswani", 12, "0:500", "bfloat16", offset="0.5")
    assert np.array_equal(np.load(tmp_path / "t.npy", allow_pickle=False), want)
    head = json.loads((tmp_path / "t.safetensors").read_bytes()[8:8 + int.from_bytes((tmp_path / "t.safetensors").read_bytes()[:8], "little")])
    assert head["table"]["dtype"] == "BF16" and head["table"]["shape"] == [500, 12]
    assert np.array_equal(read_safetensors(tmp_path / "t.safetensors"), want)
    assert sorted(os.listdir(tmp_path)) == ["t.npy", "t.safetensors"]


def test_failure_leaves_no_file(tmp_path, monkeypatch) -> None:
    """REQ-TABLE-STREAM: a failure half-way leaves neither the file nor a temporary."""
    real, calls = build._block, []

    def flaky(*a, **k):  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("disk on fire")
        return real(*a, **k)

    monkeypatch.setattr(build, "_block", flaky)
    monkeypatch.setattr(build, "BLOCK_ENTRIES", 64)
    with pytest.raises(RuntimeError):
        write_table(tmp_path / "t.npy", "vaswani", 8, 100, "float32", workers=1)
    assert os.listdir(tmp_path) == []


def test_disk_space_is_checked_first(tmp_path, monkeypatch, capsys) -> None:
    """REQ-CLI-TABLE / REQ-TABLE-STREAM: too little disk is a usage error (exit 2, one line), nothing written."""
    import shutil
    from collections import namedtuple
    du = namedtuple("du", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda p: du(10**6, 0, 10**6))
    rc = main(["table", "--d", "1024", "--positions", "0:4096", "--out", str(tmp_path / "t.npy")])
    err = capsys.readouterr().err
    assert rc == 2 and "GiB free" in err and err.count("\n") == 1 and os.listdir(tmp_path) == []


@pytest.mark.parametrize("argv,msg", [
    (["--d", "50000000", "--positions", "0"], "wider than"),
    (["--d", "4", "--positions", "0:2", "--workers", "0"], "--workers"),
    (["--d", "64", "--positions", "0:100000", "--cross-check"], "at most"),
])
def test_absurd_sizes_exit_2(tmp_path, capsys, argv, msg) -> None:
    """REQ-CLI-TABLE: sizes are validated before anything is allocated."""
    rc = main(["table", *argv, "--out", str(tmp_path / "t.npy")])
    err = capsys.readouterr().err
    assert rc == 2 and msg in err and err.count("\n") == 1, err


def test_huge_range_is_not_materialised() -> None:
    """REQ-TABLE-STREAM: a 10^8-position range is a range, and its blocks come one at a time."""
    src = build.as_source("0:100000000")
    assert src.values is None and len(src) == 10**8 and src.block(99_999_998, 10**8).tolist() == [99999998.0, 99999999.0]


def test_cli_safetensors_and_library_agree(tmp_path) -> None:
    """REQ-CLI-TABLE = REQ-TABLE-API: the CLI's file holds the library's bits."""
    assert main(["table", "--profile", "t2t", "--base", "500", "--d", "9", "--positions", "0:40", "--dtype",
                 "float16", "--out", str(tmp_path / "t.safetensors")]) == 0
    assert np.array_equal(read_safetensors(tmp_path / "t.safetensors"), table("t2t", 9, 40, "float16", base="500"))


def test_torch_helper_moves_cpu_bits() -> None:
    """REQ-TABLE-API: the tensor holds exactly table()'s values in the requested dtype."""
    torch = pytest.importorskip("torch")
    for dtype, tdt in (("bfloat16", torch.bfloat16), ("float16", torch.float16), ("float64", torch.float64)):
        t = table_torch("vaswani-concat", 10, [0, 5, 2.5, 10**6], dtype, device="cpu")
        assert t.dtype == tdt and t.device.type == "cpu"
        want = table("vaswani-concat", 10, [0, 5, 2.5, 10**6], dtype)
        assert np.array_equal(t.to(torch.float64).numpy(), want.astype(np.float64))


def test_first_table_in_a_fresh_process_on_many_threads() -> None:
    """REQ-TABLE-STREAM, regression: the worker threads used to build the angle table and 2 pi inside
    ``mpmath.workprec`` at the same time; one leaving it dropped the other's precision to 53 bits and the
    table came out with wrong bits (in about half the runs). A fresh interpreter, 4 threads, small blocks:
    every entry equals the certified oracle's."""
    import subprocess
    import sys
    code = ("import numpy as np, sys\n"
            "from sinpe.reference.tables import build, table\n"
            "build.BLOCK_ENTRIES = 1024\n"
            "np.save(sys.argv[1], table('vaswani', 256, 48, 'float64', workers=4))\n")
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "t.npy")
        for _ in range(2):
            subprocess.run([sys.executable, "-c", code, out], check=True, timeout=120)
            got = np.load(out, allow_pickle=False)
            want = Certifier(("binary64",)).tables(get_profile("vaswani"), 256, list(range(48)))["binary64"]
            assert np.array_equal(_bits(got), _bits(want))


def test_constants_do_not_depend_on_the_global_mpmath_context() -> None:
    """The builders of the kernels' tables use private mpmath contexts: the global precision does not reach them."""
    import mpmath

    from sinpe.reference.tables import constants
    with mpmath.workprec(30):
        for name, builder in constants.BUILDERS.items():
            assert np.array_equal(_bits(builder()), _bits(constants.shipped(name)))


def test_shipped_kernel_tables_are_their_definition(tmp_path, monkeypatch) -> None:
    """The shipped angle and fine tables are bit for bit what mpmath at 256 bits gives (constants.BUILDERS), the
    process reads them (no rebuild), and a file that is not its pinned bytes is not read but rebuilt; 2 pi's two
    words are mpmath's 2 pi at 200 bits, each rounded to nearest."""
    import mpmath

    from sinpe.reference.oracles import fast
    from sinpe.reference.tables import constants
    for name, builder in constants.BUILDERS.items():
        got = constants.shipped(name)
        assert got is not None and not got.flags.writeable
        assert np.array_equal(_bits(got), _bits(builder()))
    assert np.count_nonzero(constants.angle_table()[1]) > 1000 and constants.angle_table() is constants.angle_table()
    bad = tmp_path / "angles-1024.npy"
    raw = bytearray((constants.DATA / "angles-1024.npy").read_bytes())
    raw[-1] ^= 1  # one bit of the last entry
    bad.write_bytes(bytes(raw))
    monkeypatch.setattr(constants, "DATA", tmp_path)
    assert constants.shipped("angles-1024.npy") is None and constants.shipped("fine-512.npy") is None
    monkeypatch.setattr(constants, "_TABLES", {})
    assert np.array_equal(_bits(constants.angle_table()), _bits(constants.build_angle_table()))
    ctx = mpmath.MPContext()
    ctx.prec = 200
    hi = float(2 * ctx.pi)
    assert (fast.TWO_PI_HI, fast.TWO_PI_LO) == (hi, float(2 * ctx.pi - hi)) and fast.TWO_PI_LO != 0.0
    assert fast._two_pi()[2] + fast._two_pi()[3] == hi


def test_shipped_tables_read_only_a_regular_file(tmp_path, monkeypatch) -> None:
    """A data file replaced by a FIFO, a directory or a link to a device is not read (the table is built): a FIFO
    blocked shipped() for good (read_bytes waits for a writer that never comes; a link to /dev/zero would read
    until memory ran out). A link to a regular file of the pinned bytes is read like the file."""
    import os
    import threading

    from sinpe.reference.tables import constants
    raw = (constants.DATA / "angles-1024.npy").read_bytes()
    monkeypatch.setattr(constants, "DATA", tmp_path)
    fifo = tmp_path / "angles-1024.npy"
    os.mkfifo(fifo)
    (tmp_path / "fine-512.npy").mkdir()
    got: list[object] = []
    reader = threading.Thread(target=lambda: got.append(constants.shipped("angles-1024.npy")), daemon=True)
    reader.start()
    reader.join(5)
    blocked = reader.is_alive()
    if blocked:  # release the reader: a writer opens and closes the FIFO
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(5)
    assert not blocked and got == [None]
    assert constants.shipped("fine-512.npy") is None
    fifo.unlink()
    fifo.symlink_to(os.devnull)
    assert constants.shipped("angles-1024.npy") is None
    fifo.unlink()
    (tmp_path / "real.npy").write_bytes(raw)
    fifo.symlink_to(tmp_path / "real.npy")
    table = constants.shipped("angles-1024.npy")
    assert table is not None and np.array_equal(_bits(table), _bits(constants.build_angle_table()))
