"""The parametric family of sinusoidal encodings (SPEC.md DEF-FAMILY) and its presets (DEF-PRESET-*).

Every parameter is an exact rational (:class:`fractions.Fraction`) so that the symbolic,
interval and high-precision backends all see the same number; ``1e4`` means exactly 10000.

>>> get_profile("vaswani")
Profile(name='vaswani', layout='interleaved', shift=None, base=Fraction(10000, 1), phase_scale=Fraction(1, 1), amplitude=Fraction(1, 1), offset=Fraction(0, 1), odd='trailing-sin')
>>> get_profile("t2t").shift
Fraction(1, 1)
>>> get_profile("vaswani", base="500").describe()
'interleaved [s0,c0,s1,c1,...], w_k = 500^(-2k/d), odd d: trailing-sin'
"""
from __future__ import annotations

import ast
import dataclasses
import math
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

Number = int | float | str | Fraction

MAX_DECIMAL_EXPONENT = 4000  # |e| of a decimal 'Me±e': bounded before 10**e is computed (REQ-CHECK-LIMITS)
MAX_NUMBER_CHARS = 1000
_EXPONENT = re.compile(r"[eE]\s*([+-]?\d+)\s*$")

LAYOUTS = ("interleaved", "sin-cos", "cos-sin")
ODD_RULES = ("trailing-sin", "zero-pad", "ceil-split", "error")


def to_fraction(x: Number, what: str = "value") -> Fraction:
    """Exact rational from an int, a decimal string (``'1e4'``, ``'2.5'``) or a float (its exact value).

    >>> to_fraction("1e-3")
    Fraction(1, 1000)
    >>> to_fraction(0.5)
    Fraction(1, 2)
    """
    if isinstance(x, Fraction):
        return x
    if isinstance(x, bool):
        raise ValueError(f"{what} must be a number, got {x!r}")
    if isinstance(x, str):
        if len(x) > MAX_NUMBER_CHARS:
            raise ValueError(f"{what} must be a number of at most {MAX_NUMBER_CHARS} characters; got {len(x)}")
        m = _EXPONENT.search(x)
        if m and len(m.group(1)) > 6 or m and abs(int(m.group(1))) > MAX_DECIMAL_EXPONENT:
            raise ValueError(f"{what} {x[:40]!r}: decimal exponent beyond +-{MAX_DECIMAL_EXPONENT}")
    try:
        f = Fraction(x) if not isinstance(x, str) else Fraction(x.strip())
    except (ValueError, TypeError, OverflowError, ZeroDivisionError):
        if isinstance(x, str):  # a simple expression (1/sqrt(64), 2**-3), read through a whitelist
            return parse_exact_expression(x, what)
        raise ValueError(f"{what} must be a finite number, got {x!r}") from None
    return f


# + - * / of an expression's syntax tree, one registry for every reader of whitelisted expressions: the exact one
# here (Fractions), its binary64 twin for messages, and the claims' SymPy builder (proofs/claims.py). Each adds
# its own refusals (division by zero) and its own ``**``, whose limits differ.
ARITHMETIC: Mapping[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}

EXPRESSION_FORMS = ("decimals (1e4, 0.125)", "fractions (1/8)", "+ - * / and parentheses",
                    "integer powers (2**-3, 10**4)", "sqrt of a perfect square (1/sqrt(64))")


