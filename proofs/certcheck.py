"""An independent checker of proof certificates (REQ-PROVE-CERT, SPEC.md section 5): Python's standard library only.

``sinpe prove --certificates DIR`` writes what each decision computed; this module re-verifies it with
exact rational arithmetic on polynomials (dicts exponent-tuple -> Gaussian rational), trusting neither
SymPy nor mpmath nor any other sinpe module. It can be copied alone and run as
``python certcheck.py DIR``. What it checks, per entry:

- ``normal-form`` ((E), (L)): each side as numerator/denominator polynomials in named atoms;
  ``lhs.num * rhs.den - rhs.num * lhs.den - sum_j cofactor_j * relation_j`` is exactly 0, the
  denominators are not the zero polynomial, and a cyclotomic relation is the cyclotomic polynomial of
  its order (recomputed here);
- ``ideal-membership`` ((G)): ``f - sum_i q_i g_i - r`` is exactly 0 and r = 0; every generator marked
  Pythagorean is exactly ``s**2 + c**2 - 1`` in its two variables;
- ``sos`` ((S)): the same identity, and r is a manifest sum of squares: every term a positive rational
  times even powers of variables declared real;
- ``plan`` (THM-LIFT's steps, and the plan steps of THM-SHIFT and THM-ROPE-*): the column plan's segments as
  integer linear forms in n; the bijection onto 0..d-1 for every n and the label partition are decided here
  again, with integers only;
- the witness: every ball's midpoint and radius is a dyadic rational, radii are >= 0, and the recorded balls
  of the two sides intersect (for a bound, |lhs| may be <= rhs): the witness does not refute.

Not checked (trusted, and said in each certificate): that the polynomials are the rewrite of the
statement (the ``meaning`` of each variable is recorded as text), the assumption-engine facts, and steps
marked ``uncertified``. Exit codes of :func:`main`: 0 every entry verified, 1 an entry fails (the obligation
is named), 2 unreadable input, 3 some obligations are uncertified.

>>> poly = {"variables": ["s", "c"], "f": [[[2, 0], "1"], [[0, 2], "1"], [[0, 0], "-1"]],
...         "generators": [{"poly": [[[2, 0], "1"], [[0, 2], "1"], [[0, 0], "-1"]], "pythagorean": ["s", "c"]}],
...         "quotients": [[[[0, 0], "1"]]], "remainder": []}
>>> check_entry({"kind": "ideal-membership", "name": "sin^2 + cos^2 = 1", **poly})
>>> check_entry({"kind": "ideal-membership", "name": "tampered", **poly, "quotients": [[]]})
Traceback (most recent call last):
...
sinpe.proofs.certcheck.Failed: tampered: f - sum q_i g_i - r is not 0 (3 term(s) left)
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from fractions import Fraction
from functools import lru_cache

SCHEMA = "sinpe-proof-certificate/1"
INDEX = "index.json"
MAX_FILE_BYTES = 64 * 2**20  # refused before parsing
MAX_FILES = 512
MAX_DIGITS = 4000  # of one numerator or denominator
MAX_EXPONENT = 10**6
_RATIONAL = re.compile(r"-?[0-9]+(/[0-9]+)?\Z")
ZERO = (Fraction(0), Fraction(0))


class Malformed(ValueError):
    """The input is not a readable certificate (exit 2)."""


class Failed(ValueError):
    """A certificate does not verify (exit 1); the message names the obligation."""


# ------------------------------------------------------------------------------ numbers and polynomials

def rational(text: object) -> Fraction:
    """A "p/q" string (no floats, no exponents, bounded length) as an exact Fraction."""
    if not isinstance(text, str) or len(text) > 2 * MAX_DIGITS + 2 or not _RATIONAL.match(text):
        raise Malformed(f"not an exact rational 'p/q': {str(text)[:40]!r}")
    value = Fraction(text)
    return value


def coefficient(x: object) -> tuple[Fraction, Fraction]:
    """A Gaussian rational: "p/q" (real) or ["p/q", "r/s"] (real, imaginary part)."""
    if isinstance(x, list) and len(x) == 2:
        return rational(x[0]), rational(x[1])
    return rational(x), Fraction(0)


def polynomial(terms: object, nvars: int) -> dict[tuple[int, ...], tuple[Fraction, Fraction]]:
    """``[[exponents], coefficient], ...`` -> {exponent tuple: coefficient}; exponents are integers (Laurent)."""
    if not isinstance(terms, list):
        raise Malformed("a polynomial must be a list of [exponents, coefficient] terms")
    out: dict[tuple[int, ...], tuple[Fraction, Fraction]] = {}
    for t in terms:
        if not (isinstance(t, list) and len(t) == 2 and isinstance(t[0], list) and len(t[0]) == nvars):
            raise Malformed(f"bad term {str(t)[:60]} (need [[{nvars} exponents], coefficient])")
        if not all(type(e) is int and abs(e) <= MAX_EXPONENT for e in t[0]):
            raise Malformed(f"exponents must be integers: {t[0][:8]}")
        out = add(out, {tuple(t[0]): coefficient(t[1])})
    return out


def _cadd(a: tuple[Fraction, Fraction], b: tuple[Fraction, Fraction]) -> tuple[Fraction, Fraction]:
    return a[0] + b[0], a[1] + b[1]


def _cmul(a: tuple[Fraction, Fraction], b: tuple[Fraction, Fraction]) -> tuple[Fraction, Fraction]:
    return a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]


def add(p: dict, q: dict, sign: int = 1) -> dict:
    """p + sign * q, zero terms removed."""
    out = dict(p)
    for m, c in q.items():
        v = _cadd(out.get(m, ZERO), (sign * c[0], sign * c[1]))
        if v == ZERO:
            out.pop(m, None)
        else:
            out[m] = v
    return out


def mul(p: dict, q: dict) -> dict:
    out: dict = {}
    for m1, c1 in p.items():
        for m2, c2 in q.items():
            m = tuple(a + b for a, b in zip(m1, m2))
            out = add(out, {m: _cmul(c1, c2)})
    return out


def cyclotomic(order: int, var: int, nvars: int) -> dict:
    """The cyclotomic polynomial Phi_order as a polynomial in variable ``var`` (recomputed, not trusted)."""
    if not (type(order) is int and 1 <= order <= 360):
        raise Malformed(f"bad cyclotomic order {order!r}")
    return {tuple(i if j == var else 0 for j in range(nvars)): (c, Fraction(0)) for i, c in enumerate(_phi(order)) if c}


@lru_cache(maxsize=None)
def _phi(n: int) -> tuple[Fraction, ...]:
    """Coefficients (low -> high) of Phi_n = (x**n - 1) / prod_{d | n, d < n} Phi_d (memoised: each order once)."""
    coeffs = [Fraction(-1)] + [Fraction(0)] * (n - 1) + [Fraction(1)]
    for d in range(1, n):
        if n % d == 0:
            coeffs = _divide(coeffs, list(_phi(d)))
    return tuple(coeffs)


def _divide(num: list[Fraction], den: list[Fraction]) -> list[Fraction]:
    """Exact division of univariate polynomials (dense coefficient lists, low -> high)."""
    num, out = list(num), [Fraction(0)] * (len(num) - len(den) + 1)
    for i in range(len(out) - 1, -1, -1):
        out[i] = num[i + len(den) - 1] / den[-1]
        for j, c in enumerate(den):
            num[i + j] -= out[i] * c
    if any(num):
        raise Malformed("cyclotomic division is not exact")
    return out


# ------------------------------------------------------------------------------ entries

def _vars(entry: dict) -> list[str]:
    v = entry.get("variables")
    if not (isinstance(v, list) and all(isinstance(x, str) for x in v) and len(set(v)) == len(v)):
        raise Malformed("'variables' must be a list of distinct names")
    return v


def _left(p: dict) -> str:
    return f"({len(p)} term(s) left)"


def _check_normal(e: dict, name: str) -> None:
    v = _vars(e)
    n = len(v)
    sides = {}
    for s in ("lhs", "rhs"):
        side = e.get(s)
        if not isinstance(side, dict):
            raise Malformed(f"{name}: '{s}' must be {{num, den}}")
        sides[s] = polynomial(side.get("num"), n), polynomial(side.get("den"), n)
        if not sides[s][1]:
            raise Failed(f"{name}: the denominator of the {s} is the zero polynomial")
    (ln, ld), (rn, rd) = sides["lhs"], sides["rhs"]
    diff = add(mul(ln, rd), mul(rn, ld), -1)
    for rel in e.get("relations", []):
        if not isinstance(rel, dict) or rel.get("kind") != "cyclotomic":
            raise Malformed(f"{name}: only cyclotomic relations are checked, not {str(rel)[:60]}")
        g = polynomial(rel.get("poly"), n)
        if rel.get("variable") not in v or g != cyclotomic(rel.get("order"), v.index(rel["variable"]), n):
            raise Failed(f"{name}: relation of {rel.get('variable')} is not the cyclotomic polynomial of order {rel.get('order')}")
        diff = add(diff, mul(polynomial(rel.get("cofactor"), n), g), -1)
    if diff:
        raise Failed(f"{name}: lhs.num*rhs.den - rhs.num*lhs.den - sum cofactor*relation is not 0 {_left(diff)}")


def _pythagorean(pair: object, v: list[str]) -> dict:
    if not (isinstance(pair, list) and len(pair) == 2 and all(x in v for x in pair) and pair[0] != pair[1]):
        raise Malformed(f"bad Pythagorean pair {pair!r}")
    n, (i, j) = len(v), (v.index(pair[0]), v.index(pair[1]))
    one = (Fraction(1), Fraction(0))
    return {tuple(2 * (k == i) for k in range(n)): one, tuple(2 * (k == j) for k in range(n)): one,
            tuple(0 for _ in range(n)): (Fraction(-1), Fraction(0))}


def _check_ideal(e: dict, name: str) -> dict:
    """f - sum q_i g_i - r == 0; returns r."""
    v = _vars(e)
    n = len(v)
    gens, quos = e.get("generators"), e.get("quotients")
    if not (isinstance(gens, list) and isinstance(quos, list) and len(gens) == len(quos)):
        raise Malformed(f"{name}: need as many quotients as generators")
    rest = polynomial(e.get("f"), n)
    for g, q in zip(gens, quos):
        if not isinstance(g, dict):
            raise Malformed(f"{name}: a generator must be {{poly, pythagorean | hypothesis}}")
        gp = polynomial(g.get("poly"), n)
        if "pythagorean" in g and gp != _pythagorean(g["pythagorean"], v):
            raise Failed(f"{name}: generator marked Pythagorean is not s**2 + c**2 - 1 in {g['pythagorean']}")
        if "pythagorean" not in g and not isinstance(g.get("hypothesis"), str):
            raise Malformed(f"{name}: a generator is neither Pythagorean nor a named hypothesis")
        rest = add(rest, mul(polynomial(q, n), gp), -1)
    r = polynomial(e.get("remainder"), n)
    rest = add(rest, r, -1)
    if rest:
        raise Failed(f"{name}: f - sum q_i g_i - r is not 0 {_left(rest)}")
    return r


def _check_sos(e: dict, name: str) -> None:
    r = _check_ideal(e, name)
    v = _vars(e)
    real = e.get("real")
    if not (isinstance(real, list) and all(x in v for x in real)):
        raise Malformed(f"{name}: 'real' must list variables")
    for m, (re_, im) in r.items():
        if im != 0 or re_ <= 0:
            raise Failed(f"{name}: remainder term {m} has coefficient {re_} + {im}i, not a positive rational")
        bad = [v[i] for i, x in enumerate(m) if x % 2 or x < 0 or (x and v[i] not in real)]
        if bad:
            raise Failed(f"{name}: remainder term {m} is not an even power of real variables ({bad})")


def check_entry(e: dict) -> None:
    """Verify one certificate entry; Failed (naming it) or Malformed otherwise. ``uncertified`` passes here."""
    if not isinstance(e, dict):
        raise Malformed("an entry must be an object")
    name = str(e.get("name", "?"))[:200]
    kind = e.get("kind")
    if kind == "normal-form":
        _check_normal(e, name)
    elif kind == "ideal-membership":
        r = _check_ideal(e, name)
        if r:
            raise Failed(f"{name}: the remainder is not 0 {_left(r)}")
    elif kind == "sos":
        _check_sos(e, name)
    elif kind == "plan":
        _check_plan(e.get("plan"), name)
    elif kind == "plan-match":
        _check_match(e.get("plan"), e.get("interleaved"), name)
    elif kind != "uncertified":
        raise Malformed(f"{name}: unknown entry kind {kind!r}")


# ------------------------------------------------------------------------------ column plans (THM-LIFT's steps)

def _form(x: object) -> tuple[int, int]:
    """A linear form q*n + r given as [q, r] (integers)."""
    if not (isinstance(x, list) and len(x) == 2 and all(type(v) is int and abs(v) < 10**6 for v in x)):
        raise Malformed(f"a linear form in n is [q, r] with small integers; got {x!r}")
    return x[0], x[1]


def _at_least(f: tuple[int, int], k: int) -> bool:
    """q*n + r >= k for every integer n >= 1 (linear: q >= 0 and the value at n = 1 is >= k)."""
    return f[0] >= 0 and f[0] + f[1] >= k


def _segments(plan: object) -> tuple[list[dict], bool, object]:
    if not (isinstance(plan, dict) and isinstance(plan.get("segments"), list) and len(plan["segments"]) <= 16):
        raise Malformed("a plan is {segments: [...], odd: bool, unpaired: ...}")
    segs = []
    for s in plan["segments"]:
        if not (isinstance(s, dict) and s.get("kind") in ("sin", "cos", "zero") and s.get("a") in (0, 1, 2)):
            raise Malformed(f"a plan segment needs kind sin|cos|zero and a stride a in 0, 1, 2; got {s!r}")
        lo, hi, c, a = _form(s.get("lo")), _form(s.get("hi")), _form(s.get("c")), s["a"]
        first, last = (a * lo[0] + c[0], a * lo[1] + c[1]), (a * hi[0] + c[0], a * (hi[1] - 1) + c[1])
        segs.append({"kind": s["kind"], "lo": lo, "hi": hi, "a": a, "c": c, "first": first, "last": last})
    return segs, bool(plan.get("odd")), plan.get("unpaired")


def _check_plan(plan: object, name: str) -> None:
    """The plan maps its labels bijectively onto the columns 0..d-1 of d = 2n (+1) for every n >= 1 (and
    n = 0 when odd), and holds exactly the labels sin_i, cos_i (i < n) plus the odd column: decided here
    from the segments' linear forms, the same argument as THM-LIFT, with integers only."""
    segs, odd, unpaired = _segments(plan)
    d = (2, int(odd))
    total = (sum(s["hi"][0] - s["lo"][0] for s in segs), sum(s["hi"][1] - s["lo"][1] for s in segs))
    if total != d:
        raise Failed(f"{name}: the plan has {total[0]}n + {total[1]} labels, not d = 2n + {d[1]}")
    for s in segs:
        size = (s["hi"][0] - s["lo"][0], s["hi"][1] - s["lo"][1])
        inside = _at_least(s["first"], 0) and _at_least((d[0] - s["last"][0], d[1] - 1 - s["last"][1]), 0)
        if not (_at_least(size, 1) and inside and (s["a"] != 0 or size == (0, 1))):
            raise Failed(f"{name}: a {s['kind']} segment is empty, leaves [0, d) or repeats a column for some n >= 1")
    for x in range(len(segs)):
        for y in range(x + 1, len(segs)):
            s, t = segs[x], segs[y]
            dc = (s["c"][0] - t["c"][0], s["c"][1] - t["c"][1])
            parity = s["a"] == t["a"] == 2 and dc[0] == 0 and dc[1] % 2 == 1
            apart = any(_at_least((u["first"][0] - v["last"][0], u["first"][1] - v["last"][1]), 1)
                        for u, v in ((s, t), (t, s)))
            if not (parity or apart):
                raise Failed(f"{name}: two segments may share a column for some n >= 1")
    if odd and sorted(s["a"] * i + s["c"][1] for s in segs for i in range(s["lo"][1], s["hi"][1])) != [0]:
        raise Failed(f"{name}: at n = 0 (d = 1) the plan is not the one column 0")
    _check_labels(segs, unpaired, name)


