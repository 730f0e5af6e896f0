"""The report's scale section: segments (update, compaction), float16 vectors, approximate search, 1M targets."""

from __future__ import annotations

from typing import Any

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
    ("resident memory per chunk after the bench's queries", 3072, "bytes",
     ("shape", "persistence", "resident_after_queries_per_chunk")),
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
    out += _memory(sizes)
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
