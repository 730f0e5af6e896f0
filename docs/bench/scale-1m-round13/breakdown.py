"""Where a no-problem question's time goes at 1M, warm: per stage p50 / p95 over the second of two passes.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round13/breakdown.py INDEX SHARE OUT.json

The probe's questions that name no problem (`corpus.mixed_queries` at SHARE; 0.6 gives 300) are planned and
retrieved twice through one Retriever; the second pass is summarized. "other" is the search's total minus
embedding and every timed stage: the floors, the lead rules, the topic gate, decoding the shown chunks.
"""

import json
import os
import sys
from pathlib import Path

import numpy as np

from quest.bench import stages, vectors
from quest.bench.corpus import NO_PROBLEM, SEED, SyntheticKB, make_problems, mixed_queries
from quest.kb.documents import KnowledgeBase
from quest.plan import plan, retrieve
from quest.retrieval.index import load_index
from quest.retrieval.retriever import Retriever
from quest.settings import Settings


def setup(folder: Path, share: float, settings: Settings | None = None):
    """The index, the retriever with the bench's lookup embedder, and the no-problem questions."""
    settings = settings or Settings(show_progress=False)
    kb = KnowledgeBase(documents=(), problems=make_problems(400))
    queries, kinds = mixed_queries(SyntheticKB(kb=kb, n_chunks=1_000_000, seed=SEED), 200, share)
    centres = vectors.problem_centres(list(kb.problems))
    index = load_index(folder)
    prepared = stages.prepare(Retriever(settings, index, kb, None), queries)
    embedder = vectors.LookupEmbedder("synthetic-bge-m3-shape", vectors.DIM, vectors.query_lookup(prepared, centres),
                                      lexical=True)
    chosen = [q for q, kind in zip(queries, kinds, strict=True) if kind == NO_PROBLEM]
    return index, kb, embedder, chosen


def timed(retriever: Retriever, query) -> tuple[list, dict[str, float]]:
    _, result = retrieve(retriever, plan(query.request, retriever))
    tm = {k: v for k, v in result.timings.items() if k not in ("total", "embed")}
    tm["no_embed"] = result.timings.get("total", 0.0) - result.timings.get("embed", 0.0)
    tm["other"] = tm["no_embed"] - sum(v for k, v in tm.items() if k != "no_embed")
    return [(h.chunk.id, h.fused, h.score) for h in result.hits], tm


def percentiles(rows: list[dict[str, float]]) -> dict[str, list[float]]:
    keys = sorted({k for r in rows for k in r})
    return {k: [round(float(np.percentile([r.get(k, 0.0) for r in rows], p)), 1) for p in (50, 95)]
                + [round(float(np.mean([r.get(k, 0.0) for r in rows])), 1)] for k in keys}


def main(folder: Path, share: float, out: Path) -> None:
    index, kb, embedder, chosen = setup(folder, share)
    retriever = Retriever(Settings(show_progress=False), index, kb, embedder)
    load = [os.getloadavg()]
    first = [timed(retriever, q)[1] for q in chosen]
    load.append(os.getloadavg())
    second = [timed(retriever, q)[1] for q in chosen]
    load.append(os.getloadavg())
    summary = {"questions": len(chosen), "load": [[round(x, 2) for x in v] for v in load],
               "columns": "p50, p95, mean (ms)", "first_pass": percentiles(first), "second_pass": percentiles(second)}
    out.write_text(json.dumps({"summary": summary, "second": second}, indent=1), encoding="utf-8")
    sys.stdout.write(json.dumps(summary, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), float(sys.argv[2]), Path(sys.argv[3]))
