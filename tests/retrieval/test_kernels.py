"""The compiled whole-base sparse top-k (quest/retrieval/kernels.py) gives exactly the numpy path's lists, it is
warmed when the retriever is made, and without it (or when it fails) search runs the numpy path unchanged."""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from quest.errors import IndexError_
from quest.kb.markdown import load_knowledge_base
from quest.retrieval import kernels
from quest.retrieval import retriever as retriever_module
from quest.retrieval.index import index_dir_for, load_index, open_index, update_index
from quest.retrieval.retriever import Retriever
from quest.retrieval.segments import SegmentedBM25, SegmentedLexical
from quest.retrieval.sparse import top_k_among
from quest.retrieval.store import stored_counts
from tests.fakes.embedder import HashingEmbedder
from tests.retrieval.test_maxscore import WORDS, build, documents, lexical_segments

HAVE_NUMBA = importlib.util.find_spec("numba") is not None
needs_numba = pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not installed: pip install -e \".[fast]\" "
                                                        "(CI installs it from requirements-dev.txt)")


@pytest.fixture(autouse=True)
def fresh_state(monkeypatch):
    """Each test starts with the kernel neither failed nor loaded (a failure turns it off for the process)."""
    monkeypatch.setattr(kernels, "_failed", kernels.threading.Event())
    monkeypatch.setattr(kernels, "_loaded", {})


@pytest.fixture
def kernel():
    found = kernels.load("numba")
    assert found is not None
    return found


def mask_of(size: int, picked: list[int] | None) -> np.ndarray | None:
    if picked is None:
        return None
    return np.unique([a for a in picked if a < size] or [0]).astype(np.int64)


# The integer types of a segment's posting arrays: as built in memory (scipy's int32), as a saved index is read
# (int64 offsets), and int64 throughout. Each is a separate compiled specialisation of the loops.
INDEX_TYPES = st.sampled_from([(np.int32, np.int32), (np.int64, np.int32), (np.int64, np.int64)])


def recast(postings, index_types, values=None) -> None:
    """Give `postings` (scipy CSC or Postings) other array types in place, with the same numbers."""
    indptr_type, indices_type = index_types
    postings.indptr = np.asarray(postings.indptr, dtype=indptr_type)
    postings.indices = np.asarray(postings.indices, dtype=indices_type)
    if values is not None:
        postings.data = values(postings.data)


def bm25_model(docs, cuts, orders, dead, types) -> SegmentedBM25:
    """A BM25 base of 1-4 segments (`build`), some rows deleted, each segment's arrays in the types `types` gives it
    (index types, and counts as loaded or as built)."""
    deleted = np.zeros(len(docs), dtype=bool)
    deleted[[d for d in dead if d < len(docs)]] = True
    segments = build(docs, cuts, orders, True)
    for i, seg in enumerate(segments):
        index_types, counts = types[i % len(types)]
        recast(seg.postings, index_types, stored_counts if counts else None)
    return SegmentedBM25(segments, deleted)


def lexical_model(weights, cuts, dead, wide, types) -> SegmentedLexical:
    """Lexical weights over several parts, float16 (or float32 with `wide`), some rows deleted, each part's posting
    arrays in the index types `types` gives it."""
    parts, offsets = lexical_segments(weights, cuts, False)
    for i, part in enumerate(parts):
        recast(part.csc, types[i % len(types)], (lambda data: np.asarray(data, dtype=np.float32)) if wide else None)
    deleted = np.zeros(len(weights), dtype=bool)
    deleted[[d for d in dead if d < len(weights)]] = True
    return SegmentedLexical(parts, offsets, deleted)


@needs_numba
@hyp_settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(docs=documents, cuts=st.lists(st.integers(0, 70), max_size=3), orders=st.lists(st.integers(0, 9), min_size=1),
       dead=st.lists(st.integers(0, 69), max_size=20), allowed=st.none() | st.lists(st.integers(0, 69), min_size=1),
       query=st.lists(st.sampled_from([*WORDS, "unknown"]), max_size=8), k=st.integers(1, 6) | st.integers(1, 80),
       types=st.lists(st.tuples(INDEX_TYPES, st.booleans()), min_size=1))
def test_bm25_kernel_equals_the_numpy_path(kernel, docs, cuts, orders, dead, allowed, query, k, types):
    """Random bases of 1-4 segments (delta segments), scope orders or none, deleted rows, an allowed set, repeated
    and unknown query words, k beyond the matches, each segment's arrays as built (int32, float32 counts) or as
    loaded (int64 offsets, uint16 counts: store.stored_counts) or int64 throughout: the same rows, order and
    float32 scores (==)."""
    model = bm25_model(docs, cuts, orders, dead, types)
    rows = mask_of(len(docs), allowed)
    assert model.kernel_search(kernel, query, k, rows) == model.search(query, k, rows)


