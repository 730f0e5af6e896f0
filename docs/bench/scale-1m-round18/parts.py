"""What the whole-base BM25 calls of the no-problem questions look like at 1M: per question, how many BM25 calls
(query parts), their columns, postings, and how many columns the parts share; and the per-stage timings.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round18/parts.py INDEX CHUNKS SHARE OUT.json
"""

import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from paired import setup, timed  # noqa: E402

from quest.bench.corpus import NO_PROBLEM  # noqa: E402
from quest.retrieval import kernels  # noqa: E402
from quest.retrieval.retriever import Retriever  # noqa: E402
from quest.settings import Settings  # noqa: E402

index, kb, embedder, queries, kinds = setup(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]))
chosen = [q for q, kind in zip(queries, kinds, strict=True) if kind == NO_PROBLEM]
r = Retriever(Settings(show_progress=False), index, kb, embedder)
calls: list[dict] = []
orig_bm25, orig_lex = kernels.Kernel.bm25, kernels.Kernel.lexical


def rec(kind, orig):
    def wrapped(self, parts, cols, coefs, *a, **kw):
        t = time.perf_counter()
        out = orig(self, parts, cols, coefs, *a, **kw)
        ms = (time.perf_counter() - t) * 1000
        post = sum(int(p[1][c + 1] - p[1][c]) for p in parts for c in np.asarray(cols).tolist()
                   if 0 <= c < len(p[1]) - 1)
        calls.append({"kind": kind, "cols": np.asarray(cols).tolist(), "postings": post, "ms": ms})
        return out
    return wrapped


for q in chosen:
    timed(r, q)
kernels.Kernel.bm25 = rec("bm25", orig_bm25)
kernels.Kernel.lexical = rec("lexical", orig_lex)
per = []
for q in chosen:
    calls.clear()
    _, tm = timed(r, q)
    bm = [c for c in calls if c["kind"] == "bm25"]
    cols = [set(c["cols"]) for c in bm]
    union = set().union(*cols) if cols else set()
    per.append({"bm25_calls": len(bm), "cols": [len(c) for c in cols], "union": len(union),
                "postings": [c["postings"] for c in bm], "bm25_ms": [round(c["ms"], 2) for c in bm],
                "lex_calls": sum(c["kind"] == "lexical" for c in calls), "timings": tm})
tot_post = [sum(p["postings"]) for p in per]
print("questions", len(per))
print("bm25 calls/question", np.percentile([p["bm25_calls"] for p in per], [5, 50, 95]),
      "mean", np.mean([p["bm25_calls"] for p in per]))
print("cols summed vs union, median", np.median([sum(p["cols"]) for p in per]), np.median([p["union"] for p in per]))
print("share of column reads that repeat", 1 - sum(p["union"] for p in per) / sum(sum(p["cols"]) for p in per))
print("postings per question p50", np.median(tot_post))
Path(sys.argv[4]).write_text(json.dumps(per[:50], indent=0), encoding="utf-8")
