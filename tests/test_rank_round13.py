"""Round 13: the error part's words, and the general page that leads, follow the student's language.

The fixture base (tests/data/kb_rank13) holds a verdict page, the UBSan signed-overflow page (C and C++) and the Rust
panic page. The words a kind adds to the error part (`quest.judge.KIND_WORDS`) are the C/C++ terms ("signed integer
overflow long long"); a Rust panic's overflow took them too and led to the UBSan page.

The second fixture (tests/data/kb_lang13) has a Rust and a Go page that both explain an index past the end: with no
problem named, the page for the student's language (the error's runtime; the request's field, which defaults to
"python", is not read) leads when it explains the pasted error too (`Retriever._own_language_first`).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from quest import judge
from quest.plan import plan
from quest.request import Request
from quest.retrieval.retriever import Retriever, build_retriever
from quest.settings import Settings
from tests.fakes.rank_base import retriever_over, shown

KB = Path(__file__).resolve().parent / "data" / "kb_rank13"

RUST_PANIC = ("thread 'main' panicked at src/main.rs:6:21:\nattempt to subtract with overflow\n"
              "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace")
UBSAN = "sol.cpp:6:21: runtime error: signed integer overflow: 2147483647 + 1 cannot be represented in type 'int'"
QUESTION = "my binary search crashes when the target is smaller than every element"


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> Retriever:
    return retriever_over(KB, tmp_path_factory, bm25_floor=0.15)


def ranked(retriever: Retriever, **request: str) -> list[str]:
    return shown(retriever, **request)


# ----------------------------------------------------------------------------- the runtime that printed it


@pytest.mark.parametrize("text,runtime", [
    (RUST_PANIC, "rust"),
    ("thread 'main' has overflowed its stack", "rust"),
    ("error[E0308]: mismatched types\n --> src/main.rs:4:5", "rust"),
    (UBSAN, "cpp"),
    ("==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000014", "cpp"),
    ("terminate called after throwing an instance of 'std::out_of_range'", "cpp"),
    ("main.cpp:7:5: error: 'vector' was not declared in this scope", "cpp"),
    ('Exception in thread "main" java.lang.NullPointerException\n\tat Main.main(Main.java:5)', "java"),
    ("Main.java:5: error: cannot find symbol", "java"),
    ("Unhandled exception. System.NullReferenceException: Object reference not set to an instance of an object.",
     "csharp"),
    ("Stack overflow.\nRepeat 100 times:\n   at P.F(Int32)", "csharp"),
    ('Traceback (most recent call last):\n  File "a.py", line 3, in <module>\nIndexError: list index out of range',
     "python"),
    ("panic: runtime error: index out of range [5] with length 5\n\ngoroutine 1 [running]:\nmain.main()\n"
     "\t/tmp/x.go:8 +0x1d", "go"),
    ("TypeError: Cannot read properties of undefined (reading 'length')\n    at solve (/box/main.js:4:12)",
     "javascript"),
    # The message alone does not say which language: Python and JavaScript both print "TypeError: …" lines.
    ("TypeError: unsupported operand", None),
    ("Segmentation fault (core dumped)", None),
    ("Wrong Answer on test 3", None),
])
def test_the_runtime_is_read_from_the_format(text, runtime):
    assert judge.parse(text).runtime == runtime


def test_a_rust_overflow_adds_the_words_every_language_shares_a_sanitizers_adds_the_c_terms():
    assert judge.parse(RUST_PANIC).query_text() == (
        "RE Runtime Error 运行错误\ninteger overflow 整数溢出 溢出\npanicked: attempt to subtract with overflow")
    assert judge.parse(UBSAN).query_text() == (
        "RE Runtime Error 运行错误\nsigned integer overflow long long 整数溢出 溢出\n" + UBSAN)
    # Unknown runtime: the shared table.
    assert judge.kind_words("integer-overflow") == judge.KIND_WORDS["integer-overflow"]
    assert judge.kind_words("integer-overflow", "go") == judge.KIND_WORDS["integer-overflow"]


def test_a_rust_overflow_panic_leads_to_the_rust_page(retriever):
    assert ranked(retriever, question=QUESTION, language="rust", error=RUST_PANIC) == [
        "pitfall-rust-panic-en", "faq-verdict-re-en", "pitfall-ubsan-signed-integer-overflow-en",
        "pitfall-ubsan-signed-integer-overflow-en", "pitfall-rust-panic-en"]


def test_with_the_c_terms_the_rust_panic_led_to_the_sanitizer_page(retriever, monkeypatch):
    monkeypatch.setattr(judge, "RUNTIME_KIND_WORDS", {})
    assert ranked(retriever, question=QUESTION, language="rust", error=RUST_PANIC)[:2] == [
        "pitfall-ubsan-signed-integer-overflow-en", "faq-verdict-re-en"]


def test_the_sanitizers_overflow_still_leads_to_its_page(retriever):
    assert ranked(retriever, question=QUESTION, language="cpp", error=UBSAN) == [
        "pitfall-ubsan-signed-integer-overflow-en", "pitfall-ubsan-signed-integer-overflow-en"]


# ----------------------------------------------------------------------------- the student's language leads

LANG_KB = Path(__file__).resolve().parent / "data" / "kb_lang13"
GO_PANIC = ("panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\nmain.main()\n"
            "\t/tmp/main.go:8 +0x1d\nexit status 2")
GO_PANIC_LINE = "panic: runtime error: index out of range [3] with length 3"  # no frames: the runtime is not told
LOOP = "my loop reads the element after the last one"


@pytest.fixture(scope="module")
def by_language(tmp_path_factory: pytest.TempPathFactory) -> Retriever:
    # A Rust page and a Go page both explain an index past the end; the Rust page matches the error's words more.
    return retriever_over(LANG_KB, tmp_path_factory, bm25_floor=0.15)


def ranked_with(retriever: Retriever, changes: dict, **request: str) -> list[str]:
    return shown(retriever, changes, **request)


def test_the_page_for_the_language_of_the_errors_runtime_leads(by_language):
    # The goroutine frames say Go, whatever the form's language field says.
    for language in ("go", "python", "other"):
        assert ranked(by_language, question=LOOP, language=language, error=GO_PANIC) == [
            "pitfall-go-panic-en", "pitfall-rust-panic-en", "faq-verdict-re-en"]


def test_without_the_rule_the_other_languages_page_led(by_language):
    assert ranked_with(by_language, {"language_lead": False, "fit_lead": False}, question=LOOP, language="go",
                       error=GO_PANIC) == [
        "pitfall-rust-panic-en", "pitfall-go-panic-en", "faq-verdict-re-en"]


@pytest.mark.parametrize("language", ["go", "rust", "java", "python", "other"])
def test_the_request_language_field_moves_nothing_when_the_error_does_not_say(by_language, language):
    # The field defaults to "python" (the form's dropdown, the eval loader): it cannot tell a student who chose it
    # from one who never looked, so without a runtime in the error the order stays BM25's.
    assert ranked(by_language, question=LOOP, language=language, error=GO_PANIC_LINE) == [
        "pitfall-rust-panic-en", "pitfall-go-panic-en", "faq-verdict-re-en"]


def test_the_forms_default_language_is_not_the_students(by_language):
    from quest.plan import student_language

    request = Request(question=LOOP, error=GO_PANIC_LINE, language="python")  # the old default this guards against
    assert student_language(plan(request, by_language)) is None
    assert Request(question=LOOP).language == "auto"  # the default now: read from the code
    assert ranked(by_language, question=LOOP, error=GO_PANIC_LINE) == [
        "pitfall-rust-panic-en", "pitfall-go-panic-en", "faq-verdict-re-en"]


GO_CODE = ("func sum(nums []int) int {\n    total := 0\n    for i := 0; i <= len(nums); i++ {\n"
           "        total += nums[i]\n    }\n    return total\n}")


def test_the_language_read_from_the_code_leads_when_the_error_does_not_say(by_language):
    # The panic's line alone names no runtime; the pasted code is Go (`quest.code_language`), whatever the field says.
    for language in ("auto", "python", "rust"):
        assert ranked(by_language, question=LOOP, error=GO_PANIC_LINE, code=GO_CODE, language=language) == [
            "pitfall-go-panic-en", "pitfall-rust-panic-en", "faq-verdict-re-en"]
    assert ranked_with(by_language, {"language_lead": False, "fit_lead": False}, question=LOOP, error=GO_PANIC_LINE,
                       code=GO_CODE) == [
        "pitfall-rust-panic-en", "pitfall-go-panic-en", "faq-verdict-re-en"]


def test_without_a_pasted_error_nothing_moves(by_language):
    assert ranked(by_language, question=LOOP, language="go") == ["pitfall-rust-panic-en"]


def test_the_student_language_is_the_runtimes_then_the_codes(retriever):
    from quest.plan import student_language

    def language_of(**request: str) -> str | None:
        return student_language(plan(Request(**request), retriever))  # planning searches nothing

    assert language_of(question="q", language="python", error=RUST_PANIC) == "rust"
    assert language_of(question="q", error=UBSAN) == "cpp"
    assert language_of(question="q", language="cpp", error="Wrong Answer") is None
    assert language_of(question="q", error="stack overflow") is None  # the default "python" is not read
    assert language_of(question="q", language="other", error="Wrong Answer") is None
    # Else the code's language (read from the code, never from the field); the runtime still comes first.
    cpp = "class Solution {\npublic:\n    int f(vector<int>& a) { return a[0]; }\n};"
    assert language_of(question="q", code=cpp, error="Wrong Answer") == "cpp"
    assert language_of(question="q", code=cpp, language="java", error="Wrong Answer") == "cpp"
    assert language_of(question="q", code=cpp, error=RUST_PANIC) == "rust"
    assert language_of(question="q", code="x = 1", error="Wrong Answer") is None  # too short to tell


# ----------------------------------------------------------------------------- the rule's guards, one by one

# A C page besides the Rust and Go ones (written into the fixture's copy: the tests above keep their base). Each
# case below has several pages leading that explain the error, so it fails when its guard is taken out.
C_PAGE = """---
id: pitfall-c-array-en
kind: error_pattern
lang: en
title: "C arrays: an index past the end"
tags: [c, array]
verdicts: [RE]
languages: [c]
---
## What you see

