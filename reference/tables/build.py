"""Correctly rounded position tables: in memory, as a PyTorch tensor, or streamed to disk (SPEC.md REQ-TABLE-API,
REQ-TABLE-STREAM).

``table(profile, d, positions, dtype)[i, j]`` is PE_profile(positions[i])[j] (DEF-PE), i.e.
``alpha * f_j(sigma * (p_i + offset) * w_k)`` with f_j in {sin, cos, 0} and w_k = base^(-e_k) by the
profile's column plan, rounded to the nearest value of ``dtype`` (ties to even). The fast path and
its error bound are in :mod:`sinpe.reference.tables.rounded`; entries it cannot decide go to the
certified oracle, so the bits equal ``sinpe table`` and the golden tables.

>>> t = table("vaswani", 4, [0, 1, 2], "float32")
>>> t.dtype, t.tolist()[1]   # sin 1, cos 1, sin 0.01, cos 0.01 in binary32 (the oracle agrees)
(dtype('float32'), [0.8414709568023682, 0.5403022766113281, 0.009999833069741726, 0.9999499917030334])
>>> table("t2t", 3, "0:2", "float64", base=10).tolist()   # d = 3, zero-pad: column 2 is 0
[[0.0, 1.0, 0.0], [0.8414709848078965, 0.5403023058681398, 0.0]]
>>> float(table("vaswani", 2, [10**7], "float16")[0, 1])   # cos(10^7) = -0.90727... -> binary16
-0.9072265625
"""
from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from sinpe.reference.files import atomic_file
from sinpe.reference.numerics.positions import PositionSource, parse_position_source
from sinpe.reference.oracles import fast
from sinpe.reference.tables import progression
from sinpe.reference.tables.rounded import WORK, Enclosure, Estimates, Plan, Stats, rounded_pairs
from sinpe.reference.threads import Pool
from sinpe.spec.formats import FORMATS, Format, get_format
from sinpe.spec.profiles import Profile, get_profile

from ..numerics.binary64 import binary64_parameters

STORAGE = {name: np.dtype(f.storage).type for name, f in FORMATS.items()}  # spec.formats.Format.storage
MAX_D = 1 << 20  # the frequency words of d/2 frequencies are computed in mpmath: ~20 s at this width
BLOCK_ENTRIES = 1 << 17  # output entries per block (rows x d): the per-block memory bound
SAFETENSORS_DTYPE = {"binary64": "F64", "binary32": "F32", "binary16": "F16", "bfloat16": "BF16"}


def resolve(profile: str | Profile, d: int, dtype: str | Format, overrides: dict[str, Any]) -> Plan:
    """The :class:`Plan` for a profile (name or Profile, with the CLI's overrides), width and format."""
    if isinstance(profile, Profile):
        prof = profile.replace(**{k: v for k, v in overrides.items() if v is not None}) if overrides else profile
    else:
        prof = get_profile(profile, **overrides)
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
        raise ValueError(f"d must be an integer >= 1; got {d!r}")
    if d > MAX_D:
        raise ValueError(f"d={d} is wider than {MAX_D} channels (the largest width sinpe tabulates)")
    fmt = dtype if isinstance(dtype, Format) else get_format(dtype)
    from sinpe.spec.definition import column_data
    binary64_parameters(prof)  # --amplitude 1e400 and the like: one line, exit 2
    column_data(prof, int(d))  # raises for odd d under the 'error' rule
    return Plan(prof, int(d), fmt)


