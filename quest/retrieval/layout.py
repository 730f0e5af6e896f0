"""Row layout: a base segment stores its rows grouped by problem.

A request searches one problem's rows (dense product, BM25 and lexical scored for those rows
alone) and the general documents'. When a problem's few thousand rows are scattered over a
million, its first query reads a page of the 2 GB vector file (and of the record blob) per
row; grouped, they are a few contiguous megabytes. So a full build and a compaction order the
rows by problem, the general documents (no problem) forming one group like any other.

The order is stable: groups come in the order of their first row, and rows keep their
relative order inside a group. A document's rows stay adjacent (they share its problem), and
a base that is already grouped (a knowledge base read folder by folder) keeps its layout row
for row. Deltas stay append-only: an update never moves rows; compaction regroups them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from quest.kb.documents import Chunk


def grouped_order(codes: np.ndarray) -> np.ndarray:
    """The stable permutation putting equal `codes` together, groups in the order of their first row."""
    codes = np.asarray(codes)
    if codes.size == 0:
        return np.zeros(0, dtype=np.int64)
    _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    rank = np.argsort(np.argsort(first, kind="stable"), kind="stable")  # a group's place = its first row's
    return np.argsort(rank[inverse.reshape(-1)], kind="stable").astype(np.int64)


def is_identity(order: np.ndarray) -> bool:
    return bool(np.array_equal(order, np.arange(order.size)))


def grouped_chunks(chunks: Sequence[Chunk]) -> list[Chunk]:
    """`chunks` grouped by problem (see `grouped_order`); the same list when already grouped."""
    ids: dict[str | None, int] = {}
    codes = np.fromiter((ids.setdefault(c.problem_id, len(ids)) for c in chunks), dtype=np.int64, count=len(chunks))
    order = grouped_order(codes)
    return list(chunks) if is_identity(order) else [chunks[i] for i in order.tolist()]
