"""BM25 (Okapi, exactly as rank-bm25's `BM25Okapi`) scored through a sparse matrix.

rank-bm25 loops over every document for every query term (~130 ms per query at 50k chunks).
The scores depend only on (document, term), so we precompute them once into a CSC matrix
W[d, t] = idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)); a query is then the
sum of a few columns. The tests check the scores against rank-bm25 itself.

Also here: `LexicalIndex`, the same trick for bge-m3's learned lexical weights (a dot
product between the query's and each chunk's token weights).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from quest.retrieval.scatter import add_at
from quest.retrieval.scopes import RowOrder, scope_of, scope_sums


class BM25Index:
    """Term-frequency matrix plus vocabulary; scoring weights derived on construction."""

    def __init__(self, tf: sp.csr_matrix, vocab: Mapping[str, int], *, k1: float = 1.5, b: float = 0.75,
                 epsilon: float = 0.25) -> None:
        self.tf = tf.tocsr().astype(np.float32)
        self.vocab = dict(vocab)
        self.k1, self.b, self.epsilon = k1, b, epsilon
        self._prepare()

    # ------------------------------------------------------------------ building

    @classmethod
    def from_tokens(cls, corpus: Iterable[Sequence[str]], **params: float) -> BM25Index:
        vocab: dict[str, int] = {}
        tf = _tf_matrix(corpus, vocab)
        return cls(tf, vocab, **params)

    def with_rows(self, keep: np.ndarray, new_tokens: Sequence[Sequence[str]]) -> BM25Index:
        """A new index with the rows `keep` of this one followed by `new_tokens` (for updates)."""
        vocab = dict(self.vocab)
        new_tf = _tf_matrix(new_tokens, vocab)
        old = self.tf[np.asarray(keep, dtype=np.int64)]
        old.resize((old.shape[0], len(vocab)))
        new_tf.resize((new_tf.shape[0], len(vocab)))
        return BM25Index(sp.vstack([old, new_tf], format="csr"), vocab, k1=self.k1, b=self.b,
                         epsilon=self.epsilon)

    def _prepare(self) -> None:
        n_docs = self.tf.shape[0]
        self.size = n_docs
        self.vocab_size = self.tf.shape[1]
        self.doc_len = np.asarray(self.tf.sum(axis=1)).ravel()
        self.avgdl = float(self.doc_len.mean()) if n_docs else 0.0
        # Document frequency: every stored entry of a CSR row is a distinct term (no CSC copy needed).
        df = np.bincount(self.tf.indices, minlength=self.vocab_size)[: self.vocab_size]
        present = df > 0
        idf = np.zeros(self.vocab_size, dtype=np.float64)
        # Same formula and negative-idf floor as rank_bm25.BM25Okapi._calc_idf, in float64.
        idf[present] = np.log(n_docs - df[present] + 0.5) - np.log(df[present] + 0.5)
        self.average_idf = float(idf[present].mean()) if present.any() else 0.0
        idf[present & (idf < 0)] = self.epsilon * self.average_idf
        self.idf = idf
        self.present = present
        if n_docs == 0 or self.avgdl == 0:
            self.weights = sp.csc_matrix((n_docs, self.vocab_size), dtype=np.float32)
            return
        tf = self.tf
        rows = np.repeat(np.arange(n_docs, dtype=np.int64), np.diff(tf.indptr))
        norm = self.k1 * (1 - self.b + self.b * self.doc_len[rows] / self.avgdl)
        data = idf[tf.indices] * (tf.data * (self.k1 + 1) / (tf.data + norm))
        # Built in CSR with the tf matrix's own structure, then one conversion to CSC.
        self.weights = sp.csr_matrix((data.astype(np.float32), tf.indices, tf.indptr), shape=tf.shape).tocsc()

    # ------------------------------------------------------------------ scoring

    def query_vector(self, tokens: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Column ids and their multiplicities (a repeated query term counts again, as in rank-bm25)."""
        counts = Counter(self.vocab[t] for t in tokens if t in self.vocab)
        cols = np.fromiter(counts.keys(), dtype=np.int64, count=len(counts))
        mult = np.fromiter(counts.values(), dtype=np.float32, count=len(counts))
        return cols, mult

    def scores(self, tokens: Sequence[str]) -> np.ndarray:
        """BM25 score of every row for the query tokens."""
        cols, mult = self.query_vector(tokens)
        if cols.size == 0 or self.size == 0:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(self.weights[:, cols] @ mult).ravel()

    def term_scores_for(self, tokens: Sequence[str], rows: np.ndarray) -> np.ndarray:
        """Each token's own BM25 contribution for each of `rows`: a rows x tokens matrix."""
        rows = np.asarray(rows, dtype=np.int64)
        out = np.zeros((rows.size, len(tokens)), dtype=np.float32)
        known = [(j, self.vocab[t]) for j, t in enumerate(tokens) if t in self.vocab]
        if known and rows.size and self.size:
            cols = [col for _, col in known]
            out[:, [j for j, _ in known]] = self.weights[:, cols][rows].toarray()
        return out

    def max_score(self, tokens: Sequence[str]) -> float:
        """An upper bound of any row's score, used to turn scores into a 0..1 confidence.

        Each term contributes at most idf * (k1 + 1). Terms the base has never seen count with
        the average idf: a question mostly about things the base does not know is, rightly,
        less confidently matched than one whose every word is covered.
        """
        return bm25_bound(self, tokens)

    def search(self, tokens: Sequence[str], k: int, rows: np.ndarray | None = None) -> list[tuple[int, float]]:
        """Top-k (row, score) with score > 0, optionally among `rows` only."""
        scores = self.scores(tokens)
        return top_k(scores, k, rows)


