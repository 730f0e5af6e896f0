"""Round 19: judge, shell and IDE output that was read wrong, in the shapes the tools print it.

- PTA's 多种错误 (the total when the failing tests failed in different ways) is a wrong answer on some tests unless
  the tests' own rows are pasted under it, as 部分正确 is.
- An interactor that judged the conversation wrong: old LibreOJ's "Invalid Interaction" (LibreOJ's own migration
  files it as Wrong Answer), AtCoder's QLE / "Query Limit Exceeded". Kattis' crash verdict is "Run Time Error".
- Exit status 124 is GNU timeout's when the text says a time-out; a shell's `echo $?` (cmd's `echo %errorlevel%`,
  PowerShell's `$LASTEXITCODE`) prints the status as the last number before the next prompt.
- Windows' loader failing to start the program (STATUS_DLL_NOT_FOUND 0xC0000135, STATUS_ENTRYPOINT_NOT_FOUND
  0xC0000139, STATUS_INVALID_IMAGE_FORMAT 0xC000007B, and the loader's dialog text) is the local toolchain's setup:
  no verdict, and not a crash of the student's program.

The fixtures are written for these tests (paths, names and numbers are made up); the wording of each tool's own line
follows what the tool prints.
"""
from __future__ import annotations

import pytest

from quest.judge import parse
from quest.prompts import _verdict_line


@pytest.mark.parametrize(("text", "verdict", "test_number"), [
    # PTA's total alone (before: no verdict)
    ("多种错误", "WA", None),
    ("提交结果 多种错误 得分 12", "WA", None),
    # with its rows: the first failing row says what and where (unchanged: the rows were read before)
    ("多种错误\n测试点 0 答案正确\n测试点 1 运行超时\n测试点 2 答案错误", "TLE", 1),
    # an interactor's verdicts (before: no verdict)
    ("Invalid Interaction", "WA", None),
    ("Test #3: Invalid Interaction", "WA", 3),
    ("QLE", "WA", None),
    ("#1 AC 2 ms\n#2 QLE 15 ms", "WA", 2),
    ("Query Limit Exceeded on test 7", "WA", 7),
    # Kattis (before: no verdict)
    ("Run Time Error", "RE", None),
    ("Judgement: Run Time Error on test 3", "RE", 3),
])
def test_judges_totals_and_interactors_verdicts(text: str, verdict: str, test_number: int | None) -> None:
    report = parse(text)
    assert (report.verdict, report.test_number) == (verdict, test_number)


def test_several_errors_add_the_wrong_answer_words() -> None:
    assert parse("多种错误").query_text() == "WA Wrong Answer 答案错误"


@pytest.mark.parametrize(("text", "verdict", "exit_code", "message"), [
    # GNU timeout's status where the text says it timed out (before: RE)
    ("$ timeout 2s ./a.out < big.in\n$ echo $?\n124", "TLE", 124, "exit code 124"),
    ("Command exited with non-zero status 124 (timed out)", "TLE", 124,
     "Command exited with non-zero status 124 (timed out)"),
    # (unchanged guards) the judge's own time-out words; alone, 124 is any program's status
    ("运行超时了？exit code 124", "TLE", 124, "运行超时了？exit code 124"),
    ("exit code 124", "RE", 124, "exit code 124"),
    # a shell's echo of the last status (before: no exit code read)
    ("$ ./a.out < in.txt; echo $?\n3\n5\nSegmentation fault (core dumped)\n139\n$ ls", "RE", 139,
     "Segmentation fault (core dumped)"),
    ("user@box:~/oj$ ./main < 1.in ; echo $?\n12\n0", None, 0, None),
    ("C:\\oj> a.exe < in.txt\nC:\\oj> echo %errorlevel%\n-1073741571\nC:\\oj>", "RE", -1073741571,
     "exit code -1073741571"),
    ("PS C:\\oj> .\\a.exe\nPS C:\\oj> $LASTEXITCODE\n-1073741819", "RE", -1073741819, "exit code -1073741819"),
    # (unchanged guard) prose about echo is no status
    ("echo $? prints the status\nand 7 is my answer", None, None, None),
])
def test_timeouts_status_and_a_shells_echoed_status(text: str, verdict: str | None, exit_code: int | None,
                                                     message: str | None) -> None:
    report = parse(text)
    assert (report.verdict, report.exit_code) == (verdict, exit_code)
    assert report.messages[:1] == ((message,) if message else ())


