"""Per question: the top-5 hits and the retrieval time without embedding, warm, for the code on PYTHONPATH.

    PYTHONPATH=/tmp/nonumba:. flock /work/bench.lock python docs/bench/scale-100k-round21/hits.py /tmp/bm/100k OUT.json

The probe's 267 questions (200 naming a problem + 67 naming none: `corpus.mixed_queries` at share 0.25, 100k chunks)
are planned and retrieved as `stages.run_stages` does, twice through one Retriever on the numpy path
(sparse_kernel="numpy"; /tmp/nonumba also hides numba); the second pass's times are kept. Run it once with each
worktree's code and compare the files with compare.py: equal hits, and the per-question time ratio.
"""

import hashlib
import json
import os
import sys
import time
from pathlib import Path

from quest.bench import stages, vectors
from quest.bench.corpus import NO_PROBLEM, SEED, SyntheticKB, make_problems, mixed_queries
from quest.kb.documents import KnowledgeBase
from quest.plan import plan, retrieve
from quest.retrieval.index import load_index
from quest.retrieval.retriever import Retriever
from quest.settings import Settings


def main(folder: Path, out: Path) -> None:
    settings = Settings(show_progress=False, sparse_kernel="numpy")
    kb = KnowledgeBase(documents=(), problems=make_problems(400))
    queries, kinds = mixed_queries(SyntheticKB(kb=kb, n_chunks=100_000, seed=SEED), 200, 0.25)
    index = load_index(folder)
    prepared = stages.prepare(Retriever(settings, index, kb, None), queries)
    embedder = vectors.LookupEmbedder("synthetic-bge-m3-shape", vectors.DIM,
                                      vectors.query_lookup(prepared, vectors.problem_centres(list(kb.problems))),
                                      lexical=True)
    retriever = Retriever(settings, index, kb, embedder)
    assert retriever._kernel is None, "the compiled kernel is loaded: this measures the numpy path"
    load = [round(os.getloadavg()[0], 2)]
    rows = []
    for _ in range(2):
        rows = []
        for query, kind in zip(queries, kinds, strict=True):
            planned, result = retrieve(retriever, plan(query.request, retriever))
            tm, first = result.timings, planned.confirm_timings
            ms = tm.get("total", 0.0) + first.get("total", 0.0) - tm.get("embed", 0.0) - first.get("embed", 0.0)
            every = [(h.chunk.id, float(h.fused), float(h.score)) for h in result.hits]
            rows.append({"kind": "no_problem" if kind == NO_PROBLEM else "names_problem", "ms": round(ms, 3),
                         "top5": every[:5], "hits": len(every),
                         "all_hits_sha1": hashlib.sha1(json.dumps(every).encode()).hexdigest()})
    load.append(round(os.getloadavg()[0], 2))
    result = {"index": str(folder), "load": load, "questions": rows}
    out.write_text(json.dumps(result, indent=0), encoding="utf-8")


if __name__ == "__main__":
    started = time.time()
    main(Path(sys.argv[1]), Path(sys.argv[2]))
    print(f"done in {time.time() - started:.1f} s")
