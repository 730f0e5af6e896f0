"""Exact top-k of a whole-base sparse search without scoring every row (MaxScore, done with numpy).

A question that names no problem ranks BM25 and bge-m3's lexical weights over the whole base. The
exhaustive way adds every query term's whole posting list into a score per row: at 1M chunks the
common words and code identifiers (`for`, `return`, verdict words) each hold a large share of the
rows, and that took ~80 + ~50 ms median per question (docs/bench/scale-1m-global).

MaxScore (Turtle & Flood, 1995) returns the same top-k from fewer postings. Each posting list has an
upper bound of the weight any of its entries adds. Once some k rows are known to score at least
theta, a row can only reach the top-k if its score is >= theta; a row found only in lists whose
bounds sum to less than theta cannot. So, lists sorted by bound: the longest prefix of low-bound
lists whose bounds sum below theta is "non-essential", and the candidates are the rows of the
remaining (rare, high-bound) lists. Every candidate is then scored exactly, over every list.

- theta comes from a seed: the rows of the highest-bound lists (rare terms: short lists), scored
  exactly; the k-th best of those is a score some k real rows reach, so the true k-th best is >= it.
- Exact, not approximate: each candidate's score is the same float32 additions in the same (query)
  order as the exhaustive scorer makes, so the numbers are bit-identical, and every row tied with
  the k-th best is a candidate (its score is >= theta), so ties are cut by row id as `top_k` cuts
  them (tests/retrieval/test_pruned.py checks against the exhaustive scores, ties included).
- When the bounds prune too little (few terms, or a seed with fewer than k positive rows), None is
  returned and the caller scores every row as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from quest.retrieval.scopes import RowOrder
from quest.retrieval.sparse import top_k_among

# The seed takes the highest-bound lists until it holds this many postings per result asked for
# (at least SEED_MIN): enough rows that its k-th best is near the true k-th best.
SEED_PER_RESULT = 8
SEED_MIN = 2048
# When the candidates would be more than this share of a segment's rows, scoring them one by one
# costs more than scoring every row: give up (the caller scores every row).
MAX_CANDIDATE_SHARE = 0.25
# Bounds are computed in float64 from float32 inputs; the float32 weights and their float32 sums
# may round up by a few ulps. This margin keeps every bound above what a row can really add.
BOUND_MARGIN = 1e-3


@dataclass(frozen=True)
class Term:
    """One query term's posting list in one segment."""

    positions: np.ndarray  # ascending positions (the segment's scope order) of the rows holding it
    weigh: Callable[[np.ndarray], np.ndarray]  # float32 weights of the entries at these indices of `positions`
    bound: float  # no entry adds more than this


@dataclass(frozen=True)
class SegmentTerms:
    """A segment's part of the query: its terms in query order, and where its rows sit in the index."""

    start: int
    rows: int
    order: RowOrder
    terms: Sequence[Term]


def pruned_top(segments: Sequence[SegmentTerms], k: int,
               allowed: np.ndarray | None = None) -> list[tuple[int, float]] | None:
    """`top_k(scores, k, rows)` over the index's rows, or None when pruning cannot help.

    `allowed` (bool by row, or None: every row) leaves rows out, as `rows` does in `top_k`
    (deleted rows, excluded kinds).
    """
    lists = [(s, t) for s, seg in enumerate(segments) for t in range(len(seg.terms))
             if seg.terms[t].positions.size]
    if k <= 0 or not lists:
        return []  # nothing matches: every score is 0
    bound = {key: max(segments[key[0]].terms[key[1]].bound, 0.0) * (1 + BOUND_MARGIN) for key in lists}
    by_bound = sorted(lists, key=lambda key: (-bound[key], key))
    target = max(SEED_PER_RESULT * k, SEED_MIN)
    seed, held = [], 0
    for key in by_bound:
        if held >= target:
            break
        seed.append(key)
        held += segments[key[0]].terms[key[1]].positions.size
    scored = _score(segments, _union(segments, seed), allowed)
    theta = _kth_positive(scored, k)
    if theta is None:
        return None
    essential = _essential(by_bound, bound, theta)
    more = [key for key in essential if key not in set(seed)]
    if more:
        wanted = _union(segments, essential)
        if sum(c.size for c in wanted.values()) > MAX_CANDIDATE_SHARE * sum(seg.rows for seg in segments):
            return None
        scored = _score(segments, wanted, allowed, scored)
    rows = np.concatenate([r for r, _ in scored.values()]) if scored else np.zeros(0, np.int64)
    values = np.concatenate([v for _, v in scored.values()]) if scored else np.zeros(0, np.float32)
    return top_k_among(values, rows, k)


