"""``sinpe scan``: every sinusoid table in a checkpoint, found and judged (SPEC.md REQ-SCAN).

Each tensor (:mod:`scan_files`, one at a time) is either **skipped** with the reason -- not floating point,
not 2-D once singleton axes are dropped, non-finite, all zeros, or screened out: by the screen
(:func:`sinusoid_share`) not a sinusoid -- and never judged, or **judged**: checked against what detect names, by
the one check pipeline (``sinpe check --profile auto``, REQ-CHECK-AUTO): its row is a view of that check's result
(the same keys; the cause named). A tensor the screen reads as a sinusoid and detect names nothing is never
skipped (REQ-SCAN-NO-SKIP): it is read with corrupted rows (:mod:`corrupted`, the 1-D rule for every kind) and
judged, or reported ``inconclusive`` with the reason. A tensor that cannot be read is an ``error``.
:func:`scan` runs the tensors on ``workers`` processes (each reads and judges one tensor at a time).

>>> import os, tempfile, numpy as np
>>> from sinpe.reference.tables import table
>>> d = tempfile.mkdtemp(); p = os.path.join(d, "ckpt.npz")
>>> np.savez(p, pe=table("vaswani", 16, 64, "float32"), w=np.random.default_rng(0).normal(size=(64, 16)))
>>> s = scan(p)
>>> [(r.name, r.verdict, r.profile_flags) for r in s.rows]
[('pe', 'conforms', '--profile vaswani'), ('w', 'skipped', None)]
>>> s.exit_code
0
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sinpe.reference.checking import door, exported
from sinpe.reference.checking.containers import widen_bf16
from sinpe.reference.checking.corrupted import corrupted_reading
from sinpe.reference.checking.detect.fit import SINUSOID_RESIDUAL
from sinpe.reference.checking.gguf_rope import check_rope_freqs
from sinpe.reference.checking.loaders import exit_on_sigbus, release_pages
from sinpe.reference.checking.report import with_cause
from sinpe.reference.checking.result import EXIT, SUMMARY_KEYS, CheckResult, combined_exit
from sinpe.reference.checking.scan_files import Shard, TensorRef, list_tensors, read_tensor
from sinpe.spec.profiles import PRESETS

from ..inputs import LoadError, escape, one_line, open_regular

JUDGED = ("conforms", "fails", "inconclusive")
MIN_ROWS = 3
SCREEN_ENTRIES = 1 << 18  # a bigger tensor is first read on its first SCREEN_ROWS rows (memory stays bounded)
SCREEN_ROWS = 300   # neither a square nor one more (no grid reading of a partial grid)
SINUSOID_SHARE = 0.5       # the share of such columns (in either orientation) a table must have
SCREEN_CHUNK = 1 << 20     # entries the value checks read at a time (memory bounded whatever the tensor)
SHARE_ENTRIES = 1 << 22    # entries of each window the sinusoid screen reads
MAX_WIDTH = 1 << 16        # columns of a tensor a scan judges (a row is what the check streams)


@dataclass
class Row:
    """One tensor's line of the scan: a view of its check's result (``result``, judged tensors), with the same keys
    (:data:`~sinpe.reference.checking.result.SUMMARY_KEYS`: ``profile_flags`` the ``sinpe check`` flags of what
    detect named, ``unjudged``, ``cause``, ...), or a tensor skipped or not read (``result`` None)."""

    file: str
    name: str
    shape: list[int]
    stored_dtype: str
    verdict: str                 # conforms / fails / inconclusive / skipped / error
    result: CheckResult | None = None
    reason: str | None = None
    seconds: float = 0.0
    figures: dict[str, Any] | None = None  # the SUMMARY_KEYS of a row with no result object (JSON lines merged, GGUF rope)

    def __getattr__(self, key: str) -> Any:
        """The result's figure ``key`` (kind, profile_flags, max_abs_error, unjudged, cause, ...); None without one."""
        if key in SUMMARY_KEYS and key != "result":
            return self.summary().get(key)
        raise AttributeError(key)

    def summary(self) -> dict[str, Any]:
        """The :data:`~sinpe.reference.checking.result.SUMMARY_KEYS` of this row's result (None each without one)."""
        res, figures = self.__dict__.get("result"), self.__dict__.get("figures")
        if res is not None:
            return res.summary()
        return {k: (figures or {}).get(k) for k in SUMMARY_KEYS}

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"file": self.file, "name": self.name, "shape": self.shape,
                               "stored_dtype": self.stored_dtype}
        out.update(self.summary())
        out.update(verdict=self.verdict, conformant=self.verdict == "conforms", exit_code=EXIT[self.verdict],
                   reason=self.reason, seconds=self.seconds)
        return out


