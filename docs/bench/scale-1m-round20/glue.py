"""Where a no-problem question's Python time goes, by method, without a profiler (warm, one thread): each listed
Retriever method and SegmentedBM25.scores_for is wrapped in a timer (one perf_counter pair a call), outer calls
only (a method called inside another timed one counts in both). PASSES passes; a question's cost is its least over
the passes. The slowest 5% (by least time) against the median 5% and all.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round20/glue.py INDEX CHUNKS SHARE OUT.json [PASSES]
"""
# ruff: noqa: E402
import functools
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "scale-1m-round19"))
sys.path.insert(0, str(HERE))
from paired import setup
from tail import one

from quest.bench.corpus import NO_PROBLEM
from quest.retrieval import retriever as retriever_module
from quest.retrieval import segments
from quest.retrieval.retriever import Retriever
from quest.settings import Settings

METHODS = ("_fused_rows", "_fused_on_ties", "_windowed", "_plain_confidence", "_specific_first", "_beyond_verdict",
           "_own_language_first", "_fitting_first", "_error_evidence_first", "_on_topic", "_allowed",
           "_part_queries", "_store_lists")
spent: dict[str, float] = defaultdict(float)


def timer(name, fn):
    @functools.wraps(fn)
    def wrapped(*a, **kw):
        t = time.perf_counter()
        try:
            return fn(*a, **kw)
        finally:
            spent[name] += (time.perf_counter() - t) * 1000
    return wrapped


for m in METHODS:
    setattr(Retriever, m, timer(m, getattr(Retriever, m)))
segments.SegmentedBM25.scores_for = timer("bm25.scores_for", segments.SegmentedBM25.scores_for)
retriever_module._diversify = timer("_diversify", retriever_module._diversify)


def main(folder, chunks, share, out, passes):
    index, kb, embedder, queries, kinds = setup(folder, chunks, share)
    chosen = [q for q, kind in zip(queries, kinds, strict=True) if kind == NO_PROBLEM]
    r = Retriever(Settings(show_progress=False, search_threads=1), index, kb, embedder)
    for q in chosen:
        one(r, q)
    load = [os.getloadavg()]
    per = [[None] * len(chosen) for _ in range(passes)]
    for p in range(passes):
        for i, q in enumerate(chosen):
            spent.clear()
            row = one(r, q)["t"]
            per[p][i] = {**row, **spent}
    load.append(os.getloadavg())
    keys = sorted({k for run in per for row in run for k in row})
    least = [{k: min(per[p][i].get(k, 0.0) for p in range(passes)) for k in keys} for i in range(len(chosen))]
    total = np.array([x["no_embed"] for x in least])
    order = np.argsort(-total)
    n = len(chosen) // 20
    groups = {"tail": order[:n], "middle": order[len(chosen) // 2 - n // 2:][:n], "all": order}
    summary = {"load": load, "passes": passes, "least_p50": round(float(np.median(total)), 2),
               "least_p95": round(float(np.percentile(total, 95)), 2)}
    for g, idx in groups.items():
        summary[g] = {k: round(float(np.median([least[i][k] for i in idx])), 3) for k in keys}
    Path(out).write_text(json.dumps({"summary": summary, "least": least}), encoding="utf-8")
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4],
         int(sys.argv[5]) if len(sys.argv) > 5 else 5)
