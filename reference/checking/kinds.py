"""Every kind through every door (SPEC.md REQ-CHECK-KINDS, REQ-DETECT-KINDS, REQ-CHECK-AUTO): 1-D tables,
2-D grids and rotary cos/sin caches are checked by one function, :func:`check`, and named by one,
:func:`detect`, with the same keywords as the ``sinpe check``/``sinpe detect`` flags (their ``dest``
names). The kind comes from the profile (a grid preset, a rotary preset) or from ``cos=``/``sin=``;
``profile="auto"`` checks against what :func:`detect` names, for every kind. A keyword of another kind
(``amplitude=`` with a grid, ``shape=`` with a 1-D preset) is a usage error. ``sinpe.check``,
``sinpe.detect`` and the two commands are shells over these.

>>> import numpy as np
>>> from sinpe.reference.tables import table
>>> check(table("vaswani", 8, 64, "float32"), "vaswani").verdict
'conforms'
>>> check(table("vaswani", 8, 64, "float32"), "mae", amplitude=2)
Traceback (most recent call last):
...
sinpe.reference.checking.loaders.LoadError: --amplitude does not apply to a 2-D grid (--profile mae)
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from sinpe.spec.grid import GRID_PRESETS, Grid, get_grid
from sinpe.spec.profiles import Profile
from sinpe.spec.rotary import ROTARY_LAYOUTS, ROTARY_PRESETS, RotaryProfile, get_rotary

from sinpe.reference.checking.loaders import LoadError, Table, _finish, _to_numpy, is_callable_target, load_table
from sinpe.reference.checking.result import CheckResult

ONE_D = ("layout", "shift", "base", "phase_scale", "amplitude", "offset", "odd")
GRID = ("shape", "cls", "base_size", "interpolation_scale", "temperature", "reverse_coord", "channels_first",
        "temporal_interpolation_scale")
GRID_OPTIONS = ("base_size", "interpolation_scale", "temperature", "reverse_coord", "temporal_interpolation_scale")
ROTARY = ("dim", "rule", "factor", "original_max", "seq_len", "low_freq_factor", "high_freq_factor", "beta_fast",
          "beta_slow", "attention_factor", "freqs", "ext_factors", "mrope_section", "max_res", "linear_bands")
SELECTION = ("rows", "skip_rows", "zero_rows", "columns", "d")
MAX_FREQS = 1 << 16  # explicit frequencies (h = dim/2) accepted, counted before any is parsed


@dataclass
class Request:
    """The keywords of :func:`check` and :func:`detect`, named as the CLI flags' ``dest`` (None: not given)."""

    layout: Any = None
    shift: Any = None
    base: Any = None
    phase_scale: Any = None
    amplitude: Any = None
    offset: Any = None
    odd: Any = None
    shape: Any = None
    cls: int = 0
    base_size: Any = None
    interpolation_scale: Any = None
    temperature: Any = None
    reverse_coord: bool = False
    channels_first: bool = False
    temporal_interpolation_scale: Any = None
    cos: Any = None
    sin: Any = None
    dim: int | None = None
    rule: str | None = None
    factor: Any = None
    original_max: int | None = None
    seq_len: int | None = None
    low_freq_factor: Any = None
    high_freq_factor: Any = None
    beta_fast: Any = None
    beta_slow: Any = None
    attention_factor: Any = None
    freqs: Any = None
    ext_factors: Any = None
    mrope_section: Any = None
    max_res: Any = None
    linear_bands: bool = False
    channels: Any = None
    d: int | None = None
    positions: Any = None
    key: str | None = None
    call: str = "positions"
    timeout: float | None = None
    rows: str | None = None
    skip_rows: int | None = None
    zero_rows: str | None = None
    columns: str | None = None
    dtype: str | None = None
    tier: str = "phase"
    working: str | None = None
    detect: bool = True
    max_failures: int = 10

    @classmethod
    def of(cls, kw: dict[str, Any]) -> "Request":
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(kw) - names)
        if unknown:
            raise TypeError(f"unknown argument(s) {unknown}; arguments: {', '.join(sorted(names))}")
        return cls(**kw)

    def given(self, names: tuple[str, ...]) -> list[str]:
        """The names among ``names`` given a value (cls 0, False and None are not given)."""
        return [n for n in names if getattr(self, n) not in (None, False) and not (n == "cls" and self.cls == 0)]


def flag(name: str) -> str:
    return "--" + name.replace("_", "-")


# --- which kind, and what applies to it ----------------------------------------------------------------

def kind_of(profile: Any, req: Request) -> str:
    """``grid``, ``rotary``, ``channels`` (a 1-D table against an explicit plan, ``channels=``) or ``1d``: from the
    profile (a preset's name or object), ``cos=``/``sin=`` or ``channels=``."""
    named = isinstance(profile, str)
    if req.channels is not None and profile is None and req.cos is None and req.sin is None:
        return "channels"
    if req.cos is not None or req.sin is not None or isinstance(profile, RotaryProfile) or \
            (named and profile in ROTARY_PRESETS):
        return "rotary"
    if isinstance(profile, Grid) or (named and profile in GRID_PRESETS):
        return "grid"
    return "1d"


def _refuse(req: Request, names: tuple[str, ...], what: str) -> None:
    used = req.given(names)
    if used:
        raise LoadError(f"{flag(used[0])} does not apply to {what}")


