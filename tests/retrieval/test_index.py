"""Index lifecycle: save/load round trip, incremental updates, damage detection, model changes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from quest.errors import IndexError_
from quest.kb.markdown import load_knowledge_base
from quest.retrieval.chunktable import ChunkTable
from quest.retrieval.index import index_dir_for, load_index, open_index
from quest.retrieval.retriever import Retriever
from quest.retrieval.tokenize import TOKENIZER_VERSION
from tests.fakes.embedder import HashingEmbedder


def search_ids(retriever: Retriever, query: str, **kw) -> list[tuple[str, float]]:
    return [(h.chunk.id, round(h.fused, 9)) for h in retriever.search(query, **kw).hits]


def test_first_open_builds_and_the_second_loads_without_embedding(settings, embedder):
    kb = load_knowledge_base(settings.kb_dir)
    index, report = open_index(kb, settings, embedder)
    assert report.action == "built"
    assert len(embedder.documents_encoded) == index.size > 0

    again = HashingEmbedder()
    loaded, report = open_index(kb, settings, again)
    assert report.action == "loaded"
    assert again.document_calls == []
    assert [c.id for c in loaded.chunks] == [c.id for c in index.chunks]


def test_save_load_round_trip_returns_identical_results(settings, embedder):
    kb = load_knowledge_base(settings.kb_dir)
    index, _ = open_index(kb, settings, embedder)
    loaded = load_index(index_dir_for(settings, embedder.name))
    a = Retriever(settings, index, kb, embedder)
    b = Retriever(settings, loaded, kb, embedder)
    for query, pid in [("list.pop(0) TLE", "239"), ("hash map", None), ("递归 RecursionError", None)]:
        assert search_ids(a, query, problem_id=pid) == search_ids(b, query, problem_id=pid)
        assert search_ids(a, query, problem_id=pid)


def test_incremental_update_embeds_exactly_the_changed_documents(settings, embedder, kb_dir):
    kb = load_knowledge_base(settings.kb_dir)
    open_index(kb, settings, embedder)

    changed = kb_dir / "docs" / "p1-official.md"
    changed.write_text(changed.read_text(encoding="utf-8").replace("dictionary", "hash table"), encoding="utf-8")
    (kb_dir / "docs" / "faq-recursion.md").unlink()
    (kb_dir / "docs" / "new.md").write_text(
        "---\nid: faq-new-en\nkind: faq\nlang: en\ntitle: Reading input fast\n---\nUse sys.stdin.readline.\n",
        encoding="utf-8",
    )
    recorder = HashingEmbedder()
    kb2 = load_knowledge_base(settings.kb_dir)
    index, report = open_index(kb2, settings, recorder)

    assert report.action == "updated"
    assert sorted(report.embedded_docs) == ["faq-new-en", "p1-official-en"]
    assert report.removed_docs == ("pitfall-recursion-en",)
    expected = [c.indexed_text for c in index.live_chunks if c.doc_id in {"faq-new-en", "p1-official-en"}]
    assert sorted(recorder.documents_encoded) == sorted(expected)
    assert not any(c.doc_id == "pitfall-recursion-en" for c in index.live_chunks)
    assert len(index.segments) == 2 and index.deleted.sum() > 0  # appended as a delta, nothing rewritten

    # The updated index answers exactly like one built from scratch.
    fresh_settings = settings.replace(data_dir=settings.data_dir.parent / "fresh")
    fresh, _ = open_index(kb2, fresh_settings, HashingEmbedder())
    a = Retriever(settings, index, kb2, recorder)
    b = Retriever(fresh_settings, fresh, kb2, recorder)
    for query in ("hash table two sum", "sys.stdin input", "滑动窗口 超时"):
        assert sorted(search_ids(a, query)) == sorted(search_ids(b, query))

    # ...and it was saved: the next start embeds nothing.
    third = HashingEmbedder()
    _, report = open_index(kb2, settings, third)
    assert report.action == "loaded" and third.document_calls == []


@pytest.mark.parametrize("damage", ["truncate", "flip", "delete", "manifest-rows"])
def test_damaged_index_is_detected_and_rebuilt(settings, embedder, damage):
    kb = load_knowledge_base(settings.kb_dir)
    index, _ = open_index(kb, settings, embedder)
    folder = index_dir_for(settings, embedder.name)
    target = folder / ("s000001.dense.faiss" if damage != "manifest-rows" else "manifest.json")
    if damage == "truncate":
        target.write_bytes(target.read_bytes()[:100])
    elif damage == "flip":
        data = bytearray(target.read_bytes())
        data[len(data) // 2] ^= 0xFF
        target.write_bytes(bytes(data))
    elif damage == "delete":
        target.unlink()
    else:
        manifest = json.loads(target.read_text())
        manifest["rows"] += 1
        target.write_text(json.dumps(manifest))

    with pytest.raises(IndexError_):
        load_index(folder)
    rebuilt, report = open_index(kb, settings, HashingEmbedder())
    assert report.action == "rebuilt"
    assert [c.id for c in rebuilt.chunks] == [c.id for c in index.chunks]
    load_index(folder)  # healthy again


def test_chunks_and_vectors_that_disagree_are_refused(settings, embedder):
    kb = load_knowledge_base(settings.kb_dir)
    open_index(kb, settings, embedder)
    folder = index_dir_for(settings, embedder.name)
    names = ("s000001.chunks.jsonl", "s000001.columns.npz", "s000001.names.json")
    table = ChunkTable.open(*(folder / n for n in names))
    shorter = table.take(np.arange(len(table) - 1))  # one chunk fewer, every chunk file consistent
    (folder / names[0]).write_bytes(bytes(shorter.records))
    shorter.save_columns(folder / names[1])
    shorter.save_names(folder / names[2])
    manifest = json.loads((folder / "manifest.json").read_text())
    # Even with a manifest forged to match the file sizes, the parts must agree on the row count.
    for name in names:
        manifest["segments"][0]["files"][name]["size"] = (folder / name).stat().st_size
    manifest["segments"][0]["rows"] -= 1
    manifest["rows"] -= 1
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(IndexError_, match="disagree"):
        load_index(folder, verify=False)


def test_a_truncated_record_file_is_refused_even_unhashed(settings, embedder):
    kb = load_knowledge_base(settings.kb_dir)
    open_index(kb, settings, embedder)
    folder = index_dir_for(settings, embedder.name)
    chunks = folder / "s000001.chunks.jsonl"
    chunks.write_bytes(chunks.read_bytes()[:-40])
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["segments"][0]["files"][chunks.name]["size"] = chunks.stat().st_size  # the size forged too
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(IndexError_, match="record offsets do not match the file"):
        load_index(folder, verify=False)


def test_a_different_model_builds_its_own_index(settings, embedder):
    kb = load_knowledge_base(settings.kb_dir)
    open_index(kb, settings, embedder)
    other = HashingEmbedder(dim=64, name="other-model")
    index, report = open_index(kb, settings, other)
    assert report.action == "built"
    assert index.model == "other-model" and index.dense.dim == 64
    assert len(other.documents_encoded) == index.size


def test_a_manifest_for_another_model_in_the_folder_triggers_a_rebuild(settings, embedder):
    kb = load_knowledge_base(settings.kb_dir)
    open_index(kb, settings, embedder)
    folder = index_dir_for(settings, embedder.name)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["model"] = "somebody-else"
    (folder / "manifest.json").write_text(json.dumps(manifest))
    recorder = HashingEmbedder()
    _, report = open_index(kb, settings, recorder)
    assert report.action == "rebuilt" and "somebody-else" in report.reason
    assert recorder.document_calls


def test_bm25_only_index_round_trip(settings):
    kb = load_knowledge_base(settings.kb_dir)
    index, report = open_index(kb, settings, None)
    assert report.action == "built" and index.dense is None and index.model == "bm25-only"
    again, report = open_index(kb, settings, None)
    assert report.action == "loaded" and again.size == index.size
    assert not list(index_dir_for(settings, "bm25-only").glob("*.dense.faiss"))


def test_an_index_from_another_tokenizer_version_is_rebuilt(settings, caplog):
    import json

    kb = load_knowledge_base(settings.kb_dir)
    open_index(kb, settings, None)
    manifest = index_dir_for(settings, "bm25-only") / "manifest.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    assert data["tokenizer"] == TOKENIZER_VERSION
    data["tokenizer"] = TOKENIZER_VERSION - 1
    manifest.write_text(json.dumps(data), encoding="utf-8")
    _, report = open_index(kb, settings, None)
    assert report.action == "rebuilt"
    assert f"built with tokenizer version {TOKENIZER_VERSION - 1}, this Quest uses {TOKENIZER_VERSION}" in caplog.text


def _arrays(path):
    """(name, array) for every array in a .npy or .npz file, read with pickle refused."""
    import numpy as np

    if path.suffix == ".npy":
        yield path.name, np.load(path, allow_pickle=False)
        return
    with np.load(path, allow_pickle=False) as data:  # lazy: each data[key] read below is where pickle is refused
        for key in data.files:
            yield f"{path.name}:{key}", data[key]


def test_no_pickle_anywhere(settings, tmp_path):
    import numpy as np

    kb = load_knowledge_base(settings.kb_dir)
    open_index(kb, settings, HashingEmbedder(lexical=True))
    folder = index_dir_for(settings, "fake-hashing")
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    npz = [p.name for p in files if p.suffix == ".npz"]
    assert any("bm25" in name for name in npz) and any("lexical" in name for name in npz), npz
    arrays = [item for p in files if p.suffix in (".npy", ".npz") for item in _arrays(p)]
    assert arrays, "no arrays found to check"
    # numbers and strings (scipy stores the sparse format's name as bytes), no objects
    assert {name: a.dtype.kind for name, a in arrays if a.dtype.kind not in "biufSU"} == {}
    pickled = [p.name for p in files if p.read_bytes()[:1] == b"\x80"]  # pickle protocol 2+ starts with 0x80
    assert pickled == []

    # The check above would notice a pickled array: loading one with allow_pickle=False refuses it.
    np.savez(tmp_path / "pickled.npz", rows=np.array([{"id": 1}, None], dtype=object))
    with pytest.raises(ValueError, match="allow_pickle=False"):
        next(_arrays(tmp_path / "pickled.npz"))


def test_a_read_only_replica_never_writes_the_shared_index(settings, tmp_path):
    import shutil

    from quest.kb.markdown import load_knowledge_base as load

    open_index(load_knowledge_base(settings.kb_dir), settings, None)
    folder = index_dir_for(settings, "bm25-only")
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    edited = tmp_path / "kb-edited"
    shutil.copytree(settings.kb_dir, edited)
    doc = next(p for p in sorted(edited.rglob("*.md")) if p.read_text(encoding="utf-8").startswith("---"))
    doc.write_text(doc.read_text(encoding="utf-8") + "\nA sentence only the replica's copy has: zebra.\n",
                   encoding="utf-8")
    replica = settings.replace(kb_dir=edited, index_read_only=True)
    index, report = open_index(load(edited), replica, None)
    assert report.action == "updated"
    assert any("zebra" in c.text for c in index.chunks)  # the update is served from memory
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before  # and nothing was written

    empty = settings.replace(data_dir=tmp_path / "fresh", index_read_only=True)
    index, report = open_index(load(edited), empty, None)
    assert report.action == "built" and index.size > 0
    assert not index_dir_for(empty, "bm25-only").exists()
