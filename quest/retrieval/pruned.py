"""Exact top-k of a whole-base sparse search without scoring every row: block-max pruning over
windows of rows, done with numpy.

A question that names no problem ranks BM25 and bge-m3's lexical weights over the whole base. The
exhaustive way adds every query term's whole posting list into a score per row: at 1M chunks the
common words and code identifiers (`for`, `return`, verdict words) each hold a large share of the
rows, and that took ~60 + ~45 ms median per question (docs/bench/scale-1m-global).

Rows sit in scope order (scopes.py: grouped by problem), so the rows that share a question's rare
words are bunched in a few problems' stretches. The positions of a segment are cut into windows of
WINDOW rows; for each posting list the largest weight it adds inside each window is known (computed
once per list and kept, `WindowBounds`). A window's bound is the sum, over the query's lists, of
their largest weight there: no row of the window can score more. Windows are scored exhaustively
(every list's entries inside them) from the highest bound down; once k positive rows are found,
the k-th best score theta only rises, and every window whose bound is below theta is skipped: none
of its rows can reach the top-k (the idea of block-max pruning over row ranges, Mallia et al. 2024;
a global per-list bound, MaxScore, pruned almost nothing here: docs/bench/scale-1m-global7).

Exact, not approximate: a scored row gets the same float32 additions in the same (query) order as
the exhaustive scorer makes, so its number is bit-identical; and a row tied with the k-th best has
a score >= theta, so its window was scored, and ties are cut by row id as `top_k` cuts them
(tests/retrieval/test_pruned.py checks against the exhaustive scores, ties and deletions included).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from quest.retrieval.scopes import RowOrder
from quest.retrieval.sparse import top_k_among

# Rows per window. At 1M a problem holds ~2,400 rows: a window is about one problem's kind of document.
WINDOW = 2048
# Windows scored in the first round (before any theta is known); each further round doubles.
FIRST_ROUND = 4
# Bounds are computed in float64 from the stored numbers; the float32 weights and their float32 sums
# may round up by a few ulps. This margin keeps every bound above what a row can really add.
BOUND_MARGIN = 1e-3
# Per-list window bounds kept per index version: (max, min) as float32 and offsets as int32 per window.
CACHE_BYTES = 32 * 2**20


@dataclass(frozen=True)
class Term:
    """One query term's posting list in one segment."""

    positions: np.ndarray  # ascending positions (the segment's scope order) of the rows holding it
    weigh: Callable[[slice], np.ndarray]  # float32 weights the entries in this slice of `positions` add
    units: Callable[[], np.ndarray]  # every entry's weight over `scale` (float64), for the bounds
    scale: float  # the query's factor: an entry adds about units * scale
    key: Hashable  # names the list within its index version, for the bound cache


@dataclass(frozen=True)
class SegmentTerms:
    """A segment's part of the query: its terms in query order, and where its rows sit in the index."""

    start: int
    rows: int
    order: RowOrder
    terms: Sequence[Term]


