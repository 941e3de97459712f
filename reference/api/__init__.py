"""sinpe: the verified reference specification of the sinusoidal positional encoding (SPEC.md).

Column j of PE(p) is ``alpha * f_j(sigma * (p + o) * w_k)``, ``w_k = b**(-k/D)``, with (f_j, k) fixed
by the layout and the odd-d rule (DEF-FAMILY); the presets (DEF-PRESET-*) are :data:`PRESETS`.
This package is the Python API; the ``sinpe`` command and the pytest plugin are thin shells over it.

- :func:`table` -- the correctly rounded table of any configuration (REQ-TABLE-API);
- :func:`check` -- does a table, file or callable implement a profile? (REQ-CHECK-CONFORM, -VERDICT);
- :func:`detect` -- which member of the family is it? (REQ-DETECT-FIT);
- :func:`check_apply` -- does a function apply the rotary encoding right? (REQ-CHECK-APPLY);
- :func:`scan` -- every sinusoid table in a checkpoint, found and judged (REQ-SCAN);
- :func:`golden_cases` -- the golden vectors (REQ-GOLDEN-SCHEMA);
- :func:`prove` -- the proof suite or a claim of your own (REQ-PROVE, REQ-PROVE-CLAIM);
- :func:`verify` -- proofs, golden self-certification, implementation certification (REQ-VERIFY).

Results are small typed objects, each with one ``to_json()``. Every input the API cannot read -- a file that
is not a regular file, a quantized, sparse or meta tensor, a masked array, a broadcast view too big to copy
-- raises :class:`InputError` (a ``ValueError`` of one line; the CLI's exit 2).

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

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

from sinpe.spec import SPEC_VERSION
from sinpe.spec.profiles import PRESETS, Profile, get_profile

# One name per file: this folder is the package sinpe itself (pyproject.toml's package-dir), never sinpe.reference.api
if __name__ != "sinpe":
    raise ImportError(f"reference/api/ is the package sinpe, not {__name__!r}: import sinpe")
__version__ = SPEC_VERSION
__all__ = ["InputError", "PRESETS", "Profile", "check", "check_apply", "detect", "get_profile", "golden_cases", "profile",
           "prove", "scan", "table", "table_torch", "verify", "write_table"]


def __getattr__(name: str) -> Any:
    """``sinpe.InputError``: the input error of every door (``sinpe.reference.inputs.LoadError``), imported when first asked for.

    >>> import numpy as np, sinpe
    >>> try:
    ...     sinpe.check(np.broadcast_to(np.zeros(64), (10**8, 64)), "vaswani")
    ... except sinpe.InputError as e:
    ...     print(str(e).split(";")[0])
    table: a broadcast view of 6400000000 entries over 64 stored ones
    """
    if name == "InputError":
        from .reference.inputs import LoadError
        return LoadError
    raise AttributeError(f"module 'sinpe' has no attribute {name!r}")


_OVERRIDES = tuple(PRESETS["vaswani"].params())  # a 1-D profile's parameters (DEF-FAMILY), as the flags name them


def profile(name: str | Profile = "vaswani", **overrides: Any) -> Profile:
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


def table(profile_: str | Profile = "vaswani", d: int = 64, positions: Any = 2048, dtype: str = "float64",
          **overrides: Any) -> Any:
    """PE at ``positions`` (an int n for 0..n-1, a range, a spec string ``"0:2048"``, or numbers), every entry
    correctly rounded to ``dtype`` (float64, float32, float16, bfloat16 as float32 holding bfloat16 values):
    the same bits as ``sinpe table`` (REQ-TABLE-API)."""
    from sinpe.reference.tables import table as _table
    return _table(profile(profile_) if not overrides else profile(profile_, **overrides), d, positions, dtype)


def table_torch(profile_: str | Profile = "vaswani", d: int = 64, positions: Any = 2048, dtype: str = "float32",
                device: Any = "cpu", **overrides: Any) -> Any:
    """:func:`table` as a ``torch.Tensor`` on ``device`` (computed on the CPU, then moved)."""
    from sinpe.reference.tables import table_torch as _tt
    return _tt(profile(profile_, **overrides), d, positions, dtype, device)


def write_table(path: str, profile_: str | Profile = "vaswani", d: int = 64, positions: Any = 2048,
                dtype: str = "float64", **overrides: Any) -> Any:
    """Stream :func:`table` to ``path`` (``.npy`` or ``.safetensors``) with bounded memory."""
    from sinpe.reference.tables import write_table as _wt
    return _wt(path, profile(profile_, **overrides), d, positions, dtype)


def check(target: Any = None, profile_: str | Profile | None = None, **keywords: Any) -> Any:
    """Check ``target`` -- an array or tensor (rows = positions), a file path, ``"module:callable"`` (run
    isolated in a child process) or a Python callable ``fn(positions, d)`` -- or the rotary caches ``cos=``/
    ``sin=`` against a profile: a 1-D preset or :class:`Profile` (default vaswani; llama for caches), a grid
    preset (``mae``, ``diffusers``, ``timm``, ...), a rotary preset (``llama``, ``gptj``, ``llama3.1``) or
    ``"auto"`` (check against what :func:`detect` names, for every kind: REQ-CHECK-AUTO).

    Every ``sinpe check`` flag is a keyword of the same name (its ``dest``): 1-D overrides ``layout shift base
    phase_scale amplitude offset odd``; grids ``shape cls base_size interpolation_scale temperature
    reverse_coord channels_first``; caches ``cos sin dim rule factor original_max seq_len low_freq_factor
    high_freq_factor beta_fast beta_slow attention_factor freqs`` (``freqs``: explicit frequencies, rule
    ``explicit``); loading ``d positions key call timeout rows skip_rows columns``; checking ``dtype tier
    working detect max_failures``. A keyword of another kind is a usage error (``LoadError``).

    Returns a ``CheckResult`` for every kind (``kind``: 1d, grid, rotary, channels): ``verdict`` (conforms / fails /
    inconclusive), ``conformant`` (True only for conforms), ``exit_code``, ``failures``, ``unjudged``
    (``{count, share, from_position}``), ``to_json()`` with the same keys for every kind (REQ-CHECK-VERDICT,
    REQ-CHECK-KINDS), ``cause`` (why it does not conform, in one sentence, and ``cause_code`` in one word);
    ``json.dumps(result.to_json())`` is its JSON text (the ``--json`` output). A float32 table all of whose values
    are bfloat16 (float16) values is checked as one (a note says so; ``dtype=`` overrides)."""
    from sinpe.reference.checking.door import check as _check
    if "profile" in keywords:  # sinpe.check(cos=c, sin=s, profile="llama"): the profile by keyword
        if profile_ is not None:
            raise TypeError("give the profile once: positionally or as profile=")
        profile_ = keywords.pop("profile")
    with api_words():
        return _check(target, profile_, **keywords)


@contextlib.contextmanager
def api_words() -> Iterator[None]:
    """Input errors raised through the API name its keywords, not the CLI's flags (``d=``, not ``--d``).

    >>> with api_words():
    ...     check("numpy:eye", "vaswani")
    Traceback (most recent call last):
    ...
    sinpe.reference.inputs.LoadError: numpy:eye: pass d=, the width to ask the callable for (it cannot be inferred from a function; call="buffer" reads a module's table at its own width)
    """
    import re

    from sinpe.reference.checking.door import OPTIONS

    from .reference.inputs import LoadError
    names = set(OPTIONS)

    def word(m: re.Match[str]) -> str:
        key = m.group(1).replace("-", "_")
        if key not in names:
            return m.group(0)
        return f'{key}="{m.group(3)}"' if m.group(3) else f"{key}="
    try:
        yield
    except LoadError as e:
        text = re.sub(r"--([a-z][a-z0-9-]*)( (buffer|positions|forward|n)\b)?", word, str(e))
        raise LoadError(text) from None


def check_apply(fn: Any, profile_: Any = "llama", **keywords: Any) -> Any:
    """Does ``fn`` -- ``"module:function"`` (run isolated) or a Python callable -- rotate q and k as the rotary
    profile says (REQ-CHECK-APPLY)? Keywords: ``dim`` (required), ``convention`` (hf, hf-ids, module, freqs),
    ``dtype``, ``positions``, ``rotary_dim``/``rotary_fraction``, ``timeout`` and the profile's overrides
    (``layout``, ``base``, ``rule``, ``factor``, ...). Returns an ``ApplyResult`` (a ``CheckResult`` of kind
    ``apply``): ``verdict``, ``cause`` (the bug named, in one sentence) and ``cause_code`` (pairing, sign, swap,
    dtype, slice, offset, scaling, axes, nondeterministic or None), ``repeat`` (a failing function's second call with
    the same inputs: ``{"calls": 2, "differing": N}``; None for a passing one, called once), ``relative``
    (THM-ROPE-REL), ``to_json()``."""
    from sinpe.reference.checking.door import check_apply as _check_apply
    with api_words():
        return _check_apply(fn, profile_, **keywords)


def scan(path: str, *, workers: int = 1) -> Any:
    """Every tensor of a checkpoint (``.safetensors``, a sharded index, ``.npz``, ``.pt``, or a directory of them)
    skipped with the reason or judged against what detect names (REQ-SCAN): a ``Scan`` whose ``rows`` are views of
    each tensor's check result (the same keys: ``verdict``, ``profile_flags``, ``cause``, ``unjudged``, ...),
    ``exit_code`` and ``to_json()``."""
    from sinpe.reference.checking.scan import scan as _scan
    with api_words():
        return _scan(path, workers=workers)


def detect(target: Any = None, *, against: str | Profile = "vaswani", **keywords: Any) -> Any:
    """Name what ``target`` (or the caches ``cos=``/``sin=``) implements, for every kind (REQ-DETECT-KINDS): a
    ``Found`` with ``kind`` (1d, grid, rotary), ``profile``, ``profile_flags`` (the ``sinpe check`` flags),
    ``sentence``, ``readings``, ``exit_code`` and ``to_json()``; a 1-D reading's ``Detection`` attributes
    (``layout``, ``deviations``, ...) are read through it. Keywords as :func:`check`'s (``shape=`` or
    ``channels_first=``: the table is a grid); 1-D deviations are listed ``against`` a profile."""
    from sinpe.reference.checking.door import detect as _detect
    with api_words():
        return _detect(target, against=against, **keywords)


def golden_cases(profile_: str | None = None, dtype: str | None = None, d: int | None = None) -> Iterator[dict[str, Any]]:
    """The golden cases (every preset, dtype and width, or those asked for), as flat dicts with ``id``,
    ``position``, ``column``, ``value`` (correctly rounded), ``hex``, ``decimal`` (40 digits), ``repro``."""
    from sinpe.reference.golden.vectors import iter_cases
    return iter_cases(profile=profile_, dtype=dtype, d=d)


def prove(only: str | Sequence[str] | None = None, *, claim: str | None = None, assume: str | None = None) -> Any:
    """The proof suite (every THM-*, or the IDs in ``only``), or one claim ``"A == B"`` / ``"A <= B"`` under
    ``assume`` (``"x: real; k: integer"``): proven / refuted / unknown, with the method (REQ-PROVE-CLAIM)."""
    from sinpe.proofs import prove as _prove
    return _prove(only, claim=claim, assume=assume)


def verify(only: Sequence[str] | None = None, **kw: Any) -> Any:
    """The main job (``sinpe verify``): a ``VerifyReport`` with ``ok``, ``parts``, ``render()``, ``to_json()``."""
    from sinpe.reference.verify import verify as _verify
    return _verify(only, **kw)
