"""The read-ahead hints (pages.will_need_rows) of no-problem questions at 1M, warm: per call its caller, rows, page
runs and time, and whether the pages were already resident (mincore, after the call), against the question's time.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round19/hints.py INDEX CHUNKS SHARE OUT.json
"""
# ruff: noqa: E402
import ctypes
import json
import os
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import numpy as np
from paired import setup, timed

from quest.bench.corpus import NO_PROBLEM
from quest.retrieval import pages
from quest.retrieval.retriever import Retriever
from quest.settings import Settings

libc = ctypes.CDLL("libc.so.6", use_errno=True)
libc.mincore.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)


def resident(matrix: np.ndarray, rows: np.ndarray) -> tuple[int, int, float]:
    """How many of the rows' pages are resident, of how many, and what one mincore a row cost (ms in all)."""
    base, width = int(matrix.ctypes.data), int(matrix.strides[0])
    vec = np.zeros(2, dtype=np.uint8)
    yes = total = 0
    started = time.perf_counter()
    for r in np.unique(rows).tolist():
        start = base + r * width
        first = start // pages.PAGE * pages.PAGE
        n = (start + width - 1) // pages.PAGE - first // pages.PAGE + 1
        libc.mincore(first, n * pages.PAGE, vec.ctypes.data)
        yes += int((vec[:n] & 1).sum())
        total += n
    return yes, total, (time.perf_counter() - started) * 1000


def caller() -> str:
    for frame in reversed(traceback.extract_stack()[:-2]):
        if frame.name in ("_fused_rows", "search", "search_rows", "rescore"):
            return frame.name
    return "?"


def main(folder: Path, chunks: int, share: float, out: Path) -> None:
    index, kb, embedder, queries, kinds = setup(folder, chunks, share)
    chosen = [q for q, kind in zip(queries, kinds, strict=True) if kind == NO_PROBLEM]
    retriever = Retriever(Settings(show_progress=False), index, kb, embedder)
    for q in chosen:
        timed(retriever, q)
    original = pages.will_need_rows
    calls: list[dict] = []

    def measured(matrix, rows):
        started = time.perf_counter()
        n = original(matrix, rows)
        ms = (time.perf_counter() - started) * 1000
        calls.append({"where": caller(), "rows": int(rows.size), "runs": n, "ms": ms,
                      "resident": resident(matrix, rows)})
        return n

    pages.will_need_rows = measured  # dense.py calls it through the module
    per = []
    for q in chosen:
        calls.clear()
        _, tm = timed(retriever, q)
        per.append({"no_embed": tm["no_embed"], "hint_ms": sum(c["ms"] for c in calls),
                    "mincore_ms": sum(c["resident"][2] for c in calls), "calls": list(calls)})
    flat = [c for p in per for c in p["calls"]]
    summary = {"load": [round(x, 2) for x in os.getloadavg()],
               "hint_ms_p50_p95": np.percentile([p["hint_ms"] for p in per], [50, 95]).round(3).tolist(),
               "mincore_ms_p50_p95": np.percentile([p["mincore_ms"] for p in per], [50, 95]).round(3).tolist(),
               "question_ms_p50_p95": np.percentile([p["no_embed"] for p in per], [50, 95]).round(2).tolist(),
               "calls_a_question": len(flat) / len(per),
               "pages_resident": [sum(c["resident"][0] for c in flat), sum(c["resident"][1] for c in flat)]}
    for where in sorted({c["where"] for c in flat}):
        mine = [c for c in flat if c["where"] == where]
        summary[where] = {"calls": len(mine), "rows_p50": float(np.median([c["rows"] for c in mine])),
                          "runs_p50": float(np.median([c["runs"] for c in mine])),
                          "ms_p50": round(float(np.median([c["ms"] for c in mine])), 3)}
    out.write_text(json.dumps(summary, indent=1), encoding="utf-8")
    sys.stdout.write(json.dumps(summary, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4]))
