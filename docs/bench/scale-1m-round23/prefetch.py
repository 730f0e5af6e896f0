"""Paired in one process: the whole-base dense lists found beside the general documents' lists (after) or in the
whole-base search that follows (before), at 1M, questions naming no problem, default search threads (issue 14).

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round23/prefetch.py INDEX CHUNKS SHARE OUT.json \
        [PASSES] [THREADS]

`Before` is a Retriever whose `_part_lists` is the one before the change (copied below). Each question runs on
both, the order alternating per question, PASSES passes after a warm-up pass; per variant each question's median
time excluding embedding, p50 / p95 over the questions, the median per-question ratio after / before, and whether
the hits are the same.
"""
# ruff: noqa: E402
import functools
import json
import os
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "scale-1m-round19"))
from paired import setup

from quest.bench.corpus import NO_PROBLEM
from quest.plan import plan, retrieve
from quest.retrieval import retriever as retriever_module
from quest.retrieval.parallel import run_all, threads_for
from quest.retrieval.retriever import Retriever
from quest.settings import Settings


class Before(Retriever):
    def _part_lists(self, queries, rows, k, timings, scope, whole=None):
        jobs = []
        for q in queries:
            if q.tokens:
                jobs.append((f"bm25:{q.name}", "bm25", functools.partial(self._bm25_list, q, rows, k, whole)))
            if q.dense is not None and self.index.dense is not None:
                jobs.append((f"dense:{q.name}", "dense", functools.partial(self._dense_list, q, rows, k)))
            if q.lexical and self.index.lexical is not None:
                jobs.append((f"lexical:{q.name}", "lexical", functools.partial(self._lexical_list, q, rows, k,
                                                                                 whole)))
        covered = len(self.index.chunks) if rows is None or whole is not None else int(rows.size)
        found = run_all([functools.partial(retriever_module._timed, job) for _, _, job in jobs],
                        threads_for(self.settings.search_threads, covered))
        lists = {}
        for (name, signal, _), (ranked, ms) in zip(jobs, found, strict=True):
            lists[name] = ranked
            timings[f"{signal}_{scope}"] = timings.get(f"{signal}_{scope}", 0) + ms
        return lists


def one(r: Retriever, query) -> tuple[float, list[str]]:
    p = plan(query.request, r)
    planned, result = retrieve(r, p)
    tm, first = result.timings, planned.confirm_timings
    t = tm.get("total", 0.0) + first.get("total", 0.0) - tm.get("embed", 0.0) - first.get("embed", 0.0)
    return t, [h.chunk.id for h in result.hits]


def main(folder: Path, chunks: int, share: float, out: Path, passes: int, threads: int) -> None:
    index, kb, embedder, queries, kinds = setup(folder, chunks, share)
    chosen = [q for q, kind in zip(queries, kinds, strict=True) if kind == NO_PROBLEM]
    settings = Settings(show_progress=False, search_threads=threads)
    runs = {"before": Before(settings, index, kb, embedder), "after": Retriever(settings, index, kb, embedder)}
    same = sum(one(runs["before"], q)[1] == one(runs["after"], q)[1] for q in chosen)  # also the warm-up pass
    load = [round(x, 2) for x in os.getloadavg()]
    times = {name: [[] for _ in chosen] for name in runs}
    for p in range(passes):
        for i, q in enumerate(chosen):
            for name in (("before", "after") if (i + p) % 2 == 0 else ("after", "before")):
                times[name][i].append(one(runs[name], q)[0])
    med = {name: [float(np.median(t)) for t in v] for name, v in times.items()}
    ratio = [a / b for a, b in zip(med["after"], med["before"], strict=True)]
    result = {"questions": len(chosen), "passes": passes, "threads": threads, "load": load,
              "load_after": [round(x, 2) for x in os.getloadavg()], "same_hits": same,
              **{name: {"p50": round(float(np.percentile(v, 50)), 2), "p95": round(float(np.percentile(v, 95)), 2)}
                 for name, v in med.items()},
              "median_ratio": round(float(np.median(ratio)), 3)}
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4]),
         int(sys.argv[5]) if len(sys.argv) > 5 else 3, int(sys.argv[6]) if len(sys.argv) > 6 else 0)
