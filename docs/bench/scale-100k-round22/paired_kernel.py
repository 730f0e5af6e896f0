"""Per question, alternately: a Retriever with the compiled kernel and one without, same process, same index."""
import gc, json, statistics, sys, time
from pathlib import Path
from quest.bench import stages, vectors
from quest.bench.corpus import NO_PROBLEM, SEED, SyntheticKB, make_problems, mixed_queries
from quest.kb.documents import KnowledgeBase
from quest.plan import plan, retrieve
from quest.retrieval.index import load_index
from quest.retrieval.retriever import Retriever
from quest.settings import Settings
folder = Path(sys.argv[1])
kb = KnowledgeBase(documents=(), problems=make_problems(400))
queries, kinds = mixed_queries(SyntheticKB(kb=kb, n_chunks=100_000, seed=SEED), 200, 0.25)
index = load_index(folder)
s_np = Settings(show_progress=False, sparse_kernel="numpy"); s_nb = Settings(show_progress=False, sparse_kernel="numba")
prepared = stages.prepare(Retriever(s_np, index, kb, None), queries)
emb = vectors.LookupEmbedder("synthetic-bge-m3-shape", vectors.DIM, vectors.query_lookup(prepared, vectors.problem_centres(list(kb.problems))), lexical=True)
r_np = Retriever(s_np, index, kb, emb); r_nb = Retriever(s_nb, index, kb, emb)
assert r_np._kernel is None and r_nb._kernel is not None
def t(r, q):
    p, res = retrieve(r, plan(q.request, r))
    tm, first = res.timings, p.confirm_timings
    return tm.get("total", 0.0) + first.get("total", 0.0) - tm.get("embed", 0.0) - first.get("embed", 0.0), res.tm if False else tm
rows = []
for rep in range(3):
    for i, (q, k) in enumerate(zip(queries, kinds)):
        order = (r_np, r_nb) if (i + rep) % 2 == 0 else (r_nb, r_np)
        out = {}
        for r in order:
            ms, tm = t(r, q)
            out["nb" if r is r_nb else "np"] = (ms, {x: round(v, 3) for x, v in tm.items()})
        if rep > 0:
            rows.append((k, out))
for kind in ("names", "none"):
    sel = [o for k, o in rows if (k == NO_PROBLEM) == (kind == "none")]
    ratio = statistics.median(o["nb"][0] / o["np"][0] for o in sel)
    a = statistics.quantiles([o["np"][0] for o in sel], n=100); b = statistics.quantiles([o["nb"][0] for o in sel], n=100)
    print(kind, len(sel), "median ratio nb/np", round(ratio, 3), "np p50/p95", round(a[49], 2), round(a[94], 2), "nb p50/p95", round(b[49], 2), round(b[94], 2))
    stg = set().union(*(o["np"][1] for o in sel))
    for st in sorted(stg):
        va = [o["np"][1].get(st, 0) for o in sel]; vb = [o["nb"][1].get(st, 0) for o in sel]
        print("   ", st, round(statistics.median(va), 3), round(statistics.median(vb), 3))
