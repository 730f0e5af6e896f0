"""A function-level profile (cProfile) of the no-problem questions' second pass at 1M, one thread.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round13/profile_calls.py INDEX SHARE OUT.txt
"""

import cProfile
import io
import pstats
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from breakdown import setup, timed

from quest.retrieval.retriever import Retriever
from quest.settings import Settings


def main(folder: Path, share: float, out: Path) -> None:
    index, kb, embedder, chosen = setup(folder, share)
    retriever = Retriever(Settings(show_progress=False, search_threads=1), index, kb, embedder)
    for q in chosen:
        timed(retriever, q)
    profile = cProfile.Profile()
    profile.enable()
    for q in chosen:
        timed(retriever, q)
    profile.disable()
    text = io.StringIO()
    stats = pstats.Stats(profile, stream=text).sort_stats("tottime")
    stats.print_stats(45)
    stats.sort_stats("cumulative").print_stats(60)
    out.write_text(text.getvalue(), encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), float(sys.argv[2]), Path(sys.argv[3]))
