"""Index lifecycle: build throughput, peak memory, size on disk, load time, one-document update."""

from __future__ import annotations

import gc
import json
import logging
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from quest.bench.corpus import SEED, edited
from quest.bench.measure import AnonPeak, Stopwatch, TimedEmbedder, dir_size, peak_bytes, reset_peak, rss_bytes
from quest.kb.documents import KnowledgeBase
from quest.retrieval.index import Index, build_index, compact_and_save, load_index, save_index, update_index
from quest.settings import Settings

LOAD_RUNS = 3
log = logging.getLogger(__name__)


def measure_build(kb: KnowledgeBase, settings: Settings, embedder: TimedEmbedder | None) -> tuple[Index, dict]:
    """Full build (chunk + tokenize + BM25 + embedding); embedding time is measured separately."""
    gc.collect()
    before = rss_bytes()
    peak_reset = reset_peak()
    if embedder is not None:
        embedder.reset()
    watch = Stopwatch()
    index = build_index(kb, settings, embedder)
    total = watch.s
    peak = peak_bytes() if peak_reset else None
    embed = embedder.document_seconds if embedder is not None else 0.0
    rest = total - embed
    n = index.size
    return index, {
        "chunks": n,
        "documents": index.documents,
        "seconds": round(total, 3),
        "embed_seconds": round(embed, 3),
        "rest_seconds": round(rest, 3),
        "embed_chunks_per_s": round(n / embed, 1) if embed else None,
        "rest_chunks_per_s": round(n / rest, 1) if rest else None,
        "chunks_per_s": round(n / total, 1) if total else None,
        "peak_rss_growth_bytes": (peak - before) if peak is not None else None,
        "peak_rss_growth_per_chunk": round((peak - before) / n) if peak is not None and n else None,
    }


def measure_persistence(index: Index, folder: Path, runs: int = LOAD_RUNS,
                        probe_queries: tuple[int, int, int] | None = None,
                        memory_limit_per_chunk: int | None = None) -> dict[str, Any]:
    """Save once, then load `runs` times (sizes, structure and small files' SHA-256 checked; no re-embedding).

    Then, in a fresh process: the load once more, resident memory after it, and with
    `probe_queries` = (chunks, problems, queries) the bench's queries through a Retriever over
    the loaded (memory-mapped) index, with resident memory after them (see `probe_loaded`).
    With `memory_limit_per_chunk` too, the same probe again from a cold page cache, uncapped and
    in a memory cgroup capped at chunks x that many bytes (quest/bench/capped.py).
    """
    shutil.rmtree(folder, ignore_errors=True)
    watch = Stopwatch()
    save_index(index, folder)
    save_s = watch.s
    files = dir_size(folder)
    total = sum(files.values())
    loads = []
    for _ in range(runs):
        gc.collect()
        watch = Stopwatch()
        loaded = load_index(folder)
        loads.append(watch.s)
        assert loaded.size == index.size
        del loaded
    watch = Stopwatch()
    load_index(folder, verify=True)
    verify_s = watch.s
    probe = probe_loaded(folder, probe_queries) or {}
    n = max(index.size, 1)
    resident = probe.get("after_load", {}).get("rss")
    out = {
        "save_seconds": round(save_s, 3),
        "disk_bytes": total,
        "disk_bytes_per_chunk": round(total / n),
        "files": files,
        "load_seconds": [round(x, 3) for x in loads],
        "load_seconds_median": round(statistics.median(loads), 3),
        "verify_seconds": round(verify_s, 3),
        "resident_bytes": resident,
        "resident_bytes_per_chunk": round(resident / n) if resident is not None else None,
    }
    if probe:
        out["fresh_process"] = probe
        queried = probe.get("after_queries", {}).get("rss")
        out["resident_after_queries_per_chunk"] = round(queried / n) if queried is not None else None
    if memory_limit_per_chunk and probe_queries:
        from quest.bench import capped

        out["memory_cap"] = capped.measure(folder, probe_queries, memory_limit_per_chunk)
    return out


