"""Prototype loops for this round's replay (not library code)."""
import importlib.util
import subprocess
import tempfile
from pathlib import Path

import numba
import numpy as np

from quest.retrieval._sparse_numba import _push, _replace_root, _worse

BAD_ROW = -1
jit = numba.njit(nogil=True)


@jit
def accumulate(rows, indptr, indices, data, norm, cols, coefs):
    acc = np.zeros(rows, dtype=np.float32)
    width = indptr.size - 1
    for j in range(cols.size):
        col = cols[j]
        if col < 0 or col >= width:
            continue
        c = coefs[j]
        for p in range(indptr[col], indptr[col + 1]):
            at = indices[p]
            if at < 0 or at >= rows:
                return acc
            tf = np.float32(data[p])
            acc[at] += tf * c / (tf + norm[at])
    return acc


@jit
def accumulate2(rows, indptr, indices, data, norm, cols, coefs, buf):
    """Two phases per column: weights into buf (vectorizable gather + divide), then the scatter-add."""
    acc = np.zeros(rows, dtype=np.float32)
    width = indptr.size - 1
    nb = buf.size
    for j in range(cols.size):
        col = cols[j]
        if col < 0 or col >= width:
            continue
        c = coefs[j]
        lo, hi = indptr[col], indptr[col + 1]
        bad = False
        for p in range(lo, hi):
            at = indices[p]
            bad |= (at < 0) | (at >= rows)
        if bad:
            return acc
        s = lo
        while s < hi:
            e = min(hi, s + nb)
            n = e - s
            for i in range(n):
                tf = np.float32(data[s + i])
                buf[i] = tf * c / (tf + norm[indices[s + i]])
            for i in range(n):
                acc[indices[s + i]] += buf[i]
            s = e
    return acc


@jit
def select_fast(acc, order, identity, start, deleted, allowed, use_allowed, vals, ids, size, subset, use_subset,
                sub_vals, sub_ids, sub_size):
    """_select, skipping a position at once when its score is below both full heaps' roots."""
    k = vals.size
    for p in range(acc.size):
        v = acc[p]
        if not v > 0:
            continue
        if size == k and v < vals[0] and (not use_subset or (sub_size == k and v < sub_vals[0])):
            continue
        row = (p if identity else np.int64(order[p])) + start
        if deleted[row] or (use_allowed and not allowed[row]):
            continue
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


TINY = np.float32(np.nextafter(np.float32(0), np.float32(1)))  # the least positive float32: v >= TINY iff v > 0


@jit
def select_gate(acc, order, identity, start, deleted, allowed, use_allowed, vals, ids, size, subset, use_subset,
                sub_vals, sub_ids, sub_size):
    """_select with one predictable test per position: v >= gate, the least score either heap could still take."""
    k = vals.size
    gate = TINY
    for p in range(acc.size):
        v = acc[p]
        if not v >= gate:  # also NaN
            continue
        row = (p if identity else np.int64(order[p])) + start
        if deleted[row] or (use_allowed and not allowed[row]):
            continue
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
        if size == k and (not use_subset or sub_size == k):
            gate = vals[0] if not use_subset else min(vals[0], sub_vals[0])
    return size, sub_size


