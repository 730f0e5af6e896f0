"""The report's scale section: segments (update, compaction), float16 vectors, approximate search, 1M targets."""

from __future__ import annotations

from typing import Any

from quest.bench import capped

#: (label, limit, unit, value getter) checked at the largest size run (1M in docs/bench).
SCALE_TARGETS = (
    ("one-document update beyond its embedding", 1.0, "s", ("shape", "update", "beyond_embedding_seconds")),
    ("whole retrieval excluding query embedding p95 (index in memory, as built)", 30.0, "ms",
     ("shape", "stages", "retrieval_no_embed", "p95")),
    ("whole retrieval excluding query embedding p95 (index loaded from disk, memory-mapped, fresh process)", 30.0,
     "ms", ("shape", "persistence", "fresh_process", "stages", "stages", "retrieval_no_embed", "p95")),
    ("saved index load (sizes, structure, SHA-256 of files up to 32 MiB)", 3.0, "s",
     ("shape", "persistence", "load_seconds_median")),
    ("resident memory per chunk after load", 3072, "bytes", ("shape", "persistence", "resident_bytes_per_chunk")),
    ("resident memory per chunk after the bench's queries, strict reading: heap plus every page of the mapped "
     "index files read so far (clean page cache the kernel can drop; float16 vectors alone are 2 KB/chunk)", 3072,
     "bytes", ("shape", "persistence", "resident_after_queries_per_chunk")),
)


