"""The benchmark: for each corpus size, two profiles of the same synthetic knowledge base.

- "model": the real pipeline with the embedding model (the configured one if it loads
  offline, else the tiny bge-m3-architecture test model, 32-d, labelled as such): build
  throughput, peak memory, save/load/update, and per-stage latency including real query
  embedding.
- "bge-m3 shape": the same chunks and BM25, with 1024-d clustered unit vectors and lexical
  weights of bge-m3's shape instead of the model's (see vectors.py). The production-sized
  dense cost, disk size, memory, load and update are measured here, and the targets are
  checked against it.
"""

from __future__ import annotations

import gc
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from quest.bench import compare, lifecycle, stages, tiling, vectors
from quest.bench.corpus import generate, make_queries
from quest.bench.measure import Stopwatch, TimedEmbedder, machine
from quest.errors import EmbeddingUnavailable
from quest.retrieval.index import Index, load_index
from quest.retrieval.retriever import Retriever
from quest.retrieval.tokenize import tokenize
from quest.settings import Settings

log = logging.getLogger(__name__)
Progress = Callable[[str], None]

RANK_BM25_UP_TO = 100_000
FLOAT32_CHECK_UP_TO = 100_000  # the float32 originals are regenerated whole (400 MB at 100k)
MODEL_UP_TO = 100_000  # sizes above this run the bge-m3-shaped profile only
_BM25_BUILDS: dict[int, tuple[Any, Index, dict[str, Any]]] = {}  # size -> (corpus, BM25-only index, build stats)
TINY_LABEL = "tiny bge-m3-architecture test model (32-d, random weights; not production speed)"


def resolve_embedder(settings: Settings, choice: str, workdir: Path) -> tuple[Any, str, str]:
    """(embedder, label, kind): the configured model when `choice` allows and it loads, else the tiny one."""
    from quest.retrieval.embedder import load_embedder

    reason = ""
    if choice in ("auto", "configured") and settings.embeddings_enabled:
        try:
            embedder = load_embedder(settings)
            return embedder, f"{settings.embedding_model} (configured, dim {embedder.dim})", "configured"
        except EmbeddingUnavailable as exc:
            if choice == "configured":
                raise
            reason = f"{settings.embedding_model} unavailable ({exc.message})"
    # The tiny model is built locally by the test helpers that ship with the package (no download).
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from quest.testing.tiny_model import build_tiny_bge_m3

    folder = build_tiny_bge_m3(workdir / "tiny-bge-m3")
    embedder = load_embedder(settings.replace(embedding_model=str(folder)))
    label = TINY_LABEL + (f"; {reason}" if reason else "")
    return embedder, label, "tiny"


def _rank_bm25_corpus(index: Index) -> list[list[str]]:
    """Token lists with the indexed term counts (BM25 ignores order), rebuilt from the tf matrix."""
    terms = np.asarray(sorted(index.bm25.vocab, key=index.bm25.vocab.__getitem__), dtype=object)
    (seg,) = index.segments
    tf = seg.tf.tocsr()
    out = []
    for row in range(tf.shape[0]):
        lo, hi = tf.indptr[row], tf.indptr[row + 1]
        counts = tf.data[lo:hi].astype(np.int64)
        out.append(np.repeat(terms[tf.indices[lo:hi]], counts).tolist())
    return out


def _model_profile(kb, settings: Settings, model: Any, model_label: str, queries, folder: Path,
                   progress: Progress, n: int) -> tuple[Index, dict[str, Any]]:
    timed = TimedEmbedder(model)
    index_m, build = lifecycle.measure_build(kb, settings, timed)
    progress(f"[{n}] built in {build['seconds']:.1f}s (embedding {build['embed_seconds']:.1f}s); save/load/update...")
    persist_m = lifecycle.measure_persistence(index_m, folder)
    update_m = lifecycle.measure_update(index_m, kb, settings, timed, folder)
    shutil.rmtree(folder, ignore_errors=True)
    progress(f"[{n}] stages with the model ({len(queries)} queries)...")
    stages_m = stages.run_stages(Retriever(settings, index_m, kb, timed), queries,
                                 context_chars=settings.context_max_chars)
    return index_m, {"label": model_label, "dim": model.dim, "build": build, "persistence": persist_m,
                     "update": update_m, **stages_m}