def parse_exact_expression(text: str, what: str = "value") -> Fraction:
    """The exact rational a simple expression denotes, read through a whitelist (never ``eval``):
    decimal literals (each read exactly), ``+ - * /``, parentheses, ``**`` with an integer exponent of
    magnitude at most 64, and ``sqrt(x)`` when x is the square of a rational. An irrational value is
    refused, naming the binary64 value to pass instead (parameters are exact rationals, DEF-FAMILY).

    >>> parse_exact_expression("1/sqrt(64)"), parse_exact_expression("2**-3 * (1e4 - 1)")
    (Fraction(1, 8), Fraction(9999, 8))
    >>> parse_exact_expression("1/sqrt(512)", "--amplitude")
    Traceback (most recent call last):
    ...
    ValueError: --amplitude '1/sqrt(512)' is irrational (sqrt(512) is not rational); parameters are exact rationals: pass the value your implementation uses, e.g. its binary64 value 0.044194173824159216 (or float32 0.0441941730678081512451171875)
    >>> parse_exact_expression("__import__('os')")
    Traceback (most recent call last):
    ...
    ValueError: value must be a finite number or a simple expression, got "__import__('os')"; accepted: decimals (1e4, 0.125), fractions (1/8), + - * / and parentheses, integer powers (2**-3, 10**4), sqrt of a perfect square (1/sqrt(64))
    """
    import math as _m
    src = text.strip()
    bad = ValueError(f"{what} must be a finite number or a simple expression, got {text!r}; accepted: "
                     f"{', '.join(EXPRESSION_FORMS)}")
    if len(src) > 200:
        raise bad
    try:
        tree = ast.parse(src, mode="eval")
    except SyntaxError:
        raise bad from None

    class _Irrational(Exception):
        pass

    def ev(n: ast.AST) -> Fraction:
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) and not isinstance(n.value, bool):
            seg = ast.get_source_segment(src, n) or ""
            m = _EXPONENT.search(seg)
            if not re.fullmatch(r"[0-9.eE+-]+", seg) or m and abs(int(m.group(1))) > MAX_DECIMAL_EXPONENT:
                raise bad
            return Fraction(seg)  # the literal's text, exactly (1e-3 is 1/1000)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.UAdd, ast.USub)):
            v = ev(n.operand)
            return -v if isinstance(n.op, ast.USub) else v
        if isinstance(n, ast.BinOp) and (type(n.op) in ARITHMETIC or isinstance(n.op, ast.Pow)):
            a, b = ev(n.left), ev(n.right)
            if isinstance(n.op, ast.Div) and b == 0:
                raise ValueError(f"{what} {text!r} divides by zero")
            if not isinstance(n.op, ast.Pow):
                return ARITHMETIC[type(n.op)](a, b)
            if b.denominator != 1 or abs(b) > 64:
                raise ValueError(f"{what} {text!r}: only integer powers of magnitude <= 64 are accepted")
            if a == 0 and b < 0:
                raise ValueError(f"{what} {text!r} divides by zero")
            return a ** int(b)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "sqrt" and len(n.args) == 1 \
                and not n.keywords:
            v = ev(n.args[0])
            if v < 0:
                raise ValueError(f"{what} {text!r}: sqrt of a negative number")
            rn, rd = _m.isqrt(v.numerator), _m.isqrt(v.denominator)
            if rn * rn != v.numerator or rd * rd != v.denominator:
                raise _Irrational(f"sqrt({format_number(v)})")
            return Fraction(rn, rd)
        raise bad

    try:
        return ev(tree.body)
    except _Irrational as e:
        import numpy as _np  # only on this error path
        approx = _approximate(tree.body, src)
        raise ValueError(f"{what} {text!r} is irrational ({e} is not rational); parameters are exact rationals: pass "
                         f"the value your implementation uses, e.g. its binary64 value {approx!r} (or float32 "
                         f"{format_number(float(_np.float32(approx)))})") from None


def _approximate(node: object, src: str) -> float:
    """The binary64 value of a whitelisted expression (for the message refusing an irrational one)."""
    import math as _m
    if isinstance(node, ast.Constant):
        return float(node.value)  # type: ignore[arg-type]  # the parser admits numbers only
    if isinstance(node, ast.UnaryOp):
        v = _approximate(node.operand, src)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp):
        a, b = _approximate(node.left, src), _approximate(node.right, src)
        op = ARITHMETIC.get(type(node.op))
        return a ** b if op is None else op(a, b)  # ** the only other operator the parser admits
    if isinstance(node, ast.Call):
        return _m.sqrt(_approximate(node.args[0], src))
    raise ValueError("not an expression")


_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")  # what argparse reads as a negative number, not a flag


