"""The order of a named problem's own documents: the words that tell them apart, not the ones they share.

Every document of one problem repeats its title, its technique and, in its error patterns, the
verdict they explain ("滑动窗口", "最大值", "deque", "TLE"). Weighed with the whole base's idf those
words are rare, so they weigh the most, and which of the problem's documents led was decided by which
one repeats them most often: the pattern about `pop(0)` led a question about slicing each window.
Inside the problem a word is worth what it says about one of its documents, so each word's BM25
contribution is also scaled by its idf among the problem's own documents: "切片", "pop", "static"
order them, "滑动窗口" does not. The whole base's BM25 still decides the floor (confidence); only
the order of the rows a part already matched changes.

It applies however the problem was named. Applied only when the problem field named it (not when the
question's text did), BM25 only, issue 9 round 7: tuning `no_field` R@1 0.84 -> 0.88, but development
fresh 1.00 -> 0.92, Dec 0.95 -> 0.80, round 4 best@1 0.69 -> 0.62 (round 7 unchanged) - so it stays.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np


def local_idf(df: Any, n: int) -> Any:
    """A word's idf among the `n` documents of one problem, `df` of which use it (a number or an array).

    Lucene's form, log(1 + (n - df + 0.5) / (df + 0.5)): never negative, so a word every document
    uses weighs little but a part that matched only such words still keeps its order.
    """
    return np.log1p((n - np.asarray(df, dtype=np.float64) + 0.5) / (np.asarray(df, dtype=np.float64) + 0.5))


class WithinProblem:
    """The BM25 contribution of each word of a query to each of one problem's rows, with each word's
    idf among the problem's documents: computed once per search for the words of every part."""

    def __init__(self, bm25: Any, rows: np.ndarray, docs: np.ndarray, words: Sequence[str],
                 kernel: Any | None = None) -> None:
        """`rows` are the problem's rows and `docs` their documents (one code per row, aligned with `rows`);
        `kernel`: the compiled scope sums to read the words' weights with (quest.retrieval.kernels), or None.

        A document and its translation count as two (merging them measured lower best@1 on the
        development splits)."""
        self.rows = np.asarray(rows, dtype=np.int64)
        self.words = {w: j for j, w in enumerate(dict.fromkeys(words))}
        self.matrix = term_scores(bm25, list(self.words), self.rows, kernel).astype(np.float64)
        codes, per_row = np.unique(np.asarray(docs), return_inverse=True)
        # Per document, whether any of its rows uses each word: one assignment over the rows that do
        # (np.add.at counting them was a third of the fusion stage at 1M chunks: docs/bench/scale-1m-fusion).
        used_rows, used_words = np.nonzero(self.matrix > 0)
        used = np.zeros((codes.size, len(self.words)), dtype=bool)
        used[per_row.ravel()[used_rows], used_words] = True
        self.idf = local_idf(used.sum(axis=0), codes.size)
        self._at = {row: i for i, row in enumerate(self.rows.tolist())}  # row -> its index in `rows`, for every part

    def order(self, tokens: Sequence[str], found: Sequence[int]) -> list[int]:
        """`found` (rows one part matched, in its order) reordered by that part's BM25 with each word's
        contribution scaled by its idf among the problem's documents."""
        if not found or self.rows.size == 0:
            return list(found)
        weights = np.zeros(len(self.words))
        for token, times in Counter(tokens).items():
            j = self.words.get(token)
            if j is not None:
                weights[j] += times * self.idf[j]
        scores = (self.matrix @ weights).tolist()
        at = self._at
        # Stable: ties keep the part's own order.
        return sorted(found, key=lambda row: -(scores[at[row]] if row in at else 0.0))


def term_scores(bm25: Any, words: Sequence[str], rows: np.ndarray, kernel: Any | None = None) -> np.ndarray:
    """rows x words: each word's own BM25 contribution, in one call where the index offers it (by `kernel`'s
    compiled scope sums when given)."""
    if hasattr(bm25, "term_scores_for"):
        if kernel is not None:
            return np.asarray(bm25.term_scores_for(words, rows, kernel))
        return np.asarray(bm25.term_scores_for(words, rows))
    scored = getattr(bm25, "scores_for", None)
    columns = [scored([w], rows) if scored is not None else bm25.scores([w])[rows] for w in words]
    return np.stack(columns, axis=1) if columns else np.zeros((rows.size, 0))

