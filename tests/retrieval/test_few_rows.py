"""`SegmentedBM25.scores_for` over a few rows (round 17c: each row looked up in each term's postings) gives exactly
the scope-runs path's sums and `scores(tokens)[rows]`, bit for bit: over a base, two deltas and deleted rows, rows
in any order, across segments, deleted ones included, a row given twice (left to the general path), no row.

Round 20: up to SCATTERED_ROWS rows spread over more than SCATTERED_RUNS runs (a verdict check's lead rows) are
looked up too, with the same numbers; the binary searches take the positions in the postings' own integer type
(`scopes.sorted_cuts`), so numpy does not convert the whole posting list for each search."""

from __future__ import annotations

import random
import tracemalloc

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from quest.retrieval.scopes import sorted_cuts
from quest.retrieval.segments import FEW_ROWS, SCATTERED_ROWS, SCATTERED_RUNS
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


WIDE = random_corpus(8, n_docs=700)
WIDE_PARTS = [WIDE[:500], WIDE[500:620], WIDE[620:]]
WIDE_DEAD = set(random.Random(8).sample(range(700), 90))
WIDE_FAST, WIDE_RUNS = segmented(WIDE_PARTS, WIDE_DEAD), segmented(WIDE_PARTS, WIDE_DEAD)
WIDE_RUNS.few_rows = 0


@st.composite
def row_sets(draw):
    """Rows as a verdict check gives them (spread, up to past SCATTERED_ROWS), or in a few runs, or with a repeat."""
    shape = draw(st.sampled_from(["spread", "runs", "repeat"]))
    size = draw(st.integers(0, SCATTERED_ROWS + 40))
    rng = random.Random(draw(st.integers(0, 2**32)))
    if shape == "runs":
        rows: list[int] = []
        for _ in range(draw(st.integers(1, SCATTERED_RUNS + 4))):
            start = rng.randrange(700)
            rows += range(start, min(700, start + rng.randint(1, 80)))
        rows = list(dict.fromkeys(rows))
    else:
        rows = rng.sample(range(700), min(size, 600))
        if shape == "repeat" and rows:
            rows.insert(rng.randrange(len(rows) + 1), rng.choice(rows))
    return rows


@settings(max_examples=200, deadline=None)
@given(tokens=st.lists(words, max_size=8), rows=row_sets())
def test_spread_rows_score_exactly_as_the_scope_runs_and_the_full_scores(tokens, rows):
    at = np.asarray(rows, dtype=np.int64)
    got = WIDE_FAST.scores_for(tokens, at)
    assert got.dtype == np.float32
    assert got.view(np.uint32).tolist() == WIDE_RUNS.scores_for(tokens, at).view(np.uint32).tolist()
    if len(set(rows)) == len(rows):
        assert got.tolist() == WIDE_FAST.scores(tokens)[at].tolist()


def test_spread_rows_are_looked_up_and_runs_are_cut(monkeypatch):
    """Past FEW_ROWS: rows in more than SCATTERED_RUNS runs are looked up, rows in fewer runs (a problem's, the
    general documents') and more than SCATTERED_ROWS rows are cut at their runs; `few_rows = 0` still means never."""
    calls: list[int] = []
    real = type(WIDE_FAST)._segment_scopes

    def recording(self, rows):
        calls.append(rows.size)
        return real(self, rows)

    monkeypatch.setattr(type(WIDE_FAST), "_segment_scopes", recording)
    tokens = ["w1", "w2", "w3"]
    spread = np.arange(0, 2 * (FEW_ROWS + 10), 2)  # FEW_ROWS + 10 runs of one row
    WIDE_FAST.scores_for(tokens, spread)
    assert calls == []
    runs = np.concatenate([np.arange(s, s + 20) for s in range(0, 20 * 40 * SCATTERED_RUNS // 20, 40)])
    assert runs.size > FEW_ROWS and np.count_nonzero(np.diff(runs) != 1) + 1 == SCATTERED_RUNS
    WIDE_FAST.scores_for(tokens, runs)
    assert calls == [runs.size]
    many = np.asarray(random.Random(1).sample(range(700), SCATTERED_ROWS + 1))  # spread, but too many
    WIDE_FAST.scores_for(tokens, many)
    assert calls == [runs.size, SCATTERED_ROWS + 1]
    WIDE_RUNS.scores_for(tokens, spread)
    assert calls[-1] == spread.size


def test_the_binary_search_does_not_convert_the_posting_list():
    """int64 positions into an int32 posting list: the same cuts as numpy's, without an int64 copy of the list
    (what numpy's searchsorted makes when the two types differ)."""
    postings = np.arange(0, 4_000_000, 2, dtype=np.int32)
    needles = np.asarray([0, 1, 7, 3_999_998, 3_999_999, 4_000_000, 2**40, -5], dtype=np.int64)
    expected = postings.astype(np.int64).searchsorted(needles).tolist()
    tracemalloc.start()
    try:
        got = sorted_cuts(postings, needles[:6])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert got == expected[:6]
    assert peak < postings.nbytes // 4
    assert sorted_cuts(postings, needles) == expected  # a key outside int32: numpy's own conversion, still right
    assert sorted_cuts(postings.view(np.uint32), needles) == expected
