"""Replay calls.json: the blocked loops (blocked-kernel.diff applied) against a copy of the loops before it
(OLD_MODULE.py), paired per call, for each block size. Tried and dropped (report.md).
PYTHONPATH=. flock /work/bench.lock python .../replay_blocked.py /tmp/bm/1m OLD_MODULE.py 8192 32768 131072
"""
# ruff: noqa: E402, SIM115
import importlib.util
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

spec = importlib.util.spec_from_file_location("old_numba", sys.argv.pop(2))
old = importlib.util.module_from_spec(spec)
spec.loader.exec_module(old)
new = kernels._compiled()
idx = load_index(Path(sys.argv[1]))
bm = idx.bm25
calls = [c for q in json.load(open(str(Path(__file__).parent / "calls.json"))) for c in q]
seg = bm.segments[0]
f = kernels._fixed
args0 = (seg.rows, f(seg.postings.indptr), f(seg.postings.indices), f(seg.postings.data), f(bm._norms_by_position[0]))
where = kernels.Kernel._where(seg.order.order, 0, bm.deleted, None)
blocks = [int(b) for b in sys.argv[2:]] or [32768]


def run(mod, cols, coefs, k, block):
    scaled = f(np.asarray([np.float32(c * (bm.k1 + 1)) for c in coefs], dtype=np.float32))
    vals, ids = np.empty(k, np.float32), np.empty(k, np.int64)
    sv, si = np.empty(k, np.float32), np.empty(k, np.int64)
    extra = (block,) if block else ()
    size, _ = mod.bm25_segment(
        *args0,
        f(np.asarray(cols, dtype=np.int64)),
        scaled,
        *where,
        vals,
        ids,
        0,
        kernels._NO_MASK,
        False,
        sv,
        si,
        0,
        *extra,
    )
    o = np.lexsort((ids[:size], -vals[:size]))
    return ids[o].tolist(), vals[o].tolist()


res = {b: [] for b in [0, *blocks]}
same = 0
for rep in range(2):
    for i, (cols, coefs, k, _rows) in enumerate(calls):
        got = {}
        for b in ([0, *blocks]) if i % 2 else ([*blocks, 0]):
            t = time.perf_counter()
            got[b] = run(old if b == 0 else new, cols, coefs, k, b)
            dt = time.perf_counter() - t
            if rep:
                res[b].append(dt * 1000)
        same += all(got[b] == got[0] for b in blocks)
base = np.array(res[0])
print(
    {
        "calls": len(calls),
        "identical_of_2x": same,
        "load": os.getloadavg(),
        "old_p50_p95_sum": [round(np.percentile(base, 50), 2), round(np.percentile(base, 95), 2), round(base.sum())],
        **{
            f"block{b}": [
                round(np.percentile(res[b], 50), 2),
                round(np.percentile(res[b], 95), 2),
                round(sum(res[b])),
                round(float(np.median(np.array(res[b]) / base)), 3),
            ]
            for b in blocks
        },
    }
)
