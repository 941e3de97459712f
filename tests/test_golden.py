"""Golden vectors: manifest, schema, IDs, coverage, and re-derivation through the second oracle
(REQ-GOLDEN-SCHEMA, REQ-GOLDEN-MANIFEST, REQ-GOLDEN-ORACLE). Expected values come from
python-flint's Arb (sinpe.reference.oracles.arb), never from the golden files themselves."""
from __future__ import annotations

import json
import math
import os
import random
import shutil
from fractions import Fraction

import numpy as np
import pytest

from sinpe.reference.golden import vectors as G
from sinpe.reference.oracles import arb as oracle_flint
from sinpe.spec.profiles import PRESETS, get_profile

SEED = int(os.environ.get("SINPE_TEST_SEED", "20261130"))


def test_manifest_lists_and_matches_every_file() -> None:
    """REQ-GOLDEN-MANIFEST."""
    man = G.manifest()
    present = {str(p.relative_to(G.GOLDEN_DIR)) for p in G.GOLDEN_DIR.rglob("*") if p.is_file()}
    assert present - {G.MANIFEST_NAME} == set(man["files"]), "unlisted or missing files; run: sinpe golden"
    for rel in man["files"]:
        G.read_verified(rel)
    assert man["totalBytes"] <= 17_000_000, man["totalBytes"]


def test_tampered_file_is_rejected(tmp_path) -> None:
    """Negative (REQ-GOLDEN-MANIFEST): one changed byte fails the load and the self-certification."""
    root = tmp_path / "golden"
    shutil.copytree(G.GOLDEN_DIR, root)
    rel = "cases/t2t/d3.json"
    data = bytearray((root / rel).read_bytes())
    i = data.index(b'"hex": ') if b'"hex": ' in data else data.index(b'"hex":"') + 8
    data[i] = ord("9") if data[i] != ord("9") else ord("8")
    (root / rel).write_bytes(bytes(data))
    with pytest.raises(G.GoldenIntegrityError, match="SHA-256"):
        G.load_case_file("t2t", 3, root)
    rep = G.self_certify(5, SEED, root)
    assert not rep.ok and "manifest" in rep.render()
    (root / "extra.json").write_text("{}")
    (root / rel).write_bytes(G.read_verified(rel))  # restore
    assert not G.self_certify(5, SEED, root).ok  # unlisted file


def test_schema_accepts_shipped_files_and_rejects_mutations() -> None:
    """REQ-GOLDEN-SCHEMA: every shipped file validates; broken documents do not."""
    sch = json.loads(G.read_verified(G.SCHEMA_NAME))
    assert G.SCHEMA_NAME == "golden-v1.schema.json"
    for name in PRESETS:
        for d in G.WIDTHS:
            doc = G.load_case_file(name, d)
            assert G.validate(doc, sch) == [], f"cases/{name}/d{d}.json"
    doc = G.load_case_file("vaswani", 4)
    case = doc["testGroups"][0]["tests"][5]
    for key, bad in (("hex", "0.84"), ("decimal", "8.41e-1"), ("id", "xyz"), ("flags", ["bogus"])):
        mutated = json.loads(json.dumps(doc))
        mutated["testGroups"][0]["tests"][5][key] = bad
        assert G.validate(mutated, sch), f"schema accepted {key}={bad!r}"
    mutated = json.loads(json.dumps(doc))
    del mutated["testGroups"][1]["provenance"]
    assert G.validate(mutated, sch)
    assert case["decimal"].count("e") == 1


def test_coverage_and_stable_ids() -> None:
    """Every preset, every d, every dtype, every golden position; IDs are content hashes, unique."""
    ids = set()
    seen = set()
    for c in G.iter_cases():
        seen.add((c["profile"], c["d"], c["dtype"], c["position"]))
        prof = get_profile(c["profile"])
        assert c["id"] == G.case_id(prof, c["d"], c["position"], c["column"], c["dtype"]), c["id"]
        assert c["id"] not in ids, f"duplicate id {c['id']}"
        ids.add(c["id"])
        assert c["value"] == float.fromhex(c["hex"]) and c["position_float"] == float(Fraction(c["position"]))
    want = {(n, d, dt, G.position_str(p)) for n in PRESETS for d in G.WIDTHS
            for dt in ("float64", "float32", "float16", "bfloat16") for p in G.GOLDEN_POSITIONS}
    assert seen == want
    assert len(ids) == 42000