def allowed_rows(deleted: np.ndarray, rows: np.ndarray | None) -> np.ndarray | None:
    """The rows a search may return, as a bool per row: `rows` (None: all) less the deleted ones; None for all."""
    if rows is None:
        return None if not deleted.any() else ~deleted
    mask = np.zeros(deleted.size, dtype=bool)
    mask[np.asarray(rows, dtype=np.int64)] = True
    return mask & ~deleted


def _essential(by_bound: list[tuple[int, int]], bound: dict, theta: float) -> list[tuple[int, int]]:
    """The lists a row scoring >= theta must appear in: all but the low-bound ones whose bounds sum below theta."""
    total, cut = 0.0, 0
    for key in reversed(by_bound):  # lowest bound first
        if total + bound[key] >= theta:
            break
        total += bound[key]
        cut += 1
    return by_bound[:len(by_bound) - cut]


def _union(segments: Sequence[SegmentTerms], keys: Sequence[tuple[int, int]]) -> dict[int, np.ndarray]:
    """Per segment, the distinct positions (ascending) found in the lists `keys`."""
    out: dict[int, np.ndarray] = {}
    for s in sorted({s for s, _ in keys}):
        parts = [segments[s].terms[t].positions for ss, t in keys if ss == s]
        total = sum(p.size for p in parts)
        if total * 16 > segments[s].rows:  # many: a bitmap over the segment's rows instead of a sort
            mark = np.zeros(segments[s].rows, dtype=bool)
            for p in parts:
                mark[p] = True
            out[s] = np.flatnonzero(mark)
        else:
            out[s] = np.unique(np.concatenate(parts).astype(np.int64))
    return out


def _score(segments: Sequence[SegmentTerms], wanted: dict[int, np.ndarray], allowed: np.ndarray | None,
           known: dict[int, tuple[np.ndarray, np.ndarray]] | None = None) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """Per segment, (rows, exact scores) of the allowed positions in `wanted` plus those already `known`."""
    out = dict(known or {})
    for s, positions in wanted.items():
        seg = segments[s]
        rows = seg.start + np.asarray(seg.order.rows(positions), dtype=np.int64)
        if allowed is not None:
            keep = allowed[rows]
            positions, rows = positions[keep], rows[keep]
        if s in out:  # score only the rows not scored yet
            new = ~np.isin(rows, out[s][0])
            positions, rows = positions[new], rows[new]
        values = exact_scores(seg.terms, positions)
        if s in out:
            rows, values = np.concatenate([out[s][0], rows]), np.concatenate([out[s][1], values])
        out[s] = (rows, values)
    return out


def exact_scores(terms: Sequence[Term], positions: np.ndarray) -> np.ndarray:
    """The score at each of `positions` (ascending, distinct): each term's weight added in query order, in float32."""
    acc = np.zeros(positions.size, dtype=np.float32)
    if positions.size == 0:
        return acc
    for term in terms:
        held = term.positions
        if held.size == 0:
            continue
        if positions.size <= held.size:  # look each candidate up in the list
            keys = positions.astype(held.dtype, copy=False)
            at = np.minimum(np.searchsorted(held, keys), held.size - 1)
            hit = held[at] == keys
            entries, targets = at[hit], np.flatnonzero(hit)
        else:  # look each entry of the list up among the candidates
            at = np.minimum(np.searchsorted(positions, held), positions.size - 1)
            hit = positions[at] == held
            entries, targets = np.flatnonzero(hit), at[hit]
        if entries.size:
            acc[targets] += term.weigh(entries)  # a list's positions are distinct
    return acc


def _kth_positive(scored: dict[int, tuple[np.ndarray, np.ndarray]], k: int) -> float | None:
    """The k-th best positive score among `scored`, or None if fewer than k are positive."""
    values = np.concatenate([v for _, v in scored.values()]) if scored else np.zeros(0, np.float32)
    values = values[values > 0]
    if values.size < k:
        return None
    return float(np.partition(values, values.size - k)[values.size - k])
