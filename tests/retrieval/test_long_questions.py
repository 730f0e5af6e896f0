"""A long, wordy question is judged by its best window, so its one real point is not under the floor."""

from __future__ import annotations

import pytest

from quest.retrieval.retriever import WINDOW_TOKENS, Retriever, _PartQuery, build_retriever
from quest.retrieval.tokenize import tokenize

# The way students write on forums: the story first, the point (list.pop(0) is slow) somewhere inside.
STORY = ("hello everyone, sorry for the long post, I have been stuck on this for two whole days now and my "
         "friends could not help me either, so here it goes: in my sliding window code I call list.pop(0) "
         "on every step and my teacher said that is the reason the program is so slow, but I really do not "
         "understand why removing the first element would cost anything at all, can someone explain it?")
OFF_TOPIC = ("hello everyone, sorry for the long post, we are planning a family trip this winter and would like "
             "somewhere warm with good food, easy trains, friendly hotels and not too many tourists, my parents "
             "are old so long walks are hard, which cities would you recommend for about one week in total?")


@pytest.fixture
def retriever(settings) -> Retriever:
    return build_retriever(settings.replace(embedding_model="none"))


def test_a_long_question_gets_half_overlapping_windows_with_their_own_bounds(retriever):
    tokens = tokenize(STORY)
    windows = retriever._windows(_PartQuery("question", tokens, 0.0))
    assert len(tokens) > WINDOW_TOKENS * 3 // 2 and len(windows) >= 3
    assert all(len(w) <= WINDOW_TOKENS for w, _ in windows)
    assert windows[1][0][:WINDOW_TOKENS // 2] == windows[0][0][WINDOW_TOKENS // 2:]
    assert all(bound == retriever.index.bm25.max_score(list(w)) for w, bound in windows)


def test_short_questions_and_other_parts_get_no_windows(retriever):
    assert retriever._windows(_PartQuery("question", tokenize("list.pop(0) is slow?"), 0.0)) == ()
    assert retriever._windows(_PartQuery("error", tokenize(STORY), 0.0)) == ()


def test_the_point_inside_a_long_question_clears_the_floor(retriever):
    result = retriever.search(STORY, parts={"question": STORY}, problem_id="239")
    assert not result.widened
    assert result.hits[0].chunk.doc_id == "p239-error-pop0-en"


def test_a_long_off_topic_question_still_comes_back_empty(retriever):
    assert retriever.search(OFF_TOPIC, parts={"question": OFF_TOPIC}).hits == ()
