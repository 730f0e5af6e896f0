"""Regressions found by reviewing round 12 (main after i9-fix-judge and i9-fix-plan), each with the input that showed
it. Problem names are resolved against the starter base, as `quest.plan` does; judge messages are read by
`quest.judge.parse`. Messages and questions are our own words in the shapes students and tools use.
"""

from __future__ import annotations

import pytest

from quest.judge import parse
from quest.judge_problems import _REFERENCED, judge_problem
from quest.resolution import Resolution
from quest.sibling_heads import _distance, _slip
from tests.fakes.catalogue import resolved
from tests.test_review_round10 import finishes

# --------------------------------------------------------------------------- other judges' problems


@pytest.mark.parametrize("text", ["洛谷那题" + " " * 596 + "!", "ZeroJudge 這題" + "\n" * 588 + "!",
                                  "codeforces problem" + " " * 2000 + "!", "洛谷的题目是" + "\t" * 2000 + "?"])
def test_a_judge_and_its_word_for_problem_before_a_long_blank_run_name_nothing(text):
    # Blank runs between the optional words were split every possible way before the match failed (seconds each,
    # on every request). The result is what matters; `finishes` only keeps a regression from hanging the run.
    assert finishes(lambda: _REFERENCED.search(text))
    assert _REFERENCED.search(text) is None
    assert judge_problem(text) is None


def test_the_reference_still_reads_a_title_after_blanks():
    assert judge_problem("洛谷那题" + " " * 50 + "滑雪") == "洛谷 滑雪"
    assert judge_problem("ZeroJudge 那題\n括號配對") == "ZeroJudge 括號配對"


@pytest.mark.parametrize("question", ["Codeforces problem Wrong answer on test 2",
                                      "Codeforces problem Time limit exceeded on test 5"])
def test_a_verdict_in_sentence_case_after_problem_is_no_title(question):
    # The filler "a" of a title used to take the first letter of "answer": "Codeforces Wrong a".
    assert judge_problem(question) is None


@pytest.mark.parametrize("question", [
    "洛谷那道题是动态规划吗", "洛谷那道题是贪心吗", "洛谷那道题是二分吗",  # what kind of problem it is
    "洛谷那道题数据很大，怎么优化", "洛谷那道题其实很简单但我WA了",  # a clause about it
    "洛谷那道题居然超时", "洛谷那道题目前还没人过", "洛谷那道题卡常数",  # an adverb, the student's trouble
])
def test_what_a_sentence_says_of_that_problem_is_no_missing_problem(base, question):
    assert judge_problem(question) is None
    assert resolved(base, question).missing_id is None


@pytest.mark.parametrize("question,name", [
    ("ZeroJudge 這題括號配對怎麼做", "ZeroJudge 括號配對"),  # traditional question words end the title too
    ("洛谷那道题没有上司的舞会", "洛谷 没有上司的舞会"),  # 没有 + a noun phrase with 的 is a title
    ("洛谷那道题是滑雪", "洛谷 滑雪"),
    ("洛谷那道题叫 滑雪，我超时了", "洛谷 滑雪"),
    ("Codeforces problem Help Far Away Kingdom", "Codeforces Help Far Away Kingdom"),
    ("Codeforces problem Do Not Be Distracted", "Codeforces Do Not Be Distracted"),
    ("Codeforces problem Is It Rated", "Codeforces Is It Rated"),
    ("Codeforces problem Watermelon is easy but I got WA", "Codeforces Watermelon"),
])
def test_titles_after_a_judge_and_its_word_for_problem(base, question, name):
    assert judge_problem(question) == name
    assert resolved(base, question) == Resolution(None, "name", name, missing_id=name)


@pytest.mark.parametrize("question", [
    "Codeforces problem Is it greedy?", "Codeforces problem My solution fails on test 3",
    "Codeforces problem Why Does My Code Fail", "洛谷那道题没有思路", "洛谷那道题是滑雪吗",
])
def test_a_sentence_after_problem_is_still_no_title(question):
    assert judge_problem(question) is None


# --------------------------------------------------------------------------- base titles with a letter swap


def test_a_swap_of_neighbouring_letters_is_one_edit():
    assert [_distance(a, b) for a, b in (("binray", "binary"), ("sroted", "sorted"), ("serach", "search"),
                                         ("elemnet", "element"), ("levle", "level"), ("ab", "ba"))] == [1] * 6
    assert (_distance("mininum", "maximum"), _distance("kitten", "sitting"), _distance("abc", "ca")) == (3, 3, 3)
    assert (_slip("decreasing", "increasing"), _slip("mininum", "maximum"), _slip("sroted", "sorted")) == \
        (False, False, True)


@pytest.mark.parametrize("question,pid,named", [
    ("Maximum Depth of Binray Tree: my recursion returns 0", "104", "Maximum Depth of Binray Tree"),
    ("Search in Rotated Sroted Array: where is the pivot", "33", "Search in Rotated Sroted Array"),
    ("Validate Binary Serach Tree: my inorder check", "98", "Validate Binary Serach Tree"),
    ("Kth Largest Elemnet in an Array: heap or quickselect", "215", "Kth Largest Elemnet in an Array"),
    ("Merge Two Sroted Lists: I lose the head pointer", "21", "Merge Two Sroted Lists"),
    ("Binary Tree Levle Order Traversal: queue size", "102", "Binary Tree Levle Order Traversal"),
])
def test_a_base_title_with_two_letters_swapped_is_that_title(base, question, pid, named):
    assert resolved(base, question) == Resolution(pid, "title", named)


