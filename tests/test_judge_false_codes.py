"""Numbers that only look like exit codes or signals (review of issue 9, item 6): a function's return value, a
compiler's error count, a date, an array index, a memory offset, a duration. None of them may read as an exit code,
a signal or a runtime error. And when a message gives several exit codes, the one that tells what happened wins."""

import pytest

from quest.judge import JudgeReport, exit_status, parse, signal_of_code
from quest.prompts import _verdict_line
from tests.test_review_round10 import finishes


@pytest.mark.parametrize("text", [
    "my function's return value is 5",  # a function's result, not the process's
    "函数返回值是 5",
    "返回值为 -1",
    "Compilation exited with 2 errors",  # two compile errors, not exit code 2
    "return code 2024-01-01",  # a date
    "array[3221225477]",  # an index that happens to equal 0xC0000005
    "a[-1073741819] = 0;",
    "offset 0xC0000005",  # a place in memory
    "segfault at address: 0xc0000005",
    "mov eax, [ebp+0xC0000005]",
    "rip 0xC0000005",  # a register's value
    "the signal 9 ms later",  # a duration
    "I sent the signal 11 times",
])
def test_numbers_that_are_not_exit_codes_or_signals(text):
    report = parse(text)
    assert (report.verdict, report.kind, report.exit_code, report.signal, report.messages) == (
        None, None, None, None, ())
    assert exit_status(text) == (None, None)


@pytest.mark.parametrize("text,verdict,kind,exit_code,signal", [
    # The same kind of number where it is a status: the address rule must not hide these.
    ("exited with code 0xC0000005", "RE", "segv", -1073741819, "STATUS_ACCESS_VIOLATION"),
    ("Process finished with exit code -1073741819 (0xC0000005)", "RE", "segv", -1073741819,
     "STATUS_ACCESS_VIOLATION"),
    # Visual Studio: the address follows "at" and "location"; the status follows the program's name.
    ("Exception thrown at 0x00007FF6B2C41A2D in demo.exe: 0xC0000005: Access violation writing location "
     "0x0000000000000000.", "RE", "segv", -1073741819, "STATUS_ACCESS_VIOLATION"),
    ("0x00007FF6B2C41A2D 处(位于 demo.exe 中)引发的异常: 0xC0000005: 读取位置 0x0000000000000000 时发生访问冲突。",
     "RE", "segv", -1073741819, "STATUS_ACCESS_VIOLATION"),
    ("Access violation reading location 0xC0000005.", "RE", "segv", None, None),
    # AddressSanitizer's faulting address is an address even when it equals a status.
    ("==31==ERROR: AddressSanitizer: SEGV on unknown address 0xc0000005 (pc 0x55d0c8a1b2c3 bp 0x7ffc sp 0x7ffb T0)",
     "RE", "segv", None, None),
    # cargo on Windows and on Linux; GNU time.
    ("error: process didn't exit successfully: `target\\debug\\sol.exe` (exit code: 0xc0000005, "
     "STATUS_ACCESS_VIOLATION)", "RE", "segv", -1073741819, "STATUS_ACCESS_VIOLATION"),
    ("error: process didn't exit successfully: `target/debug/sol` (signal: 11, SIGSEGV: invalid memory reference)",
     "RE", "segv", None, "SIGSEGV"),
    ("Command exited with non-zero status 1\n0.01user 0.00system 0:00.01elapsed", "RE", None, 1, None),
    # A process's return value: Dev-C++ says "with return value", Visual Studio (zh) "已退出，返回值为".
    ("Process exited after 1.873 seconds with return value 3221225725", "RE", "stack-overflow", -1073741571,
     "STATUS_STACK_OVERFLOW"),
    ("程序“[9120] two_sum.exe”已退出，返回值为 3 (0x3)。", "RE", None, 3, None),
    ("程序返回值 3221225477", "RE", "segv", -1073741819, "STATUS_ACCESS_VIOLATION"),
    # VS Code's Code Runner puts the duration after the code.
    ("[Done] exited with code=3221225477 in 0.412 seconds", "RE", "segv", -1073741819, "STATUS_ACCESS_VIOLATION"),
    ("[Done] exited with code=1 in 0.8 seconds", "RE", None, 1, None),
    # CLion and PyCharm say the signal beside the code.
    ("Process finished with exit code 134 (interrupted by signal 6: SIGABRT)", "RE", "abort", 134, "SIGABRT"),
    # Luogu and UVa name the signal by number.
    ("Received signal 8: Floating-point exception.", "RE", "division-by-zero", None, "SIGFPE"),
    ("Your program has died with signal 11 (SIGSEGV). Meaning:\nInvalid memory reference\n"
     "Before crash, it ran during 0.004 seconds.", "RE", "segv", None, "SIGSEGV"),
    # A Windows judge names the status in words.
    ("Runtime Error(ACCESS_VIOLATION)", "RE", "segv", None, None),
    ("Runtime Error(STACK_OVERFLOW)", "RE", "stack-overflow", None, None),
    ("Runtime Error(INTEGER_DIVIDE_BY_ZERO)", "RE", "division-by-zero", None, None),
    ("Runtime Error(ARRAY_BOUNDS_EXCEEDED)", "RE", "index-out-of-range", None, None),
    # bash pads a job's status; zsh names the command after it.
    ("sh: line 1: 15283 Aborted                 (core dumped) ./sol < in.txt", "RE", "abort", None, "SIGABRT"),
    ("bash: line 1:  4242 Killed                  ./sol < big.in", "MLE", "killed", None, "SIGKILL"),
    ("zsh: killed     ./sol", "MLE", "killed", None, "SIGKILL"),
    ("Killed\r\n", "MLE", "killed", None, "SIGKILL"),
])
def test_real_exit_lines_are_still_read(text, verdict, kind, exit_code, signal):
    report = parse(text)
    assert (report.verdict, report.kind, report.exit_code, report.signal) == (verdict, kind, exit_code, signal)


