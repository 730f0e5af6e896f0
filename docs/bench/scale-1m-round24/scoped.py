"""Where two threads start to pay for a named problem's batch (its own searches and the general documents' found
beside them, `Retriever._part_lists`), by the rows the batch covers (issue 14).

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round24/scoped.py INDEX CHUNKS SHARE OUT.json \
        SIZES [PASSES]

SIZES (comma-separated) are how many of the index's general rows the retrievers treat as the general documents (the
first ones, kept read-only as the retriever keeps its own): the batch covers one problem's rows plus those. For each
size, every question naming a problem runs on a one-thread and a two-thread Retriever (`search_threads` 1 and 2), the
order alternating per question, PASSES passes after a warm-up pass; per size: each variant's p50 / p95 of the
per-question median time excluding embedding, the median per-question ratio two / one, whether the hits agree.
"""
# ruff: noqa: E402
import json
import os
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "scale-1m-round19"))
sys.path.insert(0, str(HERE.parent / "scale-1m-round23"))
from paired import setup
from prefetch import one

from quest.bench.corpus import NO_PROBLEM
from quest.retrieval.retriever import Retriever
from quest.settings import Settings


def with_general(r: Retriever, size: int) -> Retriever:
    """`r` with only its first `size` general rows as the general documents."""
    rows = np.array(r._general_rows[:size])
    rows.flags.writeable = False
    r._general_rows = rows
    return r


def main(folder: Path, chunks: int, share: float, out: Path, sizes: list[int], passes: int) -> None:
    index, kb, embedder, queries, kinds = setup(folder, chunks, share)
    chosen = [q for q, kind in zip(queries, kinds, strict=True) if kind != NO_PROBLEM]
    results = []
    for size in sizes:
        runs = {t: with_general(Retriever(Settings(show_progress=False, search_threads=t), index, kb, embedder), size)
                for t in (1, 2)}
        same = sum(one(runs[1], q)[1] == one(runs[2], q)[1] for q in chosen)  # also the warm-up pass
        load = [round(x, 2) for x in os.getloadavg()]
        times: dict[int, list[list[float]]] = {t: [[] for _ in chosen] for t in runs}
        for p in range(passes):
            for i, q in enumerate(chosen):
                for t in ((1, 2) if (i + p) % 2 == 0 else (2, 1)):
                    times[t][i].append(one(runs[t], q)[0])
        med = {t: [float(np.median(v)) for v in tv] for t, tv in times.items()}
        ratio = [a / b for a, b in zip(med[2], med[1], strict=True)]
        row = {"general_rows": int(runs[1]._general_rows.size), "questions": len(chosen), "passes": passes,
               "load": load, "same_hits": same,
               **{f"threads_{t}": {"p50": round(float(np.percentile(v, 50)), 2),
                                   "p95": round(float(np.percentile(v, 95)), 2)} for t, v in med.items()},
               "median_ratio_2_to_1": round(float(np.median(ratio)), 3)}
        results.append(row)
        sys.stdout.write(json.dumps(row) + "\n")
        sys.stdout.flush()
    out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4]),
         [int(x) for x in sys.argv[5].split(",")], int(sys.argv[6]) if len(sys.argv) > 6 else 3)
