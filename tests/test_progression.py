"""The progression kernel (REQ-TABLE-FAST, TOL-TABLE-BOUND; reference/tables/progression.py): tables whose positions
are integers p_0 + i h, bit for bit the certified oracle's in all four formats (positions up to 2^40, offsets,
amplitudes, layouts, steps of both signs); an estimate off by more than its bound gives wrong bits that the same
comparison finds; the bound covers the measured error and is not vacuous; the decision's rules (signed zero, the
bfloat16 midpoint) and the cast probe each shown failing on what they exist to catch."""
from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest
from helpers import scaled_estimates

from sinpe.reference.oracles.interval import Certifier
from sinpe.reference.tables import build, progression, table
from sinpe.reference.tables.rounded import Stats
from sinpe.spec.formats import get_format
from sinpe.spec.profiles import get_profile


def _bits(a: np.ndarray) -> np.ndarray:
    return np.asarray(a, dtype=np.float64).view(np.int64)


# (profile, overrides, d, positions): >= 10^5 entries per format in all, positions near 0, 10^6, 10^9 and 2^40
CASES = [
    ("vaswani", {"offset": "0.5", "amplitude": "-3/7"}, 256, np.arange(10**9, 10**9 + 7 * 400, 7)),
    ("vaswani", {}, 64, "0:600"),  # position 0: its sin entries are exactly +0.0
    ("t2t", {"base": "500", "phase_scale": "1/3"}, 33, np.arange(2**40, 2**40 + 300)),  # odd d: a zero column
    ("vaswani-concat", {"offset": "-3"}, 50, np.arange(10**6, 10**6 - 3 * 300, -3)),  # descending
    ("t2t", {"amplitude": "1/1048576"}, 24, "0:400"),  # binary16 subnormals
]


@pytest.fixture(scope="module")
def oracle_tables() -> list[dict[str, np.ndarray]]:
    cert = Certifier()
    out = []
    for preset, ov, d, pos in CASES:
        src = build.as_source(pos)
        out.append(cert.tables(get_profile(preset, **ov), d, [src.fraction(i) for i in range(len(src))]))
    return out


def test_sample_bit_identical_to_the_oracle(oracle_tables, monkeypatch) -> None:
    """REQ-TABLE-FAST: every entry of >= 10^5 per format equals the certified oracle's, and every table took the
    progression kernel."""
    calls: list[int] = []
    real = progression.Progression.fill

    def spy(self, *a, **k):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(self, *a, **k)

    monkeypatch.setattr(progression.Progression, "fill", spy)
    entries = 0
    for (preset, ov, d, pos), want in zip(CASES, oracle_tables, strict=True):
        for f in Certifier().formats:
            before = len(calls)
            got = table(preset, d, pos, f.dtype, **ov)
            assert len(calls) > before, (preset, f.name)
            bad = np.argwhere(_bits(got) != _bits(want[f.name]))
            assert bad.size == 0, f"{preset} {ov} d={d} {f.name}: {len(bad)} entries differ, first {bad[0]}"
        entries += want["binary64"].size
    assert entries >= 10**5


def _perturb(monkeypatch, wide: bool, delta: float, cover: bool) -> None:  # type: ignore[no-untyped-def]
    """Move every estimate by delta |estimate| (narrow) or delta binary64 ulps (wide); widen the bound by as much
    iff ``cover``."""
    if wide:
        real = progression.wide_block

        def wrong(*a, **k):  # type: ignore[no-untyped-def]
            out = real(*a, **k)
            for h, t in out:
                t += delta * np.spacing(np.abs(h))
            return out

        monkeypatch.setattr(progression, "wide_block", wrong)
        if cover:
            bound = progression.wide_bound
            monkeypatch.setattr(progression, "wide_bound", lambda A, W: bound(A, W) + 2 * delta * 2.0 ** -52 * A.mag)
    else:
        monkeypatch.setattr(progression, "narrow_block", scaled_estimates(progression.narrow_block, delta))
        if cover:
            bound_n = progression.narrow_bound
            monkeypatch.setattr(progression, "narrow_bound", lambda A, W: bound_n(A, W) + 2 * delta * A.mag)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