def _flag_value(flag: str, value: str) -> str:
    """``flag value``, or ``flag=value`` for a value argparse would read as a flag (-1/3, -1e-05; -1 and -0.5 it
    reads as numbers): the printed flags run as printed.

    >>> _flag_value("--offset", "-1"), _flag_value("--offset", "-1/3"), _flag_value("--amplitude", "-1e-05")
    ('--offset -1', '--offset=-1/3', '--amplitude=-1e-05')
    """
    return f"{flag}={value}" if value.startswith("-") and not _NEGATIVE_NUMBER.match(value) else f"{flag} {value}"


def format_number(x: Number) -> str:
    """The shortest text that parses back (:func:`to_fraction`) to exactly ``x``: an integer, else the
    shortest decimal denoting it exactly when there is one, else ``n/d``.

    >>> format_number(Fraction(2209708691207961, 50000000000000000)), format_number(Fraction(1, 3)), format_number(0.1)
    ('0.04419417382415922', '1/3', '0.1000000000000000055511151231257827021181583404541015625')
    >>> format_number(Fraction(5, 2)), format_number(10000), format_number(Fraction(-1, 8))
    ('2.5', '10000', '-0.125')
    """
    q = to_fraction(x)
    if q.denominator == 1:
        return str(q.numerator)
    f = float(q)
    if math.isfinite(f) and Fraction(repr(f)) == q:
        return repr(f)
    den, twos, fives = q.denominator, 0, 0
    while den % 2 == 0:
        den, twos = den // 2, twos + 1
    while den % 5 == 0:
        den, fives = den // 5, fives + 1
    if den == 1 and max(twos, fives) <= 60:  # a terminating decimal: print it whole
        digits = max(twos, fives)
        s = str(abs(q.numerator) * 10**digits // q.denominator).rjust(digits + 1, "0")
        s = (s[:-digits] + "." + s[-digits:]).rstrip("0").rstrip(".")
        return ("-" if q < 0 else "") + s
    return f"{q.numerator}/{q.denominator}"


@dataclass(frozen=True)
class Profile:
    """One member of the family DEF-FAMILY.

    Column j of PE(p) is ``amplitude * f_j(phase_scale * (p + offset) * w_k)`` with
    f_j in {sin, cos, 0} and frequency ``w_k = base ** (-k / D)`` where
    ``D = d/2`` when ``shift is None`` (DEF-SCHEDULE-HALF, Vaswani) and ``D = floor(d/2) - shift``
    otherwise (DEF-SCHEDULE-SHIFT; shift 1 is tensor2tensor's ``k/(n-1)``).
    Which (f_j, k) sits in column j is fixed by ``layout`` and, for odd d, ``odd`` (DEF-LAYOUT, DEF-ODD).
    """

    name: str | None = None
    layout: str = "interleaved"
    shift: Fraction | None = None
    base: Fraction = Fraction(10000)
    phase_scale: Fraction = Fraction(1)
    amplitude: Fraction = Fraction(1)
    offset: Fraction = Fraction(0)
    odd: str = "trailing-sin"

    def __post_init__(self) -> None:
        if self.layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}; got {self.layout!r}")
        if self.odd not in ODD_RULES:
            raise ValueError(f"odd rule must be one of {', '.join(ODD_RULES)}; got {self.odd!r}")
        for field in ("base", "phase_scale", "amplitude", "offset"):
            object.__setattr__(self, field, to_fraction(getattr(self, field), field))
        if self.shift is not None:
            object.__setattr__(self, "shift", to_fraction(self.shift, "shift"))
        if self.base <= 0 or self.base == 1:
            raise ValueError(f"base must be positive and not 1; got {self.base}")

    def replace(self, **changes: object) -> Profile:
        """A copy with some parameters changed; the name is dropped unless it still matches a preset."""
        p = dataclasses.replace(self, name=None, **changes)  # type: ignore[arg-type]
        return dataclasses.replace(p, name=preset_name_of(p))

    def params(self) -> dict[str, object]:
        """The parameters as JSON-friendly values (rationals as strings)."""
        return {
            "layout": self.layout,
            "shift": None if self.shift is None else str(self.shift),
            "base": str(self.base),
            "phase_scale": str(self.phase_scale),
            "amplitude": str(self.amplitude),
            "offset": str(self.offset),
            "odd": self.odd,
        }

    def cli_flags(self) -> str:
        """The ``sinpe table``/``sinpe check`` flags that select this profile (fewest flags over presets).

        >>> get_profile("t2t", phase_scale=1000).cli_flags()
        '--profile t2t --phase-scale 1000'
        """
        if self.name is not None:
            return f"--profile {self.name}"
        best: list[str] | None = None
        for name, base in PRESETS.items():
            out = [f"--profile {name}"]
            if self.layout != base.layout:
                out.append(f"--layout {self.layout}")
            if self.shift != base.shift:
                out.append(f"--shift {'half' if self.shift is None else self.shift}")
            for flag, field in (("--base", "base"), ("--phase-scale", "phase_scale"),
                                ("--amplitude", "amplitude"), ("--offset", "offset")):
                if getattr(self, field) != getattr(base, field):
                    out.append(_flag_value(flag, format_number(getattr(self, field))))
            if self.odd != base.odd:
                out.append(f"--odd {self.odd}")
            if best is None or len(out) < len(best):
                best = out
        assert best is not None
        return " ".join(best)

    def describe(self) -> str:
        """One line a person reads."""
        lay = {"interleaved": "interleaved [s0,c0,s1,c1,...]", "sin-cos": "[sin...|cos...]",
               "cos-sin": "[cos...|sin...]"}[self.layout]
        b = str(self.base)
        if self.shift is None:
            sched = f"w_k = {b}^(-2k/d)"
        elif self.shift == 0:
            sched = f"w_k = {b}^(-k/floor(d/2))"
        else:
            sched = f"w_k = {b}^(-k/(floor(d/2)-{self.shift}))"
        extra = []
        if self.phase_scale != 1:
            extra.append(f"phase scale {self.phase_scale}")
        if self.amplitude != 1:
            extra.append(f"amplitude {self.amplitude}")
        if self.offset != 0:
            extra.append(f"position offset {self.offset}")
        return ", ".join([lay, sched, *extra, f"odd d: {self.odd}"])


