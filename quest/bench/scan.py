"""Where exact global dense search stops being cheap: `python -m quest.bench.scan 100000,200000,400000`.

Times Quest's exact global search (FAISS float16 scan + float32 re-score of the top 30) over n
random 1024-d unit vectors, one query at a time, and prints p50/p95 per size as JSON. The
dense.APPROXIMATE_FROM threshold is the size where this passes the dense share of the retrieval
budget (docs/bench/README.md).
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np

from quest.bench.measure import summary
from quest.retrieval.dense import DenseIndex

DIM = 1024


def scan_times(n: int, queries: int = 40, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    dense = DenseIndex.from_vectors(np.zeros((0, DIM), dtype=np.float32))
    for start in range(0, n, 32768):
        part = rng.standard_normal((min(32768, n - start), DIM), dtype=np.float32)
        part /= np.linalg.norm(part, axis=1, keepdims=True)
        dense.index.add(part)
    qs = rng.standard_normal((queries + 3, DIM), dtype=np.float32)
    qs /= np.linalg.norm(qs, axis=1, keepdims=True)
    times = []
    for i, q in enumerate(qs):
        t = time.perf_counter()
        dense.search(q, 30)
        if i >= 3:  # warm-up
            times.append((time.perf_counter() - t) * 1000)
    return {"vectors": n, **{k: v for k, v in summary(times).items() if k in ("p50", "p95", "n")}}


def main(argv: list[str]) -> int:
    sizes = [int(x) for x in (argv[0] if argv else "100000,200000,400000").split(",")]
    print(json.dumps([scan_times(n) for n in sizes]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
