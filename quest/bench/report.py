"""results.json, report.md and latency.png from the benchmark's results."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from quest.bench.stages import STAGES

log = logging.getLogger(__name__)

TARGET_SIZE = 100_000

#: (key, label, limit, unit): checked on the bge-m3-shaped profile at 100k (or the largest size run).
TARGETS = (
    ("bm25_p95", "BM25 stage p95", 10.0, "ms"),
    ("dense_problem_p95", "problem-restricted dense search p95", 2.0, "ms"),
    ("retrieval_no_embed_p95", "whole retrieval excluding query embedding p95", 30.0, "ms"),
    ("load_seconds", "saved index load (verified, no re-embedding)", 3.0, "s"),
    ("update_beyond_embedding", "one-document update beyond its embedding", 1.0, "s"),
)


def _get(d: dict | None, *path: str, default: Any = None) -> Any:
    for key in path:
        if not isinstance(d, dict) or key not in d:
            return default
        d = d[key]
    return d


def _fmt(value: Any, digits: int = 2) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _mb(n: int | None) -> str:
    return "–" if n is None else f"{n / 2**20:.0f}"


def target_values(size: dict[str, Any]) -> dict[str, float | None]:
    shape = size.get("shape", {})
    return {
        "bm25_p95": _get(shape, "stages", "bm25", "p95"),
        "dense_problem_p95": _get(shape, "stages", "dense_problem", "p95"),
        "retrieval_no_embed_p95": _get(shape, "stages", "retrieval_no_embed", "p95"),
        "load_seconds": _get(shape, "persistence", "load_seconds_median"),
        "update_beyond_embedding": _get(shape, "update", "beyond_embedding_seconds"),
    }


def check_targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    sizes = results.get("sizes") or []
    checks: list[dict[str, Any]] = []
    if sizes:
        at = next((s for s in sizes if s["chunks"] == TARGET_SIZE), max(sizes, key=lambda s: s["chunks"]))
        values = target_values(at)
        for key, label, limit, unit in TARGETS:
            value = values[key]
            checks.append({"target": f"{label} <= {limit:g} {unit}", "chunks": at["chunks"], "value": value,
                           "unit": unit, "met": value is not None and value <= limit,
                           "margin": None if value is None else round(value / limit, 2)})
    for key, label in (("concurrency", "default app settings"), ("concurrency_raised", "concurrency limit raised")):
        conc = results.get(key) or {}
        level = next((lv for lv in conc.get("levels", []) if lv.get("clients") == 50), None)
        if level is None:
            continue
        limit = (conc.get("app") or {}).get("concurrency_limit")
        where = f"{label}, queue concurrency limit {limit}"
        checks.append({"target": f"50 clients: no errors ({where})", "chunks": None, "value": level.get("errors"),
                       "unit": "", "met": level.get("errors", 1) == 0, "margin": None})
        slow = level.get("median_total_over_ideal")
        checks.append({"target": f"50 clients: median total <= 1.5x the ideal stream time ({where})",
                       "chunks": None, "value": slow, "unit": "x", "met": slow is not None and slow <= 1.5,
                       "margin": None if slow is None else round(slow / 1.5, 2)})
    per_chunk = [(s["chunks"], _get(s, "shape", "persistence", "resident_bytes_per_chunk")) for s in sizes]
    per_chunk = [(n, b) for n, b in per_chunk if b and n >= 10_000]
    if len(per_chunk) >= 2:
        values = [b for _, b in per_chunk]
        spread = max(values) / min(values)
        checks.append({"target": "memory linear in the corpus (resident bytes per chunk within 1.25x from 10k up)",
                       "chunks": None, "value": round(spread, 2), "unit": "x", "met": spread <= 1.25,
                       "margin": None})
    return checks


# --------------------------------------------------------------------------- markdown


def _stage_table(sizes: list[dict[str, Any]], profile: str) -> list[str]:
    head = "| stage | " + " | ".join(f"{s['chunks']:,} p50 / p95 (n)" for s in sizes) + " |"
    lines = [head, "|---|" + "---|" * len(sizes)]
    for key, label in STAGES.items():
        cells = []
        for s in sizes:
            st = _get(s, profile, "stages", key) or {}
            cells.append("–" if not st.get("n") else f"{st['p50']:.2f} / {st['p95']:.2f} ({st['n']})")
        if all(c == "–" for c in cells):
            continue
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def markdown(results: dict[str, Any], chart: str | None = "latency.png") -> str:
    """The whole report.md: header, targets, then one section per measurement that was run."""
    sizes = results.get("sizes") or []
    out = _header(results) + _targets_section(check_targets(results))
    if sizes:
        out += _summary_section(sizes, chart)
        out += _per_stage_sections(sizes, str(results.get("embedder")))
        out += _lifecycle_section(sizes)
        out += _bm25_side_by_side(sizes) + _restricted_dense_side_by_side(sizes) + _approximate_sections(sizes)
    out += _concurrency_sections(results)
    notes = results.get("notes")
    if notes:
        out += ["## Notes", "", *notes, ""]
    return "\n".join(out)


def _header(results: dict[str, Any]) -> list[str]:
    m = results.get("machine", {})
    return [
        "# Quest benchmark", "",
        f"Run {results.get('started', '?')} – {results.get('finished', '?')}, {results.get('queries')} "
        "queries per size (after 5 warm-up queries).", "",
        f"Machine: {m.get('cpu', '?')}, {m.get('cpus', '?')} CPUs, {m.get('memory_gib', '?')} GiB, "
        f"{m.get('platform', '?')}, Python {m.get('python', '?')}, numpy {m.get('numpy', '?')}, "
        f"faiss {m.get('faiss', '?')}. Load average at start {m.get('load_average', '?')}, at the end "
        f"{m.get('load_average_end', '?')} (other work shared the machine: read ratios and medians).", "",
        f"Embedding model (profile \"model\"): {results.get('embedder')}.",
        "Profile \"bge-m3 shape\": the same chunks and BM25 with 1024-d clustered unit vectors and "
        "bge-m3-shaped lexical weights (synthetic), so dense costs are production-sized. Targets are "
        "checked on this profile. Times in milliseconds unless marked.", "",
    ]


def _targets_section(checks: list[dict[str, Any]]) -> list[str]:
    if not checks:
        return []
    out = ["## Targets", "", "| target | at | measured | met |", "|---|---|---|---|"]
    for c in checks:
        at = f"{c['chunks']:,} chunks" if c.get("chunks") else ""
        value = _fmt(c["value"], 2) + (f" {c['unit']}" if c["unit"] and c["value"] is not None else "")
        out.append(f"| {c['target']} | {at} | {value} | {'yes' if c['met'] else '**no**'} |")
    return [*out, ""]


def _p50_p95(stages: dict[str, Any], key: str) -> str:
    v = stages.get(key) or {}
    return "–" if not v.get("n") else f"{v['p50']:.2f} / {v['p95']:.2f}"


def _summary_section(sizes: list[dict[str, Any]], chart: str | None) -> list[str]:
    out = ["## Summary (bge-m3 shape, 1024-d)", "",
           "| chunks | BM25 p50 / p95 | dense, problem p50 / p95 | dense, global p50 / p95 | "
           "retrieval w/o embedding p50 / p95 | query embedding p50 (model) | load s | "
           "update beyond embedding s | disk MiB | resident bytes / chunk |",
           "|---:|---|---|---|---|---|---:|---:|---:|---:|"]
    for s in sizes:
        st = _get(s, "shape", "stages") or {}
        emb = _get(s, "model", "stages", "embed", "p50")
        out.append(
            f"| {s['chunks']:,} | {_p50_p95(st, 'bm25')} | {_p50_p95(st, 'dense_problem')} | "
            f"{_p50_p95(st, 'dense_global')} | {_p50_p95(st, 'retrieval_no_embed')} | {_fmt(emb)} | "
            f"{_fmt(_get(s, 'shape', 'persistence', 'load_seconds_median'))} | "
            f"{_fmt(_get(s, 'shape', 'update', 'beyond_embedding_seconds'))} | "
            f"{_mb(_get(s, 'shape', 'persistence', 'disk_bytes'))} | "
            f"{_fmt(_get(s, 'shape', 'persistence', 'resident_bytes_per_chunk'))} |")
    out.append("")
    if chart:
        out += [f"![retrieval latency against corpus size]({chart})", ""]
    return out


def _per_stage_sections(sizes: list[dict[str, Any]], embedder: str) -> list[str]:
    out: list[str] = []
    for profile, title in (("shape", "bge-m3 shape (1024-d)"), ("model", "model: " + embedder)):
        out += [f"## Per-stage latency, {title}", "", *_stage_table(sizes, profile), ""]
        paths = [f"{s['chunks']:,}: {_get(s, profile, 'paths')}" for s in sizes]
        out += ["Paths taken (problem rows only / with global fill-up; widened; empty): " + "; ".join(paths), ""]
    return out


def _lifecycle_row(chunks: int, profile: str, p: dict[str, Any]) -> str:
    b = p.get("build") or {}
    per = p.get("persistence") or {}
    u = p.get("update") or {}
    peak = f"{_mb(b.get('peak_rss_growth_bytes'))} ({_fmt(b.get('peak_rss_growth_per_chunk'))})" if b else "–"
    return (
        f"| {chunks:,} | {profile} | {_fmt(b.get('seconds'), 1)} | "
        f"{_fmt(b.get('embed_chunks_per_s'), 0)} | "
        f"{_fmt(b.get('rest_chunks_per_s'), 0)} | {peak} | {_fmt(per.get('save_seconds'))} | "
        f"{_mb(per.get('disk_bytes'))} ({_fmt(per.get('disk_bytes_per_chunk'))}) | "
        f"{_fmt(per.get('load_seconds_median'))} ({', '.join(map(str, per.get('load_seconds', [])))}) | "
        f"{_mb(per.get('resident_bytes'))} ({_fmt(per.get('resident_bytes_per_chunk'))}) | "
        f"{_fmt(u.get('update_seconds'))} + {_fmt(u.get('save_seconds'))} "
        f"({_fmt(u.get('embed_seconds'))}) |")


def _lifecycle_section(sizes: list[dict[str, Any]]) -> list[str]:
    out = ["## Index lifecycle", "",
           "| chunks | profile | build s | embedding chunks/s | rest chunks/s | peak RSS growth MiB "
           "(per chunk) | save s | disk MiB (per chunk) | load s (runs) | resident MiB (per chunk) | "
           "update: update + save s (embedding s) |",
           "|---:|---|---:|---:|---:|---|---:|---|---|---|---|"]
    out += [_lifecycle_row(s["chunks"], profile, s.get(profile) or {}) for s in sizes for profile in ("model", "shape")]
    return [*out, "",
            "Build: the model profile only (the bge-m3-shaped vectors are generated, not embedded). "
            "\"rest\" is chunking, tokenization (jieba) and BM25. Peak RSS growth is over the process's "
            "resident size before the build (kernel high-water mark, reset before the build).", ""]


def _bm25_side_by_side(sizes: list[dict[str, Any]]) -> list[str]:
    out = ["## Side by side", "", "### BM25: Quest against rank-bm25", "",
           "| chunks | Quest p50 / p95 | rank-bm25 get_scores full scan p50 / p95 (n) | speed-up | "
           "BM25Okapi rebuilt per query p50 (n) | speed-up | top-10 identical | max score diff |",
           "|---:|---|---|---:|---|---:|---|---:|"]
    skipped = []
    for s in sizes:
        c = s.get("compare_bm25") or {}
        if c.get("skipped"):
            skipped.append(c["skipped"])
        q, f, r = c.get("quest", {}), c.get("rank_bm25_full_scan", {}), c.get("rank_bm25_rebuild_per_query", {})
        if not q:
            continue
        out.append(f"| {s['chunks']:,} | {_fmt(q.get('p50'))} / {_fmt(q.get('p95'))} | {_fmt(f.get('p50'))} / "
                   f"{_fmt(f.get('p95'))} ({f.get('n')}) | {_fmt(c.get('speedup_vs_full_scan_p50'), 0)}x | "
                   f"{_fmt(r.get('p50'), 0)} ({r.get('n')}) | {_fmt(c.get('speedup_vs_rebuild_p50'), 0)}x | "
                   f"{c.get('top10_identical')} | {c.get('max_score_difference', 0):.1e} |")
    out.append("")
    if skipped:
        out += [f"Skipped: {skipped[0]}", ""]
    return out


def _restricted_dense_side_by_side(sizes: list[dict[str, Any]]) -> list[str]:
    out = ["### Problem-restricted dense search (1024-d): Quest against global top-2,000 then filter", "",
           "| chunks | rows per problem (median) | Quest p50 / p95 | FAISS IndexFlatIP top-2000 + filter "
           "p50 / p95 | speed-up | filter's recall of the exact top-30 | queries short of results |",
           "|---:|---:|---|---|---:|---:|---:|"]
    for s in sizes:
        c = s.get("compare_restricted_dense") or {}
        if not c:
            continue
        q, f = c["quest"], c["global_top2000_then_filter"]
        out.append(f"| {s['chunks']:,} | {c.get('rows_per_problem_median')} | {_fmt(q.get('p50'), 3)} / "
                   f"{_fmt(q.get('p95'), 3)} | {_fmt(f.get('p50'))} / {_fmt(f.get('p95'))} | "
                   f"{_fmt(c.get('speedup_p50'), 0)}x | {_fmt(c.get('filter_recall_of_exact_top30'), 3)} | "
                   f"{c.get('filter_queries_short_of_results')} |")
    return [*out, ""]


def _approximate_sections(sizes: list[dict[str, Any]]) -> list[str]:
    out: list[str] = []
    for s in sizes:
        c = s.get("compare_approximate")
        if not c:
            continue
        out += [f"### Exact against approximate global search ({c['vectors']:,} x {c['dim']}, recall@{c['k']})", "",
                f"| method | build s | recall@{c['k']} | search p50 / p95 | note |", "|---|---:|---:|---|---|"]
        for row in c["methods"]:
            recall = row.get(f"recall_at_{c['k']}")
            # Rows of one method differ only by their search parameter: show it, or they read as repeats.
            params = ", ".join(f"{key} {row[key]}" for key in ("nprobe", "efSearch") if row.get(key) is not None)
            method = f"{row['method']}, {params}" if params else row["method"]
            out.append(f"| {method} | {_fmt(row['build_seconds'], 1)} | {_fmt(recall, 3)} | "
                       f"{_fmt(row.get('search_p50'))} / {_fmt(row.get('search_p95'))} | {row.get('note', '')} |")
        out.append("")
    return out


def _concurrency_table(conc: dict[str, Any]) -> list[str]:
    out = [conc.get("setup", ""), "",
           "| clients | errors | time to first token p50 / p95 s | total p50 / p95 s | ideal s | "
           "median total / ideal | wall s |",
           "|---:|---:|---|---|---:|---:|---:|"]
    for lv in conc.get("levels", []):
        out.append(f"| {lv['clients']} | {lv['errors']} | "
                   f"{_fmt(lv.get('ttft_p50'))} / {_fmt(lv.get('ttft_p95'))} | "
                   f"{_fmt(lv.get('total_p50'))} / {_fmt(lv.get('total_p95'))} | {_fmt(lv.get('ideal'))} | "
                   f"{_fmt(lv.get('median_total_over_ideal'))} | {_fmt(lv.get('wall'))} |")
    for lv in conc.get("levels", []):
        if lv.get("error_samples"):
            out.append(f"\nErrors at {lv['clients']} clients (first few): {lv['error_samples']}")
    return [*out, ""]


def _concurrency_sections(results: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for key, title in (("concurrency", "default app settings"),
                       ("concurrency_raised", "queue concurrency limit raised")):
        conc = results.get(key)
        if not conc:
            continue
        out += [f"## Concurrency (Gradio app, fake Ollama, gradio_client): {title}", ""]
        out += [f"Skipped: {conc['skipped']}", ""] if conc.get("skipped") else _concurrency_table(conc)
    return out


# --------------------------------------------------------------------------- chart


def chart(results: dict[str, Any], path: Path) -> bool:
    """Draw latency.png; False when there is nothing to draw or matplotlib (a bench extra) is missing."""
    sizes = results.get("sizes") or []
    if not sizes:
        return False
    try:
        import matplotlib
    except ImportError:
        log.warning("no latency chart: matplotlib is not installed (pip install -r requirements-dev.txt)")
        return False

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = [s["chunks"] for s in sizes]
    fig, ax = plt.subplots(figsize=(8, 5), dpi=110)

    def line(values, label, style):
        pts = [(xi, v) for xi, v in zip(x, values, strict=True) if v]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=label, marker="o")

    line([_get(s, "shape", "stages", "retrieval_no_embed", "p95") for s in sizes],
         "whole retrieval w/o embedding, p95 (1024-d)", "-")
    line([_get(s, "shape", "stages", "retrieval_no_embed", "p50") for s in sizes],
         "whole retrieval w/o embedding, p50 (1024-d)", "--")
    line([_get(s, "shape", "stages", "bm25", "p95") for s in sizes], "BM25 stage p95", "-")
    line([_get(s, "shape", "stages", "dense_problem", "p95") for s in sizes], "dense, problem rows p95 (1024-d)", "-")
    line([_get(s, "shape", "stages", "dense_global", "p95") for s in sizes], "dense, global p95 (1024-d)", "-")
    line([_get(s, "compare_bm25", "rank_bm25_full_scan", "p50") for s in sizes],
         "rank-bm25 get_scores full scan p50", ":")
    line([_get(s, "model", "stages", "embed", "p50") for s in sizes], "query embedding p50 (model)", "-.")
    ax.axhline(30, color="grey", linewidth=0.8, linestyle="--")
    ax.text(x[0], 31, "30 ms target", color="grey", fontsize=8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("chunks in the knowledge base")
    ax.set_ylabel("milliseconds")
    m = results.get("machine", {})
    ax.set_title(f"Quest retrieval latency against corpus size ({m.get('cpus', '?')} CPUs)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def write(results: dict[str, Any], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    results["targets"] = check_targets(results)
    (out / "results.json").write_text(json.dumps(results, ensure_ascii=False, indent=1, default=str), encoding="utf-8")
    has_chart = chart(results, out / "latency.png")
    from quest.bench import scale_report

    body = markdown(results, "latency.png" if has_chart else None) + scale_report.markdown(results)
    (out / "report.md").write_text(body, encoding="utf-8")
