"""Golden vectors (SPEC.md REQ-GOLDEN-SCHEMA, REQ-GOLDEN-MANIFEST, REQ-GOLDEN-ORACLE): schema,
generation, loading with manifest verification, and self-certification.

Layout of ``reference/golden/data/`` (package data):

- ``golden-v1.schema.json``: the JSON schema of the case files (version in the name);
- ``cases/<preset>/d<d>.json``: Wycheproof-style files, one group per dtype, each case with a
  stable content-derived ``id``, the exact position, the column, the correctly rounded value
  (``hex``) and the exact value to 40 significant digits (``decimal``), and ``flags``;
- ``tables/<preset>/d<d>-<dtype>.npy``: full rows at :data:`BULK_POSITIONS` (``tables/positions.json``);
  bfloat16 tables are float32 arrays holding exactly the bfloat16 values;
- ``MANIFEST.json``: SHA-256 and size of every other file; checked whenever a file is loaded.

Every value comes from :mod:`sinpe.reference.oracles.interval` (mpmath intervals + Ziv) and is
cross-checked, at generation, against :mod:`sinpe.reference.oracles.arb` (Arb balls + Ziv);
generation refuses to write anything if the two disagree on a single bit.

>>> ids = {c["id"] for c in iter_cases(profile="vaswani", dtype="float32", d=4)}
>>> len(ids) == len(GOLDEN_POSITIONS) * 4
True
>>> c = next(c for c in iter_cases(profile="vaswani", dtype="float64", d=4) if c["position"] == "1" and c["column"] == 0)
>>> c["value"], c["hex"], c["decimal"]     # sin 1
(0.8414709848078965, '0x1.aed548f090ceep-1', '8.414709848078965066525023216302989996226e-1')
"""
from __future__ import annotations

import hashlib
import io
import json
import math
import os
import random
import time
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from sinpe.spec import VALUES_VERSION
from sinpe.spec.definition import columns
from sinpe.spec.formats import FORMATS, Format, get_format
from sinpe.spec.profiles import PRESETS, Profile, get_profile
from sinpe.spec.schema import validate as _schema_validate

from sinpe.reference.progress import Progress

from sinpe.reference.oracles.interval import DIGITS, Certifier

GOLDEN_DIR = Path(__file__).resolve().parent / "data"
# REQ-GOLDEN-PIN: the SHA-256 of the shipped MANIFEST.json, pinned in code. The manifest pins every
# file; this pins the manifest: editing a value and rehashing the manifest is caught. After a deliberate
# regeneration (`sinpe golden`, which prints the new hash) this line changes in the same commit.
MANIFEST_SHA256 = "7dfbfb564f9fcc8c4548a314cd8dcc1005116cbe67dc0f0eea51ea0f833404d9"
SCHEMA_NAME = "golden-v1.schema.json"
MANIFEST_NAME = "MANIFEST.json"
RELEASE_DATES = {"1.0.0": "2026-11-30", "2.0.0": "2026-12-01", "3.0.0": "2026-12-01", "4.0.0": "2026-12-02"}  # date-released per spec version (CITATION.cff); no other timestamp

WIDTHS = (1, 2, 3, 4, 8, 64, 65, 512, 768, 1024, 4096)
SMALL_D = 8  # up to this width the case files hold every column; above, a stable sample
SAMPLED_COLUMNS = 4  # per position for d > SMALL_D: first, last and 2 seeded
FORMAT_ORDER = ("binary64", "binary32", "binary16", "bfloat16")


def _golden_positions() -> tuple[Fraction, ...]:
    pos = [Fraction(i) for i in range(17)]                       # 0..16
    pos += [Fraction(2 ** i) for i in range(5, 24)]              # powers of two up to 2^23 < 10^7
    pos += [Fraction(10 ** i) for i in range(2, 8)]              # powers of ten up to 10^7
    pos += [Fraction(x) for x in ("0.5", "2.5", "1000.25", "65504.5")]  # dyadic: exact in binary32
    pos += [Fraction(x) for x in ("-1", "-2.5", "-1000", "-10000000")]
    return tuple(pos)


GOLDEN_POSITIONS = _golden_positions()
# Full rows (bulk .npy) at these positions only: every d up to 4096 at 50 positions would be ~32 MB.
BULK_POSITIONS = tuple(Fraction(x) for x in ("0", "1", "2", "3", "7", "16", "100", "1024", "10000", "65536",
                                             "1000000", "10000000", "2.5", "-1"))

# flag -> meaning (REQ-GOLDEN-SCHEMA); thresholds are part of the schema version.
FLAGS = {
    "exact": "the value is exactly representable (theta = 0 or a zero column); no rounding happened",
    "zero-column": "the column is identically zero (odd-d zero-pad rule)",
    "large-phase": "|theta| >= 2^16: float32 phase rounding alone is >= 2^-8 absolute",
    "near-zero": "0 < |PE| < 2^-10: an absolute tolerance dominates a relative one",
    "subnormal": "the rounded value is subnormal in the format",
    "underflow": "the value is nonzero but rounds to zero in the format",
    "overflow": "the value rounds to infinity in the format",
    "near-tie": "the exact value is within 2^-6 ulp of a rounding boundary (faithful != correct rounding)",
    "ziv-escalated": "the certified enclosure needed more than the starting precision",
    "non-integer-position": "the position is not an integer",
    "negative-position": "the position is negative",
}


