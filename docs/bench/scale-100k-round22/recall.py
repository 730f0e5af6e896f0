"""Global dense recall@30 of the IVF against the exact scan, on the 100k probe's 267 question vectors.

    PYTHONPATH=. python docs/bench/scale-100k-round22/recall.py INDEX                 # compare.approximate, as JSON
    PYTHONPATH=. python docs/bench/scale-100k-round22/recall.py INDEX 32768,65536     # IVFs on the first N rows

The second form builds an IVF over the first N rows of INDEX's vectors (as `DenseIndex.build_approximate` does)
and prints recall@30 and the mean search time at 16, 32 and 64 probes.
"""

import json
import sys
import time
from pathlib import Path

import numpy as np

from quest.bench import compare, stages, vectors
from quest.bench.corpus import SEED, SyntheticKB, make_problems, mixed_queries
from quest.kb.documents import KnowledgeBase
from quest.retrieval import dense as dense_module
from quest.retrieval.dense import DenseIndex
from quest.retrieval.index import Index, load_index
from quest.retrieval.retriever import Retriever
from quest.settings import Settings


def question_vectors(index: Index) -> np.ndarray:
    """The probe's questions (200 naming a problem + 67 naming none) as bge-m3-shaped vectors."""
    settings = Settings(show_progress=False, sparse_kernel="numpy")
    kb = KnowledgeBase(documents=(), problems=make_problems(400))
    queries, _ = mixed_queries(SyntheticKB(kb=kb, n_chunks=100_000, seed=SEED), 200, 0.25)
    prepared = stages.prepare(Retriever(settings, index, kb, None), queries)
    lookup = vectors.query_lookup(prepared, vectors.problem_centres(list(kb.problems)))
    return np.stack([lookup[p.text.strip()][0] for p in prepared])


def on_first_rows(index: Index, qv: np.ndarray, sizes: list[int]) -> None:
    (part,) = index.dense.parts
    for n in sizes:
        sub = DenseIndex.from_vectors(np.asarray(part.vectors[:n], dtype=np.float32))
        sub.build_approximate()
        truth = [{r for r, _ in sub.search(q, 30, exact=True)} for q in qv]
        for nprobe in (16, 32, 64):
            dense_module.NPROBE = nprobe
            recall = [len({r for r, _ in sub.search(q, 30)} & t) / 30 for q, t in zip(qv, truth, strict=True)]
            started = time.perf_counter()
            for q in qv:
                sub.search(q, 30)
            ms = (time.perf_counter() - started) / len(qv) * 1000
            print(n, "nprobe", nprobe, "recall", round(float(np.mean(recall)), 4), "min", min(recall),
                  "ms mean", round(ms, 2), flush=True)


if __name__ == "__main__":
    loaded = load_index(Path(sys.argv[1]))
    question_vecs = question_vectors(loaded)
    if len(sys.argv) > 2:
        on_first_rows(loaded, question_vecs, [int(n) for n in sys.argv[2].split(",")])
    else:
        print(json.dumps(compare.approximate(loaded.dense, question_vecs, hnsw_up_to=0), indent=1))
