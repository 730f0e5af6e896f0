"""The whole-base lexical kernel calls of the no-problem questions at 1M (recorded from the retriever, the general
documents' mask passed as it passes it), replayed through main's loops and this branch's, paired per call: the
whole call (the lower of two runs each), the heap merge alone (`_select` on the call's own scores) and the scoring
alone, and whether both heaps are identical.
    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round18/lexical_replay.py /tmp/bm/1m 1000000 0.6 \
        OUT.json"""
# ruff: noqa: E402
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import numba
import numpy as np
from paired import setup, timed
from variants import _LOOPS

from quest.bench.corpus import NO_PROBLEM
from quest.retrieval import kernels
from quest.retrieval.retriever import Retriever
from quest.settings import Settings

index, kb, embedder, queries, kinds = setup(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]))
chosen = [q for q, kind in zip(queries, kinds, strict=True) if kind == NO_PROBLEM]
r = Retriever(Settings(show_progress=False), index, kb, embedder)
recorded = []
orig = kernels.Kernel.lexical


def record(self, parts, cols, weights, k, deleted, allowed, subset=None):
    recorded.append((parts, np.asarray(cols, np.int64), np.asarray(weights, np.float32), k, deleted, allowed, subset))
    return orig(self, parts, cols, weights, k, deleted, allowed, subset)


@numba.njit(nogil=True, error_model="numpy")
def score_only(rows, indptr, indices, bits, table, cols, weights):
    """The library loop's scoring alone (without the merge), for the split of a call's time."""
    acc = np.zeros(rows, dtype=np.float32)
    total, limit = np.uint64(indices.size), np.uint64(rows)
    for j in range(cols.size):
        w = weights[j]
        lo, hi = np.uint64(indptr[cols[j]]), np.uint64(indptr[cols[j] + 1])
        if hi > total:
            return acc
        for p in range(lo, hi):
            at = np.uint64(indices[p])
            if at >= limit:
                return acc
            acc[at] += table[bits[p]] * w
    return acc


kernels.Kernel.lexical = record
for q in chosen:
    timed(r, q)
kernels.Kernel.lexical = orig
lib, f = kernels._compiled(), kernels._fixed
res = {"main": {"call": [], "merge": []}, "branch": {"call": [], "merge": []}, "score": {"alone": []}}
identical, nonzero = 0, []
for i, (parts, cols, weights, k, deleted, allowed, subset) in enumerate(recorded):
    rows, indptr, indices, data, order, start = parts[0]
    args = (rows, f(indptr), f(indices), f(np.asarray(data).view(np.uint16)), kernels.HALF, f(cols), f(weights),
            *kernels.Kernel._where(order, start, deleted, allowed))
    blocks = r._kernel.subset_blocks(subset, order, start, rows)
    got, best = {}, {"main": [], "branch": []}
    for name in (["main", "branch"] if i % 2 else ["branch", "main"]) * 2:  # twice each: the lower time of two
        h = [np.empty(k, np.float32), np.empty(k, np.int64), 0, f(subset), True, np.empty(k, np.float32),
             np.empty(k, np.int64), 0]
        extra = [*h[:5], blocks, *h[5:]] if name == "branch" else h
        t = time.perf_counter()
        sizes = (lib if name == "branch" else _LOOPS).lexical_segment(*args, *extra)
        best[name].append((time.perf_counter() - t) * 1000)
        got[name] = (sizes, h[0][:sizes[0]].tolist(), h[1][:sizes[0]].tolist(), h[6][:sizes[1]].tolist())
    for name, times in best.items():
        res[name]["call"].append(min(times))
    identical += got["main"] == got["branch"]
    t = time.perf_counter()
    score_only(*args[:7])
    res["score"]["alone"].append((time.perf_counter() - t) * 1000)
    acc = np.zeros(rows, np.float32)
    for col, w in zip(cols.tolist(), weights.tolist(), strict=True):
        lo, hi = indptr[col], indptr[col + 1]
        acc[indices[lo:hi]] += np.asarray(data[lo:hi]).astype(np.float32) * np.float32(w)
    nonzero.append(int(np.count_nonzero(acc)))
    for name in ("main", "branch"):
        h = [np.empty(k, np.float32), np.empty(k, np.int64), 0, f(subset), True, np.empty(k, np.float32),
             np.empty(k, np.int64), 0]
        extra = [*h[:5], blocks, *h[5:]] if name == "branch" else h
        t = time.perf_counter()
        (lib if name == "branch" else _LOOPS)._select(acc, *args[7:], *extra)
        res[name]["merge"].append((time.perf_counter() - t) * 1000)
summary = {"calls": len(recorded), "identical": identical, "nonzero_positions_p50": float(np.median(nonzero)),
           **{n: {key: round(float(np.median(v)), 3) for key, v in d.items()} for n, d in res.items()}}
summary["load"] = [round(x, 2) for x in os.getloadavg()]
Path(sys.argv[4]).write_text(json.dumps(summary, indent=1), encoding="utf-8")
print(json.dumps(summary))
