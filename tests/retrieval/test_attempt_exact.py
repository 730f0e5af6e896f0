"""Round 17c: `Retriever._attempt` gives exactly the hits it gave before (differential, old against new).

Three changes, none of which may move a hit: `_rank` hands each row's signals as (rank, score) pairs and a Signal is
made only for a shown hit; the general lead (no problem named) makes candidates only for the rows that clear the
whole floor, since it dropped the others; `_diversify` stops once its top-k are all first chunks. The old code is
kept here word for word as it was on main after round 17 (its `_rank`, `_attempt` and `_diversify`). The ranked
lists are drawn (few rows, few scores: rows repeat, fused scores tie, lists are empty or alone), and whole searches
are compared with no problem named, in the general documents only, and in a named problem, at several floors.
"""

from __future__ import annotations

import math
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quest.retrieval.retriever import (
    MAX_CHUNKS_PER_DOC,
    Retriever,
    _Attempt,
    _Candidate,
    _clears,
    _diversify,
    _PartQuery,
    build_retriever,
    translation_key,
)
from quest.retrieval.sparse import normalized
from quest.retrieval.types import Hit, Signal
from quest.settings import Settings
from tests.fakes.embedder import HashingEmbedder

_T = TypeVar("_T")

# ---------------------------------------------------------------------------------------------- the old code


def _old_diversify(hits: list[_T], top_k: int, doc_of: Callable[[_T], str] = lambda h: h.chunk.doc_id) -> list[_T]:
    """Spread the top-k over documents: each document's best chunk first, then second chunks.

    A document and its translation count as one document: whichever ranks first represents
    both, so a Chinese and an English copy of one error pattern do not crowd out the official
    solution. Order is kept within each pass, and problem hits still precede fill-up hits
    inside a pass.
    """
    firsts: list[_T] = []
    seconds: list[_T] = []
    chosen: dict[str, str] = {}  # translation key -> the doc id that represents it
    taken: dict[str, int] = {}
    for hit in hits:
        doc_id = doc_of(hit)
        key = translation_key(doc_id)
        if key not in chosen:
            chosen[key] = doc_id
            firsts.append(hit)
        elif chosen[key] == doc_id and taken.get(key, 1) < MAX_CHUNKS_PER_DOC:
            seconds.append(hit)
        else:
            continue
        taken[key] = taken.get(key, 0) + 1
    return (firsts + seconds)[:top_k]


