"""Document hashes: a base file written once, each update's manifest lists only what changed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from quest.errors import IndexError_
from quest.kb.markdown import load_knowledge_base
from quest.retrieval import doc_hashes
from quest.retrieval.index import index_dir_for, load_index, open_index
from tests.fakes.embedder import HashingEmbedder


def manifest_of(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text(encoding="utf-8"))


def kb_hashes(kb_dir: Path) -> dict[str, str]:
    return {d.id: d.content_hash for d in load_knowledge_base(kb_dir).documents}


def test_an_update_lists_only_the_changed_and_removed_documents(settings, kb_dir):
    embedder = HashingEmbedder()
    open_index(load_knowledge_base(kb_dir), settings, embedder)
    folder = index_dir_for(settings, embedder.name)
    first = manifest_of(folder)
    ((base_name, _),) = first["documents_base"].items()
    assert first["documents"] == {} and first["documents_changed"] == {} and first["documents_removed"] == []
    assert json.loads((folder / base_name).read_text(encoding="utf-8")) == kb_hashes(kb_dir)
    inode = (folder / base_name).stat().st_ino

    official = kb_dir / "docs" / "p1-official.md"
    official.write_text(official.read_text(encoding="utf-8").replace("dictionary", "hash table"), encoding="utf-8")
    (kb_dir / "docs" / "faq-recursion.md").unlink()
    updated, report = open_index(load_knowledge_base(kb_dir), settings, embedder)
    assert report.action == "updated"
    second = manifest_of(folder)
    assert second["documents_base"] == first["documents_base"] and (folder / base_name).stat().st_ino == inode
    assert second["documents_changed"] == {"p1-official-en": kb_hashes(kb_dir)["p1-official-en"]}
    assert second["documents_removed"] == ["pitfall-recursion-en"]
    assert load_index(folder).doc_hashes == kb_hashes(kb_dir) == updated.doc_hashes

    _, report = open_index(load_knowledge_base(kb_dir), settings, embedder, compact=True)
    assert report.action == "compacted"
    third = manifest_of(folder)
    ((new_base, _),) = third["documents_base"].items()
    assert new_base != base_name and not (folder / base_name).exists()  # the changes folded into a new base
    assert third["documents_changed"] == {} and third["documents_removed"] == []
    assert load_index(folder).doc_hashes == kb_hashes(kb_dir)


def test_the_delta_follows_updates_and_many_changes_write_a_new_base_file(tmp_path, monkeypatch):
    monkeypatch.setattr(doc_hashes, "REBASE_MIN", 2)
    base = {f"d{i}": f"h{i}" for i in range(30)}
    stored = doc_hashes.write_base(base, tmp_path)
    delta = doc_hashes.HashDelta().after(base, {"d1": "new", "d30": "h30"}, ["d4"])
    assert delta == doc_hashes.HashDelta({"d1": "new", "d30": "h30"}, frozenset({"d4"}))
    # d30 removed again (never in the base: forgotten), d4 back (no longer removed).
    again = delta.after(base, {"d4": "h4b"}, ["d30"])
    assert again == doc_hashes.HashDelta({"d1": "new", "d4": "h4b"}, frozenset())
    few = doc_hashes.plan({}, stored, delta, tmp_path)  # the current map is not read when the delta is used
    assert few.base is stored and few.delta is delta
    many = doc_hashes.HashDelta({f"d{i}": "changed" for i in range(5)})
    current = {**base, **many.changed}
    rebased = doc_hashes.plan(current, stored, many, tmp_path)
    assert rebased.base.name != stored.name and len(rebased.delta) == 0 and rebased.base.hashes == current
    (tmp_path / stored.name).unlink()
    assert doc_hashes.plan(base, stored, delta, tmp_path).base.name == stored.name  # a missing base is rewritten


@pytest.mark.parametrize("change", [
    lambda m: {**m, "documents": {"x": "y"}},  # inline hashes next to a base file
    lambda m: {**m, "documents_base": {}, "documents_changed": {"x": "y"}},  # changes without a base
    lambda m: {**m, "documents_base": {"../x.json": next(iter(m["documents_base"].values()))}},
])
def test_inconsistent_document_hashes_make_the_index_absent(settings, change):
    embedder = HashingEmbedder()
    open_index(load_knowledge_base(settings.kb_dir), settings, embedder)
    folder = index_dir_for(settings, embedder.name)
    (folder / "manifest.json").write_text(json.dumps(change(manifest_of(folder))), encoding="utf-8")
    with pytest.raises(IndexError_):
        load_index(folder)


def test_a_damaged_base_file_is_refused(settings):
    embedder = HashingEmbedder()
    open_index(load_knowledge_base(settings.kb_dir), settings, embedder)
    folder = index_dir_for(settings, embedder.name)
    (name,) = manifest_of(folder)["documents_base"]
    path = folder / name
    path.write_bytes(path.read_bytes()[:-1] + b" ")  # same size, another checksum
    with pytest.raises(IndexError_, match="checksum"):
        load_index(folder)


_KILL_AFTER_BASE = """
import os, signal, sys
from pathlib import Path
from quest.kb.markdown import load_knowledge_base
from quest.retrieval import doc_hashes, store
from quest.retrieval.index import open_index
from quest.settings import Settings
from tests.fakes.embedder import HashingEmbedder

kb_dir, data_dir = Path(sys.argv[1]), Path(sys.argv[2])
real = store.write_atomic
def die_at_the_manifest(path, writer):
    if path.name == "manifest.json":  # the new base file of hashes is on disk, the manifest not yet
        os.kill(os.getpid(), signal.SIGKILL)
    return real(path, writer)
store.write_atomic = die_at_the_manifest
doc_hashes.REBASE_MIN = 0  # one change is enough for a new base file
settings = Settings(kb_dir=kb_dir, data_dir=data_dir, show_progress=False, dense_floor=0.3, bm25_floor=0.15)
open_index(load_knowledge_base(kb_dir), settings, HashingEmbedder())
"""


def test_a_save_killed_before_its_manifest_leaves_the_previous_hashes(settings, kb_dir):
    embedder = HashingEmbedder()
    open_index(load_knowledge_base(kb_dir), settings, embedder)
    folder = index_dir_for(settings, embedder.name)
    before = kb_hashes(kb_dir)
    official = kb_dir / "docs" / "p1-official.md"
    official.write_text(official.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", _KILL_AFTER_BASE, str(kb_dir), str(settings.data_dir)],
                          cwd=root, env={**os.environ, "PYTHONPATH": str(root)}, capture_output=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()
    assert len(list(folder.glob("documents-*.json"))) == 2  # the new base was written
    assert load_index(folder).doc_hashes == before  # the old manifest and its base file still hold
    _, report = open_index(load_knowledge_base(kb_dir), settings, embedder)
    assert report.action == "updated" and report.embedded_docs == ("p1-official-en",)
    assert len(list(folder.glob("documents-*.json"))) == 1
