"""Which no-problem questions form the slowest 5% at 1M (one thread, warm), and which stage dominates each.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round20/tail.py INDEX CHUNKS SHARE OUT.json [PASSES]

The probe's no-problem questions (round 19's paired.setup) go through the library's Retriever: one warm-up pass,
then PASSES passes (default 3). A question's time is the median over the passes of its retrieval excluding
embedding, counted as the bench counts it: the confirming search of a weak name included (`Plan.confirm_timings`).
Per question: that time, each stage's median, whether the search widened or was confirmed, the hint tier, the parts
and their token counts. The summary sets the slowest 5% beside the median question, stage by stage.
"""
# ruff: noqa: E402
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "scale-1m-round19"))
from paired import setup

from quest.bench.corpus import NO_PROBLEM
from quest.plan import plan, retrieve
from quest.retrieval.retriever import Retriever
from quest.settings import Settings

STAGES = ("tokenize", "bm25_general", "bm25_global", "dense_general", "dense_global", "lexical_general",
          "lexical_global", "fusion")


def one(retriever: Retriever, query) -> dict:
    p = plan(query.request, retriever)
    w = time.perf_counter()
    planned, result = retrieve(retriever, p)
    wall = (time.perf_counter() - w) * 1000
    tm, first = result.timings, planned.confirm_timings
    row = {k: tm.get(k, 0.0) + first.get(k, 0.0) for k in STAGES}
    row["no_embed"] = tm.get("total", 0.0) + first.get("total", 0.0) - tm.get("embed", 0.0) - first.get("embed", 0.0)
    row["other"] = row["no_embed"] - sum(row[k] for k in STAGES)
    row["retrieve_wall"] = wall - tm.get("embed", 0.0) - first.get("embed", 0.0)
    return {"t": row, "widened": bool(result.widened), "confirmed": bool(first), "hint": bool(p.exclude_kinds),
            "parts": {k: len(v.split()) for k, v in p.parts.as_dict().items() if v}, "hits": len(result.hits)}


def main(folder: Path, chunks: int, share: float, out: Path, passes: int) -> None:
    index, kb, embedder, queries, kinds = setup(folder, chunks, share)
    chosen = [q for q, kind in zip(queries, kinds, strict=True) if kind == NO_PROBLEM]
    r = Retriever(Settings(show_progress=False, search_threads=1), index, kb, embedder)
    for q in chosen:
        one(r, q)
    load = [os.getloadavg()]
    runs = [[one(r, q) for q in chosen] for _ in range(passes)]
    load.append(os.getloadavg())
    rows = []
    for i in range(len(chosen)):
        first = runs[0][i]
        keys = first["t"].keys()
        t = {k: round(float(np.median([run[i]["t"][k] for run in runs])), 3) for k in keys}
        rows.append({"i": i, **{k: v for k, v in first.items() if k != "t"}, "t": t,
                     "passes": [{k: round(run[i]["t"][k], 2) for k in keys} for run in runs]})
    order = sorted(rows, key=lambda r: -r["t"]["no_embed"])
    n_tail = max(1, len(rows) // 20)
    tail = order[:n_tail]

    def med(group, key):
        return round(float(np.median([r["t"][key] for r in group])), 2)

    keys = ["no_embed", "retrieve_wall", *STAGES, "other"]
    summary = {"questions": len(rows), "passes": passes, "load": [[round(x, 2) for x in v] for v in load],
               "p50": med(rows, "no_embed"),
               "p95": round(float(np.percentile([r["t"]["no_embed"] for r in rows], 95)), 2),
               "tail_n": n_tail,
               "stage_median_all": {k: med(rows, k) for k in keys},
               "stage_median_tail": {k: med(tail, k) for k in keys},
               "tail_widened": sum(r["widened"] for r in tail), "all_widened": sum(r["widened"] for r in rows),
               "tail_confirmed": sum(r["confirmed"] for r in tail), "all_confirmed": sum(r["confirmed"] for r in rows),
               "tail_hint": sum(r["hint"] for r in tail), "all_hint": sum(r["hint"] for r in rows),
               "tail": [{"i": r["i"], "widened": r["widened"], "confirmed": r["confirmed"], "hint": r["hint"],
                         "parts": r["parts"], **{k: round(r["t"][k], 1) for k in keys}} for r in tail]}
    out.write_text(json.dumps({"summary": summary, "rows": rows}, separators=(",", ":")), encoding="utf-8")
    sys.stdout.write(json.dumps(summary, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4]),
         int(sys.argv[5]) if len(sys.argv) > 5 else 3)