weights_st = st.dictionaries(st.integers(0, 29).map(str),
                             st.floats(2**-10, 0.5) | st.sampled_from([0.05, 0.1, 0.125, 0.2]), max_size=10)


@needs_numba
@hyp_settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(weights=st.lists(weights_st, min_size=1, max_size=60), cuts=st.lists(st.integers(0, 60), max_size=3),
       dead=st.lists(st.integers(0, 59), max_size=10), allowed=st.none() | st.lists(st.integers(0, 59), min_size=1),
       query=weights_st, k=st.integers(1, 6) | st.integers(1, 70), wide=st.booleans(),
       types=st.lists(INDEX_TYPES, min_size=1))
def test_lexical_kernel_equals_the_numpy_path(kernel, weights, cuts, dead, allowed, query, k, wide, types):
    """float16 weights (and float32 ones, as kept when a weight does not fit float16), several segments, each with
    int32 or int64 posting arrays (a saved index is read with int64 offsets)."""
    model = lexical_model(weights, cuts, dead, wide, types)
    rows = mask_of(len(weights), allowed)
    assert model.kernel_search(kernel, query, k, rows) == model.search(query, k, rows)


def subset_mask(size: int, picked: list[int]) -> tuple[np.ndarray, np.ndarray]:
    chosen = mask_of(size, picked)
    mask = np.zeros(size, dtype=bool)
    mask[chosen] = True
    return chosen, mask


@needs_numba
@hyp_settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(docs=documents, cuts=st.lists(st.integers(0, 70), max_size=3), orders=st.lists(st.integers(0, 9), min_size=1),
       dead=st.lists(st.integers(0, 69), max_size=20), allowed=st.none() | st.lists(st.integers(0, 69), min_size=1),
       subset=st.lists(st.integers(0, 69), min_size=1),
       query=st.lists(st.sampled_from([*WORDS, "unknown"]), max_size=8), k=st.integers(1, 6) | st.integers(1, 80))
def test_one_bm25_pass_also_gives_a_subsets_own_list(kernel, docs, cuts, orders, dead, allowed, subset, query, k):
    """The whole-base list and, from the same pass, the subset's (the general documents'): each exactly what its own
    search gives, the subset's also what scoring the subset's rows alone (`scores_for`, the retriever's way for a
    small scope) gives: rows, order, float32 scores."""
    deleted = np.zeros(len(docs), dtype=bool)
    deleted[[d for d in dead if d < len(docs)]] = True
    model = SegmentedBM25(build(docs, cuts, orders, True), deleted)
    rows = mask_of(len(docs), allowed)
    chosen, mask = subset_mask(len(docs), subset)
    whole, inside = model.kernel_lists(kernel, query, k, rows, mask)
    assert whole == model.search(query, k, rows) == model.kernel_search(kernel, query, k, rows)
    scope = chosen if rows is None else np.intersect1d(chosen, rows)
    assert inside == model.search(query, k, scope) == top_k_among(model.scores_for(query, scope), scope, k)


@needs_numba
@hyp_settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(weights=st.lists(weights_st, min_size=1, max_size=60), cuts=st.lists(st.integers(0, 60), max_size=3),
       dead=st.lists(st.integers(0, 59), max_size=10), allowed=st.none() | st.lists(st.integers(0, 59), min_size=1),
       subset=st.lists(st.integers(0, 59), min_size=1), query=weights_st, k=st.integers(1, 6) | st.integers(1, 70))
def test_one_lexical_pass_also_gives_a_subsets_own_list(kernel, weights, cuts, dead, allowed, subset, query, k):
    parts, offsets = lexical_segments(weights, cuts, False)
    deleted = np.zeros(len(weights), dtype=bool)
    deleted[[d for d in dead if d < len(weights)]] = True
    model = SegmentedLexical(parts, offsets, deleted)
    rows = mask_of(len(weights), allowed)
    chosen, mask = subset_mask(len(weights), subset)
    whole, inside = model.kernel_lists(kernel, query, k, rows, mask)
    assert whole == model.search(query, k, rows)
    scope = chosen if rows is None else np.intersect1d(chosen, rows)
    assert inside == model.search(query, k, scope) == top_k_among(model.scores_for(query, scope), scope, k)