def _applicable(kind: str, profile: Any, req: Request) -> None:
    name = getattr(profile, "name", None) or profile
    if kind == "channels":
        _refuse(req, ("layout", "shift", "base", "odd", "zero_rows") + GRID + ROTARY,
                "an explicit channel plan (--channels; a zero row is not a plan's channel)")
    elif req.channels is not None:
        raise LoadError("--channels is the whole plan of a 1-D table: drop --profile" if req.cos is None and
                        req.sin is None else "--channels describes a 1-D table, not rotary caches (--cos/--sin)")
    elif kind == "1d":
        used = req.given(GRID + ROTARY)
        if used:
            raise LoadError(f"{flag(used[0])} applies to grid or rotary profiles, not {name}")
        if req.layout in ROTARY_LAYOUTS:
            raise LoadError(f"--layout {req.layout} is a rotary layout: pass --profile {'|'.join(ROTARY_PRESETS)}")
    elif kind == "grid":
        _refuse(req, ONE_D + ROTARY + SELECTION + ("positions", "cos", "sin"), f"a 2-D grid (--profile {name})")
    else:
        if isinstance(profile, Profile) or (isinstance(profile, str) and profile not in ROTARY_PRESETS
                                             and profile != "auto"):
            raise LoadError(f"--cos/--sin are rotary caches: pass --profile {'|'.join(ROTARY_PRESETS)}, not {profile}")
        _refuse(req, ("shift", "phase_scale", "amplitude", "offset", "odd") + GRID[1:] + SELECTION + ("channels",),
                f"a rotary cache (--profile {name})")  # (--shape: the grid of a rule-pixel cache, _check_rotary)
        if req.layout is not None and req.layout not in ROTARY_LAYOUTS:
            raise LoadError(f"--layout {req.layout} is a 1-D layout; rotary layouts: {', '.join(ROTARY_LAYOUTS)}")


# --- loading -----------------------------------------------------------------------------------------

def load_plain(target: Any, key: str | None, what: str) -> Table:
    """A table given as an array, a tensor or a file (a grid or a cache: no callable, no selection)."""
    if callable(target) or (isinstance(target, str) and is_callable_target(target)):
        raise LoadError(f"{target if isinstance(target, str) else 'a callable'}: {what} is checked from a table "
                        "(an array or a file), not a callable")
    if isinstance(target, str) or hasattr(target, "__fspath__"):
        return load_table(str(target), key=key)
    return _finish(Table(*_to_numpy(target, "table"), "table"))


def load_grid(target: Any, key: str | None = None, channels_first: bool = False) -> Table:
    """A grid table (rows = cls + H*W cells); ``channels_first``: a (C, H, W) array (leading size-1 dims
    dropped, DETR's output) read as (H*W, C)."""
    if not channels_first:
        return load_plain(target, key, "a 2-D grid")
    from sinpe.reference.checking import loaders
    if isinstance(target, str):
        if not target.lower().endswith(".npy"):
            raise LoadError("--channels-first reads a .npy file")
        t = loaders._npy(target, key)
    else:
        t = Table(*_to_numpy(target, "table"), "table")
    data = np.asarray(t.data)
    while data.ndim > 3 and data.shape[0] == 1:
        data = data[0]
    if data.ndim != 3:
        raise LoadError(f"--channels-first needs a (C, H, W) array; got shape {data.shape}")
    t.data = np.ascontiguousarray(data.reshape(data.shape[0], -1).T)
    return loaders._finish(t)


def load_caches(req: Request, target: Any = None) -> tuple[Any, Any, Any, str]:
    """(cos, sin, positions or None, dtype) of a rotary check: ``target`` (if given) is the cos cache."""
    from sinpe.reference.checking.targets import _positions
    if target is not None and req.cos is not None:
        raise LoadError("give the cos cache as TARGET or as --cos, not both")
    given = {"cos": target if target is not None else req.cos, "sin": req.sin}
    if given["cos"] is None and given["sin"] is None:
        raise LoadError("a rotary cache is needed: TARGET or --cos FILE, --sin FILE or both")
    caches = {k: None if v is None else load_plain(v, req.key, "a rotary cache") for k, v in given.items()}
    cos, sin = (None if caches[k] is None else np.asarray(caches[k].data) for k in ("cos", "sin"))
    if cos is not None and sin is not None and cos.shape != sin.shape:
        raise LoadError(f"cos {cos.shape} and sin {sin.shape} caches differ in shape")
    rows = (cos if cos is not None else sin).shape[0]
    pos = axis_positions(req.positions, rows)
    if pos is None:
        pos = _positions(req.positions, rows, f"the cache has {rows} rows")
    if pos is not None and len(pos) != rows:
        raise LoadError(f"{len(pos)} positions for {rows} rows")
    dtype = req.dtype or next(c.dtype for c in caches.values() if c is not None)
    return cos, sin, None if pos is None else list(pos), dtype


def axis_positions(spec: Any, rows: int) -> list[tuple[Any, ...]] | None:
    """Positions with several axes (DEF-ROPE-AXES): a (rows, n_axes) ``.npy`` file (header read first, no pickle)
    or 2-D array; None when ``spec`` is not 2-D (a 1-D spec: :func:`~sinpe.reference.checking.targets._positions`)."""
    from sinpe.reference.numerics.positions import read_axis_positions
    from sinpe.spec.rotary import MAX_AXES
    if isinstance(spec, str):
        try:
            arr = read_axis_positions(spec.strip(), rows, MAX_AXES)
        except ValueError as e:
            raise LoadError(str(e)) from None
        return None if arr is None else [tuple(r) for r in arr.tolist()]
    if spec is None or isinstance(spec, range) or np.ndim(spec) != 2:
        return None
    shape = np.shape(spec)
    if shape[0] != rows or not 1 <= shape[1] <= MAX_AXES:
        raise LoadError(f"positions of shape {shape}: the cache has {rows} rows, 1..{MAX_AXES} axes")
    arr = np.asarray(spec)
    if arr.dtype.kind not in "iuf" or (arr.dtype.kind == "f" and not np.all(np.isfinite(arr))):
        raise LoadError("positions must be finite numbers")
    return [tuple(r) for r in arr.tolist()]


