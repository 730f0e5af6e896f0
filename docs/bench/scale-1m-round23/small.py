"""One search thread or two on the shipped knowledge base (a few thousand chunks, BM25 only): where each search is
short, what does handing jobs to a pool cost? (issue 14)

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round23/small.py DATA_DIR OUT.json [PASSES]

The development questions (knowledge/eval/queries.jsonl) planned as the evaluation plans them, then retrieved by two
Retrievers over the same index (search_threads 1 and 2), alternating per question after a warm-up pass; each
question's median retrieval time excluding embedding per variant, the median per-question ratio, and whether the
hits are the same.
"""
import json
import os
import sys
from pathlib import Path

import numpy as np

from quest.evaluation import DEFAULT_QUERIES, load_queries, plan_query
from quest.plan import retrieve
from quest.retrieval.retriever import Retriever, build_retriever
from quest.settings import Settings


def timed(r: Retriever, planned) -> tuple[float, list[str]]:
    _, result = retrieve(r, planned)
    t = result.timings
    return t.get("total", 0.0) - t.get("embed", 0.0), [h.chunk.id for h in result.hits]


def main(data_dir: Path, out: Path, passes: int) -> None:
    settings = Settings.from_env(embedding_model="none", data_dir=data_dir, show_progress=False)
    base = build_retriever(settings)
    runs = {t: Retriever(settings.replace(search_threads=t), base.index, base.kb, None) for t in (1, 2)}
    queries = load_queries(DEFAULT_QUERIES)
    plans = [plan_query(runs[1], q, settings) for q in queries]
    for p in plans:
        for r in runs.values():
            timed(r, p)
    times: dict[int, list[list[float]]] = {1: [], 2: []}
    same = 0
    for i, p in enumerate(plans):
        order = (1, 2) if i % 2 == 0 else (2, 1)
        got = {t: [timed(runs[t], p) for _ in range(passes)] for t in order}
        for t in (1, 2):
            times[t].append([x for x, _ in got[t]])
        same += got[1][0][1] == got[2][0][1]
    med = {t: [float(np.median(v)) for v in times[t]] for t in (1, 2)}
    ratio = [b / a for a, b in zip(med[1], med[2], strict=True) if a > 0]
    result = {"questions": len(plans), "rows": base.index.chunks.problem.size, "passes": passes,
              "load": [round(x, 2) for x in os.getloadavg()], "same_hits": same,
              **{f"threads_{t}": {"p50": round(float(np.percentile(med[t], 50)), 3),
                                  "p95": round(float(np.percentile(med[t], 95)), 3)} for t in (1, 2)},
              "median_ratio_2_to_1": round(float(np.median(ratio)), 3)}
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    sys.stdout.write(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 3)
