"""The compiled scope sums (kernels.Kernel.scope_bm25 / scope_lexical): one problem's rows or the general documents
scored by one compiled call per segment, outside the GIL, to exactly the numbers numpy's scope sums give (the bits of
every float32), and the retriever using them for a named problem's searches."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from quest.errors import IndexError_
from quest.retrieval import kernels, scopes
from quest.retrieval import retriever as retriever_module
from quest.retrieval.retriever import Retriever
from quest.retrieval.segments import SegmentedBM25, SegmentedLexical
from tests.retrieval.test_kernels import (  # noqa: F401 (loaded: a fixture)
    INDEX_TYPES,
    Recording,
    bm25_model,
    lexical_model,
    loaded,
)
from tests.retrieval.test_maxscore import WORDS, build, documents, lexical_segments

pytestmark = pytest.mark.skipif(importlib.util.find_spec("numba") is None,
                                reason="numba is not installed: pip install -e \".[fast]\" (CI installs it from "
                                       "requirements-dev.txt)")


@pytest.fixture(autouse=True)
def fresh_state(monkeypatch):
    monkeypatch.setattr(kernels, "_failed", kernels.threading.Event())
    monkeypatch.setattr(kernels, "_loaded", {})


class Counting:
    """The real kernel, counting its scope calls."""

    def __init__(self) -> None:
        self.real = kernels.load("numba")
        self.calls: list[str] = []

    def scope_bm25(self, *args):
        self.calls.append("bm25")
        return self.real.scope_bm25(*args)

    def scope_lexical(self, *args):
        self.calls.append("lexical")
        return self.real.scope_lexical(*args)


def bits(values: np.ndarray) -> list[int]:
    return np.asarray(values, dtype=np.float32).view(np.uint32).tolist()


def scope_rows(size: int, start: int, length: int, extra: list[int], seed: int) -> np.ndarray:
    """A scope as the retriever asks for one: a block of rows (a problem's), maybe a few rows elsewhere, any order."""
    rows = {r for r in range(start, min(size, start + length))} | {e for e in extra if e < size}
    order = np.random.default_rng(seed).permutation(len(rows))
    return np.asarray(sorted(rows), dtype=np.int64)[order] if rows else np.zeros(0, dtype=np.int64)


scopes_st = dict(start=st.integers(0, 69), length=st.integers(0, 70), extra=st.lists(st.integers(0, 69), max_size=6),
                 seed=st.integers(0, 9))


@hyp_settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(docs=documents, cuts=st.lists(st.integers(0, 70), max_size=3), orders=st.lists(st.integers(0, 9), min_size=1),
       dead=st.lists(st.integers(0, 69), max_size=20), query=st.lists(st.sampled_from([*WORDS, "unknown"]), max_size=8),
       types=st.lists(st.tuples(INDEX_TYPES, st.booleans()), min_size=1), **scopes_st)
def test_compiled_bm25_scope_sums_are_numpys_bit_for_bit(docs, cuts, orders, dead, query, types, start, length, extra,
                                                         seed):
    """1-4 segments, scope orders or none, deleted rows, repeated and unknown words, each segment's arrays as built
    or as loaded: the same float32 bits as `scores_for` and as the full scan, for every row of the scope, and the
    compiled call made for every scope of exact runs."""
    model = bm25_model(docs, cuts, orders, dead, types)
    rows = scope_rows(len(docs), start, length, extra, seed)
    counting = Counting()
    compiled = model.kernel_scores_for(counting, query, rows)
    assert bits(compiled) == bits(model.scores_for(query, rows)) == bits(model.scores(query)[rows])
    located = model._segment_scopes(rows) if rows.size else []
    asked = bool(model._query(query)[0]) and all(runs.exact for *_, runs, _ in located)
    assert counting.calls == (["bm25"] * len(located) if asked else [])


@hyp_settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(docs=documents, cuts=st.lists(st.integers(0, 70), max_size=3), orders=st.lists(st.integers(0, 9), min_size=1),
       dead=st.lists(st.integers(0, 69), max_size=20),
       words=st.lists(st.sampled_from([*WORDS, "unknown"]), max_size=8, unique=True),
       types=st.lists(st.tuples(INDEX_TYPES, st.booleans()), min_size=1), **scopes_st)
def test_compiled_word_by_word_scores_are_numpys_bit_for_bit(docs, cuts, orders, dead, words, types, start, length,
                                                             extra, seed):
    """`term_scores_for` (each word's own BM25 in one problem's rows, WithinProblem's matrix) by one compiled call per
    segment: the same float32 bits as numpy's, and each column is that word's `scores_for` alone."""
    model = bm25_model(docs, cuts, orders, dead, types)
    rows = scope_rows(len(docs), start, length, extra, seed)
    compiled = model.term_scores_for(words, rows, kernels.load("numba"))
    assert compiled.shape == (rows.size, len(words))
    assert bits(compiled) == bits(model.term_scores_for(words, rows))
    for j, word in enumerate(words):
        assert bits(compiled[:, j]) == bits(model.scores_for([word], rows))


weights_st = st.dictionaries(st.integers(0, 29).map(str),
                             st.floats(2**-10, 0.5) | st.sampled_from([0.05, 0.1, 0.125, 0.2]), max_size=10)


@hyp_settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(weights=st.lists(weights_st, min_size=1, max_size=60), cuts=st.lists(st.integers(0, 60), max_size=3),
       dead=st.lists(st.integers(0, 59), max_size=10), query=weights_st, wide=st.booleans(),
       types=st.lists(INDEX_TYPES, min_size=1), **scopes_st)
def test_compiled_lexical_scope_sums_are_numpys_bit_for_bit(weights, cuts, dead, query, wide, types, start, length,
                                                            extra, seed):
    """float16 weights (and float32 ones), several parts, int32 or int64 posting arrays."""
    model = lexical_model(weights, cuts, dead, wide, types)
    rows = scope_rows(len(weights), start, length, extra, seed)
    counting = Counting()
    compiled = model.kernel_scores_for(counting, query, rows)
    assert bits(compiled) == bits(model.scores_for(query, rows)) == bits(model.scores(query)[rows])
    assert ("lexical" in counting.calls) == bool(rows.size and model.parts[0]._items(query))


def test_a_scope_read_through_merged_gaps_takes_the_numpy_path(monkeypatch):
    """Beyond scopes.MAX_RUNS runs a scope is read through its smallest gaps and the entries found there dropped: the
    compiled sums take exact runs only, so such a scope is summed by numpy, to the same numbers."""
    monkeypatch.setattr(scopes, "MAX_RUNS", 2)
    docs = [["w1", "w2"], ["w1"], ["w2", "w2"], ["w1", "w3"], ["w3"], ["w1", "w1", "w2"]] * 4
    model = SegmentedBM25(build(docs, [], [0], True), np.zeros(len(docs), dtype=bool))
    model.few_rows = 0  # not the few-rows lookup: the runs
    counting = Counting()
    scattered = np.asarray([0, 2, 5, 9, 13, 20], dtype=np.int64)  # six runs, read as two
    assert bits(model.kernel_scores_for(counting, ["w1", "w2"], scattered)) \
        == bits(model.scores(["w1", "w2"])[scattered])
    assert counting.calls == []
    block = np.arange(4, 12, dtype=np.int64)
    assert bits(model.kernel_scores_for(counting, ["w1", "w2"], block)) == bits(model.scores(["w1", "w2"])[block])
    assert counting.calls == ["bm25"]


def test_a_damaged_list_is_an_error_never_a_write_elsewhere():
    """The compiled sums check every posting they read against the segment and the scope: an unsorted list whose
    entry inside a run's cut is past the scope, or before its run (a negative index into the scope), and a column's
    offsets outside the lists are an error (numpy's sums raise IndexError there too), never a write elsewhere."""
    kernel = kernels.load("numba")
    docs = [["a", "b"], ["b"], ["a"], ["a", "b"]]  # "a" at rows 0, 2, 3; "b" at 0, 1, 3

    def damaged(word: str, postings: list[int]) -> SegmentedBM25:
        model = SegmentedBM25(build(docs, [], [0], True), np.zeros(4, dtype=bool))
        model.few_rows = 0  # numpy's sums by the runs, as the compiled ones
        lists = model.segments[0].postings
        lo = lists.indptr[model.vocab[word]]
        lists.indices[lo:lo + len(postings)] = postings
        return model

    for word, postings, rows in (("b", [9, 1, 3], [0, 1, 2, 3]),  # 9 inside the cut for [0, 4)
                                 ("a", [0, 3, 1], [2, 3])):  # 1 inside the cut for [2, 4): index -1
        scope = np.asarray(rows, dtype=np.int64)
        with pytest.raises(IndexError):
            damaged(word, postings).scores_for([word], scope)
        with pytest.raises(IndexError_):
            damaged(word, postings).kernel_scores_for(kernel, [word], scope)
    model = SegmentedBM25(build(docs, [], [0], True), np.zeros(4, dtype=bool))
    lists = model.segments[0].postings
    lists.indptr = np.asarray(lists.indptr, dtype=np.int64).copy()
    lists.indptr[model.vocab["a"] + 1] = 99
    with pytest.raises(IndexError_):
        model.kernel_scores_for(kernel, ["a"], np.arange(4, dtype=np.int64))
    parts, offsets = lexical_segments([{"1": 0.5}, {"2": 0.25}, {"1": 0.5}], [], False)
    parts[0].csc.indices[parts[0].csc.indptr[1]:parts[0].csc.indptr[2]] = [7, 2]
    lexical = SegmentedLexical(parts, offsets, np.zeros(3, dtype=bool))
    with pytest.raises(ValueError, match="rows the index does not have"):
        lexical.kernel_scores_for(kernel, {"1": 1.0}, np.arange(3, dtype=np.int64))


def test_a_named_problems_searches_use_the_compiled_sums_and_rank_as_numpy(loaded, settings, monkeypatch):  # noqa: F811
    """A question naming a problem ranks the problem's rows and the general documents by scope sums, and orders its
    lists by its words' weights in the problem's rows: with the kernel they are the compiled ones (warmed when the
    retriever is made), the searches offered to the other thread as searches outside the GIL, and the hits are the
    numpy path's."""
    index, kb, embedder = loaded
    problem = next(c.problem_id for c in (index.chunks[r] for r in range(len(index.chunks))) if c.problem_id)
    questions = ("hash table two sum", "RecursionError deep recursion", "超时 怎么办")

    title = kb.problems[problem].title_en or kb.problems[problem].title_zh

    def named_hits(retriever):  # each with the problem's title as its own part, as the planner sends it
        return [[(h.chunk.id, h.fused, h.score) for h in retriever.search(
            q, problem_id=problem, parts={"question": q, "problem": title}).hits] for q in questions]

    slow = Retriever(settings.replace(sparse_kernel="numpy"), index, kb, embedder)
    numpy_hits = named_hits(slow)
    recording = Recording(kernels.load("numba"))
    monkeypatch.setattr(kernels, "load", lambda choice: recording)
    fast = Retriever(settings.replace(sparse_kernel="auto"), index, kb, embedder)
    assert recording.calls.count("scope_bm25") == len(index.bm25.segments)  # warmed, a call per segment
    assert recording.calls.count("scope_lexical") == len(index.lexical.parts)
    warmed = len(recording.calls)
    assert named_hits(fast) == numpy_hits and any(numpy_hits)
    asked = recording.calls[warmed:]
    assert asked.count("scope_bm25") >= len(questions) and asked.count("scope_lexical") >= len(questions)
    assert "scope_bm25_by_column" in asked  # the problem's words one by one (WithinProblem, its lists' order)
    offered: list[tuple[int, list[int]]] = []  # (jobs, offered) per batch

    def recording_run_all(jobs, threads, offload=None):
        offered.append((len(jobs), list(offload)))
        return real_run_all(jobs, threads, offload)

    real_run_all = retriever_module.run_all
    monkeypatch.setattr(retriever_module, "run_all", recording_run_all)
    for retriever, every_one in ((fast, True), (slow, False)):
        offered.clear()
        retriever.search(questions[0], problem_id=problem)
        jobs, first = offered[0]  # the problem's lists and its general documents' (BM25, dense, lexical per part)
        assert jobs >= 6 and (len(first) == jobs) == every_one