class WindowBounds:
    """A bounded LRU of each list's per-window (offsets, largest unit, smallest unit), for one index version."""

    def __init__(self, max_bytes: int = CACHE_BYTES) -> None:
        self.max_bytes, self.bytes = max_bytes, 0
        self._entries: OrderedDict[Hashable, tuple[np.ndarray, np.ndarray, np.ndarray]] = OrderedDict()
        self._lock = threading.Lock()

    def of(self, term: Term, rows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        with self._lock:
            kept = self._entries.get(term.key)
            if kept is not None:
                self._entries.move_to_end(term.key)
                return kept
        kept = window_extremes(term.positions, term.units(), rows)
        size = sum(a.nbytes for a in kept)
        with self._lock:
            if term.key not in self._entries and size <= self.max_bytes:
                self._entries[term.key] = kept
                self.bytes += size
                while self.bytes > self.max_bytes:
                    _, old = self._entries.popitem(last=False)
                    self.bytes -= sum(a.nbytes for a in old)
        return kept


def window_extremes(positions: np.ndarray, units: np.ndarray, rows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each window's slice of the list (offsets, n + 1 of them) and its largest and smallest unit (0 if empty)."""
    edges = np.arange(0, windows_of(rows) + 1, dtype=np.int64) * WINDOW
    offsets = np.searchsorted(positions, edges.astype(positions.dtype, copy=False)).astype(np.int32)
    filled = offsets[1:] > offsets[:-1]
    high = np.zeros(offsets.size - 1, dtype=np.float32)
    low = np.zeros(offsets.size - 1, dtype=np.float32)
    if units.size:
        starts = offsets[:-1][filled]
        high[filled] = np.maximum.reduceat(units, starts).astype(np.float32)
        low[filled] = np.minimum.reduceat(units, starts).astype(np.float32)
    return offsets, high, low


def windows_of(rows: int) -> int:
    return -(-rows // WINDOW)


def pruned_top(segments: Sequence[SegmentTerms], k: int, allowed: np.ndarray | None = None,
               bounds: WindowBounds | None = None) -> list[tuple[int, float]]:
    """`top_k(scores, k, rows)` over the index's rows: the same list, ties included.

    `allowed` (bool by row, or None: every row) leaves rows out, as `rows` does in `top_k`
    (deleted rows, excluded kinds).
    """
    if k <= 0:
        return []
    bounds = bounds or WindowBounds()
    found_rows: list[np.ndarray] = []
    found_values: list[np.ndarray] = []
    windows = _window_bounds(segments, bounds)
    order = np.argsort(-windows[:, 2], kind="stable")
    order = order[windows[order, 2] > 0]  # a window no list reaches scores 0 everywhere
    theta, done, size = None, 0, FIRST_ROUND
    while done < order.size:
        take = order[done:done + size]
        if theta is not None:
            take = take[windows[take, 2] >= theta]  # bounds fall along `order`: the rest are lower still
            if take.size == 0:
                break
        for rows, values in _scored(segments, windows[take], bounds, allowed):
            found_rows.append(rows)
            found_values.append(values)
        done += take.size
        size *= 2
        theta = _kth(found_values, k)
    if not found_rows:
        return []
    return top_k_among(np.concatenate(found_values), np.concatenate(found_rows), k)


def _window_bounds(segments: Sequence[SegmentTerms], bounds: WindowBounds) -> np.ndarray:
    """One row per window of every segment: (segment, window, upper bound of any score in it)."""
    parts = []
    for s, seg in enumerate(segments):
        total = np.zeros(windows_of(seg.rows), dtype=np.float64)
        for term in seg.terms:
            if term.positions.size:
                _, high, low = bounds.of(term, seg.rows)
                total += np.maximum(np.maximum(high * term.scale, low * term.scale), 0.0)
        total *= 1 + BOUND_MARGIN
        parts.append(np.column_stack([np.full(total.size, s), np.arange(total.size), total]))
    return np.concatenate(parts) if parts else np.zeros((0, 3))


def _scored(segments: Sequence[SegmentTerms], chosen: np.ndarray, bounds: WindowBounds,
            allowed: np.ndarray | None):
    """(rows, scores) of the positive, allowed rows of the `chosen` windows, run by run of adjacent windows."""
    for s in np.unique(chosen[:, 0]).astype(int).tolist():
        seg = segments[s]
        picked = np.sort(chosen[chosen[:, 0] == s, 1].astype(np.int64))
        breaks = np.flatnonzero(np.diff(picked) != 1) + 1
        for run in np.split(picked, breaks):
            first, last = int(run[0]), int(run[-1]) + 1
            values = window_scores(seg, first, last, bounds)
            at = np.flatnonzero(values > 0)
            rows = seg.start + np.asarray(seg.order.rows(first * WINDOW + at), dtype=np.int64)
            if allowed is not None:
                keep = allowed[rows]
                rows, at = rows[keep], at[keep]
            yield rows, values[at]


def window_scores(seg: SegmentTerms, first: int, last: int, bounds: WindowBounds) -> np.ndarray:
    """Every position's score in windows first..last-1: each term's weights added in query order, in float32."""
    lo = first * WINDOW
    acc = np.zeros(min(last * WINDOW, seg.rows) - lo, dtype=np.float32)
    for term in seg.terms:
        if term.positions.size == 0:
            continue
        offsets = bounds.of(term, seg.rows)[0]
        a, b = int(offsets[first]), int(offsets[last])
        if b > a:
            acc[term.positions[a:b] - lo] += term.weigh(slice(a, b))  # a list's positions are distinct
    return acc


def _kth(values: list[np.ndarray], k: int) -> float | None:
    """The k-th best among the scores found so far (all positive), or None if fewer than k."""
    total = sum(v.size for v in values)
    if total < k:
        return None
    joined = np.concatenate(values)
    return float(np.partition(joined, joined.size - k)[joined.size - k])


def allowed_rows(deleted: np.ndarray, rows: np.ndarray | None) -> np.ndarray | None:
    """The rows a search may return, as a bool per row: `rows` (None: all) less the deleted ones; None for all."""
    if rows is None:
        return None if not deleted.any() else ~deleted
    mask = np.zeros(deleted.size, dtype=bool)
    mask[np.asarray(rows, dtype=np.int64)] = True
    return mask & ~deleted
