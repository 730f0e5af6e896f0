"""Where one whole-base BM25 kernel call's time goes at 1M (round 15's recorded calls, calls.json, the general
documents' mask passed as the retriever passes it): the accumulator's allocation, the scoring loop, the heap merge.
PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round18/decompose.py /tmp/bm/1m"""
# ruff: noqa: E402
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "scale-1m-kernel"))
from common import accept_tokenizer_3

accept_tokenizer_3()
import numba
import numpy as np

from quest.retrieval import kernels
from quest.retrieval.chunktable import NO_PROBLEM
from quest.retrieval.index import load_index

lib = kernels._compiled()
jit = numba.njit(nogil=True, error_model="numpy")


@jit
def alloc(rows):
    acc = np.zeros(rows, dtype=np.float32)
    return acc[rows - 1]


@jit
def alloc_touch(rows, indices, lo, hi):
    acc = np.zeros(rows, dtype=np.float32)
    for p in range(lo, hi):
        acc[indices[p]] += 1
    return acc[rows - 1]


@jit
def score(rows, indptr, indices, data, norm, cols, coefs, acc):
    for j in range(cols.size):
        col = cols[j]
        c = coefs[j]
        for p in range(np.uint64(indptr[col]), np.uint64(indptr[col + 1])):
            at = np.uint64(indices[p])
            tf = np.float32(data[p])
            acc[at] += tf * c / (tf + norm[at])


idx = load_index(Path(sys.argv[1]))
bm = idx.bm25
seg = bm.segments[0]
f = kernels._fixed
indptr, indices, data, norm = f(seg.postings.indptr), f(seg.postings.indices), f(seg.postings.data), f(
    bm._norms_by_position[0])
where = kernels.Kernel._where(seg.order.order, 0, bm.deleted, None)
subset = np.zeros(bm.deleted.size, dtype=bool)
subset[idx.chunks.problem == NO_PROBLEM] = True
subset = f(subset)
RECORDED = (HERE.parent / "scale-1m-round15" / "calls.json").read_text(encoding="utf-8")
calls = [c for q in json.loads(RECORDED) for c in q][:400]
rows = seg.rows
res = {"alloc": [], "alloc_touch": [], "score": [], "select": [], "whole": [], "zero_np": []}
for rep in range(2):
    for cols, coefs, k, _ in calls:
        cols = np.asarray(cols, np.int64)
        scaled = np.asarray([np.float32(c * (bm.k1 + 1)) for c in coefs], np.float32)

        def heaps(k=k):
            return (np.empty(k, np.float32), np.empty(k, np.int64), 0, subset, True, np.empty(k, np.float32),
                    np.empty(k, np.int64), 0)
        t0 = time.perf_counter()
        alloc(rows)
        t1 = time.perf_counter()
        alloc_touch(rows, indices, indptr[cols[0]], indptr[cols[0] + 1])
        t2 = time.perf_counter()
        acc = np.zeros(rows, np.float32)
        acc[:] = 0
        t3 = time.perf_counter()
        score(rows, indptr, indices, data, norm, cols, scaled, acc)
        t4 = time.perf_counter()
        lib._select(acc, *where, *heaps())
        t5 = time.perf_counter()
        lib.bm25_segment(rows, indptr, indices, data, norm, cols, scaled, *where, *heaps())
        t6 = time.perf_counter()
        if rep:
            for key, v in zip(res, (t1 - t0, t2 - t1, t4 - t3, t5 - t4, t6 - t5, t3 - t2), strict=True):
                res[key].append(v * 1000)
print(json.dumps({k: round(float(np.median(v)), 3) for k, v in res.items()}))
