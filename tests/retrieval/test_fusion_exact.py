"""Round 17b's faster fusion gives exactly what the code it replaced gave (differential, old against new).

The old code is kept here as the reference, word for word as it was (perf17, 474fc30): `reciprocal_rank_fusion`
and `ties_last` from quest/retrieval/fusion.py, and the fusion part of `Retriever._rank` with
`_by_chunk_on_ties` and `_short_signals`. Lists are drawn with few rows and few scores, so that rows repeat across
lists (and within one), fused scores and strengths tie, and a NaN or a negative score turns up.
"""

from __future__ import annotations

import importlib.util
import math
import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quest.retrieval import kernels
from quest.retrieval.fusion import reciprocal_rank_fusion, rrf_scores, tie_key, ties_last
from quest.retrieval.retriever import Retriever, build_retriever, signals_of
from quest.retrieval.sparse import normalized
from quest.retrieval.types import Signal
from quest.settings import Settings
from tests.fakes.embedder import HashingEmbedder

# ---------------------------------------------------------------------------------------------- the old code


def old_reciprocal_rank_fusion(ranked_lists, k=60):
    lists = ranked_lists.values() if isinstance(ranked_lists, Mapping) else ranked_lists
    contributions: dict = {}
    for ranking in lists:
        seen: set = set()
        for rank, item in enumerate(ranking, start=1):
            if item in seen:
                continue
            seen.add(item)
            contributions.setdefault(item, []).append(1.0 / (k + rank))
    fused = [(item, math.fsum(parts)) for item, parts in contributions.items()]
    return old_ties_last(fused, lambda pair: -pair[1], lambda pair: (type(pair[0]).__name__, str(pair[0])))


def old_ties_last(items: Sequence, key: Callable, tie: Callable) -> list:
    keyed = sorted(((key(item), n) for n, item in enumerate(items)), key=lambda pair: pair[0])
    out: list = []
    i = 0
    while i < len(keyed):
        j = i + 1
        while j < len(keyed) and keyed[j][0] == keyed[i][0]:
            j += 1
        if j - i == 1:
            out.append(items[keyed[i][1]])
        else:
            out.extend(sorted((items[n] for _, n in keyed[i:j]), key=tie))
        i = j
    return out


def _short_signals(sig: dict[str, Signal], bases: Mapping[str, str]) -> dict[str, Signal]:
    out: dict[str, Signal] = {}
    for name, s in sig.items():
        base = bases[name]
        if base not in out or s.rank < out[base].rank:
            out[base] = s
    return out


class OldFusion(Retriever):
    """`_rank` as it was (its lists given, as `Given` gives them)."""

    def __init__(self, *args, lists=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.given = lists

    def _part_lists(self, queries, rows, k, timings, scope, whole=None, ahead=None):
        return {name: list(ranked) for name, ranked in self.given.items()}

    def _by_chunk_on_ties(self, fused, lists):
        strength: dict[int, float] = {}
        for ranked in lists.values():
            best = ranked[0][1] if ranked and ranked[0][1] > 0 else 0.0
            for row, score in ranked:
                strength[row] = strength.get(row, 0.0) + (score / best if best else 0.0)
        table = self.index.chunks
        return old_ties_last(fused, lambda pair: (-pair[1], -round(strength.get(pair[0], 0.0), 9)),
                             lambda pair: (table.doc_id(pair[0]), int(table.ordinal[pair[0]])))

    def _rank(self, rows, k, queries, timings, scope, whole=None, ahead=None):  # ahead: lists found early, the same
        lists = self._part_lists(queries, rows, k, timings, scope, whole)
        titles_only = scope == "problem" and "bm25:problem" in lists
        ordering = {name: [r for r, _ in ranked] for name, ranked in lists.items()
                    if not (titles_only and name == "bm25:problem")}
        if titles_only and rows is not None and self.settings.within_idf:
            self._by_local_idf(queries, rows, ordering)
        windowed = self._windowed(queries, lists)
        if windowed:
            ordering["windows"] = [r for r in sorted(windowed, key=lambda r: -windowed[r]) if windowed[r] > 0]
        if scope == "problem" and self.settings.bug_prior and any(q.name in ("error", "code") and q.tokens
                                                                  for q in queries):
            ordering["prior:error_pattern"] = self._error_patterns_first(ordering)
        fused = self._by_chunk_on_ties(old_reciprocal_rank_fusion(ordering, k=self.settings.rrf_k), lists)
        if scope == "problem" and self.settings.document_fusion:
            fused = self._by_document(ordering, fused)
        if titles_only:
            found = {r for r, _ in fused}
            fused += [(r, 0.0) for r, _ in lists["bm25:problem"] if r not in found]
        signals: dict[int, dict[str, Signal]] = {}
        for name, ranked in lists.items():
            for rank, (row, score) in enumerate(ranked, start=1):
                signals.setdefault(row, {})[name] = Signal(rank, score)
        bounds = {q.name: q.bound for q in queries}
        dense_parts = [q.dense for q in queries if q.dense is not None]
        sims: dict[int, float] = {}
        if dense_parts and self.index.dense is not None and fused:
            rows_arr = np.fromiter((r for r, _ in fused), dtype=np.int64, count=len(fused))
            best = (self.index.dense.vectors[rows_arr] @ np.stack(dense_parts).T).max(axis=1)
            sims = dict(zip(rows_arr.tolist(), best.tolist(), strict=True))
        plain = self._plain_confidence(queries, [r for r, _ in fused])
        named = {q.name for q in queries if q.plain is not None}
        judged = {name: bounds[name.split(":", 1)[1]] for name in lists
                  if name.startswith("bm25:") and name.split(":", 1)[1] not in named}
        base = {name: name.split(":", 1)[0] for name in lists}
        out = []
        for row, fused_score in fused:
            sig = signals[row]
            bm25n = max((normalized(s.score, judged[name]) for name, s in sig.items() if name in judged),
                        default=0.0)
            if "question" not in named:
                bm25n = max(bm25n, windowed.get(row, 0.0))
            bm25n = max(bm25n, plain.get(row, 0.0))
            out.append((row, fused_score, _short_signals(sig, base), sims.get(row), bm25n))
        return out


def as_signals(ranked):
    """The library's `_rank` rows with their signals made Signals, as shown hits get them (round 17c: `_rank`
    hands (rank, score) pairs, `signals_of` makes the Signals of the hits shown)."""
    return [(row, fused, signals_of(sig), dense, bm25n) for row, fused, sig, dense, bm25n in ranked]


class Given(OldFusion):
    """The library's `_rank` over the same given lists."""

    def _rank(self, *args, **kwargs):
        return as_signals(Retriever._rank(self, *args, **kwargs))


# ---------------------------------------------------------------------------------------------- helpers


def exact(value):
    """A value compared bit for bit: floats by their hex (tells 0.0 from -0.0; NaN equals NaN), containers inside."""
    if isinstance(value, float):
        return ("float", value.hex())
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [exact(v) for v in value])
    if isinstance(value, dict):
        return ("dict", [(exact(k), exact(v)) for k, v in value.items()])  # the keys' order too
    if isinstance(value, Signal):
        return ("Signal", value.rank, exact(value.score))
    return (type(value).__name__, value)


