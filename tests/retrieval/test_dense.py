import numpy as np

from quest.retrieval.dense import DenseIndex


def unit(rows):
    rows = np.asarray(rows, dtype=np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_global_search_is_cosine_order():
    index = DenseIndex.from_vectors(unit([[1, 0], [0.7, 0.7], [0, 1], [-1, 0]]))
    hits = index.search(unit([[1, 0.1]])[0], 4)
    assert [row for row, _ in hits] == [0, 1, 2, 3]
    assert abs(hits[0][1] - float(unit([[1, 0.1]])[0] @ np.array([1, 0]))) < 1e-6


def test_restricted_search_is_exact_over_the_given_rows_only():
    rng = np.random.default_rng(0)
    vectors = unit(rng.normal(size=(500, 16)))
    index = DenseIndex.from_vectors(vectors)
    rows = np.array([3, 50, 77, 400, 499])
    q = unit(rng.normal(size=(1, 16)))[0]
    got = index.search_rows(q, rows, 3)
    expected = sorted(rows, key=lambda r: -float(vectors[r] @ q))[:3]
    assert [row for row, _ in got] == expected
    assert all(row in rows for row, _ in got)
    for row, score in got:  # negative similarities are reported as they are
        stored = vectors[row].astype(np.float16).astype(np.float32)  # rows are kept as float16
        assert abs(score - float(stored @ q)) < 1e-6
        assert abs(score - float(vectors[row] @ q)) < 2e-3


def test_with_rows_and_save_load_round_trip(tmp_path):
    vectors = unit(np.eye(4) + 0.1)
    index = DenseIndex.from_vectors(vectors).with_rows(np.array([0, 2]), unit([[0, 0, 0, 1.0]]))
    assert index.size == 3
    np.testing.assert_allclose(index.vectors[2], [0, 0, 0, 1.0])
    index.save(tmp_path / "d.faiss")
    loaded = DenseIndex.load(tmp_path / "d.faiss")
    np.testing.assert_array_equal(loaded.vectors, index.vectors)
    assert loaded.search(index.vectors[1], 1)[0][0] == 1


def test_approximate_global_search_visits_lists_and_respects_the_mask(tmp_path, monkeypatch):
    import quest.retrieval.dense as dense_module

    rng = np.random.default_rng(3)
    centres = unit(rng.normal(size=(16, 32)))
    vectors = unit(np.repeat(centres, 100, axis=0) + rng.normal(scale=0.1, size=(1600, 32)))
    exact = DenseIndex.from_vectors(vectors)
    approx = DenseIndex.from_vectors(vectors)
    approx.build_approximate(nlist=16)
    q = unit(centres[:1] + 0.05)[0]
    monkeypatch.setattr(dense_module, "NPROBE", 16)  # every list: must equal the exact scan
    assert approx.search(q, 30) == exact.search(q, 30)
    allowed = np.ones(1600, dtype=bool)
    allowed[[r for r, _ in exact.search(q, 5)]] = False  # deleted rows never come back
    assert approx.search(q, 10, allowed) == exact.search(q, 10, allowed)
    monkeypatch.setattr(dense_module, "NPROBE", 1)  # one list: only the nearest cluster, still re-scored exactly
    got = approx.search(q, 30)
    assert all(r < 100 for r, _ in got) and all(abs(s - float(approx.rescore(np.array([r]), q)[0])) < 1e-6
                                                for r, s in got)
    approx.save(tmp_path / "d.faiss")
    approx.save_approximate(tmp_path / "d.ivf")
    loaded = DenseIndex.load(tmp_path / "d.faiss")
    loaded.load_approximate(tmp_path / "d.ivf")
    assert loaded.search(q, 30) == got


def test_faiss_searches_on_search_threads_in_every_thread():
    """OpenMP keeps its thread count per OS thread: the limit set when dense.py is imported holds for the importing
    thread only. A Gradio worker or a quest-search pool thread gets it before its first search."""
    import threading

    import faiss

    import quest.retrieval.dense as dense_module
    from quest.retrieval import parallel

    rng = np.random.default_rng(5)
    vectors = unit(rng.normal(size=(400, 16)))
    index = DenseIndex.from_vectors(vectors)
    seen: dict[str, int] = {}

    def worker(name: str, count_before: int | None) -> None:
        if count_before is not None:  # (a fresh thread starts at the machine's core count; 3 fails on one core too)
            faiss.omp_set_num_threads(count_before)
        seen[f"{name} before"] = faiss.omp_get_max_threads()
        index.search(vectors[0], 5, exact=True)
        seen[name] = faiss.omp_get_max_threads()

    for name, count_before in (("fresh", None), ("three", 3)):
        thread = threading.Thread(target=worker, args=(name, count_before))
        thread.start()
        thread.join(10)
    assert seen["three before"] == 3
    assert seen["fresh"] == seen["three"] == dense_module.SEARCH_THREADS == 1
    # the pool's threads start limited, before any search of theirs
    assert parallel._pool(2).submit(faiss.omp_get_max_threads).result(10) == dense_module.SEARCH_THREADS
