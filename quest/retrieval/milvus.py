"""Milvus as the vector store: `QUEST_VECTOR_STORE=milvus://host:19530` or a Milvus Lite file.

The local index stays the source of truth (chunks, the BM25 statistics, the segments on disk);
Milvus holds every live row's dense vector, its BM25 weights and (for bge-m3) its lexical weights
in one collection, and answers the ranked lists: dense, BM25 and lexical, over the whole base or a
problem's rows. The retriever, its floors, the exact match and the fill-up logic do not change:
`MilvusDense`, `MilvusBM25` and `MilvusLexical` replace the index's parts with the same interface.
`MilvusStore.hybrid` fuses several lists by RRF (k = 60) on the server in one call.

One collection per embedding model. Each live chunk is one entity whose primary key is the chunk
id plus its document's content hash, so an edited document's chunks are new keys: `sync` inserts
the keys the index has and Milvus lacks, deletes the ones Milvus has and the index no longer does
(incremental upserts and deletes keyed by document hash), and rewrites rows whose BM25 weights
were written with an average length that has since drifted (see milvus_sparse.py).
`problem_id` is the partition key, so a problem's search is Milvus's own filtered search. Dense is
FLAT/IP and the sparse fields SPARSE_INVERTED_INDEX/IP: all exact, so the rankings equal the local
store's (ties broken by row, as locally).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from quest.retrieval.dense import _best
from quest.retrieval.fusion import RRF_K
from quest.retrieval.milvus_sparse import BM25_DRIFT, SparseRows, bm25_query, extends, lexical_query, vocabulary_tag

log = logging.getLogger(__name__)

MAX_LIMIT = 16_384  # Milvus's top-k ceiling
BATCH = 2_000
TIE_MARGIN = 20  # extra candidates fetched so rows tied at the k-th place are chosen by row id, as locally
NO_PROBLEM = ""  # partition-key value for general documents
SCHEMA = "2"  # dense + bm25 (+ lexical) sparse fields; collections of another schema are other names
VOCAB_PROPERTY = "quest.bm25_vocabulary"


def milvus_uri(store: str) -> str:
    """`milvus://host:port` -> `http://host:port`; anything else is a Milvus Lite file path."""
    if store.startswith("milvus://"):
        return "http://" + store[len("milvus://"):]
    return store


def collection_name(model: str) -> str:
    return (f"quest{SCHEMA}_" + re.sub(r"[^A-Za-z0-9_]+", "_", model))[-200:]


def _quote(values: Sequence[str]) -> str:
    return "[" + ", ".join('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values) + "]"


class MilvusStore:
    """One collection mirroring the index's live rows; searches any of its vector fields."""

    def __init__(self, client: Any, collection: str, index: Any) -> None:
        self.client, self.collection = client, collection
        self.dim = index.dim
        self.size = index.rows
        self.keys = [f"{c.id}@{index.doc_hashes.get(c.doc_id, '')[:16]}" for c in index.chunks]
        self.row_of = {key: row for row, key in enumerate(self.keys) if not index.deleted[row]}
        self.kinds = np.asarray([c.kind for c in index.chunks], dtype=object)
        self.problems = np.asarray([c.problem_id or NO_PROBLEM for c in index.chunks], dtype=object)
        self.rows_by_problem = dict(index.rows_by_problem)
        general = [r for r, c in enumerate(index.chunks) if c.problem_id is None and not index.deleted[r]]
        self.rows_by_problem[NO_PROBLEM] = np.asarray(general, dtype=np.int64)  # `problem_id == ""` selects them
        self.deleted = index.deleted
        self.has_lexical = index.lexical is not None

    # ------------------------------------------------------------------ setup

    @classmethod
    def attach(cls, store: str, index: Any, client: Any | None = None) -> MilvusStore:
        """Connect, create the collection if needed, bring it in line with `index`."""
        from pymilvus import MilvusClient

        client = client or MilvusClient(milvus_uri(store))
        name = collection_name(index.model)
        terms = list(index.bm25.vocab)  # id order: ids are assigned by appending
        if client.has_collection(name) and not extends(_stored_vocabulary(client, name), terms):
            log.info("milvus %s: written with another BM25 vocabulary (a rebuilt index); recreating", name)
            client.drop_collection(name)
        if not client.has_collection(name):
            _create(client, name, index.dim, lexical=index.lexical is not None)
        client.load_collection(name)  # a collection from an earlier run starts released
        milvus = cls(client, name, index)
        milvus.sync(index)
        client.alter_collection_properties(name, properties={VOCAB_PROPERTY: vocabulary_tag(terms)})
        return milvus

    def _existing(self) -> dict[str, float]:
        """Every entity's key and the average length its BM25 weights were written with."""
        found: dict[str, float] = {}
        iterator = self.client.query_iterator(self.collection, batch_size=BATCH, filter="",
                                              output_fields=["key", "avgdl"])
        try:
            while batch := iterator.next():
                found.update((r["key"], float(r["avgdl"])) for r in batch)
        finally:
            iterator.close()
        return found

    def sync(self, index: Any) -> tuple[int, int]:
        """Insert the live rows Milvus lacks, delete the entities the index no longer has, and
        rewrite the rows whose BM25 weights were written with a drifted average length."""
        have = self._existing()
        avgdl = float(index.bm25.avgdl)
        stale = sorted(have.keys() - self.row_of.keys())
        missing = sorted(self.row_of[k] for k in self.row_of.keys() - have.keys())
        drifted = sorted(self.row_of[k] for k, written in have.items()
                         if k in self.row_of and _drift(written, avgdl) > BM25_DRIFT)
        for start in range(0, len(stale), BATCH):
            self.client.delete(self.collection, ids=stale[start:start + BATCH])
        self._write(index, missing, self.client.insert)
        self._write(index, drifted, self.client.upsert)
        if stale or missing or drifted:
            # Searches over unflushed (growing) segments were ~30x slower in Milvus Lite (measured).
            self.client.flush(self.collection)
            log.info("milvus %s: inserted %d, deleted %d, rewrote %d entities (BM25 avgdl drift)",
                     self.collection, len(missing), len(stale), len(drifted))
        return len(missing), len(stale)

    def _write(self, index: Any, rows: list[int], send: Any) -> None:
        sparse = SparseRows(index)
        avgdl = float(index.bm25.avgdl)
        for start in range(0, len(rows), BATCH):
            part = np.asarray(rows[start:start + BATCH], dtype=np.int64)
            vectors = index.dense.vectors[part].astype(np.float32)
            entities = []
            for i, r in enumerate(part.tolist()):
                entity = {"key": self.keys[r], "problem_id": index.chunks[r].problem_id or NO_PROBLEM,
                          "kind": index.chunks[r].kind, "avgdl": avgdl, "dense": vectors[i].tolist(),
                          "bm25": sparse.bm25(r)}
                if self.has_lexical:
                    entity["lexical"] = sparse.lexical(r)
                entities.append(entity)
            send(self.collection, entities)

    # ------------------------------------------------------------------ search

    def _raw(self, field: str, data: Any, limit: int, expr: str = "") -> list[tuple[int, float]]:
        """Milvus's own top-`limit` as (row, score), in its order."""
        hits = self.client.search(self.collection, data=[data], anns_field=field, limit=min(limit, MAX_LIMIT),
                                  filter=expr, output_fields=["key"], search_params={"metric_type": "IP"})[0]
        return [(self.row_of[h["key"]], float(h["distance"])) for h in hits if h["key"] in self.row_of]

    def _search(self, field: str, data: Any, k: int, expr: str = "") -> list[tuple[int, float]]:
        limit = k + TIE_MARGIN
        found = self._raw(field, data, limit, expr)
        # Rows tied with the k-th may run past what was fetched (Milvus breaks ties its own way):
        # fetch more until the tie ends, so the row-id tie-break below sees all of them.
        while len(found) >= limit and limit < MAX_LIMIT and _tied(found[min(k, len(found)) - 1][1], found[-1][1]):
            limit = min(limit * 4, MAX_LIMIT)
            found = self._raw(field, data, limit, expr)
        if field != "dense":
            found = [(r, s) for r, s in found if s > 0]  # as the local top_k: matching rows only
        if not found:
            return []
        rows = np.asarray([r for r, _ in found], dtype=np.int64)
        scores = np.asarray([s for _, s in found], dtype=np.float32)
        return [(int(rows[i]), float(scores[i])) for i in _best(scores, k, rows)]  # ties by row, as locally

    def ranked(self, field: str, data: Any, k: int, rows: np.ndarray | None = None) -> list[tuple[int, float]]:
        """Top-k of one field over the live rows, or among `rows` (deleted ones dropped)."""
        if k <= 0:
            return []
        if rows is None:
            return self._search(field, data, k)
        rows = np.asarray(rows, dtype=np.int64)
        rows = rows[~self.deleted[rows]] if rows.size else rows
        if rows.size == 0:
            return []
        expr = self.restriction(rows)
        if expr is not None:
            return self._search(field, data, k, expr)
        allowed = np.zeros(self.size, dtype=bool)
        allowed[rows] = True
        found = self._search(field, data, MAX_LIMIT - TIE_MARGIN)  # an arbitrary subset: over-fetch, filter
        return [(r, s) for r, s in found if allowed[r]][:k]

    def restriction(self, rows: np.ndarray) -> str | None:
        """A filter selecting exactly `rows` (live), or None when only over-fetching can do it."""
        problem = self._problem_filter(rows)
        if problem is not None:
            return problem
        if rows.size <= BATCH:
            return f"key in {_quote([self.keys[r] for r in rows])}"
        allowed = np.zeros(self.size, dtype=bool)
        allowed[rows] = True
        barred = set(self.kinds[~allowed & ~self.deleted].tolist())
        if not barred & set(self.kinds[rows].tolist()):  # the restriction is "everything but these kinds"
            return f"kind not in {_quote(sorted(barred))}" if barred else ""
        return None

    def _problem_filter(self, rows: np.ndarray) -> str | None:
        """`problem_id == P` (the partition key) when `rows` are one problem's rows minus whole kinds."""
        problems = set(self.problems[rows].tolist())
        if len(problems) != 1:
            return None
        (pid,) = problems
        every = self.rows_by_problem.get(pid)
        if every is None:
            return None
        left_out = np.setdiff1d(every, rows)
        barred = set(self.kinds[left_out].tolist())
        if barred & set(self.kinds[rows].tolist()):
            return None
        return f"problem_id == {_quote([pid])[1:-1]}" + _kind_filter(barred)

    def hybrid(self, requests: Sequence[tuple[str, Any]], k: int, rows: np.ndarray | None = None,
               rrf_k: int = RRF_K) -> list[tuple[int, float]]:
        """(field, query) lists, each Milvus's top-k, fused by RRF on the server: (row, fused), best first.

        Each list is what `_raw(field, query, k)` returns; the fused order equals a local
        `reciprocal_rank_fusion` over those lists (ranks from 1; tests/retrieval/test_milvus_sparse.py).
        """
        from pymilvus import AnnSearchRequest, RRFRanker

        expr = "" if rows is None else self.restriction(np.asarray(rows, dtype=np.int64))
        if expr is None:
            raise ValueError("hybrid search needs a restriction Milvus can filter by")
        reqs = [AnnSearchRequest(data=[data], anns_field=field, param={"metric_type": "IP"},
                                 limit=min(k, MAX_LIMIT), filter=expr) for field, data in requests]
        hits = self.client.hybrid_search(self.collection, reqs, RRFRanker(rrf_k), limit=min(k * len(reqs), MAX_LIMIT),
                                         output_fields=["key"])[0]
        return [(self.row_of[h["key"]], float(h["distance"])) for h in hits if h["key"] in self.row_of]