def test_a_stated_time_limit_keeps_its_verdict_beside_124() -> None:  # a guard: unchanged
    assert parse("Time Limit Exceeded\nexit code 124").verdict == "TLE"


@pytest.mark.parametrize(("text", "exit_code", "signal"), [
    # Dev-C++, VS Code's Code Runner, CLion and Code::Blocks (before: RE, or an exit code with no meaning)
    ("Process exited after 0.1 seconds with return value 3221225781", -1073741515, "STATUS_DLL_NOT_FOUND"),
    ("[Done] exited with code=3221225781 in 0.123 seconds", -1073741515, "STATUS_DLL_NOT_FOUND"),
    ("Process finished with exit code -1073741515 (0xC0000135)", -1073741515, "STATUS_DLL_NOT_FOUND"),
    ("Process returned -1073741511 (0xC0000139)   execution time : 0.016 s", -1073741511,
     "STATUS_ENTRYPOINT_NOT_FOUND"),
    ("0xc000007b", -1073741701, "STATUS_INVALID_IMAGE_FORMAT"),
    # the loader's dialog, in English and Chinese (before: no kind)
    ("The code execution cannot proceed because libstdc++-6.dll was not found. Reinstalling the program may fix "
     "this problem.", None, None),
    ("由于找不到 libgcc_s_seh-1.dll，无法继续执行代码。重新安装程序可能会解决此问题。", None, None),
    ("The procedure entry point _ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEC1Ev could not be located in "
     "the dynamic link library C:\\oj\\a.exe.", None, None),
    ("无法定位程序输入点 _ZSt4cout 于动态链接库 C:\\oj\\a.exe 上。", None, None),
])
def test_a_program_windows_could_not_start_is_the_setup_not_a_crash(text: str, exit_code: int | None,
                                                                    signal: str | None) -> None:
    report = parse(text)
    assert (report.verdict, report.kind, report.exit_code, report.signal) == (None, "windows-dll", exit_code, signal)


def test_the_setup_kind_searches_for_the_toolchains_words() -> None:
    report = parse("Process exited after 0.1 seconds with return value 3221225781")
    assert report.query_text() == (
        "DLL not found libstdc++-6.dll MinGW PATH static 找不到 DLL 环境变量 静态链接\nSTATUS_DLL_NOT_FOUND\n"
        "Process exited after 0.1 seconds with return value 3221225781")


def test_a_judges_verdict_beside_the_setup_code_is_kept() -> None:
    report = parse("Runtime Error\nexit code -1073741515")
    assert (report.verdict, report.kind) == ("RE", "windows-dll")


@pytest.mark.parametrize(("text", "verdict", "kind", "runtime", "message"), [
    # a runtime that ran out of memory (before: no verdict, or RE with kind abort for Rust)
    ("fatal error: runtime: out of memory\n\nruntime stack:\nruntime.throw({0x4b8f1e, 0x16})", "MLE", None, "go",
     "fatal error: runtime: out of memory"),
    ("<--- Last few GCs --->\nFATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
     "MLE", None, "javascript", "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory"),
    ("memory allocation of 400000000 bytes failed\nAborted (core dumped)", "MLE", None, "rust",
     "memory allocation of 400000000 bytes failed"),
])
def test_runtimes_out_of_memory_is_the_memory_limit(text: str, verdict: str, kind: str | None, runtime: str,
                                                    message: str) -> None:
    report = parse(text)
    assert (report.verdict, report.kind, report.runtime) == (verdict, kind, runtime)
    assert report.messages[0] == message