def parse_freqs(spec: Any, what: str = "--freqs") -> tuple[Fraction, ...]:
    """Explicit frequencies (DEF-ROPE-FREQ-EXPLICIT): a comma list of exact decimals, a ``.npy`` file of a 1-D
    float array (read without pickle; each value taken at its exact binary value) or a sequence of numbers.
    Each must be finite and positive; at most MAX_FREQS, counted before any is parsed or loaded. ``what`` names
    the flag in messages (``--ext-factors``, LongRoPE's factors, are read the same way).

    >>> parse_freqs("1,0.1,1e-2")
    (Fraction(1, 1), Fraction(1, 10), Fraction(1, 100))
    >>> parse_freqs("1,-0.5")
    Traceback (most recent call last):
    ...
    sinpe.reference.checking.loaders.LoadError: --freqs: frequency 2 is -1/2; frequencies must be finite and positive
    """
    if isinstance(spec, str) and spec.strip().lower().endswith(".npy"):
        values: Any = _freqs_npy(spec.strip(), what)
    elif isinstance(spec, str):
        if spec.count(",") >= MAX_FREQS:
            raise LoadError(f"{what}: more than {MAX_FREQS} frequencies")
        values = [v for v in spec.split(",")]
    else:
        n = len(spec)  # a sequence: its length before any copy
        if n > MAX_FREQS:
            raise LoadError(f"{what}: {n} frequencies; at most {MAX_FREQS}")
        values = np.asarray(spec).tolist() if hasattr(spec, "__array__") else list(spec)
    if not values:
        raise LoadError(f"{what}: no frequencies given" if what == "--freqs" else f"{what}: no values given")
    return tuple(positive_fraction(v, f"{what}: frequency {i}", f"{what}: frequency {i} is {{}}; frequencies must be "
                                   "finite and positive") for i, v in enumerate(values, 1))


def positive_fraction(v: Any, label: str, too_small: str) -> Fraction:
    """``v`` (an exact decimal, a whitelisted expression or a number) as a Fraction > 0, else a LoadError:
    ``to_fraction``'s own message, or ``too_small`` formatted with the value."""
    from sinpe.spec.profiles import to_fraction
    try:
        w = to_fraction(v.strip() if isinstance(v, str) else v, label)
    except ValueError as e:
        raise LoadError(str(e)) from None
    if w <= 0:
        raise LoadError(too_small.format(w))
    return w


def _freqs_npy(path: str, what: str = "--freqs") -> list[float]:
    """A 1-D float .npy, its header read (and its size checked) before the data is."""
    from sinpe.reference.checking.containers import npy_file
    try:
        a = npy_file(path)  # a regular file, its header checked against its size, memory-mapped
    except LoadError as e:
        raise LoadError(f"{what} {path}: a 1-D float array is needed ({e})") from None
    if a.dtype.kind != "f" or a.ndim != 1:
        raise LoadError(f"{what} {path}: a 1-D float array is needed; got {a.dtype} of shape {a.shape}")
    if a.shape[0] > MAX_FREQS:
        raise LoadError(f"{what} {path}: {a.shape[0]} frequencies; at most {MAX_FREQS}")
    return np.asarray(a, dtype=np.float64).tolist()


# --- the profiles of each kind -------------------------------------------------------------------------

def grid_shape(shape: Any, rows: int, cls: int) -> tuple[int, ...]:
    """The cell shape from ``"HxW"`` (or ``"TxHxW"``, any number of axes), a sequence, or (None) the square the rows
    make after ``cls`` rows."""
    if shape is None:
        n = rows - cls
        s = int(round(max(n, 0) ** 0.5))
        if n <= 0 or s * s != n:
            raise LoadError(f"{n} grid rows are not a square: pass --shape HxW")
        return s, s
    if isinstance(shape, str):
        try:
            out = tuple(int(x) for x in shape.lower().split("x"))
        except ValueError:
            raise LoadError(f"--shape must be HxW or TxHxW, e.g. 14x14; got {shape!r}") from None
    else:
        out = tuple(int(x) for x in shape)
    if not 1 <= len(out) <= 8 or any(n < 1 for n in out):
        raise LoadError(f"--shape must be 1 to 8 positive sizes, e.g. 14x14; got {shape!r}")
    return out


def grid_of(name: str, dim: int, shape: tuple[int, ...], cls: int = 0, **options: Any) -> Grid:
    """The grid preset ``name`` at width ``dim`` and ``shape`` with its options and ``cls`` leading zero rows."""
    opts = {k: v for k, v in options.items() if v not in (None, False)}
    try:
        g = get_grid(name, dim, shape, **opts)
    except TypeError:
        raise LoadError(f"grid {name} takes none of these options: {sorted(opts)}") from None
    return Grid(g.name, g.shape, g.axes, g.order, cls) if cls else g


def grid_flags(g: Grid, options: dict[str, Any]) -> str:
    """The ``sinpe check`` flags of a grid (``--shape`` the library's own: timm's ``reverse_coord`` grid runs over
    the reversed shape)."""
    shape = g.shape[::-1] if options.get("reverse_coord") else g.shape
    return (f"--profile {g.name} --shape {'x'.join(map(str, shape))} --cls {g.cls}" +
            "".join(f" {flag(k)}" + ("" if v is True else f" {v}") for k, v in options.items() if v not in (None, False)))


ROTARY_PARAMS = ("layout", "base", "rule", "factor", "original_max", "seq_len", "low_freq_factor", "high_freq_factor",
                 "beta_fast", "beta_slow", "attention_factor", "mrope_section", "max_res", "linear_bands")


def rotary_of(name: str, req: Request) -> RotaryProfile:
    """The rotary preset ``name`` with the request's overrides (``freqs``: rule ``explicit``)."""
    over = {k: getattr(req, k) for k in ROTARY_PARAMS}
    over["linear_bands"] = True if req.linear_bands else None
    over["mrope_section"] = parse_sections(req.mrope_section)
    if req.freqs is not None:
        over["explicit"] = parse_freqs(req.freqs)
    if req.ext_factors is not None:
        over["ext_factors"] = parse_freqs(req.ext_factors, "--ext-factors")
    return get_rotary(name, **over)


def rotary_flags(rp: RotaryProfile, freqs: Any = None, ext_factors: Any = None) -> str:
    """The ``sinpe check`` flags of a rotary profile: its preset, or the preset it differs least from with the
    parameters that differ."""
    def differ(base: RotaryProfile) -> list[str]:
        return [k for k in ROTARY_PARAMS if getattr(rp, k) != getattr(base, k)]
    # a preset with a parameter the profile has not (None) cannot be the base: no flag unsets it
    bases = [(n, p) for n, p in ROTARY_PRESETS.items() if all(getattr(rp, k) is not None for k in differ(p))]
    name, base = min(bases, key=lambda kv: len(differ(kv[1])))
    out = [f"--profile {name}"]
    for k in differ(base):
        v = getattr(rp, k)
        out.append(flag(k) if v is True else f"{flag(k)} {','.join(map(str, v)) if isinstance(v, tuple) else v}")
    if rp.explicit is not None:  # as given (a file, a list), else each frequency exactly (a/b)
        out.append(f"--freqs {freqs}" if isinstance(freqs, str) else "--freqs " + ",".join(map(str, rp.explicit)))
    if rp.ext_factors is not None:
        out.append(f"--ext-factors {ext_factors}" if isinstance(ext_factors, str)
                   else "--ext-factors " + ",".join(map(str, rp.ext_factors)))
    return " ".join(out)


