"""Exact dynamic pruning (MaxScore) of a whole-base sparse top-k (issue 14).

A question that names no problem ranks BM25 (once per query part) and the lexical weights over every
row. Scoring every row reads every posting of every query term: at 1M rows a common term has 300k-700k
postings, and the whole-base calls took ~140 ms of a no-problem question (docs/bench/scale-1m-maxscore).
The profile of those calls: the k-th best score (k = 30) is reached only by rows that hold the query's
rarer terms, and the common terms' upper bounds add up to less than it. So:

1. Each term gets an upper bound of any weight it gives a row (`Source.bound`: from per-column maxima
   stored with the segment, `bounds.py`; a cruder bound where a segment has none). Terms are taken in
   descending bound order; `suffix[j]` bounds what a row holding none of the first j terms can score.
2. The first (rarest, shortest) lists are read whole into a per-position bound accumulator; the best
   SEED_ROWS rows so far are scored exactly, and the k-th of those scores, `theta`, is a lower bound of
   the true k-th score (they are real, live, allowed rows).
3. Lists are read whole only while `suffix[j]` can still reach theta (the "essential" terms); a row
   in none of them cannot enter the top k.
4. The rows read so far whose bound (accumulated + what the unread terms could add) reaches theta are
   looked up in the remaining (long) lists by binary search, one term at a time, dropping a row as soon
   as its bound falls below theta.
5. The survivors are scored exactly: every query term's weight, added in query order in float32, as
   the exhaustive scorer adds them, so every score is bit-equal to `scores()`'s; then the same top-k
   cut with ties by row id. A row is only ever dropped when its upper bound is below theta (with a
   relative margin for float rounding), and theta is at most the true k-th score, so the rows returned
   are exactly the exhaustive ones.

Deleted rows and rows outside the allowed set never count towards theta and are never returned.
Where the essential lists hold more than FALLBACK_SHARE of the query's postings (pruning would read
about as much as the scan), `search` returns None and the caller scans.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from quest.retrieval.scatter import add_at
from quest.retrieval.scopes import RowOrder
from quest.retrieval.sparse import top_k_among

Weigh = Callable[[np.ndarray, np.ndarray, Any], np.ndarray]  # (stored values, positions, coefficient) -> float32
Bound = Callable[[int, Any], float]  # (column, coefficient) -> upper bound of any weight the column gives a row

# The seed's size: at least this many rows, or SEED_PER_RESULT x k, are scored exactly to set theta.
SEED_ROWS = 256
SEED_PER_RESULT = 8
# Above this share of the query's postings read whole, the caller's scan is cheaper than pruning.
FALLBACK_SHARE = 0.6
# A long list is binary-searched in place for fewer than 1/SPARSE_LOOKUP of its length in rows (else copied
# and searched by numpy); the in-place search first reads every STRIDE-th entry.
SPARSE_LOOKUP = 4096
STRIDE = 4096
# Candidates looked up in a list by binary search cost about SCAN_PER_LOOKUP postings read each: more than
# length / SCAN_PER_LOOKUP of them, and the list is read whole instead.
SCAN_PER_LOOKUP = 8
# Theta is raised again from the best candidates while more than RESEED_PER_SEED x the seed's size remain, and
# before reading another long list once RESEED_AFTER times the postings were read since the last seed.
RESEED_PER_SEED = 16
RESEED_AFTER = 4
# Bounds are compared with this relative slack: float32 sums and weights round (2**-24 per step).
SLACK = 1e-5


@dataclass(frozen=True)
class Source:
    """One segment's postings of one signal (CSC arrays, rows at their positions in `order`)."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    order: RowOrder
    start: int  # the segment's first row in the whole index
    rows: int
    weigh: Weigh
    bound: Bound

    def __post_init__(self) -> None:  # plain arrays: indexing a np.memmap costs ~10 us of Python per call
        for name in ("indptr", "indices", "data"):
            object.__setattr__(self, name, np.asarray(getattr(self, name)))

    @property
    def aligned(self) -> bool:
        """Whether a list can be binary-searched where it lies (written by npzfile, or in memory): numpy copies
        an unaligned array whole before every `searchsorted` on it."""
        return bool(self.indices.flags.aligned)

    def span(self, col: int) -> tuple[int, int]:
        if col < 0 or col >= len(self.indptr) - 1:
            return 0, 0
        return int(self.indptr[col]), int(self.indptr[col + 1])


