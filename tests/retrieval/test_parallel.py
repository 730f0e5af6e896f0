"""A question's independent searches run side by side (quest/retrieval/parallel.py) and rank exactly as one after
another: the same hits, scores and ranked lists, also with many requests at once on one shared retriever."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import quest.retrieval.dense as dense_module
from quest.kb.markdown import load_knowledge_base
from quest.retrieval import parallel
from quest.retrieval import retriever as retriever_module
from quest.retrieval.chunktable import NO_PROBLEM
from quest.retrieval.index import index_dir_for, load_index, open_index
from quest.retrieval.retriever import Retriever
from tests.fakes.embedder import HashingEmbedder

QUERIES = (("hash table two sum", None), ("滑动窗口 超时", None), ("RecursionError deep recursion", None),
           ("list.pop(0) TLE", None), ("dictionary lookup complement", "1"), ("recursion", None),
           ("为什么超时", "1"), ("wrong answer on large input", None))


def test_results_come_back_in_the_jobs_order_from_several_threads():
    started = threading.Barrier(2, timeout=10)
    seen: list[str] = []

    def job(i: int):
        def run():
            if i < 2:
                started.wait()  # both first jobs run at the same time: on two threads
            seen.append(threading.current_thread().name)
            return i * i
        return run

    assert parallel.run_all([job(i) for i in range(6)], threads=2) == [0, 1, 4, 9, 16, 25]
    assert len(set(seen)) == 2


def test_one_thread_runs_every_job_here_in_order():
    order: list[int] = []
    here = threading.current_thread()
    threads = set()

    def job(i: int):
        def run():
            order.append(i)
            threads.add(threading.current_thread())
            return -i
        return run

    assert parallel.run_all([job(i) for i in range(4)], threads=1) == [0, -1, -2, -3]
    assert order == [0, 1, 2, 3] and threads == {here}


def test_jobs_no_pool_thread_took_run_on_the_asking_thread():
    """Every pool thread busy with another request: the question does not wait in the queue."""
    release = threading.Event()
    busy = threading.Event()

    def hold():
        busy.set()
        release.wait(10)

    pool = parallel._pool(2)
    blocker = pool.submit(hold)
    try:
        assert busy.wait(10)
        here = threading.current_thread()
        ran_on = []
        got = parallel.run_all([lambda i=i: ran_on.append(threading.current_thread()) or i for i in range(3)],
                               threads=2)
        assert got == [0, 1, 2] and ran_on == [here, here, here]
    finally:
        release.set()
        blocker.result(10)


def test_an_error_in_a_job_is_raised_after_the_others_finish():
    """The failing job (on the asking thread) raises only once a pool thread has started a slow job, and the slow
    jobs finish only after it raised: run_all must wait for them, whatever the pool did in earlier tests."""
    one_started = threading.Event()
    raised = threading.Event()
    started: list[str] = []
    finished: list[str] = []

    def fails():
        assert one_started.wait(10)  # a pool thread has taken a slow job (else nothing below is checked)
        raised.set()
        raise ValueError("broken list")

    def slow(name: str):
        def run():
            started.append(name)
            one_started.set()
            raised.wait(10)  # still running when the error is raised
            threading.Event().wait(0.05)  # and for a moment after: a run_all that did not wait would miss it
            finished.append(name)
            return 1
        return run

    with pytest.raises(ValueError, match="broken list"):
        parallel.run_all([fails, slow("a"), slow("b")], threads=3)
    finished_at_raise = sorted(finished)
    assert started  # at least one slow job ran on a pool thread
    assert finished_at_raise == sorted(started)  # every job started was waited for; one never started never runs


def test_search_threads_must_not_be_negative(settings):
    with pytest.raises(ValueError, match="search_threads must be 0 \\(automatic\\) or a number of threads"):
        settings.replace(search_threads=-1).validate()
    settings.replace(search_threads=0).validate()  # 0: automatic, the default
    assert type(settings).from_env({}).search_threads == 0
    assert type(settings).from_env({"QUEST_SEARCH_THREADS": "1"}).search_threads == 1


@pytest.mark.parametrize(("setting", "rows", "cores", "threads"), [
    (0, parallel.PARALLEL_FROM, 2, 2),  # a search to hand over of 20k rows, on two cores: two
    (0, 1_000_000, 8, 2),  # never more than two by default
    (0, parallel.PARALLEL_FROM - 1, 2, 1),  # a smaller one (a small base, a problem's rows): one
    (0, 300, 8, 1),
    (0, 1_000_000, 1, 1),  # one core: one
    (1, 1_000_000, 8, 1),  # set: as set, whatever the rows and cores
    (3, 10, 1, 3),
])
def test_threads_for_a_question(monkeypatch, setting, rows, cores, threads):
    monkeypatch.setattr(parallel, "usable_cores", lambda: cores)
    assert parallel.threads_for(setting, rows) == threads


def test_usable_cores_are_the_process_affinity(monkeypatch):
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda pid: {0, 3, 5}, raising=False)
    assert parallel.usable_cores() == 3
    monkeypatch.delattr(parallel.os, "sched_getaffinity", raising=False)  # not Linux
    monkeypatch.setattr(parallel.os, "cpu_count", lambda: 6)
    assert parallel.usable_cores() == 6
    monkeypatch.setattr(parallel.os, "cpu_count", lambda: None)
    assert parallel.usable_cores() == 1


@pytest.fixture
def loaded(settings, kb_dir, monkeypatch):
    """The small base with dense + lexical, saved and loaded (memory-mapped), every whole-base sparse list pruned
    (maxscore.py) and the global dense search through the IVF, as at 1M."""
    monkeypatch.setattr(dense_module, "APPROXIMATE_FROM", 10)
    monkeypatch.setattr(retriever_module, "PRUNE_FROM", 0)
    embedder = HashingEmbedder(lexical=True)
    kb = load_knowledge_base(kb_dir)
    open_index(kb, settings, embedder)
    index = load_index(index_dir_for(settings, embedder.name))
    assert index.segments[0].dense.ivf is not None
    return index, kb, embedder


def answers(retriever: Retriever, queries=QUERIES):
    out = []
    for text, pid in queries:
        found = retriever.search(text, problem_id=pid)
        out.append([(h.chunk.id, h.fused, h.score, sorted(h.signals.items())) for h in found.hits])
    return out


@pytest.mark.parametrize("threads", [2, 4])
def test_side_by_side_ranks_exactly_as_one_after_another(loaded, settings, threads):
    index, kb, embedder = loaded
    one = answers(Retriever(settings.replace(search_threads=1), index, kb, embedder))
    assert any(one) and all(len(h) <= settings.top_k for h in one)
    side = settings.replace(search_threads=threads)
    assert answers(Retriever(side, index, kb, embedder)) == one


def test_the_ranked_lists_and_their_order_are_the_same(loaded, settings, monkeypatch):
    """Fusion adds the lists up in their order: the lists dict is built in the same order, with the same lists."""
    index, kb, embedder = loaded
    seen: dict[int, list] = {1: [], 2: []}
    original = retriever_module.Retriever._part_lists

    def recording(self, queries, rows, k, timings, scope, *whole):
        lists = original(self, queries, rows, k, timings, scope, *whole)
        seen[self.settings.search_threads].append((scope, list(lists.items())))
        return lists

    monkeypatch.setattr(retriever_module.Retriever, "_part_lists", recording)
    answers(Retriever(settings.replace(search_threads=1), index, kb, embedder))
    answers(Retriever(settings.replace(search_threads=2), index, kb, embedder))
    assert seen[1] and seen[2] == seen[1]
    assert any(len(lists) >= 3 for _, lists in seen[1])  # BM25, dense and lexical lists of one scope


def test_many_requests_at_once_on_one_retriever_rank_as_one_at_a_time(loaded, settings):
    """Gradio's workers share the retriever: 8 threads asking every question, each search side by side."""
    index, kb, embedder = loaded
    expected = answers(Retriever(settings.replace(search_threads=1), index, kb, embedder))
    shared = Retriever(settings.replace(search_threads=2), index, kb, embedder)
    with ThreadPoolExecutor(max_workers=8) as students:
        found = list(students.map(lambda _: answers(shared), range(16)))
    assert all(f == expected for f in found)