def _get(d: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(d, dict) or key not in d:
            return None
        d = d[key]
    return d


def _mib(value: Any) -> str:
    return "–" if value is None else f"{value / 2**20:,.0f} MiB"


def _f(value: Any, digits: int = 2) -> str:
    if value is None:
        return "–"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def _targets(largest: dict[str, Any]) -> list[str]:
    out = [f"### Targets at {largest['chunks']:,} chunks", "", "| target | measured | met |", "|---|---|---|"]
    for label, limit, unit, path in SCALE_TARGETS:
        value = _get(largest, *path)
        met = value is not None and value <= limit
        out.append(f"| {label} <= {limit:g} {unit} | {_f(value)} {unit} | {'yes' if met else '**no**'} |")
    cap = _get(largest, "shape", "persistence", "memory_cap")
    met, text = capped.verdict(cap)
    budget = f"{cap['limit_per_chunk']:,} bytes" if cap else "3 KB"
    out.append(f"| the query phase runs in a memory cgroup capped at {budget} per chunk (page cache included) "
               f"with retrieval p95 <= {capped.P95_TARGET_MS:g} ms | {text} | {'yes' if met else '**no**'} |")
    best = _best_approximate(largest)
    if best:
        out.append(f"| global dense recall@30 >= 0.99 vs exact | {best} | – |")
    return [*out, ""]


def _best_approximate(size: dict[str, Any]) -> str:
    methods = _get(size, "compare_approximate", "methods") or []
    good = [m for m in methods if (m.get("recall_at_30") or 0) >= 0.99 and not m["method"].startswith("exact")]
    if not good:
        return ""
    m = min(good, key=lambda m: m.get("search_p50") or 1e9)
    params = ", ".join(f"{k}={m[k]}" for k in ("nprobe", "efSearch") if k in m)
    return f"{m['method']} ({params}): recall {m['recall_at_30']}, p50 {_f(m.get('search_p50'))} ms"


def markdown(results: dict[str, Any]) -> str:
    sizes = [s for s in results.get("sizes") or [] if s.get("shape")]
    if not sizes:
        return ""
    out = ["", "## Scale: append-only segments, float16 vectors, approximate search", ""]
    out.append("Profile bge-m3 shape. An update appends the changed document as a delta segment and writes only "
               "the delta, the deleted-rows list and the manifest; compaction merges a delta of 100 edited "
               "documents into a new base. Vectors are float16 (FAISS scalar quantizer, memory-mapped on load).")
    out.append("")
    out.append("| chunks | update s (in memory + save) | bytes written | compaction s (merge + save), "
               "anon peak growth | load s | disk bytes / chunk | resident bytes / chunk | "
               "float16 vs float32: recall@30 / nDCG@30 |")
    out.append("|---:|---|---:|---|---:|---:|---:|---|")
    for s in sizes:
        u, c, p = _get(s, "shape", "update") or {}, _get(s, "shape", "compaction") or {}, _get(s, "shape",
                                                                                               "persistence") or {}
        f16 = s.get("compare_float16") or {}
        out.append(f"| {s['chunks']:,} | {_f(u.get('update_seconds'))} + {_f(u.get('save_seconds'))} | "
                   f"{_f(u.get('bytes_written'))} | {_f(c.get('merge_seconds'))} + {_f(c.get('save_seconds'))}, "
                   f"{_mib(c.get('peak_anon_growth_bytes'))} | "
                   f"{_f(p.get('load_seconds_median'))} | {_f(p.get('disk_bytes_per_chunk'))} | "
                   f"{_f(p.get('resident_bytes_per_chunk'))} | "
                   f"{_f(f16.get('recall_at_30'), 4)} / {_f(f16.get('ndcg_at_30'), 4)} |")
    out.append("")
    for s in sizes:
        best = _best_approximate(s)
        if best:
            out += [f"Fastest approximate global search with recall@30 >= 0.99 at {s['chunks']:,}: {best}.", ""]
    out += _memory(sizes) + memory_cap_section(sizes)
    largest = max(sizes, key=lambda s: s["chunks"])
    return "\n".join(out + _targets(largest))


def _memory(sizes: list[dict[str, Any]]) -> list[str]:
    """Load and memory of the saved index in a fresh process (anonymous vs file-backed pages)."""
    out = ["Loaded in a fresh process (the production path: memory-mapped files, chunk records decoded per hit). "
           "Resident bytes per chunk: total (anonymous heap + file-backed pages of the mapped files read so far).",
           "", "| chunks | corpus | load s | full `--verify` s | after load: total / anon / file | "
           "after the queries: total / anon / file | retrieval excl. embedding p50 / p95 ms |",
           "|---:|---|---:|---:|---|---|---|"]
    for s in sizes:
        p = _get(s, "shape", "persistence") or {}
        fresh = p.get("fresh_process") or {}
        n = max(s["chunks"], 1)

        def per(key: str, fresh=fresh, n=n) -> str:
            m = fresh.get(key) or {}
            return " / ".join(_f(round(m[k] / n)) if k in m else "–" for k in ("rss", "anon", "file"))

        corpus = s.get("corpus") or {}
        kind = f"{corpus['tiles']} copies of a {corpus['tiled_from']:,}-chunk build" if corpus.get("tiles") else "built"
        st = _get(fresh, "stages", "stages", "retrieval_no_embed") or {}
        out.append(f"| {s['chunks']:,} | {kind} | {_f(fresh.get('load_seconds'))} | {_f(p.get('verify_seconds'))} | "
                   f"{per('after_load')} | {per('after_queries')} | {_f(st.get('p50'))} / {_f(st.get('p95'))} |")
    return [*out, ""]


def _mib(value: Any) -> str:
    return "–" if value is None else f"{value / 2**20:,.0f}"


def _pass(stages: dict[str, Any] | None) -> str:
    """'p50 / p95 (major faults)' of one pass of the probe's queries."""
    st = _get(stages, "stages", "retrieval_no_embed") or {}
    faults = (stages or {}).get("major_faults")
    return f"{_f(st.get('p50'))} / {_f(st.get('p95'))}" + (f" ({faults:,})" if faults is not None else "")


def _cap_row(chunks: int, name: str, run: dict[str, Any]) -> str:
    stages = _get(run, "probe", "stages") or {}
    counters = run.get("counters") or {}
    limit = run.get("limit_bytes")
    ended = "OOM-killed" if run.get("oom_killed") else f"exit {run.get('returncode')}"
    # A one-pass probe (older results) ran from the cold page cache: that pass is a first pass.
    first, second = (stages.get("first_pass"), stages) if stages.get("first_pass") else (stages, None)
    return (f"| {chunks:,} | {name} | {_mib(limit) if limit else 'none'} | {ended} | {_mib(run.get('peak_bytes'))} | "
            f"{_mib(run.get('peak_anon_bytes'))} / {_mib(run.get('peak_cache_bytes'))} | "
            f"{_f(run.get('limit_hits'))} | {_f(run.get('oom_kills'))} | {_f(counters.get('pgmajfault'))} | "
            f"{_f(counters.get('workingset_refault_file'))} | {_pass(first) if first else '– / –'} | "
            f"{_pass(second) if second else '–'} |")


def _two_passes(caps: list[tuple[dict[str, Any], dict[str, Any]]]) -> bool:
    return any(_get(cap, run, "probe", "stages", "first_pass") for _, cap in caps for run in ("uncapped", "capped"))


def memory_cap_section(sizes: list[dict[str, Any]]) -> list[str]:
    """The loaded index's queries from a cold page cache, uncapped and in a capped memory cgroup."""
    caps = [(s, _get(s, "shape", "persistence", "memory_cap")) for s in sizes]
    caps = [(s, c) for s, c in caps if c]
    if not caps:
        return []
    per_chunk = caps[0][1]["limit_per_chunk"]
    out = [f"### The query phase in a memory budget of {per_chunk:,} bytes per chunk, page cache included", "",
           "A fresh process loads the saved index (memory-mapped) and runs the bench's queries, in its own memory "
           "cgroup, after the index files were dropped from the page cache. The cgroup charges the heap and every "
           "file page read; under the cap the kernel drops clean pages of the mapped files (each re-read is a "
           "refault) and kills the process only when the heap no longer fits. The cap also covers the "
           "interpreter and its libraries (the baseline below). Peak anon / cache are sampled every 50 ms; "
           "the peak column is the kernel's. " + (
               "The queries run twice in the process: the first pass starts from the cold page cache, the second "
               "runs on what the first left cached, which under the cap is what the budget holds; its major "
               "faults are the pages it had to read again." if _two_passes(caps) else
               "The queries ran once, from the cold page cache (results from before the probe ran two passes)."), "",
           "| chunks | run | cap MiB | ended | peak MiB | peak anon / cache MiB | limit hits | OOM kills | "
           "major faults | file refaults | 1st pass: retrieval excl. embedding p50 / p95 ms (major faults) | "
           "2nd pass: the same |",
           "|---:|---|---:|---|---:|---|---:|---:|---:|---:|---|---|"]
    notes = []
    for s, cap in caps:
        warm = _get(s, "shape", "persistence", "fresh_process", "stages")
        out.append(f"| {s['chunks']:,} | warm page cache (just written), no cgroup, one pass | none | exit 0 | – | – | "
                   f"– | – | – | – | – | {_pass(warm)} |")
        if not cap.get("measured") and not cap.get("capped"):
            out.append(f"| {s['chunks']:,} | cold, capped | {_mib(cap['limit_bytes'])} | not measured: "
                       f"{cap.get('reason')} | | | | | | | | |")
            continue
        for name, key in (("cold, no cap", "uncapped"), ("cold, capped", "capped")):
            run = cap.get(key) or {}
            out.append(_cap_row(s["chunks"], name, run) if run.get("measured") else
                       f"| {s['chunks']:,} | {name} | – | not measured: {run.get('reason')} | | | | | | | | |")
        base = _get(cap, "capped", "probe", "baseline") or _get(cap, "uncapped", "probe", "baseline") or {}
        if base.get("rss"):
            notes.append(f"{s['chunks']:,}: {_mib(base['rss'])} MiB ({_mib(base.get('anon'))} anon)")
    if notes:
        out += ["", "Probe process before loading the index (interpreter, numpy, FAISS, jieba's dictionary), "
                "inside the cap: " + "; ".join(notes) + "."]
    return [*out, ""]
