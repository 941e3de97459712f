"""Command-line flags shared by ``sinpe table``, ``check`` and ``detect`` (SPEC.md REQ-CLI-PROFILE)."""
from __future__ import annotations

import argparse

from sinpe.spec.formats import DTYPES
from sinpe.spec.profiles import LAYOUTS, ODD_RULES, PRESETS, Profile, get_profile
from sinpe.spec.rotary import ROTARY_LAYOUTS


def add_profile_arguments(parser: argparse.ArgumentParser, default: str | None = "vaswani",
                          extra: tuple[str, ...] = (), extra_help: str = "") -> None:
    """--profile and the parameter flags that override it (``extra``: more --profile names a command takes)."""
    g = parser.add_argument_group("profile (SPEC.md DEF-FAMILY)")
    g.add_argument("--profile", default=default, choices=list(PRESETS) + list(extra),
                   help=f"preset (default {default}){extra_help}")
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
