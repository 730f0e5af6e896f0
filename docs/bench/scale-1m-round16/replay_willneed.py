"""The read-ahead of gathered rows, one madvise per run of pages (main) against one batched process_madvise (this
round), paired on the same rows: the IVF candidates of each no-problem question's global dense search at 1M (the
largest gather a question makes), alternating per question which goes first.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round16/replay_willneed.py INDEX CHUNKS SHARE OUT
"""

import json
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from paired import setup, timed  # noqa: E402

from quest.bench.corpus import NO_PROBLEM  # noqa: E402
from quest.retrieval import dense as dense_module  # noqa: E402
from quest.retrieval import pages  # noqa: E402
from quest.retrieval.retriever import Retriever  # noqa: E402
from quest.settings import Settings  # noqa: E402


def main(folder: Path, chunks: int, share: float, out: Path) -> None:
    index, kb, embedder, queries, kinds = setup(folder, chunks, share)
    part = index.dense.parts[0]
    retriever = Retriever(Settings(show_progress=False), index, kb, embedder)
    gathers = []
    real = pages.will_need_rows
    pages.will_need_rows = lambda matrix, rows: gathers.append(np.array(rows)) or real(matrix, rows)
    for query, kind in zip(queries, kinds, strict=True):
        if kind == NO_PROBLEM:
            timed(retriever, query)
    pages.will_need_rows = real
    batch = pages._MADVISE_MANY
    assert batch is not None and not batch.off, "process_madvise is not available here"
    largest = [g for g in gathers if g.size >= dense_module.CANDIDATES_PER_RESULT * 10]
    times = {"loop": [], "batched": []}
    runs = []
    for i, rows in enumerate(largest * 2):
        order = ("loop", "batched") if i % 2 == 0 else ("batched", "loop")
        for name in order:
            pages._MADVISE_MANY = None if name == "loop" else batch
            t = time.perf_counter()
            runs.append(pages.will_need_rows(part.vectors, rows))
            times[name].append((time.perf_counter() - t) * 1000)
    pages._MADVISE_MANY = batch
    half = len(largest)  # the second pass only (pages warm)
    a, b = np.array(times["loop"][half:]), np.array(times["batched"][half:])
    result = {"gathers": len(largest), "requests_median": float(np.median(runs)),
              "loop_ms_p50_p95": [round(float(np.percentile(a, p)), 3) for p in (50, 95)],
              "batched_ms_p50_p95": [round(float(np.percentile(b, p)), 3) for p in (50, 95)],
              "ratio_median": round(float(np.median(b / a)), 3), "batch_still_on": not batch.off,
              "load": [round(x, 2) for x in os.getloadavg()]}
    out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4]))
