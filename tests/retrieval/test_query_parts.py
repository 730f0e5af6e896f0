"""Query parts searched separately and fused; confidence per part; answer-language twins; general-only scope."""

from __future__ import annotations

from pathlib import Path

import pytest

from quest.retrieval.retriever import Retriever, build_retriever
from quest.retrieval.tokenize import tokenize

QUESTION = "list.pop(0) is slow?"
ERROR = "TLE Time Limit Exceeded 时间超限"
FILLER = ("I have been trying this for three days and my friend said it should work and the teacher "
          "could not help either so maybe someone here knows what happens with my submission today")


@pytest.fixture
def retriever(settings) -> Retriever:
    return build_retriever(settings.replace(embedding_model="none"))


def ids(result) -> list[str]:
    return [h.chunk.doc_id for h in result.hits]


def scores(result) -> dict[str, float]:
    """Each document's best confidence over its chunks."""
    best: dict[str, float] = {}
    for h in result.hits:
        best[h.chunk.doc_id] = max(h.score, best.get(h.chunk.doc_id, 0.0))
    return best


def test_adding_a_true_part_never_lowers_a_found_document(retriever):
    alone = retriever.search(QUESTION, parts={"question": QUESTION}, problem_id="239")
    both = retriever.search(QUESTION, parts={"question": QUESTION, "error": ERROR}, problem_id="239")
    assert "p239-error-pop0-en" in ids(alone)
    for doc, score in scores(alone).items():
        assert scores(both)[doc] >= score


def test_a_wordy_question_does_not_push_the_answer_under_the_floor(retriever):
    wordy = f"{FILLER} {QUESTION}"
    result = retriever.search(wordy, parts={"question": wordy, "error": ERROR}, problem_id="239")
    assert not result.widened
    assert ids(result)[0] == "p239-error-pop0-en"
    # The old single-string query, bounded by every word of it, fell under the floor.
    single = retriever.search(wordy + "\n" + ERROR, parts={"query": wordy + "\n" + ERROR}, problem_id="239")
    assert scores(result)["p239-error-pop0-en"] > scores(single).get("p239-error-pop0-en", 0.0)


def test_off_topic_parts_still_come_back_empty(retriever):
    result = retriever.search("", parts={"question": "best recipe for sourdough bread at home"})
    assert result.hits == ()


def test_general_only_keeps_to_documents_of_no_problem(retriever):
    result = retriever.search("TLE", parts={"question": "my loop is too slow", "error": ERROR}, general_only=True)
    assert result.hits and {h.chunk.problem_id for h in result.hits} == {None}


def test_the_copy_in_the_answer_language_is_shown(settings, kb_dir: Path):
    text = (kb_dir / "docs" / "p239-official.md").read_text(encoding="utf-8")
    twin = text.replace("id: p239-official-zh", "id: p239-official-en").replace("lang: zh", "lang: en")
    (kb_dir / "docs" / "p239-official.en.md").write_text(twin, encoding="utf-8")
    retriever = build_retriever(settings.replace(embedding_model="none"))
    query = "单调队列 双端队列 下标"
    zh = retriever.search(query, parts={"question": query}, problem_id="239", lang="zh")
    en = retriever.search(query, parts={"question": query}, problem_id="239", lang="en")
    assert "p239-official-zh" in ids(zh) and "p239-official-en" not in ids(zh)
    assert "p239-official-en" in ids(en) and "p239-official-zh" not in ids(en)
    assert ids(zh).index("p239-official-zh") == ids(en).index("p239-official-en")


def test_traditional_characters_and_whole_compound_tokens():
    assert tokenize("買賣股票的最佳時機") == tokenize("买卖股票的最佳时机")
    assert "3sum" in tokenize("3Sum") and "o(n^2)" in tokenize("O(n^2)") and "kth" in tokenize("k-th")
    assert "3sum" not in tokenize("3 sum")


def test_a_problems_titles_vouch_for_its_documents_but_the_question_orders_them(retriever):
    question = "max-heap of (value, index) pairs, python"  # only the heap explanation says so
    titles = "滑动窗口最大值 Sliding Window Maximum"
    asked = retriever.search(question, parts={"question": question}, problem_id="239")
    both = retriever.search(question, parts={"question": question, "problem": titles}, problem_id="239")
    own = [h.chunk.doc_id for h in both.hits if h.scope == "problem"]
    # What the student asked decides the order; the titles (which every document of the problem
    # matches) add the documents the question missed, after those it found. (Fused with the
    # question, the titles used to put the explanation third.)
    found_by_question = [d for d in ids(asked) if d in own]
    assert own[: len(found_by_question)] == found_by_question
    assert own[0] == "p239-explain-en"
    assert set(own) == {"p239-explain-en", "p239-error-pop0-en", "p239-official-zh"}


def test_code_or_judge_output_puts_the_named_problems_error_pattern_before_its_official_solution(settings):
    # The pasted code shares most words with the official solution (deque, enumerate, k - 1): without the
    # prior that long document led, and the document about this very bug (pop(0) + max) came second.
    code = ("from collections import deque\nfor i, x in enumerate(nums):\n    if i >= k - 1:\n"
            "        out.append(max(window))\n    window.pop(0)")
    parts = {"question": "我的代码哪里不对", "code": code, "error": "超时"}
    with_prior = build_retriever(settings.replace(embedding_model="none", bug_prior=True))
    without = build_retriever(settings.replace(embedding_model="none", bug_prior=False))
    assert ids(without.search("", parts=parts, problem_id="239"))[:2] == ["p239-official-zh", "p239-error-pop0-en"]
    assert ids(with_prior.search("", parts=parts, problem_id="239"))[:2] == ["p239-error-pop0-en", "p239-official-zh"]
    # A question alone (no code, no judge output) keeps the order the words give.
    question_only = {"question": parts["question"]}
    assert ids(with_prior.search("", parts=question_only, problem_id="239")) == ["p239-official-zh"]


def test_topic_words_are_read_only_from_the_parts_the_topic_gate_reads(retriever, monkeypatch):
    """The code part ranks but is no topic (quest.retrieval.topic): its topic words are not computed at all."""
    import quest.retrieval.retriever as module

    read: list[str] = []
    real = module.topic_tokens

    def recording(text: str) -> tuple[str, ...]:
        read.append(text)
        return real(text)

    monkeypatch.setattr(module, "topic_tokens", recording)
    code = "while q: q.pop(0)"
    parts = {"question": QUESTION, "error": ERROR, "code": code, "problem": "滑动窗口最大值 Sliding Window Maximum"}
    retriever.search(QUESTION, parts=parts)
    assert read == [QUESTION, ERROR]