def main_module(rev: str = "3abd4b9"):
    """The compiled loops at `rev` as a module of their own (its own dispatchers, so both can run in one process)."""
    text = subprocess.run(["git", "show", f"{rev}:quest/retrieval/_sparse_numba.py"], check=True,
                          capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "main_sparse_numba.py"
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("main_sparse_numba", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@jit
def acc_nodiv(rows, indptr, indices, data, norm, cols, coefs):
    """Measurement only (not exact): the loop with a multiply for the divide."""
    acc = np.zeros(rows, dtype=np.float32)
    width = indptr.size - 1
    for j in range(cols.size):
        col = cols[j]
        if col < 0 or col >= width:
            continue
        c = coefs[j]
        for p in range(indptr[col], indptr[col + 1]):
            at = indices[p]
            if at < 0 or at >= rows:
                return acc
            tf = np.float32(data[p])
            acc[at] += tf * c * (tf + norm[at])
    return acc


@jit
def acc_nonorm(rows, indptr, indices, data, norm, cols, coefs):
    """Measurement only (not exact): no per-row length read."""
    acc = np.zeros(rows, dtype=np.float32)
    width = indptr.size - 1
    for j in range(cols.size):
        col = cols[j]
        if col < 0 or col >= width:
            continue
        c = coefs[j]
        for p in range(indptr[col], indptr[col + 1]):
            at = indices[p]
            if at < 0 or at >= rows:
                return acc
            tf = np.float32(data[p])
            acc[at] += tf * c / (tf + c)
    return acc


@jit
def acc_noacc(rows, indptr, indices, data, norm, cols, coefs):
    """Measurement only: the weights summed into one number, no scatter."""
    acc = np.zeros(rows, dtype=np.float32)
    width = indptr.size - 1
    s = np.float32(0)
    for j in range(cols.size):
        col = cols[j]
        if col < 0 or col >= width:
            continue
        c = coefs[j]
        for p in range(indptr[col], indptr[col + 1]):
            at = indices[p]
            if at < 0 or at >= rows:
                return acc
            tf = np.float32(data[p])
            s += tf * c / (tf + norm[at])
    acc[0] = s
    return acc


jitn = numba.njit(nogil=True, error_model="numpy")


@jitn
def acc_v2(rows, indptr, indices, data, norm, cols, coefs):
    """The library's loop, with numpy's error model (a division by zero gives inf or NaN, as numpy does, instead of
    numba's check-and-raise per posting) and the list's range checked once, so p is known non-negative."""
    acc = np.zeros(rows, dtype=np.float32)
    width = indptr.size - 1
    total = indices.size
    for j in range(cols.size):
        col = cols[j]
        if col < 0 or col >= width:
            continue
        c = coefs[j]
        lo, hi = indptr[col], indptr[col + 1]
        if lo < 0 or hi > total:
            return acc
        for p in range(lo, hi):
            at = indices[p]
            if at < 0 or at >= rows:
                return acc
            tf = np.float32(data[p])
            acc[at] += tf * c / (tf + norm[at])
    return acc


@jitn
def acc_v3(rows, indptr, indices, data, norm, cols, coefs):
    """acc_v2 with unsigned positions (no negative-index wraparound code at all)."""
    acc = np.zeros(rows, dtype=np.float32)
    width = indptr.size - 1
    total = indices.size
    urows = np.uint64(rows)
    for j in range(cols.size):
        col = cols[j]
        if col < 0 or col >= width:
            continue
        c = coefs[j]
        lo, hi = indptr[col], indptr[col + 1]
        if lo < 0 or hi > total or lo >= hi:
            continue
        for p in range(np.uint64(lo), np.uint64(hi)):
            at = np.uint64(indices[p])  # a negative position becomes huge: one test
            if at >= urows:
                return acc
            tf = np.float32(data[p])
            acc[at] += tf * c / (tf + norm[at])
    return acc


@jitn
def acc_v4(rows, indptr, indices, data, norm, cols, coefs, buf):
    """acc_v3 in two steps per 1,024 postings: the weights into `buf` (a loop LLVM may vectorize: gathers of the
    lengths and a packed divide), then the scatter-add in list order. The same float32 operations per posting."""
    acc = np.zeros(rows, dtype=np.float32)
    width = indptr.size - 1
    total = indices.size
    urows = np.uint64(rows)
    nb = np.uint64(buf.size)
    for j in range(cols.size):
        col = cols[j]
        if col < 0 or col >= width:
            continue
        c = coefs[j]
        lo, hi = indptr[col], indptr[col + 1]
        if lo < 0 or hi > total or lo >= hi:
            continue
        s = np.uint64(lo)
        end = np.uint64(hi)
        while s < end:
            n = min(end - s, nb)
            for i in range(n):
                at = np.uint64(indices[s + i])
                if at >= urows:
                    return acc
            for i in range(n):
                tf = np.float32(data[s + i])
                buf[i] = tf * c / (tf + norm[np.uint64(indices[s + i])])
            for i in range(n):
                acc[np.uint64(indices[s + i])] += buf[i]
            s += n
    return acc
