"""Per-stage latency of one request's path through retrieval, as the app runs it.

For every query: judge parsing + query building, then `Retriever.search` (its own stage
timings: tokenize, embed, BM25, dense, lexical, fusion, over the problem's rows and the
global fill-up), then context building. Hint-tier requests exclude official solutions, as
the app does. A few warm-up queries run first and are not counted.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from quest.bench.corpus import BenchQuery
from quest.bench.measure import summary
from quest.context import build_context
from quest.plan import plan, retrieve
from quest.retrieval.retriever import Retriever

WARMUP = 5

#: Stages in report order: key -> label.
STAGES = {
    "query_build": "judge parsing + query building (and the second plan of a confirmed weak name)",
    "confirm_search": "the first, confirming search, when a weak name made the search run twice",
    "tokenize": "query tokenization (+ BM25 bound)",
    "embed": "query embedding",
    "dense_problem": "dense search restricted to the problem",
    "dense_global": "dense global search (fill-up / no problem)",
    "bm25": "BM25 (problem + global, per query)",
    "lexical": "lexical weights (problem + global)",
    "fusion": "fusion (RRF + floors)",
    "context": "context building",
    "retrieval": "whole retrieval (Retriever.search; both searches when it ran twice)",
    "retrieval_no_embed": "whole retrieval excluding query embedding",
    "request": "query building + retrieval + context",
}


@dataclass(frozen=True)
class PreparedQuery:
    query: BenchQuery
    text: str  # the retrieval query built from the request
    exclude: frozenset[str]


def prepare(retriever: Retriever, queries: Sequence[BenchQuery]) -> list[PreparedQuery]:
    out = []
    for q in queries:
        p = plan(q.request, retriever)
        out.append(PreparedQuery(q, p.parts.text(), p.exclude_kinds))
    return out


def run_stages(retriever: Retriever, queries: Sequence[BenchQuery], *, context_chars: int,
               top5: list[list[str]] | None = None, kinds: Sequence[str] | None = None) -> dict[str, Any]:
    """Per-stage latencies over `queries` (after a warm-up); each query's top-5 chunk ids into `top5` if given.

    With `kinds` (one label per query), the whole retrieval and the global dense search are also
    summarized per kind under "by_kind".
    """
    samples: dict[str, list[float]] = {k: [] for k in STAGES}
    per_query: list[dict[str, float]] = []
    scopes = {"problem_only": 0, "with_global": 0, "widened": 0, "empty": 0, "confirmed": 0}
    for i, q in enumerate([*queries[:WARMUP], *queries]):
        counted = i >= WARMUP
        r = q.request
        t = time.perf_counter()
        planned = plan(r, retriever)  # the same planning stage as the app: judge parsing + query parts
        query_ms = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        planned, result = retrieve(retriever, planned)
        retrieve_ms = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        build_context(result.hits, lang=r.answer_lang(), max_chars=context_chars)
        context_ms = (time.perf_counter() - t) * 1000
        if not counted:
            continue
        if top5 is not None:
            top5.append([h.chunk.id for h in result.hits[:5]])
        tm = result.timings
        first = planned.confirm_timings  # empty unless a weak name made the search run twice
        searched_ms = tm.get("total", 0.0) + first.get("total", 0.0)
        embed_ms = tm.get("embed", 0.0) + first.get("embed", 0.0)
        # What `retrieve` spent outside the searches (the second plan, the confirmation) is planning too.
        query_ms += max(0.0, retrieve_ms - searched_ms)
        samples["query_build"].append(query_ms)
        samples["context"].append(context_ms)
        if first:
            samples["confirm_search"].append(first.get("total", 0.0))
        for key in ("tokenize", "embed", "dense_problem", "dense_global", "fusion"):
            if key in tm:
                samples[key].append(tm[key])
        for key in ("bm25", "lexical"):
            parts = [v for k, v in tm.items() if k.startswith(key + "_")]
            if parts:
                samples[key].append(sum(parts))
        samples["retrieval"].append(searched_ms)
        samples["retrieval_no_embed"].append(searched_ms - embed_ms)
        samples["request"].append(query_ms + searched_ms + context_ms)
        ran = {k for k in KIND_STAGES if k in tm or k.startswith("retrieval")} | {
            k for k in ("bm25", "lexical") if any(t.startswith(k + "_") for t in tm)}
        per_query.append({k: samples[k][-1] for k in ran})
        scopes["with_global" if any(k.endswith("_global") for k in tm) else "problem_only"] += 1
        scopes["widened"] += int(result.widened)
        scopes["empty"] += int(not result.hits)
        scopes["confirmed"] += int(bool(first))
    out = {"stages": {k: summary(v) for k, v in samples.items()}, "queries": len(queries), "paths": scopes}
    if kinds is not None:
        out["by_kind"] = by_kind(per_query, kinds)
    return out


#: The stages summarized per query kind.
KIND_STAGES = ("retrieval", "retrieval_no_embed", "dense_global", "dense_problem", "bm25", "lexical")


def by_kind(per_query: Sequence[dict[str, float]], kinds: Sequence[str]) -> dict[str, Any]:
    """Each kind's query count and latency summaries of KIND_STAGES (a stage a query did not run is left out)."""
    out: dict[str, Any] = {}
    for kind in sorted(set(kinds)):
        rows = [row for row, k in zip(per_query, kinds, strict=True) if k == kind]
        out[kind] = {"queries": len(rows), **{s: summary([r[s] for r in rows if s in r]) for s in KIND_STAGES}}
    return out
