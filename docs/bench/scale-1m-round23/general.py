"""Paired in one process: a named problem's search of the general documents on two threads too (`general`), or on
one as the default gives it (`default`: two only for whole-base searches), for the questions naming a problem
(issue 14).

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round23/general.py INDEX CHUNKS SHARE OUT.json \
        [PASSES]

Each question runs on both Retrievers (default settings), the order alternating per question, PASSES passes after a
warm-up pass; per variant each question's median time excluding embedding, p50 / p95, the median per-question ratio
general / default, and whether the hits are the same.
"""
# ruff: noqa: E402
import json
import os
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "scale-1m-round19"))
sys.path.insert(0, str(HERE))
from paired import setup
from prefetch import one

from quest.bench.corpus import NO_PROBLEM
from quest.retrieval.parallel import threads_for
from quest.retrieval.retriever import Retriever
from quest.settings import Settings


class GeneralToo(Retriever):
    def _threads(self, rows, whole):
        kept = (self._general_rows, *self._general_but.values())
        if rows is not None and whole is None and any(rows is v for v in kept):
            return threads_for(self.settings.search_threads, len(self.index.chunks))
        return super()._threads(rows, whole)


def main(folder: Path, chunks: int, share: float, out: Path, passes: int) -> None:
    index, kb, embedder, queries, kinds = setup(folder, chunks, share)
    chosen = [q for q, kind in zip(queries, kinds, strict=True) if kind != NO_PROBLEM]
    settings = Settings(show_progress=False)
    runs = {"default": Retriever(settings, index, kb, embedder), "general": GeneralToo(settings, index, kb, embedder)}
    same = sum(one(runs["default"], q)[1] == one(runs["general"], q)[1] for q in chosen)  # also the warm-up pass
    load = [round(x, 2) for x in os.getloadavg()]
    times = {name: [[] for _ in chosen] for name in runs}
    for p in range(passes):
        for i, q in enumerate(chosen):
            for name in (("default", "general") if (i + p) % 2 == 0 else ("general", "default")):
                times[name][i].append(one(runs[name], q)[0])
    med = {name: [float(np.median(t)) for t in v] for name, v in times.items()}
    ratio = [a / b for a, b in zip(med["general"], med["default"], strict=True)]
    result = {"questions": len(chosen), "passes": passes, "load": load,
              "load_after": [round(x, 2) for x in os.getloadavg()], "same_hits": same,
              **{name: {"p50": round(float(np.percentile(v, 50)), 2), "p95": round(float(np.percentile(v, 95)), 2)}
                 for name, v in med.items()},
              "median_ratio": round(float(np.median(ratio)), 3)}
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4]),
         int(sys.argv[5]) if len(sys.argv) > 5 else 3)
