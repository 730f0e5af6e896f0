"""Paired A/B in one process (round 17's paired.py; per-question rows written rounded, to keep the file small):
each no-problem question retrieved by every variant of variants.py, the order rotating per question, after a warm-up
pass of all of them.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round19/paired.py INDEX CHUNKS SHARE OUT.json \
        before after [THREADS]

CHUNKS is the size the bench built the index for (the questions depend on it). Per variant: per-question latency
excluding embedding and per stage (p50 / p95 / mean), hits identical to the first variant's, the median
per-question ratio to the first, CPU over wall time; the load average before and after.
"""

import json
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "scale-1m-kernel"))
sys.path.insert(0, str(HERE.parent / "scale-1m-round13"))  # breakdown.py
from quest.retrieval import index as index_module  # noqa: E402

# Every comparison here is two ways of searching the same index, so an index kept from an earlier tokenizer version
# (the 1M one is version 3, the 100k one 4; rebuilding takes 8-40 min) is read as it is, as scale-1m-kernel's
# common.accept_tokenizer_3 does for version 3.
index_module.TOKENIZER_VERSION = index_module.read_manifest(Path(sys.argv[1])).tokenizer
from breakdown import percentiles, timed  # noqa: E402
from variants import VARIANTS  # noqa: E402

from quest.bench import stages, vectors  # noqa: E402
from quest.bench.corpus import NO_PROBLEM, SEED, SyntheticKB, make_problems, mixed_queries  # noqa: E402
from quest.kb.documents import KnowledgeBase  # noqa: E402
from quest.retrieval.index import load_index  # noqa: E402
from quest.retrieval.retriever import Retriever  # noqa: E402
from quest.settings import Settings  # noqa: E402


def setup(folder: Path, chunks: int, share: float):
    settings = Settings(show_progress=False)
    kb = KnowledgeBase(documents=(), problems=make_problems(400))
    queries, kinds = mixed_queries(SyntheticKB(kb=kb, n_chunks=chunks, seed=SEED), 200, share)
    index = load_index(folder)
    prepared = stages.prepare(Retriever(settings, index, kb, None), queries)
    embedder = vectors.LookupEmbedder("synthetic-bge-m3-shape", vectors.DIM,
                                      vectors.query_lookup(prepared, vectors.problem_centres(list(kb.problems))),
                                      lexical=True)
    return index, kb, embedder, queries, kinds


def main(folder: Path, chunks: int, share: float, out: Path, names: list[str], threads: int) -> None:
    index, kb, embedder, queries, kinds = setup(folder, chunks, share)
    chosen = [q for q, kind in zip(queries, kinds, strict=True) if kind == NO_PROBLEM]
    runs = {n: VARIANTS[n](Settings(show_progress=False, search_threads=threads), index, kb, embedder) for n in names}
    assert all(r._kernel is not None for r in runs.values()), "numba is not installed"
    for query in chosen:  # the first pass: every page the probe reads becomes resident
        for name in names:
            timed(runs[name], query)
    load = [os.getloadavg()]
    rows, cpu, wall = [], dict.fromkeys(names, 0.0), dict.fromkeys(names, 0.0)
    for i, query in enumerate(chosen):
        turn = names[i % len(names):] + names[:i % len(names)]
        got = {}
        for name in turn:
            c, w = time.process_time(), time.perf_counter()
            got[name] = timed(runs[name], query)
            cpu[name] += time.process_time() - c
            wall[name] += time.perf_counter() - w
        rows.append({"identical": {n: got[n][0] == got[names[0]][0] for n in names[1:]},
                     **{n: got[n][1] for n in names}})
    load.append(os.getloadavg())
    summary = {"index": str(folder), "questions": len(rows), "threads": threads,
               "load": [[round(x, 2) for x in v] for v in load], "columns": "p50, p95, mean (ms)"}
    for n in names:
        summary[n] = {"stages": percentiles([r[n] for r in rows]), "cpu_over_wall": round(cpu[n] / wall[n], 3)}
        if n != names[0]:
            summary[n]["identical_hits"] = sum(r["identical"][n] for r in rows)
            summary[n]["ratio_median"] = round(float(np.median([r[n]["no_embed"] / r[names[0]]["no_embed"]
                                                                for r in rows])), 3)
    for r in rows:  # per question, ms to 0.01 and the stages a question did not run left out: a small file
        for n in names:
            r[n] = {k: round(v, 2) for k, v in r[n].items() if round(v, 2) != 0}
    out.write_text(json.dumps({"summary": summary, "rows": rows}, separators=(",", ":")), encoding="utf-8")
    sys.stdout.write(json.dumps(summary, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4]),
         [a for a in sys.argv[5:] if a in VARIANTS], int(sys.argv[-1]) if sys.argv[-1].isdigit() else 1)
