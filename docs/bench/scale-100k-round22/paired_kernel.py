"""The compiled sparse search against the numpy path, paired per question in one process over one index.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-100k-round22/paired_kernel.py INDEX

Two Retrievers share the index (one with `sparse_kernel="numba"`, one with "numpy") and answer each of the probe's
267 questions in turn, the order alternating per question; three passes, the first a warm-up. Per kind of question:
the median per-question time ratio numba / numpy, each path's p50 / p95, and each stage's median.
"""

import statistics
import sys
from pathlib import Path

from quest.bench import stages, vectors
from quest.bench.corpus import NO_PROBLEM, SEED, SyntheticKB, make_problems, mixed_queries
from quest.kb.documents import KnowledgeBase
from quest.plan import plan, retrieve
from quest.retrieval.index import load_index
from quest.retrieval.retriever import Retriever
from quest.settings import Settings


def timed(retriever: Retriever, query) -> tuple[float, dict[str, float]]:
    """Retrieval excluding embedding, as the bench counts it (a weak name's confirming search included)."""
    planned, result = retrieve(retriever, plan(query.request, retriever))
    tm, first = result.timings, planned.confirm_timings
    ms = tm.get("total", 0.0) + first.get("total", 0.0) - tm.get("embed", 0.0) - first.get("embed", 0.0)
    return ms, dict(tm)


def main(folder: Path) -> None:
    kb = KnowledgeBase(documents=(), problems=make_problems(400))
    queries, kinds = mixed_queries(SyntheticKB(kb=kb, n_chunks=100_000, seed=SEED), 200, 0.25)
    index = load_index(folder)
    numpy_settings = Settings(show_progress=False, sparse_kernel="numpy")
    prepared = stages.prepare(Retriever(numpy_settings, index, kb, None), queries)
    embedder = vectors.LookupEmbedder("synthetic-bge-m3-shape", vectors.DIM,
                                      vectors.query_lookup(prepared, vectors.problem_centres(list(kb.problems))),
                                      lexical=True)
    paths = {"np": Retriever(numpy_settings, index, kb, embedder),
             "nb": Retriever(Settings(show_progress=False, sparse_kernel="numba"), index, kb, embedder)}
    assert paths["np"]._kernel is None and paths["nb"]._kernel is not None
    rows = []
    for rep in range(3):
        for i, (query, kind) in enumerate(zip(queries, kinds, strict=True)):
            order = ("np", "nb") if (i + rep) % 2 == 0 else ("nb", "np")
            out = {name: timed(paths[name], query) for name in order}
            if rep > 0:
                rows.append((kind, out))
    for label in ("names", "none"):
        sel = [out for kind, out in rows if (kind == NO_PROBLEM) == (label == "none")]
        ratio = statistics.median(o["nb"][0] / o["np"][0] for o in sel)
        q_np = statistics.quantiles([o["np"][0] for o in sel], n=100)
        q_nb = statistics.quantiles([o["nb"][0] for o in sel], n=100)
        print(label, len(sel), "median ratio nb/np", round(ratio, 3), "np p50/p95", round(q_np[49], 2),
              round(q_np[94], 2), "nb p50/p95", round(q_nb[49], 2), round(q_nb[94], 2))
        for stage in sorted(set().union(*(o["np"][1] for o in sel))):
            print("   ", stage, round(statistics.median(o["np"][1].get(stage, 0) for o in sel), 3),
                  round(statistics.median(o["nb"][1].get(stage, 0) for o in sel), 3))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
