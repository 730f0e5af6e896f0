"""LeetCode prints a compiler's diagnostics as "Line N: Char M: error: …", with no file name: a compile error."""

from __future__ import annotations

from quest.judge import parse

POINTER = ("Line 8: Char 12: error: incompatible integer to pointer conversion returning 'int' from a function "
           "with result type 'int *' [-Wint-conversion]")


def test_a_clang_diagnostic_by_line_and_character_is_a_compile_error_with_its_line_and_words():
    report = parse(POINTER)
    assert report.verdict == "CE"
    assert report.lines == (8,)
    assert report.messages == ("Line 8: error: incompatible integer to pointer conversion returning 'int' from a "
                               "function with result type 'int *' [-Wint-conversion]",)
    assert report.query_text() == "CE Compile Error 编译错误\n" + report.messages[0]


def test_javas_diagnostic_without_a_character_is_read_too():
    report = parse("Line 5: error: cannot find symbol\n        int n = nums.length();\n                    ^")
    assert (report.verdict, report.lines, report.messages) == ("CE", (5,), ("Line 5: error: cannot find symbol",))


def test_a_sanitizers_runtime_error_in_the_same_shape_stays_a_runtime_error():
    report = parse("Line 14: Char 30: runtime error: signed integer overflow: 2147483647 + 1 cannot be "
                   "represented in type 'int' (solution.cpp)")
    assert (report.verdict, report.kind, report.lines) == ("RE", "integer-overflow", (14,))


def test_a_warning_alone_is_no_compile_error():
    assert parse("Line 3: Char 9: warning: unused variable 'x' [-Wunused-variable]").verdict is None


def test_gos_compiler_diagnostic_is_a_compile_error_but_a_panics_frame_is_not():
    report = parse("# command-line-arguments\n./solution.go:2:17: use of untyped nil in assignment")
    assert (report.verdict, report.lines, report.messages) == (
        "CE", (2,), ("./solution.go:2: use of untyped nil in assignment",))
    panic = parse("panic: runtime error: index out of range [5] with length 5\n\ngoroutine 1 [running]:\n"
                  "main.main()\n\t/tmp/sandbox/prog.go:8 +0x1d\nexit status 2")
    assert (panic.verdict, panic.kind, panic.lines) == ("RE", "index-out-of-range", (8,))


def test_rustcs_error_with_its_location_line_is_a_compile_error():
    report = parse("error[E0308]: mismatched types\n --> src/main.rs:4:18\n  |\n4 |     let x: i32 = \"a\";")
    assert (report.verdict, report.lines, report.messages) == ("CE", (4,), ("error: mismatched types",))
