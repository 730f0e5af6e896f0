"""Major page faults per no-problem question at 1M (one thread, after a warm-up pass): getrusage around each
question, PASSES passes in a row, then one more pass after IDLE seconds without a search. This machine's host runs
DAMON with a `pageout` scheme (/sys/kernel/mm/damon/admin/kdamonds/0: physical pages not accessed for ~12
aggregation intervals are paged out), so index pages a question read a minute ago may have to come from the disk.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round20/faults.py INDEX CHUNKS SHARE OUT.json \
        [PASSES] [IDLE]
"""
# ruff: noqa: E402
import json
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "scale-1m-round19"))
sys.path.insert(0, str(HERE))
from paired import setup
from tail import one

from quest.bench.corpus import NO_PROBLEM
from quest.retrieval.retriever import Retriever
from quest.settings import Settings


def run_pass(r, chosen):
    out = []
    for q in chosen:
        a = resource.getrusage(resource.RUSAGE_SELF)
        t = one(r, q)["t"]
        b = resource.getrusage(resource.RUSAGE_SELF)
        out.append({"major": b.ru_majflt - a.ru_majflt, "minor": b.ru_minflt - a.ru_minflt,
                    "ms": round(t["no_embed"], 2)})
    return out


def describe(rows):
    ms = np.array([x["ms"] for x in rows])
    major = np.array([x["major"] for x in rows])
    faulted = major > 0
    return {"questions_with_major_faults": int(faulted.sum()), "major_total": int(major.sum()),
            "p50_p95": [round(float(np.percentile(ms, q)), 1) for q in (50, 95)],
            "p50_with_faults": round(float(np.median(ms[faulted])), 1) if faulted.any() else None,
            "p50_without": round(float(np.median(ms[~faulted])), 1) if (~faulted).any() else None,
            "of_the_slowest_5pct_with_faults": int(faulted[np.argsort(-ms)[:len(ms) // 20]].sum())}


def main(folder, chunks, share, out, passes, idle):
    index, kb, embedder, queries, kinds = setup(folder, chunks, share)
    chosen = [q for q, kind in zip(queries, kinds, strict=True) if kind == NO_PROBLEM]
    r = Retriever(Settings(show_progress=False, search_threads=1), index, kb, embedder)
    run_pass(r, chosen)
    result = {"load": [os.getloadavg()], "passes": []}
    for _ in range(passes):
        result["passes"].append(describe(run_pass(r, chosen)))
    time.sleep(idle)
    result["after_idle_s"] = idle
    result["after_idle"] = describe(run_pass(r, chosen))
    result["load"].append(os.getloadavg())
    Path(out).write_text(json.dumps(result, indent=1), encoding="utf-8")
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4],
         int(sys.argv[5]) if len(sys.argv) > 5 else 3, float(sys.argv[6]) if len(sys.argv) > 6 else 120)
