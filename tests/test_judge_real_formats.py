"""What judges and checkers really print, read into the report a student's helper would write.

The shapes follow the judges' own sources (the values are ours): testlib's standard checkers ("wrong answer" /
"wrong output format" / "unexpected eof" / "ok" before the checker's message; ncmp's "Nth numbers differ -
expected: '…', found: '…'"), Codeforces' verdict lines and its per-test report ("Test: #N, …, exit code: …,
checker exit code: …, verdict: WRONG_ANSWER"), DMOJ's result codes (AC WA RTE TLE MLE IR SC OLE IE) with the
signal's strsignal text as feedback, Luogu's checker ("read 5, expected 3", "Too many or too few lines"), Hydro's
status names ("Time Exceeded", "Memory Exceeded", "Output Exceeded", "Format Error") and messages ("On line N: Read
X, expect Y.", "Your program returned N."), QingdaoU's JudgeServer result names (CPU_TIME_LIMIT_EXCEEDED, …) and
JSON fields ("signal", "exit_code"), HUSTOJ's "… Limit Exceed" and its "data.in:<strsignal>" run log, go-judge's
statuses ("Signalled" with the signal in exitStatus, "Nonzero Exit Status"), PTA's 浮点错误 / 非零返回 / per-test
"测试点" table.
"""
from __future__ import annotations

import pytest

from quest.judge import find_verdict, parse
from quest.kb.documents import Problem
from quest.plan import plan
from quest.request import Request
from quest.resolution import Catalogue, resolve
from tests.fakes.retriever import FakeRetriever


@pytest.mark.parametrize(("text", "verdict", "message"), [
    # testlib: the verdict word, then the checker's message; the message is what the student must read.
    ("wrong answer 4th numbers differ - expected: '17', found: '-3'", "WA",
     "wrong answer 4th numbers differ - expected: '17', found: '-3'"),
    ("wrong answer 2nd lines differ - expected: 'Possible', found: 'Impossible'", "WA",
     "wrong answer 2nd lines differ - expected: 'Possible', found: 'Impossible'"),
    ("wrong answer expected NO, found YES", "WA", "wrong answer expected NO, found YES"),
    ("wrong answer Participant output contains extra tokens", "WA",
     "wrong answer Participant output contains extra tokens"),
    ("wrong output format Unexpected end of file - int64 expected", "PE",
     "wrong output format Unexpected end of file - int64 expected"),
    ('wrong output format Expected integer, but "x7" found', "PE",
     'wrong output format Expected integer, but "x7" found'),
    ("unexpected eof Unexpected end of file - int32 expected", "PE",
     "unexpected eof Unexpected end of file - int32 expected"),
    # Codeforces puts the checker's comment under the verdict line.
    ("Wrong answer on test 9\nChecker comment\nwrong answer 1st numbers differ - expected: '6', found: '4'", "WA",
     "wrong answer 1st numbers differ - expected: '6', found: '4'"),
    # Luogu prints its own verdict, then the checker's lower-case one and where the outputs part.
    ("Wrong Answer.wrong answer On line 3 column 1, read 12, expected 21.", "WA",
     "Wrong Answer.wrong answer On line 3 column 1, read 12, expected 21."),
    ("Wrong Answer.wrong answer Too many or too few lines.", "WA",
     "Wrong Answer.wrong answer Too many or too few lines."),
    # Hydro's default comparison, in English and in its Chinese locale.
    ("Wrong Answer\nOn line 4: Read 10, expect 11.", "WA", "On line 4: Read 10, expect 11."),
    ("答案错误\n第 4 行的答案错误，读取到 10，但期望 11。", "WA", "第 4 行的答案错误，读取到 10，但期望 11。"),
])
def test_a_checkers_comment_keeps_its_verdict_and_its_expected_and_found(text: str, verdict: str,
                                                                         message: str) -> None:
    report = parse(text)
    assert (report.verdict, report.messages) == (verdict, (message,))
    assert message in report.query_text()


@pytest.mark.parametrize("text", ["ok 12 numbers", "ok answer is 1024", "ok single line: 'abc'", "ok 3 tokens"])
def test_testlibs_ok_is_accepted(text: str) -> None:
    assert parse(text).verdict == "AC"


@pytest.mark.parametrize("text", ["ok so it fails on test 2", "ok"])
def test_a_bare_ok_is_no_verdict(text: str) -> None:
    assert parse(text).verdict is None


def test_a_checker_failure_is_the_judges_not_the_students() -> None:
    # testlib's FAIL: the checker or the jury's files failed; a system error, searched as nothing.
    report = parse("FAIL Answer file not found")
    assert (report.verdict, report.query_text()) == ("SE", "")


