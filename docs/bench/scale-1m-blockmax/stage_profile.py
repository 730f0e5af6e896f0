"""Where a no-problem question's time goes at 1M: per stage, per whole-base call, per pruning step.

    PYTHONPATH=. flock /work/bench.lock \
        python docs/bench/scale-1m-blockmax/stage_profile.py INDEX SHARE OUT.json [--cprofile]

The probe's questions that name no problem (`corpus.mixed_queries` at SHARE), each planned and retrieved once after
a warm-up. Per question: the Retriever's own stage timings and the planning time. Per whole-base sparse call
(`maxscore.search`): its signal, terms, postings and the time in each step (reading lists whole, seeds, narrowing,
exact scores, top-k), found by wrapping the module's functions.
"""

import cProfile
import json
import os
import pstats
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from quest.bench import stages, vectors
from quest.bench.corpus import NO_PROBLEM, SEED, SyntheticKB, make_problems, mixed_queries
from quest.kb.documents import KnowledgeBase
from quest.plan import plan, retrieve
from quest.retrieval import maxscore
from quest.retrieval.index import load_index
from quest.retrieval.retriever import Retriever
from quest.settings import Settings

STEPS = ("_read_whole", "_seed", "_add_term", "_reaching", "_seen", "top_k_among")
current: dict | None = None


def wrap(name):
    inner = getattr(maxscore, name)

    def timed(*args, **kwargs):
        t = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            if current is not None:
                current[name] = current.get(name, 0.0) + (time.perf_counter() - t) * 1000
    setattr(maxscore, name, timed)


def main(folder: Path, share: float, out: Path, with_cprofile: bool) -> None:
    global current
    index = load_index(folder)
    settings = Settings(show_progress=False)
    kb = KnowledgeBase(documents=(), problems=make_problems(400))
    queries, kinds = mixed_queries(SyntheticKB(kb=kb, n_chunks=1_000_000, seed=SEED), 200, share)
    centres = vectors.problem_centres(list(kb.problems))
    prepared = stages.prepare(Retriever(settings, index, kb, None), queries)
    lookup = vectors.query_lookup(prepared, centres)
    embedder = vectors.LookupEmbedder("synthetic-bge-m3-shape", vectors.DIM, lookup, lexical=True)
    retriever = Retriever(settings, index, kb, embedder)
    chosen = [q for q, kind in zip(queries, kinds, strict=True) if kind == NO_PROBLEM]
    for q in chosen[:5]:
        retrieve(retriever, plan(q.request, retriever))

    calls: list[dict] = []
    inner_search = maxscore.search

    def search(sources, columns, k, deleted, allowed=None):
        global current
        current = {"signal": "bm25" if "SegmentedBM25" in repr(sources[0].weigh) else "lexical",
                   "terms": len(columns), "allowed": allowed is not None,
                   "postings": int(sum(s.span(c)[1] - s.span(c)[0] for s in sources for c, _ in columns))}
        t = time.perf_counter()
        found = inner_search(sources, columns, k, deleted, allowed)
        current["ms"] = (time.perf_counter() - t) * 1000
        current["fallback"] = found is None
        calls.append(current)
        current = None
        return found

    for name in STEPS:
        wrap(name)
    maxscore.search = search
    per_question = []
    profiler = cProfile.Profile() if with_cprofile else None
    load = [os.getloadavg()]
    for q in chosen:
        start = len(calls)
        t = time.perf_counter()
        planned = plan(q.request, retriever)
        plan_ms = (time.perf_counter() - t) * 1000
        if profiler:
            profiler.enable()
        _, result = retrieve(retriever, planned)
        if profiler:
            profiler.disable()
        tm = dict(result.timings)
        tm["plan"] = plan_ms
        tm["no_embed"] = tm.get("total", 0) - tm.get("embed", 0)
        tm["calls"] = calls[start:]
        per_question.append(tm)
    load.append(os.getloadavg())

    def pct(values):
        return [round(float(np.percentile(values, p)), 2) for p in (50, 95)] if values else None

    keys = sorted({k for tm in per_question for k in tm if k != "calls"})
    summary = {"questions": len(per_question), "load": [[round(x, 2) for x in v] for v in load],
               "stages": {k: pct([tm.get(k, 0.0) for tm in per_question]) for k in keys}}
    by_signal = defaultdict(list)
    for c in calls:
        by_signal[c["signal"]].append(c)
    summary["calls"] = {sig: {"n": len(cs), "fallback": sum(c["fallback"] for c in cs),
                              **{k: pct([c.get(k, 0.0) for c in cs]) for k in ("ms", "postings", "terms", *STEPS)},
                              "sum_ms": {k: round(sum(c.get(k, 0.0) for c in cs), 1) for k in ("ms", *STEPS)}}
                        for sig, cs in by_signal.items()}
    summary["sum_ms"] = {k: round(sum(tm.get(k, 0.0) for tm in per_question), 1) for k in keys}
    out.write_text(json.dumps({"summary": summary, "questions": per_question}, indent=1), encoding="utf-8")
    sys.stdout.write(json.dumps(summary, indent=1) + "\n")
    if profiler:
        stats = pstats.Stats(profiler, stream=sys.stdout)
        stats.sort_stats("tottime").print_stats(40)
        stats.sort_stats("cumulative").print_stats(60)


if __name__ == "__main__":
    main(Path(sys.argv[1]), float(sys.argv[2]), Path(sys.argv[3]), "--cprofile" in sys.argv[4:])
