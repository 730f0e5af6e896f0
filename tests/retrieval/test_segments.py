"""Segments: BM25 exact across a base, deltas and deletions; compaction; crash-safe delta writes."""

from __future__ import annotations

import json
import logging
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from quest.kb.markdown import load_knowledge_base
from quest.retrieval.index import compact_index, index_dir_for, load_index, open_index
from quest.retrieval.retriever import Retriever
from quest.retrieval.segments import Segment, SegmentedBM25, term_matrix
from quest.retrieval.sparse import BM25Index
from tests.fakes.embedder import HashingEmbedder
from tests.retrieval.test_sparse import random_corpus


def segmented(parts: list[list[list[str]]], dead: set[int]) -> SegmentedBM25:
    vocab: dict[str, int] = {}
    segments = []
    for i, docs in enumerate(parts):
        tf, terms = term_matrix(docs, vocab)
        segments.append(Segment(name=f"s{i + 1:06d}", chunks=[None] * len(docs), tf=tf, terms=terms))
    total = sum(len(p) for p in parts)
    deleted = np.zeros(total, dtype=bool)
    deleted[sorted(dead)] = True
    return SegmentedBM25(segments, deleted)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_bm25_over_segments_and_deletions_equals_a_rebuild_and_rank_bm25(seed):
    rng = random.Random(seed)
    corpus = random_corpus(seed, n_docs=240)
    corpus[5] = ["only", "in", "a", "deleted", "row"]
    corpus[200] = ["delta", "only", "term"]
    parts = [corpus[:150], corpus[150:190], corpus[190:]]  # a base and two deltas
    dead = {5, *rng.sample(range(240), 40)}
    index = segmented(parts, dead)
    live = [row for row in range(240) if row not in dead]
    live_corpus = [corpus[r] for r in live]
    rebuilt = BM25Index.from_tokens(live_corpus)
    reference = BM25Okapi(live_corpus)
    queries = [["w0"], ["w1", "w1", "w5"], ["only"], ["deleted", "row"], ["delta", "term"], ["nothing"], []]
    queries += [[f"w{rng.randint(0, 90)}" for _ in range(rng.randint(1, 6))] for _ in range(30)]
    for q in queries:
        scores = index.scores(q)
        assert not scores[sorted(dead)].any()
        np.testing.assert_allclose(scores[live], rebuilt.scores(q), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(scores[live], reference.get_scores(q), rtol=1e-5, atol=1e-5)
        assert index.max_score(q) == pytest.approx(rebuilt.max_score(q))
        subset = np.asarray(sorted(rng.sample(range(240), 25)))  # one problem's rows, deleted ones included
        assert index.scores_for(q, subset).tolist() == scores[subset].tolist()  # the same sums, bit for bit
    # A term whose every row is deleted is unknown again, exactly as after a rebuild.
    assert not index.present[index.vocab["deleted"]]


def edit_kb(kb_dir: Path) -> None:
    changed = kb_dir / "docs" / "p1-official.md"
    changed.write_text(changed.read_text(encoding="utf-8").replace("dictionary", "hash table"), encoding="utf-8")
    (kb_dir / "docs" / "faq-recursion.md").unlink()


def ranked(index, kb, settings, embedder, queries):
    # Hits that clear the floor. Weaker companions sit among exact ties (the fake embedder's lexical
    # weights: 0.0625 at ranks 7 and 8), which are broken by row, and rows are numbered by layout.
    retriever = Retriever(settings.replace(companion_floor_ratio=1.0), index, kb, embedder)
    return [[(h.chunk.id, round(h.fused, 9), round(h.score, 4)) for h in retriever.search(q).hits] for q in queries]


QUERIES = ("hash table two sum", "滑动窗口 超时", "RecursionError deep recursion", "list.pop(0) TLE")


def test_an_update_writes_only_the_delta_and_compaction_changes_no_result(settings, kb_dir):
    embedder = HashingEmbedder(lexical=True)
    open_index(load_knowledge_base(kb_dir), settings, embedder)
    folder = index_dir_for(settings, embedder.name)
    base_files = {p.name: p.stat().st_ino for p in folder.glob("s000001.*")}
    edit_kb(kb_dir)
    kb = load_knowledge_base(kb_dir)
    updated, report = open_index(kb, settings, embedder)
    assert report.action == "updated" and [s.name for s in updated.segments] == ["s000001", "s000002"]
    assert {p.name: p.stat().st_ino for p in folder.glob("s000001.*")} == base_files  # untouched
    assert sorted(p.name for p in folder.glob("s000002.*")) == [
        "s000002.bm25.npz", "s000002.bounds.npz", "s000002.chunks.jsonl", "s000002.columns.npz", "s000002.dense.faiss",
        "s000002.lexical.npz", "s000002.names.json", "s000002.terms.json"]
    assert len(list(folder.glob("deleted-*.npy"))) == 1

    fresh_settings = settings.replace(data_dir=settings.data_dir.parent / "fresh")
    fresh, _ = open_index(kb, fresh_settings, embedder)
    compacted = compact_index(updated)
    assert len(compacted.segments) == 1 and not compacted.deleted.any()
    expected = ranked(fresh, kb, fresh_settings, embedder, QUERIES)
    assert ranked(updated, kb, settings, embedder, QUERIES) == expected
    assert ranked(compacted, kb, settings, embedder, QUERIES) == expected

    again, report = open_index(kb, settings, embedder, compact=True)
    assert report.action == "compacted" and [s.name for s in again.segments] == ["s000003"]
    assert sorted(p.name.split(".")[0] for p in folder.iterdir()
                  if p.name != "manifest.json" and not p.name.startswith("documents-")) == ["s000003"] * 8
    assert len(list(folder.glob("documents-*.json"))) == 1  # the document hashes, rewritten by the compaction
    assert ranked(load_index(folder), kb, settings, embedder, QUERIES) == expected


_KILL_MIDWAY = """
import os, signal, sys
from pathlib import Path
from quest.kb.markdown import load_knowledge_base
from quest.retrieval import store
from quest.retrieval.index import open_index
from quest.settings import Settings
from tests.fakes.embedder import HashingEmbedder

kb_dir, data_dir = Path(sys.argv[1]), Path(sys.argv[2])
real = store.write_atomic
def die_halfway(path, writer):
    if ".dense.faiss" in path.name:  # the delta's chunks and BM25 are on disk; the vectors half-written
        tmp = path.with_name(f".{path.name}.tmp")
        writer(tmp)
        tmp.write_bytes(tmp.read_bytes()[: tmp.stat().st_size // 2])
        os.kill(os.getpid(), signal.SIGKILL)
    return real(path, writer)
store.write_atomic = die_halfway
settings = Settings(kb_dir=kb_dir, data_dir=data_dir, show_progress=False, dense_floor=0.3, bm25_floor=0.15)
open_index(load_knowledge_base(kb_dir), settings, HashingEmbedder())
"""


def test_a_delta_write_killed_halfway_leaves_the_previous_index_readable(settings, kb_dir):
    embedder = HashingEmbedder()
    kb = load_knowledge_base(kb_dir)
    before, _ = open_index(kb, settings, embedder)
    folder = index_dir_for(settings, embedder.name)
    expected = ranked(before, kb, settings, embedder, QUERIES)
    edit_kb(kb_dir)
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", _KILL_MIDWAY, str(kb_dir), str(settings.data_dir)],
                          cwd=root, env={**os.environ, "PYTHONPATH": str(root)}, capture_output=True, timeout=120)
    assert done.returncode == -9, done.stderr.decode()
    assert (folder / "s000002.chunks.jsonl").exists()  # the write really was under way

    survivor = load_index(folder)  # verified against the old manifest: still whole
    assert [s.name for s in survivor.segments] == ["s000001"]
    assert ranked(survivor, kb, settings, embedder, QUERIES) == expected

    recorder = HashingEmbedder()
    updated, report = open_index(load_knowledge_base(kb_dir), settings, recorder)
    assert report.action == "updated" and sorted(report.embedded_docs) == ["p1-official-en"]
    assert [s.name for s in updated.segments] == ["s000001", "s000002"]
    assert not list(folder.glob(".*.tmp"))  # the interrupted write's leftovers are gone


