"""Streamed compaction (quest/retrieval/compaction.py): the files the in-memory path writes, the same
results as a full rebuild, and a compaction killed halfway leaves the previous index readable."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import faiss
import numpy as np
import pytest
import scipy.sparse as sp

from quest.bench.corpus import edited, generate
from quest.kb.documents import KnowledgeBase
from quest.retrieval import compaction
from quest.retrieval import dense as dense_module
from quest.retrieval.dense import DenseIndex
from quest.retrieval.index import (
    Index,
    build_index,
    compact_and_save,
    compact_index,
    index_dir_for,
    load_index,
    open_index,
    save_index,
    update_index,
)
from quest.retrieval.retriever import Retriever
from quest.settings import Settings
from tests.fakes.embedder import HashingEmbedder
from tests.retrieval.test_segments import QUERIES, ranked

EMBEDDER = HashingEmbedder(dim=64, lexical=True)


@pytest.fixture(scope="module")
def corpus():
    return generate(600)  # 20-odd problems and general documents, interleaved by document


def changed(kb: KnowledgeBase, step: int, offset: int) -> KnowledgeBase:
    """Every `step`-th document (from `offset`) edited and the one after it removed."""
    docs = []
    for i, doc in enumerate(kb.documents):
        if i % step == (offset + 1) % step:
            continue
        docs.append(edited(doc, seed=offset) if i % step == offset else doc)
    return dataclasses.replace(kb, documents=tuple(docs))


def with_deltas(kb: KnowledgeBase, folder: Path, settings: Settings) -> tuple[Index, KnowledgeBase]:
    """A saved base and three saved deltas (edits, removals, an edit of an edited document), then one
    more delta in memory only, as `open_index` compacts it: deleted rows in every segment."""
    index = build_index(kb, settings, EMBEDDER)
    save_index(index, folder)
    for step, offset in ((9, 0), (13, 4), (9, 0), (17, 2)):
        index = load_index(folder)
        kb = changed(kb, step, offset)
        index, report = update_index(index, kb, settings, EMBEDDER)
        assert report.action == "updated"
        if offset != 2:
            save_index(index, folder)
    assert len(index.segments) == 5 and index.segments[-1].stored is None
    assert all(index.deleted[a:b].any() for a, b in zip(index.bm25.offsets[:-2], index.bm25.offsets[1:-1],
                                                         strict=True))
    return index, kb


def assert_same_files(streamed: Path, in_memory: Path) -> None:
    """Every file byte for byte; an .npz member by member (a zip entry also records when it was written)."""
    names = sorted(p.name for p in in_memory.iterdir())
    assert sorted(p.name for p in streamed.iterdir() if p.name != "manifest.json") == [
        n for n in names if n != "manifest.json"]
    for name in names:
        if name == "manifest.json":
            continue
        if name.endswith(".npz"):
            with zipfile.ZipFile(streamed / name) as a, zipfile.ZipFile(in_memory / name) as b:
                assert [i.filename for i in a.infolist()] == [i.filename for i in b.infolist()], name
                for member in b.namelist():
                    assert a.read(member) == b.read(member), f"{name}: {member}"
        else:
            assert (streamed / name).read_bytes() == (in_memory / name).read_bytes(), name
    ours, theirs = (json.loads((f / "manifest.json").read_text(encoding="utf-8")) for f in (streamed, in_memory))
    for manifest in (ours, theirs):
        manifest.pop("saved_at")
        for entry in manifest["segments"]:
            for file, meta in entry["files"].items():
                meta.pop("sha256") if file.endswith(".npz") else None
    assert ours == theirs


def results(index: Index, kb: KnowledgeBase, settings: Settings, embedder: HashingEmbedder = EMBEDDER) -> list:
    retriever = Retriever(settings, index, kb, embedder)
    problems = sorted(index.rows_by_problem)[:4]
    out = []
    for i, pid in enumerate([*problems, None]):
        text = " ".join(index.chunks[int(index.rows_by_problem[problems[i % len(problems)]][0])].text.split()[:20])
        out.append([(h.chunk.id, h.fused, h.score) for h in retriever.search(text, problem_id=pid).hits])
    return out


@pytest.mark.parametrize("variant", ["exact", "with IVF", "tiny blocks"])
def test_a_streamed_compaction_writes_the_in_memory_compactions_files(corpus, tmp_path, monkeypatch, variant):
    if variant != "exact":  # the new base is large enough for an IVF index
        monkeypatch.setattr(dense_module, "APPROXIMATE_FROM", 100)
    if variant == "tiny blocks":  # every merge, copy and list write cut into many blocks
        for name, value in (("BLOCK_ENTRIES", 7), ("BLOCK_ROWS", 3), ("BLOCK_BYTES", 5)):
            monkeypatch.setattr(compaction, name, value)
        monkeypatch.setattr(dense_module, "ADD_BATCH", 97)
    settings = Settings(show_progress=False)
    index, kb = with_deltas(corpus.kb, tmp_path / "index", settings)
    shutil.copytree(tmp_path / "index", tmp_path / "memory")

    expected = compact_index(index)
    save_index(expected, tmp_path / "memory")
    timings: dict[str, float] = {}
    streamed = compact_and_save(index, tmp_path / "index", timings)

    assert_same_files(tmp_path / "index", tmp_path / "memory")
    assert {"bm25.npz", "dense.faiss", "lexical.npz", "manifest_write"} <= timings.keys()
    assert ("ivf.faiss" in timings) == (variant != "exact") == (streamed.segments[0].dense.ivf is not None)
    assert [s.name for s in streamed.segments] == ["s000006"] and not streamed.deleted.any()
    assert results(streamed, kb, settings) == results(expected, kb, settings)
    reloaded = load_index(tmp_path / "index", verify=True)
    assert results(reloaded, kb, settings) == results(expected, kb, settings)

    rebuilt = build_index(kb, settings, EMBEDDER)  # BM25 statistics exact: the same scores as a rebuild
    for row in range(0, rebuilt.rows, 50):
        tokens = rebuilt.chunks[row].text.split()[:12]
        want = dict(zip((c.id for c in rebuilt.chunks), rebuilt.bm25.scores(tokens).tolist(), strict=True))
        got = dict(zip((c.id for c in streamed.chunks), streamed.bm25.scores(tokens).tolist(), strict=True))
        assert got.keys() == want.keys()
        np.testing.assert_allclose([got[c] for c in want], list(want.values()), rtol=1e-6, atol=1e-6)


def test_postings_merged_block_by_block_equal_the_permuted_matrices(tmp_path, monkeypatch):
    rng = np.random.default_rng(5)
    parts, mappings, next_position = [], [], 0
    rows_total = 60
    new_of_old = rng.permutation(rows_total)
    for rows in (30, 20, 10):
        values = (rng.random((rows, 40 if rows != 10 else 25)) < 0.2) * rng.integers(1, 5, (rows, 1))
        values[:, 3] = 1  # one column in every row: longer than a block
        matrix = sp.csc_matrix(values.astype(np.float32))  # the last part is narrower than the merged matrix
        mapping = new_of_old[next_position:next_position + rows].astype(np.int64)
        mapping[rng.random(rows) < 0.2] = -1  # deleted rows
        parts.append((sp.csc_matrix(matrix), mapping))
        mappings.append(mapping)
        next_position += rows
    monkeypatch.setattr(compaction, "BLOCK_ENTRIES", 11)
    merged = compaction.merge_columns(parts, 40, tmp_path / "m")
    indptr = np.concatenate([[0], np.cumsum(merged.counts)])
    got = sp.csc_matrix((np.fromfile(merged.data, np.float32), np.fromfile(merged.indices, np.int32), indptr),
                        shape=(rows_total, 40))
    want = sp.csr_matrix((rows_total, 40), dtype=np.float32)
    for matrix, mapping in parts:
        csr = sp.csr_matrix(matrix)
        csr.resize((csr.shape[0], 40))
        keep = np.flatnonzero(mapping >= 0)
        placed = sp.csr_matrix((np.ones(keep.size, np.float32), (mapping[keep], keep)),
                               shape=(rows_total, csr.shape[0]))
        want = want + placed @ csr
    want = sp.csc_matrix(want)
    want.sort_indices()
    assert got.has_sorted_indices and np.array_equal(got.indptr, want.indptr)
    assert np.array_equal(got.indices, want.indices) and np.array_equal(got.data, want.data)


def test_ivf_lists_written_one_by_one_equal_faiss_own_file_also_when_few_lists_are_used(tmp_path):
    rng = np.random.default_rng(2)
    vectors = np.repeat(rng.standard_normal((3, 32)).astype(np.float32), [200, 90, 10], axis=0)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)  # three points: most of the 16 lists stay empty
    dense = DenseIndex.from_vectors(vectors)
    compaction._ivf_writer(dense)(tmp_path / "streamed.faiss")
    dense.build_approximate()
    faiss.write_index(dense.ivf, str(tmp_path / "faiss.faiss"))
    assert (tmp_path / "streamed.faiss").read_bytes() == (tmp_path / "faiss.faiss").read_bytes()


_KILL_MIDWAY = """
import os, signal, sys
from pathlib import Path
from quest.kb.markdown import load_knowledge_base
from quest.retrieval import store
from quest.retrieval.index import open_index
from quest.settings import Settings
from tests.fakes.embedder import HashingEmbedder
from tests.retrieval.test_segments import QUERIES, ranked