@needs_numba
def test_ties_deletions_empty_lists_and_k_beyond_the_matches(kernel):
    docs = [["rare", "common"]] * 6 + [["common"] * 3] * 40 + [["other"]] * 20 + [["rare", "x"]] * 4
    deleted = np.zeros(len(docs), dtype=bool)
    deleted[[0, 2, 31]] = True
    model = SegmentedBM25(build(docs, [30, 50], [1, 2, 3], True), deleted)
    found = model.kernel_search(kernel, ["rare", "common"], 5)
    assert found == model.search(["rare", "common"], 5)
    assert [r for r, _ in found] == [1, 3, 4, 5, 66]  # ties broken by row id; deleted rows 0 and 2 absent
    assert len({s for _, s in found[:4]}) == 1  # rows 1, 3, 4, 5 tie exactly
    assert model.kernel_search(kernel, ["rare"], 500) == model.search(["rare"], 500)
    assert len(model.kernel_search(kernel, ["rare"], 500)) == 8  # k beyond the 8 live matches
    assert model.kernel_search(kernel, ["nowhere"], 5) == [] == model.kernel_search(kernel, [], 5)
    assert model.kernel_search(kernel, ["rare"], 0) == []
    lexical = SegmentedLexical(*lexical_segments([{}, {"3": 0.5}, {}], [1], False)[:2], np.zeros(3, dtype=bool))
    assert lexical.kernel_search(kernel, {"3": 0.25}, 4) == [(1, 0.125)] == lexical.search({"3": 0.25}, 4)
    assert lexical.kernel_search(kernel, {"7": 0.25}, 4) == []  # a token with an empty list
    assert lexical.kernel_search(kernel, {"99": 0.25}, 4) == []  # a token beyond every part's width
    assert SegmentedLexical([], np.zeros(1, dtype=np.int64), np.zeros(0, dtype=bool)).kernel_search(
        kernel, {"3": 1.0}, 4) == []


@needs_numba
def test_a_damaged_posting_list_raises_as_the_numpy_path_does(kernel):
    """The compiled loop checks positions (numba does not): a list naming a row past its segment is an error, not a
    write outside the accumulator."""
    docs = [["a", "b"], ["b"], ["a"]]
    model = SegmentedBM25(build(docs, [], [0], True), np.zeros(3, dtype=bool))
    model.segments[0].postings.indices[-1] = 7
    with pytest.raises(IndexError_):
        model.search(["a", "b"], 3)
    with pytest.raises(IndexError_):
        model.kernel_search(kernel, ["a", "b"], 3)
    parts, offsets = lexical_segments([{"1": 0.5}, {"1": 0.25}], [], False)
    parts[0].csc.indices[-1] = 9
    lexical = SegmentedLexical(parts, offsets, np.zeros(2, dtype=bool))
    with pytest.raises(ValueError, match="rows the index does not have"):
        lexical.search({"1": 1.0}, 2)
    with pytest.raises(ValueError, match="rows the index does not have"):
        lexical.kernel_search(kernel, {"1": 1.0}, 2)
    # a call that failed half-way ("a" added, then a bad row in "b") leaves nothing behind for the next one
    docs = [["a", "b"], ["b"], ["a"], ["a", "a"]] + [["z"]] * 10
    fine = SegmentedBM25(build(docs, [], [0], True), np.zeros(14, dtype=bool))
    broken = SegmentedBM25(build(docs, [], [0], True), np.zeros(14, dtype=bool))
    postings = broken.segments[0].postings
    postings.indices[postings.indptr[broken.vocab["b"] + 1] - 1] = 99
    with pytest.raises(IndexError_):
        broken.kernel_search(kernel, ["a", "b"], 4)
    assert fine.kernel_search(kernel, ["a", "b"], 4) == fine.search(["a", "b"], 4) != []


@pytest.fixture
def loaded(settings, kb_dir, monkeypatch):
    """The small base with lexical weights, saved and loaded (memory-mapped, read-only lists), every whole-base
    sparse list searched as at 1M."""
    monkeypatch.setattr(retriever_module, "PRUNE_FROM", 0)
    embedder = HashingEmbedder(lexical=True)
    kb = load_knowledge_base(kb_dir)
    open_index(kb, settings, embedder)
    return load_index(index_dir_for(settings, embedder.name)), kb, embedder


QUERIES = ("hash table two sum", "滑动窗口 超时", "RecursionError deep recursion", "list.pop(0) TLE",
           "dictionary lookup complement", "recursion", "wrong answer on large input")


def hits(retriever: Retriever) -> list:
    return [[(h.chunk.id, h.fused, h.score, sorted(h.signals.items())) for h in retriever.search(q).hits]
            for q in QUERIES]


