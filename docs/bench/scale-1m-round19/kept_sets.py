"""How often SegmentedDense.search_rows found its one kept row set, and what a search cost, by (kept?, rows, writable)
over the 300 no-problem questions at 1M, warm (main, 1ebd674).

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round19/kept_sets.py /tmp/bm/1m
"""
# ruff: noqa  (a measurement script, kept as it ran)
import collections
import sys
import time
from pathlib import Path

sys.path.insert(0, "docs/bench/scale-1m-round19")
from paired import setup, timed

from quest.bench.corpus import NO_PROBLEM
from quest.retrieval import segments
from quest.retrieval.retriever import Retriever
from quest.settings import Settings

index, kb, embedder, queries, kinds = setup(Path("/tmp/bm/1m"), 1000000, 0.6)
chosen = [q for q, k in zip(queries, kinds) if k == NO_PROBLEM]
r = Retriever(Settings(show_progress=False), index, kb, embedder)
for q in chosen: timed(r, q)
orig = segments.SegmentedDense.search_rows
log = collections.Counter(); spent = collections.defaultdict(float)
def wrapped(self, query, rows, k):
    hit = self._shared is not None and self._shared[0] is rows
    t = time.perf_counter()
    out = orig(self, query, rows, k)
    key = (hit, rows.size, rows.flags.writeable)
    log[key] += 1; spent[key] += time.perf_counter() - t
    return out
segments.SegmentedDense.search_rows = wrapped

for q in chosen:
    timed(r, q)
for key, n in log.items(): print(key, n, round(spent[key] / n * 1000, 3), "ms each")
