"""A large synthetic corpus in minutes: one real build of a tenth of it, copied ten times.

Generating and tokenizing a million synthetic chunks (jieba over every section) takes over
an hour on two busy cores, and measures the tokenizer rather than the index. So above
TILE_FROM chunks the benchmark generates and indexes `n / TILES` chunks for real (the same
generator, chunker and tokenizer as every other size) and copies that segment TILES times:
each copy's documents and chunks get their own ids (`<id>~<k>`), the chunk records are
re-encoded with those ids, the term frequencies are stacked, and the dense vectors (made
afterwards, per row, see vectors.py) are all different. What this keeps: chunk and record
sizes, the term distribution (every term's document frequency scales by TILES), rows per
problem, documents per problem. What it does not: vocabulary growth beyond the base (a real
corpus ten times larger has more distinct terms), and texts repeat every `n / TILES` rows, so
BM25 ties are more common. The report labels a tiled size as such.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import scipy.sparse as sp

from quest.bench.corpus import SyntheticKB
from quest.kb.documents import KnowledgeBase
from quest.retrieval.chunktable import ChunkTable, decode_record, encode_record
from quest.retrieval.index import Index
from quest.retrieval.layout import grouped_order
from quest.retrieval.segments import Segment

TILE_FROM = 200_000
TILES = 10


def copy_id(doc_id: str, k: int) -> str:
    return doc_id if k == 0 else f"{doc_id}~{k}"


def tile_kb(synthetic: SyntheticKB, times: int = TILES) -> SyntheticKB:
    docs = tuple(d if k == 0 else dataclasses.replace(d, id=copy_id(d.id, k), source=f"{d.source}~{k}")
                 for k in range(times) for d in synthetic.kb.documents)
    kb = KnowledgeBase(documents=docs, problems=synthetic.kb.problems, errors=synthetic.kb.errors)
    return SyntheticKB(kb=kb, n_chunks=synthetic.n_chunks * times, seed=synthetic.seed)


def _tiled_table(table: ChunkTable, times: int) -> ChunkTable:
    records = [bytes(table.records[int(table.offsets[0]):int(table.offsets[-1])])]
    for k in range(1, times):
        lines = []
        for row in range(len(table)):
            record = decode_record(table.record(row))
            record["doc_id"] = copy_id(record["doc_id"], k)
            record["id"] = f"{record['doc_id']}#{record['ordinal']}"
            lines.append(encode_record(record) + b"\n")
        records.append(b"".join(lines))
    offsets = _offsets(records)
    n_docs = len(table.docs)
    columns = {"offsets": offsets, "kind": np.tile(table.kind, times), "problem": np.tile(table.problem, times),
               "doc": np.concatenate([table.doc + np.int32(k * n_docs) for k in range(times)]).astype(np.int32),
               "ordinal": np.tile(table.ordinal, times)}
    docs = [copy_id(d, k) for k in range(times) for d in table.docs]
    return ChunkTable(b"".join(records), columns, {"kinds": table.kinds, "problems": table.problems, "docs": docs})


def _offsets(blobs: list[bytes]) -> np.ndarray:
    """Record offsets of the concatenated blobs (every record ends with a newline)."""
    ends = []
    base = 0
    for blob in blobs:
        arr = np.frombuffer(blob, dtype=np.uint8)
        ends.append(np.flatnonzero(arr == 0x0A) + 1 + base)
        base += len(blob)
    return np.concatenate([[0], *ends]).astype(np.int64)


def tile_index(index: Index, kb: KnowledgeBase, times: int = TILES) -> Index:
    """`index` (one BM25-only base segment over the base corpus) copied `times` times, matching `tile_kb`."""
    (seg,) = index.segments
    table = _tiled_table(seg.chunks, times)
    # Grouped by problem, as a full build of the tiled corpus would store it (quest/retrieval/layout.py).
    order = grouped_order(table.problem)
    tf = sp.vstack([seg.tf.tocsr()] * times, format="csr")[order]
    tiled = Segment(name=seg.name, chunks=table.take(order), tf=tf, terms=seg.terms,
                    doc_len=np.tile(np.asarray(seg.doc_len), times)[order])
    del table
    return Index(segments=[tiled], deleted=np.zeros(tiled.rows, dtype=bool), model=index.model,
                 doc_hashes={d.id: d.content_hash for d in kb.documents}, chunk_max_chars=index.chunk_max_chars,
                 dim=index.dim)