class Recording:
    """A kernel stand-in that records the calls and answers through the real one (or fails, if told to)."""

    def __init__(self, real: kernels.Kernel | None, fail: BaseException | None = None) -> None:
        self.real, self.fail, self.calls, self.subsets = real, fail, [], []

    def bm25(self, *args):
        self.calls.append("bm25")
        self.subsets.append(args[-1] is not None)
        if self.fail is not None:
            raise self.fail
        return self.real.bm25(*args)

    def lexical(self, *args):
        self.calls.append("lexical")
        if self.fail is not None:
            raise self.fail
        return self.real.lexical(*args)

    def scope_bm25(self, *args, by_column=False):
        self.calls.append("scope_bm25_by_column" if by_column else "scope_bm25")
        if self.fail is not None:
            raise self.fail
        return self.real.scope_bm25(*args, by_column=by_column)

    def scope_lexical(self, *args):
        self.calls.append("scope_lexical")
        if self.fail is not None:
            raise self.fail
        return self.real.scope_lexical(*args)

    def compact_scores(self, *args):
        self.calls.append("compact")
        if self.fail is not None:
            raise self.fail
        return self.real.compact_scores(*args)

    def half_rows(self, *args):
        self.calls.append("half")
        if self.fail is not None:
            raise self.fail
        return self.real.half_rows(*args)


@needs_numba
def test_the_retriever_warms_the_kernel_and_ranks_as_the_numpy_path(loaded, settings, monkeypatch):
    index, kb, embedder = loaded
    numpy_hits = hits(Retriever(settings.replace(sparse_kernel="numpy"), index, kb, embedder))
    recording = Recording(kernels.load("numba"))
    monkeypatch.setattr(kernels, "load", lambda choice: recording)
    fast = Retriever(settings.replace(sparse_kernel="auto"), index, kb, embedder)
    # warmed when made: BM25 and lexical calls with no query term (a whole-base one and a scope's, per segment: one
    # here; BM25's words one by one take the scope's call with the same types), the dense 8-bit pass on one row and the
    # float16 gather of one row
    assert fast.kernel_warm_seconds is not None
    assert recording.calls == ["bm25", "scope_bm25", "lexical", "scope_lexical", "compact", "half"]
    assert hits(fast) == numpy_hits and any(numpy_hits)
    assert recording.calls.count("bm25") > 1 and recording.calls.count("lexical") > 1  # the questions used it
    assert recording.calls.count("half") > 1  # the fused rows' cosines read their rows through it


@needs_numba
def test_a_question_naming_no_problem_reads_each_list_once_for_both_scopes(loaded, settings, monkeypatch):
    """With no problem named, the general documents are ranked and then the whole base, on the same query: every
    BM25 list of a question is one pass that gives both (the general list from a second heap), and the hits are the
    numpy path's, where the general documents' lists are scored on their own."""
    index, kb, embedder = loaded
    numpy_hits = hits(Retriever(settings.replace(sparse_kernel="numpy"), index, kb, embedder))
    recording = Recording(kernels.load("numba"))
    monkeypatch.setattr(kernels, "load", lambda choice: recording)
    fast = Retriever(settings.replace(sparse_kernel="auto"), index, kb, embedder)
    assert fast._general_rows.size and settings.general_lead > 0
    warm = len(recording.subsets)
    assert hits(fast) == numpy_hits
    asked = recording.subsets[warm:]
    assert asked and all(asked)  # no whole-base BM25 pass of its own: each also ranked the general documents


def test_numpy_setting_never_loads_the_kernel(loaded, settings, monkeypatch):
    index, kb, embedder = loaded
    monkeypatch.setattr(kernels, "_compiled", lambda *_: pytest.fail("the kernel was imported"))
    retriever = Retriever(settings.replace(sparse_kernel="numpy"), index, kb, embedder)
    assert retriever._kernel is None and retriever.kernel_warm_seconds is None
    assert any(hits(retriever))


def test_without_numba_the_numpy_path_said_once(loaded, settings, monkeypatch, caplog):
    """numba missing (simulated: `import numba` fails, as it does when the extra is not installed): under the default
    `auto` one INFO line for the process, however many retrievers are made (not installing an optional extra is no
    fault); asked for by name, one WARNING; the same hits as the numpy path either way."""
    index, kb, embedder = loaded
    expected = hits(Retriever(settings.replace(sparse_kernel="numpy"), index, kb, embedder))
    monkeypatch.setitem(sys.modules, "numba", None)  # None in sys.modules: the import raises ModuleNotFoundError
    monkeypatch.delitem(sys.modules, "quest.retrieval._sparse_numba", raising=False)
    with caplog.at_level(logging.INFO, logger="quest.retrieval.kernels"):
        first = Retriever(settings.replace(sparse_kernel="auto"), index, kb, embedder)
        again = Retriever(settings.replace(sparse_kernel="auto"), index, kb, embedder)
        assert [r.levelno for r in caplog.records] == [logging.INFO]
        named = Retriever(settings.replace(sparse_kernel="numba"), index, kb, embedder)
        Retriever(settings.replace(sparse_kernel="numba"), index, kb, embedder)
        assert hits(first) == hits(again) == hits(named) == expected
    assert first._kernel is None and named._kernel is None
    assert first.kernel_warm_seconds is None
    assert [r.levelno for r in caplog.records] == [logging.INFO, logging.WARNING]
    for record in caplog.records:
        assert "numpy path" in record.getMessage() and "[fast]" in record.getMessage()


