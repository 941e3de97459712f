"""Why a rotary application fails, and whether it is still relative (SPEC.md REQ-CHECK-APPLY, THM-ROPE-REL).

:func:`diagnose` replays the inputs through the exact rotation under each hypothesis of a known bug --
the other pairing (``halves`` <-> ``pairs``, the cache's or the rotation's), the sign convention (a
rotation by -theta), cos and sin swapped, cos/sin or products in a narrower format (the rotation's
dtype), the partial-rotary slice on other channels, other positions (an offset, the positions ignored)
and other frequencies (base or scaling rule) -- and names the first whose outputs every entry matches
within TOL-APPLY's bound (the same bound, recomputed for the hypothesis). Positions and frequencies
are estimated from the unit-vector inputs first, then verified in full. :func:`relative` checks
THM-ROPE-REL on the function's own outputs: q . k depends only on m - n, within the bound.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from sinpe.reference.checking.apply.exact import Angles, allowed, angles, cache_error, exact_rotation, pairs_of, round_to
from sinpe.reference.checking.detect.rotary import _plausible
from sinpe.reference.checking.judge import classify_entries
from sinpe.spec.formats import get_format
from sinpe.spec.rotary import RotaryProfile, sections

Candidates = Callable[[str, int, "np.ndarray | None"], Sequence[RotaryProfile]]  # the rotary kind's detect candidates

OTHER = {"halves": "pairs", "pairs": "halves", "single": "halves"}
NARROW = ("float16", "bfloat16")
MAX_SCALING_TRIED = 6


@dataclass
class Case:
    """What the function was given and what it returned: x, y (2, heads, seq, dim) for q and k."""

    x: np.ndarray
    y: np.ndarray
    rp: RotaryProfile
    r: int
    dtype: str
    supplied: bool          # the convention passes sinpe's cos/sin (hf) or its angles (freqs)
    angles_given: bool      # freqs: the function gets the angles, computes cos/sin itself
    ang: Angles
    unit_heads: int         # heads 0..dim-1 hold the unit vectors e_j

    @property
    def layout(self) -> str:
        return self.rp.layout


def bound_for(case: Case, ang: Angles, layout: str, fmt: str | None = None) -> np.ndarray:
    """TOL-APPLY for a correct evaluation of ``layout`` with ``ang`` (``fmt``: cos/sin and products in a
    narrower format than claimed, the dtype hypothesis)."""
    if fmt is None:
        e_c, e_s = cache_error(ang, case.dtype, case.supplied and not case.angles_given)
        return allowed(case.x, ang, layout, case.dtype, e_c, e_s)
    e_c, e_s = cache_error(ang, fmt, False, "float32")
    return allowed(case.x, ang, layout, fmt, e_c, e_s)


def _fits(case: Case, o: np.ndarray, e: np.ndarray, b: np.ndarray) -> tuple[bool, float]:
    fail, _ = classify_entries(case.y, o, e, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(b > 0, np.abs(case.y - o) / b, np.where(case.y == o, 0.0, np.inf))
    return not fail.any(), float(np.nanmax(ratio)) if ratio.size else 0.0


def _rotation(case: Case, ang: Angles, layout: str, fmt: str | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    o, e = exact_rotation(case.x, ang, layout)
    return o, e, bound_for(case, ang, layout, fmt)


def _mixed(case: Case) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cache in the profile's layout, rotated by the other layout's rotate function (x C + rot'(x) S)."""
    ang, r = case.ang, case.r
    cols = (lambda v: np.concatenate([v, v], axis=-1)) if case.layout == "halves" else (lambda v: np.repeat(v, 2, axis=-1))
    C, S = cols(ang.cos), cols(ang.sin)
    xr = case.x[..., :r]
    a, b = pairs_of(OTHER[case.layout], r)
    rot = np.zeros_like(xr)
    rot[..., a], rot[..., b] = -xr[..., b], xr[..., a]
    o = np.array(case.x, dtype=np.float64, copy=True)
    o[..., :r] = xr * C + rot * S
    e_c, e_s = (cols(v) for v in cache_error(ang, case.dtype, case.supplied and not case.angles_given))
    u = get_format(case.dtype).unit_roundoff
    g = 2 * u / (1 - 2 * u)
    bnd = np.zeros(case.x.shape)
    bnd[..., :r] = np.abs(xr) * (e_c + g * (np.abs(C) + e_c)) + np.abs(rot) * (e_s + g * (np.abs(S) + e_s))
    e = np.zeros(case.x.shape)
    e[..., :r] = (np.abs(xr) + np.abs(rot)) * 2.0 ** -48
    return o, e, bnd


