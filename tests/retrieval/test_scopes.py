"""Sparse rows in scope order: the same scores as rows in row order, a rebuild and rank-bm25,
while a scope reads only its own postings (quest/retrieval/scopes.py)."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest
import scipy.sparse as sp
from rank_bm25 import BM25Okapi

from quest.bench.corpus import edited, generate
from quest.errors import IndexError_
from quest.kb.documents import KnowledgeBase
from quest.retrieval import store
from quest.retrieval.index import Index, build_index, compact_index, load_index, save_index, update_index
from quest.retrieval.retriever import Retriever
from quest.retrieval.scopes import MAX_RUNS, RowOrder, ScopeRuns, scope_of
from quest.retrieval.segments import Segment
from quest.retrieval.sparse import LexicalIndex
from quest.retrieval.tokenize import tokenize
from quest.settings import Settings
from tests.fakes.embedder import HashingEmbedder

# ---------------------------------------------------------------------------- the order itself


def test_rows_are_grouped_by_problem_then_kind_in_order_of_first_appearance():
    problem = np.array([3, -1, 3, 5, -1, 3, 5])
    kind = np.array([0, 2, 1, 0, 2, 0, 0])
    order = RowOrder.grouping(problem, kind)
    # problem 3 (kinds 0 then 1), the general rows, problem 5
    assert order.order.tolist() == [0, 5, 2, 1, 4, 3, 6]
    assert order.rank.tolist() == [0, 3, 2, 5, 4, 1, 6]
    assert order.rows(np.array([0, 1, 2])).tolist() == [0, 5, 2]
    assert order.by_position(np.arange(7) * 10).tolist() == [0, 50, 20, 10, 40, 30, 60]


def test_rows_already_grouped_keep_the_identity_and_store_nothing():
    order = RowOrder.grouping(np.array([-1, -1, 4, 4, 4, 2]), np.array([1, 1, 0, 0, 3, 0]))
    assert order.identity and order.stored().size == 0
    matrix = sp.csc_matrix(np.eye(6, dtype=np.float32))
    assert order.to_positions(matrix).nnz == 6 and order.to_rows(matrix) is matrix
    assert RowOrder.grouping(np.zeros(0, dtype=np.int32)).identity


@pytest.mark.parametrize("bad", [[0, 0, 2], [0, 1, 3], [-1, 0, 1], [[0, 1, 2]]])
def test_a_stored_order_that_is_not_a_permutation_is_refused(bad):
    with pytest.raises(ValueError, match="not a permutation"):
        RowOrder.of(np.array(bad))


def test_a_matrix_goes_to_positions_and_back_unchanged():
    rng = np.random.default_rng(3)
    dense = (rng.random((9, 5)) < 0.4) * rng.integers(1, 4, (9, 5))
    order = RowOrder.of(rng.permutation(9))
    by_position = order.to_positions(sp.csr_matrix(dense.astype(np.float32)))
    assert by_position.has_sorted_indices
    assert np.array_equal(by_position.toarray(), dense[order.order])
    assert np.array_equal(order.to_rows(by_position).toarray(), dense)


def test_a_scope_is_a_few_runs_and_a_column_yields_only_its_entries():
    runs = ScopeRuns(np.array([2, 3, 4, 9, 10, 15]))
    assert runs.exact and runs.starts.tolist() == [2, 9, 15] and runs.ends.tolist() == [5, 11, 16]
    indices = np.array([0, 3, 4, 5, 9, 12, 15, 16])  # one column's positions
    slices, found, at = runs.column(np.array([0, 8]), indices, 0)
    assert [(s.start, s.stop) for s in slices] == [(1, 3), (4, 5), (6, 7)]
    assert found.tolist() == [3, 4, 9, 15] and at.tolist() == [1, 2, 3, 5]


def test_beyond_max_runs_the_narrowest_gaps_are_read_through_and_filtered():
    positions = np.concatenate([np.arange(0, 4 * (MAX_RUNS + 5), 4), [1000, 1001]])  # many one-row runs
    runs = ScopeRuns(positions)
    assert not runs.exact and runs.starts.size == MAX_RUNS
    indices = np.arange(0, 1100)  # a term in every position
    slices, found, at = runs.column(np.array([0, indices.size]), indices, 0)
    # 30 one-row runs, one run read through from 120 to 144 (7 of its 25 rows in scope), then 1000-1001
    assert runs.starts[-2:].tolist() == [120, 1000] and runs.ends[-2:].tolist() == [145, 1002]
    assert sum(s.stop - s.start for s in slices) == found.size == 30 + 25 + 2
    assert sorted(positions[at[at >= 0]].tolist()) == positions.tolist()
    assert (at >= 0).sum() == positions.size  # every entry between the runs' rows is dropped


def test_results_come_back_in_the_order_of_the_rows_asked_for():
    order = RowOrder.of(np.array([4, 0, 3, 1, 2]))
    runs, back = scope_of(order, np.array([3, 4, 0]))  # positions 2, 0, 1
    assert runs.positions.tolist() == [0, 1, 2] and back.tolist() == [1, 2, 0]


# ---------------------------------------------------------------------------- whole indexes


@pytest.fixture(scope="module")
def corpus():
    """A synthetic base: 20 problems' documents and the general ones, interleaved by document."""
    return generate(500)


