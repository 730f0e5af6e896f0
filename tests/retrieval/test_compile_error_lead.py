"""A compiler's diagnostic pasted: a page written for compile errors (its `verdicts` say CE) comes first.

The program never ran, so a page about a runtime failure (Go's panics) cannot explain it, however many words it
shares with the question, and a named problem's solution explains its algorithm, not the compiler's message —
unless the problem has its own error pattern for compile errors.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from quest.plan import plan, retrieve
from quest.request import Request
from quest.retrieval.retriever import Retriever, build_retriever

GO_DIAGNOSTIC = "# command-line-arguments\n./solution.go:2:17: use of untyped nil in assignment"
CLANG_DIAGNOSTIC = "Line 7: Char 17: error: use of undeclared identifier 'tmp'"
QUESTION = "In Go I wrote previous := nil for my linked list and it will not build. How do I declare a nil pointer?"


def write(docs: Path, name: str, front: str, body: str) -> None:
    (docs / f"{name}.md").write_text(f"---\n{front}---\n{body}\n", encoding="utf-8")


@pytest.fixture
def kb(kb_dir: Path) -> Path:
    docs = kb_dir / "docs"
    write(docs, "go-panic", "id: pitfall-go-panics-en\nkind: error_pattern\nlang: en\ntitle: Go panics\n"
          "verdicts: [RE]\nlanguages: [go]\n",
          "## What you see\n\nA nil pointer in Go: previous is nil and the linked list walk dereferences it. "
          "Declare the pointer with var previous *ListNode, check for nil before use.")
    write(docs, "compile-errors", "id: faq-compile-errors-en\nkind: faq\nlang: en\n"
          "title: \"Compile Error (CE): reading the message\"\nverdicts: [CE]\n",
          "## How\n\nThe compiler names the file, the line and what it could not build; read the first error first.")
    return kb_dir


def ranked(retriever: Retriever, **request) -> list[str]:
    return [h.chunk.doc_id for h in retrieve(retriever, plan(Request(**request), retriever))[1].hits]


@pytest.fixture
def retriever(settings, kb: Path) -> Retriever:
    return build_retriever(settings.replace(embedding_model="none"))


def test_a_general_question_with_a_compiler_diagnostic_gets_the_compile_error_page_first(retriever):
    assert ranked(retriever, question=QUESTION, error=GO_DIAGNOSTIC)[:2] == [
        "faq-compile-errors-en", "pitfall-go-panics-en"]


def test_the_same_question_with_a_runtime_error_keeps_the_runtime_page_first(retriever):
    panic = "panic: runtime error: invalid memory address or nil pointer dereference"
    assert ranked(retriever, question=QUESTION, error=panic)[0] == "pitfall-go-panics-en"


def test_without_the_diagnostic_the_page_sharing_the_questions_words_leads(retriever):
    assert ranked(retriever, question=QUESTION)[0] == "pitfall-go-panics-en"


def test_a_named_problems_own_documents_give_way_to_the_compile_error_page(retriever):
    docs = ranked(retriever, question="two sum brute force does not compile", error=CLANG_DIAGNOSTIC,
                  problem_id="1")
    assert docs[:2] == ["faq-compile-errors-en", "p1-official-en"]


def test_a_problem_with_its_own_pattern_for_compile_errors_keeps_the_lead(settings, kb: Path):
    write(kb / "docs", "p1-error-ce", "id: p1-error-undeclared-en\nproblem_id: 1\nkind: error_pattern\nlang: en\n"
          "title: Two Sum - an undeclared result vector\nverdicts: [CE]\n",
          "## Why\n\nThe brute force pushes into tmp, which was never declared; push into ans.")
    retriever = build_retriever(settings.replace(embedding_model="none"))
    docs = ranked(retriever, question="two sum brute force does not compile", error=CLANG_DIAGNOSTIC,
                  problem_id="1")
    assert docs[0] == "p1-error-undeclared-en"
    assert "faq-compile-errors-en" in docs