@pytest.mark.parametrize(("text", "kind"), [
    # glibc's allocator checks (before: no verdict)
    ("malloc(): memory corruption", "heap-corruption"),
    ("corrupted double-linked list", "heap-corruption"),
    ("malloc(): unaligned tcache chunk detected\nAborted (core dumped)", "heap-corruption"),
    ("realloc(): invalid next size", "heap-corruption"),
    ("free(): invalid size", "heap-corruption"),
    # (unchanged) a double free keeps its own kind
    ("free(): double free detected in tcache 2", "double-free"),
    # ASan's other out-of-bounds and dangling reports (before: RE without a kind)
    ("==1==ERROR: AddressSanitizer: stack-buffer-underflow on address 0x7ffd4a2c", "buffer-overflow"),
    ("==1==ERROR: AddressSanitizer: container-overflow on address 0x602000000018", "buffer-overflow"),
    ("==1==ERROR: AddressSanitizer: dynamic-stack-buffer-overflow on address 0x7ffc1", "buffer-overflow"),
    ("==12==ERROR: AddressSanitizer: stack-use-after-scope on address 0x7ffc0a10", "use-after-scope"),
    ("==12==ERROR: AddressSanitizer: stack-use-after-return on address 0x7f31c0", "use-after-scope"),
])
def test_heap_and_sanitizer_reports_name_their_kind(text: str, kind: str) -> None:
    report = parse(text)
    assert (report.verdict, report.kind) == ("RE", kind)


def test_a_dangling_local_searches_for_dangling_words() -> None:
    assert parse("==12==ERROR: AddressSanitizer: stack-use-after-scope on address 0x7ffc0a10").query_text() == (
        "RE Runtime Error 运行错误\nstack use after scope dangling pointer dangling reference 悬空指针 悬空引用\n"
        "==12==ERROR: AddressSanitizer: stack-use-after-scope on address 0x7ffc0a10")


VECTOR_ASSERT = ("/usr/include/c++/11/bits/stl_vector.h:1045: std::vector<_Tp, _Alloc>::reference std::vector<_Tp, "
                 "_Alloc>::operator[](size_type) [with _Tp = int; size_type = long unsigned int]: Assertion '__n < "
                 "this->size()' failed.\nAborted (core dumped)")
DEBUG_SUBSCRIPT = ("/usr/include/c++/13/debug/vector:442:\nIn function:\n    std::debug::vector<_Tp, _Allocator>::"
                   "reference std::debug::vector<_Tp, _Allocator>::operator[](size_type)\n\nError: attempt to "
                   "subscript container with out-of-bounds index 5, but\ncontainer only holds 5 elements.")


@pytest.mark.parametrize(("text", "kind", "lines", "runtime"), [
    # libstdc++'s checked operator[]: an index out of range, at no line of the student's (before: no verdict)
    (VECTOR_ASSERT, "index-out-of-range", (), "cpp"),
    (DEBUG_SUBSCRIPT, "index-out-of-range", (), None),
    # assert() in the student's file: the line it names (before: kind abort, no line; or no verdict)
    ("a.out: sol.cpp:12: int main(): Assertion `n > 0' failed.\nAborted (core dumped)", "abort", (12,), "cpp"),
    ("main: /home/u/oj/main.c:7: main: Assertion `x != 0' failed.", "abort", (7,), "cpp"),
    # std::terminate with no exception (before: no verdict)
    ("terminate called without an active exception", "abort", (), "cpp"),
])
def test_assertions_and_terminate(text: str, kind: str, lines: tuple[int, ...], runtime: str | None) -> None:
    report = parse(text)
    assert (report.verdict, report.kind, report.lines, report.runtime) == ("RE", kind, lines, runtime)


@pytest.mark.parametrize(("text", "verdict"), [
    # PTA's explanation of a result, pasted without the result's name (before: no verdict)
    ("您的程序未能在规定时间内运行结束，请检查是否循环有错或算法复杂度过大。", "TLE"),
    ("您的程序使用了超过限制的内存", "MLE"),
    ("您的程序未能对评测系统的数据返回正确的结果", "WA"),
    ("您的程序输出的格式不符合要求（比如空格和换行与要求不一致）", "PE"),
    ("您的程序输出了过多内容，一般可能是无限循环输出导致的结果", "OLE"),
    ("您的程序在运行过程中崩溃了", "RE"),
    ("您提交的代码无法完成编译", "CE"),
])
def test_ptas_explanations_of_its_results(text: str, verdict: str) -> None:
    assert parse(text).verdict == verdict