# --- formatting helpers ---------------------------------------------------------------------------

def position_str(p: Fraction) -> str:
    """The exact decimal of a dyadic position (``'1000.25'``, ``'-10000000'``)."""
    if p.denominator == 1:
        return str(p.numerator)
    den = p.denominator
    if den & (den - 1):
        raise ValueError(f"golden positions must be dyadic; got {p}")
    s = format(Decimal(p.numerator) / Decimal(den), "f")
    return s


def float_hex(x: float) -> str:
    """``float.hex`` without trailing mantissa zeros (``0x1.f38p-1``); parses back with ``float.fromhex``."""
    if not math.isfinite(x):
        return ("-" if x < 0 else "") + "inf" if not math.isnan(x) else "nan"
    h = x.hex()
    if "." in h:
        mant, exp = h.split("p")
        mant = mant.rstrip("0").rstrip(".")
        h = mant + "p" + exp
    return h


def case_id(profile: Profile, d: int, position: str, column: int, dtype: str) -> str:
    """Stable content-derived ID: SHA-256 of the profile parameters, d, position, column, dtype."""
    return _case_id(_params_json(profile), d, position, column, dtype)


def _params_json(profile: Profile) -> str:
    return json.dumps(profile.params(), sort_keys=True, separators=(",", ":"))


def _case_id(params_json: str, d: int, position: str, column: int, dtype: str) -> str:
    """:func:`case_id` with the profile's parameters already serialised (computed once per file):
    the compact, key-sorted JSON of {params, d, position, column, dtype}, as ``json.dumps`` writes it."""
    enc = json.encoder.encode_basestring_ascii  # what json.dumps (ensure_ascii) writes for a str
    key = (f'{{"column":{int(column)},"d":{int(d)},"dtype":{enc(dtype)},'
           f'"params":{params_json},"position":{enc(position)}}}')
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def sampled_columns(profile_name: str, d: int, position: str) -> list[int]:
    """Columns of the case files at one position: all for d <= SMALL_D; else first, last and 2 seeded."""
    if d <= SMALL_D:
        return list(range(d))
    rng = random.Random(hashlib.sha256(f"{profile_name}|{d}|{position}".encode()).digest())
    rest = rng.sample(range(1, d - 1), SAMPLED_COLUMNS - 2)
    return sorted({0, d - 1, *rest})


def _dump(obj: Any, depth: int = 0, expand: int = 4) -> str:
    """Deterministic JSON: sorted keys, containers indented down to ``expand`` levels, compact below."""
    if depth >= expand or not isinstance(obj, (dict, list)) or not obj:
        return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    pad = " " * (depth + 1)
    if isinstance(obj, dict):
        items = [f"{pad}{json.dumps(k)}: {_dump(obj[k], depth + 1, expand)}" for k in sorted(obj)]
        return "{\n" + ",\n".join(items) + "\n" + " " * depth + "}"
    items = [f"{pad}{_dump(v, depth + 1, expand)}" for v in obj]
    return "[\n" + ",\n".join(items) + "\n" + " " * depth + "]"


def _npy_bytes(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=False)
    return buf.getvalue()


def _np_dtype(fmt: Format) -> type:
    return np.dtype(fmt.storage).type


def versions() -> dict[str, str]:
    import flint
    import gmpy2
    import mpmath
    return {"mpmath": mpmath.__version__, "gmpy2": gmpy2.version(), "python-flint": flint.__version__,
            "flint": getattr(flint, "__FLINT_VERSION__", "?"), "numpy": np.__version__}


def provenance() -> dict[str, Any]:
    v = versions()
    return {
        "specVersion": VALUES_VERSION,
        "dateReleased": RELEASE_DATES.get(VALUES_VERSION, "unreleased"),
        "generator": "sinpe golden (sinpe.reference.golden.generate)",
        "primary": {"method": "mpmath libmpi interval arithmetic on spec/definition.py, midpoint-radius "
                              "sin/cos, both ends rounded to nearest-even, precision doubled until they agree (Ziv)",
                    "library": f"mpmath {v['mpmath']} (gmpy2 {v['gmpy2']})"},
        "oracle": {"method": "Arb ball arithmetic on spec/definition.py, Ziv (sinpe.reference.oracles.arb)",
                   "library": f"python-flint {v['python-flint']} (FLINT {v['flint']})"},
        "crossChecked": "every value, every format, and every 40-digit decimal; zero disagreements",
    }


# --- the schema ---------------------------------------------------------------------------------------

