"""The whole-base sparse calls of the no-problem questions at 1M, recorded once and replayed per way of searching
(as docs/bench/scale-1m-round12/replay.py), to choose which the compiled kernel runs.

    PYTHONPATH=. flock /work/bench.lock /tmp/nbvenv/bin/python docs/bench/scale-1m-kernel/replay.py \
        INDEX SHARE OUT.json [COMMIT]

The probe's no-problem questions are retrieved once through the numpy path; every whole-base `pruned_search` call
(BM25 and lexical) is recorded with its list. Each call is then replayed by every way, in rotating order, REPEAT
times (median kept); every way's list is compared with the recorded one (rows and float32 scores, `==`).

Ways: `pruned` (numpy MaxScore, main), `scan` (numpy exhaustive scan + top-k), `kernel` (the compiled exhaustive
loop, quest/retrieval/kernels.py), with COMMIT `kernel_COMMIT`, the kernel as that commit wrote it, and with
QUEST_BENCH_MAXSCORE=1 `kernel_maxscore`, the compiled MaxScore prototype for BM25 (maxscore_numba.py). Per signal
p50 / p95 / sum, and per call whether the kernel beat MaxScore, with the call's postings (the sum of its terms' list
lengths) to see whether the choice depends on the list sizes.
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from common import accept_tokenizer_3

accept_tokenizer_3()
from quest.bench import stages, vectors  # noqa: E402
from quest.bench.corpus import NO_PROBLEM, SEED, SyntheticKB, make_problems, mixed_queries  # noqa: E402
from quest.kb.documents import KnowledgeBase  # noqa: E402
from quest.plan import plan, retrieve  # noqa: E402
from quest.retrieval import kernels  # noqa: E402
from quest.retrieval import segments as segments_mod  # noqa: E402
from quest.retrieval.index import load_index  # noqa: E402
from quest.retrieval.retriever import Retriever  # noqa: E402
from quest.settings import Settings  # noqa: E402

REPEAT = 3


def record_calls(folder: Path, share: float):
    index = load_index(folder)
    settings = Settings(show_progress=False, sparse_kernel="numpy")
    kb = KnowledgeBase(documents=(), problems=make_problems(400))
    queries, kinds = mixed_queries(SyntheticKB(kb=kb, n_chunks=1_000_000, seed=SEED), 200, share)
    centres = vectors.problem_centres(list(kb.problems))
    prepared = stages.prepare(Retriever(settings, index, kb, None), queries)
    embedder = vectors.LookupEmbedder("synthetic-bge-m3-shape", vectors.DIM, vectors.query_lookup(prepared, centres),
                                      lexical=True)
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


def postings(index, call) -> int:
    """The call's postings: what the exhaustive loop reads."""
    if call["signal"] == "bm25":
        cols, _ = index.bm25._query(call["query"])
        return sum(int(s.postings.indptr[c + 1] - s.postings.indptr[c]) for s in index.bm25.segments for c in cols
                   if c < s.postings.shape[1])
    parts = index.lexical.parts
    cols = [c for c, _ in max(parts, key=lambda p: p.csc.shape[1])._items(call["query"])]
    return sum(int(p.csc.indptr[c + 1] - p.csc.indptr[c]) for p in parts for c in cols if c < p.csc.shape[1])


def kernel_at(commit: str):
    """The kernel as `commit` wrote it (kernels.py and _sparse_numba.py from git, imported under other names)."""
    folder = Path(tempfile.mkdtemp(prefix="kernel-"))
    for name in ("kernels", "_sparse_numba"):
        text = subprocess.run(["git", "show", f"{commit}:quest/retrieval/{name}.py"], capture_output=True, text=True,
                              check=True).stdout
        (folder / f"old{name}.py").write_text(text.replace("quest.retrieval._sparse_numba", "old_sparse_numba"),
                                              encoding="utf-8")
    sys.path.insert(0, str(folder))
    import oldkernels
    return oldkernels.load("numba")


def main(folder: Path, share: float, out: Path, old: str | None) -> None:
    index, calls = record_calls(folder, share)
    kernel = kernels.load("numba")
    assert kernels.warm(kernel, index) is not None
    model = {"bm25": index.bm25, "lexical": index.lexical}
    ways = {"pruned": lambda c: model[c["signal"]].pruned_search(c["query"], c["k"], c["rows"]),
            "scan": lambda c: model[c["signal"]].search(c["query"], c["k"], c["rows"]),
            "kernel": lambda c: model[c["signal"]].kernel_search(kernel, c["query"], c["k"], c["rows"])}
    if os.environ.get("QUEST_BENCH_MAXSCORE") == "1":  # the compiled MaxScore prototype (BM25; lexical: the kernel)
        import maxscore_numba

        ways["kernel_maxscore"] = lambda c: (maxscore_numba.top(index.bm25, c["query"], c["k"], c["rows"])
                                             if c["signal"] == "bm25" else ways["kernel"](c))
    if old:  # e.g. the first commit's kernel, which allocated a fresh accumulator per call
        before = kernel_at(old)
        ways["kernel_" + old] = lambda c: model[c["signal"]].kernel_search(before, c["query"], c["k"], c["rows"])
    names = list(ways)
    for c in calls[:4]:
        for name in names:
            ways[name](c)
    load = [os.getloadavg()]
    times = {name: [] for name in names}
    equal = dict.fromkeys(names, 0)
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
    sizes = [postings(index, c) for c in calls]
    summary = {"calls": {s: signals.count(s) for s in sorted(set(signals))},
               "load": [[round(x, 2) for x in v] for v in load], "equal_lists": equal, "ms": {}, "kernel_vs_pruned": {}}
    for name in names:
        per = {}
        for s in sorted(set(signals)):
            xs = [t for t, sig in zip(times[name], signals, strict=True) if sig == s]
            per[s] = {"p50": round(float(np.percentile(xs, 50)), 2), "p95": round(float(np.percentile(xs, 95)), 2),
                      "sum": round(float(np.sum(xs)), 1)}
        summary["ms"][name] = per
    for s in sorted(set(signals)):
        at = [i for i, sig in enumerate(signals) if sig == s]
        ratios = [times["kernel"][i] / times["pruned"][i] for i in at]
        slower = [i for i in at if times["kernel"][i] > times["pruned"][i]]
        summary["kernel_vs_pruned"][s] = {
            "ratio_median": round(float(np.median(ratios)), 3), "ratio_max": round(float(np.max(ratios)), 3),
            "kernel_slower_calls": len(slower),
            "slower_calls": [{"postings": sizes[i], "kernel_ms": round(times["kernel"][i], 2),
                              "pruned_ms": round(times["pruned"][i], 2)} for i in slower],
            "postings_p50": int(np.median([sizes[i] for i in at])), "postings_max": int(max(sizes[i] for i in at))}
    out.write_text(json.dumps({"summary": summary, "per_call": [
        {"signal": s, "postings": n, **{name: round(times[name][i], 3) for name in names}}
        for i, (s, n) in enumerate(zip(signals, sizes, strict=True))]}, indent=1), encoding="utf-8")
    sys.stdout.write(json.dumps(summary, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), float(sys.argv[2]), Path(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 else None)