class Given(Retriever):
    """The library's Retriever over given ranked lists (the same for every scope)."""

    def __init__(self, *args, lists=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.given = lists

    def _part_lists(self, queries, rows, k, timings, scope, whole=None, ahead=None):
        return {name: list(ranked) for name, ranked in self.given.items()}


class Old(Given):
    """`_rank` and `_attempt` as they were."""

    def _rank(self, rows: np.ndarray | None, k: int, queries: Sequence[_PartQuery],
              timings: dict[str, float], scope: str,
              whole: tuple[np.ndarray | None] | None = None, ahead: np.ndarray | None = None,
              ) -> list[tuple[int, float, dict[str, Signal], float | None, float]]:
        """Fuse every signal of every part over `rows` (None: everything). `whole`: (the allowed rows of the
        whole-base search this attempt makes next,), when `rows` are the general documents (see `_sparse_top`).

        Returns (row, fused, signals, best dense similarity, best normalized BM25) per row. Each
        part is normalized by its own bound, so a long question cannot lower what a short error
        part matches, and adding a part never removes a row another part found.
        """
        lists = self._store_lists(queries, rows, k, timings, scope)
        if lists is None:
            lists = self._part_lists(queries, rows, k, timings, scope, whole)
        t = time.perf_counter()
        # Inside the problem's own rows its titles match every document alike: they vouch that a
        # document is on topic (the floor below) but must not decide the order — what the student
        # asked does. Elsewhere they pull the problem's documents ahead of the rest.
        titles_only = scope == "problem" and "bm25:problem" in lists
        ordering = {name: [r for r, _ in ranked] for name, ranked in lists.items()
                    if not (titles_only and name == "bm25:problem")}
        if titles_only and rows is not None and self.settings.within_idf:
            self._by_local_idf(queries, rows, ordering)
        windowed = self._windowed(queries, lists)
        if windowed:  # a long question's best-matching piece votes too: what its one real point finds
            ordering["windows"] = [r for r in sorted(windowed, key=lambda r: -windowed[r]) if windowed[r] > 0]
        if scope == "problem" and self.settings.bug_prior and any(q.name in ("error", "code") and q.tokens
                                                                  for q in queries):
            ordering["prior:error_pattern"] = self._error_patterns_first(ordering)
        fused = self._fused_on_ties(ordering, lists)
        if scope == "problem" and self.settings.document_fusion:
            fused = self._by_document(ordering, fused)
        if titles_only:  # the problem's documents only its titles found: after the rest, in their order
            found = {r for r, _ in fused}
            fused += [(r, 0.0) for r, _ in lists["bm25:problem"] if r not in found]
        # Each row's (rank, score) per list; a row a list repeats keeps its last entry there, at its first place.
        entries: dict[int, dict[str, tuple[int, float]]] = {}
        for name, ranked in lists.items():
            for rank, (row, score) in enumerate(ranked, start=1):
                kept = entries.get(row)
                if kept is None:
                    entries[row] = {name: (rank, score)}
                else:
                    kept[name] = (rank, score)
        bounds = {q.name: q.bound for q in queries}
        dense_parts = [q.dense for q in queries if q.dense is not None]
        sims: dict[int, float] = {}
        if dense_parts and self.index.dense is not None and fused:
            # Every fused row's best cosine similarity over the parts, in one matrix product.
            rows_arr = np.fromiter((r for r, _ in fused), dtype=np.int64, count=len(fused))
            best = (self.index.dense.vectors[rows_arr] @ np.stack(dense_parts).T).max(axis=1)
            sims = dict(zip(rows_arr.tolist(), best.tolist(), strict=True))
        plain = self._plain_confidence(queries, [r for r, _ in fused])
        named = {q.name for q in queries if q.plain is not None}
        # A part that names the judge is judged on its other words (plain); the others' BM25 lists by their bound.
        # (Per list, once: the loop below runs for every fused row.)
        judged = {name: bounds[name.split(":", 1)[1]] for name in lists
                  if name.startswith("bm25:") and name.split(":", 1)[1] not in named}
        base = {name: name.split(":", 1)[0] for name in lists}
        windows_vote = "question" not in named
        out = []
        for row, fused_score in fused:
            # The best normalized BM25 over the judged lists (normalized is never NaN nor -0.0, so starting from 0
            # and keeping the larger gives max(..., default=0.0)), and each signal's best rank over the parts (the
            # first list's on equal ranks), a Signal made only for the entry that is kept.
            bm25n = 0.0
            short: dict[str, tuple[int, float]] = {}
            for name, entry in entries[row].items():
                bound = judged.get(name)
                if bound is not None:
                    value = normalized(entry[1], bound)
                    if value > bm25n:
                        bm25n = value
                signal = base[name]
                shortest = short.get(signal)
                if shortest is None or entry[0] < shortest[0]:
                    short[signal] = entry
            if windows_vote:
                bm25n = max(bm25n, windowed.get(row, 0.0))
            bm25n = max(bm25n, plain.get(row, 0.0))
            out.append((row, fused_score, {signal: Signal(*entry) for signal, entry in short.items()}, sims.get(row),
                        bm25n))
        timings["fusion"] = timings.get("fusion", 0) + (time.perf_counter() - t) * 1000
        return out

    def _attempt(self, attempt: _Attempt, queries: Sequence[_PartQuery], scope: str | None,
                 excluded: frozenset[str], top_k: int, timings: dict[str, float]) -> tuple[list[Hit], bool]:
        """One pass: the problem's rows (or only general rows), then the whole base as fill-up; the hits and
        whether they are weak (with no problem named, or one only guessed, no shown page matches what the
        question is about: `_on_topic`).

        The floor decides whether the question is answered at all. With no problem named, once a
        hit clears it, hits that clear `companion_floor_ratio` of it fill the rest of the top-k,
        after every hit that cleared the whole floor: they are never shown alone. (A named
        problem's own hits already pass at a lower floor, and fill-up completes them.)
        """
        strong: set[int] = set()  # rows (one per chunk)
        companions = self.settings.companion_floor_ratio if scope in (None, "general") else 1.0
        table = self.index.chunks

        def passing(ranked, where: str, ratio: float = 1.0) -> list[_Candidate]:
            out = []
            for row, fused, sig, dense_sim, bm25n in ranked:
                clears = _clears(bm25n, dense_sim, attempt, ratio)
                if clears or _clears(bm25n, dense_sim, attempt, ratio * companions):
                    # A plain float: numpy scalars round ~10x slower, and hits are compared and shown as floats.
                    score = float(max(bm25n, dense_sim if dense_sim is not None else 0.0))
                    out.append(_Candidate(row, round(score, 4), fused, sig, where, dense_sim))
                    if clears:
                        strong.add(row)
            return out

        def finish(selected: list[_Candidate]) -> tuple[list[Hit], bool]:
            # Only the chunks shown are decoded: the candidates carry rows, and documents come from the columns.
            lead = [c for c in selected if c.row in strong]
            if not lead:
                return [], False
            shown = _old_diversify(lead + [c for c in selected if c.row not in strong], top_k,
                               lambda c: table.doc_id(c.row))
            judged = scope is None or attempt.guessed
            weak = judged and not self._on_topic([c for c in shown if c.row in strong], queries, attempt)
            return [Hit(chunk=table[c.row], score=c.score, fused=c.fused, signals=c.signals, scope=c.scope)
                    for c in shown], weak

        k = attempt.candidates
        if scope == "general":
            rows = self._allowed(self._general_rows, excluded)
            general = passing(self._rank(rows, k, queries, timings, "general"), "all")
            lead = self._error_evidence_first(self._fitting_first(self._own_language_first(self._specific_first(
                [c for c in general if c.row in strong], queries, attempt), queries, attempt), queries, attempt),
                queries, attempt)
            return finish(lead + [c for c in general if c.row not in strong])
        selected: list[_Candidate] = []
        if scope is None and self.settings.general_lead > 0 and self._general_rows.size:
            rows = self._allowed(self._general_rows, excluded)
            # the whole base is searched next (below), on the same allowed rows: one sparse pass can rank both
            general = passing(self._rank(rows, k, queries, timings, "general", (self._allowed(None, excluded),)),
                              "all")
            lead = self._error_evidence_first(self._fitting_first(self._own_language_first(self._specific_first(
                [c for c in general if c.row in strong], queries, attempt), queries, attempt), queries, attempt),
                queries, attempt)
            selected = lead[: self.settings.general_lead]
        if scope is not None:
            rows = self._allowed(self.index.rows_by_problem.get(scope, np.zeros(0, dtype=np.int64)), excluded)
            selected = passing(self._rank(rows, k, queries, timings, "problem"), "problem",
                               self.settings.problem_floor_ratio)
            if self.settings.own_error_lead:
                selected = self._own_error_first(selected, queries, attempt)
            selected = self._asked_how(selected, attempt)
            if self.settings.problem_general_mix and self._general_rows.size:
                # General documents that clear the full floor follow the problem's own (a bug that is
                # not about the problem: state kept between test cases, slow input); one leads only when
                # it explains the pasted error and the problem's own documents do not (_explains_error).
                general = passing(self._rank(self._allowed(self._general_rows, excluded), k, queries, timings,
                                             "general"), "global")
                selected = self._mixed(selected, general, attempt, queries)
        if scope is None or len(selected) < self.settings.min_problem_hits:
            rows = self._allowed(None, excluded)
            fill = passing(self._rank(rows, k, queries, timings, "global"), "global" if scope else "all")
            seen = {c.row for c in selected}
            selected.extend(c for c in fill if c.row not in seen)
        return finish(selected)


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
    if isinstance(value, Hit):
        return ("Hit", value.chunk.id, exact(value.score), exact(value.fused), exact(value.signals), value.scope)
    return (type(value).__name__, value)


def whole(result) -> tuple:
    return exact([list(result.hits), result.mode, result.widened, result.weak, list(result.notices),
                  result.problem_id])


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Retriever:
    """The small fixture base with a dense model (so the rows' cosines are computed too)."""
    root = tmp_path_factory.mktemp("attempt_exact")
    shutil.copytree(Path(__file__).resolve().parents[1] / "data" / "kb_small", root / "kb")
    return build_retriever(Settings(kb_dir=root / "kb", data_dir=root / "data", show_progress=False),
                           embedder=HashingEmbedder())


SCORES = st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0, 7.5, 30.0, -1.0, math.nan])
PARTS = [{"question": "为什么 我的 dp 超时 leetcode"},
         {"question": "滑动窗口 单调队列", "error": "Time Limit Exceeded", "problem": "239 滑动窗口最大值"},
         {"question": "python input too slow", "code": "for i in range(n): x = input()"},
         {"question": "how do i read input fast in python sys stdin readline with many lines " * 3}]
