"""Command-line flags shared by ``sinpe table``, ``check`` and ``detect`` (SPEC.md REQ-CLI-PROFILE, REQ-CHECK-SELECT),
and TARGET loaded with them."""
from __future__ import annotations

import argparse
from typing import Any

from sinpe.spec.formats import DTYPES
from sinpe.spec.profiles import LAYOUTS, ODD_RULES, PRESETS, Profile, get_profile
from sinpe.spec.rotary import ROTARY_LAYOUTS


def add_profile_arguments(parser: argparse.ArgumentParser, default: str | None = "vaswani",
                          extra: tuple[str, ...] = (), extra_help: str = "") -> None:
    """--profile and the parameter flags that override it (``extra``: more --profile names a command takes)."""
    g = parser.add_argument_group("profile (SPEC.md DEF-FAMILY)")
    g.add_argument("--profile", default=default, choices=list(PRESETS) + list(extra),
                   help="preset" + (f" (default {default})" if default else "") + extra_help)
    g.add_argument("--layout", choices=LAYOUTS + ROTARY_LAYOUTS if extra else LAYOUTS,
                   help="column layout" + (" (rotary: halves, pairs, single)" if extra else ""))
    g.add_argument("--shift", help="schedule shift s: D = floor(d/2) - s ('half' for Vaswani's D = d/2)")
    g.add_argument("--base", help="frequency base b (exact decimal, e.g. 10000 or 1e4)")
    g.add_argument("--phase-scale", dest="phase_scale", help="phase scale sigma (argument sigma*p*w)")
    g.add_argument("--amplitude", help="amplitude alpha")
    g.add_argument("--offset", help="position offset added to every position")
    g.add_argument("--odd", choices=ODD_RULES, help="rule for odd d")


def profile_from_args(args: argparse.Namespace) -> Profile:
    """The profile the flags select (ValueError with a clear message on bad values)."""
    return get_profile(args.profile or "vaswani", layout=args.layout, shift=args.shift, base=args.base,
                       phase_scale=args.phase_scale, amplitude=args.amplitude, offset=args.offset,
                       odd=args.odd)


def add_dtype_argument(parser: argparse.ArgumentParser, default: str | None = "float64", help: str | None = None) -> None:
    parser.add_argument("--dtype", default=default, choices=DTYPES,
                        help=help or "IEEE format" + (f" (default {default})" if default else ""))


def add_selection_arguments(parser: argparse.ArgumentParser) -> None:
    """--rows/--skip-rows/--columns (REQ-CHECK-SELECT)."""
    g = parser.add_argument_group("selection (SPEC.md REQ-CHECK-SELECT)")
    g.add_argument("--rows", help="rows to use, by index: a:b, a:b:step, a: or a comma list (a row keeps its "
                   "position: row i is position i unless --positions names the selected rows' positions)")
    g.add_argument("--skip-rows", dest="skip_rows", type=int, help="drop the first N rows (padding rows): --rows N:")
    g.add_argument("--zero-rows", dest="zero_rows", help="rows (by index, same forms) that must be exactly 0, such as "
                   "fairseq's padding row: judged exactly, the others against the profile")
    g.add_argument("--columns", help="columns to use, by index: a:b, a:b:step, a: or a comma list (d defaults "
                   "to their number)")


def add_timeout_argument(parser: argparse.ArgumentParser) -> None:
    from sinpe.reference.checking.isolate import DEFAULT_TIMEOUT
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                        help=f"time limit of a module:callable TARGET, run in a child process (default {DEFAULT_TIMEOUT:g})")


def add_grid_arguments(g: Any) -> None:
    """The grid flags (SPEC.md DEF-GRID) on a parser or argument group: ``sinpe check`` and ``sinpe grid``."""
    g.add_argument("--shape", help="spatial shape HxW, or TxHxW for a 3-D grid (default: square, from the rows)")
    g.add_argument("--cls", type=int, default=0, help="leading zero rows (cls/extra tokens)")
    g.add_argument("--base-size", dest="base_size", help="diffusers base_size (exact decimal)")
    g.add_argument("--interpolation-scale", dest="interpolation_scale", help="diffusers interpolation_scale "
                   "(diffusers-3d: spatial_interpolation_scale)")
    g.add_argument("--temporal-interpolation-scale", dest="temporal_interpolation_scale",
                   help="diffusers-3d temporal_interpolation_scale")
    g.add_argument("--temperature", help="timm/DETR temperature (frequency base)")
    g.add_argument("--reverse-coord", dest="reverse_coord", action="store_true", help="timm reverse_coord")
    g.add_argument("--channels-first", dest="channels_first", action="store_true",
                   help="the file holds (C, H, W) (DETR's output): read as (H*W, C)")