HALF_MAX = float(np.finfo(np.float16).max)


def stored_weights(data: np.ndarray) -> np.ndarray:
    """Lexical weights as float16 when every one fits (bge-m3's are ReLU outputs below 1), else float32.

    A query reads its tokens' postings, 4 bytes of row and 4 of weight each; 2 bytes of weight make
    those pages a quarter fewer (issue 14's memory budget). Rounding to float16 is a relative change
    of at most 2**-11 per weight, so a score moves by at most that share: rows whose scores differ by
    less may swap places (docs/bench/scale-1m-sparse). Weights are rounded once, when an index is
    built, so a built index and the same index saved and loaded score alike.
    """
    data = np.asarray(data)
    if data.dtype == np.float16:
        return data
    if data.size == 0 or bool(np.isfinite(data).all() and float(np.abs(data).max()) <= HALF_MAX):
        return data.astype(np.float16)
    return data.astype(np.float32)


class Postings:
    """A sparse matrix by column (CSC arrays) that scipy need not accept: float16 values are fine.

    scipy.sparse refuses float16, and scoring only ever reads a column's slice of the three arrays
    (upcast to float32 per query term), so the lexical weights are kept as plain arrays.
    """

    def __init__(self, indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, shape: tuple[int, int]) -> None:
        self.indptr, self.indices, self.data = indptr, indices, data
        self.shape = (int(shape[0]), int(shape[1]))

    @property
    def nnz(self) -> int:
        return int(self.indptr[-1])

    @classmethod
    def of(cls, csc: sp.csc_matrix) -> Postings:
        """A scipy CSC matrix's arrays, its values as `stored_weights` keeps them."""
        return cls(csc.indptr, csc.indices, stored_weights(csc.data), csc.shape)

    def to_scipy(self) -> sp.csc_matrix:
        """The same matrix as scipy CSC with float32 values (a copy of the values only)."""
        csc = sp.csc_matrix((np.asarray(self.data, dtype=np.float32), self.indices, self.indptr), shape=self.shape)
        csc.has_sorted_indices = True
        return csc


