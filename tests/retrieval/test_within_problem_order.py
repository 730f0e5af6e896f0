"""Inside a named problem, the words that tell its documents apart order them, not the words they share."""

from __future__ import annotations

import random

import numpy as np
import pytest

from quest.plan import plan, retrieve
from quest.request import Request
from quest.retrieval.retriever import Retriever, build_retriever
from quest.retrieval.sparse import BM25Index
from quest.retrieval.within import WithinProblem, local_idf, term_scores
from tests.retrieval.test_segments import segmented
from tests.retrieval.test_sparse import random_corpus


def within_order(bm25, tokens, rows, docs, found):
    """One part's `found` rows in the order WithinProblem gives them."""
    return WithinProblem(bm25, rows, docs, tokens).order(tokens, found)


# A second error pattern for 239 (the small base has the pop(0) one): a slice copied for every window.
# Short on the problem's own words, which the pop(0) pattern repeats.
SLICE_DOC = (
    "---\nid: p239-error-slice-en\nproblem_id: 239\nkind: error_pattern\nlang: en\n"
    "title: Sliding Window Maximum - a slice of every window makes it TLE\nverdicts: [TLE]\nlanguages: [python]\n"
    "---\n## The slow attempt\n\nA list comprehension that takes the slice nums[i:i + k] of every window and "
    "calls max on it.\n\n## Why it is slow\n\nEach slice copies the k numbers of the window before max reads "
    "them again: O(nk) in all, Time Limit Exceeded on the large tests.\n")
SLICE_QUESTION = "sliding window maximum: I take the max of a slice for every window and it is too slow, why?"
POP_QUESTION = ("sliding window maximum: I keep the window in a list and pop(0) the oldest number each step, "
                "why is it slow?")


@pytest.fixture
def retriever(settings, kb_dir) -> Retriever:
    (kb_dir / "docs" / "p239-error-slice.md").write_text(SLICE_DOC, encoding="utf-8")
    return build_retriever(settings.replace(embedding_model="none"))


def first(retriever: Retriever, question: str) -> str:
    found = retrieve(retriever, plan(Request(question=question, problem_id="239"), retriever))[1]
    return found.hits[0].chunk.doc_id


def test_a_question_about_slicing_each_window_gets_the_slice_pattern_first(retriever):
    assert first(retriever, SLICE_QUESTION) == "p239-error-slice-en"


def test_a_question_about_pop0_gets_the_pop0_pattern_first(retriever):
    assert first(retriever, POP_QUESTION) == "p239-error-pop0-en"


def test_the_setting_switches_the_within_problem_order_off(retriever):
    off = Retriever(retriever.settings.replace(within_idf=False), retriever.index, retriever.kb)
    assert first(off, POP_QUESTION) == "p239-error-pop0-en"  # the whole base's BM25 still ranks


# ---------------------------------------------------------------- the order itself, on a hand-made base

# Rows 0-2 are one problem's documents: all three say "window" (the problem's word), one also says
# "pop", one "slice". Rows 3-9 are other problems', where "window" is rare and "slice" and "pop" are
# common: the whole base's idf makes "window" the weightiest word of the problem.
ROWS = [
    ["window", "window", "window", "window", "max", "pop", "list"],  # 0: the pop(0) pattern, window x4
    ["window", "max", "slice", "copy"],  # 1: the slice pattern
    ["window", "deque", "index", "front"],  # 2: the official solution
    *[["two", "sum", "hash", "map", "pop", "slice"], ["binary", "search", "mid", "slice"], ["dp", "table", "slice"],
      ["graph", "bfs", "queue", "pop"], ["heap", "push", "pop"], ["string", "slice", "index"],
      ["tree", "depth", "list"]],
]
PROBLEM = np.array([0, 1, 2])


@pytest.fixture
def bm25() -> BM25Index:
    return BM25Index.from_tokens(ROWS)


def test_the_whole_bases_idf_lets_the_shared_word_decide(bm25):
    query = ["window", "window", "max", "slice"]
    scores = bm25.scores(query)[PROBLEM]
    assert int(np.argmax(scores)) == 0  # the pattern that repeats "window" most, not the one about slicing


def test_the_problems_own_idf_lets_the_distinctive_word_decide(bm25):
    query = ["window", "window", "max", "slice"]
    assert within_order(bm25, query, PROBLEM, np.array([10, 11, 12]), [0, 1, 2]) == [1, 0, 2]
    assert within_order(bm25, ["window", "pop", "list"], PROBLEM, np.array([10, 11, 12]), [1, 0, 2]) == [0, 1, 2]


def test_only_the_rows_the_part_matched_are_reordered(bm25):
    assert within_order(bm25, ["window", "slice"], PROBLEM, np.array([10, 11, 12]), [2, 0]) == [0, 2]
    assert within_order(bm25, ["window"], PROBLEM, np.array([10, 11, 12]), []) == []


def test_a_document_and_its_chunks_count_once_in_the_problems_idf(bm25):
    # Rows 0 and 1 as two chunks of one document: "window" is then in 2 of 2 documents, "slice" in 1 of 2.
    assert within_order(bm25, ["window", "window", "max", "slice"], PROBLEM, np.array([10, 10, 12]),
                        [0, 1, 2]) == [1, 0, 2]
    assert local_idf(2, 2) == pytest.approx(np.log(1 + 0.5 / 2.5))


def test_the_problems_idf_is_never_negative_and_falls_with_use():
    values = [local_idf(df, 6) for df in range(1, 7)]
    assert values == sorted(values, reverse=True)
    assert values[-1] == pytest.approx(np.log(1 + 0.5 / 6.5)) and values[-1] > 0


# ---------------------------------------------------------------- each word's own contribution, in one call


@pytest.mark.parametrize("seed", [1, 2])
def test_each_words_contribution_is_its_own_bm25_column_in_both_index_kinds(seed):
    corpus = random_corpus(seed, n_docs=120)
    corpus[7] = ["window", "slice", "window"]
    rng = random.Random(seed)
    dead = set(rng.sample(range(120), 15)) - {7}
    indexes = [BM25Index.from_tokens(corpus), segmented([corpus[:80], corpus[80:]], dead)]
    words = ["window", "slice", "w3", "w3", "never-seen", "w10"]
    rows = np.asarray(sorted({7, *rng.sample(range(120), 30)}))
    for index in indexes:
        matrix = index.term_scores_for(words, rows)
        assert matrix.shape == (rows.size, len(words))
        for j, word in enumerate(words):
            np.testing.assert_allclose(matrix[:, j], index.scores([word])[rows], rtol=1e-6, atol=1e-6)
        assert not matrix[:, words.index("never-seen")].any()
        # The same numbers the per-word fallback (an index with scores_for only) computes.
        fallback = term_scores(_ScoresForOnly(index), words, rows)
        np.testing.assert_allclose(fallback, matrix, rtol=1e-6, atol=1e-6)


class _ScoresForOnly:
    """An index that offers `scores_for` but not `term_scores_for` (a store's adapter, say)."""

    def __init__(self, index) -> None:
        self._index = index

    def scores_for(self, tokens, rows):
        return self._index.scores(tokens)[rows]
