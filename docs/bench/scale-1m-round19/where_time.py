"""cProfile of the no-problem questions through the library's Retriever (second pass, pages warm), as round 17's
where_time.py, sorted by own time and by cumulative time.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round19/where_time.py INDEX CHUNKS SHARE [N]
"""
# ruff: noqa: E402
import cProfile
import os
import pstats
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from paired import setup, timed

from quest.bench.corpus import NO_PROBLEM
from quest.retrieval.retriever import Retriever
from quest.settings import Settings

index, kb, embedder, queries, kinds = setup(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]))
chosen = [q for q, kind in zip(queries, kinds, strict=True) if kind == NO_PROBLEM][:int(sys.argv[4]) if len(
    sys.argv) > 4 else 300]
r = Retriever(Settings(show_progress=False), index, kb, embedder)
for q in chosen:
    timed(r, q)
print("load", os.getloadavg())
prof = cProfile.Profile()
prof.enable()
for q in chosen:
    timed(r, q)
prof.disable()
print("load", os.getloadavg())
stats = pstats.Stats(prof)
stats.sort_stats("tottime").print_stats(45)
stats.sort_stats("cumulative").print_stats(60)
