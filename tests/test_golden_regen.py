"""Byte-for-byte reproducibility of the golden files (REQ-GOLDEN-MANIFEST): a subset is
regenerated from scratch (certified mpmath path + Arb cross-check) and compared with the shipped
bytes. The full check is ``sinpe golden --check`` (about 35 s)."""
from __future__ import annotations

import json

import pytest

from sinpe.reference.golden import vectors as G
from sinpe.reference.golden.vectors import encoding
from sinpe.reference.oracles import interval as certified

SUBSET = [("vaswani-concat", [1, 3, 65]), ("t2t", [2, 8, 64]), ("vaswani", [4])]


@pytest.mark.parametrize("presets,widths", [([p], ws) for p, ws in SUBSET], ids=[p for p, _ in SUBSET])
def test_regenerated_subset_is_byte_identical(presets, widths) -> None:
    rep = G.generate(presets=presets, widths=widths, progress=False)
    assert not rep.disagreements
    for rel, data in rep.files.items():
        shipped = G.read_verified(rel)
        assert data == shipped, (f"{rel} differs from the shipped file; reproduce: sinpe golden --check "
                                 f"(versions here: {G.versions()})")


def test_large_width_cases_byte_identical() -> None:
    rep = G.generate(presets=["t2t-cos"], widths=[4096], tables=False, progress=False)
    assert rep.files["cases/t2t-cos/d4096.json"] == G.read_verified("cases/t2t-cos/d4096.json")


def test_schema_file_regenerates() -> None:
    assert (encoding.dump(G.schema(), expand=99) + "\n").encode() == G.read_verified(G.SCHEMA_NAME)


def test_generation_refuses_to_write_on_oracle_disagreement(monkeypatch) -> None:
    """Negative (REQ-GOLDEN-ORACLE): a primary path that is off by a little is caught by Arb."""
    real = certified.cos_sin_enclosure

    def biased(a, b, prec):  # cos shifted by 2^-30: a wrong enclosure that still looks tight
        from mpmath.libmp import from_man_exp, mpf_add
        (clo, chi), s = real(a, b, prec)
        eps = from_man_exp(1, -30)
        return (mpf_add(clo, eps, prec), mpf_add(chi, eps, prec)), s

    monkeypatch.setattr(certified, "cos_sin_enclosure", biased)
    with pytest.raises(ArithmeticError, match="disagreement"):
        G.generate(presets=["vaswani"], widths=[4], progress=False)


def test_generation_refuses_a_biased_fast_path(monkeypatch) -> None:
    """Negative (REQ-GOLDEN-ORACLE): the fixed-point path that fills the tables and case values,
    with cos shifted by 2^-30, is caught by Arb (the decimals' interval path is left intact)."""
    real = certified.cos_sin_fixed

    def biased(tl, th, x, prec, exact=False):
        (cl, ch, ce), s = real(tl, th, x, prec, exact)
        eps = 1 << max(0, -30 - ce)  # 2^-30 in units of 2^ce
        return (cl + eps, ch + eps, ce), s

    monkeypatch.setattr(certified, "cos_sin_fixed", biased)
    with pytest.raises(ArithmeticError, match="disagreement"):
        G.generate(presets=["vaswani"], widths=[4], progress=False)


def test_generation_is_deterministic_json() -> None:
    a = encoding.dump({"b": [1, {"z": 1, "a": [2.5, "x"]}], "a": None})
    assert a == encoding.dump(json.loads(a)) and a.index('"a"') < a.index('"b"')
