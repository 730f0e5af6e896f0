"""Milvus as the dense vector store: `QUEST_VECTOR_STORE=milvus://host:19530` or a Milvus Lite file.

The local index stays the source of truth (chunks, BM25, lexical weights, the segments on
disk); Milvus holds the live rows' dense vectors and answers the dense ranked lists. The
retriever, its floors, the exact match and the fill-up logic do not change: `MilvusDense`
has the interface of `SegmentedDense` (search, search_rows, vectors) and replaces it on the
index.

One collection per embedding model. Each live chunk is one entity whose primary key is the
chunk id plus its document's content hash, so an edited document's chunks are new keys:
`sync` inserts the keys the index has and Milvus lacks, and deletes the ones Milvus has and
the index no longer does (incremental upserts and deletes keyed by document hash).
`problem_id` is the partition key, so a problem's search is Milvus's own filtered search.
The index is FLAT with inner product: exact, so the ranking equals the local store's.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from quest.retrieval.dense import _best

log = logging.getLogger(__name__)

MAX_LIMIT = 16_384  # Milvus's top-k ceiling
BATCH = 2_000
NO_PROBLEM = ""  # partition-key value for general documents


def milvus_uri(store: str) -> str:
    """`milvus://host:port` -> `http://host:port`; anything else is a Milvus Lite file path."""
    if store.startswith("milvus://"):
        return "http://" + store[len("milvus://"):]
    return store


def collection_name(model: str) -> str:
    return ("quest_" + re.sub(r"[^A-Za-z0-9_]+", "_", model))[-200:]


def _quote(values: Sequence[str]) -> str:
    return "[" + ", ".join('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values) + "]"


class _Fetch:
    """`vectors[row]` or `vectors[rows]`: vectors read back from Milvus in one call (the retriever
    asks for one row, or for a problem's rows to score each query part against them)."""

    def __init__(self, owner: MilvusDense) -> None:
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
    def __init__(self, client: Any, collection: str, index: Any) -> None:
        self.client, self.collection = client, collection
        self.dim = index.dim
        self.size = index.rows
        self.keys = [f"{c.id}@{index.doc_hashes.get(c.doc_id, '')[:16]}" for c in index.chunks]
        self.row_of = {key: row for row, key in enumerate(self.keys) if not index.deleted[row]}
        self.kinds = np.asarray([c.kind for c in index.chunks], dtype=object)
        self.problems = np.asarray([c.problem_id or NO_PROBLEM for c in index.chunks], dtype=object)
        self.rows_by_problem = index.rows_by_problem
        self.deleted = index.deleted
        self.vectors = _Fetch(self)

    # ------------------------------------------------------------------ setup

    @classmethod
    def attach(cls, store: str, index: Any, client: Any | None = None) -> MilvusDense:
        """Connect, create the collection if needed, bring it in line with `index`."""
        from pymilvus import MilvusClient

        client = client or MilvusClient(milvus_uri(store))
        name = collection_name(index.model)
        if not client.has_collection(name):
            _create(client, name, index.dim)
        dense = cls(client, name, index)
        dense.sync(index)
        return dense

    def _existing_keys(self) -> set[str]:
        keys: set[str] = set()
        iterator = self.client.query_iterator(self.collection, batch_size=BATCH, filter="", output_fields=["key"])
        try:
            while batch := iterator.next():
                keys.update(r["key"] for r in batch)
        finally:
            iterator.close()
        return keys

    def sync(self, index: Any) -> tuple[int, int]:
        """Insert the live rows Milvus lacks, delete the entities the index no longer has."""
        have = self._existing_keys()
        stale = sorted(have - self.row_of.keys())
        missing = sorted(self.row_of[k] for k in self.row_of.keys() - have)
        for start in range(0, len(stale), BATCH):
            self.client.delete(self.collection, ids=stale[start:start + BATCH])
        for start in range(0, len(missing), BATCH):
            rows = np.asarray(missing[start:start + BATCH], dtype=np.int64)
            vectors = index.dense.vectors[rows].astype(np.float32)
            self.client.insert(self.collection, [
                {"key": self.keys[r], "problem_id": index.chunks[r].problem_id or NO_PROBLEM,
                 "kind": index.chunks[r].kind, "dense": vectors[i].tolist()}
                for i, r in enumerate(rows)])
        if stale or missing:
            log.info("milvus %s: inserted %d, deleted %d entities", self.collection, len(missing), len(stale))
        return len(missing), len(stale)

    # ------------------------------------------------------------------ search

    def _search(self, query: np.ndarray, k: int, expr: str = "") -> list[tuple[int, float]]:
        hits = self.client.search(self.collection, data=[np.asarray(query, dtype=np.float32).tolist()],
                                  anns_field="dense", limit=min(k, MAX_LIMIT), filter=expr,
                                  output_fields=["key"], search_params={"metric_type": "IP"})[0]
        found = [(self.row_of[h["key"]], float(h["distance"])) for h in hits if h["key"] in self.row_of]
        if not found:
            return []
        rows = np.asarray([r for r, _ in found], dtype=np.int64)
        sims = np.asarray([s for _, s in found], dtype=np.float32)
        return [(int(rows[i]), float(sims[i])) for i in _best(sims, k, rows)]  # ties by row, as locally

    def search(self, query: np.ndarray, k: int, allowed: np.ndarray | None = None) -> list[tuple[int, float]]:
        if k <= 0:
            return []
        if allowed is None:
            return self._search(query, k)
        return self.search_rows(query, np.flatnonzero(allowed), k)

    def search_rows(self, query: np.ndarray, rows: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Top-k among `rows`: by key for a few rows (a problem's), by kind for most of the base."""
        rows = np.asarray(rows, dtype=np.int64)
        rows = rows[~self.deleted[rows]] if rows.size else rows
        if rows.size == 0 or k <= 0:
            return []
        problem = self._problem_filter(rows)
        if problem is not None:
            return self._search(query, k, problem)
        if rows.size <= BATCH:
            return self._search(query, k, f"key in {_quote([self.keys[r] for r in rows])}")
        allowed = np.zeros(self.size, dtype=bool)
        allowed[rows] = True
        barred = set(self.kinds[~allowed & ~self.deleted].tolist())
        if not barred & set(self.kinds[rows].tolist()):  # the restriction is "everything but these kinds"
            expr = f"kind not in {_quote(sorted(barred))}" if barred else ""
            return self._search(query, k, expr)
        found = self._search(query, MAX_LIMIT)  # an arbitrary large subset: over-fetch and filter here
        return [(r, s) for r, s in found if allowed[r]][:k]

    def _problem_filter(self, rows: np.ndarray) -> str | None:
        """`problem_id == P` (the partition key) when `rows` are one problem's rows minus whole kinds."""
        problems = set(self.problems[rows].tolist())
        if len(problems) != 1:
            return None
        (pid,) = problems
        every = self.rows_by_problem.get(pid) if pid != NO_PROBLEM else None
        if every is None:
            return None
        left_out = np.setdiff1d(every, rows)
        barred = set(self.kinds[left_out].tolist())
        if barred & set(self.kinds[rows].tolist()):
            return None
        return f"problem_id == {_quote([pid])[1:-1]}" + _kind_filter(barred)


def _kind_filter(barred: set[str]) -> str:
    return f" and kind not in {_quote(sorted(barred))}" if barred else ""


def _create(client: Any, name: str, dim: int) -> None:
    from pymilvus import DataType

    schema = client.create_schema(auto_id=False, partition_key_field="problem_id")
    schema.add_field("key", DataType.VARCHAR, is_primary=True, max_length=512)
    schema.add_field("problem_id", DataType.VARCHAR, max_length=128)
    schema.add_field("kind", DataType.VARCHAR, max_length=64)
    schema.add_field("dense", DataType.FLOAT_VECTOR, dim=dim)
    params = client.prepare_index_params()
    params.add_index(field_name="dense", index_type="FLAT", metric_type="IP")
    client.create_collection(name, schema=schema, index_params=params)
