"""What a pasted error names exactly: the exception's class, and the programming language its name implies.

A student who pastes "System.IndexOutOfRangeException: Index was outside the bounds of the array" has told us
the one word that finds the document explaining it: only the C# page holds `IndexOutOfRangeException`. Fused
by RRF with the question's and the code's lists, that word counted as one vote among many weak ones, so a page
that matched every part a little (Java's exceptions, Go's panics) came first. The retriever uses this evidence
to put a candidate that contains the exact name first (`named_first`), preferring one written for the language
the name belongs to: `java.lang.ArrayIndexOutOfBoundsException` is explained both by the Java page and by the
C++ out-of-bounds page (which mentions Java's name in passing); the Java page is the answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import TypeVar

from quest.judge import JudgeReport
from quest.retrieval.tokenize import to_simplified

# A name's namespace says whose runtime threw it; a bare name ("ValueError", "TypeError") could be several.
_NAMESPACES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^(?:java|javax|kotlin)\."), "java"),
    (re.compile(r"^System\."), "csharp"),
    (re.compile(r"^std::"), "cpp"),
)
# "ERROR: AddressSanitizer: stack-overflow on address …": the kind as the sanitizer names it.
_SANITIZER_KIND = re.compile(r"(?:Address|Leak|Memory|Thread)Sanitizer: ([A-Za-z][\w-]*[A-Za-z])")
# A class name is specific when it is made of several words: "IndexOutOfRangeException", "out_of_range".
_COMPOUND_NAME = re.compile(r"[a-z0-9][A-Z]|_[a-z]")

_T = TypeVar("_T")


# "What does this message mean?", "这个报错是什么意思", "這個數字代表什麼": the student asks about the error itself.
_ASKS_MEANING = re.compile(
    r"what (?:does|do|is|'s) (?:this|that|it|the|these)\b.{0,30}\bmean|"
    r"what (?:is|does) (?:this|that|the) (?:error|message|warning|output)|meaning of|"
    r"什么意思|啥意思|代表什么|什么含义|是什么错误|什么错误", re.I)
#: With the question asking what the message means, a general document that explains the message leads the named
#: problem's own documents when it matches the message at least this many times as well as they do (instead of
#: `general_error_lead`), also when the problem has an error pattern for the verdict.
ASKED_LEAD = 1.0


@dataclass(frozen=True)
class ErrorEvidence:
    """What the pasted error names exactly — its exception class or its sanitizer's kind, as written, with the
    language the name belongs to (if it says) — and whether the question asks what that message means."""

    names: tuple[str, ...] = ()
    language: str | None = None
    asked: bool = False
    compile_error: bool = False  # a compiler's diagnostic: the program never ran, its text is what is wrong

    def named_in(self, text: str) -> bool:
        """Whether `text` holds one of the names as a whole word ("stack-overflow", not "stack-buffer-overflow")."""
        return any(re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) for name in self.names)


def asks_meaning(question: str) -> bool:
    """Whether the question asks what a message means (in English or Chinese, either script)."""
    return bool(_ASKS_MEANING.search(to_simplified(question)))


def error_evidence(report: JudgeReport, question: str = "") -> ErrorEvidence | None:
    """The exception class or sanitizer kind the report names, whether the question asks about a specific
    message (a sanitizer's or runtime's kind, an exception class, a compiler's diagnostic) and whether the
    message is a compiler's diagnostic; None when the error names nothing specific and the question does not
    ask about it."""
    names: tuple[str, ...] = ()
    language = None
    exception = (report.exception or "").strip()
    last = re.split(r"\.|::", exception)[-1] if exception else ""
    if _COMPOUND_NAME.search(last):  # "Exception", "Error", "panic" alone say nothing a verdict does not
        names = (last,)
        language = next((lang for pattern, lang in _NAMESPACES if pattern.search(exception)), None)
    names += tuple(dict.fromkeys(m.group(1) for msg in report.messages for m in _SANITIZER_KIND.finditer(msg)))
    diagnostic = report.verdict == "CE" and bool(report.messages)
    asked = bool(report.kind or names or diagnostic) and asks_meaning(question)
    return ErrorEvidence(names, language, asked, diagnostic) if names or asked or diagnostic else None


def named_first(candidates: Sequence[_T], naming: Collection[_T], speaks: Callable[[_T], bool]) -> list[_T]:
    """`candidates` with the first one that contains the error's name moved to the front.

    Among the candidates that name it (`naming`), one written for the name's language (`speaks`) wins over an
    earlier one that is not; otherwise the order is kept. Nothing names it: the order is unchanged.
    """
    named = [c for c in candidates if c in naming]
    if not named:
        return list(candidates)
    first = next((c for c in named if speaks(c)), named[0])
    return [first, *(c for c in candidates if c is not first)]
