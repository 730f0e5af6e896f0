"""The Milvus vector store gives the local store's top-5 hits on every eval query (Milvus Lite, in CI too)."""

from __future__ import annotations

import dataclasses
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from quest.evaluation import load_queries, plan_query
from quest.kb.markdown import load_knowledge_base
from quest.plan import retrieve
from quest.retrieval.index import open_index
from quest.retrieval.retriever import Retriever
from quest.settings import Settings
from tests.fakes.embedder import HashingEmbedder

ROOT = Path(__file__).resolve().parents[2]

# requirements-dev.txt installs both; in CI a skip fails the run (tests/ci_skips.py).
for _module in ("pymilvus", "milvus_lite"):
    pytest.importorskip(_module, reason="pymilvus / milvus-lite not installed (pip install -r requirements-milvus.txt)")

pytestmark = pytest.mark.slow


def top5(retriever: Retriever, queries, *, signals=None, exclude_kinds=frozenset()) -> list[list[str]]:
    """Each eval query planned and searched exactly as the app does, with the given signals and exclusions."""
    return [[h.chunk.id for h in hits] for hits, _, _ in searched(retriever, queries, signals, exclude_kinds)]


def searched(retriever: Retriever, queries, signals=None, exclude_kinds=frozenset()):
    """(top-5 hits, the search's timings and widening) for each eval query."""
    out = []
    for q in queries:
        planned = plan_query(retriever, q, retriever.settings)
        planned = dataclasses.replace(planned, exclude_kinds=frozenset(exclude_kinds))
        after, result = retrieve(retriever, planned, signals=signals)
        out.append((result.hits[:5], result, after))
    return out


class Recording:
    """The real Milvus client, with the name of every method called on it recorded."""

    def __init__(self, client) -> None:
        self.client, self.calls = client, []

    def __getattr__(self, name: str):
        attr = getattr(self.client, name)
        if not callable(attr):
            return attr

        def call(*args, **kwargs):
            self.calls.append(name)
            return attr(*args, **kwargs)

        return call


def assert_same_hits(local: Retriever, remote: Retriever, queries, signals, exclude_kinds) -> None:
    """Hit for hit: chunk, floor score, fused score and each signal's rank; signal scores to float32 precision.
    Milvus answers each search scope in one server-side RRF call, two when a list's cut-off needs its ties."""
    store = remote.index.bm25.store
    recording = store.client = Recording(store.client)
    try:
        want = searched(local, queries, signals, exclude_kinds)
        for q, (hits, _, _) in zip(queries, want, strict=True):
            before = len(recording.calls)
            got, result, after = searched(remote, [q], signals, exclude_kinds)[0]
            scopes = sum(1 for key in result.timings if key.startswith("store_")) * (2 if result.widened else 1)
            # A weak name the first search confirmed (quest.weak_names) was searched twice: both searches' scopes.
            scopes += sum(1 for key in after.extra.get("confirmed_after", {}) if key.startswith("store_")) * 2
            assert len(recording.calls) - before <= 2 * scopes  # none for an exact problem match
            assert [(h.chunk.id, h.score, h.fused, {n: s.rank for n, s in h.signals.items()}) for h in got] == \
                [(h.chunk.id, h.score, h.fused, {n: s.rank for n, s in h.signals.items()}) for h in hits], q.question
            for g, h in zip(got, hits, strict=True):
                for name, signal in h.signals.items():
                    assert g.signals[name].score == pytest.approx(signal.score, rel=1e-5, abs=1e-6)
        assert set(recording.calls) == {"hybrid_search"}  # no list asked separately, no vector fetched back
    finally:
        store.client = recording.client


@pytest.fixture(scope="module")
def starter(tmp_path_factory) -> tuple[Path, list]:
    kb = tmp_path_factory.mktemp("kb") / "knowledge"
    shutil.copytree(ROOT / "knowledge", kb)
    return kb, load_queries(kb / "eval" / "queries.jsonl")


def compare_stores(kb_dir: Path, queries, data_dir: Path, store: str, *,
                   variants=((("dense",), frozenset()), (None, frozenset()),
                             (None, frozenset({"official_solution"})))) -> tuple:
    """Open the base in both stores and compare every eval query's hits, per (signals, excluded kinds) variant."""
    embedder = HashingEmbedder(lexical=True)
    kb = load_knowledge_base(kb_dir)
    local_settings = Settings(kb_dir=kb_dir, data_dir=data_dir, show_progress=False)
    local, _ = open_index(kb, local_settings, embedder)
    milvus_settings = local_settings.replace(vector_store=store)
    remote, report = open_index(kb, milvus_settings, embedder)
    assert type(remote.dense).__name__ == "MilvusDense" and report.action == "loaded"
    a, b = Retriever(local_settings, local, kb, embedder), Retriever(milvus_settings, remote, kb, embedder)
    for signals, excluded in variants:  # dense alone, every signal, and every signal in the hint tier
        assert_same_hits(a, b, queries, signals, excluded)
    return embedder, local_settings, milvus_settings


def test_milvus_lite_in_process_matches_the_local_store_and_follows_updates(starter, tmp_path):
    kb_dir, queries = starter
    assert len(queries) >= 20
    store = str(tmp_path / "quest-milvus.db")
    embedder, local_settings, milvus_settings = compare_stores(kb_dir, queries, tmp_path / "d", store)

    # An edited document: the next open inserts its new chunks and deletes the old ones in Milvus.
    edited = tmp_path / "kb2"
    shutil.copytree(kb_dir, edited)
    doc = next(p for p in sorted(edited.rglob("*.md")) if p.read_text(encoding="utf-8").startswith("---\nid:"))
    doc.write_text(doc.read_text(encoding="utf-8") + "\n\nDeque windows keep indices, not values.\n",
                   encoding="utf-8")
    kb2 = load_knowledge_base(edited)
    local2, _ = open_index(kb2, local_settings.replace(kb_dir=edited), embedder)
    remote2, report = open_index(kb2, milvus_settings.replace(kb_dir=edited), embedder)
    assert report.action == "loaded"  # the local side was updated just before; Milvus catches up on attach
    live = int((~remote2.deleted).sum())
    assert remote2.dense.client.query(remote2.dense.collection, filter="", output_fields=["count(*)"])[0][
        "count(*)"] == live
    a = Retriever(local_settings, local2, kb2, embedder)
    b = Retriever(milvus_settings, remote2, kb2, embedder)
    assert top5(b, queries) == top5(a, queries)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_milvus_lite_standalone_server_in_another_process(starter, tmp_path):
    kb_dir, queries = starter
    port = free_port()
    exe = shutil.which("milvus-lite") or str(Path(sys.executable).parent / "milvus-lite")
    server = subprocess.Popen([exe, "server", "--data-dir", str(tmp_path / "milvus"), "--host", "127.0.0.1",
                               "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None, server.stderr.read().decode(errors="replace")
                assert time.monotonic() < deadline, "the Milvus Lite server did not start within 60 s"
                time.sleep(0.3)
        # The same collection code over the server's transport: every signal in the hint tier (the
        # in-process test covers the other variants).
        compare_stores(kb_dir, queries, tmp_path / "d", f"milvus://127.0.0.1:{port}",
                       variants=((None, frozenset({"official_solution"})),))
    finally:
        server.terminate()
        server.wait(timeout=30)
