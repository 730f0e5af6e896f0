"""Side by side, in the same run: Quest's paths against the usual alternatives.

- BM25: Quest's sparse-matrix scoring against rank-bm25 rebuilt per query (`BM25Okapi(corpus)`
  each time, as some RAG code does) and against a prebuilt `BM25Okapi.get_scores` full scan.
  The top-10 rows of Quest and of rank-bm25 are compared too (they must agree).
- Problem-restricted dense search: Quest's exact product over the problem's rows against
  "search the top 2,000 globally (FAISS IndexFlatIP), then keep the problem's rows".
- Exact against approximate global search (FAISS IVF and HNSW): recall@30 and speed.
- The float16 vectors (re-scored in float32) against float32 exact: recall@30 and nDCG@30.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from quest.bench.measure import ratio, summary

K = 30
GLOBAL_K = 2000


def _timed(fn, items) -> tuple[list[float], list[Any]]:
    times, results = [], []
    for item in items:
        t = time.perf_counter()
        results.append(fn(item))
        times.append((time.perf_counter() - t) * 1000)
    return times, results


def _topn(scores: np.ndarray, n: int) -> list[int]:
    n = min(n, scores.size)
    part = np.argpartition(-scores, n - 1)[:n]
    return [int(i) for i in part[np.lexsort((part, -scores[part]))] if scores[i] > 0]


def bm25(index, corpus: Sequence[Sequence[str]], queries: Sequence[Sequence[str]], *,
         scan_queries: int, rebuild_queries: int) -> dict[str, Any]:
    """Quest's BM25 against rank-bm25; {"skipped": why} when rank-bm25 is not installed."""
    try:
        from rank_bm25 import BM25Okapi
    except ImportError:  # a bench-only dependency: pip install "quest[bench]"
        return {"skipped": 'rank-bm25 is not installed (pip install -r requirements-dev.txt, or "quest[bench]")'}

    quest_ms, quest_hits = _timed(lambda q: index.search(q, K), queries)
    t = time.perf_counter()
    reference = BM25Okapi(corpus)
    build_s = time.perf_counter() - t
    scan = list(queries[:scan_queries])
    scan_ms, scan_scores = _timed(lambda q: reference.get_scores(q), scan)
    agree = sum(
        [r for r, _ in quest_hits[i][:10]] == _topn(np.asarray(s), 10) for i, s in enumerate(scan_scores)
    )
    max_diff = max((float(np.max(np.abs(index.scores(q) - np.asarray(s)))) for q, s in zip(scan, scan_scores,
                                                                                              strict=True)),
                   default=0.0)
    rebuild_ms, _ = _timed(lambda q: _topn(BM25Okapi(corpus).get_scores(q), K), list(queries[:rebuild_queries]))
    q, s, r = summary(quest_ms), summary(scan_ms), summary(rebuild_ms)
    return {
        "quest": q,
        "rank_bm25_full_scan": s,
        "rank_bm25_rebuild_per_query": r,
        "rank_bm25_build_seconds": round(build_s, 3),
        "speedup_vs_full_scan_p50": ratio(s.get("p50"), q.get("p50")),
        "speedup_vs_rebuild_p50": ratio(r.get("p50"), q.get("p50")),
        "top10_identical": f"{agree}/{len(scan)}",
        "max_score_difference": max_diff,
    }


def restricted_dense(dense, rows_by_problem: dict[str, np.ndarray],
                     queries: Sequence[tuple[str, np.ndarray]]) -> dict[str, Any]:
    """Quest's restricted search against global top-2000 (the same float16 FAISS scan) then filter."""
    quest_ms, quest_hits = _timed(lambda pq: dense.search_rows(pq[1], rows_by_problem[pq[0]], K), queries)

    def post_filter(pq):
        allowed = set(rows_by_problem[pq[0]].tolist())
        return [r for r, _ in dense.search(pq[1], min(GLOBAL_K, dense.size)) if r in allowed][:K]

    filter_ms, filter_hits = _timed(post_filter, queries)
    recall = [len(set(f) & {r for r, _ in q}) / max(1, len(q)) for f, q in zip(filter_hits, quest_hits, strict=True)]
    short = sum(len(f) < min(K, len(q)) for f, q in zip(filter_hits, quest_hits, strict=True))
    q, f = summary(quest_ms), summary(filter_ms)
    return {
        "quest": q,
        "global_top2000_then_filter": f,
        "speedup_p50": ratio(f.get("p50"), q.get("p50")),
        "filter_recall_of_exact_top30": round(float(np.mean(recall)), 4) if recall else None,
        "filter_queries_short_of_results": short,
        "rows_per_problem_median": int(np.median([len(v) for v in rows_by_problem.values()])),
    }