class RecordingRetriever(Retriever):
    """Records which thread ran each BM25 and dense list. The first list the asking thread runs waits until a list
    has started on another thread, so that with a pool the side-by-side run is certain, not a matter of timing."""

    def __init__(self, *args, expect_pool: bool = False, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.asker = threading.current_thread()
        self.elsewhere = threading.Event()
        self.waited: bool | None = None
        self.expect_pool = expect_pool or self.settings.search_threads > 1  # for lists beyond one problem's rows
        self.ran: list[tuple[str, str, bool]] = []  # (signal, thread, whether the list ranked one problem's rows)

    def _record(self, signal: str, rows) -> None:
        here = threading.current_thread()
        own = rows is not None and bool(rows.size) and bool((self.index.chunks.problem[rows] != NO_PROBLEM).all())
        self.ran.append((signal, here.name, own))
        if here is not self.asker:
            self.elsewhere.set()
        elif self.waited is None and self.expect_pool and not own:
            self.waited = self.elsewhere.wait(10)

    def _bm25_list(self, q, rows, k, whole=None):
        self._record("bm25", rows)
        return super()._bm25_list(q, rows, k, whole)

    def _dense_list(self, q, rows, k):
        self._record("dense", rows)
        return super()._dense_list(q, rows, k)


def test_the_retriever_runs_its_lists_on_the_pool(loaded, settings):
    index, kb, embedder = loaded
    expected = answers(Retriever(settings.replace(search_threads=1), index, kb, embedder), QUERIES[:1])
    side = RecordingRetriever(settings.replace(search_threads=2), index, kb, embedder)
    assert answers(side, QUERIES[:1]) == expected
    assert side.waited  # the asking thread's first list waited for, and saw, a list started on another thread
    pool_ran = {signal for signal, name, _ in side.ran if name.startswith("quest-search")}
    assert "dense" in pool_ran  # the first part's dense list: the job after its BM25 one, taken by the pool thread
    assert all(name == side.asker.name or name.startswith("quest-search") for _, name, _ in side.ran)
    one = RecordingRetriever(settings.replace(search_threads=1), index, kb, embedder)
    assert answers(one, QUERIES[:1]) == expected
    assert one.ran and {name for _, name, _ in one.ran} == {one.asker.name}  # one thread: no pool


ASKED = (("hash table two sum", None), ("dictionary lookup complement", "1"))  # no problem named; problem 1


def test_by_default_a_large_base_is_searched_side_by_side_and_a_problem_on_one_thread(loaded, settings, monkeypatch):
    """The default (0): a question naming no problem ranks the whole base on two threads once the base has
    PARALLEL_FROM rows, on a process with two cores; a named problem's own lists stay on the asking thread."""
    index, kb, embedder = loaded
    monkeypatch.setattr(parallel, "usable_cores", lambda: 2)
    monkeypatch.setattr(parallel, "PARALLEL_FROM", len(index.chunks))  # this base counts as large
    expected = answers(Retriever(settings.replace(search_threads=1), index, kb, embedder), ASKED)
    auto = RecordingRetriever(settings.replace(search_threads=0), index, kb, embedder, expect_pool=True)
    assert answers(auto, ASKED) == expected
    assert auto.waited  # the asking thread's first whole-base list saw a list started on the pool
    assert {own for _, name, own in auto.ran if name.startswith("quest-search")} == {False}
    assert {name for _, name, own in auto.ran if own} == {auto.asker.name}  # problem 1's own lists: here


@pytest.mark.parametrize(("rows_short", "cores"), [(1, 2), (0, 1)])
def test_by_default_a_small_base_or_one_core_searches_on_one_thread(loaded, settings, monkeypatch, rows_short,
                                                                    cores):
    index, kb, embedder = loaded
    monkeypatch.setattr(parallel, "usable_cores", lambda: cores)
    monkeypatch.setattr(parallel, "PARALLEL_FROM", len(index.chunks) + rows_short)
    auto = RecordingRetriever(settings.replace(search_threads=0), index, kb, embedder)
    expected = answers(Retriever(settings.replace(search_threads=1), index, kb, embedder), ASKED)
    assert answers(auto, ASKED) == expected
    assert auto.ran and {name for _, name, _ in auto.ran} == {auto.asker.name}


def test_the_whole_base_dense_lists_are_found_beside_the_general_ones(loaded, settings, monkeypatch):
    """A question naming no problem ranks the general documents, then the whole base. Each part's whole-base dense
    search runs once, in the first batch (on two threads it overlaps the sparse passes there instead of running
    alone after them), and the whole-base ranking takes its list: the same hits as one thread."""
    index, kb, embedder = loaded
    events: list[str] = []
    original_rank = retriever_module.Retriever._rank
    original_search = index.dense.search

    def rank(self, rows, k, queries, timings, scope, *whole):
        out = original_rank(self, rows, k, queries, timings, scope, *whole)
        events.append(f"ranked {scope}")
        return out

    def whole_base_search(vector, k, *mask, **options):
        if not mask:  # (search_rows searches through a mask)
            events.append("whole-base dense")
        return original_search(vector, k, *mask, **options)

    expected = answers(Retriever(settings.replace(search_threads=1), index, kb, embedder), QUERIES[:1])
    monkeypatch.setattr(retriever_module.Retriever, "_rank", rank)
    monkeypatch.setattr(index.dense, "search", whole_base_search)
    for threads in (1, 2):
        events.clear()
        assert answers(Retriever(settings.replace(search_threads=threads), index, kb, embedder), QUERIES[:1]) == \
            expected
        assert events == ["whole-base dense", "ranked general", "ranked global"]


def test_a_named_problems_general_lists_are_found_beside_its_own(loaded, settings, monkeypatch):
    """A question naming a problem ranks the problem's own rows, then the general documents (`problem_general_mix`).
    Every general list is searched once, in the problem's batch (on two threads the two scopes' searches overlap),
    and the general ranking takes them: the same hits, scores and signals with one thread and with two."""
    index, kb, embedder = loaded
    general = Retriever(settings, index, kb, embedder)._general_rows
    events: list[str] = []
    original_rank = retriever_module.Retriever._rank
    original_bm25, original_dense = retriever_module.Retriever._bm25_list, retriever_module.Retriever._dense_list
    original_lexical = retriever_module.Retriever._lexical_list

    def scope_of(self, rows) -> str:
        if rows is None:
            return "whole base"
        return "general" if np.array_equal(rows, self._general_rows) else "problem"

    def rank(self, rows, k, queries, timings, scope, *args, **options):
        out = original_rank(self, rows, k, queries, timings, scope, *args, **options)
        events.append(f"ranked {scope}")
        return out

    def searched(signal, original):
        def search(self, q, rows, k, *args):
            found = original(self, q, rows, k, *args)
            kept = getattr(q, "lists_ahead", {}).get((signal, k))  # (rows, list) found in the batch before
            if kept is None or kept[0] is not rows or kept[1] is not found:
                events.append(f"{signal} {scope_of(self, rows)}")  # searched here, not taken
            return found
        return search

    expected = answers(Retriever(settings.replace(search_threads=1), index, kb, embedder), ASKED[1:])
    monkeypatch.setattr(retriever_module.Retriever, "_rank", rank)
    monkeypatch.setattr(retriever_module.Retriever, "_bm25_list", searched("bm25", original_bm25))
    monkeypatch.setattr(retriever_module.Retriever, "_dense_list", searched("dense", original_dense))
    monkeypatch.setattr(retriever_module.Retriever, "_lexical_list", searched("lexical", original_lexical))
    own = ["bm25 problem", "dense problem", "lexical problem", "bm25 general", "dense general", "lexical general"]
    fill = ["bm25 whole base", "dense whole base", "lexical whole base"]  # too few hits: the whole base fills up
    for threads in (1, 2):
        events.clear()
        assert answers(Retriever(settings.replace(search_threads=threads), index, kb, embedder), ASKED[1:]) == \
            expected
        # each batch's searches in any order (the dense ones go first to the pool)
        assert sorted(events[:6]) == sorted(own) and sorted(events[8:11]) == sorted(fill)
        assert [events[6], events[7], *events[11:]] == ["ranked problem", "ranked general", "ranked global"]
    assert general.size and not np.array_equal(general, index.rows_by_problem["1"])


def test_only_the_offered_jobs_go_to_the_pool_in_the_order_offered():
    """`offload`: the jobs another thread may take, in order; this thread runs the others first, in their order."""
    here = threading.current_thread()
    pool_started = threading.Event()
    ran: dict[int, threading.Thread] = {}

    def job(i: int):
        def run():
            ran[i] = threading.current_thread()
            if i == 3:  # the first job offered: a pool thread takes it while this thread waits in job 0
                pool_started.set()
            if i == 0:
                assert pool_started.wait(10)
            return i * 10
        return run

    assert parallel.run_all([job(i) for i in range(5)], threads=2, offload=[3]) == [0, 10, 20, 30, 40]
    assert ran[3] is not here and all(ran[i] is here for i in (0, 1, 2, 4))


def test_nothing_offered_runs_every_job_here():
    here = threading.current_thread()
    threads = []
    jobs = [lambda i=i: threads.append(threading.current_thread()) or i for i in range(4)]
    assert parallel.run_all(jobs, threads=2, offload=[]) == [0, 1, 2, 3]
    assert threads == [here] * 4


def test_an_error_here_waits_for_the_offered_job_that_started():
    started, raised, finished = threading.Event(), threading.Event(), []

    def offered():
        started.set()
        raised.wait(10)
        threading.Event().wait(0.05)
        finished.append("offered")
        return 1

    def fails():
        assert started.wait(10)
        raised.set()
        raise ValueError("broken list")

    never: list[str] = []
    with pytest.raises(ValueError, match="broken list"):
        parallel.run_all([fails, lambda: never.append("after") or 2, offered], threads=2, offload=[2])
    assert finished == ["offered"] and never == []  # waited for; nothing after the error ran here


def test_a_named_problems_dense_searches_run_on_the_pool_and_its_sparse_ones_here(loaded, settings, monkeypatch):
    """By default, a batch whose widest search outside the GIL ranks PARALLEL_FROM rows runs on two threads: the
    dense searches (widest first) on the pool; the scoped sparse searches, which hold the GIL, on the asking thread."""
    index, kb, embedder = loaded
    monkeypatch.setattr(retriever_module, "PRUNE_FROM", 10**9)  # no compiled sparse search: only dense is offered
    monkeypatch.setattr(parallel, "usable_cores", lambda: 2)
    expected = answers(Retriever(settings.replace(search_threads=1), index, kb, embedder), ASKED[1:])
    general = Retriever(settings, index, kb, embedder)._general_rows
    monkeypatch.setattr(parallel, "PARALLEL_FROM", int(general.size))  # the general documents' dense search: enough
    asker = threading.current_thread()
    pool_started = threading.Event()
    ran: list[tuple[str, str, bool]] = []  # (signal, where, over the general documents)

    class Recording(RecordingRetriever):  # its BM25 and dense lists recorded here, and the lexical ones
        def _record(self, signal, rows):
            elsewhere = threading.current_thread() is not asker
            ran.append((signal, "pool" if elsewhere else "here", np.array_equal(rows, self._general_rows)))
            if elsewhere:
                pool_started.set()
            elif len(ran) == 1:  # the first search here waits for the pool's: the side-by-side run is certain
                assert pool_started.wait(10)

        def _lexical_list(self, q, rows, k, whole=None):
            self._record("lexical", rows)
            return super()._lexical_list(q, rows, k, whole)

    first_batch = 6  # the problem's three lists and the general documents' three
    assert answers(Recording(settings.replace(search_threads=0), index, kb, embedder), ASKED[1:]) == expected
    assert ("dense", "pool", True) in ran[:first_batch]  # the widest, offered first
    assert {where for signal, where, _ in ran[:first_batch] if signal != "dense"} == {"here"}
    ran.clear()
    monkeypatch.setattr(parallel, "PARALLEL_FROM", int(general.size) + 1)  # one row short: one thread
    pool_started.set()
    assert answers(Recording(settings.replace(search_threads=0), index, kb, embedder), ASKED[1:]) == expected
    assert {where for _, where, _ in ran} == {"here"}
