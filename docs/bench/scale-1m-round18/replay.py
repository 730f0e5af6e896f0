"""Replay round 15's recorded whole-base BM25 calls (calls.json; the general documents' mask passed, as the retriever
passes it) through main's compiled loops and this branch's, paired per call in alternating order; per call the
time of the whole call and of the heap merge alone (`_select` on the same scores), and whether both heaps are
identical. PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round18/replay.py /tmp/bm/1m OUT.json"""
# ruff: noqa: E402
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "scale-1m-kernel"))
sys.path.insert(0, str(HERE.parent / "scale-1m-round17"))
from common import accept_tokenizer_3

accept_tokenizer_3()
import numpy as np
from proto import main_module

from quest.retrieval import kernels
from quest.retrieval.chunktable import NO_PROBLEM
from quest.retrieval.index import load_index

MODULES = {"main": main_module("64c76fb"), "branch": kernels._compiled()}
idx = load_index(Path(sys.argv[1]))
bm = idx.bm25
seg = bm.segments[0]
f = kernels._fixed
args = (seg.rows, f(seg.postings.indptr), f(seg.postings.indices), f(seg.postings.data), f(bm._norms_by_position[0]))
where = kernels.Kernel._where(seg.order.order, 0, bm.deleted, None)
subset = np.zeros(bm.deleted.size, dtype=bool)
subset[idx.chunks.problem == NO_PROBLEM] = True
subset = f(subset)
RECORDED = (HERE.parent / "scale-1m-round15" / "calls.json").read_text(encoding="utf-8")
calls = [c for q in json.loads(RECORDED) for c in q]


BLOCKS = f(MODULES["branch"].subset_blocks(*where[:3], seg.rows, subset))  # kept by kernels.Kernel in the library
print("blocks holding a general row", int(BLOCKS.sum()), "of", BLOCKS.size, file=sys.stderr)


def heaps(k, name="main"):
    blocks = (BLOCKS,) if name == "branch" else ()
    return (np.empty(k, np.float32), np.empty(k, np.int64), 0, subset, True, *blocks, np.empty(k, np.float32),
            np.empty(k, np.int64), 0)


def out(h, sizes):
    size, sub = sizes
    h = h if len(h) == 8 else h[:5] + h[6:]
    a, b = np.lexsort((h[1][:size], -h[0][:size])), np.lexsort((h[6][:sub], -h[5][:sub]))
    return h[1][a].tolist(), h[0][a].tolist(), h[6][b].tolist(), h[5][b].tolist()


load = [os.getloadavg()]
res = {n: {"call": [], "merge": []} for n in MODULES}
identical = 0
for rep in range(2):
    for i, (cols, coefs, k, _) in enumerate(calls):
        cols = np.asarray(cols, np.int64)
        scaled = np.asarray([np.float32(c * (bm.k1 + 1)) for c in coefs], np.float32)
        acc = np.zeros(seg.rows, np.float32)
        MODULES["main"].bm25_segment(*args, cols, scaled, *where, *heaps(k))  # (warm pages)
        got = {}
        names = list(MODULES) if i % 2 == 0 else list(MODULES)[::-1]
        for n in names:
            m = MODULES[n]
            h = heaps(k, n)
            t = time.perf_counter()
            sizes = m.bm25_segment(*args, cols, scaled, *where, *h)
            t1 = time.perf_counter()
            got[n] = out(h, sizes)
            if rep:
                res[n]["call"].append((t1 - t) * 1000)
        for n in names:  # the merge alone, on this call's scores (computed by numpy, as SegmentedBM25.scores)
            if n == names[0]:
                acc = np.zeros(seg.rows, np.float32)
                for col, c in zip(cols.tolist(), scaled.tolist(), strict=True):
                    lo, hi = args[1][col], args[1][col + 1]
                    at = args[2][lo:hi]
                    tf = args[3][lo:hi].astype(np.float32)
                    acc[at] += tf * np.float32(c) / (tf + args[4][at])
            h = heaps(k, n)
            t = time.perf_counter()
            MODULES[n]._select(acc, *where, *h)
            if rep:
                res[n]["merge"].append((time.perf_counter() - t) * 1000)
        if rep:
            identical += got["main"] == got["branch"]
load.append(os.getloadavg())
summary = {"calls": len(calls), "load": [[round(x, 2) for x in v] for v in load], "identical": identical}
for n in MODULES:
    summary[n] = {key: round(float(np.median(v)), 3) for key, v in res[n].items()}
for key in ("call", "merge"):
    summary[f"ratio_{key}"] = round(float(np.median(np.array(res["branch"][key]) / np.array(res["main"][key]))), 3)
Path(sys.argv[2]).write_text(json.dumps(summary, indent=1), encoding="utf-8")
print(json.dumps(summary, indent=1))
