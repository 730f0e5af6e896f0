"""Taiwan's verdict wording in traditional characters: LeetCode's Taiwan site and ZeroJudge-style school judges.

Facts (the wording is ours): LeetCode's Taiwan interface calls a wrong answer 解答錯誤 and prints the failing case as
輸入 / 輸出 / 預期結果 under it, 超出時間限制 above 最後執行的輸入, and 通過的測試用例 for the count; Taiwan's
school judges (ZeroJudge and its kind) say 答案錯誤, 執行超過時間限制, 超過記憶體限制, 執行時錯誤, 編譯錯誤. Memory is
記憶體 there and running is 執行, so converting the characters alone gives no mainland verdict phrase.
"""
from __future__ import annotations

import pytest

from quest.context import Context
from quest.judge import find_verdict, parse
from quest.plan import plan
from quest.prompts import render_messages
from quest.request import Request
from tests.fakes.retriever import FakeRetriever


@pytest.mark.parametrize(("text", "verdict"), [
    ("解答錯誤\n輸入：nums = [2,7,11,15], target = 9\n輸出：[1,1]\n預期結果：[0,1]", "WA"),
    ("超出時間限制\n最後執行的輸入：nums = [5,4,3,2,1,...]", "TLE"),
    ("超出記憶體限制\n通過的測試用例：31 / 40", "MLE"),
    ("超出輸出限制", "OLE"),
    ("編譯錯誤\nLine 7: Char 3: error: expected ';' after expression", "CE"),
    ("執行出錯\n最後執行的輸入：root = []", "RE"),
    ("執行錯誤", "RE"),
    # ZeroJudge-style result names
    ("#1: 0% WA (line:3)\n答案錯誤", "WA"),
    ("TLE 執行超過時間限制", "TLE"),
    ("程式超過記憶體限制", "MLE"),
    ("執行時錯誤", "RE"),
    ("格式錯誤", "PE"),
    ("答案正確", "AC"),
])
def test_taiwan_verdict_lines_are_read(text: str, verdict: str) -> None:
    assert parse(text).verdict == verdict


def test_passed_count_before_the_verdict_does_not_read_as_accepted() -> None:
    # 通過 (passed) is a loose word, no verdict: the count line above 解答錯誤 must not make it Accepted.
    assert find_verdict("通過的測試用例: 17 / 22\n解答錯誤") == "WA"
    assert find_verdict("通過的測試用例: 17 / 22") is None


def test_mainland_phrases_still_win_where_both_are_pasted() -> None:
    assert find_verdict("解答错误 / 解答錯誤") == "WA"
    assert find_verdict("解答錯誤", traditional=False) is None


def test_a_taiwan_verdict_alone_reaches_the_answer_but_not_the_search() -> None:
    report = parse("解答錯誤\n輸入 s = \"abba\"\n輸出 3\n預期結果 2")
    assert report.verdict == "WA" and report.searched_verdict is False
    assert report.query_text() == ""  # the search sees what it saw before the line was read
    p = plan(Request(question="Map 記下標，遇到重複就移 left，哪裡錯了？", error="解答錯誤\n輸出 3\n預期結果 2"),
             FakeRetriever())
    assert p.report.verdict == "WA" and "error" not in p.parts.as_dict()
    # The model is told the verdict.
    context = Context(text="", sources=(), lang="zh")
    messages = render_messages(p.request, context, lang="zh", tier="hint", report=p.report)
    assert "评测结果（解析）: WA" in messages[-1]["content"]


def test_a_taiwan_verdict_with_more_evidence_is_searched_as_any_verdict() -> None:
    # A runtime error the parser reads on its own line: the verdict is searched with it, as in any wording.
    report = parse("執行出錯\nLine 9: Char 28: runtime error: signed integer overflow: 2147483647 + 1")
    assert report.verdict == "RE" and report.searched_verdict is True
    assert report.query_text().startswith("RE Runtime Error 运行错误\n")
    # A verdict chosen in the form is the student's choice: searched.
    assert parse("解答錯誤", verdict_hint="WA").query_text() == "WA Wrong Answer 答案错误"
    # The mainland wording is searched as before.
    assert parse("解答错误").query_text() == "WA Wrong Answer 答案错误"
