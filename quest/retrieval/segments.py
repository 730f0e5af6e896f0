"""An index made of segments: a base, append-only deltas, and a mask of deleted rows.

An update never rewrites what is already on disk: the changed documents' chunks become a new
delta segment (chunks, term frequencies, float16 vectors, lexical weights), and the rows of
their old versions are marked deleted. Rows are numbered across segments in order, so row
`r` of the whole index is row `r - offset` of the segment holding it.

BM25 stays exact across segments: each segment keeps raw term frequencies (CSC, columns are
global term ids), and the collection statistics (document count, document frequencies,
average length) are computed over the live rows of all segments. A query's scores are then
computed from those statistics for the query's few columns only, exactly as rank-bm25's
`BM25Okapi` would score the live documents (tests/retrieval/test_segments.py checks both).
"""

from __future__ import annotations

import threading
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp

from quest.errors import IndexError_
from quest.kb.documents import Chunk
from quest.retrieval import maxscore
from quest.retrieval.chunktable import ChunkTable
from quest.retrieval.dense import DenseIndex, _best, _pairs, cosines
from quest.retrieval.kernels import frozen
from quest.retrieval.scatter import add_at
from quest.retrieval.scopes import (
    RowOrder,
    ScopeRuns,
    TermCache,
    column_weights,
    scope_of,
    scope_sums,
    sorted_cuts,
)
from quest.retrieval.sparse import LexicalIndex, bm25_bound, positions, top_k

K1, B, EPSILON = 1.5, 0.75, 0.25  # rank-bm25's BM25Okapi defaults
# BM25 weights of common terms within a large scope (the general documents) are kept per index
# version (scopes.TermCache), up to CACHE_BYTES_PER_ROW per row of the index and CACHE_BYTES in all:
# the general scope, and with it the common terms' weights, grows with the base, and a fixed 64 MiB
# was a fifth of the heap at 1M and most of it at 100k (docs/bench/scale-1m-sparse).
CACHE_FROM_ROWS = 2048
CACHE_BYTES = 64 * 2**20
CACHE_BYTES_PER_ROW = 32


# Only a scope holding at least 1/SHARED_SCOPE of the rows (the general documents, read by every request)
# is kept in that cache. One problem's scope (1/400 of the rows at 1M) recurs only when its problem is asked
# about again; its weights filled half the cache and pushed out the general scope's (docs/bench/scale-1m-fusion),
# so they go to a small LRU of their own (RECENT_BYTES), which still serves the within-problem order of the
# same search (quest/retrieval/within.py) and a problem asked about again soon.
SHARED_SCOPE = 64
RECENT_BYTES = 4 * 2**20


def cache_budget(rows: int) -> int:
    """Bytes the BM25 weight cache may hold for an index of `rows` rows."""
    return min(CACHE_BYTES, rows * CACHE_BYTES_PER_ROW)
# Dense search over more rows than this scans the codes with a bitmap (SegmentedDense): at 100k the
# 5k general rows cost ~7 ms gathered and converted to float32, and the scan keeps retrieval p95
# under 30 ms (43 ms with 8192; docs/bench/scale-100k-final).
GATHER_UP_TO = 1024
# `SegmentedBM25.scores_for` over at most this many rows (a verdict check's lead rows, a plain-words confidence) looks
# each row up in each query term's postings: locating them as scope runs, then cutting every posting list at each
# run's two ends, costs more Python than the handful of sums it serves.
FEW_ROWS = 64
# ... and up to SCATTERED_ROWS rows that lie in more than SCATTERED_RUNS runs of consecutive rows: a verdict check's
# lead rows (the general documents' and the whole base's: 40 at the median at 1M, 70 at p90, 152 at p99) are spread
# over the base, and cutting every posting list at each run's two ends took 10-48 ms a call there against 1-7 ms
# looked up (65-512 spread rows, 8 common terms); in a few runs the two ways cost about the same
# (docs/bench/scale-1m-round20).
SCATTERED_ROWS = 512
SCATTERED_RUNS = 16
MAX_RUNS = 16  # rows in at most this many contiguous runs are searched run by run (SegmentedDense._runs)
# What SegmentedDense.search_rows derives from a large row set that nothing can change (read-only, as is every array
# it is a view of) is kept by identity, for at most KEEP_SCOPES sets, the oldest dropped first: the live rows and
# their runs, or the mask of the one filtered scan. The retriever passes the same few arrays on every request: the
# general documents, with and without a hint tier's excluded kinds, and "every row but these kinds". One kept set
# thrashed between the first two, and the third's mask (718k of 1M rows: dropping the deleted ones, then the 1M
# mask, ~4 ms) was made again on every hint-tier question (docs/bench/scale-1m-round19).
KEEP_SCOPES = 4