SCOPES = [{}, {"general_only": True}, {"problem_id": "239"}]


def _lists(n_rows: int, parts: Mapping[str, str]):
    """Lists named as the searches name them: each part's BM25 list, the embedded query's dense and lexical."""
    names = [f"bm25:{part}" for part in parts] + ["dense:all", "lexical:all"]
    entry = st.tuples(st.integers(0, min(n_rows, 14) - 1), SCORES)
    return st.dictionaries(st.sampled_from(names), st.lists(entry, max_size=14), max_size=len(names))


def _pair(base: Retriever, lists, **changes) -> tuple[Retriever, Retriever]:
    s = base.settings.replace(**changes)
    return (Old(s, base.index, base.kb, base.embedder, lists=lists),
            Given(s, base.index, base.kb, base.embedder, lists=lists))


# ---------------------------------------------------------------------------------------------- the tests


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), texts=st.sampled_from(PARTS), where=st.sampled_from(SCOPES),
       bm25_floor=st.sampled_from([0.05, 0.2, 0.6]), dense_floor=st.sampled_from([0.0, 0.2, 0.45, 0.9]),
       top_k=st.sampled_from([1, 2, 3, 6]), general_lead=st.sampled_from([0, 2]),
       language=st.sampled_from([None, "python", "cpp"]))