@pytest.fixture(scope="module")
def built(corpus):
    return build_index(corpus.kb, Settings(show_progress=False), HashingEmbedder(lexical=True))


def in_row_order(index: Index) -> Index:
    """The same index with its sparse rows kept in row order (the layout before scope order)."""
    segments = [Segment(name=s.name, chunks=s.chunks, tf=s.tf, terms=s.terms, doc_len=s.doc_len, dense=s.dense,
                        lexical=LexicalIndex(s.lexical.matrix) if s.lexical is not None else None,
                        order=RowOrder()) for s in index.segments]
    return Index(segments=segments, deleted=index.deleted.copy(), model=index.model,
                 doc_hashes=dict(index.doc_hashes), chunk_max_chars=index.chunk_max_chars, dim=index.dim)


def queries_for(index: Index, seed: int) -> list[tuple[list[str], dict[str, float]]]:
    rng = random.Random(seed)
    live = np.flatnonzero(~index.deleted)
    out = []
    for _ in range(8):
        text = " ".join(index.chunks[int(rng.choice(live))].text[:rng.randint(20, 120)] for _ in range(2))
        out.append((tokenize(text), HashingEmbedder(lexical=True).encode_queries([text]).lexical[0]))
    return out


def scopes_of(index: Index) -> list[np.ndarray]:
    """Every problem's rows, the general rows, and both without one kind (the hint tier's cut)."""
    kinds = index.chunks.kind
    official = index.chunks.kind_codes({"official_solution"})
    general = np.flatnonzero(index.chunks.problem == -1)
    out = [general, np.flatnonzero((~np.isin(kinds, official)) & (index.chunks.problem == -1))]
    for rows in index.rows_by_problem.values():
        out += [rows, rows[~np.isin(kinds[rows], official)]]
    return [rows for rows in out if rows.size]


def assert_same_sparse_scores(index: Index, reference: Index, queries) -> None:
    """Full scores and every scope's scores bit for bit equal to `reference` (rows in row order)."""
    for tokens, lexical in queries:
        bm25, lex = index.bm25.scores(tokens), index.lexical.scores(lexical)
        assert bm25.tolist() == reference.bm25.scores(tokens).tolist()
        assert lex.tolist() == reference.lexical.scores(lexical).tolist()
        for rows in scopes_of(index):
            assert index.bm25.scores_for(tokens, rows).tolist() == bm25[rows].tolist()
            assert index.lexical.scores_for(lexical, rows).tolist() == lex[rows].tolist()
            shuffled = np.random.default_rng(rows.size).permutation(rows)
            assert index.bm25.scores_for(tokens, shuffled).tolist() == bm25[shuffled].tolist()


def assert_rank_bm25_agrees(index: Index, queries) -> None:
    live = np.flatnonzero(~index.deleted)
    reference = BM25Okapi([tokenize(index.chunks[int(r)].indexed_text) for r in live])
    for tokens, _ in queries:
        np.testing.assert_allclose(index.bm25.scores(tokens)[live], reference.get_scores(tokens), rtol=1e-5,
                                   atol=1e-5)


