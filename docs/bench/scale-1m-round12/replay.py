"""The whole-base sparse calls of the no-problem questions at 1M, recorded once and replayed per variant.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round12/replay.py INDEX SHARE OUT.json [VARIANT...]

The probe's questions that name no problem (`corpus.mixed_queries` at SHARE) are retrieved once; every
`pruned_search` call of the whole-base BM25 and lexical lists is recorded (its query, k and allowed rows). Each
call is then replayed by every variant, in turn (the variants' order rotates from call to call, so load drift
hits them alike), REPEAT times; per variant the median time of each call is kept, and every variant's list is
compared with the current pruned search's (rows and float32 scores, `==`).

Variants: `pruned` (the MaxScore search) and `scan` (the exhaustive scan + top-k), each with this round's scipy
scatter (`quest/retrieval/scatter.py`) and with main's numpy indexing (`_numpy`); `numba_scan`, a prototype
outside the project (numba_prototype.py), skipped where numba cannot be imported.
"""

import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from quest.bench import stages, vectors
from quest.bench.corpus import NO_PROBLEM, SEED, SyntheticKB, make_problems, mixed_queries
from quest.kb.documents import KnowledgeBase
from quest.plan import plan, retrieve
from quest.retrieval import segments as segments_mod
from quest.retrieval.index import load_index
from quest.retrieval.retriever import Retriever
from quest.settings import Settings

REPEAT = 3


def record_calls(folder: Path, share: float):
    index = load_index(folder)
    settings = Settings(show_progress=False)
    kb = KnowledgeBase(documents=(), problems=make_problems(400))
    queries, kinds = mixed_queries(SyntheticKB(kb=kb, n_chunks=1_000_000, seed=SEED), 200, share)
    centres = vectors.problem_centres(list(kb.problems))
    prepared = stages.prepare(Retriever(settings, index, kb, None), queries)
    lookup = vectors.query_lookup(prepared, centres)
    embedder = vectors.LookupEmbedder("synthetic-bge-m3-shape", vectors.DIM, lookup, lexical=True)
    retriever = Retriever(settings, index, kb, embedder)
    calls = []
    inner = {cls: cls.pruned_search for cls in (segments_mod.SegmentedBM25, segments_mod.SegmentedLexical)}

    def recorder(cls, signal):
        def pruned_search(self, query, k, rows=None):
            found = inner[cls](self, query, k, rows)
            calls.append({"signal": signal, "query": query, "k": k, "rows": rows, "found": found})
            return found
        return pruned_search

    segments_mod.SegmentedBM25.pruned_search = recorder(segments_mod.SegmentedBM25, "bm25")
    segments_mod.SegmentedLexical.pruned_search = recorder(segments_mod.SegmentedLexical, "lexical")
    for q, kind in zip(queries, kinds, strict=True):
        if kind == NO_PROBLEM:
            retrieve(retriever, plan(q.request, retriever))
    for cls, fn in inner.items():
        cls.pruned_search = fn
    return index, calls


def variants(index) -> dict:
    bm25, lexical = index.bm25, index.lexical
    out = {
        "pruned": lambda c: (bm25 if c["signal"] == "bm25" else lexical).pruned_search(c["query"], c["k"], c["rows"]),
        "scan": lambda c: (bm25 if c["signal"] == "bm25" else lexical).search(c["query"], c["k"], c["rows"]),
    }
    from quest.retrieval import scatter

    kernel = scatter._MATVEC

    def with_numpy_scatter(way):  # main's numpy indexing (`acc[at] += w`) in place of scipy's kernel
        def run(c):
            scatter._MATVEC = None
            try:
                return way(c)
            finally:
                scatter._MATVEC = kernel
        return run

    out["pruned_numpy"] = with_numpy_scatter(out["pruned"])
    out["scan_numpy"] = with_numpy_scatter(out["scan"])
    try:
        sys.path.insert(0, str(Path(__file__).parent))
        import numba_prototype
        out.update(numba_prototype.variants(index))
    except ImportError as exc:
        sys.stderr.write(f"numba prototype skipped: {exc}\n")
    return out


def main(folder: Path, share: float, out: Path, chosen: list[str]) -> None:
    index, calls = record_calls(folder, share)
    ways = variants(index)
    if chosen:
        ways = {k: v for k, v in ways.items() if k in chosen}
    names = list(ways)
    for c in calls[:4]:  # warm-up (and numba's compilation)
        for name in names:
            ways[name](c)
    load = [os.getloadavg()]
    times = {name: [] for name in names}
    equal = {name: 0 for name in names}
    for i, c in enumerate(calls):
        spent = {name: [] for name in names}
        for r in range(REPEAT):
            turn = names[(i + r) % len(names):] + names[:(i + r) % len(names)]
            for name in turn:
                t = time.perf_counter()
                found = ways[name](c)
                spent[name].append((time.perf_counter() - t) * 1000)
                if r == 0:
                    equal[name] += found == c["found"]
        for name in names:
            times[name].append(float(np.median(spent[name])))
    load.append(os.getloadavg())
    signals = [c["signal"] for c in calls]
    summary = {"calls": {s: signals.count(s) for s in set(signals)}, "load": [[round(x, 2) for x in v] for v in load],
               "equal_lists": equal, "ms": {}}
    for name in names:
        per = {}
        for s in sorted(set(signals)):
            xs = [t for t, sig in zip(times[name], signals, strict=True) if sig == s]
            per[s] = {"p50": round(float(np.percentile(xs, 50)), 2), "p95": round(float(np.percentile(xs, 95)), 2),
                      "sum": round(float(np.sum(xs)), 1)}
        summary["ms"][name] = per
    out.write_text(json.dumps(summary, indent=1), encoding="utf-8")
    sys.stdout.write(json.dumps(summary, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), float(sys.argv[2]), Path(sys.argv[3]), sys.argv[4:])
