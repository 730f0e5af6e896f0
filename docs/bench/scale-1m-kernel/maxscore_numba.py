"""A prototype outside the project: BM25's whole-base top-k by MaxScore as one compiled loop (numba), to answer
whether the compiled kernel should prune. Measured only by replay.py (the `kernel_maxscore` way); exact by the same
check (every list compared with the recorded one).

Document-at-a-time MaxScore over one segment's lists at a time, sharing the k-heap (and so the threshold) between
segments:

- terms sorted by their upper bound (ascending); the first `ne` of them are "non-essential": their bounds add up to
  less than the k-th score so far (theta), so a row in none of the other lists cannot reach the top k;
- the rows of the essential lists are visited in position order (a cursor per list); each one's bound (its
  essential weights + the non-essential bounds) is checked against theta, then the non-essential lists are searched
  for it (galloping forward: rows come in ascending order), dropping it once its bound falls below theta;
- a row that can still reach theta is scored exactly: its terms' float32 weights added in query order from 0, as the
  exhaustive scorer adds them, so the scores are bit-equal; then the heap (score descending, row ascending).

Bounds are compared with a relative slack (float32 weights round), as quest/retrieval/maxscore.py does.
"""

import numba
import numpy as np

from quest.retrieval.kernels import _fixed


@numba.njit(nogil=True, cache=True)
def _worse(v1, r1, v2, r2):
    return v1 < v2 or (v1 == v2 and r1 > r2)


@numba.njit(nogil=True, cache=True)
def _offer(vals, ids, size, v, r):
    k = vals.size
    if size < k:
        vals[size] = v
        ids[size] = r
        i = size
        while i > 0:
            parent = (i - 1) // 2
            if _worse(vals[i], ids[i], vals[parent], ids[parent]):
                vals[i], vals[parent] = vals[parent], vals[i]
                ids[i], ids[parent] = ids[parent], ids[i]
                i = parent
            else:
                break
        return size + 1
    if not _worse(vals[0], ids[0], v, r):
        return size
    vals[0] = v
    ids[0] = r
    i = 0
    while True:
        left, right, low = 2 * i + 1, 2 * i + 2, i
        if left < size and _worse(vals[left], ids[left], vals[low], ids[low]):
            low = left
        if right < size and _worse(vals[right], ids[right], vals[low], ids[low]):
            low = right
        if low == i:
            break
        vals[i], vals[low] = vals[low], vals[i]
        ids[i], ids[low] = ids[low], ids[i]
        i = low
    return size


@numba.njit(nogil=True, cache=True)
def _seek(indices, p, hi, d):
    """The first index in [p, hi) whose position is >= d (hi if none), galloping from p."""
    if p >= hi or indices[p] >= d:
        return p
    step = 1
    lo = p
    while lo + step < hi and indices[lo + step] < d:
        lo += step
        step *= 2
    top = min(lo + step, hi)
    lo += 1
    while lo < top:
        mid = (lo + top) >> 1
        if indices[mid] < d:
            lo = mid + 1
        else:
            top = mid
    return lo


@numba.njit(nogil=True, cache=True)
def bm25_segment(rows, indptr, indices, data, norm, cols, coefs, ubs, slack, order, identity, start, deleted, allowed,
                 use_allowed, vals, ids, size):
    m = cols.size
    width = indptr.size - 1
    lo = np.empty(m, dtype=np.int64)
    hi = np.empty(m, dtype=np.int64)
    for j in range(m):
        col = cols[j]
        if col < 0 or col >= width:
            lo[j] = 0
            hi[j] = 0
        else:
            lo[j] = indptr[col]
            hi[j] = indptr[col + 1]
    by_bound = np.argsort(ubs)  # ascending
    prefix = np.zeros(m + 1, dtype=np.float64)
    for i in range(m):
        prefix[i + 1] = prefix[i] + ubs[by_bound[i]]
    ne = 0
    theta = -1.0
    if size == vals.size:
        theta = np.float64(vals[0])
        while ne < m and prefix[ne + 1] < theta - slack:
            ne += 1
    weight = np.zeros(m, dtype=np.float32)
    present = np.zeros(m, dtype=np.bool_)
    while True:
        d = rows
        for i in range(ne, m):  # the next row of any essential list
            j = by_bound[i]
            if lo[j] < hi[j] and indices[lo[j]] < d:
                d = indices[lo[j]]
        if d >= rows:
            break
        if d < 0:
            return -1
        for j in range(m):
            present[j] = False
        bound = prefix[ne]
        for i in range(ne, m):
            j = by_bound[i]
            if lo[j] < hi[j] and indices[lo[j]] == d:
                tf = np.float32(data[lo[j]])
                weight[j] = tf * coefs[j] / (tf + norm[d])
                present[j] = True
                bound += weight[j]
                lo[j] += 1
        if bound < theta - slack:
            continue
        row = (d if identity else np.int64(order[d])) + start
        if deleted[row] or (use_allowed and not allowed[row]):
            continue
        for i in range(ne - 1, -1, -1):  # the non-essential lists, largest bound first
            j = by_bound[i]
            bound -= ubs[j]
            lo[j] = _seek(indices, lo[j], hi[j], d)
            if lo[j] < hi[j] and indices[lo[j]] == d:
                tf = np.float32(data[lo[j]])
                weight[j] = tf * coefs[j] / (tf + norm[d])
                present[j] = True
                bound += weight[j]
            if bound < theta - slack:
                break
        if bound < theta - slack:
            continue
        score = np.float32(0.0)
        for j in range(m):  # exactly as the exhaustive scorer: query order, float32, from zero
            if present[j]:
                score += weight[j]
        if not score > 0:
            continue
        size = _offer(vals, ids, size, score, row)
        if size == vals.size:
            theta = np.float64(vals[0])
            while ne < m and prefix[ne + 1] < theta - slack:
                ne += 1
    return size


