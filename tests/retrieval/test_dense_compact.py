"""The general documents' run as 8-bit codes (dense.CompactRun): the first pass bounds every row's float16 score, and
the search over the candidates keeps exactly what FAISS's scan of the whole run keeps (rows, scores, ties)."""

from __future__ import annotations

import importlib.util
import logging

import numpy as np
import pytest

from quest.kb.markdown import load_knowledge_base
from quest.retrieval import dense as dense_module
from quest.retrieval import kernels
from quest.retrieval import retriever as retriever_module
from quest.retrieval.dense import CompactRun, DenseIndex
from quest.retrieval.index import index_dir_for, load_index, open_index
from quest.retrieval.retriever import Retriever
from quest.retrieval.segments import SegmentedDense
from tests.fakes.embedder import HashingEmbedder
from tests.retrieval.test_dense_runs import reference, selector_rows, tied_vectors

HAVE_NUMBA = importlib.util.find_spec("numba") is not None
needs_numba = pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not installed: pip install -e \".[fast]\"")


def blas_scores(codes: np.ndarray, lo: int, hi: int, weights: np.ndarray) -> np.ndarray:
    """The first pass without numba: a float32 BLAS product (another summation order, inside the same bound)."""
    return codes[lo:hi].astype(np.float32) @ weights


class Recording:
    """A scorer that records its calls and answers through another one (or fails, if told to)."""

    def __init__(self, real=blas_scores, fail: BaseException | None = None) -> None:
        self.real, self.fail, self.calls = real, fail, []

    def __call__(self, codes, lo, hi, weights):
        self.calls.append((lo, hi))
        if self.fail is not None:
            raise self.fail
        return self.real(codes, lo, hi, weights)


