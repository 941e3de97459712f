"""The bundled PyTorch CPU implementation (SPEC.md REQ-IMPL-EVAL): PE in float64, float32, float16, bfloat16.

Same plan as :mod:`sinpe.reference.implementations.numpy_impl` (column plan from the one definition, frequencies
``RN(sigma * w_k)`` from the spec's exact exponents, positions converted once, amplitude last), with
PyTorch's sin/cos. Working dtype: float64 for float64, float32 for the three others. A float16 or
bfloat16 table is computed in float32 and rounded to the dtype once at the end (a late cast):
float16 holds integers exactly only up to 2048 and is inf from 65520, bfloat16 only up to 256, so
positions and phases must never live in those formats.

>>> import torch
>>> from sinpe.spec.profiles import get_profile
>>> pe_table(get_profile("vaswani"), 4, [1], "float64").tolist()   # sin 1, cos 1, sin 0.01, cos 0.01
[[0.8414709848078965, 0.5403023058681398, 0.009999833334166664, 0.9999500004166653]]
>>> t = pe_table(get_profile("vaswani"), 2, [65504, 10**7], "float16")   # correctly rounded: see oracles/arb.py
>>> t.dtype, t.tolist()
(torch.float16, [[0.9755859375, -0.2205810546875], [0.420654296875, -0.9072265625]])
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from sinpe.reference.implementations.numpy_impl import as_positions, constant, plan, scaled_frequencies
from sinpe.spec.formats import DTYPES, get_format
from sinpe.spec.profiles import Profile

TORCH_DTYPES = DTYPES  # float64, float32, float16, bfloat16


def _torch() -> Any:
    try:
        import torch
    except ImportError:  # optional extra
        raise ValueError("the PyTorch implementation needs torch (pip install 'sinpe[torch]')") from None
    return torch


def torch_dtype(dtype: str) -> Any:
    """The torch dtype for a sinpe dtype name or alias."""
    torch = _torch()
    return {"float64": torch.float64, "float32": torch.float32, "float16": torch.float16,
            "bfloat16": torch.bfloat16}[get_format(dtype).dtype]


def pe_table(profile: Profile, d: int, positions: Sequence[float] | np.ndarray | Any,
             dtype: str = "float32") -> Any:
    """PE_profile(p)[j] as a CPU ``torch.Tensor`` of shape (len(positions), d) and the requested dtype.

    Formula (DEF-FAMILY): ``alpha * f_j((p + o) * RN_w(sigma * w_k))``, evaluated in the working dtype
    w (float64 for float64, else float32) and rounded once to ``dtype``.
    Certified against the Arb oracle by :mod:`sinpe.reference.implementations.certify` (REQ-IMPL-TIER).
    """
    torch = _torch()
    name = get_format(dtype).dtype
    out_dt = torch_dtype(name)
    work_name = "float64" if name == "float64" else "float32"
    wd = torch.float64 if work_name == "float64" else torch.float32
    pl = plan(profile, d)
    pos = torch.from_numpy(np.ascontiguousarray(as_positions(positions))).to(wd)  # one conversion
    out = torch.zeros((pos.shape[0], d), dtype=wd)
    if pl.ks:
        g = torch.tensor(scaled_frequencies(profile, d, get_format(work_name).name), dtype=wd)
        wfmt = get_format(work_name).name
        x = pos + torch.tensor(constant(profile.offset, wfmt), dtype=wd) if profile.offset != 0 else pos
        theta = x[:, None] * g[None, :]
        if pl.sin_cols.size:
            out[:, torch.from_numpy(pl.sin_cols)] = torch.sin(theta[:, torch.from_numpy(pl.sin_idx)])
        if pl.cos_cols.size:
            out[:, torch.from_numpy(pl.cos_cols)] = torch.cos(theta[:, torch.from_numpy(pl.cos_idx)])
        if profile.amplitude != 1:
            out = out * torch.tensor(constant(profile.amplitude, wfmt), dtype=wd)
    return out.to(out_dt)  # the late cast: the only rounding to float16/bfloat16
