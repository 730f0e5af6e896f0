"""Round 20's paired A/B, copied so that it loads this folder's variants.py: in one process over every probe question
(those naming a problem and those naming none), each
question retrieved by every variant of variants.py, the order rotating per question, after a warm-up pass of all of
them. A question's time is its retrieval excluding embedding as the bench counts it (tail.py's `one`: the confirming
search of a weak name included); `best_match` is the time in `Retriever._best_match` (the verdict checks' BM25 over
the lead rows, which this round changes), timed alike in both variants.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round21/paired_all.py INDEX CHUNKS SHARE OUT.json \
        before after

Per variant, over the no-problem questions and over all: p50 / p95 / mean, the p50 and p95 ratios to the first
variant, the median per-question ratio, identical hits (chunk ids, fused and shown scores), CPU over wall; the load
average before and after.
"""
# ruff: noqa: E402
import functools
import importlib.util
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "scale-1m-round19"))
sys.path.insert(0, str(HERE.parent / "scale-1m-round20"))  # tail.py
sys.path.insert(0, str(HERE))
from paired import setup  # round 19's: the index (read as it is), the probe's questions, the lookup embedder
from tail import one

# This folder's variants.py, by its path: importing round 19's paired.py put round 19's folder first on the path.
_spec = importlib.util.spec_from_file_location("round21_variants", HERE / "variants.py")
_variants = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_variants)
VARIANTS = _variants.VARIANTS

from quest.bench.corpus import NO_PROBLEM
from quest.settings import Settings

spent = [0.0]


def timed_best_match(fn):
    @functools.wraps(fn)
    def wrapped(*a, **kw):
        t = time.perf_counter()
        try:
            return fn(*a, **kw)
        finally:
            spent[0] += (time.perf_counter() - t) * 1000
    return wrapped


def hits_of(retriever, query):
    from quest.plan import plan, retrieve
    _, result = retrieve(retriever, plan(query.request, retriever))
    return [(h.chunk.id, h.fused, h.score) for h in result.hits]


def summarize(rows, names, keep):
    picked = [r for r in rows if keep(r)]
    out = {"questions": len(picked)}
    base = np.array([r[names[0]]["no_embed"] for r in picked])
    for n in names:
        t = np.array([r[n]["no_embed"] for r in picked])
        bm = np.array([r[n]["best_match"] for r in picked])
        s = {"p50_p95_mean": [round(float(np.percentile(t, 50)), 2), round(float(np.percentile(t, 95)), 2),
                              round(float(t.mean()), 2)],
             "best_match_p50_p95_mean": [round(float(np.percentile(bm, 50)), 3),
                                         round(float(np.percentile(bm, 95)), 3), round(float(bm.mean()), 3)]}
        if n != names[0]:
            s["p50_ratio"] = round(float(np.percentile(t, 50) / np.percentile(base, 50)), 3)
            s["p95_ratio"] = round(float(np.percentile(t, 95) / np.percentile(base, 95)), 3)
            s["median_question_ratio"] = round(float(np.median(t / base)), 3)
            s["identical_hits"] = sum(r["identical"][n] for r in picked)
            b0 = np.array([r[names[0]]["best_match"] for r in picked])
            s["best_match_saved_ms_mean"] = round(float((b0 - bm).mean()), 3)
        out[n] = s
    return out


def main(folder: Path, chunks: int, share: float, out: Path, names: list[str]) -> None:
    index, kb, embedder, queries, kinds = setup(folder, chunks, share)
    runs = {n: VARIANTS[n](Settings(show_progress=False, search_threads=1), index, kb, embedder) for n in names}
    assert all(r._kernel is not None for r in runs.values()), "numba is not installed"
    for cls in {type(r) for r in runs.values()}:
        cls._best_match = timed_best_match(cls.__dict__.get("_best_match", cls._best_match))
    for query in queries:  # the first pass: every page the probe reads becomes resident
        for name in names:
            one(runs[name], query)
    load = [os.getloadavg()]
    rows, cpu, wall = [], dict.fromkeys(names, 0.0), dict.fromkeys(names, 0.0)
    for i, (query, kind) in enumerate(zip(queries, kinds, strict=True)):
        turn = names[i % len(names):] + names[:i % len(names)]
        got, hits = {}, {}
        for name in turn:
            spent[0] = 0.0
            c, w = time.process_time(), time.perf_counter()
            got[name] = one(runs[name], query)["t"]
            cpu[name] += time.process_time() - c
            wall[name] += time.perf_counter() - w
            got[name] = {"no_embed": round(got[name]["no_embed"], 3), "best_match": round(spent[0], 3)}
        for name in names:
            hits[name] = hits_of(runs[name], query)
        rows.append({"i": i, "no_problem": kind == NO_PROBLEM,
                     "identical": {n: hits[n] == hits[names[0]] for n in names[1:]}, **got})
    load.append(os.getloadavg())
    summary = {"index": str(folder), "load": [[round(x, 2) for x in v] for v in load],
               "cpu_over_wall": {n: round(cpu[n] / wall[n], 3) for n in names},
               "no_problem": summarize(rows, names, lambda r: r["no_problem"]),
               "all": summarize(rows, names, lambda r: True)}
    out.write_text(json.dumps({"summary": summary, "rows": rows}, separators=(",", ":")), encoding="utf-8")
    sys.stdout.write(json.dumps(summary, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4]),
         [a for a in sys.argv[5:] if a in VARIANTS])
