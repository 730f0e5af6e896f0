"""The fast BM25 must give rank-bm25's scores exactly (it is our reference implementation)."""

import random

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from quest.retrieval.sparse import BM25Index, LexicalIndex, top_k


def random_corpus(seed: int, n_docs: int = 300, vocab: int = 80) -> list[list[str]]:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(vocab)]
    # Zipf-ish: a few very common words (negative idf in rank-bm25) and a long tail.
    return [[words[min(int(rng.paretovariate(1.2)) - 1, vocab - 1)] for _ in range(rng.randint(0, 40))]
            for _ in range(n_docs)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_scores_match_rank_bm25(seed):
    corpus = random_corpus(seed)
    corpus[0] = ["only", "here"]
    reference = BM25Okapi(corpus)
    ours = BM25Index.from_tokens(corpus)
    rng = random.Random(seed + 100)
    queries = [["w0"], ["w1", "w1", "w5"], ["only", "missing"], ["nothing", "known"], []]
    queries += [[f"w{rng.randint(0, 90)}" for _ in range(rng.randint(1, 6))] for _ in range(30)]
    for q in queries:
        np.testing.assert_allclose(ours.scores(q), reference.get_scores(q), rtol=1e-5, atol=1e-5)


def test_with_rows_equals_a_fresh_build():
    corpus = random_corpus(7, n_docs=60)
    extra = [["brand", "new", "w1"], ["w2", "w2"]]
    keep = np.arange(0, 60, 2)
    updated = BM25Index.from_tokens(corpus).with_rows(keep, extra)
    fresh_corpus = [corpus[i] for i in keep] + extra
    reference = BM25Okapi(fresh_corpus)
    for q in (["w1"], ["brand", "w2"], ["w3", "w0"]):
        np.testing.assert_allclose(updated.scores(q), reference.get_scores(q), rtol=1e-5, atol=1e-5)


def test_search_restricted_to_rows_and_positive_only():
    index = BM25Index.from_tokens([["a", "b"], ["a"], ["c"], ["a", "a", "x"]])
    everywhere = index.search(["a"], 10)
    assert {row for row, _ in everywhere} == {0, 1, 3}
    restricted = index.search(["a"], 10, rows=np.array([2, 3]))
    assert [row for row, _ in restricted] == [3]


def test_max_score_bounds_every_score_and_counts_unknown_words():
    corpus = random_corpus(11)
    index = BM25Index.from_tokens(corpus)
    q = ["w0", "w3", "w3"]
    assert index.scores(q).max() <= index.max_score(q)
    assert index.max_score([*q, "never-seen"]) > index.max_score(q)


def test_top_k_breaks_ties_by_row():
    assert top_k(np.array([0.5, 1.0, 0.5, 0.0]), 3) == [(1, 1.0), (0, 0.5), (2, 0.5)]
    assert top_k(np.array([0.0, 0.0]), 3) == []


def test_lexical_scores_are_dot_products():
    index = LexicalIndex.from_weights([{"5": 0.5, "7": 0.2}, {"7": 1.0}, {}])
    stored_02 = float(np.float16(0.2))  # weights are kept as float16: 0.2 is 0.199951171875
    assert stored_02 == 0.199951171875
    np.testing.assert_array_equal(index.scores({"7": 0.5, "999": 1.0}), np.float32([stored_02 * 0.5, 0.5, 0.0]))
    np.testing.assert_array_equal(index.scores_for({"7": 0.5, "5": 2.0}, np.array([0, 2])),
                                  [np.float32(stored_02 * 0.5) + np.float32(1.0), 0.0])
    grown = index.with_rows(np.array([1]), [{"3": 1.0}])
    np.testing.assert_allclose(grown.scores({"3": 2.0, "7": 1.0}), [1.0, 2.0])
