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

from array import array
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from quest.kb.documents import Chunk
from quest.retrieval.dense import DenseIndex, _best
from quest.retrieval.sparse import LexicalIndex, bm25_bound, top_k

K1, B, EPSILON = 1.5, 0.75, 0.25  # rank-bm25's BM25Okapi defaults


@dataclass(eq=False)
class Segment:
    """One immutable slice of the index. `terms` are the BM25 terms this segment introduced."""

    name: str
    chunks: list[Chunk]
    tf: sp.csc_matrix  # rows x global term ids known when the segment was written
    terms: list[str]
    dense: DenseIndex | None = None
    lexical: LexicalIndex | None = None
    doc_len: np.ndarray | None = None  # tokens per row; derived from `tf` when not given
    stored: dict | None = None  # the manifest's file entries once this segment is on disk

    def __post_init__(self) -> None:
        self.tf = sp.csc_matrix(self.tf, dtype=np.float32)
        self.tf.sort_indices()
        if self.doc_len is None:
            self.doc_len = np.bincount(self.tf.indices, weights=self.tf.data, minlength=self.rows)[: self.rows]
        sizes = {len(self.chunks), self.tf.shape[0]}
        if self.dense is not None:
            sizes.add(self.dense.size)
        if self.lexical is not None:
            sizes.add(self.lexical.size)
        if len(sizes) != 1:
            raise ValueError(f"segment {self.name}: parts disagree on the number of rows: {sorted(sizes)}")

    @property
    def rows(self) -> int:
        return len(self.chunks)


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
        self._columns: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._statistics()

    def _statistics(self) -> None:
        """Document count, frequencies and average length over live rows only: O(stored entries)."""
        width = len(self.vocab)
        df = np.zeros(width, dtype=np.int64)
        total_len = 0.0
        for seg, start in zip(self.segments, self.offsets[:-1], strict=False):
            live = ~self.deleted[start:start + seg.rows]
            total_len += float(seg.doc_len[live].sum())
            counts = np.diff(seg.tf.indptr)
            if not live.all():  # subtract the deleted rows' entries (found by their row ids)
                dead_entries = np.flatnonzero(~live[seg.tf.indices])
                dead_cols = np.searchsorted(seg.tf.indptr, dead_entries, side="right") - 1
                counts = counts - np.bincount(dead_cols, minlength=counts.size)
            df[: counts.size] += counts
        self.n_live = int(self.size - self.deleted.sum())
        self.avgdl = total_len / self.n_live if self.n_live else 0.0
        present = df > 0
        idf = np.zeros(width, dtype=np.float64)
        idf[present] = np.log(self.n_live - df[present] + 0.5) - np.log(df[present] + 0.5)
        self.average_idf = float(idf[present].mean()) if present.any() else 0.0
        idf[present & (idf < 0)] = self.epsilon * self.average_idf
        self.idf, self.present, self.df = idf, present, df

    def query_vector(self, tokens: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        counts = Counter(self.vocab[t] for t in tokens if t in self.vocab)
        cols = np.fromiter(counts.keys(), dtype=np.int64, count=len(counts))
        mult = np.fromiter(counts.values(), dtype=np.float64, count=len(counts))
        return cols, mult

    def _column(self, col: int) -> tuple[np.ndarray, np.ndarray]:
        """(rows, BM25 weights) of one term across all segments, computed once per index version.

        Memoized: load stays O(1) (nothing is precomputed) and a term's weights cost one pass over
        its postings the first time a query uses it; a new Index (after an update) starts afresh,
        so the statistics are always the current ones.
        """
        cached = self._columns.get(col)
        if cached is not None:
            return cached
        rows_parts, weight_parts = [], []
        for seg, start in zip(self.segments, self.offsets[:-1], strict=False):
            if col >= seg.tf.shape[1]:
                continue
            lo, hi = seg.tf.indptr[col], seg.tf.indptr[col + 1]
            rows = seg.tf.indices[lo:hi]
            tf = seg.tf.data[lo:hi].astype(np.float64)
            norm = self.k1 * (1 - self.b + self.b * seg.doc_len[rows] / self.avgdl)
            rows_parts.append(rows.astype(np.int64) + start)
            weight_parts.append((self.idf[col] * tf * (self.k1 + 1) / (tf + norm)).astype(np.float32))
        cached = (np.concatenate(rows_parts) if rows_parts else np.zeros(0, np.int64),
                  np.concatenate(weight_parts) if weight_parts else np.zeros(0, np.float32))
        self._columns[col] = cached
        return cached

    def scores(self, tokens: Sequence[str]) -> np.ndarray:
        """BM25 of every row (deleted rows score 0), from the query's columns only."""
        cols, mult = self.query_vector(tokens)
        out = np.zeros(self.size, dtype=np.float32)
        if cols.size == 0 or self.n_live == 0 or self.avgdl == 0:
            return out
        for col, times in zip(cols, mult, strict=False):
            if self.present[col]:
                rows, weights = self._column(int(col))
                out[rows] += weights * np.float32(times)  # a term's rows are distinct: no lost updates
        out[self.deleted] = 0.0
        return out

    def max_score(self, tokens: Sequence[str]) -> float:
        """Upper bound of any row's score (see BM25Index.max_score)."""
        return bm25_bound(self, tokens)

    def search(self, tokens: Sequence[str], k: int, rows: np.ndarray | None = None) -> list[tuple[int, float]]:
        return top_k(self.scores(tokens), k, rows)


class SegmentedLexical:
    """bge-m3 lexical weights over segments; deleted rows never match."""

    def __init__(self, parts: Sequence[LexicalIndex], offsets: np.ndarray, deleted: np.ndarray) -> None:
        self.parts, self.offsets, self.deleted = list(parts), offsets, deleted
        self.size = int(offsets[-1])

    def scores(self, query: Mapping[str, float]) -> np.ndarray:
        out = np.concatenate([p.scores(query) for p in self.parts]) if self.parts else np.zeros(0, np.float32)
        out[self.deleted] = 0.0
        return out

    def search(self, query: Mapping[str, float], k: int, rows: np.ndarray | None = None) -> list[tuple[int, float]]:
        return top_k(self.scores(query), k, rows)


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
            out[at] = self.owner.parts[int(s)].vectors[local[at]]
        return out


class SegmentedDense:
    """Dense search over segments: each segment is scanned by FAISS with deleted rows masked out."""

    def __init__(self, parts: Sequence[DenseIndex], offsets: np.ndarray, deleted: np.ndarray, dim: int) -> None:
        self.parts, self.offsets, self.deleted, self.dim = list(parts), offsets, deleted, dim
        self.size = int(offsets[-1])
        self.vectors = _Rows(self)

    def locate(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        seg = np.searchsorted(self.offsets, rows, side="right") - 1
        return seg, rows - self.offsets[seg]

    def _allowed(self, s: int, extra: np.ndarray | None) -> np.ndarray | None:
        lo, hi = self.offsets[s], self.offsets[s + 1]
        dead = self.deleted[lo:hi]
        mask = None if not dead.any() else ~dead
        if extra is not None:
            mask = extra[lo:hi] if mask is None else mask & extra[lo:hi]
        return mask

    def search(self, query: np.ndarray, k: int, allowed: np.ndarray | None = None) -> list[tuple[int, float]]:
        found: list[tuple[int, float]] = []
        for s, part in enumerate(self.parts):
            mask = self._allowed(s, allowed)
            if mask is not None and not mask.any():
                continue
            found += [(int(self.offsets[s]) + r, v) for r, v in part.search(query, k, mask)]
        if not found:
            return []
        rows = np.asarray([r for r, _ in found], dtype=np.int64)
        sims = np.asarray([v for _, v in found], dtype=np.float32)
        return [(int(rows[i]), float(sims[i])) for i in _best(sims, k, rows)]

    def search_rows(self, query: np.ndarray, rows: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Exact top-k among `rows` (deleted ones dropped)."""
        rows = np.asarray(rows, dtype=np.int64)
        rows = rows[~self.deleted[rows]] if rows.size else rows
        if rows.size == 0 or k <= 0:
            return []
        if rows.size * 4 >= self.size:
            mask = np.zeros(self.size, dtype=bool)
            mask[rows] = True
            return self.search(query, k, mask)
        sims = self.vectors[rows].astype(np.float32) @ np.asarray(query, dtype=np.float32).reshape(-1)
        return [(int(rows[i]), float(sims[i])) for i in _best(sims, k, rows)]
