"""The exception class or sanitizer kind a pasted error names puts the page that holds that name first.

Small fixture base: a Java page that shares many words with the error and the code, a C# page that holds
`IndexOutOfRangeException`, a C++ page that mentions Java's `ArrayIndexOutOfBoundsException` in passing, two
sanitizer pages and a comparator page.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from quest.judge import parse
from quest.plan import plan, retrieve
from quest.request import Request
from quest.retrieval.evidence import ErrorEvidence, asks_meaning, error_evidence, named_first
from quest.retrieval.retriever import Retriever, build_retriever

PAGES = {
    "java-exc": ("pitfall-java-exc-en", "java", "Java exceptions: reading the judge's output",
                 "Exception in thread main: the exception's name, then the index and the length of the array: "
                 "Index 5 out of bounds for length 5 is ArrayIndexOutOfBoundsException, thrown from numbers[i] inside "
                 "a for (int i = 0; ...; i++) loop. NullPointerException: a reference was null."),
    "csharp-exc": ("pitfall-csharp-exc-en", "csharp", "C# exceptions in the judge's output",
                   "Unhandled exception. System.IndexOutOfRangeException means an index was outside the bounds "
                   "of the array; NullReferenceException means a reference was null."),
    "cpp-bounds": ("pitfall-cpp-bounds-en", "cpp", "C++ out of bounds: an index past the end of the array",
                   "Reading past the end of an array in C++ is undefined behaviour: it may crash, print garbage or "
                   "pass. Java would throw ArrayIndexOutOfBoundsException for the same index out of bounds."),
    "stack": ("pitfall-deep-recursion-en", "cpp", "The call stack runs out",
              "AddressSanitizer: stack-overflow: the calls never return. Add a base case."),
    "heap": ("pitfall-heap-overflow-en", "cpp", "Heap buffer overflow: writing past the end on the heap",
             "ERROR: AddressSanitizer: heap-buffer-overflow on address (pc, bp, sp, T0) means the program wrote "
             "past the end of a new[] array. It is no stack overflow and no recursion too deep: the stack is "
             "fine, the overflow is on the heap."),
    "comparator": ("pitfall-sort-comparator-en", "cpp", "A sort comparator must be strict",
                   "A comparator that returns a <= b for equal elements breaks std::sort: it can walk past the end "
                   "of the range. Return a < b."),
}
CSHARP = "Unhandled exception. System.IndexOutOfRangeException: Index was outside the bounds of the array."
JAVA = 'Exception in thread "main" java.lang.ArrayIndexOutOfBoundsException: Index 5 out of bounds for length 5'
ASAN_STACK = "==12==ERROR: AddressSanitizer: stack-overflow on address 0x7ffd5 (pc 0x4f bp 0x7ffd sp 0x7ffd T0)"


def write_page(docs: Path, key: str) -> None:
    doc_id, language, title, text = PAGES[key]
    (docs / f"{doc_id}.md").write_text(
        f"---\nid: {doc_id}\nkind: error_pattern\nlang: en\ntitle: \"{title}\"\nverdicts: [RE]\n"
        f"languages: [{language}]\n---\n## What you see\n\n{text}\n", encoding="utf-8")


@pytest.fixture
def retriever(settings, kb_dir: Path) -> Retriever:
    for key in PAGES:
        write_page(kb_dir / "docs", key)
    return build_retriever(settings.replace(embedding_model="none"))


def ranked(retriever: Retriever, *, evidence: bool = True, **request) -> list[str]:
    p = plan(Request(**request), retriever)
    if not evidence:  # the same search without the names: what the fused lists alone put first
        result = retriever.search(p.parts.text(), parts=p.parts.as_dict(), problem_id=p.problem_id, lang=p.lang)
        return [h.chunk.doc_id for h in result.hits]
    return [h.chunk.doc_id for h in retrieve(retriever, p)[1].hits]


def test_the_csharp_page_holding_the_exact_class_name_leads_the_page_that_shares_more_words(retriever):
    question = "My loop prints every element and then crashes on the last step. Is i <= length the problem?"
    code = "for (int i = 0; i <= numbers.Length; i++)\n    Console.WriteLine(numbers[i]);"
    without = ranked(retriever, evidence=False, question=question, error=CSHARP, code=code)
    assert without[:2] == ["pitfall-java-exc-en", "pitfall-csharp-exc-en"]
    assert ranked(retriever, question=question, error=CSHARP, code=code)[:2] == [
        "pitfall-csharp-exc-en", "pitfall-java-exc-en"]


def test_of_two_pages_holding_javas_name_the_one_written_for_java_leads(retriever):
    question = "index out of bounds: why is my array index past the end?"
    without = ranked(retriever, evidence=False, question=question, error=JAVA)
    assert without[0] == "pitfall-cpp-bounds-en"
    assert ranked(retriever, question=question, error=JAVA)[:2] == ["pitfall-java-exc-en", "pitfall-cpp-bounds-en"]


def test_the_sanitizers_kind_finds_its_page_not_the_one_with_a_longer_kind(retriever):
    question = "where do I look?"
    without = ranked(retriever, evidence=False, question=question, error=ASAN_STACK)
    assert without[0] == "pitfall-heap-overflow-en"
    assert ranked(retriever, question=question, error=ASAN_STACK)[:2] == [
        "pitfall-deep-recursion-en", "pitfall-heap-overflow-en"]


def test_a_page_about_the_cause_the_student_describes_keeps_the_lead_over_the_named_report(retriever):
    question = "my sort comparator returns a <= b for equal elements, is that wrong?"
    heap = "==3==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x60b0 (pc 0x4f bp 0x7ffd sp 0x7ffd T0)"
    code = "bool cmp(int a, int b) {\n    return a <= b;  // equal elements sort either way\n}"
    docs = ranked(retriever, question=question, error=heap, code=code)
    assert docs[:2] == ["pitfall-sort-comparator-en", "pitfall-heap-overflow-en"]
    assert docs == ranked(retriever, evidence=False, question=question, error=heap, code=code)
    # Saying nothing about the cause, the page holding the report's name leads instead.
    assert ranked(retriever, question="it crashes, where do I look?", error=heap, code=code)[0] == (
        "pitfall-heap-overflow-en")


def test_an_error_that_names_nothing_specific_keeps_the_fused_order(retriever):
    question = "My loop prints every element and then crashes on the last step. Is i <= length the problem?"
    assert ranked(retriever, question=question, error="Runtime Error") == ranked(
        retriever, evidence=False, question=question, error="Runtime Error")


# ---------------------------------------------------------------- the evidence itself, without a search


@pytest.mark.parametrize(("error", "names", "language"), [
    (CSHARP, ("IndexOutOfRangeException",), "csharp"),
    (JAVA, ("ArrayIndexOutOfBoundsException",), "java"),
    ("terminate called after throwing an instance of 'std::out_of_range'", ("out_of_range",), "cpp"),
    ("Traceback (most recent call last):\n  File \"a.py\", line 3, in f\nRecursionError: maximum recursion depth",
     ("RecursionError",), None),
    (ASAN_STACK, ("stack-overflow",), None),
])
def test_the_names_an_error_gives(error, names, language):
    assert error_evidence(parse(error)) == ErrorEvidence(names, language, asked=False)


@pytest.mark.parametrize("error", [
    "Runtime Error", "Exception in thread \"main\" java.lang.Exception: boom", "Segmentation fault (core dumped)",
    "Line 14: Char 30: runtime error: signed integer overflow: 2147483647 + 1 cannot be represented in type 'int'",
])
def test_a_generic_name_or_none_is_no_evidence_unless_the_question_asks(error):
    assert error_evidence(parse(error), "why does it fail?") is None


def test_a_question_about_a_specific_message_is_marked_asked():
    ubsan = parse("Line 14: Char 30: runtime error: signed integer overflow: 2147483647 + 1 cannot be represented")
    assert error_evidence(ubsan, "The judge stops with this message, what does it mean?") == ErrorEvidence(asked=True)
    assert error_evidence(parse("Runtime Error"), "what does this mean?") is None  # a bare verdict is no message
    diagnostic = parse("Line 3: error: ';' expected")
    assert error_evidence(diagnostic, "这个报错是什么意思") == ErrorEvidence(asked=True, compile_error=True)
    assert error_evidence(diagnostic, "why?") == ErrorEvidence(compile_error=True)  # a compile error, not asked


@pytest.mark.parametrize(("question", "asks"), [
    ("what does this error mean?", True), ("What is this message", True), ("這個數字代表什麼？", True),
    ("这个报错是什么意思", True), ("why is my answer wrong", False), ("it means my loop is wrong", False),
])
def test_asking_what_a_message_means(question, asks):
    assert asks_meaning(question) is asks


def test_named_first_moves_the_first_naming_candidate_and_prefers_the_names_language():
    speaks = {"java-page"}.__contains__
    assert named_first(["a", "cpp-page", "java-page", "b"], ["cpp-page", "java-page"], speaks) == [
        "java-page", "a", "cpp-page", "b"]
    assert named_first(["a", "cpp-page", "b"], ["cpp-page"], speaks) == ["cpp-page", "a", "b"]
    assert named_first(["a", "b"], [], speaks) == ["a", "b"]


@pytest.mark.parametrize("names", [("IndexOutOfRangeException",), ("stack-overflow",), ("heap-buffer-overflow",),
                                   ("ArrayIndexOutOfBoundsException", "NullReferenceException"), ("Index",),
                                   ('main"', "stack-overflow"), ("not in any page",)])
def test_a_chunk_is_decoded_to_look_for_a_name_only_when_its_record_holds_the_names_bytes(retriever, monkeypatch,
                                                                                         names):
    """`Retriever._names` answers as `ErrorEvidence.named_in` on the decoded chunk does, for every row; it decodes
    only the rows whose stored record holds one of the names (all of them when a name has a character JSON escapes:
    the quote in 'main"')."""
    table = retriever.index.chunks
    evidence = ErrorEvidence(names)
    expected = [evidence.named_in(table[row].text) for row in range(len(table))]
    decoded: list[int] = []
    original = type(table).__getitem__

    def recording(self, row):
        decoded.append(int(row))
        return original(self, row)

    monkeypatch.setattr(type(table), "__getitem__", recording)
    assert [retriever._names(row, evidence) for row in range(len(table))] == expected
    if any('"' in name for name in names):
        assert decoded == list(range(len(table)))
    else:
        records = [segment.record(local) for segment, local in map(table.locate, range(len(table)))]
        holding = [row for row, record in enumerate(records) if any(n.encode() in record for n in names)]
        assert decoded == holding and len(holding) < len(table)
    assert any(expected) is (names != ("not in any page",))
