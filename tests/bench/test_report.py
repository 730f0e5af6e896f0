"""The report writer: Markdown, JSON and chart from a results dictionary; targets checked, not asserted on speed."""

import json

from quest.bench import report


def stage(p50, p95, n=20):
    return {"n": n, "p50": p50, "p95": p95, "mean": p50, "max": p95}


def size(n, bm25_p95, retrieval_p95, load, update, per_chunk):
    stages = {"bm25": stage(1.0, bm25_p95), "dense_problem": stage(0.1, 0.3), "dense_global": stage(5, 9, 5),
              "retrieval_no_embed": stage(3.0, retrieval_p95), "query_build": stage(0.05, 0.08)}
    return {
        "chunks": n,
        "model": {"label": "tiny", "stages": {**stages, "embed": stage(3.0, 4.0)}, "paths": {"problem_only": 15},
                  "build": {"seconds": 1.0, "embed_chunks_per_s": 100.0, "rest_chunks_per_s": 1000.0,
                            "peak_rss_growth_bytes": 2**20, "peak_rss_growth_per_chunk": 100},
                  "persistence": {"save_seconds": 0.1, "disk_bytes": 2**20, "disk_bytes_per_chunk": 10,
                                  "load_seconds": [0.1], "load_seconds_median": 0.1, "resident_bytes": 2**20,
                                  "resident_bytes_per_chunk": 10},
                  "update": {"update_seconds": 0.1, "save_seconds": 0.1, "embed_seconds": 0.05,
                             "beyond_embedding_seconds": 0.15}},
        "shape": {"stages": stages, "paths": {"problem_only": 15},
                  "persistence": {"load_seconds_median": load, "disk_bytes": 2**30,
                                  "resident_bytes_per_chunk": per_chunk, "load_seconds": [load]},
                  "update": {"beyond_embedding_seconds": update}},
        "compare_bm25": {"quest": stage(0.5, 1.0), "rank_bm25_full_scan": stage(50, 60),
                         "rank_bm25_rebuild_per_query": stage(900, 1000, 3), "speedup_vs_full_scan_p50": 100.0,
                         "speedup_vs_rebuild_p50": 1800.0, "top10_identical": "20/20", "max_score_difference": 1e-5},
    }


def results(**overrides):
    data = {
        "started": "2026-11-30 10:00:00", "finished": "2026-11-30 10:30:00", "queries": 20,
        "machine": {"cpu": "Test CPU", "cpus": 2, "memory_gib": 24},
        "embedder": "tiny test model",
        "sizes": [size(1000, 0.5, 3.0, 0.1, 0.1, 5000), size(10_000, 2.0, 12.0, 0.5, 0.3, 5100),
                  size(100_000, 8.0, 45.0, 2.5, 1.4, 5200)],
    }
    data.update(overrides)
    return data


def test_targets_are_checked_at_100k_with_their_margins():
    checks = {c["target"]: c for c in report.check_targets(results())}
    assert checks["BM25 stage p95 <= 10 ms"]["met"] is True
    assert checks["BM25 stage p95 <= 10 ms"]["chunks"] == 100_000
    missed = checks["whole retrieval excluding query embedding p95 <= 30 ms"]
    assert missed["met"] is False and missed["value"] == 45.0 and missed["margin"] == 1.5
    assert checks["one-document update beyond its embedding <= 1 s"]["met"] is False
    linear = next(c for c in checks.values() if c["target"].startswith("memory linear"))
    assert linear["met"] is True


def test_concurrency_targets_come_from_the_50_client_level():
    conc = {"app": {"concurrency_limit": 8},
            "levels": [{"clients": 50, "errors": 0, "median_total_over_ideal": 5.0}]}
    checks = report.check_targets(results(concurrency=conc))
    slow = next(c for c in checks if "median total" in c["target"])
    assert slow["met"] is False and "limit 8" in slow["target"]
    assert next(c for c in checks if "no errors" in c["target"])["met"] is True


def test_write_produces_markdown_json_and_a_png(tmp_path):
    data = results(concurrency={"skipped": "the app is not importable yet"})
    report.write(data, tmp_path)
    md = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "| 100,000 |" in md and "**no**" in md and "Test CPU" in md
    assert "![retrieval latency against corpus size](latency.png)" in md
    assert "Skipped: the app is not importable yet" in md
    assert "20/20" in md  # rank-bm25 agreement shown
    saved = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert saved["sizes"][2]["chunks"] == 100_000 and saved["targets"]
    assert (tmp_path / "latency.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_an_empty_run_still_writes_a_report(tmp_path):
    report.write({"sizes": [], "machine": {}}, tmp_path)
    assert (tmp_path / "report.md").exists() and not (tmp_path / "latency.png").exists()


def test_bench_extras_missing_means_a_note_not_a_crash(tmp_path, monkeypatch):
    import sys

    from quest.bench import compare

    monkeypatch.setitem(sys.modules, "rank_bm25", None)  # import now raises ImportError, as when not installed
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    skipped = compare.bm25(None, [], [], scan_queries=0, rebuild_queries=0)
    assert skipped == {"skipped": 'rank-bm25 is not installed (pip install -r requirements-dev.txt, or "quest[bench]")'}
    data = results()
    for s in data["sizes"]:
        s["compare_bm25"] = skipped
    report.write(data, tmp_path)
    md = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert f"Skipped: {skipped['skipped']}" in md
    assert "latency.png" not in md and not (tmp_path / "latency.png").exists()


def test_approximate_rows_name_their_search_parameter():
    """Rows of one index differ only by nprobe / efSearch: without it the table read as five identical lines."""
    methods = [
        {"method": "exact: Quest", "build_seconds": 0.0, "recall_at_30": 1.0, "search_p50": 18.4, "search_p95": 20.7},
        {"method": "IVF304,SQ4bit (its own order)", "build_seconds": None, "nprobe": 8, "recall_at_30": 0.776,
         "search_p50": 1.6, "search_p95": 2.46, "note": "own"},
        {"method": "IVF304,SQ4bit (its own order)", "build_seconds": None, "nprobe": 16, "recall_at_30": 0.776,
         "search_p50": 2.4, "search_p95": 3.14, "note": "own"},
        {"method": "HNSW32,SQfp16", "build_seconds": 23.6, "efSearch": 64, "recall_at_30": 0.918,
         "search_p50": 0.17, "search_p95": 0.34},
    ]
    sized = {**size(100_000, 8.0, 45.0, 2.5, 1.4, 5200),
             "compare_approximate": {"vectors": 100_000, "dim": 1024, "k": 30, "methods": methods}}
    lines = report.markdown(results(sizes=[sized]), chart=None).splitlines()
    start = lines.index("### Exact against approximate global search (100,000 x 1024, recall@30)")
    assert lines[start + 4:start + 8] == [
        "| exact: Quest | 0.0 | 1.000 | 18.40 / 20.70 |  |",
        "| IVF304,SQ4bit (its own order), nprobe 8 | – | 0.776 | 1.60 / 2.46 | own |",
        "| IVF304,SQ4bit (its own order), nprobe 16 | – | 0.776 | 2.40 / 3.14 | own |",
        "| HNSW32,SQfp16, efSearch 64 | 23.6 | 0.918 | 0.17 / 0.34 |  |",
    ]
