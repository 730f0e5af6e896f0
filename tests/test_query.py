from quest.plan import plan
from quest.query import MAX_QUERY_CHARS, key_code_lines
from quest.request import Request
from tests.fakes.retriever import FakeRetriever

SLIDING = """from typing import List

class Solution:
    def maxSlidingWindow(self, nums: List[int], k: int) -> List[int]:
        window = []
        res = []
        # keep the window
        for i, x in enumerate(nums):
            window.append(x)
            if len(window) > k:
                window.pop(0)
            if i >= k - 1:
                res.append(max(window))
        return res
"""



def test_key_lines_keep_definitions_loops_returns_and_slow_calls_in_source_order():
    assert key_code_lines(SLIDING) == [
        "class Solution:",
        "def maxSlidingWindow(self, nums: List[int], k: int) -> List[int]:",
        "for i, x in enumerate(nums):",
        "if len(window) > k:",
        "window.pop(0)",
        "if i >= k - 1:",
        "res.append(max(window))",
        "return res",
    ]


def test_lines_the_error_points_at_come_first_and_the_count_is_bounded():
    code = "\n".join(f"x{i} = {i}" for i in range(100))
    lines = key_code_lines(code, error_lines=[42, 7, 500], limit=3)
    assert lines == ["x6 = 6", "x41 = 41"]
    many = "\n".join("for i in range(3):" for _ in range(100))
    assert len(key_code_lines(many, limit=12)) == 12


def test_plan_splits_question_error_and_code_into_bounded_parts():
    request = Request(question="为什么超时？", problem_id="239", code=SLIDING, error="Time Limit Exceeded on test 45")
    parts = plan(request, FakeRetriever()).parts
    assert parts.question == "为什么超时？"
    assert parts.problem == "滑动窗口最大值 Sliding Window Maximum"
    assert parts.error == "TLE Time Limit Exceeded 时间超限"
    assert "window.pop(0)" in parts.code.split("\n") and "res.append(max(window))" in parts.code.split("\n")


def test_parts_are_bounded():
    request = Request(question="q" * 5000, code="for x in y:\n" * 10000)
    parts = plan(request, FakeRetriever()).parts
    assert len(parts.question) == MAX_QUERY_CHARS and len(parts.code) <= MAX_QUERY_CHARS


def test_parts_with_only_an_error():
    request = Request(question="", error="RecursionError: maximum recursion depth exceeded", language="other")
    assert plan(request, FakeRetriever()).parts.as_dict() == {
        "error": "RE Runtime Error 运行错误\nstack overflow recursion too deep 栈溢出 递归太深\nRecursionError\n"
                 "RecursionError: maximum recursion depth exceeded"}


def test_a_list_repeated_with_star_is_a_key_line():
    code = "n = int(input())\narr = [[]] * n\nfor i in range(n):\n    arr[i].append(1)\n"
    assert key_code_lines(code) == ["n = int(input())", "arr = [[]] * n", "for i in range(n):"]
    assert key_code_lines("grid = [[0] * m] * n\nx = 1\n") == ["grid = [[0] * m] * n"]
