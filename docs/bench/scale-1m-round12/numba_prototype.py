"""A prototype outside the project: the whole-base sparse top-k as one compiled loop (numba), for the team's decision.

numba is not a dependency of Quest and this file is not imported by it. It is measured only by `replay.py`, run
with an interpreter that has numba (here a separate virtual environment over the system's packages):

    /tmp/nbvenv/bin/pip install numba
    PYTHONPATH=. flock /work/bench.lock /tmp/nbvenv/bin/python \
        docs/bench/scale-1m-round12/replay.py INDEX SHARE OUT.json

What it computes is the exhaustive scan, not a pruned search: every posting of every query term is added into a
per-position float32 accumulator, in query order with the same float32 operations as `SegmentedBM25.scores` and
`LexicalIndex.scores` (so the scores are bit-equal), and the top k are kept by one pass over the accumulator with a
k-entry heap ordered by (score descending, row ascending), the same order `top_k_among` gives.
"""

import numba
import numpy as np

HALF = np.arange(65536, dtype=np.uint16).view(np.float16).astype(np.float32)  # every float16 as float32, exactly


@numba.njit(cache=True)
def _bm25_add(acc, indptr, indices, data, norm, cols, coefs):
    for j in range(cols.size):
        col = cols[j]
        if col >= indptr.size - 1:
            continue
        c = coefs[j]
        for p in range(indptr[col], indptr[col + 1]):
            at = indices[p]
            tf = np.float32(data[p])
            acc[at] += tf * c / (tf + norm[at])


@numba.njit(cache=True)
def _lexical_add(acc, indptr, indices, bits, table, cols, weights):
    for j in range(cols.size):
        col = cols[j]
        if col >= indptr.size - 1:
            continue
        w = weights[j]
        for p in range(indptr[col], indptr[col + 1]):
            acc[indices[p]] += table[bits[p]] * w


@numba.njit(cache=True)
def _heap_push(vals, ids, size, v, r):
    # min-heap at the root: the worst kept entry (lowest score, then highest row)
    vals[size] = v
    ids[size] = r
    i = size
    while i > 0:
        parent = (i - 1) // 2
        if vals[i] < vals[parent] or (vals[i] == vals[parent] and ids[i] > ids[parent]):
            vals[i], vals[parent] = vals[parent], vals[i]
            ids[i], ids[parent] = ids[parent], ids[i]
            i = parent
        else:
            break


@numba.njit(cache=True)
def _heap_replace(vals, ids, size, v, r):
    vals[0] = v
    ids[0] = r
    i = 0
    while True:
        left, right, low = 2 * i + 1, 2 * i + 2, i
        if left < size and (vals[left] < vals[low] or (vals[left] == vals[low] and ids[left] > ids[low])):
            low = left
        if right < size and (vals[right] < vals[low] or (vals[right] == vals[low] and ids[right] > ids[low])):
            low = right
        if low == i:
            break
        vals[i], vals[low] = vals[low], vals[i]
        ids[i], ids[low] = ids[low], ids[i]
        i = low


@numba.njit(cache=True)
def _select(acc, order, identity, start, deleted, allowed, use_allowed, vals, ids, size):
    k = vals.size
    for p in range(acc.size):
        v = acc[p]
        if v <= 0:
            continue
        row = (p if identity else order[p]) + start
        if deleted[row] or (use_allowed and not allowed[row]):
            continue
        if size < k:
            _heap_push(vals, ids, size, v, row)
            size += 1
        elif v > vals[0] or (v == vals[0] and row < ids[0]):
            _heap_replace(vals, ids, size, v, row)
    return size


def _finish(vals, ids, size):
    order = np.lexsort((ids[:size], -vals[:size]))
    return [(int(ids[i]), float(vals[i])) for i in order]


def variants(index) -> dict:
    bm25, lexical = index.bm25, index.lexical
    no_order = np.zeros(1, dtype=np.int32)
    no_allowed = np.zeros(1, dtype=bool)

    def bm25_top(c):
        cols, coefs = bm25._query(c["query"])
        allowed = bm25._allowed.mask(c["rows"])
        vals, ids, size = np.empty(c["k"], np.float32), np.empty(c["k"], np.int64), 0
        if not cols:
            return []
        cols = np.asarray(cols, dtype=np.int64)
        coefs = np.asarray([np.float32(x * (bm25.k1 + 1)) for x in coefs], dtype=np.float32)
        for seg, start, norm in zip(bm25.segments, bm25.offsets[:-1].tolist(), bm25._norms_by_position, strict=True):
            acc = np.zeros(seg.rows, dtype=np.float32)
            pst = seg.postings
            _bm25_add(acc, np.asarray(pst.indptr), np.asarray(pst.indices), np.asarray(pst.data), norm, cols, coefs)
            order = seg.order.order
            size = _select(acc, no_order if order is None else order, order is None, start, bm25.deleted,
                           no_allowed if allowed is None else allowed, allowed is not None, vals, ids, size)
        return _finish(vals, ids, size)

    def lexical_top(c):
        allowed = lexical._allowed.mask(c["rows"])
        vals, ids, size = np.empty(c["k"], np.float32), np.empty(c["k"], np.int64), 0
        items = max(lexical.parts, key=lambda p: p.csc.shape[1])._items(c["query"])
        cols = np.asarray([col for col, _ in items], dtype=np.int64)
        weights = np.asarray([w for _, w in items], dtype=np.float32)
        for part, start in zip(lexical.parts, lexical.offsets[:-1].tolist(), strict=True):
            acc = np.zeros(part.size, dtype=np.float32)
            data = np.asarray(part.csc.data)
            if data.dtype != np.float16:
                raise TypeError("prototype reads float16 lexical weights only")
            _lexical_add(acc, np.asarray(part.csc.indptr), np.asarray(part.csc.indices), data.view(np.uint16), HALF,
                         cols, weights)
            order = part.order.order
            size = _select(acc, no_order if order is None else order, order is None, start, lexical.deleted,
                           no_allowed if allowed is None else allowed, allowed is not None, vals, ids, size)
        return _finish(vals, ids, size)

    return {"numba_scan": lambda c: bm25_top(c) if c["signal"] == "bm25" else lexical_top(c)}
