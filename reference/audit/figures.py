"""The seed chapter's tables and figures recomputed (SPEC.md REQ-FIGURES); ``sinpe figures`` writes them.

Writes, from the one definition (:mod:`sinpe.spec.definition`) through the mpmath reference:

- ``table_4_1.csv`` / ``.md``: d = 4, positions 0..3, columns 0..3, to 20 decimals (the chapter prints 4);
- ``table_4_2.csv`` / ``.md``: d = 512, sum_i cos(omega_i k) at the chapter's seven k, to 15 decimals;
  the Markdown versions also show the printed value and the audit's verdict for each cell;
- ``figure_4_1_heatmap.png``: the d = 64 PE matrix over positions 0..99 (columns on the vertical axis,
  column 0 at the bottom); ``figure_4_1_waveforms.png``: columns 0, 10, 20, 30 over the same positions;
- ``dot_product_d512.png``: sum_i cos(omega_i k) against k = 0..2000 at d = 512, table 4-2 marked;
- ``error_vs_position.png``: max |y - PE| over the columns against position (d = 64) for the bundled
  float32 (NumPy) and float16 (PyTorch, when installed) implementations, PE from the Arb oracle, with
  the TOL-PHASE and TOL-FAITHFUL envelopes of SPEC.md section 2.

Matplotlib is the optional ``plot`` extra: without it the command names the install and exits 2
(``--tables-only`` writes the tables without it). Plots use the Agg backend (no display).
"""
from __future__ import annotations

import csv
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import mpmath

from sinpe.reference.audit.claims import audit_claim
from sinpe.reference.oracles.mp import MP, pe_row
from sinpe.spec.claims import get_claim
from sinpe.spec.definition import column_data, columns, frequency, n_frequencies, phase
from sinpe.spec.profiles import get_profile

T41_D, T41_POSITIONS = 4, range(4)
T42_D, T42_KS = 512, (0, 1, 2, 10, 100, 1000, 2000)
FIG_D, FIG_POSITIONS, FIG_COLUMNS = 64, 100, (0, 10, 20, 30)
PLOT_INSTALL = "pip install 'sinpe[plot]'"


