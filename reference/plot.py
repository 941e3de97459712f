"""The pictures of a check (SPEC.md REQ-CHECK-PLOT): ``sinpe check ... --plot FILE.png``, ``sinpe scan ... --plot
DIR`` and ``sinpe verify --plot FILE.png``.

A 1-D table's picture (:func:`plot_table`): the max |error| over each row against its position, one series per
column group (the columns of the highest, middle and lowest frequencies), the bound of TOL-EXACT, -FAITHFUL or
-PHASE (:func:`sinpe.spec.tolerance.allowed_abs_error`, the one definition of the bound) overlaid per group,
the check's position bands with their failure counts, and every failing entry marked (an entry above its bound,
or NaN/Inf). The errors are measured against the fast binary64 reference (a few binary64 ulps from PE): a
picture, not a verdict -- the title carries the check's own verdict and failure count. The certification
picture (:func:`plot_certification`) draws ``sinpe verify``'s implementation report: per implementation and
dtype, the max error ratio of each position band against TOL-PHASE's constant c.

Matplotlib is the optional ``plot`` extra (:data:`PLOT_INSTALL`): without it :func:`require` raises
:class:`PlotUnavailable` (a ValueError: one line, exit 2) before any work is done. A picture is written by
:func:`write_png`: to a temporary file in the target's directory, then renamed over it (never a link, never a
device or directory, never an input).
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

import numpy as np

from sinpe.reference.files import atomic_file

PLOT_INSTALL = "pip install 'sinpe[plot]'"
SIZE = (10.0, 7.0)   # inches
DPI = 100            # so a picture is 1000 x 700 pixels
GROUPS = 3           # column groups: highest, middle, lowest frequencies
CHUNK_ENTRIES = 1 << 21


class PlotUnavailable(ValueError):
    """``--plot`` without matplotlib: one line, exit 2 (REQ-CLI-EXIT)."""


def require(command: str) -> Any:
    """matplotlib.pyplot on the Agg backend, or :class:`PlotUnavailable` naming the install."""
    try:
        import matplotlib
    except ImportError:
        raise PlotUnavailable(f"--plot needs matplotlib, the plot extra: {PLOT_INSTALL}") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def output_problem(path: str, inputs: Sequence[Any] = ()) -> str | None:
    """Why ``path`` cannot receive a picture (None: it can): the one output rule of REQ-CLI-OUTPUT
    (:func:`sinpe.reference.checking.outputs.output_problem`) against what ``inputs`` read."""
    from sinpe.reference.checking.outputs import output_problem as rule, reads_of
    return rule("--plot", path, [r for given in inputs for r in reads_of(str(given) if given is not None else None)])


def write_png(fig: Any, path: str, inputs: Sequence[Any] = ()) -> str:
    """Save ``fig`` as PNG at ``path`` through a temporary file in the same directory and ``os.replace`` (a link at
    ``path`` is replaced, never followed); refused (ValueError) where :func:`output_problem` says so."""
    problem = output_problem(path, inputs)
    if problem:
        raise ValueError(problem)
    full = os.path.abspath(path)
    with atomic_file(full, suffix=".png") as f:
        fig.savefig(f, format="png", dpi=DPI)
    return full


# --- a 1-D table -------------------------------------------------------------------------------------------

def column_groups(profile: Any, d: int) -> list[tuple[str, np.ndarray]]:
    """(label, column indices): the sin/cos columns split by frequency index k into :data:`GROUPS` groups
    (highest frequencies first), and the identically zero columns, if any."""
    from sinpe.reference.oracles.fast import column_plan
    from sinpe.spec.definition import column_data
    kind, ks = column_plan(column_data(profile, d))
    live = np.flatnonzero(kind != 2)
    out = []
    if live.size:
        kmax = int(ks[live].max()) + 1
        edges = np.unique(np.linspace(0, kmax, min(GROUPS, kmax) + 1).astype(int))
        for lo, hi in pairwise(edges):
            cols = live[(ks[live] >= lo) & (ks[live] < hi)]
            if cols.size:
                out.append((f"k in [{lo}, {hi})", cols))
    if (kind == 2).any():
        out.append(("zero columns", np.flatnonzero(kind == 2)))
    return out


def entry_figures(data: Any, positions: np.ndarray, profile: Any, d: int, dtype: str, tier: str,
                  working: str | None) -> dict[str, Any]:
    """Per row and column group: max |y - PE| and max bound; the failing entries (row, column, error) -- above
    the bound or not finite. Rows in chunks (bounded memory)."""
    from sinpe.reference.checking.check import reference_chunk
    from sinpe.reference.oracles.fast import column_plan, frequency_words
    from sinpe.spec.definition import column_data
    from sinpe.spec.tolerance import allowed_abs_error
    cd = column_data(profile, d)
    kind, ks = column_plan(cd)
    fw = frequency_words(cd)[4]
    w_col = np.where(kind == 2, np.nan, fw[np.minimum(ks, max(fw.shape[0] - 1, 0))]) if fw.shape[0] else np.full(d, np.nan)
    groups = column_groups(profile, d)
    rows = data.shape[0]
    err = np.zeros((len(groups), rows))
    bound = np.zeros((len(groups), rows))
    fails: list[np.ndarray] = []
    step = max(1, CHUNK_ENTRIES // max(d, 1))
    for a in range(0, rows, step):
        b = min(rows, a + step)
        p = np.asarray(positions[a:b], dtype=np.float64)
        ref, _ = reference_chunk(profile, d, p, False)
        y = np.asarray(data[a:b], dtype=np.float64)
        theta = np.abs(p + float(cd.offset))[:, None] * w_col[None, :]
        allowed = allowed_abs_error(tier, dtype, ref, theta, float(cd.amplitude), base=float(cd.base),
                                    working=working)
        with np.errstate(invalid="ignore"):
            e = np.abs(y - ref)
            bad = ~np.isfinite(y) | (e > allowed)
        for g, (_, cols) in enumerate(groups):
            err[g, a:b] = np.where(np.isfinite(e[:, cols]), e[:, cols], np.inf).max(axis=1)
            bound[g, a:b] = allowed[:, cols].max(axis=1)
        r, c = np.nonzero(bad)
        fails.append(np.stack([r + a, c, e[r, c]], axis=1))
    return {"groups": [g[0] for g in groups], "err": err, "bound": bound,
            "fails": np.concatenate(fails) if fails else np.zeros((0, 3))}


def plot_table(res: Any, data: Any, positions: Any, profile: Any, path: str, inputs: Sequence[Any] = ()) -> dict[str, Any]:
    """Draw the 1-D check ``res`` of ``data`` (rows x d, at ``positions``, checked against ``profile``) to
    ``path``; returns ``{"path", "failing" (entries marked), "non_finite", "width", "height"}``."""
    plt = require("check")
    d = data.shape[1]
    pos = np.arange(data.shape[0], dtype=np.float64) if positions is None else \
        np.array([float(x) for x in positions], dtype=np.float64)
    fig_data = entry_figures(data, pos, profile, d, res.dtype, res.tier, res.working or None)
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=SIZE, sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    _draw_errors(ax, ax2, pos, fig_data)
    _draw_bands(ax, res)
    marked, nonfinite = _draw_failures(ax, ax2, pos, data, fig_data)
    ax.set_title(f"sinpe check {res.source or 'table'}: {res.rows} x {res.d}, {res.profile_flags}, tier {res.tier}, "
                 f"{res.dtype}: {res.verdict.upper()} ({res.n_failures} failing entries)", fontsize=9)
    ax.set_ylabel("max |y - PE| per row")
    ax2.set_ylabel("max |y - PE| / bound")
    ax2.set_xlabel("position")
    if pos.size and np.nanmax(np.abs(pos)) > 100:
        for a in (ax, ax2):
            a.set_xscale("symlog", linthresh=10)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    out = write_png(fig, path, inputs)
    w, h = (int(round(v * DPI)) for v in fig.get_size_inches())
    plt.close(fig)
    return {"path": out, "failing": marked, "non_finite": nonfinite, "width": w, "height": h}


def draw_check(res: Any, target: Any, path: str, profile: Any, d: int | None, load: dict[str, Any],
               zero_rows: str | None = None, inputs: Sequence[Any] = ()) -> dict[str, Any] | None:
    """``sinpe check TARGET --plot FILE``: ``target`` loaded again as the check loaded it (``load``: the
    keywords of :func:`~sinpe.reference.checking.targets.load_target`; a callable is called once more), the rows
    ``zero_rows`` names (judged exactly 0) left out, then :func:`plot_table`. None when the check compared no
    entry (a shape finding)."""
    from sinpe.reference.checking.targets import index_spec, load_target
    if not getattr(res, "bands", None):
        return None
    table, pos, _ = load_target(target, d, **load)
    data = table.data
    p = np.arange(data.shape[0], dtype=np.float64) if pos is None else np.asarray(pos)
    if zero_rows is not None:
        keep = np.setdiff1d(np.arange(data.shape[0]), index_spec(str(zero_rows), data.shape[0], "--zero-rows"))
        data, p = np.asarray(data[keep]), p[keep]
    return plot_table(res, data, p, profile, path, inputs)


def _draw_errors(ax: Any, ax2: Any, pos: np.ndarray, f: dict[str, Any]) -> None:
    tiny = 2.0 ** -60   # an exact entry (error 0) drawn at the foot of the log axis
    for g, label in enumerate(f["groups"]):
        line, = ax.semilogy(pos, np.clip(f["err"][g], tiny, 1e3), ".", ms=2, label=f"{label}: max |error|")
        ax.semilogy(pos, np.clip(f["bound"][g], tiny, 1e3), "-", lw=0.8, color=line.get_color(),
                    label=f"{label}: bound")
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = f["err"][g] / f["bound"][g]
        ax2.semilogy(pos, np.clip(np.nan_to_num(ratio, nan=1e3, posinf=1e3), tiny, 1e3), ".", ms=2,
                     color=line.get_color())
    ax2.axhline(1.0, color="k", lw=0.8, ls="--", label="the bound")
    ax.grid(alpha=0.3, which="both")
    ax2.grid(alpha=0.3, which="both")


def _draw_bands(ax: Any, res: Any) -> None:
    """The check's position bands (decades): their edges and failure counts."""
    for b in getattr(res, "bands", []):
        ax.axvline(b.lo, color="grey", lw=0.5, ls=":")
        if b.failures:
            ax.annotate(f"{b.failures} fail", (b.lo, 1.0), xycoords=("data", "axes fraction"), fontsize=7,
                        color="red", va="top")


