"""The pruned whole-base top-k (maxscore.py) returns exactly the exhaustive top-k; bounds are stored and loaded."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from quest.kb.markdown import load_knowledge_base
from quest.retrieval import bounds, maxscore
from quest.retrieval import retriever as retriever_module
from quest.retrieval.index import index_dir_for, load_index, open_index
from quest.retrieval.retriever import Retriever
from quest.retrieval.scopes import RowOrder
from quest.retrieval.segments import Segment, SegmentedBM25, SegmentedLexical, term_matrix
from quest.retrieval.sparse import LexicalIndex
from tests.fakes.embedder import HashingEmbedder
from tests.retrieval.test_segments import edit_kb


@pytest.fixture
def always_prune(monkeypatch):
    """Prune whatever it costs (the fallback to the scan is for speed only), from a seed of one row or more."""
    monkeypatch.setattr(maxscore, "FALLBACK_SHARE", float("inf"))


WORDS = [f"w{i}" for i in range(40)]
# Zipf-ish documents: a few common words (some with rank-bm25's negative-idf floor), a long tail, repeats
documents = st.lists(st.lists(st.integers(0, 39).map(lambda i: WORDS[min(i, (i * i) % 40)]), max_size=25),
                     min_size=1, max_size=70)


def build(docs: list[list[str]], cuts: list[int], orders: list[int], with_bounds: bool) -> list[Segment]:
    vocab: dict[str, int] = {}
    segments, start = [], 0
    for i, end in enumerate([*sorted(set(cuts)), len(docs)]):
        part = docs[start:end]
        start = end
        if not part:
            continue
        tf, terms = term_matrix(part, vocab)
        rng = np.random.default_rng(orders[i % len(orders)])
        order = RowOrder.of(rng.permutation(len(part))) if orders[i % len(orders)] % 2 else None
        seg = Segment(name=f"s{i + 1:06d}", chunks=[None] * len(part), tf=tf, terms=terms, order=order)
        if with_bounds:
            bounds.attach(seg, bounds.of_segment(seg))
        segments.append(seg)
    return segments


@hyp_settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(docs=documents, cuts=st.lists(st.integers(0, 70), max_size=2), orders=st.lists(st.integers(0, 9), min_size=1),
       dead=st.lists(st.integers(0, 69), max_size=20), allowed=st.none() | st.lists(st.integers(0, 69), min_size=1),
       query=st.lists(st.sampled_from([*WORDS, "unknown"]), max_size=8), k=st.integers(1, 80),
       seed_rows=st.sampled_from([1, 4, 256]), with_bounds=st.booleans(), in_place=st.booleans(),
       aligned=st.booleans())
def test_pruned_bm25_top_k_equals_the_exhaustive_one(always_prune, monkeypatch, docs, cuts, orders, dead, allowed,
                                                      query, k, seed_rows, with_bounds, in_place, aligned):
    monkeypatch.setattr(maxscore, "SEED_ROWS", seed_rows)
    monkeypatch.setattr(maxscore, "SPARSE_LOOKUP", 0 if in_place else 64)  # binary search in place, or on a copy
    if not aligned:  # as for lists mapped from an index written before npzfile: copies or the hand-made search
        monkeypatch.setattr(maxscore.Source, "aligned", property(lambda self: False))
    monkeypatch.setattr(maxscore, "STRIDE", 3)
    monkeypatch.setattr(maxscore, "SEED_PER_RESULT", 1)
    segments = build(docs, cuts, orders, with_bounds)
    deleted = np.zeros(len(docs), dtype=bool)
    deleted[[d for d in dead if d < len(docs)]] = True
    model = SegmentedBM25(segments, deleted)
    rows = None if allowed is None else np.unique([a for a in allowed if a < len(docs)] or [0]).astype(np.int64)
    # the same rows, in the same order, with the same float32 scores (==, not approximately)
    assert model.pruned_search(query, k, rows) == model.search(query, k, rows)


def test_ties_deletions_and_k_beyond_the_matches(always_prune, monkeypatch):
    monkeypatch.setattr(maxscore, "SEED_ROWS", 2)
    monkeypatch.setattr(maxscore, "SEED_PER_RESULT", 1)
    docs = [["rare", "common"]] * 6 + [["common"] * 3] * 40 + [["other"]] * 20 + [["rare", "x"]] * 4
    segments = build(docs, [30, 50], [1, 2, 3], True)
    deleted = np.zeros(len(docs), dtype=bool)
    deleted[[0, 2, 31]] = True
    model = SegmentedBM25(segments, deleted)
    exhaustive = model.search(["rare", "common"], 5)
    assert model.pruned_search(["rare", "common"], 5) == exhaustive
    assert [r for r, _ in exhaustive] == [1, 3, 4, 5, 66]  # ties broken by row id; deleted rows 0 and 2 absent
    assert model.pruned_search(["rare"], 500) == model.search(["rare"], 500)  # k beyond the 8 live matches
    assert len(model.pruned_search(["rare"], 500)) == 8
    assert model.pruned_search(["nowhere"], 5) == [] == model.pruned_search([], 5)


def test_the_pruned_search_reads_fewer_postings_than_the_scan(monkeypatch):
    """Not a timing: on a base where one rare term decides the top 3, the common terms' lists are never read
    whole (only binary-searched for the few survivors)."""
    docs = [["common", "filler"] for _ in range(3000)]
    for row in (10, 500, 2500):
        docs[row] = ["rare", "common"]
    model = SegmentedBM25(build(docs, [], [0], True), np.zeros(len(docs), dtype=bool))
    read = []
    original = maxscore._read_whole
    monkeypatch.setattr(maxscore, "_read_whole", lambda call, term, acc, seen: (read.append(call.columns[term][0]),
                                                                                 original(call, term, acc, seen)))
    found = model.pruned_search(["common", "rare", "filler"], 3)
    assert found == model.search(["common", "rare", "filler"], 3)
    assert [r for r, _ in found] == [10, 500, 2500]
    assert read == [model.vocab["rare"]]


def lexical_segments(weights: list[dict[str, float]], cuts: list[int], with_bounds: bool) -> tuple[list, np.ndarray]:
    parts, offsets, start = [], [0], 0
    for end in [*sorted(set(cuts)), len(weights)]:
        if weights[start:end]:
            part = LexicalIndex.from_weights(weights[start:end], vocab_size=30)
            if with_bounds:
                part.max_abs = bounds.column_reduce(part.csc.indptr, lambda lo, hi, p=part: np.abs(
                    np.asarray(p.csc.data[lo:hi], dtype=np.float32)), np.maximum, 0.0)
            parts.append(part)
            offsets.append(end)
        start = end
    return parts, np.asarray(offsets, dtype=np.int64)


weights_st = st.dictionaries(st.integers(0, 29).map(str), st.sampled_from([0.05, 0.1, 0.125, 0.2, 0.3, 0.35]),
                             max_size=10)


@hyp_settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(weights=st.lists(weights_st, min_size=1, max_size=60), cuts=st.lists(st.integers(0, 60), max_size=2),
       dead=st.lists(st.integers(0, 59), max_size=10), query=weights_st, k=st.integers(1, 70),
       with_bounds=st.booleans(), in_place=st.booleans(), aligned=st.booleans())
def test_pruned_lexical_top_k_equals_the_exhaustive_one(always_prune, monkeypatch, weights, cuts, dead, query, k,
                                                        with_bounds, in_place, aligned):
    monkeypatch.setattr(maxscore, "SPARSE_LOOKUP", 0 if in_place else 64)
    if not aligned:
        monkeypatch.setattr(maxscore.Source, "aligned", property(lambda self: False))
    parts, offsets = lexical_segments(weights, cuts, with_bounds)
    deleted = np.zeros(len(weights), dtype=bool)
    deleted[[d for d in dead if d < len(weights)]] = True
    model = SegmentedLexical(parts, offsets, deleted)
    assert model.pruned_search(query, k) == model.search(query, k)


def test_bounds_hold_every_column_maximum():
    tf = sp.csc_matrix(np.array([[0, 3, 1], [2, 0, 1], [5, 1, 0], [0, 0, 0]], dtype=np.float32))
    seg = Segment(name="s000001", chunks=[None] * 4, tf=tf, terms=["a", "b", "c"],
                  lexical=LexicalIndex(sp.csr_matrix(np.array([[0, 0.5], [0.25, 0], [0, 0.125], [1.5, 0]]))))
    found = bounds.of_segment(seg)
    doc_len = [4, 3, 6, 0]
    assert found.max_tf.tolist() == [5, 3, 1]
    assert found.min_len.tolist() == [min(doc_len[1], doc_len[2]), min(doc_len[0], doc_len[2]), min(doc_len[:2])]
    assert found.lexical_max.tolist() == [1.5, 0.5]


def test_bounds_are_written_for_a_base_a_delta_and_a_compaction_and_loaded(settings, kb_dir):
    embedder = HashingEmbedder(lexical=True)
    open_index(load_knowledge_base(kb_dir), settings, embedder)
    folder = index_dir_for(settings, embedder.name)
    loaded = load_index(folder)
    fresh = bounds.of_segment(loaded.segments[0])
    kept = loaded.segments[0].bounds
    assert kept.max_tf.tolist() == fresh.max_tf.tolist() and kept.min_len.tolist() == fresh.min_len.tolist()
    assert kept.lexical_max.tolist() == fresh.lexical_max.tolist()
    assert loaded.segments[0].lexical.max_abs is kept.lexical_max
    edit_kb(kb_dir)
    updated, report = open_index(load_knowledge_base(kb_dir), settings, embedder)
    assert report.action == "updated" and (folder / "s000002.bounds.npz").exists()  # the delta's own
    delta = load_index(folder).segments[1].bounds
    assert delta.max_tf.tolist() == bounds.of_segment(updated.segments[1]).max_tf.tolist()
    again, report = open_index(load_knowledge_base(kb_dir), settings, embedder, compact=True)
    assert report.action == "compacted" and (folder / "s000003.bounds.npz").exists()
    reread = load_index(folder).segments[0]
    assert reread.bounds.min_len.tolist() == bounds.of_segment(again.segments[0]).min_len.tolist()
    assert reread.bounds.lexical_max.tolist() == bounds.of_segment(again.segments[0]).lexical_max.tolist()


QUERIES = ("hash table two sum", "滑动窗口 超时", "RecursionError deep recursion", "list.pop(0) TLE",
           "dictionary lookup complement", "recursion")


def hits(index, kb, settings, embedder):
    found = Retriever(settings, index, kb, embedder)
    return [[(h.chunk.id, h.fused, h.score) for h in found.search(q).hits] for q in QUERIES]


def test_an_index_without_bounds_loads_and_searches_the_same(always_prune, settings, kb_dir, monkeypatch):
    """An index written before the bounds file (no file, no manifest entry) loads with cruder bounds and gives
    the same hits through the retriever, pruned or scanned; the build step then adds exactly that file."""
    settings = settings.replace(sparse_kernel="numpy")  # the numpy MaxScore, not the compiled lists (test_kernels.py)
    embedder = HashingEmbedder(lexical=True)
    kb = load_knowledge_base(kb_dir)
    open_index(kb, settings, embedder)
    folder = index_dir_for(settings, embedder.name)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    for seg in manifest["segments"]:
        seg["files"].pop(f"{seg['name']}.bounds.npz")
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    (folder / "s000001.bounds.npz").unlink()
    old = load_index(folder)
    assert old.segments[0].bounds is None
    monkeypatch.setattr(retriever_module, "PRUNE_FROM", 10**9)
    scanned = hits(old, kb, settings, embedder)
    monkeypatch.setattr(retriever_module, "PRUNE_FROM", 0)
    calls = []
    original = maxscore.search
    monkeypatch.setattr(maxscore, "search", lambda *a, **kw: calls.append(1) or original(*a, **kw))
    assert hits(old, kb, settings, embedder) == scanned
    assert calls  # the pruned path ran
    assert bounds.add_to_index(folder) == ["s000001.bounds.npz"]
    assert bounds.add_to_index(folder) == []
    again = load_index(folder)
    assert again.segments[0].bounds is not None
    assert hits(again, kb, settings, embedder) == scanned


def test_a_damaged_bounds_file_is_an_index_error(settings, kb_dir):
    from quest.errors import IndexError_

    embedder = HashingEmbedder(lexical=True)
    open_index(load_knowledge_base(kb_dir), settings, embedder)
    folder = index_dir_for(settings, embedder.name)
    seg = load_index(folder).segments[0]
    with pytest.raises(IndexError_):
        bounds.load(folder / "s000001.bounds.npz", seg.postings.shape[1] + 1, seg.lexical.csc.shape[1])


@hyp_settings(max_examples=200, deadline=None)
@given(values=st.sets(st.integers(0, 5000), min_size=1, max_size=400), needles=st.sets(st.integers(-1, 5001)),
       stride=st.integers(1, 40), offset=st.integers(0, 5))
def test_the_in_place_binary_search_equals_numpys(values, needles, stride, offset):
    hay = np.asarray(sorted(values), dtype=np.int32)
    stored = np.concatenate([np.full(offset, -7, dtype=np.int32), hay, np.full(3, -9, dtype=np.int32)])
    asked = np.asarray(sorted(needles), dtype=np.int64)
    original, maxscore.STRIDE = maxscore.STRIDE, stride
    try:
        found = maxscore.lower_bound(stored, offset, offset + hay.size, asked)
    finally:
        maxscore.STRIDE = original
    assert found.tolist() == np.searchsorted(hay, asked).tolist()
