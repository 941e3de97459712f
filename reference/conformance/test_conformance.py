"""Conformance tests for a third-party implementation, one per golden case (SPEC.md REQ-PLUGIN-RUN).

    pytest --pyargs sinpe.reference.conformance --sinpe-impl mypkg.mod:fn --sinpe-profile vaswani --sinpe-dtype float32

Options are registered by the sinpe pytest plugin (:mod:`sinpe.reference.conformance.plugin`).
Without ``--sinpe-impl`` the suite is one failing test that says so (never a silent pass or skip).
"""
from __future__ import annotations

from typing import Any

import pytest


def _opt(config: Any, name: str, default: Any = None) -> Any:
    try:
        return config.getoption(name)
    except ValueError:  # the plugin is not loaded (pytest -p no:sinpe)
        return default


def pytest_generate_tests(metafunc: Any) -> None:
    if "golden_case" not in metafunc.fixturenames:
        return
    cfg = metafunc.config
    impl = _opt(cfg, "--sinpe-impl")
    if not impl:
        metafunc.parametrize("golden_case", [None], ids=["no-sinpe-impl"])
        return
    from sinpe.reference.conformance.harness import case_test_id, select_cases
    widths = _opt(cfg, "--sinpe-d")
    try:
        wl = [int(x) for x in widths.split(",")] if widths else None
    except ValueError:
        raise pytest.UsageError(f"--sinpe-d: expected comma-separated integers; got {widths!r}") from None
    call = _opt(cfg, "--sinpe-call", "positions")
    maxp = _opt(cfg, "--sinpe-max-position")
    if maxp is None and call != "positions":
        maxp = 2047.0
    try:
        cases = select_cases(_opt(cfg, "--sinpe-profile", "vaswani"), _opt(cfg, "--sinpe-dtype", "float32"), wl, maxp)
    except ValueError as e:
        raise pytest.UsageError(f"sinpe conformance: {e}") from None
    if call != "positions":  # (n, d), buffers and forward cover positions 0..n-1 only
        cases = [c for c in cases if float(c["position_float"]).is_integer() and c["position_float"] >= 0]
    from sinpe.reference.conformance.harness import odd_error_widths, retarget
    overrides = overrides_of(cfg)
    profile = _opt(cfg, "--sinpe-profile", "vaswani")
    try:
        raising = odd_error_widths(cases, profile, overrides)
        cases = retarget(cases, profile, overrides)  # REQ-PLUGIN-OVERRIDES: references of the overridden profile
    except ValueError as e:
        raise pytest.UsageError(f"sinpe conformance: {e}") from None
    cases = cases + [{"raises_at_odd_d": w, "profile": profile, "overrides": overrides} for w in raising]
    metafunc.parametrize("golden_case", cases, ids=[case_test_id(c) if "raises_at_odd_d" not in c else
                                                    f"{profile}-d{c['raises_at_odd_d']}-raises" for c in cases])


def overrides_of(cfg: Any) -> dict[str, str]:
    """The --sinpe-<flag> profile overrides given (REQ-PLUGIN-OVERRIDES)."""
    from sinpe.reference.conformance.plugin import OVERRIDE_OPTIONS
    return {dest: v for flag, dest, _, _ in OVERRIDE_OPTIONS if (v := _opt(cfg, f"--sinpe-{flag}")) is not None}


def _override_flags(cfg: Any) -> str:
    from sinpe.reference.conformance.plugin import OVERRIDE_OPTIONS
    return "".join(f" --sinpe-{flag} {v}" for flag, _, _, _ in OVERRIDE_OPTIONS
                   if (v := _opt(cfg, f"--sinpe-{flag}")) is not None)


def test_golden_case(golden_case: Any, request: Any) -> None:
    cfg = request.config
    impl = _opt(cfg, "--sinpe-impl")
    if golden_case is None:
        pytest.fail("sinpe conformance: pass --sinpe-impl module:callable (fn(positions, d) -> table)", pytrace=False)
    from sinpe.reference.conformance.harness import diagnose, error_cause, impl_table, positions_of, split_hint, verdict
    call = _opt(cfg, "--sinpe-call", "positions")
    tier = _opt(cfg, "--sinpe-tier", "phase")
    run = dict(isolated=not _opt(cfg, "--sinpe-in-process", False), timeout=_opt(cfg, "--sinpe-timeout"))
    if "raises_at_odd_d" in golden_case:  # odd rule error: PE is undefined at odd d, the call must raise
        d = golden_case["raises_at_odd_d"]
        got = impl_table(impl, call, d, ("0", "1", "2"), **run)
        if not isinstance(got, str):
            _record(request, golden_case["profile"], d, "-", "returned a table at odd d (odd rule 'error')", "")
            pytest.fail(f"{impl} returned a table at odd d={d}; odd rule 'error' requires it to raise\n  reproduce: "
                        f"pytest --pyargs sinpe.reference.conformance --sinpe-impl {impl}{_override_flags(cfg)} "
                        f"-k d{d}-raises", pytrace=False)
        return
    params = [c for c in _session_cases(request) if c.get("d") == golden_case["d"]]
    positions = positions_of(params, golden_case["d"])
    table = impl_table(impl, call, golden_case["d"], positions, **run)
    rerun = (f"pytest --pyargs sinpe.reference.conformance --sinpe-impl {impl} --sinpe-profile "
             f"{golden_case['profile']}{_override_flags(cfg)} --sinpe-dtype {golden_case['dtype']} --sinpe-tier {tier} "
             f"-k {golden_case['id']}")
    where = (golden_case["profile"], golden_case["d"], golden_case["dtype"])
    if isinstance(table, str):
        _record(request, *where, error_cause(table), split_hint(table)[1])
        pytest.fail(f"{split_hint(table)[0]}\n  reproduce: {rerun}", pytrace=False)
    y = float(table[positions.index(golden_case["position"]), golden_case["column"]])
    status, why = verdict(golden_case, y, tier, _opt(cfg, "--sinpe-working"))
    if status == "inconclusive":  # REQ-CHECK-UNJUDGED: never a pass that could not have failed
        pytest.skip(f"inconclusive: {why}")
    if status == "fails":
        found = diagnose(table, golden_case, positions, tier, _opt(cfg, "--sinpe-working"))
        _record(request, *where, found or "entries exceed the tolerance (sinpe check names no cause)", "")
        pytest.fail(f"{golden_case['profile']} d={golden_case['d']} position {golden_case['position']} column "
                    f"{golden_case['column']} ({golden_case['label']}): {why}"
                    + (f" (cause, as sinpe check says: {found})" if found else "")
                    + f"\n  reference: {golden_case['repro']}\n  reproduce: {rerun}", pytrace=False)


def _record(request: Any, profile: str, d: int, dtype: str, cause: str, hint: str) -> None:
    """The failure's (profile, d, dtype, cause, hint) for the plugin's session summary (REQ-PLUGIN-SUMMARY)."""
    request.node.user_properties.append(("sinpe_failure", (profile, d, dtype, cause, hint)))


def _session_cases(request: Any) -> list[dict[str, Any]]:
    """Every golden case of this session's parametrization (so each width is called once)."""
    cache = getattr(request.config, "_sinpe_cases", None)
    if cache is None:
        cache = [it.callspec.params["golden_case"] for it in request.session.items
                 if hasattr(it, "callspec") and isinstance(it.callspec.params.get("golden_case"), dict)]
        request.config._sinpe_cases = cache
    return cache
