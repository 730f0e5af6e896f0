"""The warm cost of asking for 256 random rows' pages of the 1M dense file next to the gather itself: madvise
through ctypes with wrapped and with plain-int arguments, one call per row, and pages.will_need_rows.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round13/madvise_cost.py INDEX/s000003.dense.faiss
"""

import ctypes
import os
import sys
import time
from pathlib import Path

import numpy as np

from quest.retrieval import pages
from quest.retrieval.dense import DenseIndex


def main(path: Path) -> None:
    v = DenseIndex.load(path).vectors
    rows = np.sort(np.random.default_rng(1).choice(v.shape[0], 256, replace=False))
    v[rows].sum()  # resident
    base, width = int(v.ctypes.data), int(v.strides[0])
    starts = [(base + int(r) * width) // pages.PAGE * pages.PAGE for r in rows]
    madvise = pages._MADVISE
    for _ in range(3):
        t0 = time.perf_counter()
        for a in starts:
            madvise(ctypes.c_void_p(a), ctypes.c_size_t(8192), ctypes.c_int(pages.MADV_WILLNEED))
        t1 = time.perf_counter()
        for a in starts:
            madvise(a, 8192, pages.MADV_WILLNEED)
        t2 = time.perf_counter()
        pages.will_need_rows(v, rows)
        t3 = time.perf_counter()
        v[rows]
        t4 = time.perf_counter()
        print("wrapped us/call", round((t1 - t0) / 256 * 1e6, 2), "plain", round((t2 - t1) / 256 * 1e6, 2),
              "will_need_rows ms", round((t3 - t2) * 1e3, 3), "gather ms", round((t4 - t3) * 1e3, 3))
    print(os.getloadavg())


if __name__ == "__main__":
    main(Path(sys.argv[1]))
