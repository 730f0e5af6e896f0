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
        kind="stack-overflow",
        runtime="python",
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
    assert parse("") == JudgeReport() and parse(None) == JudgeReport()
    assert parse("\x00\x01 nothing here") == JudgeReport()
    assert len(parse("x" * 1_000_000).messages) == 0


def test_query_text_keeps_names_kind_and_raw_words():
    report = parse("Line 9: Char 28: runtime error: signed integer overflow: 2147483647 + 1 cannot be "
                   "represented in type 'int' (solution.cpp)")
    text = report.query_text()
    assert text.startswith("RE Runtime Error 运行错误\nsigned integer overflow long long")
    assert "2147483647 + 1 cannot be represented in type 'int'" in text


# Real-looking output, one per format (written here in the formats the tools print).
ASAN_HEAP = """=================================================================
==31==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000118 at pc 0x0000003461d9 bp 0x7ffc
READ of size 4 at 0x602000000118 thread T0
    #0 0x3461d8 in Solution::search(std::vector<int, std::allocator<int> >&, int) solution.cpp:14:17
    #1 0x344a1f in main solution.cpp:52:30
0x602000000118 is located 0 bytes to the right of 8-byte region"""
JAVA_CAUSED = """Exception in thread "main" java.lang.RuntimeException: read failed
\tat Main.main(Main.java:9)
Caused by: java.lang.NumberFormatException: For input string: "3 "
\tat Main.read(Main.java:21)"""
GO_PANIC = """panic: runtime error: index out of range [4] with length 4

goroutine 1 [running]:
main.solve(...)
\t/box/main.go:17 +0x1d
exit status 2"""
JS_ERROR = """/box/sol.js:6
    return grid[i].length;
                   ^
TypeError: Cannot read properties of undefined (reading 'length')
    at dfs (/box/sol.js:6:20)
    at Object.<anonymous> (/box/sol.js:30:1)"""


@pytest.mark.parametrize("text,verdict,kind,exception,lines", [
    (ASAN_HEAP, "RE", "buffer-overflow", None, (14, 52)),
    ("==7==ERROR: AddressSanitizer: heap-use-after-free on address 0x6030 at pc 0x4f bp 0x7f\n"
     "    #0 0x4f in main a.cpp:11:9", "RE", "heap-use-after-free", None, (11,)),
    ("==7==ERROR: AddressSanitizer: stack-buffer-overflow on address 0x7ffd", "RE", "buffer-overflow", None, ()),
    ("AddressSanitizer:DEADLYSIGNAL\n==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000",
     "RE", "segv", None, ()),
    ("sol.cpp:12:15: runtime error: signed integer overflow: 46341 * 46341 cannot be represented in type 'int'",
     "RE", "integer-overflow", None, (12,)),
    ("Line 5: Char 18: runtime error: shift exponent 32 is too large for 32-bit type 'int'",
     "RE", "shift-overflow", None, (5,)),
    ("a.cpp:8:11: runtime error: division by zero", "RE", "division-by-zero", None, (8,)),
    ("a.cpp:9:5: runtime error: index 10 out of bounds for type 'int [10]'", "RE", "index-out-of-range", None,
     (9,)),
    ("free(): invalid pointer\nAborted (core dumped)", "RE", "heap-corruption", None, ()),
    ("double free or corruption (fasttop)", "RE", "double-free", None, ()),
    ("Segmentation fault (core dumped)", "RE", "segv", None, ()),
    ("Process exited with code 139", "RE", "segv", None, ()),
    ("exit code 134", "RE", "abort", None, ()),
    ("Floating point exception (SIGFPE)", "RE", "division-by-zero", None, ()),
    ("Runtime error on test 7\nExit code is -1073741571", "RE", "stack-overflow", None, ()),
    # A terminal set to Chinese translates the signal names (glibc / bash): zh_CN and zh_TW.
    ("请输入两个数：\n12,8\n浮点数异常 (核心已转储)", "RE", "division-by-zero", None, ()),
    ("浮點數例外 (核心已傾印)", "RE", "division-by-zero", None, ()),
    ("程式記憶體區段錯誤 (核心已傾印)", "RE", "segv", None, ()),
    # assert()'s own file and line is the student's (round 19)
    ("a.out: main.c:7: main: Assertion `n > 0' failed.\n已放弃 (核心已转储)", "RE", "abort", None, (7,)),
    ("中止 (核心已傾印)", "RE", "abort", None, ()),
    ("已杀死", "MLE", "killed", None, ()),
    # UBSan on vector[-1] as LeetCode prints it: the index went below the data pointer.
    ("Line 1122: Char 34: runtime error: addition of unsigned offset to 0x503000000040 overflowed to "
     "0x50300000003c (stl_vector.h)", "RE", "index-out-of-range", None, (1122,)),
    (JAVA_CAUSED, "RE", None, "java.lang.NumberFormatException", (9, 21)),
    ('Traceback (most recent call last): File "main.py", line 4, in <module> print(a[n]) '
     'IndexError: list index out of range', "RE", "index-out-of-range", "IndexError", (4,)),
    (GO_PANIC, "RE", "index-out-of-range", None, (17,)),
    ("thread 'main' panicked at src/main.rs:7:21:\nattempt to multiply with overflow", "RE", "integer-overflow",
     None, (7,)),
    (JS_ERROR, "RE", "null-pointer", "TypeError", (6,)),
    ("RangeError: Maximum call stack size exceeded\n    at f (/box/a.js:2:10)", "RE", "stack-overflow",
     "RangeError", (2,)),
    ("Unhandled exception. System.IndexOutOfRangeException: Index was outside the bounds of the array.\n"
     "   at Program.Main() in /app/Program.cs:line 14", "RE", "index-out-of-range",
     "System.IndexOutOfRangeException", (14,)),
    ("执行出错\nLine 3: Char 9: runtime error: reference binding to null pointer of type 'int' (stl_vector.h)",
     "RE", "null-pointer", None, (3,)),
    ("超出时间限制 24 / 25 个通过的测试用例", "TLE", None, None, ()),
    ("解答错误 40 / 52 个通过的测试用例", "WA", None, None, ()),
    ("Time limit exceeded on test 12", "TLE", None, None, ()),
    ("Idleness limit exceeded on test 1", "TLE", None, None, ()),
])
def test_sanitizer_runtime_and_judge_formats(text, verdict, kind, exception, lines):
    report = parse(text)
    assert (report.verdict, report.kind, report.exception, report.lines) == (verdict, kind, exception, lines)


def test_a_bare_signal_keeps_the_line_that_names_it_not_the_programs_prompt():
    report = parse("please input two numbers:\n12,8\n浮点数异常 (核心已转储)")
    assert report.messages == ("浮点数异常 (核心已转储)",)
    assert report.query_text() == ("RE Runtime Error 运行错误\ndivision by zero SIGFPE 除以零 除零\n"
                                   "浮点数异常 (核心已转储)")


def test_one_verdict_vocabulary_for_parser_tokenizer_and_validator():
    from quest import judge
    from quest.kb import validate
    from quest.retrieval import tokenize

    assert validate.VERDICTS is judge.KNOWN_VERDICTS
    for verdict, phrases in judge.VERDICT_PHRASES.items():
        assert set(phrases) <= set(tokenize.VERDICT_ALIASES[verdict.lower()])
    assert "verdict_re" in tokenize.tokenize("执行出错") and parse("执行出错").verdict == "RE"
