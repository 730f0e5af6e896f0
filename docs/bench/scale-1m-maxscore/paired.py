"""Paired, in process: each probe question retrieved with the pruned whole-base lists and with the scan.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-maxscore/paired.py INDEX SHARE OUT.json

The probe's mixed questions (200 that name a problem, plus SHARE that name none), each retrieved twice in the same
process, alternating which way goes first, so load drift on a shared machine hits both alike. The hits (chunk ids,
fused and shown scores) are compared; the per-question latencies excluding embedding are summarized per kind.
"""

import json
import sys
from pathlib import Path

import numpy as np

from quest.bench import stages, vectors
from quest.bench.corpus import SEED, SyntheticKB, make_problems, mixed_queries
from quest.kb.documents import KnowledgeBase
from quest.plan import plan, retrieve
from quest.retrieval import retriever as retriever_module
from quest.retrieval.index import load_index
from quest.retrieval.retriever import Retriever
from quest.settings import Settings

KEYS = ("scan_ms", "pruned_ms", "scan_bm25", "pruned_bm25", "scan_lexical", "pruned_lexical")


def main(folder: Path, share: float, out: Path) -> None:
    index = load_index(folder)
    settings = Settings(show_progress=False)
    kb = KnowledgeBase(documents=(), problems=make_problems(400))
    queries, kinds = mixed_queries(SyntheticKB(kb=kb, n_chunks=1_000_000, seed=SEED), 200, share)
    centres = vectors.problem_centres(list(kb.problems))
    prepared = stages.prepare(Retriever(settings, index, kb, None), queries)
    lookup = vectors.query_lookup(prepared, centres)
    embedder = vectors.LookupEmbedder("synthetic-bge-m3-shape", vectors.DIM, lookup, lexical=True)
    retriever = Retriever(settings, index, kb, embedder)
    prune_from = retriever_module.PRUNE_FROM

    def one(query, prune: bool) -> tuple:
        retriever_module.PRUNE_FROM = prune_from if prune else 10**12
        _, result = retrieve(retriever, plan(query.request, retriever))
        tm = result.timings
        return ([(h.chunk.id, h.fused, h.score) for h in result.hits], tm.get("total", 0) - tm.get("embed", 0),
                sum(v for k, v in tm.items() if k.startswith("bm25_")),
                sum(v for k, v in tm.items() if k.startswith("lexical_")))

    for query in queries[:5]:  # warm-up
        one(query, True)
        one(query, False)
    rows = []
    for i, (query, kind) in enumerate(zip(queries, kinds, strict=True)):
        first = one(query, i % 2 == 0)
        second = one(query, i % 2 != 0)
        pruned, scanned = (first, second) if i % 2 == 0 else (second, first)
        rows.append({"kind": kind, "identical": pruned[0] == scanned[0], **dict(zip(KEYS, (
            scanned[1], pruned[1], scanned[2], pruned[2], scanned[3], pruned[3]), strict=True))})
    summary = {"questions": len(rows), "identical_hits": sum(r["identical"] for r in rows)}
    for kind in sorted(set(kinds)):
        chosen = [r for r in rows if r["kind"] == kind]
        summary[kind] = {key: [round(float(np.percentile([r[key] for r in chosen], p)), 1) for p in (50, 95)]
                         for key in KEYS}
        summary[kind]["n"] = len(chosen)
        summary[kind]["ratio_median"] = round(float(np.median([r["pruned_ms"] / r["scan_ms"] for r in chosen])), 3)
    out.write_text(json.dumps({"summary": summary, "rows": rows}, indent=1), encoding="utf-8")
    sys.stdout.write(json.dumps(summary, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), float(sys.argv[2]), Path(sys.argv[3]))
