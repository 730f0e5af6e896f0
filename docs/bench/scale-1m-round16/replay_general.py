"""The general documents' dense search alone, main's float16 scan against this round's 8-bit first pass, paired on
the same calls: every long-run `search_range` call the no-problem questions make (recorded first), each run through
both, alternating which goes first. Also the time to encode the run (once, at the retriever's creation) and the
candidate counts.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round16/replay_general.py INDEX CHUNKS SHARE OUT
"""

import json
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from paired import setup, timed  # noqa: E402

from quest.bench.corpus import NO_PROBLEM  # noqa: E402
from quest.retrieval import dense as dense_module  # noqa: E402
from quest.retrieval.dense import TIE_EXTRA, CompactRun, DenseIndex  # noqa: E402
from quest.retrieval.retriever import Retriever  # noqa: E402
from quest.settings import Settings  # noqa: E402


def main(folder: Path, chunks: int, share: float, out: Path) -> None:
    index, kb, embedder, queries, kinds = setup(folder, chunks, share)
    retriever = Retriever(Settings(show_progress=False), index, kb, embedder)
    calls = []
    real = DenseIndex.search_range

    def record(self, query, lo, hi, k):
        if hi - lo >= dense_module.COMPACT_FROM:
            calls.append((self, np.array(query, dtype=np.float32), lo, hi, k))
        return real(self, query, lo, hi, k)

    DenseIndex.search_range = record
    for query, kind in zip(queries, kinds, strict=True):
        if kind == NO_PROBLEM:
            timed(retriever, query)
    DenseIndex.search_range = real
    part, _, lo, hi, _ = calls[0]
    kept = part._compact
    started = time.perf_counter()
    CompactRun.encode(part.vectors, lo, hi)
    encode_s = time.perf_counter() - started
    times = {"float16": [], "8-bit": []}
    same, candidates = 0, []
    for i, (part, query, lo, hi, k) in enumerate(calls * 2):
        got = {}
        for name in (("float16", "8-bit") if i % 2 == 0 else ("8-bit", "float16")):
            part._compact = () if name == "float16" else kept
            t = time.perf_counter()
            got[name] = part.search_range(query, lo, hi, k)
            times[name].append((time.perf_counter() - t) * 1000)
        part._compact = kept
        same += got["float16"] == got["8-bit"]
        candidates.append(int(kept[0].candidates(query, lo, hi, min(k + TIE_EXTRA, hi - lo),
                                                  part._compact_scores).size))
    n = len(calls)  # the second pass only (pages warm)
    a, b = np.array(times["float16"][n:]), np.array(times["8-bit"][n:])
    result = {"calls": n, "run_rows": hi - lo, "identical": same, "of": 2 * n,
              "float16_ms_p50_p95": [round(float(np.percentile(a, p)), 2) for p in (50, 95)],
              "compact_ms_p50_p95": [round(float(np.percentile(b, p)), 2) for p in (50, 95)],
              "ratio_median": round(float(np.median(b / a)), 3),
              "candidates_p50_p95_max": [int(np.percentile(candidates, 50)), int(np.percentile(candidates, 95)),
                                         max(candidates)],
              "codes_bytes": kept[0].nbytes, "encode_seconds_warm": round(encode_s, 2),
              "load": [round(x, 2) for x in os.getloadavg()]}
    out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4]))
