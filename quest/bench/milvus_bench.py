"""`python -m quest bench --milvus --sizes 100000`: the local store and Milvus Lite side by side.

The same synthetic corpus as the scale bench (bge-m3-shaped 1024-d vectors and lexical weights,
Quest's BM25), once in the local index and once in a Milvus Lite collection (dense + BM25 +
lexical sparse fields, `problem_id` partition key). Per query: the dense search restricted to
the target problem, the global dense search, the global BM25 and lexical searches, and the hybrid
(dense + BM25 + lexical fused by RRF k = 60: locally over the local lists, in Milvus by one
`hybrid_search`). Also the whole `Retriever.search` on both, the local load, the Milvus insert
and re-open, disk, memory, and how often the two stores' top-30 lists agree.
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from quest.bench import lifecycle, stages, vectors
from quest.bench.corpus import generate, make_queries
from quest.bench.measure import machine, rss_bytes, summary
from quest.retrieval.fusion import RRF_K, reciprocal_rank_fusion
from quest.retrieval.index import Index, load_index, save_index
from quest.retrieval.retriever import Retriever
from quest.retrieval.sparse import top_k
from quest.retrieval.tokenize import tokenize
from quest.settings import Settings

Progress = Callable[[str], None]
K = 30  # the retriever's candidates per list
STAGE_LABELS = {
    "dense_problem": "dense restricted to the problem",
    "dense_global": "dense global",
    "bm25_global": "sparse: BM25 global",
    "lexical_global": "sparse: lexical global",
    "hybrid_global": "hybrid: dense + BM25 + lexical, RRF k=60 (Milvus: the lists of one hybrid_search, fused here)",
    "server_global": "hybrid, Milvus's own fused order from the same call (not used to rank)",
    "hybrid_problem": "hybrid restricted to the problem",
    "server_problem": "hybrid restricted to the problem, Milvus's own fused order",
    "retrieval_no_embed": "whole Retriever.search (excl. embedding; agreement: top-5 hits)",
}


def _children_rss() -> int:
    """Resident bytes of this process's children (a Milvus Lite server started by the client)."""
    total = 0
    me = str(os.getpid())
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/status", encoding="ascii") as fh:
                fields = dict(line.split(":", 1) for line in fh if ":" in line)
        except OSError:
            continue
        if fields.get("PPid", "").strip() == me and "VmRSS" in fields:
            total += int(fields["VmRSS"].split()[0]) * 1024
    return total