def test_an_estimate_its_bound_does_not_cover_is_caught(monkeypatch, dtype: str) -> None:
    """TOL-TABLE-BOUND, negative: the kernel's estimate moved by 1/64 of the format's spacing (binary64: 1/20 ulp)
    with its bound unchanged gives wrong bits, which the comparison with the oracle finds; the same estimate with
    a bound that covers the move gives the oracle's bits (the entries it now leaves undecided settled by the
    double-double refinement)."""
    prof = get_profile("vaswani")
    f = get_format(dtype)
    want = Certifier((f,)).tables(prof, 64, list(range(1, 400)))[f.name]
    wide = dtype == "float64"
    delta = 0.05 if wide else 2.0 ** -(f.precision + 6)
    _perturb(monkeypatch, wide, delta, cover=False)
    assert np.count_nonzero(_bits(table(prof, 64, range(1, 400), dtype)) != _bits(want)) > 0
    monkeypatch.undo()
    _perturb(monkeypatch, wide, delta, cover=True)
    refined: list[int] = []
    real = progression.Progression._refine

    def spy(self, res, ok, *a):  # type: ignore[no-untyped-def]
        refined.append(int(np.count_nonzero(~ok)))
        return real(self, res, ok, *a)

    monkeypatch.setattr(progression.Progression, "_refine", spy)
    assert np.array_equal(_bits(table(prof, 64, range(1, 400), dtype)), _bits(want)) and sum(refined) > 0


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
def test_a_wrong_refinement_is_caught(monkeypatch, dtype: str) -> None:
    """The double-double refinement of the entries the top level leaves undecided is itself checked: every entry
    sent there (the top level's bound made 2^-(p+2), most of a spacing) with the refined product moved by 1/64 of
    the format's spacing (its lo word for binary64) and its bound unchanged gives wrong bits that the oracle
    comparison finds; unmoved, the oracle's bits."""
    prof = get_profile("vaswani")
    f = get_format(dtype)
    want = Certifier((f,)).tables(prof, 64, list(range(1, 200)))[f.name]
    name = "wide_bound" if dtype == "float64" else "narrow_bound"
    monkeypatch.setattr(progression, name, lambda A, W: 2.0 ** -(f.precision + 2))
    assert np.array_equal(_bits(table(prof, 64, range(1, 200), dtype)), _bits(want))
    real = progression.dd_mul
    shift = 2.0 ** -(f.precision + 6)

    def wrong(x, y):  # type: ignore[no-untyped-def]
        z = real(x, y)
        if z.sh.ndim == 1:  # the refinement's gathered entries
            for hi, lo in ((z.sh, z.sl), (z.ch, z.cl)):
                (lo if dtype == "float64" else hi)[...] += shift * np.abs(hi)
        return z

    monkeypatch.setattr(progression, "dd_mul", wrong)
    assert np.count_nonzero(_bits(table(prof, 64, range(1, 200), dtype)) != _bits(want)) > 0


def _arb_errors(prof, d: int, start: int, rows: int, est: np.ndarray) -> np.ndarray:  # type: ignore[no-untyped-def]
    import mpmath

    from sinpe.reference.oracles.arb import _endpoints, enclose
    err = np.zeros(est.shape)
    for r in range(rows):
        for j in range(d):
            lo, hi = _endpoints(enclose(prof, d, Fraction(start + r), j, 160))
            err[r, j] = float(max(abs(mpmath.mpf(est[r, j]) - lo), abs(mpmath.mpf(est[r, j]) - hi)))
    return err


