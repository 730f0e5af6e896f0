"""`Retriever._fused_rows`'s parts, timed per call (warm, one thread): the entries per row, the fused rows' float16
vectors (`vectors[rows]`: read-ahead hint and gather), their cosines (the matrix product), the judge-name confidence
and the loop per fused row. A copy of main's method with timers between its steps; it must return what the
library's returns (checked on every call).

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round20/fused_parts.py INDEX CHUNKS SHARE [PASSES]
"""
# ruff: noqa: E402
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "scale-1m-round19"))
sys.path.insert(0, str(HERE))
from paired import setup
from tail import one

from quest.bench.corpus import NO_PROBLEM
from quest.retrieval.retriever import Retriever
from quest.retrieval.sparse import normalized
from quest.settings import Settings

calls: list[dict[str, float]] = []
original = Retriever._fused_rows


def timed_fused_rows(self, fused, lists, queries, windowed):
    t0 = time.perf_counter()
    entries = {}
    for name, ranked in lists.items():
        for rank, (row, score) in enumerate(ranked, start=1):
            kept = entries.get(row)
            if kept is None:
                entries[row] = {name: (rank, score)}
            else:
                kept[name] = (rank, score)
    bounds = {q.name: q.bound for q in queries}
    dense_parts = [q.dense for q in queries if q.dense is not None]
    t1 = time.perf_counter()
    sims = {}
    t2 = t3 = t1
    if dense_parts and self.index.dense is not None and fused:
        rows_arr = np.fromiter((r for r, _ in fused), dtype=np.int64, count=len(fused))
        vectors = self.index.dense.vectors[rows_arr]
        t2 = time.perf_counter()
        best = (vectors @ np.stack(dense_parts).T).max(axis=1)
        sims = dict(zip(rows_arr.tolist(), best.tolist(), strict=True))
        t3 = time.perf_counter()
    plain = self._plain_confidence(queries, [r for r, _ in fused])
    named = {q.name for q in queries if q.plain is not None}
    judged = {name: bounds[name.split(":", 1)[1]] for name in lists
              if name.startswith("bm25:") and name.split(":", 1)[1] not in named}
    base = {name: name.split(":", 1)[0] for name in lists}
    windows_vote = "question" not in named
    t4 = time.perf_counter()
    out = []
    for row, fused_score in fused:
        bm25n = 0.0
        short = {}
        for name, entry in entries[row].items():
            bound = judged.get(name)
            if bound is not None:
                value = normalized(entry[1], bound)
                if value > bm25n:
                    bm25n = value
            signal = base[name]
            shortest = short.get(signal)
            if shortest is None or entry[0] < shortest[0]:
                short[signal] = entry
        if windows_vote:
            bm25n = max(bm25n, windowed.get(row, 0.0))
        bm25n = max(bm25n, plain.get(row, 0.0))
        out.append((row, fused_score, short, sims.get(row), bm25n))
    t5 = time.perf_counter()
    calls.append({"rows": len(fused), "entries": (t1 - t0) * 1000, "gather": (t2 - t1) * 1000,
                  "cosines": (t3 - t2) * 1000, "plain": (t4 - t3) * 1000, "loop": (t5 - t4) * 1000,
                  "whole": (t5 - t0) * 1000})
    assert out == original(self, fused, lists, queries, windowed)
    return out


def main(folder, chunks, share, passes):
    index, kb, embedder, queries, kinds = setup(folder, chunks, share)
    chosen = [q for q, kind in zip(queries, kinds, strict=True) if kind == NO_PROBLEM]
    r = Retriever(Settings(show_progress=False, search_threads=1), index, kb, embedder)
    for q in chosen:
        one(r, q)
    Retriever._fused_rows = timed_fused_rows
    load = [os.getloadavg()]
    for _ in range(passes):
        for q in chosen:
            one(r, q)
    load.append(os.getloadavg())
    s = {"load": load, "calls": len(calls)}
    for k in calls[0]:
        s[k] = [round(float(np.percentile([c[k] for c in calls], p)), 3) for p in (50, 95)]
    print(json.dumps(s))


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else 2)
