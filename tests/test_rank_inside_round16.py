"""Round 16: inside a named problem, a runtime error is read in the student's language.

A runtime error is the language's own report: a Python traceback, a C++ sanitizer's or a Java exception's. An
error pattern of the problem written only for other languages (its `languages`) explains another runtime's crash,
so it does not lead on one (`Settings.runtime_language`, `Retriever._own_error_first`); a wrong answer or a time
limit is the algorithm's and keeps its pattern in any language. The fixture base (tests/data/kb_rank16) has
problem 206 with its official solution and one error pattern written for Python (a lost `next`, a Wrong Answer,
and the AttributeError it raises), and a general page on C++ null-pointer reports.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from quest.plan import plan, retrieve, student_language
from quest.request import Request
from quest.retrieval.retriever import Retriever
from quest.settings import Settings
from tests.fakes.rank_base import retriever_over, with_settings

KB = Path(__file__).resolve().parent / "data" / "kb_rank16"

QUESTION = ("reverse linked list: I read cur next before the loop and again at the end of each iteration. "
            "Where is the null?")
CPP = ("ListNode* prev = nullptr;\nListNode* cur = head;\nListNode* nxt = cur->next;\nwhile (cur != nullptr) {\n"
       "    cur->next = prev;\n    prev = cur;\n    cur = nxt;\n    nxt = cur->next;\n}\nreturn prev;")
PYTHON = "prev = None\ncur = head\nwhile cur:\n    cur.next = prev\n    prev = cur\n    cur = cur.next\nreturn prev"
JAVA_NPE = ('Exception in thread "main" java.lang.NullPointerException: '
            'Cannot read field "next" because "cur" is null\n\tat Solution.reverseList(Solution.java:9)')

OFFICIAL, PATTERN = "p206-official-en", "p206-error-lost-next-en"


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> Retriever:
    return retriever_over(KB, tmp_path_factory)


def ranked(retriever: Retriever, changes: dict | None = None, **request: str) -> tuple[str | None, list[str]]:
    """The student's language as the plan reads it, and the documents shown in order."""
    searcher = with_settings(retriever, changes)
    planned = plan(Request(**request), searcher)
    found = retrieve(searcher, planned)[1]
    return student_language(planned), [h.chunk.doc_id for h in found.hits]


def test_the_rule_is_on_by_default():
    assert Settings().runtime_language is True


def test_a_python_pattern_does_not_lead_a_cpp_runtime_error(retriever):
    request = {"question": QUESTION, "code": CPP, "error": "Runtime Error", "problem_id": "206"}
    assert ranked(retriever, **request) == ("cpp", [OFFICIAL, PATTERN, PATTERN, OFFICIAL])
    # Before: the bare verdict's list voted for the pattern that writes "Runtime Error" into its sections.
    assert ranked(retriever, {"runtime_language": False}, **request) == ("cpp", [PATTERN, OFFICIAL, PATTERN,
                                                                                 OFFICIAL])


def test_the_same_runtime_error_in_python_keeps_the_pattern_first(retriever):
    request = {"question": QUESTION, "code": PYTHON, "error": "Runtime Error", "problem_id": "206"}
    assert ranked(retriever, **request) == ("python", [PATTERN, OFFICIAL, PATTERN, OFFICIAL])


def test_the_runtime_that_printed_the_error_is_the_students_language(retriever):
    # No code: Java's exception says Java, and the Python pattern gives way.
    request = {"question": QUESTION, "error": JAVA_NPE, "problem_id": "206"}
    assert ranked(retriever, **request) == ("java", [OFFICIAL, PATTERN, PATTERN, OFFICIAL])
    assert ranked(retriever, {"runtime_language": False}, **request) == ("java", [PATTERN, OFFICIAL, PATTERN,
                                                                                  OFFICIAL])


def test_a_wrong_answer_is_the_algorithms_in_any_language(retriever):
    # The lost next is the same bug in C++: a Wrong Answer keeps its pattern first.
    request = {"question": QUESTION, "code": CPP, "error": "Wrong Answer", "problem_id": "206"}
    assert ranked(retriever, **request) == ("cpp", [PATTERN, OFFICIAL, OFFICIAL, PATTERN])
    assert ranked(retriever, **request) == ranked(retriever, {"runtime_language": False}, **request)


def test_an_unknown_language_moves_nothing(retriever):
    request = {"question": QUESTION, "error": "Runtime Error", "problem_id": "206"}
    assert ranked(retriever, **request) == (None, [PATTERN, OFFICIAL, PATTERN, OFFICIAL])


def test_written_in_reads_the_documents_languages_and_the_c_family(retriever):
    assert retriever._written_in(PATTERN, "python") is True
    assert retriever._written_in(PATTERN, "cpp") is False
    assert retriever._written_in("pitfall-asan-segv-null-en", "c") is True  # written for C and C++
    assert retriever._written_in(OFFICIAL, "java") is True  # written for no language in particular
    assert retriever._written_in(PATTERN, None) is True