def _draw_failures(ax: Any, ax2: Any, pos: np.ndarray, data: Any, f: dict[str, Any]) -> tuple[int, int]:
    """Every failing entry as a red x at (position, error); a NaN/Inf entry at the top of the axis."""
    fails = f["fails"]
    if not fails.size:
        return 0, 0
    r = fails[:, 0].astype(np.int64)
    e = fails[:, 2]
    finite = np.isfinite(e)
    top = 1e3
    ax.semilogy(pos[r[finite]], e[finite], "x", color="red", ms=5, label=f"failing entries ({int(finite.sum())})")
    if (~finite).any():
        ax.semilogy(pos[r[~finite]], np.full(int((~finite).sum()), top), "v", color="darkred", ms=5,
                    label=f"NaN/Inf entries ({int((~finite).sum())})")
    ax2.semilogy(pos[r], np.full(r.size, top), "|", color="red", ms=8)
    return int(r.size), int((~finite).sum())


# --- the certification figure ------------------------------------------------------------------------------

def _band_top(label: str) -> float:
    """A certification band's upper edge from its label ``[lo, hi)`` or ``[lo, hi]``."""
    return float(label.strip("[]()").split(",")[1])


def plot_certification(report: dict[str, Any], path: str) -> dict[str, Any]:
    """``sinpe verify``'s certification (its ``implementations`` part, the JSON of
    :class:`~sinpe.reference.implementations.certify.CertReport`): per implementation and dtype, each band's
    max ratio |y - PE| / (u (1 + |theta|) |alpha|) against the band's top position, TOL-PHASE's constant c
    overlaid; an implementation that fails its requirement is marked."""
    plt = require("verify")
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=SIZE)
    failing = 0
    for r in report.get("implementations", []):
        x = [_band_top(b["band"]) for b in r["bands"]]
        label = f"{r['impl']} {r['dtype']} (meets {r['tier']}, required {r['required']})"
        line, = ax.loglog(x, [max(b["phase_ratio"], 1e-6) for b in r["bands"]], "o-", ms=3, label=label)
        ax.axhline(r["phase_constant"], color=line.get_color(), lw=0.6, ls="--")
        ax2.loglog(x, [max(b["max_ulp"], 1e-6) for b in r["bands"]], "o-", ms=3, color=line.get_color())
        if not r["ok"]:
            failing += 1
            ax.loglog(x, [max(b["phase_ratio"], 1e-6) for b in r["bands"]], "x", color="red", ms=14, mew=3)
    ax2.axhline(1.0, color="k", lw=0.8, ls=":", label="1 ulp (TOL-FAITHFUL)")
    ax.set_title("max |y - PE| / (u (1+|theta|) |alpha|) per band; dashed: TOL-PHASE c", fontsize=9)
    ax2.set_title("max ulp error per band", fontsize=9)
    for a in (ax, ax2):
        a.set_xlabel("position (band's top)")
        a.grid(alpha=0.3, which="both")
    ax.legend(fontsize=6)
    ax2.legend(fontsize=7)
    fig.suptitle(f"sinpe verify: certification of the bundled implementations: {report.get('summary', '')}"[:160],
                 fontsize=8)
    fig.tight_layout()
    out = write_png(fig, path)
    w, h = (int(round(v * DPI)) for v in fig.get_size_inches())
    plt.close(fig)
    return {"path": out, "failing": failing, "width": w, "height": h}
