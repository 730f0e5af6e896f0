import sys, time
from pathlib import Path
import numpy as np
from quest.retrieval.index import load_index
from quest.retrieval import dense as dm
index = load_index(Path(sys.argv[1]))
(part,) = index.dense.parts
rng = np.random.default_rng(5)
# diffuse queries: the mean of 3 random rows plus noise (near the data, but not one cluster), and pure random
rows = part.vectors
qs = []
for _ in range(100):
    pick = rng.integers(0, part.size, 3)
    v = np.asarray(rows[pick], dtype=np.float32).mean(0) + rng.normal(0, 0.02, part.dim).astype(np.float32)
    qs.append(v / np.linalg.norm(v))
rnd = rng.normal(size=(100, part.dim)).astype(np.float32); rnd /= np.linalg.norm(rnd, axis=1, keepdims=True)
if part.ivf is None: part.build_approximate()
for name, Q in (("mix3", np.stack(qs)), ("random", rnd)):
    truth = [{r for r, _ in part.search(q, 30, exact=True)} for q in Q]
    for npb in (16, 32, 64):
        dm.NPROBE = npb
        rec = [len({r for r, _ in part.search(q, 30)} & t) / 30 for q, t in zip(Q, truth)]
        t0 = time.perf_counter(); [part.search(q, 30) for q in Q]; el = (time.perf_counter() - t0) / len(Q) * 1000
        rec5 = [len({r for r, _ in part.search(q, 5)} & set(sorted(t)[:0]) ) for q, t in zip(Q, truth)]
        print(name, "nprobe", npb, "recall@30", round(float(np.mean(rec)), 4), "min", round(min(rec), 3), "ms", round(el, 2), flush=True)
