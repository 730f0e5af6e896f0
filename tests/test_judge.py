"""Judge messages as students paste them: OJ verdict lines, Python, g++, javac, Java traces."""

import pytest

from quest.judge import JudgeReport, find_verdict, parse

PYTHON_TRACE = """Traceback (most recent call last):
  File "/judge/run/main.py", line 31, in <module>
    print(solve(nums))
  File "/judge/run/main.py", line 12, in solve
    return dfs(0)
  File "/judge/run/main.py", line 8, in dfs
    return dfs(i + 1) + 1
  [Previous line repeated 996 more times]
RecursionError: maximum recursion depth exceeded in comparison
"""

GPP = """main.cpp: In function 'int main()':
main.cpp:7:5: error: 'vector' was not declared in this scope
    7 |     vector<int> a(n);
      |     ^~~~~~
main.cpp:7:5: note: suggested alternatives:
main.cpp:12:14: warning: comparison of integer expressions of different signedness
main.cpp:15:1: error: expected ';' before '}' token
"""

JAVAC = """Main.java:5: error: cannot find symbol
        Scanner sc = new Scanner(System.in);
        ^
  symbol:   class Scanner
  location: class Main
1 error
"""

JAVA_TRACE = """Exception in thread "main" java.lang.ArrayIndexOutOfBoundsException: Index 5 out of bounds for length 5
\tat Main.solve(Main.java:14)
\tat Main.main(Main.java:22)
"""


def test_python_traceback():
    report = parse(PYTHON_TRACE)
    assert report == JudgeReport(
        verdict="RE",
        test_number=None,
        exception="RecursionError",
        lines=(31, 12, 8),
        messages=("RecursionError: maximum recursion depth exceeded in comparison",),
    )


def test_gpp_errors_skip_warnings_and_notes():
    report = parse(GPP)
    assert report.verdict == "CE"
    assert report.lines == (7, 15)
    assert report.messages == (
        "main.cpp:7: error: 'vector' was not declared in this scope",
        "main.cpp:15: error: expected ';' before '}' token",
    )


def test_javac():
    report = parse(JAVAC)
    assert (report.verdict, report.lines, report.messages) == ("CE", (5,), ("Main.java:5: error: cannot find symbol",))


def test_java_runtime_exception():
    report = parse(JAVA_TRACE)
    assert report.verdict == "RE"
    assert report.exception == "java.lang.ArrayIndexOutOfBoundsException"
    assert report.lines == (14, 22)


def test_cpp_uncaught_exception_and_signals():
    report = parse("terminate called after throwing an instance of 'std::out_of_range'\n"
                   "  what():  vector::_M_range_check")
    assert (report.verdict, report.exception) == ("RE", "std::out_of_range")
    assert parse("Segmentation fault (core dumped)").verdict == "RE"


@pytest.mark.parametrize("text,verdict,test", [
    ("Time Limit Exceeded on test 45", "TLE", 45),
    ("TLE on test 45", "TLE", 45),
    ("Wrong Answer on test case #3", "WA", 3),
    ("WA test 7", "WA", 7),
    ("Runtime Error (SIGSEGV) on test 12", "RE", 12),
    ("Memory Limit Exceeded on test 2", "MLE", 2),
    ("Output Limit Exceeded", "OLE", None),
    ("Presentation Error", "PE", None),
    ("Compilation Error", "CE", None),
    ("Accepted", "AC", None),
    ("时间超限 测试点 45", "TLE", 45),
    ("运行超时，第 3 个测试点", "TLE", 3),
    ("答案错误 第5组数据", "WA", 5),
    ("运行错误（段错误）", "RE", None),
    ("内存超限", "MLE", None),
    ("输出超限", "OLE", None),
    ("格式错误", "PE", None),
    ("编译错误", "CE", None),
    ("我的代码超时了", "TLE", None),
])
def test_oj_verdict_lines_in_both_languages(text, verdict, test):
    report = parse(text)
    assert (report.verdict, report.test_number) == (verdict, test)


def test_a_verdict_chosen_in_the_ui_wins_over_inference():
    assert parse(PYTHON_TRACE, verdict_hint="tle").verdict == "TLE"
    assert parse("", verdict_hint="WA").verdict == "WA"
    assert parse("", verdict_hint="nonsense").verdict is None


def test_abbreviations_only_in_capitals():
    assert find_verdict("we re-read the input") is None
    assert find_verdict("got RE") == "RE"


def test_the_first_named_verdict_wins():
    assert find_verdict("Wrong Answer; earlier versions got Time Limit Exceeded") == "WA"


def test_empty_and_junk():
    assert parse("").empty and parse(None).empty
    assert parse("\x00\x01 nothing here").empty
    assert len(parse("x" * 1_000_000).messages) == 0


def test_summary_in_both_languages():
    report = parse("Time Limit Exceeded on test 45")
    assert report.summary("en") == "TLE (Time Limit Exceeded) on test 45"
    assert report.summary("zh") == "TLE (时间超限) 测试点 45"