kb_dir, data_dir = Path(sys.argv[1]), Path(sys.argv[2])
real = store.write_atomic
def die_halfway(path, writer):
    if path.name.endswith(".lexical.npz"):  # records, BM25 and vectors written; the lexical merge under way
        tmp = path.with_name(f".{path.name}.tmp")
        writer(tmp)
        tmp.write_bytes(tmp.read_bytes()[: tmp.stat().st_size // 2])
        os.kill(os.getpid(), signal.SIGKILL)
    return real(path, writer)
store.write_atomic = die_halfway
settings = Settings(kb_dir=kb_dir, data_dir=data_dir, show_progress=False, dense_floor=0.3, bm25_floor=0.15)
open_index(load_knowledge_base(kb_dir), settings, HashingEmbedder(lexical=True), compact=True)
"""


def test_a_compaction_killed_halfway_leaves_the_previous_index_readable(settings, kb_dir):
    embedder = HashingEmbedder(lexical=True)
    open_index(load_kb(kb_dir), settings, embedder)
    edit = kb_dir / "docs" / "p1-official.md"
    edit.write_text(edit.read_text(encoding="utf-8").replace("dictionary", "hash table"), encoding="utf-8")
    kb = load_kb(kb_dir)
    before, report = open_index(kb, settings, embedder)
    assert report.action == "updated" and len(before.segments) == 2
    folder = index_dir_for(settings, embedder.name)
    expected = results(before, kb, settings, embedder)
    (kb_dir / "docs" / "faq-recursion.md").unlink()  # the compaction folds in this removal and a new delta
    with (kb_dir / "docs" / "p239-explain.md").open("a", encoding="utf-8") as fh:
        fh.write("\n\nA deque keeps the window's candidates in decreasing order.\n")

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", _KILL_MIDWAY, str(kb_dir), str(settings.data_dir)],
                          cwd=root, env={**os.environ, "PYTHONPATH": str(root)}, capture_output=True, timeout=120)
    assert done.returncode == -9, done.stderr.decode()
    assert (folder / "s000004.bm25.npz").exists() and (folder / ".s000004.lexical.npz.tmp").exists()

    survivor = load_index(folder, verify=True)  # the previous manifest and every file it names: whole
    assert [s.name for s in survivor.segments] == ["s000001", "s000002"]
    assert results(survivor, kb, settings, embedder) == expected

    kb = load_kb(kb_dir)
    compacted, report = open_index(kb, settings, embedder, compact=True)
    assert report.action == "updated" and [s.name for s in compacted.segments] == ["s000004"]
    assert sorted(p.name.split(".")[0] for p in folder.iterdir() if p.name.startswith("s")) == ["s000004"] * 8
    assert not list(folder.glob(".*"))  # the killed run's temporary and spill files are gone
    fresh = settings.replace(data_dir=settings.data_dir.parent / "fresh")
    rebuilt, _ = open_index(kb, fresh, embedder)
    assert ranked(load_index(folder), kb, settings, embedder, QUERIES) == ranked(rebuilt, kb, fresh, embedder, QUERIES)


def load_kb(kb_dir: Path) -> KnowledgeBase:
    from quest.kb.markdown import load_knowledge_base

    return load_knowledge_base(kb_dir)


def test_a_read_only_replica_compacts_in_memory_and_writes_nothing(settings, kb_dir):
    embedder = HashingEmbedder(lexical=True)
    open_index(load_kb(kb_dir), settings, embedder)
    folder = index_dir_for(settings, embedder.name)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    (kb_dir / "docs" / "faq-recursion.md").unlink()
    replica = settings.replace(index_read_only=True)
    index, report = open_index(load_kb(kb_dir), replica, embedder, compact=True)
    assert report.action == "updated" and [s.name for s in index.segments] == ["s000002"]
    assert index.segments[0].stored is None and not index.deleted.any()  # built in memory
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