def as_source(positions: Any) -> PositionSource:
    """A :class:`PositionSource` from an int n (0..n-1), a range, a spec string, an array or a sequence."""
    if isinstance(positions, PositionSource):
        return positions
    if isinstance(positions, str):
        return parse_position_source(positions)
    if isinstance(positions, (int, np.integer)) and not isinstance(positions, bool):
        if positions < 1:
            raise ValueError(f"need at least one position; got {positions}")
        return PositionSource(start=0, stop=int(positions))
    if isinstance(positions, range):
        if positions.step != 1 or len(positions) == 0:
            raise ValueError("a range of positions must be non-empty with step 1")
        return PositionSource(start=positions.start, stop=positions.stop)
    if isinstance(positions, np.ndarray) and positions.dtype.kind in "fiu":
        arr = positions.ravel()
        if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
            raise ValueError("positions must be finite")
        if arr.dtype.kind in "iu" and arr.size and np.any(arr.astype(np.float64).astype(arr.dtype) != arr):
            return PositionSource(values=[Fraction(int(x)) for x in arr.tolist()])
        return PositionSource(values=arr)
    from sinpe.spec.profiles import to_fraction
    vals = [to_fraction(p, "position") for p in positions]
    if not vals:
        raise ValueError("need at least one position")
    return PositionSource(values=vals)


def rounded_block(pl: Plan, pos: np.ndarray | list[Fraction], stats: Stats | None = None,
                  fraction: Callable[[int], Fraction] | None = None, estimate: bool = False) -> Any:
    """The correctly rounded rows for ``pos`` as float64 (rows, d): the fast path, then the oracle for the rest.

    ``estimate=True`` returns ``(rounded, enclosure)`` instead: also the fast path's estimate of PE as an
    :class:`~sinpe.reference.tables.rounded.Enclosure`, |PE - v - lo| <= B entry by entry (all 0 in
    identically zero columns)."""
    P_hi, P_lo = fast.positions_dd(pos if isinstance(pos, np.ndarray) else list(pos), pl.cd.offset)
    if np.any(np.abs(P_hi) >= 2.0 ** 53):
        raise ValueError("|position + offset| must stay below 2^53")
    rows, nf = P_hi.shape[0], pl.nf
    S = np.empty((rows, nf))
    C = np.empty((rows, nf))
    okS = np.empty((rows, nf), dtype=bool)
    okC = np.empty((rows, nf), dtype=bool)
    est = Estimates.empty(pl, (rows, nf)) if estimate else None
    for k0 in range(0, nf, WORK):
        k1 = min(nf, k0 + WORK)
        sub = None if est is None else est.cols(k0, k1)
        rounded_pairs(pl, P_hi, P_lo, S[:, k0:k1], C[:, k0:k1], okS[:, k0:k1], okC[:, k0:k1], k0, sub)
        if est is not None and sub is not None:
            est.k_tau = max(est.k_tau, sub.k_tau)
    zero = (P_hi == 0) & (P_lo == 0)  # P = 0 exactly: theta = 0, sin is exactly 0 (+0.0 in every format)
    if zero.any():
        S[zero] = 0.0
        okS[zero] = True
    okS[:, ~pl.sin_used] = True
    okC[:, ~pl.cos_used] = True
    bad = ~(okS & okC)
    n_or = 0
    if bad.any():
        cert = pl.certifier()
        frac = fraction or (lambda i: pos[i] if isinstance(pos[i], Fraction) else Fraction(float(pos[i])))
        for r, k in zip(*np.nonzero(bad), strict=True):
            pr = cert.pair(pl.profile, pl.d, int(k), frac(int(r)))
            if not okS[r, k]:
                S[r, k] = pr.sin[0]
                n_or += 1
            if not okC[r, k]:
                C[r, k] = pr.cos[0]
                n_or += 1
    if stats is not None:
        stats.add(rows * pl.d, n_or)
    if est is None:
        return assemble(pl, S, C)
    v = assemble(pl, est.VS, est.VC)
    if est.LS is None or est.LC is None or est.BS is None or est.BC is None:  # the narrow kernel's: V only
        return assemble(pl, S, C), Enclosure(v, None, None, *pl.narrow_bound(est.k_tau))
    return assemble(pl, S, C), Enclosure(v, assemble(pl, est.LS, est.LC), assemble(pl, est.BS, est.BC))