def parse_sections(spec: Any) -> tuple[int, ...] | None:
    """``--mrope-section 16,24,24`` (or a sequence of ints): the frequencies each position axis reads (DEF-ROPE-AXES).

    >>> parse_sections("16,24,24")
    (16, 24, 24)
    """
    from sinpe.spec.rotary import MAX_AXES
    if spec is None:
        return None
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    if not 0 < len(items) <= MAX_AXES:
        raise LoadError(f"--mrope-section: 1 to {MAX_AXES} section sizes; got {len(items)}")
    try:
        out = tuple(int(str(x).strip()) for x in items)
    except ValueError:
        raise LoadError(f"--mrope-section must be positive integers, e.g. 16,24,24; got {str(spec)[:40]!r}") from None
    if any(n < 1 for n in out):
        raise LoadError(f"--mrope-section must be positive integers; got {list(out)}")
    return out


# --- check ---------------------------------------------------------------------------------------------

def label(target: Any, req: Request | None = None) -> str:
    """How a report names its target: the path or ``module:callable``, else ``table``."""
    t = target if target is not None else (req.cos if req and req.cos is not None else getattr(req, "sin", None))
    return str(t) if isinstance(t, str) or hasattr(t, "__fspath__") else "table"


def check(target: Any = None, profile: Any = None, **kw: Any) -> Any:
    """Check ``target`` (or the ``cos=``/``sin=`` caches) against ``profile``: a 1-D preset or
    :class:`Profile` (default vaswani; llama for caches), a grid preset, a rotary preset, or ``"auto"``.
    Every kind's result is a :class:`~sinpe.reference.checking.result.CheckResult` (``kind`` says which):
    ``verdict``, ``conformant``, ``exit_code``, ``unjudged`` and one ``to_json()`` with the same keys."""
    req = Request.of(kw)
    if profile == "auto":
        return _check_auto(target, req)
    kind = kind_of(profile, req)
    _applicable(kind, profile, req)
    if kind == "grid":
        g = profile if isinstance(profile, Grid) else None
        return _check_grid(target, g.name if g else profile, req, grid=g, options={} if g else None)
    if kind == "rotary":
        return _check_rotary(target, "llama" if profile is None else profile, req)
    if kind == "channels":
        return _check_channels(target, req)
    return _check_1d(target, "vaswani" if profile is None else profile, req)


def one_d_profile(profile: Any, req: Request) -> Profile:
    """A 1-D preset (or :class:`Profile`) with the request's overrides."""
    from sinpe.spec.profiles import get_profile
    over = {k: getattr(req, k) for k in ONE_D if getattr(req, k) is not None}
    if isinstance(profile, Profile):
        return profile.replace(**over) if over else profile
    return get_profile(profile, **over)


def _check_1d(target: Any, profile: Any, req: Request) -> Any:
    from sinpe.reference.checking import targets
    from sinpe.reference.checking.limits import binary64_parameters
    if target is None:
        raise LoadError("TARGET is required (a table file or module:callable; a rotary cache: --cos/--sin "
                        f"with --profile {'|'.join(ROTARY_PRESETS)})")
    prof = one_d_profile(profile, req)
    binary64_parameters(prof)  # REQ-CHECK-LIMITS: a non-finite reference is refused before any work
    res = targets.check_target(target, prof, **_one_d_keywords(req))
    res.reproduce = f"sinpe check {label(target)} {res.profile_flags}"
    return res


def _one_d_keywords(req: Request) -> dict[str, Any]:
    if req.d is not None and req.d < 1:
        raise LoadError(f"--d must be >= 1; got {req.d}")
    if req.max_failures < 0:
        raise LoadError(f"--max-failures must be >= 0; got {req.max_failures}")
    return {k: getattr(req, k) for k in ("d", "positions", "dtype", "tier", "working", "key", "call", "timeout",
                                         "detect", "max_failures", "rows", "skip_rows", "zero_rows",
                                         "columns")}


def _grid_options(req: Request) -> dict[str, Any]:
    return {k: getattr(req, k) for k in GRID_OPTIONS}


def _check_grid(target: Any, name: str, req: Request, table: Table | None = None, grid: Grid | None = None,
                options: dict[str, Any] | None = None) -> CheckResult:
    from sinpe.reference.checking.angles import check_grid
    if target is None and table is None:
        raise LoadError(f"--profile {name} (a 2-D grid) needs TARGET, the grid table file")
    t0 = time.perf_counter()
    t = table if table is not None else load_grid(target, req.key, req.channels_first)
    data = np.asarray(t.data)
    opts = _grid_options(req) if options is None else options
    g = grid or grid_of(name, data.shape[1], grid_shape(req.shape, data.shape[0], req.cls), req.cls, **opts)
    r = check_grid(data, g, dtype=req.dtype or t.dtype, tier=req.tier, working=req.working,
                   max_failures=req.max_failures)
    return _with_command(r, grid_flags(g, opts), label(target), t.notes, t0)


