"""The compiled loops behind quest.retrieval.kernels (numba; imported only by kernels.py, only when numba is there).

One call scores one segment's rows exhaustively and merges them into a k-entry heap shared by the segments of one
search, and, when asked, the rows of a subset (the general documents) into a second heap: that subset's own top k
from the same scores. Every number is computed with the float32 operations, in the order, that the numpy path uses
(SegmentedBM25.scores, LexicalIndex.scores), so the scores are bit-equal; the heap keeps the k best by (score
descending, row ascending), the order `sparse.top_k_among` gives. No function here holds the GIL (`nogil`), so the
searches of one question can run side by side (QUEST_SEARCH_THREADS).

Positions are checked against the segment's size inside the loop, and a column's offsets against its lists, once
(numba does not check indexing): a damaged posting list makes the call return BAD_ROW, and the caller raises the same
error as the numpy path, instead of reading or writing outside the arrays. The loops index with unsigned positions
and run under numpy's error model, so no per-posting test numba would add (Python's negative-index wrap-around, a
zero divisor) is left in them (docs/bench/scale-1m-round17).
"""

from __future__ import annotations

import logging

import numba
import numpy as np

log = logging.getLogger(__name__)

BAD_ROW = -1


UNCACHED: list[str] = []  # the functions numba could not cache (no writable cache folder), in definition order

# numpy's error model: a float division by zero gives inf or NaN, as the numpy path's division does, where numba's
# default (Python's) tests every divisor and raises. That test sat in the BM25 loop once per posting.
_ERRORS = {"error_model": "numpy"}


def _jit(fn, **options):
    """nogil and, where numba can write its cache (NUMBA_CACHE_DIR, next to this file, or the user's cache folder),
    cache=True: a restart then loads the machine code instead of compiling it again. With no writable folder (a
    read-only install run by a user without a writable home) they are compiled on each start: one INFO line says so,
    not one per function."""
    try:
        return numba.njit(nogil=True, cache=True, **_ERRORS, **options)(fn)
    except RuntimeError as exc:  # "no locator available": no writable cache folder anywhere
        if not UNCACHED:
            log.info("numba cannot cache the sparse kernels (%s); they are compiled on every start "
                     "(NUMBA_CACHE_DIR names a writable folder for the cache)", exc)
        UNCACHED.append(fn.__name__)
        return numba.njit(nogil=True, **_ERRORS, **options)(fn)


# The 8-bit scan (dense.CompactRun) sums in any order: fastmath lets LLVM keep several SIMD accumulators. Its error
# bound holds for every order (dense.CompactRun.bound), so no bit-exactness is asked of it.
_FAST = {"reassoc", "contract"}


def _jit_fast(fn):
    return _jit(fn, fastmath=_FAST)


@_jit_fast
def compact_scores(codes, lo, hi, weights, out):
    """out[i] = sum_d weights[d] * codes[lo + i, d] in float32 for rows lo..hi-1 of the (rows, dim) uint8 codes."""
    dim = codes.shape[1]
    for i in range(hi - lo):
        acc = np.float32(0.0)
        for d in range(dim):
            acc += weights[d] * np.float32(codes[lo + i, d])
        out[i] = acc


@_jit
def half_rows(bits, rows, table, out):
    """out[i] = the float32 bits of float16 row rows[i] of `bits` (the rows' uint16 view), by `table` (every float16
    bit pattern's float32 bits, as numpy's cast gives them): exact, as any cast of a float16 is. BAD_ROW, with
    nothing read, when a row is outside `bits` (a negative one included)."""
    n = np.uint64(bits.shape[0])
    for i in range(rows.size):
        if np.uint64(rows[i]) >= n:
            return BAD_ROW
    dim = bits.shape[1]
    for i in range(rows.size):
        r = rows[i]
        for d in range(dim):
            out[i, d] = table[bits[r, d]]
    return 0


@_jit
def _worse(v1, r1, v2, r2):
    """Whether (v1, r1) ranks after (v2, r2): a lower score, or the same score and a higher row."""
    return v1 < v2 or (v1 == v2 and r1 > r2)


@_jit
def _push(vals, ids, size, v, r):
    """Add (v, r) to the heap of `size` entries whose root is the worst kept entry."""
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


@_jit
def _replace_root(vals, ids, size, v, r):
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


# The least positive float32 (a subnormal): v >= TINY exactly when v > 0.
TINY = np.nextafter(np.float32(0), np.float32(1))


