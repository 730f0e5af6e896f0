"""A student's request, and the checks every entry point (UI, API, CLI) runs on it."""

from __future__ import annotations

import logging
import re
import unicodedata
from dataclasses import dataclass

from quest.code_language import AUTO, resolve_language
from quest.errors import InputError
from quest.judge import parse
from quest.kb.documents import normalize_problem_id
from quest.lang import detect_lang
from quest.settings import TIERS, Settings

log = logging.getLogger(__name__)

#: The programming languages a request can name ("other": none of these). The form also offers AUTO ("auto"):
#: `validate_request` replaces it by the language the code is written in (`quest.code_language`).
LANGUAGES = ("python", "cpp", "c", "java", "javascript", "typescript", "go", "rust", "csharp", "kotlin", "swift",
             "other")
#: What students and API callers write for them.
LANGUAGE_ALIASES = {
    "c++": "cpp", "g++": "cpp", "gnu c++": "cpp", "gnu g++": "cpp", "clang++": "cpp", "py": "python",
    "python3": "python", "pypy": "python", "js": "javascript", "node": "javascript", "node.js": "javascript",
    "nodejs": "javascript", "ts": "typescript", "golang": "go", "rs": "rust", "c#": "csharp", "cs": "csharp",
    "kt": "kotlin", "gcc": "c", "gnu c": "c",
}  # fmt: skip


@dataclass(frozen=True)
class Turn:
    """One earlier exchange of the conversation."""

    question: str
    answer: str


@dataclass(frozen=True)
class Request:
    question: str
    problem_id: str | None = None
    language: str = AUTO  # programming language of `code`; "auto": detected from it (`validate_request`)
    code: str = ""
    error: str = ""  # the judge's verdict line and/or full message
    verdict: str | None = None  # chosen in the UI (TLE, WA, ...) when given separately
    history: tuple[Turn, ...] = ()
    tier: str = "explain"
    ui_lang: str = "auto"  # zh | en | auto (by the question's language)
    reasoning: bool = False  # use the reasoning model
    session_id: str = ""

    def answer_lang(self) -> str:
        if self.ui_lang in ("zh", "en"):
            return self.ui_lang
        return detect_lang(self.question)


def looks_binary(text: str) -> bool:
    """True for pasted junk: NUL bytes or a high share of control / unassigned characters."""
    if "\x00" in text:
        return True
    if not text:
        return False
    sample = text[:4000]
    bad = sum(
        1
        for ch in sample
        if (unicodedata.category(ch) in ("Cc", "Cn", "Co", "Cs") and ch not in "\n\r\t") or ch == "\ufffd"
    )
    return bad > max(8, len(sample) * 0.05)


#: Lone UTF-16 surrogates: a JSON caller's "\ud800", or argv bytes that are not UTF-8 (Python keeps them as
#: U+DC80-U+DCFF). No UTF-8 encoder accepts them, so the model call, the feedback store and the logs failed on them.
_SURROGATE = re.compile("[\ud800-\udfff]")
#: The longest problem id and verdict a request may name: a picker's id or a judge's code is a few characters; more
#: is a paste into the wrong field, and the verdict reaches the judge parser beside the (bounded) message.
MAX_PROBLEM_CHARS = 100
MAX_VERDICT_CHARS = 100


def clean_text(value: str) -> str:
    """Student text as every later stage can use it: no leading byte-order mark (some copy-pastes and file readers
    keep one; it is never part of the text), each lone surrogate replaced by U+FFFD, as a decoder does."""
    return _SURROGATE.sub("\ufffd", value.removeprefix("\ufeff"))


def is_blank(text: str) -> bool:
    """True when nothing of `text` would show: only whitespace and invisible format characters (zero-width spaces,
    joiners, bidirectional controls such as U+202E), which `str.strip` keeps."""
    return all(ch.isspace() or unicodedata.category(ch) == "Cf" for ch in text)


def _check_field(name: str, value: str, limit: int, label: str = "") -> None:
    if len(value) > limit:
        raise InputError(
            f"The {label or name} is {len(value):,} characters long; the limit is {limit:,}. "
            f"Please shorten it (nothing was cut for you).",
            field=name,
            reason="too_long",
            limit=limit,
            length=len(value),
        )
    if looks_binary(value):
        raise InputError(f"The {label or name} looks like binary data, not text. Please paste it as text.",
                         field=name, reason="binary")


#: A judge's language label ends in a version ("C++17", "Python 3.10", "Java 11", "go1.21"): dropped before the look-up.
_VERSION_TAIL = re.compile(r"[\s\d.]+$")


def normalize_language(value: object) -> str:
    """A language field as typed -> one of LANGUAGES, or AUTO when it is empty, "auto" or not a language we know.

    An API caller or the CLI may pass any text, often a judge's label with a version ("C++17", "PyPy3"); a known
    name with its version dropped is that language. Anything else is read from the code (AUTO), as if left empty:
    "other" is kept for a student who says so, and an unknown label used to become "other" and switch detection off
    (round 14 review)."""
    if not isinstance(value, str):  # an API caller's number or list: not a language
        value = ""
    language = value.strip().lower()[:40] or AUTO
    for candidate in (language, _VERSION_TAIL.sub("", language)):
        candidate = LANGUAGE_ALIASES.get(candidate, candidate)
        if candidate in LANGUAGES or candidate == AUTO:
            return candidate
    log.debug("unknown language field %r: read from the code", language)
    return AUTO


def detected_language(code: str, error: str) -> str:
    """The language the code is written in; when the code does not say, the one whose runtime printed the pasted
    error (a traceback says Python, a panic Rust); else "other"."""
    return resolve_language(AUTO, code, lambda: parse(error).runtime if error.strip() else None)


def request_language(field: str | None, code: str, error: str) -> str:
    """The language a request is answered in: the field's (normalized), or on "auto" the detected one."""
    language = normalize_language(field)
    return detected_language(code, error) if language == AUTO else language


def validate_request(request: Request, settings: Settings) -> Request:
    """Check sizes and content and return a normalized copy; raise InputError otherwise."""
    question = clean_text(request.question or "").strip()
    question = "" if is_blank(question) else question  # zero-width or direction characters alone ask nothing
    code = clean_text(request.code or "")
    error = clean_text(request.error or "")
    if not question and is_blank(code) and is_blank(error):
        raise InputError("Please type a question (and, if you have them, your code and the judge's message).",
                         field="question", reason="empty")
    _check_field("question", question, settings.max_question_chars)
    _check_field("code", code, settings.max_code_chars)
    _check_field("error", error, settings.max_error_chars)
    problem_id = normalize_problem_id(None if request.problem_id is None else clean_text(str(request.problem_id)))
    verdict = clean_text(request.verdict or "").strip()
    _check_field("problem", problem_id or "", MAX_PROBLEM_CHARS, "problem id")
    _check_field("verdict", verdict, MAX_VERDICT_CHARS)
    language = request_language(request.language, code, error)
    tier = request.tier if request.tier in TIERS else settings.default_tier
    return Request(
        question=question,
        problem_id=problem_id,
        language=language,
        code=code,
        error=error,
        verdict=verdict or None,
        history=tuple(request.history),
        tier=settings.cap_tier(tier),
        ui_lang=request.ui_lang,
        reasoning=request.reasoning,
        session_id=request.session_id,
    )

