"""cProfile of the no-problem questions through the library's Retriever (second pass, pages warm): where the time
of a question goes, by function. PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round17/where_time.py
INDEX CHUNKS SHARE [N]"""

import cProfile
import os
import pstats
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from paired import setup, timed  # noqa: E402

from quest.bench.corpus import NO_PROBLEM  # noqa: E402
from quest.retrieval.retriever import Retriever  # noqa: E402
from quest.settings import Settings  # noqa: E402

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
pstats.Stats(prof).sort_stats("tottime").print_stats(35)
