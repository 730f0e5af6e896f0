"""`python -m quest eval`: BM25-only on a small base, the tiny bge-m3 model, and a quality floor."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from quest.evaluation import evaluate, load_queries
from quest.retrieval.retriever import build_retriever
from quest.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
SMALL_KB = ROOT / "tests" / "data" / "kb_small"

# Labelled queries for tests/data/kb_small (7 documents: problems 1, 239, 704 and two general ones).
SMALL_QUERIES = [
    {"id": "s1", "question": "list.pop(0) is slow?", "problem_id": "239", "language": "python",
     "error": "Time Limit Exceeded on test 45", "lang": "en",
     "relevant": {"p239-error-pop0-en": 3, "p239-official-zh": 2}, "answerable": True, "tags": ["with_error"]},
    {"id": "s2", "question": "RecursionError: maximum recursion depth exceeded, what now?", "problem_id": None,
     "lang": "en", "relevant": {"pitfall-recursion-en": 3}, "answerable": True, "tags": ["general"]},
    {"id": "s3", "question": "怎么做红烧肉", "problem_id": None, "lang": "zh", "relevant": {}, "answerable": False,
     "tags": ["off_topic"]},
]


@pytest.fixture
def small_kb(tmp_path: Path) -> Path:
    target = tmp_path / "kb"
    shutil.copytree(SMALL_KB, target)
    lines = "\n".join(json.dumps(q, ensure_ascii=False) for q in SMALL_QUERIES) + "\n"
    (target / "eval").mkdir()
    (target / "eval" / "queries.jsonl").write_text(lines, encoding="utf-8")
    return target


def run_quest(*args: str, kb: Path, data_dir: Path, model: str = "none") -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "quest", "--kb", str(kb), "--data-dir", str(data_dir), "--embedding-model", model,
         *args],
        cwd=ROOT, capture_output=True, text=True, timeout=600, env=env,
    )


def test_bm25_only_prints_the_table_and_skips_modes_that_need_a_model(small_kb, tmp_path):
    out = run_quest("eval", kb=small_kb, data_dir=tmp_path / "data")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "note: embeddings are turned off: BM25 only" in lines
    assert f"3 queries from {small_kb / 'eval' / 'queries.jsonl'}" in lines
    header = next(line for line in lines if line.startswith("mode"))
    assert header.split() == ["mode", "R@1", "R@5", "MRR@10", "nDCG@10", "no-answer", "empty", "no-answer",
                              "low-conf", "no-answer", "handled", "false", "low-conf", "n", "ms/query"]
    row = next(line for line in lines if line.startswith("bm25 "))
    # Both answerable queries find their answer first; the off-topic one gets nothing.
    assert row.split()[:18] == ["bm25", "1.000", "1.000", "1.000", "1.000", "100.0%", "of", "1",
                                "100.0%", "of", "1", "100.0%", "of", "1", "0.0%", "of", "2", "2"]
    assert "skipped dense: no embedding model loaded (BM25 only)" in lines
    assert "skipped hybrid: no embedding model loaded (BM25 only)" in lines
    assert any(line.startswith("general ") for line in lines)  # per-group breakdown


def test_json_output(small_kb, tmp_path):
    out = run_quest("eval", "--json", "--details", "--modes", "bm25,dense", kb=small_kb, data_dir=tmp_path / "data")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["embedding_mode"] == "bm25-only" and data["k"] == 10
    assert data["skipped"] == {"dense": "no embedding model loaded (BM25 only)"}
    bm25 = data["modes"]["bm25"]
    assert (bm25["n"], bm25["n_unanswerable"]) == (2, 1)
    assert (bm25["recall@1"], bm25["recall@5"], bm25["mrr@10"]) == (1.0, 1.0, 1.0)
    assert (bm25["no_answer_empty"], bm25["no_answer_rejected"], bm25["no_answer_handled"],
            bm25["false_rejection"]) == (1.0, 1.0, 1.0, 0.0)
    # s1 finds its error pattern (grade 3) then the official solution (grade 2), the ideal order;
    # s2 is perfect too.
    assert bm25["ndcg@10"] == pytest.approx(1.0, abs=1e-4)
    assert bm25["by_group"]["general"] == {"n": 1.0, "recall@1": 1.0, "recall@5": 1.0, "mrr@10": 1.0, "best@1": 1.0}
    per_query = {q["id"]: q for q in bm25["queries"]}
    # The problem's own documents first, then the general TLE page that clears the full floor.
    assert per_query["s1"]["ranked"] == ["p239-error-pop0-en", "p239-official-zh", "faq-tle-zh"]
    assert per_query["s2"]["ranked"] == ["pitfall-recursion-en"]
    assert per_query["s3"] == {"id": "s3", "ranked": [], "top_score": None, "empty": True, "rejected": True,
                               "handled": True, "search_mode": "bm25", "problem_id": None, "rule": "none",
                               "missing_id": None}
    assert (per_query["s1"]["problem_id"], per_query["s1"]["rule"]) == ("239", "field")


def write_queries(path: Path, queries: list[dict]) -> None:
    path.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in queries), encoding="utf-8")


def test_the_fresh_held_out_split_is_loaded_and_reported_on_its_own(small_kb, tmp_path):
    eval_dir = small_kb / "eval"
    write_queries(eval_dir / "heldout.jsonl", SMALL_QUERIES[:1])
    write_queries(eval_dir / "heldout-fresh.jsonl", SMALL_QUERIES[1:])
    out = run_quest("eval", "--modes", "bm25", kb=small_kb, data_dir=tmp_path / "data")
    assert out.returncode == 0, out.stderr
    assert [line for line in out.stdout.splitlines() if " queries from " in line] == [
        f"3 queries from {eval_dir / 'queries.jsonl'} (tuning)",
        f"1 queries from {eval_dir / 'heldout.jsonl'} (held-out)",
        f"2 queries from {eval_dir / 'heldout-fresh.jsonl'} (development (fresh))",
    ]
    out = run_quest("eval", "--json", "--modes", "bm25", kb=small_kb, data_dir=tmp_path / "data")
    assert out.returncode == 0, out.stderr
    splits = json.loads(out.stdout)["splits"]
    assert list(splits) == ["tuning", "held-out", "development (fresh)"]
    fresh = splits["development (fresh)"]
    assert fresh["queries_file"] == str(eval_dir / "heldout-fresh.jsonl")
    # Only s2 (answered first) and s3 (off-topic, nothing found): numbers of this file alone.
    bm25 = fresh["modes"]["bm25"]
    assert (bm25["n"], bm25["n_unanswerable"]) == (1, 1)
    assert (bm25["recall@1"], bm25["no_answer_empty"]) == (1.0, 1.0)
    assert (splits["held-out"]["modes"]["bm25"]["n"], splits["held-out"]["modes"]["bm25"]["n_unanswerable"]) == (1, 0)
    assert splits["tuning"]["modes"]["bm25"]["n"] == 2



def test_the_dec_held_out_split_is_reported_as_a_fourth_split(small_kb, tmp_path):
    eval_dir = small_kb / "eval"
    write_queries(eval_dir / "heldout-dec.jsonl", SMALL_QUERIES[1:])
    out = run_quest("eval", "--json", "--modes", "bm25", kb=small_kb, data_dir=tmp_path / "data")
    assert out.returncode == 0, out.stderr
    splits = json.loads(out.stdout)["splits"]
    assert list(splits) == ["tuning", "development (Dec)"]  # the other held-out files are absent here
    dec = splits["development (Dec)"]
    assert dec["queries_file"] == str(eval_dir / "heldout-dec.jsonl")
    assert (dec["modes"]["bm25"]["n"], dec["modes"]["bm25"]["n_unanswerable"]) == (1, 1)


def test_every_split_is_reported_in_order_with_the_round_21_held_out_split_last(small_kb, tmp_path):
    eval_dir = small_kb / "eval"
    for name in ("heldout.jsonl", "heldout-fresh.jsonl", "heldout-dec.jsonl", "heldout-r5.jsonl", "heldout-r6.jsonl",
                 "heldout-r7.jsonl", "heldout-r8.jsonl", "heldout-r9.jsonl", "heldout-r10.jsonl",
                 "heldout-r11.jsonl", "heldout-r12.jsonl", "heldout-r13.jsonl", "heldout-r15.jsonl",
                 "heldout-r16.jsonl", "heldout-r17.jsonl", "heldout-r18.jsonl", "heldout-r19.jsonl",
                 "heldout-r20.jsonl", "heldout-r21.jsonl"):
        write_queries(eval_dir / name, SMALL_QUERIES[:1])
    write_queries(eval_dir / "heldout-r4.jsonl", SMALL_QUERIES[1:])
    write_queries(eval_dir / "dev-r7.jsonl", SMALL_QUERIES[1:])
    write_queries(eval_dir / "dev-r16.jsonl", SMALL_QUERIES[:1])
    out = run_quest("eval", "--modes", "bm25", kb=small_kb, data_dir=tmp_path / "data")
    assert out.returncode == 0, out.stderr
    assert [line for line in out.stdout.splitlines() if " queries from " in line] == [
        f"3 queries from {eval_dir / 'queries.jsonl'} (tuning)",
        f"1 queries from {eval_dir / 'heldout.jsonl'} (held-out)",
        f"1 queries from {eval_dir / 'heldout-fresh.jsonl'} (development (fresh))",
        f"1 queries from {eval_dir / 'heldout-dec.jsonl'} (development (Dec))",
        f"2 queries from {eval_dir / 'heldout-r4.jsonl'} (development (round 4))",
        f"1 queries from {eval_dir / 'heldout-r5.jsonl'} (held-out (round 5))",
        f"1 queries from {eval_dir / 'heldout-r6.jsonl'} (held-out (round 6))",
        f"1 queries from {eval_dir / 'heldout-r7.jsonl'} (development (round 7, retired held-out))",
        f"2 queries from {eval_dir / 'dev-r7.jsonl'} (development (round 7))",
        f"1 queries from {eval_dir / 'heldout-r8.jsonl'} (development (round 8, retired held-out))",
        f"1 queries from {eval_dir / 'heldout-r9.jsonl'} (development (round 9, retired held-out))",
        f"1 queries from {eval_dir / 'heldout-r10.jsonl'} (development (round 10, retired held-out))",
        f"1 queries from {eval_dir / 'heldout-r11.jsonl'} (development (round 11, retired held-out))",
        f"1 queries from {eval_dir / 'heldout-r12.jsonl'} (development (round 12, retired held-out))",
        f"1 queries from {eval_dir / 'dev-r16.jsonl'} (development (round 16))",
        f"1 queries from {eval_dir / 'heldout-r13.jsonl'} (held-out (round 13))",
        f"1 queries from {eval_dir / 'heldout-r15.jsonl'} (held-out (round 15))",
        f"1 queries from {eval_dir / 'heldout-r16.jsonl'} (held-out (round 16))",
        f"1 queries from {eval_dir / 'heldout-r17.jsonl'} (held-out (round 17))",
        f"1 queries from {eval_dir / 'heldout-r18.jsonl'} (held-out (round 18))",
        f"1 queries from {eval_dir / 'heldout-r19.jsonl'} (held-out (round 19))",
        f"1 queries from {eval_dir / 'heldout-r20.jsonl'} (held-out (round 20))",
        f"1 queries from {eval_dir / 'heldout-r21.jsonl'} (held-out (round 21))",
    ]
    out = run_quest("eval", "--json", "--modes", "bm25", kb=small_kb, data_dir=tmp_path / "data")
    assert out.returncode == 0, out.stderr
    splits = json.loads(out.stdout)["splits"]
    assert list(splits) == ["tuning", "held-out", "development (fresh)", "development (Dec)", "development (round 4)",
                            "held-out (round 5)", "held-out (round 6)", "development (round 7, retired held-out)",
                            "development (round 7)", "development (round 8, retired held-out)",
                            "development (round 9, retired held-out)", "development (round 10, retired held-out)",
                            "development (round 11, retired held-out)",
                            "development (round 12, retired held-out)", "development (round 16)",
                            "held-out (round 13)", "held-out (round 15)", "held-out (round 16)",
                            "held-out (round 17)", "held-out (round 18)", "held-out (round 19)",
                            "held-out (round 20)", "held-out (round 21)"]
    r4 = splits["development (round 4)"]
    assert r4["queries_file"] == str(eval_dir / "heldout-r4.jsonl")
    # Only s2 (answered first) and s3 (off-topic, nothing found): the numbers of this file alone.
    bm25 = r4["modes"]["bm25"]
    assert (bm25["n"], bm25["n_unanswerable"]) == (1, 1)
    assert (bm25["recall@1"], bm25["no_answer_empty"]) == (1.0, 1.0)
    dev7 = splits["development (round 7)"]
    assert dev7["queries_file"] == str(eval_dir / "dev-r7.jsonl")
    # The same two questions give the same numbers (all but the timing).
    assert {k: v for k, v in dev7["modes"]["bm25"].items() if k != "mean_ms"} == {
        k: v for k, v in bm25.items() if k != "mean_ms"}


def test_bad_arguments_are_refused_with_a_message(small_kb, tmp_path):
    out = run_quest("eval", "--modes", "bm25,sparse", kb=small_kb, data_dir=tmp_path / "data")
    assert out.returncode == 2 and "unknown mode(s) sparse; choose from bm25, dense, hybrid" in out.stderr
    out = run_quest("eval", "--queries", str(tmp_path / "missing.jsonl"), kb=small_kb, data_dir=tmp_path / "data")
    assert out.returncode == 2 and "cannot read the queries file" in out.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x"}\n', encoding="utf-8")
    out = run_quest("eval", "--queries", str(bad), kb=small_kb, data_dir=tmp_path / "data")
    assert out.returncode == 2 and "bad.jsonl:1: missing field(s) question, lang, relevant, answerable" in out.stderr


@pytest.mark.slow
def test_tiny_bge_m3_reports_all_three_modes(small_kb, tmp_path, tiny_bge_m3):
    out = run_quest("eval", "--json", kb=small_kb, data_dir=tmp_path / "data", model=str(tiny_bge_m3))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["embedding_mode"] == "dense + lexical + bm25"
    assert data["skipped"] == {}
    assert list(data["modes"]) == ["bm25", "dense", "hybrid"]
    for mode in data["modes"].values():
        assert (mode["n"], mode["n_unanswerable"]) == (2, 1)
        assert all(0 <= mode[m] <= 1 for m in ("recall@1", "recall@5", "mrr@10", "ndcg@10"))
    # BM25 does not depend on the model: same numbers as without it.
    assert data["modes"]["bm25"]["recall@1"] == 1.0
    table = run_quest("eval", kb=small_kb, data_dir=tmp_path / "data", model=str(tiny_bge_m3))
    assert table.returncode == 0, table.stderr
    rows = [line.split()[0] for line in table.stdout.splitlines() if line.split()[:1] in (["bm25"], ["dense"],
                                                                                          ["hybrid"])]
    assert rows == ["bm25", "dense", "hybrid"]


# Measured on the starter base (214 documents, 191 queries), BM25 only: R@5 0.965, MRR@10 0.923.
R5_FLOOR = 0.92
MRR_FLOOR = 0.87


def test_bm25_quality_on_the_starter_base_stays_above_the_floor(tmp_path):
    kb = tmp_path / "knowledge"
    shutil.copytree(ROOT / "knowledge", kb)  # a snapshot: others may be editing knowledge/
    settings = Settings(kb_dir=kb, data_dir=tmp_path / "data", embedding_model="none", show_progress=False)
    retriever = build_retriever(settings)
    report = evaluate(retriever, load_queries(kb / "eval" / "queries.jsonl"), modes=["bm25"])
    (bm25,) = report.modes
    assert bm25.n >= 150
    assert bm25.metrics["recall@5"] >= R5_FLOOR, bm25.metrics
    assert bm25.metrics["mrr@10"] >= MRR_FLOOR, bm25.metrics
    # Off-topic questions get nothing; questions about a problem the base lacks (a third of the no-answer
    # ones) are told so and may still get general documents: every no-answer question is handled honestly.
    # (0.39 since round 18: with the two Java launcher pages the base's BM25 statistics moved q183 — "explain the fast
    # fourier transform …", whose "fast" matches the fast/slow-pointer pages — from empty to weak results just over
    # the floor; it is still handled: marked weak.)
    assert bm25.empty_rate is not None and bm25.empty_rate >= 0.38
    assert bm25.handled is not None and bm25.handled >= 0.95
