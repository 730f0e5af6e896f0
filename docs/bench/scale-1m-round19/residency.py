"""Whether a residency check could be cheaper than the read-ahead hint it would skip: one mincore(2) per run of
pages, in a compiled loop (no Python per call), against pages.will_need_rows and the bare process_madvise, for 256
resident rows of the 1M float16 file.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round19/residency.py
"""
# ruff: noqa  (a measurement script, kept as it ran)
import ctypes
import time
from pathlib import Path

import numba
import numpy as np

from quest.retrieval import index as index_module
from quest.retrieval import pages

index_module.TOKENIZER_VERSION = index_module.read_manifest(Path("/tmp/bm/1m")).tokenizer
from quest.retrieval.index import load_index

idx = load_index(Path("/tmp/bm/1m"))
part = idx.dense.parts[0]
V = part.vectors
print(V.shape, V.ctypes.data % 4096, V.strides)
libc = ctypes.CDLL("libc.so.6", use_errno=True)
mincore = libc.mincore
mincore.argtypes = (ctypes.c_size_t, ctypes.c_size_t, ctypes.c_size_t)
mincore.restype = ctypes.c_int

@numba.njit(nogil=True)
def resident_runs(starts, lengths, vec):
    missing = 0
    for i in range(starts.size):
        if mincore(starts[i], lengths[i], vec.ctypes.data) != 0:
            return -1
        n = lengths[i] // 4096
        for j in range(n):
            if (vec[j] & 1) == 0:
                missing += 1
    return missing

rng = np.random.default_rng(0)
rows = np.sort(rng.choice(V.shape[0], 256, replace=False))
_ = V[rows]  # make resident
base, width = int(V.ctypes.data), int(V.strides[0])
st = base + rows * width
first = st // 4096; last = (st + width - 1) // 4096
starts = (first * 4096).astype(np.uint64); lengths = ((last - first + 1) * 4096).astype(np.uint64)
vec = np.zeros(16, dtype=np.uint8)
print("missing", resident_runs(starts, lengths, vec))
for trial in range(3):
    t = time.perf_counter()
    for _ in range(100): resident_runs(starts, lengths, vec)
    a = (time.perf_counter() - t) / 100 * 1000
    t = time.perf_counter()
    for _ in range(100): pages.will_need_rows(V, rows)
    b = (time.perf_counter() - t) / 100 * 1000
    t = time.perf_counter()
    for _ in range(100): pages._MADVISE_MANY.advise(starts, lengths, pages.MADV_WILLNEED)
    c = (time.perf_counter() - t) / 100 * 1000
    print(f"mincore loop {a:.3f} ms; will_need_rows {b:.3f} ms; process_madvise alone {c:.3f} ms (256 rows)")