def _check_match(plan: object, inter: object, name: str) -> None:
    """THM-LAYOUT: both plans are bijections holding the labels (:func:`_check_plan`), and each segment of the
    plan holds the labels of one segment of the interleaved plan (same function, same bounds), one to one."""
    _check_plan(plan, name)
    _check_plan(inter, name)
    left = [(s["kind"], s["lo"], s["hi"]) for s in _segments(inter)[0]]
    for s in _segments(plan)[0]:
        key = (s["kind"], s["lo"], s["hi"])
        if key not in left:
            raise Failed(f"{name}: a {s['kind']} segment holds labels no interleaved segment holds")
        left.remove(key)
    if left:
        raise Failed(f"{name}: {len(left)} interleaved segment(s) left unmatched")


def _check_labels(segs: list[dict], unpaired: object, name: str) -> None:
    for kind in ("sin", "cos"):
        mine = sorted((s for s in segs if s["kind"] == kind), key=lambda s: s["lo"][0] + s["lo"][1])
        chain = [(0, 0)] + [f for s in mine for f in (s["lo"], s["hi"])] + [(1, int(unpaired == kind))]
        if not mine or any(chain[m] != chain[m + 1] for m in range(0, len(chain), 2)):
            raise Failed(f"{name}: the {kind} labels are not exactly {kind}_i for 0 <= i < n (+ the odd column)")
    zeros = [s for s in segs if s["kind"] == "zero"]
    if len(zeros) != int(unpaired == "zero"):
        raise Failed(f"{name}: {len(zeros)} zero column(s), unpaired {unpaired!r}")