def _check_rotary(target: Any, name: Any, req: Request, rp: RotaryProfile | None = None,
                  dim: int | None = None) -> CheckResult:
    from sinpe.reference.checking.angles import check_rotary
    t0 = time.perf_counter()
    cos, sin, pos, dtype = load_caches(req, target)
    rp = rp or (name if isinstance(name, RotaryProfile) else rotary_of(name, req))
    t = cos if cos is not None else sin
    dim = dim or req.dim or (t.shape[1] * 2 if rp.layout == "single" else t.shape[1])
    if req.shape is not None and rp.rule != "pixel" and rp.mrope_section is None:
        raise LoadError("--shape applies to a 2-D grid, a rule-pixel rotary cache (--profile timm-pixel) or a "
                        f"multi-axis one (--mrope-section), not rule {rp.rule} on one axis")
    shape = None if req.shape is None else grid_shape(req.shape, t.shape[0], 0)
    try:
        r = check_rotary(rp, dim, cos=cos, sin=sin, positions=pos, dtype=dtype, tier=req.tier, working=req.working,
                         shape=shape, max_failures=req.max_failures)
    except ValueError as e:  # the positions do not fit the profile's axes, the shape not the rows
        raise LoadError(str(e)) from None
    src = {"cos": target if target is not None else req.cos, "sin": req.sin}
    given = " ".join(f"--{k} {label(v) if label(v) != 'table' else 'FILE'}" for k, v in src.items() if v is not None)
    return _with_command(r, rotary_flags(rp, req.freqs, req.ext_factors), given, [], t0)


def _with_command(res: CheckResult, flags: str, target_words: str, notes: list[str], t0: float) -> CheckResult:
    """A grid, rotary or channel-plan result with what the command knows: its flags, notes, command, time."""
    res.profile_flags, res.notes = flags, list(notes) + res.notes
    res.reproduce = f"sinpe check {target_words} {flags}"
    for p in res.parts.values():  # a rotary pair's caches: the same profile, checked by the same command
        p.profile_flags, p.profile_params, p.reproduce = flags, res.profile_params, res.reproduce
    res.seconds = time.perf_counter() - t0
    return res


MAX_PLAN_BYTES = 1 << 23  # a --channels .json file read at most (8 MiB), its size checked before it is read


def parse_channels(spec: Any) -> tuple[tuple[str, Fraction | None], ...]:
    """DEF-CHANNELS-EXPLICIT: per column ``f:omega`` (f sin or cos, omega an exact decimal or a/b, positive) or
    ``zero``, as a comma list, a sequence of such items or of (f, omega) pairs, or a ``.json`` file
    ``{"channels": [items]}`` (at most MAX_PLAN_BYTES, parsed as JSON, never evaluated); at most MAX_FREQS columns,
    counted before any is parsed.

    >>> parse_channels("sin:1,cos:1,sin:1/8,zero")
    (('sin', Fraction(1, 1)), ('cos', Fraction(1, 1)), ('sin', Fraction(1, 8)), ('zero', None))
    """
    if isinstance(spec, str) and spec.strip().lower().endswith(".json"):
        spec = _plan_file(spec.strip())
    if isinstance(spec, str):
        if spec.count(",") >= MAX_FREQS:
            raise LoadError(f"--channels: more than {MAX_FREQS} columns")
        spec = spec.split(",")
    if len(spec) > MAX_FREQS or not len(spec):
        raise LoadError(f"--channels: 1 to {MAX_FREQS} columns; got {len(spec)}")
    return tuple(_channel(c, j) for j, c in enumerate(spec))


def _channel(item: Any, j: int) -> tuple[str, Fraction | None]:
    f, _, w = item.strip().partition(":") if isinstance(item, str) else (list(item) + [None])[:3]
    if f == "zero" and not w:
        return "zero", None
    if f not in ("sin", "cos") or w in (None, ""):
        raise LoadError(f"--channels: column {j} is {str(item)[:40]!r}; each is sin:OMEGA, cos:OMEGA or zero")
    return f, positive_fraction(w, f"--channels: column {j}'s frequency",
                                f"--channels: column {j}'s frequency is {{}}; frequencies must be positive")


