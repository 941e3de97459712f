"""sinpe: the verified reference specification of the sinusoidal positional encoding (SPEC.md).

Column j of PE(p) is ``alpha * f_j(sigma * (p + o) * w_k)``, ``w_k = b**(-k/D)``, with (f_j, k) fixed
by the layout and the odd-d rule (DEF-FAMILY); the presets (DEF-PRESET-*) are :data:`PRESETS`.
This package is the Python API; the ``sinpe`` command and the pytest plugin are thin shells over it.

- :func:`table` -- the correctly rounded table of any configuration (REQ-TABLE-API);
- :func:`check` -- does a table, file or callable implement a profile? (REQ-CHECK-CONFORM, -VERDICT);
- :func:`detect` -- which member of the family is it? (REQ-DETECT-FIT);
- :func:`golden_cases` -- the golden vectors (REQ-GOLDEN-SCHEMA);
- :func:`prove` -- the proof suite or a claim of your own (REQ-PROVE, REQ-PROVE-CLAIM);
- :func:`verify` -- proofs, golden self-certification, implementation certification (REQ-VERIFY).

Results are small typed objects, each with one ``to_json()``.

>>> import sinpe
>>> t = sinpe.table("t2t", d=8, positions=range(2048), dtype="float32")
>>> t.shape, t.dtype, float(t[1, 0])          # sin 1, correctly rounded to float32
((2048, 8), dtype('float32'), 0.8414709568023682)
>>> r = sinpe.check(t, "t2t")
>>> r.verdict, r.conformant, r.exit_code
('conforms', True, 0)
>>> bad = t.copy(); bad[1000, 2] += 0.01      # one wrong entry
>>> r = sinpe.check(bad, "t2t", detect=False)
>>> r.verdict, r.n_failures, r.failures[0].position, r.failures[0].column
('fails', 1, '1000', 2)
>>> r.failures[0].repro
'sinpe table --profile t2t --d 8 --positions 1000 --dtype float32 --out pe.npy  # column 2'
>>> sinpe.check(t, "vaswani", detect=False).verdict  # the tensor2tensor schedule is not Vaswani's
'fails'
>>> sinpe.detect(t).profile
't2t'
>>> c = next(sinpe.golden_cases("vaswani", "float64", d=4))
>>> c["position"], c["column"], c["value"]
('0', 0, 0.0)
>>> sinpe.prove(claim="sin(x)**2 + cos(x)**2 == 1", assume="x: real").status
'proven'
"""
from __future__ import annotations

from typing import Any, Iterator, Sequence

from sinpe.spec import SPEC_VERSION
from sinpe.spec.profiles import PRESETS, Profile, get_profile

__version__ = SPEC_VERSION
__all__ = ["PRESETS", "Profile", "check", "detect", "get_profile", "golden_cases", "profile", "prove", "table",
           "table_torch", "verify", "write_table"]

_OVERRIDES = ("layout", "shift", "base", "phase_scale", "amplitude", "offset", "odd")


def profile(name: "str | Profile" = "vaswani", **overrides: Any) -> Profile:
    """A preset with the CLI's overrides (``layout shift base phase_scale amplitude offset odd``; numbers
    as exact decimals: ``base="1e4"``), or ``name`` itself when it already is a :class:`Profile`.

    >>> profile("t2t", phase_scale=1000).cli_flags()
    '--profile t2t --phase-scale 1000'
    """
    unknown = sorted(set(overrides) - set(_OVERRIDES))
    if unknown:
        raise TypeError(f"unknown profile override(s) {unknown}; overrides: {', '.join(_OVERRIDES)}")
    if isinstance(name, Profile):
        return name.replace(**{k: v for k, v in overrides.items() if v is not None}) if overrides else name
    return get_profile(name, **overrides)


