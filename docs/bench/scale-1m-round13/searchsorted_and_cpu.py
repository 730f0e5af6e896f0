"""Two checks at 1M in one process, over the no-problem questions (a share of 0.6):

1. the sizes and times of maxscore's `searchsorted` calls over 100 questions (after a pass over them);
2. the process's CPU time over wall time for 150 questions with search_threads 1 and 2, twice: about 1.0 either
   way means the second thread adds no CPU (the GIL serializes the sparse searches).

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round13/searchsorted_and_cpu.py INDEX
"""

import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from breakdown import setup, timed

from quest.retrieval import maxscore
from quest.retrieval.retriever import Retriever
from quest.settings import Settings


def main(folder: Path) -> None:
    index, kb, embedder, chosen = setup(folder, 0.6)
    retriever = Retriever(Settings(show_progress=False, search_threads=1), index, kb, embedder)
    for q in chosen[:100]:
        timed(retriever, q)
    log = []
    original = np.searchsorted

    def recorded(a, v, *args, **kwargs):
        t = time.perf_counter()
        out = original(a, v, *args, **kwargs)
        log.append((a.size, np.size(v), (time.perf_counter() - t) * 1e6))
        return out

    maxscore.np.searchsorted = recorded
    try:
        for q in chosen[:100]:
            timed(retriever, q)
    finally:
        maxscore.np.searchsorted = original
    a = np.array(log)
    print(len(a), "calls total us", a[:, 2].sum())
    for lo, hi in [(0, 1e3), (1e3, 1e4), (1e4, 1e5), (1e5, 1e6)]:
        m = (a[:, 0] >= lo) & (a[:, 0] < hi)
        print("hay", lo, hi, m.sum(), "us", a[m, 2].sum().round(),
              "needles med", np.median(a[m, 1]) if m.any() else 0,
              "us/needle", (a[m, 2].sum() / max(a[m, 1].sum(), 1)).round(3))
    for lo, hi in [(0, 64), (64, 512), (512, 4096), (4096, 1e7)]:
        m = (a[:, 1] >= lo) & (a[:, 1] < hi)
        print("needles", lo, hi, m.sum(), "us", a[m, 2].sum().round(),
              "us/needle", (a[m, 2].sum() / max(a[m, 1].sum(), 1)).round(3))
    for threads in (1, 2, 1, 2):
        other = Retriever(Settings(show_progress=False, search_threads=threads), index, kb, embedder)
        w0, c0 = time.perf_counter(), time.process_time()
        for q in chosen[:150]:
            timed(other, q)
        w, c = time.perf_counter() - w0, time.process_time() - c0
        print("threads", threads, "wall", round(w, 2), "cpu", round(c, 2), "cpu/wall", round(c / w, 2))
    print(os.getloadavg())


if __name__ == "__main__":
    main(Path(sys.argv[1]))
