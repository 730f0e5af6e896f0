"""The rows of the problems searched most recently stay resident; older ones' pages are given back (dense.py).

The budget is counted in bytes of codes, least recently searched first out; only a memory-mapped index gives
pages back, and giving them back never changes what a search returns.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from quest.bench.touched import cached_bytes
from quest.retrieval import dense as dense_module
from quest.retrieval import pages
from quest.retrieval.dense import DenseIndex

DIM = 64  # 128 bytes of float16 codes per row


@pytest.fixture
def saved(tmp_path):
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((4096, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    path = tmp_path / "s.dense.faiss"
    DenseIndex.from_vectors(vectors).save(path)
    with path.open("rb") as fh:  # on disk and out of the page cache, as a served index is read: from the file
        os.fsync(fh.fileno())
        os.posix_fadvise(fh.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
    return path, vectors


class Released:
    """A recording stand-in for pages.release: which row runs were given back, in order."""

    def __init__(self, dense: DenseIndex) -> None:
        self.dense = dense
        self.runs: list[tuple[int, int]] = []

    def __call__(self, array: np.ndarray) -> bool:
        base = int(self.dense.vectors.ctypes.data)
        row = self.dense.index.code_size
        lo = (int(array.ctypes.data) - base) // row
        self.runs.append((lo, lo + array.shape[0]))
        return True


@pytest.fixture(autouse=True)
def small_bases_release_too(monkeypatch):
    """These tests' bases are tiny: let them give pages back as a base above RELEASE_ABOVE_BYTES does, on a
    process with little memory (the tests of KEEP_SHARE set their own)."""
    monkeypatch.setattr(dense_module, "RELEASE_ABOVE_BYTES", 0)
    monkeypatch.setattr(dense_module, "usable_memory", lambda: 0)


def test_a_base_below_the_release_size_keeps_every_page(saved, monkeypatch):
    path, _ = saved
    dense = DenseIndex.load(path)
    released = Released(dense)
    monkeypatch.setattr(pages, "release", released)
    monkeypatch.setattr(dense_module, "RECENT_RUN_BYTES", 1)
    monkeypatch.setattr(dense_module, "RELEASE_ABOVE_BYTES", dense.index.ntotal * dense.index.code_size)
    q = np.ones(DIM, dtype=np.float32)
    for lo in (0, 100, 200, 0):
        dense.search_range(q, lo, lo + 100, 5)
    assert released.runs == []
    monkeypatch.setattr(dense_module, "RELEASE_ABOVE_BYTES", dense.index.ntotal * dense.index.code_size - 1)
    for lo in (0, 100):
        dense.search_range(q, lo, lo + 100, 5)
    assert released.runs == [(0, 100)]  # one byte over: the same searches now give the older run back


def test_runs_past_the_budget_are_given_back_least_recent_first(saved, monkeypatch):
    path, _ = saved
    dense = DenseIndex.load(path)
    released = Released(dense)
    monkeypatch.setattr(pages, "release", released)
    monkeypatch.setattr(dense_module, "RECENT_RUN_BYTES", 3 * 100 * 128)  # three runs of 100 rows
    q = np.ones(DIM, dtype=np.float32)
    for lo in (0, 100, 200):
        dense.search_range(q, lo, lo + 100, 5)
    assert released.runs == []
    dense.search_range(q, 0, 100, 5)  # asked again: now the most recent
    dense.search_range(q, 300, 400, 5)
    assert released.runs == [(100, 200)]
    dense.search_range(q, 400, 450, 5)  # 50 rows: 350 of 300 rows' worth, the oldest goes
    assert released.runs == [(100, 200), (200, 300)]


def test_a_long_run_is_neither_kept_nor_given_back(saved, monkeypatch):
    path, _ = saved
    dense = DenseIndex.load(path)
    released = Released(dense)
    monkeypatch.setattr(pages, "release", released)
    monkeypatch.setattr(dense_module, "READ_AHEAD_RUNS_UP_TO", 1000)
    monkeypatch.setattr(dense_module, "RECENT_RUN_BYTES", 1)
    q = np.ones(DIM, dtype=np.float32)
    dense.search_range(q, 0, 2000, 5)  # the general documents' run: read by every question
    assert released.runs == [] and not dense._recent
    dense.search_range(q, 0, 10, 5)
    dense.search_range(q, 10, 20, 5)
    assert released.runs == [(0, 10)]


def test_an_index_in_memory_gives_nothing_back(saved, monkeypatch):
    _, vectors = saved
    dense = DenseIndex.from_vectors(vectors)
    released = Released(dense)
    monkeypatch.setattr(pages, "release", released)
    monkeypatch.setattr(dense_module, "RECENT_RUN_BYTES", 1)
    q = np.ones(DIM, dtype=np.float32)
    for lo in range(0, 1000, 100):
        dense.search_range(q, lo, lo + 100, 5)
    assert released.runs == []


def test_given_back_pages_leave_the_page_cache_and_searches_return_the_same(saved, monkeypatch):
    path, vectors = saved
    monkeypatch.setattr(dense_module, "RECENT_RUN_BYTES", 1024 * 128)  # one run of 1024 rows
    dense = DenseIndex.load(path)
    reference = DenseIndex.from_vectors(vectors)
    rng = np.random.default_rng(9)
    queries = rng.standard_normal((4, DIM)).astype(np.float32)
    runs = [(0, 1024), (1024, 2048), (2048, 3072), (0, 1024)]
    for q, (lo, hi) in zip(queries, runs, strict=True):
        assert dense.search_range(q, lo, hi, 7) == reference.search_range(q, lo, hi, 7)
    if not pages.release(dense.vectors[3072:]):
        pytest.skip("this kernel has no MADV_PAGEOUT")
    # (1024, 2048) and (2048, 3072) were pushed out, all but the pages they share with a neighbour: only the
    # first run's pages (read again last) and the pages at the runs' ends are still cached
    run_bytes = 1024 * dense.index.code_size
    assert cached_bytes(path) <= run_bytes + 4 * pages.PAGE
    dense.search_range(queries[0], 1024, 2048, 7)  # read again from the file: the same answer
    assert dense.search_range(queries[1], 1024, 2048, 7) == reference.search_range(queries[1], 1024, 2048, 7)


def test_release_rounds_inwards_to_whole_pages(monkeypatch):
    calls = []

    def madvise(start, length, advice):
        calls.append((start.value, length.value, advice.value))
        return 0

    monkeypatch.setattr(pages, "_MADVISE", madvise)
    buffer = np.zeros(5 * pages.PAGE, dtype=np.uint8)
    base = int(buffer.ctypes.data)
    first_page = -(-base // pages.PAGE) * pages.PAGE
    inside = buffer[first_page - base + 10: first_page - base + 3 * pages.PAGE + 10]
    assert pages.release(inside)
    assert calls == [(first_page + pages.PAGE, 2 * pages.PAGE, pages.MADV_PAGEOUT)]
    calls.clear()
    assert not pages.release(buffer[first_page - base + 1: first_page - base + pages.PAGE + 1])  # no whole page
    assert calls == []


def test_rows_to_gather_are_asked_for_in_one_request_per_run_of_pages(monkeypatch):
    calls = []

    def madvise(start, length, advice):
        calls.append((start, length, advice))
        return 0

    monkeypatch.setattr(pages, "_MADVISE", madvise)
    monkeypatch.setattr(pages, "_MADVISE_MANY", None)  # one madvise per run (the batched call: below)
    page = pages.PAGE
    buffer = np.zeros(64 * page + page, dtype=np.uint8)
    base = int(buffer.ctypes.data)
    aligned = -(-base // page) * page
    rows = buffer[aligned - base: aligned - base + 64 * page].reshape(128, page // 2)  # two rows a page
    # rows 0-3: pages 0-1 (one run); 5 (page 2) joins it; 20 and 21: page 10; 40: page 20; given unsorted, twice
    assert pages.will_need_rows(rows, np.array([40, 3, 0, 21, 5, 20, 1, 2, 40])) == 3
    assert calls == [(aligned, 3 * page, pages.MADV_WILLNEED), (aligned + 10 * page, page, pages.MADV_WILLNEED),
                     (aligned + 20 * page, page, pages.MADV_WILLNEED)]
    calls.clear()
    # rows of 3/4 of a page from a little past a page's start, so some cross a page boundary (any page size):
    # row 1 spans [offset + 3/4, offset + 6/4) pages: pages 0-1; row 7 spans [offset + 21/4, offset + 24/4): 5-6
    width, offset = page * 3 // 4, page // 40
    straddling = buffer[aligned - base + offset: aligned - base + offset + 8 * width].reshape(8, width)
    assert pages.will_need_rows(straddling, np.array([1, 7])) == 2
    assert calls == [(aligned, 2 * page, pages.MADV_WILLNEED), (aligned + 5 * page, 2 * page, pages.MADV_WILLNEED)]


class RecordingBatch:
    """A stand-in for pages._MADVISE_MANY that records the ranges of each batched call (or refuses them)."""

    def __init__(self, works: bool = True) -> None:
        self.works, self.calls = works, []

    def advise(self, starts, lengths, advice):
        self.calls.append((starts.tolist(), lengths.tolist(), advice))
        return self.works


def test_several_runs_of_pages_go_to_the_kernel_in_one_batched_call(monkeypatch):
    single = []
    monkeypatch.setattr(pages, "_MADVISE", lambda start, length, advice: single.append((start, length)) or 0)
    batch = RecordingBatch()
    monkeypatch.setattr(pages, "_MADVISE_MANY", batch)
    page = pages.PAGE
    buffer = np.zeros(64 * page + page, dtype=np.uint8)
    base = int(buffer.ctypes.data)
    aligned = -(-base // page) * page
    rows = buffer[aligned - base: aligned - base + 64 * page].reshape(128, page // 2)
    assert pages.will_need_rows(rows, np.array([40, 3, 0, 21, 5, 20, 1, 2, 40])) == 3
    assert batch.calls == [([aligned, aligned + 10 * page, aligned + 20 * page], [3 * page, page, page],
                            pages.MADV_WILLNEED)] and single == []
    assert pages.will_need_rows(rows, np.array([4, 5])) == 1  # one run: one plain madvise
    assert single == [(aligned + 2 * page, page)] and len(batch.calls) == 1
    single.clear()
    refused = RecordingBatch(works=False)  # refused (an old kernel, seccomp): the same runs one by one
    monkeypatch.setattr(pages, "_MADVISE_MANY", refused)
    assert pages.will_need_rows(rows, np.array([0, 21])) == 2
    assert single == [(aligned, page), (aligned + 10 * page, page)] and len(refused.calls) == 1


def test_the_batched_call_on_this_machine_or_its_fallback(tmp_path):
    """The real process_madvise: it works here (Linux 5.10+), or it fails once and is off from then on; either
    way the rows read back unchanged."""
    path = tmp_path / "rows.bin"
    np.arange(300 * 1024, dtype=np.float16).tofile(path)
    rows = np.memmap(path, dtype=np.float16, mode="r", shape=(300, 1024))
    batch = pages._Batch()
    first = batch.advise(np.array([int(rows.ctypes.data), int(rows.ctypes.data) + 40 * 2048]),
                         np.array([2048, 2048]), pages.MADV_WILLNEED)
    assert first or batch.off
    broken = pages._Batch()
    broken.call = lambda *args: -1
    assert not broken.advise(np.array([int(rows.ctypes.data)]), np.array([4096]), pages.MADV_WILLNEED)
    assert broken.off and not broken.advise(np.array([int(rows.ctypes.data)]), np.array([4096]), pages.MADV_WILLNEED)
    if first:  # after a fork the pidfd names the parent: the child opens its own and closes the copy
        opened = len(os.listdir("/proc/self/fd"))
        batch.pid = -2
        assert batch.advise(np.array([int(rows.ctypes.data)]), np.array([4096]), pages.MADV_WILLNEED)
        assert batch.pid == os.getpid() and len(os.listdir("/proc/self/fd")) == opened
    written = np.arange(300 * 1024, dtype=np.float16).reshape(300, 1024)
    assert np.array_equal(np.asarray(rows[[0, 40, 299]]), written[[0, 40, 299]])


def test_pages_are_kept_where_the_codes_fit_a_quarter_of_the_processs_memory(saved, monkeypatch):
    """Above RELEASE_ABOVE_BYTES, searched runs are given back only when the codes are more than 1/KEEP_SHARE of the
    memory the process may use (its cgroup's limit, or the RAM): a machine with memory to spare keeps them."""
    path, _ = saved
    dense = DenseIndex.load(path)
    codes = dense.index.ntotal * dense.index.code_size
    released = Released(dense)
    monkeypatch.setattr(pages, "release", released)
    monkeypatch.setattr(dense_module, "RECENT_RUN_BYTES", 1)
    q = np.ones(DIM, dtype=np.float32)
    monkeypatch.setattr(dense_module, "usable_memory", lambda: codes * dense_module.KEEP_SHARE)
    for lo in (0, 100, 200):
        dense.search_range(q, lo, lo + 100, 5)
    assert released.runs == []  # the codes are exactly a quarter: kept
    monkeypatch.setattr(dense_module, "usable_memory", lambda: codes * dense_module.KEEP_SHARE - 1)
    for lo in (0, 100):
        dense.search_range(q, lo, lo + 100, 5)
    assert released.runs == [(0, 100)]  # one byte less memory: the older run is given back
    monkeypatch.setattr(dense_module, "usable_memory", lambda: None)  # unknown (not Linux): the size alone decides
    dense.search_range(q, 300, 400, 5)
    assert released.runs == [(0, 100), (100, 200)]


def test_a_gather_asks_for_its_rows_first_only_where_pages_are_given_back(saved, monkeypatch):
    path, vectors = saved
    asked = []
    real = pages.will_need_rows
    monkeypatch.setattr(pages, "will_need_rows", lambda matrix, rows: asked.append(rows.tolist()) or real(matrix, rows))
    dense = DenseIndex.load(path)
    rows = np.array([4000, 7, 1500, 7])
    assert np.array_equal(dense.gather(rows), DenseIndex.from_vectors(vectors).vectors[rows])
    assert asked == [[4000, 7, 1500, 7]]
    q = vectors[1500]
    assert dense.search_rows(q, np.array([3, 1500, 2000]), 2) == \
        DenseIndex.from_vectors(vectors).search_rows(q, np.array([3, 1500, 2000]), 2)
    asked.clear()
    monkeypatch.setattr(dense_module, "RELEASE_ABOVE_BYTES", dense.index.ntotal * dense.index.code_size)
    dense.gather(rows)
    DenseIndex.from_vectors(vectors).gather(rows)  # in memory: nothing to read
    assert asked == []


def test_a_runs_rescore_reads_the_rows_its_scan_just_read_without_asking_again(saved, monkeypatch):
    """search_range re-scores rows its own scan has just read (resident): no read-ahead request for them, where a
    gather of rows found elsewhere (the global search's) still asks first. The results are the same."""
    path, vectors = saved
    dense = DenseIndex.load(path)
    monkeypatch.setattr(dense_module, "RELEASE_ABOVE_BYTES", 0)  # pages are given back: gathers read ahead
    asked = []
    real = pages.will_need_rows
    monkeypatch.setattr(pages, "will_need_rows", lambda matrix, rows: asked.append(rows.size) or real(matrix, rows))
    in_memory = DenseIndex.from_vectors(vectors)
    for lo, hi in ((0, 4096), (100, 300)):
        assert dense.search_range(vectors[150], lo, hi, 5) == in_memory.search_range(vectors[150], lo, hi, 5)
    assert asked == []
    assert dense.search(vectors[150], 5) == in_memory.search(vectors[150], 5)
    assert asked == [5 + dense_module.TIE_EXTRA]