# ------------------------------------------------------------------------------ witness balls

def _dyadic(text: object) -> Fraction:
    x = rational(text)
    if x.denominator & (x.denominator - 1):
        raise Malformed(f"not a dyadic rational: {text}")
    return x


def _ball(b: object) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    """(re mid, re rad, im mid, im rad) of a complex ball {"re": [mid, rad], "im": [mid, rad]}."""
    if not (isinstance(b, dict) and all(isinstance(b.get(k), list) and len(b[k]) == 2 for k in ("re", "im"))):
        raise Malformed("a ball is {re: [mid, rad], im: [mid, rad]}")
    out = (_dyadic(b["re"][0]), _dyadic(b["re"][1]), _dyadic(b["im"][0]), _dyadic(b["im"][1]))
    if out[1] < 0 or out[3] < 0:
        raise Malformed("negative radius")
    return out


def check_point(pt: dict) -> None:
    """The recorded balls of lhs and rhs do not refute the obligation."""
    name = str(pt.get("obligation", "?"))[:200] if isinstance(pt, dict) else "?"
    if not isinstance(pt, dict):
        raise Malformed("a witness point must be an object")
    a, b = _ball(pt.get("lhs")), _ball(pt.get("rhs"))
    if pt.get("relation") == "<=":  # |lhs| <= Re rhs is possible: |lhs|_low**2 <= (Re rhs)_high**2, (Re rhs)_high >= 0
        lo = max(Fraction(0), abs(a[0]) - a[1]) ** 2 + max(Fraction(0), abs(a[2]) - a[3]) ** 2
        hi = b[0] + b[1]
        if hi < 0 or lo > hi * hi:
            raise Failed(f"witness of {name}: |lhs| > rhs certainly: the witness refutes it")
    elif abs(a[0] - b[0]) > a[1] + b[1] or abs(a[2] - b[2]) > a[3] + b[3]:
        raise Failed(f"witness of {name}: the balls of the two sides are disjoint: the witness refutes it")