class Segment:
    """One immutable slice of the index. `terms` are the BM25 terms this segment introduced.

    Its sparse parts keep their rows in scope `order` (scopes.py): `postings` are the term
    frequencies as CSC (global term ids) with each row at its position in that order, and the
    lexical weights likewise; `tf` gives the frequencies back by row (derived on demand, for
    compaction and exports). Built from `tf` (rows in row order); loaded from `postings` + `order`.
    """

    def __init__(self, name: str, chunks: ChunkTable | Sequence, tf: sp.spmatrix | None = None,
                 terms: Sequence[str] = (), dense: DenseIndex | None = None, lexical: LexicalIndex | None = None,
                 doc_len: np.ndarray | None = None, stored: dict | None = None,
                 row_terms: tuple[np.ndarray, np.ndarray] | None = None, *,
                 postings: sp.csc_matrix | None = None, order: RowOrder | None = None) -> None:
        self.name, self.terms, self.dense, self.stored = name, list(terms), dense, stored
        self.row_terms = row_terms  # (indptr, term ids) per row, in row order: `tf` by rows
        self.bounds: Any = None  # per-column score bounds (bounds.py), once written or read
        if not isinstance(chunks, ChunkTable) and all(isinstance(c, Chunk) for c in chunks):
            chunks = ChunkTable.from_chunks(chunks)
        self.chunks = chunks  # a list of Chunk objects becomes a ChunkTable
        self.order = order if order is not None else scope_order(chunks)
        if postings is None:
            if tf is None:
                raise ValueError(f"segment {name}: neither term frequencies nor postings")
            if doc_len is None:  # whole token counts: exact in any summation order
                doc_len = np.asarray(tf.sum(axis=1), dtype=np.float64).reshape(-1)
            postings = self.order.to_positions(tf)
            if postings.dtype != np.float32:
                postings = postings.astype(np.float32)
        postings.sort_indices()  # a loaded matrix is flagged sorted (written sorted): no scan of its entries
        self.postings = postings
        if doc_len is None:
            by_position = np.bincount(postings.indices, weights=postings.data, minlength=self.rows)[: self.rows]
            doc_len = by_position if self.order.identity else by_position[self.order.rank]
        self.doc_len = doc_len  # tokens per row, in row order
        self.lexical = lexical.in_order(self.order) if lexical is not None else None
        sizes = {len(self.chunks), self.postings.shape[0], self.doc_len.shape[0]}
        if self.dense is not None:
            sizes.add(self.dense.size)
        if self.lexical is not None:
            sizes.add(self.lexical.size)
        if len(sizes) != 1:
            raise ValueError(f"segment {self.name}: parts disagree on the number of rows: {sorted(sizes)}")

    @property
    def rows(self) -> int:
        return len(self.chunks)

    @property
    def tf(self) -> sp.csc_matrix:
        """Term frequencies with rows in row order (the stored postings themselves when the order is the identity)."""
        return self.order.to_rows(self.postings)

    def terms_of_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """(indptr, term ids) by row, for the statistics of deleted rows; derived from `tf` once if not stored."""
        if self.row_terms is None:
            csr = self.tf.tocsr()
            self.row_terms = (csr.indptr.astype(np.int64), csr.indices.astype(np.int32))
        return self.row_terms


def scope_order(chunks: ChunkTable | Sequence) -> RowOrder:
    """Rows grouped by problem (the general documents are one group), then by kind (scopes.py)."""
    if not isinstance(chunks, ChunkTable):
        return RowOrder()
    return RowOrder.grouping(chunks.problem, chunks.kind)


def term_matrix(corpus: Iterable[Sequence[str]], vocab: dict[str, int]) -> tuple[sp.csc_matrix, list[str]]:
    """Term frequencies of `corpus` over `vocab` (grown in place); returns the matrix and the new terms.

    `corpus` is consumed once (pass a generator: a million token lists never exist at once), and
    the entries go into typed arrays (8 + 4 bytes each instead of two Python objects).
    """
    known = len(vocab)
    indptr = array("q", [0])
    indices = array("q")
    data = array("f")
    for tokens in corpus:
        for term, count in Counter(tokens).items():
            indices.append(vocab.setdefault(term, len(vocab)))
            data.append(count)
        indptr.append(len(indices))
    matrix = sp.csr_matrix(
        (np.frombuffer(data, dtype=np.float32), np.frombuffer(indices, dtype=np.int64),
         np.frombuffer(indptr, dtype=np.int64)),
        shape=(len(indptr) - 1, max(len(vocab), 1)),
    )
    new_terms = list(vocab)[known:] if len(vocab) > known else []  # dicts keep insertion (= id) order
    return matrix.tocsc(), new_terms


def offsets_of(segments: Sequence[Segment]) -> np.ndarray:
    return np.concatenate([[0], np.cumsum([s.rows for s in segments])]).astype(np.int64)


