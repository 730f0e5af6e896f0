"""Whether the 8-bit first pass over the general documents (52.8 MB of codes) is memory-bound here: compact_scores
against a compiled loop that only adds the same bytes, and numpy row sums.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round19/compact_stream.py
"""
# ruff: noqa  (a measurement script, kept as it ran)
import time
from pathlib import Path

import numba
import numpy as np

from quest.retrieval import index as m
from quest.retrieval import kernels

m.TOKENIZER_VERSION = m.read_manifest(Path('/tmp/bm/1m')).tokenizer
i = m.load_index(Path('/tmp/bm/1m'))
rows = np.flatnonzero(i.chunks.problem == -1)
print(rows.size, rows[0], rows[-1])
k = kernels.load("numba")
part = i.dense.parts[0]
run = __import__("quest.retrieval.dense", fromlist=["CompactRun"]).CompactRun.encode(part.vectors, int(rows[0]), int(rows[-1]) + 1)
codes = run.codes
w = np.random.default_rng(0).standard_normal(1024).astype(np.float32) * 1e-3
@numba.njit(nogil=True)
def stream(codes):
    s = 0
    for i in range(codes.shape[0]):
        for d in range(codes.shape[1]):
            s += codes[i, d]
    return s
stream(codes[:10])
k.compact_scores(codes, 0, 10, w)
for t in range(3):
    a = time.perf_counter(); k.compact_scores(codes, 0, codes.shape[0], w); a = time.perf_counter() - a
    b = time.perf_counter(); stream(codes); b = time.perf_counter() - b
    c = time.perf_counter(); codes.sum(axis=1, dtype=np.uint32); c = time.perf_counter() - c
    print(f"compact_scores {a*1000:.2f} ms; integer byte sum (numba) {b*1000:.2f} ms; numpy row sums {c*1000:.2f} ms")
