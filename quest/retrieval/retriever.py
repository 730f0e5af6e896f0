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

import logging
import re
import time
import unicodedata
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

import numpy as np

from quest.errors import EmbeddingUnavailable
from quest.kb.catalogue import resolve_problem, resolve_problem_id
from quest.kb.documents import Chunk, Document, KnowledgeBase, Problem, normalize_problem_id
from quest.kb.markdown import load_knowledge_base
from quest.retrieval.embedder import Embedder
from quest.retrieval.fusion import reciprocal_rank_fusion
from quest.retrieval.index import Index, UpdateReport, open_index
from quest.retrieval.sparse import normalized
from quest.retrieval.tokenize import tokenize
from quest.retrieval.types import Hit, RetrieverStatus, SearchResult, Signal
from quest.settings import Settings

log = logging.getLogger(__name__)

# Order in which an exact problem match lists its documents.
KIND_ORDER = ("official_solution", "error_pattern", "user_explanation", "problem_statement", "faq")
MAX_CHUNKS_PER_DOC = 2


def _squash(text: str) -> str:
    """Case-, width- and spacing-insensitive form used for title matching."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return re.sub(r"[\s\-_·.,:;!?'\"()（）【】\[\]，。：；！？、]+", "", text)


@dataclass(frozen=True)
class _Attempt:
    candidates: int
    dense_floor: float
    bm25_floor: float


class Retriever:
    def __init__(self, settings: Settings, index: Index, kb: KnowledgeBase,
                 embedder: Embedder | None = None, *, notices: tuple[str, ...] = ()) -> None:
        self.settings = settings
        self.index = index
        self.kb = kb
        self.problems: Mapping[str, Problem] = kb.problems
        self.embedder = embedder
        self._notices = notices
        self._titles: dict[str, str] = {}
        for pid, problem in kb.problems.items():
            for title in (problem.title_zh, problem.title_en):
                if title:
                    self._titles[_squash(title)] = pid
        self._kinds = np.asarray([c.kind for c in index.chunks], dtype=object)
        self._general_rows = np.asarray([i for i, c in enumerate(index.chunks) if c.problem_id is None],
                                        dtype=np.int64)

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
        squashed = _squash(text)
        for prefix in ("leetcode", "lc", "problem", "题目"):
            if squashed.startswith(prefix) and squashed[len(prefix):].isdigit():
                pid = normalize_problem_id(squashed[len(prefix):])
                return self.problems.get(pid)
        found = self._titles.get(squashed)
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
               top_k: int | None = None, signals: Collection[str] | None = None) -> SearchResult:
        """Ranked hits for `query`. `signals` limits the ranked lists used ("bm25", "dense",
        "lexical"; default all available), for evaluation and benchmarks."""
        started = time.perf_counter()
        timings: dict[str, float] = {}
        notices: list[str] = []
        top_k = top_k or self.settings.top_k
        excluded = frozenset(exclude_kinds)
        query = (query or "").strip()
        pid = resolve_problem_id(problem_id, self.problems)
        if pid is not None and pid not in self.problems:
            resolved = resolve_problem(problem_id, self.problems)
            notices.append(resolved.question() + " Searching the whole knowledge base." if resolved.ambiguous
                           else f"unknown problem id {pid!r}: searching the whole knowledge base")
            pid = None
        if not query:
            return SearchResult(hits=(), mode="empty", notices=(*notices, "empty query"), problem_id=pid)

        problem = self.exact_match(query)
        if problem is not None:
            hits = self._exact_hits(problem.id, excluded, top_k)
            timings["exact"] = (time.perf_counter() - started) * 1000
            timings["total"] = timings["exact"]
            return SearchResult(hits=tuple(hits), mode="exact", timings=timings, notices=tuple(notices),
                                problem_id=problem.id)

        t = time.perf_counter()
        tokens = tokenize(query)
        bm25_bound = self.index.bm25.max_score(tokens)
        timings["tokenize"] = (time.perf_counter() - t) * 1000
        use = frozenset(signals) if signals is not None else frozenset(("bm25", "dense", "lexical"))
        q_dense, q_lex = None, None
        if self.embedder is not None and self.index.dense is not None and use & {"dense", "lexical"}:
            t = time.perf_counter()
            try:
                emb = self.embedder.encode_queries([query])
                q_dense = emb.dense[0] if "dense" in use else None
                q_lex = emb.lexical[0] if emb.lexical and "lexical" in use else None
            except Exception as exc:  # a failing model must not take retrieval down with it
                log.warning("query embedding failed, using BM25 only: %s", exc)
                notices.append("the embedding model failed on this query: BM25 only")
            timings["embed"] = (time.perf_counter() - t) * 1000

        s = self.settings
        first = _Attempt(s.candidates, s.dense_floor, s.bm25_floor)
        if "bm25" not in use:
            tokens = []
        hits = self._attempt(first, tokens, bm25_bound, q_dense, q_lex, pid, excluded, top_k, timings)
        widened = False
        if not hits:
            widened = True
            wide = _Attempt(int(s.candidates * s.widen_factor), s.dense_floor * s.widen_floor_ratio,
                            s.bm25_floor * s.widen_floor_ratio)
            hits = self._attempt(wide, tokens, bm25_bound, q_dense, q_lex, pid, excluded, top_k, timings)
        timings["total"] = (time.perf_counter() - started) * 1000
        mode = ("hybrid" if tokens else "dense") if (q_dense is not None or q_lex) else "bm25"
        return SearchResult(hits=tuple(hits), mode=mode, widened=widened, timings=timings,
                            notices=tuple(notices), problem_id=pid)

    # ------------------------------------------------------------------ internals

    def _exact_hits(self, pid: str, excluded: frozenset[str], top_k: int) -> list[Hit]:
        rows = self.index.rows_by_problem.get(pid, np.zeros(0, dtype=np.int64))
        chunks = [self.index.chunks[r] for r in rows if self.index.chunks[r].kind not in excluded]
        order = {k: i for i, k in enumerate(KIND_ORDER)}
        # One chunk per document first (its opening), best kinds first; then the rest.
        chunks.sort(key=lambda c: (c.ordinal > 0, order.get(c.kind, 99), c.doc_id, c.ordinal))
        return [Hit(chunk=c, score=1.0, fused=1.0, signals={"exact": Signal(1, 1.0)}, scope="exact")
                for c in chunks[:max(top_k, 1)]]

    def _allowed(self, rows: np.ndarray | None, excluded: frozenset[str]) -> np.ndarray | None:
        """`rows` (None: all) minus chunks of excluded kinds."""
        if not excluded:
            return rows
        if rows is None:
            return np.flatnonzero(~np.isin(self._kinds, list(excluded))).astype(np.int64)
        return rows[~np.isin(self._kinds[rows], list(excluded))]

    def _rank(self, rows: np.ndarray | None, k: int, tokens: list[str], bm25_bound: float,
              q_dense: np.ndarray | None, q_lex: Mapping[str, float] | None,
              timings: dict[str, float], scope: str) -> list[tuple[int, float, dict[str, Signal], float, float]]:
        """Fuse the signals over `rows` (None: everything); return (row, fused, signals, dense, bm25n)."""
        lists: dict[str, list[tuple[int, float]]] = {}
        t = time.perf_counter()
        if tokens:
            lists["bm25"] = self.index.bm25.search(tokens, k, rows)
            timings[f"bm25_{scope}"] = timings.get(f"bm25_{scope}", 0) + (time.perf_counter() - t) * 1000
        if q_dense is not None and self.index.dense is not None:
            t = time.perf_counter()
            if rows is None:
                lists["dense"] = self.index.dense.search(q_dense, k)
            else:
                lists["dense"] = self.index.dense.search_rows(q_dense, rows, k)
            timings[f"dense_{scope}"] = timings.get(f"dense_{scope}", 0) + (time.perf_counter() - t) * 1000
        if q_lex and self.index.lexical is not None:
            t = time.perf_counter()
            lists["lexical"] = self.index.lexical.search(q_lex, k, rows)
            timings[f"lexical_{scope}"] = timings.get(f"lexical_{scope}", 0) + (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        fused = reciprocal_rank_fusion({name: [r for r, _ in ranked] for name, ranked in lists.items()},
                                       k=self.settings.rrf_k)
        signals: dict[int, dict[str, Signal]] = {}
        for name, ranked in lists.items():
            for rank, (row, score) in enumerate(ranked, start=1):
                signals.setdefault(row, {})[name] = Signal(rank, score)
        out = []
        for row, fused_score in fused:
            sig = signals[row]
            dense_sim = sig["dense"].score if "dense" in sig else None
            if dense_sim is None and q_dense is not None and self.index.dense is not None:
                dense_sim = float(self.index.dense.vectors[row] @ q_dense)
            bm25_raw = sig["bm25"].score if "bm25" in sig else 0.0
            out.append((row, fused_score, sig, dense_sim, normalized(bm25_raw, bm25_bound)))
        timings["fusion"] = timings.get("fusion", 0) + (time.perf_counter() - t) * 1000
        return out

    def _attempt(self, attempt: _Attempt, tokens: list[str], bm25_bound: float, q_dense: np.ndarray | None,
                 q_lex: Mapping[str, float] | None, pid: str | None, excluded: frozenset[str], top_k: int,
                 timings: dict[str, float]) -> list[Hit]:
        def passing(ranked, scope: str, ratio: float = 1.0) -> list[Hit]:
            hits = []
            for row, fused, sig, dense_sim, bm25n in ranked:
                ok = bm25n >= attempt.bm25_floor * ratio or (
                    dense_sim is not None and dense_sim >= attempt.dense_floor * ratio)
                if ok:
                    score = max(bm25n, dense_sim if dense_sim is not None else 0.0)
                    hits.append(Hit(chunk=self.index.chunks[row], score=round(score, 4), fused=fused,
                                    signals=sig, scope=scope))
            return hits

        selected: list[Hit] = []
        if pid is None and self.settings.general_lead > 0 and self._general_rows.size:
            rows = self._allowed(self._general_rows, excluded)
            selected = passing(self._rank(rows, attempt.candidates, tokens, bm25_bound, q_dense, q_lex,
                                          timings, "general"), "all")[: self.settings.general_lead]
        if pid is not None:
            rows = self._allowed(self.index.rows_by_problem.get(pid, np.zeros(0, dtype=np.int64)), excluded)
            selected = passing(self._rank(rows, attempt.candidates, tokens, bm25_bound, q_dense, q_lex,
                                          timings, "problem"), "problem", self.settings.problem_floor_ratio)
        if pid is None or len(selected) < self.settings.min_problem_hits:
            rows = self._allowed(None, excluded)
            scope = "global" if pid is not None else "all"
            fill = passing(self._rank(rows, attempt.candidates, tokens, bm25_bound, q_dense, q_lex,
                                      timings, "global"), scope)
            seen = {h.chunk.id for h in selected}
            selected.extend(h for h in fill if h.chunk.id not in seen)
        return _diversify(selected, top_k)


def translation_key(doc_id: str) -> str:
    """Documents that are translations of each other share an id up to the language suffix."""
    return re.sub(r"[-_.](zh|en)$", "", doc_id)


def _diversify(hits: list[Hit], top_k: int) -> list[Hit]:
    """Spread the top-k over documents: each document's best chunk first, then second chunks.

    A document and its translation count as one document: whichever ranks first represents
    both, so a Chinese and an English copy of one error pattern do not crowd out the official
    solution. Order is kept within each pass, and problem hits still precede fill-up hits
    inside a pass.
    """
    firsts: list[Hit] = []
    seconds: list[Hit] = []
    chosen: dict[str, str] = {}  # translation key -> the doc id that represents it
    taken: dict[str, int] = {}
    for hit in hits:
        key = translation_key(hit.chunk.doc_id)
        if key not in chosen:
            chosen[key] = hit.chunk.doc_id
            firsts.append(hit)
        elif chosen[key] == hit.chunk.doc_id and taken.get(key, 1) < MAX_CHUNKS_PER_DOC:
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
    return Retriever(settings, index, kb, embedder, notices=notices)


def _log_report(report: UpdateReport, index: Index) -> None:
    log.info("index %s: %d documents, %d chunks (%s) in %.2fs; (re)indexed %d documents, removed %d",
             report.action, index.documents, index.size, index.model, report.seconds,
             len(report.embedded_docs), len(report.removed_docs))