def _du(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _copy(index: Index) -> Index:
    """A second Index over the same segments (Milvus replaces its parts; the local one keeps its own)."""
    return Index(segments=index.segments, deleted=index.deleted.copy(), model=index.model,
                 doc_hashes=index.doc_hashes, chunk_max_chars=index.chunk_max_chars, dim=index.dim)


class _Queries:
    """Each bench query's dense vector, BM25 tokens, lexical weights and target problem's rows."""

    def __init__(self, index: Index, prepared: list, lookup: dict) -> None:
        self.items = []
        for p in prepared:
            vec, lexical = lookup[p.text.strip()]
            rows = index.rows_by_problem.get(p.query.target_problem, np.zeros(0, dtype=np.int64))
            self.items.append((vec, tokenize(p.text), lexical, rows))


def _local_lists(index: Index, q: tuple, restricted: bool) -> dict[str, list[int]]:
    vec, tokens, lexical, rows = q
    where = rows if restricted else None
    dense = index.dense.search_rows(vec, rows, K) if restricted else index.dense.search(vec, K)
    return {"dense": [r for r, _ in dense],
            "bm25": [r for r, _ in top_k(index.bm25.scores(tokens), K, where)],
            "lexical": [r for r, _ in top_k(index.lexical.scores(lexical), K, where)]}


def _timed(samples: dict[str, list[float]], key: str, call: Callable[[], Any]) -> Any:
    t = time.perf_counter()
    out = call()
    samples.setdefault(key, []).append((time.perf_counter() - t) * 1000)
    return out


def _local_query(index: Index, q: tuple, samples: dict[str, list[float]]) -> dict[str, list]:
    vec, tokens, lexical, rows = q
    got = {"dense_problem": _timed(samples, "dense_problem", lambda: index.dense.search_rows(vec, rows, K)),
           "dense_global": _timed(samples, "dense_global", lambda: index.dense.search(vec, K)),
           "bm25_global": _timed(samples, "bm25_global", lambda: top_k(index.bm25.scores(tokens), K)),
           "lexical_global": _timed(samples, "lexical_global", lambda: top_k(index.lexical.scores(lexical), K))}
    for scope, restricted in (("global", False), ("problem", True)):
        got[f"hybrid_{scope}"] = _timed(samples, f"hybrid_{scope}",
                                        lambda r=restricted: reciprocal_rank_fusion(_local_lists(index, q, r))[:K])
    return got


def _milvus_hybrid(store: Any, asked: list, rows: np.ndarray | None) -> tuple[list, list]:
    """The retriever's path for one scope: every list from one server-side RRF `hybrid_search` (two
    with ties at a cut), rebuilt and fused here as the local lists are; and the server's own fused
    order from the same call (empty when the scope fell back to one call per list)."""
    from quest.retrieval.milvus_hybrid import scope_lists

    found = scope_lists(store, asked, K, rows, RRF_K)
    if found is None:  # as the retriever: each list asked on its own
        lists = {q.name: store.ranked(q.field, q.data, K, rows, q.local) for q in asked}
        return reciprocal_rank_fusion({n: [r for r, _ in v] for n, v in lists.items()})[:K], []
    fused = reciprocal_rank_fusion({n: [r for r, _ in v] for n, v in found.lists.items()})[:K]
    return fused, found.fused[:K]


def _milvus_query(index: Index, q: tuple, samples: dict[str, list[float]]) -> dict[str, list]:
    from quest.retrieval.milvus_hybrid import ListQuery
    from quest.retrieval.milvus_sparse import bm25_query, lexical_query

    vec, tokens, lexical, rows = q
    store = index.dense.store
    asked = [ListQuery("dense", "dense", vec.astype(np.float32).tolist()),
             ListQuery("bm25", "bm25", bm25_query(index.bm25.local, tokens), tokens),
             ListQuery("lexical", "lexical", lexical_query(lexical), lexical)]
    got = {"dense_problem": _timed(samples, "dense_problem", lambda: index.dense.search_rows(vec, rows, K)),
           "dense_global": _timed(samples, "dense_global", lambda: index.dense.search(vec, K)),
           "bm25_global": _timed(samples, "bm25_global", lambda: index.bm25.search(tokens, K)),
           "lexical_global": _timed(samples, "lexical_global", lambda: index.lexical.search(lexical, K))}
    for scope, where in (("global", None), ("problem", rows)):
        if where is not None and not where.size:
            got[f"hybrid_{scope}"], got[f"server_{scope}"] = [], []
            continue
        got[f"hybrid_{scope}"], got[f"server_{scope}"] = _timed(samples, f"hybrid_{scope}",
                                                                lambda w=where: _milvus_hybrid(store, asked, w))
    return got


def _run(index: Index, queries: _Queries, one: Callable) -> tuple[dict[str, list[float]], list[dict]]:
    samples: dict[str, list[float]] = {}
    return samples, [one(index, q, samples) for q in queries.items]


def _agreement(local: list[dict], remote: list[dict]) -> dict[str, Any]:
    """Share of queries whose top-30 rows are the same set, per stage (order compared for top-5).

    `server_<scope>` compares Milvus's own fused order (not used to rank) with the local fused
    list, and counts why each differing top 5 differs (see `_server_causes`)."""
    out: dict[str, Any] = {}
    for key in local[0] if local else {}:
        pairs = list(zip(local, remote, strict=True))
        same = [{r for r, _ in a[key]} == {r for r, _ in b[key]} for a, b in pairs]
        top5 = [[r for r, _ in a[key]][:5] == [r for r, _ in b[key]][:5] for a, b in pairs]
        out[key] = {"top30_same_set": round(float(np.mean(same)), 4), "top5_same_order": round(float(np.mean(top5)), 4)}
    for scope in ("global", "problem"):
        pairs = [(a[f"hybrid_{scope}"], b[f"server_{scope}"]) for a, b in zip(local, remote, strict=True)
                 if b.get(f"server_{scope}")]
        if pairs:
            out[f"server_{scope}"] = {
                "queries": len(pairs),
                "top30_same_set": round(float(np.mean([{r for r, _ in a} == {r for r, _ in b} for a, b in pairs])), 4),
                "top5_same_order": round(float(np.mean([[r for r, _ in a][:5] == [r for r, _ in b][:5]
                                                        for a, b in pairs])), 4),
                "top5_differs_because": _server_causes(pairs)}
    return out


def _server_causes(pairs: list[tuple[list, list]]) -> dict[str, int]:
    """Why Milvus's fused top 5 differs from the local one, per query.

    "ranks": a row of either top 5 has another fused score on the server (beyond float32
    rounding): some list gave it another rank, i.e. Milvus ordered rows tied inside a list (or at
    its cut) its own way. "equal fused scores": every fused score agrees, only rows with equal
    fused scores come in another order (Milvus: by primary key; locally: by row).
    """
    causes = {"ranks": 0, "equal fused scores": 0}
    for here, server in pairs:
        if [r for r, _ in here][:5] == [r for r, _ in server][:5]:
            continue
        mine, theirs = dict(here), dict(server)
        rows = {r for r, _ in here[:5]} | {r for r, _ in server[:5]}
        moved = any(r not in mine or r not in theirs or abs(mine[r] - theirs[r]) > 1e-6 for r in rows)
        causes["ranks" if moved else "equal fused scores"] += 1
    return causes


def _retrieval(index: Index, kb: Any, settings: Settings, embedder: Any, queries: list,
               top5: list[list[str]]) -> dict[str, Any]:
    result = stages.run_stages(Retriever(settings, index, kb, embedder), queries,
                               context_chars=settings.context_max_chars, top5=top5)
    return result["stages"]["retrieval_no_embed"]


def _same_hits(local: list[list[str]], remote: list[list[str]]) -> dict[str, Any]:
    """The issue's measure: each whole search's top-5 hits (chunk ids, in order) equal in both stores."""
    same = [a == b for a, b in zip(local, remote, strict=True)]
    return {"top5_same_order": round(float(np.mean(same)), 4) if same else None, "queries": len(same)}


def _prepare(n: int, n_queries: int, settings: Settings, progress: Progress) -> tuple[Any, ...]:
    synthetic = generate(n)
    kb = synthetic.kb
    queries = make_queries(synthetic, n_queries)
    progress(f"[milvus {n}] {len(kb.documents)} documents; chunking + BM25...")
    index_m, _ = lifecycle.measure_build(kb, settings, None)
    centres = vectors.problem_centres(list(kb.problems))
    progress(f"[milvus {n}] bge-m3-shaped vectors...")
    index = vectors.shaped_index(index_m, centres)
    del index_m
    gc.collect()
    prepared = stages.prepare(Retriever(settings, index, kb, None), queries)
    lookup = {p.text.strip(): (vectors.query_vector(p.query.target_problem, centres, seed=i),
                               vectors.query_lexical(p.text)) for i, p in enumerate(prepared)}
    embedder = vectors.LookupEmbedder("synthetic-bge-m3-shape", vectors.DIM, lookup, lexical=True)
    return kb, queries, index, prepared, lookup, embedder


def bench_size(n: int, n_queries: int, settings: Settings, workdir: Path, progress: Progress) -> dict[str, Any]:
    from quest.retrieval.milvus import attach

    kb, queries, index, prepared, lookup, embedder = _prepare(n, n_queries, settings, progress)
    folder, db = workdir / f"{n}-local", workdir / f"{n}-milvus.db"
    save_index(index, folder)
    t = time.perf_counter()
    index = load_index(folder)  # what a restart pays locally (verified: SHA-256 of every file)
    local_load = time.perf_counter() - t
    result: dict[str, Any] = {"chunks": index.size, "queries": len(prepared),
                              "local": {"load_seconds": round(local_load, 2), "disk_bytes": _du(folder)}}
    progress(f"[milvus {n}] local load {local_load:.1f}s; inserting into Milvus Lite...")
    remote = _copy(index)
    rss0 = rss_bytes()
    t = time.perf_counter()
    attach(str(db), remote)
    result["milvus"] = {"insert_seconds": round(time.perf_counter() - t, 2), "disk_bytes": _du(db) if db.is_dir()
                        else db.stat().st_size}
    progress(f"[milvus {n}] inserted in {result['milvus']['insert_seconds']}s; re-open...")
    remote.dense.client.close()
    remote = _copy(index)
    t = time.perf_counter()
    attach(str(db), remote)  # a restart: the server process, load_collection, the key scan, nothing to sync
    result["milvus"]["reopen_seconds"] = round(time.perf_counter() - t, 2)
    result["milvus"]["client_rss_growth_bytes"] = rss_bytes() - rss0
    result["milvus"]["server_rss_bytes"] = _children_rss()
    result["local"]["rss_bytes"] = rss0
    qs = _Queries(index, prepared, lookup)
    progress(f"[milvus {n}] per-stage latency, local then Milvus ({len(prepared)} queries)...")
    local_samples, local_lists = _run(index, qs, _local_query)
    milvus_samples, milvus_lists = _run(remote, qs, _milvus_query)
    result["agreement"] = _agreement(local_lists, milvus_lists)
    progress(f"[milvus {n}] whole retrieval, local then Milvus...")
    result["local"]["stages"] = {k: summary(v) for k, v in local_samples.items() if v}
    hits: tuple[list, list] = ([], [])
    result["local"]["stages"]["retrieval_no_embed"] = _retrieval(index, kb, settings, embedder, queries, hits[0])
    result["milvus"]["stages"] = {k: summary(v) for k, v in milvus_samples.items()}
    result["milvus"]["stages"]["retrieval_no_embed"] = _retrieval(remote, kb, settings, embedder, queries, hits[1])
    result["agreement"]["retrieval_no_embed"] = _same_hits(*hits)
    remote.dense.client.close()
    return result


def run(sizes: list[int], n_queries: int, out: Path, settings: Settings, workdir: Path,
        progress: Progress) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    workdir.mkdir(parents=True, exist_ok=True)
    settings = settings.replace(show_progress=False)
    results: dict[str, Any] = {"started": time.strftime("%Y-%m-%d %H:%M:%S %z"), "machine": machine(), "sizes": []}
    try:
        for n in sizes:
            results["sizes"].append(bench_size(n, n_queries, settings, workdir, progress))
            gc.collect()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    results["finished"] = time.strftime("%Y-%m-%d %H:%M:%S %z")
    results["machine"]["load_average_end"] = machine().get("load_average")
    (out / "results.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    (out / "report.md").write_text(markdown(results), encoding="utf-8")
    return results


def _ms(stage: dict[str, Any] | None) -> str:
    if not stage or not stage.get("n"):
        return "–"
    return f"{stage['p50']:.2f} / {stage['p95']:.2f}"


def _server(rss: int) -> str:
    return f"{rss / 2**20:.0f} MiB in a server process" if rss else "Milvus Lite inside the client process"


def _server_notes(agreement: dict[str, Any]) -> list[str]:
    out = []
    for scope, label in (("global", "global"), ("problem", "restricted to the problem")):
        causes = agreement.get(f"server_{scope}", {}).get("top5_differs_because")
        if causes and sum(causes.values()):
            out.append(f"Milvus's own fused top 5 ({label}) differs from the local one on "
                       f"{sum(causes.values())} queries: {causes['ranks']} because a list ranked rows with equal "
                       f"scores in Milvus's storage order, {causes['equal fused scores']} because equal fused scores "
                       "came back by primary key.")
    return ["", *out] if out else []


def markdown(results: dict[str, Any]) -> str:
    m = results["machine"]
    out = ["# Local store vs Milvus Lite", "",
           f"Run {results['started']} – {results['finished']} on {m.get('cpu', '?')} ({m.get('cpus')} cores), "
           f"load average {m.get('load_average')} at the start, {m.get('load_average_end')} at the end. "
           "Synthetic corpus, bge-m3-shaped 1024-d vectors and lexical weights (quest/bench/vectors.py); "
           "Milvus Lite in process (FLAT/IP dense, SPARSE_INVERTED_INDEX/IP for BM25 and lexical, "
           "`problem_id` partition key). Latencies in ms, p50 / p95.", ""]
    for s in results["sizes"]:
        lo, mv = s["local"], s["milvus"]
        out += [f"## {s['chunks']:,} chunks, {s['queries']} queries", "",
                "| stage | local p50 / p95 | Milvus Lite p50 / p95 | top-30 same set | top-5 same order |",
                "|---|---:|---:|---:|---:|"]
        for key, label in STAGE_LABELS.items():
            agree = s["agreement"].get(key, {})
            out.append(f"| {label} | {_ms(lo['stages'].get(key))} | {_ms(mv['stages'].get(key))} | "
                       f"{agree.get('top30_same_set', '–')} | {agree.get('top5_same_order', '–')} |")
        out += _server_notes(s["agreement"])
        out += ["", "| | local | Milvus Lite |", "|---|---:|---:|",
                f"| load after a restart | {lo['load_seconds']} s (verified) | {mv['reopen_seconds']} s "
                "(server start, load_collection, key scan) |",
                f"| first insert of every row | – | {mv['insert_seconds']} s |",
                f"| disk | {lo['disk_bytes'] / 2**20:.0f} MiB | {mv['disk_bytes'] / 2**20:.0f} MiB |",
                f"| memory | {lo['rss_bytes'] / 2**20:.0f} MiB (whole bench process) | "
                f"+{mv['client_rss_growth_bytes'] / 2**20:.0f} MiB in the client, "
                f"{_server(mv['server_rss_bytes'])} |", ""]
    return "\n".join(out)
