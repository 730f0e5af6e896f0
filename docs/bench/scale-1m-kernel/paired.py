"""Paired A/B at 1M, in one process: each no-problem question retrieved by every variant, the order rotating per
question, after a first (warm-up) pass of all of them (as docs/bench/scale-1m-round13/paired.py).

    PYTHONPATH=. flock /work/bench.lock /tmp/nbvenv/bin/python docs/bench/scale-1m-kernel/paired.py INDEX SHARE \
        OUT.json numpy kernel kernel2 numpy2

Variants: `numpy` (QUEST_SPARSE_KERNEL=numpy: main's MaxScore, one thread), `kernel` (the compiled lists, one thread),
`kernel2` / `numpy2` (the same with QUEST_SEARCH_THREADS=2). Each variant's hits (chunk ids, fused and shown scores)
are compared with the first's; per variant the per-question latency excluding embedding and each stage (p50 / p95 /
mean), the median per-question ratio to the first, and the process's CPU time over wall time (above 1: two threads
ran at once). The warm-up cost of each retriever (compiling or loading the kernels) is reported too.
"""

import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "scale-1m-round13"))
from common import accept_tokenizer_3

accept_tokenizer_3()
from breakdown import percentiles, setup, timed  # noqa: E402

from quest.retrieval.retriever import Retriever  # noqa: E402
from quest.settings import Settings  # noqa: E402

KINDS = {"numpy": ("numpy", 1), "kernel": ("numba", 1), "kernel2": ("numba", 2), "numpy2": ("numpy", 2)}


def main(folder: Path, share: float, out: Path, names: list[str]) -> None:
    index, kb, embedder, chosen = setup(folder, share, Settings(show_progress=False, sparse_kernel="numpy"))
    runs, warm = {}, {}
    for name in names:
        kernel, threads = KINDS[name]
        t = time.perf_counter()
        retriever = Retriever(Settings(show_progress=False, sparse_kernel=kernel, search_threads=threads), index, kb,
                              embedder)
        warm[name] = {"retriever_seconds": round(time.perf_counter() - t, 3),
                      "kernel_warm_seconds": retriever.kernel_warm_seconds, "kernel_on": retriever._kernel is not None}
        runs[name] = retriever
    for query in chosen:  # the first pass: every page the probe reads becomes resident
        for name in names:
            timed(runs[name], query)
    load = [os.getloadavg()]
    rows, cpu, wall = [], dict.fromkeys(names, 0.0), dict.fromkeys(names, 0.0)
    for i, query in enumerate(chosen):
        turn = names[i % len(names):] + names[:i % len(names)]
        got = {}
        for name in turn:
            c, w = time.process_time(), time.perf_counter()
            got[name] = timed(runs[name], query)
            cpu[name] += time.process_time() - c
            wall[name] += time.perf_counter() - w
        rows.append({"identical": {n: got[n][0] == got[names[0]][0] for n in names[1:]},
                     **{n: got[n][1] for n in names}})
    load.append(os.getloadavg())
    summary = {"questions": len(rows), "load": [[round(x, 2) for x in v] for v in load], "warm": warm,
               "columns": "p50, p95, mean (ms)"}
    for n in names:
        summary[n] = {"stages": percentiles([r[n] for r in rows]), "cpu_over_wall": round(cpu[n] / wall[n], 3)}
        if n != names[0]:
            summary[n]["identical_hits"] = sum(r["identical"][n] for r in rows)
            summary[n]["ratio_median"] = round(float(np.median([r[n]["no_embed"] / r[names[0]]["no_embed"]
                                                                for r in rows])), 3)
    out.write_text(json.dumps({"summary": summary, "rows": rows}, indent=1), encoding="utf-8")
    sys.stdout.write(json.dumps(summary, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), float(sys.argv[2]), Path(sys.argv[3]), sys.argv[4:])
