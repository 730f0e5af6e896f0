"""Round 19, second pass: compiler and runtime output students paste that was read wrong, in the tools' own shapes.

- tsc's diagnostics: "src/main.ts(5,3): error TS2769: …" (plain), "src/main.ts:5:3 - error TS2769: …" (its pretty
  output, the default in a terminal), and LeetCode's "Line 1: Char 7: error TS2300: …": a compile error at that line.
- LeetCode's JavaScript and TypeScript runtime errors: "Line 14 in solution.js", the source line and a caret, the
  error, then frames "Line 14: Char 18 in solution.js (mergeTwoLists)". Its driver's frames follow in the same file
  ("(Object.<anonymous>)", "(helper_select_method)") and in runner.js: the student's frames give the lines.
- LeetCode's Go: the compiler's "Line 60: Char 19: undefined: Foo (solution.go)" is a compile error at that line; a
  panic's frames are "main.solve(…)" over "solution.go, line 10", the driver's main.__helper__ and main.main after.
- Overflow that a runtime checks: C#'s System.OverflowException (checked arithmetic, Convert and Parse) and Java's
  Math.addExact and kin ("java.lang.ArithmeticException: integer overflow", "long overflow"); Go's "slice bounds
  out of range" is an index out of range; V8's "Cannot set properties of undefined" and its older "Cannot read
  property 'x' of undefined" are a null dereference.
- Hydro's and Luogu's status "Unknown Error" (Hydro's STATUS_ETC; its own scoreboard export files it as a system
  error) is the judge's side, as Luogu's UKE already was.
- DOMjudge's results (run-error, compiler-error, wrong-answer, presentation-error; TIMELIMIT, MEMORY-LIMIT,
  OUTPUT-LIMIT and NO-OUTPUT only in capitals, their words being settings in prose) and PC^2's default judgements
  ("No - Run-time Error", "No - Time-limit Exceeded", "No - Excessive Output").
- Swift's runtime traps: "Solution.swift:14: Fatal error: Index out of range" at the student's line.

The fixtures are written for these tests (names, paths and numbers are made up); each tool's line keeps its format.
"""
from __future__ import annotations

import pytest

from quest.judge import parse


@pytest.mark.parametrize(("text", "lines", "message"), [
    # tsc without --pretty, and as CI logs print it (before: no verdict)
    ("src/main.ts(5,3): error TS2322: Type 'string' is not assignable to type 'number'.", (5,),
     "src/main.ts:5: error TS2322: Type 'string' is not assignable to type 'number'."),
    # tsc's pretty output: file:line:col, a dash, the code (before: no verdict)
    ("$ npx tsc --noEmit\nsolve.ts:12:9 - error TS2304: Cannot find name 'cnt'.\n\n12     return cnt + 1;\n"
     "           ~~~\n\nFound 1 error in solve.ts:12\n", (12,), "solve.ts:12: error TS2304: Cannot find name 'cnt'."),
    # LeetCode's TypeScript compile error (before: no verdict)
    ("Line 4: Char 11: error TS2339: Property 'size' does not exist on type 'number[]'.", (4,),
     "Line 4: error TS2339: Property 'size' does not exist on type 'number[]'."),
])
def test_typescripts_compiler_errors_are_compile_errors_at_their_line(text: str, lines: tuple[int, ...],
                                                                      message: str) -> None:
    report = parse(text)
    assert (report.verdict, report.lines, report.runtime) == ("CE", lines, "typescript")
    assert report.messages[0] == message


def test_leetcodes_typescript_error_above_its_code_keeps_the_compile_error_without_a_line() -> None:
    # LeetCode numbers the lines it adds before the student's code as negative: no line of the student's.
    report = parse("Line -12: Char 7: error TS2300: Duplicate identifier 'TreeNode'.")
    assert (report.verdict, report.lines, report.runtime) == ("CE", (), "typescript")


def test_prose_naming_a_tsc_code_is_no_diagnostic() -> None:  # a guard: unchanged
    assert parse("I think error TS2322 means my types are wrong").verdict is None


