"""Block-max pruning at 1M with windows of the given sizes (rows): calls, identical lists, time, windows scored.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-global7/pruning_windows.py 64 256

Runs against commit 0c01b59 of branch i14-global7 (quest/retrieval/pruned.py; not kept: pruning-1m.txt).
Each call is made once to fill the window bounds, then timed; the first 120 recorded calls are used.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from sparse_topk import recorded_calls  # this folder, on sys.path when run as a script

from quest.retrieval import pruned

CALLS = 120


def main(index_dir: Path, windows: list[int]) -> None:
    index, calls = recorded_calls(index_dir, 0.25)
    models = {"bm25": index.bm25, "lexical": index.lexical}
    scored: list[int] = []
    original = pruned.window_scores

    def recording(seg, first, last, bounds):
        scored.append(last - first)
        return original(seg, first, last, bounds)
    pruned.window_scores = recording
    for window in windows:
        pruned.WINDOW = window
        for model in models.values():
            model._bounds = pruned.WindowBounds(2**31)
        results: dict[str, list[tuple[float, float, bool, int]]] = {"bm25": [], "lexical": []}
        for name, query, k, rows in calls[:CALLS]:
            model = models[name]
            t = time.perf_counter()
            full = model.search(query, k, rows)
            full_ms = (time.perf_counter() - t) * 1000
            model.top(query, k, rows)
            scored.clear()
            t = time.perf_counter()
            got = model.top(query, k, rows)
            results[name].append((full_ms, (time.perf_counter() - t) * 1000, got == full, sum(scored)))
        for name, rows_ in results.items():
            a = np.array(rows_, dtype=float)
            print(window, name, len(rows_), "identical", int(a[:, 2].sum()),
                  "full p50/p95", np.percentile(a[:, 0], [50, 95]).round(1).tolist(),
                  "pruned(warm) p50/p95", np.percentile(a[:, 1], [50, 95]).round(1).tolist(),
                  "windows scored p50/p95", np.percentile(a[:, 3], [50, 95]).round(0).tolist(),
                  "of", -(-index.bm25.size // window), flush=True)


if __name__ == "__main__":
    main(Path("/tmp/comb-1m"), [int(w) for w in sys.argv[1:]])
