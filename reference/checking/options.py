"""The options of a check, declared once (SPEC.md REQ-CHECK-KINDS): each :class:`Option` is one API keyword, one
``Request`` attribute, one CLI flag (its ``dest`` the keyword), one JSON key, and the kinds it applies to.

Every kind module declares its own options (:mod:`sinpe.reference.checking.kinds`); the ones every kind reads
(loading, selection, the tier) are :data:`COMMON`, the two that the 1-D and rotary profiles share
(:data:`SHARED`). A :class:`Request` holds a value for every option of every kind (None: not given); an option
given to a kind it does not apply to is a usage error, worded by the kind (:func:`refused`).

>>> from fractions import Fraction
>>> opt = Option("base", ("1d", "rotary"), "frequency base b (exact decimal, e.g. 10000 or 1e4)", exact=True)
>>> opt.flag, opt.argparse()["dest"], opt.given("500"), opt.given(None)
('--base', 'base', True, False)
>>> req = Request.of((opt,), {"base": "500"})
>>> req.base, req.replace(base=None).base, [o.name for o in req.given(("1d",), invert=True)]
('500', None, [])
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sinpe.reference.checking.isolate import DEFAULT_TIMEOUT
from sinpe.reference.checking.loaders import CALLS
from sinpe.spec.formats import DTYPES
from sinpe.spec.profiles import LAYOUTS
from sinpe.spec.rotary import ROTARY_LAYOUTS
from sinpe.spec.tolerance import TIERS, WORKING_CHOICES

from ..inputs import LoadError

ALL = ("1d", "grid", "rotary", "channels")  # the table kinds (the application check takes its own keywords)


@dataclass(frozen=True)
class Option:
    """One keyword of :func:`sinpe.check`/:func:`sinpe.detect` and its ``sinpe check`` flag.

    ``kinds``: the kinds it applies to; ``parameter``: a profile parameter (``--profile auto`` finds it, so it is
    refused there); ``detected``: detect finds it (refused by detect); ``exact``: an exact number (JSON: a number
    with the exact string beside it, REQ-CLI-JSON); ``store``: a switch (True: ``store_true``, False:
    ``store_false`` under ``cli``, e.g. ``--no-detect``)."""

    name: str
    kinds: tuple[str, ...]
    help: str = ""
    default: Any = None
    type: Any = None
    choices: tuple[Any, ...] | None = None
    store: bool | None = None
    metavar: str | None = None
    cli: str = ""
    parameter: bool = False
    detected: bool = False
    exact: bool = False

    @property
    def flag(self) -> str:
        """The CLI flag: ``--`` and the name with dashes, unless ``cli`` names another."""
        return self.cli or flag(self.name)

    def given(self, value: Any) -> bool:
        """Is ``value`` given (None, False and the default are not; an array or a file is)?"""
        if value is None or value is False:
            return False
        return self.default is None or not (type(value) is type(self.default) and value == self.default)

    def argparse(self, help: str | None = None, **override: Any) -> dict[str, Any]:
        """The ``add_argument`` keywords of the flag (``help`` and ``override`` -- ``choices``, ``default`` -- a
        command's own where it differs)."""
        words = self.help if help is None else help
        out: dict[str, Any] = {"dest": self.name, **({"help": words} if words else {})}
        if self.store is not None:
            out["action"] = "store_true" if self.store else "store_false"
            return out
        for k, v in (("type", self.type), ("choices", self.choices), ("metavar", self.metavar),
                     ("default", self.default)):
            if v is not None:
                out[k] = list(v) if k == "choices" else v
        out.update({k: list(v) if k == "choices" else v for k, v in override.items()})
        return out


def flag(name: str) -> str:
    """``--`` and ``name`` with dashes: the flag of an option (``phase_scale`` -> ``--phase-scale``)."""
    return "--" + name.replace("_", "-")


TABLES = ("1d", "channels")  # the kinds read as a 1-D table (a file, an array or a callable, rows selected)

SHARED = (
    Option("layout", ("1d", "rotary"), "column layout (rotary: halves, pairs, single)", choices=LAYOUTS + ROTARY_LAYOUTS,
           parameter=True),
    Option("base", ("1d", "rotary"), "frequency base b (exact decimal, e.g. 10000 or 1e4)", parameter=True, exact=True),
)

COMMON = (
    Option("d", TABLES, "width d (default: the table's or buffer's width; a callable must be given it: it cannot be "
           "inferred)", type=int),
    Option("positions", ("1d", "channels", "rotary"), "position of each row: start:stop, a comma list or a .npy file "
           "(default 0..rows-1; callables: 0..2047 plus 2049, 4097, 65519, 65520, 70000, 1e5; --call n/forward: "
           "0..2047; --call buffer: every row)"),
    Option("key", ALL, "array name inside .npz/.safetensors/.pt/.json or a module's buffer"),
    Option("call", TABLES, "calling convention of a callable TARGET (default positions: fn(positions, d))",
           default="positions", choices=CALLS),
    Option("timeout", TABLES, f"time limit of a module:callable TARGET, run in a child process (default "
           f"{DEFAULT_TIMEOUT:g})", default=DEFAULT_TIMEOUT, type=float, metavar="SECONDS"),
    Option("rows", TABLES, "rows to use, by index: a:b, a:b:step, a: or a comma list (a row keeps its position: row "
           "i is position i unless --positions names the selected rows' positions)"),
    Option("skip_rows", TABLES, "drop the first N rows (padding rows): --rows N:", type=int),
    Option("zero_rows", ("1d",), "rows (by index, same forms) that must be exactly 0, such as fairseq's padding "
           "row: judged exactly, the others against the profile", detected=True),
    Option("columns", TABLES, "columns to use, by index: a:b, a:b:step, a: or a comma list (d defaults to their "
           "number)"),
    Option("dtype", ALL, "IEEE format the table claims (default: the one it is stored in; a table stored wider must "
           "hold values of this format)", choices=DTYPES),
    Option("tier", ALL, "tolerance tier (default phase)", default="phase", choices=TIERS),
    Option("working", ALL, "precision the table was computed in before its one rounding to --dtype (TOL-WORKING; "
           "default float32 for float16/bfloat16 tables, the table's own otherwise; native = the table's own)",
           choices=WORKING_CHOICES),
    Option("detect", ALL, "do not run detect on a non-conforming table", default=True, store=False,
           cli="--no-detect"),
    Option("max_failures", ALL, "failures listed (all are counted; default 10)", default=10, type=int),
)


SELECTION = ("rows", "skip_rows", "columns")  # the options that choose which of a table's entries are read
READING = ("d", "positions", "call", "timeout", *SELECTION)  # how a 1-D table is read: width, positions, call


def option_table(options: Iterable[Option]) -> dict[str, Option]:
    """Options by name; a name declared twice is a bug of the declarations (ValueError)."""
    out: dict[str, Option] = {}
    for o in options:
        if o.name in out:
            raise ValueError(f"option {o.name!r} is declared twice")
        out[o.name] = o
    return out


class Request:
    """The keywords of a check or a detection: one value per option (None, or its default: not given), read as
    attributes (``req.base``)."""

    def __init__(self, options: dict[str, Option], values: dict[str, Any]) -> None:
        self.__dict__["options"] = options
        self.__dict__["values"] = {**{n: o.default for n, o in options.items()}, **values}

    @classmethod
    def of(cls, options: Sequence[Option] | dict[str, Option], kw: dict[str, Any]) -> Request:
        """A request from keywords; an unknown keyword is a TypeError naming every known one."""
        table = options if isinstance(options, dict) else option_table(options)
        unknown = sorted(set(kw) - set(table))
        if unknown:
            raise TypeError(f"unknown argument(s) {unknown}; arguments: {', '.join(sorted(table))}")
        return cls(table, dict(kw))

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["values"][name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a Request is read-only: use replace()")

    def replace(self, **changes: Any) -> Request:
        """A copy with ``changes`` (unknown names refused as in :meth:`of`)."""
        return Request.of(self.options, {**self.values, **changes})

    def keywords(self, names: Iterable[str]) -> dict[str, Any]:
        return {n: self.values[n] for n in names}

    def given(self, kinds: Sequence[str] = ALL, *, invert: bool = False, where: Any = None) -> list[Option]:
        """The options given a value, in declaration order: those of ``kinds`` (``invert``: those applying to none
        of ``kinds``), and of these the ones ``where(option)`` keeps."""
        out = []
        for o in self.options.values():
            applies = any(k in o.kinds for k in kinds)
            if applies != invert and o.given(self.values[o.name]) and (where is None or where(o)):
                out.append(o)
        return out


def refused(req: Request, kind: str, words: str, where: Any = None) -> None:
    """A LoadError for the first option given that does not apply to ``kind``: ``FLAG {words}`` (``words`` may
    name the option's own kinds as ``{kinds}``)."""
    used = req.given((kind,), invert=True, where=where)
    if used:
        o = used[0]
        raise LoadError(f"{o.flag} {words.format(kinds=' or '.join(k for k in o.kinds if k not in TABLES))}")


def refuse_all(req: Request, where: Any, words: str) -> None:
    """A LoadError for the first option given that ``where`` selects: ``FLAG`` and ``words``."""
    used = req.given(ALL, where=where)
    if used:
        raise LoadError(words.format(flag=used[0].flag))