def _pyplot() -> Any:
    """matplotlib.pyplot on the Agg backend, imported only when plots are asked for."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _decimals(v: mpmath.mpf, places: int) -> str:
    """v to ``places`` decimals (v computed at 40 digits, so every printed digit is settled)."""
    return format(Decimal(mpmath.nstr(v, 40, min_fixed=-50, max_fixed=50)).quantize(Decimal(1).scaleb(-places)), "f")


def table_4_1() -> list[list[str]]:
    """Rows [position, col0..col3] as 20-decimal strings (mpmath at 40 digits)."""
    P = get_profile("vaswani")
    with mpmath.workdps(40):
        return [[str(p)] + [_decimals(v, 20) for v in pe_row(P, T41_D, p)] for p in T41_POSITIONS]


def dot_sum(d: int, k: int) -> mpmath.mpf:
    """sum_i cos(omega_i k) over the pairs of DEF-PE at width d (mpmath, current precision)."""
    P = get_profile("vaswani")
    return mpmath.fsum(mpmath.cos(phase(column_data(P, d), i, Fraction(k), MP)) for i in range(n_frequencies(P, d)))


def table_4_2() -> list[tuple[int, str]]:
    with mpmath.workdps(40):
        return [(k, _decimals(dot_sum(T42_D, k), 15)) for k in T42_KS]


def _mark(claim_id: str) -> str:
    r = audit_claim(get_claim(claim_id))
    return f"{r.claim.claimed} ({r.verdict})"


def write_tables(out: Path) -> list[Path]:
    t1 = table_4_1()
    p1c, p1m = out / "table_4_1.csv", out / "table_4_1.md"
    with p1c.open("w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["position", "col0_sin_w0", "col1_cos_w0", "col2_sin_w1", "col3_cos_w1"])
        w.writerows(t1)
    lines = [("Table 4-1 recomputed: d = 4, PE(pos)[j] to 20 decimals (mpmath, 40 digits); "
             "in parentheses the chapter's printed value and the audit's verdict."), "",
             "| pos | col 0 sin(w0 pos) | col 1 cos(w0 pos) | col 2 sin(w1 pos) | col 3 cos(w1 pos) |",
             "|--:|--:|--:|--:|--:|"]
    for r in t1:
        cells = [f"{v}<br>{_mark(f'CLAIM-4.1.1-T1-R{r[0]}C{j}')}" for j, v in enumerate(r[1:])]
        lines.append(f"| {r[0]} | " + " | ".join(cells) + " |")
    p1m.write_text("\n".join(lines) + "\n")
    t2 = table_4_2()
    p2c, p2m = out / "table_4_2.csv", out / "table_4_2.md"
    with p2c.open("w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["k", "sum_cos_d512"])
        w.writerows(t2)
    lines = ["Table 4-2 recomputed: d = 512, sum over the 256 pairs of cos(w_i k) (mpmath, 40 digits).", "",
             "| k | sum_i cos(w_i k) | chapter (verdict) |", "|--:|--:|--:|"]
    lines += [f"| {k} | {v} | {_mark(f'CLAIM-4.1.4-T2-K{k}')} |" for k, v in t2]
    p2m.write_text("\n".join(lines) + "\n")
    return [p1c, p1m, p2c, p2m]


def _pe_matrix(d: int, n: int) -> Any:
    import numpy as np
    P = get_profile("vaswani")
    with mpmath.workdps(20):
        return np.array([[float(v) for v in pe_row(P, d, p)] for p in range(n)])


def plot_figure_4_1(out: Path) -> list[Path]:
    plt = _pyplot()
    import numpy as np
    pe = _pe_matrix(FIG_D, FIG_POSITIONS)
    fig, ax = plt.subplots(figsize=(7, 5))
    im = ax.imshow(pe.T, aspect="auto", cmap="RdBu_r", origin="lower", vmin=-1, vmax=1)
    ax.set_xlabel("position")
    ax.set_ylabel("column j")
    ax.set_title(f"PE matrix, d = {FIG_D}, positions 0..{FIG_POSITIONS - 1}")
    fig.colorbar(im, ax=ax)
    fig.tight_layout()
    heat = out / "figure_4_1_heatmap.png"
    fig.savefig(heat, dpi=120)
    plt.close(fig)
    P = get_profile("vaswani")
    fig, ax = plt.subplots(figsize=(7, 5))
    with mpmath.workdps(20):
        for j in FIG_COLUMNS:
            c = columns(P, FIG_D)[j]
            lam = float(2 * mpmath.pi / frequency(column_data(P, FIG_D), c.k, MP))
            ax.plot(np.arange(FIG_POSITIONS), pe[:, j], label=f"column {j} ({c.label}), wavelength {lam:.1f}")
    ax.set_xlabel("position")
    ax.set_ylabel("PE value")
    ax.set_title(f"Four columns of the d = {FIG_D} encoding")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    wave = out / "figure_4_1_waveforms.png"
    fig.savefig(wave, dpi=120)
    plt.close(fig)
    return [heat, wave]


def plot_dot_product(out: Path, kmax: int = 2000) -> Path:
    """Curve in float64 (cos of float64 w_i k; far below the line width), table points in mpmath."""
    plt = _pyplot()
    import numpy as np
    P = get_profile("vaswani")
    with mpmath.workdps(30):
        w = np.array([float(frequency(column_data(P, T42_D), i, MP)) for i in range(n_frequencies(P, T42_D))])
        exact = [float(dot_sum(T42_D, k)) for k in T42_KS]
    ks = np.arange(kmax + 1, dtype=np.float64)
    f = np.cos(np.outer(ks, w)).sum(axis=1)
    printed = [float(get_claim(f"CLAIM-4.1.4-T2-K{k}").claimed) for k in T42_KS]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.plot(ks, f, lw=0.8, label=r"$\sum_i \cos(\omega_i k)$, d = 512")
    ax.plot(T42_KS, exact, "o", mfc="none", label="table 4-2, recomputed")
    ax.plot(T42_KS, printed, "x", label="table 4-2, as printed")
    ax.set_xlabel("distance k")
    ax.set_ylabel("PE(p) . PE(p+k)")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    path = out / "dot_product_d512.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_error_vs_position(out: Path, d: int = FIG_D) -> tuple[Path, list[str]]:
    """Needs sinpe.reference.implementations.certify (Arb oracle) and the bundled implementations."""
    plt = _pyplot()
    import numpy as np

    from sinpe.reference.implementations import numpy_impl as impl_numpy
    from sinpe.reference.implementations.certify import exact_table
    from sinpe.spec.tolerance import allowed_abs_error
    P = get_profile("vaswani")
    pos = tuple(float(x) for x in np.unique(np.round(np.logspace(0, 6, 61))))
    hi, lo, th = exact_table(P, d, pos)
    impls: list[tuple[str, str, Any]] = [("float32", "NumPy float32", lambda: impl_numpy.pe_table(P, d, list(pos), "float32"))]
    skipped = []
    try:
        from sinpe.reference.implementations import torch_impl as impl_torch
        impls.append(("float16", "PyTorch float16", lambda: impl_torch.pe_table(P, d, list(pos), "float16").float().numpy()))
    except ImportError:
        skipped.append("float16 (PyTorch not installed: pip install 'sinpe[torch]')")
    fig, ax = plt.subplots(figsize=(8, 5))
    x = np.array(pos)
    for dtype, label, fn in impls:
        y = np.asarray(fn(), dtype=np.float64)
        err = np.abs((y - hi) - lo).max(axis=1)
        line, = ax.loglog(x, np.maximum(err, 1e-12), ".", label=f"{label}: max |y - PE| over {d} columns")
        env = allowed_abs_error("phase", dtype, hi, th).max(axis=1)
        ax.loglog(x, env, "-", color=line.get_color(), lw=1, label=f"TOL-PHASE envelope ({dtype})")
        faithful = allowed_abs_error("faithful", dtype, hi, th).max(axis=1)
        ax.loglog(x, faithful, ":", color=line.get_color(), lw=1, label=f"TOL-FAITHFUL, 1 ulp ({dtype})")
    ax.set_xlabel("position")
    ax.set_ylabel("absolute error")
    ax.set_title(f"Error against position, d = {d} (PE from the Arb oracle)")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3, which="both")
    fig.tight_layout()
    path = out / "error_vs_position.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path, skipped