def add_rotary_arguments(g: Any, files: bool = True) -> None:
    """The rotary-cache flags (SPEC.md DEF-ROPE; ``files``: --cos/--sin too) for ``sinpe check`` and ``sinpe
    rotary`` (--profile, --layout and --base are each command's own)."""
    from sinpe.spec.rotary import RULES
    if files:
        g.add_argument("--cos", help="cos cache file")
        g.add_argument("--sin", help="sin cache file")
    g.add_argument("--dim", type=int, help="head dimension (default: the cache width; 2x for layout single)")
    g.add_argument("--rule", choices=RULES, help="frequency rule")
    g.add_argument("--factor", help="scaling factor s")
    g.add_argument("--original-max", dest="original_max", type=int, help="pre-training context L")
    g.add_argument("--seq-len", dest="seq_len", type=int, help="dynamic NTK: the length the cache was built for")
    g.add_argument("--low-freq-factor", dest="low_freq_factor")
    g.add_argument("--high-freq-factor", dest="high_freq_factor")
    g.add_argument("--beta-fast", dest="beta_fast")
    g.add_argument("--beta-slow", dest="beta_slow")
    g.add_argument("--attention-factor", dest="attention_factor", help="A multiplied into both caches")
    g.add_argument("--freqs", help="explicit frequencies w_0..w_{h-1} (rule explicit, DEF-ROPE-FREQ-EXPLICIT): a "
                   "comma list of exact decimals or a .npy file of a 1-D float array (each value taken exactly)")
    g.add_argument("--mrope-section", dest="mrope_section", metavar="N0,N1,...",
                   help="multi-axis rotary (DEF-ROPE-AXES, Qwen2-VL M-RoPE 16,24,24): frequency k reads the position "
                   "axis of the section holding k; positions: --positions FILE.npy of shape (rows, axes)")
    g.add_argument("--max-res", dest="max_res", help="rule pixel (timm, DEF-ROPE-FREQ-PIXEL): max_res (default 224)")
    g.add_argument("--linear-bands", dest="linear_bands", action="store_true",
                   help="rule pixel: timm's linear_bands=True (pi * linspace(1, max_res/2, n)); default log-spaced")
    if files:  # (sinpe check-apply builds its own Request without it)
        g.add_argument("--ext-factors", dest="ext_factors", help="LongRoPE per-band rescale factors f_0..f_{h-1} (rule "
                           "longrope, DEF-ROPE-FREQ-LONGROPE: w_k = b^(-2k/dim) / f_k; the short or the long list): a "
                       "comma list of exact decimals or a .npy file")


def add_channels_argument(parser: argparse.ArgumentParser) -> None:
    """--channels (DEF-CHANNELS-EXPLICIT): a 1-D table's explicit channel plan, for ``sinpe check``."""
    parser.add_argument("--channels", metavar="PLAN", help="explicit channel plan of a 1-D table (DEF-CHANNELS-"
                        "EXPLICIT): per column f:omega, f in sin, cos (omega an exact decimal or a/b) or zero, comma "
                        "separated (sin:1,cos:1,sin:1/8,cos:1/8), or a .json file {\"channels\": [...]} of the same "
                        "items; --amplitude, --offset and --phase-scale apply")


def request(args: argparse.Namespace) -> dict[str, Any]:
    """The keywords of :func:`sinpe.check` / :func:`sinpe.detect` the flags give (each flag's ``dest``)."""
    import dataclasses

    from sinpe.reference.checking.kinds import Request
    return {f.name: getattr(args, f.name) for f in dataclasses.fields(Request) if hasattr(args, f.name)}


def target_words(args: argparse.Namespace) -> str:
    """What a report names as the target: TARGET, and --cos/--sin FILE when given."""
    words = [args.target] if args.target else []
    words += [f"--{k} {getattr(args, k)}" for k in ("cos", "sin") if getattr(args, k, None)]
    return " ".join(words)