class LexicalIndex:
    """bge-m3 lexical weights: chunk x token-id matrix; score = sum of shared tokens' weight products.

    Kept by token (`csc`, Postings: for each token id, the rows holding it and their weights, float16
    when they fit: `stored_weights`), which is all a query reads; the arrays may be memory-mapped
    (store.py), so only the postings of the query's tokens become resident. Rows sit at their
    positions in the segment's scope `order` (scopes.py), so a scope's postings are contiguous; scores
    are always given by row. Rows (`matrix`, CSR, in row order) are derived on demand, for compaction.
    """

    def __init__(self, matrix: sp.spmatrix, order: RowOrder | None = None) -> None:
        """`matrix` has its rows in row order; they are stored at their positions in `order`."""
        self.order = order if order is not None else RowOrder()
        csc = self.order.to_positions(sp.csc_matrix(matrix, dtype=np.float32))
        csc.sort_indices()
        self.csc = Postings.of(csc)
        self.size = csc.shape[0]

    @classmethod
    def from_columns(cls, indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, shape: tuple[int, int],
                     order: RowOrder | None = None) -> LexicalIndex:
        """Wrap stored CSC arrays (rows at their positions in `order`, sorted) as they are: no copy, no scan."""
        index = cls.__new__(cls)
        index.order = order if order is not None else RowOrder()
        index.csc = Postings(indptr, indices, data, shape)
        index.size = index.csc.shape[0]
        return index

    def placed(self, order: RowOrder) -> LexicalIndex:
        """These weights, whose rows are already positions in `order` (built from a segment's postings)."""
        return LexicalIndex.from_columns(self.csc.indptr, self.csc.indices, self.csc.data, self.csc.shape, order)

    def in_order(self, order: RowOrder) -> LexicalIndex:
        """The same weights stored in `order` (itself when already so)."""
        if self.order is order or (self.order.identity and order.identity):
            return self
        return LexicalIndex(self.matrix, order)

    @property
    def matrix(self) -> sp.csr_matrix:
        """A row-major float32 copy of every weight, built on each access: take it once per operation, never per row."""
        return self.order.to_rows(self.csc.to_scipy()).tocsr()

    @classmethod
    def from_weights(cls, weights: Sequence[Mapping[str, float]], vocab_size: int | None = None) -> LexicalIndex:
        lengths = np.fromiter((len(w) for w in weights), dtype=np.int64, count=len(weights))
        total = int(lengths.sum())
        cols = np.fromiter((int(t) for w in weights for t in w), dtype=np.int64, count=total)
        data = np.fromiter((float(v) for w in weights for v in w.values()), dtype=np.float32, count=total)
        indptr = np.zeros(len(weights) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        width = max(vocab_size or 0, int(cols.max()) + 1 if total else 1)
        matrix = sp.csr_matrix((data, cols, indptr), shape=(len(weights), width))
        matrix.sum_duplicates()  # "5" and 5 name the same token
        return cls(matrix)

    def with_rows(self, keep: np.ndarray, new_weights: Sequence[Mapping[str, float]]) -> LexicalIndex:
        new = LexicalIndex.from_weights(new_weights, vocab_size=self.csc.shape[1]).matrix
        old = self.matrix[np.asarray(keep, dtype=np.int64)]
        width = max(old.shape[1], new.shape[1])
        old.resize((old.shape[0], width))
        new.resize((new.shape[0], width))
        return LexicalIndex(sp.vstack([old, new], format="csr"))

    def scores(self, query: Mapping[str, float]) -> np.ndarray:
        out = np.zeros(self.size, dtype=np.float32)  # by position, laid out by row at the end (as BM25's)
        indptr, indices, data = self.csc.indptr, self.csc.indices, self.csc.data
        for col, weight in self._items(query):
            lo, hi = int(indptr[col]), int(indptr[col + 1])
            if hi > lo:
                at = np.asarray(indices[lo:hi])
                if at[0] < 0 or at[-1] >= self.size:  # sorted when written: the ends bound the rest
                    raise ValueError("lexical weights name rows the index does not have")
                add_at(out, at, np.asarray(data[lo:hi], dtype=np.float32) * weight)  # distinct positions
        return self.order.by_row(out)

    def weight_bound(self, col: int, weight: float) -> float:
        """An upper bound of |weight x any stored weight of column `col`| (maxscore.py): from the stored per-column
        maxima (bounds.py), else the column's own maximum, read once and kept (an index written before them)."""
        stored = getattr(self, "max_abs", None)
        if stored is not None and col < stored.size:
            return abs(float(weight)) * float(stored[col])
        kept = self.__dict__.setdefault("_column_max", {})
        if col not in kept:
            lo, hi = int(self.csc.indptr[col]), int(self.csc.indptr[col + 1])
            kept[col] = float(np.abs(np.asarray(self.csc.data[lo:hi], dtype=np.float32)).max()) if hi > lo else 0.0
        return abs(float(weight)) * kept[col]

    def _items(self, query: Mapping[str, float]) -> list[tuple[int, np.float32]]:
        width = self.csc.shape[1]
        return [(int(t), np.float32(w)) for t, w in query.items() if 0 <= int(t) < width]

    def search(self, query: Mapping[str, float], k: int, rows: np.ndarray | None = None) -> list[tuple[int, float]]:
        return top_k(self.scores(query), k, rows)

    def scores_for(self, query: Mapping[str, float], rows: np.ndarray, kernel: Any | None = None, *,
                   warm: bool = False) -> np.ndarray:
        """`scores(query)[rows]` (distinct rows), reading only the postings of the scope `rows` forms. With `kernel`
        (quest.retrieval.kernels), a scope of exact runs is summed by one compiled call that lets go of the GIL, to the
        same numbers; `warm` makes that call even with no query term (to compile it for these arrays)."""
        runs, back = scope_of(self.order, rows)
        items = self._items(query)
        if kernel is not None and runs.exact and runs.size and (items or warm):
            try:
                acc = kernel.scope_lexical(self.csc.indptr, self.csc.indices, self.csc.data,
                                           [col for col, _ in items], [weight for _, weight in items], runs)
            except IndexError as exc:  # as the whole-base search says it (SegmentedLexical.kernel_lists)
                raise ValueError("lexical weights name rows the index does not have") from exc
        else:
            acc = scope_sums(runs, self.csc, items,
                             lambda values, _, weight: np.asarray(values, dtype=np.float32) * weight)
        if back is None:
            return acc
        out = np.empty_like(acc)
        out[back] = acc
        return out


def positions(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Every position in the ranges [lo, hi), concatenated in order."""
    lo = np.asarray(lo, dtype=np.int64)
    lengths = np.asarray(hi, dtype=np.int64) - lo
    total = int(lengths.sum())
    firsts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    return np.repeat(lo - firsts, lengths) + np.arange(total, dtype=np.int64)


def bm25_bound(model: Any, tokens: Sequence[str]) -> float:
    """Sum over the tokens of idf * (k1 + 1), unseen tokens at the average idf (see BM25Index.max_score).

    `model` is any BM25 with `vocab`, `idf`, `present`, `average_idf` and `k1`: one index or its segments.
    """
    total = 0.0
    for token in tokens:
        col = model.vocab.get(token)
        idf = model.idf[col] if col is not None and model.present[col] else model.average_idf
        total += max(idf, 0.0) * (model.k1 + 1)
    return total


def top_k(scores: np.ndarray, k: int, rows: np.ndarray | None = None) -> list[tuple[int, float]]:
    """Best k positive scores as (row, score), ties by row id; `rows` restricts the candidates."""
    if rows is not None:
        rows = np.asarray(rows, dtype=np.int64)
        return top_k_among(scores[rows], rows, k)
    return top_k_among(scores, None, k)


def top_k_among(sub: np.ndarray, rows: np.ndarray | None, k: int) -> list[tuple[int, float]]:
    """`top_k` over scores already cut to `rows` (sub[i] is the score of rows[i]; rows None: all rows)."""
    positive = np.flatnonzero(sub > 0)
    if positive.size == 0 or k <= 0:
        return []
    if positive.size > k:  # every row tied with the k-th best stays in, so ties go to the lowest row ids
        kth = np.partition(sub[positive], positive.size - k)[positive.size - k]
        positive = positive[sub[positive] >= kth]
    ids = rows[positive] if rows is not None else positive
    vals = sub[positive]
    order = np.lexsort((ids, -vals))[:k]
    return [(int(ids[i]), float(vals[i])) for i in order]


def first_k(values: np.ndarray, k: int, ids: np.ndarray | None = None) -> np.ndarray:
    """Positions of the k highest values (unordered); rows tied at the k-th value are taken by id
    ascending, so the choice does not depend on how the values were laid out (a vector store's
    ranked list, fetched past the tie, picks the same rows)."""
    part = np.argpartition(-values, k - 1)[:k]
    kth = values[part].min()
    above = np.flatnonzero(values > kth)
    tied = np.flatnonzero(values == kth)
    if above.size + tied.size == k:
        return np.concatenate([above, tied])
    keys = ids[tied] if ids is not None else tied
    return np.concatenate([above, tied[np.argsort(keys, kind="stable")][: k - above.size]])


def _tf_matrix(corpus: Iterable[Sequence[str]], vocab: dict[str, int]) -> sp.csr_matrix:
    indptr = [0]
    indices: list[int] = []
    data: list[float] = []
    for tokens in corpus:
        counts = Counter(tokens)
        for term, count in counts.items():
            col = vocab.setdefault(term, len(vocab))
            indices.append(col)
            data.append(count)
        indptr.append(len(indices))
    n_rows = len(indptr) - 1
    return sp.csr_matrix(
        (np.asarray(data, dtype=np.float32), np.asarray(indices, dtype=np.int64), np.asarray(indptr, dtype=np.int64)),
        shape=(n_rows, max(len(vocab), 1)),
    )


def normalized(score: float, bound: float) -> float:
    return 0.0 if bound <= 0 else min(1.0, max(0.0, score / bound))