def test_search_over_drawn_lists_equals_the_old_code(base, data, texts, where, bm25_floor, dense_floor, top_k,
                                                     general_lead, language):
    """The whole result (chunks, fused and shown scores, every signal, scope, mode, widened, weak) the same, over
    lists with repeated rows, tied, negative and NaN scores, empty lists and one list, in every scope, with floors
    that let none, some or all rows through and top-k that the first chunks fill or do not."""
    lists = data.draw(_lists(base.index.size, texts))
    old, new = _pair(base, lists, bm25_floor=bm25_floor, dense_floor=dense_floor, top_k=top_k,
                     general_lead=general_lead)
    ask = {"parts": texts, "language": language, **where}
    assert whole(new.search("", **ask)) == whole(old.search("", **ask))


def test_real_searches_equal_the_old_code(base):
    """Whole searches of the fixture base, with lists as the searches make them, in every scope and at top-k 1
    to 10 (the first chunks fill the top-k, or second chunks are needed)."""
    shown = 0
    for question in ("滑动窗口 单调队列 超时", "Wrong Answer on test 3", "python input too slow", "leetcode 1 two sum",
                     "TLE 是什么意思", "读 10^6 个数用 input() 超时", "C++ cin 不加 sync_with_stdio 就超时"):
        for where in SCOPES:
            for top_k in (1, 3, 10):
                s = base.settings.replace(top_k=top_k)
                old = type("RealOld", (Retriever,), {"_rank": Old._rank, "_attempt": Old._attempt})(
                    s, base.index, base.kb, base.embedder)
                new = Retriever(s, base.index, base.kb, base.embedder)
                a, b = old.search(question, **where), new.search(question, **where)
                assert whole(b) == whole(a)
                shown += len(b.hits)
    assert shown > 0  # the searches do find something, so the hits are compared, not only empty results


ids = st.sampled_from(["p1-a-zh", "p1-a-en", "p1-b", "faq-x-zh", "faq-x-en", "faq-y", "p2-c-en"])


@given(docs=st.lists(ids, max_size=25), top_k=st.integers(-2, 8))
def test_diversify_equals_the_old_code(docs, top_k):
    """Documents, their translations and repeated chunks in any order, any top-k (none, negative, more than the
    hits): the same hits in the same order, the very same objects."""
    hits = [(doc, n) for n, doc in enumerate(docs)]
    calls: list = []

    def doc_of(hit):
        calls.append(hit)
        return hit[0]

    got = _diversify(hits, top_k, doc_of)
    assert got == _old_diversify(hits, top_k, lambda hit: hit[0])
    assert all(a is b for a, b in zip(got, _old_diversify(hits, top_k, lambda hit: hit[0]), strict=True))
    assert len(calls) <= len(hits)


def test_diversify_stops_once_the_top_k_are_first_chunks():
    """Three documents fill a top-3: the rest is never looked at (the old code read every hit's document)."""
    hits = ["a", "a", "b", "c", "d", "e"]
    seen: list[str] = []
    assert _diversify(hits, 3, lambda h: seen.append(h) or h) == ["a", "b", "c"]
    assert seen == ["a", "a", "b", "c"]
    assert _diversify(hits, 10, lambda h: h) == ["a", "b", "c", "d", "e", "a"]