def schema() -> dict[str, Any]:
    """The JSON schema (draft 2020-12 subset) of a case file; written as ``golden-v1.schema.json``."""
    case = {
        "type": "object",
        "required": ["id", "position", "column", "label", "hex", "decimal", "flags"],
        "additionalProperties": False,
        "properties": {
            "id": {"type": "string", "pattern": "^[0-9a-f]{16}$"},
            "position": {"type": "string", "pattern": "^-?[0-9]+(\\.[0-9]+)?$"},
            "column": {"type": "integer", "minimum": 0},
            "label": {"type": "string", "pattern": "^(sin[0-9]+|cos[0-9]+|zero)$"},
            "hex": {"type": "string", "pattern": "^-?(0x[01](\\.[0-9a-f]+)?p[-+][0-9]+|inf)$"},
            "decimal": {"type": "string", "pattern": "^(0|-?[1-9]\\.[0-9]{%d,}e-?[0-9]+)$" % (DIGITS - 1)},
            "flags": {"type": "array", "items": {"type": "string", "enum": sorted(FLAGS)}},
        },
    }
    group = {
        "type": "object",
        "required": ["profile", "params", "d", "dtype", "format", "provenance", "tests"],
        "additionalProperties": False,
        "properties": {
            "profile": {"type": "string", "enum": list(PRESETS)},
            "params": {"type": "object", "required": ["layout", "shift", "base", "phase_scale", "amplitude",
                                                       "offset", "odd"]},
            "d": {"type": "integer", "minimum": 1},
            "dtype": {"type": "string", "enum": [f.dtype for f in FORMATS.values()]},
            "format": {"type": "string", "enum": list(FORMATS)},
            "provenance": {"type": "object", "required": ["primary", "oracle", "crossChecked"]},
            "tests": {"type": "array", "items": case, "minItems": 1},
        },
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"sinpe/golden/{SCHEMA_NAME}",
        "title": "sinpe golden vectors, schema version 1 (SPEC.md REQ-GOLDEN-SCHEMA)",
        "type": "object",
        "required": ["schema", "algorithm", "specVersion", "dateReleased", "numberOfTests", "flags",
                     "provenance", "testGroups"],
        "additionalProperties": False,
        "properties": {
            "schema": {"type": "string", "const": SCHEMA_NAME},
            "algorithm": {"type": "string"},
            "specVersion": {"type": "string"},
            "dateReleased": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
            "numberOfTests": {"type": "integer", "minimum": 1},
            "flags": {"type": "object"},
            "notes": {"type": "string"},
            "provenance": {"type": "object", "required": ["primary", "oracle", "crossChecked"]},
            "testGroups": {"type": "array", "items": group, "minItems": 1},
        },
    }


validate = _schema_validate  # the one validator of sinpe's JSON data (spec/schema.py)


# --- progress ---------------------------------------------------------------------------------------------

# --- generation -----------------------------------------------------------------------------------------

@dataclass
class GenReport:
    files: dict[str, bytes] = field(default_factory=dict)  # relative path -> content
    cases: int = 0
    table_values: int = 0  # entries in the bulk tables (all formats)
    case_values: int = 0
    oracle_checked: int = 0
    disagreements: list[str] = field(default_factory=list)
    flag_counts: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    stats: dict[str, int] = field(default_factory=dict)


def _flags(fmt: Format, col_kind: str, pair: Any, fi: int, p: Fraction, g: float) -> list[str]:
    fl = []
    if p.denominator != 1:
        fl.append("non-integer-position")
    if p < 0:
        fl.append("negative-position")
    if col_kind == "zero":
        return sorted(fl + ["exact", "zero-column"])
    lo, hi = pair.enc[col_kind]
    if lo == hi:
        fl.append("exact")
    if pair.escalated:
        fl.append("ziv-escalated")
    if abs(pair.theta) >= 2.0 ** 16:
        fl.append("large-phase")
    # x = lo = xn 2^xe exactly; the tests below are exact integer comparisons of dyadics
    sign, man, xe, _ = lo
    xn = -int(man) if sign else int(man)
    if xn and xe < -10 and abs(xn) < 1 << (-10 - xe):  # 0 < |x| < 2^-10
        fl.append("near-zero")
    if math.isinf(g):
        fl.append("overflow")
    elif g == 0 and xn:
        fl.append("underflow")
    elif g != 0 and abs(g) < 2.0 ** fmt.emin:
        fl.append("subnormal")
    if math.isfinite(g) and lo != hi:
        from sinpe.reference.numerics.rounding import ulp
        ue = math.frexp(ulp(g, fmt))[1] - 1  # ulp = 2^ue
        at_pow2 = g != 0 and math.frexp(abs(g))[0] == 0.5 and abs(g) > 2.0 ** fmt.emin
        de = ue - 1 if at_pow2 else ue  # the gap below |g|
        h1, h2 = (ue - 1, de - 1) if g >= 0 else (de - 1, ue - 1)  # half gaps above and below g
        gm, ge = math.frexp(g)
        gn, ge = int(math.ldexp(gm, 53)), ge - 53
        e0 = min(xe, ge, h1, h2, ue - 6)
        X, G = xn << (xe - e0), gn << (ge - e0)
        dist = min(abs(X - G - (1 << (h1 - e0))), abs(X - G + (1 << (h2 - e0))))
        if dist < 1 << (ue - 6 - e0):  # within ulp/64 of a rounding boundary
            fl.append("near-tie")
    return sorted(fl)