def test_narrow_bound_covers_the_error_and_is_not_vacuous() -> None:
    """TOL-TABLE-BOUND: the narrow estimates (offset, amplitude -3/7, positions near 10^7) lie within E' of the Arb
    value, and E' is not vacuous: the largest error reaches a tenth of it; a bound an eighth as wide is exceeded
    (so this comparison can fail)."""
    prof = get_profile("vaswani", offset="0.375", amplitude="-3/7")
    pl = build.resolve(prof, 128, "float32", {})
    start, rows = 10**7 + 3, 48
    pr = progression.Progression(pl, start, 1, rows)
    est = np.empty((rows, 128))
    E = pr.estimate(est, 0, rows)
    err = _arb_errors(prof, 128, start, rows, est)
    assert err.max() <= E and err.max() >= E / 10, (err.max(), E)
    assert err.max() > E / 8


def test_factor_tables_within_their_bounds() -> None:
    """TOL-TABLE-BOUND: the double-double factor tables (doubling from exact rows) and a job's seeds lie within
    their ``err`` of e^{i theta} (mpmath, 200 bits); the tables within 2^-85, a seed at 10^9 within 2^-70 (the
    reduction's 2^-100 (1 + |P| g) turns)."""
    import mpmath

    from sinpe.reference.oracles import fast
    prof = get_profile("vaswani", phase_scale="1/3")
    pl = build.resolve(prof, 16, "float64", {})
    pr = progression.Progression(pl, 10**9, 5, 4096)
    k0, k1, W, J, *_ = pr.chunks[0]
    seeds = pr.seeds([0, pr.job_rows, 2 * pr.job_rows])
    g = fast.frequency_words(pl.cd)
    with mpmath.workprec(200):
        gk = [sum(mpmath.mpf(float(x)) for x in g[:4, k]) for k in range(pl.nf)]
        for tab, step, base in ((W, 5, 0), (J, 5 * pr.low, 0)):
            assert tab.err < 2.0 ** -85
            for j in range(0, tab.sh.shape[0], 7):
                for k in range(pl.nf):
                    th = 2 * mpmath.pi * gk[k] * (base + j * step)
                    e = abs(mpmath.mpc(tab.ch[j, k], tab.sh[j, k]) + mpmath.mpc(tab.cl[j, k], tab.sl[j, k])
                            - mpmath.expj(th))
                    assert e <= tab.err, (j, k, float(e), tab.err)
        for i, sd in enumerate(seeds):
            A0 = sd[0]
            for k in range(pl.nf):
                th = 2 * mpmath.pi * gk[k] * (10**9 + i * pr.job_rows * 5)
                e = abs(mpmath.mpc(A0.ch[0, k], A0.sh[0, k]) + mpmath.mpc(A0.cl[0, k], A0.sl[0, k]) - mpmath.expj(th))
                assert e <= A0.err < 2.0 ** -70, (i, k, float(e), A0.err)  # the reduction: 2^-100 (1 + |P| g) turns


@pytest.mark.parametrize("name", ["binary64", "binary32", "binary16", "bfloat16"])
def test_zero_in_the_interval_is_never_decided(name: str) -> None:
    """The decision compares bits: an interval holding 0 (both signs of zero, or values of both signs) is left
    undecided, while 0.75 +- 2^-60 is decided to 0.75."""
    f = get_format(name)
    v = np.array([[0.0, 1e-300, 0.75]])
    t = np.zeros_like(v) if name == "binary64" else None
    scratch = progression._decide_scratch({}, v.shape, f)
    res, ok = scratch["res"], scratch["ok"]
    progression.decide(v.copy(), t, 2.0 ** -60, f, res, ok, scratch)
    assert ok.tolist() == [[False, False, True]] and float(res[0, 2]) == 0.75


