"""Where the time of each kind of probe question goes at 1M, per search-thread setting (issue 14).

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round23/kinds.py INDEX CHUNKS SHARE OUT.json \
        KIND THREADS [PASSES]

KIND is `named` (the questions naming a problem) or `none`. Round 20's tail.py measure (each question's median
over PASSES passes after a warm-up pass, its stages as the retriever times them), for one `search_threads` value;
the summary sets the slowest 5% beside every question, stage by stage.
"""
# ruff: noqa: E402
import json
import os
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "scale-1m-round19"))
sys.path.insert(0, str(HERE.parent / "scale-1m-round20"))
from paired import setup
from tail import STAGES

from quest.bench.corpus import NO_PROBLEM
from quest.plan import plan, retrieve
from quest.retrieval.retriever import Retriever
from quest.settings import Settings

STAGES = (*STAGES, "bm25_problem", "dense_problem", "lexical_problem")


def one(r: Retriever, query) -> dict[str, float]:
    """tail.py's measure with the problem's own stages as well."""
    p = plan(query.request, r)
    planned, result = retrieve(r, p)
    tm, first = result.timings, planned.confirm_timings
    row = {k: tm.get(k, 0.0) + first.get(k, 0.0) for k in STAGES}
    row["no_embed"] = tm.get("total", 0.0) + first.get("total", 0.0) - tm.get("embed", 0.0) - first.get("embed", 0.0)
    row["other"] = row["no_embed"] - sum(row[k] for k in STAGES)
    return row


def main(folder: Path, chunks: int, share: float, out: Path, kind: str, threads: int, passes: int) -> None:
    index, kb, embedder, queries, kinds = setup(folder, chunks, share)
    chosen = [q for q, k in zip(queries, kinds, strict=True) if (k != NO_PROBLEM) == (kind == "named")]
    r = Retriever(Settings(show_progress=False, search_threads=threads), index, kb, embedder)
    for q in chosen:
        one(r, q)
    load = [round(x, 2) for x in os.getloadavg()]
    runs = [[one(r, q) for q in chosen] for _ in range(passes)]
    keys = ["no_embed", *STAGES, "other"]
    rows = [{k: float(np.median([run[i][k] for run in runs])) for k in keys} for i in range(len(chosen))]
    tail = sorted(rows, key=lambda t: -t["no_embed"])[: max(1, len(rows) // 20)]
    summary = {"kind": kind, "threads": threads, "questions": len(rows), "passes": passes, "load": load,
               "p50": round(float(np.percentile([t["no_embed"] for t in rows], 50)), 2),
               "p95": round(float(np.percentile([t["no_embed"] for t in rows], 95)), 2),
               "stage_median_all": {k: round(float(np.median([t[k] for t in rows])), 2) for k in keys},
               "stage_median_tail": {k: round(float(np.median([t[k] for t in tail])), 2) for k in keys}}
    out.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    sys.stdout.write(json.dumps(summary) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4]), sys.argv[5], int(sys.argv[6]),
         int(sys.argv[7]) if len(sys.argv) > 7 else 3)