@dataclass
class Scan:
    path: str
    rows: list[Row] = field(default_factory=list)
    seconds: float = 0.0
    workers: int = 1
    shard: str | None = None     # "K/N" when the scan judged one shard of PATH (REQ-SCAN-SHARD)

    def counts(self) -> dict[str, int]:
        out = {v: 0 for v in (*JUDGED, "skipped", "error")}
        for r in self.rows:
            out[r.verdict] += 1
        return out

    @property
    def exit_code(self) -> int:
        return combined_exit(r.verdict for r in self.rows)

    def summary(self) -> dict[str, Any]:
        c = self.counts()
        found = c["conforms"] + c["fails"] + c["inconclusive"]
        return {"tensors": len(self.rows), "found": found, **c, "seconds": self.seconds, "workers": self.workers,
                "tensors_per_second": len(self.rows) / self.seconds if self.seconds else None,
                "exit_code": self.exit_code, **({"shard": self.shard} if self.shard else {})}

    def to_json(self) -> dict[str, Any]:
        return {"kind": "scan", "path": self.path, "tensors": [r.to_json() for r in self.rows],
                "summary": self.summary()}


@dataclass
class Matrix:
    """A tensor as a (rows, columns) table, read window by window: ``raw`` its stored values (a memory map where
    the container allows), ``bf16`` when they are bfloat16 bit patterns, widened exactly as each window is read."""

    raw: np.ndarray
    bf16: bool = False

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.raw.shape)

    @property
    def size(self) -> int:
        return int(self.raw.size)

    def __getitem__(self, index: Any) -> np.ndarray:
        a = self.raw[index]
        return widen_bf16(a) if self.bf16 else np.asarray(a)

    def full(self) -> np.ndarray:
        """Every value (bfloat16: widened, a copy; else the stored array itself)."""
        return widen_bf16(self.raw) if self.bf16 else self.raw

    def blocks(self) -> Any:
        """``(column, block)`` over blocks of at most :data:`SCREEN_CHUNK` entries, rows first; the pages of what
        was read are released from memory as the blocks advance (a memory map)."""
        n, w = self.shape
        cols = min(w, SCREEN_CHUNK)
        rows = max(1, SCREEN_CHUNK // cols)
        for r in range(0, n, rows):
            for c in range(0, w, cols):
                yield c, self[r:r + rows, c:c + cols]
                release_pages(self.raw, r, (c + cols) * self.raw.strides[1] if rows == 1 else 0)
            release_pages(self.raw, min(n, r + rows))


def _matrix(a: np.ndarray, bf16: bool = False) -> tuple[Matrix | None, str | None]:
    """The tensor as a (rows, columns) table, or None and why it is not one."""
    if a.dtype.kind != "f" and not bf16:
        return None, f"{a.dtype} values: a sinusoid table is floating point"
    shape = [s for s in a.shape if s != 1]
    if len(shape) != 2:
        return None, f"{len(shape)}-D once singleton axes are dropped: a table is 2-D (positions x channels)"
    m = Matrix(a.reshape(shape), bf16)
    if m.shape[0] < MIN_ROWS:
        return None, f"{m.shape[0]} rows: detect needs at least {MIN_ROWS}"
    why = _value_problem(m)
    return (None, why) if why else (m, None)


def _value_problem(m: Matrix) -> str | None:
    """Non-finite values, all zeros or every row the same, read in bounded blocks (:meth:`Matrix.blocks`)."""
    nonzero, same = False, True
    for c, b in m.blocks():
        if not np.isfinite(b).all():
            return "non-finite values"
        nonzero = nonzero or bool(b.any())
        same = same and np.array_equal(b, np.broadcast_to(m[0:1, c:c + b.shape[1]], b.shape))
    if not nonzero:
        return "all zeros"
    return "every row is the same vector: no position is encoded" if same else None


FLOAT_DTYPES = ("F64", "F32", "F16", "BF16", "float64", "float32", "float16", "bfloat16")
BF16_DTYPES = ("BF16", "bfloat16")


def judge(ref: TensorRef) -> Row:
    """Skip, judge or report an error for one tensor (see the module docstring): a tensor that cannot be read,
    and an internal failure of its check, is an ``error`` row, never the end of the scan."""
    t0 = time.perf_counter()
    row = Row(ref.file, ref.name, list(ref.shape), ref.dtype, "skipped")
    if ref.problem is not None:
        row.verdict, row.reason = "error", ref.problem
    elif ref.dtype not in FLOAT_DTYPES:
        row.reason = f"{ref.dtype} values: a sinusoid table is floating point"
    elif ref.role == "gguf-rope":
        _judge_rope_metadata(row, ref)
    else:
        _judge_values(row, ref)
    row.seconds = time.perf_counter() - t0
    return row


def _judge_values(row: Row, ref: TensorRef) -> None:
    try:
        m, why = _matrix(read_tensor(ref, widen=False), ref.dtype in BF16_DTYPES)
    except Exception as e:  # LoadError, and whatever NumPy raises for a tensor it cannot map (102 dimensions)
        row.verdict, row.reason = "error", _failure("cannot be read", e)
        return
    if m is None:
        row.reason = why
        return
    try:
        _check(row, m)
    except Exception as e:  # a failure of the check itself: this tensor is not judged (exit 3), the scan goes on
        row.verdict, row.result = "error", None
        row.reason = _failure("not judged: the check failed", e)


def _judge_rope_metadata(row: Row, ref: TensorRef) -> None:
    """A GGUF file's rope_freqs.weight against the rope metadata beside it (REQ-IO-FORMATS: gguf_rope)."""
    try:
        with open_regular(ref.file) as fh:
            r = check_rope_freqs(exported.gguf_file(fh).metadata, np.array(exported.gguf_array(fh, ref.name)))
    except Exception as e:
        row.verdict, row.reason = "error", _failure("cannot be read", e)
        return
    row.verdict, row.reason = r.verdict, r.reason or None
    row.figures = {"kind": "gguf-rope", "verdict": r.verdict, "conformant": r.verdict == "conforms",
                   "exit_code": EXIT[r.verdict], "profile_flags": r.plan, "reason": r.reason or None,
                   "max_abs_error": r.max_rel_error, "unjudged": {"count": 0, "share": 0.0}}


def _failure(what: str, e: BaseException) -> str:
    if isinstance(e, LoadError):
        return str(e)
    if isinstance(e, MemoryError):
        return f"{what}: out of memory"
    return f"{what} ({type(e).__name__}: {one_line(e)})"


def _auto(m: np.ndarray) -> tuple[Any, dict[str, Any], str | None]:
    """(check result, detection, None) when detect reads ``m`` as a sinusoid table, else (None, {}, why)."""
    try:
        res = door.check(m, "auto", detect=False)
    except LoadError as e:
        return None, {}, f"detect finds no sinusoid table: {e}"
    det = res.detected or {}
    if res.kind == "1d" and res.profile is None and (not det or "no_fit" in det.get("deviations", {})):
        return None, {}, f"no sinusoid reading: {det.get('sentence') or res.reason}"
    return res, det, None


def sinusoid_share(m: Any, rows: int | None = None) -> float:
    """The share of columns that are sinusoids of the row index, in the better orientation: column x with
    x(p+1) + x(p-1) = c x(p) (c = 2 cos w, least squares; the shift theorem) missed by less than
    SINUSOID_RESIDUAL of its RMS at the median row, read on windows of at most SHARE_ENTRIES entries (of the first
    ``rows`` rows, all when None). Every table of every kind passes (a grid's columns, per grid
    row, and a pixel cache's too; padding, cls and a few corrupted rows are outvoted); random weights do not.

    >>> from sinpe.reference.tables import table
    >>> sinusoid_share(table("vaswani", 16, 64, "float16")), sinusoid_share(np.random.default_rng(0).normal(size=(64, 16)))
    (1.0, 0.0)
    """
    def share(x: np.ndarray) -> float:
        a, b = x[2:] + x[:-2], x[1:-1]
        w = np.ones_like(b)
        for _ in range(2):  # refit without the rows it misses most (a grid row's wrap, padding, corrupted rows)
            bb = np.einsum("ij,ij->j", w * b, b)
            c = np.einsum("ij,ij->j", w * a, b) / np.where(bb > 0, bb, 1)
            r = np.abs(a - c * b)
            w = (r <= 3 * np.median(r, axis=0)).astype(np.float64)
        rms = np.sqrt(np.mean(x * x, axis=0))
        return float(np.mean(np.median(r, axis=0) <= SINUSOID_RESIDUAL * rms))
    n, w = m.shape
    n = n if rows is None else min(n, rows)
    rx, cy = min(n, 4096), min(w, 4096)  # windows of at most SHARE_ENTRIES entries, whatever the tensor's shape
    x = np.asarray(m[:rx, :min(w, max(1, SHARE_ENTRIES // rx))], dtype=np.float64)
    y = np.asarray(m[:min(n, max(3, SHARE_ENTRIES // cy)), :cy], dtype=np.float64).T
    return max(share(x) if x.shape[0] >= 3 else 0.0, share(y) if y.shape[0] >= 3 else 0.0)


def _check(row: Row, m: Matrix) -> None:
    s = sinusoid_share(m, SCREEN_ROWS if m.size > SCREEN_ENTRIES else None)
    if s < SINUSOID_SHARE:  # the cheap screen: detect's readings cost seconds per tensor
        row.reason = (f"screened out: {100 * s:.0f}% of its columns (or rows) are sinusoids of the index "
                      f"(three-term recurrence within {SINUSOID_RESIDUAL:g} of the RMS); a table of any kind has "
                      f"at least {100 * SINUSOID_SHARE:.0f}%")
        return
    if m.shape[1] > MAX_WIDTH:  # a sinusoid by the screen, too wide to judge: never a skip (REQ-SCAN-NO-SKIP)
        row.verdict = "inconclusive"
        row.reason = (f"not judged: {m.shape[1]} columns: wider than the {MAX_WIDTH} a scan judges (its memory is "
                      f"bounded by the widest row); sinpe check --columns judges part of it")
        return
    table = m.full()
    res, det, why = _auto(table)
    if res is None:  # the screen reads a sinusoid that detect names nothing: never a skip (REQ-SCAN-NO-SKIP)
        _judge_unnamed(row, table, s, why)
        return
    if res.kind == "1d" and res.profile is None and det.get("profile") in PRESETS:
        auto = res  # a preset with deviations: the entries say where, the detection why
        res = door.check(table, det["profile"], detect=False)
        res.cause, res.cause_code = auto.cause, auto.cause_code
    if res.profile is None:
        res.profile_flags = det.get("profile_flags") or "(no member)"
    row.verdict, row.result, row.reason = res.verdict, res, res.reason
    zero = np.flatnonzero(~np.any(table, axis=1))
    if res.verdict != "conforms" and zero.size:  # fairseq's padding row (FSMT checkpoints): said beside the entries
        row.reason = (f"{row.reason}; the rows at positions {', '.join(map(str, zero[:5].tolist()))}"
                      f"{' ...' if zero.size > 5 else ''} are all zero (padding rows)")


def _judge_unnamed(row: Row, table: Any, share: float, why: str | None) -> None:
    """REQ-SCAN-NO-SKIP: a tensor the screen reads as a sinusoid and detect names nothing is read with corrupted
    rows (:func:`~sinpe.reference.checking.corrupted.corrupted_reading`: the 1-D rule for every kind) and judged
    against that reading, or else reported inconclusive with the reason (exit 3)."""
    reading = corrupted_reading(table)
    if reading is None:
        row.verdict = "inconclusive"
        row.reason = (f"not judged: the screen reads it as a sinusoid table ({100 * share:.0f}% of its columns or "
                      f"rows are sinusoids of the index) but detect names no table ({why}), and no grid or rotary "
                      f"preset matches it outside a few corrupted rows; check it with explicit flags")
        return
    res = reading.check(table)
    res.profile_flags = reading.flags
    row.verdict, row.result = res.verdict, res
    row.reason = f"{res.reason}; {reading.sentence}" if res.reason else reading.sentence


def _pool(workers: int, alarm: int) -> Any:
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor
    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else None
    return ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker, initargs=(alarm,))


def _worker(alarm: int) -> None:
    """A worker is quiet: truncated under (SIGBUS) it says so on the pipe ``alarm`` and exits, and the parent writes
    the one line; SIGTERM (the pool ending) ends it silently; Ctrl-C is the parent's to handle."""
    import signal
    exit_on_sigbus(alarm, b"B", 2)
    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is not None:
            signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def scan(path: str, workers: int = 1, progress: Callable[[int], None] | None = None,
         shard: Shard | None = None) -> Scan:
    """Every tensor under ``path`` (with ``shard``, of the files in it: REQ-SCAN-SHARD), in listing order;
    ``workers`` processes (at most the CPU count)."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise LoadError(f"--workers must be a positive integer; got {workers!r}")
    workers = min(workers, os.cpu_count() or 1)
    t0 = time.perf_counter()
    refs = list_tensors(path, shard)
    out = Scan(path, workers=workers, shard=shard.words if shard else None)
    if workers == 1 or len(refs) < 2:
        for r in refs:
            out.rows.append(judge(r))
            if progress:
                progress(1)
    else:
        _judge_in_workers(out, refs, workers, progress)
    out.seconds = time.perf_counter() - t0
    return out


def _judge_in_workers(out: Scan, refs: list[TensorRef], workers: int, progress: Callable[[int], None] | None) -> None:
    """The rows judged by ``workers`` processes. A worker killed by SIGBUS (an input truncated while it was read)
    ends the scan in one line, as in one process (LoadError); a worker that dies otherwise leaves an ``error``
    row for each tensor it did not report (exit 3)."""
    from concurrent.futures.process import BrokenProcessPool
    alarm_r, alarm_w = os.pipe()
    try:
        with _pool(workers, alarm_w) as ex:
            for row in ex.map(judge, refs):
                out.rows.append(row)
                if progress:
                    progress(1)
    except BrokenProcessPool:
        os.set_blocking(alarm_r, False)
        try:
            truncated = os.read(alarm_r, 1) == b"B"
        except BlockingIOError:
            truncated = False
        if truncated:
            raise LoadError("an input file was truncated while it was read (SIGBUS); nothing was judged") from None
        for r in refs[len(out.rows):]:
            out.rows.append(Row(r.file, r.name, list(r.shape), r.dtype, "error",
                                reason="not judged: its worker process died (a signal, or out of memory)"))
    finally:
        os.close(alarm_r)
        os.close(alarm_w)


# --- reports --------------------------------------------------------------------------------------------

def render(s: Scan) -> str:
    """One row per tensor, then the summary."""
    L = [f"sinpe scan {escape(s.path)}: {len(s.rows)} tensors",
         f"  {'tensor':40s} {'shape':>14s} {'kind':6s} {'verdict':12s} {'max error':>10s} {'unjudged':>8s}  plan / reason"]
    for r in s.rows:
        name = escape(r.name if len({x.file for x in s.rows}) == 1 else f"{os.path.basename(r.file)}:{r.name}")
        err = f"{r.max_abs_error:.3g}" if r.max_abs_error is not None else "-"
        unj = f"{100 * r.unjudged['share']:.3g}%" if r.unjudged is not None else "-"
        plan = r.profile_flags
        what = plan if r.verdict == "conforms" else (f"{plan}: {r.reason}" if plan else str(r.reason))
        L.append(f"  {name[:40]:40s} {'x'.join(map(str, r.shape)):>14s} {r.kind or '-':6s} {r.verdict:12s} "
                 f"{err:>10s} {unj:>8s}  {escape(str(what))[:160]}")
        if r.verdict != "conforms" and r.cause:  # the cause in full, on its own line (REQ-CHECK-CAUSE)
            L.append(f"  {'':40s} cause: {escape(str(r.cause))}")
    c = s.summary()
    L.append(f"{c['found']} sinusoid tables found ({c['conforms']} conform, {c['fails']} fail, {c['inconclusive']} "
             f"inconclusive), {c['skipped']} skipped, {c['error']} errors; {s.seconds:.2f} s "
             f"({c['tensors_per_second'] or 0:.3g} tensors/s, {s.workers} workers)")
    return "\n".join(L)


def junit_cases(s: Scan) -> list[tuple[str, Any]]:
    """One case per tensor: a failure for fails/error, skipped for skipped/inconclusive."""
    out: list[tuple[str, Any]] = []
    for r in s.rows:
        name = f"{os.path.basename(r.file)}:{r.name}"
        if r.verdict in ("fails", "error"):
            out.append((name, with_cause(f"{r.verdict}: {r.profile_flags or ''} {r.reason or ''}".strip(), r)))
        elif r.verdict in ("skipped", "inconclusive"):
            out.append((name, ("skipped", f"{r.verdict}: {r.reason}")))
        else:
            out.append((name, None))
    return out