def test_golden_positions_cover_the_issue() -> None:
    pos = set(G.GOLDEN_POSITIONS)
    assert set(map(Fraction, range(17))) <= pos
    assert {Fraction(2 ** i) for i in range(24)} <= pos and {Fraction(10 ** i) for i in range(8)} <= pos
    assert any(p < 0 for p in pos) and any(p.denominator != 1 for p in pos)
    assert all(Fraction(float(p)) == p and abs(p) < 2 ** 24 for p in pos)  # exact in binary32


def test_flags_are_consistent() -> None:
    for c in G.iter_cases(profile="t2t", d=3):
        if c["label"] == "zero":
            assert "zero-column" in c["flags"] and c["value"] == 0
        if "exact" in c["flags"]:
            assert c["decimal"] in ("0", "1." + "0" * 39 + "e0")
        if "subnormal" in c["flags"]:
            assert 0 < abs(c["value"]) < 2.0 ** -14
    flagged = [c for c in G.iter_cases(profile="vaswani", dtype="float16", d=4096) if "subnormal" in c["flags"]]
    assert all(abs(c["value"]) < 2.0 ** -14 for c in flagged)


def test_random_cases_rederived_by_arb() -> None:
    """REQ-GOLDEN-ORACLE: a seeded random sample of cases, recomputed by Arb, hex and decimal."""
    rng = random.Random(SEED)
    groups = []
    for name in PRESETS:
        for d in G.WIDTHS:
            for g in G.load_case_file(name, d)["testGroups"]:
                groups.append((name, d, g))
    for _ in range(150):
        name, d, g = rng.choice(groups)
        c = rng.choice(g["tests"])
        err = G.check_case(name, d, g, c)
        assert err is None, f"SINPE_TEST_SEED={SEED}: {err}"


def test_check_case_rejects_a_wrong_value() -> None:
    """Negative: one ulp off in hex, or a wrong last decimal digit, is caught by the Arb check."""
    doc = G.load_case_file("vaswani", 64)
    g = doc["testGroups"][1]  # binary32
    c = next(x for x in g["tests"] if x["position"] == "1000")
    assert G.check_case("vaswani", 64, g, c) is None
    v = float.fromhex(c["hex"])
    bumped = dict(c, hex=G.float_hex(float(np.nextafter(np.float32(v), np.float32(2)))))
    assert "Arb" in G.check_case("vaswani", 64, g, bumped)
    last = c["decimal"].split("e")[0][-1]
    wrong_dec = c["decimal"].split("e")[0][:-1] + str((int(last) + 1) % 10) + "e" + c["decimal"].split("e")[1]
    assert G.check_case("vaswani", 64, g, dict(c, decimal=wrong_dec)) is not None
    swapped = dict(c, column=c["column"] ^ 1)  # sin <-> cos of the same frequency
    assert G.check_case("vaswani", 64, g, swapped) is not None


def test_bulk_tables_rederived_by_arb() -> None:
    """Bulk .npy tables: shape, storage dtype, bfloat16 exactness, random entries against Arb."""
    rng = random.Random(SEED + 1)
    for name in ("vaswani-concat-cos", "t2t"):
        for d in (65, 4096):
            for dtype, np_dt in (("float64", np.float64), ("float32", np.float32), ("float16", np.float16),
                                 ("bfloat16", np.float32)):
                pos, arr = G.load_table(name, d, dtype)
                assert arr.shape == (len(G.BULK_POSITIONS), d) and arr.dtype == np_dt
                if dtype == "bfloat16":
                    assert not (arr.view(np.uint32) & 0xFFFF).any(), "bfloat16 table holds non-bfloat16 floats"
                r = rng.randrange(len(pos))
                js = sorted(rng.sample(range(d), min(d, 6)))
                ref = oracle_flint.rounded_tables(get_profile(name), d, [pos[r]], [dtype], only=js)
                got = arr[r, js].astype(np.float64)
                ref = next(iter(ref.values()))[0]
                assert np.array_equal(got, ref), (f"SINPE_TEST_SEED={SEED}: tables/{name}/d{d}-{dtype}.npy row {r} "
                                                  f"columns {js}: {got} vs Arb {ref}")


