"""``sinpe check-apply TARGET``: does a function apply the rotary encoding right? (SPEC.md REQ-CHECK-APPLY)

TARGET is ``module:function``, run isolated in a child process (REQ-CHECK-ISOLATE), called under
``--convention`` (hf, hf-ids, module, freqs: :mod:`sinpe.reference.checking.apply_call`). Exit status: 0
conforms, 1 does not (the cause named when a known bug explains it), 2 usage or input error, 3
inconclusive. ``--json`` prints the report as JSON on stdout; ``--junit FILE`` also writes JUnit XML.
"""
from __future__ import annotations

import argparse
import json

OUTPUTS = ("junit",)  # the files it writes: the one output rule (REQ-CLI-OUTPUT)


def configure(parser: argparse.ArgumentParser) -> None:
    from sinpe.reference.checking.apply_call import CONVENTIONS, DTYPES
    from sinpe.reference.cli.args import add_rotary_arguments, add_timeout_argument
    from sinpe.spec.rotary import ROTARY_LAYOUTS, ROTARY_PRESETS
    parser.add_argument("target", metavar="TARGET", help="module:function (run isolated in a child process)")
    parser.add_argument("--convention", choices=CONVENTIONS, default="hf",
                        help="hf: fn(q, k, cos, sin); hf-ids: fn(q, k, cos, sin, position_ids); module: fn(x, "
                        "positions); freqs: fn(freqs, t) (default hf)")
    g = parser.add_argument_group("rotary profile (SPEC.md DEF-ROPE)")
    g.add_argument("--profile", choices=list(ROTARY_PRESETS), default="llama", help="rotary preset (default llama)")
    g.add_argument("--layout", choices=ROTARY_LAYOUTS, help="halves, pairs or single (complex)")
    g.add_argument("--base", help="frequency base b (exact decimal)")
    add_rotary_arguments(g, files=False)
    parser.add_argument("--rotary-dim", dest="rotary_dim", type=int, help="channels rotated (default --dim)")
    parser.add_argument("--rotary-fraction", dest="rotary_fraction", help="partial rotary: fraction of --dim rotated")
    parser.add_argument("--dtype", choices=DTYPES, default="float32", help="dtype of q and k (default float32)")
    parser.add_argument("--positions", help="positions: start:stop, a comma list or a .npy file (default 0..15, "
                        "1000..1015, 4095..4097, 65535..65537, 100000, 100001)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random heads")
    parser.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    parser.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report to FILE")
    add_timeout_argument(parser)


def run(args: argparse.Namespace) -> int:
    """argparse -> :func:`sinpe.check_apply` -> the report."""
    from sinpe.reference.checking import apply, kinds
    from sinpe.reference.checking.loaders import LoadError, input_errors
    from sinpe.reference.checking.report import write_cases
    if args.dim is None:
        raise LoadError("--dim is required: the head dimension of q and k")
    with input_errors("check-apply", args.target):
        req = kinds.Request(**{k: getattr(args, k) for k in (*kinds.ROTARY_PARAMS, "freqs")})
        rp = kinds.rotary_of(args.profile, req)
        res = apply.check_apply(args.target, rp, dim=args.dim, convention=args.convention, dtype=args.dtype,
                                positions=args.positions, rotary_dim=args.rotary_dim,
                                rotary_fraction=args.rotary_fraction, timeout=args.timeout, seed=args.seed)
    print(json.dumps(res.to_json(), indent=1) if args.json else apply.render(res))
    if args.junit:
        write_cases(args.junit, f"sinpe.check-apply[{res.profile}-{res.convention}-{res.dtype}]", apply.junit_cases(res),
                    res.seconds, res.target)
    return res.exit_code
