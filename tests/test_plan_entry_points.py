"""The plan in every entry point: `search` and `ask --json` on the starter base (BM25 only, fake Ollama)."""

from __future__ import annotations

import pytest

from tests.fakes.ollama_server import FakeOllama
from tests.fakes.quest_cli import StarterCopy, run_quest, starter_copy


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> StarterCopy:
    """A snapshot of the starter base and one data folder, so the index is built once."""
    return starter_copy(tmp_path_factory, "plan")


def quest(base: StarterCopy, *args: str) -> dict:
    return run_quest(base, *args)


@pytest.mark.parametrize("question", ["239", "#239", "Sliding Window Maximum", "滑动窗口最大值"])
def test_search_lists_the_named_problem_first_like_ask(base, question):
    result = quest(base, "search", question)
    assert result["mode"] == "exact" and result["plan"]["direct"] is True
    assert result["plan"]["problem_id"] == "239"
    assert result["sources"][0]["problem_id"] == "239"
    assert result["sources"][0]["kind"] == "official_solution"


def test_search_resolves_an_id_inside_a_sentence(base):
    result = quest(base, "search", "300. 最长递增子序列 运行测试用例时遇到内部错误")
    assert (result["plan"]["problem_id"], result["plan"]["rule"]) == ("300", "id")
    assert result["sources"][0]["problem_id"] == "300"


def test_search_reports_a_problem_that_is_not_in_the_base(base):
    result = quest(base, "search", "LeetCode 27.移除元素 提交后报错", "--error",
                   "==42==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020000000a0")
    assert result["plan"]["missing_id"] == "27"
    assert "problem 27 is not in the knowledge base" in result["notices"]
    assert result["sources"] and {s["problem_id"] for s in result["sources"]} == {None}
    assert result["sources"][0]["id"].startswith("pitfall-asan-heap-buffer-overflow")


def test_ask_json_carries_the_plan(base, fake_ollama: FakeOllama):
    fake_ollama.tokens = ["Use a deque [1]."]
    payload = quest(base, "ask", "146 LRU缓存机制 提交后显示超过限制时间", "--ollama-host", fake_ollama.url)
    plan = payload["stats"]["plan"]
    assert (plan["problem_id"], plan["rule"], plan["direct"]) == ("146", "id", False)
    assert {s["problem_id"] for s in payload["sources"][:2]} == {"146"}


def test_search_reports_a_problem_named_by_a_title_the_base_does_not_have(base):
    result = quest(base, "search", "LeetCode Course Schedule II: my DFS returns the order backwards")
    assert (result["plan"]["missing_id"], result["plan"]["rule"]) == ("Course Schedule II", "title")
    assert 'problem "Course Schedule II" is not in the knowledge base' in result["notices"]
    assert {s["problem_id"] for s in result["sources"]} <= {None}  # never problem 207's material


def test_ask_says_a_problem_named_by_judge_and_title_is_not_in_the_base(base, fake_ollama: FakeOllama):
    fake_ollama.tokens = ["Check the base case [1]."]
    payload = quest(base, "ask", "力扣 打家劫舍 dp 为什么 [2,1,1,2] 我输出 3", "--ollama-host", fake_ollama.url)
    plan = payload["stats"]["plan"]
    assert (plan["problem_id"], plan["rule"], plan["missing_id"]) == (None, "name", "打家劫舍")
    assert "题目「打家劫舍」不在知识库中" in [n["text"] for n in payload["notices"]]
    assert {s["problem_id"] for s in payload["sources"]} <= {None}