def by_chunk(index: Index, scores: np.ndarray) -> dict[str, float]:
    return {index.chunks[int(r)].id: float(scores[r]) for r in np.flatnonzero(~index.deleted)}


def edit(kb: KnowledgeBase, every: int) -> KnowledgeBase:
    """Every `every`-th document edited, and the one after it removed."""
    docs = []
    for i, doc in enumerate(kb.documents):
        if i % every == 1:
            continue
        docs.append(edited(doc) if i % every == 0 else doc)
    return dataclasses.replace(kb, documents=tuple(docs))


def test_a_built_index_scores_exactly_as_rows_in_row_order_and_rank_bm25(built):
    index = built
    (seg,) = index.segments
    assert not seg.order.identity  # the corpus interleaves problems: the order does real work
    queries = queries_for(index, 1)
    assert_same_sparse_scores(index, in_row_order(index), queries)
    assert_rank_bm25_agrees(index, queries)


def test_deltas_and_compaction_score_exactly_as_before_and_as_a_rebuild(corpus, built, settings, tmp_path):
    embedder = HashingEmbedder(lexical=True)
    index = built
    kb = corpus.kb
    for every in (7, 11):  # two updates: a base, two deltas, deleted rows in all three
        kb = edit(kb, every)
        index, report = update_index(index, kb, settings, embedder)
        assert report.action == "updated"
    assert len(index.segments) == 3 and index.deleted.any() and not index.segments[1].order.identity
    queries = queries_for(index, 2)
    assert_same_sparse_scores(index, in_row_order(index), queries)
    assert_rank_bm25_agrees(index, queries)

    rebuilt = build_index(kb, settings, embedder)
    compacted = compact_index(index)
    for tokens, lexical in queries:
        want = by_chunk(rebuilt, rebuilt.bm25.scores(tokens))
        for other in (index, compacted):
            got = by_chunk(other, other.bm25.scores(tokens))
            assert got.keys() == want.keys()
            np.testing.assert_allclose([got[c] for c in want], list(want.values()), rtol=1e-6, atol=1e-6)
        assert by_chunk(compacted, compacted.lexical.scores(lexical)) == by_chunk(index, index.lexical.scores(lexical))
    assert_same_sparse_scores(compacted, in_row_order(compacted), queries)

    save_index(index, tmp_path / "saved")
    loaded = load_index(tmp_path / "saved", verify=True)
    assert [s.order.stored().tolist() for s in loaded.segments] == [s.order.stored().tolist() for s in index.segments]
    assert_same_sparse_scores(loaded, in_row_order(index), queries)


def test_a_scope_reads_only_its_own_postings(built):
    index = built
    (seg,) = index.segments
    tf = seg.tf
    for rows in scopes_of(index)[:6]:
        runs, _ = scope_of(seg.order, rows)
        inside = np.zeros(index.rows, dtype=bool)
        inside[rows] = True
        for col in range(0, tf.shape[1], 37):
            slices, found, _ = runs.column(seg.postings.indptr, seg.postings.indices, col)
            read = sum(s.stop - s.start for s in slices)
            holders = tf.indices[tf.indptr[col]:tf.indptr[col + 1]]
            assert read == int(inside[holders].sum())  # not one posting of another scope
            assert sorted(seg.order.rows(found).tolist()) == sorted(holders[inside[holders]].tolist())


def test_search_results_are_the_same_with_rows_in_scope_order(corpus, built, settings):
    embedder = HashingEmbedder(lexical=True)
    index = built
    plain = in_row_order(index)
    problems = sorted(index.rows_by_problem)
    for i, (tokens, _) in enumerate(queries_for(index, 3)):
        text = " ".join(tokens[:30])
        for pid, hint in ((problems[i % len(problems)], False), (None, False), (problems[-1 - i], True)):
            excluded = ("official_solution",) if hint else ()
            want = Retriever(settings, plain, corpus.kb, embedder).search(text, problem_id=pid, exclude_kinds=excluded)
            got = Retriever(settings, index, corpus.kb, embedder).search(text, problem_id=pid, exclude_kinds=excluded)
            assert [(h.chunk.id, h.fused, h.score) for h in got.hits] == [
                (h.chunk.id, h.fused, h.score) for h in want.hits]