# ------------------------------------------------------------------------------ files and directories

def read_json(path: str) -> object:
    """Parse one file after a size check (refused before parsing when too large)."""
    try:
        size = os.path.getsize(path)
        if size > MAX_FILE_BYTES:
            raise Malformed(f"{os.path.basename(path)}: {size} bytes > {MAX_FILE_BYTES} (refused before parsing)")
        with open(path, "rb") as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
        if len(raw) > MAX_FILE_BYTES:
            raise Malformed(f"{os.path.basename(path)}: grew past {MAX_FILE_BYTES} bytes while read")
        return json.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise Malformed(f"{os.path.basename(path)}: unreadable ({type(exc).__name__}: {str(exc)[:80]})") from None


def check_file(path: str) -> dict:
    """Verify one theorem's certificate file: {theorem, verified, uncertified, failures, sha256, by_procedure}."""
    doc = read_json(path)
    if not (isinstance(doc, dict) and doc.get("schema") == SCHEMA and isinstance(doc.get("entries"), list)):
        raise Malformed(f"{os.path.basename(path)}: not a {SCHEMA} certificate")
    with open(path, "rb") as fh:
        digest = hashlib.sha256(fh.read()).hexdigest()
    out = {"theorem": str(doc.get("theorem")), "verified": 0, "uncertified": 0, "failures": [], "sha256": digest,
           "by_procedure": {}}
    names = {str(x) for x in doc.get("syntactic", [])} if isinstance(doc.get("syntactic"), list) else set()
    if doc.get("status") != "proven":
        out["failures"].append(f"{out['theorem']}: the theorem is {doc.get('status')!r}, not proven")
    for e in doc["entries"]:
        _count_entry(e, out)
        names.add(str(e.get("name")) if isinstance(e, dict) else "?")
    points = doc.get("witness", {}).get("points", []) if isinstance(doc.get("witness"), dict) else []
    for pt in points if isinstance(points, list) else []:
        try:
            check_point(pt)
            if str(pt.get("obligation")) not in names:
                raise Failed(f"witness names an obligation not in the certificate: {str(pt.get('obligation'))[:80]}")
        except Failed as exc:
            out["failures"].append(str(exc))
    out["witness_points"] = len(points) if isinstance(points, list) else 0
    if doc.get("decided") != len(doc["entries"]):
        out["failures"].append(f"{out['theorem']}: {len(doc['entries'])} entries for {doc.get('decided')} decided obligations")
    return out


