"""How far float16 lexical weights move the rankings (docs/bench/scale-1m-sparse/report.md).

    python docs/bench/scale-1m-sparse/agreement.py bench BEFORE_DIR AFTER_DIR CHUNKS PROBLEMS QUERIES
    python docs/bench/scale-1m-sparse/agreement.py tiny SPLIT.jsonl [SPLIT.jsonl ...]

`bench`: two saved indexes that differ only in their lexical weights (float32 before, float16 after:
convert_lexical.py), the bench's queries with their synthetic bge-m3-shaped lexical weights: per
query the lexical top-30 and top-5, over the whole base and over the target problem's rows, and the
whole retrieval's top-5 (every signal fused, floors, fill-up) compared list for list.

`tiny`: the real FlagEmbedding code on the tiny bge-m3 test model (quest/testing/tiny_model.py),
the sample knowledge base indexed twice, lexical weights float32 (as before) and float16, the
questions of the given eval splits: the same comparisons.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from quest.retrieval.sparse import top_k, top_k_among


def lists(index, weights: dict, rows: np.ndarray | None) -> dict[str, list[int]]:
    full = [r for r, _ in top_k(index.lexical.scores(weights), 30)]
    out = {"global30": full, "global5": full[:5]}
    if rows is not None and rows.size:
        mine = [r for r, _ in top_k_among(index.lexical.scores_for(weights, rows), rows, 30)]
        out.update(problem30=mine, problem5=mine[:5])
    return out


def compare(pairs: list[tuple[dict, dict]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in ("global30", "global5", "problem30", "problem5", "retrieval5"):
        both = [(a[key], b[key]) for a, b in pairs if key in a]
        if both:
            same = sum(x == y for x, y in both)
            sets = sum(set(x) == set(y) for x, y in both)
            out[key] = {"queries": len(both), "identical": same, "same_rows_any_order": sets}
    return out


def bench(before: Path, after: Path, chunks: int, problems: int, count: int) -> dict[str, Any]:
    from quest.bench import stages, vectors
    from quest.bench.corpus import SEED, SyntheticKB, make_problems, make_queries
    from quest.kb.documents import KnowledgeBase
    from quest.retrieval.index import load_index
    from quest.retrieval.retriever import Retriever
    from quest.settings import Settings

    settings = Settings(show_progress=False)
    kb = KnowledgeBase(documents=(), problems=make_problems(problems))
    queries = make_queries(SyntheticKB(kb=kb, n_chunks=chunks, seed=SEED), count)
    centres = vectors.problem_centres(list(kb.problems))
    results = []
    for folder in (before, after):
        index = load_index(folder)
        prepared = stages.prepare(Retriever(settings, index, kb, None), queries)
        lookup = vectors.query_lookup(prepared, centres)
        per = [lists(index, lookup[p.text.strip()][1], index.rows_by_problem.get(p.query.target_problem))
               for p in prepared]
        embedder = vectors.LookupEmbedder("synthetic-bge-m3-shape", vectors.DIM, lookup, lexical=True)
        top5: list[list[str]] = []
        stages.run_stages(Retriever(settings, index, kb, embedder), queries, context_chars=settings.context_max_chars,
                          top5=top5)
        for item, hits in zip(per, top5, strict=True):
            item["retrieval5"] = hits
        results.append((per, str(index.lexical.parts[0].csc.data.dtype)))
        del index
    (a, dtype_a), (b, dtype_b) = results
    return {"before": dtype_a, "after": dtype_b, **compare(list(zip(a, b, strict=True)))}


def tiny(splits: list[Path]) -> dict[str, Any]:
    import tempfile

    from quest.kb.markdown import load_knowledge_base
    from quest.retrieval import sparse
    from quest.retrieval.embedder import load_embedder
    from quest.retrieval.index import build_index
    from quest.retrieval.retriever import Retriever
    from quest.settings import Settings
    from quest.testing.tiny_model import build_tiny_bge_m3

    asked = [json.loads(line) for split in splits for line in split.read_text("utf-8").splitlines()
             if line.strip() and not line.startswith("//")]  # the splits open with a comment line
    questions = [a["question"] for a in asked]
    with tempfile.TemporaryDirectory() as tmp:
        model = build_tiny_bge_m3(Path(tmp) / "tiny")
        settings = Settings(embedding_model=str(model), show_progress=False)
        embedder = load_embedder(settings)
        kb = load_knowledge_base(settings.kb_dir)
        keep = sparse.stored_weights
        results = []
        for as_before in (True, False):
            sparse.stored_weights = (lambda d: np.asarray(d, dtype=np.float32)) if as_before else keep
            try:
                index = build_index(kb, settings, embedder)
            finally:
                sparse.stored_weights = keep
            retriever = Retriever(settings, index, kb, embedder)
            weights = embedder.encode_queries(questions).lexical
            per = [lists(index, w, index.rows_by_problem.get(str(a.get("problem_id")))) for w, a in
                   zip(weights, asked, strict=True)]
            for item, a in zip(per, asked, strict=True):
                hits = retriever.search(a["question"], problem_id=a.get("problem_id")).hits
                item["retrieval5"] = [h.chunk.id for h in hits[:5]]
            results.append((per, str(index.lexical.parts[0].csc.data.dtype)))
    (a, dtype_a), (b, dtype_b) = results
    return {"questions": len(questions), "chunks": index.size, "before": dtype_a, "after": dtype_b,
            **compare(list(zip(a, b, strict=True)))}


if __name__ == "__main__":
    if sys.argv[1] == "bench":
        result = bench(Path(sys.argv[2]), Path(sys.argv[3]), *map(int, sys.argv[4:7]))
    else:
        result = tiny([Path(p) for p in sys.argv[2:]])
    print(json.dumps(result))