def test_numba_installed_but_failing_to_load_warns_even_under_auto(loaded, settings, monkeypatch, caplog):
    index, kb, embedder = loaded

    def broken(name, *args, **kwargs):
        raise OSError("llvmlite: cannot open shared object file")  # a broken install, not a missing one

    monkeypatch.setattr(kernels.importlib, "import_module", broken)
    with caplog.at_level(logging.INFO, logger="quest.retrieval.kernels"):
        retriever = Retriever(settings.replace(sparse_kernel="auto"), index, kb, embedder)
    assert retriever._kernel is None
    assert [r.levelno for r in caplog.records] == [logging.WARNING]
    assert "OSError: llvmlite: cannot open shared object file" in caplog.records[0].getMessage()


def test_the_setting_comes_from_the_environment():
    from quest.settings import Settings

    assert Settings.from_env({"QUEST_SPARSE_KERNEL": "numpy"}).sparse_kernel == "numpy"
    assert Settings.from_env({}).sparse_kernel == "auto"


@needs_numba
def test_a_kernel_failing_at_search_time_falls_back_once(loaded, settings, monkeypatch, caplog):
    index, kb, embedder = loaded
    expected = hits(Retriever(settings.replace(sparse_kernel="numpy"), index, kb, embedder))
    broken = Recording(kernels.load("numba"))
    monkeypatch.setattr(kernels, "load", lambda choice: broken)
    retriever = Retriever(settings, index, kb, embedder)
    broken.fail = RuntimeError("no matching definition for these arrays")
    with caplog.at_level(logging.WARNING, logger="quest.retrieval.kernels"):
        assert hits(retriever) == expected
    # after the warm-up (six calls), one failed sparse call and one failed float16 gather (the dense index drops it
    # and says so itself); numpy from then on
    assert broken.calls[6:] == ["bm25", "half"]
    assert kernels.failed()
    assert [r.levelno for r in caplog.records if r.name == "quest.retrieval.kernels"] == [logging.WARNING]


@needs_numba
def test_a_compile_failure_at_warm_up_falls_back(loaded, settings, monkeypatch, caplog):
    index, kb, embedder = loaded
    broken = Recording(None, fail=TypeError("numba could not type the arrays"))
    monkeypatch.setattr(kernels, "load", lambda choice: broken)
    with caplog.at_level(logging.WARNING, logger="quest.retrieval.kernels"):
        retriever = Retriever(settings, index, kb, embedder)
    assert retriever._kernel is None and retriever.kernel_warm_seconds is None and kernels.failed()
    assert len(caplog.records) == 1 and "numpy path" in caplog.records[0].getMessage()
    assert any(hits(retriever)) and broken.calls == ["bm25"]


def test_a_base_below_the_pruning_size_never_loads_the_kernel(settings, kb_dir, monkeypatch):
    """Below PRUNE_FROM rows the lists come from every row's score, kept per part: numba is not even imported, so
    a small base starts exactly as without the extra."""
    embedder = HashingEmbedder(lexical=True)
    kb = load_knowledge_base(kb_dir)
    index, _ = open_index(kb, settings, embedder)
    assert index.size < retriever_module.PRUNE_FROM
    monkeypatch.setattr(kernels, "_compiled", lambda *_: pytest.fail("the kernel was imported"))
    retriever = Retriever(settings.replace(sparse_kernel="numba"), index, kb, embedder)
    assert retriever._kernel is None and retriever.kernel_warm_seconds is None
    assert any(hits(retriever))


def test_an_unknown_kernel_setting_is_refused(settings):
    with pytest.raises(ValueError, match="sparse_kernel"):
        settings.replace(sparse_kernel="fortran").validate()
    with pytest.raises(ValueError, match="sparse_kernel"):
        kernels.load("fortran")