def write_manifest(folder: Path, change) -> None:
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest = change(manifest)
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def _drop(key):
    return lambda m: {k: v for k, v in m.items() if k != key}


MALFORMED = {
    "format 1 only": lambda m: {"format": 1},
    "format 2, nothing else": lambda m: {"format": 2},
    "files as an empty list": lambda m: {**m, "files": []},
    "no rows": _drop("rows"),
    "documents as a list": lambda m: {**m, "documents": list(m["documents"])},
    "segments empty": lambda m: {**m, "segments": []},
    "segments as a dict": lambda m: {**m, "segments": {"s000001": m["segments"][0]}},
    "rows as a string": lambda m: {**m, "rows": str(m["rows"])},
    "rows disagree with the segments": lambda m: {**m, "rows": m["rows"] + 1},
    "unknown key": lambda m: {**m, "extra": True},
    "a path instead of a file name": lambda m: {**m, "segments": [{**m["segments"][0], "files": {
        **m["segments"][0]["files"], "../../etc/passwd": {"size": 1, "sha256": "0" * 64}}}]},
    "checksum not hex": lambda m: {**m, "segments": [{**m["segments"][0], "files": {
        k: {**v, "sha256": "zz"} for k, v in m["segments"][0]["files"].items()}}]},
    "a list at the top": lambda m: [m],
    "null": lambda m: None,
    "deleted rows without their file": lambda m: {**m, "deleted_rows": 3},
}