@pytest.mark.parametrize(("text", "kind", "message"), [
    # Visual Studio's debug build's own checks (before: no verdict)
    ("Run-Time Check Failure #2 - Stack around the variable 'arr' was corrupted.", "buffer-overflow",
     "Run-Time Check Failure #2 - Stack around the variable 'arr' was corrupted."),
    ("Run-Time Check Failure #3 - The variable 'sum' is being used without being initialized.", "uninitialized",
     "Run-Time Check Failure #3 - The variable 'sum' is being used without being initialized."),
    ("Debug Assertion Failed!\n\nProgram: C:\\demo\\x64\\Debug\\demo.exe\nLine: 1566\n\n"
     "Expression: vector subscript out of range", "index-out-of-range", "Expression: vector subscript out of range"),
    ("HEAP CORRUPTION DETECTED: after Normal block (#157) at 0x000001D5C7D2E0A0.", "heap-corruption",
     "HEAP CORRUPTION DETECTED: after Normal block (#157) at 0x000001D5C7D2E0A0."),
])
def test_visual_studios_debug_checks(text: str, kind: str, message: str) -> None:
    report = parse(text)
    assert (report.verdict, report.kind, report.runtime, report.messages[:1]) == ("RE", kind, "cpp", (message,))


def test_an_uninitialized_variable_searches_for_the_initialization_words() -> None:
    report = parse("Run-Time Check Failure #3 - The variable 'sum' is being used without being initialized.")
    assert report.query_text().splitlines()[1] == "uninitialized uninitialised variable initialization 未初始化 初始化"


@pytest.mark.parametrize(("text", "lines", "runtime", "messages"), [
    # C#'s, Kotlin's and Free Pascal's compilers (before: no verdict)
    ("Main.cs(5,23): error CS1002: ; expected", (5,), "csharp", ("Main.cs:5: error CS1002: ; expected",)),
    ("/tmp/b/Main.cs(12,13): error CS0103: The name 'cnt' does not exist in the current context [/tmp/b/b.csproj]",
     (12,), "csharp", ("/tmp/b/Main.cs:12: error CS0103: The name 'cnt' does not exist in the current context",)),
    ("Main.kt:3:5: error: unresolved reference: pritnln", (3,), "kotlin",
     ("Main.kt:3: error: unresolved reference: pritnln",)),
    ('main.pas(3,5) Error: Identifier not found "wirteln"\n'
     "main.pas(5,4) Fatal: There were 1 errors compiling module, stopping", (3,), None,
     ('main.pas:3: Identifier not found "wirteln"',)),
    # Eclipse ran a class that did not compile (before: RE)
    ('Exception in thread "main" java.lang.Error: Unresolved compilation problem: \n'
     "\tThe method solve(int) is undefined for the type Main\n\n\tat Main.main(Main.java:7)", (7,), "java",
     ("java.lang.Error: Unresolved compilation problem", "The method solve(int) is undefined for the type Main")),
])
def test_more_compilers_diagnostics_are_compile_errors(text: str, lines: tuple[int, ...], runtime: str | None,
                                                        messages: tuple[str, ...]) -> None:
    report = parse(text)
    assert (report.verdict, report.lines, report.runtime, report.messages) == ("CE", lines, runtime, messages)


def test_a_csharp_warning_alone_is_no_error() -> None:  # a guard: unchanged
    assert parse("Main.cs(5,23): warning CS0168: The variable 'e' is declared but never used").verdict is None


