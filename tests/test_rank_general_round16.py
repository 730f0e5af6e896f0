"""Round 16: with no problem named, the general pages that fit what the student reported go first.

A page written for one programming language only does not fit a student known to write another ("Java's Scanner is
too slow" for a C++ program's TLE), and a page written for other verdicts only does not fit the verdict the student
got (a TLE page for a Wrong Answer); both move behind the pages that fit (`Retriever._fitting_first`). The fixture base
(tests/data/kb_fit16) holds three verdict overviews (TLE, WA, PE), a Java and a C++ page on slow input, and a page on
reading until the end of input written for three languages; the questions are our own words.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from quest.retrieval.retriever import Retriever, _one_family
from tests.fakes.rank_base import retriever_over, shown, with_settings

KB = Path(__file__).resolve().parent / "data" / "kb_fit16"

SLOW = "Reading a million numbers of input is too slow and I get Time Limit Exceeded"
CPP = "#include <bits/stdc++.h>\nusing namespace std;\nlong long total = 0;\n"
GO = 'package main\nimport "fmt"\nfunc main() {\n\tvar n int\n\tfmt.Scan(&n)\n}\n'


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> Retriever:
    return retriever_over(KB, tmp_path_factory)


def ranked(retriever: Retriever, **request: str) -> list[str]:
    return shown(retriever, **request)


def without_rule(retriever: Retriever) -> Retriever:
    return with_settings(retriever, {"fit_lead": False})


def test_a_cpp_students_slow_input_gets_the_cpp_page_not_javas(retriever):
    assert ranked(retriever, question=SLOW, code=CPP) == [
        "pitfall-cpp-cin-scanf-en", "faq-verdict-tle-en", "pitfall-java-scanner-slow-en",
        "pitfall-java-scanner-slow-en"]


def test_without_the_rule_the_java_page_led_on_its_words(retriever):
    assert ranked(without_rule(retriever), question=SLOW, code=CPP)[:3] == [
        "pitfall-java-scanner-slow-en", "pitfall-cpp-cin-scanf-en", "faq-verdict-tle-en"]


def test_a_language_without_its_own_page_gets_the_overview_first(retriever):
    # a Go student: both slow-input pages are for other languages; the TLE overview (no language) fits
    assert ranked(retriever, question=SLOW, code=GO)[:3] == [
        "faq-verdict-tle-en", "pitfall-java-scanner-slow-en", "pitfall-cpp-cin-scanf-en"]


def test_an_unknown_language_moves_nothing(retriever):
    # no code, no runtime in the error: the words decide, as before
    assert ranked(retriever, question=SLOW)[:3] == [
        "pitfall-java-scanner-slow-en", "pitfall-cpp-cin-scanf-en", "faq-verdict-tle-en"]


def test_a_wrong_answer_is_not_explained_by_a_page_about_time(retriever):
    order = ranked(retriever, question="Reading a million numbers of input is too slow", error="Wrong Answer")
    assert order[:2] == ["faq-verdict-wa-en", "pitfall-java-scanner-slow-en"]
    assert ranked(without_rule(retriever), question="Reading a million numbers of input is too slow",
                  error="Wrong Answer")[:2] == ["pitfall-java-scanner-slow-en", "faq-verdict-wa-en"]


def test_a_judge_reports_a_layout_error_as_wrong_answer(retriever, monkeypatch):
    question = "I print a trailing space after the last number"
    assert ranked(retriever, question=question, error="Wrong Answer") == ["faq-verdict-pe-en", "faq-verdict-wa-en"]
    # without WA standing for PE, the PE overview would have been moved behind the WA one
    monkeypatch.setattr("quest.retrieval.retriever._REPORTED_AS", {})
    assert ranked(retriever, question=question, error="Wrong Answer") == ["faq-verdict-wa-en", "faq-verdict-pe-en"]


def test_one_family_is_one_language_or_c_with_cpp():
    # a page whose examples cover several languages (reading until EOF: C++, Python, Java) is general advice
    assert _one_family({"java"})
    assert _one_family({"c", "cpp"})
    assert not _one_family({"cpp", "python", "java"})
    assert not _one_family({"cpp", "java"})