@needs_numba
def test_without_a_writable_cache_folder_the_kernels_compile_uncached(monkeypatch, caplog):
    """A read-only install run by a user with no writable home (a Docker non-root user): numba finds no folder to
    cache in. The kernels are then compiled without a cache, give the same lists, and one INFO line says so (it
    was one per compiled function). Root writes anywhere, so the folder check numba makes is what is refused here."""
    from numba.core import caching

    def refuse(locator):
        raise PermissionError(13, "Permission denied", locator.get_cache_path())

    monkeypatch.setattr(caching._CacheLocator, "ensure_cache_path", refuse)
    monkeypatch.delitem(sys.modules, "quest.retrieval._sparse_numba", raising=False)  # decorated anew, as at start
    with caplog.at_level(logging.INFO, logger="quest.retrieval"):
        kernel = kernels.load("numba")
    assert kernel is not None
    assert [r.levelno for r in caplog.records] == [logging.INFO]
    assert "compiled on every start" in caplog.records[0].getMessage()
    assert sys.modules["quest.retrieval._sparse_numba"].UNCACHED == [
        "compact_scores", "half_rows", "_worse", "_push", "_replace_root", "_gate", "subset_blocks", "_passing",
        "_take", "_select", "_span", "bm25_segment", "lexical_segment", "lexical_segment_f32", "_lower", "bm25_scope",
        "lexical_scope"]
    docs = [["a", "b"], ["b"], ["a", "c"], ["c", "c"]] + [["z"]] * 16
    model = SegmentedBM25(build(docs, [7], [1, 2], True), np.zeros(len(docs), dtype=bool))
    assert model.kernel_search(kernel, ["c", "a"], 6) == model.search(["c", "a"], 6) != []
    lexical = SegmentedLexical(*lexical_segments([{"1": 0.5}, {"1": 0.25, "2": 0.125}], [1], False)[:2],
                               np.zeros(2, dtype=bool))
    assert lexical.kernel_search(kernel, {"1": 0.5, "2": 1.0}, 2) == lexical.search({"1": 0.5, "2": 1.0}, 2)


class MeetingEvent:
    """A stand-in for kernels._failed whose first `is_set` in each thread, having looked, waits (at most 1 s) for the
    other thread's look: two searches that fail side by side both look before either sets it, unless something
    orders them."""

    def __init__(self) -> None:
        self._event = kernels.threading.Event()
        self._barrier = kernels.threading.Barrier(2, timeout=1.0)
        self._seen = kernels.threading.local()

    def is_set(self) -> bool:
        state = self._event.is_set()
        if not getattr(self._seen, "waited", False):
            self._seen.waited = True
            # broken after 1 s when the other thread cannot look yet (it waits for a lock held here)
            with contextlib.suppress(kernels.threading.BrokenBarrierError):
                self._barrier.wait()
        return state

    def set(self) -> None:
        self._event.set()


def test_two_searches_failing_side_by_side_warn_once(monkeypatch, caplog):
    monkeypatch.setattr(kernels, "_failed", MeetingEvent())
    threads = [kernels.threading.Thread(target=kernels.disable, args=(RuntimeError(f"call {i}"),)) for i in range(2)]
    with caplog.at_level(logging.WARNING, logger="quest.retrieval.kernels"):
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert kernels.failed()
    assert len(caplog.records) == 1 and "numpy path is used from now on" in caplog.records[0].getMessage()


class TypesSeen:
    """The compiled module, recording each call's argument types as numba types them (one compiled specialisation
    per distinct tuple)."""

    def __init__(self, module) -> None:
        self.module, self.seen = module, []

    def __getattr__(self, name: str):
        import numba

        def call(*args):
            self.seen.append((name, tuple(numba.typeof(a) for a in args)))
            return getattr(self.module, name)(*args)
        return call


@needs_numba
def test_a_delta_built_in_memory_is_compiled_at_warm_up_not_on_a_question(settings, kb_dir, monkeypatch):
    """A loaded base reads uint16 counts and int64 lexical offsets; a delta segment built in memory since (a changed
    document) has float32 counts and int32 offsets: other compiled specialisations. The warm-up runs every segment,
    so both are compiled (or loaded from numba's cache) then, and no question needs one it did not warm."""
    monkeypatch.setattr(retriever_module, "PRUNE_FROM", 0)
    embedder = HashingEmbedder(lexical=True)
    open_index(load_knowledge_base(kb_dir), settings, embedder)
    page = sorted(kb_dir.rglob("*.md"))[0]
    page.write_text(page.read_text(encoding="utf-8") + "\n\nA deep recursion raises RecursionError.\n",
                    encoding="utf-8")
    kb = load_knowledge_base(kb_dir)
    index, report = update_index(load_index(index_dir_for(settings, embedder.name)), kb, settings, embedder)
    assert report.action == "updated" and len(index.segments) == 2
    base, delta = index.bm25.segments
    assert (base.postings.data.dtype, delta.postings.data.dtype) == (np.uint16, np.float32)
    recorded = TypesSeen(kernels.load("numba")._m)
    monkeypatch.setattr(kernels, "load", lambda choice: kernels.Kernel(recorded))
    retriever = Retriever(settings, index, kb, embedder)
    warmed = set(recorded.seen)
    assert len({types for name, types in warmed if name == "bm25_segment"}) == 2  # the base's and the delta's
    assert len({types for name, types in warmed if name == "lexical_segment"}) == 2
    assert hits(retriever) == hits(Retriever(settings.replace(sparse_kernel="numpy"), index, kb, embedder))
    assert len(recorded.seen) > len(warmed) and set(recorded.seen) <= warmed


