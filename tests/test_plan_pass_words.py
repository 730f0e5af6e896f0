"""Round 21: "通过" (passed) in a pasted judge's result and in a question.

`quest.plan.reports_failure` reads a pasted result as no failure when it opens with the judge's acceptance
(`reports_acceptance`), and a question as one when it has a failure word (`describes_failure`). Misread, a student
who failed 7 of 10 tests was sent the official solution first as if they had passed, and one who passed was read
as failing.

How the judges word it:
- LeetCode China: the accepted page opens with "通过" above "63 / 63 个通过的测试用例" and the run time; a failing one
  opens with its verdict above the count, "解答错误" / "11 / 74 个通过的测试用例", "超出时间限制" / "38 / 39 个通过的
  测试用例" (as students paste it in their solution notes on GitHub, e.g. LeetCode 85 and 189 write-ups).
- HUSTOJ: its Chinese name for Accepted is "正确" (web/lang/cn.php, `$MSG_Accepted`; the status list is 等待, 编译中,
  正确, 格式错误, 答案错误, 时间超限, ... in its solution model).
- Hydro's help page: "Accepted 通过：程序输出完全正确", "Wrong Answer 不通过：程序输出与标准答案不一致".
The fixtures below are written for these tests in those shapes.
"""

from __future__ import annotations

import pytest

from quest.failure_words import describes_failure, reports_acceptance


@pytest.mark.parametrize("error", [
    "通过\n63 / 63 个通过的测试用例\n执行用时分布 2 ms 击败 87.10%",
    "通过了",
    "正确",
    "正确  1520 KB  4 ms  C++  812 B",
    "通過\n45 / 45 個通過的測試用例",
    "Accepted 58/58",
    # review 21: any "a/b" in the first 200 characters was read as a count of tests passed
    "通过\n执行用时：4 ms\n内存消耗：6.1 MB\n提交于 10/13 12:30",
    "Accepted\nRuntime: 0 ms, faster than 100.00%\nInput: nums = [3,1], ratio = 1/2",
])
def test_an_acceptance_is_read_as_one(error):
    assert reports_acceptance(error) is True


@pytest.mark.parametrize("error", [
    "通过了 3/10",  # before: True (a partial pass read as the judge's acceptance)
    "通过 7 / 20 个测试点",
    "通过的测试用例：11 / 74",
    "通过率 34.5%",
    "正确输出：5\n你的输出：3",  # before: the HUSTOJ word at the start of "the correct output"
    "正确答案应该是 12",
    "通过了样例，提交后解答错误",
    "不通过：程序输出与标准答案不一致",
    "Accepted 3/10",
    "Accepted: 3/10",
    "通过\n通过测试用例：11 / 74",
    "AC\n7/20 tests passed",
])
def test_a_partial_pass_or_another_word_is_no_acceptance(error):
    assert reports_acceptance(error) is False


@pytest.mark.parametrize("question", [
    "提交后没有通过",  # before: 没有通过 held none of the words (没通过 does not match it)
    "为什么只通过了 3/10 个测试点",
    "只过了 6 个点，剩下的超",
    "部分通过，70 分",
    "一直无法通过第 5 个测试点",
    "沒有通過最後一組資料",
    "没能通过最后一个用例",
])
def test_not_passing_is_a_failure(question):
    assert describes_failure(question) is True


@pytest.mark.parametrize("question", [
    "通过样例是不是就说明思路对了？",
    "怎样才能通过这道题的所有测试点？",
    "通过了，但想知道为什么可以贪心",
])
def test_passing_is_no_failure(question):
    assert describes_failure(question) is False
