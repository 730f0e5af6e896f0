"""Round 17: inside a named problem, a question that reports no failure gets the solution first, not an error pattern.

An error pattern is one bug of the problem. A student who reports no failure — no failing verdict, no pasted error but
the judge's acceptance, no words of a wrong output, a crash or a slow run — asks how or why the solution works, and
the official solution (or the explanation) answers that (`Settings.failure_lead`, `Retriever._asked_how`,
`quest.plan.reports_failure`, `quest.failure_words`). The fixture base (tests/data/kb_rank17) has problem 11 with its
official solution, an explanation and one error pattern (moving the taller line's pointer) whose words — pointer,
shorter, taller, line — are those of every question about the problem, so without the rule it leads them; and
problem 3, whose Chinese title has a failure word (重复), with its official solution.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from quest.failure_words import describes_failure, reports_acceptance
from quest.plan import plan, reports_failure
from quest.request import Request
from quest.retrieval.retriever import Retriever
from quest.settings import Settings
from tests.fakes.rank_base import retriever_over, shown

KB = Path(__file__).resolve().parent / "data" / "kb_rank17"

OFFICIAL, PATTERN = "p11-official-en", "p11-error-move-taller-en"
OFF = {"failure_lead": False}
WHY = "Container With Most Water: why move the pointer of the shorter line and not the taller line?"
SAFE = ("Container With Most Water: why is it safe to always move the pointer of the shorter line? Couldn't the best "
        "container pair that line with one we haven't reached?")
CODE = ("while left < right:\n    area = max(area, (right - left) * min(height[left], height[right]))\n"
        "    if height[left] < height[right]:\n        left += 1\n    else:\n        right -= 1")


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> Retriever:
    return retriever_over(KB, tmp_path_factory)


def failure(retriever: Retriever, **request: str) -> bool:
    return reports_failure(plan(Request(**request), retriever))


def test_the_rule_is_on_by_default_and_the_environment_turns_it_off():
    assert Settings().failure_lead is True
    assert Settings.from_env({"QUEST_FAILURE_LEAD": "0"}).failure_lead is False


def test_a_question_that_reports_no_failure_gets_the_official_solution_first(retriever):
    assert failure(retriever, question=SAFE) is False
    assert shown(retriever, question=SAFE) == [OFFICIAL, PATTERN]
    # Before: the pattern led on the words every document of the problem shares.
    assert shown(retriever, OFF, question=SAFE) == [PATTERN, OFFICIAL]
    assert shown(retriever, question=WHY) == [OFFICIAL, PATTERN, PATTERN, OFFICIAL]
    assert shown(retriever, OFF, question=WHY) == [PATTERN, OFFICIAL, PATTERN, OFFICIAL]


def test_code_without_a_failure_is_no_failure(retriever):
    # The student's own (accepted) code, and the question why it works.
    assert failure(retriever, question=WHY, code=CODE) is False
    assert shown(retriever, question=WHY, code=CODE) == [OFFICIAL, PATTERN, PATTERN, OFFICIAL]
    assert shown(retriever, OFF, question=WHY, code=CODE) == [PATTERN, OFFICIAL, PATTERN, OFFICIAL]


def test_the_judges_acceptance_is_no_failure(retriever):
    request = {"question": WHY, "error": "Accepted\nRuntime: 44 ms"}
    assert failure(retriever, **request) is False
    assert shown(retriever, **request) == [OFFICIAL, PATTERN, PATTERN, OFFICIAL]
    assert shown(retriever, OFF, **request) == [PATTERN, OFFICIAL, PATTERN, OFFICIAL]
    # 通过 is LeetCode China's acceptance; the judge parser reads no verdict in it.
    assert failure(retriever, question=WHY, error="通过\n执行用时：44 ms") is False


def test_a_failing_verdict_keeps_the_pattern_first(retriever):
    request = {"question": WHY, "error": "Wrong Answer"}
    assert failure(retriever, **request) is True
    assert shown(retriever, **request) == [PATTERN, OFFICIAL, PATTERN, OFFICIAL]
    assert shown(retriever, **request) == shown(retriever, OFF, **request)


def test_a_failure_told_in_words_keeps_the_pattern_first(retriever):
    question = "Container With Most Water: I move the pointer of the taller line and it returns 8 instead of 49"
    assert failure(retriever, question=question) is True
    assert shown(retriever, question=question) == [PATTERN]
    assert shown(retriever, question=question) == shown(retriever, OFF, question=question)


def test_any_pasted_output_but_an_acceptance_is_a_failure(retriever):
    # A wrong output pasted without the verdict's name is still a failure the pattern may explain.
    wrong = "Input: height = [1,8,6,2,5,4,8,3,7]\nOutput: 8\nExpected: 49"
    assert failure(retriever, question=WHY, error=wrong) is True
    assert failure(retriever, question=WHY, verdict="TLE") is True  # the form's verdict field
    assert failure(retriever, question=WHY + " It got TLE.") is True  # a verdict named in the question


def test_with_no_other_document_the_pattern_stays(retriever):
    # The hint tier leaves the official solution out and the explanation does not clear the floor: nothing to lead.
    assert shown(retriever, question=WHY, tier="hint") == [PATTERN, PATTERN]
    assert shown(retriever, question=WHY, tier="hint") == shown(retriever, OFF, question=WHY, tier="hint")


def test_a_search_that_was_not_planned_keeps_the_order(retriever):
    # Whether a failure was reported is the plan's finding; without it (None) nothing moves.
    found = retriever.search(WHY, problem_id="11", parts={"question": WHY})
    assert [h.chunk.doc_id for h in found.hits][:2] == [PATTERN, OFFICIAL]
    found = retriever.search(WHY, problem_id="11", parts={"question": WHY}, failure=False)
    assert [h.chunk.doc_id for h in found.hits][:2] == [OFFICIAL, PATTERN]


@pytest.mark.parametrize("text", [
    "every subset in my result is [] when the function returns",
    "I reset the running sum to 0, then [-1] returns 0",
    "binary search never ends on [1,2]",
    "my recursive lcs times out around test case 25",
    "合并区间 [[1,4],[2,3]] 输出成了 [[1,3]]",
    "岛屿数量 大网格上 RecursionError 报错",
    "爬楼梯 n 一大就跑不动了",
    "三数之和 输出里有重复的三元组",
    "遞迴版本會超時",
    "如果樹退化成一條很長的鏈會不會出問題？",
    "第 3 个用例过不去",
    "提交没通过",
    "the process is killed on the big test",
    "my output differs from the expected one in the last line",
    "it freezes on [1,2]",
])
def test_words_that_report_a_failure(text):
    assert describes_failure(text) is True


@pytest.mark.parametrize("text", [
    "why is it safe to always move the shorter line?",
    "Can I solve it with a heap instead of a deque? How do I throw away elements that left the window?",
    "doesn't the inner while make it O(n^2) in the worst case?",
    "凭什么左边这格的水量已经确定了？",
    "初始化成 amount + 1 应该就够了吧？还是有别的情况要考虑？",
    "这样复杂度是 O(klogn) 吗？还是应该只维护一个大小为 k 的小顶堆？",
    "",
])
def test_words_that_ask_how_or_why(text):
    assert describes_failure(text) is False


def test_the_problems_title_is_not_read_for_failure_words(retriever):
    # Problem 3's Chinese title has 重复 (repeating) in it: the plan reads the question without the problem's names.
    question = "无重复字符的最长子串：用 HashSet 维护窗口，左指针每次只挪一步，最坏是 O(n) 吗？"
    assert describes_failure(question) is True
    assert failure(retriever, question=question) is False


@pytest.mark.parametrize(("error", "expected"), [
    ("Accepted", True), ("accepted\nRuntime: 0 ms", True), ("AC", True), ("通过\n执行用时：44 ms", True),
    ("通過\n執行用時：312 ms", True), ("答案正确", True),
    ("Wrong Answer", False), ("ACCESS violation", False), ("解答错误", False), ("", False),
])
def test_reports_acceptance(error, expected):
    assert reports_acceptance(error) is expected