@needs_numba
def test_a_cache_numba_cannot_read_is_compiled_around_at_warm_up(tmp_path, monkeypatch, caplog):
    """A cache index file cut short (a crash or a full disk while numba wrote it) fails every first call with an
    unpickling error, at every start: the warm-up compiles the kernels again without the cache (one WARNING saying
    how to get the cache back) instead of turning them off for good."""
    import types

    import numba

    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))  # NUMBA_CACHE_DIR, for this test only
    docs = [["a", "b"], ["b"], ["a", "c"], ["c", "c"]] + [["z"]] * 16
    model = SegmentedBM25(build(docs, [7], [1, 2], True), np.zeros(len(docs), dtype=bool))
    index = types.SimpleNamespace(bm25=model, lexical=None)
    monkeypatch.delitem(sys.modules, "quest.retrieval._sparse_numba", raising=False)
    assert kernels.warm(kernels.load("numba"), index) is not None  # compiled, and written to the cache
    written = sorted(tmp_path.rglob("*.nbi"))
    assert written
    for path in written:
        path.write_bytes(path.read_bytes()[:5])
    monkeypatch.setattr(kernels, "_loaded", {})  # a new start: decorated again, the cache read again
    monkeypatch.delitem(sys.modules, "quest.retrieval._sparse_numba")
    kernel = kernels.load("numba")
    with caplog.at_level(logging.WARNING, logger="quest.retrieval.kernels"):
        assert kernels.warm(kernel, index) is not None
    assert not kernels.failed()
    assert len(caplog.records) == 1 and "cannot be read" in caplog.records[0].getMessage()
    assert model.kernel_search(kernel, ["c", "a"], 6) == model.search(["c", "a"], 6) != []


# Scores chosen to tie often, with the values the gate must treat as `v > 0` does: zero, negatives, NaN, the least
# positive (subnormal) float32, infinity.
GATE_SCORES = st.sampled_from([0.0, 0.0, -1.0, float("nan"), float(np.nextafter(np.float32(0), np.float32(1))),
                               0.5, 1.0, 1.0, 2.0, 2.0, 2.0, 3.0, float("inf")])