_PROBE = """
import json, resource, sys, time
from pathlib import Path
from quest.bench.measure import memory_parts
from quest.retrieval.index import load_index
from quest.retrieval import retriever
from quest.retrieval.tokenize import tokenize
tokenize("预热分词器 warm up")  # jieba's dictionary and the retriever's imports are not the index's memory
before = memory_parts()
started = time.perf_counter()
index = load_index(Path(sys.argv[1]))
out = {"load_seconds": round(time.perf_counter() - started, 3), "rows": index.size, "baseline": before}
out["after_load"] = memory_parts(before)
if len(sys.argv) > 2:
    from quest.bench.lifecycle import loaded_stages
    out["stages"] = loaded_stages(index, *map(int, sys.argv[2:6]), *map(float, sys.argv[6:7]))
    out["after_queries"] = memory_parts(before)
    from quest.bench.working_set import cache_state, mapped_by_file
    out["mapped_files"] = mapped_by_file(under=Path(sys.argv[1]).resolve())  # resident bytes per index file
    out["bm25_cache"] = cache_state(index)
usage = resource.getrusage(resource.RUSAGE_SELF)
out["faults"] = {"major": usage.ru_majflt, "minor": usage.ru_minflt}
print(json.dumps(out))
"""


def probe_command(folder: Path, queries: tuple[int, int, int] | None,
                  passes: int = 1, global_share: float = 0.0) -> tuple[list[str], dict[str, str]]:
    """The fresh-process probe's command line and environment (see `probe_loaded`, `loaded_stages`).

    `global_share` > 0 adds questions that name no problem (see `loaded_stages`).
    """
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))}
    asked = [*queries, passes, *([global_share] if global_share else [])] if queries else []
    return [sys.executable, "-c", _PROBE, str(folder), *map(str, asked)], env


def probe_loaded(folder: Path, queries: tuple[int, int, int] | None) -> dict[str, Any] | None:
    """Load time, memory and (optionally) query stages of the saved index in a fresh process.

    Memory is what the index adds to the process (imports excluded): resident total, anonymous
    (heap: Python objects, numpy arrays) and file-backed (pages of the memory-mapped files that
    were read; the kernel can drop these under pressure and re-read them).
    """
    args, env = probe_command(folder, queries)
    try:
        done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=1800, check=True)
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (subprocess.SubprocessError, OSError, ValueError, IndexError) as exc:
        stderr = getattr(exc, "stderr", "") or ""
        log.warning("fresh-process probe failed: %s %s", exc, stderr[-2000:])
        return None


def loaded_stages(index: Index, n: int, problems: int, count: int, passes: int = 1,
                  global_share: float = 0.0) -> dict[str, Any]:
    """The bench's queries (regenerated: they depend only on the sizes) through a Retriever over `index`.

    With `global_share` > 0, questions that name no problem are mixed in (`corpus.mixed_queries`:
    the `count` problem questions unchanged, plus enough others to be that share of all), and
    each pass also reports the latencies per kind ("by_kind").

    With `passes` > 1 the same queries run again: the last pass is the one reported, the first is
    kept as `first_pass` (from a cold page cache, it is mostly disk reads), and each pass says how
    many major page faults (reads from disk) it took.
    """
    import resource

    from quest.bench import stages, vectors
    from quest.bench.corpus import SyntheticKB, make_problems, mixed_queries
    from quest.retrieval.retriever import Retriever

    settings = Settings(show_progress=False)
    kb = KnowledgeBase(documents=(), problems=make_problems(problems))
    queries, kinds = mixed_queries(SyntheticKB(kb=kb, n_chunks=n, seed=SEED), count, global_share)
    centres = vectors.problem_centres(list(kb.problems))
    prepared = stages.prepare(Retriever(settings, index, kb, None), queries)
    embedder = vectors.LookupEmbedder("synthetic-bge-m3-shape", vectors.DIM, vectors.query_lookup(prepared, centres),
                                      lexical=True)
    retriever = Retriever(settings, index, kb, embedder)
    runs = []
    for _ in range(max(passes, 1)):
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_majflt
        runs.append(stages.run_stages(retriever, queries, context_chars=settings.context_max_chars,
                                      kinds=kinds if global_share else None))
        runs[-1]["major_faults"] = resource.getrusage(resource.RUSAGE_SELF).ru_majflt - faults
    return {**runs[-1], "first_pass": runs[0]} if len(runs) > 1 else runs[-1]


