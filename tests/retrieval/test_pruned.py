"""Whole-base sparse top-k with MaxScore pruning (quest/retrieval/pruned.py): the exact same list as
scoring every row, ties included, over segments, deletions and excluded rows."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from quest.bench.corpus import edited, generate, make_global_queries
from quest.kb.documents import KnowledgeBase
from quest.retrieval import pruned
from quest.retrieval.index import build_index, update_index
from quest.retrieval.pruned import SegmentTerms, Term, allowed_rows, exact_scores, pruned_top
from quest.retrieval.scopes import RowOrder
from quest.retrieval.sparse import top_k
from quest.retrieval.tokenize import tokenize
from quest.settings import Settings
from tests.fakes.embedder import HashingEmbedder


def _terms(matrix: np.ndarray, cols: list[int], coefs: list[float], order: RowOrder = RowOrder(),
           start: int = 0) -> SegmentTerms:
    """A segment whose term weights are `matrix[row, col] * coef` (rows stored at their positions in `order`)."""
    by_position = order.by_position(matrix) if not order.identity else matrix
    csc = sp.csc_matrix(by_position.astype(np.float32))
    terms = []
    for col, coef in zip(cols, coefs, strict=True):
        lo, hi = csc.indptr[col], csc.indptr[col + 1]
        values = csc.data[lo:hi]
        terms.append(Term(csc.indices[lo:hi].astype(np.int32),
                          lambda e, values=values, coef=coef: values[e] * np.float32(coef),
                          float(values.max() * coef) if hi > lo else 0.0))
    return SegmentTerms(start, matrix.shape[0], order, terms)


def _exhaustive(matrix: np.ndarray, cols: list[int], coefs: list[float]) -> np.ndarray:
    out = np.zeros(matrix.shape[0], dtype=np.float32)
    for col, coef in zip(cols, coefs, strict=True):
        out += matrix[:, col].astype(np.float32) * np.float32(coef)
    return out


def test_a_rare_term_decides_and_the_common_terms_are_only_looked_up(monkeypatch):
    # 1,000 rows: term 0 in every row (weight 0.1), term 1 in rows 10..19 (weight 5), term 2 in row 15 (weight 7)
    matrix = np.zeros((1000, 3), dtype=np.float32)
    matrix[:, 0] = 0.1
    matrix[10:20, 1] = 5.0
    matrix[15, 2] = 7.0
    monkeypatch.setattr(pruned, "SEED_MIN", 1)
    monkeypatch.setattr(pruned, "SEED_PER_RESULT", 1)
    seg = _terms(matrix, [0, 1, 2], [1.0, 1.0, 1.0])
    found = pruned_top([seg], 3)
    assert found == top_k(_exhaustive(matrix, [0, 1, 2], [1.0, 1.0, 1.0]), 3)
    assert [r for r, _ in found] == [15, 10, 11]  # 12.1, then 5.1 for rows 10..19: ties by row id
    assert found[0][1] == pytest.approx(12.1, abs=1e-5)


def test_scores_are_summed_in_query_order_bit_for_bit():
    rng = np.random.default_rng(5)
    matrix = (rng.random((300, 6)) < 0.3) * rng.random((300, 6)).astype(np.float32) * 3
    cols, coefs = [4, 0, 2, 5], [0.3, 1.7, 0.9, 2.2]
    seg = _terms(matrix, cols, coefs)
    rows = np.arange(0, 300, 7)
    assert np.array_equal(exact_scores(seg.terms, rows), _exhaustive(matrix, cols, coefs)[rows])


@pytest.mark.parametrize("seed", range(12))
def test_random_segments_give_the_exhaustive_list_with_ties_and_excluded_rows(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    monkeypatch.setattr(pruned, "SEED_MIN", int(rng.integers(1, 40)))
    monkeypatch.setattr(pruned, "SEED_PER_RESULT", int(rng.integers(1, 4)))
    monkeypatch.setattr(pruned, "MAX_CANDIDATE_SHARE", 1.0)
    sizes = [int(rng.integers(50, 400)) for _ in range(int(rng.integers(1, 4)))]
    width = 8
    # Weights from a few levels so that many rows tie; a Zipf-like density: column 0 common, the last rare.
    density = np.geomspace(0.6, 0.01, width)
    levels = np.array([0.5, 1.0, 1.5, 2.0], dtype=np.float32)
    matrices = [(rng.random((n, width)) < density) * rng.choice(levels, (n, width)) for n in sizes]
    cols = [int(c) for c in rng.permutation(width)[: int(rng.integers(2, width + 1))]]
    coefs = [float(c) for c in rng.choice([0.25, 0.5, 1.0, 2.0], len(cols))]
    start, segments, whole = 0, [], []
    for matrix in matrices:
        order = RowOrder.of(rng.permutation(matrix.shape[0])) if rng.random() < 0.5 else RowOrder()
        segments.append(_terms(matrix, cols, coefs, order, start))
        whole.append(_exhaustive(matrix, cols, coefs))
        start += matrix.shape[0]
    scores = np.concatenate(whole)
    deleted = rng.random(start) < 0.1
    rows = np.flatnonzero(rng.random(start) < 0.8) if rng.random() < 0.5 else None
    expected_scores = scores.copy()
    expected_scores[deleted] = 0
    answered = 0
    for k in (1, 3, 10, 30):
        found = pruned_top(segments, k, allowed_rows(deleted, rows))
        if found is not None:
            assert found == top_k(expected_scores, k, rows)
            answered += 1
    assert answered >= 2  # small k always finds enough positive rows in the seed


def test_fewer_positive_rows_than_k_leaves_it_to_the_full_scan():
    matrix = np.zeros((100, 2), dtype=np.float32)
    matrix[3, 0] = 1.0
    assert pruned_top([_terms(matrix, [0, 1], [1.0, 1.0])], 5) is None
    assert pruned_top([_terms(matrix, [1], [1.0])], 5) == []


def test_allowed_rows_drop_the_deleted_and_keep_only_the_given():
    deleted = np.array([False, True, False, False])
    assert allowed_rows(np.zeros(4, dtype=bool), None) is None
    assert allowed_rows(deleted, None).tolist() == [True, False, True, True]
    assert allowed_rows(deleted, np.array([0, 1, 3])).tolist() == [True, False, False, True]


# ---------------------------------------------------------------------------- the real index


@pytest.fixture(scope="module")
def updated_index():
    corpus = generate(1500, seed=11)
    settings = Settings(show_progress=False)
    embedder = HashingEmbedder(lexical=True)
    index = build_index(corpus.kb, settings, embedder)
    docs = list(corpus.kb.documents)
    changed = [edited(d, seed=3) if i % 9 == 0 else d for i, d in enumerate(docs) if i % 23]
    kb = KnowledgeBase(documents=tuple(changed), problems=corpus.kb.problems)
    index, _ = update_index(index, kb, settings, embedder)
    queries = make_global_queries(corpus, 25, seed=4)
    return index, queries, embedder


def test_bm25_and_lexical_top_match_the_full_scan_after_an_update(updated_index, monkeypatch):
    index, queries, embedder = updated_index
    monkeypatch.setattr(pruned, "SEED_MIN", 16)  # a small base: a small seed, so the pruning really prunes
    monkeypatch.setattr(pruned, "SEED_PER_RESULT", 1)
    assert len(index.segments) == 2 and index.deleted.any()
    hint = np.flatnonzero(~np.isin(index.chunks.kind, index.chunks.kind_codes({"solution"})))
    pruned_lists = 0
    for q in queries:
        for text in (q.request.question, q.request.error, q.request.code):
            tokens = tokenize(text)
            lexical = embedder.encode_queries([text]).lexical[0]
            for k in (5, 30, 90):
                for rows in (None, hint):
                    assert index.bm25.top(tokens, k, rows) == index.bm25.search(tokens, k, rows)
                    assert index.lexical.top(lexical, k, rows) == index.lexical.search(lexical, k, rows)
            terms = index.bm25._pruning_terms(*index.bm25._query(tokens))
            pruned_lists += pruned_top(terms, 5) is not None
    assert pruned_lists > 0
