"""Judges that list every test's result: the verdict and the test are the first failure, not the passed tests above it.

The reports below follow the layout ZeroJudge prints under a partial score (an overall "NA (score:N%)", then one
"#N: share verdict (detail)" line per test) and the per-case tables Hydro and HUSTOJ show; the numbers are ours.
"""
from __future__ import annotations

import pytest

from quest.judge import find_verdict, parse

ZEROJUDGE_PARTIAL = """NA (score:40%)
#0: 20% AC (2ms, 316KB)
#1: 20% AC (3ms, 320KB)
#2: 0% WA (line:1)
您的答案為: 7
正確答案為: 8
#3: 0% TLE (3s)
#4: 0% TLE (3s)"""


def test_partial_score_report_reads_the_first_failed_test() -> None:
    report = parse(ZEROJUDGE_PARTIAL)
    assert (report.verdict, report.test_number) == ("WA", 2)
    assert report.query_text().splitlines()[0] == "WA Wrong Answer 答案错误"


def test_a_crash_in_the_first_test_keeps_its_signal() -> None:
    report = parse("#0: 0% RE (SIGSEGV)\nSegmentation fault\n#1: 0% RE (SIGSEGV)")
    assert (report.verdict, report.test_number, report.kind, report.signal) == ("RE", 0, "segv", "SIGSEGV")


def test_a_time_limit_after_passed_tests() -> None:
    report = parse("#0: 25% AC (12ms, 1.1MB)\n#1: 25% AC (15ms, 1.1MB)\n#2: 0% TLE (1s)\n#3: 0% TLE (1s)")
    assert (report.verdict, report.test_number) == ("TLE", 2)


@pytest.mark.parametrize(("text", "verdict"), [
    ("#1 Accepted 3ms 1.2 MiB\n#2 Accepted 4ms 1.2 MiB\n#3 Wrong Answer 5ms 1.2 MiB", "WA"),
    ("测试点1 答案正确\n测试点2 答案正确\n测试点3 运行错误", "RE"),
    ("本地 AC 了，交上去 WA", "WA"),
    ("Accepted on the samples, then Time Limit Exceeded on test 12", "TLE"),
    ("Accepted", "AC"),
    ("AC, but I want to know why it is slow", "AC"),
    ("第一次 WA，改了之后 AC", "WA"),
])
def test_accepted_is_the_verdict_only_when_nothing_else_is_named(text: str, verdict: str) -> None:
    assert find_verdict(text) == verdict


def test_a_hash_number_without_a_failed_verdict_is_not_a_test() -> None:
    # "#2: AC" passed; an issue number or a problem id after '#' is not a test at all.
    assert parse("#0: 50% AC (1ms)\n#1: 50% AC (1ms)").test_number is None
    assert parse("see issue #123: WAIT, it crashed").test_number is None
