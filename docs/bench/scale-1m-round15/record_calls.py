"""Record the whole-base BM25 calls (columns, idf x multiplicity, k) of the 300 no-problem questions at a 0.6
share into calls.json. PYTHONPATH=. python docs/bench/scale-1m-round15/record_calls.py /tmp/bm/1m
"""
# ruff: noqa: E402, N812, SIM115
import json
import sys
from pathlib import Path

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parents[1] / "scale-1m-kernel"))
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parents[1] / "scale-1m-round13"))
from common import accept_tokenizer_3

accept_tokenizer_3()
from breakdown import setup

import quest.retrieval.segments as S
from quest.plan import plan, retrieve
from quest.retrieval.retriever import Retriever
from quest.settings import Settings

calls = []
orig = S.SegmentedBM25.kernel_search


def rec(self, kernel, tokens, k, rows=None, *, warm=False):
    cols, coefs = self._query(tokens)
    calls.append((list(cols), [float(c) for c in coefs], k, None if rows is None else int(rows.size)))
    return orig(self, kernel, tokens, k, rows, warm=warm)


S.SegmentedBM25.kernel_search = rec
index, kb, emb, chosen = setup(Path(sys.argv[1]), 0.6, Settings(show_progress=False))
r = Retriever(Settings(show_progress=False, sparse_kernel="numba"), index, kb, emb)
out = []
for q in chosen[:300]:
    calls.clear()
    retrieve(r, plan(q.request, r))
    out.append(list(calls))
json.dump(out, open(str(Path(__file__).parent / "calls.json"), "w"))
import numpy as np

n = [len(c) for c in out]
print("calls per q", np.mean(n), np.bincount(n))
# overlap and order agreement
agree = 0
tot = 0
shared = 0
union_post = 0
sum_post = 0
indptr = index.bm25.segments[0].postings.indptr
for c in out:
    seen = {}
    for cols, _coefs, _k, _rows in c:
        for col in cols:
            sum_post += int(indptr[col + 1] - indptr[col])
            seen[col] = 1
    for col in seen:
        union_post += int(indptr[col + 1] - indptr[col])
print("postings sum", sum_post, "union", union_post, union_post / sum_post)
print(out[0])
print(out[1])
