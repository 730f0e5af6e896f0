"""QingdaoU's (QDUOJ) result numbers in a pasted submission JSON.

Facts from its source (the values below are ours): JudgeStatus is -2 compile error, -1 wrong answer, 0 accepted,
1 CPU time limit, 2 real time limit, 3 memory limit, 4 runtime error, 5 system error, 6 pending, 7 judging,
8 partially accepted. The submission's "result" is its first failing test case's result; each case's object holds
"result", "test_case" (a string), "cpu_time", "real_time", "memory", "signal", "exit_code"; a compile error or a
system error puts the message in statistic_info's "err_info".
"""
from __future__ import annotations

import pytest

from quest.judge import QDUOJ_RESULTS, parse

SUBMISSION = """{"error": null, "data": {"id": "9b1f2c", "problem": 12, "result": -1,
 "info": {"err": null, "data": [
  {"cpu_time": 0, "real_time": 1, "memory": 1458176, "signal": 0, "exit_code": 0, "error": 0, "result": 0,
   "test_case": "1", "output_md5": "d41d8c", "output": null},
  {"cpu_time": 1, "real_time": 2, "memory": 1458176, "signal": 0, "exit_code": 0, "error": 0, "result": -1,
   "test_case": "2", "output_md5": "0cc175", "output": null},
  {"cpu_time": 1, "real_time": 2, "memory": 1458176, "signal": 0, "exit_code": 0, "error": 0, "result": -1,
   "test_case": "3", "output_md5": "92eb5f", "output": null}]},
 "statistic_info": {"time_cost": 1, "memory_cost": 1458176}, "language": "C++"}}"""


def test_the_judge_status_table() -> None:
    assert QDUOJ_RESULTS == {-2: "CE", -1: "WA", 0: "AC", 1: "TLE", 2: "TLE", 3: "MLE", 4: "RE", 5: "SE",
                             6: None, 7: None, 8: None}


def test_a_whole_submission_gives_its_verdict_and_first_failing_case() -> None:
    report = parse(SUBMISSION)
    assert (report.verdict, report.test_number, report.signal, report.exit_code) == ("WA", 2, None, 0)
    assert report.query_text() == "WA Wrong Answer 答案错误"


@pytest.mark.parametrize(("text", "verdict", "test_number"), [
    ('"result": -1', "WA", None),  # the bare field: a negative result is no count or HTTP status
    ('{"result": -2, "statistic_info": {"err_info": "/judger/run/a.cpp:4:3: error: \'cout\' was not declared"}}',
     "CE", None),
    ('{"result": 1, "cpu_time": 1003, "real_time": 1010, "test_case": "4", "signal": 0, "exit_code": 0}', "TLE", 4),
    ('{"result": 2, "cpu_time": 12, "real_time": 3000, "test_case": "1"}', "TLE", 1),
    ('{"result": 3, "memory": 268435456, "cpu_time": 40, "test_case": "7"}', "MLE", 7),
    ('{"result": 5, "statistic_info": {"err_info": "judger returned an unexpected status"}}', "SE", None),
    ('{"result": 0, "statistic_info": {"time_cost": 3, "memory_cost": 1458176}}', "AC", None),
    # pending and judging say nothing yet
    ('{"result": 6, "statistic_info": {}}', None, None),
    ('{"result": 7, "statistic_info": {}}', None, None),
    # a partial score: the failing case carries the verdict
    ('{"result": 8, "info": {"data": [{"result": 0, "test_case": "1", "cpu_time": 1}, '
     '{"result": 4, "test_case": "2", "cpu_time": 3, "signal": 11, "exit_code": 0}]}}', "RE", 2),
])
def test_result_numbers(text: str, verdict: str | None, test_number: int | None) -> None:
    report = parse(text)
    assert (report.verdict, report.test_number) == (verdict, test_number)


def test_a_runtime_error_case_keeps_its_signal() -> None:
    report = parse('{"result": 4, "test_case": "2", "cpu_time": 3, "signal": 11, "exit_code": 0}')
    assert (report.verdict, report.kind, report.signal) == ("RE", "segv", "SIGSEGV")


@pytest.mark.parametrize("text", [
    '{"result": 3}',  # a positive number with none of QDUOJ's other keys: any API's "result"
    '{"status": "ok", "result": 1, "count": 4}',
    '"result": 12, "cpu_time": 1',  # not a JudgeStatus number
    '"result": -1.5',
])
def test_other_results_are_not_read(text: str) -> None:
    assert parse(text).verdict is None


def test_a_verdict_in_words_wins_over_the_number() -> None:
    assert parse('Wrong Answer\n{"result": 4, "test_case": "1", "cpu_time": 2}').verdict == "WA"