def _frac(t: tuple) -> Fraction:
    sign, man, exp, _ = t
    v = Fraction(int(man)) * (Fraction(2) ** exp)
    return -v if sign else v


def _oracle_decimal_ok(profile: Profile, d: int, p: Fraction, j: int, dec: str) -> bool:
    """Does the Arb ball of PE(p)[j] lie within half a unit of the last digit of ``dec``?"""
    from sinpe.reference.oracles import arb as of
    if dec == "0":
        ball = of.enclose(profile, d, p, j, prec=128)
        return ball.is_zero() if hasattr(ball, "is_zero") else (ball.mid() == 0 and ball.rad() == 0)
    mant, ex = dec.split("e")
    E = int(ex)
    digits = mant.lstrip("-").replace(".", "")
    if len(digits) == DIGITS:
        return _decimal_ok_int(profile, d, p, j, -int(digits) if mant.startswith("-") else int(digits),
                               E - DIGITS + 1)
    target = Fraction(Decimal(mant)) * Fraction(10) ** E
    half = Fraction(1, 2) * Fraction(10) ** (E - DIGITS + 1)
    prec = 200 + int(abs(p)).bit_length()
    for _ in range(3):
        ball = of.enclose(profile, d, p, j, prec=prec)
        mid = Fraction(*_man_exp_frac(ball.mid()))
        rad = Fraction(*_man_exp_frac(ball.rad()))
        if target - half < mid - rad and mid + rad < target + half:
            return True
        prec *= 2
    return False


def _decimal_ok_int(profile: Profile, d: int, p: Fraction, j: int, N: int, s: int) -> bool:
    """:func:`_oracle_decimal_ok` for the decimal N 10^s in integers: is the Arb ball
    [mid - rad, mid + rad] strictly inside ((N - 1/2) 10^s, (N + 1/2) 10^s)?"""
    from sinpe.reference.oracles import arb as of
    prec = 200 + int(abs(p)).bit_length()
    for _ in range(3):
        ball = of.enclose(profile, d, p, j, prec=prec)
        mm, me = (int(x) for x in ball.mid().man_exp())
        rm, re_ = (int(x) for x in ball.rad().man_exp())
        e0 = min(me, re_)
        M, R = mm << (me - e0), rm << (re_ - e0)  # mid = M 2^e0, rad = R 2^e0
        # A 10^s < B 2^e0  <=>  A 10^max(s,0) 2^max(-e0,0) < B 10^max(-s,0) 2^max(e0,0)
        ls, rs = 10 ** max(s, 0) << max(-e0, 0), 10 ** max(-s, 0) << max(e0, 0)
        if (2 * N - 1) * ls < 2 * (M - R) * rs and 2 * (M + R) * rs < (2 * N + 1) * ls:
            return True
        prec *= 2
    return False


def _man_exp_frac(x: Any) -> tuple[int, int]:
    man, exp = x.man_exp()
    man, exp = int(man), int(exp)
    return (man << exp, 1) if exp >= 0 else (man, 1 << -exp)


class _Timer(dict):
    """Seconds spent per oracle ("primary", "oracle"), accumulated with ``with timer("primary"):``."""

    def __call__(self, key: str) -> "_Timer":
        self._key, self._t0 = key, time.perf_counter()
        return self

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        self[self._key] = self.get(self._key, 0.0) + time.perf_counter() - self._t0


def generate(presets: Sequence[str] | None = None, widths: Sequence[int] | None = None,
             tables: bool = True, cases: bool = True, progress: bool | None = None) -> GenReport:
    """Compute the golden files (in memory) for the given presets and widths; cross-check every value.

    Returns a :class:`GenReport` whose ``files`` map relative paths to bytes. The schema and the
    manifest are included only for the full set (no ``presets``/``widths`` restriction).
    Raises ``ArithmeticError`` if the second oracle disagrees with the primary on any value.
    """
    full = presets is None and widths is None and tables and cases
    presets = list(PRESETS) if presets is None else list(presets)
    widths = list(WIDTHS) if widths is None else list(widths)
    formats = tuple(get_format(n) for n in FORMAT_ORDER)
    cert, rep, prov, timer = Certifier(formats), GenReport(), provenance(), _Timer(primary=0.0, oracle=0.0)
    bar = Progress(len(presets) * len(widths), "sinpe golden", progress)
    for name in presets:
        prof = get_profile(name)
        for d in widths:
            if tables:
                _bulk_tables(cert, prof, d, formats, rep, timer)
            if cases:
                doc = _case_file(cert, prof, d, formats, prov, rep, timer)
                rep.cases += doc["numberOfTests"]
                rep.files[f"cases/{name}/d{d}.json"] = (_dump(doc) + "\n").encode()
            bar()
    bar.close()
    if tables:
        rep.files["tables/positions.json"] = (_dump({
            "positions": [position_str(p) for p in BULK_POSITIONS],
            "note": "rows of every tables/*.npy file, in this order; bfloat16 tables are float32 arrays "
                    "holding exactly the bfloat16 values"}) + "\n").encode()
    if full:
        from . import angles_vectors  # grids and rotary caches: the same set, the same manifest
        rep.files[angles_vectors.REL] = angles_vectors.generate()
        rep.files[SCHEMA_NAME] = (_dump(schema(), expand=99) + "\n").encode()
        rep.files[MANIFEST_NAME] = manifest_bytes(rep.files, prov)
    rep.seconds = dict(timer)
    rep.stats = cert.stats.to_json()
    if rep.disagreements:
        raise ArithmeticError(f"{len(rep.disagreements)} disagreement(s) between mpmath and Arb; first: "
                              f"{rep.disagreements[0]}")
    return rep