def top(model, tokens, k, rows=None):
    """SegmentedBM25.search(tokens, k, rows) by the compiled MaxScore above."""
    cols, coefs = model._query(tokens)
    if not cols or k <= 0:
        return []
    scaled = np.asarray([np.float32(c * (model.k1 + 1)) for c in coefs], dtype=np.float32)
    cols_a = np.asarray(cols, dtype=np.int64)
    allowed = model._allowed.mask(rows)
    vals, ids, size = np.empty(k, dtype=np.float32), np.empty(k, dtype=np.int64), 0
    no_order, no_mask = _fixed(np.zeros(1, dtype=np.int32)), _fixed(np.zeros(1, dtype=bool))
    for seg, start, norm in zip(model.segments, model.offsets[:-1].tolist(), model._norms_by_position, strict=True):
        bound = model._bounder(seg)
        ubs = np.asarray([bound(c, coef) for c, coef in zip(cols, coefs, strict=True)], dtype=np.float64)
        slack = 1e-5 * (float(ubs.sum()) + 1e-30)
        order = seg.order.order
        size = bm25_segment(seg.rows, _fixed(seg.postings.indptr), _fixed(seg.postings.indices),
                            _fixed(seg.postings.data), _fixed(norm), cols_a, scaled, ubs, slack,
                            no_order if order is None else _fixed(order), order is None, int(start),
                            _fixed(model.deleted), no_mask if allowed is None else _fixed(allowed), allowed is not None,
                            vals, ids, size)
        if size < 0:
            raise IndexError("a posting list names a row outside its segment")
    found = np.lexsort((ids[:size], -vals[:size]))
    return [(int(ids[i]), float(vals[i])) for i in found]


def check(trials: int = 3000, seed: int = 0) -> int:
    """Random small bases (segments, scope orders, deleted rows, allowed sets, with and without stored bounds): the
    prototype's lists against `SegmentedBM25.search`; the number that differ (0 expected).

        PYTHONPATH=. /tmp/nbvenv/bin/python docs/bench/scale-1m-kernel/maxscore_numba.py
    """
    from quest.retrieval.segments import SegmentedBM25
    from tests.retrieval.test_maxscore import WORDS, build

    rng = np.random.default_rng(seed)
    differ = 0
    for _ in range(trials):
        n = int(rng.integers(1, 70))
        docs = [[WORDS[min(i, (i * i) % 40)] for i in rng.integers(0, 40, size=int(rng.integers(0, 25)))]
                for _ in range(n)]
        cuts = [int(c) for c in rng.integers(0, 70, size=int(rng.integers(0, 3)))]
        segments = build(docs, cuts, [int(x) for x in rng.integers(0, 10, size=2)], bool(rng.integers(0, 2)))
        deleted = np.zeros(n, dtype=bool)
        deleted[rng.integers(0, n, size=int(rng.integers(0, 5)))] = True
        model = SegmentedBM25(segments, deleted)
        query = [WORDS[i] for i in rng.integers(0, 40, size=int(rng.integers(0, 8)))]
        k = int(rng.integers(1, 10))
        rows = None if rng.integers(0, 2) else np.unique(rng.integers(0, n, size=max(1, n // 2))).astype(np.int64)
        differ += top(model, query, k, rows) != model.search(query, k, rows)
    return differ


if __name__ == "__main__":
    print(f"lists that differ from the exhaustive search: {check()} of 3000")