def _count_entry(e: object, out: dict) -> None:
    try:
        check_entry(e)  # type: ignore[arg-type]
    except Failed as exc:
        out["failures"].append(f"{out['theorem']} / {exc}")
        return
    proc = str(e.get("procedure", "?"))  # type: ignore[union-attr]
    slot = out["by_procedure"].setdefault(proc, {"verified": 0, "uncertified": 0})
    key = "uncertified" if e.get("kind") == "uncertified" else "verified"  # type: ignore[union-attr]
    slot[key] += 1
    out[key] += 1


def check_directory(path: str) -> tuple[int, list[dict], list[str]]:
    """(exit code, per-file reports, problems): every theorem of ``index.json`` must have its file."""
    if not os.path.isdir(path):
        return 2, [], [f"{path}: not a directory"]
    try:
        index = read_json(os.path.join(path, INDEX))
        if not (isinstance(index, dict) and index.get("schema") == SCHEMA and isinstance(index.get("files"), list)):
            raise Malformed(f"{INDEX}: not a {SCHEMA} index")
        files = [str(f) for f in index["files"]][:MAX_FILES + 1]
        if len(files) > MAX_FILES or any(os.path.basename(f) != f or not f.endswith(".json") for f in files):
            raise Malformed(f"{INDEX}: too many files or a name that is not a plain *.json file")
        reports = [check_file(os.path.join(path, f)) for f in files]
    except Malformed as exc:
        return 2, [], [str(exc)]
    problems = [f for r in reports for f in r["failures"]]
    code = 1 if problems else 3 if any(r["uncertified"] for r in reports) else 0
    return code, reports, problems


