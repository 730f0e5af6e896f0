"""Paired, in process: each probe question retrieved from the index as written before (postings unaligned) and from
the same index with aligned postings (`npzfile`), alternating which goes first.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-blockmax/paired.py BEFORE AFTER SHARE OUT.json

Both folders hold the same rows in the same order (AFTER is BEFORE compacted: only the postings archives' bytes
differ). The probe's mixed questions (200 that name a problem, plus SHARE that name none) run through one Retriever
per index with the same code, so load drift on a shared machine hits both alike. The hits (chunk ids, fused and
shown scores) are compared; per kind, the per-question latencies excluding embedding and per stage are summarized.
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
from quest.retrieval.index import load_index
from quest.retrieval.retriever import Retriever
from quest.settings import Settings

STAGES = ("no_embed", "bm25_global", "lexical_global", "dense_global", "bm25_general", "lexical_general",
          "dense_general", "fusion")


def main(before: Path, after: Path, share: float, out: Path) -> None:
    settings = Settings(show_progress=False)
    kb = KnowledgeBase(documents=(), problems=make_problems(400))
    queries, kinds = mixed_queries(SyntheticKB(kb=kb, n_chunks=1_000_000, seed=SEED), 200, share)
    centres = vectors.problem_centres(list(kb.problems))
    retrievers = []
    for folder in (before, after):
        index = load_index(folder)
        prepared = stages.prepare(Retriever(settings, index, kb, None), queries)
        lookup = vectors.query_lookup(prepared, centres)
        embedder = vectors.LookupEmbedder("synthetic-bge-m3-shape", vectors.DIM, lookup, lexical=True)
        retrievers.append(Retriever(settings, index, kb, embedder))

    def one(query, which: int) -> tuple:
        retriever = retrievers[which]
        _, result = retrieve(retriever, plan(query.request, retriever))
        tm = dict(result.timings)
        tm["no_embed"] = tm.get("total", 0) - tm.get("embed", 0)
        return [(h.chunk.id, h.fused, h.score) for h in result.hits], {k: tm.get(k, 0.0) for k in STAGES}

    for query in queries[:5]:  # warm-up
        one(query, 0)
        one(query, 1)
    load = [os.getloadavg()]
    rows = []
    for i, (query, kind) in enumerate(zip(queries, kinds, strict=True)):
        first = i % 2
        results = {first: one(query, first)}
        results[1 - first] = one(query, 1 - first)
        rows.append({"kind": kind, "identical": results[0][0] == results[1][0],
                     "before": results[0][1], "after": results[1][1]})
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
    main(Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4]))