@pytest.mark.parametrize("text,exit_code,signal,message", [
    # The compiler's "exit code 0", then the run's: the run's is read, and its line is the one kept.
    ("g++ sol.cpp -o sol: exit code 0\n./sol < 1.in: exit code 139", 139, "SIGSEGV", "./sol < 1.in: exit code 139"),
    ("test 1: exit code 0\ntest 2: exit code 0\ntest 3: exit code 136", 136, "SIGFPE", "test 3: exit code 136"),
    # A code that means a signal wins over an earlier plain failure; else the first non-zero; else zero.
    ("make: exit code 2\nrun: exit code 134", 134, "SIGABRT", "run: exit code 134"),
    ("test 1: exit code 0\ntest 2: exit code 3\ntest 3: exit code 1", 3, None, "test 2: exit code 3"),
    ("exit code 0\nexit code 0", 0, None, None),
    # A signal named on its own line, beside a code that does not mean it: that line says what happened.
    ("Program output: 42\nexit code 1\nRuntime Error (SIGSEGV)", 1, "SIGSEGV", "Runtime Error (SIGSEGV)"),
])
def test_of_several_exit_codes_the_one_that_tells_what_happened_is_read(text, exit_code, signal, message):
    report = parse(text)
    assert (report.exit_code, report.signal) == (exit_code, signal)
    assert report.messages == ((message,) if message else ())


def test_what_an_exit_code_means_by_itself():
    assert [signal_of_code(c) for c in (139, 134, 137, -11, 1, 3, 0, None, 3221225477, -1073741571)] == [
        "SIGSEGV", "SIGABRT", "SIGKILL", "SIGSEGV", None, None, None, None, "STATUS_ACCESS_VIOLATION",
        "STATUS_STACK_OVERFLOW"]


@pytest.mark.parametrize("text,lang,line", [
    # The shell's words name the signal, not the exit code: shown on their own, never as "exit code 0 = SIGSEGV".
    ("Segmentation fault (core dumped)", "en",
     "Judge verdict (parsed): RE; signal SIGSEGV (from 'Segmentation fault')"),
    ("Segmentation fault\nProcess returned 0 (0x0)   execution time : 0.031 s", "en",
     "Judge verdict (parsed): RE; exit code 0; signal SIGSEGV (from 'Segmentation fault')"),
    ("Killed\nexit code 1", "en", "Judge verdict (parsed): MLE; exit code 1; signal SIGKILL (from 'Killed')"),
    ("段错误 (核心已转储)\n退出码 1", "zh", "评测结果（解析）: RE; 退出码 1; 信号 SIGSEGV（来自“段错误”）"),
    ("Received signal 8: Floating-point exception.", "en",
     "Judge verdict (parsed): RE; signal SIGFPE (from 'signal 8')"),
    # A signal named beside a code that does not mean it: both, no "=".
    ("exit code 1 (SIGSEGV)", "en", "Judge verdict (parsed): RE; exit code 1; SIGSEGV"),
    # "=" where the code itself means the signal, whoever named it.
    ("Process finished with exit code 139 (interrupted by signal 11: SIGSEGV)", "en",
     "Judge verdict (parsed): RE; exit code 139 = SIGSEGV"),
    ("exit code 137", "zh", "评测结果（解析）: MLE; 退出码 137 = SIGKILL"),
])
def test_the_prompt_equates_a_code_with_a_signal_only_when_the_code_means_it(text, lang, line):
    assert _verdict_line(parse(text), lang) == line


def test_a_report_made_by_hand_without_words_shows_the_signal_alone():
    assert _verdict_line(JudgeReport(verdict="RE", exit_code=0, signal="SIGSEGV"), "en") == (
        "Judge verdict (parsed): RE; exit code 0; SIGSEGV")


@pytest.mark.parametrize("pasted", [
    "exited with" + " 1" * 100_000, "signal 9" + " ms" * 100_000, "offset " * 50_000 + "0xC0000005",
    "[" * 200_000 + "3221225477", ("exit code 0\n" * 20_000)], ids=["codes", "units", "offsets", "brackets", "zeros"])
def test_the_new_rules_read_long_pastes_in_linear_time(pasted):
    # Look-aheads read at most one space and a unit; the address check reads a fixed window before each number.
    assert finishes(lambda: parse(pasted))
    report = parse(pasted)
    assert report.signal is None
