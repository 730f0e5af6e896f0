"""The planning stage: each problem-resolution rule with real-looking inputs, parts, direct answers."""

import pytest

from quest.kb.documents import Problem
from quest.plan import Catalogue, QueryParts, Resolution, by_consensus, plan, resolve
from quest.request import Request
from tests.fakes.retriever import FakeRetriever

PROBLEMS = {
    "239": Problem(id="239", title_zh="滑动窗口最大值", title_en="Sliding Window Maximum", tags=("deque",)),
    "300": Problem(id="300", title_zh="最长递增子序列", title_en="Longest Increasing Subsequence"),
    "146": Problem(id="146", title_zh="LRU 缓存", title_en="LRU Cache"),
    "121": Problem(id="121", title_zh="买卖股票的最佳时机", title_en="Best Time to Buy and Sell Stock"),
    "15": Problem(id="15", title_zh="三数之和", title_en="3Sum"),
    "704": Problem(id="704", title_zh="二分查找", title_en="Binary Search", tags=("binary_search",)),
    "1007": Problem(id="1007", title_zh="独木桥", title_en="Bridge"),
}
CAT = Catalogue(PROBLEMS)


def res(question: str, **fields) -> Resolution:
    return resolve(Request(question=question, **fields), CAT)


@pytest.mark.parametrize("question,pid", [
    ("239", "239"), ("#239", "239"), ("LC239 why TLE", "239"), ("leetcode 239 times out", "239"),
    ("第239题为什么超时", "239"), ("239题 超时", "239"), ("300. 最长递增子序列 运行测试用例时遇到内部错误", "300"),
    ("146 LRU缓存机制 提交后显示超过限制时间", "146"), ("see http://oj.example/problem.php?id=1007 please", "1007"),
    ("https://hydro.example/p/P1007 wrong answer", "1007"), ("https://oj.example/problem/1007 WA", "1007"),
    ("https://leetcode.cn/problems/sliding-window-maximum/ 超时", "239"),
])
def test_an_id_or_judge_url_in_the_question(question, pid):
    found = res(question)
    assert (found.problem_id, found.rule, found.missing_id) == (pid, "id", None)


def test_the_problem_field_wins_and_a_missing_id_is_reported_not_mapped():
    assert res("leetcode 300 question", problem_id="239") == Resolution("239", "field", "239")
    assert res("anything", problem_id="27") == Resolution(None, "field", "27", missing_id="27")
    found = res("LeetCode 27.移除元素 提交后报错")
    assert (found.problem_id, found.missing_id) == (None, "27")


def test_ids_in_the_error_and_code_comments():
    assert res("why WA", error="Judging problem.php?id=1007: Wrong Answer").problem_id == "1007"
    assert res("why WA", code="// leetcode 239\nint main() {}").problem_id == "239"


@pytest.mark.parametrize("question,pid", [
    ("在排序数组里 滑动窗口最大值 用单调队列怎么写", "239"),
    ("my sliding-window maximum solution is slow", "239"),
    ("買賣股票的最佳時機 為什麼超時", "121"),
    ("3Sum duplicate triplets", "15"),
    ("ＬＲＵ　Ｃａｃｈｅ get is slow", "146"),
])
def test_a_title_in_the_question(question, pid):
    found = res(question)
    assert (found.problem_id, found.rule) == (pid, "title")


def test_an_earlier_title_the_judge_used_still_names_the_problem():
    cat = Catalogue({**PROBLEMS, "300": Problem(id="300", title_zh="最长递增子序列", aka=("最长上升子序列",))})
    found = resolve(Request(question="最长上升子序列 O(n log n) 的写法总是 WA"), cat)
    assert found == Resolution("300", "title", "最长上升子序列")
    assert resolve(Request(question="最长上升子序列 O(n log n) 的写法总是 WA"), CAT).problem_id is None


def test_a_technique_title_counts_only_as_the_whole_question():
    assert res("二分查找 边界总是差一").problem_id is None
    assert res("Binary Search").problem_id == "704"


def test_numbers_that_are_not_problem_ids_are_ignored():
    assert res("n is 100000 and k is 50000, why TLE on test 3").problem_id is None
    assert res("2 questions about recursion").problem_id is None


def test_consensus_needs_most_of_the_top_documents():
    assert by_consensus(["239", "239", None, "239", "1"]) == "239"
    assert by_consensus(["239", None, None, "1", "239"]) is None
    assert by_consensus([None, "239", "239", "239"]) is None


def test_plan_splits_the_query_and_marks_direct_answers():
    retriever = FakeRetriever()
    p = plan(Request(question="why so slow", problem_id="239", code="x = q.pop(0)\n",
                     error="Time Limit Exceeded on test 4", tier="hint"), retriever)
    assert p.parts == QueryParts(question="why so slow", error="TLE Time Limit Exceeded 时间超限",
                                 code="x = q.pop(0)", problem="滑动窗口最大值 Sliding Window Maximum")
    assert p.exclude_kinds == frozenset({"official_solution"}) and not p.direct
    direct = plan(Request(question="Two Sum"), retriever)
    assert (direct.direct, direct.problem_id) == (True, "1")
    assert plan(Request(question="Two Sum", error="WA"), retriever).direct is False


def test_the_assistant_says_when_a_named_problem_is_not_in_the_base(tmp_path):
    from quest.assistant import Assistant
    from quest.events import Notice
    from quest.settings import Settings

    retriever = FakeRetriever()
    assistant = Assistant(Settings(data_dir=tmp_path), retriever, None)
    events = list(assistant.ask(Request(question="leetcode 27 remove element: why wrong answer?",
                                        error="Wrong Answer on test 3")))
    notices = [e for e in events if isinstance(e, Notice) and e.code == "problem"]
    assert [n.text for n in notices] == ["problem 27 is not in the knowledge base"]
    assert retriever.searches[-1].general_only is True and retriever.searches[-1].problem_id is None
    assert events[-1].stats["plan"]["missing_id"] == "27"


IMPORTED = {
    **PROBLEMS,
    "hustoj-main:1008": Problem(id="hustoj-main:1008", title_en="Stairs", source_name="hustoj-main", local_id="1008"),
    "hustoj-main:2000": Problem(id="hustoj-main:2000", title_en="Coins", source_name="hustoj-main", local_id="2000"),
    "contest:2000": Problem(id="contest:2000", title_en="Coins II", source_name="contest", local_id="2000"),
}


def test_imported_problems_by_their_judge_number_qualified_or_asked_about():
    cat = Catalogue(IMPORTED)
    unique = resolve(Request(question="problem.php?id=1008 gives WA"), cat)
    assert (unique.problem_id, unique.rule) == ("hustoj-main:1008", "id")
    qualified = resolve(Request(question="why WA", problem_id="contest:2000"), cat)
    assert (qualified.problem_id, qualified.rule) == ("contest:2000", "field")
    shared = resolve(Request(question="2000"), cat)
    assert shared.problem_id is None and shared.missing_id is None
    assert shared.candidates == ("hustoj-main:2000", "contest:2000")
    assert shared.describe() == "several problems are 2000; which one do you mean: hustoj-main:2000; contest:2000?"
