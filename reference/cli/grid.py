"""``sinpe grid check|detect ...``: an alias of ``sinpe check ...`` / ``sinpe detect ...`` (SPEC.md REQ-CHECK-KINDS).

``sinpe grid check FILE --profile mae|diffusers|timm|timm-interleaved|detr|detr-normalized [--shape HxW]
[--cls N] [--channels-first] ...`` is ``sinpe check`` with the same arguments, and ``sinpe grid detect FILE``
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