def _split(kw: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    return {k: kw.pop(k) for k in list(kw) if k in _OVERRIDES}, kw


def table(profile_: "str | Profile" = "vaswani", d: int = 64, positions: Any = 2048, dtype: str = "float64",
          **overrides: Any) -> Any:
    """PE at ``positions`` (an int n for 0..n-1, a range, a spec string ``"0:2048"``, or numbers), every entry
    correctly rounded to ``dtype`` (float64, float32, float16, bfloat16 as float32 holding bfloat16 values):
    the same bits as ``sinpe table`` (REQ-TABLE-API)."""
    from sinpe.reference.tables import table as _table
    return _table(profile(profile_) if not overrides else profile(profile_, **overrides), d, positions, dtype)


def table_torch(profile_: "str | Profile" = "vaswani", d: int = 64, positions: Any = 2048, dtype: str = "float32",
                device: Any = "cpu", **overrides: Any) -> Any:
    """:func:`table` as a ``torch.Tensor`` on ``device`` (computed on the CPU, then moved)."""
    from sinpe.reference.tables import table_torch as _tt
    return _tt(profile(profile_, **overrides), d, positions, dtype, device)


def write_table(path: str, profile_: "str | Profile" = "vaswani", d: int = 64, positions: Any = 2048,
                dtype: str = "float64", **overrides: Any) -> Any:
    """Stream :func:`table` to ``path`` (``.npy`` or ``.safetensors``) with bounded memory."""
    from sinpe.reference.tables import write_table as _wt
    return _wt(path, profile(profile_, **overrides), d, positions, dtype)


def check(target: Any, profile_: "str | Profile" = "vaswani", *, d: int | None = None, positions: Any = None,
          dtype: str | None = None, tier: str = "phase", working: str | None = None, key: str | None = None,
          call: str = "positions", timeout: float | None = None, detect: bool = True, rows: str | None = None,
          skip_rows: int | None = None, columns: str | None = None, **overrides: Any) -> Any:
    """Check ``target`` -- an array or tensor (rows = positions), a file path, ``"module:callable"`` (run
    isolated in a child process) or a Python callable ``fn(positions, d)`` -- against a profile with the
    CLI's overrides. Returns a ``CheckResult``: ``verdict`` (conforms / fails / inconclusive), ``conformant``,
    ``failures`` (each with ``repro``), ``unjudged``, ``structural``, ``to_json()`` (REQ-CHECK-VERDICT).
    ``profile_="auto"`` checks against what :func:`detect` finds (REQ-CHECK-AUTO); ``rows``/``skip_rows``/
    ``columns`` select part of the table (REQ-CHECK-SELECT)."""
    from sinpe.reference.checking.targets import check_target
    prof, rest = _split(dict(overrides))
    if rest:
        raise TypeError(f"unknown argument(s) {sorted(rest)}")
    if profile_ == "auto" and prof:
        raise TypeError(f"profile 'auto' takes the parameters detect finds; drop {sorted(prof)}")
    return check_target(target, "auto" if profile_ == "auto" else profile(profile_, **prof), d=d, positions=positions,
                        dtype=dtype, tier=tier, working=working, key=key, call=call, timeout=timeout, detect=detect,
                        rows=rows, skip_rows=skip_rows, columns=columns)


def detect(target: Any, *, positions: Any = None, d: int | None = None, against: "str | Profile" = "vaswani",
           key: str | None = None, call: str = "positions", timeout: float | None = None, rows: str | None = None,
           skip_rows: int | None = None, columns: str | None = None) -> Any:
    """Name the member of the family ``target`` implements (layout, schedule, base, offset, amplitude,
    precision, with margins): a ``Detection`` with ``profile``, ``sentence``, ``deviations``, ``to_json()``."""
    from sinpe.reference.checking.detect import detect_table
    from sinpe.reference.checking.targets import load_target
    tab, pos, _ = load_target(target, d, positions=positions, key=key, call=call, timeout=timeout, rows=rows,
                              skip_rows=skip_rows, columns=columns)
    return detect_table(tab.data, positions=pos, against=profile(against), d=d)


def golden_cases(profile_: str | None = None, dtype: str | None = None, d: int | None = None) -> Iterator[dict[str, Any]]:
    """The golden cases (every preset, dtype and width, or those asked for), as flat dicts with ``id``,
    ``position``, ``column``, ``value`` (correctly rounded), ``hex``, ``decimal`` (40 digits), ``repro``."""
    from sinpe.reference.golden.vectors import iter_cases
    return iter_cases(profile=profile_, dtype=dtype, d=d)


def prove(only: "str | Sequence[str] | None" = None, *, claim: str | None = None, assume: str | None = None) -> Any:
    """The proof suite (every THM-*, or the IDs in ``only``), or one claim ``"A == B"`` / ``"A <= B"`` under
    ``assume`` (``"x: real; k: integer"``): proven / refuted / unknown, with the method (REQ-PROVE-CLAIM)."""
    from sinpe.proofs import prove as _prove
    return _prove(only, claim=claim, assume=assume)


def verify(only: "Sequence[str] | None" = None, **kw: Any) -> Any:
    """The main job (``sinpe verify``): a ``VerifyReport`` with ``ok``, ``parts``, ``render()``, ``to_json()``."""
    from sinpe.reference.verify import verify as _verify
    return _verify(only, **kw)
