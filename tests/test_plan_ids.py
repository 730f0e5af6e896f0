"""Numbers that look like ids in judge output — test numbers, stack frames — never name a problem."""

import pytest

from quest.kb.documents import Problem
from quest.plan import plan
from quest.request import Request
from quest.resolution import Catalogue, resolve

PROBLEMS = {
    "1": Problem(id="1", title_zh="两数之和", title_en="Two Sum"),
    "3": Problem(id="3", title_zh="无重复字符的最长子串", title_en="Longest Substring Without Repeating Characters"),
    "5": Problem(id="5", title_zh="最长回文子串", title_en="Longest Palindromic Substring"),
    "239": Problem(id="239", title_zh="滑动窗口最大值", title_en="Sliding Window Maximum"),
}
CAT = Catalogue(PROBLEMS)
ASAN_FRAMES = ("==31==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000020 at pc 0x0000003451ab\n"
               "READ of size 4 at 0x602000000020 thread T0\n"
               "    #0 0x3451aa in Solution::twoSum(std::vector<int>&, int) solution.cpp:7\n"
               "    #1 0x7f3b5b0e00b2 in __libc_start_main (/lib/x86_64-linux-gnu/libc.so.6+0x270b2)\n")


@pytest.mark.parametrize("question,error", [
    ("why wrong answer", "Wrong answer on test #5"),
    ("it crashes", "Runtime error on test #3"),
    ("用例 #3 过不了", ""),
    ("segfault, no idea", ASAN_FRAMES),
    ("my calc2 helper returns the wrong value", ""),
    ("the subproblem 3 of my dp is wrong", ""),
])
def test_test_numbers_frames_and_words_ending_in_a_judge_name_are_not_ids(question, error):
    assert resolve(Request(question=question, error=error), CAT).rule == "none"


def test_a_title_still_names_the_problem_when_the_error_has_stack_frames():
    found = resolve(Request(question="Two Sum with a hash map crashes on submit", error=ASAN_FRAMES), CAT)
    assert (found.problem_id, found.rule, found.missing_id) == ("1", "title", None)


@pytest.mark.parametrize("question,pid", [("#239 why slow", "239"), ("see #239", "239"), ("LC239 slow", "239")])
def test_a_marked_id_in_the_question_still_counts(question, pid):
    assert resolve(Request(question=question), CAT).problem_id == pid


@pytest.mark.parametrize("question", ["LeetCode-239 超时", "leetcode_239 TLE", "LC-239 why", "lc.239 hmm",
                                      "力扣-239 滑动窗口"])
def test_a_judge_and_its_number_joined_by_a_dash_underscore_or_dot(question):
    found = resolve(Request(question=question), CAT)
    assert (found.problem_id, found.rule, found.missing_id) == ("239", "id", None)


# ZeroJudge lists each test under the overall result; the number after "#" is the test's.
ZEROJUDGE_REPORT = "NA (score:60%)\n#0: 20% AC (3ms, 104KB)\n#1: 20% AC (2ms, 108KB)\n#2: 20% WA (line:2)\n" \
                   "#3: 20% TLE (1s)\n#4: 20% AC (5ms, 120KB)"


@pytest.mark.parametrize("error", [
    ZEROJUDGE_REPORT,
    "NA (score:80%)\n#3: WA (line:1)",
    "#5：RE (SIGSEGV)",
])
def test_a_judges_numbered_test_results_are_not_ids(error):
    found = resolve(Request(question="送出後部分測資錯了，是哪裡寫錯？", error=error), CAT)
    assert (found.problem_id, found.rule, found.missing_id) == (None, "none", None)


@pytest.mark.parametrize("question", ["#3: why does my window shrink too late", "#5: WAIT, my palindrome check is off"])
def test_a_marked_id_followed_by_other_words_still_counts(question):
    found = resolve(Request(question=question), CAT)
    assert found.rule == "id" and found.problem_id == question[1]


def test_a_question_of_5000_digits_is_echoed_short_in_the_notice():
    """Round 21: the whole 5,000-digit "id" was echoed in the problem notice (5,037 characters)."""
    found = resolve(Request(question="7" * 5000), CAT)
    assert (found.rule, found.missing_id) == ("id", "7" * 5000)  # the plan keeps what was named
    assert found.describe("en") == f"problem {'7' * 60}... (5000 characters) is not in the knowledge base"
    assert found.describe("zh") == f"题目 {'7' * 60}……（共 5000 个字符） 不在知识库中"
    link = resolve(Request(question="https://leetcode.com/problems/" + "a" * 3000), CAT)
    assert link.describe("en") == f"problem {'a' * 60}... (3000 characters) is not in the knowledge base"
    # a name of ordinary length is shown as written
    ordinary = resolve(Request(question="#9999 why slow"), CAT)
    assert ordinary.describe("en") == "problem 9999 is not in the knowledge base"


def test_the_plans_json_carries_a_5000_digit_name_cut_with_its_length():
    """Review 21: `search --json`, `ask`'s stats and the feedback log carried the whole 5,000-digit "id" twice (as
    `missing_id` and `evidence`) though the notice cut it."""
    from tests.fakes.retriever import FakeRetriever

    carried = plan(Request(question="7" * 5000), FakeRetriever()).to_dict()
    assert (carried["rule"], carried["missing_id"]) == ("id", f"{'7' * 60}... (5000 characters)")
    assert carried["evidence"] == f"{'7' * 60}... (5000 characters)"
    assert carried["resolution"] == f"problem {'7' * 60}... (5000 characters) is not in the knowledge base"
    # an ordinary name is carried as written
    ordinary = plan(Request(question="#9999 why slow"), FakeRetriever()).to_dict()
    assert (ordinary["missing_id"], ordinary["evidence"]) == ("9999", "#9999")
