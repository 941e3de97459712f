"""The ``sinpe`` command line: one subcommand per module, imported only when used.

Each command module defines ``configure(parser: argparse.ArgumentParser) -> None`` and
``run(args: argparse.Namespace) -> int``, and ``OUTPUTS``: the flags naming files it writes (the one output
rule, REQ-CLI-OUTPUT). Exit codes: 0 success / conformant, 1 a finding (not proven, not conformant,
verification failed), 2 usage or input error, 3 inconclusive.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings
from collections.abc import Sequence
from typing import Any, NoReturn, TextIO

# name -> (module, one-line help). Order is the order of `sinpe --help`.
COMMANDS: dict[str, tuple[str, str]] = {
    "verify": ("sinpe.reference.cli.verify", "run everything: proofs, golden self-certification, implementation certification"),
    "prove": ("sinpe.reference.cli.prove", "run the SymPy proof suite of the spec's theorems"),
    "table": ("sinpe.reference.cli.table", "write a correctly rounded PE table as .npy"),
    "golden": ("sinpe.reference.cli.golden", "regenerate the golden vectors (byte-identical)"),
    "certify": ("sinpe.reference.cli.certify", "certify the bundled NumPy/PyTorch implementations"),
    "check": ("sinpe.reference.cli.check", "check a third-party table or callable for conformance"),
    "detect": ("sinpe.reference.cli.detect", "name the variant a table implements"),
    "check-apply": ("sinpe.reference.cli.check_apply", "check how a function applies the rotary encoding to q and k"),
    "scan": ("sinpe.reference.cli.scan", "find and judge every sinusoid table in a checkpoint"),
    "grid": ("sinpe.reference.cli.alias", "check or detect a 2-D sin-cos grid (MAE, diffusers, timm, DETR)"),
    "rotary": ("sinpe.reference.cli.alias", "check or detect a RoPE cos/sin cache (layouts, bases, scalings)"),
    "claims": ("sinpe.reference.cli.claims", "audit the seed chapter's claims"),
    "figures": ("sinpe.reference.cli.figures", "recompute the seed chapter's tables and figures"),
}


# REQ-CHECK-KINDS: `sinpe grid check|detect ...` and `sinpe rotary check|detect ...` are `sinpe check|detect ...`
ALIASES: dict[str, tuple[str, ...]] = {"grid": ("check", "detect"), "rotary": ("check", "detect")}


class UsageError(Exception):
    """Bad input from the user: reported as one line, exit status 2."""


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP: unwinds like Ctrl-C, so every temporary file and child is removed."""


class _Parser(argparse.ArgumentParser):
    json_errors = False  # set when --json is on the command line: usage errors are JSON on stdout too

    def __init__(self, *a: Any, **k: Any) -> None:
        k.setdefault("allow_abbrev", False)  # REQ-CLI-EXIT: --js is not --json
        super().__init__(*a, **k)

    def error(self, message: str) -> NoReturn:  # argparse exits 2 already; keep one clear line
        if self.json_errors:
            import json
            print(json.dumps({"error": {"command": self.prog.partition(" ")[2] or self.prog, "message": message,
                                        "exit_code": 2}}))
        self.exit(2, f"{self.prog}: error: {_escape(message)}\n")


def _escape(message: str) -> str:
    from ..inputs import escape
    return escape(message)


