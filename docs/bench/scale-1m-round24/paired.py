"""Paired in one process at 1M: this round's changes one at a time against the code without them (issue 14).

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round24/paired.py INDEX CHUNKS SHARE OUT.json \
        KIND BEFORE [PASSES]

KIND: `named` (the questions naming a problem) or `none`. BEFORE names the variant standing for the code before a
change (VARIANTS below); `after` is the library as it is. Each question runs on both Retrievers (default settings),
the order alternating per question, PASSES passes after a warm-up pass; per variant each question's median time
excluding embedding, p50 / p95, the median per-question ratio after / before, and whether the hits are the same.
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
from quest.retrieval.parallel import usable_cores
from quest.retrieval.retriever import Retriever
from quest.settings import Settings


class DecodeEvery(Retriever):
    """Before `_names`: every candidate's chunk decoded to look for the error's names."""

    def _names(self, row, evidence):
        return evidence.named_in(self.index.chunks[row].text)


class Round23Threads(Retriever):
    """Before `_offload` and the new `_threads`: every search of a batch offered to the pool, and two threads only
    for a batch covering a whole base of 100k rows or more (a named problem's batches: one thread)."""

    @staticmethod
    def _offload(batch):
        return list(range(1, len(batch)))

    def _threads(self, batch, offload):
        whole = len(self.index.chunks)
        covered = whole if any(s.size == whole for s in batch) else sum({id(s.run.args[1]): s.size for s in batch
                                                                           if s.run.args[1] is not None}.values())
        if self.settings.search_threads >= 1:
            return self.settings.search_threads
        return 2 if covered >= 100_000 and usable_cores() >= 2 else 1


VARIANTS = {"decode": DecodeEvery, "round23-threads": Round23Threads}


def main(folder: Path, chunks: int, share: float, out: Path, kind: str, before: str, passes: int) -> None:
    index, kb, embedder, queries, kinds = setup(folder, chunks, share)
    chosen = [q for q, k in zip(queries, kinds, strict=True) if (k != NO_PROBLEM) == (kind == "named")]
    settings = Settings(show_progress=False)
    runs = {"before": VARIANTS[before](settings, index, kb, embedder),
            "after": Retriever(settings, index, kb, embedder)}
    same = sum(one(runs["before"], q)[1] == one(runs["after"], q)[1] for q in chosen)  # also the warm-up pass
    load = [round(x, 2) for x in os.getloadavg()]
    times = {name: [[] for _ in chosen] for name in runs}
    for p in range(passes):
        for i, q in enumerate(chosen):
            for name in (("before", "after") if (i + p) % 2 == 0 else ("after", "before")):
                times[name][i].append(one(runs[name], q)[0])
    med = {name: [float(np.median(t)) for t in v] for name, v in times.items()}
    ratio = [a / b for a, b in zip(med["after"], med["before"], strict=True)]
    result = {"kind": kind, "variant": before, "questions": len(chosen), "passes": passes, "load": load,
              "load_after": [round(x, 2) for x in os.getloadavg()], "same_hits": same,
              **{name: {"p50": round(float(np.percentile(v, 50)), 2), "p95": round(float(np.percentile(v, 95)), 2)}
                 for name, v in med.items()},
              "median_ratio": round(float(np.median(ratio)), 3)}
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4]), sys.argv[5], sys.argv[6],
         int(sys.argv[7]) if len(sys.argv) > 7 else 3)
