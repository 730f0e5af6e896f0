"""Is the BM25 scoring loop waiting on its division? Replays the whole-base BM25 kernel calls of the no-problem
questions (scoring only, not the merge): main's loop, which divides once per posting in the scalar loop that also
adds into the accumulator (the add cannot be vectorized: it scatters), against a loop that computes a run of
RUN postings' weights first (a loop with no scatter, which LLVM can vectorize: a gather of the rows' norms, one
vector division for 8 postings) and then adds them. The weights are the same float32 operations in the same order,
so the accumulators must be bit-equal.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round20/divide.py INDEX CHUNKS SHARE OUT.json \
        [RUN ...]
"""
# ruff: noqa: E402
import json
import os
import sys
import time
from pathlib import Path

import numba
import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "scale-1m-round19"))
from paired import setup, timed

from quest.bench.corpus import NO_PROBLEM
from quest.retrieval import kernels
from quest.retrieval.retriever import Retriever
from quest.settings import Settings

OPT = {"nogil": True, "error_model": "numpy"}


@numba.njit(**OPT)
def plain(rows, indptr, indices, data, norm, cols, coefs):
    acc = np.zeros(rows, dtype=np.float32)
    for j in range(cols.size):
        c = coefs[j]
        lo, hi = np.uint64(indptr[cols[j]]), np.uint64(indptr[cols[j] + 1])
        for p in range(lo, hi):
            at = np.uint64(indices[p])
            tf = np.float32(data[p])
            acc[at] += tf * c / (tf + norm[at])
    return acc


@numba.njit(**OPT)
def _weights(indices, data, norm, c, lo, n, w):
    for i in range(n):
        tf = np.float32(data[lo + i])
        w[i] = tf * c / (tf + norm[np.uint64(indices[lo + i])])


@numba.njit(**OPT)
def runs(rows, indptr, indices, data, norm, cols, coefs, run):
    acc = np.zeros(rows, dtype=np.float32)
    w = np.empty(run, dtype=np.float32)
    for j in range(cols.size):
        c = coefs[j]
        lo, hi = np.uint64(indptr[cols[j]]), np.uint64(indptr[cols[j] + 1])
        p = lo
        while p < hi:
            n = min(np.uint64(run), hi - p)
            for i in range(n):  # the rows' norms, gathered
                w[i] = norm[np.uint64(indices[p + i])]
            for i in range(n):  # contiguous, no scatter: LLVM vectorizes it (one vector division for 8 postings)
                tf = np.float32(data[p + i])
                w[i] = tf * c / (tf + w[i])
            for i in range(n):
                acc[np.uint64(indices[p + i])] += w[i]
            p += n
    return acc


def main(folder, chunks, share, out, sizes):
    index, kb, embedder, queries, kinds = setup(folder, chunks, share)
    chosen = [q for q, kind in zip(queries, kinds, strict=True) if kind == NO_PROBLEM]
    r = Retriever(Settings(show_progress=False, search_threads=1), index, kb, embedder)
    calls = []
    orig = kernels.Kernel.bm25

    def rec(self, parts, cols, coefs, *a, **kw):
        calls.append((parts, np.asarray(cols, dtype=np.int64), np.asarray(coefs, dtype=np.float32)))
        return orig(self, parts, cols, coefs, *a, **kw)

    kernels.Kernel.bm25 = rec
    for q in chosen:
        timed(r, q)
    kernels.Kernel.bm25 = orig

    def go(parts, cols, w, v):
        rows, indptr, indices, data, norm, _, _ = parts[0]
        norm = np.asarray(norm, dtype=np.float32)
        if v is None:
            return plain(rows, indptr, indices, data, norm, cols, w)
        return runs(rows, indptr, indices, data, norm, cols, w, v)

    variants = [None, *sizes]
    for v in variants:
        go(*calls[0], v)
    asm = next(iter(runs.inspect_asm().values()))
    load = [os.getloadavg()]
    res = []
    for i, (parts, cols, w) in enumerate(calls):
        indptr = parts[0][1]
        post = int(sum(indptr[c + 1] - indptr[c] for c in cols.tolist()))
        row = {"postings": post}
        accs = {}
        for v in variants[i % len(variants):] + variants[:i % len(variants)]:
            t = time.perf_counter()
            accs[v] = go(parts, cols, w, v)
            row[str(v)] = (time.perf_counter() - t) * 1000
        for v in sizes:
            row[f"same_{v}"] = bool(np.array_equal(accs[v].view(np.uint32), accs[None].view(np.uint32)))
        res.append(row)
    load.append(os.getloadavg())
    s = {"load": load, "calls": len(res), "postings_p50": float(np.median([x["postings"] for x in res])),
         "vdivps_in_runs": "vdivps" in asm, "vgatherdps_or_qps": ("vgatherdps" in asm) or ("vgatherqps" in asm)}
    for v in variants:
        s[f"ms_{v}_p50_p95_sum"] = [round(float(np.percentile([x[str(v)] for x in res], q)), 3) for q in (50, 95)] + [
            round(sum(x[str(v)] for x in res), 1)]
        s[f"ns_per_posting_{v}"] = round(float(np.median([x[str(v)] * 1e6 / x["postings"] for x in res
                                                           if x["postings"]])), 3)
        if v is not None:
            s[f"ratio_{v}_median"] = round(float(np.median([x[str(v)] / x["None"] for x in res])), 3)
            s[f"identical_{v}"] = sum(x[f"same_{v}"] for x in res)
    Path(out).write_text(json.dumps({"summary": s, "calls": res}), encoding="utf-8")
    print(json.dumps(s, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], [int(a) for a in sys.argv[5:]] or [256])
