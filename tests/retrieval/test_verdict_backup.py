"""A long question that names its verdict only in words is never left empty by its own length."""

from __future__ import annotations

import pytest

from quest.plan import plan, retrieve, verdict_in_long_question
from quest.request import Request
from quest.retrieval.retriever import Retriever, build_retriever

# A real shape of question: the whole story, the verdict somewhere in the middle, no error pasted.
WORDY = ("我的代码在本地跑样例完全没问题，自己又造了好几组数据也都对，可是交上去第七个点就显示超出时间限制，"
         "用的是 C++ 的 vector 和 map，实在想不通本地和评测机到底有什么区别，求各位大佬指点一下，谢谢")
TLE_WORDS = "TLE Time Limit Exceeded 时间超限"


@pytest.fixture
def retriever(settings) -> Retriever:
    return build_retriever(settings.replace(embedding_model="none"))


def ids(result) -> list[str]:
    return [h.chunk.doc_id for h in result.hits]


def test_a_long_question_names_its_verdict_in_the_verdict_part():
    assert verdict_in_long_question(WORDY) == TLE_WORDS
    assert verdict_in_long_question("为什么超出时间限制") == ""  # short: its verdict words already count
    assert verdict_in_long_question(WORDY.replace("显示超出时间限制", "结果不对劲")) == ""  # no verdict named


def test_the_verdict_part_is_left_out_when_an_error_is_pasted(retriever):
    planned = plan(Request(question=WORDY, error="Time Limit Exceeded on test 7"), retriever)
    assert planned.parts.verdict == "" and planned.parts.error.startswith("TLE")
    assert plan(Request(question=WORDY), retriever).parts.verdict == TLE_WORDS


def test_the_verdict_answers_a_long_question_nothing_else_matches(retriever):
    alone = retriever.search(WORDY, parts={"question": WORDY})
    assert alone.hits == ()  # the old behaviour: every word raised the bound, nothing cleared the floor
    backed = retriever.search(WORDY, parts={"question": WORDY, "verdict": TLE_WORDS})
    assert ids(backed)[0] == "faq-tle-zh"
    assert backed.widened  # shown as a weak match: the question itself matched nothing


def test_the_verdict_part_changes_nothing_when_the_question_is_found(retriever):
    question = "list.pop(0) in a sliding window is slow, I have tried for three days and it still says TLE"
    plain = retriever.search(question, parts={"question": question}, problem_id="239")
    with_verdict = retriever.search(question, parts={"question": question, "verdict": TLE_WORDS}, problem_id="239")
    assert ids(plain) and ids(with_verdict) == ids(plain)
    assert [h.score for h in with_verdict.hits] == [h.score for h in plain.hits]


def test_an_off_topic_long_question_without_a_verdict_stays_empty(retriever):
    question = ("我想问一下大家平时周末都喜欢去哪里玩，最近天气越来越冷了，想找个暖和一点的地方带家里人一起去旅游，"
                "最好交通方便一些，吃的东西也多一点，预算不是特别多，有没有推荐的城市")
    planned = plan(Request(question=question), retriever)
    assert planned.parts.verdict == ""
    assert retrieve(retriever, planned)[1].hits == ()
