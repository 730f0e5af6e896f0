"""The IVF lists as 4-bit codes (8-bit before) re-scored from float16, and mapped files read without read-around."""

import faiss
import numpy as np
import pytest

import quest.retrieval.dense as dense_module
from quest.retrieval import compaction, pages
from quest.retrieval.dense import DenseIndex, cosines


def unit(rows):
    rows = np.asarray(rows, dtype=np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def clustered(seed=5, clusters=12, per=60, dim=48, noise=0.15):
    """Clusters around random unit centres: a query at a centre has its cluster as its nearest rows."""
    rng = np.random.default_rng(seed)
    centres = unit(rng.normal(size=(clusters, dim)))
    vectors = unit(np.repeat(centres, per, axis=0) + rng.normal(scale=noise / np.sqrt(dim), size=(clusters * per, dim)))
    return centres, vectors


def test_ivf_codes_are_half_a_byte_per_dimension_and_the_nearest_cluster_is_found_whole():
    centres, vectors = clustered()
    index = DenseIndex.from_vectors(vectors)
    index.build_approximate(nlist=12)
    assert index.ivf.sq.qtype == faiss.ScalarQuantizer.QT_4bit and index.ivf.code_size == 24
    for c in (0, 5, 11):  # the query is cluster c's centre: its 60 rows are the top 60, every other row far below
        got = index.search(centres[c], 60)
        assert sorted(r for r, _ in got) == list(range(c * 60, c * 60 + 60))


def test_with_every_list_probed_the_ivf_path_equals_the_exact_scan_bit_for_bit(monkeypatch):
    rng = np.random.default_rng(8)
    _, vectors = clustered(seed=8, noise=0.6)
    index = DenseIndex.from_vectors(vectors)
    index.build_approximate(nlist=12)
    monkeypatch.setattr(dense_module, "NPROBE", 12)
    for _ in range(10):
        q = unit(rng.normal(size=(1, 48)))[0]
        # 4-bit codes order the candidates approximately; the 8 x k re-scored from float16 hold the exact top k.
        assert index.search(q, 30) == index.search(q, 30, exact=True)


def test_the_scores_come_from_the_float16_rows_whatever_found_them():
    _, vectors = clustered(seed=9)
    index = DenseIndex.from_vectors(vectors)
    index.build_approximate(nlist=12)
    q = vectors[100]
    stored = index.vectors.astype(np.float32)
    for row, score in index.search(q, 30):
        assert score == float(np.einsum("j,j->", stored[row], q))


def test_cosines_of_a_row_do_not_depend_on_the_other_rows():
    rng = np.random.default_rng(1)
    rows = rng.normal(size=(130, 1024)).astype(np.float16).astype(np.float32)
    q = rng.normal(size=1024).astype(np.float32)
    whole = cosines(rows, q)
    for n in (1, 3, 7, 30, 31, 129):
        np.testing.assert_array_equal(cosines(rows[:n], q), whole[:n])
    order = rng.permutation(130)
    np.testing.assert_array_equal(cosines(rows[order], q), whole[order])


def test_saved_ivf_loads_memory_mapped_and_answers_the_same(tmp_path):
    centres, vectors = clustered(seed=3)
    index = DenseIndex.from_vectors(vectors)
    index.build_approximate(nlist=12)
    index.save(tmp_path / "d.faiss")
    index.save_approximate(tmp_path / "d.ivf")
    loaded = DenseIndex.load(tmp_path / "d.faiss")
    assert loaded._mapped_lists() is None
    loaded.load_approximate(tmp_path / "d.ivf")
    assert loaded._mapped_lists() is not None and index._mapped_lists() is None  # in memory: nothing to advise
    loaded.advise_random()
    mask = np.ones(index.size, dtype=bool)
    mask[::3] = False
    for q in (centres[2], centres[7], vectors[500]):
        assert loaded.search(q, 30) == index.search(q, 30)
        assert loaded.search(q, 10, mask) == index.search(q, 10, mask)
        assert all(r % 3 for r, _ in loaded.search(q, 10, mask))


def test_an_ivf_with_float16_codes_written_by_the_previous_version_still_loads_and_searches(tmp_path, monkeypatch):
    centres, vectors = clustered(seed=4)
    monkeypatch.setattr(dense_module, "IVF_CODES", faiss.ScalarQuantizer.QT_fp16)
    old = DenseIndex.from_vectors(vectors)
    old.build_approximate(nlist=12)
    assert old.ivf.code_size == 48 * 2
    old.save(tmp_path / "d.faiss")
    old.save_approximate(tmp_path / "d.ivf")
    monkeypatch.undo()
    loaded = DenseIndex.load(tmp_path / "d.faiss")
    loaded.load_approximate(tmp_path / "d.ivf")
    loaded.advise_random()
    assert loaded.ivf.sq.qtype == faiss.ScalarQuantizer.QT_fp16
    assert sorted(r for r, _ in loaded.search(centres[4], 60)) == list(range(240, 300))


def test_an_ivf_with_8_bit_codes_written_by_the_previous_version_still_loads_and_searches(tmp_path, monkeypatch):
    rng = np.random.default_rng(12)
    _, vectors = clustered(seed=12, noise=0.6)
    monkeypatch.setattr(dense_module, "IVF_CODES", faiss.ScalarQuantizer.QT_8bit)
    old = DenseIndex.from_vectors(vectors)
    old.build_approximate(nlist=12)
    old.save(tmp_path / "d.faiss")
    old.save_approximate(tmp_path / "d.ivf")
    monkeypatch.undo()
    loaded = DenseIndex.load(tmp_path / "d.faiss")
    loaded.load_approximate(tmp_path / "d.ivf")
    assert loaded.ivf.sq.qtype == faiss.ScalarQuantizer.QT_8bit and loaded.ivf.code_size == 48
    monkeypatch.setattr(dense_module, "NPROBE", 12)
    for _ in range(5):
        q = unit(rng.normal(size=(1, 48)))[0]
        assert loaded.search(q, 30) == loaded.search(q, 30, exact=True)


def test_the_streamed_ivf_file_has_the_4_bit_codes_and_equals_faiss_own(tmp_path):
    _, vectors = clustered(seed=6)
    dense = DenseIndex.from_vectors(vectors)
    dense.save(tmp_path / "d.faiss")
    mapped = DenseIndex.load(tmp_path / "d.faiss")
    mapped.advise_random()  # as a loaded segment is: the bulk reader asks for its blocks itself
    compaction._ivf_writer(mapped)(tmp_path / "streamed.ivf")
    dense.build_approximate()
    faiss.write_index(dense.ivf, str(tmp_path / "faiss.ivf"))
    assert (tmp_path / "streamed.ivf").read_bytes() == (tmp_path / "faiss.ivf").read_bytes()
    assert faiss.read_index(str(tmp_path / "streamed.ivf")).sq.qtype == faiss.ScalarQuantizer.QT_4bit


def _vm_flags(path) -> list[str]:
    """The VmFlags of this process's mappings of `path` (Linux /proc/self/smaps)."""
    flags, current = [], None
    with open("/proc/self/smaps", encoding="utf-8") as fh:
        for line in fh:
            head = line.split()
            if head and "-" in head[0] and len(head) >= 5:
                current = head[5] if len(head) > 5 else None
            elif line.startswith("VmFlags:") and current == str(path):
                flags.append(line.split()[1:])
    return flags


@pytest.mark.skipif(pages._MADVISE is None, reason="no madvise on this platform")
def test_a_loaded_index_is_marked_random_read_so_a_fault_reads_its_own_page(tmp_path):
    _, vectors = clustered(seed=2, clusters=40, per=100)
    index = DenseIndex.from_vectors(vectors)
    index.build_approximate(nlist=16)
    index.save(tmp_path / "d.faiss")
    index.save_approximate(tmp_path / "d.ivf")
    loaded = DenseIndex.load(tmp_path / "d.faiss")
    loaded.load_approximate(tmp_path / "d.ivf")
    # FAISS maps the flat file random-read itself (IO_FLAG_MMAP_IFC), but not the IVF's lists.
    assert all("rr" not in f for f in _vm_flags(tmp_path / "d.ivf"))
    loaded.advise_random()
    for path in (tmp_path / "d.faiss", tmp_path / "d.ivf"):
        flags = _vm_flags(path)
        assert flags and any("rr" in f for f in flags), path  # "rr": MADV_RANDOM, no read-around
    assert pages.will_need(loaded.vectors[100:200])
    assert not pages.will_need(loaded.vectors[:0])


@pytest.mark.skipif(not hasattr(__import__("mmap"), "MADV_RANDOM"), reason="no madvise on this platform")
def test_the_chunk_records_are_mapped_random_read_and_still_decode_exactly(tmp_path):
    from quest.retrieval.chunktable import ChunkTable
    from tests.retrieval.test_chunktable import CHUNKS, saved

    opened = saved(ChunkTable.from_chunks(CHUNKS), tmp_path)
    flags = _vm_flags(tmp_path / "r.jsonl")
    assert flags and all("rr" in f for f in flags)  # a hit's record: its own pages, no read-around
    assert list(opened) == CHUNKS


def test_the_bench_reports_quest_own_global_path_with_its_recall(monkeypatch):
    from quest.bench import compare
    from quest.retrieval.segments import SegmentedDense

    centres, vectors = clustered(seed=7)
    part = DenseIndex.from_vectors(vectors)
    part.build_approximate(nlist=12)
    monkeypatch.setattr(dense_module, "NPROBE", 12)  # every list: Quest's path finds the exact top 30
    dense = SegmentedDense([part], np.array([0, part.size]), np.zeros(part.size, dtype=bool), 48)
    out = compare.approximate(dense, centres[:4], hnsw_up_to=0)
    rows = {m["method"]: m for m in out["methods"]}
    ours = rows["Quest: IVF12,SQ4bit + float16 re-score of 8k"]
    assert ours["recall_at_30"] == 1.0 and ours["nprobe"] == 12 and ours["extra_bytes"] == part.size * (24 + 8)
    own_order = [m["nprobe"] for m in out["methods"] if m["method"] == "IVF12,SQ4bit (its own order)"]
    assert own_order == [8, 16, 32, 64, 128]