def test_self_certify_report() -> None:
    rep = G.self_certify(20, SEED)
    assert rep.ok, rep.render()
    d = rep.to_json()
    assert d["ok"] and d["seed"] == SEED and len(d["checks"]) == 6
    assert "OK" in rep.render()


def test_date_released_matches_citation() -> None:
    """The only date in the golden files is the date-released of the version whose values they hold
    (VALUES_VERSION); CITATION.cff cites the current spec version with its own date."""
    from pathlib import Path

    from sinpe.spec import SPEC_VERSION, VALUES_VERSION
    cff = Path(__file__).resolve().parent.parent / "CITATION.cff"
    if not cff.exists():
        pytest.fail(f"{cff} missing: cannot check dateReleased")
    text = cff.read_text()
    assert f'version: {SPEC_VERSION}' in text
    assert f'date-released: "{G.RELEASE_DATES[SPEC_VERSION]}"' in text
    assert G.manifest()["dateReleased"] == G.RELEASE_DATES[VALUES_VERSION]
    assert G.manifest()["specVersion"] == VALUES_VERSION


def test_value_flags_match_the_decimals() -> None:
    """near-tie / near-zero / subnormal / exact recomputed from the 40-digit decimal (not from the
    enclosures the generator used): |x - boundary| < 2^-6 ulp iff near-tie, etc."""
    from decimal import Decimal

    from sinpe.reference.numerics.rounding import ulp
    from sinpe.spec.formats import get_format
    n_tie = 0
    for c in G.iter_cases(d=8):
        f = get_format(c["dtype"])
        g = c["value"]
        x = Fraction(Decimal(c["decimal"])) if c["decimal"] != "0" else Fraction(0)
        err40 = abs(x) * Fraction(1, 10 ** 39)  # the decimal's own rounding error bound
        assert ("near-zero" in c["flags"]) == (0 < abs(x) < Fraction(1, 1024)), c["id"]
        assert ("subnormal" in c["flags"]) == (0 < abs(g) < 2.0 ** f.emin), c["id"]
        if "exact" in c["flags"]:
            assert Fraction(g) == x, c["id"]
            continue
        up = Fraction(ulp(g, f))
        at_pow2 = g != 0 and math.frexp(abs(g))[0] == 0.5 and abs(g) > 2.0 ** f.emin
        down = up / 2 if at_pow2 else up
        hi_gap, lo_gap = (up, down) if g >= 0 else (down, up)
        dist = min(abs(x - (Fraction(g) + hi_gap / 2)), abs(x - (Fraction(g) - lo_gap / 2)))
        assert abs(x - Fraction(g)) <= max(hi_gap, lo_gap) / 2 + err40, f"{c['id']} is not RN of its decimal"
        if abs(dist - up / 64) > err40:
            assert ("near-tie" in c["flags"]) == (dist < up / 64), c["id"]
        n_tie += "near-tie" in c["flags"]
    assert n_tie > 0


def test_case_id_matches_its_json_definition() -> None:
    """The IDs are SHA-256 of the key-sorted compact JSON of {params, d, position, column, dtype}:
    the serialisation written out in encoding.case_id_of equals json.dumps's, for every preset and odd inputs."""
    import hashlib
    for name in PRESETS:
        prof = get_profile(name)
        for d, pos, col, dt in [(4, "1", 0, "float64"), (4096, "-10000000", 4095, "bfloat16"), (3, "65504.5", 2, "float16")]:
            key = json.dumps({"params": prof.params(), "d": d, "position": pos, "column": col, "dtype": dt},
                             sort_keys=True, separators=(",", ":"))
            assert G.case_id(prof, d, pos, col, dt) == hashlib.sha256(key.encode()).hexdigest()[:16], (name, d, pos)