def report_lines(code: int, reports: list[dict], problems: list[str]) -> list[str]:
    lines = [f"{r['theorem']:<14} {r['verified']:>4} verified, {r['uncertified']:>4} uncertified, "
             f"{len(r['failures'])} failed, {r['witness_points']} witness points  sha256 {r['sha256'][:16]}" for r in reports]
    lines += [f"FAILED: {p}" for p in problems[:20]]
    v, u = sum(r["verified"] for r in reports), sum(r["uncertified"] for r in reports)
    verdict = {0: "all verified", 1: "a certificate FAILS", 2: "unreadable input", 3: "verified, some obligations uncertified"}[code]
    lines.append(f"{v} verified, {u} uncertified, {len(problems)} failed: {verdict}")
    return lines


def main(argv: list[str] | None = None) -> int:
    """``python certcheck.py DIR [--json]``: exit 0 verified, 1 fails, 2 unreadable, 3 uncertified."""
    args = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in args
    args = [a for a in args if a != "--json"]
    if len(args) != 1:
        print("usage: certcheck.py DIR [--json]", file=sys.stderr)
        return 2
    code, reports, problems = check_directory(args[0])
    if as_json:
        print(json.dumps({"exit": code, "files": reports, "problems": problems}, indent=2, sort_keys=True))
    elif code == 2:
        print(f"error: {problems[0]}", file=sys.stderr)
    else:
        print("\n".join(report_lines(code, reports, problems)))
    return code


if __name__ == "__main__":
    sys.exit(main())