def _compare(result: dict[str, Any], index_s: Index, prepared, lookup, centres, n: int, *, approximate: bool,
             progress: Progress) -> None:
    query_tokens = [tokenize(p.text) for p in prepared]
    if n <= RANK_BM25_UP_TO:  # rank-bm25 in pure Python needs minutes and gigabytes beyond this
        progress(f"[{n}] side by side: BM25 against rank-bm25...")
        corpus = _rank_bm25_corpus(index_s)
        result["compare_bm25"] = compare.bm25(
            index_s.bm25, corpus, query_tokens,
            scan_queries=min(len(query_tokens), max(20, 2_000_000 // max(n, 1))),
            rebuild_queries=min(len(query_tokens), max(3, 300_000 // max(n, 1))),
        )
        del corpus
    named = [(p.query.request.problem_id, lookup[p.text.strip()][0]) for p in prepared
             if p.query.request.problem_id in index_s.rows_by_problem]
    progress(f"[{n}] side by side: restricted dense search against global top-2000 + filter...")
    result["compare_restricted_dense"] = compare.restricted_dense(index_s.dense, index_s.rows_by_problem, named)
    qv = np.stack([lookup[p.text.strip()][0] for p in prepared])
    if n <= FLOAT32_CHECK_UP_TO:
        progress(f"[{n}] float16 vectors against float32 exact...")
        float32 = vectors.shaped_float32(vectors.problem_ids_of(index_s.chunks), centres)
        result["compare_float16"] = compare.float16_against_float32(index_s.dense, float32, qv)
        del float32
    if approximate:
        progress(f"[{n}] exact against approximate FAISS indexes (IVF, HNSW)...")
        result["compare_approximate"] = compare.approximate(index_s.dense, qv)


def bench_size(n: int, n_queries: int, settings: Settings, model: Any, model_label: str, workdir: Path,
               *, approximate: bool, progress: Progress, with_model: bool = True, keep: bool = False,
               memory_limit_per_chunk: int | None = None) -> dict[str, Any]:
    """One corpus size; `with_model=False` skips the embedding-model profile (hours at 1M with the tiny model).

    `keep` leaves the saved (compacted) index in `workdir` for later measurements."""
    result: dict[str, Any] = {"chunks": n}
    watch = Stopwatch()
    tiled = n >= tiling.TILE_FROM and n % tiling.TILES == 0
    base = n // tiling.TILES if tiled else n
    reused = _BM25_BUILDS.get(base) if tiled else None  # an earlier size's build of the same corpus
    synthetic = reused[0] if reused else generate(base)
    kb = synthetic.kb
    result["corpus"] = {"documents": len(kb.documents), "problems": len(kb.problems),
                        "generate_seconds": round(watch.s, 2)}
    progress(f"[{n}] {len(kb.documents)} documents, {len(kb.problems)} problems; building...")

    # ---- profile 1: the real pipeline with the embedding model (or BM25 only when skipped)
    if with_model and not tiled:
        queries = make_queries(synthetic, n_queries)
        index_m, result["model"] = _model_profile(kb, settings, model, model_label, queries, workdir / f"{n}-model",
                                                  progress, n)
    elif reused:
        index_m, result["bm25_build"] = reused[1], {**reused[2], "reused_from_size": base}
        progress(f"[{n}] reusing the {base}-chunk BM25 build of the earlier size")
    else:
        index_m, build = lifecycle.measure_build(kb, settings, None)
        result["bm25_build"] = build
        _BM25_BUILDS[n] = (synthetic, index_m, build)  # the same corpus a larger, tiled size starts from
        progress(f"[{n}] chunked + BM25 over {index_m.rows} chunks in {build['seconds']:.1f}s (no model profile)")
    if tiled:
        watch = Stopwatch()
        synthetic = tiling.tile_kb(synthetic)
        kb = synthetic.kb
        index_m = tiling.tile_index(index_m, kb)
        result["corpus"].update(tiled_from=n // tiling.TILES, tiles=tiling.TILES, documents=len(kb.documents),
                                tile_seconds=round(watch.s, 2))
        progress(f"[{n}] tiled {tiling.TILES} copies of the {n // tiling.TILES}-chunk base in {watch.s:.1f}s")
    queries = make_queries(synthetic, n_queries)
    result["corpus"]["queries"] = len(queries)

    # ---- profile 2: bge-m3-shaped vectors (1024-d) and lexical weights on the same chunks and BM25
    progress(f"[{n}] bge-m3-shaped profile (1024-d vectors)...")
    watch = Stopwatch()
    centres = vectors.problem_centres(list(kb.problems))
    index_s = vectors.shaped_index(index_m, centres)
    del index_m
    gc.collect()
    probe = Retriever(settings, index_s, kb, None)
    prepared = stages.prepare(probe, queries)
    lookup = vectors.query_lookup(prepared, centres)
    shaped = vectors.LookupEmbedder("synthetic-bge-m3-shape", vectors.DIM, lookup, lexical=True)
    generate_s = watch.s
    folder_s = workdir / f"{n}-shape"
    persist_s = lifecycle.measure_persistence(index_s, folder_s, probe_queries=(n, len(kb.problems), n_queries),
                                              memory_limit_per_chunk=memory_limit_per_chunk)
    progress(f"[{n}] stages with 1024-d vectors...")
    stages_s = stages.run_stages(Retriever(settings, index_s, kb, shaped), queries,
                                 context_chars=settings.context_max_chars)
    result["shape"] = {"label": "bge-m3 shape: 1024-d clustered unit vectors + lexical weights (synthetic)",
                       "dim": vectors.DIM, "vectors_seconds": round(generate_s, 2), "persistence": persist_s,
                       **stages_s}
    _compare(result, index_s, prepared, lookup, centres, n, approximate=approximate, progress=progress)
    # The update and the compaction start from the saved index, loaded (memory-mapped) as a server
    # would: the built copy is freed first, so at 1M the process never holds two whole indexes
    # (the built one, its updated copy and the compaction's copies took 18.8 GB and were OOM-killed).
    del index_s, probe
    gc.collect()
    loaded = load_index(folder_s)
    timed_s = TimedEmbedder(shaped)
    progress(f"[{n}] one-document update of the loaded index...")
    result["shape"]["update"] = lifecycle.measure_update(loaded, kb, settings, timed_s, folder_s)
    progress(f"[{n}] compaction...")
    result["shape"]["compaction"] = lifecycle.measure_compaction(loaded, kb, settings, timed_s, folder_s)
    del loaded
    gc.collect()
    if not keep:
        shutil.rmtree(folder_s, ignore_errors=True)
    result["seconds"] = round(time.perf_counter() - watch.started, 1)
    return result


def run(sizes: Sequence[int], n_queries: int, out: Path, settings: Settings, *, embedder: str = "auto",
        concurrency: Sequence[int] = (), concurrency_options: dict[str, Any] | None = None,
        progress: Progress = print, approximate_at: int | None = None, workdir: Path | None = None,
        model_up_to: int = MODEL_UP_TO, memory_limit_per_chunk: int | None = None) -> dict[str, Any]:
    """Run everything, write results.json, report.md and latency.png into `out`; return the results."""
    from quest.bench import report

    out.mkdir(parents=True, exist_ok=True)
    own_tmp = workdir is None
    workdir = Path(tempfile.mkdtemp(prefix="quest-bench-")) if workdir is None else workdir
    workdir.mkdir(parents=True, exist_ok=True)
    started = time.strftime("%Y-%m-%d %H:%M:%S %z")
    settings = settings.replace(show_progress=False)
    try:
        model, label, kind = resolve_embedder(settings, embedder, workdir)
        progress(f"embedding model: {label}")
        results: dict[str, Any] = {
            "started": started, "machine": machine(), "queries": n_queries, "embedder": label,
            "embedder_kind": kind, "sizes": [], "memory_limit_per_chunk": memory_limit_per_chunk,
        }
        largest = max(sizes) if sizes else 0
        approximate_at = largest if approximate_at is None else approximate_at
        for n in sizes:
            results["sizes"].append(bench_size(n, n_queries, settings, model, label, workdir,
                                               approximate=n == approximate_at, progress=progress,
                                               with_model=n <= model_up_to, keep=not own_tmp,
                                               memory_limit_per_chunk=memory_limit_per_chunk))
            gc.collect()
        if concurrency:
            from quest.bench import concurrency as conc

            progress(f"concurrency: {', '.join(map(str, concurrency))} clients...")
            results["concurrency"] = conc.run(concurrency, workdir=workdir, progress=progress,
                                              **(concurrency_options or {}))
            top = max(concurrency)
            app = results["concurrency"].get("app") or {}
            if app.get("concurrency_limit", top) < top:
                progress(f"concurrency again with the queue's concurrency limit raised to {top}...")
                results["concurrency_raised"] = conc.run(
                    [top], workdir=workdir, progress=progress, **(concurrency_options or {}),
                    app_settings={"concurrency_limit": top, "max_queue_size": max(64, 2 * top)})
        results["finished"] = time.strftime("%Y-%m-%d %H:%M:%S %z")
        results["machine"]["load_average_end"] = machine().get("load_average")
        report.write(results, out)
        return results
    finally:
        _BM25_BUILDS.clear()
        if own_tmp:
            shutil.rmtree(workdir, ignore_errors=True)
