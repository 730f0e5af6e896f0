"""Exporting rows' sparse vectors for a vector store (quest.retrieval.milvus_sparse.SparseRows)."""

from __future__ import annotations

from quest.kb.markdown import load_knowledge_base
from quest.retrieval.index import build_index
from quest.retrieval.milvus_sparse import EMPTY_SLOT, EMPTY_WEIGHT, SparseRows
from quest.retrieval.sparse import LexicalIndex
from tests.fakes.embedder import HashingEmbedder


def test_lexical_rows_are_exported_from_one_row_major_copy_per_segment(settings, kb_dir, monkeypatch):
    index = build_index(load_knowledge_base(kb_dir), settings, HashingEmbedder(lexical=True))
    expected = []
    for seg in index.segments:
        matrix = seg.lexical.matrix
        for local in range(seg.rows):
            lo, hi = matrix.indptr[local], matrix.indptr[local + 1]
            pairs = zip(matrix.indices[lo:hi], matrix.data[lo:hi], strict=True)
            expected.append({int(t): float(w) for t, w in pairs if w != 0})

    built = []
    original = LexicalIndex.matrix.fget

    def recording(self):
        built.append(self)
        return original(self)

    monkeypatch.setattr(LexicalIndex, "matrix", property(recording))
    rows = SparseRows(index)
    exported = [rows.lexical(row) for row in range(index.size)]
    assert len(built) == len(index.segments)  # not once per row: a 100k first sync took over 20 minutes
    assert exported == [e or {EMPTY_SLOT: EMPTY_WEIGHT} for e in expected]
    assert sum(1 for e in expected if e) == index.size  # every row of the fake has lexical weights