def _narrow_cache(case: Case, fmt: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """cos/sin rounded to ``fmt`` before the rotation. A supplied cache: the prediction uses
    RN_fmt(RN_W(A cos)) itself, products in W (a tight fingerprint); a computed one: TOL-APPLY with the cache
    and the products in ``fmt`` (consistent with, not a fingerprint)."""
    if not case.supplied or case.angles_given:
        return _rotation(case, case.ang, case.layout, fmt)
    ang = case.ang
    nar = dataclasses.replace(ang, cos=round_to(round_to(ang.cos, case.dtype), fmt),
                              sin=round_to(round_to(ang.sin, case.dtype), fmt))
    o, e = exact_rotation(case.x, nar, case.layout)
    tiny = 2 * (ang.err_cos + ang.err_sin)
    return o, e, allowed(case.x, nar, case.layout, case.dtype, tiny, tiny)


def _swapped(ang: Angles) -> Angles:
    return dataclasses.replace(ang, cos=ang.sin, sin=ang.cos, err_cos=ang.err_sin, err_sin=ang.err_cos)


def _slice(case: Case) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The partial rotation applied to the last r channels instead of the first r."""
    d, r = case.x.shape[-1], case.r
    shifted = dataclasses.replace(case, x=case.x[..., d - r:])
    o_r, e_r, b_r = _rotation(shifted, case.ang, case.layout)
    o, e, b = np.array(case.x, dtype=np.float64, copy=True), np.zeros(case.x.shape), np.zeros(case.x.shape)
    o[..., d - r:], e[..., d - r:], b[..., d - r:] = o_r, e_r, b_r
    return o, e, b


# a hypothesis: (cause, sentence, the outputs and bound it predicts, computed when called)
Hypothesis = tuple[str, str, Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray]]]


def hypotheses(case: Case) -> list[Hypothesis]:
    """(cause, sentence, the outputs and bound it predicts), in the order they are tried."""
    lay, other, ang = case.layout, OTHER[case.layout], case.ang
    out: list[Hypothesis] = [("pairing", (f"wrong pairing: the function rotates channel pairs as layout {other!r} "
            f"({_pairs_words(other)}), not {lay!r} ({_pairs_words(lay)})"), lambda: _rotation(case, ang, other)),
           ("pairing", (f"wrong pairing: the {lay} cos/sin cache is applied with the {other} rotate function "
            f"({'rotate_every_two' if other != 'halves' else 'rotate_half'})"), lambda: _mixed(case)),
           ("sign", "sign convention: the function rotates by -theta (rotate_half's sign flipped, or sin negated)",
            lambda: _rotation(case, dataclasses.replace(ang, sin=-ang.sin), lay)),
           ("swap", "cos and sin swapped: the function computes x*sin + rotate(x)*cos",
            lambda: _rotation(case, _swapped(ang), lay))]
    for f in NARROW:
        if get_format(f).precision < get_format(case.dtype).precision:
            out.append(("dtype", (f"dtype of the rotation: cos/sin rounded to {f} before the rotation, not used "
                        f"in {case.dtype} as claimed"), partial(_narrow_cache, case, f)))
    if case.r < case.x.shape[-1]:
        d = case.x.shape[-1]
        out.append(("slice", (f"partial rotary on the wrong channels: channels {d - case.r}..{d - 1} rotated, "
                    f"not 0..{case.r - 1}"), lambda: _slice(case)))
        out.append(("slice", (f"partial rotary ignored: all {d} channels rotated (frequencies of dim {d}), "
                    f"not the first {case.r}"), lambda: _rotation(dataclasses.replace(case, r=d),
                                                               angles(case.rp, d, ang.positions), lay)))
    if _multi_axis(ang.positions):
        m = len(ang.positions[0])
        flat = [(p[0],) * m for p in ang.positions]
        out.append(("axes", (f"multi-axis positions ignored: every frequency reads position axis 0 (the temporal ids "
                    f"of M-RoPE), not the axis of its section {list(sections(case.rp, case.r))}"),
                    lambda: _rotation(case, angles(case.rp, case.r, flat), lay)))
    return out


def _multi_axis(positions: Sequence[Any]) -> bool:
    return bool(len(positions)) and isinstance(positions[0], tuple)


def _pairs_words(layout: str) -> str:
    return "channel k with k + r/2" if layout == "halves" else "channel 2k with 2k + 1"


def diagnose(case: Case, candidates: Candidates) -> dict[str, Any]:
    """``{"cause", "sentence", "tried": [{cause, sentence, fits, max_ratio}]}``: the first hypothesis that
    explains every entry (cause None when none does; the closest is in ``tried``). ``candidates``: the rotary
    profiles to try for the frequencies measured (the rotary kind's)."""
    tried: list[dict[str, Any]] = []
    for cause, sentence, predict in hypotheses(case) + _estimated(case, candidates):
        try:
            ok, ratio = _fits(case, *predict())
        except (ValueError, ArithmeticError) as e:
            tried.append({"cause": cause, "sentence": sentence, "fits": False, "max_ratio": None, "error": str(e)})
            continue
        tried.append({"cause": cause, "sentence": sentence, "fits": ok, "max_ratio": ratio})
        if ok:
            return {"cause": cause, "sentence": sentence, "tried": tried}
    return {"cause": None, "sentence": "no known bug explains the outputs (closest: "
            + min(tried, key=lambda t: t["max_ratio"] if t["max_ratio"] is not None else np.inf)["sentence"] + ")",
            "tried": tried}


# --- estimated positions and frequencies ---------------------------------------------------------

def measured_angles(case: Case) -> np.ndarray:
    """phi (seq, r/2): the angle the function turned the unit vector e_{a_k} by (q's heads a_k), read under
    the profile's pairing."""
    a, b = (np.array(v) for v in pairs_of(case.layout, case.r))
    y = case.y[0]
    return np.arctan2(y[a, :, b].T, y[a, :, a].T)


def _wrap(t: np.ndarray) -> np.ndarray:
    return (t + np.pi) % (2 * np.pi) - np.pi


def _estimated(case: Case, candidates: Candidates) -> list[Hypothesis]:
    """Offset and frequency hypotheses estimated from the unit-vector outputs, each verified in full."""
    if case.unit_heads < case.r or not np.isfinite(case.y).all() or _multi_axis(case.ang.positions):
        return []  # (multi-axis rows: no offset or frequency is estimated)
    phi = measured_angles(case)
    out: list[Hypothesis] = []
    for pos, words in _position_candidates(case, phi):
        out.append(("offset", words, partial(_rotated, case, case.rp, pos)))
    for rp in _frequency_candidates(case, phi, candidates):
        out.append(("scaling", (f"scaling rule or base: the function rotates as {rp.describe()}, not "
                    f"{case.rp.describe()}"),
                    partial(_rotated, case, rp, case.ang.positions)))
    return out


def _rotated(case: Case, rp: RotaryProfile, positions: Sequence[Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The outputs and bound of the rotation by ``rp`` at ``positions`` (the case's own layout and rotary dim)."""
    return _rotation(case, angles(rp, case.r, positions), case.layout)


def _position_candidates(case: Case, phi: np.ndarray) -> list[tuple[list[int], str]]:
    pos = np.array(case.ang.positions, dtype=np.int64)
    k = int(np.argmin(case.ang.omegas))
    w = case.ang.omegas[k]
    delta = np.rint(_wrap(phi[:, k] - case.ang.theta[:, k]) / w).astype(np.int64) if w > 0 else np.zeros_like(pos)
    cands: list[tuple[list[int], str]] = []
    if np.any(delta) and np.all(pos + delta >= 0):
        const = np.all(delta == delta[0])
        words = (f"position offset: the function rotates position p as p {'+' if delta[0] > 0 else '-'} "
                 f"{abs(int(delta[0]))}" if const else
                 f"positions differ: the function rotates row positions {_few(pos)} as {_few(pos + delta)}")
        cands.append(((pos + delta).tolist(), words))
    seq = np.arange(len(pos))
    if not np.array_equal(seq, pos):
        cands.append((seq.tolist(), ("position offset: the function ignores the positions passed and rotates row s "
                      "as position s (0..seq-1: a KV-cache offset dropped)")))
    return cands


def _few(p: np.ndarray) -> str:
    return ", ".join(str(int(v)) for v in p[:6]) + (", ..." if len(p) > 6 else "")


def _frequency_candidates(case: Case, phi: np.ndarray, candidates: Candidates) -> list[RotaryProfile]:
    """Rotary profiles whose frequencies agree with w_k estimated at the least positive position."""
    pos = np.array(case.ang.positions, dtype=np.float64)
    if not np.any(pos > 0):
        return []
    s = int(np.argmin(np.where(pos > 0, pos, np.inf)))
    w_est = np.abs(phi[s]) / pos[s]
    out = []
    for rp in candidates(case.layout, case.r, w_est):
        if rp.replace(name=None, layout=case.layout) == case.rp.replace(name=None):
            continue
        if _plausible(rp.replace(layout=case.layout), case.r, w_est, float(pos[s])):
            out.append(rp.replace(layout=case.layout))
            if len(out) >= MAX_SCALING_TRIED:
                break
    return out


# --- THM-ROPE-REL on the function ------------------------------------------------------------------

def relative(yq: np.ndarray, yk: np.ndarray, oq: np.ndarray, bq: np.ndarray, bk: np.ndarray,
             positions: Sequence[Any], limit: int = 4000) -> dict[str, Any]:
    """THM-ROPE-REL on the outputs of random heads (heads, seq, dim): for position pairs (m, n), (m', n') with
    m - n = m' - n' (per axis, for multi-axis rows), |<q'(m), k'(n)> - <q'(m'), k'(n')>| <= R(m, n) + R(m', n'), R the bound TOL-APPLY's
    per-entry bounds give an inner product (|ab - a'b'| <= |a - a'||b| + |a'||b - b'|)."""
    if not (np.isfinite(yq).all() and np.isfinite(yk).all()):
        return {"holds": None, "comparisons": 0, "violations": 0, "first": None,
                "reason": "non-finite outputs (reported pointwise)"}
    s = np.einsum("hid,hjd->hij", yq, yk)
    R = (np.einsum("hid,hjd->hij", bq, np.abs(yk)) + np.einsum("hid,hjd->hij", np.abs(oq), bk)
         + 2.0 ** -40 * np.einsum("hid,hjd->hij", np.abs(yq), np.abs(yk)))
    P = np.asarray(positions, dtype=np.int64).reshape(len(positions), -1)   # (seq, axes): m - n per axis
    diff = P[:, None, :] - P[None, :, :]
    flat = diff.reshape(-1, diff.shape[-1])
    first, n, bad = None, 0, 0
    seen: dict[tuple[int, ...], tuple[int, int]] = {}
    for i, j in zip(*np.unravel_index(np.lexsort(flat.T[::-1]), diff.shape[:2]), strict=True):
        ref = seen.setdefault(tuple(diff[i, j].tolist()), (int(i), int(j)))
        if ref == (i, j) or n >= limit:
            continue
        n += 1
        gap = np.abs(s[:, i, j] - s[:, ref[0], ref[1]])
        slack = R[:, i, j] + R[:, ref[0], ref[1]]
        if np.any(gap > slack):
            bad += 1
            if first is None:
                h = int(np.argmax(gap - slack))
                first = {"m_n": [_at(P, i), _at(P, j)], "m_n_ref": [_at(P, ref[0]), _at(P, ref[1])],
                         "head": h, "gap": float(gap[h]), "slack": float(slack[h])}
    return {"holds": bad == 0 if n else None, "comparisons": n, "violations": bad, "first": first}


def _at(P: np.ndarray, i: int) -> Any:
    return int(P[i, 0]) if P.shape[1] == 1 else [int(x) for x in P[i]]