def _tied(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b))


def _drift(written: float, current: float) -> float:
    """Relative bound on a row's BM25 error when written at `written` avgdl and scored at `current`."""
    return abs(1 - written / current) if current else 0.0


def _stored_vocabulary(client: Any, name: str) -> str:
    return str((client.describe_collection(name).get("properties") or {}).get(VOCAB_PROPERTY, "0:"))


class _Fetch:
    """`vectors[row]` or `vectors[rows]`: vectors read back from Milvus in one call (the retriever
    asks for one row, or for a problem's rows to score each query part against them)."""

    def __init__(self, owner: MilvusStore) -> None:
        self.owner = owner

    def __getitem__(self, rows: int | np.ndarray | Sequence[int]) -> np.ndarray:
        if np.ndim(rows) == 0:
            return self._fetch([int(rows)])[0]
        return self._fetch([int(r) for r in np.asarray(rows).ravel()])

    def _fetch(self, rows: list[int]) -> np.ndarray:
        keys = [self.owner.keys[r] for r in rows]
        if not keys:
            return np.zeros((0, self.owner.dim), dtype=np.float32)
        got = self.owner.client.get(self.owner.collection, ids=keys, output_fields=["dense"])
        by_key = {item["key"]: item["dense"] for item in got}
        return np.asarray([by_key[key] for key in keys], dtype=np.float32)


