"""Page faults per no-problem question at 1M, warm (the second pass through the library's Retriever): minor and
major faults from getrusage around each question, and their correlation with its time.
    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round18/faults.py /tmp/bm/1m 1000000 0.6"""
# ruff: noqa: E402
import resource
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import numpy as np
from paired import setup, timed

from quest.bench.corpus import NO_PROBLEM
from quest.retrieval.retriever import Retriever
from quest.settings import Settings

index, kb, embedder, queries, kinds = setup(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]))
chosen = [q for q, kind in zip(queries, kinds, strict=True) if kind == NO_PROBLEM]
retriever = Retriever(Settings(show_progress=False), index, kb, embedder)
for q in chosen:
    timed(retriever, q)
per = []
for q in chosen:
    a = resource.getrusage(resource.RUSAGE_SELF)
    _, tm = timed(retriever, q)
    b = resource.getrusage(resource.RUSAGE_SELF)
    per.append((b.ru_minflt - a.ru_minflt, b.ru_majflt - a.ru_majflt, tm["no_embed"]))
per = np.array(per)
print("minor faults a question p50 / p95", np.percentile(per[:, 0], [50, 95]).tolist(),
      "major p50 / p95 / max", np.percentile(per[:, 1], [50, 95, 100]).tolist())
print("correlation of minor faults with time", round(float(np.corrcoef(per[:, 0], per[:, 2])[0, 1]), 3))
