"""The named-problem path's faster computations give exactly what the straightforward ones give.

docs/bench/scale-1m-fusion: the within-problem order counted word use with np.add.at and built a dict
of the problem's rows per part; each word's column was scored apart from the query's own scoring;
one problem's term weights pushed the general documents' out of the BM25 cache; and numpy's
searchsorted copied every unaligned (memory-mapped from an .npz) posting list before searching it.
Each replacement is checked here against the computation it replaced, for equality, not closeness.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

import quest.retrieval.segments as segments_module
from quest.retrieval.scopes import ScopeRuns, sorted_cuts
from quest.retrieval.sparse import BM25Index
from quest.retrieval.within import WithinProblem, local_idf, term_scores
from tests.retrieval.test_segments import segmented
from tests.retrieval.test_sparse import random_corpus

# ---------------------------------------------------------------- the within-problem order


def reference_idf(matrix: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """The order's idf as it was first written: rows counted per document with np.add.at."""
    codes, per_row = np.unique(np.asarray(docs), return_inverse=True)
    counts = np.zeros((codes.size, matrix.shape[1]))
    np.add.at(counts, per_row.ravel(), matrix > 0)
    return local_idf((counts > 0).sum(axis=0), codes.size)


def reference_order(within: WithinProblem, tokens: list[str], found: list[int]) -> list[int]:
    """`WithinProblem.order` as it was first written: a dict of every row's score per part."""
    if not found or within.rows.size == 0:
        return list(found)
    weights = np.zeros(len(within.words))
    for token, times in Counter(tokens).items():
        j = within.words.get(token)
        if j is not None:
            weights[j] += times * within.idf[j]
    by_row = dict(zip(within.rows.tolist(), (within.matrix @ weights).tolist(), strict=True))
    return sorted(found, key=lambda row: -by_row.get(row, 0.0))


def indexes(seed: int, n_docs: int = 160):
    corpus = random_corpus(seed, n_docs=n_docs)
    dead = set(random.Random(seed).sample(range(n_docs), 12))
    return [BM25Index.from_tokens(corpus), segmented([corpus[: n_docs // 2], corpus[n_docs // 2:]], dead)]


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_the_problems_idf_and_order_equal_the_straightforward_computation(seed):
    rng = random.Random(seed)
    for bm25 in indexes(seed):
        rows = np.asarray(sorted(rng.sample(range(bm25.size), 60)))
        docs = np.asarray([rng.randrange(15) for _ in rows])  # several chunks per document
        parts = [[f"w{rng.randrange(30)}" for _ in range(rng.randint(1, 9))] for _ in range(3)]
        within = WithinProblem(bm25, rows, docs, [t for p in parts for t in p])
        np.testing.assert_array_equal(within.idf, reference_idf(within.matrix, docs))
        for tokens in parts:
            found = [*rng.sample(rows.tolist(), 25), bm25.size + 7]  # a row outside the problem scores 0
            assert within.order(tokens, found) == reference_order(within, tokens, found)


# ---------------------------------------------------------------- each word's column, from the cache or not


@pytest.mark.parametrize("seed", [1, 2])
def test_each_words_column_is_exactly_its_own_scores_cold_and_from_the_cache(seed, monkeypatch):
    monkeypatch.setattr(segments_module, "CACHE_FROM_ROWS", 1)  # every exact scope is cached
    corpus = random_corpus(seed, n_docs=200)
    index = segmented([corpus[:120], corpus[120:]], {3, 50, 140})
    words = ["w0", "w1", "w2", "w7", "w19", "never-seen"]
    rows = np.arange(20, 90)  # one run per segment: exact, cacheable
    cold = index.term_scores_for(words, rows)
    assert len(index.cache) + len(index.recent) > 0
    index.scores_for(["w0", "w2", "w2", "w7"], rows)  # the query's own scoring keeps its columns too
    warm = index.term_scores_for(words, rows)
    for j, word in enumerate(words):
        np.testing.assert_array_equal(cold[:, j], index.scores_for([word], rows))
    np.testing.assert_array_equal(warm, cold)
    np.testing.assert_array_equal(term_scores(index, words, rows), cold)


def test_one_problems_scope_is_cached_apart_from_the_general_documents(monkeypatch):
    monkeypatch.setattr(segments_module, "CACHE_FROM_ROWS", 1)
    monkeypatch.setattr(segments_module, "SHARED_SCOPE", 10)  # a scope of 1/10 of the rows or more is shared
    # the scopes go through the scope runs the caches serve, not the few-rows lookup (round 17c) that needs none
    monkeypatch.setattr(segments_module.SegmentedBM25, "few_rows", 0)
    corpus = random_corpus(7, n_docs=300)
    index = segmented([corpus], set())
    query = ["w0", "w1", "w3", "w3"]
    small, large = np.arange(100, 120), np.arange(0, 60)  # 20 rows (1/15), 60 rows (1/5)
    for _ in range(2):  # the second pass reads what the first one kept
        np.testing.assert_array_equal(index.scores_for(query, small), index.scores(query)[small])  # the full scan's
        np.testing.assert_array_equal(index.scores_for(query, large), index.scores(query)[large])
    scope_sizes = {key: key[-3] - key[1] for key in index.cache._entries}  # (segment, start, -1, end, col, coef)
    assert set(scope_sizes.values()) == {60}
    assert {key[-3] - key[1] for key in index.recent._entries} == {20}
    assert index.cache.hits == 3 and index.recent.hits == 3  # three distinct terms, read again once each


# ---------------------------------------------------------------- binary search over unaligned postings


def unaligned(values: np.ndarray) -> np.ndarray:
    """`values` in a buffer that starts one byte off, as an array mapped from inside an .npz often does."""
    raw = np.zeros(values.nbytes + 1, dtype=np.uint8)
    raw[1:] = values.view(np.uint8)
    out = np.frombuffer(raw.data, dtype=values.dtype, count=values.size, offset=1)
    assert not out.flags.aligned
    return out


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint16])
def test_cuts_in_an_unaligned_sorted_array_are_numpys(dtype):
    rng = np.random.default_rng(3)
    values = np.sort(rng.integers(0, 500, 400)).astype(dtype)  # with repeats: the left side matters
    needles = np.concatenate([[0, 499, 500, values[0], values[-1]], rng.integers(0, 520, 40)]).astype(dtype)
    expected = values.searchsorted(needles).tolist()
    assert sorted_cuts(unaligned(values), needles) == expected
    assert sorted_cuts(values, needles) == expected  # aligned: numpy's own
    swapped = values.astype(values.dtype.newbyteorder(">"))  # not native: numpy's own, still right
    assert sorted_cuts(unaligned(swapped), needles) == expected


def test_a_scopes_postings_are_the_same_in_an_unaligned_posting_list():
    positions = np.asarray([3, 4, 5, 6, 40, 41, 42, 90], dtype=np.int64)
    runs = ScopeRuns(positions)
    postings = np.asarray([0, 2, 4, 5, 6, 7, 39, 41, 42, 43, 89, 90, 91], dtype=np.int32)
    indptr = np.asarray([0, 0, postings.size], dtype=np.int64)  # column 0 empty, column 1 the postings
    for col in (0, 1):
        slices, found, at = runs.column(indptr, unaligned(postings), col)
        want_slices, want_found, want_at = runs.column(indptr, postings, col)
        assert slices == want_slices
        np.testing.assert_array_equal(found, want_found)
        np.testing.assert_array_equal(at, want_at)
    assert runs.column(indptr, unaligned(postings), 1)[1].tolist() == [4, 5, 6, 41, 42, 90]
