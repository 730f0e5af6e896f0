"""In-process timings of the bench's 200 named-problem questions on a kept index (issue 14, dgen).

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-dgen/timings.py INDEX_DIR OUT.json [--cprofile]

One process, warm page cache after the first pass: per timing key of `Retriever.search` (dense_general,
bm25_general, ...) the second pass's p50/p95 in ms, plus each question's top-5 chunk ids (to compare rankings
before and after a change). With --cprofile the second pass runs under cProfile and the top functions print.
"""

from __future__ import annotations

import cProfile
import json
import pstats
import sys
import time
from pathlib import Path

import numpy as np

from quest.bench import stages, vectors
from quest.bench.corpus import SEED, SyntheticKB, make_problems, mixed_queries
from quest.kb.documents import KnowledgeBase
from quest.retrieval.index import load_index
from quest.retrieval.retriever import Retriever
from quest.settings import Settings


def one_pass(retriever, queries, top5):
    keys: dict[str, list[float]] = {}
    for q in queries:
        planned = stages.plan(q.request, retriever)
        _, result = stages.retrieve(retriever, planned)
        top5.append([[h.chunk.id, h.score] for h in result.hits[:5]])
        for k, v in result.timings.items():
            keys.setdefault(k, []).append(v)
    return {k: {"n": len(v), "p50": round(float(np.percentile(v, 50)), 3), "p95": round(float(np.percentile(v, 95)), 3),
                "mean": round(float(np.mean(v)), 3)} for k, v in sorted(keys.items())}


if __name__ == "__main__":
    folder, out = Path(sys.argv[1]), Path(sys.argv[2])
    t = time.perf_counter()
    index = load_index(folder)
    n, problems, count = (1_000_000, 400, 200) if index.size > 500_000 else (100_000, 400, 200)
    settings = Settings(show_progress=False)
    kb = KnowledgeBase(documents=(), problems=make_problems(problems))
    queries, _ = mixed_queries(SyntheticKB(kb=kb, n_chunks=n, seed=SEED), count, 0.0)
    centres = vectors.problem_centres(list(kb.problems))
    prepared = stages.prepare(Retriever(settings, index, kb, None), queries)
    embedder = vectors.LookupEmbedder("synthetic-bge-m3-shape", vectors.DIM, vectors.query_lookup(prepared, centres),
                                      lexical=True)
    retriever = Retriever(settings, index, kb, embedder)
    first: list = []
    one_pass(retriever, queries, first)
    top5: list = []
    if "--cprofile" in sys.argv:
        prof = cProfile.Profile()
        prof.enable()
        timings = one_pass(retriever, queries, top5)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(35)
    else:
        timings = one_pass(retriever, queries, top5)
    out.write_text(json.dumps({"rows": index.size, "timings": timings, "top5": top5}, indent=1), encoding="utf-8")
    print(json.dumps(timings, indent=1))
