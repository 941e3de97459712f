"""The mutation suite beyond the statements (SPEC.md REQ-PROVE-MUTANTS): the definition, scopes, procedures.

Three kinds of false variants, each of which the proofs must reject (``sinpe prove --mutants``):

- **definition mutants** (:data:`DEFINITION_MUTANTS`): an edit of ``spec/definition.py``'s source, the way a
  typo or a misread paper would make it. Each runs in a child interpreter in which ``sinpe.spec.definition``
  is the edited source (nothing else changes), which (1) fingerprints the tables and reference values the
  definition gives (:func:`fingerprint`: correctly rounded 1-D tables of every preset and of a profile away from
  every preset value, rotary caches, grids, certified golden entries) and (2) proves the suite without the
  witness, stopping at the first theorem not proven. A mutant is *rejected* when some theorem is not proven,
  *inert* when its fingerprint equals the real definition's (it changes no table and no golden value), and a
  *survivor* otherwise; a child that runs out of time is a survivor too.
- **scope mutants** (:func:`scope_mutants`): a theorem's scope names a parameter its obligations do not use
  ('scope+alpha'), omits one they use ('scope-...'), claims a plan whose claims were dropped ('plans-...'),
  or every statement is built with the offset o replaced by 0 ('offset-zero').
- **procedure mutants** (:data:`PROCEDURE_MUTANTS`): one rule of a decision procedure made unsound (a
  substitution taken as proof, sums over different ranges merged, a wrong cyclotomic order, ...). Each is
  *rejected* when, with it in place, the suite proves a statement known to be false: the statement mutants
  and one sentinel per rule (a false statement only that rule's unsoundness proves), decided without the
  witness. A procedure mutant that proves no false statement is a survivor (the corpus cannot see it).

>>> sorted({m.name for m in DEFINITION_MUTANTS}) == sorted(m.name for m in DEFINITION_MUTANTS)  # names unique
True
>>> len(DEFINITION_MUTANTS) >= 25, len(PROCEDURE_MUTANTS) >= 10
(True, True)
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

MUTANT_TIMEOUT = 600.0  # seconds for one definition mutant's child (fingerprint and proofs); past it: a survivor


@dataclass(frozen=True)
class DefinitionMutant:
    """``old`` (exactly once in spec/definition.py) replaced by ``new``; ``what`` says which mistake it is."""

    name: str
    what: str
    old: str
    new: str


DEFINITION_MUTANTS: tuple[DefinitionMutant, ...] = (
    # --- the channel plan (DEF-LAYOUT, DEF-ODD)
    DefinitionMutant("zero-pad-halves-swapped", "sin and cos halves exchanged for sin-cos under zero-pad (t2t, odd d)",
                     'first, second = ("sin", "cos") if layout == "sin-cos" else ("cos", "sin")',
                     'first, second = ("sin", "cos") if (layout == "sin-cos") != (odd and odd_rule == "zero-pad") '
                     'else ("cos", "sin")'),
    DefinitionMutant("ceil-split-ignored", "ceil-split read as trailing-sin for the concatenated layouts",
                     'ceil = odd and odd_rule == "ceil-split"', 'ceil = False'),
    DefinitionMutant("interleaved-swapped", "interleaved cos_i in column 2i and sin_i in 2i + 1",
                     'paired = (Segment("sin", _ZERO, _N, 2, _ZERO), Segment("cos", _ZERO, _N, 2, _ONE))',
                     'paired = (Segment("sin", _ZERO, _N, 2, _ONE), Segment("cos", _ZERO, _N, 2, _ZERO))'),
    DefinitionMutant("cos-sin-as-sin-cos", "the cos-sin layout built as sin-cos",
                     'first, second = ("sin", "cos") if layout == "sin-cos" else ("cos", "sin")',
                     'first, second = ("sin", "cos")'),
    DefinitionMutant("trailing-cos", "the interleaved odd column holds cos_n instead of sin_n",
                     'extra = Segment("sin", _N, Lin(1, 1), 2, _ZERO) if layout == "interleaved"',
                     'extra = Segment("cos", _N, Lin(1, 1), 2, _ZERO) if layout == "interleaved"'),
    DefinitionMutant("zero-pad-first", "the zero column of zero-pad at column 0, the table shifted right",
                     'extra = Segment("zero", _ZERO, _ONE, 0, Lin(2, 0))', 'extra = Segment("zero", _ZERO, _ONE, 0, _ZERO)'),
    DefinitionMutant("ceil-extra-in-second-half", "ceil-split's extra frequency n given to the second function",
                     'extra = Segment(first, _N, Lin(1, 1), 1, _ZERO)', 'extra = Segment(second, _N, Lin(1, 1), 1, _ZERO)'),
    DefinitionMutant("plan-at-600", "the plan evaluated wrongly at d = 600 only (columns 0 and 1 exchanged)",
                     "        return tuple(kinds), tuple(labels)  # type: ignore[arg-type]",
                     "        if d == 600:\n            kinds[0], kinds[1] = kinds[1], kinds[0]\n"
                     "        return tuple(kinds), tuple(labels)  # type: ignore[arg-type]"),
    DefinitionMutant("lin-at-300", "a linear form evaluated one off at n = 300 (d = 600, 601) in the kernels only",
                     "        return self.q * n + self.r\n",
                     "        return self.q * n + self.r + (1 if isinstance(n, int) and n == 300 and self.q else 0)\n"),
    DefinitionMutant("index-at-100", "the copy instructions of d = 100 take the cos frequencies in reverse order",
                     "            dst[f], src[f] = _as_slice(js), _as_slice([self.labels[j] for j in js])",
                     "            labs = [self.labels[j] for j in js]\n"
                     "            dst[f], src[f] = _as_slice(js), _as_slice(labs[::-1] if self.d == 100 and f == 'cos' else labs)"),
    DefinitionMutant("rotary-pairing-swapped", "rotate-half and rotate-every-two exchanged",
                     'ROTARY_PAIRING = {"pairs": "interleaved", "halves": "sin-cos"}',
                     'ROTARY_PAIRING = {"pairs": "sin-cos", "halves": "interleaved"}'),
    DefinitionMutant("rotary-schedule-shifted", "the rotary default frequencies with D = dim/2 + 1",
                     'return Definition(rotary_pairs(layout), Schedule(Fraction(1), Fraction(0)), Fraction(10000)',
                     'return Definition(rotary_pairs(layout), Schedule(Fraction(1), Fraction(1)), Fraction(10000)'),
    DefinitionMutant("n-labels-always-plus-one", "one frequency more than the plan holds",
                     '        return n + int(self.unpaired() in ("sin", "cos"))', '        return n + 1'),
    # --- the schedule (DEF-SCHEDULE-*)
    DefinitionMutant("half-odd-ceil", "D = ceil(d/2) at odd d (n + 1 instead of n + 1/2)",
                     'return Schedule(Fraction(1), Fraction(1, 2) if odd else Fraction(0))',
                     'return Schedule(Fraction(1), Fraction(1) if odd else Fraction(0))'),
    DefinitionMutant("half-even-plus-one", "D = d/2 + 1 at even d",
                     'return Schedule(Fraction(1), Fraction(1, 2) if odd else Fraction(0))',
                     'return Schedule(Fraction(1), Fraction(1, 2) if odd else Fraction(1))'),
    DefinitionMutant("shift-sign", "D = floor(d/2) + s", 'return Schedule(Fraction(1), -profile.shift)',
                     'return Schedule(Fraction(1), profile.shift)'),
    DefinitionMutant("shift-ignored", "D = floor(d/2) whatever the shift", 'return Schedule(Fraction(1), -profile.shift)',
                     'return Schedule(Fraction(1), Fraction(0))'),
    DefinitionMutant("exponent-kernel-off-by-one", "e_i = (i + 1)/D in the kernels' rational path only",
                     "return Fraction(i * den.denominator, den.numerator)  # = i / den, one normalisation",
                     "return Fraction((i + 1) * den.denominator, den.numerator)"),
    DefinitionMutant("exponent-doubled", "e_i = 2i/D", "        return i / den\n", "        return 2 * i / den\n"),
    # --- the family (DEF-FAMILY): weights, phases, values
    DefinitionMutant("base-inverted", "w = (1/b)^(-e): the base read as 1/b",
                     "return geometric(e, lambda x: ops.pow(_num(ops, base), _num(ops, x)), _num(ops, Fraction(1)))",
                     "return geometric(e, lambda x: ops.pow(1 / _num(ops, base), _num(ops, x)), _num(ops, Fraction(1)))"),
    DefinitionMutant("weight-sign", "w = b^(+e)", "    return one if e == 0 else power(-e)", "    return one if e == 0 else power(e)"),
    DefinitionMutant("w0-half", "w_0 = 1/2",
                     "return geometric(e, lambda x: ops.pow(_num(ops, base), _num(ops, x)), _num(ops, Fraction(1)))",
                     "return geometric(e, lambda x: ops.pow(_num(ops, base), _num(ops, x)), _num(ops, Fraction(1, 2)))"),
    DefinitionMutant("offset-sign", "theta = sigma (p - o) w", "    th = (p if offset is None else p + offset) * w",
                     "    th = (p if offset is None else p - offset) * w"),
    DefinitionMutant("offset-unscaled", "theta = sigma p w + o", "    th = (p if offset is None else p + offset) * w",
                     "    th = p * w + (0 if offset is None else offset)"),
    DefinitionMutant("scale-ignored", "the phase scale dropped", "    return th if scale is None else scale * th",
                     "    return th"),
    DefinitionMutant("sin-cos-values-swapped", "sin columns hold cos and cos columns sin",
                     '    v = ops.sin(theta) if kind == "sin" else ops.cos(theta)',
                     '    v = ops.cos(theta) if kind == "sin" else ops.sin(theta)'),
    DefinitionMutant("cos-negated", "cos columns hold -cos",
                     '    v = ops.sin(theta) if kind == "sin" else ops.cos(theta)',
                     '    v = ops.sin(theta) if kind == "sin" else -ops.cos(theta)'),
    DefinitionMutant("amplitude-ignored", "the amplitude dropped", "    return v if amplitude is None else amplitude * v",
                     "    return v"),
    DefinitionMutant("amplitude-squared", "alpha^2 f(theta)", "    return v if amplitude is None else amplitude * v",
                     "    return v if amplitude is None else amplitude * amplitude * v"),
    DefinitionMutant("zero-column-amplitude", "a zero column holds alpha", '    if kind == "zero":\n        return ops.zero',
                     '    if kind == "zero":\n        return ops.zero if amplitude is None else amplitude'),
    DefinitionMutant("scale-offset-swapped", "the profile's phase scale and offset read into each other's place",
                     "return Definition(plan, schedule(profile, bool(odd)), profile.base, profile.phase_scale, profile.offset,",
                     "return Definition(plan, schedule(profile, bool(odd)), profile.base, profile.offset, profile.phase_scale,"),
    DefinitionMutant("odd-flag-inverted", "plan_of reads d = 1 as even (n_frequencies(P, 1) = 0; the 'error' rule)",
                     'return channel_plan(profile.layout, profile.odd if d % 2 else "trailing-sin", bool(d % 2))',
                     'return channel_plan(profile.layout, profile.odd if d % 2 else "trailing-sin", bool(d % 2) and d > 1)'),
    # --- what only the kernels, the oracles and the public helpers read (found by the red team, issue 25)
    DefinitionMutant("partner-same-kind", "the partner column looked up with the column's own function (the application "
                     "check's rotated pairs: transformers' LLaMA RoPE 'fails')",
                     'where.get(("cos" if f == "sin" else "sin", k))', 'where.get(("sin" if f == "sin" else "cos", k))'),
    DefinitionMutant("weight-raw-fractions", "the weight hands the profile's Fractions to the backend's pow unconverted "
                     "(SymPy converts them, mpmath refuses: rotary references and grids raise)",
                     "return geometric(e, lambda x: ops.pow(_num(ops, base), _num(ops, x)), _num(ops, Fraction(1)))",
                     "return geometric(e, lambda x: ops.pow(base, x), _num(ops, Fraction(1)))"),
    DefinitionMutant("shift-truncated", "a fractional shift read as its integer part (--shift 1/2 tables)",
                     "return Schedule(Fraction(1), -profile.shift)", "return Schedule(Fraction(1), -Fraction(int(profile.shift)))"),
    DefinitionMutant("domain-refusal-late", "D <= 0 refused only with three frequencies or more (--shift 3 at d = 4 "
                     "gives a table with w_1 = b^(+1))",
                     "if nf > 1 and self.schedule.denominator(n) <= 0:", "if nf > 2 and self.schedule.denominator(n) <= 0:"),
    DefinitionMutant("rotary-dim-2-refused", "rotary column data refused at dim = 2",
                     "or not isinstance(dim, int) or dim < 2 or dim % 2:", "or not isinstance(dim, int) or dim < 4 or dim % 2:"),
    DefinitionMutant("index-int16", "copy index arrays of 16-bit integers (wrong columns at odd concatenated d > 32768)",
                     "return np.array(js, dtype=np.intp)", "return np.array(js, dtype=np.int16)"),
    DefinitionMutant("exponents-at-768", "the kernels' exponents with D + 1 at d = 768 only (BERT's width)",
                     "        den = self.denominator(n)\n", "        den = self.denominator(n) + (1 if n == 384 else 0)\n"),
    DefinitionMutant("unpaired-cos-uncounted", "an unpaired cos column (cos-sin under ceil-split) not counted as a frequency",
                     '        return n + int(self.unpaired() in ("sin", "cos"))', '        return n + int(self.unpaired() == "sin")'),
    DefinitionMutant("n-frequencies-ceil", "n_frequencies() counted at ceil(d/2) pairs (the public helper only)",
                     "return plan_of(profile, d).n_labels(d // 2)", "return plan_of(profile, d).n_labels((d + 1) // 2)"),
    DefinitionMutant("row-theta0", "row() (the mpmath oracle's rows) evaluates every column at the phase of label 0",
                     "        out.append(value(cd, kind, thetas.get(k), ops))",
                     "        out.append(value(cd, kind, thetas.get(0, thetas.get(k)), ops))"),
    DefinitionMutant("scale-minus-one-skipped", "a phase scale of -1 taken for 'no scaling' like 1",
                     "_num(ops, scale) if scale != 1 else None)", "_num(ops, scale) if scale not in (1, -1) else None)"),
    DefinitionMutant("phase-given-w-no-offset", "phase() drops the offset when the caller passes the frequency (the "
                     "interval and Arb oracles' path)",
                     "    return theta(p, frequency(cd, k, ops) if w is None else w, cd.offset, cd.scale, ops)",
                     "    return theta(p, frequency(cd, k, ops), cd.offset, cd.scale, ops) if w is None else theta(p, w, 0, cd.scale, ops)"),
    DefinitionMutant("lin-commuted", "q*n + r written r + q*n (the same numbers and expressions: inert)",
                     "        return self.q * n + self.r\n", "        return self.r + self.q * n\n"),
)


# --------------------------------------------------------------------------------------------- fingerprint

def fingerprint() -> str:
    """A SHA-256 of the values the definition gives: correctly rounded float64 and float16 tables of every preset
    and of a profile away from every preset value (amplitude 1/8, phase scale 3/2, offset -7/2, base 500, each odd
    rule) at widths the golden vectors, the survey and the mutants name; rotary caches of every rotary preset and
    layout; grids; certified golden entries (the interval oracle, four formats); and what else a user reads off the
    definition (:func:`_fingerprint_more`). An entry that raises is fingerprinted by its error.

    The digest after each section of entries (a profile's tables, a rotary preset, ...) is kept for the final
    digest (:data:`_MARKS`), so that a mutant's child, handed them, stops at the first section whose digest differs
    (:func:`fingerprint_marks`): its fingerprint differs from this one exactly then."""
    marks = fingerprint_marks()
    _MARKS[marks[-1]] = marks
    return marks[-1]


class _Differs(Exception):
    """Raised by :func:`fingerprint_marks` at the first section whose digest differs from the one it was handed."""

    def __init__(self, section: int, digest: str) -> None:
        super().__init__(section, digest)
        self.section, self.digest = section, digest


_MARKS: dict[str, list[str]] = {}  # a fingerprint computed in this process -> its section digests


def fingerprint_marks(against: list[str] | None = None) -> list[str]:
    """The digests of :func:`fingerprint`'s stream after each section, the last one the fingerprint. ``against``
    (another definition's marks): :class:`_Differs` at the first section whose digest is not that one's (the
    streams differ there, so the fingerprints differ); the stream is otherwise computed to its end."""
    import numpy as np

    from sinpe.reference.oracles.angles import grid_plan, reference_f64, rotary_plan
    from sinpe.reference.oracles.interval import Certifier
    from sinpe.reference.tables import table
    from sinpe.spec.definition import columns
    from sinpe.spec.grid import get_grid
    from sinpe.spec.profiles import PRESETS, get_profile
    from sinpe.spec.rotary import ROTARY_PRESETS
    h = hashlib.sha256()
    marks: list[str] = []

    def mark() -> None:
        marks.append(h.copy().hexdigest())
        if against is not None and (len(marks) > len(against) or marks[-1] != against[len(marks) - 1]):
            raise _Differs(len(marks) - 1, marks[-1])

    def put(x: Any) -> None:
        h.update(np.ascontiguousarray(np.asarray(x, dtype=np.float64)).tobytes() if not isinstance(x, str) else x.encode())

    def put_or_error(label: str, f: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        try:
            put(f(*args, **kwargs))
        except Exception as e:  # an edit that makes a value raise changes what the user sees
            put(f"{label}: {type(e).__name__}: {e}"[:300])

    widths = (1, 2, 3, 4, 5, 8, 9, 16, 17, 64, 65, 100, 101, 512, 600, 601, 768)
    pos = [0, 1, 2, 7, 100, 1000, 65535]
    profiles = list(PRESETS.values()) + [get_profile(name, amplitude="1/8", phase_scale="3/2", offset="-7/2", base=500)
                                         for name in PRESETS] + [get_profile("vaswani", odd=rule) for rule in ("zero-pad", "ceil-split")]
    for prof in profiles:
        for d in widths:
            if d % 2 and prof.odd == "error":
                continue
            put(" ".join(c.label for c in columns(prof, d)))
            for fmt in ("float64", "float16"):
                put_or_error(f"{prof.cli_flags()} d={d} {fmt}", table, prof, d, pos, fmt, workers=1)
        mark()
    for name, rp in ROTARY_PRESETS.items():
        for dim in (8, 64):
            try:
                rows = [(p, p) if rp.mrope_section or rp.rule == "pixel" else p for p in (0, 1, 5, 1000)]
                for which in ("cos", "sin"):
                    put(reference_f64(rotary_plan(rp, dim, rows, which))[0])
            except Exception as e:
                put(f"{name} {dim}: {type(e).__name__}: {e}"[:300])
        mark()
    for gname in ("mae", "timm"):
        put_or_error(gname, lambda g: reference_f64(grid_plan(get_grid(g, 16, (3, 4))))[0], gname)
    mark()
    cert = Certifier()
    for prof in PRESETS.values():
        for d in (1, 2, 3, 4, 8, 64, 65, 512, 768, 1024, 4096):
            if d % 2 and prof.odd == "error":
                continue
            for fmt_vals in cert.tables(prof, d, [0, 1, 3, 4095], cols=sorted({0, min(1, d - 1), d // 2, d - 1})).values():
                put(fmt_vals)
        mark()
    _fingerprint_more(put_or_error, mark)
    marks.append(h.hexdigest())
    if against is not None and marks != against:
        raise _Differs(len(marks) - 1, marks[-1])
    return marks


# Schedules away from the presets' (DEF-SCHEDULE-SHIFT with a fractional, a larger or a negative shift) and the
# widths where a shift leaves D <= 0 (the definition refuses them)
_MORE_SHIFTS = ("1/2", "5/3", 2, 3, -1)
_MORE_WIDTHS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 17, 64, 65, 768, 1024, 2048, 4096)


def _column_facts(prof: Any, d: int) -> str:
    """What the column data and the public helpers say at width d (a refusal raises)."""
    from sinpe.spec import definition as D
    cd = D.column_data(prof, d)
    nf = D.n_frequencies(prof, d)
    return repr((cd.kinds, cd.labels, cd.partner, cd.exponents, nf, D.denominator(prof, d),
                 [D.exponent(prof, d, k) for k in range(nf)], cd.index.zero))


def _oracle_rows(prof: Any, d: int) -> str:
    """The mpmath and Arb oracles' values of row p = 7 (25 and 20 digits)."""
    from sinpe.reference.oracles import arb
    from sinpe.reference.oracles.mp import pe_row
    return repr(([str(v)[:25] for v in pe_row(prof, d, 7)],
                 [arb.enclose(prof, d, Fraction(7), j, 128).str(20) for j in range(d)]))


def _listed(x: Any) -> Any:
    """A copy instruction (a slice or an index array) as plain data."""
    return (x.start, x.stop, x.step) if isinstance(x, slice) else [int(j) for j in x]


def _copy_index(prof: Any, d: int) -> str:
    """The copy instructions of the table at width d."""
    from sinpe.spec.definition import column_index
    ci = column_index(prof, d)
    return repr([_listed(x) for f in ("sin", "cos") for x in (ci.dst[f], ci.src[f])] + [_listed(ci.zero)])


def _rotary_facts(layout: str, dim: int) -> str:
    """The rotary column data at ``dim`` (the caches' and the application check's pairs): kinds, labels, the
    pairs' partner columns, the exponents."""
    from sinpe.spec.definition import rotary_data
    cd = rotary_data(layout, dim)
    return repr((cd.kinds, cd.labels, cd.partner, cd.exponents))


def _fingerprint_more(put_or_error: Callable[..., None], mark: Callable[[], None]) -> None:
    """The rest of what a user reads off the definition: every layout under every odd rule and a few schedules
    away from the presets' (column data, exponents, the refusals where D <= 0), the phase scale -1 and an offset
    that is no dyadic rational, the copy instructions at wide odd d, the partner columns of 1-D tables and of the
    rotary layouts (the application check's pairs), the rotary data down to dim = 2, the public helpers
    (``n_frequencies``, ``denominator``, ``exponent``) and the mpmath and Arb oracles' values."""
    from sinpe.reference.tables import table
    from sinpe.spec.profiles import LAYOUTS, ODD_RULES, get_profile
    profs = [get_profile("vaswani", layout=lay, odd=rule) for lay in LAYOUTS for rule in ODD_RULES if rule != "error"]
    profs += [get_profile("t2t", shift=s) for s in _MORE_SHIFTS]
    profs += [get_profile("vaswani-concat", phase_scale=-1, offset="1/3", amplitude="-3/4")]
    for prof in profs:
        for d in _MORE_WIDTHS:
            where = f"{prof.cli_flags()} d={d}"
            put_or_error(where, _column_facts, prof, d)
            if d <= 65:
                put_or_error(f"{where} table", table, prof, d, [0, 3, 1000], "float64", workers=1)
                put_or_error(f"{where} oracles", _oracle_rows, prof, d)
        mark()
    wide = get_profile("vaswani-concat", odd="trailing-sin")
    for d in (32767, 32769, 65537):  # the copy instructions of wide concatenated odd tables (index arrays)
        put_or_error(f"index d={d}", _copy_index, wide, d)
    for layout in ("halves", "pairs"):
        for dim in (2, 4, 8, 16, 64, 128, 256):
            put_or_error(f"rotary {layout} {dim}", _rotary_facts, layout, dim)


# --------------------------------------------------------------------------------------------- definition mutants

_BOOT = r'''
import importlib.abc, importlib.util, sys
SRC, ORIGIN = open(sys.argv[1]).read(), sys.argv[2]
class _Mutant(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        return importlib.util.spec_from_loader(name, self, origin=ORIGIN) if name == "sinpe.spec.definition" else None
    def create_module(self, spec):
        return None
    def exec_module(self, module):
        module.__file__ = ORIGIN
        exec(compile(SRC, ORIGIN, "exec"), module.__dict__)
sys.meta_path.insert(0, _Mutant())
from sinpe.proofs.mutants import _child_main
sys.exit(_child_main(sys.argv[3] == "prove", sys.argv[4] or None, sys.argv[5] or None))
'''

# the theorems a definition mutant is proven against first: the ones that read the definition's data directly
_FIRST = ("THM-LIFT", "THM-WAVE", "THM-BOUND", "THM-ROPE-ATTN", "THM-NORM", "THM-CPLX")


def _child_main(prove: bool = True, first: str | None = None, marks: str | None = None) -> int:
    """In the mutant's child: the fingerprint (``marks``: a file of the real definition's section digests, the
    fingerprint stopped at the first that differs, ``differs_at``), then (``prove``) the suite without the witness
    until a theorem is not proven (``first``, then :data:`_FIRST`, then the rest)."""
    from .suite import prove_within_budget, theorems
    out: dict[str, Any] = {"differs_at": None}
    try:
        if marks is None:
            out["fingerprint"] = fingerprint()
        else:
            with open(marks, encoding="utf-8") as f:
                out["fingerprint"] = fingerprint_marks(json.load(f))[-1]
    except _Differs as e:
        out["fingerprint"], out["differs_at"] = e.digest, e.section
    except Exception as e:  # the edited definition cannot build a table: that changes a table
        out["fingerprint"] = f"error: {type(e).__name__}: {e}"[:300]
    order = ((first,) if first else ()) + _FIRST
    todo = sorted(theorems(), key=lambda t: order.index(t.id) if t.id in order else len(order)) if prove else []
    out["rejected_by"], out["failure"] = None, ""
    for t in todo:
        try:
            r = prove_within_budget(t, None, witness=False)
            ok, why = r.status == "proven", (r.failures or [""])[0]
        except Exception as e:  # a theorem that cannot be built from the edited definition is not proven
            ok, why = False, f"{type(e).__name__}: {e}"
        if not ok:
            out["rejected_by"], out["failure"] = t.id, why[:300]
            break
    sys.stdout.write(json.dumps(out))
    return 0


def _source_path() -> str:
    from sinpe.spec import definition
    return str(definition.__file__)


def mutated_source(m: DefinitionMutant) -> str:
    """spec/definition.py with ``m`` applied (ValueError if its ``old`` text is not there exactly once)."""
    with open(_source_path(), encoding="utf-8") as f:
        src = f.read()
    if src.count(m.old) != 1:
        raise ValueError(f"definition mutant {m.name!r}: its text occurs {src.count(m.old)} times in spec/definition.py")
    return src.replace(m.old, m.new)


def run_definition_mutant(m: DefinitionMutant, baseline: str, timeout: float = MUTANT_TIMEOUT,
                          prove: bool = True, first: str = "") -> dict[str, Any]:
    """One mutant in its child: {name, what, verdict: rejected | inert | survived, rejected_by, failure}
    (``prove=False``: the fingerprint only, so the verdict is inert or survived; ``first``: the theorem tried
    before the others, e.g. the one a test expects to reject the edit). Where ``baseline`` is a fingerprint this
    process computed, the child is handed its section digests and stops fingerprinting at the first that differs."""
    row: dict[str, Any] = {"kind": "definition", "name": m.name, "what": m.what, "rejected_by": None, "failure": ""}
    with tempfile.TemporaryDirectory(prefix="sinpe-mutant-") as tmp:
        path = os.path.join(tmp, "definition.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(mutated_source(m))
        marks = ""
        if baseline in _MARKS:
            marks = os.path.join(tmp, "marks.json")
            with open(marks, "w", encoding="utf-8") as f:
                json.dump(_MARKS[baseline], f)
        try:
            res = subprocess.run([sys.executable, "-c", _BOOT, path, _source_path(), "prove" if prove else "values", first,
                                  marks], capture_output=True, text=True, timeout=timeout, cwd=tmp)
        except subprocess.TimeoutExpired:
            return {**row, "verdict": "survived", "failure": f"did not finish within {timeout:g} s (a hang survives)"}
    try:
        got = json.loads(res.stdout)
    except json.JSONDecodeError:
        return {**row, "verdict": "survived", "failure": f"child exit {res.returncode}: {res.stderr.strip()[-300:]}"}
    row.update(rejected_by=got["rejected_by"], failure=got["failure"],
               changes_values=got["differs_at"] is not None or got["fingerprint"] != baseline)
    row["verdict"] = "rejected" if got["rejected_by"] else "inert" if not row["changes_values"] else "survived"
    return row


def run_definition_mutants(names: list[str] | None = None, workers: int = 2,
                           progress: Callable[[int, int, str], None] | None = None) -> list[dict[str, Any]]:
    """Every definition mutant (or those named), ``workers`` children at a time, in the order of the table."""
    todo = [m for m in DEFINITION_MUTANTS if names is None or m.name in names]
    baseline = fingerprint()
    rows: list[dict[str, Any]] = [{} for _ in todo]
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = {pool.submit(run_definition_mutant, m, baseline): i for i, m in enumerate(todo)}
        for n, fut in enumerate(futures):
            rows[futures[fut]] = fut.result()
            if progress is not None:
                progress(n + 1, len(todo), todo[futures[fut]].name)
    return rows


# --------------------------------------------------------------------------------------------- scope mutants

def _claims_without(t: Any, plan: str) -> list[Any]:
    """The claims of theorem ``t`` but those of one plan (the mutant 'plans-...')."""
    return [c for c in t.claims() if c.plan != plan]


def scope_mutants(t: Any) -> list[tuple[str, Callable[[], Any]]]:
    """The scope mutants of an :class:`~sinpe.proofs.engine.ObligationTheorem`: each a (name, prove) pair whose
    proof must come out not proven."""
    import copy

    from sinpe.spec.theorems import PARAMETERS
    out: list[tuple[str, Callable[[], Any]]] = []
    unused = next((p for p in PARAMETERS if p not in t.params), None)
    if unused is not None:
        wide = copy.copy(t)
        wide.params = t.params + (unused,)
        out.append((f"scope+{unused}", functools.partial(wide.prove, witness=False)))
    if t.params:
        narrow = copy.copy(t)
        narrow.params = t.params[1:]
        out.append((f"scope-{t.params[0]}", functools.partial(narrow.prove, witness=False)))
    if not t.per_label and any(c.plan for c in t.claims()):
        drop = next(c.plan for c in t.claims() if c.plan)
        fewer = copy.copy(t)
        fewer._claims = functools.partial(_claims_without, t, drop)
        fewer._claim_cache, fewer._cache = None, None
        out.append((f"plans-{drop}", functools.partial(fewer.prove, witness=False)))
    return out


@contextlib.contextmanager
def offset_zero() -> Iterator[None]:
    """The every-d statements built with the offset o replaced by 0 (a builder edited in spec/theorems.py)."""
    import dataclasses

    from sinpe.spec import theorems as T
    real = T.GENERIC_DEFINITION
    T.GENERIC_DEFINITION = dataclasses.replace(real, offset=0)
    try:
        yield
    finally:
        T.GENERIC_DEFINITION = real


# --------------------------------------------------------------------------------------------- procedure mutants

@dataclass(frozen=True)
class ProcedureMutant:
    """``patch()`` makes one rule of a procedure unsound while it is entered; ``sentinel()`` is True when, so
    patched, the procedures accept the false statement written for that rule."""

    name: str
    rule: str
    patch: Callable[[], Any]
    sentinel: Callable[[], bool]


@contextlib.contextmanager
def _replaced(module: Any, attr: str, value: Any) -> Iterator[None]:
    real = getattr(module, attr)
    setattr(module, attr, value)
    try:
        yield
    finally:
        setattr(module, attr, real)


def _decides(lhs: Any, rhs: Any, method: str = "normal", at: tuple = ()) -> bool:
    from sinpe.spec.theorems import Obligation

    from .engine import decide_obligation
    return decide_obligation(Obligation("sentinel", lhs, rhs, method, at))[0]


def _patch_at() -> Any:
    from . import normal
    real = normal.decide
    return _replaced(normal, "decide", lambda lhs, rhs, at=(): normal.Verdict(True, 1) if at else real(lhs, rhs, at))


def _patch_ranges() -> Any:
    from . import normal
    real = normal._linearize_sums
    proxies: dict[int, dict] = {}

    class _AnyRange(dict):  # a sum's unknown keyed by its summand alone: sums over different ranges merged
        def __contains__(self, key: object) -> bool:
            return dict.__contains__(self, key[0])  # type: ignore[index]

        def __getitem__(self, key: Any) -> Any:
            return dict.__getitem__(self, key[0])

        def __setitem__(self, key: Any, v: Any) -> None:
            dict.__setitem__(self, key[0], v)

    def merged(e: Any, dependent: Any, sums: dict, rules: set) -> Any:
        return real(e, dependent, proxies.setdefault(id(sums), _AnyRange()), rules)
    return _replaced(normal, "_linearize_sums", merged)


def _patch_count() -> Any:
    import sympy as sp

    from . import normal
    real = normal._linearize_sums

    def short(e: Any, dependent: Any, sums: dict, rules: set) -> Any:  # Sum(1, (j, lo, hi)) = hi - lo
        return real(e.replace(lambda x: isinstance(x, sp.Sum) and x.function == 1,
                              lambda x: x.limits[0][2] - x.limits[0][1]), dependent, sums, rules)
    return _replaced(normal, "_linearize_sums", short)


def _patch_cyclotomic() -> Any:
    import sympy as sp

    from . import normal
    real = normal.atom_table

    def order_one(exprs: list) -> Any:  # exp(i pi u/v) reduced modulo X - 1, whatever its order
        t = real(exprs)
        t.relations[:] = [(X, X - 1) if t.meaning[X].args[0].has(sp.pi) else (X, rel) for X, rel in t.relations]
        return t
    return _replaced(normal, "atom_table", order_one)


def _patch_opaque() -> Any:
    import sympy as sp

    from . import normal
    real = normal.atom_table
    one = sp.Dummy("Y")

    def merged(exprs: list) -> Any:
        t = real(exprs)
        for Y in list(t.opaque):
            for k, v in list(t.rewrite.items()):
                if v == Y:
                    t.rewrite[k] = one
        t.opaque = {one: sp.Integer(0)} if t.opaque else {}
        return t
    return _replaced(normal, "atom_table", merged)


def _patch_characters() -> Any:
    from . import canonical
    return _replaced(canonical, "_check_characters", lambda *a, **k: None)


def _patch_groebner() -> Any:
    from . import groebner
    real = groebner.certify

    def always(f: Any) -> Any:
        c = real(f)
        return groebner.Certificate(c.f, c.generators, c.quotients, c.remainder, c.variables, True)
    return _both(_replaced(groebner, "certify", always), _replaced(groebner, "recheck", lambda c: True))


@contextlib.contextmanager
def _both(a: Any, b: Any) -> Iterator[None]:
    with a, b:
        yield


def _patch_sos() -> Any:
    from . import groebner
    return _replaced(groebner, "is_manifest_sos", lambda r, real=None: True)


def _patch_sos_real() -> Any:
    from . import groebner
    return _replaced(groebner, "real_domain", lambda *exprs: "")


def _patch_rational() -> Any:
    import sympy as sp

    from . import symbolic
    return _replaced(symbolic, "rational_identity",
                     lambda a, b: sp.Poly(sp.fraction(sp.together(sp.sympify(a) - sp.sympify(b)))[0], *(
                         sp.sympify(a - b).free_symbols or {sp.Dummy()})).degree() <= 0)


def _patch_positive() -> Any:
    import sympy as sp

    from . import symbolic

    def nonneg(poly: Any, var: Any, start: int) -> bool:  # the constant may be 0: "> 0" read as ">= 0"
        m = sp.Dummy("m")
        num, den = sp.fraction(sp.together(sp.sympify(poly).subs(var, start + m)))
        return all(c.is_Rational and c >= 0 for part in (num, den) for c in sp.Poly(sp.expand(part), m).all_coeffs())
    return _replaced(symbolic, "positive_from", nonneg)


def _patch_distinct() -> Any:
    import sympy as sp

    from . import engine

    def merged(obs: list) -> tuple[list, int]:  # duplicates merged ignoring the substitution `at`
        seen: dict = {}
        for ob in obs:
            seen.setdefault((ob.method, sp.srepr(ob.lhs), sp.srepr(ob.rhs)), ob)
        return list(seen.values()), len(obs) - len(seen)
    return _replaced(engine, "distinct", merged)


def _sentinel_at() -> bool:
    import sympy as sp

    from sinpe.spec.theorems import AT_NEG, KNEG, K
    return _decides(sp.sin(KNEG), sp.sin(K), at=AT_NEG)  # sin(-k) = sin(k): false


def _sentinel_ranges() -> bool:
    import sympy as sp
    x, j = sp.Symbol("x", real=True), sp.Symbol("j", integer=True)
    n = sp.Symbol("n", integer=True, positive=True)
    return _decides(sp.Sum(sp.cos(j * x), (j, 0, n - 1)), sp.Sum(sp.cos(j * x), (j, 1, n)))


def _sentinel_count() -> bool:
    import sympy as sp
    j, n = sp.Symbol("j", integer=True), sp.Symbol("n", integer=True, positive=True)
    return _decides(sp.Sum(sp.Integer(1), (j, 0, n - 1)), n - 1)


def _sentinel_cyclotomic() -> bool:
    import sympy as sp
    z = sp.exp(sp.I * sp.pi / 3)
    return _decides(z + 1 / z, sp.Integer(2))  # 2 cos(pi/3) = 1, not 2


def _sentinel_opaque() -> bool:
    import sympy as sp
    x, y = sp.symbols("x y", real=True)
    return _decides(sp.Abs(x), sp.Abs(y))


def _sentinel_characters() -> bool:
    import sympy as sp

    from .canonical import NotCanonical, coefficients
    p, a = sp.symbols("p a", real=True)
    w = sp.sqrt(3 + 2 * sp.sqrt(2))  # = 1 + sqrt(2): one frequency written twice; a = 1 solves it
    try:
        return sp.linsolve(coefficients(sp.sin(w * p) - a * sp.sin((1 + sp.sqrt(2)) * p), (p,)), [a]) == sp.EmptySet
    except NotCanonical:
        return False


def _sentinel_groebner() -> bool:
    import sympy as sp
    k = sp.Symbol("k", real=True)
    return _decides(sp.sin(k) ** 2, sp.cos(k) ** 2, "groebner")


def _sentinel_sos() -> bool:
    import sympy as sp
    p = sp.Symbol("p", real=True)
    return _decides(2 * sp.sin(p), sp.Integer(1), "sos")


def _sentinel_sos_real() -> bool:
    import sympy as sp
    return _decides(sp.sin(sp.Symbol("z")), sp.Integer(1), "sos")  # z complex: |sin z| is unbounded


def _sentinel_rational() -> bool:
    from sinpe.spec.theorems import N

    from . import symbolic
    return symbolic.rational_identity(N + 1, N)


def _sentinel_positive() -> bool:
    from sinpe.spec.theorems import N

    from . import symbolic
    return symbolic.positive_from(N - 1, N, 1)  # n - 1 > 0 is false at n = 1


def _sentinel_distinct() -> bool:
    import sympy as sp

    from sinpe.spec.theorems import Claim, K

    from .engine import ObligationTheorem
    claims = [Claim("sin(k)", sp.sin(K), sp.Integer(0), at=((K, sp.Integer(0)),)), Claim("sin(k)", sp.sin(K), sp.Integer(0))]
    t = ObligationTheorem("THM-CPLX", "sentinel", lambda: claims, (), per_label=True)
    return t.prove(witness=False).status == "proven"  # sin(k) = 0 for every k: false (at k = 0 it is true)


PROCEDURE_MUTANTS: tuple[ProcedureMutant, ...] = (
    ProcedureMutant("at-is-proof", "(E) answers proven whenever an obligation has a substitution", _patch_at, _sentinel_at),
    ProcedureMutant("sums-ranges-merged", "RULE-SUM-LINEARITY merges sums over different ranges", _patch_ranges, _sentinel_ranges),
    ProcedureMutant("sum-count-off-by-one", "RULE-SUM-LINEARITY: sum_{lo}^{hi} 1 = hi - lo", _patch_count, _sentinel_count),
    ProcedureMutant("cyclotomic-order-1", "(E) reduces every root of unity modulo X - 1", _patch_cyclotomic, _sentinel_cyclotomic),
    ProcedureMutant("opaque-atoms-merged", "(E) takes every opaque atom for one", _patch_opaque, _sentinel_opaque),
    ProcedureMutant("characters-unchecked", "(L) reads coefficients without AX-CHARACTERS' distinct frequencies",
                    _patch_characters, _sentinel_characters),
    ProcedureMutant("groebner-unchecked", "(G) answers proven whatever the remainder, the re-check skipped", _patch_groebner,
                    _sentinel_groebner),
    ProcedureMutant("sos-any-remainder", "(S) takes any remainder for a sum of squares", _patch_sos, _sentinel_sos),
    ProcedureMutant("sos-complex-phases", "(S) without its precondition that phases are real", _patch_sos_real, _sentinel_sos_real),
    ProcedureMutant("rational-identity-constant", "a rational identity accepted when the difference is a constant",
                    _patch_rational, _sentinel_rational),
    ProcedureMutant("positivity-nonstrict", "polynomial positivity with a zero constant accepted", _patch_positive, _sentinel_positive),
    ProcedureMutant("duplicates-ignore-at", "obligations merged as duplicates although their substitutions differ",
                    _patch_distinct, _sentinel_distinct),
)


def run_procedure_mutants(statement_mutants: Callable[[], list[str]] | None = None) -> list[dict[str, Any]]:
    """Each procedure mutant in place: rejected when it makes a known-false statement proven (its sentinel, or one
    of the statement mutants ``statement_mutants()`` returns as proven, i.e. surviving). Without the patch every
    sentinel must be refuted (else the sentinel proves nothing: reported as 'sentinel-true')."""
    rows = []
    for m in PROCEDURE_MUTANTS:
        row: dict[str, Any] = {"kind": "procedure", "name": m.name, "what": m.rule, "rejected_by": None, "failure": ""}
        if m.sentinel():
            rows.append({**row, "verdict": "sentinel-true", "failure": "the sentinel is proven by the sound procedures"})
            continue
        with m.patch():
            hit = m.sentinel()
            survivors = statement_mutants() if statement_mutants is not None and not hit else []
        if hit or survivors:
            row.update(verdict="rejected", rejected_by="sentinel" if hit else survivors[0],
                       failure="a false statement is proven with it: " + ("its sentinel" if hit else ", ".join(survivors[:3])))
        else:
            row.update(verdict="survived", failure="no false statement of the corpus is proven with it")
        rows.append(row)
    return rows
