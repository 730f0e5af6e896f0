"""Milvus as the vector store: `QUEST_VECTOR_STORE=milvus://host:19530` or a Milvus Lite file.

The local index stays the source of truth (chunks, the BM25 statistics, the segments on disk);
Milvus holds every live row's dense vector, its BM25 weights and (for bge-m3) its lexical weights
in one collection, and answers the ranked lists: dense, BM25 and lexical, over the whole base or a
problem's rows. The retriever, its floors, the exact match and the fill-up logic do not change:
`MilvusDense`, `MilvusBM25` and `MilvusLexical` replace the index's parts with the same interface,
and `MilvusBM25.scope_lists` answers every list of a search scope from one server-side RRF call
(milvus_hybrid.py); the per-list `search` path remains for restrictions no filter expresses.

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

import hashlib
import logging
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from quest.retrieval.chunktable import NO_PROBLEM as TABLE_NO_PROBLEM
from quest.retrieval.dense import _best
from quest.retrieval.fusion import RRF_K
from quest.retrieval.milvus_hybrid import MAX_LIMIT, TIE_MARGIN, ListQuery, scope_lists
from quest.retrieval.milvus_sparse import BM25_DRIFT, SparseRows, bm25_query, extends, lexical_query, vocabulary_tag

log = logging.getLogger(__name__)

BATCH = 2_000
NO_PROBLEM = ""  # partition-key value for general documents
SCHEMA = "2"  # dense + bm25 (+ lexical) sparse fields; collections of another schema are other names
VOCAB_PROPERTY = "quest.bm25_vocabulary"
STATE_PROPERTY = "quest.synced_state"  # state_tag of the index the last complete sync mirrored


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
        # Keys, kinds and problems come from the index's columns: no chunk record is decoded here.
        table = index.chunks
        self.table, self.doc_hashes, self.rows_by_doc = table, index.doc_hashes, index.rows_by_doc
        self.kind = np.asarray(table.kind)
        self.kind_names = list(table.kinds)
        self.problem = np.asarray(table.problem)
        self.problem_names = list(table.problems)
        self.rows_by_problem = dict(index.rows_by_problem)
        self.general = np.flatnonzero((self.problem == TABLE_NO_PROBLEM) & ~index.deleted).astype(np.int64)
        self.deleted = index.deleted
        self.has_lexical = index.lexical is not None
        # The local sparse scorers rebuild each list's scores exactly (milvus_hybrid._Found).
        self.scorers = {"bm25": getattr(index.bm25, "local", index.bm25),
                        "lexical": getattr(index.lexical, "local", index.lexical)}
        self.vectors: dict[int, np.ndarray] = {}  # dense vectors the last searches returned, by row

    def key(self, row: int) -> str:
        """The entity key of `row`: its chunk id ("<doc id>#<ordinal>") and its document's hash."""
        doc = self.table.doc_id(row)
        return f"{doc}#{int(self.table.ordinal[row])}@{self.doc_hashes.get(doc, '')[:16]}"

    def row_of(self, key: str) -> int | None:
        """The live row a key names, or None (a deleted chunk, an older version of its document)."""
        chunk, _, digest = key.rpartition("@")
        doc, _, ordinal = chunk.rpartition("#")
        rows = self.rows_by_doc.get(doc)
        if rows is None or self.doc_hashes.get(doc, "")[:16] != digest or not ordinal.isdigit():
            return None
        i = int(ordinal)
        if i < len(rows) and int(self.table.ordinal[rows[i]]) == i:  # a document's rows are in ordinal order
            return int(rows[i])
        return next((int(r) for r in rows if int(self.table.ordinal[r]) == i), None)

    def live_keys(self) -> dict[str, int]:
        """Every live row's key (tests and tools: O(rows))."""
        return {self.key(int(r)): int(r) for rows in self.rows_by_doc.values() for r in rows}

    # ------------------------------------------------------------------ setup

    @classmethod
    def attach(cls, store: str, index: Any, client: Any | None = None) -> MilvusStore:
        """Connect, create the collection if needed, bring it in line with `index`."""
        from pymilvus import MilvusClient

        client = client or MilvusClient(milvus_uri(store))
        name = collection_name(index.model)
        terms = list(index.bm25.vocab)  # id order: ids are assigned by appending
        if client.has_collection(name) and not extends(_properties(client, name).get(VOCAB_PROPERTY, "0:"), terms):
            log.info("milvus %s: written with another BM25 vocabulary (a rebuilt index); recreating", name)
            client.drop_collection(name)
        if not client.has_collection(name):
            _create(client, name, index.dim, lexical=index.lexical is not None)
        client.load_collection(name)  # a collection from an earlier run starts released
        milvus = cls(client, name, index)
        milvus.sync(index)
        # Written only after a complete sync: a sync cut short leaves the old state, so the next one diffs again.
        client.alter_collection_properties(name, properties={VOCAB_PROPERTY: vocabulary_tag(terms),
                                                             STATE_PROPERTY: state_tag(index)})
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
        rewrite the rows whose BM25 weights were written with a drifted average length.

        Documents are compared first: when the collection's recorded state (every document's hash)
        is the index's, nothing is read or written. Otherwise only the keys are listed, and the
        rows of documents whose hash Milvus lacks (or holds partly) are the ones encoded and sent.
        """
        if _properties(self.client, self.collection).get(STATE_PROPERTY) == state_tag(index):
            return 0, 0
        have = self._existing()
        avgdl = float(index.bm25.avgdl)
        rows_of = {key: self.row_of(key) for key in have}
        stale = sorted(key for key, row in rows_of.items() if row is None)
        missing = self._missing(have.keys())
        drifted = sorted(row for key, row in rows_of.items()
                         if row is not None and _drift(have[key], avgdl) > BM25_DRIFT)
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

    def _missing(self, have: Any) -> list[int]:
        """Live rows whose keys Milvus lacks, looked up only for documents it does not hold whole."""
        held = Counter(_document_version(key) for key in have)
        rows: list[int] = []
        for doc, digest in self.doc_hashes.items():
            own = self.rows_by_doc.get(doc, ())
            if held.get(f"{doc}@{digest[:16]}", 0) != len(own):
                rows.extend(int(r) for r in own if self.key(int(r)) not in have)
        return sorted(rows)

    def _write(self, index: Any, rows: list[int], send: Any) -> None:
        sparse = SparseRows(index)
        avgdl = float(index.bm25.avgdl)
        for start in range(0, len(rows), BATCH):
            part = np.asarray(rows[start:start + BATCH], dtype=np.int64)
            vectors = index.dense.vectors[part].astype(np.float32)
            entities = []
            for i, r in enumerate(part.tolist()):
                entity = {"key": self.key(r), "problem_id": self._problem_value(r),
                          "kind": self.kind_names[int(self.kind[r])], "avgdl": avgdl, "dense": vectors[i].tolist(),
                          "bm25": sparse.bm25(r)}
                if self.has_lexical:
                    entity["lexical"] = sparse.lexical(r)
                entities.append(entity)
            send(self.collection, entities)

    def _problem_value(self, row: int) -> str:
        code = int(self.problem[row])
        return NO_PROBLEM if code == TABLE_NO_PROBLEM else self.problem_names[code]

    # ------------------------------------------------------------------ search

    def _raw(self, field: str, data: Any, limit: int, expr: str = "") -> list[tuple[int, float]]:
        """Milvus's own top-`limit` as (row, score), in its order."""
        hits = self.client.search(self.collection, data=[data], anns_field=field, limit=min(limit, MAX_LIMIT),
                                  filter=expr, output_fields=["key"], search_params={"metric_type": "IP"})[0]
        return self._rows(hits)

    def _rows(self, hits: Any) -> list[tuple[int, float]]:
        """(row, score) of the hits that are live rows (an entity of a deleted chunk is skipped)."""
        found = ((self.row_of(h["key"]), float(h["distance"])) for h in hits)
        return [(row, score) for row, score in found if row is not None]

    def _search(self, field: str, data: Any, k: int, expr: str = "", local: Any = None) -> list[tuple[int, float]]:
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
        if local is not None:  # the local float32 sums: Milvus's own may split a local tie (milvus_hybrid.py)
            scores = self.scorers[field].scores_for(local, rows)
        return [(int(rows[i]), float(scores[i])) for i in _best(scores, k, rows)]  # ties by row, as locally

    def ranked(self, field: str, data: Any, k: int, rows: np.ndarray | None = None,
               local: Any = None) -> list[tuple[int, float]]:
        """Top-k of one field over the live rows, or among `rows` (deleted ones dropped); a sparse
        field's scores from the local scorer when given its query (`local`: tokens or lexical weights)."""
        if k <= 0:
            return []
        if rows is None:
            return self._search(field, data, k, local=local)
        rows = np.asarray(rows, dtype=np.int64)
        rows = rows[~self.deleted[rows]] if rows.size else rows
        if rows.size == 0:
            return []
        expr = self.restriction(rows)
        if expr is not None:
            return self._search(field, data, k, expr, local)
        allowed = np.zeros(self.size, dtype=bool)
        allowed[rows] = True
        found = self._search(field, data, MAX_LIMIT - TIE_MARGIN, local=local)  # an arbitrary subset: over-fetch
        return [(r, s) for r, s in found if allowed[r]][:k]

    def restriction(self, rows: np.ndarray) -> str | None:
        """A filter selecting exactly `rows` (live), or None when only over-fetching can do it."""
        problem = self._problem_filter(rows)
        if problem is not None:
            return problem
        if rows.size <= BATCH:
            return f"key in {_quote([self.key(int(r)) for r in rows])}"
        allowed = np.zeros(self.size, dtype=bool)
        allowed[rows] = True
        barred = set(np.unique(self.kind[~allowed & ~self.deleted]).tolist())
        if not barred & set(np.unique(self.kind[rows]).tolist()):  # the restriction is "everything but these kinds"
            return self._kind_filter(barred, "") if barred else ""
        return None

    def _problem_filter(self, rows: np.ndarray) -> str | None:
        """`problem_id == P` (the partition key) when `rows` are one problem's rows minus whole kinds."""
        problems = np.unique(self.problem[rows])
        if problems.size != 1:
            return None
        code = int(problems[0])
        pid = NO_PROBLEM if code == TABLE_NO_PROBLEM else self.problem_names[code]
        every = self.general if code == TABLE_NO_PROBLEM else self.rows_by_problem.get(pid)
        if every is None:
            return None
        barred = set(np.unique(self.kind[np.setdiff1d(every, rows)]).tolist())
        if barred & set(np.unique(self.kind[rows]).tolist()):
            return None
        return self._kind_filter(barred, f"problem_id == {_quote([pid])[1:-1]}")

    def _kind_filter(self, codes: set[int], first: str) -> str:
        if not codes:
            return first
        barred = f"kind not in {_quote(sorted(self.kind_names[c] for c in codes))}"
        return f"{first} and {barred}" if first else barred

    def hybrid(self, requests: Sequence[tuple[str, Any]], k: int, rows: np.ndarray | None = None,
               rrf_k: int = RRF_K) -> list[tuple[int, float]]:
        """(field, query) lists, each Milvus's top-k, fused by RRF on the server: (row, fused), best first.

        Each list is what `_raw(field, query, k)` returns (tied rows in Milvus's storage order); the
        fused scores are a local `reciprocal_rank_fusion` over those lists (ranks from 1), equal ones
        in primary-key order (tests/retrieval/test_milvus_sparse.py, test_milvus_agree.py).
        """
        from pymilvus import AnnSearchRequest, RRFRanker

        expr = "" if rows is None else self.restriction(np.asarray(rows, dtype=np.int64))
        if expr is None:
            raise ValueError("hybrid search needs a restriction Milvus can filter by")
        reqs = [AnnSearchRequest(data=[data], anns_field=field, param={"metric_type": "IP"},
                                 limit=min(k, MAX_LIMIT), filter=expr) for field, data in requests]
        hits = self.client.hybrid_search(self.collection, reqs, RRFRanker(rrf_k), limit=min(k * len(reqs), MAX_LIMIT),
                                         output_fields=["key"])[0]
        return self._rows(hits)


