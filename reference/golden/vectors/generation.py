"""Generating the golden files (``sinpe golden``, SPEC.md REQ-GOLDEN-ORACLE): every value from the interval oracle,
cross-checked against Arb; nothing is written if the two disagree on a single bit."""
from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from sinpe.reference.oracles.interval import Certifier
from sinpe.reference.progress import Progress
from sinpe.spec import VALUES_VERSION
from sinpe.spec.definition import columns
from sinpe.spec.formats import Format, get_format
from sinpe.spec.profiles import PRESETS, Profile, get_profile

from .. import angles_vectors
from ..manifest import MANIFEST_NAME
from .casefile import provenance, schema
from .contents import BULK_POSITIONS, FLAGS, FORMAT_ORDER, GOLDEN_POSITIONS, SCHEMA_NAME, SMALL_D, WIDTHS
from .encoding import case_id_of, dump, float_hex, npy_bytes, params_json, position_str, sampled_columns, storage_type
from .second_oracle import decimal_confirmed


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


class _Timer(dict):
    """Seconds spent per oracle ("primary", "oracle"), accumulated with ``with timer("primary"):``."""

    def __call__(self, key: str) -> _Timer:
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
    angle_cases = angles_vectors.read_cases() if full else None  # a bad inputs file: refused before the work
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
                rep.files[f"cases/{name}/d{d}.json"] = (dump(doc) + "\n").encode()
            bar()
    bar.close()
    if tables:
        rep.files["tables/positions.json"] = (dump({
            "positions": [position_str(p) for p in BULK_POSITIONS],
            "note": "rows of every tables/*.npy file, in this order; bfloat16 tables are float32 arrays "
                    "holding exactly the bfloat16 values"}) + "\n").encode()
    if full:
        # grids and rotary caches: the same set, the same manifest
        rep.files[angles_vectors.REL] = angles_vectors.generate(angle_cases)
        rep.files[SCHEMA_NAME] = (dump(schema(), expand=99) + "\n").encode()
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
        arr = a.astype(storage_type(f))
        if not np.array_equal(arr.astype(np.float64), a):
            raise AssertionError(f"{f.name} value not exact in its storage dtype")
        rep.files[f"tables/{name}/d{d}-{f.dtype}.npy"] = npy_bytes(arr)
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
    if prof.name is None:
        raise ValueError("golden case files are made for presets only")
    name, plan, pjson = prof.name, columns(prof, d), params_json(prof)
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
                                  for j, dec in zip(js, decs, strict=True) if not decimal_confirmed(prof, d, p, j, dec)]
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
                groups[f.name].append({"id": case_id_of(pjson, d, ps, j, f.dtype), "position": ps, "column": j,
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
    entries: dict[str, dict[str, Any]] = {path: {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
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
    return (dump(doc, expand=3) + "\n").encode()


def write(files: dict[str, bytes], out: Path) -> None:
    for rel, data in sorted(files.items()):
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