@pytest.mark.parametrize(("text", "verdict", "test_number"), [
    # Codeforces' verdict lines, pretests too.
    ("Memory limit exceeded on pretest 4", "MLE", 4),
    ("Idleness limit exceeded on test 3", "TLE", 3),
    # Codeforces' per-test report: the verdict is an API constant, the test is "#N".
    ("Test: #11, time: 31 ms., memory: 8 KB, exit code: 0, checker exit code: 1, verdict: WRONG_ANSWER", "WA", 11),
    ("Test: #6, time: 1000 ms., memory: 260 KB, exit code: -1, checker exit code: 0, verdict: TIME_LIMIT_EXCEEDED",
     "TLE", 6),
    ("verdict: MEMORY_LIMIT_EXCEEDED", "MLE", None),
    # QingdaoU's result names.
    ("CPU_TIME_LIMIT_EXCEEDED", "TLE", None),
    ("REAL_TIME_LIMIT_EXCEEDED", "TLE", None),
    ("MEMORY_LIMIT_EXCEEDED", "MLE", None),
    # HUSTOJ drops the "-ed".
    ("Memory Limit Exceed", "MLE", None),
    ("Output Limit Exceed", "OLE", None),
    # Hydro drops "Limit"; its "Format Error" is a presentation error.
    ("Time Exceeded", "TLE", None),
    ("Memory Exceeded", "MLE", None),
    ("Output Exceeded", "OLE", None),
    ("Format Error", "PE", None),
    # DMOJ's codes: RTE and IR are runtime failures; a batch lists every case.
    ("Test case #5: RTE [0.04s, 11 MB]", "RE", 5),
    ("Test case #2: IR [0.01s, 3 MB] (0/10)", "RE", 2),
    ("Invalid Return", "RE", None),
    ("Batch #2 (0/30 points)\nCase #1: AC [0.004s, 9.1 MB]\nCase #2: TLE [>1.000s, 9.1 MB]\nCase #3: --", "TLE", 2),
    # Luogu's record page: one line per test.
    ("#1 AC 2ms/512.00KB\n#2 AC 3ms/520.00KB\n#3 MLE 10ms/128.00MB", "MLE", 3),
    # PTA: the verdicts, and a table whose first listed test passed.
    ("测试点 5 浮点错误", "RE", 5),
    ("非零返回", "RE", None),
    ("部分正确\n测试点 0 答案正确\n测试点 1 答案正确\n测试点 2 运行超时", "TLE", 2),
    # go-judge's status for a non-zero exit.
    ('{"status": "Nonzero Exit Status", "exitStatus": 2}', "RE", None),
    # A failing total is no Accepted: Luogu's "Unaccepted"; QingdaoU's "Partial Accepted" says some tests failed (a
    # wrong answer on them, as PTA's 部分正确), unless the failing case's own result is pasted.
    ("60 Unaccepted", None, None),
    ("Partial Accepted", "WA", None),
    ("Partial Accepted\nCase #1: AC\nCase #2: TLE", "TLE", 2),
    ('{"result": 8, "statistic_info": {"score": 40}}', "WA", None),
    ('{"result": 8, "info": [{"test_case": "1", "result": 0}, {"test_case": "2", "result": 3}]}', "MLE", 2),
    ('{"result": 0, "statistic_info": {"time_cost": 3}}', "AC", None),
])
def test_verdict_words_in_their_judges_spellings(text: str, verdict: str | None, test_number: int | None) -> None:
    report = parse(text)
    assert (report.verdict, report.test_number) == (verdict, test_number)