@pytest.mark.parametrize(("text", "verdict", "exit_code"), [
    # HUSTOJ's judge_client (before: no verdict)
    ("data3.in:\t    non-zero return = 3", "RE", 3),
    ("data2.in:[ERROR] solution_id:1024 called a Forbidden system call:59 [59]\n"
     " TO FIX THIS , ask admin to add the CALLID into corresponding LANG_XXV[] located at okcalls32/64.h ,",
     "RE", None),
    # the problem's test data is broken: the judge's fault
    ("test1.in:missing out file test1.out, report to system administrator!", "SE", None),
    ("no test data : no *.in file found", "SE", None),
])
def test_hustojs_run_messages(text: str, verdict: str, exit_code: int | None) -> None:
    report = parse(text)
    assert (report.verdict, report.exit_code) == (verdict, exit_code)


LEETCODE_PY = ("IndexError: list index out of range\n    ~~~~^^^^^^^\n    if nums[i] + nums[i+1] == target:\n"
               "Line 5 in twoSum (Solution.py)\n    ret = Solution().twoSum(param_1, param_2)\n"
               "Line 37 in _driver (Solution.py)\n    _driver()\nLine 48 in <module> (Solution.py)")
LEETCODE_JAVA = ("java.lang.StringIndexOutOfBoundsException: String index out of range: 1\n"
                 "  at line 48, java.base/java.lang.StringLatin1.charAt\n"
                 "  at line 709, java.base/java.lang.String.charAt\n  at line 28, Solution.addDigits\n"
                 "  at line 54, __DriverSolution__.__helper__\n  at line 87, __Driver__.main")


@pytest.mark.parametrize(("text", "verdict", "lines", "runtime", "exception"), [
    # LeetCode's own traceback formats: the student's frames, not the driver's or the JDK's (before: no line, no
    # runtime)
    (LEETCODE_PY, "RE", (5,), "python", "IndexError"),
    ("MemoryError\n    for i in range(1, n+1):\nLine 14 in arrange (Solution.py)\n"
     "    ret = Solution().arrange(param_1)\nLine 49 in _driver (Solution.py)", "MLE", (14,), "python", "MemoryError"),
    (LEETCODE_JAVA, "RE", (28,), "java", "java.lang.StringIndexOutOfBoundsException"),
    ("java.lang.OutOfMemoryError: Java heap space\n  at line 5, Solution.build\n"
     "  at line 54, __DriverSolution__.__helper__", "MLE", (5,), "java", "java.lang.OutOfMemoryError"),
])
def test_leetcodes_tracebacks_give_the_students_lines(text: str, verdict: str, lines: tuple[int, ...], runtime: str,
                                                      exception: str) -> None:
    report = parse(text)
    assert (report.verdict, report.lines, report.runtime, report.exception) == (verdict, lines, runtime, exception)


def test_the_prompt_says_the_setup_is_to_blame() -> None:
    # before: only "exit code -1073741515 = STATUS_DLL_NOT_FOUND", which a model may read as the program's crash
    assert _verdict_line(parse("Process exited after 0.1 seconds with return value 3221225781"), "en") == (
        "Judge verdict (parsed): exit code -1073741515 = STATUS_DLL_NOT_FOUND\n"
        "This means Windows could not start the program at all (a DLL it needs was not found, or the wrong one): "
        "the local compiler's setup (PATH, or link with -static), not a bug in the code. Say that first; do not "
        "invent a bug to explain it.")
    zh = _verdict_line(parse("由于找不到 libstdc++-6.dll，无法继续执行代码。"), "zh")
    assert zh.startswith("这表示 Windows 根本没能启动程序")


def test_hydros_interactor_status_is_not_the_programs() -> None:  # a guard: unchanged
    report = parse("Wrong Answer (Interactor exited with code 3)")
    assert (report.verdict, report.exit_code) == ("WA", None)


@pytest.mark.parametrize(("text", "test_number"), [
    # HUSTOJ names the failing test by its data file (before: no test number)
    ("data3.in:\t    non-zero return = 3", 3),
    ("Runtime Error:data12.in:Segmentation fault", 12),
    # (unchanged guard) a file the student names is no judge's test
    ("my input1.in works locally", None),
])
def test_hustojs_data_file_names_the_test(text: str, test_number: int | None) -> None:
    assert parse(text).test_number == test_number
