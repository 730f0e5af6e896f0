"""The order of a named problem's own documents: the words that tell them apart, not the ones they share.

Every document of one problem repeats its title, its technique and, in its error patterns, the
verdict they explain ("滑动窗口", "最大值", "deque", "TLE"). Weighed with the whole base's idf those
words are rare, so they weigh the most, and which of the problem's documents led was decided by which
one repeats them most often: the pattern about `pop(0)` led a question about slicing each window.
Inside the problem a word is worth what it says about one of its documents, so each word's BM25
contribution is also scaled by its idf among the problem's own documents: "切片", "pop", "static"
order them, "滑动窗口" does not. The whole base's BM25 still decides the floor (confidence); only
the order of the rows a part already matched changes.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np


def local_idf(df: int, n: int) -> float:
    """A word's idf among the `n` documents of one problem, `df` of which use it.

    Lucene's form, log(1 + (n - df + 0.5) / (df + 0.5)): never negative, so a word every document
    uses weighs little but a part that matched only such words still keeps its order.
    """
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def within_order(bm25: Any, tokens: Sequence[str], rows: np.ndarray, docs: np.ndarray,
                 found: Sequence[int]) -> list[int]:
    """`found` (rows that one part matched, in its order) reordered by that part's BM25 with each word's
    contribution scaled by its idf among the problem's documents.

    `rows` are the problem's rows and `docs` their documents (one code per row, aligned with `rows`).
    A document and its translation count as two (merging them measured lower best@1 on the development
    splits).
    """
    if not found or rows.size == 0:
        return list(found)
    scored = getattr(bm25, "scores_for", None)
    n = np.unique(docs).size
    total = np.zeros(rows.size)
    for token, times in Counter(tokens).items():
        column = np.asarray(scored([token], rows) if scored is not None else bm25.scores([token])[rows],
                            dtype=np.float64)
        used = column > 0
        if used.any():
            total += times * local_idf(np.unique(docs[used]).size, n) * column
    by_row = dict(zip(rows.tolist(), total.tolist(), strict=True))
    return sorted(found, key=lambda row: -by_row.get(row, 0.0))  # stable: ties keep the part's own order
