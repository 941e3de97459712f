"""``sinpe rotary check|detect ...``: an alias of ``sinpe check ...`` / ``sinpe detect ...`` (SPEC.md REQ-CHECK-KINDS).

``sinpe rotary check --cos FILE [--sin FILE] [--profile llama|gptj|llama3.1] [--rule R] [--freqs W]
...`` is ``sinpe check`` with the same arguments, and ``sinpe rotary detect --cos FILE``
is ``sinpe detect``: the output is the same byte for byte (:data:`sinpe.reference.cli.ALIASES`).
"""
from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("check", "detect"),
                        help="sinpe check / sinpe detect: see `sinpe check --help`, `sinpe detect --help`")


def run(args: argparse.Namespace) -> int:  # reached only without ARGS after the action: main() rewrites the rest
    from sinpe.reference.cli import main
    return main([args.action])
