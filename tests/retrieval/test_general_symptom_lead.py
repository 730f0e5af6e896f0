"""Inside a named problem, the general document a long question's symptom finds may lead (general_symptom_lead).

The symptom is what the question says in words no document of the problem uses ("Run Code", "Submit",
"let ... above the function"); the general document those words find best leads only when it also matches
the whole question at least `general_symptom_lead` times as well as the problem's best document.
"""

from __future__ import annotations

import pytest

from quest.plan import plan, retrieve
from quest.request import Request
from quest.retrieval.retriever import Retriever, build_retriever

PROBLEM_DOC = (
    "---\nid: p704-explain-en\nproblem_id: 704\nkind: user_explanation\nlang: en\n"
    "title: Binary Search - keeping the interval\ntags: [binary_search]\n---\n"
    "## Idea\n\nKeep the interval lo..hi of the sorted array that may still hold the target. Compare the "
    "middle value with the target: move lo to mid + 1 or hi to mid - 1, and stop when the interval is empty. "
    "The loop returns the index of the target or -1.\n")
STATE_DOC = (
    "---\nid: pitfall-state-kept-en\nkind: error_pattern\nlang: en\n"
    "title: State kept between test cases\nverdicts: [WA]\n---\n"
    "## Symptom\n\nRun Code passes but Submit fails on the same input: a let or var declared above the "
    "function, a global counter or a static field keeps its value from the previous test case, because "
    "the judge runs every test in one process. Reset it inside the function.\n")
OTHER_DOC = (
    "---\nid: pitfall-float-en\nkind: error_pattern\nlang: en\n"
    "title: Comparing floating point numbers\nverdicts: [WA]\n---\n"
    "## Symptom\n\nTwo floats that should be equal compare unequal; compare with a tolerance instead.\n")
# Half binary search, half symptom: the problem's documents match the first half, the pitfall the second.
SYMPTOM_QUESTION = ("binary search for the target in the sorted array with lo and hi: Run Code gives the "
                    "expected index, but Submit fails on the same input. My counter is a let declared above "
                    "the function")
# As long, but every word is the problem's own: nothing general to lead.
PROBLEM_QUESTION = ("binary search for the target in the sorted array: I move lo to mid + 1 and hi to mid - 1, "
                    "compare the middle value with the target, and the loop still returns the wrong index "
                    "when the interval is empty")


@pytest.fixture
def retriever(settings, kb_dir) -> Retriever:
    for name, text in (("p704-explain.md", PROBLEM_DOC), ("pitfall-state-kept.md", STATE_DOC),
                       ("pitfall-float.md", OTHER_DOC)):
        (kb_dir / "docs" / name).write_text(text, encoding="utf-8")
    # The older rule (general_question_lead) off: what leads here is this rule's doing alone.
    return build_retriever(settings.replace(embedding_model="none", general_question_lead=0.0))


def ranked(retriever: Retriever, question: str) -> list[str]:
    found = retrieve(retriever, plan(Request(question=question, problem_id="704"), retriever))[1]
    return [h.chunk.doc_id for h in found.hits]


def test_the_document_the_symptom_finds_leads_the_problems_own(retriever):
    assert ranked(retriever, SYMPTOM_QUESTION) == ["pitfall-state-kept-en", "p704-explain-en", "p704-official-zh"]


def test_switched_off_the_problems_documents_come_first(retriever):
    off = Retriever(retriever.settings.replace(general_symptom_lead=0.0), retriever.index, retriever.kb)
    assert ranked(off, SYMPTOM_QUESTION) == ["p704-explain-en", "p704-official-zh", "pitfall-state-kept-en"]


def test_a_question_in_the_problems_own_words_keeps_its_documents_first(retriever):
    assert ranked(retriever, PROBLEM_QUESTION) == ["p704-explain-en", "p704-official-zh"]


def test_a_short_symptom_is_too_little_to_lead(retriever):
    assert ranked(retriever, "binary search: Run Code passes, Submit fails") == [
        "p704-official-zh", "p704-explain-en", "pitfall-state-kept-en"]

