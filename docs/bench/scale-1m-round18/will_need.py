"""Time spent in pages.will_need_rows (the MADV_WILLNEED hints before float16 gathers) per no-problem question at
1M, warm (second pass through the library's Retriever), against the question's time.
    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round18/will_need.py /tmp/bm/1m 1000000 0.6"""
# ruff: noqa: E402
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import numpy as np
from paired import setup, timed

from quest.bench.corpus import NO_PROBLEM
from quest.retrieval import pages
from quest.retrieval.retriever import Retriever
from quest.settings import Settings

index, kb, embedder, queries, kinds = setup(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]))
chosen = [q for q, kind in zip(queries, kinds, strict=True) if kind == NO_PROBLEM]
retriever = Retriever(Settings(show_progress=False), index, kb, embedder)
for q in chosen:
    timed(retriever, q)
spent = [0.0]
original = pages.will_need_rows


def measured(*args, **kwargs):
    started = time.perf_counter()
    try:
        return original(*args, **kwargs)
    finally:
        spent[0] += time.perf_counter() - started


pages.will_need_rows = measured  # dense.py calls it through the module
per = []
for q in chosen:
    spent[0] = 0.0
    _, tm = timed(retriever, q)
    per.append((spent[0] * 1000, tm["no_embed"]))
per = np.array(per)
print("will_need_rows ms a question p50 / p95", np.percentile(per[:, 0], [50, 95]).round(2).tolist(),
      "question p50", round(float(np.median(per[:, 1])), 1))