@pytest.mark.parametrize(("text", "lines", "runtime", "exception"), [
    # the student's function threw (before: no line, no runtime)
    ("Line 9 in solution.js\n        const first = lists[0].val;\n                               ^\n"
     "TypeError: Cannot read properties of undefined (reading 'val')\n"
     "    Line 9: Char 32 in solution.js (mergeLists)\n    Line 31: Char 19 in solution.js (Object.<anonymous>)\n"
     "    Line 16: Char 8 in runner.js (Object.runner)\n    Line 20: Char 26 in solution.js (Object.<anonymous>)\n"
     "    at Module._compile (node:internal/modules/cjs/loader:1554:14)\n\nNode.js v22.14.0",
     (9,), "javascript", "TypeError"),
    # a helper called from the student's method, in TypeScript: both of the student's frames, innermost first
    ("Line 7 in solution.ts\n    return this.parent[x];\n                      ^\n"
     "RangeError: Maximum call stack size exceeded\n    Line 7: Char 23 in solution.ts (UnionFind.find)\n"
     "    Line 15: Char 21 in solution.ts (UnionFind.union)\n"
     "    Line 52: Char 26 in solution.ts (helper_select_method)\n"
     "    Line 90: Char 22 in solution.ts (Object.<anonymous>)\n    Line 16: Char 8 in runner.js (Object.runner)",
     (7, 15), "typescript", "RangeError"),
    # a library's frame first (not the student's file), then the student's
    ("Error: comparator is required\n    Line 41: Char 11 in heap.js (Heap.push)\n"
     "    Line 6: Char 10 in solution.js (kClosest)\n    Line 33: Char 19 in solution.js (Object.<anonymous>)",
     (6,), "javascript", None),
    # the driver rejected what the function returned: only the driver's lines, none of the student's
    ("Line 58 in solution.js\n             throw new TypeError(__serialize__(ret) + \" is not valid value for the "
     "expected return type ListNode\");\n             ^\nTypeError: [] is not valid value for the expected return "
     "type ListNode\n    Line 58: Char 20 in solution.js (Object.<anonymous>)\n"
     "    Line 16: Char 8 in runner.js (Object.runner)", (), "javascript", "TypeError"),
])
def test_leetcodes_javascript_runtime_errors_give_the_students_lines(text: str, lines: tuple[int, ...], runtime: str,
                                                                     exception: str | None) -> None:
    report = parse(text)
    assert (report.verdict, report.lines, report.runtime, report.exception) == ("RE", lines, runtime, exception)


@pytest.mark.parametrize(("text", "lines", "kind"), [
    # the student's function, then the driver's (before: no line, no runtime)
    ("panic: runtime error: index out of range [4] with length 4\nmain.maxArea(0xc0000a6000?, 0x4, 0x4)\n"
     "solution.go, line 8\nmain.__helper__(...)\nsolution.go, line 27\nmain.main()\nsolution.go, line 61",
     (8,), "index-out-of-range"),
    # a method on the student's type, called by LeetCode's design-problem driver
    ("panic: runtime error: index out of range [30] with length 26\nmain.(*Dict).Add(...)\nsolution.go, line 14\n"
     "main.(*DriverSolution).Helper_Select_Method(0x4b6460?, {0xc000014cb6?, 0x3?}, 0xc00005cbe0)\n"
     "solution.go, line 70",
     (14,), "index-out-of-range"),
    # a nil pointer in a closure, with Go's signal line; the runtime's own frames (panic.go) are no line of theirs
    ("panic: runtime error: invalid memory address or nil pointer dereference\n"
     "[signal SIGSEGV: segmentation violation code=0x1 addr=0x8 pc=0x4c153a]\nmain.walk.func1(0x0)\n"
     "solution.go, line 21\nmain.walk(0xc000010030)\nsolution.go, line 25\nmain.__helper__(...)\nsolution.go, line 44",
     (21, 25), "null-pointer"),
    # a slice expression past the end (before: no kind); pasted flattened onto one line
    ("panic: runtime error: slice bounds out of range [:3] with capacity 2 main.split({0xc00001c030?, 0x2, 0x2}) "
     "solution.go, line 11 main.__helper__(...) solution.go, line 40 main.main() solution.go, line 70",
     (11,), "index-out-of-range"),
])
def test_leetcodes_go_panics_give_the_students_lines(text: str, lines: tuple[int, ...], kind: str) -> None:
    report = parse(text)
    assert (report.verdict, report.lines, report.runtime, report.kind) == ("RE", lines, "go", kind)