def test_bfloat16_midpoint_is_decided_from_the_binary64_ends() -> None:
    """RN_bf16(RN_32(x)) can differ from RN_bf16(x) only when RN_32(x) is a bfloat16 midpoint: there the binary64
    interval itself is compared with the midpoint (above: away from zero; below: toward it; straddling it:
    undecided), elsewhere RN_bf16 of the binary32 value is taken; rounding twice would give 1 for the first."""
    f = get_format("bfloat16")
    mid = 1 + 2.0 ** -8  # midway between 1 and 1 + 2^-7
    v = np.array([[mid + 2.0 ** -40, mid - 2.0 ** -40, mid, -(mid + 2.0 ** -40), mid + 2.0 ** -20, mid - 2.0 ** -20]])
    scratch = progression._decide_scratch({}, v.shape, f)
    res, ok = scratch["res"], scratch["ok"]
    progression.decide(v.copy(), None, 2.0 ** -50, f, res, ok, scratch)
    assert ok.tolist() == [[True, True, False, True, True, True]]
    assert res[0, [0, 1, 3, 4, 5]].tolist() == [1 + 2.0 ** -7, 1.0, -(1 + 2.0 ** -7), 1 + 2.0 ** -7, 1.0]
    x = np.array([mid + 2.0 ** -40, mid - 2.0 ** -40, mid, 1 + 3 * 2.0 ** -8])
    assert progression.round_exact(x, f).tolist() == [1 + 2.0 ** -7, 1.0, 1.0, 1 + 2.0 ** -6]  # ties to even


def test_cast_probe_catches_a_double_rounding_cast() -> None:
    """The cast the narrow decision relies on is probed once per process: NumPy's passes, a cast that rounds twice
    (through binary32 to binary16) or to the wrong format fails, and then no table takes the kernel."""
    assert all(progression._cast_is_single_rounding(n) for n in ("binary64", "binary32", "binary16", "bfloat16"))
    assert not progression.cast_probe("binary16", lambda x, dt: x.astype(np.float32).astype(dt))
    assert not progression.cast_probe("binary32", lambda x, dt: x.astype(np.float16).astype(dt))


def test_which_tables_take_the_kernel(monkeypatch) -> None:
    """Progressions of integers take it; shuffled or fractional positions, huge amplitudes and a failing cast probe
    do not (the general kernels, same bits)."""
    pl = build.resolve("vaswani", 32, "float16", {})
    assert build.progression_of(pl, build.as_source(100), 64) is not None
    assert build.progression_of(pl, build.as_source(list(range(5, 505, 5))), 64) is not None
    assert build.progression_of(pl, build.as_source(np.arange(100)[::-1].copy()), 64) is not None
    assert build.progression_of(pl, build.as_source(np.random.default_rng(1).permutation(100)), 64) is None
    assert build.progression_of(pl, build.as_source(np.arange(100) / 2), 64) is None
    big = build.resolve("vaswani", 32, "float16", {"amplitude": "60000"})
    assert build.progression_of(big, build.as_source(100), 64) is None
    monkeypatch.setattr(progression, "_cast_is_single_rounding", lambda name: False)
    assert build.progression_of(pl, build.as_source(100), 64) is None


def test_streamed_file_and_stats(tmp_path) -> None:
    """REQ-TABLE-STREAM: a streamed progression holds table()'s bits; the statistics count every entry once."""
    st = Stats()
    want = table("vaswani", 40, "0:700", "bfloat16", stats=st)
    assert st.entries == 700 * 40
    build.write_table(tmp_path / "t.npy", "vaswani", 40, "0:700", "bfloat16", workers=2)
    assert np.array_equal(np.load(tmp_path / "t.npy"), want)
    rng = random.Random(4)
    pos = [rng.randrange(0, 700) for _ in range(50)]
    assert np.array_equal(_bits(table("vaswani", 40, pos, "bfloat16")), _bits(want[pos]))