@pytest.mark.parametrize("shape", sorted(MALFORMED))
def test_a_malformed_manifest_is_treated_as_absent_and_rebuilt_with_one_log_line(settings, kb_dir, caplog, shape):
    embedder = HashingEmbedder()
    kb = load_knowledge_base(kb_dir)
    built, _ = open_index(kb, settings, embedder)
    folder = index_dir_for(settings, embedder.name)
    write_manifest(folder, MALFORMED[shape])
    caplog.set_level(logging.WARNING, logger="quest.retrieval.index")
    recorder = HashingEmbedder()
    rebuilt, report = open_index(kb, settings, recorder)
    assert report.action == "rebuilt" and recorder.document_calls
    lines = [r for r in caplog.records if r.name == "quest.retrieval.index"]
    assert len(lines) == 1 and "unusable and will be rebuilt" in lines[0].getMessage()
    assert "Traceback" not in lines[0].getMessage()
    assert [c.id for c in rebuilt.chunks] == [c.id for c in built.chunks]
    load_index(folder)  # healthy again


def test_a_part_failing_its_checksum_is_rebuilt(settings, kb_dir, caplog):
    embedder = HashingEmbedder()
    kb = load_knowledge_base(kb_dir)
    open_index(kb, settings, embedder)
    folder = index_dir_for(settings, embedder.name)
    terms = folder / "s000001.terms.json"
    terms.write_text(terms.read_text(encoding="utf-8").replace('"', "'", 2), encoding="utf-8")  # same size
    caplog.set_level(logging.WARNING, logger="quest.retrieval.index")
    _, report = open_index(kb, settings, HashingEmbedder())
    assert report.action == "rebuilt" and "checksum" in report.reason
    assert len([r for r in caplog.records if r.name == "quest.retrieval.index"]) == 1


def test_a_large_base_gets_an_ivf_index_that_is_saved_and_memory_mapped(settings, kb_dir, monkeypatch):
    import quest.retrieval.dense as dense_module

    monkeypatch.setattr(dense_module, "APPROXIMATE_FROM", 10)
    monkeypatch.setattr(dense_module, "NPROBE", 10_000)  # all lists: results equal the exact scan's
    embedder = HashingEmbedder()
    kb = load_knowledge_base(kb_dir)
    built, _ = open_index(kb, settings, embedder)
    assert built.segments[0].dense.ivf is not None
    folder = index_dir_for(settings, embedder.name)
    assert (folder / "s000001.ivf.faiss").exists()
    loaded = load_index(folder)
    assert loaded.segments[0].dense.ivf is not None
    exact_settings = settings.replace(data_dir=settings.data_dir.parent / "exact")
    monkeypatch.setattr(dense_module, "APPROXIMATE_FROM", 10**9)
    exact, _ = open_index(kb, exact_settings, embedder)
    assert exact.segments[0].dense.ivf is None
    assert ranked(loaded, kb, settings, embedder, QUERIES) == ranked(exact, kb, exact_settings, embedder, QUERIES)


def test_rows_regrouped_after_an_update_equal_a_full_grouping(settings, kb_dir):
    embedder = HashingEmbedder()
    open_index(load_knowledge_base(kb_dir), settings, embedder)
    edit_kb(kb_dir)
    updated, _ = open_index(load_knowledge_base(kb_dir), settings, embedder)
    reloaded = load_index(index_dir_for(settings, embedder.name))  # grouped from scratch
    assert updated.rows_by_doc == reloaded.rows_by_doc
    assert updated.rows_by_problem.keys() == reloaded.rows_by_problem.keys()
    for pid, rows in reloaded.rows_by_problem.items():
        assert updated.rows_by_problem[pid].tolist() == rows.tolist()


def test_a_large_segment_saved_without_an_ivf_is_named_on_load_and_compaction_adds_one(settings, kb_dir, monkeypatch,
                                                                                       caplog):
    """An index saved while the threshold was higher (150k until round 22) loads, is searched exactly, says so once,
    and `python -m quest index --compact` (open_index(compact=True)) writes its IVF."""
    import quest.retrieval.dense as dense_module

    embedder = HashingEmbedder()
    kb = load_knowledge_base(kb_dir)
    monkeypatch.setattr(dense_module, "APPROXIMATE_FROM", 10**9)
    open_index(kb, settings, embedder)
    folder = index_dir_for(settings, embedder.name)
    monkeypatch.setattr(dense_module, "APPROXIMATE_FROM", 10)
    caplog.set_level(logging.INFO, logger="quest.retrieval.index")
    loaded = load_index(folder)
    assert loaded.segments[0].dense.ivf is None
    notes = [r.getMessage() for r in caplog.records if "no IVF index" in r.getMessage()]
    assert notes == [f"{folder}: 1 segment(s) of 10 rows or more have no IVF index and are searched exactly "
                     "(slower); `python -m quest index --compact` adds one"]
    compacted, report = open_index(kb, settings, embedder, compact=True)
    assert report.action == "compacted" and compacted.segments[0].dense.ivf is not None
    caplog.clear()
    assert load_index(folder).segments[0].dense.ivf is not None
    assert not [r for r in caplog.records if "no IVF index" in r.getMessage()]