def test_a_go_panic_without_frames_still_names_no_runtime() -> None:  # a guard: round 13's ranking tests rely on it
    report = parse("panic: runtime error: index out of range [5] with length 5")
    assert (report.verdict, report.runtime, report.kind) == ("RE", None, "index-out-of-range")


def test_leetcodes_go_compile_errors_are_compile_errors_at_their_lines() -> None:
    report = parse("Compile Error\nLine 12: Char 5: undefined: cnt (solution.go)\n"
                   "Line 15: Char 9: declared and not used: tmp (solution.go)")
    assert (report.verdict, report.lines, report.runtime) == ("CE", (12, 15), "go")
    assert report.messages[:2] == ("Line 12: undefined: cnt (solution.go)",
                                   "Line 15: declared and not used: tmp (solution.go)")


@pytest.mark.parametrize(("text", "runtime"), [
    # C#'s checked arithmetic, Convert and Parse (before: RE with no kind)
    ("Unhandled exception. System.OverflowException: Arithmetic operation resulted in an overflow.\n"
     "   at Solver.Main() in /app/Program.cs:line 11", "csharp"),
    ("Unhandled exception. System.OverflowException: Value was either too large or too small for an Int32.\n"
     "   at System.Number.ThrowOverflowException(TypeCode type)\n   at Solver.Main() in /app/Program.cs:line 6",
     "csharp"),
    # Java's Math.multiplyExact and kin (before: RE with no kind)
    ('Exception in thread "main" java.lang.ArithmeticException: integer overflow\n'
     "\tat java.base/java.lang.Math.multiplyExact(Math.java:1004)\n\tat Main.main(Main.java:14)", "java"),
    ('Exception in thread "main" java.lang.ArithmeticException: long overflow\n'
     "\tat java.base/java.lang.Math.addExact(Math.java:848)\n\tat Main.sum(Main.java:21)", "java"),
])
def test_a_runtimes_checked_overflow_is_an_integer_overflow(text: str, runtime: str) -> None:
    report = parse(text)
    assert (report.verdict, report.kind, report.runtime) == ("RE", "integer-overflow", runtime)


def test_a_checked_overflow_searches_for_the_words_every_language_shares() -> None:
    # Not C++'s "long long": C#'s and Java's fix is a long.
    report = parse("Unhandled exception. System.OverflowException: Arithmetic operation resulted in an overflow.")
    assert report.query_text() == ("RE Runtime Error 运行错误\ninteger overflow 整数溢出 溢出\n"
                                   "System.OverflowException\n"
                                   "System.OverflowException: Arithmetic operation resulted in an overflow.")


@pytest.mark.parametrize(("text", "kind"), [
    # (unchanged guards) a stack overflow and Java's division by zero keep their kinds
    ("Process is terminated due to StackOverflowException.", "stack-overflow"),
    ('Exception in thread "main" java.lang.ArithmeticException: / by zero', "division-by-zero"),
    # V8's null dereferences: setting a property, and the older wording that names the property (before: no kind)
    ("TypeError: Cannot set properties of undefined (setting '2')\n    at fill (/judge/main.js:9:14)", "null-pointer"),
    ("TypeError: Cannot read property 'length' of undefined\n    at solve (/judge/main.js:4:20)", "null-pointer"),
    ("TypeError: Cannot set property 'next' of null", "null-pointer"),
])
def test_more_runtime_kinds(text: str, kind: str) -> None:
    assert parse(text).kind == kind


