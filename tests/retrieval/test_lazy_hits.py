"""Only the hits shown are decoded from the chunk records; the rest are ranked on rows and columns."""

from __future__ import annotations

from quest.kb.markdown import load_knowledge_base
from quest.retrieval.chunktable import IndexChunks
from quest.retrieval.index import build_index
from quest.retrieval.retriever import Retriever
from tests.fakes.embedder import HashingEmbedder


def test_a_search_decodes_only_the_rows_it_returns(settings, kb_dir, monkeypatch):
    kb = load_knowledge_base(kb_dir)
    embedder = HashingEmbedder(lexical=True)
    index = build_index(kb, settings, embedder)
    retriever = Retriever(settings.replace(bm25_floor=0.01, dense_floor=0.01), index, kb, embedder)
    wide = retriever.search("pop(0) is slow, use a deque; recursion depth; two sum hash table", top_k=50)
    assert len(wide.hits) > 3  # many rows pass the floor

    decoded: list[int] = []
    original = IndexChunks.__getitem__

    def recording(self, row):
        decoded.append(int(row))
        return original(self, row)

    monkeypatch.setattr(IndexChunks, "__getitem__", recording)
    narrow = retriever.search("pop(0) is slow, use a deque; recursion depth; two sum hash table", top_k=2)
    assert [h.chunk.id for h in narrow.hits] == [h.chunk.id for h in wide.hits[:2]]
    assert len(decoded) == 2
    assert [index.chunks.doc_id(r) for r in decoded] == [h.chunk.doc_id for h in narrow.hits]
