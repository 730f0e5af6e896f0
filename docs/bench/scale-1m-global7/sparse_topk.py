"""Whole-base sparse top-k at 1M: pruning (`top`) against scoring every row (`search`), same calls, same lists?

Runs against commit 0c01b59 or 411c7f2 of branch i14-global7 (quest/retrieval/pruned.py and the `top` methods
lived there; neither was kept: pruning-1m.txt).

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-global7/sparse_topk.py INDEX_DIR OUT.json [SHARE]

Runs the bench probe's mixed questions (200 that name a problem + the no-problem share, default 0.25) once
through a Retriever over the loaded index, recording every whole-base BM25 / lexical top-k call it makes.
Then each recorded call is timed REPEAT times both ways, alternating (warm pages), and the two lists compared.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from quest.bench import stages, vectors
from quest.bench.corpus import SEED, SyntheticKB, make_problems, mixed_queries
from quest.kb.documents import KnowledgeBase
from quest.retrieval import pruned
from quest.retrieval.index import load_index
from quest.retrieval.retriever import Retriever
from quest.retrieval.segments import SegmentedBM25, SegmentedLexical
from quest.settings import Settings

REPEAT = 3


def recorded_calls(folder: Path, share: float) -> tuple[object, list[tuple[str, object, int, object]]]:
    index = load_index(folder)
    settings = Settings(show_progress=False)
    kb = KnowledgeBase(documents=(), problems=make_problems(400))
    queries, _ = mixed_queries(SyntheticKB(kb=kb, n_chunks=1_000_000, seed=SEED), 200, share)
    centres = vectors.problem_centres(list(kb.problems))
    prepared = stages.prepare(Retriever(settings, index, kb, None), queries)
    embedder = vectors.LookupEmbedder("synthetic-bge-m3-shape", vectors.DIM, vectors.query_lookup(prepared, centres),
                                      lexical=True)
    retriever = Retriever(settings, index, kb, embedder)
    calls: list[tuple[str, object, int, object]] = []
    originals = {cls: cls.top for cls in (SegmentedBM25, SegmentedLexical)}
    for cls, name in ((SegmentedBM25, "bm25"), (SegmentedLexical, "lexical")):
        def spy(self, query, k, rows=None, original=originals[cls], name=name):
            calls.append((name, query, k, rows))
            return original(self, query, k, rows)
        cls.top = spy
    stages.run_stages(retriever, queries, context_chars=settings.context_max_chars)
    for cls, original in originals.items():
        cls.top = original
    return index, calls


def _fell_back(model, name: str, query, k: int, rows) -> bool:
    """Whether the pruning gave up on this call (the list then came from scoring every row)."""
    if name == "bm25":
        terms = model._pruning_terms(*model._query(query))
    else:
        terms = [model._pruning_terms(s, query) for s in range(len(model.parts))]
    return pruned.pruned_top(terms, k, pruned.allowed_rows(model.deleted, rows)) is None


def timed(method, *args) -> tuple[float, object]:
    t = time.perf_counter()
    out = method(*args)
    return (time.perf_counter() - t) * 1000, out


def _p50_p95(values: np.ndarray) -> list[float]:
    return [round(float(np.percentile(values, 50)), 2), round(float(np.percentile(values, 95)), 2)]


def main(folder: Path, out: Path, share: float) -> None:
    index, calls = recorded_calls(folder, share)
    models = {"bm25": index.bm25, "lexical": index.lexical}
    rows_out = []
    for name, query, k, rows in calls:
        model = models[name]
        full_ms, pruned_ms, same = [], [], True
        for _ in range(REPEAT):
            a, expected = timed(model.search, query, k, rows)
            b, got = timed(model.top, query, k, rows)
            full_ms.append(a)
            pruned_ms.append(b)
            same = same and got == expected
        fallback = _fell_back(model, name, query, k, rows)
        rows_out.append({"signal": name, "k": k, "restricted": rows is not None, "same": same,
                         "full_ms": statistics.median(full_ms), "pruned_ms": statistics.median(pruned_ms),
                         "fallback": fallback})
    summary = {}
    for name in models:
        mine = [r for r in rows_out if r["signal"] == name]
        if not mine:
            continue
        f = np.array([r["full_ms"] for r in mine])
        p = np.array([r["pruned_ms"] for r in mine])
        summary[name] = {"calls": len(mine), "identical": sum(r["same"] for r in mine),
                         "fell_back": sum(r["fallback"] for r in mine),
                         "full_ms_p50_p95": _p50_p95(f), "pruned_ms_p50_p95": _p50_p95(p),
                         "median_ratio": round(float(np.median(f / p)), 2)}
    out.write_text(json.dumps({"summary": summary, "calls": rows_out, "repeat": REPEAT,
                               "seed_per_result": pruned.SEED_PER_RESULT, "seed_min": pruned.SEED_MIN}, indent=1),
                   encoding="utf-8")
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3]) if len(sys.argv) > 3 else 0.25)
