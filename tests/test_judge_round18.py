"""Round 18: judge and runtime messages that were read wrong, in the shapes the tools print them.

- A compiler that crashes on the code (gcc's "internal compiler error", the driver's "Killed signal terminated program
  cc1plus" when it runs out of memory, clang's "frontend command failed") is a compile error: the program never ran,
  so the signal on those lines is no runtime error and no memory limit of the program's.
- musl (Alpine images) names SIGFPE "Arithmetic exception"; Java's integer division by zero is an ArithmeticException
  with the message "/ by zero".
- Totals that say only that some tests failed: PTA's 部分正确, LibreOJ's "Partially Correct", UOJ's "Extra Test
  Failed" — a wrong answer on some tests unless the failing tests' own results are pasted.
- Codeforces' "Denial of judgement", Luogu's UKE, AtCoder's IE and PAT's 内部错误 are the judge failing; UOJ's
  "Dangerous Syscalls", UVa's "Restricted Function" and Codeforces' "Security violated" are the sandbox stopping the
  running program; PAT's 异常退出 and 返回非零 are runtime errors.

The fixtures are written for these tests (file names, line numbers and paths are made up); the wording of each tool's
own line follows what the tool prints.
"""
from __future__ import annotations

import pytest

from quest.judge import parse

GCC_ICE = """solve.cpp: In instantiation of 'struct Table<40000>':
solve.cpp:9:22:   recursively required from here
solve.cpp:17:5: internal compiler error: Segmentation fault
   17 |     Table<0> t;
      |     ^~~~~~~~
0x1a2b3c crash_signal
Please submit a full bug report, with preprocessed source (by using -freport-bug).
See <https://gcc.gnu.org/bugs/> for instructions."""

GCC_OOM = """g++ -O2 -std=c++17 main.cpp -o main
c++: fatal error: Killed signal terminated program cc1plus
compilation terminated."""

GCC_OOM_ZH = "g++: 致命错误：已杀死 signal terminated program cc1plus\n编译中断。"

GCC_ICE_PROGRAM = """g++: internal compiler error: Killed (program cc1plus)
Please submit a full bug report,
with preprocessed source if appropriate."""

CLANG_CRASH = """PLEASE submit a bug report to the LLVM project and include the crash backtrace.
Stack dump:
0.	Program arguments: /usr/bin/clang++ -cc1 -O2 answer.cpp
clang++: error: unable to execute command: Segmentation fault (core dumped)
clang++: error: clang frontend command failed due to signal (use -v to see invocation)"""

CLANG_EXIT = "clang: error: clang frontend command failed with exit code 139 (use -v to see invocation)"


@pytest.mark.parametrize(("text", "lines", "message"), [
    (GCC_ICE, (17,), "solve.cpp:17:5: internal compiler error: Segmentation fault"),
    (GCC_OOM, (), "c++: fatal error: Killed signal terminated program cc1plus"),
    (GCC_OOM_ZH, (), "g++: 致命错误：已杀死 signal terminated program cc1plus"),
    (GCC_ICE_PROGRAM, (), "g++: internal compiler error: Killed (program cc1plus)"),
    (CLANG_CRASH, (), "clang++: error: unable to execute command: Segmentation fault (core dumped)"),
    (CLANG_EXIT, (), CLANG_EXIT),
])
def test_a_compiler_that_crashed_is_a_compile_error(text: str, lines: tuple[int, ...], message: str) -> None:
    report = parse(text)
    # before: RE with kind segv / SIGSEGV, or MLE with kind killed / SIGKILL, or (clang's) exit code 139
    assert (report.verdict, report.kind, report.signal, report.exit_code, report.runtime) == (
        "CE", None, None, None, "cpp")
    assert report.lines == lines
    assert report.messages == (message,)
    assert report.query_text() == f"CE Compile Error 编译错误\n{message}"


def test_the_compilers_crash_beside_the_judges_own_verdict_keeps_the_judges() -> None:
    report = parse("Compile Error\n" + GCC_ICE)
    assert (report.verdict, report.kind, report.signal) == ("CE", None, None)


