"""Exit codes and signals as judges, shells, IDEs and runners print them (issue 9, item 6): parsed into the
report with what they mean, and the raw words kept in the error part of the query."""

import pytest

from quest.judge import JudgeReport, exit_status, parse
from quest.prompts import _verdict_line


@pytest.mark.parametrize("text,verdict,kind,exit_code,signal", [
    # A shell's 128 + n is "killed by signal n".
    ("exit code 139", "RE", "segv", 139, "SIGSEGV"),
    ("Process exited with exit code 134", "RE", "abort", 134, "SIGABRT"),
    ("return code 136", "RE", "division-by-zero", 136, "SIGFPE"),
    ("exit code 137", "MLE", "killed", 137, "SIGKILL"),
    ("Exited with error status 139", "RE", "segv", 139, "SIGSEGV"),
    # A negative return code is the signal itself (Python's subprocess, Node's child_process).
    ("exit code -11", "RE", "segv", -11, "SIGSEGV"),
    # Signals by number or by name.
    ("Runtime Error: signal 11 (SIGSEGV)", "RE", "segv", None, "SIGSEGV"),
    ("RE (signal 8)", "RE", "division-by-zero", None, "SIGFPE"),
    ("signal 9", "MLE", "killed", None, "SIGKILL"),
    ("Runtime error: exited with signal 9", "RE", "killed", None, "SIGKILL"),
    ("SIGFPE", "RE", "division-by-zero", None, "SIGFPE"),
    ("Runtime Error (SIGABRT)", "RE", "abort", None, "SIGABRT"),
    ("Command terminated by signal 24", "TLE", "cpu-time-limit", None, "SIGXCPU"),
    # The shell's own words for a signal, in English and Chinese.
    ("Segmentation fault (core dumped)", "RE", "segv", None, "SIGSEGV"),
    ("Killed", "MLE", "killed", None, "SIGKILL"),
    ("a.out: Killed", "MLE", "killed", None, "SIGKILL"),
    ("已杀死", "MLE", "killed", None, "SIGKILL"),
    ("Bus error (core dumped)", "RE", "segv", None, "SIGBUS"),
    ("Aborted (core dumped)", "RE", "abort", None, "SIGABRT"),
    # Windows' NTSTATUS, signed, unsigned or in hex: always reported as the signed number.
    ("Process finished with exit code -1073741819 (0xC0000005)", "RE", "segv", -1073741819,
     "STATUS_ACCESS_VIOLATION"),
    ("Process finished with exit code 3221225477", "RE", "segv", -1073741819, "STATUS_ACCESS_VIOLATION"),
    ("Process returned -1073741571 (0xC00000FD)   execution time : 1.204 s", "RE", "stack-overflow", -1073741571,
     "STATUS_STACK_OVERFLOW"),
    ("进程已结束，退出代码为 -1073741571 (0xC00000FD)", "RE", "stack-overflow", -1073741571, "STATUS_STACK_OVERFLOW"),
    ("程序“[14872] demo.exe”已退出，返回值为 -1073741676 (0xc0000094)。", "RE", "division-by-zero", -1073741676,
     "STATUS_INTEGER_DIVIDE_BY_ZERO"),
    ("0xC0000374", "RE", "heap-corruption", -1073740940, "STATUS_HEAP_CORRUPTION"),
    # A non-zero status with no signal: the program failed, no more is known.
    ("subprocess.CalledProcessError: Command '['./a.out']' returned non-zero exit status 1.", "RE", None, 1, None),
    ("Process finished with exit code 1", "RE", None, 1, None),
    ("Exit code is 3", "RE", None, 3, None),
    ("程序已退出，返回值为 3 (0x3)", "RE", None, 3, None),
    # A stated verdict wins over what the number would say; exit code 0 is no failure.
    # (killed for its time: not the "killed" kind, whose words blame memory; tests/test_judge_round18.py)
    ("Time Limit Exceeded\nexit code 137", "TLE", None, 137, "SIGKILL"),
    ("Process returned 0 (0x0)   execution time : 0.5 s", None, None, 0, None),
])
def test_exit_codes_and_signals(text, verdict, kind, exit_code, signal):
    report = parse(text)
    assert (report.verdict, report.kind, report.exit_code, report.signal) == (verdict, kind, exit_code, signal)


def test_a_number_that_only_looks_like_a_windows_status_is_not_one():
    report = parse("java.lang.ArrayIndexOutOfBoundsException: Index -1073741825 out of bounds for length 5")
    assert (report.exit_code, report.signal, report.kind) == (None, None, "index-out-of-range")
    assert exit_status("answer was 3221225478") == (None, None)


def test_the_error_part_keeps_the_raw_line_and_says_what_the_number_means():
    assert parse("exit code 139").query_text() == (
        "RE Runtime Error 运行错误\nsegmentation fault SIGSEGV 段错误 越界 空指针\nexit code 139")
    assert parse("Process finished with exit code 3221225477").query_text() == (
        "RE Runtime Error 运行错误\nsegmentation fault SIGSEGV 段错误 越界 空指针\nSTATUS_ACCESS_VIOLATION\n"
        "Process finished with exit code 3221225477")
    assert parse("exit code 137").query_text() == (
        "MLE Memory Limit Exceeded 内存超限\nkilled memory limit 内存超限\nSIGKILL\nexit code 137")
    assert parse("Exit code is 3").query_text() == "RE Runtime Error 运行错误\nExit code is 3"


def test_a_verdict_lines_other_words_stay_out_of_the_query():
    # Tried in round 11 and dropped: words beside a verdict ("Output file not found") matched pages on their
    # generic words ("output", "file") and made an off-topic question look answered (docs/retrieval.md).
    report = parse("Runtime Error 29.492ms 4040KiB\nOutput file not found")
    assert (report.verdict, report.messages, report.query_text()) == ("RE", (), "RE Runtime Error 运行错误")


def test_the_prompt_says_what_the_exit_code_means():
    assert _verdict_line(parse("Runtime error on test 3\nexit code 139"), "en") == (
        "Judge verdict (parsed): RE; test 3; exit code 139 = SIGSEGV")
    assert _verdict_line(parse("Runtime Error (SIGFPE)"), "zh") == "评测结果（解析）: RE; SIGFPE"
    assert _verdict_line(JudgeReport(verdict="WA"), "en") == "Judge verdict (parsed): WA"