def reference_top(scores: np.ndarray, rows: np.ndarray, keep: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The k best (score descending, row ascending) of the positive scores whose rows `keep` holds, by sorting."""
    picked = [(int(r), float(v)) for v, r in zip(scores.tolist(), rows.tolist(), strict=True) if v > 0 and keep[r]]
    return sorted(picked, key=lambda e: (-e[1], e[0]))[:k]


@needs_numba
@hyp_settings(max_examples=300, deadline=None)
@given(first=st.lists(GATE_SCORES, max_size=40), second=st.lists(GATE_SCORES, max_size=40), k=st.integers(1, 12),
       seed=st.integers(0, 2**16), use_subset=st.booleans(), use_allowed=st.booleans())
def test_the_merges_gate_keeps_exactly_what_the_heaps_would_take(first, second, k, seed, use_subset, use_allowed):
    """`_select` looks only at scores reaching its gate (the least score a heap can still take). Over two segments
    merged into the same heaps (the second starts gated by what the first left), with ties at the k-th score,
    deleted and disallowed rows, both heaps equal a plain sort of every kept score."""
    module = kernels._compiled()
    rng = np.random.default_rng(seed)
    size = len(first) + len(second)
    deleted, allowed, subset = (rng.random(size) < share for share in (0.15, 0.8, 0.4))
    heaps = [np.empty(k, np.float32), np.empty(k, np.int64), 0, subset, use_subset, None, np.empty(k, np.float32),
             np.empty(k, np.int64), 0]
    all_scores, all_rows = [], []
    for start, scores in ((0, first), (len(first), second)):
        acc = np.asarray(scores, dtype=np.float32)
        order = rng.permutation(acc.size).astype(np.int32)  # positions to rows, as a saved segment's row order
        heaps[5] = module.subset_blocks(order, False, start, acc.size, subset)
        heaps[2], heaps[8] = module._select(acc, order, False, start, deleted, allowed, use_allowed, *heaps)
        all_scores.append(acc)
        all_rows.append(order.astype(np.int64) + start)
    scores, rows = np.concatenate(all_scores), np.concatenate(all_rows)
    keep = ~deleted & (allowed if use_allowed else True)
    assert kernels._ranked(heaps[0][:heaps[2]], heaps[1][:heaps[2]]) == reference_top(scores, rows, keep, k)
    expected_subset = reference_top(scores, rows, keep & subset, k) if use_subset else []
    assert kernels._ranked(heaps[6][:heaps[8]], heaps[7][:heaps[8]]) == expected_subset


@needs_numba
def test_a_negative_position_or_offsets_outside_the_lists_raise_without_reading_outside(kernel):
    """The loops index with unsigned positions (numba's signed indexing tests every index for Python's wrap-around):
    a negative position is caught by the same single test as one past the segment, and a column's offsets outside
    its lists stop the call before any posting is read."""
    docs = [["a", "b"], ["b"], ["a"]]
    model = SegmentedBM25(build(docs, [], [0], True), np.zeros(3, dtype=bool))
    model.segments[0].postings.indices[-1] = -1
    with pytest.raises(IndexError_):
        model.kernel_search(kernel, ["a", "b"], 3)
    for lo, hi in ((-2, 1), (2, 1), (0, 99)):  # negative, decreasing, past the end of the lists
        damaged = SegmentedBM25(build(docs, [], [0], True), np.zeros(3, dtype=bool))
        postings = damaged.segments[0].postings
        col = damaged.vocab["a"]
        postings.indptr = np.asarray(postings.indptr, dtype=np.int64).copy()
        postings.indptr[col], postings.indptr[col + 1] = lo, hi
        with pytest.raises(IndexError_):
            damaged.kernel_search(kernel, ["a"], 3)
    parts, offsets = lexical_segments([{"1": 0.5}, {"1": 0.25}], [], False)
    parts[0].csc.indices[-1] = -3
    lexical = SegmentedLexical(parts, offsets, np.zeros(2, dtype=bool))
    with pytest.raises(ValueError, match="rows the index does not have"):
        lexical.kernel_search(kernel, {"1": 1.0}, 2)


@needs_numba
def test_a_zero_divisor_gives_what_numpy_gives(kernel):
    """A count of 0 over a row whose length term is 0 divides 0 by 0: numpy gives NaN, which no list keeps, and the
    loop (numpy's error model) gives the same instead of raising ZeroDivisionError as Python's model did."""
    docs = [["a", "b"], ["a"], ["a", "a", "c"]] + [["z"]] * 5
    model = SegmentedBM25(build(docs, [], [0], True), np.zeros(len(docs), dtype=bool))
    for norm in model._norms_by_position:
        norm[:] = 0.0
    postings = model.segments[0].postings
    col = model.vocab["a"]
    postings.data = np.asarray(postings.data).copy()
    postings.data[postings.indptr[col]] = 0  # row 0's count of "a"
    with np.errstate(invalid="ignore"):
        expected = model.search(["a", "b"], 5)
    assert model.kernel_search(kernel, ["a", "b"], 5) == expected
    assert [r for r, _ in expected] == [1, 2]  # row 0's "a" is 0 / 0 = NaN, and NaN + its "b" is NaN: not kept


@needs_numba
def test_the_general_documents_mask_covers_every_row_after_an_update(settings, kb_dir, monkeypatch):
    """After an update the index has more rows than live chunks (the old rows deleted, the new ones appended): the mask
    of the general documents, which the whole-base pass reads by row, must cover every row, so a general document
    edited since the base was built (its rows now at the end) is still ranked as one, as the numpy path ranks it."""
    monkeypatch.setattr(retriever_module, "PRUNE_FROM", 0)
    embedder = HashingEmbedder(lexical=True)
    open_index(load_knowledge_base(kb_dir), settings, embedder)
    faq = kb_dir / "docs" / "faq-tle.md"
    faq.write_text(faq.read_text(encoding="utf-8") + "\n\n两层循环枚举每一对也会超时。\n",
                   encoding="utf-8")
    kb = load_knowledge_base(kb_dir)
    index, report = update_index(load_index(index_dir_for(settings, embedder.name)), kb, settings, embedder)
    assert report.action == "updated" and index.rows > index.size
    fast = Retriever(settings, index, kb, embedder)
    mask = fast._general_rows_mask()
    assert mask.size == index.rows and mask[fast._general_rows].all() and int(mask.sum()) == fast._general_rows.size
    assert any(index.chunks[int(r)].doc_id == "faq-tle-zh" for r in fast._general_rows if r >= index.size)
    assert hits(fast) == hits(Retriever(settings.replace(sparse_kernel="numpy"), index, kb, embedder))