def shapes(rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Row sets that stress the bound: plain unit rows, heavy ties, one dimension far wider than the rest, and
    constant dimensions (a zero step)."""
    unit = rng.standard_normal((1500, 64)).astype(np.float32)
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    wide = unit.copy()
    wide[:, 3] *= 9
    constant = unit.copy()
    constant[:, :5] = 0.125
    return {"unit": unit, "tied": tied_vectors(rng, 1500, 64, 12), "wide": wide, "constant": constant}


@pytest.mark.parametrize("shape", ["unit", "tied", "wide", "constant"])
def test_the_bound_holds_for_every_row(shape):
    """|FAISS's float16 score - constant - first-pass score| <= bound(q), for every row and query."""
    rng = np.random.default_rng(3)
    vectors = shapes(rng)[shape]
    dense = DenseIndex.from_vectors(vectors)
    run = CompactRun.encode(dense.vectors, 200, 1400)
    for scale in (1.0, 1.0, 40.0, 1e-3):
        query = rng.standard_normal(64)
        query = (query / np.linalg.norm(query) * scale).astype(np.float32)
        q = query.reshape(1, -1)
        faiss_scores, ids = dense.index.search(q, dense.size)
        by_row = np.empty(dense.size, dtype=np.float64)
        by_row[ids[0]] = faiss_scores[0]
        weights = run.weights(query)
        approx = blas_scores(run.codes, 0, run.hi - run.lo, weights).astype(np.float64)
        constant = float(query.astype(np.float64) @ run.low.astype(np.float64))
        gap = np.abs(by_row[200:1400] - constant - approx)
        bound = run.bound(query, weights)
        assert gap.max() <= bound
        assert bound < 0.05 * scale  # and it is not vacuous: ~1% of a unit query's score range
    assert run.codes.dtype == np.uint8 and run.codes.shape == (1200, 64) and not run.codes.flags.writeable


@pytest.mark.parametrize("shape", ["unit", "tied", "wide", "constant"])
def test_the_search_over_candidates_keeps_what_the_full_scan_keeps(shape):
    rng = np.random.default_rng(8)
    vectors = shapes(rng)[shape]
    dense = DenseIndex.from_vectors(vectors)
    scores = Recording()
    assert dense.compact_run(100, 1500, scores) if dense_module.COMPACT_FROM <= 1400 else True
    dense._compact = (CompactRun.encode(dense.vectors, 100, 1500),)
    dense._compact_scores = scores
    kept = dense._compact
    for _ in range(5):
        query = rng.standard_normal(64).astype(np.float32)
        for lo, hi in ((100, 1500), (100, 101), (300, 1200), (1450, 1500), (0, 1500)):  # the last is not covered
            for k in (1, 5, 30, 200, 1400):
                dense._compact = ()
                full = dense.search_range(query, lo, hi, k)
                dense._compact = kept
                assert dense.search_range(query, lo, hi, k) == full  # rows and float32 scores, exactly
                assert full == reference(dense, query, lo, hi, k, selector_rows)
    # the covered runs longer than k + TIE_EXTRA went through the first pass, over their own rows in the codes
    assert (200, 1100) in scores.calls and (0, 1400) in scores.calls and (1350, 1400) in scores.calls
    assert all(hi <= 1400 for _, hi in scores.calls)


def test_candidates_are_few_and_contain_the_kept_rows():
    rng = np.random.default_rng(1)
    vectors = shapes(rng)["unit"]
    dense = DenseIndex.from_vectors(vectors)
    run = CompactRun.encode(dense.vectors, 0, 1500)
    for _ in range(10):
        query = rng.standard_normal(64).astype(np.float32)
        query /= np.linalg.norm(query)
        found = run.candidates(query, 0, 1500, 46, blas_scores)
        kept = dense._scan_run(query.reshape(1, -1), 0, 1500, 46)
        assert set(kept.tolist()) <= set(found.tolist())
        assert np.all(np.diff(found) > 0) and found.size < 1500 // 2


def test_a_query_with_no_finite_bound_keeps_every_row():
    dense = DenseIndex.from_vectors(shapes(np.random.default_rng(9))["unit"])
    run = CompactRun.encode(dense.vectors, 0, 1500)
    query = np.zeros(64, dtype=np.float32)
    query[2] = np.nan
    assert np.array_equal(run.candidates(query, 10, 1400, 46, blas_scores), np.arange(10, 1400))


def test_only_long_runs_and_up_to_a_share_of_the_segment_get_codes(monkeypatch):
    monkeypatch.setattr(dense_module, "COMPACT_FROM", 100)
    monkeypatch.setattr(dense_module, "COMPACT_SHARE", 4)  # at most 375 of 1500 rows
    dense = DenseIndex.from_vectors(shapes(np.random.default_rng(2))["unit"])
    assert not dense.compact_run(0, 99, blas_scores)  # too short
    assert not dense.compact_run(0, 376, blas_scores)  # past the share
    assert dense.compact_run(100, 400, blas_scores)
    assert dense.compact_run(150, 300, blas_scores)  # inside the first: no new codes
    assert not dense.compact_run(500, 600, blas_scores)  # 300 + 100 rows would pass the share
    assert [(c.lo, c.hi) for c in dense._compact] == [(100, 400)]
    assert dense._covering(120, 400) is dense._compact[0] and dense._covering(99, 200) is None


def test_a_failing_first_pass_falls_back_to_the_full_scan(caplog):
    rng = np.random.default_rng(4)
    dense = DenseIndex.from_vectors(shapes(rng)["unit"])
    dense._compact = (CompactRun.encode(dense.vectors, 0, 1500),)
    dense._compact_scores = Recording(fail=RuntimeError("boom"))
    query = rng.standard_normal(64).astype(np.float32)
    with caplog.at_level(logging.WARNING, logger="quest.retrieval.dense"):
        found = dense.search_range(query, 0, 1500, 30)
        again = dense.search_range(query, 0, 1500, 30)
    assert found == again == reference(dense, query, 0, 1500, 30, selector_rows)
    assert dense._compact == () and len(dense._compact_scores.calls) == 1
    assert [r.levelno for r in caplog.records] == [logging.WARNING] and "boom" in caplog.records[0].getMessage()


def test_segments_give_codes_to_the_general_runs_only(monkeypatch):
    """SegmentedDense.compact: each long live run of the rows (split by deleted rows and segments) gets codes."""
    monkeypatch.setattr(dense_module, "COMPACT_FROM", 50)
    monkeypatch.setattr(dense_module, "COMPACT_SHARE", 2)
    rng = np.random.default_rng(6)
    vectors = shapes(rng)["unit"]
    parts = [DenseIndex.from_vectors(vectors[:1000]), DenseIndex.from_vectors(vectors[1000:])]
    deleted = np.zeros(1500, dtype=bool)
    deleted[[120, 1010]] = True
    dense = SegmentedDense(parts, np.asarray([0, 1000, 1500]), deleted, 64)
    general = np.concatenate([np.arange(0, 200), np.arange(960, 1100)]).astype(np.int64)
    general.flags.writeable = False
    assert dense.compact(general, blas_scores) == (120 + 79 + 89) * 64
    assert [(c.lo, c.hi) for c in parts[0]._compact] == [(0, 120), (121, 200)]  # (960, 1000): 40 rows, too short
    assert [(c.lo, c.hi) for c in parts[1]._compact] == [(11, 100)]
    for _ in range(5):
        query = rng.standard_normal(64).astype(np.float32)
        expected = dense.search_rows(query, general.copy(), 30)
        assert dense.search_rows(query, general, 30) == expected


@pytest.fixture
def loaded(settings, kb_dir, monkeypatch):
    monkeypatch.setattr(retriever_module, "PRUNE_FROM", 0)
    embedder = HashingEmbedder(lexical=True)
    kb = load_knowledge_base(kb_dir)
    open_index(kb, settings, embedder)
    return load_index(index_dir_for(settings, embedder.name)), kb, embedder


QUERIES = ("hash table two sum", "滑动窗口 超时", "RecursionError deep recursion", "list.pop(0) TLE",
           "dictionary lookup complement", "recursion", "wrong answer on large input", "how do I read input fast")


def hits(retriever: Retriever) -> list:
    return [[(h.chunk.id, h.fused, h.score, sorted(h.signals.items())) for h in retriever.search(q).hits]
            for q in QUERIES]


@needs_numba
def test_the_retriever_gives_the_general_documents_codes_with_the_compiled_pass(loaded, settings, monkeypatch):
    """Made with the compiled extra, the retriever hands its general rows and the compiled pass to the dense index;
    with the numpy path it keeps no codes. (The small base's general documents are too few to be a run: the
    searches above prove what the codes change, which is nothing in the results.)"""
    index, kb, embedder = loaded
    asked = []
    real = SegmentedDense.compact
    monkeypatch.setattr(SegmentedDense, "compact", lambda self, rows, scores: asked.append((rows, scores)) or
                        real(self, rows, scores))
    plain = Retriever(settings.replace(sparse_kernel="numpy"), index, kb, embedder)
    assert asked == [] and plain.compact_bytes == 0
    fast = Retriever(settings.replace(sparse_kernel="auto"), index, kb, embedder)
    assert len(asked) == 1 and asked[0][0] is fast._general_rows
    assert asked[0][1].__self__ is fast._kernel and asked[0][1].__func__ is kernels.Kernel.compact_scores
    assert fast.compact_bytes == 0  # 4 of 16 rows: not a run
    assert hits(fast) == hits(plain) and any(hits(plain))


@needs_numba
def test_codes_that_cannot_be_made_leave_the_float16_scan(loaded, settings, monkeypatch, caplog):
    index, kb, embedder = loaded

    def refuse(self, rows, scores):
        raise MemoryError("no room for the codes")

    plain = hits(Retriever(settings.replace(sparse_kernel="numpy"), index, kb, embedder))
    monkeypatch.setattr(SegmentedDense, "compact", refuse)
    with caplog.at_level(logging.WARNING, logger="quest.retrieval.retriever"):
        fast = Retriever(settings.replace(sparse_kernel="auto"), index, kb, embedder)
    assert fast.compact_bytes == 0 and fast._kernel is not None  # the sparse kernel stays
    assert [r.getMessage() for r in caplog.records if r.name == "quest.retrieval.retriever"] == [
        "the general documents' 8-bit codes could not be made (MemoryError: no room for the codes); their dense "
        "search scans the float16 rows"]
    assert hits(fast) == plain
