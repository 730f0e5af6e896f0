"""Round 17: with no problem named, the student's language as the question names it, and the page for it before a
verdict's overview that matches the student's words no better.

- `prose_language`: a question with no code and no runtime in its error still says "in Java" or "用 C++ 写的"
  (`quest.prose_language`); that language now sorts the general pages as the code's would (round 16's `fit_lead`).
  Inside a named problem the question's words set no language.
- `language_cause_lead`: a verdict's overview that leads while matching what the student says beyond the verdict
  under the floor gives way to the page written for the student's language that matches it better, at the
  companions' share of the floor at least (`Retriever._cause_in_language`).

The fixture base (tests/data/kb_lang17) holds the TLE and WA overviews, a Java and a C++ page on slow input that do
not name their language in their text (only in `languages`), a page on reading until the end of input for three
languages and five pages on other bugs; the questions are our own words.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from quest.plan import plan, retrieve, student_language
from quest.request import Request
from quest.retrieval.retriever import Retriever
from tests.fakes.rank_base import retriever_over, shown
from tests.fakes.retriever import FakeRetriever

KB = Path(__file__).resolve().parent / "data" / "kb_lang17"
TLE = "Time Limit Exceeded"
SCANNER, CIN, OVERVIEW = "pitfall-scanner-slow-en", "pitfall-cin-sync-en", "faq-verdict-tle-en"
JAVA_CODE = ("import java.util.*;\npublic class Main {\n  public static void main(String[] args) {\n"
             "    Scanner in = new Scanner(System.in);\n  }\n}")


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> Retriever:
    return retriever_over(KB, tmp_path_factory)


# ----------------------------------------------------------------------------- the language named in words


def test_a_java_student_named_in_words_is_not_shown_the_cpp_page_first(retriever):
    question = "Java: reading 500000 integers takes seconds"
    assert shown(retriever, question=question, error=TLE) == [OVERVIEW, SCANNER, CIN]
    # without it the language is unknown and the words decide: the C++ page's "takes seconds" led
    assert shown(retriever, {"prose_language": False}, question=question, error=TLE) == [CIN, OVERVIEW, SCANNER]


def test_the_language_in_words_is_read_only_when_code_and_error_say_nothing(retriever):
    def language(**request: str) -> str | None:
        return student_language(plan(Request(**request), retriever), prose=True)

    assert language(question="Java: reading 500000 integers takes seconds") == "java"
    assert language(question="用 C++ 写的", error=TLE) == "cpp"
    # the code, then the runtime, come first: a question that mentions Java over Python code is about Python
    assert language(question="in Java this passes", code="def f(n):\n    return [i for i in range(n)]\n") == "python"
    assert language(question="in Java this passes", error="thread 'main' panicked at src/main.rs:3:5:\n"
                    "index out of bounds: the len is 3 but the index is 5") == "rust"
    assert student_language(plan(Request(question="in Java"), retriever)) is None  # not asked for: not read


def test_inside_a_named_problem_the_words_set_no_language():
    fake = FakeRetriever()
    retrieve(fake, plan(Request(question="Two Sum in Java: my HashMap solution"), fake))
    retrieve(fake, plan(Request(question="reading input in Java is slow"), fake))
    assert [(call.problem_id, call.language) for call in fake.searches] == [("1", None), (None, "java")]


# ----------------------------------------------------------------------------- the cause page for that language


def test_the_page_for_the_students_language_leads_an_overview_that_matches_no_better(retriever):
    question = "reading 500000 integers in Java"
    assert shown(retriever, question=question, error=TLE) == [SCANNER, OVERVIEW, CIN]
    # without the rule the overview led on the verdict's words; without the language (words not read) too
    assert shown(retriever, {"language_cause_lead": False}, question=question, error=TLE) == [OVERVIEW, SCANNER, CIN]
    assert shown(retriever, {"prose_language": False}, question=question, error=TLE) == [OVERVIEW, SCANNER, CIN]


def test_a_language_without_its_own_page_keeps_the_overview_first(retriever):
    # a Python student: the Java and C++ pages are no answer, the overview stays first
    assert shown(retriever, question="reading 500000 integers in Python", error=TLE) == [OVERVIEW, SCANNER, CIN]


def test_a_page_that_already_leads_is_left_alone(retriever):
    # the Java code says Java and the Java page leads on its own; the rule changes nothing
    request = {"question": "reading 500000 integers", "error": TLE, "code": JAVA_CODE}
    assert shown(retriever, **request)[:3] == [SCANNER, OVERVIEW, CIN]
    assert shown(retriever, {"language_cause_lead": False}, **request)[:3] == [SCANNER, OVERVIEW, CIN]