@dataclass
class _Call:
    """One search's terms (query order) and the state every step shares."""

    sources: Sequence[Source]
    columns: Sequence[tuple[int, Any]]
    k: int
    deleted: np.ndarray
    allowed: np.ndarray | None
    copies: dict[tuple[int, int], np.ndarray]
    any_deleted: bool = True

    def usable(self, s: int, positions: np.ndarray) -> np.ndarray:
        """Which of source `s`'s `positions` are live rows the caller allows."""
        if self.allowed is None and not self.any_deleted:
            return np.ones(positions.size, dtype=bool)
        rows = self.global_rows(s, positions)
        keep = ~self.deleted[rows]
        if self.allowed is not None:
            keep &= self.allowed[rows]
        return keep

    def global_rows(self, s: int, positions: np.ndarray) -> np.ndarray:
        src = self.sources[s]
        return np.asarray(src.order.rows(positions), dtype=np.int64) + src.start

    def postings(self, s: int, col: int) -> np.ndarray:
        """Column `col`'s positions in source `s`, aligned: the stored list itself when it is (npzfile); a mapped,
        unaligned slice (an index written before) is copied once per call (numpy's searchsorted would copy it on
        every call anyway)."""
        key = (s, col)
        if key not in self.copies:
            lo, hi = self.sources[s].span(col)
            found = self.sources[s].indices[lo:hi]
            self.copies[key] = found if found.flags.aligned else np.array(found)
        return self.copies[key]

    def lookup(self, s: int, col: int, coef: Any, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(indices into `positions` (ascending) that hold `col`, their float32 weights)."""
        src = self.sources[s]
        lo, hi = src.span(col)
        if hi == lo or positions.size == 0:
            return _EMPTY, _NO_WEIGHTS
        if src.aligned or (s, col) in self.copies or positions.size * SPARSE_LOOKUP >= hi - lo:
            hay = self.postings(s, col)  # aligned: the stored list itself, searched in place
            needles = positions.astype(hay.dtype, copy=False)
            at = np.searchsorted(hay, needles)
            hit = np.flatnonzero(hay[np.minimum(at, hay.size - 1)] == needles)
        else:  # few rows in a long list: a binary search of the mapped list itself, a few pages per row
            at = lower_bound(src.indices, lo, hi, positions)
            hit = np.flatnonzero(np.asarray(src.indices[lo + np.minimum(at, hi - lo - 1)]) == positions)
        values = np.asarray(src.data[lo + at[hit]])
        return hit, src.weigh(values, positions[hit], coef)

    def exact(self, s: int, positions: np.ndarray) -> np.ndarray:
        """The exhaustive scorer's float32 score of `positions`: every term's weight added in query order."""
        out = np.zeros(positions.size, dtype=np.float32)
        for col, coef in self.columns:
            hit, weights = self.lookup(s, col, coef, positions)
            if hit.size:
                out[hit] += weights
        return out


_EMPTY = np.zeros(0, dtype=np.int64)
_NO_WEIGHTS = np.zeros(0, dtype=np.float32)


def lower_bound(indices: np.ndarray, lo: int, hi: int, needles: np.ndarray) -> np.ndarray:
    """For each needle, the first index i in [0, hi - lo) with indices[lo + i] >= needle (hi - lo if none):
    numpy's searchsorted, but vectorised over the needles by hand, so that a mapped list is neither copied nor
    read beyond the ~log2(length) entries each needle compares (a sample every STRIDE entries first)."""
    length = hi - lo
    sample = np.asarray(indices[lo:hi:STRIDE])
    block = np.searchsorted(sample, needles.astype(sample.dtype, copy=False), side="right") - 1
    left = np.maximum(block, 0).astype(np.int64) * STRIDE
    right = np.minimum(left + STRIDE, length)
    left = np.where(block < 0, 0, left)
    right = np.where(block < 0, 0, right)  # before the first entry: index 0
    while True:
        open_ = left < right
        if not open_.any():
            return left
        mid = (left + right) >> 1
        less = np.asarray(indices[lo + np.minimum(mid, length - 1)]) < needles
        left = np.where(open_ & less, mid + 1, left)
        right = np.where(open_ & ~less, mid, right)


def search(sources: Sequence[Source], columns: Sequence[tuple[int, Any]], k: int, deleted: np.ndarray,
           allowed: np.ndarray | None = None) -> list[tuple[int, float]] | None:
    """The exhaustive `top_k(scores, k)` (ties by row id), among `allowed` rows (a mask; None: all) that are
    not `deleted`, found by reading only what can still reach the k-th score; None when pruning would not pay."""
    if k <= 0 or not columns or not sources:
        return []
    call = _Call(sources, columns, k, deleted, allowed, {}, bool(deleted.any()))
    bounds = [max((src.bound(col, coef) for src in sources if src.span(col)[1] > src.span(col)[0]), default=0.0)
              for col, coef in columns]
    lengths = [sum(src.span(col)[1] - src.span(col)[0] for src in sources) for col, _ in columns]
    # Read whole first what bounds the most per posting read: any set of terms can be left unread once their
    # bounds add up to less than theta, so the cheap, high-bound (rare) lists go first.
    order = sorted(range(len(columns)), key=lambda i: (bounds[i] <= 0, lengths[i] / bounds[i] if bounds[i] > 0 else 0))
    suffix = np.concatenate([np.cumsum([bounds[i] for i in order][::-1])[::-1], [0.0]])
    slack = SLACK * (float(suffix[0]) + 1e-30)
    acc = [np.zeros(src.rows, dtype=np.float32) for src in sources]
    seen = [np.zeros(src.rows, dtype=bool) for src in sources]
    total, read, seeded, j, theta = sum(lengths), 0, -1, 0, 0.0
    want = max(SEED_ROWS, SEED_PER_RESULT * k)
    while j < len(order) and suffix[j] > 0 and not suffix[j] < theta - slack:
        if read >= want and (seeded < 0 or (read >= RESEED_AFTER * seeded and lengths[order[j]] >= read - seeded)):
            # seeded once enough is read, then again before a long list once much more was read since
            theta, seeded = max(theta, _seed(call, _seen(call, seen), acc, want, order[j:], slack)), read
            if suffix[j] < theta - slack:
                break  # a row in none of the lists read so far scores below theta
            unread = next(x for x in range(j, len(order) + 1) if suffix[x] < theta - slack or suffix[x] == 0)
            if read + sum(lengths[i] for i in order[j:unread]) > FALLBACK_SHARE * total:
                return None
        _read_whole(call, order[j], acc, seen)
        read += lengths[order[j]]
        j += 1
    survivors = _seen(call, seen)
    later = sorted(order[j:], key=lambda i: -bounds[i])  # the largest bounds first: they decide the most rows
    if read != seeded:
        theta = max(theta, _seed(call, survivors, acc, want, later, slack))
    rest = float(suffix[j])
    survivors = _reaching(survivors, acc, rest, theta, slack)
    count = sum(pos.size for _, pos in survivors)
    for x, term in enumerate(later):
        rest = max(rest - bounds[term], 0.0)
        _add_term(call, term, survivors, acc)
        survivors = _reaching(survivors, acc, rest, theta, slack)
        now = sum(pos.size for _, pos in survivors)
        if now > RESEED_PER_SEED * want and now * 2 < count:  # many left, and half gone since the last seed
            theta, count = max(theta, _seed(call, survivors, acc, want, later[x + 1:], slack)), now
            survivors = _reaching(survivors, acc, rest, theta, slack)
    rows = [call.global_rows(s, pos) for s, pos in survivors]
    scores = [call.exact(s, pos) for s, pos in survivors]
    if not rows:
        return []
    return top_k_among(np.concatenate(scores), np.concatenate(rows), k)


def _read_whole(call: _Call, term: int, acc: list[np.ndarray], seen: list[np.ndarray] | None) -> None:
    """Add one term's weights of every posting to the bound accumulator (by position, per source); mark the
    rows seen (candidates) unless `seen` is None."""
    col, coef = call.columns[term]
    for s, src in enumerate(call.sources):
        lo, hi = src.span(col)
        if hi > lo:
            at = np.asarray(src.indices[lo:hi])
            add_at(acc[s], at, src.weigh(np.asarray(src.data[lo:hi]), at, coef))  # a column's positions are distinct
            if seen is not None:
                seen[s][at] = True


def _seen(call: _Call, seen: list[np.ndarray]) -> list[tuple[int, np.ndarray]]:
    """The candidates read so far, per source: live allowed positions, ascending."""
    out = []
    for s in range(len(call.sources)):
        pos = np.flatnonzero(seen[s])
        out.append((s, pos[call.usable(s, pos)]))
    return out


def _seed(call: _Call, candidates: list[tuple[int, np.ndarray]], acc: list[np.ndarray], want: int,
          unread: Sequence[int], slack: float) -> float:
    """A lower bound of the true k-th score: the k-th best score among the `want` candidates of highest
    accumulated bound (real, live, allowed rows), each completed with the terms not yet in `acc` (`unread`),
    less the slack for float rounding; 0 when fewer than k of them score above it."""
    picked = [(s, pos, acc[s][pos]) for s, pos in candidates]
    every = np.concatenate([a for _, _, a in picked]) if picked else _NO_WEIGHTS
    if every.size > want:
        cut = np.partition(every, every.size - want)[every.size - want]
        picked = [(s, pos[a >= cut], a[a >= cut]) for s, pos, a in picked]
    scores = []
    for s, pos, partial in picked:
        total = partial.astype(np.float64)
        for term in unread:
            hit, weights = call.lookup(s, *call.columns[term], pos)
            total[hit] += weights
        scores.append(total - slack)
    found = np.concatenate(scores) if scores else _NO_WEIGHTS
    found = found[found > 0]
    if found.size < call.k:
        return 0.0
    return float(np.partition(found, found.size - call.k)[found.size - call.k])


def _add_term(call: _Call, term: int, candidates: list[tuple[int, np.ndarray]], acc: list[np.ndarray]) -> None:
    """Add an unread term's weights to the candidates' accumulated bounds: by binary search for a few
    candidates, by reading the list whole when they are many (each way costs about what it reads)."""
    col, coef = call.columns[term]
    for s, pos in candidates:
        lo, hi = call.sources[s].span(col)
        if hi == lo or pos.size == 0:
            continue
        if pos.size * SCAN_PER_LOOKUP >= hi - lo:
            at = np.asarray(call.sources[s].indices[lo:hi])
            add_at(acc[s], at, call.sources[s].weigh(np.asarray(call.sources[s].data[lo:hi]), at, coef))
        else:
            hit, weights = call.lookup(s, col, coef, pos)
            acc[s][pos[hit]] += weights


def _reaching(candidates: list[tuple[int, np.ndarray]], acc: list[np.ndarray], rest: float, theta: float,
              slack: float) -> list[tuple[int, np.ndarray]]:
    """The candidates whose bound (accumulated + `rest`, what the terms not added yet can give) may reach theta
    and be positive (the top-k keeps positive scores only)."""
    # acc + rest >= theta - slack, compared in acc's float32 (its rounding is far below the slack)
    floor = max(theta - slack - rest, -slack - rest + np.finfo(np.float32).tiny)
    return [(s, pos[acc[s][pos] >= floor]) for s, pos in candidates]


class AllowedRows:
    """The allowed-rows mask for a row array, kept for the last large array seen (by identity): the retriever
    passes the same "every row but these kinds" array on every hint-tier request."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._kept: tuple[np.ndarray, np.ndarray] | None = None

    def mask(self, rows: np.ndarray | None) -> np.ndarray | None:
        if rows is None:
            return None
        kept = self._kept  # read once: another thread may replace it between two reads
        if kept is not None and kept[0] is rows:
            return kept[1]
        mask = np.zeros(self.size, dtype=bool)
        mask[np.asarray(rows, dtype=np.int64)] = True
        self._kept = (rows, mask)
        return mask
