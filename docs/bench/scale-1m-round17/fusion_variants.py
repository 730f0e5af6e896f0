"""Round 17b's before/after retrievers (fusion_ab.py): `before` fuses as perf17 (474fc30) did, with its
`reciprocal_rank_fusion`, `ties_last`, `_by_chunk_on_ties` and the per-row loop of `_rank`, copied here word for
word; `after` is the library's Retriever. The sparse kernels and everything else are shared."""

import math
import time
from collections.abc import Mapping

import numpy as np

from quest.retrieval.retriever import Retriever
from quest.retrieval.sparse import normalized
from quest.retrieval.types import Signal


def reciprocal_rank_fusion(ranked_lists,
                           k=60):
    """Fuse ranked lists of ids into one list of (id, fused score), best first.

    Pure and deterministic: an id repeated within one list counts at its first rank only;
    ties are broken by the id itself, so the order of the input lists never matters.
    """
    lists = ranked_lists.values() if isinstance(ranked_lists, Mapping) else ranked_lists
    contributions: dict = {}
    for ranking in lists:
        seen: set = set()
        for rank, item in enumerate(ranking, start=1):
            if item in seen:
                continue
            seen.add(item)
            contributions.setdefault(item, []).append(1.0 / (k + rank))
    # fsum is exactly rounded, so the sum does not depend on the order of the lists either.
    fused = [(item, math.fsum(parts)) for item, parts in contributions.items()]
    return ties_last(fused, lambda pair: -pair[1], lambda pair: _tie_key(pair[0]))



def ties_last(items, key, tie):
    """`sorted(items, key=lambda x: (key(x), tie(x)))`, with `tie` computed only for items whose `key` equals
    another's: a tie key (a document id, a string) costs far more than a score, and most scores are distinct."""
    keyed = sorted(((key(item), n) for n, item in enumerate(items)), key=lambda pair: pair[0])
    out: list = []
    i = 0
    while i < len(keyed):
        j = i + 1
        while j < len(keyed) and keyed[j][0] == keyed[i][0]:
            j += 1
        if j - i == 1:
            out.append(items[keyed[i][1]])
        else:  # a stable sort of the tied run by `tie` keeps their order among equal `tie`s, as one sort would
            out.extend(sorted((items[n] for _, n in keyed[i:j]), key=tie))
        i = j
    return out


def _tie_key(item) -> tuple[str, str]:
    return (type(item).__name__, str(item))


def _short_signals(sig, bases):
    out = {}
    for name, s in sig.items():
        base = bases[name] if bases is not None else name.split(":", 1)[0]
        if base not in out or s.rank < out[base].rank:
            out[base] = s
    return out


class Before(Retriever):
    """perf17's fusion."""

    def _rank(self, rows, k, queries,
              timings: dict[str, float], scope: str,
              whole: tuple[np.ndarray | None] | None = None) -> list[tuple[int, float, dict[str, Signal], float | None,
                                                                         float]]:
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
        fused = self._by_chunk_on_ties(reciprocal_rank_fusion(ordering, k=self.settings.rrf_k), lists)
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
        # A part that names the judge is judged on its other words (plain); the others' BM25 lists by their bound.
        # (Per list, once: the loop below runs for every fused row.)
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
        timings["fusion"] = timings.get("fusion", 0) + (time.perf_counter() - t) * 1000
        return out

    def _by_chunk_on_ties(self, fused: list[tuple[int, float]],
                          lists: Mapping[str, list[tuple[int, float]]]) -> list[tuple[int, float]]:
        """Equal fused scores ordered by how strongly the lists matched, then by chunk.

        RRF ties are common (rank 1 + rank 3 equals rank 3 + rank 1). The stronger match — each
        list's score over that list's best, summed — goes first; what remains is ordered by chunk
        (document id, ordinal), never by row number: rows are numbered by the index's layout
        (grouped by problem at a build or compaction, appended by an update), and the same chunks
        must rank the same way in any layout.
        """
        strength: dict[int, float] = {}
        for ranked in lists.values():
            best = ranked[0][1] if ranked and ranked[0][1] > 0 else 0.0
            for row, score in ranked:
                strength[row] = strength.get(row, 0.0) + (score / best if best else 0.0)
        table = self.index.chunks
        return ties_last(fused, lambda pair: (-pair[1], -round(strength.get(pair[0], 0.0), 9)),
                         lambda pair: (table.doc_id(pair[0]), int(table.ordinal[pair[0]])))



VARIANTS = {"before": Before, "after": Retriever}
