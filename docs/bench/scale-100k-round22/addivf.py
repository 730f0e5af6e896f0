"""Give a saved index's segments the IVF index that `index.with_approximate` gives a segment it builds.

    PYTHONPATH=. python docs/bench/scale-100k-round22/addivf.py INDEX      # (a copy of) round 19's /tmp/bm/100k

Used once to compare the same rows with and without the IVF before the threshold changed.
"""

import logging
import sys
import time
from pathlib import Path

from quest.retrieval.index import load_index, save_index

if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    folder = Path(sys.argv[1])
    index = load_index(folder)
    for segment in index.segments:
        started = time.perf_counter()
        segment.dense.build_approximate()
        segment.stored = {}  # written again: save_index reuses a segment's files only while they match it
        print(segment.name, segment.rows, "IVF lists", segment.dense.ivf.nlist,
              f"built in {time.perf_counter() - started:.1f} s")
    save_index(index, folder)
