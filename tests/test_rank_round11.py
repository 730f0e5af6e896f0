"""Round 11: a question that names no problem is answered confidently only when a shown page matches what it is
about — its words and the error's, without the verdict's name and the judge's name, or the whole question as asked.
Pages that cleared the floor on the verdict alone (the bare "Time Limit Exceeded" line, the overview made of
those words) or on the code's identifiers are kept, in the same order, and marked weak (quest.retrieval.topic)."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from quest import cli
from quest.assistant import Assistant
from quest.evaluation import handled_honestly, is_low_confidence
from quest.events import Notice, Sources
from quest.plan import plan, retrieve
from quest.request import Request
from quest.resolution import Resolution
from quest.retrieval.retriever import Retriever, build_retriever
from quest.retrieval.topic import topic_tokens, without_verdicts
from quest.retrieval.types import SearchResult
from quest.settings import Settings
from quest.weak_names import WeakName
from tests.fakes.retriever import FakeRetriever


@pytest.mark.parametrize(("text", "topic"), [
    # A bare verdict line is about nothing; the words beside it are the topic.
    ("WA Wrong Answer 答案错误", ()),
    ("RE Runtime Error 运行错误\nOutput file not found", ("output", "file", "found")),
    ("TLE 超时了 on LeetCode", ()),  # the judge's name is no topic either
    # A question about the verdict keeps its other words; the verdict itself is judged with the whole question.
    ("what does Time Limit Exceeded mean", ("mean",)),
    # Phrases, not words: 格式 and "memory" are topics, only the verdict's name goes.
    ("printf 的格式串多了空格，判了格式错误", ("printf", "格式", "串多", "空格", "判")),
    ("memory leak, then Memory Limit Exceeded", ("memory", "leak")),
    # Traditional characters are read like simplified ones.
    ("答案錯誤 但陣列是對的", ("阵列",)),
    # A verdict phrase that names a cause stays: a segmentation fault is what happened.
    ("段错误", ("段", "错误", "verdict_re")),
    ("Segmentation fault (core dumped)", ("segmentation", "fault", "core", "dumped", "verdict_re")),
])
def test_topic_tokens(text, topic):
    assert topic_tokens(text) == topic


def test_without_verdicts_takes_the_longest_phrase_first():
    assert without_verdicts("运行超时了").split() == ["了"]  # not "运行" left over from "超时"
    assert without_verdicts("we re-read it, got RE").split() == ["we", "re-read", "it,", "got"]


SMALL_KB = Path(__file__).resolve().parent / "data" / "kb_small"


@pytest.fixture
def retriever(tmp_path: Path) -> Retriever:
    shutil.copytree(SMALL_KB, tmp_path / "kb")
    return build_retriever(Settings(kb_dir=tmp_path / "kb", data_dir=tmp_path / "data", show_progress=False,
                                    embedding_model="none", bm25_floor=0.15))


def _search(retriever: Retriever, question: str, error: str = "", code: str = "",
            problem_id: str | None = None) -> SearchResult:
    request = Request(question=question, error=error, code=code, problem_id=problem_id)
    return retrieve(retriever, plan(request, retriever))[1]


OFF_TOPIC = "my self-hosted judge sandbox says the output file was not found, is my configuration broken?"


def test_pages_found_only_by_the_verdict_are_weak(retriever):
    result = _search(retriever, OFF_TOPIC, error="Time Limit Exceeded")
    assert [h.chunk.doc_id for h in result.hits] == [
        "faq-tle-zh", "p239-error-pop0-en", "pitfall-recursion-en", "faq-tle-zh"]
    assert (result.widened, result.weak, result.low_confidence) == (False, True, True)


def test_the_same_pages_in_the_same_order_without_the_gate(retriever):
    # What happened before round 11: the same hits, shown as if the base answered the question.
    plain = Retriever(retriever.settings.replace(topic_gate=False), retriever.index, retriever.kb)
    before = _search(plain, OFF_TOPIC, error="Time Limit Exceeded")
    after = _search(retriever, OFF_TOPIC, error="Time Limit Exceeded")
    assert [dataclasses.replace(h, chunk=h.chunk.doc_id) for h in before.hits] == [
        dataclasses.replace(h, chunk=h.chunk.doc_id) for h in after.hits]
    assert (before.weak, before.low_confidence) == (False, False)


def test_a_question_on_the_pages_topic_is_confident(retriever):
    result = _search(retriever, "is list.pop(0) inside a loop slow in Python?", error="Time Limit Exceeded")
    assert [h.chunk.doc_id for h in result.hits][:2] == ["faq-tle-zh", "p239-error-pop0-en"]
    assert (result.weak, result.low_confidence) == (False, False)


def test_a_question_about_the_verdict_itself_is_confident(retriever):
    result = _search(retriever, "什么是时间超限 TLE")
    assert result.hits[0].chunk.doc_id == "faq-tle-zh"
    assert result.weak is False


def test_the_codes_identifiers_are_no_topic(retriever):
    # The code matches the pop(0) page, but the question asks about something else: still weak.
    result = _search(retriever, OFF_TOPIC, error="Time Limit Exceeded", code="for i in range(n):\n    window.pop(0)")
    assert result.hits and result.weak is True


def test_a_named_problem_is_never_weak(retriever):
    result = _search(retriever, OFF_TOPIC, error="Time Limit Exceeded", problem_id="239")
    assert result.hits and result.weak is False


def test_weak_hits_count_as_handled_for_a_no_answer_question(retriever):
    weak = _search(retriever, OFF_TOPIC, error="Time Limit Exceeded")
    assert len(weak.hits) == 4 and (weak.widened, weak.weak, weak.low_confidence) == (False, True, True)
    confident = dataclasses.replace(weak, weak=False)  # the same hits, not marked

    class Told:  # a plan whose resolution reports nothing missing
        class resolution:  # noqa: N801 - the attribute the evaluation reads
            missing_id = None

    # The hits are there: only the weak mark makes the no-answer question handled.
    assert (handled_honestly(Told(), weak), handled_honestly(Told(), confident)) == (True, False)
    assert is_low_confidence(weak.hits, widened=False) is False
    assert is_low_confidence((), widened=False) is True


WEAK_EN = "The knowledge base has only weak matches for this question; check the sources before relying on them."
WEAK_ZH = "知识库中只找到相关度较低的资料，请先核对来源再参考。"


@pytest.mark.parametrize(("ui_lang", "notice"), [("en", WEAK_EN), ("zh", WEAK_ZH)])
def test_the_assistant_says_the_sources_are_weak(retriever, ui_lang, notice):
    assistant = Assistant(retriever.settings, retriever, None)  # no model: the sources are the answer
    events = list(assistant.ask(Request(question=OFF_TOPIC, error="Time Limit Exceeded", ui_lang=ui_lang)))
    notices = [(e.code, e.text) for e in events if isinstance(e, Notice)]
    assert ("retrieval", notice) in notices
    sources = next(i for i, e in enumerate(events) if isinstance(e, Sources))
    assert events.index(next(e for e in events if isinstance(e, Notice) and e.text == notice)) < sources
    confident = list(assistant.ask(Request(question="is list.pop(0) inside a loop slow in Python?",
                                           error="Time Limit Exceeded", ui_lang=ui_lang)))
    assert not any(isinstance(e, Notice) and e.text == notice for e in confident)


def test_the_search_command_says_the_result_is_weak(tmp_path, monkeypatch, capsys):
    shutil.copytree(SMALL_KB, tmp_path / "kb")
    monkeypatch.setenv("QUEST_BM25_FLOOR", "0.15")
    argv = ["--kb", str(tmp_path / "kb"), "--data-dir", str(tmp_path / "data"), "--embedding-model", "none",
            "search", OFF_TOPIC, "--error", "Time Limit Exceeded"]
    assert cli.main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "mode: bm25 (bm25-only) — weak: off the question's topic; verdict: TLE" in lines
    assert cli.main([*argv, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert (shown["weak"], shown["widened"], [s["id"] for s in shown["sources"]][:2]) == (
        True, False, ["faq-tle-zh#0", "p239-error-pop0-en#1"])


# --------------------------------------------------------------------------- a weak name needs a confident search


def test_a_weak_first_search_confirms_no_bare_id(retriever):
    # "for 239" is a weak name; the first search ranks a 239 page second, but only on the verdict's words.
    p = plan(Request(question=OFF_TOPIC + " for 239", error="Time Limit Exceeded"), retriever)
    assert p.extra["weak"] == (WeakName("239", "id", "239"),)
    after, result = retrieve(retriever, p)
    assert (after.problem_id, after.resolution, "guessed" in after.extra) == (None, Resolution(), False)
    assert [h.chunk.doc_id for h in result.hits] == [
        "faq-tle-zh", "p239-error-pop0-en", "pitfall-recursion-en", "faq-tle-zh"]
    assert (result.weak, result.low_confidence) == (True, True)


def test_a_confident_first_search_still_confirms_a_bare_id(retriever):
    p = plan(Request(question="list.pop(0) in the sliding window for 239 is slow", error="Time Limit Exceeded"),
             retriever)
    after, result = retrieve(retriever, p)
    assert (after.problem_id, after.resolution, after.extra["guessed"]) == (
        "239", Resolution("239", "id", "239"), WeakName("239", "id", "239"))
    assert [h.chunk.doc_id for h in result.hits][:3] == ["p239-error-pop0-en", "p239-official-zh", "p239-explain-en"]
    assert (result.weak, result.low_confidence) == (False, False)


def test_the_search_inside_a_guessed_problem_is_checked_for_topic(retriever):
    # Inside 239 the off-topic question matches only on the verdict's words. Named by the student, 239 is the
    # student's word and the hits are not weak; guessed from a weak name, the same hits stay weak.
    named = plan(Request(question=OFF_TOPIC + " for 239", error="Time Limit Exceeded"), retriever,
                 Resolution("239", "id", "239"))
    guessed = dataclasses.replace(named, extra={"guessed": WeakName("239", "id", "239")})
    (_, as_named), (_, as_guessed) = retrieve(retriever, named), retrieve(retriever, guessed)
    assert [h.chunk.doc_id for h in as_guessed.hits] == [h.chunk.doc_id for h in as_named.hits] == [
        "p239-error-pop0-en", "p239-official-zh", "pitfall-recursion-en", "faq-tle-zh", "p239-error-pop0-en",
        "p239-official-zh"]
    assert (as_named.weak, as_guessed.weak, as_guessed.low_confidence) == (False, True, True)


def test_the_plan_tells_the_retriever_its_problem_is_a_guess():
    fake = FakeRetriever()
    p = plan(Request(question="deque popleft solution for 239 is still slow, 单调队列 窗口"), fake)
    after, _ = retrieve(fake, p)
    assert after.problem_id == "239"
    assert [(s.problem_id, s.problem_guessed) for s in fake.searches] == [(None, False), ("239", True)]