An array index out of range in C, index 3 with length 3: a runtime error nothing checks, the read returns garbage.

## Fix

Loop while i < n, not i <= n.
"""
RUST_BOUNDS = "thread 'main' panicked: index out of bounds: the len is 3 but the index is 3"


@pytest.fixture(scope="module")
def with_c(tmp_path_factory: pytest.TempPathFactory) -> Retriever:
    root = tmp_path_factory.mktemp("lang13c")
    shutil.copytree(LANG_KB, root / "kb")
    (root / "kb" / "docs" / "pitfall-c-array.md").write_text(C_PAGE, encoding="utf-8")
    return build_retriever(Settings(kb_dir=root / "kb", data_dir=root / "data", show_progress=False,
                                    embedding_model="none", bm25_floor=0.15))


def searched(retriever: Retriever, changes: dict, language: str, **parts: str) -> list[str]:
    """The retriever's own order for `parts` with `language` given (planning gives only an error's runtime)."""
    searcher = Retriever(retriever.settings.replace(**changes), retriever.index, retriever.kb)
    found = searcher.search("\n".join(parts.values()), parts=parts, language=language)
    return [h.chunk.doc_id for h in found.hits]


def test_a_c_page_leads_for_a_cpp_student_c_and_cpp_are_one_family(with_c):
    assert searched(with_c, {"fit_lead": False}, "cpp", question=LOOP, error=GO_PANIC_LINE) == [
        "pitfall-c-array-en", "pitfall-rust-panic-en", "pitfall-go-panic-en", "faq-verdict-re-en",
        "pitfall-python-traceback-en", "pitfall-rust-panic-en"]
    # round 16 (`fit_lead`): the Rust and Go pages, each for one other language, also go behind the overview
    assert searched(with_c, {}, "cpp", question=LOOP, error=GO_PANIC_LINE) == [
        "pitfall-c-array-en", "faq-verdict-re-en", "pitfall-rust-panic-en", "pitfall-go-panic-en",
        "pitfall-python-traceback-en", "pitfall-rust-panic-en"]
    assert searched(with_c, {"language_lead": False, "fit_lead": False}, "cpp", question=LOOP,
                    error=GO_PANIC_LINE)[:2] == [
        "pitfall-rust-panic-en", "pitfall-c-array-en"]


def test_an_error_typed_only_in_the_question_moves_nothing(with_c):
    # Floor 0: every page "clears" it, so only the missing error part keeps the Go page third.
    question = f"{LOOP} {GO_PANIC_LINE}"
    expected = ["pitfall-c-array-en", "pitfall-rust-panic-en", "pitfall-go-panic-en", "faq-verdict-re-en",
                "pitfall-python-traceback-en", "pitfall-rust-panic-en"]
    assert searched(with_c, {"bm25_floor": 0.0, "fit_lead": False}, "go", question=question) == expected
    assert searched(with_c, {"bm25_floor": 0.0, "language_lead": False, "fit_lead": False}, "go",
                    question=question) == expected
    # round 16 (`fit_lead`) needs no pasted error: the pages for one other language each go behind the Go page
    assert searched(with_c, {"bm25_floor": 0.0}, "go", question=question) == [
        "pitfall-go-panic-en", "faq-verdict-re-en", "pitfall-c-array-en", "pitfall-rust-panic-en",
        "pitfall-python-traceback-en", "pitfall-rust-panic-en"]


def test_a_verdict_overview_leading_is_never_displaced(with_c):
    # The overview is written for no language; the Go page behind it explains the panic's words well above the floor.
    question = "the program started but crashed or threw before it finished"
    error = "Runtime Error\npanic: index out of range with length 3"
    assert searched(with_c, {}, "go", question=question, error=error) == [
        "faq-verdict-re-en", "pitfall-go-panic-en", "pitfall-c-array-en", "pitfall-rust-panic-en",
        "pitfall-python-traceback-en", "pitfall-go-panic-en"]


def test_a_same_language_page_under_the_floor_stays_behind(with_c):
    # A Rust panic's words with the Go field: the Go page leads on the question's words but barely matches the error.
    question = "my go slice loop panics, index out of range"
    expected = ["pitfall-rust-panic-en", "pitfall-go-panic-en", "pitfall-c-array-en", "pitfall-python-traceback-en",
                "pitfall-go-panic-en", "pitfall-rust-panic-en"]
    assert searched(with_c, {"fit_lead": False}, "go", question=question, error=RUST_BOUNDS) == expected
    assert searched(with_c, {"language_lead": False, "fit_lead": False}, "go", question=question,
                    error=RUST_BOUNDS) == expected
    # round 16 (`fit_lead`): with Go given as the student's language, the Rust page (for one other language) moves
    # behind; planning takes the language from the error's runtime first, which here says Rust
    assert searched(with_c, {}, "go", question=question, error=RUST_BOUNDS)[:2] == [
        "pitfall-go-panic-en", "pitfall-rust-panic-en"]


def test_an_eval_query_without_a_language_is_read_like_the_app_reads_it(retriever):
    from quest.evaluation import parse_query, plan_query

    base = {"id": "x", "question": "why wrong?", "lang": "en", "relevant": {}, "answerable": False}
    assert parse_query(base).language == "auto"
    cpp = "class Solution {\npublic:\n    int f(vector<int>& a) { return a[0]; }\n};"
    settings = retriever.settings
    assert plan_query(retriever, parse_query({**base, "code": cpp}), settings).request.language == "cpp"
    assert plan_query(retriever, parse_query({**base, "code": cpp, "language": "java"}),
                      settings).request.language == "java"
