"""`SegmentedBM25.scores_for_spans` (round 20): several spans over the same few rows, each query term's postings
looked up once for all of them, gives `scores_for` of each span bit for bit; and `Retriever._best_match`, which
reads it, gives main's answer (kept word for word below) on the same spans and rows.

Spans as a long question's verdict check makes them (`Retriever._beyond_verdict`: the detail and its overlapping
windows) repeat most terms; the examples also repeat a term inside a span (its coefficient doubles), name unknown
words, leave spans empty, and give rows across a base and two deltas, deleted ones, in any order, a row twice and more
rows than `FEW_ROWS` (both left to the per-span path)."""

from __future__ import annotations

import random
from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from quest.retrieval.retriever import Retriever
from quest.retrieval.segments import FEW_ROWS, SegmentedBM25
from quest.retrieval.sparse import normalized
from tests.retrieval.test_segments import segmented
from tests.retrieval.test_sparse import random_corpus

CORPUS = random_corpus(11, n_docs=240)
PARTS = [CORPUS[:150], CORPUS[150:190], CORPUS[190:]]  # a base and two deltas
DEAD = set(random.Random(11).sample(range(240), 40))
INDEX = segmented(PARTS, DEAD)
RUNS = segmented(PARTS, DEAD)
RUNS.few_rows = 0  # every call through the scope runs: code the shared lookups do not touch

words = st.sampled_from([f"w{i}" for i in range(95)] + ["nothing"])
spans_of = st.lists(st.lists(words, max_size=10), max_size=6)
rows_of = st.lists(st.integers(0, 239), max_size=FEW_ROWS + 4)


def windows(tokens: list[str], size: int = 4) -> list[list[str]]:
    """The spans `_beyond_verdict` makes of a long part: the whole, then half-overlapping windows."""
    step = size // 2
    return [tokens] + [tokens[i:i + size] for i in range(0, max(len(tokens) - step, 0), step)]


def bits(array: np.ndarray) -> list[int]:
    return np.asarray(array, dtype=np.float32).view(np.uint32).tolist()


@settings(max_examples=300, deadline=None)
@given(spans=spans_of, long=st.lists(words, max_size=16), rows=rows_of)
def test_spans_score_exactly_as_each_span_alone(spans, long, rows):
    spans = spans + windows(long)
    at = np.asarray(rows, dtype=np.int64)
    got = INDEX.scores_for_spans(spans, at)
    assert len(got) == len(spans)
    for span, scores in zip(spans, got, strict=True):
        assert scores.dtype == np.float32
        assert bits(scores) == bits(INDEX.scores_for(span, at))
        assert bits(scores) == bits(RUNS.scores_for(span, at))
        if len(set(rows)) == len(rows):  # scores_for is for distinct rows
            assert bits(scores) == bits(INDEX.scores(span)[at])


def test_each_term_is_looked_up_once_per_segment_for_all_the_spans(monkeypatch):
    """Three spans naming w1 and w2 over rows of two segments: one lookup per (segment, term), not per span."""
    calls: list[int] = []
    real = SegmentedBM25._few_rows_lookup

    def recording(seg, norm, pos, col):
        calls.append(col)
        return real(seg, norm, pos, col)

    monkeypatch.setattr(SegmentedBM25, "_few_rows_lookup", staticmethod(recording))
    rows = np.asarray([3, 160, 5, 170], dtype=np.int64)  # the base and the first delta
    spans = [["w1", "w2"], ["w1"], ["w2", "w1", "w1"]]
    got = INDEX.scores_for_spans(spans, rows)
    assert sorted(calls) == sorted([INDEX.vocab["w1"], INDEX.vocab["w2"]] * 2)
    monkeypatch.undo()
    assert [bits(s) for s in got] == [bits(INDEX.scores_for(span, rows)) for span in spans]


def mains_best_match(self, spans, rows) -> dict[int, float]:
    """Main's `Retriever._best_match` (before round 20), word for word."""
    at = np.asarray(rows, dtype=np.int64)
    best = np.zeros(at.size)
    scored = getattr(self.index.bm25, "scores_for", None)
    for span in spans:
        bound = self.index.bm25.max_score(span) if span else 0.0
        if bound > 0:
            raw = scored(span, at) if scored is not None else self.index.bm25.scores(span)[at]
            best = np.maximum(best, [normalized(float(x), bound) for x in np.asarray(raw).tolist()])
    return dict(zip(at.tolist(), best.tolist(), strict=True))


class _OnlyScores:
    """A BM25 with `scores_for` and no `scores_for_spans`: the retriever's path for other indexes."""

    def __init__(self, inner: SegmentedBM25) -> None:
        self.inner = inner

    def max_score(self, tokens):
        return self.inner.max_score(tokens)

    def scores(self, tokens):
        return self.inner.scores(tokens)

    def scores_for(self, tokens, rows):
        return self.inner.scores_for(tokens, rows)


@settings(max_examples=200, deadline=None)
@given(spans=spans_of, long=st.lists(words, max_size=16), rows=st.lists(st.integers(0, 239), max_size=FEW_ROWS + 4,
                                                                        unique=True))
def test_best_match_gives_mains_answer(spans, long, rows):
    spans = spans + windows(long)
    retriever = SimpleNamespace(index=SimpleNamespace(bm25=INDEX))
    expected = mains_best_match(retriever, spans, rows)
    got = Retriever._best_match(retriever, spans, rows)
    assert list(got.items()) == list(expected.items())
    other = SimpleNamespace(index=SimpleNamespace(bm25=_OnlyScores(INDEX)))
    assert list(Retriever._best_match(other, spans, rows).items()) == list(expected.items())