@pytest.mark.parametrize(("text", "verdict", "test_number"), [
    # Hydro's and Luogu's status (before: no verdict)
    ("Unknown Error", "SE", None),
    ("#1 Accepted 3ms 1.1 MiB\n#2 Unknown Error 0ms 0 Bytes", "SE", 2),
    # (guards) a student's lower-case words, LeetCode's compile-error text
    ("I get an unknown error when I run it locally", None, None),
    ("Compile Error\nUnknown preprocess compile error", "CE", None),
])
def test_an_unknown_error_status_is_the_judges_side(text: str, verdict: str | None, test_number: int | None) -> None:
    report = parse(text)
    assert (report.verdict, report.test_number) == (verdict, test_number)


@pytest.mark.parametrize(("text", "kind", "lines", "message"), [
    # Swift's runtime traps, by file and line (before: no verdict, or no line and no runtime)
    ("main/main.swift:9: Fatal error: Unexpectedly found nil while unwrapping an Optional value\n"
     "Current stack trace:\n0    libswiftCore.so    0x00007f3a1c2e1d10", "null-pointer", (9,),
     "main/main.swift:9: Fatal error: Unexpectedly found nil while unwrapping an Optional value"),
    ("Solution.swift:14: Fatal error: Index out of range", "index-out-of-range", (14,),
     "Solution.swift:14: Fatal error: Index out of range"),
    # the standard library's own file is no line of the student's
    ("Swift/ContiguousArrayBuffer.swift:600: Fatal error: Index out of range", "index-out-of-range", (),
     "Swift/ContiguousArrayBuffer.swift:600: Fatal error: Index out of range"),
])
def test_swifts_fatal_errors(text: str, kind: str, lines: tuple[int, ...], message: str) -> None:
    report = parse(text)
    assert (report.verdict, report.kind, report.lines, report.runtime) == ("RE", kind, lines, "swift")
    assert report.messages[0] == message


def test_gos_lower_case_fatal_error_is_not_swifts() -> None:  # a guard: unchanged
    report = parse("fatal error: all goroutines are asleep - deadlock!\n\ngoroutine 1 [chan receive]:\nmain.main()\n"
                   "\t/tmp/main.go:6 +0x2d")
    assert report.kind == "deadlock"
    assert report.runtime != "swift"


@pytest.mark.parametrize(("text", "verdict", "test_number"), [
    # DOMjudge's results, as its pages print them (before: no verdict)
    ("Result: run-error", "RE", None),
    ("RUN-ERROR", "RE", None),
    ("submission 412 (problem B): compiler-error", "CE", None),
    ("wrong-answer on testcase 3", "WA", 3),
    ("presentation-error", "PE", None),
    ("TIMELIMIT", "TLE", None),
    ("Result: MEMORY-LIMIT", "MLE", None),
    ("OUTPUT-LIMIT", "OLE", None),
    ("NO-OUTPUT", "WA", None),
    # (guards) the same words as a setting's name in prose are no verdict
    ("the timelimit is 2 seconds and memory-limit is 256MB", None, None),
    ("what does no-output mean for an interactive task", None, None),
])
def test_domjudges_results(text: str, verdict: str | None, test_number: int | None) -> None:
    report = parse(text)
    assert (report.verdict, report.test_number) == (verdict, test_number)


@pytest.mark.parametrize(("text", "verdict"), [
    # PC^2's default judgements (before: no verdict)
    ("No - Run-time Error", "RE"),
    ("No - Time-limit Exceeded", "TLE"),
    ("No - Excessive Output", "OLE"),
    # (unchanged) its others, and the one that names no verdict
    ("No - Compilation Error", "CE"),
    ("No - Output Format Error", "PE"),
    ("No - Other - Contact Staff", None),
])
def test_pc2s_judgements(text: str, verdict: str | None) -> None:
    assert parse(text).verdict == verdict