def test_a_damaged_row_order_makes_the_index_unusable(built, tmp_path):
    save_index(built, tmp_path)
    path = tmp_path / "s000001.bm25.npz"
    arrays = store.map_npz(path, ("order",))
    offset = arrays["order"].offset
    del arrays
    with path.open("r+b") as fh:  # the second row's position now holds the first row: same size, no hash read
        fh.seek(offset)
        first = fh.read(4)
        fh.write(first)
    with pytest.raises(IndexError_, match="not a permutation"):
        load_index(tmp_path, verify=False)
    with pytest.raises(IndexError_, match="checksum"):
        load_index(tmp_path)


def test_cached_term_weights_give_the_same_scores_stay_bounded_and_start_empty_after_an_update(
        corpus, built, settings, monkeypatch):
    import quest.retrieval.segments as segments_module

    monkeypatch.setattr(segments_module, "CACHE_FROM_ROWS", 1)  # every exact scope is cached, even a problem's
    monkeypatch.setattr(segments_module, "CACHE_BYTES", 4096)
    # and every scope goes through the scope runs that the cache serves, not the few-rows lookup that needs none
    monkeypatch.setattr(segments_module.SegmentedBM25, "few_rows", 0)
    index = Index(segments=built.segments, deleted=built.deleted.copy(), model=built.model,
                  doc_hashes=dict(built.doc_hashes), chunk_max_chars=built.chunk_max_chars, dim=built.dim)
    plain = in_row_order(built)
    queries = queries_for(index, 4)
    for _ in range(2):  # the second pass reads the weights the first one kept
        assert_same_sparse_scores(index, plain, queries)
        assert len(index.bm25.cache) > 0 and index.bm25.cache.bytes <= 4096
    assert all(len(key) >= 4 for key in index.bm25.cache._entries)  # (segment, scope runs..., term, coefficient)
    updated, _ = update_index(index, edit(corpus.kb, 9), settings, HashingEmbedder(lexical=True))
    assert len(updated.bm25.cache) == 0  # new statistics, new weights
    assert_same_sparse_scores(updated, in_row_order(updated), queries)


def test_term_counts_are_stored_in_two_bytes_and_score_exactly_after_load_update_and_compaction(
        corpus, built, settings, tmp_path):
    save_index(built, tmp_path / "saved")
    (seg,) = built.segments
    stored = np.load(tmp_path / "saved" / f"{seg.name}.bm25.npz")["data"]
    assert stored.dtype == np.uint16 and stored.tolist() == seg.postings.data.tolist()
    loaded = load_index(tmp_path / "saved")
    assert loaded.segments[0].postings.data.dtype == np.uint16
    queries = queries_for(built, 5)
    assert_same_sparse_scores(loaded, in_row_order(built), queries)
    embedder = HashingEmbedder(lexical=True)
    updated, _ = update_index(loaded, edit(corpus.kb, 9), settings, embedder)
    compacted = compact_index(updated)
    reference = compact_index(update_index(built, edit(corpus.kb, 9), settings, embedder)[0])
    assert_same_sparse_scores(compacted, in_row_order(reference), queries)


def test_counts_that_are_not_small_whole_numbers_stay_float32():
    assert store.stored_counts(np.array([1.0, 3.0, 65535.0], dtype=np.float32)).dtype == np.uint16
    for data in ([1.0, 2.5], [1.0, 65536.0], [-1.0, 2.0]):
        kept = store.stored_counts(np.array(data, dtype=np.float32))
        assert kept.dtype == np.float32 and kept.tolist() == data


def test_by_row_undoes_by_position():
    order = RowOrder.of(np.array([2, 0, 3, 1]))
    values = np.array([10.0, 11.0, 12.0, 13.0])  # per row
    assert order.by_position(values).tolist() == [12.0, 10.0, 13.0, 11.0]
    assert order.by_row(order.by_position(values)).tolist() == values.tolist()
    assert RowOrder().by_row(values) is values
