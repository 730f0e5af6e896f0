"""`python -m quest search` on the starter knowledge base (BM25 only: no model on CI machines)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.samples import TLE_CODE

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def kb_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A snapshot of the starter base, so the test does not race anyone editing knowledge/."""
    target = tmp_path_factory.mktemp("kb") / "knowledge"
    shutil.copytree(ROOT / "knowledge", target)
    return target


def run_quest(*args: str, data_dir: Path, kb: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "quest", "--kb", str(kb), "--data-dir", str(data_dir),
         "--embedding-model", "none", *args],
        cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=300,
    )


def test_sliding_window_tle_finds_the_official_solution_and_the_pop0_error_pattern(tmp_path, kb_copy):
    code = tmp_path / "main.py"
    code.write_text(TLE_CODE, encoding="utf-8")
    out = run_quest("search", "我的代码为什么超时？", "--problem", "239", "--code", str(code),
                    "--error", "Time Limit Exceeded on test 45", "--json", data_dir=tmp_path / "d", kb=kb_copy)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["verdict"] == "TLE" and result["test"] == 45
    assert result["embedding_mode"] == "bm25-only"
    sources = result["sources"]
    top = sources[:3]
    assert all(s["problem_id"] == "239" for s in top)
    kinds = {s["kind"] for s in top}
    assert {"official_solution", "error_pattern"} <= kinds
    assert any(s["kind"] == "error_pattern" and "pop" in s["id"] for s in top)
    assert set(result["timings_ms"]) >= {"load", "query", "search.total", "context"}
    assert all("bm25" in s["signals"] for s in sources)


def test_human_readable_output_and_restart_without_reindexing(tmp_path, kb_copy):
    first = run_quest("index", "--json", data_dir=tmp_path / "d", kb=kb_copy)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["action"] == "built"
    second = run_quest("index", "--json", data_dir=tmp_path / "d", kb=kb_copy)
    assert json.loads(second.stdout)["action"] == "loaded"
    out = run_quest("search", "sliding window maximum deque", "--problem", "P239", data_dir=tmp_path / "d", kb=kb_copy)
    assert out.returncode == 0, out.stderr
    assert "[1] " in out.stdout and "timings:" in out.stdout and "Building" not in out.stderr


def test_unknown_problem_and_off_topic_question(tmp_path, kb_copy):
    out = run_quest("search", "how do I bake sourdough bread", "--problem", "99999", "--json",
                    data_dir=tmp_path / "d", kb=kb_copy)
    result = json.loads(out.stdout)
    assert any("99999" in n for n in result["notices"])
    assert result["sources"] == [] and result["widened"] is True


def test_bad_code_file_is_a_clear_error(tmp_path, kb_copy):
    out = run_quest("search", "q", "--code", str(tmp_path / "missing.py"), data_dir=tmp_path / "d", kb=kb_copy)
    assert out.returncode == 2
    assert out.stderr.startswith("error: Cannot read the code file")
    assert "Traceback" not in out.stderr


def test_the_confirming_search_is_a_stage_of_its_own_and_in_the_total(tmp_path, kb_copy):
    """A bare id ("for 239") is confirmed by a first search, then searched inside its problem: both count."""
    keys = {"load", "query", "confirm_search", "context", "total"}
    out = run_quest("search", "My C++ deque solution for 239 keeps values in decreasing order but it is slow",
                    "--json", data_dir=tmp_path / "d", kb=kb_copy)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert (result["plan"]["problem_id"], result["plan"]["rule"]) == ("239", "id")
    timings = result["timings_ms"]
    assert {k for k in timings if not k.startswith("search.")} == keys and "search.total" in timings
    assert timings["confirm_search"] > 0
    parts = timings["query"] + timings["confirm_search"] + timings["search.total"] + timings["context"]
    assert timings["total"] == pytest.approx(parts, abs=0.002)  # each value is rounded to 3 decimals on its own

    named = run_quest("search", "deque keeps values in decreasing order but it is slow", "--problem", "239", "--json",
                      data_dir=tmp_path / "d", kb=kb_copy)
    timings = json.loads(named.stdout)["timings_ms"]
    assert {k for k in timings if not k.startswith("search.")} == keys
    assert timings["confirm_search"] == 0.0  # one search: the problem field named the problem
