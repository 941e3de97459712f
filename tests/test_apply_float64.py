"""float64 rotary applications are decided (REQ-CHECK-APPLY, TOL-APPLY): where the binary64 reference
rotation's own error reaches the float64 bound, the entry is settled from certified 256-bit enclosures of
A cos theta and A sin theta (apply/exact.refine). A correct float64 application conformed nowhere before (it
was inconclusive: 19905 entries "within the reference's error of the bound"); one computed in float32 and
returned as float64, or off by a few ulps at one entry, fails.
Reproduce: python -m pytest tests/test_apply_float64.py -q
"""
from __future__ import annotations

import torch

from sinpe import check_apply


def _rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def llama(q, k, cos, sin):  # transformers' LLaMA apply_rotary_pos_emb
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    return q * cos + _rotate_half(q) * sin, k * cos + _rotate_half(k) * sin


def in_float32(q, k, cos, sin):
    a, b = llama(q.float(), k.float(), cos.float(), sin.float())
    return a.double(), b.double()


def ulps_off(q, k, cos, sin):
    a, b = llama(q, k, cos, sin)
    a = a.clone()
    a[0, 0, 5, 3] = torch.nextafter(torch.nextafter(a[0, 0, 5, 3], torch.tensor(9.0, dtype=a.dtype)),
                                    torch.tensor(9.0, dtype=a.dtype)) * (1 + 2 ** -50)
    return a, b


def test_a_correct_float64_application_conforms():
    r = check_apply(llama, "llama", dim=64, dtype="float64")
    assert (r.verdict, r.undecided, r.n_failures) == ("conforms", 0, 0), r.reason


def test_float64_applications_that_are_not_fail():
    assert check_apply(in_float32, "llama", dim=64, dtype="float64").verdict == "fails"
    r = check_apply(ulps_off, "llama", dim=64, dtype="float64")
    assert r.verdict == "fails" and r.n_failures >= 1, r.reason
