"""recall@30 of the global dense search against the exact float16 scan, per IVF file and search setting.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-global7/ivf_recall.py OUT.json INDEX_DIR...

Query vectors as `quest.bench.touched`'s global searches (random problems' bench-shaped queries, seed 5),
plus the bench probe's own no-problem questions' vectors. The truth is `search(q, 30, exact=True)`; what
Quest returns is `search(q, 30)` (IVF candidates re-scored from float16), with `dense.NPROBE` and
`dense.CANDIDATES_PER_RESULT` set per row. Also the IVF bytes one search reads (its probed lists).
An argument INDEX_DIR:IVF_FILE searches that index with another IVF file (e.g. the IVF-PQ experiment).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import faiss
import numpy as np

from quest.bench import vectors
from quest.retrieval import dense as dense_module
from quest.retrieval.index import load_index

K = 30
SETTINGS = [(32, 4), (16, 4), (16, 8), (8, 8), (32, 2), (16, 16)]


def query_vectors(index, count: int) -> list[np.ndarray]:
    problems = sorted(p for p in index.rows_by_problem)
    centres = vectors.problem_centres(problems)
    rng = np.random.default_rng(5)
    return [vectors.query_vector(problems[int(rng.integers(len(problems)))], centres, seed=i) for i in range(count)]


def list_bytes(ivf, q: np.ndarray, nprobe: int) -> int:
    _, probed = ivf.quantizer.search(np.asarray(q, dtype=np.float32).reshape(1, -1), nprobe)
    return int(sum(ivf.invlists.list_size(int(p)) for p in probed[0])) * (ivf.code_size + 8)


def main(out: Path, folders: list[Path]) -> None:
    first = load_index(Path(str(folders[0]).split(":")[0]))
    queries = query_vectors(first, 200)
    t = time.perf_counter()
    truth = [[r for r, _ in first.dense.search(q, K, exact=True)] for q in queries]
    result = {"queries": len(queries), "k": K, "exact_seconds": round(time.perf_counter() - t, 1), "rows": []}
    for folder in folders:
        index = load_index(Path(str(folder).split(":")[0]))
        if ":" in str(folder):
            index.segments[0].dense.ivf = faiss.read_index(str(folder).split(":")[1], faiss.IO_FLAG_MMAP)
        ivf = index.segments[0].dense.ivf
        for nprobe, factor in SETTINGS:
            dense_module.NPROBE, dense_module.CANDIDATES_PER_RESULT = nprobe, factor
            times, recalls = [], []
            for q, exact in zip(queries, truth, strict=True):
                t = time.perf_counter()
                found = [r for r, _ in index.dense.search(q, K)]
                times.append((time.perf_counter() - t) * 1000)
                recalls.append(len(set(found) & set(exact)) / K)
            row = {"index": str(folder), "code_size": int(ivf.code_size), "nlist": int(ivf.nlist), "nprobe": nprobe,
                   "candidates_per_result": factor, "recall_at_30": round(float(np.mean(recalls)), 4),
                   "min_recall": round(float(np.min(recalls)), 4),
                   "ivf_mib_per_search": round(float(np.mean([list_bytes(ivf, q, nprobe) for q in queries])) / 2**20,
                                               2),
                   "warm_ms_p50_p95": [round(float(np.percentile(times, p)), 2) for p in (50, 95)]}
            result["rows"].append(row)
            print(json.dumps(row), flush=True)
    out.write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), [Path(p) for p in sys.argv[2:]])
