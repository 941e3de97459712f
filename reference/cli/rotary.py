"""``sinpe rotary check|detect --cos FILE --sin FILE``: RoPE cos/sin caches (SPEC.md REQ-CHECK-ROPE, REQ-DETECT-ROPE).

One cache or both; leading size-1 dimensions are dropped (a (1, 1, n, dim) buffer is (n, dim)).
Rows are positions 0..n-1 unless ``--positions``. Exit status: check 0 conforms, 1 fails,
3 inconclusive; detect 0 found, 1 not; 2 usage or input error.
"""
from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np

from sinpe.reference.checking.loaders import LoadError, input_errors, load_table
from sinpe.spec.formats import FORMATS
from sinpe.spec.rotary import ROTARY_LAYOUTS, ROTARY_PRESETS

from sinpe.reference.cli.args import add_rotary_arguments
from sinpe.spec.tolerance import TIERS

DTYPES = sorted({f.dtype for f in FORMATS.values()})
OVERRIDES = ("layout", "base", "rule", "factor", "original_max", "seq_len", "low_freq_factor", "high_freq_factor",
             "beta_fast", "beta_slow", "attention_factor")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("check", "detect"))
    add_rotary_arguments(parser)
    parser.add_argument("--key", help="array name inside .npz/.safetensors/.pt/.json (both files)")
    parser.add_argument("--positions", help="position of each row (default 0..rows-1)")
    g = parser.add_argument_group("rotary profile (SPEC.md DEF-ROPE)")
    g.add_argument("--profile", choices=list(ROTARY_PRESETS), default="llama", help="preset (default llama)")
    g.add_argument("--layout", choices=ROTARY_LAYOUTS)
    g.add_argument("--base", help="frequency base b (exact decimal)")
    parser.add_argument("--dtype", choices=DTYPES, help="format claimed (default: the file's)")
    parser.add_argument("--tier", choices=TIERS, default="phase", help="tolerance tier (default phase)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON on stdout")


def _load(path: str | None, key: str | None) -> tuple[np.ndarray | None, str | None]:
    if path is None:
        return None, None
    with input_errors("rotary", path):
        t = load_table(path, key=key)
    data = np.asarray(t.data)
    while data.ndim > 2 and data.shape[0] == 1:
        data = data[0]
    if data.ndim == 3 and data.shape[1] == 1:  # gpt-neox's (n, 1, 1, dim) after the first squeeze
        data = data[:, 0]
    if data.ndim != 2:
        raise LoadError(f"{path}: a rotary cache is (positions, dim); got shape {data.shape}")
    return data, t.dtype


def load_caches(args: argparse.Namespace) -> tuple[Any, Any, Any, str]:
    """(cos, sin, positions, dtype) from --cos/--sin/--key/--positions/--dtype."""
    from sinpe.reference.numerics.positions import parse_positions
    if not args.cos and not args.sin:
        raise ValueError("give --cos FILE, --sin FILE or both")
    cos, dt_c = _load(args.cos, args.key)
    sin, dt_s = _load(args.sin, args.key)
    if cos is not None and sin is not None and cos.shape != sin.shape:
        raise ValueError(f"cos {cos.shape} and sin {sin.shape} caches differ in shape")
    t = cos if cos is not None else sin
    positions = parse_positions(args.positions) if args.positions else None
    if positions is not None and len(positions) != t.shape[0]:
        raise ValueError(f"{len(positions)} positions for {t.shape[0]} rows")
    return cos, sin, positions, args.dtype or dt_c or dt_s


def rotary_check(args: argparse.Namespace, cos: Any, sin: Any, positions: Any, dtype: str) -> tuple[Any, Any, int]:
    """(the AngleResult, the RotaryProfile, dim): shared by ``sinpe rotary check`` and ``sinpe check``."""
    from sinpe.reference.checking.angles import check_rotary
    from sinpe.spec.rotary import get_rotary
    t = cos if cos is not None else sin
    rp = get_rotary(args.profile, **{k: getattr(args, k, None) for k in OVERRIDES})
    dim = args.dim or (t.shape[1] * 2 if rp.layout == "single" else t.shape[1])
    return check_rotary(rp, dim, cos=cos, sin=sin, positions=positions, dtype=dtype, tier=args.tier,
                        working=getattr(args, "working", None)), rp, dim


def run(args: argparse.Namespace) -> int:
    from sinpe.reference.checking.angles import detect_rotary

    cos, sin, positions, dtype = load_caches(args)
    if args.action == "detect":
        pos = None if positions is None else [int(p) if p.denominator == 1 else float(p) for p in positions]
        det = detect_rotary(cos=cos, sin=sin, positions=pos, dtype=args.dtype, tier=args.tier)
        print(json.dumps(det, indent=1) if args.json else
              (f"rotary cache: {det['describe']}, dim {det['dim']}" + (f" (preset {det['profile']})" if det["profile"] else "")
               if det["found"] else f"rotary cache: {det['reason']} (layouts seen: {', '.join(det['layouts'])})"))
        return 0 if det["found"] else 1
    r, rp, dim = rotary_check(args, cos, sin, positions, dtype)
    out = r.to_json()
    out["describe"] = rp.describe()
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        print(f"rotary cache: {r.verdict} ({r.tier} tier, {r.dtype}) against {rp.describe()}, dim {dim}")
        for k, p in r.parts.items():
            print(f"  {k}: {p.verdict}, {p.n_failures} failures, max abs error {p.max_abs_error:.3g}")
        for f in r.failures[:5]:
            print(f"  {f['cache']} row {f['row']} (position {f['position']}) column {f['index']} ({f['column']}): "
                  f"{f['value']!r} vs {f['reference']!r} (error {f['abs_error']:.3g} > {f['allowed']:.3g})")
    return r.exit_code
