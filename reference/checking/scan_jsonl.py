"""A scan as JSON lines, and many scans' lines merged into one (SPEC.md REQ-SCAN-SHARD).

:func:`jsonl_lines` is what ``sinpe scan --jsonl`` prints and ``--out FILE`` writes: one JSON object per tensor
(the keys of the scan's JSON rows, and ``path``, the PATH scanned), then one ``{"summary": ..., "path": ...}``
line. Shards of a scan (``--shard K/N``) and scans of different trees merge without loss:
:func:`merge_lines` (``sinpe scan --merge FILE...``) takes every row line of its inputs, refuses a tensor
listed twice (shards that overlap), sorts the rows by (file, tensor) and recomputes the summary -- the counts
and the exit status of one scan of everything (``seconds`` and ``workers`` the inputs' sums, ``shards`` how
many summaries were merged). Inputs are untrusted: regular files only (:func:`~sinpe.reference.inputs.open_regular`), at
most :data:`MAX_BYTES` in all and :data:`MAX_LINE` a line, each line a JSON object of exactly the row keys or
a summary, else one input error naming the file and line.

>>> import os, tempfile, numpy as np
>>> from sinpe.reference.checking.scan import scan
>>> from sinpe.reference.tables import table
>>> d = tempfile.mkdtemp(); np.savez(os.path.join(d, "a.npz"), pe=table("vaswani", 16, 64, "float32"))
>>> np.savez(os.path.join(d, "b.npz"), w=np.random.default_rng(0).normal(size=(64, 16)))
>>> parts = [jsonl_lines(scan(d, shard=Shard(k, 2))) for k in (1, 2)]
>>> merged = merge_lines([line for part in parts for line in part])
>>> [json.loads(x)["verdict"] for x in merged[:-1]], json.loads(merged[-1])["summary"]["exit_code"]
(['conforms', 'skipped'], 0)
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from sinpe.reference.checking.result import SUMMARY_KEYS
from sinpe.reference.checking.scan import JUDGED, Row, Scan
from sinpe.reference.checking.scan_files import Shard  # noqa: F401 -- the doctest's, and the recipe's

from ..inputs import LoadError, escape, open_regular

MAX_BYTES = 1 << 30     # bytes of JSON lines --merge reads in all
MAX_LINE = 1 << 20      # bytes of one line
ROW_KEYS = frozenset(Row("", "", [], "", "skipped").to_json()) | {"path"}  # a scan row's JSON keys
VERDICTS = (*JUDGED, "skipped", "error")


def jsonl_lines(s: Scan) -> list[str]:
    """The scan's JSON lines: one per tensor (its row's keys and ``path``), then the summary line."""
    summary: dict[str, Any] = {"summary": s.summary(), "path": s.path}
    return [json.dumps(dict(r.to_json(), path=s.path)) for r in s.rows] + [json.dumps(summary)]


def merge_lines(lines: Iterable[str], where: str = "JSON lines") -> list[str]:
    """Every row line of ``lines`` (JSON lines of scans) sorted by (file, tensor), then the summary of all; a
    tensor listed twice, a line that is no row or summary, is a LoadError."""
    return _merge((f"{where} line {n}", line) for n, line in enumerate(lines, 1))


def merge_files(paths: list[str]) -> list[str]:
    """:func:`merge_lines` of the JSON-lines files ``paths`` (an error names the file and line)."""
    return _merge(read_lines(paths))


def _merge(tagged: Iterable[tuple[str, str]]) -> list[str]:
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    summaries: list[dict[str, Any]] = []
    paths: set[str] = set()
    for where, line in tagged:
        if not line.strip():
            continue
        obj = _parsed(line, where)
        if "summary" in obj:
            summaries.append(obj["summary"])
            continue
        key = (obj["file"], obj["name"])
        if key in rows:
            raise LoadError(f"{where}: tensor {escape(obj['name'])!r} of {escape(obj['file'])!r} is listed twice "
                            f"(overlapping shards, or one scan merged twice)")
        rows[key] = obj
        paths.add(obj["path"])
    merged = Scan(sorted(paths)[0] if len(paths) == 1 else "(merged)", [_row(rows[k]) for k in sorted(rows)],
                  seconds=sum(_number(s.get("seconds")) for s in summaries),
                  workers=int(sum(_number(s.get("workers")) for s in summaries)) or 1)
    summary = dict(merged.summary(), shards=len(summaries))
    tail = {"summary": summary, "path": merged.path} if len(paths) <= 1 else {"summary": summary, "paths": sorted(paths)}
    return [json.dumps(rows[k]) for k in sorted(rows)] + [json.dumps(tail)]


def _parsed(line: str, where: str) -> dict[str, Any]:
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError) as e:
        raise LoadError(f"{where}: not JSON ({str(e)[:80]})") from None
    if isinstance(obj, dict) and set(obj) >= {"summary"} and isinstance(obj["summary"], dict):
        return obj
    if not isinstance(obj, dict) or set(obj) != ROW_KEYS:
        raise LoadError(f"{where}: not a row of sinpe scan --jsonl (the keys {', '.join(sorted(ROW_KEYS))}) "
                        f"nor its summary line")
    if obj["verdict"] not in VERDICTS or not all(isinstance(obj[k], str) for k in ("file", "name", "path")):
        raise LoadError(f"{where}: a row with verdict {escape(str(obj['verdict']))[:40]!r}; verdicts: "
                        f"{', '.join(VERDICTS)}")
    return obj


def _row(obj: dict[str, Any]) -> Row:
    """A row read back: its own fields, and the result's figures as they were printed (no result object)."""
    figures = {k: obj[k] for k in SUMMARY_KEYS}
    if isinstance(figures.get("max_abs_error"), str):  # json_float's "inf"/"nan"
        figures["max_abs_error"] = float(figures["max_abs_error"])
    return Row(obj["file"], obj["name"], obj["shape"], obj["stored_dtype"], obj["verdict"], reason=obj["reason"],
               seconds=obj["seconds"], figures=figures)


def _number(x: Any) -> float:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else 0.0


def read_lines(paths: list[str]) -> list[tuple[str, str]]:
    """(``FILE line N``, text) of every line of the JSON-lines files ``paths``: regular files only, at most
    MAX_BYTES read in all and MAX_LINE a line."""
    out: list[tuple[str, str]] = []
    total = 0
    for p in paths:
        with open_regular(p) as fh:
            for n, raw in enumerate(iter(lambda: fh.readline(MAX_LINE + 1), b""), 1):
                total += len(raw)
                if len(raw) > MAX_LINE or total > MAX_BYTES:
                    raise LoadError(f"{p} line {n}: over {MAX_LINE} bytes a line or {MAX_BYTES} in all")
                try:
                    out.append((f"{p} line {n}", raw.decode("utf-8")))
                except UnicodeDecodeError:
                    raise LoadError(f"{p} line {n}: not UTF-8 text") from None
    return out