def _random_progressions(seed: int = 28) -> list[tuple]:
    rng = random.Random(seed)
    cases = []
    for preset in ("vaswani", "t2t", "vaswani-concat", "vaswani", "t2t", "vaswani", "t2t", "vaswani-concat"):
        ov = {k: rng.choice(v) for k, v in (("offset", ["0", "0.5", "-3", "1/3", "100000.25"]),
                                             ("amplitude", ["1", "2", "-0.75", "1/3", "1000"]),
                                             ("base", ["10000", "500", "1/7"]), ("phase_scale", ["1", "1/3", "1000"]))}
        p0, h = rng.choice([0, 1, -50, 10**6, 2**40, 10**12]), rng.choice([1, 3, -1, -7, 0, 1000])
        cases.append((preset, ov, rng.choice([1, 7, 16, 33]), p0 + h * np.arange(rng.choice([16, 63, 65]))))
    return cases


@pytest.mark.parametrize("case", range(8))
def test_random_progressions_bit_identical_to_the_oracle(case: int) -> None:
    """REQ-TABLE-FAST: random presets, overrides, widths (odd ones, d = 1), starts up to 10^12 and steps of both signs
    (and 0): every format's bits are the oracle's, through the progression kernel."""
    preset, ov, d, pos = _random_progressions()[case]
    prof = get_profile(preset, **ov)
    want = Certifier().tables(prof, d, [Fraction(int(p)) for p in pos])
    for f in Certifier().formats:
        assert build.progression_of(build.resolve(prof, d, f.dtype, {}), build.as_source(pos), 64) is not None
        got = table(prof, d, pos, f.dtype)
        assert np.array_equal(_bits(got), _bits(want[f.name])), (preset, ov, d, pos[:2], f.name)


def test_complex_product_probe_catches_a_three_multiplication_product() -> None:
    """The narrow kernel takes NumPy's complex product only where each part is a c -+ b d with at most three
    roundings (two products and a sum, or a fused multiply-add): NumPy's passes the probe in this process; the
    three-multiplication (Gauss) product and a product whose parts are rounded to binary32 fail it."""
    assert progression._complex_product_is_plain()
    x = np.sin(np.arange(1, 97) * 1.37) + 1j * np.sin(np.arange(1, 97) * 2.71)
    w = np.sin(np.arange(1, 97) * 0.577) + 1j * np.sin(np.arange(1, 97) * 3.3)
    a, b, c, d = x.real, x.imag, w.real, w.imag
    k1, k2, k3 = c * (a + b), a * (d - c), b * (c + d)
    assert progression._plain_parts(x * w, x, w)
    assert not progression._plain_parts((k1 - k3) + 1j * (k1 + k2), x, w)
    assert not progression._plain_parts((x * w).astype(np.complex64).astype(np.complex128), x, w)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_real_products_where_the_probe_fails_give_the_same_bits(monkeypatch, oracle_tables, dtype: str) -> None:
    """With the complex-product probe failing, the narrow kernel multiplies the real parts itself: the same
    bits as the certified oracle (interleaved, halves and concatenated layouts)."""
    monkeypatch.setattr(progression, "_complex_product_is_plain", lambda: False)
    f = get_format(dtype)
    for (preset, ov, d, pos), want in zip(CASES[:4], oracle_tables, strict=False):
        got = table(preset, d, pos, dtype, **ov)
        assert np.array_equal(_bits(got), _bits(want[f.name])), (preset, ov)


def test_interleaved_chunks_are_decided_in_one_pass() -> None:
    """A chunk whose sin and cos alternate in one run of columns (vaswani) is one slice of the table; the halves
    layout (t2t: sin block, then cos block) and a layout with the cos first are not."""
    def runs(preset: str, d: int) -> list[object]:
        pr = progression.Progression(build.resolve(preset, d, "float32", {}), 0, 1, 64)
        return [run for *_, run in pr.chunks]
    assert runs("vaswani", 2048) == [slice(0, 1024), slice(1024, 2048)]
    assert runs("t2t", 64) == [None]
    places = ((slice(1, 8, 2), slice(0, 4, 1), np.arange(4)), (slice(0, 8, 2), slice(0, 4, 1), np.arange(4)))
    assert progression._interleaved(places) is None
