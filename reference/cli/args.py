"""Command-line flags shared by ``sinpe table``, ``check``, ``detect`` and ``check-apply`` (SPEC.md REQ-CLI-PROFILE,
REQ-CHECK-SELECT): every flag is an option declared once by its kind (:data:`sinpe.reference.checking.door.OPTIONS`),
its ``dest`` the API keyword; a command only says which it takes, under which heading, and where its words differ."""
from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from typing import Any

from sinpe.reference.checking import door
from sinpe.reference.checking.options import Option
from sinpe.spec.formats import DTYPES
from sinpe.spec.profiles import LAYOUTS, PRESETS, Profile, get_profile


def add_options(g: Any, options: Iterable[Option], help: dict[str, str] | None = None,
                **override: dict[str, Any]) -> None:
    """Each option's flag on a parser or group (``help``: a command's own words; ``override``: per option name, the
    ``add_argument`` keywords that differ, such as ``choices``)."""
    for o in options:
        g.add_argument(o.flag, **o.argparse((help or {}).get(o.name), **override.get(o.name, {})))


def options(*names: str) -> list[Option]:
    """The declared options of these names, in this order."""
    return [door.OPTIONS[n] for n in names]


def add_profile_arguments(parser: argparse.ArgumentParser, default: str | None = "vaswani",
                          extra: tuple[str, ...] = (), extra_help: str = "") -> None:
    """--profile and the parameter flags that override it (``extra``: more --profile names a command takes; with
    them --layout takes the rotary layouts too)."""
    g = parser.add_argument_group("profile (SPEC.md DEF-FAMILY)")
    g.add_argument("--profile", default=default, choices=list(PRESETS) + list(extra),
                   help="preset" + (f" (default {default})" if default else "") + extra_help)
    layout = {} if extra else {"layout": {"choices": LAYOUTS}}
    add_options(g, door.PROFILE_OPTIONS, {} if extra else {"layout": "column layout"}, **layout)


def profile_from_args(args: argparse.Namespace) -> Profile:
    """The profile the flags select (ValueError with a clear message on bad values)."""
    return get_profile(args.profile or "vaswani", **{o.name: getattr(args, o.name) for o in door.PROFILE_OPTIONS})


def add_dtype_argument(parser: argparse.ArgumentParser, default: str | None = "float64", help: str | None = None) -> None:
    parser.add_argument("--dtype", default=default, choices=DTYPES,
                        help=help or "IEEE format" + (f" (default {default})" if default else ""))


def add_selection_arguments(parser: argparse.ArgumentParser) -> None:
    """--rows/--skip-rows/--zero-rows/--columns (REQ-CHECK-SELECT)."""
    add_options(parser.add_argument_group("selection (SPEC.md REQ-CHECK-SELECT)"),
                options("rows", "skip_rows", "zero_rows", "columns"))


def add_timeout_argument(parser: argparse.ArgumentParser) -> None:
    add_options(parser, options("timeout"))


def add_grid_arguments(g: Any) -> None:
    """The grid flags (SPEC.md DEF-GRID) on a parser or argument group: ``sinpe check`` and ``sinpe detect``."""
    add_options(g, door.DECLARED["grid"])


def add_rotary_arguments(g: Any, files: bool = True) -> None:
    """The rotary-cache flags (SPEC.md DEF-ROPE; ``files``: --cos/--sin and --ext-factors too) for ``sinpe check``,
    ``sinpe detect`` and ``sinpe check-apply`` (--profile, --layout and --base are each command's own)."""
    add_options(g, [o for o in door.DECLARED["rotary"] if files or o.name not in ("cos", "sin", "ext_factors")])


def add_channels_argument(parser: argparse.ArgumentParser) -> None:
    """--channels (DEF-CHANNELS-EXPLICIT): a 1-D table's explicit channel plan, for ``sinpe check``."""
    add_options(parser, door.DECLARED["channels"])


def request(args: argparse.Namespace) -> dict[str, Any]:
    """The keywords of :func:`sinpe.check` / :func:`sinpe.detect` the flags give (each flag's ``dest``)."""
    return {name: getattr(args, name) for name in door.OPTIONS if hasattr(args, name)}


def target_words(args: argparse.Namespace, word: Callable[[str], str] = str) -> str:
    """What a report names as the target: TARGET, and --cos/--sin FILE when given, each name through ``word``
    (:func:`~sinpe.reference.inputs.path_word` for a command line that runs as printed)."""
    words = [word(args.target)] if args.target else []
    words += [f"--{k} {word(getattr(args, k))}" for k in ("cos", "sin") if getattr(args, k, None)]
    return " ".join(words)