@pytest.mark.parametrize(("text", "verdict", "kind", "signal", "exception"), [
    # musl's word for SIGFPE (before: no verdict at all)
    ("Arithmetic exception", "RE", "division-by-zero", "SIGFPE", None),
    ("Arithmetic exception (core dumped)", "RE", "division-by-zero", "SIGFPE", None),
    # Java's integer division (before: RE without a kind)
    ('Exception in thread "main" java.lang.ArithmeticException: / by zero\n\tat Main.avg(Main.java:14)',
     "RE", "division-by-zero", None, "java.lang.ArithmeticException"),
])
def test_division_by_zero_in_musls_and_javas_words(text: str, verdict: str, kind: str, signal: str | None,
                                                   exception: str | None) -> None:
    report = parse(text)
    assert (report.verdict, report.kind, report.signal, report.exception) == (verdict, kind, signal, exception)


@pytest.mark.parametrize(("text", "verdict", "test_number"), [
    # some tests failed, the total does not say how (before: no verdict)
    ("部分正确", "WA", None),
    ("提交结果 部分正确 得分 15", "WA", None),
    ("Partially Correct", "WA", None),
    ("Extra Test Failed", "WA", None),
    # only the passing tests pasted: still no Accepted, and no passing test is the failing one (before: AC, test 0)
    ("部分正确\n测试点 0 答案正确 2 ms", "WA", None),
    # the sandbox stopped the running program (before: no verdict)
    ("Dangerous Syscalls", "RE", None),
    ("Restricted Function", "RE", None),
    ("Security violated on test 4", "RE", 4),
    # the judge could not judge (before: no verdict)
    ("Denial of judgement", "SE", None),
    # PAT's own spellings of a crash, a non-zero return and its internal error (before: no verdict)
    ("测试点 3 异常退出", "RE", 3),
    ("测试点 1 返回非零", "RE", 1),
    ("内部错误", "SE", None),
])
def test_judges_totals_and_sandbox_verdicts(text: str, verdict: str, test_number: int | None) -> None:
    report = parse(text)
    assert (report.verdict, report.test_number) == (verdict, test_number)


def test_denial_of_judgement_adds_nothing_to_the_search() -> None:
    report = parse("Denial of judgement")
    assert (report.verdict, report.query_text()) == ("SE", "")


def test_some_tests_failed_adds_the_wrong_answer_words() -> None:
    assert parse("部分正确").query_text() == "WA Wrong Answer 答案错误"


@pytest.mark.parametrize(("text", "verdict", "kind", "exception"), [
    # glibc's stack protector: a local array written past its end (before: kind abort)
    ("*** stack smashing detected ***: terminated\nAborted (core dumped)", "RE", "buffer-overflow", None),
    # vector::at out of range, uncaught (before: no kind)
    ("terminate called after throwing an instance of 'std::out_of_range'\n"
     "  what():  vector::_M_range_check: __n (which is 7) >= this->size() (which is 7)",
     "RE", "index-out-of-range", "std::out_of_range"),
    # an allocation that failed is the memory limit, as Java's OutOfMemoryError is (before: RE)
    ("terminate called after throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc",
     "MLE", None, "std::bad_alloc"),
])
def test_cpp_runtime_failures_by_what_they_mean(text: str, verdict: str, kind: str | None,
                                                exception: str | None) -> None:
    report = parse(text)
    assert (report.verdict, report.kind, report.exception) == (verdict, kind, exception)


def test_a_program_killed_for_its_time_is_no_memory_failure() -> None:
    # before: kind "killed", whose search words are the memory limit's
    report = parse("Time Limit Exceeded (Killed)")
    assert (report.verdict, report.kind) == ("TLE", None)
    assert report.query_text() == "TLE Time Limit Exceeded 时间超限\nTime Limit Exceeded (Killed)"


@pytest.mark.parametrize(("text", "verdict", "test_number"), [
    # Luogu's Unknown Error and AtCoder's Internal Error, as their tables abbreviate them (before: no verdict)
    ("#1 AC 3ms/1.2MB\n#2 UKE 0ms/0B", "SE", 2),
    ("Status IE  Exec time 0 ms", "SE", None),
])
def test_the_judges_own_failures_by_their_abbreviations(text: str, verdict: str, test_number: int | None) -> None:
    report = parse(text)
    assert (report.verdict, report.test_number, report.query_text()) == (verdict, test_number, "")