# DEF-PRESET-*: which public code ships each one is in SPEC.md, section "Presets".
PRESETS: Mapping[str, Profile] = {
    "vaswani": Profile("vaswani", "interleaved", None),
    "vaswani-concat": Profile("vaswani-concat", "sin-cos", None, odd="ceil-split"),
    # shift 0: D = floor(d/2), = d/2 for even d; for odd d what diffusers (flip_sin_to_cos, shift 0) and
    # guided-diffusion compute (spec/sources.py), not the half-integer d/2.
    "vaswani-concat-cos": Profile("vaswani-concat-cos", "cos-sin", Fraction(0), odd="zero-pad"),
    "t2t": Profile("t2t", "sin-cos", Fraction(1), odd="zero-pad"),
    "t2t-cos": Profile("t2t-cos", "cos-sin", Fraction(1), odd="zero-pad"),
}


def preset_name_of(p: Profile) -> str | None:
    """The preset whose parameters equal ``p``'s, or None."""
    for name, q in PRESETS.items():
        if dataclasses.replace(q, name=None) == dataclasses.replace(p, name=None):
            return name
    return None


def get_profile(name: str = "vaswani", **overrides: object) -> Profile:
    """A preset, optionally with parameters overridden (``None`` values are ignored).

    >>> get_profile("t2t", base=10).describe()
    '[sin...|cos...], w_k = 10^(-k/(floor(d/2)-1)), odd d: zero-pad'
    >>> get_profile("nope")
    Traceback (most recent call last):
    ...
    ValueError: unknown profile 'nope'; presets: vaswani, vaswani-concat, vaswani-concat-cos, t2t, t2t-cos
    """
    if name not in PRESETS:
        raise ValueError(f"unknown profile {name!r}; presets: {', '.join(PRESETS)}")
    changes = {k: v for k, v in overrides.items() if v is not None}
    # shift=None means "the preset's own"; the string "half" asks for Vaswani's D = d/2.
    if "shift" in changes and isinstance(changes["shift"], str) and changes["shift"].lower() in ("half", "none"):
        changes["shift"] = None  # explicit request for the Vaswani d/2 schedule
    return PRESETS[name].replace(**changes) if changes else PRESETS[name]
