"""Replay calls.json: the compiled pruned BM25 loop (pruned-bm25.diff applied) against the full loop, paired per
call. Tried and dropped (report.md). PYTHONPATH=. flock /work/bench.lock python .../replay_pruned.py /tmp/bm/1m
"""
# ruff: noqa: E402, SIM115
"""Replay the recorded whole-base BM25 calls: pruned vs full loop, paired per call, alternating order."""

import json
import os
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parents[1] / "scale-1m-kernel"))
from common import accept_tokenizer_3

accept_tokenizer_3()
from pathlib import Path

import numpy as np

from quest.retrieval import kernels
from quest.retrieval.index import load_index

idx = load_index(Path(sys.argv[1]))
bm = idx.bm25
mod = kernels._compiled()
full, pruned = kernels.Kernel(mod, prune=False), kernels.Kernel(mod, prune=True)
calls = [c for q in json.load(open(str(Path(__file__).parent / "calls.json"))) for c in q]
seg = bm.segments[0]


def run(kern, cols, coefs, k):
    scaled = np.asarray([np.float32(c * (bm.k1 + 1)) for c in coefs], dtype=np.float32)
    parts = [
        (
            seg.rows,
            seg.postings.indptr,
            seg.postings.indices,
            seg.postings.data,
            bm._norms_by_position[0],
            seg.order.order,
            0,
        )
    ]
    bounds = [np.asarray([bm._bounder(seg)(c, cf) for c, cf in zip(cols, coefs, strict=False)])]
    return kern.bm25(parts, np.asarray(cols, dtype=np.int64), scaled, k, bm.deleted, None, bounds)


for cols, coefs, k, _rows in calls:  # warm
    run(full, cols, coefs, k)
    run(pruned, cols, coefs, k)
load = [os.getloadavg()[0]]
tf, tp, same = [], [], 0
for i, (cols, coefs, k, _rows) in enumerate(calls):
    pair = [(full, tf), (pruned, tp)] if i % 2 else [(pruned, tp), (full, tf)]
    got = []
    for kern, out in pair:
        t = time.perf_counter()
        r = run(kern, cols, coefs, k)
        out.append((time.perf_counter() - t) * 1000)
        got.append(r)
    same += got[0] == got[1]
load.append(os.getloadavg()[0])
tf, tp = np.array(tf), np.array(tp)
print(
    json.dumps(
        {
            "calls": len(calls),
            "identical": same,
            "load": load,
            "full_p50_p95_sum": [
                round(float(np.percentile(tf, 50)), 2),
                round(float(np.percentile(tf, 95)), 2),
                round(float(tf.sum())),
            ],
            "pruned_p50_p95_sum": [
                round(float(np.percentile(tp, 50)), 2),
                round(float(np.percentile(tp, 95)), 2),
                round(float(tp.sum())),
            ],
            "ratio_median": round(float(np.median(tp / tf)), 3),
            "pruned_slower_calls": int((tp > tf).sum()),
            "worst_ratio": round(float((tp / tf).max()), 2),
            "stats": pruned.stats.tolist(),
        }
    )
)