class MilvusDense:
    """The index's dense part (interface of `SegmentedDense`) answered by Milvus."""

    def __init__(self, store: MilvusStore) -> None:
        self.store = store
        self.client, self.collection, self.dim, self.size = store.client, store.collection, store.dim, store.size
        self.vectors = _Fetch(store)

    @classmethod
    def attach(cls, store: str, index: Any, client: Any | None = None) -> MilvusDense:
        return cls(MilvusStore.attach(store, index, client))

    def search(self, query: np.ndarray, k: int, allowed: np.ndarray | None = None) -> list[tuple[int, float]]:
        rows = None if allowed is None else np.flatnonzero(allowed)
        return self.store.ranked("dense", _dense(query), k, rows)

    def search_rows(self, query: np.ndarray, rows: np.ndarray, k: int) -> list[tuple[int, float]]:
        return self.store.ranked("dense", _dense(query), k, np.asarray(rows, dtype=np.int64))


class _Local:
    """Everything but the ranked lists stays with the local part (statistics, bounds, full scores)."""

    remote = True  # the retriever asks `search` for its ranked lists instead of cutting local scores

    def __init__(self, local: Any, store: MilvusStore) -> None:
        self.local, self.store = local, store

    def __getattr__(self, name: str) -> Any:
        return getattr(self.local, name)


