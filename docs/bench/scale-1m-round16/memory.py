"""Resident memory of one variant in a fresh process (run once per variant): the probe's questions (naming a problem
or not) twice, then the process's resident anonymous bytes and the dense file's resident bytes (smaps).

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round16/memory.py INDEX CHUNKS SHARE before|after

`before` keeps no 8-bit codes (the library's retriever with SegmentedDense.compact turned off: its general dense
search is then main's float16 scan); `after` is the library as it stands.
"""

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from paired import setup, timed  # noqa: E402

from quest.bench.working_set import mapped_by_file  # noqa: E402
from quest.retrieval.retriever import Retriever  # noqa: E402
from quest.retrieval.segments import SegmentedDense  # noqa: E402
from quest.settings import Settings  # noqa: E402


def anon_bytes() -> int:
    with open("/proc/self/status", encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) * 1024
    return 0


def main(folder: Path, chunks: int, share: float, variant: str) -> None:
    if variant == "before":
        SegmentedDense.compact = lambda self, rows, scores: 0
    index, kb, embedder, queries, _ = setup(folder, chunks, share)
    retriever = Retriever(Settings(show_progress=False), index, kb, embedder)
    for _ in range(2):
        for query in queries:
            timed(retriever, query)
    mapped = mapped_by_file(under=folder)
    out = {"variant": variant, "compact_bytes": retriever.compact_bytes, "anon_MiB": round(anon_bytes() / 2**20, 1),
           "dense_file_resident_MiB": round(sum(v for k, v in mapped.items() if k.endswith(".dense.faiss")) / 2**20,
                                            1),
           "all_mapped_MiB": round(sum(mapped.values()) / 2**20, 1), "load": [round(x, 2) for x in os.getloadavg()]}
    sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4])
