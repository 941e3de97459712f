"""check --tier exact / faithful on the correctly rounded fast path (REQ-CHECK-DECIDE, REQ-TABLE-FAST,
TOL-EXACT, TOL-FAITHFUL): a correctly rounded table conforms at both tiers without the Arb oracle, a
1-ulp change is caught at exact (and passes faithful when it moves toward PE), a 2-ulp change is caught
at faithful; the reference values come from table(), which test_tables.py compares bit for bit with the
certified oracle."""
from __future__ import annotations

import random

import numpy as np
import pytest

from sinpe.reference.checking.check import check_table
from sinpe.reference.tables import table
from sinpe.spec.profiles import get_profile

VAS = get_profile("vaswani")
STORE = {"float64": np.float64, "float32": np.float32, "float16": np.float16, "bfloat16": np.float32}


def _step(x: float, up: bool, dtype: str) -> float:
    """The neighbour of x (a value of dtype) above (up) or below it, in dtype."""
    if dtype == "bfloat16":  # float32 holding bfloat16 values: the last 16 bits are zero
        b = np.array([x], dtype=np.float32).view(np.uint32)[0].item()
        away = (x > 0) == up or x == 0
        b = b + 0x10000 if away else b - 0x10000
        if x == 0:
            return (1 if up else -1) * float(np.array([0x10000], dtype=np.uint32).view(np.float32)[0])
        return float(np.array([b], dtype=np.uint32).view(np.float32)[0])
    t = np.dtype(STORE[dtype]).type
    return float(np.nextafter(t(x), t(np.inf if up else -np.inf)))


def _cases(side: np.ndarray, k: int, seed: int) -> list[tuple[int, int, bool]]:
    """k entries (row >= 1, so theta != 0 and PE is not in the format) whose side of RN is known (side =
    sign(PE - RN), 0 when unknown), with up = PE > RN."""
    rng = random.Random(seed)
    out: list[tuple[int, int, bool]] = []
    while len(out) < k:
        r, c = rng.randrange(1, side.shape[0]), rng.randrange(side.shape[1])
        if side[r, c] != 0 and (r, c) not in [(a, b) for a, b, _ in out]:
            out.append((r, c, bool(side[r, c] > 0)))
    return out


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
def test_exact_and_faithful_tiers_on_the_fast_path(dtype: str) -> None:
    """TOL-EXACT: y == RN(PE) bit for bit; TOL-FAITHFUL: |y - PE| <= ulp(PE): a correctly rounded table
    conforms at both with no entry sent to Arb; 1-ulp changes fail exact only (toward PE) or both (away
    from PE); 2-ulp changes fail faithful."""
    n, d = 600, 64
    rn = table(VAS, d, n, dtype)
    # PE's side of RN: the float64 table for narrow formats; for float64 the side comes from the
    # double-double estimate of the tables' fast path (certified: |PE - v| <= B, B << |v - RN| checked)
    if dtype == "float64":
        from sinpe.reference.tables import build
        _, enc = build.rounded_block(build.resolve(VAS, d, "float64", {}), np.arange(n, dtype=np.float64),
                                     estimate=True)
        diff = (enc.v - rn) + enc.lo  # v - rn is exact (rn is within an ulp of v)
        side = np.where(np.abs(diff) > enc.B, np.sign(diff), 0.0)  # 0: uncertain, skipped
    else:
        side = np.sign(table(VAS, d, n, "float64") - rn)
    for tier in ("exact", "faithful"):
        r = check_table(rn, VAS, tier=tier, detect=False, dtype=dtype)
        assert r.verdict == "conforms" and r.oracle_decided == 0, (tier, r.reason)
        assert 0.25 < r.max_ulp_error <= (0.5 if tier == "exact" else 1.0)
    cases = _cases(side, 6, seed=len(dtype))
    toward, away = cases[:3], cases[3:]
    one = rn.copy()
    for r_, c_, up in toward:
        one[r_, c_] = _step(float(rn[r_, c_]), up, dtype)     # the other faithful neighbour
    for r_, c_, up in away:
        one[r_, c_] = _step(float(rn[r_, c_]), not up, dtype)  # away from PE: more than an ulp off?
    ex = check_table(one, VAS, tier="exact", detect=False, dtype=dtype)
    assert ex.verdict == "fails" and ex.n_failures == 6
    assert sorted((int(f.position), f.column) for f in ex.failures) == sorted((r_, c_) for r_, c_, _ in cases)
    assert all(f.repro.startswith("sinpe table --profile vaswani --d 64 --positions ") for f in ex.failures)
    fa = check_table(one, VAS, tier="faithful", detect=False, dtype=dtype)
    assert fa.n_failures <= 3 and all((int(f.position), f.column) in [(a, b) for a, b, _ in away] for f in fa.failures)
    two = rn.copy()
    for r_, c_, up in cases:
        two[r_, c_] = _step(_step(float(rn[r_, c_]), up, dtype), up, dtype)  # two ulps, past PE
    fa2 = check_table(two, VAS, tier="faithful", detect=False, dtype=dtype)
    assert fa2.verdict == "fails" and fa2.n_failures == 6, fa2.reason


def test_faithful_table_that_is_not_correctly_rounded() -> None:
    """TOL-FAITHFUL: a float32 table rounded toward zero from the float64 table (faithful, far from
    correctly rounded: a third or more of its entries differ from RN) conforms at faithful and fails exact."""
    rn = table(VAS, 128, 500, "float32")
    pe = table(VAS, 128, 500, "float64")
    down = pe.astype(np.float32)
    over = np.abs(down.astype(np.float64)) > np.abs(pe)
    down[over] = np.nextafter(down[over], np.float32(0))  # truncation: |y| <= |PE|, within an ulp
    assert np.count_nonzero(down != rn) > 0.3 * rn.size
    assert check_table(down, VAS, tier="faithful", detect=False).verdict == "conforms"
    ex = check_table(down, VAS, tier="exact", detect=False)
    assert ex.verdict == "fails" and ex.n_failures == np.count_nonzero(down != rn)


def test_huge_positions_keep_the_fast_reference() -> None:
    """Positions at or beyond 2^53, which the tables' fast path does not take, are checked as before."""
    from sinpe.reference.oracles.arb import rounded_table
    pos = np.array([2.0 ** 53, 2.0 ** 60])
    y = rounded_table(VAS, 4, [int(p) for p in pos], "binary32").astype(np.float32)
    assert check_table(y, VAS, positions=pos, tier="exact", detect=False).verdict == "conforms"
    y[1, 0] = np.nextafter(y[1, 0], np.float32(2))
    assert check_table(y, VAS, positions=pos, tier="exact", detect=False).n_failures == 1
