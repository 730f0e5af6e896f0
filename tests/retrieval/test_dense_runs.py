"""A contiguous run of rows (one problem's, the general documents') is scanned in place by FAISS's own
scanner; it must keep exactly the rows FAISS's search over the same run kept, ties included.

The reference is what `DenseIndex.search_range` did before: `index.search` with a range selector over the
whole index (long runs) or over a scratch index holding a copy of the run's codes (short runs).
"""

from __future__ import annotations

import faiss
import numpy as np
import pytest

from quest.retrieval.dense import TIE_EXTRA, DenseIndex, _best, _empty_index
from quest.retrieval.segments import SegmentedDense


def selector_rows(dense: DenseIndex, q: np.ndarray, lo: int, hi: int, keep: int) -> np.ndarray:
    params = faiss.SearchParameters(sel=faiss.IDSelectorRange(lo, hi))
    _, ids = dense.index.search(q, keep, params=params)
    return ids[0][ids[0] >= 0].astype(np.int64)


def scratch_rows(dense: DenseIndex, q: np.ndarray, lo: int, hi: int, keep: int) -> np.ndarray:
    scratch = _empty_index(dense.dim)
    scratch.add_sa_codes(dense.vectors[lo:hi].view(np.uint8))
    _, ids = scratch.search(q, keep)
    return ids[0][ids[0] >= 0].astype(np.int64) + lo


def reference(dense: DenseIndex, query: np.ndarray, lo: int, hi: int, k: int, kept) -> list[tuple[int, float]]:
    q = np.ascontiguousarray(query, dtype=np.float32).reshape(1, -1)
    rows = kept(dense, q, lo, hi, min(k + TIE_EXTRA, hi - lo))
    sims = dense.rescore(rows, q)
    return [(int(rows[i]), float(sims[i])) for i in _best(sims, k, rows)]


def tied_vectors(rng: np.random.Generator, n: int, dim: int, distinct: int) -> np.ndarray:
    """`n` unit rows drawn from only `distinct` vectors: whole groups score exactly the same."""
    pool = rng.standard_normal((distinct, dim)).astype(np.float32)
    pool /= np.linalg.norm(pool, axis=1, keepdims=True)
    return pool[rng.integers(0, distinct, n)]


@pytest.mark.parametrize("distinct", [4, 40, 10**6])  # heavy ties, some ties, (almost) none
def test_a_run_keeps_the_rows_faiss_search_kept(distinct):
    rng = np.random.default_rng(distinct % 1000)
    n = 3000 if distinct < 10**6 else 2000
    vectors = tied_vectors(rng, n, 48, min(distinct, n))
    dense = DenseIndex.from_vectors(vectors)
    runs = [(0, n), (0, 1), (17, 18 + TIE_EXTRA), (500, n - 400), (n - 700, n)]
    for _ in range(6):
        query = rng.standard_normal(48).astype(np.float32)
        q = query.reshape(1, -1)
        for lo, hi in runs:
            for k in (1, 5, 30, 200):
                keep = min(k + TIE_EXTRA, hi - lo)
                scanned = dense._scan_run(q, lo, hi, keep)
                assert sorted(scanned.tolist()) == sorted(selector_rows(dense, q, lo, hi, keep).tolist())
                assert sorted(scanned.tolist()) == sorted(scratch_rows(dense, q, lo, hi, keep).tolist())
                found = dense.search_range(query, lo, hi, k)
                assert found == reference(dense, query, lo, hi, k, selector_rows)  # rows and scores, exactly
                assert found == reference(dense, query, lo, hi, k, scratch_rows)


def test_heavy_ties_are_cut_as_faiss_cut_them():
    """More tied rows than the search keeps: which of them survive is FAISS's heap's choice, and it stays."""
    rng = np.random.default_rng(5)
    vectors = tied_vectors(rng, 1000, 16, 2)
    dense = DenseIndex.from_vectors(vectors)
    query = vectors[0] + 0.01
    for lo, hi, k in ((0, 1000, 10), (100, 900, 3), (240, 300, 4)):
        found = dense.search_range(query, lo, hi, k)
        assert found == reference(dense, query, lo, hi, k, selector_rows)
        best = vectors[lo:hi].astype(np.float16).astype(np.float32) @ query.astype(np.float32)
        assert len({s for _, s in found}) == 1 and len(found) == k  # the k are all tied at the best score
        assert np.sum(np.isclose(best, found[0][1], rtol=0, atol=1e-6)) > k


def test_the_general_documents_run_through_segments_equals_the_old_search():
    """SegmentedDense.search_rows over a long contiguous run (the general documents in a grouped base)."""
    rng = np.random.default_rng(11)
    vectors = tied_vectors(rng, 4000, 32, 300)
    base = DenseIndex.from_vectors(vectors[:3500])
    delta = DenseIndex.from_vectors(vectors[3500:])
    deleted = np.zeros(4000, dtype=bool)
    dense = SegmentedDense([base, delta], np.array([0, 3500, 4000]), deleted, 32)
    general = np.arange(400, 1200)  # 800 rows: under a quarter of the base, one run
    for _ in range(10):
        query = rng.standard_normal(32).astype(np.float32)
        assert dense._runs(general) == [(0, 400, 1200)]
        assert dense.search_rows(query, general, 30) == reference(base, query, 400, 1200, 30, selector_rows)


def test_one_scanner_per_thread_is_reused():
    dense = DenseIndex.from_vectors(np.eye(8, dtype=np.float32))
    assert dense._scanner() is dense._scanner()
    assert dense.search_range(np.eye(8, dtype=np.float32)[3], 0, 8, 1) == [(3, 1.0)]
    assert dense.search_range(np.eye(8, dtype=np.float32)[6], 2, 8, 1) == [(6, 1.0)]


def test_a_read_only_row_set_searched_again_keeps_its_live_rows_and_runs(monkeypatch):
    """The general documents are the same read-only array on every request: their live rows and runs are found
    once and kept (by identity), and every search gives what a fresh (writeable) copy of the rows gives, deleted
    rows left out. Another row set is kept beside it (tests/retrieval/test_dense_scopes.py)."""
    rng = np.random.default_rng(7)
    vectors = tied_vectors(rng, 600, 32, 40)
    parts = [DenseIndex.from_vectors(vectors[:400]), DenseIndex.from_vectors(vectors[400:])]
    deleted = np.zeros(600, dtype=bool)
    deleted[[3, 50, 410]] = True
    dense = SegmentedDense(parts, np.asarray([0, 400, 600]), deleted, 32)
    general = np.concatenate([np.arange(0, 60), np.arange(380, 420)]).astype(np.int64)  # two runs, two segments
    general.flags.writeable = False
    found = []
    real = SegmentedDense._runs
    monkeypatch.setattr(SegmentedDense, "_runs", lambda self, rows: found.append(rows.size) or real(self, rows))
    for _ in range(4):
        query = rng.standard_normal(32).astype(np.float32)
        for k in (1, 5, 30, 200):
            assert dense.search_rows(query, general, k) == dense.search_rows(query, general.copy(), k)
            assert all(r not in (3, 50, 410) for r, _ in dense.search_rows(query, general, k))
    copies = 4 * 4  # every writeable copy finds its runs; the read-only array only the first time
    assert found == [97] * (copies + 1)
    other = np.arange(100, 140, dtype=np.int64)
    other.flags.writeable = False
    dense.search_rows(rng.standard_normal(32).astype(np.float32), other, 5)
    assert dense._scopes[id(other)].asked is other and dense._scopes[id(general)].asked is general
