"""`python -m quest bench` end to end on a tiny corpus (speed is reported, never asserted here)."""

import json

import pytest

from quest.cli import main

pytestmark = pytest.mark.slow


def test_bench_command_writes_the_report(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    out = tmp_path / "out"
    code = main(["bench", "--sizes", "200", "--queries", "20", "--out", str(out), "--embedder", "tiny",
                 "--memory-limit-per-chunk", "2000000"])
    assert code == 0
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    (size,) = results["sizes"]
    assert size["chunks"] == 200 and size["corpus"]["queries"] == 20
    for profile in ("model", "shape"):
        stages = size[profile]["stages"]
        assert stages["retrieval"]["n"] == 20 and stages["bm25"]["n"] == 20
        assert stages["query_build"]["p95"] >= stages["query_build"]["p50"] > 0
    assert size["model"]["build"]["chunks"] == 200 and size["model"]["build"]["embed_seconds"] > 0
    assert size["model"]["update"]["embedded_chunks"] >= 1
    assert size["shape"]["dim"] == 1024
    assert size["compare_bm25"]["top10_identical"] == "20/20"
    assert size["compare_restricted_dense"]["filter_recall_of_exact_top30"] == 1.0
    assert {m["method"].split(",")[0] for m in size["compare_approximate"]["methods"]} >= {"IVF16", "HNSW32"}
    assert size["compare_float16"]["recall_at_30"] >= 0.9
    fresh = size["shape"]["persistence"]["fresh_process"]  # the saved index, loaded and queried in a new process
    assert fresh["rows"] == 200 and fresh["stages"]["stages"]["retrieval"]["n"] == 20
    assert set(fresh["after_load"]) == set(fresh["after_queries"]) == {"rss", "anon", "file"}
    assert size["shape"]["persistence"]["verify_seconds"] > 0
    cap = size["shape"]["persistence"]["memory_cap"]  # cold page cache, in memory cgroups (where allowed)
    assert (cap["limit_per_chunk"], cap["limit_bytes"]) == (2_000_000, 400_000_000)
    if cap["measured"]:
        for run in (cap["uncapped"], cap["capped"]):
            assert (run["returncode"], run["oom_killed"]) == (0, False)
            assert run["evicted"]["files"] >= 5 and run["peak_cache_bytes"] > 0
            assert run["probe"]["rows"] == 200 and run["probe"]["stages"]["stages"]["retrieval"]["n"] == 20
        assert cap["capped"]["limit_bytes"] == 400_000_000 and cap["uncapped"]["limit_bytes"] is None
    else:
        assert cap["reason"]
    compaction = size["shape"]["compaction"]
    assert compaction["deleted_rows_before"] > 0 and compaction["rows_after"] >= 200
    assert size["shape"]["update"]["segments_after"] == 2
    assert "tiny" in results["embedder"]
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "## Targets" in md and "| 200 |" in md
    assert "### The query phase in a memory budget of 2,000,000 bytes per chunk" in md
    assert (out / "latency.png").exists()
    assert "wrote" in capsys.readouterr().out
