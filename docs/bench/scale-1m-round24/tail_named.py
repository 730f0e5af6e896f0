"""What the slowest questions naming a problem do that the others do not (issue 14).

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round24/tail_named.py INDEX CHUNKS SHARE OUT.json \
        [THREADS] [PASSES]

Each question naming a problem, PASSES passes after a warm-up pass (default settings but `search_threads`): its median
time excluding embedding, and what its search did: a weak name confirmed by a first search of the whole base
(`guessed`), a widened retry, a whole-base fill-up (`global` timings), the problem's rows. The slowest 5% beside all.
"""
# ruff: noqa: E402
import json
import os
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "scale-1m-round19"))
from paired import setup

from quest.bench.corpus import NO_PROBLEM
from quest.plan import plan, retrieve
from quest.retrieval.retriever import Retriever
from quest.settings import Settings


def one(r: Retriever, query) -> tuple[float, dict]:
    p = plan(query.request, r)
    planned, result = retrieve(r, p)
    tm, first = result.timings, planned.confirm_timings
    t = tm.get("total", 0.0) + first.get("total", 0.0) - tm.get("embed", 0.0) - first.get("embed", 0.0)
    pid = result.problem_id
    what = {"guessed": planned.extra.get("guessed") is not None, "widened": bool(result.widened),
            "filled": any(k.endswith("_global") for k in tm), "confirm_ms": round(first.get("total", 0.0), 2),
            "problem_rows": int(r.index.rows_by_problem[pid].size) if pid in r.index.rows_by_problem else 0,
            "parts": sorted(planned.parts.as_dict()) if planned.parts is not None else []}
    return t, what


def main(folder: Path, chunks: int, share: float, out: Path, threads: int, passes: int) -> None:
    index, kb, embedder, queries, kinds = setup(folder, chunks, share)
    chosen = [q for q, kind in zip(queries, kinds, strict=True) if kind != NO_PROBLEM]
    r = Retriever(Settings(show_progress=False, search_threads=threads), index, kb, embedder)
    what = [one(r, q)[1] for q in chosen]
    load = [round(x, 2) for x in os.getloadavg()]
    times = [float(np.median([one(r, q)[0] for _ in range(passes)])) for q in chosen]
    order = sorted(range(len(chosen)), key=lambda i: -times[i])
    tail = order[: max(1, len(order) // 20)]

    def share_of(rows, key):
        return round(sum(bool(what[i][key]) for i in rows) / len(rows), 3)

    summary = {"questions": len(chosen), "threads": threads, "passes": passes, "load": load,
               "p50": round(float(np.percentile(times, 50)), 2), "p95": round(float(np.percentile(times, 95)), 2),
               "share_all": {k: share_of(range(len(chosen)), k) for k in ("guessed", "widened", "filled")},
               "share_tail": {k: share_of(tail, k) for k in ("guessed", "widened", "filled")},
               "tail": [{"ms": round(times[i], 2), **what[i]} for i in tail],
               "median_problem_rows": float(np.median([w["problem_rows"] for w in what]))}
    out.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    sys.stdout.write(json.dumps(summary) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4]),
         int(sys.argv[5]) if len(sys.argv) > 5 else 0, int(sys.argv[6]) if len(sys.argv) > 6 else 3)
