"""The hint tier's whole-base dense search on main (1ebd674), by part: dropping deleted rows from the 718k allowed rows,
the 1M mask, the FAISS selector, the IVF search with and without it.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round19/mask_parts.py /tmp/bm/1m
"""
# ruff: noqa  (a measurement script, kept as it ran)
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, "docs/bench/scale-1m-round19")
from paired import setup

from quest.retrieval import dense as dense_module
from quest.retrieval.retriever import Retriever
from quest.settings import Settings

index, kb, embedder, queries, kinds = setup(Path("/tmp/bm/1m"), 1000000, 0.6)
r = Retriever(Settings(show_progress=False), index, kb, embedder)

kinds_all = set(index.chunks.kinds)
print(kinds_all)
rows = r._allowed(None, frozenset(k for k in kinds_all if "solution" in k))
print(rows.size, rows.flags.writeable)
D = index.dense
q = np.random.default_rng(0).standard_normal(1024).astype(np.float32); q /= np.linalg.norm(q)
def t(f, n=20):
    f(); s = time.perf_counter()
    for _ in range(n): f()
    return (time.perf_counter() - s) / n * 1000
print("search_rows (mask path)", t(lambda: D.search_rows(q, rows, 50)))
print("search (no mask)", t(lambda: D.search(q, 50)))
print("deleted filter", t(lambda: rows[~D.deleted[rows]]))
def mk():
    m = np.zeros(D.size, dtype=bool); m[rows] = True; return m
print("mask", t(mk))
m = mk()
print("packbits selector", t(lambda: dense_module.bitmap_selector(m)))
part = D.parts[0]
print("part.search with mask", t(lambda: part.search(q, 50, m)))
sel, bits = dense_module.bitmap_selector(m)
print("ivf candidates with selector", t(lambda: part._ivf_candidates(q.reshape(1, -1), 416, sel)))
print("ivf candidates no selector", t(lambda: part._ivf_candidates(q.reshape(1, -1), 416, None)))