def _plan_file(path: str) -> list[Any]:
    import json
    import os
    from sinpe.reference.checking.containers import open_regular, size_of
    if not os.path.lexists(path):
        raise LoadError(f"--channels {path}: no such file")
    try:
        with open_regular(path) as fh:  # a regular file only (REQ-CHECK-INPUT)
            if size_of(fh) > MAX_PLAN_BYTES:
                raise LoadError(f"--channels {path}: over {MAX_PLAN_BYTES} bytes")
            doc = json.loads(fh.read().decode("utf-8"))
    except LoadError:
        raise
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise LoadError(f"--channels {path}: not JSON ({str(e)[:80]})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("channels"), list):
        raise LoadError(f'--channels {path}: a JSON object {{"channels": ["sin:OMEGA", ...]}} is needed')
    return doc["channels"]


def channel_flags(channels: Any, given: Any = None, extra: dict[str, Fraction] | None = None) -> str:
    """The ``sinpe check`` flags of an explicit channel plan: the file as given, else every column exactly."""
    words = given if isinstance(given, str) and given.strip().lower().endswith(".json") else ",".join(
        "zero" if f == "zero" else f"{f}:{w}" for f, w in channels)
    return f"--channels {words}" + "".join(f" {flag(k)} {v}" for k, v in (extra or {}).items())


def _check_channels(target: Any, req: Request) -> CheckResult:
    """DEF-CHANNELS-EXPLICIT: a 1-D table (file, array or callable) against an explicit channel plan."""
    from sinpe.reference.checking.angles import check_plan
    from sinpe.reference.checking.targets import load_target
    from sinpe.reference.oracles.angles import channels_plan
    from sinpe.spec.profiles import to_fraction
    if target is None:
        raise LoadError("--channels checks a 1-D table: TARGET is required")
    t0 = time.perf_counter()
    chans = parse_channels(req.channels)
    try:
        extra = {k: to_fraction(getattr(req, k), flag(k)) for k in ("amplitude", "offset", "phase_scale")
                 if getattr(req, k) is not None}
    except ValueError as e:
        raise LoadError(str(e)) from None
    t, pos, _ = load_target(target, len(chans), positions=req.positions, key=req.key, call=req.call,
                            timeout=req.timeout, rows=req.rows, skip_rows=req.skip_rows, columns=req.columns)
    data = np.asarray(t.data)
    plan = channels_plan(chans, list(range(data.shape[0])) if pos is None else list(pos), **extra)
    r = check_plan(data, plan, "channels", kind="channels", dtype=req.dtype or t.dtype, tier=req.tier,
                   working=req.working, max_failures=req.max_failures)
    flags = channel_flags(chans, req.channels, extra)
    n = {f: sum(c[0] == f for c in chans) for f in ("sin", "cos", "zero")}
    describe = (f"explicit channel plan: {len(chans)} columns ({n['sin']} sin, {n['cos']} cos, {n['zero']} zero), "
                f"{len(set(plan.fids[plan.kinds != 2].tolist()))} frequencies" +
                "".join(f", {k} {v}" for k, v in extra.items()))
    r.profile_params = {"describe": describe}
    return _with_command(r, flags, label(target), t.notes, t0)


def _check_auto(target: Any, req: Request) -> Any:
    """REQ-CHECK-AUTO for every kind: the detection of :func:`detect`, then the check against what it names."""
    from sinpe.reference.checking import targets
    used = req.given(ONE_D + ROTARY + ("cls",) + GRID_OPTIONS)
    if used:
        raise LoadError(f"--profile auto takes the parameters detect finds; drop {flag(used[0])}")
    found = detect(target, _request=req, _first=True)
    if found.kind != "1d" and found.profile_flags is None:
        return _unnamed(found, req)
    if found.kind == "grid":
        r = found.readings["grid"]
        res = _check_grid(target, r["profile"], req, found.table, found.grid, r["options"])
    elif found.kind == "channels":
        c = found.readings["1d"]["channels"]
        res = _check_channels(target, dataclasses.replace(req, channels=c["plan"],
                                                          amplitude=None if c["amplitude"] == "1" else c["amplitude"]))
    elif found.kind == "rotary":
        r = found.readings["rotary"]
        if req.cos is None and req.sin is None:  # a table read as the cos or the sin cache
            target, req = None, dataclasses.replace(req, **{r["cache"]: target})
        req = dataclasses.replace(req, **reading_request(r))  # its grid shape, its start position
        res = _check_rotary(target, None, req, found.rotary, r["dim"])
    else:
        kw = _one_d_keywords(req)
        res = targets.check_detected(found.table, found.positions, found.detection, d=req.d, dtype=req.dtype,
                                     tier=req.tier, working=req.working, detect=req.detect,
                                     max_failures=kw["max_failures"])
        res.reproduce = f"sinpe check {label(target)} {res.profile_flags}"
        return res
    res.profile_source, res.detected = "detected", found.to_json()
    res.notes.insert(0, f"--profile auto: checked against what detect found: {res.profile_flags} ({found.sentence})")
    return res


def _unnamed(found: "Found", req: Request) -> CheckResult:
    """A grid or cache no preset of its kind fits, under ``auto``: a finding (exit 1), never a pass."""
    t = found.table.data if found.table is not None else next(
        v for v in (found.arrays.get("cos"), found.arrays.get("sin")) if v is not None)
    rows, d = t.shape
    return CheckResult(None, "auto", {"describe": "no preset"}, req.tier, req.dtype or found.dtype, d, rows, width=d,
                       kind=found.kind, verdict="fails", profile_source="detected", detected=found.to_json(),
                       reason=f"--profile auto: detect names no {found.kind} preset to check against: {found.sentence}")


# --- detect --------------------------------------------------------------------------------------------

@dataclass
class Found:
    """What :func:`detect` names (REQ-DETECT-KINDS): ``kind`` (1d, grid, rotary), ``profile``, ``profile_flags``
    (the ``sinpe check`` flags), ``sentence``, every reading tried, and what a check against it needs. The
    1-D ``Detection``'s attributes (``layout``, ``deviations``, ...) are readable on it directly."""

    kind: str
    profile: str | None
    profile_flags: str | None
    sentence: str
    readings: dict[str, dict[str, Any]]
    detection: Any = None          # the 1-D Detection, when the 1-D fit ran
    table: Any = None              # the loaded table (Table)
    positions: Any = None
    grid: Grid | None = None
    rotary: RotaryProfile | None = None
    cache_pair: bool = False
    arrays: dict[str, Any] = field(default_factory=dict)  # the caches read, by name
    dtype: str = ""
    against: Any = None
    exit_code: int = 0

    def __getattr__(self, name: str) -> Any:
        if name == "detection":
            raise AttributeError(name)
        if self.detection is None:
            raise AttributeError(f"a {self.kind} detection has no {name!r}")
        return getattr(self.detection, name)

    def to_json(self) -> dict[str, Any]:
        if self.kind == "1d":
            out = self.detection.to_json()
            out["kind"], out["readings"] = "1d", self.readings
            return out
        return {"kind": self.kind, "profile": self.profile, "profile_flags": self.profile_flags,
                "sentence": self.sentence, "readings": self.readings}


def detect(target: Any = None, *, against: Any = "vaswani", _request: Request | None = None, _first: bool = False,
           **kw: Any) -> Found:
    """Name what ``target`` (or the ``cos=``/``sin=`` caches) is: the 1-D fit (REQ-DETECT-FIT) when it names a
    member, else a grid preset (REQ-DETECT-GRID), else a rotary reading as a cos or a sin cache
    (REQ-DETECT-ROPE). ``against`` (default vaswani) is what 1-D deviations are listed against."""
    req = _request or Request.of(kw)
    if _request is None:
        _refuse(req, ROTARY + ("cls",) + GRID_OPTIONS + ("zero_rows",), "detect (it finds the parameters)")
    if req.cos is not None or req.sin is not None:
        return _detect_caches(target, req, against)
    if target is None:
        raise LoadError("FILE is required (a table file or module:callable; a rotary cache: --cos/--sin)")
    if req.channels_first or req.shape is not None:
        return _detect_grid_only(target, req, against)
    if _three_d_npy(target):  # a (C, H, W) array (DETR's, PositionalEncodingPermute2D's): a channels-first grid
        return _detect_grid_only(target, dataclasses.replace(req, channels_first=True), against)
    return _detect_table(target, req, against, _first)


def _three_d_npy(target: Any) -> bool:
    """A .npy file holding a 3-D array (leading size-1 dims dropped), read from its header only."""
    if not (isinstance(target, str) and target.lower().endswith(".npy")):
        return False
    try:
        from sinpe.reference.checking.containers import npy_file
        shape = npy_file(target).shape
    except Exception:  # unreadable: the ordinary loader says why
        return False
    while len(shape) > 3 and shape[0] == 1:
        shape = shape[1:]
    return len(shape) == 3 and sum(n != 1 for n in shape) == 3


def _detect_table(target: Any, req: Request, against: Any, first: bool) -> Found:
    from sinpe.reference.checking.angles import other_readings
    from sinpe.reference.checking.detect import detect_table
    from sinpe.reference.checking.limits import binary64_parameters
    from sinpe.reference.checking.targets import load_target
    prof = one_d_profile(against if kind_of(against, Request()) == "1d" else "vaswani", req)
    binary64_parameters(prof)
    table, pos, _ = load_target(target, req.d, positions=req.positions, key=req.key, call=req.call,
                                timeout=req.timeout, rows=req.rows, skip_rows=req.skip_rows, columns=req.columns)
    try:
        det, why = detect_table(table.data, positions=pos, against=prof, d=req.d), None
    except ValueError as e:  # too few rows for the 1-D fit: the grid and rotary readings may still name it
        det, why = None, str(e)
    if det is not None and req.d is not None and det.d != req.d and "width" not in det.deviations:
        det.deviations["width"] = det.width  # asked for d, it has other columns: never "the profile asked for"
    one = {"found": det is not None and det.profile_flags is not None and "no_fit" not in det.deviations,
           **({"profile": det.profile, "profile_flags": det.profile_flags, "sentence": det.sentence}
              if det is not None else {"reason": why})}
    if one["found"] and (first or _one_d_conforms(table, pos, det, req)):
        # the fast path (REQ-DETECT-KINDS): a 1-D reading that names a member is the answer when asked for the first
        # reading, and when its check conforms (a conforming 1-D reading is chosen over a grid or rotary one anyway)
        why = "names a member" if first else "names a member whose check conforms"
        skipped = {"found": False, "reason": f"not tried: the 1-D reading {why}"}
        readings = {"1d": one, "grid": skipped, "rotary": dict(skipped)}
    else:
        readings = {**other_readings(table.data, pos, det, dtype=req.dtype, tier=req.tier), "1d": one}
    found = Found("1d", None, None, "", readings, det, table, pos, against=prof if against is not None and
                  kind_of(against, Request()) == "1d" else against)
    # the grid and rotary readings are found by a conforming check, the 1-D one by a fit: when both are found the
    # 1-D reading must conform too (a float16 MAE grid fits t2t-cos, a float16 cos cache fits t2t)
    other = next((k for k in ("grid", "rotary") if readings[k]["found"]), None)
    kind = "1d" if one["found"] else (other or "1d")
    if one["found"] and other is not None and not _one_d_conforms(table, pos, det, req):
        kind = other
    if kind == "1d" and not one["found"] and det is not None:  # computed in less than it claims (REQ-DETECT-PRECISION)
        lowered = _lowered_one_d(table, pos, det, req)
        if lowered is not None:
            found.detection, one["found"] = lowered, True
            one.update(profile=lowered.profile, profile_flags=lowered.profile_flags, sentence=lowered.sentence)
    if kind == "1d" and not one["found"]:  # REQ-DETECT-READ: the table's own channels, as an explicit plan
        from sinpe.reference.checking.channels import explicit_channels
        one["channels"] = explicit_channels(table.data, pos, req.dtype, req.tier) or {
            "found": False, "reason": "no explicit channel plan of the frequencies read from the data conforms"}
        kind = "channels" if one["channels"]["found"] else kind
    if kind == "1d" and det is None:
        raise LoadError(f"{why}; no grid or rotary preset conforms either")
    return _name(found, kind)


def lowered_words(fmt: str, working: str | None) -> str:
    """The sentence of a reading found on a later step of the precision ladder (angles.precision_ladder)."""
    if working == "native":
        return (f"computed natively in {fmt}: it fits only the bound of --working native, not TOL-WORKING's default "
                "(computed in float32, rounded once).")
    return f"computed in {fmt}: it fits only the bound of a {fmt} table, not that of the format it is stored in."


def _lowered_one_d(table: Any, pos: Any, det: Any, req: Request) -> Any:
    """REQ-DETECT-PRECISION's ladder for a 1-D table that no member fits at its format and TOL-WORKING's default:
    the fit's least bad plan, checked on the later steps of :func:`sinpe.reference.checking.angles.precision_ladder`
    (a half table natively in its own format, a float64 table as float32), as the grid and rotary readings do.
    The first step where it fits names it with that flag and the deviation ``working`` (exit 1); ``--profile
    auto`` still checks the claim and rejects the table. None otherwise (no plan, or it fails there too)."""
    from sinpe.reference.checking import targets
    from sinpe.reference.checking.angles import precision_ladder, stored_dtype
    from sinpe.reference.checking.detect import profile_of
    if list(det.deviations) and next(iter(det.deviations)) != "no_fit":
        return None  # NaN/Inf entries, corrupted rows: no plan to name
    stored = stored_dtype(np.asarray(table.data))
    named = dataclasses.replace(det, deviations={k: v for k, v in det.deviations.items() if k != "no_fit"})
    prof = profile_of(named)
    if prof is None:
        return None
    for fmt, working in precision_ladder(req.dtype or stored, req.tier)[1:]:
        res = targets.check_detected(table, pos, named, d=req.d, dtype=fmt, tier=req.tier, working=working,
                                     detect=False, max_failures=1)
        if res.fits:
            named.profile, named.deviations["working"] = prof.name, working or fmt
            named.profile_flags = prof.cli_flags() + (f" --dtype {fmt}" if fmt != str(np.asarray(table.data).dtype)
                                                      else "") + (" --working native" if working else "")
            sentence = named.sentence.split("; the least bad plan: ")[-1].rstrip(".")
            named.sentence = f"{sentence[0].upper()}{sentence[1:]}; {lowered_words(fmt, working)}"
            return named
    return None


def _one_d_conforms(table: Any, pos: Any, det: Any, req: Request) -> bool:
    """Does the table conform to what the 1-D fit names (the check ``--profile auto`` would run)?"""
    from sinpe.reference.checking import targets
    res = targets.check_detected(table, pos, det, d=req.d, dtype=req.dtype, tier=req.tier, working=req.working,
                                 detect=False, max_failures=1)
    return res.verdict == "conforms"


def _name(found: Found, kind: str) -> Found:
    """Fill in what the reading of ``kind`` names: profile, flags, sentence, the object to check against."""
    from sinpe.reference.checking.jsonout import exact_number, with_exact
    found.kind = kind
    if kind == "1d":
        det = found.detection
        found.profile, found.profile_flags, found.sentence = det.profile, det.profile_flags, det.sentence
        found.exit_code = 0 if not det.deviations else 1
        return found
    if kind == "channels":
        r = found.readings["1d"]["channels"]
        found.profile, found.profile_flags, found.exit_code = None, r["profile_flags"], 0
        found.sentence = (f"A 1-D table no family member fits, read as an explicit channel plan: {r['columns']} "
                          f"columns, {r['frequencies']} frequencies, amplitude {r['amplitude']}.")
        return found
    r = found.readings[kind]
    found.profile = r.get("profile")
    if kind == "grid":
        dim = np.asarray(found.table.data).shape[1]
        found.grid = grid_of(r["profile"], dim, tuple(r["shape"]), r["cls"], **r.get("options", {}))
        found.profile_flags = grid_flags(found.grid, r.get("options", {}))
        found.sentence = (f"A {len(r['shape'])}-D sin-cos grid: preset {r['profile']}, shape "
                          f"{'x'.join(map(str, r['shape']))}, "
                          f"{r['cls']} cls rows" + (f", options {r['options']}" if r.get("options") else "") +
                          (f"; equivalent here: {', '.join(e['profile'] for e in r['equivalent'])}"
                           if r.get("equivalent") else "") + ".")
    else:
        found.rotary = ROTARY_PRESETS[r["profile"]] if r.get("profile") else RotaryProfile(None, **r["params"])
        found.profile_flags = rotary_flags(found.rotary) + "".join(f" {flag(k)} {v}" for k, v in
                                                                   reading_request(r).items())
        if not found.cache_pair and "cache" in r and found.table is not None:  # a table read as one cache
            found.profile_flags = f"--{r['cache']} FILE {found.profile_flags}"
        what = "cos and sin cache pair" if found.cache_pair else f"{r['cache']} cache"
        found.sentence = (f"A rotary {what}: {r['describe']}, head dim {r['dim']}" +
                          (f" (preset {r['profile']})" if r.get("profile") else "") +
                          (f", rows the cells of a {'x'.join(map(str, r['shape']))} grid" if r.get("shape") else "") +
                          (f", rows at positions {r['start']}.. (a cache sliced at an offset)" if r.get("start") else "")
                          + (", at the positions given (several axes)" if r.get("sections") and not r.get("shape")
                             else "") + ".")
    if r.get("dtype") and (found.dtype and r["dtype"] != found.dtype or r.get("lowered") and not r.get("working")):
        found.profile_flags += f" --dtype {r['dtype']}"  # judged narrower than stored (stored_dtype, the ladder)
    if r.get("lowered"):  # fits only as computed in less precision than it claims: a deviation (exit 1)
        found.profile_flags += " --working native" if r.get("working") == "native" else ""
        found.sentence = found.sentence[:-1] + "; " + lowered_words(r["dtype"], r.get("working"))
    if isinstance(r.get("params"), dict):  # REQ-CLI-JSON: numbers, with the exact strings beside them
        r["params"] = dict(r["params"])
        with_exact(r["params"], tuple(k for k, v in r["params"].items()
                                      if isinstance(v, str) and not isinstance(exact_number(v), str)))
    want = found.against if isinstance(found.against, str) and kind_of(found.against, Request()) == kind else None
    found.exit_code = 0 if (want is None or want == found.profile) and not r.get("lowered") else 1
    return found


def reading_request(r: dict[str, Any]) -> dict[str, str]:
    """The request keywords a rotary reading needs besides its profile: the grid ``shape`` of a cache whose rows
    are cells, the ``positions`` of one whose rows start at a position other than 0."""
    out = {}
    if r.get("shape"):
        out["shape"] = "x".join(map(str, r["shape"]))
    if r.get("start"):
        out["positions"] = f"{r['start']}:{r['start'] + r['rows']}"
    return out


def _detect_grid_only(target: Any, req: Request, against: Any) -> Found:
    """``shape=``/``channels_first=``: the table is a grid; only the grid reading is tried."""
    from sinpe.reference.checking.angles import detect_grid
    t = load_grid(target, req.key, req.channels_first)
    shape = None if req.shape is None else grid_shape(req.shape, t.data.shape[0], 0)
    r = detect_grid(np.asarray(t.data), shape=shape, dtype=req.dtype, tier=req.tier)
    no = {"found": False, "reason": "not tried: --shape/--channels-first name a grid"}
    found = Found("grid", None, None, "", {"1d": no, "grid": r, "rotary": dict(no)}, table=t, dtype=t.dtype, against=against)
    if not r["found"]:
        return _none(found, f"{label(target)}: {r['reason']}")
    found = _name(found, "grid")
    if req.channels_first:  # the check that reproduces it reads the file the same way
        found.profile_flags += " --channels-first"
    return found


def _detect_caches(target: Any, req: Request, against: Any) -> Found:
    """``cos=``/``sin=`` (``target``, if given, the cos cache): only the rotary reading is tried."""
    from sinpe.reference.checking.angles import detect_rotary
    cos, sin, pos, dtype = load_caches(req, target)
    r = detect_rotary(cos=cos, sin=sin, positions=pos, dtype=req.dtype, tier=req.tier)
    if r["found"] and cos is not None and sin is None:
        r["cache"] = "cos"
    elif r["found"] and sin is not None and cos is None:
        r["cache"] = "sin"
    no = {"found": False, "reason": "not tried: --cos/--sin name rotary caches"}
    found = Found("rotary", None, None, "", {"1d": no, "grid": dict(no), "rotary": r},
                  cache_pair=cos is not None and sin is not None, arrays={"cos": cos, "sin": sin}, dtype=dtype,
                  against=against)
    if not r["found"]:
        return _none(found, f"rotary cache: {r['reason']} (layouts seen: {', '.join(r['layouts'])})")
    return _name(found, "rotary")


def _none(found: Found, sentence: str) -> Found:
    """A grid or cache that no preset of its kind fits: a finding (exit 1), never a pass."""
    found.sentence, found.exit_code = sentence, 1
    return found