class MilvusBM25(_Local):
    """BM25 ranked lists from the `bm25` sparse field: idf-weighted query . saturated document weights."""

    def search(self, tokens: Sequence[str], k: int, rows: np.ndarray | None = None) -> list[tuple[int, float]]:
        query = bm25_query(self.local, tokens)
        return self.store.ranked("bm25", query, k, rows) if query else []


class MilvusLexical(_Local):
    """bge-m3 lexical ranked lists from the `lexical` sparse field."""

    def search(self, query: Any, k: int, rows: np.ndarray | None = None) -> list[tuple[int, float]]:
        weights = lexical_query(query)
        return self.store.ranked("lexical", weights, k, rows) if weights else []


def attach(store: str, index: Any) -> None:
    """Move the index's ranked lists to Milvus (`QUEST_VECTOR_STORE`), keeping its local statistics."""
    milvus = MilvusStore.attach(store, index)
    index.dense = MilvusDense(milvus)
    index.bm25 = MilvusBM25(index.bm25, milvus)
    if index.lexical is not None:
        index.lexical = MilvusLexical(index.lexical, milvus)


def _dense(query: np.ndarray) -> list[float]:
    return np.asarray(query, dtype=np.float32).ravel().tolist()


def _kind_filter(barred: set[str]) -> str:
    return f" and kind not in {_quote(sorted(barred))}" if barred else ""


def _create(client: Any, name: str, dim: int, *, lexical: bool) -> None:
    from pymilvus import DataType

    schema = client.create_schema(auto_id=False, partition_key_field="problem_id")
    schema.add_field("key", DataType.VARCHAR, is_primary=True, max_length=512)
    schema.add_field("problem_id", DataType.VARCHAR, max_length=128)
    schema.add_field("kind", DataType.VARCHAR, max_length=64)
    schema.add_field("avgdl", DataType.FLOAT)  # the BM25 average length this row's weights were written with
    schema.add_field("dense", DataType.FLOAT_VECTOR, dim=dim)
    schema.add_field("bm25", DataType.SPARSE_FLOAT_VECTOR)
    params = client.prepare_index_params()
    params.add_index(field_name="dense", index_type="FLAT", metric_type="IP")
    params.add_index(field_name="bm25", index_type="SPARSE_INVERTED_INDEX", metric_type="IP")
    if lexical:
        schema.add_field("lexical", DataType.SPARSE_FLOAT_VECTOR)
        params.add_index(field_name="lexical", index_type="SPARSE_INVERTED_INDEX", metric_type="IP")
    client.create_collection(name, schema=schema, index_params=params)
