"""Paired, in one process: each probe question retrieved with this round's scipy scatter and with main's numpy
indexing (`quest/retrieval/scatter.py`'s kernel switched off), alternating which goes first.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round12/paired.py INDEX SHARE OUT.json

The probe's mixed questions (200 that name a problem, plus SHARE that name none) run through one Retriever; the
hits (chunk ids, fused and shown scores) of the two ways are compared, and per kind the per-question latencies
excluding embedding and per stage are summarized (p50 / p95), with the median per-question ratio after / before.
"""

import json
import os
import sys
from pathlib import Path

import numpy as np

from quest.bench import stages, vectors
from quest.bench.corpus import SEED, SyntheticKB, make_problems, mixed_queries
from quest.kb.documents import KnowledgeBase
from quest.plan import plan, retrieve
from quest.retrieval import scatter
from quest.retrieval.index import load_index
from quest.retrieval.retriever import Retriever
from quest.settings import Settings

STAGES = ("no_embed", "bm25_global", "lexical_global", "dense_global", "bm25_general", "lexical_general",
          "dense_general", "bm25_problem", "lexical_problem", "dense_problem", "fusion", "tokenize")


def main(folder: Path, share: float, out: Path) -> None:
    settings = Settings(show_progress=False)
    kb = KnowledgeBase(documents=(), problems=make_problems(400))
    queries, kinds = mixed_queries(SyntheticKB(kb=kb, n_chunks=1_000_000, seed=SEED), 200, share)
    centres = vectors.problem_centres(list(kb.problems))
    index = load_index(folder)
    prepared = stages.prepare(Retriever(settings, index, kb, None), queries)
    embedder = vectors.LookupEmbedder("synthetic-bge-m3-shape", vectors.DIM, vectors.query_lookup(prepared, centres),
                                      lexical=True)
    retriever = Retriever(settings, index, kb, embedder)
    kernel = scatter._MATVEC

    def one(query, after: bool) -> tuple:
        scatter._MATVEC = kernel if after else None
        try:
            _, result = retrieve(retriever, plan(query.request, retriever))
        finally:
            scatter._MATVEC = kernel
        tm = dict(result.timings)
        tm["no_embed"] = tm.get("total", 0) - tm.get("embed", 0)
        return [(h.chunk.id, h.fused, h.score) for h in result.hits], {k: tm.get(k, 0.0) for k in STAGES}

    for query in queries[:5]:  # warm-up
        one(query, False)
        one(query, True)
    load = [os.getloadavg()]
    rows = []
    for i, (query, kind) in enumerate(zip(queries, kinds, strict=True)):
        first = bool(i % 2)
        results = {first: one(query, first)}
        results[not first] = one(query, not first)
        rows.append({"kind": kind, "identical": results[False][0] == results[True][0],
                     "before": results[False][1], "after": results[True][1]})
    load.append(os.getloadavg())
    summary = {"questions": len(rows), "identical_hits": sum(r["identical"] for r in rows),
               "load": [[round(x, 2) for x in v] for v in load]}
    for kind in sorted(set(kinds)):
        chosen = [r for r in rows if r["kind"] == kind]
        summary[kind] = {"n": len(chosen), "ratio_median": round(float(np.median(
            [r["after"]["no_embed"] / r["before"]["no_embed"] for r in chosen])), 3)}
        for way in ("before", "after"):
            summary[kind][way] = {k: [round(float(np.percentile([r[way][k] for r in chosen], p)), 1) for p in (50, 95)]
                                  for k in STAGES}
    out.write_text(json.dumps({"summary": summary, "rows": rows}, indent=1), encoding="utf-8")
    sys.stdout.write(json.dumps(summary, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), float(sys.argv[2]), Path(sys.argv[3]))
