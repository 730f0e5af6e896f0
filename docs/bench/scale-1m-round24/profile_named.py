"""cProfile of the questions naming a problem at 1M (issue 14): where their time goes, by function.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round24/profile_named.py INDEX CHUNKS SHARE OUT.txt \
        [SLOWEST]

Default settings; one warm-up pass (timed), then one profiled pass over every question, or with SLOWEST over that many
of the slowest in the warm-up pass, five times each; the top functions by own time and by cumulative time.
"""
# ruff: noqa: E402
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "scale-1m-round19"))
from paired import setup

from quest.bench.corpus import NO_PROBLEM
from quest.plan import plan, retrieve
from quest.retrieval.retriever import Retriever
from quest.settings import Settings


def main(folder: Path, chunks: int, share: float, out: Path, slowest: int) -> None:
    index, kb, embedder, queries, kinds = setup(folder, chunks, share)
    chosen = [q for q, kind in zip(queries, kinds, strict=True) if kind != NO_PROBLEM]
    r = Retriever(Settings(show_progress=False), index, kb, embedder)
    took = []
    for q in chosen:
        t = time.perf_counter()
        retrieve(r, plan(q.request, r))
        took.append(time.perf_counter() - t)
    if slowest:
        chosen = [chosen[i] for i in sorted(range(len(chosen)), key=lambda i: -took[i])[:slowest]] * 5
    profile = cProfile.Profile()
    profile.enable()
    for q in chosen:
        retrieve(r, plan(q.request, r))
    profile.disable()
    text = io.StringIO()
    stats = pstats.Stats(profile, stream=text)
    stats.sort_stats("tottime").print_stats(45)
    stats.sort_stats("cumulative").print_stats(70)
    out.write_text(text.getvalue(), encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4]),
         int(sys.argv[5]) if len(sys.argv) > 5 else 0)
