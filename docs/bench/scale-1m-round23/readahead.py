"""Paired in one process, at 1M, questions naming no problem: the dense file's pages treated as given back (gathers
read ahead first, as on a machine with little memory) or kept (no read-ahead: on this machine since round 23),
alternating per question (issue 14).

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round23/readahead.py INDEX CHUNKS SHARE OUT.json \
        [PASSES]

A question naming no problem searches no problem's run, so the choice changes only whether its gathers (the IVF's
candidates re-scored, the fused rows' cosines) ask for their pages first (pages.will_need_rows). Per mode each
question's median time excluding embedding, p50 / p95, the median per-question ratio kept / given back, the hits.
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

import quest.retrieval.dense as dense_module
from quest.bench.corpus import NO_PROBLEM
from quest.retrieval.memory import usable_memory
from quest.retrieval.retriever import Retriever
from quest.settings import Settings

MODES = {"given_back": lambda: 0, "kept": usable_memory}


def main(folder: Path, chunks: int, share: float, out: Path, passes: int) -> None:
    index, kb, embedder, queries, kinds = setup(folder, chunks, share)
    chosen = [q for q, kind in zip(queries, kinds, strict=True) if kind == NO_PROBLEM]
    r = Retriever(Settings(show_progress=False), index, kb, embedder)
    found = {}
    for mode, memory in MODES.items():  # the warm-up pass, each mode
        dense_module.usable_memory = memory
        found[mode] = [one(r, q)[1] for q in chosen]
    load = [round(x, 2) for x in os.getloadavg()]
    times = {mode: [[] for _ in chosen] for mode in MODES}
    for p in range(passes):
        for i, q in enumerate(chosen):
            for mode in (("given_back", "kept") if (i + p) % 2 == 0 else ("kept", "given_back")):
                dense_module.usable_memory = MODES[mode]
                times[mode][i].append(one(r, q)[0])
    med = {mode: [float(np.median(t)) for t in v] for mode, v in times.items()}
    ratio = [a / b for a, b in zip(med["kept"], med["given_back"], strict=True)]
    result = {"questions": len(chosen), "passes": passes, "load": load,
              "load_after": [round(x, 2) for x in os.getloadavg()],
              "same_hits": sum(a == b for a, b in zip(found["kept"], found["given_back"], strict=True)),
              **{mode: {"p50": round(float(np.percentile(v, 50)), 2), "p95": round(float(np.percentile(v, 95)), 2)}
                 for mode, v in med.items()},
              "median_ratio": round(float(np.median(ratio)), 3)}
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4]),
         int(sys.argv[5]) if len(sys.argv) > 5 else 3)
