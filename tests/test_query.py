from quest.judge import parse
from quest.kb.documents import Problem
from quest.query import MAX_QUERY_CHARS, build_query, key_code_lines
from quest.request import Request

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

PROBLEM = Problem(id="239", title_zh="滑动窗口最大值", title_en="Sliding Window Maximum")


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


def test_query_joins_question_titles_error_and_code():
    request = Request(question="为什么超时？", problem_id="239", code=SLIDING, error="Time Limit Exceeded on test 45")
    query = build_query(request, PROBLEM, parse(request.error))
    lines = query.split("\n")
    assert lines[0] == "为什么超时？"
    assert lines[1] == "滑动窗口最大值 Sliding Window Maximum"
    assert lines[2] == "TLE Time Limit Exceeded 时间超限"
    assert "window.pop(0)" in lines and "res.append(max(window))" in lines
    assert lines[-1] == "python"


def test_query_is_bounded():
    request = Request(question="q" * 5000, code="for x in y:\n" * 10000)
    assert len(build_query(request, None, parse(""))) == MAX_QUERY_CHARS


def test_query_with_only_an_error():
    request = Request(question="", error="RecursionError: maximum recursion depth exceeded", language="other")
    assert build_query(request, None, parse(request.error)) == (
        "RE Runtime Error 运行错误\nRecursionError\nRecursionError: maximum recursion depth exceeded"
    )
