"""Where fusion and the general documents' dense pass spend their time at 1M (warm, one thread, no-problem questions).

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round21/parts.py INDEX CHUNKS SHARE [PASSES] \
        [cprofile]

Wraps the methods inside `Retriever._rank`'s fusion step and `DenseIndex.search_range` with timers and sums them per
question; prints each part's per-question median and p95 over the passes' questions (least of the passes per
question, as round 20's least.py). With `cprofile`, one more pass under cProfile, its top functions by own time.
"""
# ruff: noqa: E402
import cProfile
import functools
import json
import os
import pstats
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "scale-1m-round19"))
sys.path.insert(0, str(HERE.parent / "scale-1m-round20"))
from paired import setup
from tail import one

from quest.bench.corpus import NO_PROBLEM
from quest.retrieval import dense
from quest.retrieval.retriever import Retriever
from quest.settings import Settings

spent: dict[str, float] = defaultdict(float)


def timer(owner, attr, name):
    fn = owner.__dict__[attr]
    raw = fn.__func__ if isinstance(fn, staticmethod) else fn

    @functools.wraps(raw)
    def wrapped(*a, **kw):
        t = time.perf_counter()
        try:
            return raw(*a, **kw)
        finally:
            spent[name] += (time.perf_counter() - t) * 1000
    setattr(owner, attr, staticmethod(wrapped) if isinstance(fn, staticmethod) else wrapped)


PARTS = [(Retriever, "_windowed", "windowed"), (Retriever, "_fused_on_ties", "fused_on_ties"),
         (Retriever, "_strength", "strength"), (Retriever, "_fused_rows", "fused_rows"),
         (Retriever, "_plain_confidence", "plain_confidence"), (Retriever, "_rank", "rank"),
         (dense.DenseIndex, "search_range", "search_range"), (dense.CompactRun, "candidates", "candidates"),
         (dense.DenseIndex, "_scan_rows", "scan_rows"), (dense.DenseIndex, "gather", "gather"),
         (dense, "cosines", "cosines")]


def main(folder: Path, chunks: int, share: float, passes: int, profile: bool) -> None:
    index, kb, embedder, queries, kinds = setup(folder, chunks, share)
    chosen = [q for q, kind in zip(queries, kinds, strict=True) if kind == NO_PROBLEM]
    r = Retriever(Settings(show_progress=False, search_threads=1), index, kb, embedder)
    for q in chosen:
        one(r, q)
    for owner, attr, name in PARTS:
        timer(owner, attr, name)
    kernel = r._kernel
    raw_cs = kernel.compact_scores

    def cs(*a, **kw):
        t = time.perf_counter()
        try:
            return raw_cs(*a, **kw)
        finally:
            spent["compact_scores"] += (time.perf_counter() - t) * 1000
    kernel.compact_scores = cs
    index.dense._compact_scores = cs if getattr(index.dense, "_compact_scores", None) else None
    for seg in getattr(index.dense, "parts", [index.dense]):
        if getattr(seg, "_compact_scores", None) is not None:
            seg._compact_scores = cs
    load = [os.getloadavg()]
    per = []
    for _ in range(passes):
        run = []
        for q in chosen:
            spent.clear()
            t = one(r, q)["t"]
            run.append({**spent, "fusion": t["fusion"], "dense_general": t["dense_general"],
                        "no_embed": t["no_embed"]})
        per.append(run)
    load.append(os.getloadavg())
    keys = sorted({k for run in per for row in run for k in row})
    least = [{k: min(run[i].get(k, 0.0) for run in per) for k in keys} for i in range(len(chosen))]
    out = {"load": [[round(x, 2) for x in v] for v in load], "passes": passes, "questions": len(chosen),
           "median_p95_ms": {k: [round(float(np.median([x[k] for x in least])), 3),
                                 round(float(np.percentile([x[k] for x in least], 95)), 3)] for k in keys}}
    sys.stdout.write(json.dumps(out, indent=1) + "\n")
    if profile:
        pr = cProfile.Profile()
        pr.enable()
        for q in chosen:
            one(r, q)
        pr.disable()
        pstats.Stats(pr).sort_stats("tottime").print_stats(40)


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else 3,
         "cprofile" in sys.argv[5:])
