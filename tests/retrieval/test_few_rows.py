"""`SegmentedBM25.scores_for` over a few rows (round 17c: each row looked up in each term's postings) gives exactly
the scope-runs path's sums and `scores(tokens)[rows]`, bit for bit: over a base, two deltas and deleted rows, rows
in any order, across segments, deleted ones included, a row given twice (left to the general path), no row."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from quest.retrieval.segments import FEW_ROWS
from tests.retrieval.test_segments import segmented
from tests.retrieval.test_sparse import random_corpus

CORPUS = random_corpus(7, n_docs=240)
PARTS = [CORPUS[:150], CORPUS[150:190], CORPUS[190:]]  # a base and two deltas
DEAD = set(random.Random(7).sample(range(240), 40))


def pair():
    fast, runs = segmented(PARTS, DEAD), segmented(PARTS, DEAD)
    runs.few_rows = 0  # every call through the scope runs, as before round 17c
    return fast, runs


FAST, RUNS = pair()
words = st.sampled_from([f"w{i}" for i in range(95)] + ["nothing"])


@settings(max_examples=300, deadline=None)
@given(tokens=st.lists(words, max_size=8), rows=st.lists(st.integers(0, 239), max_size=FEW_ROWS + 4))
def test_a_few_rows_score_exactly_as_the_scope_runs_and_the_full_scores(tokens, rows):
    at = np.asarray(rows, dtype=np.int64)
    got = FAST.scores_for(tokens, at)
    assert got.dtype == np.float32
    assert got.tolist() == RUNS.scores_for(tokens, at).tolist()
    if len(set(rows)) == len(rows):  # scores_for is for distinct rows
        assert got.tolist() == FAST.scores(tokens)[at].tolist()


def test_the_lookup_is_taken_for_a_few_distinct_rows_only(monkeypatch):
    """Distinct rows within the limit never reach the scope runs; a repeated row or more rows do."""
    calls: list[int] = []
    real = type(FAST)._segment_scopes

    def recording(self, rows):
        calls.append(rows.size)
        return real(self, rows)

    monkeypatch.setattr(type(FAST), "_segment_scopes", recording)
    tokens = ["w1", "w2", "w3"]
    FAST.scores_for(tokens, np.asarray([3, 160, 200, 5]))
    assert calls == []
    FAST.scores_for(tokens, np.asarray([3, 3]))
    FAST.scores_for(tokens, np.arange(FEW_ROWS + 1))
    assert calls == [2, FEW_ROWS + 1]
