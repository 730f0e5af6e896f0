"""A judge that failed on its own side (System Error, Internal Error, "Judgement failed", testlib's FAIL, 系统错误):
the verdict is SE, the student is told it is the judge's fault, and the search gets no verdict words for it.

Facts (our wording): QingdaoU's JudgeStatus and Hydro's status list name a "System Error"; ZeroJudge prints
"SE (System Error)" (系統錯誤); DMOJ's IE is "Internal Error"; Codeforces says "Judgement failed"; testlib's FAIL is
a checker or jury failure. LibreOJ's "File Error" is the student's (no output file written): not SE.
"""
from __future__ import annotations

import pytest

from quest.events import Done, Notice, Sources, Token
from quest.i18n import ASSISTANT_TEXT
from quest.judge import VERDICT_NAMES, parse
from quest.plan import plan
from quest.request import Request
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.retriever import FakeRetriever
from tests.test_assistant import make


@pytest.mark.parametrize("text", [
    "System Error",
    "Status: System Error\nTime: 0ms Memory: 0KB",
    '{"err": "SYSTEM_ERROR", "data": "judge server down"}',  # QingdaoU's constant, alone
    "Judgement failed",
    "Test case #1: IE (Internal Error)",
    "FAIL wrong answer file: expected 5 numbers",
    "系统错误",
    "SE (System Error)\n系統錯誤",
])
def test_a_judge_side_failure_reads_as_se(text: str) -> None:
    report = parse(text)
    assert report.verdict == "SE"
    assert report.query_text() == ""  # no page is about the judge failing: nothing added to the search


@pytest.mark.parametrize(("text", "verdict"), [
    # the compiler crashed on the code: the judge reports a compile error, no system error (tests/test_judge_round18.py)
    ("main.cpp:12:1: internal compiler error: in tsubst, at cp/pt.c:1", "CE"),
    # LibreOJ's File Error: the program wrote no output file
    ("File Error", None),
    # a student's own exception, not the judge's
    ("Traceback (most recent call last):\n  File \"a.py\", line 3, in <module>\nSystemError: bad call", "RE"),
    # a test FAILED in prose is no testlib outcome
    ("my local test FAIL 3 times", None),
])
def test_what_is_not_a_judge_side_failure(text: str, verdict: str | None) -> None:
    assert parse(text).verdict == verdict


def test_the_form_can_say_se() -> None:
    from quest.ui.layout import verdict_choices

    assert VERDICT_NAMES["en"]["SE"] == "System Error" and VERDICT_NAMES["zh"]["SE"] == "系统错误"
    assert verdict_choices("zh")[-1] == ("SE · 系统错误", "SE")
    assert parse("", verdict_hint="se").verdict == "SE"
    p = plan(Request(question="why?", verdict="SE"), FakeRetriever())
    assert p.report.verdict == "SE" and "error" not in p.parts.as_dict()


def test_a_long_question_naming_a_system_error_adds_no_verdict_part() -> None:
    question = ("我的代码在本地所有样例都能通过，提交到学校的 OJ 上却显示系统错误，连续交了三次都是这样，"
                "别的同学同一道题也出现了，是我代码的问题吗？要不要改写成别的写法再交一次？")
    p = plan(Request(question=question), FakeRetriever())
    assert p.parts.verdict == ""


def test_the_student_is_told_it_is_the_judges_fault_end_to_end(fake_ollama: FakeOllama) -> None:
    assistant, retriever = make(fake_ollama)
    request = Request(question="What is wrong with my code?", problem_id="239", code="print(1)\n",
                      error="Status: System Error", tier="explain", ui_lang="en")
    events = list(assistant.ask(request))
    notices = [e for e in events if isinstance(e, Notice)]
    assert [(n.code, n.level) for n in notices] == [("judge_side", "warning")]
    assert notices[0].text == ASSISTANT_TEXT["en"]["judge_side"]
    assert "says nothing about your code" in notices[0].text
    # The notice comes before the answer streams.
    assert events.index(notices[0]) < min(i for i, e in enumerate(events) if isinstance(e, (Sources, Token)))
    user = fake_ollama.chat_bodies[0]["messages"][-1]["content"]
    assert "Judge verdict (parsed): SE\nSE means the judge itself failed" in user
    assert "SE System Error" not in retriever.searches[0].query  # the verdict's names are not searched
    assert isinstance(events[-1], Done) and events[-1].stats["mode"] == "model"


def test_the_notice_is_given_in_chinese_and_without_a_model(fake_ollama: FakeOllama) -> None:
    fake_ollama.stop()
    assistant, _ = make(fake_ollama)
    request = Request(question="为什么？", problem_id="239", code="print(1)\n", error="系统错误", tier="hint",
                      ui_lang="zh")
    events = list(assistant.ask(request))
    notices = [e for e in events if isinstance(e, Notice)]
    assert [n.code for n in notices] == ["judge_side", "llm_unavailable"]
    assert "并不说明你的代码有问题" in notices[0].text
    assert events[-1].fallback  # the retrieval-only answer still follows


def test_an_ordinary_verdict_gets_no_judge_side_notice(fake_ollama: FakeOllama) -> None:
    assistant, _ = make(fake_ollama)
    events = list(assistant.ask(Request(question="why?", problem_id="239", code="print(1)\n",
                                        error="Wrong Answer on test 2", tier="explain", ui_lang="en")))
    assert all(e.code != "judge_side" for e in events if isinstance(e, Notice))
    assert "SE means" not in fake_ollama.chat_bodies[0]["messages"][-1]["content"]
