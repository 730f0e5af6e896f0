"""One Milvus call per search scope: every ranked list of a query, fused by RRF on the server.

The retriever ranks a scope (one problem's rows, the general documents, the whole base) by
several lists: BM25 for each part of the query, dense and lexical for the embedded query, each
cut to its top k, then fused by reciprocal rank fusion. `scope_lists` sends all of those lists
as the requests of one `hybrid_search` with `RRFRanker(rrf_k)`; the server returns the fused
rows, which are the union of the lists (the call's limit is the lists' total), with each row's
dense vector and sparse weights.

The retriever's floors and the per-signal ranks shown with each hit need each list's own
scores, and `hybrid_search` returns only the fused one. So each returned row's score in each
list is recomputed, and each list is rebuilt as the top k of the returned rows by that score,
ties broken by row as the local store breaks them. The sparse scores come from the local index's
own scorers (`scores_for` of the returned rows: the same float32 sums, term by term in the same
order), not from the returned weights: summed in float64, those split rows whose float32 scores
tie (and which the local store orders by row) and so reordered the list (tests/retrieval/
test_milvus_agree.py); dense scores are the returned vectors' inner products in float32. Nothing
is missing from a rebuilt list: every row of a list's top k was returned, and a row that was not
can at most tie with the list's k-th score.
For a full sparse list (k rows or more) those ties are looked up in one more call, a range
search at the k-th score of each such list, so the BM25 and lexical lists equal the local
store's exactly (a dense list is fetched past its cut instead), and so does the retriever's
fusion over them.

The server's own fused order is not used to rank. It is RRF over Milvus's own lists, and
differs from an RRF over the local lists in two ways no request can change (Milvus Lite 3.2, read
in its source): it orders rows with equal scores inside a list by where it stores them (segment,
offset), so a tie inside the top k gives them other ranks than the local order by row; and it
orders equal fused scores by primary key (the chunk key), where the local fusion orders by row
or chunk. Its fused scores are float64 sums in list order, returned as float32. `python -m quest bench
--milvus` counts both (docs/bench/milvus-100k-agree).

When this cannot be exact (a restriction Milvus cannot express as a filter, an entity of a row
the index no longer has, a tie longer than the margin, more than Milvus's top-k ceiling)
`scope_lists` returns None and the retriever asks for each list separately, as before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from quest.retrieval.dense import cosines

TIE_MARGIN = 64  # rows tied at a list's k-th score fetched beyond k, so the tie is cut by row as locally
MAX_LIMIT = 16_384  # Milvus's top-k ceiling
VECTOR_CACHE = 65_536  # dense vectors kept for the retriever's similarity check (rows of recent results)


@dataclass(frozen=True)
class ListQuery:
    """One ranked list: its name in the retriever ("bm25:question"), the field, the query vector."""

    name: str
    field: str  # "dense" | "bm25" | "lexical"
    data: Any  # list[float] for dense, {term id: weight} for the sparse fields
    local: Any = None  # a sparse list's query as the local scorer takes it: BM25 tokens, lexical weights


@dataclass(frozen=True)
class ScopeLists:
    lists: dict[str, list[tuple[int, float]]]  # each list's (row, score), best first, as locally
    fused: list[tuple[int, float]]  # the server's RRF order and scores (the first call's)
    calls: int


def scope_lists(store: Any, queries: Sequence[ListQuery], k: int, rows: np.ndarray | None,
                rrf_k: int) -> ScopeLists | None:
    """Every list of `queries` over `rows` (None: the whole base), from one or two Milvus calls."""
    empty = {q.name: [] for q in queries}
    asked = [q for q in queries if q.data is not None and len(q.data)]
    if rows is not None:
        rows = np.asarray(rows, dtype=np.int64)
        rows = rows[~store.deleted[rows]] if rows.size else rows
    if k <= 0 or not asked or (rows is not None and rows.size == 0):
        return ScopeLists(empty, [], 0)
    expr = "" if rows is None else store.restriction(rows)
    # A dense list is fetched TIE_MARGIN rows past k: the rows tied with its k-th score are then cut by
    # row, as the local store cuts them (dense.TIE_EXTRA); a sparse list's tie is looked up below.
    requests = [_request(q, k + TIE_MARGIN if q.field == "dense" else k, expr) for q in asked]
    if expr is None or sum(r.limit for r in requests) > MAX_LIMIT:
        return None
    found = _Found(store, asked)
    fused = found.add(_hybrid(store, requests, rrf_k))
    if fused is None:
        return None
    calls = 1
    bands = found.full_bands(k)
    if bands:  # rows tied with a full list's k-th score that no list returned
        ties = [_request(asked[i], k + TIE_MARGIN, expr, band) for i, band in bands.items()]
        if found.add(_hybrid(store, ties, rrf_k)) is None or found.tie_overflows(bands, k + TIE_MARGIN):
            return None
        calls = 2
    return ScopeLists({**empty, **found.lists(k)}, fused, calls)


def _request(q: ListQuery, limit: int, expr: str, band: tuple[float, float] | None = None) -> Any:
    from pymilvus import AnnSearchRequest

    param: dict[str, Any] = {"metric_type": "IP"}
    if band is not None:  # a range search: radius < score <= range_filter (inner product)
        param["params"] = {"radius": band[0], "range_filter": band[1]}
    return AnnSearchRequest(data=[q.data], anns_field=q.field, param=param, limit=limit, filter=expr)


def _hybrid(store: Any, requests: list[Any], rrf_k: int) -> Any:
    from pymilvus import RRFRanker

    fields = ["key", "dense"]  # sparse scores come from the local scorers
    limit = min(sum(r.limit for r in requests), MAX_LIMIT)
    return store.client.hybrid_search(store.collection, requests, RRFRanker(rrf_k), limit=limit,
                                      output_fields=fields)[0]


def _tie_band(score: float) -> tuple[float, float]:
    """Scores Milvus (float32) may report for rows whose recomputed score equals `score`."""
    tol = 1e-5 * abs(score) + 1e-7
    return score - tol, score + tol


class _Found:
    """The rows returned so far and each one's recomputed score in every list."""

    def __init__(self, store: Any, queries: Sequence[ListQuery]) -> None:
        self.store, self.queries = store, queries
        self.dense = [np.asarray(q.data, dtype=np.float32) if q.field == "dense" else None for q in queries]
        self.scores: dict[int, list[float]] = {}

    def add(self, hits: Any) -> list[tuple[int, float]] | None:
        """Score the hits' rows in every list; None when a hit is no live row (the lists may be short)."""
        order, new, entities = [], [], []
        for hit in hits:
            row = self.store.row_of(hit["key"])
            if row is None:
                return None
            order.append((row, float(hit["distance"])))
            if row not in self.scores and row not in new:
                new.append(row)
                entities.append(hit.get("entity") or hit)
        if new:
            self._score(new, entities)
        return order

    def _score(self, rows: list[int], entities: list[Mapping[str, Any]]) -> None:
        # Each row's float32 product as the local store computes it (dense.cosines), so nearly
        # tied rows round, and so order, the same way.
        matrix = np.asarray([e["dense"] for e in entities], dtype=np.float32)
        vectors = self.store.vectors
        if len(vectors) > VECTOR_CACHE:
            vectors.clear()
        vectors.update(zip(rows, matrix, strict=True))
        at = np.asarray(rows, dtype=np.int64)
        columns = []
        for i, q in enumerate(self.queries):
            if q.field == "dense":
                columns.append(cosines(matrix, self.dense[i]).tolist())
            else:  # the local store's own float32 score of each row (see the module docstring)
                columns.append(self.store.scorers[q.field].scores_for(q.local, at).tolist())
        for j, row in enumerate(rows):
            self.scores[row] = [float(column[j]) for column in columns]

    def ranked(self, i: int) -> list[tuple[int, float]]:
        """List i over the returned rows: best first, ties by row (sparse lists: matching rows only)."""
        dense = self.queries[i].field == "dense"
        found = [(row, s[i]) for row, s in self.scores.items() if dense or s[i] > 0]
        return sorted(found, key=lambda pair: (-pair[1], pair[0]))

    def lists(self, k: int) -> dict[str, list[tuple[int, float]]]:
        return {q.name: self.ranked(i)[:k] for i, q in enumerate(self.queries)}

    def full_bands(self, k: int) -> dict[int, tuple[float, float]]:
        """For each full sparse list (k rows or more): the band of scores tied with its k-th.

        Only the sparse lists: the local BM25 and lexical top-k keep the lowest rows of a tie at
        the cut, which the range search reproduces. A dense list was already fetched TIE_MARGIN rows
        past k, and the local dense search cuts its ties by row as well (dense.TIE_EXTRA).
        """
        out = {}
        for i in range(len(self.queries)):
            if self.queries[i].field == "dense":
                continue
            ranked = self.ranked(i)
            if len(ranked) >= k:
                out[i] = _tie_band(ranked[k - 1][1])
        return out

    def tie_overflows(self, bands: Mapping[int, tuple[float, float]], limit: int) -> bool:
        """Whether a range search may have stopped inside its tie (it returned `limit` rows in the band)."""
        def tied(i: int, lo: float, hi: float) -> int:
            return sum(1 for s in self.scores.values() if lo < s[i] <= hi)

        return any(tied(i, lo, hi) >= limit for i, (lo, hi) in bands.items())
