"""A general document that explains the pasted error leads a named problem's own when they don't explain it."""

from __future__ import annotations

import pytest

from quest.plan import plan, retrieve
from quest.request import Request
from quest.retrieval.retriever import Retriever, build_retriever

QUESTION = "binary search written recursively on the whole array, what is wrong"
TRACEBACK = ("Traceback (most recent call last):\n  File \"solution.py\", line 9, in search\n"
             "    return self.search(nums, target, lo, mid)\n"
             "RecursionError: maximum recursion depth exceeded in comparison")


@pytest.fixture
def retriever(settings) -> Retriever:
    return build_retriever(settings.replace(embedding_model="none"))


def ranked(retriever: Retriever, **request) -> list[str]:
    found = retrieve(retriever, plan(Request(**request), retriever))[1]
    return [h.chunk.doc_id for h in found.hits]


def test_the_document_about_the_error_leads_when_the_problem_has_no_pattern_for_it(retriever):
    # Problem 704 has no error-pattern document at all; the traceback is explained by the general one.
    docs = ranked(retriever, question=QUESTION, error=TRACEBACK, problem_id="704")
    assert docs[:2] == ["pitfall-recursion-en", "p704-official-zh"]


def test_switched_off_the_problems_own_documents_come_first(retriever):
    off = Retriever(retriever.settings.replace(general_error_lead=0.0), retriever.index, retriever.kb)
    docs = ranked(off, question=QUESTION, error=TRACEBACK, problem_id="704")
    assert docs[:2] == ["p704-official-zh", "pitfall-recursion-en"]


def test_a_bare_verdict_names_no_cause_and_the_problem_keeps_the_lead(retriever):
    docs = ranked(retriever, question="my binary search is wrong", error="Runtime Error on test 3", problem_id="704")
    assert docs[0] == "p704-official-zh"


def test_a_problem_with_its_own_pattern_for_the_verdict_keeps_the_lead(retriever, kb_dir):
    # Give problem 239 an error pattern for RE: the same traceback then more likely has that cause.
    (kb_dir / "docs" / "p239-error-deep-recursion.md").write_text(
        "---\nid: p239-error-deep-recursion-en\nproblem_id: 239\nkind: error_pattern\nlang: en\n"
        "title: Sliding Window Maximum - recursive window scan\nverdicts: [RE]\n---\n"
        "## Why\n\nScanning each window with a recursive helper nests one call per element.\n", encoding="utf-8")
    rebuilt = build_retriever(retriever.settings)
    docs = ranked(rebuilt, question="sliding window written recursively", error=TRACEBACK, problem_id="239")
    assert docs[0].startswith("p239-")
    assert "pitfall-recursion-en" in docs
