"""Whole-base sparse top-k with block-max pruning over windows of rows (quest/retrieval/pruned.py): the
exact same list as scoring every row, ties included, over segments, deletions and excluded rows."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from quest.bench.corpus import edited, generate, make_global_queries
from quest.kb.documents import KnowledgeBase
from quest.retrieval import pruned
from quest.retrieval.index import build_index, update_index
from quest.retrieval.pruned import SegmentTerms, Term, WindowBounds, allowed_rows, pruned_top, window_scores
from quest.retrieval.scopes import RowOrder
from quest.retrieval.sparse import top_k
from quest.retrieval.tokenize import tokenize
from quest.settings import Settings
from tests.fakes.embedder import HashingEmbedder


def _terms(matrix: np.ndarray, cols: list[int], coefs: list[float], order: RowOrder = RowOrder(),
           start: int = 0, segment: int = 0) -> SegmentTerms:
    """A segment whose term weights are `matrix[row, col] * coef` (rows stored at their positions in `order`)."""
    by_position = matrix if order.identity else order.by_position(matrix)
    csc = sp.csc_matrix(by_position.astype(np.float32))
    terms = []
    for col, coef in zip(cols, coefs, strict=True):
        lo, hi = csc.indptr[col], csc.indptr[col + 1]
        values = csc.data[lo:hi]
        terms.append(Term(csc.indices[lo:hi].astype(np.int32),
                          lambda e, values=values, coef=coef: values[e] * np.float32(coef),
                          lambda values=values: values.astype(np.float64), coef, (segment, col)))
    return SegmentTerms(start, matrix.shape[0], order, terms)


def _exhaustive(matrix: np.ndarray, cols: list[int], coefs: list[float]) -> np.ndarray:
    out = np.zeros(matrix.shape[0], dtype=np.float32)
    for col, coef in zip(cols, coefs, strict=True):
        out += matrix[:, col].astype(np.float32) * np.float32(coef)
    return out


@pytest.fixture
def scored_windows(monkeypatch):
    """The windows `pruned_top` scores, as (first, last) runs."""
    runs: list[tuple[int, int]] = []
    original = pruned.window_scores

    def recording(seg, first, last, bounds):
        runs.append((first, last))
        return original(seg, first, last, bounds)
    monkeypatch.setattr(pruned, "window_scores", recording)
    return runs


def test_only_the_windows_a_rare_term_reaches_are_scored(monkeypatch, scored_windows):
    # 1,000 rows in windows of 10: term 0 in every row (0.1), term 1 in rows 500..519 (5), term 2 in row 515 (7)
    monkeypatch.setattr(pruned, "WINDOW", 10)
    monkeypatch.setattr(pruned, "FIRST_ROUND", 1)
    matrix = np.zeros((1000, 3), dtype=np.float32)
    matrix[:, 0] = 0.1
    matrix[500:520, 1] = 5.0
    matrix[515, 2] = 7.0
    seg = _terms(matrix, [0, 1, 2], [1.0, 1.0, 1.0])
    found = pruned_top([seg], 3)
    assert found == top_k(_exhaustive(matrix, [0, 1, 2], [1.0, 1.0, 1.0]), 3)
    assert [r for r, _ in found] == [515, 500, 501]  # 12.1, then 5.1 for rows 500..519: ties by row id
    assert scored_windows == [(51, 52), (50, 51)]  # 100 windows, 2 scored: the others' bound is 0.1


def test_a_window_whose_bound_equals_theta_is_still_scored_for_its_ties(monkeypatch, scored_windows):
    monkeypatch.setattr(pruned, "WINDOW", 4)
    monkeypatch.setattr(pruned, "FIRST_ROUND", 1)
    monkeypatch.setattr(pruned, "BOUND_MARGIN", 0.0)
    matrix = np.zeros((16, 1), dtype=np.float32)
    matrix[13, 0] = 2.0  # window 3 (bound 2) is scored first: theta is then 1.0, its 2nd best
    matrix[12, 0] = 1.0
    matrix[9, 0] = 1.0  # windows 2 and 0 may only tie theta (bound 1.0): scored, and row 1 wins on its id
    matrix[1, 0] = 1.0
    assert pruned_top([_terms(matrix, [0], [1.0])], 2) == [(13, 2.0), (1, 1.0)]
    assert scored_windows == [(3, 4), (0, 1), (2, 3)]


def test_window_scores_add_the_terms_in_query_order_bit_for_bit(monkeypatch):
    monkeypatch.setattr(pruned, "WINDOW", 32)
    rng = np.random.default_rng(5)
    matrix = (rng.random((300, 6)) < 0.3) * rng.random((300, 6)).astype(np.float32) * 3
    cols, coefs = [4, 0, 2, 5], [0.3, 1.7, 0.9, 2.2]
    seg = _terms(matrix, cols, coefs)
    assert np.array_equal(window_scores(seg, 2, 5, WindowBounds()), _exhaustive(matrix, cols, coefs)[64:160])
    assert np.array_equal(window_scores(seg, 8, 10, WindowBounds()), _exhaustive(matrix, cols, coefs)[256:300])


@pytest.mark.parametrize("seed", range(16))
def test_random_segments_give_the_exhaustive_list_with_ties_and_excluded_rows(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    monkeypatch.setattr(pruned, "WINDOW", int(rng.choice([3, 8, 16, 64])))
    monkeypatch.setattr(pruned, "FIRST_ROUND", int(rng.integers(1, 4)))
    sizes = [int(rng.integers(50, 400)) for _ in range(int(rng.integers(1, 4)))]
    width = 8
    # Weights from a few levels so that many rows tie; a Zipf-like density: column 0 common, the last rare.
    density = np.geomspace(0.6, 0.01, width)
    levels = np.array([0.5, 1.0, 1.5, 2.0], dtype=np.float32)
    cols = [int(c) for c in rng.permutation(width)[: int(rng.integers(1, width + 1))]]
    coefs = [float(c) for c in rng.choice([0.25, 0.5, 1.0, 2.0, -0.5], len(cols))]
    start, segments, whole = 0, [], []
    for s, n in enumerate(sizes):
        matrix = (rng.random((n, width)) < density) * rng.choice(levels, (n, width))
        order = RowOrder.of(rng.permutation(n)) if rng.random() < 0.5 else RowOrder()
        segments.append(_terms(matrix, cols, coefs, order, start, s))
        whole.append(_exhaustive(matrix, cols, coefs))
        start += n
    scores = np.concatenate(whole)
    deleted = rng.random(start) < 0.1
    rows = np.flatnonzero(rng.random(start) < 0.8) if rng.random() < 0.5 else None
    scores[deleted] = 0
    bounds = WindowBounds()
    for k in (1, 3, 10, 30, 1000):
        assert pruned_top(segments, k, allowed_rows(deleted, rows), bounds) == top_k(scores, k, rows)


def test_bounds_are_kept_per_list_within_a_byte_budget():
    positions = np.arange(0, 100, 2, dtype=np.int32)
    term = Term(positions, lambda e: None, lambda: np.ones(50), 1.0, ("s", 1))
    bounds = WindowBounds(max_bytes=10**6)
    first = bounds.of(term, 100)
    assert bounds.of(term, 100) is first and bounds.bytes == sum(a.nbytes for a in first)
    tiny = WindowBounds(max_bytes=8)
    assert tiny.of(term, 100) is not tiny.of(term, 100) and tiny.bytes == 0


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
    index, _ = update_index(index, KnowledgeBase(documents=tuple(changed), problems=corpus.kb.problems),
                            settings, embedder)
    return index, make_global_queries(corpus, 25, seed=4), embedder


@pytest.mark.parametrize("window", [16, 2048])
def test_bm25_and_lexical_top_match_the_full_scan_after_an_update(updated_index, window, monkeypatch,
                                                                  scored_windows):
    index, queries, embedder = updated_index
    monkeypatch.setattr(pruned, "WINDOW", window)
    index.bm25._bounds, index.lexical._bounds = WindowBounds(), WindowBounds()  # bounds depend on the window
    assert len(index.segments) == 2 and index.deleted.any()
    hint = np.flatnonzero(~np.isin(index.chunks.kind, index.chunks.kind_codes({"solution"})))
    for q in queries:
        for text in (q.request.question, q.request.error, q.request.code):
            tokens = tokenize(text)
            lexical = embedder.encode_queries([text]).lexical[0]
            for k in (5, 30, 90):
                for rows in (None, hint):
                    assert index.bm25.top(tokens, k, rows) == index.bm25.search(tokens, k, rows)
                    assert index.lexical.top(lexical, k, rows) == index.lexical.search(lexical, k, rows)
    assert scored_windows
