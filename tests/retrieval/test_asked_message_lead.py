""""What does this message mean?" about a specific message: the page that explains it leads a named problem's own.

Problem 239 gets its own error pattern for Runtime Error, so without the question asking about the message its
own documents keep the lead (`general_error_lead` is not even tried); asked, the page that matches the
sanitizer's words better than any of the problem's documents leads.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from quest.plan import plan, retrieve
from quest.request import Request
from quest.retrieval.retriever import Retriever, build_retriever

UBSAN = ("Line 14: Char 30: runtime error: signed integer overflow: 2147483647 + 1 cannot be represented in type "
         "'int' (solution.cpp)\nSUMMARY: UndefinedBehaviorSanitizer: undefined-behavior prog_joined.cpp:23:30")


@pytest.fixture
def retriever(settings, kb_dir: Path) -> Retriever:
    docs = kb_dir / "docs"
    (docs / "p239-error-recursive-scan.md").write_text(
        "---\nid: p239-error-recursive-scan-en\nproblem_id: 239\nkind: error_pattern\nlang: en\n"
        "title: Sliding Window Maximum - a recursive window scan\nverdicts: [RE]\n---\n"
        "## Why\n\nScanning each window with a recursive helper nests one call per element of the window and the "
        "int sum of the window grows with it.\n", encoding="utf-8")
    (docs / "pitfall-signed-overflow.md").write_text(
        "---\nid: pitfall-signed-overflow-en\nkind: error_pattern\nlang: en\n"
        "title: \"runtime error: signed integer overflow\"\nverdicts: [RE]\nlanguages: [cpp]\n---\n"
        "## What it means\n\nUBSan's runtime error: signed integer overflow: 2147483647 + 1 cannot be represented "
        "in type 'int' says an int went past INT_MAX. Use long long, or check before adding.\n", encoding="utf-8")
    return build_retriever(settings.replace(embedding_model="none"))


def ranked(retriever: Retriever, question: str) -> list[str]:
    p = plan(Request(question=question, problem_id="239", language="cpp", error=UBSAN), retriever)
    return [h.chunk.doc_id for h in retrieve(retriever, p)[1].hits]


def test_asked_what_the_message_means_the_page_explaining_it_leads(retriever):
    docs = ranked(retriever, "My window sum adds 1 to INT_MAX. The judge stops with this message, what does it mean?")
    assert docs[:2] == ["pitfall-signed-overflow-en", "p239-error-recursive-scan-en"]


def test_not_asked_the_problems_own_pattern_for_the_verdict_keeps_the_lead(retriever):
    docs = ranked(retriever, "My window sum adds 1 to INT_MAX and the judge stops, where is my bug?")
    assert docs[0] == "p239-error-recursive-scan-en"
    assert "pitfall-signed-overflow-en" in docs


def test_asked_about_a_bare_verdict_the_problem_keeps_the_lead(retriever):
    p = plan(Request(question="Runtime Error, what does it mean?", problem_id="239", error="Runtime Error"),
             retriever)
    docs = [h.chunk.doc_id for h in retrieve(retriever, p)[1].hits]
    assert docs[0] == "p239-official-zh"  # the problem's own, as before: a verdict alone is no message to explain
    assert "pitfall-signed-overflow-en" not in docs[:1]