def _path_hygiene() -> None:
    """REQ-CHECK-INPUT: the current directory is not on ``sys.path`` (``python -m`` puts it first), so
    no module beside the user's files shadows one sinpe imports; an explicit PYTHONPATH entry stays."""
    explicit = {os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
    cwd = os.getcwd()
    sys.path[:] = [p for p in sys.path if not (p in ("", ".") or os.path.abspath(p) == cwd) or
                   (p not in ("", ".") and os.path.abspath(p) in explicit)]


class _Watched:
    """sys.stdout while a command runs: remembers whether anything was written (one JSON document)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream, self.used = stream, False

    def write(self, s: str) -> int:
        self.used = self.used or bool(s)
        return self._stream.write(s)

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def _on_signal(signum: int, frame: object) -> None:
    raise Terminated(signum)


def _process_guards() -> None:
    """In sinpe's own process: SIGTERM/SIGHUP unwind (temporary files removed), and a memory-mapped input
    truncated under the reader (SIGBUS) ends in one line, exit 2, instead of a crash."""
    import signal
    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is not None:
            signal.signal(sig, _on_signal)
    from sinpe.reference.checking.loaders import exit_on_sigbus
    exit_on_sigbus(2, b"sinpe: error: an input file was truncated while it was read (SIGBUS); nothing was judged\n", 2)


INPUTS = ("target", "cos", "sin", "positions", "path", "freqs", "channels")  # arguments that may name what is read


def _output_problem(module: object, args: argparse.Namespace) -> str | None:
    """REQ-CLI-OUTPUT: every file the command writes (its module's ``OUTPUTS``: ``--junit``, ``--out``) passes the
    one rule (:func:`~sinpe.reference.checking.outputs.output_problem`) against everything its arguments read,
    once, before any work; ``--junit`` is made absolute (a callable's chdir moves nothing)."""
    from sinpe.reference.checking.outputs import output_problem, reads_of
    flags = [f for f in getattr(module, "OUTPUTS", ()) if getattr(args, f, None) is not None]
    given = [v for name in INPUTS for v in _values(getattr(args, name, None))]
    reads = [r for v in given for r in reads_of(v if isinstance(v, str) else None)] if flags else []
    for flag in flags:
        path = str(getattr(args, flag))
        if flag == "junit" and path:
            args.junit = os.path.abspath(path)
        problem = output_problem(f"--{flag}", path, reads)
        if problem:
            return problem
    return None


def _values(value: object) -> list[object]:
    """An argument's values: a list (``sinpe scan --merge A B``) or one."""
    return list(value) if isinstance(value, list) else [value]


def _error(name: str, args: argparse.Namespace, message: str) -> int:
    """REQ-CLI-EXIT / REQ-CLI-JSON-ERROR: one line on stderr; under ``--json`` also a JSON error object on
    stdout (a script reading stdout always gets JSON), unless the report is already there: one document. Exit 2."""
    print(f"sinpe {name}: error: {_escape(message)}", file=sys.stderr)
    if getattr(args, "json", False) and not getattr(sys.stdout, "used", False):
        import json
        print(json.dumps({"error": {"command": name, "message": message, "exit_code": 2}}))
    return 2


def build_parser() -> argparse.ArgumentParser:
    from sinpe.spec import SPEC_VERSION

    parser = _Parser(prog="sinpe", description="Verified reference specification of the sinusoidal positional encoding.")
    parser.add_argument("--version", action="version", version=f"sinpe {SPEC_VERSION}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (_, help_) in COMMANDS.items():
        sub.add_parser(name, help=help_, description=help_)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:  # the process is ours: nothing from the current directory is importable
        _path_hygiene()
        _process_guards()
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not argv:  # REQ-CLI-EXIT: no command is a usage error
        print(f"sinpe: error: a command is required: {', '.join(COMMANDS)} (sinpe --help)", file=sys.stderr)
        return 2
    if argv[0] not in COMMANDS:
        try:
            parser.parse_args(argv)  # --help / --version exit 0; anything else is a usage error
        except SystemExit as e:
            return int(e.code or 0)
        return 2
    if argv[0] in ALIASES and len(argv) > 1 and argv[1] in ALIASES[argv[0]]:
        argv = argv[1:]  # the same command, byte for byte
    name = argv[0]
    module = importlib.import_module(COMMANDS[name][0])
    sub = _Parser(prog=f"sinpe {name}", description=COMMANDS[name][1])
    sub.json_errors = "--json" in argv[1:]
    module.configure(sub)
    try:
        args = sub.parse_args(argv[1:])
    except SystemExit as e:  # --help (0) or a usage error (2), already printed: return, don't raise
        return int(e.code or 0)
    problem = _output_problem(module, args)
    if problem:
        return _error(name, args, problem)
    # warnings of dependencies are held back: never printed before the one error line (REQ-CLI-EXIT)
    from sinpe.reference.progress import silenced
    with warnings.catch_warnings(record=True) as caught, \
            silenced(bool(getattr(args, "json", False) or getattr(args, "jsonl", False))):  # one document, no bar
        warnings.simplefilter("default")
        status = _run(module, name, args)
    if status != 2:
        for w in caught[:5]:
            print(f"sinpe {name}: warning: {_escape(str(w.message))} ({w.category.__name__})", file=sys.stderr)
    return status


def _run(module: object, name: str, args: argparse.Namespace) -> int:
    stdout = sys.stdout
    sys.stdout = _Watched(stdout)
    try:
        return _run_watched(module, name, args)
    finally:
        sys.stdout = stdout


def _run_watched(module: object, name: str, args: argparse.Namespace) -> int:
    try:
        return int(module.run(args))  # type: ignore[attr-defined]
    except BrokenPipeError:  # `sinpe claims | head`: the reader left; not an error of ours (before OSError)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (UsageError, ValueError, OSError) as e:  # OSError: a path that cannot be read or written
        from sinpe.reference.checking.errors import internal
        return _internal(name, args, e) if not isinstance(e, UsageError) and internal(e) else _error(name, args, str(e))
    except MemoryError:
        return _error(name, args, "out of memory")
    except KeyboardInterrupt as e:
        if isinstance(e, Terminated):
            print(f"sinpe {name}: terminated by signal {e.args[0]}", file=sys.stderr)
            return 128 + int(e.args[0])
        print(f"sinpe {name}: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # any other escape is sinpe's fault: exit 3, never a bare traceback
        return _internal(name, args, e)


def _internal(name: str, args: argparse.Namespace, exc: BaseException) -> int:
    """REQ-CLI-EXIT: an internal error (errors.internal: not the input's) is one line naming it, exit 3 (under
    ``--json`` also the JSON error object, ``"internal": true``); never reported as bad input."""
    from sinpe.reference.checking.errors import internal_words
    message = f"internal error, not a problem with the input (please report it): {internal_words(exc)}"
    print(f"sinpe {name}: {_escape(message)}", file=sys.stderr)
    if getattr(args, "json", False) and not getattr(sys.stdout, "used", False):
        import json
        print(json.dumps({"error": {"command": name, "message": message, "exit_code": 3, "internal": True}}))
    return 3
