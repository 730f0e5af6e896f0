import json, sys
from pathlib import Path
import numpy as np
from quest.bench import stages, vectors, compare
from quest.bench.corpus import SEED, SyntheticKB, make_problems, mixed_queries
from quest.kb.documents import KnowledgeBase
from quest.retrieval.index import load_index
from quest.retrieval.dense import DenseIndex
from quest.retrieval.retriever import Retriever
from quest.settings import Settings
folder = Path(sys.argv[1])
settings = Settings(show_progress=False, sparse_kernel="numpy")
kb = KnowledgeBase(documents=(), problems=make_problems(400))
queries, kinds = mixed_queries(SyntheticKB(kb=kb, n_chunks=100_000, seed=SEED), 200, 0.25)
index = load_index(folder)
prepared = stages.prepare(Retriever(settings, index, kb, None), queries)
lookup = vectors.query_lookup(prepared, vectors.problem_centres(list(kb.problems)))
qv = np.stack([lookup[p.text.strip()][0] for p in prepared])
(part,) = index.dense.parts
from quest.retrieval import dense as dm
for n in map(int, sys.argv[2].split(",")):
    sub = DenseIndex.from_vectors(np.asarray(part.vectors[:n], dtype=np.float32))
    sub.build_approximate()
    truth = [{r for r, _ in sub.search(q, 30, exact=True)} for q in qv]
    for npb in (16, 32, 64):
        dm.NPROBE = npb
        rec = [len({r for r, _ in sub.search(q, 30)} & t) / 30 for q, t in zip(qv, truth)]
        import time
        t0 = time.perf_counter(); [sub.search(q, 30) for q in qv]; el = (time.perf_counter() - t0) / len(qv) * 1000
        print(n, "nprobe", npb, "recall", round(float(np.mean(rec)), 4), "min", min(rec), "ms mean", round(el, 2), flush=True)
