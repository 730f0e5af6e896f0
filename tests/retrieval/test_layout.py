"""Row layout: a build and a compaction group rows by problem and change no search result."""

from __future__ import annotations

import dataclasses

import numpy as np

from quest.kb.documents import KnowledgeBase
from quest.kb.markdown import load_knowledge_base
from quest.retrieval import index as index_module
from quest.retrieval.dense import DenseIndex
from quest.retrieval.index import build_index, compact_index, update_index
from quest.retrieval.layout import grouped_chunks, grouped_order
from quest.retrieval.retriever import Retriever
from quest.retrieval.segments import SegmentedDense
from tests.fakes.embedder import HashingEmbedder

QUERIES = ("hash table two sum", "滑动窗口 超时", "RecursionError deep recursion", "list.pop(0) TLE",
           "pop(0) is slow", "two sum dictionary")


def test_grouped_order_is_stable_with_groups_in_order_of_first_row():
    codes = np.array([5, -1, 5, 2, -1, 2, 5, 7])
    order = grouped_order(codes)
    assert order.tolist() == [0, 2, 6, 1, 4, 3, 5, 7]
    assert codes[order].tolist() == [5, 5, 5, -1, -1, 2, 2, 7]
    assert grouped_order(np.array([3, 3, 1, 1, -1])).tolist() == [0, 1, 2, 3, 4]  # already grouped: unchanged
    assert grouped_order(np.zeros(0, dtype=np.int32)).tolist() == []


def test_grouped_chunks_returns_the_same_list_when_already_grouped(kb_dir):
    kb = load_knowledge_base(kb_dir)
    chunks = [c for d in kb.documents for c in index_module.chunk_document(d, 800)]
    assert grouped_chunks(chunks) == chunks


def interleaved(kb: KnowledgeBase) -> KnowledgeBase:
    """The documents in an order that mixes problems: 239, general, 1, 239, general, 704, 239."""
    by_id = {d.id: d for d in kb.documents}
    order = ["p239-official-zh", "faq-tle-zh", "p1-official-en", "p239-error-pop0-en", "pitfall-recursion-en",
             "p704-official-zh", "p239-explain-en"]
    return KnowledgeBase(documents=tuple(by_id[i] for i in order), problems=kb.problems, errors=kb.errors)


def problem_runs(index) -> list[str | None]:
    """The problem of each run of adjacent rows (a problem appears once if its rows are contiguous)."""
    ids = [index.chunks.problem_id(r) for r in range(index.rows)]
    return [p for i, p in enumerate(ids) if i == 0 or ids[i - 1] != p]


def results(index, kb, settings, embedder) -> list[list[tuple[str, float, float, str]]]:
    retriever = Retriever(settings, index, kb, embedder)
    out = []
    for q in QUERIES:
        for pid in (None, "239", "1"):
            hits = retriever.search(q, problem_id=pid).hits
            out.append([(h.chunk.id, round(h.fused, 9), h.score, h.scope) for h in hits])
    return out


def test_a_build_groups_rows_by_problem_and_ranks_exactly_as_the_scattered_layout(settings, kb_dir, monkeypatch):
    kb = interleaved(load_knowledge_base(kb_dir))
    # Without the fake's lexical weights: they tie exactly (0.0625) across problems, and equal scores
    # inside one signal's list are ordered by row. Fused ties are ordered by chunk in any layout.
    embedder = HashingEmbedder(lexical=False)
    grouped = build_index(kb, settings, embedder)
    assert problem_runs(grouped) == ["239", None, "1", "704"]
    assert [grouped.chunks.doc_id(r) for r in grouped.rows_by_doc["p239-explain-en"]] == ["p239-explain-en"] * len(
        grouped.rows_by_doc["p239-explain-en"])
    monkeypatch.setattr(index_module, "grouped_chunks", list)  # today's layout: rows in document order
    scattered = build_index(kb, settings, embedder)
    assert problem_runs(scattered) == ["239", None, "1", "239", None, "704", "239"]
    assert results(grouped, kb, settings, embedder) == results(scattered, kb, settings, embedder)


def test_compaction_regroups_a_delta_into_its_problem_and_changes_no_result(settings, kb_dir):
    kb = load_knowledge_base(kb_dir)
    embedder = HashingEmbedder(lexical=True)
    base = build_index(kb, settings, embedder)
    docs = [dataclasses.replace(d, text=d.text + "\n\nAlso: a deque pops from the left in O(1).")
            if d.id == "p239-explain-en" else d for d in kb.documents]
    edited = KnowledgeBase(documents=tuple(docs), problems=kb.problems, errors=kb.errors)
    updated, report = update_index(base, edited, settings, embedder)
    assert report.embedded_docs == ("p239-explain-en",)
    assert problem_runs(updated) == [None, "1", "239", "704", "239"]  # the delta is appended
    compacted = compact_index(updated)
    assert problem_runs(compacted) == [None, "1", "239", "704"]
    assert compacted.rows == int((~updated.deleted).sum())
    expected = results(updated, edited, settings, embedder)
    assert results(compacted, edited, settings, embedder) == expected
    np.testing.assert_array_equal(  # the vectors moved with their rows
        compacted.dense.vectors[compacted.rows_by_doc["p239-explain-en"]],
        updated.dense.vectors[updated.rows_by_doc["p239-explain-en"]])


def test_dense_search_over_contiguous_runs_equals_the_exact_product():
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((700, 32)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    parts = [DenseIndex.from_vectors(vectors[:500]), DenseIndex.from_vectors(vectors[500:])]
    deleted = np.zeros(700, dtype=bool)
    deleted[[120, 130]] = True
    dense = SegmentedDense(parts, np.array([0, 500, 700]), deleted, 32)
    query = rng.standard_normal(32).astype(np.float32)
    stored = dense.vectors[np.arange(700)].astype(np.float32)  # the float16 values, as every path scores them
    grouped = np.concatenate([np.arange(100, 160), np.arange(480, 520), np.arange(650, 660)])  # 4 runs, 2 segments
    scattered = np.arange(0, 700, 7)  # 100 runs: gathered instead
    for rows in (grouped, scattered):
        assert (dense._runs(rows[~deleted[rows]]) is None) == (rows is scattered)
        live = rows[~deleted[rows]]
        sims = stored[live] @ query
        expected = live[np.lexsort((live, -sims))][:15]
        found = dense.search_rows(query, rows, 15)
        assert [r for r, _ in found] == expected.tolist()
        np.testing.assert_allclose([s for _, s in found], stored[expected] @ query, rtol=1e-5)
