"""This round's before/after retrievers, for paired runs in one process (paired.py).

`before` is the code as round 14 left it (branch m15): the general documents' sparse lists scored on their own
(scores_for) and the whole base's by a kernel pass of its own, fusion as it was (a tie key for every row; the list
names split per row), and the general documents' dense search finding their live rows and runs on every call.
Its methods are copied here from m15 (quest/retrieval/retriever.py, fusion.py, segments.py).
`after` is the library's Retriever as it stands.
"""

import math
import time
from collections.abc import Sequence

import numpy as np

from quest.retrieval.dense import _best, cosines
from quest.retrieval.retriever import Retriever, _PartQuery
from quest.retrieval.segments import GATHER_UP_TO
from quest.retrieval.sparse import normalized
from quest.retrieval.types import Signal


def _old_rrf(ranked_lists, k=60):
    lists = ranked_lists.values()
    contributions = {}
    for ranking in lists:
        seen = set()
        for rank, item in enumerate(ranking, start=1):
            if item in seen:
                continue
            seen.add(item)
            contributions.setdefault(item, []).append(1.0 / (k + rank))
    fused = [(item, math.fsum(parts)) for item, parts in contributions.items()]
    return sorted(fused, key=lambda pair: (-pair[1], (type(pair[0]).__name__, str(pair[0]))))


def _old_short_signals(sig):
    out = {}
    for name, s in sig.items():
        base = name.split(":", 1)[0]
        if base not in out or s.rank < out[base].rank:
            out[base] = s
    return out


def _old_search_rows(dense, query, rows, k):
    """m15's SegmentedDense.search_rows: the live rows and their runs found again on every call."""
    rows = np.asarray(rows, dtype=np.int64)
    rows = rows[~dense.deleted[rows]] if rows.size else rows
    if rows.size == 0 or k <= 0:
        return []
    runs = None if rows.size * 4 >= dense.size else dense._runs(rows)
    if runs is not None:
        found = [(int(dense.offsets[s]) + r, v) for s, lo, hi in runs
                 for r, v in dense.parts[s].search_range(query, lo, hi, k)]
        found_rows = np.asarray([r for r, _ in found], dtype=np.int64)
        sims = np.asarray([v for _, v in found], dtype=np.float32)
        return [(int(found_rows[i]), float(sims[i])) for i in _best(sims, k, found_rows)]
    if rows.size * 4 >= dense.size or rows.size > GATHER_UP_TO:
        mask = np.zeros(dense.size, dtype=bool)
        mask[rows] = True
        return dense.search(query, k, mask, exact=rows.size * 4 < dense.size)
    sims = cosines(dense.vectors[rows], query)
    return [(int(rows[i]), float(sims[i])) for i in _best(sims, k, rows)]


class Before(Retriever):
    """m15's general sparse lists, fusion, general dense search and allowed rows."""

    def _dense_list(self, q, rows, k):
        if rows is None:
            return self.index.dense.search(q.dense, k)
        return _old_search_rows(self.index.dense, q.dense, rows, k)

    def _allowed(self, rows, excluded):
        if not excluded:
            return rows
        kinds = self.index.chunks.kind
        codes = self.index.chunks.kind_codes(excluded)
        if rows is None:
            if excluded not in self._everything_but:
                self._everything_but[excluded] = np.flatnonzero(~np.isin(kinds, codes)).astype(np.int64)
            return self._everything_but[excluded]
        return rows[~np.isin(kinds[rows], codes)]

    def _sparse_top(self, q, signal, model, query, rows, k, whole=None):
        return super()._sparse_top(q, signal, model, query, rows, k)

    def _by_chunk_on_ties(self, fused, lists):
        strength = {}
        for ranked in lists.values():
            best = ranked[0][1] if ranked and ranked[0][1] > 0 else 0.0
            for row, score in ranked:
                strength[row] = strength.get(row, 0.0) + (score / best if best else 0.0)
        table = self.index.chunks
        return sorted(fused, key=lambda pair: (-pair[1], -round(strength.get(pair[0], 0.0), 9),
                                               table.doc_id(pair[0]), int(table.ordinal[pair[0]])))

    def _rank(self, rows: np.ndarray | None, k: int, queries: Sequence[_PartQuery],
              timings: dict[str, float], scope: str, whole=None) -> list[tuple[int, float, dict[str, Signal],
                                                                                float | None, float]]:
        """Fuse every signal of every part over `rows` (None: everything).

        Returns (row, fused, signals, best dense similarity, best normalized BM25) per row. Each
        part is normalized by its own bound, so a long question cannot lower what a short error
        part matches, and adding a part never removes a row another part found.
        """
        lists = self._store_lists(queries, rows, k, timings, scope)
        if lists is None:
            lists = self._part_lists(queries, rows, k, timings, scope)
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
        fused = self._by_chunk_on_ties(_old_rrf(ordering, k=self.settings.rrf_k), lists)
        if scope == "problem" and self.settings.document_fusion:
            fused = self._by_document(ordering, fused)
        if titles_only:  # the problem's documents only its titles found: after the rest, in their order
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
            # Every fused row's best cosine similarity over the parts, in one matrix product.
            rows_arr = np.fromiter((r for r, _ in fused), dtype=np.int64, count=len(fused))
            best = (self.index.dense.vectors[rows_arr] @ np.stack(dense_parts).T).max(axis=1)
            sims = dict(zip(rows_arr.tolist(), best.tolist(), strict=True))
        plain = self._plain_confidence(queries, [r for r, _ in fused])
        named = {q.name for q in queries if q.plain is not None}
        out = []
        for row, fused_score in fused:
            sig = signals[row]
            # A part that names the judge is judged on its other words (plain); the others as they are.
            bm25n = max((normalized(s.score, bounds[name.split(":", 1)[1]]) for name, s in sig.items()
                         if name.startswith("bm25:") and name.split(":", 1)[1] not in named), default=0.0)
            if "question" not in named:
                bm25n = max(bm25n, windowed.get(row, 0.0))
            bm25n = max(bm25n, plain.get(row, 0.0))
            out.append((row, fused_score, _old_short_signals(sig), sims.get(row), bm25n))
        timings["fusion"] = timings.get("fusion", 0) + (time.perf_counter() - t) * 1000
        return out


VARIANTS = {"before": Before, "after": Retriever}
