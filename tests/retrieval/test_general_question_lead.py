"""A general document the question itself describes leads a named problem's own documents."""

from __future__ import annotations

import pytest

from quest.plan import plan, retrieve
from quest.request import Request
from quest.retrieval.retriever import Retriever, build_retriever

STATE_DOC = (
    "---\nid: pitfall-state-between-tests-en\nkind: error_pattern\nlang: en\n"
    "title: State left over between test cases (class attributes, globals, static fields)\n"
    "verdicts: [WA]\n---\n"
    "## Symptom\n\nRun Code passes and the failing case passes when run alone, but Submit fails on it: "
    "the judge runs every test case in one process, so a class attribute, a global or a static field "
    "keeps the previous test case's values.\n")
# Long and wordy, as students write: the cause is in the words, not in a pasted error.
QUESTION = ("binary search in Python: Run Code passes on the example and when I run the failing case alone "
            "it passes too, but Submit fails on exactly that case. I keep the cache of visited positions "
            "in a class attribute, could that be it?")


@pytest.fixture
def retriever(settings, kb_dir) -> Retriever:
    (kb_dir / "docs" / "pitfall-state-between-tests.md").write_text(STATE_DOC, encoding="utf-8")
    return build_retriever(settings.replace(embedding_model="none"))


def ranked(retriever: Retriever, **request) -> list[str]:
    found = retrieve(retriever, plan(Request(**request), retriever))[1]
    return [h.chunk.doc_id for h in found.hits]


def test_the_document_the_question_describes_leads(retriever):
    docs = ranked(retriever, question=QUESTION, error="Wrong Answer", problem_id="704")
    assert docs[0] == "pitfall-state-between-tests-en"
    assert docs[1].startswith("p704-")


def test_switched_off_the_problems_own_documents_come_first(retriever):
    off = Retriever(retriever.settings.replace(general_question_lead=0.0), retriever.index, retriever.kb)
    docs = ranked(off, question=QUESTION, error="Wrong Answer", problem_id="704")
    assert docs[0].startswith("p704-")
    assert "pitfall-state-between-tests-en" in docs


def test_a_question_about_the_problem_itself_keeps_the_problems_lead(retriever):
    docs = ranked(retriever, question="binary search: how do I choose between lo <= hi and lo < hi, and mid + 1",
                  problem_id="704")
    assert docs[0].startswith("p704-")
