"""Quest's BM25 and bge-m3's lexical weights as Milvus sparse vectors (inner product = the local score).

BM25 splits into a document side and a query side. For a live row d and a term t,

    doc[d][t]   = tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl(d) / avgdl))     (saturation, length norm)
    query[t]    = idf(t) * (times t occurs in the query)

so doc . query = sum over the query's terms of idf(t) * saturation = the local BM25 score
(`SegmentedBM25.scores`, which equals rank-bm25's BM25Okapi). The idf side is computed per query
from the local live statistics, so it is always exact; the document side depends on `avgdl` when
the row was written. It equals the local score exactly (up to float32 rounding, relative 1e-6) while
the collection's `avgdl` is the current one; after updates move the average from A to A', a row
written with A scores within a relative |1 - A / A'| of the local score (the stored length term
k1*b*dl/A is part of a denominator it can change by at most that share). `MilvusStore.sync`
rewrites the rows whose stored average drifted more than `BM25_DRIFT`.

Term ids are the local index's global BM25 ids: they only grow by appending, and the collection
records which vocabulary it was written with (`vocabulary_tag`) so a rebuilt index never reads
another vocabulary's ids.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

BM25_DRIFT = 0.01  # rewrite rows whose stored avgdl is off by more than 1% (their scores by at most 1%)
# Milvus rejects a sparse vector without a non-zero weight; an empty row gets this slot, which no
# query ever uses (BM25 ids are < vocabulary size, bge-m3 token ids < 250,002).
EMPTY_SLOT = 4_294_967_294
EMPTY_WEIGHT = 1e-30


def vocabulary_tag(terms: Sequence[str]) -> str:
    """`size:sha` of the id-ordered terms: a later vocabulary extends an earlier one iff the prefix matches."""
    digest = hashlib.sha256("\x00".join(terms).encode("utf-8")).hexdigest()[:16]
    return f"{len(terms)}:{digest}"


def extends(tag: str, terms: Sequence[str]) -> bool:
    """Whether `terms` (the current vocabulary) starts with the vocabulary `tag` describes."""
    size, _, _ = tag.partition(":")
    if not size.isdigit() or int(size) > len(terms):
        return False
    return vocabulary_tag(terms[: int(size)]) == tag


def _or_empty(entries: dict[int, float]) -> dict[int, float]:
    return entries or {EMPTY_SLOT: EMPTY_WEIGHT}


class SparseRows:
    """Document-side sparse vectors of index rows, read from the index's segments."""

    def __init__(self, index: Any) -> None:
        self.index = index
        self.stats = index.bm25
        self.offsets = np.concatenate([[0], np.cumsum([s.rows for s in index.segments])]).astype(np.int64)
        self._csr: dict[int, Any] = {}
        self._lexical: dict[int, Any] = {}

    def _locate(self, row: int) -> tuple[int, int]:
        seg = int(np.searchsorted(self.offsets, row, side="right") - 1)
        return seg, row - int(self.offsets[seg])

    def _tf(self, seg: int) -> Any:
        if seg not in self._csr:  # one CSR copy per segment with rows to write, made once per sync
            self._csr[seg] = self.index.segments[seg].tf.tocsr()
        return self._csr[seg]

    def bm25(self, row: int) -> dict[int, float]:
        """BM25 saturation with length normalisation of each term of `row`, at the current avgdl."""
        seg, local = self._locate(row)
        tf = self._tf(seg)
        lo, hi = tf.indptr[local], tf.indptr[local + 1]
        freq = tf.data[lo:hi].astype(np.float64)
        k1, b = self.stats.k1, self.stats.b
        dl = float(self.index.segments[seg].doc_len[local])
        norm = k1 * (1 - b + b * dl / self.stats.avgdl) if self.stats.avgdl else k1
        weights = freq * (k1 + 1) / (freq + norm)
        return _or_empty({int(t): float(w) for t, w in zip(tf.indices[lo:hi], weights, strict=True)})

    def _lexical_rows(self, seg: int) -> Any:
        # `LexicalIndex.matrix` builds a row-major copy on every access: once per segment, not per row
        # (per row it made the first sync of a 100k index run for over 20 minutes).
        if seg not in self._lexical:
            self._lexical[seg] = self.index.segments[seg].lexical.matrix
        return self._lexical[seg]

    def lexical(self, row: int) -> dict[int, float]:
        seg, local = self._locate(row)
        matrix = self._lexical_rows(seg)
        lo, hi = matrix.indptr[local], matrix.indptr[local + 1]
        return _or_empty({int(t): float(w) for t, w in zip(matrix.indices[lo:hi], matrix.data[lo:hi], strict=True)
                          if w != 0})


def bm25_query(bm25: Any, tokens: Sequence[str]) -> dict[int, float]:
    """Query side: idf(t) x multiplicity for the query's known terms (live statistics, exact)."""
    cols, mult = bm25.query_vector(tokens)
    return {int(c): float(bm25.idf[c] * m) for c, m in zip(cols, mult, strict=True) if bm25.present[c]}


def lexical_query(query: Mapping[str, float]) -> dict[int, float]:
    """bge-m3 query weights keyed by token id ("5" and 5 name the same token, as in LexicalIndex)."""
    out: dict[int, float] = {}
    for token, weight in query.items():
        tid = int(token)
        if 0 <= tid < EMPTY_SLOT and weight:
            out[tid] = out.get(tid, 0.0) + float(weight)
    return out
