"""``sinpe grid check|detect ...`` and ``sinpe rotary check|detect ...``: aliases of ``sinpe check ...`` /
``sinpe detect ...`` (SPEC.md REQ-CHECK-KINDS).

``sinpe grid check FILE --profile mae|diffusers|timm|timm-interleaved|detr|detr-normalized [--shape HxW] [--cls N]
[--channels-first] ...`` and ``sinpe rotary check --cos FILE [--sin FILE] [--profile llama|gptj|llama3.1] [--rule R]
[--freqs W] ...`` are ``sinpe check`` with the same arguments, ``sinpe grid detect FILE`` and ``sinpe rotary detect
--cos FILE`` are ``sinpe detect``: the output is the same byte for byte (:data:`sinpe.reference.cli.ALIASES`).
"""
from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("check", "detect"),
                        help="sinpe check / sinpe detect: see `sinpe check --help`, `sinpe detect --help`")


def run(args: argparse.Namespace) -> int:  # reached only without ARGS after the action: main() rewrites the rest
    from sinpe.reference.cli import main  # local: the package imports its commands, not the other way round
    return main([args.action])
