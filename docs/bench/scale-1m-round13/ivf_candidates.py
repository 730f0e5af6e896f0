"""Recall@30 of the global IVF search against the exact scan, by how many candidates are re-scored.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round13/ivf_candidates.py INDEX SHARE OUT.json

The query vectors are the probe's no-problem questions' (`corpus.mixed_queries` at SHARE, embedded by the bench's
lookup embedder). For each, the exact top 30 (FAISS's float16 scan of every row, re-scored in float32) and the
IVF's top 30 with c x 30 + 16 candidates re-scored, c in CANDIDATES; recall is the share of the exact rows found.
"""

import json
import sys
from pathlib import Path

import numpy as np

from quest.bench import stages, vectors
from quest.bench.corpus import NO_PROBLEM, SEED, SyntheticKB, make_problems, mixed_queries
from quest.kb.documents import KnowledgeBase
from quest.retrieval import dense as dense_mod
from quest.retrieval.index import load_index
from quest.retrieval.retriever import Retriever
from quest.settings import Settings

CANDIDATES = (4, 5, 6, 8)
K = 30


def main(folder: Path, share: float, out: Path) -> None:
    index = load_index(folder)
    settings = Settings(show_progress=False)
    kb = KnowledgeBase(documents=(), problems=make_problems(400))
    queries, kinds = mixed_queries(SyntheticKB(kb=kb, n_chunks=1_000_000, seed=SEED), 200, share)
    centres = vectors.problem_centres(list(kb.problems))
    retriever = Retriever(settings, index, kb, None)
    prepared = stages.prepare(retriever, queries)
    lookup = vectors.query_lookup(prepared, centres)
    texts = [p.text.strip() for p, kind in zip(prepared, kinds, strict=True) if kind == NO_PROBLEM]
    part = index.dense.parts[0]
    found = {c: [] for c in CANDIDATES}
    for text in texts:
        q = np.ascontiguousarray(lookup[text][0], dtype=np.float32).reshape(1, -1)
        exact = {r for r, _ in part.search(q, K, exact=True)}
        for c in CANDIDATES:
            ids = part._ivf_candidates(q, c * K + dense_mod.TIE_EXTRA, None)
            rows = ids[0][ids[0] >= 0].astype(np.int64)
            sims = part.rescore(rows, q)
            top = {int(rows[i]) for i in dense_mod._best(sims, K, rows)}
            found[c].append(len(top & exact) / max(len(exact), 1))
    report = {"queries": len(texts), "k": K,
              "recall_at_30": {c: {"mean": round(float(np.mean(v)), 4), "min": round(float(np.min(v)), 4),
                                   "below_1": int(sum(x < 1 for x in v))} for c, v in found.items()}}
    out.write_text(json.dumps(report, indent=1), encoding="utf-8")
    sys.stdout.write(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), float(sys.argv[2]), Path(sys.argv[3]))