def _tied(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b))


def _drift(written: float, current: float) -> float:
    """Relative bound on a row's BM25 error when written at `written` avgdl and scored at `current`."""
    return abs(1 - written / current) if current else 0.0


def _document_version(key: str) -> str:
    """"<doc id>#<ordinal>@<hash>" -> "<doc id>@<hash>"."""
    chunk, _, digest = key.rpartition("@")
    return f"{chunk.rpartition('#')[0]}@{digest}"


def _properties(client: Any, name: str) -> dict[str, str]:
    return {str(k): str(v) for k, v in (client.describe_collection(name).get("properties") or {}).items()}


def state_tag(index: Any) -> str:
    """A digest of what the collection must mirror: every document's hash, the chunking, the BM25 average."""
    # The drift threshold too: rows left unrewritten under a looser one are not in sync under this one.
    h = hashlib.sha256(f"{index.model}\x00{index.chunk_max_chars}\x00{float(index.bm25.avgdl)!r}\x00{BM25_DRIFT!r}"
                       .encode())
    for doc in sorted(index.doc_hashes):
        h.update(f"\x00{doc}\x01{index.doc_hashes[doc]}".encode())
    return h.hexdigest()[:32]


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
        if not rows:
            return np.zeros((0, self.owner.dim), dtype=np.float32)
        # The rows a scope search just returned came with their vectors (another thread may clear the cache).
        found = [self.owner.vectors.get(r) for r in rows]
        keys = [self.owner.key(r) for r, v in zip(rows, found, strict=True) if v is None]
        got = self.owner.client.get(self.owner.collection, ids=keys, output_fields=["dense"]) if keys else []
        by_key = {item["key"]: item["dense"] for item in got}
        return np.asarray([by_key[self.owner.key(r)] if v is None else v for r, v in zip(rows, found, strict=True)],
                          dtype=np.float32)


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

    def scope_lists(self, queries: Sequence[tuple[str, str, Any]], rows: np.ndarray | None, k: int,
                    rrf_k: int = RRF_K) -> dict[str, list[tuple[int, float]]] | None:
        """Every (name, signal, query) list over `rows` from one server-side RRF call (milvus_hybrid.py);
        None when that cannot be exact and the retriever should ask list by list."""
        asked = [ListQuery(name, signal, self._vector(signal, query), None if signal == "dense" else query)
                 for name, signal, query in queries]
        found = scope_lists(self.store, asked, k, rows, rrf_k)
        if found is None:
            log.debug("milvus %s: this scope's lists are asked one by one", self.store.collection)
            return None
        return found.lists

    def _vector(self, signal: str, query: Any) -> Any:
        if signal == "dense":
            return _dense(query)
        return bm25_query(self.local, query) if signal == "bm25" else lexical_query(query)

    def search(self, tokens: Sequence[str], k: int, rows: np.ndarray | None = None) -> list[tuple[int, float]]:
        query = bm25_query(self.local, tokens)
        return self.store.ranked("bm25", query, k, rows, tokens) if query else []


class MilvusLexical(_Local):
    """bge-m3 lexical ranked lists from the `lexical` sparse field."""

    def search(self, query: Any, k: int, rows: np.ndarray | None = None) -> list[tuple[int, float]]:
        weights = lexical_query(query)
        return self.store.ranked("lexical", weights, k, rows, query) if weights else []


def attach(store: str, index: Any) -> None:
    """Move the index's ranked lists to Milvus (`QUEST_VECTOR_STORE`), keeping its local statistics."""
    milvus = MilvusStore.attach(store, index)
    index.dense = MilvusDense(milvus)
    index.bm25 = MilvusBM25(index.bm25, milvus)
    if index.lexical is not None:
        index.lexical = MilvusLexical(index.lexical, milvus)


def _dense(query: np.ndarray) -> list[float]:
    return np.asarray(query, dtype=np.float32).ravel().tolist()


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