@pytest.mark.parametrize(("text", "verdict", "kind", "signal", "exit_code"), [
    # The checker's exit code is not the program's: the program exited 0 and printed a wrong answer.
    ("Test: #2, time: 15 ms., memory: 4 KB, exit code: 0, checker exit code: 1, verdict: WRONG_ANSWER",
     "WA", None, None, 0),
    ("Test: #8, time: 46 ms., memory: 12 KB, exit code: -1073741676, checker exit code: 0, verdict: RUNTIME_ERROR",
     "RE", "division-by-zero", "STATUS_INTEGER_DIVIDE_BY_ZERO", -1073741676),
    # QingdaoU's JSON result: "signal" is the signal's number.
    ('{"cpu_time": 3, "result": 4, "memory": 2400256, "real_time": 5, "signal": 11, "exit_code": 0, "error": 0}',
     "RE", "segv", "SIGSEGV", 0),
    ('{"cpu_time": 0, "result": 4, "real_time": 1, "signal": 8, "exit_code": 0}', "RE", "division-by-zero", "SIGFPE",
     0),
    # go-judge: under "Signalled", exitStatus is the signal, not an exit code.
    ('{"status": "Signalled", "exitStatus": 6, "time": 3000000}', "RE", "abort", "SIGABRT", None),
    ('{"status": "Signalled", "exitStatus": 11}', "RE", "segv", "SIGSEGV", None),
    # strsignal's words, as HUSTOJ's run log, DMOJ's feedback and Hydro's message print them.
    ("运行错误\ndata2.in:Aborted", "RE", "abort", "SIGABRT", None),
    ("Test case #1: IR (aborted) [0.02s, 4 MB]", "RE", "abort", "SIGABRT", None),
    ("Runtime Error\nCPU time limit exceeded", "RE", "cpu-time-limit", "SIGXCPU", None),
    ("File size limit exceeded", "OLE", "output-limit", "SIGXFSZ", None),
    ("Invalid Return (floating point exception)", "RE", "division-by-zero", "SIGFPE", None),
    # Hydro's message for a non-zero exit, in English and Chinese.
    ("Runtime Error\nYour program returned 3.", "RE", None, None, 3),
    ("运行错误\n您的程序返回了 1。", "RE", None, None, 1),
    # Luogu names the signal after its verdict.
    ("Runtime Error.Received signal 11: Segmentation fault with invalid memory reference.", "RE", "segv", "SIGSEGV",
     None),
])
def test_signals_and_exit_codes_in_judges_reports(text: str, verdict: str, kind: str | None, signal: str | None,
                                                  exit_code: int | None) -> None:
    report = parse(text)
    assert (report.verdict, report.kind, report.signal, report.exit_code) == (verdict, kind, signal, exit_code)


@pytest.mark.parametrize(("text", "verdict"), [
    # Lower-case identifiers are code, not a judge's constant: g++'s message stays a compile error.
    ("main.cpp:3:12: error: 'runtime_error' is not a member of 'std'", "CE"),
    # A compiler's "invalid return type" is no DMOJ Invalid Return.
    ("Main.java:4: error: invalid return type", "CE"),
    # A rounding error is a wrong answer's cause, not ZOJ's old SIGFPE verdict "Floating Point Error".
    ("is it a floating point error? my answer differs in the 6th digit", None),
    # rustc's "expected …, found …" is the compiler's, not a checker's: no checker line is added.
    ("error[E0308]: mismatched types\n --> src/main.rs:3:13\n  |\n3 |     let x: i32 = \"a\";\n"
     "  |                  ^^^ expected `i32`, found `&str`", "CE"),
])
def test_judge_spellings_do_not_read_into_compiler_output(text: str, verdict: str | None) -> None:
    report = parse(text)
    assert report.verdict == verdict
    assert not any("found" in m for m in report.messages)


def test_a_passed_test_above_a_failed_one_is_not_the_failing_test() -> None:
    report = parse("测试点 0 答案正确\n测试点 1 答案错误\n测试点 2 答案错误")
    assert (report.verdict, report.test_number) == ("WA", 1)


def test_the_accepted_in_unaccepted_does_not_hide_the_failing_verdict() -> None:
    assert find_verdict("Unaccepted 40\n#1 AC\n#2 WA") == "WA"


def test_the_planners_error_part_keeps_the_checkers_expected_and_found() -> None:
    error = "Wrong answer on test 4\nwrong answer 2nd numbers differ - expected: '500000004', found: '-147483643'"
    p = plan(Request(question="why WA", error=error), FakeRetriever())
    assert p.report.test_number == 4
    assert p.parts.error == ("WA Wrong Answer 答案错误\n"
                             "wrong answer 2nd numbers differ - expected: '500000004', found: '-147483643'")


CAT = Catalogue({"15": Problem(id="15", title_zh="三数之和", title_en="3Sum")})


@pytest.mark.parametrize("error", [
    "Test: #15, time: 46 ms., memory: 12 KB, exit code: 0, checker exit code: 1, verdict: WRONG_ANSWER",
    "#1 AC 2ms/512.00KB\n#2 AC 3ms/520.00KB\n#15 TLE 1.20s/1.20MB",
    "#15 Wrong Answer 5ms 1.2 MiB",
])
def test_a_test_number_in_a_per_test_report_names_no_problem(error: str) -> None:
    found = resolve(Request(question="why does it fail", error=error), CAT)
    assert (found.problem_id, found.missing_id) == (None, None)


def test_a_hash_id_before_a_verdict_without_a_time_still_names_the_problem() -> None:
    assert resolve(Request(question="#15 TLE why"), CAT).problem_id == "15"