@_jit
def _gate(vals, size, use_subset, sub_vals, sub_size):
    """The least score either heap can still take: TINY (any positive score) until both are full."""
    k = vals.size
    if k == 0 or size < k or (use_subset and sub_size < k):
        return TINY
    return vals[0] if not use_subset else min(vals[0], sub_vals[0])


# Positions are looked at in blocks of BLOCK: a block none of whose scores reaches its gate is passed over by one
# vectorized count (docs/bench/scale-1m-round18).
BLOCK = 128


@_jit
def subset_blocks(order, identity, start, rows, subset):
    """Per block of BLOCK positions of a segment of `rows` rows, whether any of its rows is in `subset` (a mask over
    all rows). Made once per segment and subset (kernels.Kernel keeps it): a block with none of them can only enter
    the main heap, so its gate is that heap's root alone."""
    out = np.zeros((rows + BLOCK - 1) // BLOCK, dtype=np.bool_)
    for p in range(rows):
        row = (p if identity else np.int64(order[p])) + start
        if subset[row]:
            out[p // BLOCK] = True
    return out


@_jit
def _passing(acc, lo, hi, gate):
    """How many of acc[lo:hi] reach the gate: a count LLVM vectorizes (no branch per position; unsigned positions
    and an int32 count, without which it did not: 0.41 against 0.06 ms over 1M positions)."""
    n = np.int32(0)
    for p in range(lo, hi):
        n += np.int32(acc[p] >= gate)
    return n


@_jit
def _take(v, p, order, identity, start, deleted, allowed, use_allowed, vals, ids, size, subset, use_subset, sub_vals,
          sub_ids, sub_size):
    """Offer position p's score v to the heap (and to the subset's heap when its row is in `subset`)."""
    if not v > 0:  # the top-k keeps positive scores only; never true here unless subnormals are read as 0 (DAZ)
        return size, sub_size
    k = vals.size
    row = (p if identity else np.int64(order[p])) + start
    if deleted[row] or (use_allowed and not allowed[row]):
        return size, sub_size
    if size < k:
        _push(vals, ids, size, v, row)
        size += 1
    elif _worse(vals[0], ids[0], v, row):
        _replace_root(vals, ids, size, v, row)
    if use_subset and subset[row]:
        if sub_size < k:
            _push(sub_vals, sub_ids, sub_size, v, row)
            sub_size += 1
        elif _worse(sub_vals[0], sub_ids[0], v, row):
            _replace_root(sub_vals, sub_ids, sub_size, v, row)
    return size, sub_size


@_jit
def _select(acc, order, identity, start, deleted, allowed, use_allowed, vals, ids, size, subset, use_subset, blocks,
            sub_vals, sub_ids, sub_size):
    """Merge one segment's scores (by position) into the heap, and the rows of `subset` (with `use_subset`) into a
    second heap as well: the same scores' top k among those rows. The two heaps' new sizes. `blocks`
    (`subset_blocks`, with `use_subset`): which blocks of positions hold a row of `subset`.

    A position is looked at only if its score reaches the gate: the least score a heap it could enter can still take
    (any positive score while that heap is not full; else its root, ties included, as a tie can enter on its row).
    In a block holding a row of `subset` that is the lower of the two heaps' gates, elsewhere the main heap's. A
    position below its gate would be refused by every heap it could enter, so the heaps end exactly as if every
    position were offered. Why: half the positions at 1M score 0, so a first test `v > 0` was mispredicted about
    every other position (docs/bench/scale-1m-round17); and once the subset's heap is full, its root (the general
    documents' k-th score) is far below the main heap's, so a single gate let most positive positions through to
    the row lookups (docs/bench/scale-1m-round18).

    The gate is tested a block at a time (`_passing`): the gates only move when a position passes, so a block with
    no passing position is one the position-by-position loop would pass over entirely."""
    main = _gate(vals, size, False, sub_vals, sub_size)  # heaps filled by an earlier segment gate it at once
    both = _gate(vals, size, use_subset, sub_vals, sub_size)
    total, block = np.uint64(acc.size), np.uint64(BLOCK)
    for lo in range(np.uint64(0), total, block):
        hi = min(lo + block, total)
        mixed = use_subset and blocks[lo // block]
        gate = both if mixed else main
        if _passing(acc, lo, hi, gate) == 0:
            continue
        for p in range(lo, hi):
            v = acc[p]
            if not v >= gate:  # (a NaN fails it: every comparison with a NaN is False)
                continue
            size, sub_size = _take(v, np.int64(p), order, identity, start, deleted, allowed, use_allowed, vals, ids,
                                   size, subset, use_subset, sub_vals, sub_ids, sub_size)
            main = _gate(vals, size, False, sub_vals, sub_size)
            both = _gate(vals, size, use_subset, sub_vals, sub_size)
            gate = both if mixed else main
    return size, sub_size


@_jit
def _span(indptr, col, total):
    """Column `col`'s postings as unsigned positions lo..hi; hi < lo (1, 0) when its offsets are outside the lists
    (a damaged index). Unsigned positions are why: numba indexes with a signed one through a test for a negative
    index (Python's wrap-around) at every posting, which made the BM25 loop ~2x slower (docs/bench/scale-1m-round17)."""
    lo, hi = indptr[col], indptr[col + 1]
    if lo < 0 or hi < lo or np.uint64(hi) > total:
        return np.uint64(1), np.uint64(0)
    return np.uint64(lo), np.uint64(hi)


@_jit
def bm25_segment(rows, indptr, indices, data, norm, cols, coefs, order, identity, start, deleted, allowed,
                 use_allowed, vals, ids, size, subset, use_subset, blocks, sub_vals, sub_ids, sub_size):
    """One segment's BM25 scores: for each query column in query order, every posting's
    tf * coef / (tf + norm) (float32, as SegmentedBM25._weights) added at its position; then the heap merge."""
    acc = np.zeros(rows, dtype=np.float32)
    width = indptr.size - 1
    total, limit = np.uint64(indices.size), np.uint64(rows)
    for j in range(cols.size):
        col = cols[j]
        if col < 0 or col >= width:
            continue
        c = coefs[j]
        lo, hi = _span(indptr, col, total)
        if hi < lo:
            return BAD_ROW, sub_size
        for p in range(lo, hi):
            at = np.uint64(indices[p])  # a negative position becomes a huge one: one test catches both
            if at >= limit:
                return BAD_ROW, sub_size
            tf = np.float32(data[p])
            acc[at] += tf * c / (tf + norm[at])
    return _select(acc, order, identity, start, deleted, allowed, use_allowed, vals, ids, size, subset, use_subset,
                   blocks, sub_vals, sub_ids, sub_size)


@_jit
def lexical_segment(rows, indptr, indices, bits, table, cols, weights, order, identity, start, deleted, allowed,
                    use_allowed, vals, ids, size, subset, use_subset, blocks, sub_vals, sub_ids, sub_size):
    """One segment's lexical scores from float16 weights (their bits, through `table`: every float16 as float32,
    exactly, as numpy's upcast gives), each times the query weight in float32, added in query order."""
    acc = np.zeros(rows, dtype=np.float32)
    width = indptr.size - 1
    total, limit = np.uint64(indices.size), np.uint64(rows)
    for j in range(cols.size):
        col = cols[j]
        if col < 0 or col >= width:
            continue
        w = weights[j]
        lo, hi = _span(indptr, col, total)
        if hi < lo:
            return BAD_ROW, sub_size
        for p in range(lo, hi):
            at = np.uint64(indices[p])
            if at >= limit:
                return BAD_ROW, sub_size
            acc[at] += table[bits[p]] * w
    return _select(acc, order, identity, start, deleted, allowed, use_allowed, vals, ids, size, subset, use_subset,
                   blocks, sub_vals, sub_ids, sub_size)


@_jit
def lexical_segment_f32(rows, indptr, indices, data, cols, weights, order, identity, start, deleted, allowed,
                        use_allowed, vals, ids, size, subset, use_subset, blocks, sub_vals, sub_ids, sub_size):
    """`lexical_segment` for weights kept as float32 (an index whose weights did not fit float16)."""
    acc = np.zeros(rows, dtype=np.float32)
    width = indptr.size - 1
    total, limit = np.uint64(indices.size), np.uint64(rows)
    for j in range(cols.size):
        col = cols[j]
        if col < 0 or col >= width:
            continue
        w = weights[j]
        lo, hi = _span(indptr, col, total)
        if hi < lo:
            return BAD_ROW, sub_size
        for p in range(lo, hi):
            at = np.uint64(indices[p])
            if at >= limit:
                return BAD_ROW, sub_size
            acc[at] += np.float32(data[p]) * w
    return _select(acc, order, identity, start, deleted, allowed, use_allowed, vals, ids, size, subset, use_subset,
                   blocks, sub_vals, sub_ids, sub_size)


@_jit
def _lower(indices, lo, hi, key):
    """The first p in lo..hi-1 with indices[p] >= key, else hi: a binary search of the ascending postings lo..hi-1."""
    while lo < hi:
        mid = (lo + hi) >> np.uint64(1)
        if np.int64(indices[mid]) < key:
            lo = mid + np.uint64(1)
        else:
            hi = mid
    return lo


# A scope's sums (scopes.scope_sums) in one call: per query column in query order, the column's postings inside each run
# of the scope's positions (two binary searches a run), each weighed as the numpy path weighs it and added at its index
# into the scope (its position minus its run's shift). A posting outside the segment or the scope (a damaged list):
# BAD_ROW, nothing read or written outside the arrays.


@_jit
def bm25_scope(indptr, indices, data, norm, cols, coefs, starts, ends, shifts, out, by_column):
    """out[i, 0] += tf * coef / (tf + norm[position]) (float32, as SegmentedBM25._weights) for the scope's postings;
    with `by_column`, out[i, j] += that weight for column j instead: each column's weights alone (0 + w is w)."""
    width = indptr.size - 1
    total, limit, size = np.uint64(indices.size), np.uint64(norm.size), np.uint64(out.shape[0])
    for j in range(cols.size):
        col = cols[j]
        if col < 0 or col >= width:
            continue
        c = coefs[j]
        at_column = j if by_column else 0
        lo, hi = _span(indptr, col, total)
        if hi < lo:
            return BAD_ROW
        for r in range(starts.size):
            x = _lower(indices, lo, hi, starts[r])
            y = _lower(indices, x, hi, ends[r])
            for p in range(x, y):
                at = np.uint64(indices[p])
                i = np.uint64(np.int64(indices[p]) - shifts[r])  # a negative index becomes a huge one
                if at >= limit or i >= size:
                    return BAD_ROW
                tf = np.float32(data[p])
                out[i, at_column] += tf * c / (tf + norm[at])
            lo = y
    return 0


@_jit
def lexical_scope(indptr, indices, bits, table, data, half, cols, weights, starts, ends, shifts, acc):
    """acc[i] += stored weight (float32) * query weight for the scope's postings: with `half`, float16 weights by their
    bits through `table` (`data` unused), else float32 ones in `data` (`bits` unused)."""
    width = indptr.size - 1
    total, size = np.uint64(indices.size), np.uint64(acc.size)
    for j in range(cols.size):
        col = cols[j]
        if col < 0 or col >= width:
            continue
        w = weights[j]
        lo, hi = _span(indptr, col, total)
        if hi < lo:
            return BAD_ROW
        for r in range(starts.size):
            x = _lower(indices, lo, hi, starts[r])
            y = _lower(indices, x, hi, ends[r])
            for p in range(x, y):
                i = np.uint64(np.int64(indices[p]) - shifts[r])
                if i >= size:
                    return BAD_ROW
                acc[i] += (table[bits[p]] if half else data[p]) * w
            lo = y
    return 0


# Callees before callers: a caller compiled again binds the callees' new dispatchers (looked up in this module).
KERNELS = ("half_rows", "_worse", "_push", "_replace_root", "_gate", "subset_blocks", "_passing", "_take", "_select",
           "_span", "bm25_segment", "lexical_segment", "lexical_segment_f32", "_lower", "bm25_scope",
           "lexical_scope")
FAST_KERNELS = ("compact_scores",)


def cache_fault(exc: BaseException) -> bool:
    """Whether `exc`, raised by a first call, came from reading numba's cache rather than from compiling: numba's
    own errors are compile errors; anything else on a first call (an unpickling error, EOFError, OSError) is the
    cache's files."""
    return not isinstance(exc, numba.core.errors.NumbaError)


def without_cache() -> None:
    """Replace every function by one compiled in memory only, for a cache whose files cannot be read."""
    for name in KERNELS:
        globals()[name] = numba.njit(nogil=True, **_ERRORS)(globals()[name].py_func)
    for name in FAST_KERNELS:
        globals()[name] = numba.njit(nogil=True, fastmath=_FAST, **_ERRORS)(globals()[name].py_func)
