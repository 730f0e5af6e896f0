"""Round 18: with no problem named, a question that asks about the verdict it names keeps the verdict's overview first
(`Retriever._asks_of_verdict`, setting `verdict_question_lead`).

"What does Time Limit Exceeded actually mean? my algorithm is correct": no code, no pasted error, and no page matches
what the student says beyond the verdict's words at the floor. A page about one cause (a comparator that copies its
arguments) matched "algorithm" and "correct" under the floor and led; the TLE overview, which matches none of those
words, was then dropped as the lead's fallback for matching less. It is what the question asks about. With code or an
error, the same words come from the student's program and may well say the cause: nothing changes there (round 18:
keeping the overview for them too lost R@1 on five development questions).

The fixture base (tests/data/kb_verdict18) holds the TLE, WA and RE overviews, the comparator page (C++, TLE) and four
pages on other bugs whose words ("correct", "algorithm") make those words common; the questions are our own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from quest.retrieval.retriever import Retriever
from tests.fakes.rank_base import retriever_over, shown

KB = Path(__file__).resolve().parent / "data" / "kb_verdict18"
OVERVIEW, COMPARATOR, RECURSION = "faq-verdict-tle-en", "pitfall-comparator-copies-en", "pitfall-plain-recursion-en"
ASKED = "what does Time Limit Exceeded actually mean? my algorithm is correct"
OFF = {"verdict_question_lead": False}


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> Retriever:
    return retriever_over(KB, tmp_path_factory)


def test_a_question_about_its_verdict_gets_the_overview_first(retriever):
    assert shown(retriever, question=ASKED) == [OVERVIEW, COMPARATOR, RECURSION]
    # without the rule the comparator page led on "algorithm" and "correct", under the floor
    assert shown(retriever, OFF, question=ASKED) == [COMPARATOR, OVERVIEW, RECURSION]


def test_with_code_the_words_may_be_the_programs_and_nothing_moves(retriever):
    code = "#include <bits/stdc++.h>\nint main() {\n    int n;\n    std::cin >> n;\n}"
    assert shown(retriever, question=ASKED, code=code) == [COMPARATOR, OVERVIEW, RECURSION]
    assert shown(retriever, OFF, question=ASKED, code=code) == [COMPARATOR, OVERVIEW, RECURSION]


def test_a_pasted_verdict_line_was_the_overviews_already(retriever):
    error = "Time Limit Exceeded on test 9"
    assert shown(retriever, question=ASKED, error=error) == [OVERVIEW, COMPARATOR, RECURSION]
    assert shown(retriever, OFF, question=ASKED, error=error) == [OVERVIEW, COMPARATOR, RECURSION]


def test_a_page_that_matches_the_students_words_at_the_floor_still_leads(retriever):
    question = "what does Time Limit Exceeded mean? my comparator copies vectors"
    expected = [COMPARATOR, OVERVIEW, RECURSION, COMPARATOR]  # the comparator page's two sections
    assert shown(retriever, question=question) == expected
    assert shown(retriever, OFF, question=question) == expected