def _bulk_tables(cert: Certifier, prof: Profile, d: int, formats: Sequence[Format], rep: GenReport, timer: _Timer) -> None:
    """``tables/<preset>/d<d>-<dtype>.npy``: full rows at BULK_POSITIONS, every value checked against Arb."""
    from sinpe.reference.oracles import arb as of
    name = prof.name
    with timer("primary"):
        T = cert.tables(prof, d, BULK_POSITIONS)
    with timer("oracle"):
        O = of.rounded_tables(prof, d, BULK_POSITIONS, formats)
    for f in formats:
        a, b = T[f.name], O[f.name]
        for r, j in np.argwhere(a.view(np.int64) != b.view(np.int64))[:5]:
            rep.disagreements.append(f"{name} d={d} position={position_str(BULK_POSITIONS[r])} "
                                     f"column={j} {f.name}: mpmath {a[r, j]!r} vs Arb {b[r, j]!r}")
        rep.oracle_checked += a.size
        arr = a.astype(_np_dtype(f))
        if not np.array_equal(arr.astype(np.float64), a):
            raise AssertionError(f"{f.name} value not exact in its storage dtype")
        rep.files[f"tables/{name}/d{d}-{f.dtype}.npy"] = _npy_bytes(arr)
        rep.table_values += a.size


def _case_rows(cert: Certifier, prof: Profile, d: int, formats: Sequence[Format], cols_at: dict[Fraction, list[int]],
               timer: _Timer) -> dict[Fraction, tuple[dict, dict, int]]:
    """Per golden position: (primary tables, Arb tables, row). Positions that share their sampled columns
    (all of them for d <= SMALL_D) are computed as one table by both oracles."""
    from sinpe.reference.oracles import arb as of
    by_cols: dict[tuple[int, ...], list[Fraction]] = {}
    for p in GOLDEN_POSITIONS:
        by_cols.setdefault(tuple(cols_at[p]), []).append(p)
    rows: dict[Fraction, tuple[dict, dict, int]] = {}
    for js_t, ps_list in by_cols.items():
        with timer("primary"):
            T = cert.tables(prof, d, ps_list, cols=list(js_t))
        with timer("oracle"):
            O = of.rounded_tables(prof, d, ps_list, formats, only=list(js_t))
        for r, p in enumerate(ps_list):
            rows[p] = (T, O, r)
    return rows


def _case_file(cert: Certifier, prof: Profile, d: int, formats: Sequence[Format], prov: dict[str, Any],
               rep: GenReport, timer: _Timer) -> dict[str, Any]:
    """``cases/<preset>/d<d>.json``: one group per format, each case cross-checked (value and decimal) by Arb."""
    name, plan, pjson = prof.name, columns(prof, d), _params_json(prof)
    groups: dict[str, list[dict[str, Any]]] = {f.name: [] for f in formats}
    cols_at = {p: sampled_columns(name, d, position_str(p)) for p in GOLDEN_POSITIONS}
    rows = _case_rows(cert, prof, d, formats, cols_at, timer)
    for p in GOLDEN_POSITIONS:
        ps, js = position_str(p), cols_at[p]
        T, O, r = rows[p]
        with timer("primary"):
            decs = [cert.decimal(prof, d, p, j) for j in js]
        with timer("oracle"):
            rep.disagreements += [f"{name} d={d} position={ps} column={j}: decimal {dec} not confirmed by Arb"
                                  for j, dec in zip(js, decs) if not _oracle_decimal_ok(prof, d, p, j, dec)]
        pairs = [None if plan[j].kind == "zero" else cert.pair(prof, d, plan[j].k, p) for j in js]
        for fi, f in enumerate(formats):
            a, b = T[f.name][r], O[f.name][r]
            for i, j in enumerate(js):
                if a[i].view(np.int64) != b[i].view(np.int64):
                    rep.disagreements.append(f"{name} d={d} position={ps} column={j} {f.name}: "
                                             f"mpmath {a[i]!r} vs Arb {b[i]!r}")
                g = float(a[i])
                fl = _flags(f, plan[j].kind, pairs[i], fi, p, g)
                for x in fl:
                    rep.flag_counts[x] = rep.flag_counts.get(x, 0) + 1
                groups[f.name].append({"id": _case_id(pjson, d, ps, j, f.dtype), "position": ps, "column": j,
                                       "label": plan[j].label, "hex": float_hex(g), "decimal": decs[i], "flags": fl})
            rep.oracle_checked += len(js)
            rep.case_values += len(js)
    return {
        "schema": SCHEMA_NAME,
        "algorithm": "sinusoidal positional encoding (SPEC.md DEF-PE, DEF-FAMILY)",
        "specVersion": VALUES_VERSION,
        "dateReleased": prov["dateReleased"],
        "numberOfTests": sum(len(v) for v in groups.values()),
        "flags": FLAGS,
        "notes": (f"{prof.describe()}; d={d}; positions: 0..16, 2^5..2^23, 10^2..10^7, dyadic "
                  f"non-integers and negatives; columns: "
                  + ("all" if d <= SMALL_D else "first, last and 2 seeded per position")
                  + "; hex = correctly rounded value, decimal = exact value to 40 significant digits"),
        "provenance": prov,
        "testGroups": [{"profile": name, "params": prof.params(), "d": d, "dtype": f.dtype,
                        "format": f.name, "provenance": prov, "tests": groups[f.name]} for f in formats],
    }