ids = st.one_of(st.integers(0, 7), st.sampled_from(["a", "b", "c", "10", "9"]))
rankings = st.lists(st.lists(ids, max_size=12), max_size=6)


# ---------------------------------------------------------------------------------------------- fusion.py


@given(lists=rankings, k=st.integers(0, 100), as_mapping=st.booleans())
def test_rrf_equals_the_old_code_bit_for_bit(lists, k, as_mapping):
    """Ties (the same rank in different lists), ids repeated within a list and across up to six lists (fsum
    of three or more parts), empty lists, one list, no list, ids of two types, any k."""
    given_lists = {f"l{i}": ranking for i, ranking in enumerate(lists)} if as_mapping else lists
    assert exact(reciprocal_rank_fusion(given_lists, k=k)) == exact(old_reciprocal_rank_fusion(given_lists, k=k))


def test_two_parts_are_summed_as_fsum_rounds_them():
    """The shortcut for two parts: one IEEE addition is the exactly rounded sum; three parts still go to fsum
    (here the plain sum of three would round differently)."""
    assert rrf_scores([["a"], ["b", "a"]], k=60) == {"a": math.fsum([1 / 61, 1 / 62]), "b": 1 / 61}
    three = [[0.1], [0.2], [0.3]]
    assert math.fsum(x for [x] in three) != sum(x for [x] in three)  # the case fsum is for
    lists = [["x"] * 1, ["y", "x"], ["z", "w", "x"]]
    assert rrf_scores(lists, k=0)["x"] == math.fsum([1.0, 1 / 2, 1 / 3])
    assert rrf_scores([[], []]) == {}


@given(items=st.lists(st.tuples(st.sampled_from([0.0, -0.0, 1.0, 2.5, math.nan, math.inf]), st.integers(0, 3)),
                      max_size=30))
def test_ties_last_equals_the_old_code_even_with_nan_keys(items):
    """Both sort the same keys in the same order with the same (stable) sort, so even keys that do not order
    (NaN) come out the same way."""
    def tie(item):
        return item[1]

    assert exact(ties_last(items, lambda item: item[0], tie)) == exact(old_ties_last(items, lambda item: item[0], tie))


# ---------------------------------------------------------------------------------------------- Retriever._rank


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Retriever:
    """The small fixture base with a dense model (so the fused rows' cosines are computed too)."""
    root = tmp_path_factory.mktemp("fusion_exact")
    shutil.copytree(Path(__file__).resolve().parents[1] / "data" / "kb_small", root / "kb")
    return build_retriever(Settings(kb_dir=root / "kb", data_dir=root / "data", show_progress=False),
                           embedder=HashingEmbedder())


SCORES = st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0, 7.5, -1.0, math.nan])


def _lists(n_rows: int, parts: Mapping[str, str]):
    """Lists named as the searches name them: each part's BM25 list, the embedded query's dense and lexical."""
    names = [f"bm25:{part}" for part in parts] + ["dense:all", "lexical:all"]
    entry = st.tuples(st.integers(0, min(n_rows, 10) - 1), SCORES)
    return st.dictionaries(st.sampled_from(names), st.lists(entry, max_size=14), max_size=len(names))