class SegmentedBM25:
    """Okapi BM25 over the live rows of several segments, with the same interface as BM25Index."""

    few_rows = FEW_ROWS  # scores_for looks up at most this many rows directly (_few_rows_sums); 0: never

    def __init__(self, segments: Sequence[Segment], deleted: np.ndarray, *, k1: float = K1, b: float = B,
                 epsilon: float = EPSILON) -> None:
        self.segments = list(segments)
        self.offsets = offsets_of(self.segments)
        self.deleted = deleted
        self.k1, self.b, self.epsilon = k1, b, epsilon
        self.vocab: dict[str, int] = {}
        for seg in self.segments:
            for term in seg.terms:
                self.vocab.setdefault(term, len(self.vocab))
        self.size = int(self.offsets[-1])
        self._statistics()
        self.cache = TermCache(cache_budget(self.size))  # per index version: the statistics above are in every weight
        self.recent = TermCache(min(RECENT_BYTES, cache_budget(self.size)))  # small scopes' (see SHARED_SCOPE)
        self._shared_scope: tuple[np.ndarray, list] | None = None  # the general documents' (_segment_scopes)
        self._allowed = maxscore.AllowedRows(self.size)

    def _statistics(self) -> None:
        """Document count, frequencies and average length over live rows only.

        O(vocabulary + rows + the deleted rows' entries): each segment's document frequencies are
        its column lengths, minus the terms of its deleted rows (read by row, see Segment.row_terms).
        """
        width = len(self.vocab)
        df = np.zeros(width, dtype=np.int64)
        total_len = 0.0
        for seg, start in zip(self.segments, self.offsets[:-1], strict=False):
            dead = self.deleted[start:start + seg.rows]
            counts = np.diff(np.asarray(seg.postings.indptr, dtype=np.int64))
            df[: counts.size] += counts
            total_len += float(np.asarray(seg.doc_len, dtype=np.float64).sum())
            gone = np.flatnonzero(dead)
            if gone.size:
                indptr, terms = seg.terms_of_rows()
                lo, hi = indptr[gone], indptr[gone + 1]
                cols = terms[positions(lo, hi)]
                df[: counts.size] -= np.bincount(cols, minlength=counts.size)[: counts.size]
                total_len -= float(np.asarray(seg.doc_len, dtype=np.float64)[gone].sum())
        self.n_live = int(self.size - self.deleted.sum())
        self.avgdl = total_len / self.n_live if self.n_live else 0.0
        present = df > 0
        idf = np.zeros(width, dtype=np.float64)
        idf[present] = np.log(self.n_live - df[present] + 0.5) - np.log(df[present] + 0.5)
        self.average_idf = float(idf[present].mean()) if present.any() else 0.0
        idf[present & (idf < 0)] = self.epsilon * self.average_idf
        self.idf, self.present, self.df = idf, present, df
        # Each row's length normalisation k1 * (1 - b + b * dl / avgdl), once per index version (O(rows)).
        self._norms = [(self.k1 * (1 - self.b + self.b * np.asarray(seg.doc_len, dtype=np.float64) /
                                   (self.avgdl or 1.0))).astype(np.float32) for seg in self.segments]
        self._norms_by_position = [seg.order.by_position(norm) for seg, norm in zip(self.segments, self._norms,
                                                                                     strict=True)]

    def query_vector(self, tokens: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        counts = Counter(self.vocab[t] for t in tokens if t in self.vocab)
        cols = np.fromiter(counts.keys(), dtype=np.int64, count=len(counts))
        mult = np.fromiter(counts.values(), dtype=np.float64, count=len(counts))
        return cols, mult

    def _weights(self, tf: np.ndarray, norm: np.ndarray, coef: float) -> np.ndarray:
        """BM25 term weights in float32, computed the same way by `scores` and `scores_for`."""
        tf = np.asarray(tf, dtype=np.float32)
        return tf * np.float32(coef * (self.k1 + 1)) / (tf + norm)

    def _query(self, tokens: Sequence[str]) -> tuple[list[int], list[float]]:
        """The query's known, present columns and idf x multiplicity, in query order."""
        cols, mult = self.query_vector(tokens)
        if cols.size == 0 or self.n_live == 0 or self.avgdl == 0:
            return [], []
        keep = self.present[cols]
        return cols[keep].tolist(), (self.idf[cols[keep]] * mult[keep]).tolist()

    def scores(self, tokens: Sequence[str]) -> np.ndarray:
        """BM25 of every row (deleted rows score 0), from the query's columns only.

        Computed from the raw term frequencies with the current statistics on every query: exact
        whatever the deltas, and nothing cached per index version (no memory growing with the
        terms queried). One column at a time, in float32: a few numpy passes over each query
        term's postings, about what a precomputed weight matrix costs.
        """
        out = np.zeros(self.size, dtype=np.float32)
        cols, coefs = self._query(tokens)
        for seg, start, norm in zip(self.segments, self.offsets[:-1].tolist(), self._norms_by_position, strict=True):
            # Summed by position (a column's postings are sorted by position, so the writes go forward
            # through memory) and laid out by row once at the end: the same additions in the same order
            # as mapping every posting to its row, without a random gather and scatter per posting.
            part = np.zeros(seg.rows, dtype=np.float32)
            indptr, indices, data = seg.postings.indptr, seg.postings.indices, seg.postings.data
            for col, coef in zip(cols, coefs, strict=True):
                if col >= seg.postings.shape[1] or indptr[col] == indptr[col + 1]:
                    continue
                lo, hi = int(indptr[col]), int(indptr[col + 1])
                try:
                    at = np.asarray(indices[lo:hi])
                    add_at(part, at, self._weights(data[lo:hi], norm[at], coef))  # a column's positions are distinct
                except IndexError as exc:
                    raise IndexError_(f"segment {seg.name}: term frequencies name rows it does not have") from exc
            out[start:start + seg.rows] = seg.order.by_row(part)
        out[self.deleted] = 0.0
        return out

    def scores_for(self, tokens: Sequence[str], rows: np.ndarray) -> np.ndarray:
        """`scores(tokens)[rows]` (distinct rows), computed for those rows only.

        Each segment's part of `rows` is a few runs of positions in its scope order (one problem's
        rows, the general documents: scopes.py), and only the query terms' postings inside those
        runs are read. The same float32 weights are added in the same order as in `scores`, so the
        numbers are identical.
        """
        rows = np.asarray(rows, dtype=np.int64)
        out = np.zeros(rows.size, dtype=np.float32)
        cols, coefs = self._query(tokens)
        if not cols or rows.size == 0:
            return out
        if self._looked_up(rows) and self._few_rows_sums(rows, cols, coefs, out):
            out[self.deleted[rows]] = 0.0
            return out
        columns = list(zip(cols, coefs, strict=True))
        for s, seg, norm, at, runs, back in self._segment_scopes(rows):
            acc = scope_sums(runs, seg.postings, columns,
                             lambda values, found, coef, norm=norm: self._weights(values, norm[found], coef),
                             *self._cache_for(s, runs))
            out[at if back is None else at[back]] = acc
        out[self.deleted[rows]] = 0.0
        return out

    def kernel_scores_for(self, kernel: Any, tokens: Sequence[str], rows: np.ndarray, *,
                          warm: bool = False) -> np.ndarray:
        """`scores_for(tokens, rows)` exactly, each segment's scope summed by one compiled call that lets go of the GIL
        (kernels.Kernel.scope_bm25), so the search can run beside the question's others. A scope read through merged
        gaps (more than scopes.MAX_RUNS runs) takes the numpy path. `warm`: one row of every segment, no query term, to
        compile the call for each segment's arrays."""
        if warm:
            rows = self.offsets[:-1][np.asarray([seg.rows > 0 for seg in self.segments], dtype=bool)]
        rows = np.asarray(rows, dtype=np.int64)
        out = np.zeros(rows.size, dtype=np.float32)
        cols, coefs = self._query(tokens)
        if (not cols and not warm) or rows.size == 0:
            return out
        located = self._segment_scopes(rows)
        if not all(runs.exact for *_, runs, _ in located):
            return self.scores_for(tokens, rows)
        # The coefficient as `_weights` rounds it: idf x multiplicity x (k1 + 1), once, to float32.
        scaled = np.asarray([np.float32(coef * (self.k1 + 1)) for coef in coefs], dtype=np.float32)
        cols = np.asarray(cols, dtype=np.int64)
        for _, seg, norm, at, runs, back in located:
            try:
                acc = kernel.scope_bm25(seg.postings.indptr, seg.postings.indices, seg.postings.data, norm, cols,
                                        scaled, runs)
            except IndexError as exc:  # the numpy path's error for a damaged list (scores)
                raise IndexError_(f"segment {seg.name}: term frequencies name rows it does not have") from exc
            out[at if back is None else at[back]] = acc
        out[self.deleted[rows]] = 0.0
        return out

    def _looked_up(self, rows: np.ndarray) -> bool:
        """Whether `scores_for` looks `rows` up in each term's postings (`_few_rows_sums`) rather than cutting the
        postings at the runs they form: a few rows (`few_rows`), or up to SCATTERED_ROWS spread over more than
        SCATTERED_RUNS runs. Either way gives the same numbers; only the cost differs."""
        if self.few_rows <= 0:
            return False
        if rows.size <= self.few_rows:
            return True
        if rows.size > SCATTERED_ROWS:
            return False
        return int(np.count_nonzero(np.diff(np.sort(rows)) != 1)) + 1 > SCATTERED_RUNS

    def _few_rows_sums(self, rows: np.ndarray, cols: list[int], coefs: list[float], out: np.ndarray) -> bool:
        """`scores_for` over a few distinct rows into `out`, each row looked up in each column's postings; False
        (nothing written) for rows that are not distinct or not all in the index, left to the general path.

        The same float32 weights (`_weights` on the same term frequencies and norms) are added to a zero in the
        columns' order, one addition per row and column, as `scope_sums` adds them: the sums are bit-equal.
        """
        if int(rows.min()) < 0 or int(rows.max()) >= self.size:
            return False
        where = np.searchsorted(self.offsets, rows, side="right") - 1
        parts = []
        for s, (seg, norm) in enumerate(zip(self.segments, self._norms_by_position, strict=True)):
            at = np.flatnonzero(where == s) if len(self.segments) > 1 else np.arange(rows.size)
            if not at.size:
                continue
            local = np.asarray(seg.order.positions(rows[at] - self.offsets[s]), dtype=np.int64)
            sort = np.argsort(local, kind="stable")
            pos = local[sort]
            if pos.size > 1 and not bool((pos[1:] > pos[:-1]).all()):
                return False  # a row given twice
            parts.append((seg, norm, at[sort], pos))
        for seg, norm, target, pos in parts:
            acc = np.zeros(pos.size, dtype=np.float32)
            indptr, indices, data = seg.postings.indptr, seg.postings.indices, seg.postings.data
            width = seg.postings.shape[1]
            for col, coef in zip(cols, coefs, strict=True):
                if col >= width:
                    continue
                lo, hi = int(indptr[col]), int(indptr[col + 1])
                if hi == lo:
                    continue
                postings = np.asarray(indices[lo:hi])
                cut = np.asarray(sorted_cuts(postings, pos), dtype=np.int64)
                inside = cut < hi - lo
                hit = np.zeros(pos.size, dtype=bool)
                hit[inside] = postings[cut[inside]] == pos[inside]
                if hit.any():
                    acc[hit] += self._weights(np.asarray(data[lo:hi])[cut[hit]], norm[pos[hit]], coef)
            out[target] = acc
        return True

    def _cache_for(self, segment: int, runs: ScopeRuns) -> tuple[TermCache, tuple | None]:
        """The cache for a scope's term weights and the key naming the scope there (None: not cached)."""
        scope = runs.key(CACHE_FROM_ROWS)
        if scope is None:
            return self.cache, None
        return self.cache if runs.size * SHARED_SCOPE >= self.size else self.recent, (segment, *scope)

    def _segment_scopes(self, rows: np.ndarray) -> list[tuple[int, Any, np.ndarray, np.ndarray, Any, Any]]:
        """For each segment holding some of `rows`: (segment number, segment, its norms, the positions in
        `rows` it holds, their runs in its scope order, the permutation back to `rows`' order or None).

        The general documents are the same read-only array on every request (Retriever._general_rows) and
        are scored ~4 times a request at 1M (every query part, the verdict detail): locating their 50k
        rows costs ~0.25 ms each time, so the last large read-only scope's answer is kept (by identity).
        """
        kept = self._shared_scope
        if kept is not None and kept[0] is rows:
            return kept[1]
        located = list(self._locate_scopes(rows))
        if not rows.flags.writeable and rows.size * SHARED_SCOPE >= self.size:
            self._shared_scope = (rows, located)
        return located

    def _locate_scopes(self, rows: np.ndarray) -> Iterator[tuple[int, Any, np.ndarray, np.ndarray, Any, Any]]:
        where = np.searchsorted(self.offsets, rows, side="right") - 1
        for s, (seg, norm) in enumerate(zip(self.segments, self._norms_by_position, strict=True)):
            at = np.flatnonzero(where == s) if len(self.segments) > 1 else np.arange(rows.size)
            if at.size:
                yield (s, seg, norm, at, *scope_of(seg.order, rows[at] - self.offsets[s]))

    def term_scores_for(self, tokens: Sequence[str], rows: np.ndarray, kernel: Any | None = None) -> np.ndarray:
        """Each token's own BM25 contribution for each of `rows` (distinct): a rows x tokens matrix whose
        row sums are `scores_for(tokens, rows)` (up to float32 rounding). The scope is located once. With `kernel`
        (quest.retrieval.kernels), a segment's scope of exact runs is one compiled call for every token (the same
        float32 weights; the call `kernel_scores_for` makes, with the same argument types, so its warm-up covers it)."""
        rows = np.asarray(rows, dtype=np.int64)
        out = np.zeros((rows.size, len(tokens)), dtype=np.float32)
        known = [(j, self.vocab[t]) for j, t in enumerate(tokens) if t in self.vocab and self.present[self.vocab[t]]]
        if not known or rows.size == 0 or self.n_live == 0 or self.avgdl == 0:
            return out
        # The coefficient as `_weights` rounds it: idf x (k1 + 1), once, to float32.
        cols = np.asarray([col for _, col in known], dtype=np.int64)
        scaled = np.asarray([np.float32(float(self.idf[col]) * (self.k1 + 1)) for col in cols.tolist()],
                            dtype=np.float32)
        words = [j for j, _ in known]
        for s, seg, norm, at, runs, back in self._segment_scopes(rows):
            target = at if back is None else at[back]
            if kernel is not None and runs.exact:
                try:
                    found = kernel.scope_bm25(seg.postings.indptr, seg.postings.indices, seg.postings.data, norm,
                                              cols, scaled, runs, by_column=True)
                except IndexError as exc:  # the numpy path's error for a damaged list (scores)
                    raise IndexError_(f"segment {seg.name}: term frequencies name rows it does not have") from exc
                out[np.ix_(target, words)] = found
                continue
            cache, key = self._cache_for(s, runs)

            def weigh(values, found, coef, norm=norm):
                return self._weights(values, norm[found], coef)

            for j, col in known:
                if col >= seg.postings.shape[1]:
                    continue
                # A word's column alone is its cached (positions, weights) as `scores_for` kept them for a
                # query that used the word once: the same float32 numbers that 0 + weight gives.
                found, weights = column_weights(runs, seg.postings, col, float(self.idf[col]), weigh, cache, key)
                out[target[found], j] = weights
        out[self.deleted[rows]] = 0.0
        return out

    def max_score(self, tokens: Sequence[str]) -> float:
        """Upper bound of any row's score (see BM25Index.max_score)."""
        return bm25_bound(self, tokens)

    def search(self, tokens: Sequence[str], k: int, rows: np.ndarray | None = None) -> list[tuple[int, float]]:
        return top_k(self.scores(tokens), k, rows)

    def pruned_search(self, tokens: Sequence[str], k: int, rows: np.ndarray | None = None) -> list[tuple[int, float]]:
        """`search(tokens, k, rows)` exactly (rows, order, float32 scores), reading only the postings that can
        still reach the k-th score (maxscore.py); `rows` is a large allowed set or None (every row)."""
        cols, coefs = self._query(tokens)
        if not cols:
            return []
        sources = [maxscore.Source(seg.postings.indptr, seg.postings.indices, seg.postings.data, seg.order, start,
                                   seg.rows, self._weigher(norm), self._bounder(seg))
                   for seg, start, norm in zip(self.segments, self.offsets[:-1].tolist(), self._norms_by_position,
                                               strict=True)]
        found = maxscore.search(sources, list(zip(cols, coefs, strict=True)), k, self.deleted,
                                self._allowed.mask(rows))
        return found if found is not None else self.search(tokens, k, rows)

    def kernel_search(self, kernel: Any, tokens: Sequence[str], k: int, rows: np.ndarray | None = None, *,
                      warm: bool = False) -> list[tuple[int, float]]:
        """`search(tokens, k, rows)` exactly, by the compiled exhaustive loop (quest.retrieval.kernels); `rows` is a
        large allowed set or None. `warm`: run it with no query term, to compile it for these arrays."""
        return self.kernel_lists(kernel, tokens, k, rows, warm=warm)[0]

    def kernel_lists(self, kernel: Any, tokens: Sequence[str], k: int, rows: np.ndarray | None = None,
                     subset: np.ndarray | None = None, *,
                     warm: bool = False) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
        """`kernel_search(tokens, k, rows)` and, from the same pass, the top k among those of `rows` that `subset`
        (a mask over all rows) holds: `search(tokens, k, rows & subset)` exactly (empty without `subset`)."""
        cols, coefs = self._query(tokens)
        if not cols and not warm:
            return [], []
        # The coefficient as `_weights` rounds it: idf x multiplicity x (k1 + 1), once, to float32.
        scaled = np.asarray([np.float32(coef * (self.k1 + 1)) for coef in coefs], dtype=np.float32)
        parts = [(seg.rows, seg.postings.indptr, seg.postings.indices, seg.postings.data, norm, seg.order.order, start)
                 for seg, start, norm in zip(self.segments, self.offsets[:-1].tolist(), self._norms_by_position,
                                             strict=True)]
        try:
            return kernel.bm25(parts, np.asarray(cols, dtype=np.int64), scaled, k, self.deleted,
                               self._allowed.mask(rows), subset)
        except IndexError as exc:  # the numpy path's error for a damaged list (scores)
            raise IndexError_(f"term frequencies name rows their segment does not have ({exc})") from exc

    def _weigher(self, norm: np.ndarray) -> maxscore.Weigh:
        return lambda values, at, coef: self._weights(values, norm[at], coef)

    def _bounder(self, seg: Segment) -> maxscore.Bound:
        """A column's largest weight in `seg` for a query coefficient: tf / (tf + norm) grows with tf and shrinks
        with the row's length, so the column's largest count over its shortest row bounds it (bounds.py; both
        only ever loosen as rows are deleted). Without stored maxima: coef x (k1 + 1), as tf / (tf + norm) < 1."""
        stored = seg.bounds
        avgdl = self.avgdl or 1.0

        def bound(col: int, coef: float) -> float:
            if coef <= 0:
                return 0.0
            if stored is None or col >= stored.max_tf.size:
                return coef * (self.k1 + 1)
            tf = float(stored.max_tf[col])
            norm = self.k1 * (1 - self.b + self.b * float(stored.min_len[col]) / avgdl)
            return coef * (self.k1 + 1) * tf / (tf + norm) if tf + norm > 0 else coef * (self.k1 + 1)
        return bound


class SegmentedLexical:
    """bge-m3 lexical weights over segments; deleted rows never match."""

    def __init__(self, parts: Sequence[LexicalIndex], offsets: np.ndarray, deleted: np.ndarray) -> None:
        self.parts, self.offsets, self.deleted = list(parts), offsets, deleted
        self.size = int(offsets[-1])
        self._allowed = maxscore.AllowedRows(self.size)

    def scores(self, query: Mapping[str, float]) -> np.ndarray:
        out = np.concatenate([p.scores(query) for p in self.parts]) if self.parts else np.zeros(0, np.float32)
        out[self.deleted] = 0.0
        return out

    def search(self, query: Mapping[str, float], k: int, rows: np.ndarray | None = None) -> list[tuple[int, float]]:
        return top_k(self.scores(query), k, rows)

    def pruned_search(self, query: Mapping[str, float], k: int,
                      rows: np.ndarray | None = None) -> list[tuple[int, float]]:
        """`search(query, k, rows)` exactly, reading only what can reach the k-th score (see SegmentedBM25's)."""
        if not self.parts:
            return []
        sources = [maxscore.Source(p.csc.indptr, p.csc.indices, p.csc.data, p.order, start, p.size, _lexical_weigh,
                                   p.weight_bound)
                   for p, start in zip(self.parts, self.offsets[:-1].tolist(), strict=True)]
        # The query's items in its own order, as the widest part reads them; a narrower part has no such columns.
        columns = max(self.parts, key=lambda p: p.csc.shape[1])._items(query)
        found = maxscore.search(sources, columns, k, self.deleted, self._allowed.mask(rows))
        return found if found is not None else self.search(query, k, rows)

    def kernel_search(self, kernel: Any, query: Mapping[str, float], k: int, rows: np.ndarray | None = None, *,
                      warm: bool = False) -> list[tuple[int, float]]:
        """`search(query, k, rows)` exactly, by the compiled exhaustive loop (see SegmentedBM25's)."""
        return self.kernel_lists(kernel, query, k, rows, warm=warm)[0]

    def kernel_lists(self, kernel: Any, query: Mapping[str, float], k: int, rows: np.ndarray | None = None,
                     subset: np.ndarray | None = None, *,
                     warm: bool = False) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
        """`kernel_search` and the top k among `subset`'s rows from the same pass (see SegmentedBM25's)."""
        if not self.parts:
            return [], []
        columns = max(self.parts, key=lambda p: p.csc.shape[1])._items(query)  # query order, as pruned_search
        if not columns and not warm:
            return [], []
        cols = np.asarray([col for col, _ in columns], dtype=np.int64)
        weights = np.asarray([w for _, w in columns], dtype=np.float32)
        parts = [(p.size, p.csc.indptr, p.csc.indices, p.csc.data, p.order.order, start)
                 for p, start in zip(self.parts, self.offsets[:-1].tolist(), strict=True)]
        try:
            return kernel.lexical(parts, cols, weights, k, self.deleted, self._allowed.mask(rows), subset)
        except IndexError as exc:  # the numpy path's error for a damaged list (LexicalIndex.scores)
            raise ValueError("lexical weights name rows the index does not have") from exc

    def scores_for(self, query: Mapping[str, float], rows: np.ndarray) -> np.ndarray:
        """`scores(query)[rows]` (distinct rows) for those rows only (see SegmentedBM25.scores_for)."""
        return self.kernel_scores_for(None, query, rows)

    def kernel_scores_for(self, kernel: Any | None, query: Mapping[str, float], rows: np.ndarray, *,
                          warm: bool = False) -> np.ndarray:
        """`scores_for(query, rows)`, each part's scope summed by one compiled call (kernels.Kernel.scope_lexical;
        None: numpy's sums). `warm`: one row of every part, no query term, to compile the call for each part."""
        if warm:
            rows = self.offsets[:-1][np.asarray([part.size > 0 for part in self.parts], dtype=bool)]
        rows = np.asarray(rows, dtype=np.int64)
        out = np.zeros(rows.size, dtype=np.float32)
        where = np.searchsorted(self.offsets, rows, side="right") - 1
        for s, part in enumerate(self.parts):
            at = np.flatnonzero(where == s) if len(self.parts) > 1 else np.arange(rows.size)
            if at.size:
                out[at] = part.scores_for(query, rows[at] - self.offsets[s], kernel, warm=warm)
        out[self.deleted[rows]] = 0.0
        return out


def _lexical_weigh(values: np.ndarray, _at: np.ndarray, weight: np.float32) -> np.ndarray:
    return np.asarray(values, dtype=np.float32) * weight  # as LexicalIndex.scores adds them


class _Rows:
    """Row access across segments: `vectors[row]` and `vectors[rows]`, as float16 numpy rows."""

    def __init__(self, owner: SegmentedDense) -> None:
        self.owner = owner

    def __len__(self) -> int:
        return self.owner.size

    def __getitem__(self, rows):
        if np.isscalar(rows):
            seg, local = self.owner.locate(np.asarray([rows]))
            return self.owner.parts[int(seg[0])].vectors[int(local[0])]
        rows = np.asarray(rows, dtype=np.int64)
        out = np.empty((rows.size, self.owner.dim), dtype=np.float16)
        seg, local = self.owner.locate(rows)
        for s in np.unique(seg):
            at = seg == s
            out[at] = self.owner.parts[int(s)].gather(local[at])
        return out


class _Scope(NamedTuple):
    """SegmentedDense.search_rows's reading of a row set (`_scope`)."""

    asked: np.ndarray  # the set as the caller passed it (kept alive, so its id names it while kept)
    rows: np.ndarray | None  # the live rows, ascending as asked; None when the mask holds them
    runs: list[tuple[int, int, int]] | None  # their contiguous runs (segment, local start, local end), if few
    mask: np.ndarray | None  # a read-only mask of the live rows over every row, for one filtered scan
    live: int  # how many live rows


class SegmentedDense:
    """Dense search over segments: each segment is scanned by FAISS with deleted rows masked out."""

    def __init__(self, parts: Sequence[DenseIndex], offsets: np.ndarray, deleted: np.ndarray, dim: int) -> None:
        self.parts, self.offsets, self.deleted, self.dim = list(parts), offsets, deleted, dim
        self.size = int(offsets[-1])
        self.vectors = _Rows(self)
        # Large read-only row sets searched again (KEEP_SCOPES), by id: `_scope`'s answer for each. Dropping deleted
        # rows and finding the runs of the general documents' 50k rows again cost 0.25 ms a request at 1M (paired,
        # docs/bench/scale-1m-round15).
        self._scopes: dict[int, _Scope] = {}
        self._scopes_lock = threading.Lock()  # searches side by side (QUEST_SEARCH_THREADS) share them

    def locate(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        seg = np.searchsorted(self.offsets, rows, side="right") - 1
        return seg, rows - self.offsets[seg]

    def convert_with(self, half_rows: Callable | None) -> None:
        """Every segment gathers rows as float32 with `half_rows` (DenseIndex.convert_with)."""
        for part in self.parts:
            part.convert_with(half_rows)

    def float32_rows(self, rows: np.ndarray) -> np.ndarray:
        """`vectors[rows].astype(np.float32)`, the same values, each segment's rows read ahead and cast in one step
        (DenseIndex.float32_rows) instead of gathered, copied into place and cast by numpy."""
        rows = np.asarray(rows, dtype=np.int64)
        if len(self.parts) == 1 and (rows.size == 0 or rows.min() >= 0):  # (a negative row: located as before)
            return self.parts[0].float32_rows(rows, read_ahead=True)
        out = np.empty((rows.size, self.dim), dtype=np.float32)
        seg, local = self.locate(rows)
        for s in np.unique(seg):
            at = seg == s
            out[at] = self.parts[int(s)].float32_rows(local[at], read_ahead=True)
        return out

    def _allowed(self, s: int, extra: np.ndarray | None) -> np.ndarray | None:
        lo, hi = self.offsets[s], self.offsets[s + 1]
        dead = self.deleted[lo:hi]
        mask = None if not dead.any() else ~dead
        if extra is not None:
            mask = extra[lo:hi] if mask is None else mask & extra[lo:hi]
        return mask

    def search(self, query: np.ndarray, k: int, allowed: np.ndarray | None = None, *,
               exact: bool = False) -> list[tuple[int, float]]:
        found: list[tuple[int, float]] = []
        for s, part in enumerate(self.parts):
            mask = self._allowed(s, allowed)
            if mask is not None and not mask.any():
                continue
            found += [(int(self.offsets[s]) + r, v) for r, v in part.search(query, k, mask, exact=exact)]
        if not found:
            return []
        rows = np.asarray([r for r, _ in found], dtype=np.int64)
        sims = np.asarray([v for _, v in found], dtype=np.float32)
        return _pairs(rows, sims, _best(sims, k, rows))

    def _runs(self, rows: np.ndarray) -> list[tuple[int, int, int]] | None:
        """`rows` (ascending) as at most MAX_RUNS (segment, local start, local end) runs, or None if scattered.

        A problem's rows are one run in a grouped base (layout.py) plus a few from deltas.
        """
        if rows.size > 1 and not bool((rows[1:] > rows[:-1]).all()):
            return None
        seg = np.searchsorted(self.offsets, rows, side="right") - 1
        breaks = np.flatnonzero((np.diff(rows) != 1) | (np.diff(seg) != 0)) + 1
        if breaks.size >= MAX_RUNS:
            return None
        firsts = np.concatenate([[0], breaks]).astype(np.int64)
        lasts = np.concatenate([breaks, [rows.size]]).astype(np.int64) - 1
        return [(int(seg[a]), int(rows[a] - self.offsets[seg[a]]), int(rows[b] - self.offsets[seg[a]]) + 1)
                for a, b in zip(firsts.tolist(), lasts.tolist(), strict=True)]

    def _scope(self, asked: np.ndarray) -> _Scope:
        """What `search_rows` reads of a row set: its live rows, their runs (a few contiguous ones) or else the mask of
        one filtered scan (many rows). Kept (KEEP_SCOPES) for a large set nothing can change."""
        rows = asked[~self.deleted[asked]] if asked.size else asked
        live = int(rows.size)
        runs = None if live * 4 >= self.size or live == 0 else self._runs(rows)
        mask = None
        if runs is None and live and (live * 4 >= self.size or live > GATHER_UP_TO):
            mask = np.zeros(self.size, dtype=bool)
            mask[rows] = True
            mask.flags.writeable = False
            rows = None  # the mask says it all (the hint tier's 718k live rows at 1M would be 5.7 MB more)
        scope = _Scope(asked, rows, runs, mask, live)
        if asked.size * SHARED_SCOPE >= self.size and frozen(asked):
            with self._scopes_lock:
                while len(self._scopes) >= KEEP_SCOPES:
                    self._scopes.pop(next(iter(self._scopes)))
                self._scopes[id(asked)] = scope
        return scope

    def compact(self, rows: np.ndarray, scores: Callable) -> int:
        """Give the long runs of `rows` (the general documents) 8-bit codes for a cheaper exact search
        (dense.CompactRun; `scores`: the compiled pass, kernels.Kernel.compact_scores). The bytes of codes kept."""
        rows = np.asarray(rows, dtype=np.int64)
        rows = rows[~self.deleted[rows]] if rows.size else rows
        runs = None if rows.size * 4 >= self.size or rows.size == 0 else self._runs(rows)
        for s, lo, hi in runs or ():
            self.parts[s].compact_run(lo, hi, scores)
        return sum(c.nbytes for part in self.parts for c in part._compact)

    def search_rows(self, query: np.ndarray, rows: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Exact top-k among `rows` (deleted ones dropped): by contiguous runs when the rows form a few."""
        asked = np.asarray(rows, dtype=np.int64)
        kept = self._scopes.get(id(asked))  # read once: another thread may replace it
        scope = kept if kept is not None and kept.asked is asked else self._scope(asked)
        rows, runs = scope.rows, scope.runs
        if scope.live == 0 or k <= 0:
            return []
        if runs is not None:
            found = [(int(self.offsets[s]) + r, v) for s, lo, hi in runs
                     for r, v in self.parts[s].search_range(query, lo, hi, k)]
            found_rows = np.asarray([r for r, _ in found], dtype=np.int64)
            sims = np.asarray([v for _, v in found], dtype=np.float32)
            return _pairs(found_rows, sims, _best(sims, k, found_rows))
        if scope.mask is not None:
            # Many rows: one FAISS scan of the float16 codes with a bitmap of the allowed rows costs
            # ~1 ns per skipped row, where gathering and converting 50k rows costs tens of ms. Most
            # of the base (hint tier) may use the IVF index; fewer rows (general documents) are exact.
            return self.search(query, k, scope.mask, exact=scope.live * 4 < self.size)
        sims = cosines(self.float32_rows(rows), query)
        return _pairs(rows, sims, _best(sims, k, rows))