def manifest_bytes(files: dict[str, bytes], prov: dict[str, Any]) -> bytes:
    entries = {path: {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
               for path, data in sorted(files.items()) if path != MANIFEST_NAME}
    tables = []
    for path in sorted(entries):
        if path.startswith("tables/") and path.endswith(".npy"):
            _, name, fn = path.split("/")
            d, dtype = fn[1:-4].split("-", 1)
            tables.append({"path": path, "profile": name, "d": int(d), "dtype": dtype,
                           "format": get_format(dtype).name, "rows": "tables/positions.json"})
    doc = {"specVersion": VALUES_VERSION, "dateReleased": prov["dateReleased"], "schema": SCHEMA_NAME,
           "provenance": prov, "files": entries, "tables": tables,
           "totalBytes": sum(e["bytes"] for e in entries.values())}
    return (_dump(doc, expand=3) + "\n").encode()


def write(files: dict[str, bytes], out: Path) -> None:
    for rel, data in sorted(files.items()):
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


# --- loading (manifest checked on every load) ---------------------------------------------------------------

class GoldenIntegrityError(Exception):
    """A golden file is missing, unlisted or does not match its SHA-256 in MANIFEST.json."""


_MANIFEST_CACHE: dict[Path, dict[str, Any]] = {}


def manifest(root: Path | None = None) -> dict[str, Any]:
    """MANIFEST.json of ``root`` (default: the shipped golden set), after checking its own SHA-256
    against :data:`MANIFEST_SHA256` (REQ-GOLDEN-PIN)."""
    root = Path(root or GOLDEN_DIR)
    if root not in _MANIFEST_CACHE:
        path = root / MANIFEST_NAME
        if not path.exists():
            raise GoldenIntegrityError(f"{path} is missing; run: sinpe golden")
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if digest != MANIFEST_SHA256:
            raise GoldenIntegrityError(f"{path}: SHA-256 {digest} != the hash pinned in sinpe "
                                       f"(sinpe.reference.golden.vectors.MANIFEST_SHA256 {MANIFEST_SHA256[:16]}...); "
                                       f"the golden set was edited")
        _MANIFEST_CACHE[root] = json.loads(data)
    return _MANIFEST_CACHE[root]


def read_verified(rel: str, root: Path | None = None) -> bytes:
    """The bytes of golden file ``rel`` after checking them against the manifest's SHA-256."""
    root = Path(root or GOLDEN_DIR)
    entry = manifest(root)["files"].get(rel)
    if entry is None:
        raise GoldenIntegrityError(f"{rel} is not listed in {root / MANIFEST_NAME}")
    data = (root / rel).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != entry["sha256"]:
        raise GoldenIntegrityError(f"{root / rel}: SHA-256 {digest} != manifest {entry['sha256']}; "
                                   f"regenerate with: sinpe golden")
    return data


def load_case_file(preset: str, d: int, root: Path | None = None) -> dict[str, Any]:
    return json.loads(read_verified(f"cases/{preset}/d{d}.json", root))


def load_table(preset: str, d: int, dtype: str, root: Path | None = None) -> tuple[list[Fraction], np.ndarray]:
    """(positions, table) of a bulk table; bfloat16 comes as float32 holding the bfloat16 values."""
    f = get_format(dtype)
    data = read_verified(f"tables/{preset}/d{d}-{f.dtype}.npy", root)
    arr = np.load(io.BytesIO(data), allow_pickle=False)
    pos = json.loads(read_verified("tables/positions.json", root))["positions"]
    return [Fraction(p) for p in pos], arr


def iter_cases(profile: str | None = None, dtype: str | None = None, d: int | None = None,
               root: Path | None = None) -> Iterator[dict[str, Any]]:
    """Every golden case (optionally filtered), as a flat dict.

    Keys: ``id``, ``profile``, ``params``, ``d``, ``dtype``, ``format``, ``position`` (exact decimal
    string), ``position_float``, ``column``, ``label``, ``value`` (float, the correctly rounded
    value), ``hex``, ``decimal`` (exact value, 40 digits), ``flags``, ``file``, ``repro`` (a
    ``sinpe table`` command that recomputes the value).
    """
    want_fmt = None if dtype is None else get_format(dtype).name
    for name in (PRESETS if profile is None else [profile]):
        if name not in PRESETS:
            raise ValueError(f"unknown profile {name!r}; presets: {', '.join(PRESETS)}")
        for w in (WIDTHS if d is None else [d]):
            if w not in WIDTHS:
                raise ValueError(f"no golden cases for d={w}; widths: {', '.join(map(str, WIDTHS))}")
            doc = load_case_file(name, w, root)
            for g in doc["testGroups"]:
                if want_fmt is not None and g["format"] != want_fmt:
                    continue
                for c in g["tests"]:
                    v = float.fromhex(c["hex"]) if c["hex"] not in ("inf", "-inf") else float(c["hex"])
                    yield {"id": c["id"], "profile": name, "params": g["params"], "d": w, "dtype": g["dtype"],
                           "format": g["format"], "position": c["position"],
                           "position_float": float(Fraction(c["position"])), "column": c["column"],
                           "label": c["label"], "value": v, "hex": c["hex"], "decimal": c["decimal"],
                           "flags": c["flags"], "file": f"cases/{name}/d{w}.json",
                           "repro": f"sinpe table --profile {name} --d {w} --positions {c['position']} "
                                    f"--dtype {g['dtype']} --out t.npy  # column {c['column']}"}


# --- self-certification (sinpe verify) -----------------------------------------------------------------------

@dataclass
class Check:
    name: str
    ok: bool
    detail: str


@dataclass
class SelfCertReport:
    seed: int
    sample: int
    checks: list[Check] = field(default_factory=list)
    full: bool = False

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c.ok for c in self.checks)

    def to_json(self) -> dict[str, Any]:
        passed = sum(c.ok for c in self.checks)
        return {"ok": self.ok, "seed": self.seed, "sample": self.sample, "full": self.full,
                "summary": f"{passed}/{len(self.checks)} checks hold: pinned manifest, file hashes, table index, "
                           f"schema, {'every file re-derived, ' if self.full else ''}second oracle on "
                           f"{self.sample} sampled values (seed {self.seed})",
                "reproduce": f"sinpe verify --only golden --sample {self.sample} --seed {self.seed}"
                             + ("" if self.full else " --quick"),
                "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in self.checks]}

    def render(self) -> str:
        lines = [f"golden self-certification (REQ-GOLDEN-MANIFEST, REQ-GOLDEN-PIN, REQ-GOLDEN-ORACLE), "
                 f"sample={self.sample} seed={self.seed}: {'OK' if self.ok else 'FAILED'}"]
        for c in self.checks:
            lines.append(f"  [{'ok' if c.ok else 'FAIL'}] {c.name}: {c.detail}")
        return "\n".join(lines)


def check_case(profile: str, d: int, group: dict[str, Any], case: dict[str, Any]) -> str | None:
    """Re-derive one case through the second oracle (Arb): None if its hex value and its decimal
    both hold, else a one-line description with the command that reproduces the value."""
    from sinpe.reference.oracles import arb as of
    prof = get_profile(profile)
    p = Fraction(case["position"])
    fmt = group["format"]
    ref = of.rounded_tables(prof, d, [p], [fmt], only=[case["column"]])[fmt][0, 0]
    got = float.fromhex(case["hex"]) if "inf" not in case["hex"] else float(case["hex"])
    same = ref == got and math.copysign(1, ref) == math.copysign(1, got)
    if same and _oracle_decimal_ok(prof, d, p, case["column"], case["decimal"]):
        return None
    return (f"case {case['id']} ({profile} d={d} position={case['position']} column={case['column']} "
            f"{group['dtype']}): golden {case['hex']} / {case['decimal']}, Arb {float_hex(ref)}; reproduce: "
            f"sinpe table --profile {profile} --d {d} --positions {case['position']} --dtype {group['dtype']} "
            f"--out t.npy --cross-check")


def fresh_seed() -> int:
    """A seed nobody chose in advance (printed in every report, so the sample can be rerun)."""
    import secrets
    return secrets.randbits(31)


def self_certify(sample: int = 200, seed: int | None = None, root: Path | None = None, full: bool = False,
                 regenerated: dict[str, bytes] | None = None) -> SelfCertReport:
    """Check the golden set in ``root`` (default: the shipped one): the manifest's own hash against the
    pin (REQ-GOLDEN-PIN), every file against the manifest, the table index against the files, the
    schema; with ``full`` every file is re-derived (:func:`generate`, which cross-checks every value with
    Arb) and compared byte for byte; then ``sample`` random case values and table entries are re-derived
    through the second oracle (Arb), with ``seed`` (default: a fresh one, reported)."""
    from sinpe.reference.oracles import arb as of
    root = Path(root or GOLDEN_DIR)
    _MANIFEST_CACHE.pop(root, None)  # read afresh: a file changed since the last load is seen
    seed = fresh_seed() if seed is None else int(seed)
    rep = SelfCertReport(seed=seed, sample=sample, full=full or regenerated is not None)
    # 0. the manifest's own hash against the pin in the code
    try:
        man_bytes = (root / MANIFEST_NAME).read_bytes()
    except OSError as e:
        rep.checks.append(Check("pinned manifest", False, str(e)))
        return rep
    digest = hashlib.sha256(man_bytes).hexdigest()
    rep.checks.append(Check("pinned manifest", digest == MANIFEST_SHA256,
                            f"SHA-256 {digest[:16]}..." + ("" if digest == MANIFEST_SHA256 else
                                                            f" != pinned {MANIFEST_SHA256[:16]}...: the golden set was edited")))
    # 1. every listed file matches; no unlisted file (checked even when the pin fails: say what changed)
    try:
        man = json.loads(man_bytes)
        bad = []
        for rel in man["files"]:
            data = (root / rel).read_bytes() if (root / rel).is_file() else None
            if data is None or hashlib.sha256(data).hexdigest() != man["files"][rel]["sha256"]:
                bad.append(f"{rel}: " + ("missing" if data is None else "SHA-256 differs from the manifest"))
        present = {str(p.relative_to(root)).replace(os.sep, "/") for p in root.rglob("*") if p.is_file()}
        unlisted = sorted(present - set(man["files"]) - {MANIFEST_NAME} - {x for x in present if "__pycache__" in x})
        rep.checks.append(Check("manifest SHA-256", not bad and not unlisted,
                                f"{len(man['files'])} files, {man.get('totalBytes', 0)} bytes"
                                + (f"; {len(bad)} bad, first: {bad[0]}" if bad else "")
                                + (f"; unlisted: {unlisted[:3]}" if unlisted else "")))
        rep.checks.append(_index_check(man))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        rep.checks.append(Check("manifest SHA-256", False, f"unreadable manifest: {type(e).__name__}: {e}"))
        return rep
    if not rep.ok:
        return rep
    # 2. schema
    sch = json.loads(read_verified(SCHEMA_NAME, root))
    errs: list[str] = []
    n_cases = 0
    all_cases: list[tuple[str, int, dict, dict]] = []
    for name in PRESETS:
        for w in WIDTHS:
            doc = load_case_file(name, w, root)
            e = validate(doc, sch, f"cases/{name}/d{w}.json")
            errs += e[:3]
            for g in doc["testGroups"]:
                for c in g["tests"]:
                    all_cases.append((name, w, g, c))
            n_cases += doc["numberOfTests"]
    rep.checks.append(Check(f"schema {SCHEMA_NAME}", not errs,
                            f"{n_cases} cases in {len(PRESETS) * len(WIDTHS)} files" + (f"; {errs[0]}" if errs else "")))
    # 3. every file re-derived (primary path, every value cross-checked by Arb) and compared byte for byte
    if rep.full:
        files = regenerated if regenerated is not None else generate(progress=False).files
        differ = [rel for rel, data in sorted(files.items()) if not (root / rel).is_file() or (root / rel).read_bytes() != data]
        rep.checks.append(Check("every file re-derived", not differ,
                                f"{len(files)} files regenerated" + (f"; {len(differ)} differ, first: {differ[0]}" if differ else "")))
    # 4. second oracle on a random sample of cases and bulk entries
    rng = random.Random(seed)
    picked = rng.sample(all_cases, min(sample, len(all_cases)))
    wrong = [w for w in (check_case(name, w, g, c) for name, w, g, c in picked) if w]
    rep.checks.append(Check("second oracle (Arb) on sampled cases", not wrong,
                            f"{len(picked)} cases re-derived" + (f"; {len(wrong)} wrong, first: {wrong[0]}" if wrong else "")))
    wrong = []
    for t in rng.sample(man["tables"], min(sample, len(man["tables"]))):
        pos, arr = load_table(t["profile"], t["d"], t["dtype"], root)
        r, j = rng.randrange(arr.shape[0]), rng.randrange(arr.shape[1])
        prof = get_profile(t["profile"])
        ref = of.rounded_tables(prof, t["d"], [pos[r]], [t["format"]], only=[j])[t["format"]][0, 0]
        if float(arr[r, j]) != ref:
            wrong.append(f"{t['path']}[{r}, {j}] = {float(arr[r, j])!r}, Arb {ref!r}")
    rep.checks.append(Check("second oracle (Arb) on sampled table entries", not wrong,
                            f"{min(sample, len(man['tables']))} entries re-derived" + (f"; first wrong: {wrong[0]}" if wrong else "")))
    return rep


def _index_check(man: dict[str, Any]) -> Check:
    """The manifest's table index names every table file once, and only table files (a dropped entry
    would shrink what the sample re-derives)."""
    files = sorted(r for r in man["files"] if r.startswith("tables/") and r.endswith(".npy"))
    index = [t.get("path") for t in man["tables"]]
    expected = len(PRESETS) * len(WIDTHS) * len(FORMAT_ORDER)
    ok = sorted(index) == files and len(set(index)) == len(index) and len(files) == expected
    return Check("table index", ok, f"{len(index)} entries, {len(files)} table files, {expected} expected"
                 + ("" if ok else f"; missing from the index: {sorted(set(files) - set(index))[:3]}"))
