"""The real FlagEmbedding code path, end to end, on a tiny bge-m3 model built in this session."""

from __future__ import annotations

import pytest

from quest.retrieval.index import index_dir_for, load_index
from quest.retrieval.retriever import build_retriever

pytestmark = pytest.mark.slow


def test_bge_m3_index_build_search_and_restart(settings, tiny_bge_m3):
    settings = settings.replace(embedding_model=str(tiny_bge_m3))
    retriever = build_retriever(settings)
    status = retriever.status
    assert status.embedding_mode == "dense + lexical + bm25"
    assert status.embedding_model == str(tiny_bge_m3)
    index = retriever.index
    assert index.dense.size == index.lexical.size == index.size
    assert index.dense.dim == 32

    result = retriever.search("list.pop(0) TLE deque popleft", problem_id="239")
    assert result.mode == "hybrid" and result.hits
    assert {h.chunk.problem_id for h in result.hits if h.scope == "problem"} == {"239"}
    top = result.hits[0]
    # The query's words are in the top chunk, so all three signals found it: BM25 on the words,
    # bge-m3's lexical weights on the same tokens (the tiny sparse head weighs every token), dense.
    assert set(top.signals) == {"bm25", "dense", "lexical"}

    # A restart loads the saved vectors: nothing is embedded again, results are identical.
    loaded = load_index(index_dir_for(settings, str(tiny_bge_m3)))
    assert loaded.size == index.size
    again = build_retriever(settings)
    assert [h.chunk.id for h in again.search("list.pop(0) TLE deque popleft", problem_id="239").hits] == [
        h.chunk.id for h in result.hits
    ]


def test_dense_only_bge_model(settings, tiny_bge_dense):
    retriever = build_retriever(settings.replace(embedding_model=str(tiny_bge_dense)))
    assert retriever.status.embedding_mode == "dense + bm25"
    assert retriever.index.lexical is None
    assert retriever.search("two sum hash map").hits
