"""Global dense recall@30 of the IVF against the exact scan, on the 100k probe's 267 question vectors.

    PYTHONPATH=. python docs/bench/scale-100k-round22/recall.py INDEX                 # compare.approximate, as JSON
    PYTHONPATH=. python docs/bench/scale-100k-round22/recall.py INDEX 32768,65536     # IVFs on the first N rows
    PYTHONPATH=. python docs/bench/scale-100k-round22/recall.py INDEX diffuse         # questions far from a list

The second form builds an IVF over the first N rows of INDEX's vectors (as `DenseIndex.build_approximate` does);
the third asks INDEX's own IVF 100 questions near the data but in no one cluster (the mean of 3 random rows plus
noise) and 100 random directions. Both print recall@30 and the mean search time at 16, 32 and 64 probes.
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


def diffuse_vectors(dense: DenseIndex, n: int = 100, seed: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """n questions near the data but in no one cluster, and n random unit directions."""
    rng = np.random.default_rng(seed)
    near = np.stack([np.asarray(dense.vectors[rng.integers(0, dense.size, 3)], dtype=np.float32).mean(0)
                     + rng.normal(0, 0.02, dense.dim).astype(np.float32) for _ in range(n)])
    random = rng.normal(size=(n, dense.dim)).astype(np.float32)
    return (near / np.linalg.norm(near, axis=1, keepdims=True),
            random / np.linalg.norm(random, axis=1, keepdims=True))


def print_recall(label: str, dense: DenseIndex, qv: np.ndarray) -> None:
    """Recall@30 of `dense`'s IVF search against its exact scan, and the mean search time, at 16, 32, 64 probes."""
    truth = [{r for r, _ in dense.search(q, 30, exact=True)} for q in qv]
    for nprobe in (16, 32, 64):
        dense_module.NPROBE = nprobe
        recall = [len({r for r, _ in dense.search(q, 30)} & t) / 30 for q, t in zip(qv, truth, strict=True)]
        started = time.perf_counter()
        for q in qv:
            dense.search(q, 30)
        ms = (time.perf_counter() - started) / len(qv) * 1000
        print(label, "nprobe", nprobe, "recall", round(float(np.mean(recall)), 4), "min", round(min(recall), 3),
              "ms mean", round(ms, 2), flush=True)


if __name__ == "__main__":
    loaded = load_index(Path(sys.argv[1]))
    (part,) = loaded.dense.parts
    if sys.argv[2:] == ["diffuse"]:
        if part.ivf is None:
            part.build_approximate()
        near, random = diffuse_vectors(part)
        print_recall("mix3", part, near)
        print_recall("random", part, random)
    elif len(sys.argv) > 2:
        question_vecs = question_vectors(loaded)
        for rows in (int(n) for n in sys.argv[2].split(",")):
            first = DenseIndex.from_vectors(np.asarray(part.vectors[:rows], dtype=np.float32))
            first.build_approximate()
            print_recall(str(rows), first, question_vecs)
    else:
        print(json.dumps(compare.approximate(loaded.dense, question_vectors(loaded), hnsw_up_to=0), indent=1))