PARTS = [{"question": "为什么 我的 dp 超时 leetcode"},
         {"question": "滑动窗口 单调队列", "error": "Time Limit Exceeded", "problem": "239 滑动窗口最大值"},
         {"question": "how do i read input fast in python sys stdin readline with many lines " * 3}]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), texts=st.sampled_from(PARTS), scope=st.sampled_from(["general", "global", "problem"]))
def test_rank_equals_the_old_code_bit_for_bit(base, data, texts, scope):
    """Fused order, fused scores, short signals, cosines and confidences: the same, over lists with repeated rows,
    tied scores, NaN and negative scores, empty lists, one list, a part that names the judge and a long question
    (windows), in every scope (the named problem's: its titles' list, the bug prior, document fusion)."""
    lists = data.draw(_lists(base.index.size, texts))
    queries = base._part_queries(texts, frozenset(("bm25", "dense", "lexical")), {}, [])
    rows = np.arange(base.index.size, dtype=np.int64) if scope == "problem" else None
    old = OldFusion(base.settings, base.index, base.kb, base.embedder, lists=lists)
    new = Given(base.settings, base.index, base.kb, base.embedder, lists=lists)
    got = new._rank(rows, 30, queries, {}, scope)
    assert exact(got) == exact(old._rank(rows, 30, queries, {}, scope))


def test_rank_over_real_lists_equals_the_old_code(base):
    """Whole searches of the fixture base, with lists as the searches make them."""
    for question in ("滑动窗口 单调队列 超时", "Wrong Answer on test 3", "python input too slow", "leetcode 1 two sum"):
        queries = base._part_queries({"question": question}, frozenset(("bm25", "dense", "lexical")), {}, [])
        for scope, rows in (("global", None), ("general", base._general_rows)):
            lists = base._part_lists(queries, rows, 30, {}, scope)
            old = OldFusion(base.settings, base.index, base.kb, base.embedder, lists=lists)
            new = Given(base.settings, base.index, base.kb, base.embedder, lists=lists)
            assert exact(new._rank(rows, 30, queries, {}, scope)) == exact(old._rank(rows, 30, queries, {}, scope))
            assert new._rank(rows, 30, queries, {}, scope) == as_signals(base._rank(rows, 30, queries, {}, scope))



def test_a_nan_strength_keeps_the_old_order(base):
    """Rows 3 and 9 tie on fused score and row 3's strength is NaN (a NaN score below a list's head). NaN keys do
    not order, so one sort of the rows in their first-appearance order would put 9 first, where the two sorts put
    3 first: the library sees the NaN and makes the two sorts."""
    lists = {"lexical:all": [(8, 1.0), (9, 1.0)], "dense:all": [(9, 1.0), (3, math.nan)], "bm25:question": [(3, 1.0)]}
    queries = base._part_queries({"question": "dp 超时"}, frozenset(("bm25", "dense", "lexical")), {}, [])
    old = OldFusion(base.settings, base.index, base.kb, base.embedder, lists=lists)._rank(None, 30, queries, {},
                                                                                      "global")
    new = Given(base.settings, base.index, base.kb, base.embedder, lists=lists)._rank(None, 30, queries, {}, "global")
    assert [row for row, *_ in old] == [3, 9, 8]
    assert exact(new) == exact(old)
    strength = Given._strength(lists)
    table = base.index.chunks
    one_sort = ties_last(list(rrf_scores({n: [r for r, _ in v] for n, v in lists.items()}).items()),
                         lambda p: (-p[1], -round(strength.get(p[0], 0.0), 9)),
                         lambda p: (table.doc_id(p[0]), int(table.ordinal[p[0]]), tie_key(p[0])))
    assert [row for row, _ in one_sort] == [9, 3, 8]  # what the fallback is for


@pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="numba is not installed")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), texts=st.sampled_from(PARTS), scope=st.sampled_from(["general", "global"]))
def test_rank_with_the_compiled_gather_equals_the_old_code(base, data, texts, scope):
    """Round 21: the fused rows' vectors read as float32 by the compiled lookup (kernels.Kernel.half_rows, as a base of
    a million rows reads them) and multiplied by the parts: the old code's float16 product, bit for bit."""
    lists = data.draw(_lists(base.index.size, texts))
    queries = base._part_queries(texts, frozenset(("bm25", "dense", "lexical")), {}, [])
    old = OldFusion(base.settings, base.index, base.kb, base.embedder, lists=lists)
    expected = old._rank(None, 30, queries, {}, scope)
    calls = []
    half_rows = kernels.load("numba").half_rows
    base.index.dense.convert_with(lambda vectors, rows: calls.append(rows.size) or half_rows(vectors, rows))
    try:
        got = Given(base.settings, base.index, base.kb, base.embedder, lists=lists)._rank(None, 30, queries, {}, scope)
    finally:
        base.index.dense.convert_with(None)
    assert exact(got) == exact(expected)
    assert calls == ([len(expected)] if expected else [])
