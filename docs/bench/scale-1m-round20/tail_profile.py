"""cProfile of the slowest 5% of no-problem questions against 15 from the middle, per question (warm).

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round20/tail_profile.py INDEX CHUNKS SHARE TAIL.json

TAIL.json is tail.py's output: each question's least time over its passes (the least is the question's own cost;
the passes' medians still carry the other helpers' load) ranks the questions.
"""
# ruff: noqa: E402
import cProfile
import io
import json
import pstats
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "scale-1m-round19"))
from paired import setup, timed

from quest.bench.corpus import NO_PROBLEM
from quest.retrieval.retriever import Retriever
from quest.settings import Settings

rows = json.loads(Path(sys.argv[4]).read_text())["rows"]
least = np.array([min(p["no_embed"] for p in r["passes"]) for r in rows])
order = np.argsort(-least)
n = len(rows) // 20
groups = {"tail": order[:n].tolist(), "middle": order[len(rows) // 2 - n // 2:len(rows) // 2 - n // 2 + n].tolist()}
index, kb, embedder, queries, kinds = setup(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]))
chosen = [q for q, kind in zip(queries, kinds, strict=True) if kind == NO_PROBLEM]
r = Retriever(Settings(show_progress=False, search_threads=1), index, kb, embedder)
for q in chosen:
    timed(r, q)
for name, picked in groups.items():
    prof = cProfile.Profile()
    for _ in range(3):
        for i in picked:
            prof.enable()
            timed(r, chosen[i])
            prof.disable()
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    stats.sort_stats("tottime").print_stats(30)
    stats.sort_stats("cumulative").print_stats(45)
    sys.stdout.write(f"===== {name}: questions {sorted(picked)}, least ms {least[picked].round(1).tolist()}\n")
    sys.stdout.write(out.getvalue())
