"""The general documents' scope is located once and reused; every score stays the full scan's."""

from __future__ import annotations

import numpy as np

from tests.retrieval.test_segments import segmented
from tests.retrieval.test_sparse import random_corpus


def read_only(rows: np.ndarray) -> np.ndarray:
    rows = np.asarray(rows, dtype=np.int64)
    rows.flags.writeable = False
    return rows


def test_a_large_read_only_scope_is_located_once_and_scores_as_the_full_scan():
    corpus = random_corpus(3, n_docs=300)
    index = segmented([corpus[:200], corpus[200:250], corpus[250:]], {7, 120, 260})
    general = read_only(np.concatenate([np.arange(150, 230), np.arange(255, 270)]))  # 95 rows, 3 segments
    located = index._segment_scopes(general)
    assert index._segment_scopes(general) is located  # kept, by identity
    queries = [["w0"], ["w1", "w1", "w5"], ["w2", "w3", "w9", "never-seen"], []]
    for query in queries * 2:
        np.testing.assert_array_equal(index.scores_for(query, general), index.scores(query)[general])
        words = index.term_scores_for(query, general)  # each word's column alone, through the kept scope
        for j, word in enumerate(query):
            np.testing.assert_array_equal(words[:, j], index.scores([word])[general])
    assert index._segment_scopes(general) is located


def test_writeable_or_small_scopes_are_not_kept():
    corpus = random_corpus(4, n_docs=300)
    index = segmented([corpus], set())
    writeable = np.arange(0, 100)
    index.scores_for(["w0"], writeable)
    assert index._shared_scope is None  # an array that may change is never trusted by identity
    small = read_only(np.arange(10, 14))  # under 1/SHARED_SCOPE of the rows: one problem's, not kept
    index.scores_for(["w0"], small)
    assert index._shared_scope is None
    general = read_only(np.arange(0, 100))
    index.scores_for(["w0"], general)
    assert index._shared_scope[0] is general
    other = read_only(np.arange(100, 200))  # another large scope replaces it; each scores as the full scan
    np.testing.assert_array_equal(index.scores_for(["w1", "w0"], other), index.scores(["w1", "w0"])[other])
    assert index._shared_scope[0] is other
    np.testing.assert_array_equal(index.scores_for(["w1", "w0"], general), index.scores(["w1", "w0"])[general])