def measure_update(index: Index, kb: KnowledgeBase, settings: Settings, embedder: TimedEmbedder | None,
                   folder: Path) -> dict[str, Any]:
    """Edit one document in the middle of the base; update in memory and save, as `open_index` does.

    `folder` must hold the saved `index` (measure_persistence wrote it), so the save is the real
    rewrite of an existing index.
    """
    docs = list(kb.documents)
    target = len(docs) // 2
    docs[target] = edited(docs[target])
    changed = KnowledgeBase(documents=tuple(docs), problems=kb.problems, errors=kb.errors)
    if embedder is not None:
        embedder.reset()
    cpu = time.process_time()
    watch = Stopwatch()
    updated, report = update_index(index, changed, settings, embedder)
    update_s, update_cpu = watch.s, time.process_time() - cpu
    cpu = time.process_time()
    watch = Stopwatch()
    phases: dict[str, float] = {}
    save_index(updated, folder, phases)
    save_s, save_cpu = watch.s, time.process_time() - cpu
    embed = embedder.document_seconds if embedder is not None else 0.0
    new_chunks = embedder.documents if embedder is not None else None
    total = update_s + save_s
    assert report.embedded_docs == (docs[target].id,), report
    written = sum(e.size for seg in updated.segments[len(index.segments):] for e in (seg.stored or {}).values())
    return {
        "segments_after": len(updated.segments),
        "bytes_written": written + (folder / "manifest.json").stat().st_size,
        "document": docs[target].id,
        "embedded_chunks": new_chunks,
        "update_seconds": round(update_s, 3),
        "save_seconds": round(save_s, 3),
        "update_cpu_seconds": round(update_cpu, 3),  # user + system time: the wall time minus waiting
        "save_cpu_seconds": round(save_cpu, 3),
        "save_phases_seconds": phases,
        "manifest_bytes": (folder / "manifest.json").stat().st_size,
        "embed_seconds": round(embed, 3),
        "total_seconds": round(total, 3),
        "beyond_embedding_seconds": round(total - embed, 3),
    }


def measure_compaction(index: Index, kb: KnowledgeBase, settings: Settings, embedder: TimedEmbedder | None,
                       folder: Path, edits: int = 100) -> dict[str, Any]:
    """`edits` documents changed as one delta, then everything merged into a new base and saved."""
    docs = list(kb.documents)
    step = max(1, len(docs) // edits)
    for i in range(0, len(docs), step)[:edits]:
        docs[i] = edited(docs[i], seed=7)
    changed = KnowledgeBase(documents=tuple(docs), problems=kb.problems, errors=kb.errors)
    updated, _ = update_index(index, changed, settings, embedder)
    save_index(updated, folder)
    deleted = int(updated.deleted.sum())
    gc.collect()
    before = rss_bytes()
    peak_reset = reset_peak()
    phases: dict[str, float] = {}
    with AnonPeak() as anon:
        cpu = time.process_time()
        watch = Stopwatch()
        merged = compact_and_save(updated, folder, phases)  # streamed: the new base's files written as merged
        total_s, total_cpu = watch.s, time.process_time() - cpu
    peak = peak_bytes() if peak_reset else None
    # merge = writing the new base's files (plan .. lexical.npz); save = loading it, documents, manifest, cleanup
    merge_s = sum(v for k, v in phases.items() if k == "plan" or "." in k)
    return {"edited_documents": edits, "deleted_rows_before": deleted, "rows_after": merged.rows,
            "streamed": True, "phases_seconds": phases,
            "merge_seconds": round(merge_s, 3), "save_seconds": round(total_s - merge_s, 3),
            "cpu_seconds": round(total_cpu, 3), "total_seconds": round(total_s, 3),
            "peak_rss_growth_bytes": (peak - before) if peak is not None else None,  # + mapped files' pages
            "peak_anon_growth_bytes": anon.growth, "peak_anon_bytes": anon.peak}