def _ndcg(found: Sequence[int], truth: Sequence[int]) -> float:
    """Binary-relevance nDCG: the float32 top-k are the relevant rows."""
    relevant = set(truth)
    dcg = sum(1.0 / np.log2(i + 2) for i, row in enumerate(found) if row in relevant)
    ideal = sum(1.0 / np.log2(i + 2) for i in range(len(truth)))
    return dcg / ideal if ideal else 1.0


def float16_against_float32(dense, float32: np.ndarray, query_vectors: np.ndarray, *, k: int = K) -> dict[str, Any]:
    """Recall@k and nDCG@k of the float16 search (re-scored in float32) against float32 exact."""
    recalls, ndcgs = [], []
    for q in query_vectors:
        sims = float32 @ q
        truth = [int(i) for i in np.argsort(-sims, kind="stable")[:k]]
        found = [r for r, _ in dense.search(q, k)]
        recalls.append(len(set(found) & set(truth)) / k)
        ndcgs.append(_ndcg(found, truth))
    return {"k": k, "queries": len(query_vectors), f"recall_at_{k}": round(float(np.mean(recalls)), 4),
            f"ndcg_at_{k}": round(float(np.mean(ndcgs)), 4)}


def approximate(dense, query_vectors: np.ndarray, *, k: int = K, hnsw_up_to: int = 200_000) -> dict[str, Any]:
    """Exact float16 scan against the segment's IVF index (Quest's own, built if the size has none) at several
    nprobe, and HNSW at smaller sizes. The truth is the exact scan, never the IVF index."""
    import faiss

    (part,) = dense.parts
    vectors = part.vectors  # float16 view, (n, dim)
    n, dim = vectors.shape
    truth = [{r for r, _ in part.search(q, k, exact=True)} for q in query_vectors]
    out: dict[str, Any] = {"vectors": n, "dim": dim, "k": k, "methods": []}

    def record(name: str, build_s: float | None, search, extra_bytes: int | None, note: str = "", **params) -> None:
        times, found = _timed(search, list(query_vectors))
        recall = np.mean([len(set(f) & t) / k for f, t in zip(found, truth, strict=True)])
        out["methods"].append({"method": name, "build_seconds": None if build_s is None else round(build_s, 2),
                               **params, f"recall_at_{k}": round(float(recall), 4),
                               **{f"search_{key}": v for key, v in summary(times).items() if key in ("p50", "p95")},
                               "extra_bytes": extra_bytes, "note": note})

    record("exact: Quest (FAISS float16 scan + float32 re-score)", 0.0,
           lambda q: [r for r, _ in part.search(q, k, exact=True)], 0)
    own = part.ivf is not None
    t = time.perf_counter()
    if not own:
        part.build_approximate()
    build_s = None if own else time.perf_counter() - t
    ivf = part.ivf
    note = ("Quest's own IVF index over this segment" if own else "built here as Quest builds it") + \
        ", trained on a sample of 40 x nlist"
    codes = "SQ8" if ivf.code_size == dim else f"SQ{ivf.code_size * 8 // dim}bit"
    for nprobe in (8, 16, 32, 64, 128):
        params = faiss.SearchParametersIVF(nprobe=nprobe)
        record(f"IVF{ivf.nlist},{codes} (its own order)", build_s,
               lambda q, params=params: ivf.search(q.reshape(1, -1), k, params=params)[1][0].tolist(),
               n * ivf.code_size + n * 8, note, nprobe=nprobe)
    from quest.retrieval import dense as dense_module

    # What the global search returns: CANDIDATES_PER_RESULT x k from the IVF, re-scored from float16.
    record(f"Quest: IVF{ivf.nlist},{codes} + float16 re-score of {dense_module.CANDIDATES_PER_RESULT}k",
           build_s, lambda q: [r for r, _ in part.search(q, k)], n * ivf.code_size + n * 8, note,
           nprobe=dense_module.NPROBE)
    if not own:
        part.ivf = None
    if n <= hnsw_up_to:
        t = time.perf_counter()
        hnsw = faiss.IndexHNSWSQ(dim, faiss.ScalarQuantizer.QT_fp16, 32, faiss.METRIC_INNER_PRODUCT)
        hnsw.hnsw.efConstruction = 40
        for start in range(0, n, 65536):
            hnsw.add(vectors[start:start + 65536].astype(np.float32))
        build_s = time.perf_counter() - t
        for ef in (64, 128, 256):
            hnsw.hnsw.efSearch = ef
            record("HNSW32,SQfp16", build_s, lambda q: hnsw.search(q.reshape(1, -1), k)[1][0].tolist(),
                   n * dim * 2 + n * 32 * 2 * 4, "no removal: an update rebuilds it", efSearch=ef)
    return out