@pytest.mark.parametrize("question,named", [
    ("Longest Decreasing Subsequence: dp", "Longest Decreasing Subsequence"),  # not 300
    ("Minimum Depth of Binary Tree: recursion", "Minimum Depth of Binary Tree"),  # not 104
])
def test_an_opposite_word_names_no_base_title_however_alike(base, question, named):
    assert resolved(base, question) == Resolution(None, "name", named, missing_id=named)


# --------------------------------------------------------------------------- a process's return value


@pytest.mark.parametrize("text", [
    "子程序返回值为 -11",  # a subroutine's result
    "我的程序返回值是 5，但是答案是 6",  # the program's answer
    "my program returned 5 instead of 6 on the sample",
    "a helper with return value -1 means not found",
])
def test_a_result_called_a_return_value_is_no_exit_code(text):
    report = parse(text)
    assert (report.exit_code, report.signal, report.kind, report.verdict) == (None, None, None, None)


@pytest.mark.parametrize("text,code", [
    ("程序“[6860] a.exe”已退出，返回值为 3 (0x3)。", 3),  # Visual Studio, simplified
    ("程式 '[6860] a.exe' 已結束，返回值為 3 (0x3)。", 3),  # and traditional
    ("進程已退出，返回值為 3", 3),
    ("Program returned: 139", 139),  # Compiler Explorer
    ("Process returned 1 (0x1)   execution time : 0.52 s", 1),  # Code::Blocks' console
    ("Process exited after 0.41 seconds with return value 3", 3),  # Dev-C++
])
def test_a_tools_return_value_is_the_exit_code(text, code):
    report = parse(text)
    assert (report.exit_code, report.verdict) == (code, "RE")


def test_a_crash_status_called_a_return_value_is_still_read():
    report = parse("程序返回值 3221225477")
    assert (report.exit_code, report.kind, report.signal) == (-1073741819, "segv", "STATUS_ACCESS_VIOLATION")


# --------------------------------------------------------------------------- long numbers


@pytest.mark.parametrize("n", [1, 10, 1000, 100_000])
def test_long_runs_of_digits_read_the_same_at_every_length(n):
    # `_UBSAN_LINE` read a run of path characters from each of its digits (seconds at 100 000). Results as on main.
    texts = ("exit code " + "1" * n, "-1073741819" * max(1, n // 11), "3221225477" * max(1, n // 10))
    reports = [parse(t) for t in texts]
    got = [(r.exit_code, r.kind, r.verdict, r.signal) for r in reports]
    code = int("1" * n) if n <= 10 else None  # at most ten digits are a code
    assert got[0] == ((code, None, "RE", None) if code else (None, None, None, None))
    assert got[1] == (-1073741819, "segv", "RE", "STATUS_ACCESS_VIOLATION")  # the first code, then a dash
    assert got[2] == ((-1073741819, "segv", "RE", "STATUS_ACCESS_VIOLATION") if n <= 10 else (None, None, None, None))


def test_a_sanitizer_line_is_still_read():
    assert parse("sol.cpp:9:28: runtime error: signed integer overflow").lines == (9,)
    assert parse("src/a.cc:12:3: runtime error: load of null pointer").lines == (12,)
    assert parse("Line 7: Char 15: runtime error: index out of bounds").lines == (7,)


# --------------------------------------------------------------------------- NZEC and link errors


@pytest.mark.parametrize("text", ["Runtime Error (NZEC) on test 3", "SPOJ says NZEC for my Python code",
                                  "CodeChef gives non-zero exit code on the second file"])
def test_nzec_is_a_runtime_error(text):
    assert parse(text).verdict == "RE"


@pytest.mark.parametrize("text,messages", [
    # The undefined symbol is kept before the summary (round 13: the symbol is what the student must fix).
    ("/usr/bin/ld: /tmp/ccAb12.o: in function `main':\nsol.cpp:(.text+0x2a): undefined reference to `solve(int)'\n"
     "collect2: error: ld returned 1 exit status",
     ("sol.cpp:(.text+0x2a): undefined reference to `solve(int)'", "collect2: error: ld returned 1 exit status")),
    ("collect2.exe: error: ld returned 1 exit status", ("collect2.exe: error: ld returned 1 exit status",)),
    ("Process terminated with status 1 (0 minute(s), 0 second(s))\n1 error(s), 0 warning(s) (0 minute(s), 0 second(s))",
     ("Process terminated with status 1 (0 minute(s), 0 second(s))",)),
])
def test_a_failed_link_is_a_compile_error(text, messages):
    report = parse(text)
    assert (report.verdict, report.exit_code, report.messages) == ("CE", None, messages)


def test_a_clean_build_log_is_no_compile_error():
    report = parse("Process terminated with status 0 (0 minute(s), 1 second(s))\n0 error(s), 0 warning(s)")
    assert (report.verdict, report.exit_code) == (None, None)