def assemble(pl: Plan, S: np.ndarray, C: np.ndarray, dtype: Any = np.float64) -> np.ndarray:
    """Columns by the profile's plan: sin, cos or the exact zero."""
    out = np.empty((S.shape[0], pl.d), dtype=dtype)
    for cols, src in ((pl.sin_idx, S), (pl.cos_idx, C)):
        dst_sel, src_sel = cols
        out[:, dst_sel] = src[:, src_sel]
    if pl.zero_cols.size:
        out[:, pl.zero_cols] = 0.0
    return out


def correctly_rounded_block(profile: Profile | Plan, d: int, positions: Any, fmt: str | Format,
                            stats: Stats | None = None, estimate: bool = False) -> Any:
    """The correctly rounded table for a block of positions, as float64 holding ``fmt``'s values (for the checker).

    ``profile`` may be a :class:`Plan` already resolved for (profile, d, fmt) (the checker makes one per
    table). ``estimate=True`` returns ``(rounded, enclosure)`` as :func:`rounded_block` does.
    """
    pl = profile if isinstance(profile, Plan) else resolve(profile, d, fmt, {})
    src = as_source(positions)
    return rounded_block(pl, src.block(0, len(src)), stats, src.fraction, estimate)


def iter_blocks(pl: Plan, src: PositionSource, workers: int | None = None, stats: Stats | None = None,
                progress: Callable[[int], None] | None = None) -> Iterator[np.ndarray]:
    """The table's row blocks in order (at most ``BLOCK_ENTRIES`` entries each; float64, or the format's storage
    dtype when the positions are a progression: exact values either way), computed on ``workers`` threads."""
    n = len(src)
    rows = max(1, BLOCK_ENTRIES // pl.d)
    workers = workers or os.cpu_count() or 1
    prog = progression_of(pl, src, rows)

    def job(a: int) -> np.ndarray:
        return _block(pl, prog, src, a, min(n, a + rows), stats)

    if workers == 1:
        for a in range(0, n, rows):
            blk = job(a)
            if progress:
                progress(blk.shape[0])
            yield blk
        return
    with Pool(workers) as ex:
        pending: list[Any] = []
        it = iter(range(0, n, rows))
        for a in it:
            pending.append(ex.submit(job, a))
            if len(pending) >= 2 * workers:
                break
        while pending:
            blk = pending.pop(0).result()
            nxt = next(it, None)
            if nxt is not None:
                pending.append(ex.submit(job, nxt))
            if progress:
                progress(blk.shape[0])
            yield blk


def _block(pl: Plan, prog: progression.Progression | None, src: PositionSource, a: int, b: int,
           stats: Stats | None) -> np.ndarray:
    """Rows a..b: by the progression kernel (then :func:`settle_rows`) when there is one, else :func:`rounded_block`."""
    if prog is None:
        return rounded_block(pl, src.block(a, b), stats, lambda i: src.fraction(a + i))
    blk = np.empty((b - a, pl.d), dtype=STORAGE[pl.fmt.name])
    settle_rows(prog, src, blk, a, prog.fill(blk, a, b), stats)
    if stats is not None:
        stats.add(blk.size, 0)
    return blk


def settle_rows(prog: progression.Progression, src: PositionSource, out: np.ndarray, a: int, bad: set[int],
                stats: Stats | None) -> None:
    """out[r - a] = row r by :func:`rounded_block` (the general kernels, then the oracle) for the rows ``bad`` the
    progression kernel left undecided; only the oracle's count goes to ``stats`` (the entries are counted once)."""
    if not bad:
        return
    rows = sorted(bad)
    own = Stats()
    out[[r - a for r in rows]] = rounded_block(prog.pl, [src.fraction(r) for r in rows], own,
                                               lambda i: src.fraction(rows[i]))
    if stats is not None:
        stats.add(0, own.oracle)


def check_memory(nbytes: int) -> None:
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return
    if nbytes > total // 2:
        raise ValueError(f"the table needs {nbytes / 2**30:.1f} GiB, more than half this machine's memory; "
                         f"stream it to disk with write_table (or sinpe table --out)")


def table(profile: str | Profile, d: int, positions: Any, dtype: str | Format = "float64",
          workers: int | None = None, stats: Stats | None = None, **overrides: Any) -> np.ndarray:
    """The correctly rounded table PE_profile(positions) in ``dtype``: a NumPy array (rows, d).

    ``overrides`` are the CLI's profile flags (``base``, ``shift``, ``phase_scale``, ``amplitude``,
    ``offset``, ``odd``, ``layout``). bfloat16 comes as float32 holding exactly the bfloat16 values
    (NumPy has no bfloat16; :func:`table_torch` returns a real bfloat16 tensor). Same bits as ``sinpe table``.
    """
    pl = resolve(profile, d, dtype, overrides)
    src = as_source(positions)
    store = STORAGE[pl.fmt.name]
    check_memory(len(src) * pl.d * np.dtype(store).itemsize)
    out = np.empty((len(src), pl.d), dtype=store)
    workers = workers or os.cpu_count() or 1
    prog = progression_of(pl, src, job_rows(len(src), workers))
    if prog is not None:
        fill_progression(prog, src, out, workers, stats)
        return out
    r = 0
    for blk in iter_blocks(pl, src, workers, stats):
        out[r:r + blk.shape[0]] = blk
        r += blk.shape[0]
    return out


def job_rows(n: int, workers: int) -> int:
    """Rows per job of a progression: about four jobs per worker, a multiple of the low table, at most JOB_ROWS."""
    low = progression.LOW
    return max(low, min(progression.JOB_ROWS, -(-n // (4 * workers * low)) * low))


def progression_of(pl: Plan, src: PositionSource, rows: int) -> progression.Progression | None:
    """The progression kernel for ``src`` when its positions are integers p_0 + i h and the plan suits it, else None."""
    n = len(src)
    start: tuple[int, int] | None
    if src.values is None:
        assert src.start is not None  # a range
        start = (src.start, 1)
    elif isinstance(src.values, np.ndarray):
        start = progression.detect(src.values)
    else:
        start = progression.detect_exact(src.values)
    if start is None or not progression.applies(pl, n):
        return None
    return progression.Progression(pl, start[0], start[1], n, rows)


def fill_progression(prog: progression.Progression, src: PositionSource, out: np.ndarray, workers: int,
                     stats: Stats | None = None) -> None:
    """out = the table of a progression: jobs of rows on ``workers`` threads, each writing its rows (their seed rows
    computed here, a group at a time); rows a job leaves undecided are settled by :func:`settle_rows`."""
    n, rows = out.shape[0], prog.job_rows
    starts = list(range(0, n, rows))
    group = max(1, (1 << 18) // prog.pl.nf)  # seed rows per call: 8 MiB of double-double pairs at most
    if workers > 1:
        prog.block = 2 * progression.BLOCK  # two threads contend for the GIL between NumPy calls: fewer, longer ones

    def job(a: int, seeds: Any) -> None:
        b = min(n, a + rows)
        settle_rows(prog, src, out[a:b], a, prog.fill(out[a:b], a, b, seeds), stats)

    pool = Pool(workers) if workers > 1 and len(starts) > 1 else None
    try:
        pending: list[Any] = []
        for g in range(0, len(starts), group):
            part = starts[g:g + group]
            seeds = prog.seeds(part)
            if pool is None:
                for a, sd in zip(part, seeds, strict=False):
                    job(a, sd)
                continue
            for fut in pending:  # one group of seeds alive while the next is computed
                fut.result()
            pending = [pool.submit(job, a, sd) for a, sd in zip(part, seeds, strict=False)]
        for fut in pending:
            fut.result()
    finally:
        if pool is not None:
            pool.close()
    if stats is not None:
        stats.add(n * prog.pl.d, 0)


def table_torch(profile: str | Profile, d: int, positions: Any, dtype: str = "float32", device: Any = "cpu",
                **overrides: Any) -> Any:
    """:func:`table` as a ``torch.Tensor`` of ``dtype`` on ``device``: computed on the CPU, then moved
    (the device never recomputes a value, so the bits are the CPU's on every device).

    >>> import torch
    >>> t = table_torch("vaswani", 2, [3], "bfloat16")
    >>> t.dtype, t.tolist()   # sin 3, cos 3 correctly rounded to bfloat16 (the oracle's doctest: 0.1416015625)
    (torch.bfloat16, [[0.1416015625, -0.98828125]])
    """
    import torch
    fmt = get_format(dtype)
    arr = table(profile, d, positions, fmt, **overrides)
    t = torch.from_numpy(arr)
    if fmt.name == "bfloat16":
        t = t.to(torch.bfloat16)  # exact: every entry already is a bfloat16 value
        if not torch.equal(t.to(torch.float32), torch.from_numpy(arr)):
            raise AssertionError("bfloat16 conversion changed a value")
    return t.to(device)


def write_table(path: str | Path, profile: str | Profile, d: int, positions: Any, dtype: str | Format = "float64",
                workers: int | None = None, stats: Stats | None = None, progress: Callable[[int], None] | None = None,
                **overrides: Any) -> tuple[int, int]:
    """Stream the table to ``path`` (``.npy`` or ``.safetensors``) in row blocks; return its shape.

    Memory stays bounded (a few blocks of ``BLOCK_ENTRIES`` entries per thread) whatever the table's
    size; the free disk space is checked first; the file appears only when complete (written under
    a temporary name in the same directory, then renamed).
    """
    path = Path(path)
    pl = resolve(profile, d, dtype, overrides)
    src = as_source(positions)
    if path.suffix not in (".npy", ".safetensors"):
        raise ValueError(f"output must end in .npy or .safetensors; got {str(path)!r}")
    if not path.parent.is_dir():
        raise ValueError(f"directory {str(path.parent)!r} does not exist")
    store = np.dtype(STORAGE[pl.fmt.name])
    bf16_raw = path.suffix == ".safetensors" and pl.fmt.name == "bfloat16"
    item = 2 if bf16_raw else store.itemsize
    shape = (len(src), pl.d)
    nbytes = shape[0] * shape[1] * item
    free = shutil.disk_usage(path.parent).free
    if nbytes + (1 << 20) > free:
        raise ValueError(f"the table needs {nbytes / 2**30:.2f} GiB; {str(path.parent)!r} has {free / 2**30:.2f} GiB free")
    with atomic_file(path, suffix=".part") as fh:
        if path.suffix == ".npy":
            np.lib.format.write_array_header_1_0(fh, {"descr": np.lib.format.dtype_to_descr(store.newbyteorder("<")),
                                                      "fortran_order": False, "shape": shape})
        else:
            head = json.dumps({"table": {"dtype": SAFETENSORS_DTYPE[pl.fmt.name], "shape": list(shape),
                                         "data_offsets": [0, nbytes]},
                               "__metadata__": {"profile": pl.profile.cli_flags(), "format": pl.fmt.name,
                                                "rounding": "correctly rounded (nearest, ties to even)"}},
                              separators=(",", ":")).encode()
            head += b" " * (-len(head) % 8)
            fh.write(len(head).to_bytes(8, "little") + head)
        for blk in iter_blocks(pl, src, workers, stats, progress):
            arr = blk.astype(store.newbyteorder("<"))
            if bf16_raw:
                arr = (arr.view(np.uint32) >> 16).astype("<u2")
            fh.write(arr.tobytes())
    return shape


