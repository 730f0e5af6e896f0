"""What pruning could reach: per call of calls.json, the full loop over every column against the full loop over
only the columns MaxScore must read whole given the true k-th score (as maxscore.py orders them).
"""
# ruff: noqa: E402, SIM115
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
full = kernels.Kernel(mod, prune=False)
calls = [c for q in json.load(open(str(Path(__file__).parent / "calls.json"))) for c in q]
seg = bm.segments[0]
indptr = np.asarray(seg.postings.indptr)
bound = bm._bounder(seg)


def run(cols, coefs, k):
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
    return full.bm25(parts, np.asarray(cols, dtype=np.int64), scaled, k, bm.deleted, None)


tf, te = [], []
for cols, coefs, k, _rows in calls:
    top = run(cols, coefs, k)
    theta = top[-1][1] if len(top) == k else 0
    b = [bound(c, cf) for c, cf in zip(cols, coefs, strict=False)]
    L = [int(indptr[c + 1] - indptr[c]) for c in cols]
    order = sorted(range(len(cols)), key=lambda i: (b[i] <= 0, L[i] / b[i] if b[i] > 0 else 0))
    suffix = np.concatenate([np.cumsum([b[i] for i in order][::-1])[::-1], [0.0]])
    j = 0
    while j < len(order) and suffix[j] >= theta:
        j += 1
    ess = sorted(order[:j])
    ec, ef = [cols[i] for i in ess], [coefs[i] for i in ess]
    for _rep in range(2):
        t = time.perf_counter()
        run(cols, coefs, k)
        a = time.perf_counter() - t
        t = time.perf_counter()
        run(ec, ef, k) if ec else None
        e = time.perf_counter() - t
    tf.append(a * 1000)
    te.append(e * 1000)
tf, te = np.array(tf), np.array(te)
print(
    "full p50/sum",
    np.median(tf),
    tf.sum(),
    "essential-only p50/sum",
    np.median(te),
    te.sum(),
    "ratio",
    np.median(te / tf),
    os.getloadavg(),
)
