"""`python -m quest bench --milvus` end to end on a tiny corpus against Milvus Lite (speed reported, not asserted)."""

from __future__ import annotations

import json

import pytest

from quest.cli import main

# requirements-dev.txt installs both; in CI a skip fails the run (tests/ci_skips.py).
for _module in ("pymilvus", "milvus_lite"):
    pytest.importorskip(_module, reason="pymilvus / milvus-lite not installed (pip install -r requirements-milvus.txt)")

pytestmark = pytest.mark.slow


def test_bench_milvus_writes_the_side_by_side_report(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["bench", "--milvus", "--sizes", "300", "--queries", "12", "--out", str(out)]) == 0
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    (size,) = results["sizes"]
    assert size["queries"] == 12
    for store in ("local", "milvus"):
        stages = size[store]["stages"]
        for key in ("dense_problem", "dense_global", "bm25_global", "lexical_global", "hybrid_global",
                    "retrieval_no_embed"):
            assert stages[key]["n"] == 12 and stages[key]["p95"] >= stages[key]["p50"] > 0, (store, key)
    agreement = size["agreement"]
    # Exact lists, and the hybrid as Quest ranks it (the lists of one hybrid_search fused here): identical.
    for key in ("dense_problem", "dense_global", "bm25_global", "lexical_global", "hybrid_global", "hybrid_problem"):
        assert agreement[key] == {"top30_same_set": 1.0, "top5_same_order": 1.0}, key
    assert agreement["retrieval_no_embed"] == {"top5_same_order": 1.0, "queries": 12}  # the whole search's hits
    # Milvus's own fused order is measured beside it, each differing top 5 given one cause.
    server = agreement["server_global"]
    assert server["queries"] == 12 and set(server["top5_differs_because"]) == {"ranks", "equal fused scores"}
    assert sum(server["top5_differs_because"].values()) == round(12 * (1 - server["top5_same_order"]))
    assert size["milvus"]["insert_seconds"] > 0 and size["milvus"]["disk_bytes"] > 0
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "| dense global |" in report and "hybrid: dense + BM25 + lexical, RRF k=60" in report
    assert "wrote" in capsys.readouterr().out
