"""Could per-block score bounds prune the whole-base sparse lists? An upper bound per fixed block of R row positions.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-blockmax/block_bounds.py INDEX

Records every whole-base call (`maxscore.search`) of the 1M probe's no-problem questions (share 0.25), then for
each call and each block size R: every query term's largest actual weight inside each block (the tightest
per-block bound there is: a stored bound can only be looser), their sum per block, and the true k-th score from
the exhaustive scores. A block whose bound is below the k-th score could be skipped whole; the output is how many
blocks and what share of the call's postings could not be.
"""
import sys
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

index = load_index(Path(sys.argv[1]))
settings = Settings(show_progress=False)
kb = KnowledgeBase(documents=(), problems=make_problems(400))
queries, kinds = mixed_queries(SyntheticKB(kb=kb, n_chunks=1_000_000, seed=SEED), 200, 0.25)
centres = vectors.problem_centres(list(kb.problems))
prepared = stages.prepare(Retriever(settings, index, kb, None), queries)
lookup = vectors.query_lookup(prepared, centres)
embedder = vectors.LookupEmbedder("synthetic-bge-m3-shape", vectors.DIM, lookup, lexical=True)
retriever = Retriever(settings, index, kb, embedder)
calls = []
inner = maxscore.search
def rec(sources, columns, k, deleted, allowed=None):
    calls.append((sources, columns, k, allowed))
    return inner(sources, columns, k, deleted, allowed)
maxscore.search = rec
for q, kind in zip(queries, kinds, strict=False):
    if kind == NO_PROBLEM:
        retrieve(retriever, plan(q.request, retriever))
maxscore.search = inner
print(len(calls), 'calls')
SIZES = (256, 1024, 4096, 16384)
res = {R: {'bm25': [], 'lexical': []} for R in SIZES}
bm = index.bm25
for sources, columns, k, allowed in calls:
    (src,) = sources
    sig = 'bm25' if 'SegmentedBM25' in repr(src.weigh) else 'lexical'
    n = src.rows
    acc = np.zeros(n, np.float32)
    per = []
    for col, coef in columns:
        lo, hi = src.span(col)
        at = np.asarray(src.indices[lo:hi]).astype(np.int64)
        w = src.weigh(np.asarray(src.data[lo:hi]), at, coef)
        acc[at] += w
        per.append((at, w, src.bound(col, coef)))
    rows_of = np.asarray(src.order.rows(np.arange(n)), dtype=np.int64)
    ok = np.ones(n, bool)
    if allowed is not None:
        ok &= allowed[rows_of]
    vals = acc[ok & (acc > 0)]
    kth = np.partition(vals, vals.size - k)[vals.size - k] if vals.size >= k else 0.0
    total = sum(a.size for a, _, _ in per)
    for R in SIZES:
        nr = (n + R - 1) // R
        ub = np.zeros(nr)
        post = np.zeros(nr)
        for at, w, _b in per:
            m = np.zeros(nr, np.float32)
            np.maximum.at(m, at // R, w)
            ub += m
            post += np.bincount(at // R, minlength=nr)
        S = ub >= kth * (1 - 1e-5)
        res[R][sig].append((int(S.sum()), nr, float(post[S].sum() / total), total))
for R in SIZES:
    for sig in ('bm25', 'lexical'):
        a = np.array(res[R][sig])
        print(R, sig, 'ranges kept p50/p95', np.percentile(a[:, 0], [50, 95]), 'of', a[0, 1],
              'postings share p50/p95', np.round(np.percentile(a[:, 2], [50, 95]), 3),
              'mean postings kept', int((a[:, 2] * a[:, 3]).mean()))
