"""Round 15: the words about how the judge tested a program are no evidence of the student's bug.

"测试点 2 一直段错误", "本地能跑，提交就报错", "passes the sample, fails on submit": most questions say where the
failure showed. The page about state kept between test cases is written in exactly those words, so with no problem
named it took the lead from the page about the student's actual bug whenever the question said them
(`Retriever._specific_first` reads what a page matches beyond the verdict's words). The fixture base
(tests/data/kb_rank15) holds the RE overview, the state page and the out-of-bounds page; questions are our own words.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from quest.retrieval.retriever import _TESTING_WORDS, Retriever
from quest.retrieval.tokenize import tokenize
from tests.fakes.rank_base import retriever_over, shown

KB = Path(__file__).resolve().parent / "data" / "kb_rank15"


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> Retriever:
    return retriever_over(KB, tmp_path_factory)


def ranked(retriever: Retriever, **request: str) -> list[str]:
    return shown(retriever, **request)


QUESTION = "本地样例运行都对，提交以后测试点 2 运行错误，测试用例一多就段错误，我的 str[101][5] 开小了吗？"


def test_a_bug_described_beside_the_judges_testing_words_leads(retriever):
    order = ranked(retriever, question=QUESTION, error="测试点 2 段错误", language="cpp")
    assert order[:2] == ["pitfall-cpp-out-of-bounds-zh", "pitfall-state-between-test-cases-zh"]


def test_without_the_rule_the_testing_words_gave_the_state_page_the_lead(retriever, monkeypatch):
    monkeypatch.setattr("quest.retrieval.retriever._TESTING_WORDS", frozenset())
    order = ranked(retriever, question=QUESTION, error="测试点 2 段错误", language="cpp")
    assert order[:2] == ["pitfall-state-between-test-cases-zh", "pitfall-cpp-out-of-bounds-zh"]


def test_state_between_test_cases_still_leads_when_that_is_what_the_student_describes(retriever):
    order = ranked(retriever, question="全局变量在测试用例之间没有清空，单独运行是对的，提交以后就错了",
                   error="测试点 3 运行错误", language="cpp")
    assert order[0] == "pitfall-state-between-test-cases-zh"


def test_the_testing_words_are_the_judges_not_the_bugs():
    assert {"测试点", "测试用例", "样例", "提交", "运行", "submit"} <= _TESTING_WORDS
    # the words of a cause stay evidence
    assert not _TESTING_WORDS & set(tokenize("数组 下标 越界 全局变量 清空 溢出 out of bounds"))
