"""Hybrid search: exact problem match, then dense + BM25 (+ lexical) fused by RRF, with a floor.

For a request about problem P:

1. If the whole query names a problem ("239", "#239", "P239", a title in either language),
   return that problem's documents directly: no embedding model involved.
2. Rank P's own chunks by each signal (exact dense search over P's rows, BM25, lexical),
   fuse them, and keep the ones that clear the confidence floor.
3. If fewer than `min_problem_hits` pass, fill up from the whole base (deduplicated).
   With no problem named, the best `general_lead` general documents (verdicts, pitfalls,
   FAQ) lead, then the whole base.
4. If nothing passes at all, widen once (more candidates, lower floor); if still nothing,
   return an honest empty result instead of noise.

Kinds in `exclude_kinds` (hint tier: official solutions) are removed before ranking, so
they can never reach a context.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import re
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, TypeVar

import numpy as np

from quest.calibration import apply_calibration, load_calibration, model_key
from quest.errors import EmbeddingUnavailable, IndexError_
from quest.judge import VERDICT_NAMES
from quest.kb.catalogue import resolve_problem, resolve_problem_id
from quest.kb.documents import Chunk, Document, KnowledgeBase, Problem, normalize_problem_id
from quest.kb.markdown import load_knowledge_base
from quest.kb.signatures import Signature
from quest.kb.signatures import for_attempt as signatures_for
from quest.kb.signatures import matches as signatures_match
from quest.resolution import Catalogue, squash
from quest.retrieval import kernels
from quest.retrieval.chunktable import NO_PROBLEM, verbatim_in_json
from quest.retrieval.embedder import Embedder
from quest.retrieval.evidence import ASKED_LEAD, ErrorEvidence, named_first
from quest.retrieval.fusion import (
    document_rank_fusion,
    keyed_ties_last,
    reciprocal_rank_fusion,
    rrf_scores,
    tie_key,
    ties_last,
)
from quest.retrieval.index import Index, UpdateReport, open_index
from quest.retrieval.judge_name import plain_tokens, without_judge_name
from quest.retrieval.parallel import run_all, threads_for
from quest.retrieval.sparse import normalized, top_k, top_k_among
from quest.retrieval.tokenize import VERDICT_ALIASES, tokenize
from quest.retrieval.topic import TOPIC_PARTS, topic_tokens
from quest.retrieval.types import Hit, RetrieverStatus, SearchResult, Signal
from quest.retrieval.within import WithinProblem
from quest.settings import Settings

log = logging.getLogger(__name__)

# Order in which an exact problem match lists its documents.
KIND_ORDER = ("official_solution", "error_pattern", "user_explanation", "problem_statement", "faq")
MAX_CHUNKS_PER_DOC = 2
# A long question is also judged by its best window of this many tokens (quest eval, tuning split).
WINDOW_TOKENS = 12
# A scope with at most 1/SMALL_SCOPE of the rows (one problem's, the general documents') is scored
# from its own postings alone (contiguous in each term's list: quest/retrieval/scopes.py).
SMALL_SCOPE = 4
# From this many rows a whole-base sparse list is found by exact dynamic pruning (maxscore.py) instead of
# scoring every row: the same rows and scores (tested), at 1M a fraction of the postings read.
PRUNE_FROM = 100_000


@dataclass(frozen=True)
class _PartQuery:
    """One part of the query (question, error, code) as each signal sees it."""

    name: str
    tokens: list[str]
    bound: float  # BM25 upper bound over this part's own tokens: confidence is relative to it
    dense: np.ndarray | None = None
    lexical: Mapping[str, float] | None = None
    # Full score vectors per signal, computed once and cut per scope (problem, general, global).
    scores: dict[str, np.ndarray] = field(default_factory=dict)
    # Lists found ahead, in the batch before the search that takes them (Retriever._sparse_top, Retriever._part_lists):
    # the whole base's beside the general documents', the general documents' beside a named problem's.
    # (signal, k) -> (the rows they were ranked over, the list); a search takes one only for the very same rows.
    lists_ahead: dict[tuple[str, int], tuple[np.ndarray | None, list[tuple[int, float]]]] = field(
        default_factory=dict)
    # A long question's half-overlapping windows of tokens, each with its own bound (see _windowed).
    windows: tuple[tuple[tuple[str, ...], float], ...] = ()
    # The tokens without the judge's name, when the part names it: its confidence (quest.retrieval.judge_name).
    plain: tuple[str, ...] | None = None
    # What the part is about: its tokens without verdict phrases and the judge's name (quest.retrieval.topic).
    topic: tuple[str, ...] = ()

    def signal_scores(self, signal: str, compute: Callable[[], np.ndarray]) -> np.ndarray:
        if signal not in self.scores:
            self.scores[signal] = compute()
        return self.scores[signal]


@dataclass(frozen=True)
class _Candidate:
    """A row that passed the floor; it becomes a Hit (its chunk decoded) only if it is shown."""

    row: int
    score: float
    fused: float
    # Each signal's (rank, score): a Signal is made only for a candidate that is shown (`Retriever._attempt`).
    signals: dict[str, tuple[int, float]]
    scope: str
    dense: float | None = None  # the best cosine similarity, when a dense signal ran


_T = TypeVar("_T")


class _Search(NamedTuple):
    """One part's search for one signal's list (`Retriever._searches`): what runs, and where its time is counted."""

    part: _PartQuery
    signal: str  # bm25, dense, lexical
    timing: str  # the timings key: signal_scope
    run: Callable[[], list[tuple[int, float]]]
    size: int  # the rows it ranks (every row for the whole base)
    off_gil: bool  # whether it runs outside the GIL: a dense search, or a sparse one in the compiled kernel


@dataclass(frozen=True)
class _Attempt:
    candidates: int
    dense_floor: float
    bm25_floor: float
    evidence: ErrorEvidence | None = None  # the exception the pasted error names (quest.retrieval.evidence)
    # The problem is the search's guess, not the student's word (`quest.plan.retrieve`): its hits are judged for
    # topic as if no problem were named.
    guessed: bool = False
    language: str | None = None  # the student's programming language (`quest.plan.retrieve`), for the general lead
    # Whether the student reports a failure (`quest.plan.reports_failure`); None: not known (a caller did not plan).
    failure: bool | None = None
    code: str = ""  # the student's code as written (the `code` part), for the error patterns' signatures


class Retriever:
    def __init__(self, settings: Settings, index: Index, kb: KnowledgeBase,
                 embedder: Embedder | None = None, *, notices: tuple[str, ...] = ()) -> None:
        self.settings = settings
        self.index = index
        self.kb = kb
        self.problems: Mapping[str, Problem] = kb.problems
        self.embedder = embedder
        self._notices = notices
        self.catalogue = Catalogue(kb.problems)
        # From the index's columns: no chunk is decoded until a search returns it.
        self._general_rows = np.flatnonzero(index.chunks.problem == NO_PROBLEM).astype(np.int64)
        self._general_rows.flags.writeable = False  # the same array every request: scopes of it are kept
        self._general_mask: np.ndarray | None = None  # the general rows as a mask over all rows (_sparse_top)
        self._everything_but: dict[frozenset[str], np.ndarray] = {}
        self._general_but: dict[frozenset[str], np.ndarray] = {}  # the general rows but some kinds (`_allowed`)
        # Per problem, the verdicts its error-pattern documents explain; per error pattern, its own.
        self._bug_verdicts: dict[str, set[str]] = {}
        self._pattern_verdicts: dict[str, frozenset[str]] = {}
        self._signatures: dict[str, tuple[Signature, ...]] = {}  # per error pattern that lists its bug's constructs
        for doc in kb.documents:
            if doc.problem_id and doc.kind == "error_pattern":
                self._pattern_verdicts[doc.id] = frozenset(v.upper() for v in doc.verdicts)
                if doc.signatures:
                    self._signatures[doc.id] = tuple(doc.signatures)
        # Per error pattern, the words of its title that name its bug: not the problem's titles, not a verdict's name
        # (both translations': a question in either language may name it). Read by `_pattern_by_signature`.
        self._bug_words: dict[str, frozenset[str]] = {}
        for doc in kb.documents:
            if doc.problem_id and doc.kind == "error_pattern":
                problem = kb.problems.get(doc.problem_id)
                named = " ".join((problem.title_zh, problem.title_en, *problem.aka)) if problem else ""
                words = {t for t in tokenize(doc.title) if len(t) > 1 and not t.isdigit()} - set(tokenize(named))
                words -= _verdict_vocabulary() | _VERDICT_WORDS | _TESTING_WORDS
                key = translation_key(doc.id)
                self._bug_words[key] = self._bug_words.get(key, frozenset()) | frozenset(words)
                self._bug_verdicts.setdefault(doc.problem_id, set()).update(self._pattern_verdicts[doc.id])
        # Each verdict's overview (faq-verdict-tle, …: a general FAQ tagged `verdict`) and the verdicts it covers.
        self._overviews = {doc.id: frozenset(v.upper() for v in doc.verdicts) for doc in kb.documents
                           if doc.problem_id is None and doc.kind == "faq" and "verdict" in doc.tags}
        # The programming languages each document is written for (its `languages`), for ErrorEvidence.
        self._doc_languages = {doc.id: frozenset(doc.languages) for doc in kb.documents if doc.languages}
        self._doc_verdicts = {doc.id: frozenset(v.upper() for v in doc.verdicts) for doc in kb.documents
                              if doc.verdicts and doc.problem_id is None}
        # The compiled whole-base sparse search (an optional extra), compiled or loaded from numba's cache now, for
        # this index's arrays: a student's first question must not pay for it. None: the numpy path.
        self._kernel = kernels.load(settings.sparse_kernel) if index.size >= PRUNE_FROM else None
        self.kernel_warm_seconds = kernels.warm(self._kernel, index)
        if self.kernel_warm_seconds is None:
            self._kernel = None
        # The general documents' dense rows as 8-bit codes too (dense.CompactRun), with the same compiled extra: their
        # exact search then reads half the bytes (docs/bench/scale-1m-round16). Long runs only: nothing at 100k.
        self.compact_bytes = 0
        if self._kernel is not None and hasattr(index.dense, "compact"):
            try:
                self.compact_bytes = index.dense.compact(self._general_rows, self._kernel.compact_scores)
            except Exception as exc:  # (memory, a damaged file's pages): the float16 scan, which needs no codes
                log.warning("the general documents' 8-bit codes could not be made (%s: %s); their dense search "
                            "scans the float16 rows", type(exc).__name__, exc)
        # With the same extra, rows gathered for their cosines are cast to float32 by a compiled lookup (the same values
        # as numpy's cast, 4x faster: docs/bench/scale-1m-round21).
        if self._kernel is not None and hasattr(index.dense, "convert_with"):
            index.dense.convert_with(self._kernel.half_rows)

    # ------------------------------------------------------------------ status

    @property
    def status(self) -> RetrieverStatus:
        if self.embedder is None or self.index.dense is None:
            mode = "bm25-only"
        elif self.index.lexical is not None:
            mode = "dense + lexical + bm25"
        else:
            mode = "dense + bm25"
        return RetrieverStatus(
            embedding_mode=mode,
            embedding_model=self.embedder.name if self.embedder is not None else None,
            documents=self.index.documents,
            chunks=self.index.size,
            problems=len(self.problems),
            notices=self._notices,
            kb_errors=self.kb.errors,
        )

    # ------------------------------------------------------------------ lookups

    def exact_match(self, text: str) -> Problem | None:
        """The problem the whole text names, by id ("239", "#239", "P239") or by title."""
        if not text or len(text) > 200:
            return None
        resolved = resolve_problem(text, self.problems)  # "hydro:P1", "1007"; None when two sets share it
        if resolved.problem is not None or resolved.ambiguous:
            return resolved.problem
        pid = normalize_problem_id(text)
        if pid in self.problems:
            return self.problems[pid]
        squashed = squash(text)
        for prefix in ("leetcode", "lc", "problem", "题目"):
            if squashed.startswith(prefix) and squashed[len(prefix):].isdigit():
                pid = normalize_problem_id(squashed[len(prefix):])
                return self.problems.get(pid)
        found = self.catalogue.titles.get(squashed)
        return self.problems.get(found) if found else None

    def problem(self, problem_id: str | None) -> Problem | None:
        pid = resolve_problem_id(problem_id, self.problems)
        return self.problems.get(pid) if pid else None

    def chunks_of(self, doc_id: str) -> list[Chunk]:
        """Every chunk of one document, in order (e.g. an error pattern's "why" and "fix" sections)."""
        return [self.index.chunks[row] for row in self.index.rows_by_doc.get(doc_id, ())]

    def documents(self, problem_id: str | None = None, kinds: Collection[str] | None = None) -> list[Document]:
        pid = normalize_problem_id(problem_id)
        return [
            d for d in self.kb.documents
            if (pid is None or d.problem_id == pid) and (kinds is None or d.kind in kinds)
        ]

    # ------------------------------------------------------------------ search

    def search(self, query: str, *, problem_id: str | None = None, exclude_kinds: Collection[str] = (),
               top_k: int | None = None, signals: Collection[str] | None = None,
               parts: Mapping[str, str] | None = None, lang: str | None = None,
               general_only: bool = False, evidence: ErrorEvidence | None = None,
               problem_guessed: bool = False, language: str | None = None,
               failure: bool | None = None, code: str | None = None) -> SearchResult:
        """Ranked hits for `query`.

        `parts` (question, error, code, ...) are searched separately and fused instead of the one
        `query` string, so a long part cannot drown another; `lang` picks which copy of a
        translated document is shown; `general_only` keeps to documents of no problem (used when
        the student names a problem the base does not have); `evidence` is the exception class the
        pasted error names (a general document holding that exact name leads the general ones);
        `problem_guessed` says `problem_id` came from a weak name the search confirmed (a bare number,
        a paraphrased title), not from the student: the hits are still checked for topic (`_on_topic`),
        as with no problem named, so a guess that only the verdict's words support stays weak.
        `language` is the student's programming language: with no problem named, a general page written for it
        that explains the pasted error as well leads one written for other languages (`_own_language_first`).
        `failure` says whether the student reports a failure of their program (`quest.plan.reports_failure`): inside a
        named problem, with none reported, an error pattern does not lead (`_asked_how`); None: not known.
        `code` is the student's whole program (default: the `code` part): inside a named problem, an error pattern
        whose signatures it does not hold gives way (`_pattern_by_signature`).
        `signals` limits the ranked lists
        ("bm25", "dense", "lexical"; default all available), for evaluation and benchmarks.
        """
        started = time.perf_counter()
        timings: dict[str, float] = {}
        notices: list[str] = []
        top_k = top_k or self.settings.top_k
        excluded = frozenset(exclude_kinds)
        query = (query or "").strip()
        texts = {k: v.strip() for k, v in (parts or {"query": query}).items() if v and v.strip()}
        pid = resolve_problem_id(problem_id, self.problems)
        if pid is not None and pid not in self.problems:
            resolved = resolve_problem(problem_id, self.problems)
            notices.append(resolved.question() + " Searching the whole knowledge base." if resolved.ambiguous
                           else f"unknown problem id {pid!r}: searching the whole knowledge base")
            pid = None
        if not texts:
            return SearchResult(hits=(), mode="empty", notices=(*notices, "empty query"), problem_id=pid)

        problem = self.exact_match(query) if parts is None else None
        if problem is not None:
            hits = self._prefer_lang(self._exact_hits(problem.id, excluded, top_k), lang)
            timings["exact"] = (time.perf_counter() - started) * 1000
            timings["total"] = timings["exact"]
            return SearchResult(hits=tuple(hits), mode="exact", timings=timings, notices=tuple(notices),
                                problem_id=problem.id)

        use = frozenset(signals) if signals is not None else frozenset(("bm25", "dense", "lexical"))
        queries = self._part_queries(texts, use, timings, notices)
        s = self.settings
        scope = "general" if general_only else pid
        guessed = problem_guessed and pid is not None
        code = code if code is not None else texts.get("code", "")
        first = _Attempt(s.candidates, s.dense_floor, s.bm25_floor, evidence, guessed, language, failure, code)
        # A verdict a long question names in words (quest.plan) is searched only when nothing else is found.
        backup = [q for q in queries if q.name == "verdict"]
        own = [q for q in queries if q.name != "verdict"] if backup else queries
        hits, weak = self._attempt(first, own, scope, excluded, top_k, timings)
        widened = False
        if not hits:
            widened = True
            wide = _Attempt(int(s.candidates * s.widen_factor), s.dense_floor * s.widen_floor_ratio,
                            s.bm25_floor * s.widen_floor_ratio, evidence, guessed, language, failure, code)
            hits, weak = self._attempt(wide, own, scope, excluded, top_k, timings)
        if not hits and backup:
            hits, weak = self._attempt(first, queries, scope, excluded, top_k, timings)
        hits = self._prefer_lang(hits, lang)
        timings["total"] = (time.perf_counter() - started) * 1000
        has_bm25 = any(q.tokens for q in queries)
        has_dense = any(q.dense is not None or q.lexical for q in queries)
        mode = ("hybrid" if has_bm25 else "dense") if has_dense else "bm25"
        return SearchResult(hits=tuple(hits), mode=mode, widened=widened, timings=timings,
                            notices=tuple(notices), problem_id=pid, weak=bool(hits) and weak)

    def _part_queries(self, texts: Mapping[str, str], use: frozenset[str], timings: dict[str, float],
                      notices: list[str]) -> list[_PartQuery]:
        """One BM25 query per part (each with its own bound) and one embedded query for all parts.

        The embedding model reads the parts together as one text: a dense or lexical search per
        part would multiply the costliest stage (the global dense search) for little gain, while
        BM25's bound is what long text and extra parts used to distort.
        """
        t = time.perf_counter()
        parts = [_PartQuery(name, tokenize(text) if "bm25" in use else [], 0.0) for name, text in texts.items()]
        parts = [dataclasses.replace(p, bound=self.index.bm25.max_score(p.tokens), windows=self._windows(p),
                                     plain=plain_tokens(p.tokens),
                                     topic=self._topic(p, texts[p.name]))
                 for p in parts]
        timings["tokenize"] = (time.perf_counter() - t) * 1000
        if self.embedder is None or self.index.dense is None or not use & {"dense", "lexical"}:
            return parts
        # The problem's titles are for BM25 only: inside its own rows they add nothing to a dense search.
        joined = "\n".join(text for name, text in texts.items() if name != "problem") or "\n".join(texts.values())
        t = time.perf_counter()
        try:
            emb = self.embedder.encode_queries([joined])
            dense = emb.dense[0] if "dense" in use else None
            lexical = emb.lexical[0] if emb.lexical and "lexical" in use else None
            parts.append(_PartQuery("all", [], 0.0, dense, lexical))
        except Exception as exc:  # a failing model must not take retrieval down with it
            log.warning("query embedding failed, using BM25 only: %s", exc)
            notices.append("the embedding model failed on this query: BM25 only")
        timings["embed"] = (time.perf_counter() - t) * 1000
        return parts

    def _topic(self, part: _PartQuery, text: str) -> tuple[str, ...]:
        """The part's topic words (quest.retrieval.topic), for the parts the topic gate reads: not the code's."""
        if not part.tokens or not self.settings.topic_gate or part.name not in TOPIC_PARTS:
            return ()
        return topic_tokens(text)

    def _windows(self, part: _PartQuery) -> tuple[tuple[tuple[str, ...], float], ...]:
        """A long question's windows of WINDOW_TOKENS tokens, half-overlapping, each with its BM25 bound."""
        if part.name != "question" or len(part.tokens) <= WINDOW_TOKENS * 3 // 2:
            return ()
        step = WINDOW_TOKENS // 2
        spans = (tuple(part.tokens[i:i + WINDOW_TOKENS]) for i in range(0, len(part.tokens) - step, step))
        return tuple((w, bound) for w in spans if (bound := self.index.bm25.max_score(w)) > 0)

    def _windowed(self, queries: Sequence[_PartQuery],
                  lists: Mapping[str, list[tuple[int, float]]]) -> dict[int, float]:
        """Each row's best normalized BM25 over the windows of a long question, for the rows it matched.

        A long, wordy question ("I have been stuck for two days … my Scanner reads a million integers …")
        raised its own bound with every word, so the document about its one real point fell under the
        floor and the question came back empty. Judged by its best window, it is judged like the short
        question inside it: off-topic text still matches nothing.
        """
        best: dict[int, float] = {}
        scored = getattr(self.index.bm25, "scores_for", None)
        for q in queries:
            rows = [r for r, _ in lists.get(f"bm25:{q.name}", ())] if q.windows else []
            if not rows:
                continue
            at = np.asarray(rows, dtype=np.int64)
            for tokens, bound in q.windows:
                raw = scored(tokens, at) if scored is not None else self.index.bm25.scores(tokens)[at]
                for row, value in zip(rows, raw.tolist(), strict=True):
                    best[row] = max(best.get(row, 0.0), normalized(value, bound))
        return best

    # ------------------------------------------------------------------ internals

    def _exact_hits(self, pid: str, excluded: frozenset[str], top_k: int) -> list[Hit]:
        rows = self._allowed(self.index.rows_by_problem.get(pid, np.zeros(0, dtype=np.int64)), excluded)
        table = self.index.chunks
        order = {k: i for i, k in enumerate(KIND_ORDER)}
        # One chunk per document first (its opening), best kinds first; then the rest (sorted on the
        # columns, so only the chunks shown are decoded).
        rows = sorted(rows.tolist(), key=lambda r: (table.ordinal[r] > 0, order.get(table.kinds[table.kind[r]], 99),
                                                    table.doc_id(r), table.ordinal[r]))
        return [Hit(chunk=table[r], score=1.0, fused=1.0, signals={"exact": Signal(1, 1.0)}, scope="exact")
                for r in rows[:max(top_k, 1)]]

    def _allowed(self, rows: np.ndarray | None, excluded: frozenset[str]) -> np.ndarray | None:
        """`rows` (None: all) minus chunks of excluded kinds."""
        if not excluded:
            return rows
        kinds = self.index.chunks.kind
        codes = self.index.chunks.kind_codes(excluded)
        if rows is None:  # every row but some kinds: the same few sets every time (hint tier), kept, read-only: the
            if excluded not in self._everything_but:  # dense search keeps its mask (SegmentedDense.search_rows)
                every = np.flatnonzero(~np.isin(kinds, codes)).astype(np.int64)
                every.flags.writeable = False
                self._everything_but[excluded] = every
            return self._everything_but[excluded]
        if rows is self._general_rows:  # likewise kept, read-only: the searches keep what they derive from it
            if excluded not in self._general_but:
                kept = rows[~np.isin(kinds[rows], codes)]
                kept.flags.writeable = False
                self._general_but[excluded] = kept
            return self._general_but[excluded]
        return rows[~np.isin(kinds[rows], codes)]

    def _rank(self, rows: np.ndarray | None, k: int, queries: Sequence[_PartQuery],
              timings: dict[str, float], scope: str,
              whole: tuple[np.ndarray | None] | None = None, ahead: np.ndarray | None = None,
              ) -> list[tuple[int, float, dict[str, tuple[int, float]], float | None, float]]:
        """Fuse every signal of every part over `rows` (None: everything). `whole`: (the allowed rows of the
        whole-base search this attempt makes next,), when `rows` are the general documents (see `_sparse_top`);
        `ahead`: the general documents' rows this attempt ranks next, when `rows` are a named problem's
        (`_part_lists` finds their lists in the same batch).

        Returns (row, fused, signals, best dense similarity, best normalized BM25) per row, the signals as each
        signal's (rank, score) (`signals_of` makes them Signals: most rows are never shown). Each
        part is normalized by its own bound, so a long question cannot lower what a short error
        part matches, and adding a part never removes a row another part found.
        """
        lists = self._store_lists(queries, rows, k, timings, scope)
        if lists is None:
            lists = self._part_lists(queries, rows, k, timings, scope, whole, ahead)
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
        out = self._fused_rows(fused, lists, queries, windowed)
        timings["fusion"] = timings.get("fusion", 0) + (time.perf_counter() - t) * 1000
        return out

    def _fused_rows(self, fused: list[tuple[int, float]], lists: Mapping[str, list[tuple[int, float]]],
                    queries: Sequence[_PartQuery], windowed: Mapping[int, float],
                    ) -> list[tuple[int, float, dict[str, tuple[int, float]], float | None, float]]:
        """`_rank`'s rows, each with what the floors read: its signals' (rank, score), its best dense similarity over
        the parts and its best normalized BM25 (a part's bound, a judge-naming part's plain words, a window)."""
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
            dense = self.index.dense
            # (float16 rows times float32 parts: numpy casts the rows to float32 first, so the product is the same)
            gathered = dense.float32_rows(rows_arr) if hasattr(dense, "float32_rows") else dense.vectors[rows_arr]
            best = (gathered @ np.stack(dense_parts).T).max(axis=1)
            sims = dict(zip(rows_arr.tolist(), best.tolist(), strict=True))
        plain = self._plain_confidence(queries, [r for r, _ in fused])
        named = {q.name for q in queries if q.plain is not None}
        # A part that names the judge is judged on its other words (plain); the others' BM25 lists by their bound.
        # (Per list, once: the loop below runs for every fused row.)
        judged = {name: bounds[name.split(":", 1)[1]] for name in lists
                  if name.startswith("bm25:") and name.split(":", 1)[1] not in named}
        # Per list: its bound when judged (else None) and its signal, found with one look-up per entry below.
        about = {name: (judged.get(name), name.split(":", 1)[0]) for name in lists}
        windows = windowed if "question" not in named else {}
        out = []
        for row, fused_score in fused:
            # The best normalized BM25 over the judged lists (normalized is never NaN nor -0.0, so starting from 0
            # and keeping the larger gives max(..., default=0.0)), and each signal's best rank over the parts (the
            # first list's on equal ranks).
            bm25n = 0.0
            short: dict[str, tuple[int, float]] = {}
            for name, entry in entries[row].items():
                bound, signal = about[name]
                if bound is not None:
                    # sparse.normalized, written out: it runs for most entries of every list
                    value = 0.0 if bound <= 0 else min(1.0, max(0.0, entry[1] / bound))
                    if value > bm25n:
                        bm25n = value
                shortest = short.get(signal)
                if shortest is None or entry[0] < shortest[0]:
                    short[signal] = entry
            # (bm25n >= 0.0, so a row neither dict holds keeps it: max(bm25n, 0.0) is bm25n)
            if windows:
                bm25n = max(bm25n, windows.get(row, 0.0))
            if plain:
                bm25n = max(bm25n, plain.get(row, 0.0))
            out.append((row, fused_score, short, sims.get(row), bm25n))
        return out

    def _by_document(self, ordering: Mapping[str, Sequence[int]],
                     fused: list[tuple[int, float]]) -> list[tuple[int, float]]:
        """The fused rows ordered by their document's fused score (quest.retrieval.fusion.document_rank_fusion),
        a document's chunks in their own fused order; each row carries its document's score.

        Inside one problem the documents are few and long, and a list's head is often one document's
        chunks. Fused per chunk, a chunk that sat in the middle of every list outvoted one that led two lists,
        and a bare verdict line ("Wrong Answer") — its own part, matching only the error patterns that write
        the verdict into every section — gave each of their chunks a vote and pushed the official solution
        down its list: an error pattern about another bug led (round 11's r11-018, r11-042, r11-025).
        """
        table = self.index.chunks
        doc = table.doc_id
        scores = document_rank_fusion(ordering, doc, k=self.settings.rrf_k)
        at = {row: i for i, (row, _) in enumerate(fused)}
        ordered = sorted(fused, key=lambda pair: (-scores.get(doc(pair[0]), 0.0), at[pair[0]]))
        return [(row, scores.get(doc(row), score)) for row, score in ordered]

    def _plain_confidence(self, queries: Sequence[_PartQuery], rows: Sequence[int]) -> dict[int, float]:
        """Each row's best normalized BM25 on the parts that name the judge, without the name (and over the
        windows of those words when the question is long). The ranking keeps every token; only the floor
        (confidence) leaves the name out, so a question about the site itself is not answered by a page
        that merely names it (quest.retrieval.judge_name)."""
        judged = [q for q in queries if q.plain is not None and q.plain]
        if not judged or not rows:
            return {}
        at = np.asarray(rows, dtype=np.int64)
        scored = getattr(self.index.bm25, "scores_for", None)
        best = np.zeros(at.size, dtype=np.float64)
        for q in judged:
            whole = ((q.plain, self.index.bm25.max_score(q.plain)),)
            for tokens, bound in whole + self._windows(dataclasses.replace(q, tokens=list(q.plain))):
                if bound <= 0:
                    continue
                raw = scored(tokens, at) if scored is not None else self.index.bm25.scores(tokens)[at]
                best = np.maximum(best, [normalized(float(x), bound) for x in np.asarray(raw).tolist()])
        return dict(zip(at.tolist(), best.tolist(), strict=True))

    def _by_local_idf(self, queries: Sequence[_PartQuery], rows: np.ndarray, ordering: dict[str, list[int]]) -> None:
        """Inside a named problem, each part's BM25 list in the order its words' idf among the problem's own
        documents gives (quest/retrieval/within.py): what tells the documents apart, not what they share."""
        parts = [q for q in queries if q.tokens and f"bm25:{q.name}" in ordering]
        if not parts:
            return
        docs, words = np.asarray(self.index.chunks.doc[rows]), [t for q in parts for t in q.tokens]
        within = _with_kernel(self._scope_kernel(self.index.bm25),
                              lambda kernel: WithinProblem(self.index.bm25, rows, docs, words, kernel))
        for q in parts:
            ordering[f"bm25:{q.name}"] = within.order(q.tokens, ordering[f"bm25:{q.name}"])

    def _fused_on_ties(self, ordering: Mapping[str, Sequence[int]],
                       lists: Mapping[str, list[tuple[int, float]]]) -> list[tuple[int, float]]:
        """`_by_chunk_on_ties(reciprocal_rank_fusion(ordering), lists)` in one sort.

        RRF orders by fused score, ties by the row's own key (fusion.tie_key); `_by_chunk_on_ties` then re-sorts
        that list, stably, by (fused score, strength), ties by chunk. Two stable sorts in a row are one sort on
        both keys, the first sort's key last: (fused score, strength, chunk, row key), with the rows' first
        appearance in the lists deciding what is still equal, as in RRF. So one sort gives the same list, without
        RRF's ranking of rows by their key (a string a row) first. Only a NaN strength (a NaN score in a list) makes
        the keys unordered, and there the two sorts are made as before, so even then nothing changes.
        """
        scores = rrf_scores(ordering, k=self.settings.rrf_k)
        strength = self._strength(lists)
        if any(value != value for value in strength.values()):
            return self._by_chunk_on_ties(reciprocal_rank_fusion(ordering, k=self.settings.rrf_k), lists)
        table = self.index.chunks
        items = list(scores.items())
        get = strength.get
        return keyed_ties_last(items, [(-score, -round(get(row, 0.0), 9)) for row, score in items],
                               lambda pair: (table.doc_id(pair[0]), int(table.ordinal[pair[0]]), tie_key(pair[0])))

    @staticmethod
    def _strength(lists: Mapping[str, list[tuple[int, float]]]) -> dict[int, float]:
        """Each row's summed score over each list's best (the stronger match, `_by_chunk_on_ties`)."""
        strength: dict[int, float] = {}
        for ranked in lists.values():
            best = ranked[0][1] if ranked and ranked[0][1] > 0 else 0.0
            for row, score in ranked:
                strength[row] = strength.get(row, 0.0) + (score / best if best else 0.0)
        return strength

    def _by_chunk_on_ties(self, fused: list[tuple[int, float]],
                          lists: Mapping[str, list[tuple[int, float]]]) -> list[tuple[int, float]]:
        """Equal fused scores ordered by how strongly the lists matched, then by chunk.

        RRF ties are common (rank 1 + rank 3 equals rank 3 + rank 1). The stronger match — each
        list's score over that list's best, summed — goes first; what remains is ordered by chunk
        (document id, ordinal), never by row number: rows are numbered by the index's layout
        (grouped by problem at a build or compaction, appended by an update), and the same chunks
        must rank the same way in any layout.
        """
        strength = self._strength(lists)
        table = self.index.chunks
        return ties_last(fused, lambda pair: (-pair[1], -round(strength.get(pair[0], 0.0), 9)),
                         lambda pair: (table.doc_id(pair[0]), int(table.ordinal[pair[0]])))

    def _store_lists(self, queries: Sequence[_PartQuery], rows: np.ndarray | None, k: int,
                     timings: dict[str, float], scope: str) -> dict[str, list[tuple[int, float]]] | None:
        """Every list of every part from a vector store that ranks them in one call (QUEST_VECTOR_STORE), or None."""
        ranker = getattr(self.index.bm25, "scope_lists", None)
        if ranker is None:
            return None
        asked = []
        for q in queries:  # the order _part_lists fills the lists in
            if q.tokens:
                asked.append((f"bm25:{q.name}", "bm25", q.tokens))
            if q.dense is not None and self.index.dense is not None:
                asked.append((f"dense:{q.name}", "dense", q.dense))
            if q.lexical and self.index.lexical is not None:
                asked.append((f"lexical:{q.name}", "lexical", q.lexical))
        t = time.perf_counter()
        lists = ranker(asked, rows, k, self.settings.rrf_k)
        timings[f"store_{scope}"] = timings.get(f"store_{scope}", 0) + (time.perf_counter() - t) * 1000
        return lists

    def _error_patterns_first(self, ordering: Mapping[str, list[int]]) -> list[int]:
        """The problem's error-pattern chunks that some part found, by their best rank in any list.

        A student who pastes a failing submission or the judge's output asks about a bug: the problem's
        documents about a bug answer that better than its official solution, which is long and shares
        the most words with any code — so it led, with the bug's own document second.
        """
        best: dict[int, int] = {}
        for ranked in ordering.values():
            for rank, row in enumerate(ranked):
                best[row] = min(rank, best.get(row, rank))
        table = self.index.chunks
        codes = set(table.kind_codes({"error_pattern"}))
        return [row for row in sorted(best, key=best.__getitem__) if int(table.kind[row]) in codes]

    def _part_lists(self, queries: Sequence[_PartQuery], rows: np.ndarray | None, k: int,
                    timings: dict[str, float], scope: str, whole: tuple[np.ndarray | None] | None = None,
                    ahead: np.ndarray | None = None) -> dict[str, list[tuple[int, float]]]:
        """Every part's ranked list per signal over `rows`: independent searches, run side by side on up to
        `search_threads` threads (quest.retrieval.parallel) and gathered in the order one thread fills them
        (the order fusion adds them up in), so the lists are the same either way.

        Lists the attempt's next search takes are found here too, in the same batch (on two threads they overlap
        this batch's searches instead of running alone after them), and wait in each part's `lists_ahead`: with
        `whole`, the whole base's dense lists (its sparse ones come from the general documents' pass itself,
        `_sparse_top`); with `ahead` (a named problem's general documents), every list over those rows."""
        here = self._searches(queries, rows, k, scope, whole)
        later: list[tuple[_Search, np.ndarray | None]] = []
        if whole is not None:
            dense = self._searches(queries, whole[0], k, "global", signals=("dense",))
            later += [(search, whole[0]) for search in dense]
        if ahead is not None:
            later += [(search, ahead) for search in self._searches(queries, ahead, k, "general")]
        later = [(search, at) for search, at in later if not _found_ahead(search.part, search.signal, k, at)]
        batch = here + [search for search, _ in later]
        offload = self._offload(batch)
        found = run_all([functools.partial(_timed, search.run) for search in batch], self._threads(batch, offload),
                        offload)
        for search, (_, ms) in zip(batch, found, strict=True):
            timings[search.timing] = timings.get(search.timing, 0) + ms
        for (search, at), (ranked, _) in zip(later, found[len(here):], strict=True):
            search.part.lists_ahead[(search.signal, k)] = (at, ranked)
        return {f"{search.signal}:{search.part.name}": ranked for search, (ranked, _) in zip(here, found[:len(here)],
                                                                                              strict=True)}

    @staticmethod
    def _offload(batch: Sequence[_Search]) -> list[int]:
        """The searches of a batch another thread may take (`parallel.run_all`), widest first: those that run outside
        the GIL (FAISS, the compiled 8-bit pass, the compiled sparse kernels, a scope's compiled sums). A scoped sparse
        search by numpy (no compiled extra, or a base under PRUNE_FROM) is hundreds of short numpy steps that hold it:
        two of those at once take turns, slower than one after another, so they stay on the asking thread."""
        return sorted((i for i, search in enumerate(batch) if search.off_gil), key=lambda i: -batch[i].size)

    def _searches(self, queries: Sequence[_PartQuery], rows: np.ndarray | None, k: int, scope: str,
                  whole: tuple[np.ndarray | None] | None = None,
                  signals: Collection[str] = ("bm25", "dense", "lexical")) -> list[_Search]:
        """Each part's search per signal over `rows`, in the order fusion adds their lists up in; `scope` names their
        timings."""
        out: list[_Search] = []
        size = len(self.index.chunks) if rows is None else int(rows.size)
        compiled = self._compiled()
        # A compiled sparse search given the whole base's rows ranks every row in the same pass (`_sparse_top`).
        sparse_size = len(self.index.chunks) if compiled and whole is not None else size
        for q in queries:
            if q.tokens and "bm25" in signals:
                out.append(_Search(q, "bm25", f"bm25_{scope}", functools.partial(self._bm25_list, q, rows, k, whole),
                                   sparse_size, compiled))
            if q.dense is not None and self.index.dense is not None and "dense" in signals:
                out.append(_Search(q, "dense", f"dense_{scope}", functools.partial(self._dense_list, q, rows, k), size,
                                   True))
            if q.lexical and self.index.lexical is not None and "lexical" in signals:
                out.append(_Search(q, "lexical", f"lexical_{scope}",
                                   functools.partial(self._lexical_list, q, rows, k, whole), sparse_size, compiled))
        return out

    def _compiled(self) -> bool:
        """Whether the sparse searches take `_sparse_top`'s compiled paths, which run outside the GIL: from PRUNE_FROM
        rows on, each does (a whole base's list, the general documents' ranked in the whole base's pass, a scope's
        sums: `_scoped_scores`)."""
        # (rows, as `_sparse_top` counts them: the live count sums the deleted mask, ~0.4 ms a call at 1M)
        return self._kernel is not None and not kernels.failed() and self.index.rows >= PRUNE_FROM

    def _threads(self, batch: Sequence[_Search], offload: Sequence[int]) -> int:
        """The threads for one batch of a question's searches (`parallel.threads_for`), by the rows of the widest search
        another thread may take (`_offload`): what the asking thread's searches can overlap."""
        return threads_for(self.settings.search_threads, max((batch[i].size for i in offload), default=0))

    def _bm25_list(self, q: _PartQuery, rows: np.ndarray | None, k: int,
                   whole: tuple[np.ndarray | None] | None = None) -> list[tuple[int, float]]:
        if getattr(self.index.bm25, "remote", False):  # a vector store ranks (QUEST_VECTOR_STORE)
            return self.index.bm25.search(q.tokens, k, rows)
        return self._sparse_top(q, "bm25", self.index.bm25, q.tokens, rows, k, whole)

    def _dense_list(self, q: _PartQuery, rows: np.ndarray | None, k: int) -> list[tuple[int, float]]:
        if _found_ahead(q, "dense", k, rows):  # in the batch before this one (`_part_lists`)
            return q.lists_ahead[("dense", k)][1]
        if rows is None:
            return self.index.dense.search(q.dense, k)
        return self.index.dense.search_rows(q.dense, rows, k)

    def _lexical_list(self, q: _PartQuery, rows: np.ndarray | None, k: int,
                      whole: tuple[np.ndarray | None] | None = None) -> list[tuple[int, float]]:
        if getattr(self.index.lexical, "remote", False):
            return self.index.lexical.search(q.lexical, k, rows)
        return self._sparse_top(q, "lexical", self.index.lexical, q.lexical, rows, k, whole)

    def _sparse_top(self, q: _PartQuery, signal: str, model, query, rows: np.ndarray | None,
                    k: int, whole: tuple[np.ndarray | None] | None = None) -> list[tuple[int, float]]:
        """Top-k of a sparse signal over `rows`: scored for those rows alone when they are few (one
        problem's, the general documents'), else from every row's score, computed once per part and
        cut per scope.

        With the compiled kernel, a question that names no problem ranks the general documents and then the whole
        base on the same query: `whole` (the whole-base search's allowed rows, given with the general documents as
        `rows`) makes one pass over every posting give both lists, the general one kept as a second heap of the
        same scores; the whole-base list waits in the part's `lists_ahead` for the search that follows. The
        general list is the one its own scoring gives (the same float32 scores: tests/retrieval/test_kernels.py)."""
        if _found_ahead(q, signal, k, rows):
            return q.lists_ahead[(signal, k)][1]
        kernel = self._kernel
        if (whole is not None and kernel is not None and not kernels.failed() and signal not in q.scores
                and model.size >= PRUNE_FROM and hasattr(model, "kernel_lists")):
            try:
                found, general = model.kernel_lists(kernel, query, k, whole[0], self._general_rows_mask())
            except (IndexError_, ValueError):
                raise  # a damaged index: the numpy path raises the same
            except Exception as exc:  # numba failing on arrays it was not warmed for: numpy from now on
                kernels.disable(exc)
            else:
                q.lists_ahead[(signal, k)] = (whole[0], found)
                return general
        if rows is not None and signal not in q.scores and rows.size * SMALL_SCOPE <= model.size:
            rows = np.asarray(rows, dtype=np.int64)
            return top_k_among(self._scoped_scores(model, query, rows), rows, k)
        if signal not in q.scores and model.size >= PRUNE_FROM and hasattr(model, "pruned_search"):
            kernel = self._kernel
            if kernel is not None and not kernels.failed():
                try:  # the same list again, by one compiled loop per segment that lets go of the GIL
                    return model.kernel_search(kernel, query, k, rows)
                except (IndexError_, ValueError):
                    raise  # a damaged index: the numpy path raises the same
                except Exception as exc:  # numba failing on arrays it was not warmed for: numpy from now on
                    kernels.disable(exc)
            return model.pruned_search(query, k, rows)  # the same list, from the postings that can reach it
        return top_k(q.signal_scores(signal, lambda: model.scores(query)), k, rows)

    def _scope_kernel(self, model) -> kernels.Kernel | None:
        """The compiled scope sums for `model`'s scopes, when they are in use (the `fast` extra, a base of PRUNE_FROM
        rows or more, a model that offers them); else None."""
        kernel = self._kernel
        if kernel is None or kernels.failed() or model.size < PRUNE_FROM or not hasattr(model, "kernel_scores_for"):
            return None
        return kernel

    def _scoped_scores(self, model, query, rows: np.ndarray) -> np.ndarray:
        """`model.scores_for(query, rows)` for a scope (one problem's rows, the general documents), by the compiled
        scope sums when they are in use (`_scope_kernel`): the same numbers, outside the GIL."""
        return _with_kernel(self._scope_kernel(model), lambda kernel: model.scores_for(query, rows) if kernel is None
                            else model.kernel_scores_for(kernel, query, rows))

    def _general_rows_mask(self) -> np.ndarray:
        """The general documents' rows as a mask over every row (made once: a byte a row)."""
        if self._general_mask is None:
            mask = np.zeros(self.index.rows, dtype=bool)  # every row, deleted ones too: the kernels read it by row
            mask[self._general_rows] = True
            mask.flags.writeable = False
            self._general_mask = mask
        return self._general_mask

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

        def passing(ranked, where: str, ratio: float = 1.0, strong_only: bool = False) -> list[_Candidate]:
            # strong_only: the caller keeps only the rows that clear the whole floor, so no companion is made.
            out = []
            for row, fused, sig, dense_sim, bm25n in ranked:
                clears = _clears(bm25n, dense_sim, attempt, ratio)
                if clears or (not strong_only and _clears(bm25n, dense_sim, attempt, ratio * companions)):
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
            shown = _diversify(lead + [c for c in selected if c.row not in strong], top_k,
                               lambda c: table.doc_id(c.row))
            judged = scope is None or attempt.guessed
            weak = judged and not self._on_topic([c for c in shown if c.row in strong], queries, attempt)
            return [Hit(chunk=table[c.row], score=c.score, fused=c.fused, signals=signals_of(c.signals), scope=c.scope)
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
            # Only its strong rows lead, the others are dropped: none is made (`strong` is only ever added to).
            general = passing(self._rank(rows, k, queries, timings, "general", (self._allowed(None, excluded),)),
                              "all", strong_only=True)
            lead = self._error_evidence_first(self._fitting_first(self._own_language_first(self._specific_first(
                general, queries, attempt), queries, attempt), queries, attempt), queries, attempt)
            selected = lead[: self.settings.general_lead]
        if scope is not None:
            rows = self._allowed(self.index.rows_by_problem.get(scope, np.zeros(0, dtype=np.int64)), excluded)
            mixed = self._mixed_rows(excluded)
            selected = passing(self._rank(rows, k, queries, timings, "problem", ahead=mixed), "problem",
                               self.settings.problem_floor_ratio)
            if self.settings.own_error_lead:
                selected = self._own_error_first(selected, queries, attempt)
            selected = self._pattern_by_code(selected, queries, attempt)
            selected = self._pattern_by_signature(selected, queries, attempt)
            selected = self._asked_how(selected, attempt)
            if mixed is not None:
                # General documents that clear the full floor follow the problem's own (a bug that is
                # not about the problem: state kept between test cases, slow input); one leads only when
                # it explains the pasted error and the problem's own documents do not (_explains_error).
                general = passing(self._rank(mixed, k, queries, timings, "general"), "global")
                selected = self._mixed(selected, general, attempt, queries)
        if scope is None or len(selected) < self.settings.min_problem_hits:
            rows = self._allowed(None, excluded)
            fill = passing(self._rank(rows, k, queries, timings, "global"), "global" if scope else "all")
            seen = {c.row for c in selected}
            selected.extend(c for c in fill if c.row not in seen)
        return finish(selected)

    def _mixed_rows(self, excluded: frozenset[str]) -> np.ndarray | None:
        """The general documents a named problem's own hits are followed by (`problem_general_mix`), or None. Their
        lists are found in the problem's own batch (`_rank`'s `ahead`)."""
        if not self.settings.problem_general_mix or not self._general_rows.size:
            return None
        return self._allowed(self._general_rows, excluded)

    def _on_topic(self, lead: Sequence[_Candidate], queries: Sequence[_PartQuery], attempt: _Attempt) -> bool:
        """Whether a shown page that cleared the floor matches what the question is about (quest.retrieval.topic):
        the dense floor, or the BM25 floor on the topic words of the question or the error (a long question's by
        their windows) or on the whole question as asked. The code part ranks but is no topic: its identifiers
        (`nums`, `length`, `return i`) are in every solution. Always True when `topic_gate` is off."""
        queries = [q for q in queries if q.name in TOPIC_PARTS]
        judged = [q for q in queries if q.topic or (q.name == "question" and q.tokens)]
        if not self.settings.topic_gate or not lead or not judged:
            return True
        if any(c.dense is not None and c.dense >= attempt.dense_floor for c in lead):
            return True
        spans: list[tuple[Sequence[str], float]] = []
        for q in queries:
            if q.name == "question" and q.tokens:  # as asked: "what does TLE mean?" is about the verdict
                whole = q.plain if q.plain is not None else tuple(q.tokens)
                spans.append((whole, self.index.bm25.max_score(whole)))
            if q.topic:
                spans.append((q.topic, self.index.bm25.max_score(q.topic)))
                if q.name == "question":
                    spans += self._windows(dataclasses.replace(q, tokens=list(q.topic)))
        at = np.fromiter((c.row for c in lead), dtype=np.int64, count=len(lead))
        scored = getattr(self.index.bm25, "scores_for", None)
        for tokens, bound in spans:
            if bound <= 0:
                continue
            raw = scored(tokens, at) if scored is not None else self.index.bm25.scores(tokens)[at]
            if max(normalized(float(x), bound) for x in np.asarray(raw).tolist()) >= attempt.bm25_floor:
                return True
        return False

    def _specific_first(self, lead: list[_Candidate], queries: Sequence[_PartQuery],
                        attempt: _Attempt) -> list[_Candidate]:
        """With no problem named, a verdict's overview leads only when nothing says more than the verdict.

        "读 10^6 个数用 input() 超时", "C++ cin 不加 sync_with_stdio 就超时": the TLE overview matches the
        verdict words of the question and the error line best, so it led, although a document about the
        student's actual cause matches what they say beyond the verdict. The first candidate that is not
        an overview and whose match on those words (the question's and the error's, verdict words left out)
        clears the floor and is `specific_lead` times the overview's goes first. "TLE 是什么意思" says
        nothing beyond the verdict: the overview keeps the lead. A first candidate that matches none of
        those words (only the code: "cout << *it << endl" found the endl page) gives way the same way,
        to a page about a cause, else to the named verdict's overview if that matches them better.
        """
        ratio = self.settings.specific_lead
        if ratio <= 0 or len(lead) < 2:
            return lead
        detail = self._beyond_verdict([c.row for c in lead], queries)
        kept = False
        if self._overview(lead[0].row):
            overview: _Candidate | None = lead[0]
        else:
            if detail[lead[0].row] >= attempt.bm25_floor:
                return lead  # a document about a cause the student describes already leads
            named = _named_verdict(queries)
            overview = next((c for c in lead if named and self._overview(c.row, named)), None)
            if overview is not None and detail[overview.row] < detail[lead[0].row]:
                # The question alone asks of the verdict: its overview stands as if it led (`_asks_of_verdict`).
                overview = overview if self._asks_of_verdict(queries) else None
                kept = overview is not None
        floor = max(attempt.bm25_floor, ratio * detail[overview.row] if overview else 0.0)
        first = next((c for c in lead if detail[c.row] > 0 and detail[c.row] >= floor and not self._overview(c.row)),
                     overview)
        if first is not None and first is overview and (first is lead[0] or kept):
            first = self._cause_in_language(lead, detail, first, attempt)
        return lead if first is None else [first, *(x for x in lead if x is not first)]

    def _asks_of_verdict(self, queries: Sequence[_PartQuery]) -> bool:
        """Whether the student asks about the verdict they name with nothing else to go on: the question alone, no code,
        no pasted error ("what does Time Limit Exceeded actually mean? my algorithm is correct"). A page about one cause
        that matches a word or two of it beyond the verdict (here the comparator page on "algorithm", "correct") under
        the floor knows no more of the student's cause than the verdict's overview does, which explains the verdict
        itself; with code or an error, those words come from the student's program and may well say the cause (round
        18: development splits, the overview kept whenever a page matched under the floor lost R@1 on five of them).
        Always False when `verdict_question_lead` is off."""
        return self.settings.verdict_question_lead and not any(
            q.name in ("code", "error") and q.tokens for q in queries)

    def _cause_in_language(self, lead: list[_Candidate], detail: Mapping[int, float], overview: _Candidate,
                           attempt: _Attempt) -> _Candidate:
        """The candidate that leads instead of a verdict's overview that matches the student's own words (`detail`:
        beyond the verdict's) under the floor: the page written for the student's language (`attempt.language`; its
        `languages`, C and C++ one family) that matches them best, when that match is at least the companions' share
        of the floor (`companion_floor_ratio`: what a page needs to be shown at all beside a strong one) and better
        than the overview's. "Java 用 Scanner 读 50 万个整数超时": the Java input page matches "Java Scanner 50 万 整数"
        at 0.19, the TLE overview at 0.15; both under the floor of 0.2, so the overview led on the verdict's words
        alone. The overview otherwise (`language_cause_lead` off, no language known, no page for it)."""
        language = attempt.language
        if not self.settings.language_cause_lead or not language or detail[overview.row] >= attempt.bm25_floor:
            return overview
        speaks = _LANGUAGE_FAMILIES.get(language, frozenset((language,)))
        table = self.index.chunks
        own = [c for c in lead if not self._overview(c.row)
               and self._doc_languages.get(table.doc_id(c.row), frozenset()) & speaks]
        best = max(own, key=lambda c: detail[c.row], default=None)
        if best is None or detail[best.row] <= detail[overview.row]:
            return overview
        return best if detail[best.row] >= self.settings.companion_floor_ratio * attempt.bm25_floor else overview

    def _own_language_first(self, lead: list[_Candidate], queries: Sequence[_PartQuery],
                            attempt: _Attempt) -> list[_Candidate]:
        """With no problem named, the page for the student's language explains their error first.

        Several general pages explain one error for different languages (a Go and a Rust panic both say "index
        out of range"; Java's, Python's and C#'s exceptions pages all explain a bad index). When the first is
        written for other languages only (its `languages`), the first candidate written for the student's
        language leads instead if it matches the pasted error's own words (verdict words and the judge's name
        left out) at the floor: it explains the same error. A page written for no language in particular (a
        verdict's overview) is never displaced, and without a pasted error nothing moves. (Also requiring the
        lead's match, or three quarters of it, changes nothing or the same one question on the development
        splits: r12-053, a Go panic the Rust page led.)
        """
        language = attempt.language
        if not language or not self.settings.language_lead or len(lead) < 2:
            return lead
        speaks = _LANGUAGE_FAMILIES.get(language, frozenset((language,)))
        table, languages = self.index.chunks, self._doc_languages
        written = languages.get(table.doc_id(lead[0].row))
        if not written or written & speaks:
            return lead
        own = next((c for c in lead[1:] if languages.get(table.doc_id(c.row), frozenset()) & speaks), None)
        detail = _own_words("error", queries)
        if own is None or not detail:
            return lead
        if self._matches(detail, [own.row])[own.row] < attempt.bm25_floor:
            return lead
        return [own, *(c for c in lead if c is not own)]

    def _fitting_first(self, lead: list[_Candidate], queries: Sequence[_PartQuery],
                       attempt: _Attempt) -> list[_Candidate]:
        """With no problem named, the pages that fit what the student reported go before those that do not.

        A page written for one programming language only (its `languages` all of one family: C and C++ are one)
        does not fit a student whose language is known (`attempt.language`) and another: "Java's Scanner is too
        slow" is no answer for a C++ program's TLE, while a page whose examples cover several languages (reading
        until EOF, state kept between test cases) fits everyone. A page written for other verdicts only (its
        `verdicts`) does not fit the verdict the student got (`_named_verdict`): a TLE page explains no Wrong
        Answer. A verdict stands for those a judge reports under it (`_REPORTED_AS`: a layout error as WA, running
        out of memory as RE). Pages with no language or no verdict fit. The order inside each group is kept, so a
        page that fits leads only when one cleared the floor; nothing is dropped.
        """
        if not self.settings.fit_lead or len(lead) < 2:
            return lead
        language = attempt.language
        speaks = _LANGUAGE_FAMILIES.get(language, frozenset((language,))) if language else frozenset()
        verdict = _named_verdict(queries)
        stands = _REPORTED_AS.get(verdict, frozenset((verdict,))) if verdict and verdict != "AC" else frozenset()
        if not speaks and not stands:
            return lead
        table = self.index.chunks

        def fits(c: _Candidate) -> bool:
            doc = table.doc_id(c.row)
            written = self._doc_languages.get(doc)
            if speaks and written and not written & speaks and _one_family(written):
                return False
            verdicts = self._doc_verdicts.get(doc)
            return not (stands and verdicts and not verdicts & stands)

        fitting = [c for c in lead if fits(c)]
        if not fitting or len(fitting) == len(lead):
            return lead
        rows = {c.row for c in fitting}
        return fitting + [c for c in lead if c.row not in rows]

    def _error_evidence_first(self, lead: list[_Candidate], queries: Sequence[_PartQuery], attempt: _Attempt,
                              described: bool = True) -> list[_Candidate]:
        """What the pasted error says exactly decides the lead. A compiler's diagnostic: the first page
        written for compile errors (`_compile_error_first`). Otherwise the first candidate whose chunk holds
        the exact name the error gives (an exception class, a sanitizer's kind) goes first, one written for the
        name's language before one that only mentions it: "System.IndexOutOfRangeException" is the C# page's
        word, and RRF over the question's and the code's weak lists had put Java's and Go's pages first. With
        `described`, a first candidate that does not hold the name but matches what the question says (verdict
        words left out, by its windows) at the floor keeps the lead: the student named the cause ("my comparator
        returns a <= b" over a heap-buffer-overflow report)."""
        evidence = attempt.evidence
        if evidence is not None and evidence.compile_error and described:
            return self._compile_error_first(lead)
        if evidence is None or not evidence.names or len(lead) < 2:
            return lead
        table = self.index.chunks
        # The chunk, not the document: a page on stack overflow that lists Python's RecursionError in passing is
        # not its page. Only the few lead candidates are read, so this costs the same at any size of base.
        naming = [c for c in lead if self._names(c.row, evidence)]
        first = lead[0].row
        if (described and naming and lead[0] not in naming
                and self._beyond_verdict([first], queries, ("question",))[first] >= attempt.bm25_floor):
            return lead
        languages = self._doc_languages
        return named_first(lead, naming, lambda c: evidence.language in languages.get(table.doc_id(c.row), ()))

    def _names(self, row: int, evidence: ErrorEvidence) -> bool:
        """Whether the row's chunk holds a name the error gives (`ErrorEvidence.named_in`). Its record is decoded only
        when the stored bytes hold one of the names: most candidates' do not, and decoding a few dozen chunks a
        question was the slowest named-problem questions' largest cost after the searches (docs/bench/scale-1m-round24).
        """
        table = self.index.chunks
        needles = _raw_names(evidence.names)
        if needles is not None and not table.record_holds(row, needles):
            return False
        return evidence.named_in(table[row].text)

    def _compile_error_first(self, lead: list[_Candidate]) -> list[_Candidate]:
        """A compiler's diagnostic pasted: a page for other verdicts (Go's panics, for "use of untyped nil")
        cannot explain a program that never ran, so the first page written for compile errors goes before it."""
        if not lead or self._written_for(lead[0].row, "CE"):
            return lead
        first = next((c for c in lead if self._written_for(c.row, "CE")), None)
        return lead if first is None else [first, *(c for c in lead if c is not first)]

    def _written_for(self, row: int, verdict: str) -> bool:
        """Whether the row's general document lists `verdict` among the verdicts it explains."""
        return verdict in self._doc_verdicts.get(self.index.chunks.doc_id(row), frozenset())

    def _overview(self, row: int, verdict: str | None = None) -> bool:
        """Whether the row belongs to a verdict's overview (about `verdict`, if given); read from the columns."""
        covered = self._overviews.get(self.index.chunks.doc_id(row))
        return covered is not None and (verdict is None or verdict in covered)

    def _beyond_verdict(self, rows: Sequence[int], queries: Sequence[_PartQuery],
                        parts: tuple[str, ...] = ("question", "error")) -> dict[int, float]:
        """Each row's best normalized BM25 on what the question and the error say besides verdict words and the
        words about the judge's testing (`_TESTING_WORDS`; the question also by its windows of WINDOW_TOKENS, each
        against its own bound)."""
        vocabulary = _verdict_vocabulary() | _TESTING_WORDS
        spans: list[list[str]] = []
        for q in queries:
            if q.name in parts:
                detail = [t for t in q.tokens if t not in vocabulary]
                spans.append(detail)
                if q.name == "question" and len(detail) > WINDOW_TOKENS * 3 // 2:
                    step = WINDOW_TOKENS // 2
                    spans += [detail[i:i + WINDOW_TOKENS] for i in range(0, len(detail) - step, step)]
        return self._best_match(spans, rows)

    def _mixed(self, own: list[_Candidate], general: list[_Candidate], attempt: _Attempt,
               queries: Sequence[_PartQuery]) -> list[_Candidate]:
        """A named problem's own candidates, then the general ones not among them (one may lead)."""
        rows = {c.row for c in own}
        general = self._error_evidence_first([c for c in general if c.row not in rows], queries, attempt,
                                          described=False)
        lead = self._explains_error(own, general, attempt, queries)
        return lead + own + [c for c in general if c not in lead]

    def _own_error_first(self, own: list[_Candidate], queries: Sequence[_PartQuery],
                         attempt: _Attempt) -> list[_Candidate]:
        """Inside a named problem, what the pasted error says decides between the problem's own documents.

        An error pattern is one bug of the problem; the official solution covers the problem. Two rules, on
        the error's own evidence, never on the words every document of the problem shares:

        - an error pattern written for other verdicts than the one the student got (their `verdicts`) does
          not lead: a MLE is not explained by a page about a wrong answer; nor, on a runtime error, one written
          only for other languages than the student's (`runtime_language`): a Python traceback's pattern does not
          explain a C++ sanitizer's or a Java exception's report;
        - the error pattern that matches the error's words — verdict words, the judge's name and the
          problem's titles left out: "RecursionError: maximum recursion depth", "IndexError: pop from empty
          list" — at the floor and better than every other document of the problem leads.
        """
        if len(own) < 2:
            return own
        table = self.index.chunks
        verdict = _named_verdict(queries)
        patterns = self._pattern_verdicts

        fitting = self._pattern_fits(verdict, attempt)

        def fits(c: _Candidate) -> bool:
            doc = table.doc_id(c.row)
            return doc not in patterns or fitting(doc)

        if not fits(own[0]):
            first = next((c for c in own if fits(c)), None)
            own = own if first is None else [first, *(c for c in own if c is not first)]
        detail = _own_words("error", queries)
        if not detail:
            return own
        match = self._matches(detail, [c.row for c in own])
        bugs = [c for c in own if table.doc_id(c.row) in patterns and fits(c)]
        best = max(bugs, key=lambda c: match[c.row], default=None)
        others = max((match[c.row] for c in own if table.doc_id(c.row) not in patterns), default=0.0)
        if best is None or match[best.row] < attempt.bm25_floor or match[best.row] <= others or best is own[0]:
            return own
        return [best, *(c for c in own if c is not best)]

    def _pattern_fits(self, verdict: str | None, attempt: _Attempt) -> Callable[[str], bool]:
        """Whether an error pattern (by document id) may explain the student's failure: written for their verdict
        (any, when none or an acceptance is known) and, on a runtime error, for their language (`runtime_language`)."""
        patterns = self._pattern_verdicts
        language = attempt.language if verdict in _RUNTIME_VERDICTS and self.settings.runtime_language else None
        return lambda doc: verdict in (None, "AC") or (verdict in patterns.get(doc, ())
                                                       and self._written_in(doc, language))

    def _pattern_by_code(self, own: list[_Candidate], queries: Sequence[_PartQuery],
                         attempt: _Attempt) -> list[_Candidate]:
        """Of a named problem's error patterns, the one the student's code matches clearly best leads another.

        Two patterns of one problem for the same verdict (239's TLE from `list.pop(0)` and from slicing every
        window) repeat that verdict and the problem's words alike, so the bare verdict line's list picked one by
        how often it writes the verdict: "max(nums[i:i + k]) … 超出时间限制" got the `pop(0)` page. What tells them
        apart is the student's program, which is written like one pattern's code and not the other's. When an error
        pattern leads and another pattern that fits the failure (`_pattern_fits`; not the lead's translation) matches
        the code's own words (`_own_words`; its best chunk, BM25 against the words' bound) `code_pattern_lead` times
        better than every chunk of the leading one, it leads instead. Only patterns compete: which of them the code
        resembles says nothing of whether the official solution answers better (rounds 12, 16, 17: code against the
        official solution's code trades R@1 for many best@1)."""
        ratio = self.settings.code_pattern_lead
        table, patterns = self.index.chunks, self._pattern_verdicts
        if ratio <= 0 or len(own) < 2 or table.doc_id(own[0].row) not in patterns:
            return own
        lead = table.doc_id(own[0].row)
        fitting = self._pattern_fits(_named_verdict(queries), attempt)
        rivals = [c for c in own if table.doc_id(c.row) in patterns and fitting(table.doc_id(c.row))
                  and translation_key(table.doc_id(c.row)) != translation_key(lead)]
        code = _own_words("code", queries)
        if not rivals or not code:
            return own
        docs = list(dict.fromkeys([lead, *(table.doc_id(c.row) for c in rivals)]))
        rows = {doc: list(self.index.rows_by_doc[doc]) for doc in docs}
        match = self._matches(code, [row for doc in docs for row in rows[doc]])
        best = {doc: max(match[row] for row in rows[doc]) for doc in docs}
        first = max(rivals, key=lambda c: best[table.doc_id(c.row)])  # the first of equals: the search's order
        if best[table.doc_id(first.row)] <= ratio * best[lead]:
            return own
        return [first, *(c for c in own if c is not first)]

    def _signature_holds(self, doc: str, verdict: str | None, attempt: _Attempt) -> bool | None:
        """Whether the student's code holds one of the error pattern's signatures for their language and verdict;
        None when the pattern lists none for them (or no code or language is known): it says nothing."""
        signatures = self._signatures.get(doc)
        if not signatures or not attempt.code:
            return None
        verdict = verdict if verdict in self._pattern_verdicts.get(doc, ()) else None
        own = signatures_for(signatures, attempt.language, verdict, self._pattern_verdicts.get(doc, ()))
        return signatures_match(own, attempt.code) if own else None

    def _pattern_by_signature(self, own: list[_Candidate], queries: Sequence[_PartQuery],
                              attempt: _Attempt) -> list[_Candidate]:
        """A leading error pattern whose bug the student's code does not hold gives the lead away.

        Inside a named problem a pattern about another bug led on the words every document of the problem shares,
        with the official solution second; no lexical signal told the two cases apart (docs/retrieval.md, round
        20). A pattern may list its bug as code constructs per language and verdict (front matter `signatures`:
        300's `bisect_right` / `upper_bound`). When it lists some for the student's language (and verdict) and the
        code holds none, the problem's first document that is no error pattern leads, or an error pattern whose
        signature the code does hold if one comes first. A question whose words name the pattern's bug (a word of its
        title that is neither the problem's title nor a verdict) keeps it first. Patterns without signatures for the
        attempt, and questions without code, keep today's order."""
        if not self.settings.pattern_signatures or len(own) < 2 or not attempt.code:
            return own
        table = self.index.chunks
        lead = table.doc_id(own[0].row)
        if lead not in self._pattern_verdicts:
            return own
        verdict = _named_verdict(queries)
        if self._signature_holds(lead, verdict, attempt) is not False:
            return own
        asked = {t for q in queries if q.name == "question" for t in q.tokens}
        if asked & self._bug_words.get(translation_key(lead), frozenset()):
            return own  # the question's own words name the pattern's bug: the student suspects it

        def may_lead(c: _Candidate) -> bool:
            doc = table.doc_id(c.row)
            return doc not in self._pattern_verdicts or self._signature_holds(doc, verdict, attempt) is True

        first = next((c for c in own if may_lead(c)), None)
        return own if first is None else [first, *(c for c in own if c is not first)]

    def _asked_how(self, own: list[_Candidate], attempt: _Attempt) -> list[_Candidate]:
        """A question that reports no failure asks how or why the solution works ("why is it safe to always move the
        shorter line?", "初始化成 amount + 1 应该就够了吧？"): the problem's first document that is not an error
        pattern (its official solution or explanation) leads an error pattern, which explains a bug the student did
        not report. It led on the words every document of the problem shares (the code's identifiers, the
        technique's name). Development splits: R@1 +5, best@1 +8, nothing lost (docs/retrieval.md, round 17)."""
        if attempt.failure is not False or not self.settings.failure_lead or len(own) < 2:
            return own
        table, patterns = self.index.chunks, self._pattern_verdicts
        if table.doc_id(own[0].row) not in patterns:
            return own
        first = next((c for c in own if table.doc_id(c.row) not in patterns), None)
        return own if first is None else [first, *(c for c in own if c is not first)]

    def _written_in(self, doc_id: str, language: str | None) -> bool:
        """Whether the document is written for `language` (or its family: C and C++), or for no language in particular;
        True when `language` is None."""
        written = self._doc_languages.get(doc_id)
        if language is None or not written:
            return True
        return bool(written & _LANGUAGE_FAMILIES.get(language, frozenset((language,))))

    def _matches(self, tokens: Sequence[str], rows: Sequence[int], windows: bool = False) -> dict[int, float]:
        """Each row's BM25 on `tokens` normalized by their own bound (with `windows`, the best of that and of
        the tokens' windows of WINDOW_TOKENS, each against its own bound)."""
        spans = [list(tokens)]
        step = WINDOW_TOKENS // 2
        if windows and len(tokens) > WINDOW_TOKENS * 3 // 2:
            spans += [list(tokens[i:i + WINDOW_TOKENS]) for i in range(0, len(tokens) - step, step)]
        return self._best_match(spans, rows)

    def _best_match(self, spans: Sequence[Sequence[str]], rows: Sequence[int]) -> dict[int, float]:
        """Each row's best BM25 over `spans`, each span's score normalized by that span's own bound."""
        at = np.asarray(rows, dtype=np.int64)
        best = np.zeros(at.size)
        scored = getattr(self.index.bm25, "scores_for", None)
        for span in spans:
            bound = self.index.bm25.max_score(span) if span else 0.0
            if bound > 0:
                raw = scored(span, at) if scored is not None else self.index.bm25.scores(span)[at]
                best = np.maximum(best, [normalized(float(x), bound) for x in np.asarray(raw).tolist()])
        return dict(zip(at.tolist(), best.tolist(), strict=True))

    def _explains_error(self, own: Sequence[_Candidate], general: Sequence[_Candidate], attempt: _Attempt,
                        queries: Sequence[_PartQuery]) -> list[_Candidate]:
        """The general document that leads a named problem's own: the first that clears the full floor on
        what the pasted error says beyond its verdict, `general_error_lead` times better than any of the
        problem's documents.

        "Two Sum … AddressSanitizer: heap-buffer-overflow": the problem's documents match the question
        (and its titles) but none says a word of the sanitizer report; the document that explains that
        report is the answer, and it used to come after every document of the problem. A bare verdict
        ("Time Limit Exceeded") names no cause, and a problem with its own error pattern for the verdict
        ("Segmentation fault" on Number of Islands: its recursion-depth pattern) keeps the lead. When the error
        names its exception or sanitizer kind exactly, a page holding that name needs only `ASKED_LEAD`; and of
        the pages that explain the error, the question picks (`_described`).
        """
        if not general or not own:
            return []
        question = next((q for q in queries if q.name == "question" and q.tokens), None)
        detail = [t for t in question.tokens if t not in _verdict_vocabulary()] if question else []
        if len(detail) > WINDOW_TOKENS * 3 // 2 and self.settings.general_question_lead > 0:
            # "Run Code passes, Submit fails, the failing case alone passes": a long question describes a
            # general cause in words the problem's own documents do not use. (A short one - "运行测试用例时
            # 遇到内部错误" - is too little to outweigh the problem it names.)
            lead = self._leads_on(detail, own, general, attempt, self.settings.general_question_lead, windows=True)
            if lead:
                return lead
        ratio = self.settings.general_error_lead
        error = next((q for q in queries if q.name == "error" and q.tokens), None)
        if ratio <= 0 or error is None:
            return []
        verdicts = {t.removeprefix("verdict_").upper() for t in error.tokens if t.startswith("verdict_")}
        evidence = attempt.evidence or ErrorEvidence()
        if evidence.asked:  # "what does this message mean?" about a sanitizer's report, an exception, a diagnostic
            ratio = ASKED_LEAD
        elif not verdicts or verdicts & self._bug_verdicts.get(self.index.chunks[own[0].row].problem_id, set()):
            return []  # the problem's own error patterns cover this verdict: one of them is the likelier cause
        elif evidence.compile_error:  # a problem's documents explain its algorithm, never a compiler's message
            return [c for c in general if self._written_for(c.row, "CE")][:1]
        detail = [t for t in error.tokens if t not in _verdict_vocabulary()]
        if not evidence.asked and evidence.names:
            # The error names its exception or sanitizer kind exactly and the problem has no error pattern for
            # the verdict: a general page that holds that name explains it as well as the asked case does
            # ("RecursionError" on Course Schedule: the recursion-limit page, not the problem's explanation).
            named = [c for c in general if self._names(c.row, evidence)]
            lead = self._leads_on(detail, own, named, attempt, ASKED_LEAD)
            if lead:
                return self._described(lead[0], detail, own, named, queries, attempt, ASKED_LEAD)
        lead = self._leads_on(detail, own, general, attempt, ratio)
        return self._described(lead[0], detail, own, general, queries, attempt, ratio) if lead else []

    def _described(self, lead: _Candidate, detail: Sequence[str], own: Sequence[_Candidate],
                   general: Sequence[_Candidate], queries: Sequence[_PartQuery], attempt: _Attempt,
                   ratio: float) -> list[_Candidate]:
        """Of the general pages that explain the error as well as `lead` may (their match on it `ratio` times
        the problem's best), the one the question describes best, when its match on the question (verdict
        words and the problem's titles left out, by windows) clears the floor and beats the lead's.

        "Segmentation fault" is explained by the out-of-bounds, stack-overflow, null-pointer and
        iterator-invalidation pages alike; "intervals.erase(it), then it++ — can I still use the iterator?"
        says which (round 11's r11-005). Only pages that explain the error compete, so a question's words
        alone never put a general page before the problem's own documents."""
        if not any(q.name == "question" and q.tokens for q in queries):
            return [lead]
        words = _own_words("question", queries)
        rows = [c.row for c in (*own, *general)]
        on_error = self._matches(detail, rows)
        on_question = self._matches(words, rows, windows=True) if words else {}
        best_own = max((on_error[c.row] for c in own), default=0.0)
        explaining = [c for c in general if on_error[c.row] > 0 and on_error[c.row] >= ratio * best_own]
        pick = max(explaining, key=lambda c: on_question.get(c.row, 0.0), default=lead)
        said = on_question.get(pick.row, 0.0)
        return [pick] if said >= attempt.bm25_floor and said > on_question.get(lead.row, 0.0) else [lead]

    def _leads_on(self, detail: Sequence[str], own: Sequence[_Candidate], general: Sequence[_Candidate],
                  attempt: _Attempt, ratio: float, windows: bool = False) -> list[_Candidate]:
        """The first general candidate whose BM25 match on `detail` (against detail's own bound; with
        `windows`, its best window of WINDOW_TOKENS against the window's bound) clears the floor and is
        `ratio` times the problem's best; none otherwise."""
        by_row = self._matches(detail, [c.row for c in (*own, *general)], windows=windows)
        best_own = max((by_row[c.row] for c in own), default=0.0)
        return [c for c in general
                if by_row[c.row] > 0 and by_row[c.row] >= attempt.bm25_floor and by_row[c.row] >= ratio * best_own][:1]

    def twin(self, doc_id: str, lang: str) -> str | None:
        """The id of `doc_id`'s translation into `lang`, if the base has it."""
        key = translation_key(doc_id)
        for sep in ("-", "_", "."):
            candidate = f"{key}{sep}{lang}"
            if candidate in self.index.rows_by_doc:
                return candidate
        return None

    def _prefer_lang(self, hits: Sequence[Hit], lang: str | None) -> list[Hit]:
        """Show each document in the answer language when its translation exists (same section)."""
        if lang not in ("zh", "en"):
            return list(hits)
        out = []
        for hit in hits:
            other = self.twin(hit.chunk.doc_id, lang) if hit.chunk.lang != lang else None
            rows = self.index.rows_by_doc.get(other, ()) if other else ()
            if len(rows):
                chunks = [self.index.chunks[r] for r in rows]
                same = next((c for c in chunks if c.ordinal == hit.chunk.ordinal), chunks[0])
                hit = dataclasses.replace(hit, chunk=same)
            out.append(hit)
        return out


def _named_verdict(queries: Sequence[_PartQuery]) -> str | None:
    """The verdict the error part names, else the question (its `verdict_*` token), upper-case."""
    for name in ("error", "question"):
        for q in queries:
            if q.name == name:
                found = next((t for t in q.tokens if t.startswith("verdict_")), None)
                if found:
                    return found.removeprefix("verdict_").upper()
    return None


# A C program's bugs are explained by the pages written for C++ and the other way round (the base often lists
# both, and its out-of-bounds and stack-overflow pages only C++).
_LANGUAGE_FAMILIES = {"c": frozenset(("c", "cpp")), "cpp": frozenset(("c", "cpp"))}
# Verdicts the language's runtime reports in its own words (a traceback, a sanitizer's report, an exception): a page
# about one language's crash does not explain another's. A wrong answer or a time limit is the algorithm's, in any
# language (development splits, simulated: requiring the language for them too puts the official solution before 35
# error patterns that were the best answer, for R@1 +9 -2; docs/retrieval.md, round 16).
_RUNTIME_VERDICTS = frozenset(("RE",))

# The verdicts a judge may print for another: many judges report a layout error as Wrong Answer and running out of
# memory as Runtime Error (the PE and MLE overviews say so), so a WA or RE student may have a PE or MLE page's bug.
_REPORTED_AS = {"WA": frozenset(("WA", "PE")), "RE": frozenset(("RE", "MLE"))}


def _one_family(languages: Collection[str]) -> bool:
    """Whether every language is of one family (`_LANGUAGE_FAMILIES`): a page written for that language only."""
    return len({_LANGUAGE_FAMILIES.get(x, frozenset((x,))) for x in languages}) == 1


def _own_words(part: str, queries: Sequence[_PartQuery]) -> list[str]:
    """A part's tokens without the verdict's words, the judge's name and the named problem's titles: what the
    student says of their own bug, which every document of the problem does not share."""
    query = next((q for q in queries if q.name == part and q.tokens), None)
    if query is None:
        return []
    titles = set(next((q.tokens for q in queries if q.name == "problem"), ()))
    vocabulary = _verdict_vocabulary()
    return [t for t in without_judge_name(query.tokens) if t not in vocabulary and t not in titles]


# Words about how the judge tested the program (its test points and cases, the samples, submitting, running) are in
# most questions ("测试点 2 段错误", "本地能跑提交就报", "fails on submit"): like the verdict's words they say where
# the failure showed, not what caused it. Left out of what a page must match beyond the verdict (`_beyond_verdict`),
# they no longer let the page whose own topic is the judge's testing (state kept between test cases) take the lead
# from the page about the student's bug (round 15). They still rank: only the lead's evidence leaves them out.
# Every word judges and students use for a verdict ("超时", "timeout"), besides its names (`_verdict_vocabulary`).
_VERDICT_WORDS = frozenset(tokenize(" ".join(w for words in VERDICT_ALIASES.values() for w in words)))
_TESTING_WORDS = frozenset(tokenize("测试点 测试用例 用例 样例 提交 运行 测试 "
                                    "test case testcase submit submission run"))


@functools.cache
def _verdict_vocabulary() -> frozenset[str]:
    """The tokens of every verdict's names and abbreviations: what a bare verdict line is made of."""
    names = [*VERDICT_NAMES["en"], *(n for by_lang in VERDICT_NAMES.values() for n in by_lang.values())]
    return frozenset(tokenize(" ".join(names)))


def signals_of(entries: Mapping[str, tuple[int, float]]) -> dict[str, Signal]:
    """A hit's signals from `Retriever._rank`'s (rank, score) per signal."""
    return {signal: Signal(*entry) for signal, entry in entries.items()}


def _clears(bm25n: float, dense_sim: float | None, attempt: _Attempt, ratio: float) -> bool:
    """Whether a hit's normalized BM25 or dense similarity reaches the attempt's floor x `ratio`."""
    return bm25n >= attempt.bm25_floor * ratio or (dense_sim is not None and dense_sim >= attempt.dense_floor * ratio)


def translation_key(doc_id: str) -> str:
    """Documents that are translations of each other share an id up to the language suffix."""
    return re.sub(r"[-_.](zh|en)$", "", doc_id)


def _diversify(hits: list[_T], top_k: int, doc_of: Callable[[_T], str] = lambda h: h.chunk.doc_id) -> list[_T]:
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
            if len(firsts) == top_k:  # the top-k are all firsts: nothing later can enter them (and doc_of is costly)
                break
        elif chosen[key] == doc_id and taken.get(key, 1) < MAX_CHUNKS_PER_DOC:
            seconds.append(hit)
        else:
            continue
        taken[key] = taken.get(key, 0) + 1
    return (firsts + seconds)[:top_k]


# --------------------------------------------------------------------------- assembly


def load_embedder_or_none(settings: Settings) -> tuple[Embedder | None, tuple[str, ...]]:
    """The configured embedding model, or None with the reason when it cannot be loaded."""
    if not settings.embeddings_enabled:
        return None, ("embeddings are turned off: BM25 only",)
    from quest.retrieval.embedder import load_embedder

    try:
        return load_embedder(settings), ()
    except EmbeddingUnavailable as exc:
        log.warning("%s", exc)
        return None, (f"{exc.message.rstrip('. ')}. Retrieval runs on BM25 only.",)


def build_retriever(settings: Settings, *, progress: Callable[[str], None] | None = None,
                    embedder: Embedder | None = None) -> Retriever:
    """Load the knowledge base, the embedding model (or fall back), and the index (load, update or build)."""
    kb = load_knowledge_base(settings.kb_dir, starter=settings.starter_kb)
    notices: tuple[str, ...] = ()
    if embedder is None:
        if progress and settings.embeddings_enabled:
            progress(f"Loading the embedding model {settings.embedding_model}...")
        embedder, notices = load_embedder_or_none(settings)
    index, report = open_index(kb, settings, embedder, progress)
    _log_report(report, index)
    if kb.errors:
        notices = (*notices, f"{len(kb.errors)} knowledge file(s) could not be loaded; see the log")
    retriever = Retriever(settings, index, kb, embedder, notices=notices)
    calibration = load_calibration(settings.data_dir, model_key(retriever))
    if calibration is not None:  # floors picked for this model by `quest eval --calibrate`
        log.info("calibrated floors for %s: bm25 %s, dense %s", calibration.model, calibration.bm25_floor,
                 calibration.dense_floor)
        retriever = Retriever(apply_calibration(settings, calibration), index, kb, embedder, notices=notices)
    return retriever


def _log_report(report: UpdateReport, index: Index) -> None:
    log.info("index %s: %d documents, %d chunks (%s) in %.2fs; (re)indexed %d documents, removed %d",
             report.action, index.documents, index.size, index.model, report.seconds,
             len(report.embedded_docs), len(report.removed_docs))


@functools.lru_cache(maxsize=256)
def _raw_names(names: tuple[str, ...]) -> tuple[bytes, ...] | None:
    """The names as the bytes a stored record holds them in, or None when one of them is escaped there (JSON)."""
    if not all(verbatim_in_json(name) for name in names):
        return None
    return tuple(name.encode("utf-8") for name in names)


def _found_ahead(q: _PartQuery, signal: str, k: int, rows: np.ndarray | None) -> bool:
    """Whether the part's `signal` list of `k` over these very rows (the same array, or both None) was found ahead."""
    kept = q.lists_ahead.get((signal, k))
    return kept is not None and kept[0] is rows


def _with_kernel(kernel: kernels.Kernel | None, run: Callable[[kernels.Kernel | None], _T]) -> _T:
    """`run(kernel)`, by the compiled scope sums; `run(None)` (numpy) without them, or once they failed on arrays they
    were not warmed for (turned off for the process, one WARNING). A damaged index raises as the numpy path does."""
    if kernel is not None:
        try:
            return run(kernel)
        except (IndexError_, ValueError):
            raise
        except Exception as exc:
            kernels.disable(exc)
    return run(None)


def _timed(job: Callable[[], _T]) -> tuple[_T, float]:
    """The job's result and its wall time in ms (run side by side, the stages' times overlap)."""
    t = time.perf_counter()
    return job(), (time.perf_counter() - t) * 1000
