"""A student's request, and the checks every entry point (UI, API, CLI) runs on it."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from quest.code_language import AUTO, resolve_language
from quest.errors import InputError
from quest.judge import parse
from quest.kb.documents import normalize_problem_id
from quest.lang import detect_lang
from quest.settings import TIERS, Settings

#: The programming languages a request can name ("other": none of these). The form also offers AUTO ("auto"):
#: `validate_request` replaces it by the language the code is written in (`quest.code_language`).
LANGUAGES = ("python", "cpp", "c", "java", "javascript", "typescript", "go", "rust", "csharp", "kotlin", "swift",
             "other")
#: What students and API callers write for them.
LANGUAGE_ALIASES = {
    "c++": "cpp", "py": "python", "python3": "python", "js": "javascript", "node": "javascript", "ts": "typescript",
    "golang": "go", "rs": "rust", "c#": "csharp", "cs": "csharp", "kt": "kotlin",
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


def _check_field(name: str, value: str, limit: int) -> None:
    if len(value) > limit:
        raise InputError(
            f"The {name} is {len(value):,} characters long; the limit is {limit:,}. "
            f"Please shorten it (nothing was cut for you).",
            field=name,
            reason="too_long",
            limit=limit,
            length=len(value),
        )
    if looks_binary(value):
        raise InputError(f"The {name} looks like binary data, not text. Please paste it as text.",
                         field=name, reason="binary")


def normalize_language(value: str | None) -> str:
    """A language field as typed -> one of LANGUAGES, or AUTO when it is empty or "auto"."""
    language = (value or AUTO).strip().lower() or AUTO
    language = LANGUAGE_ALIASES.get(language, language)
    return language if language in LANGUAGES or language == AUTO else "other"


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
    # A byte-order mark survives some copy-pastes and file readers; it is never part of the text.
    question = (request.question or "").removeprefix("\ufeff").strip()
    code = (request.code or "").removeprefix("\ufeff")
    error = (request.error or "").removeprefix("\ufeff")
    if not question and not code.strip() and not error.strip():
        raise InputError("Please type a question (and, if you have them, your code and the judge's message).",
                         field="question", reason="empty")
    _check_field("question", question, settings.max_question_chars)
    _check_field("code", code, settings.max_code_chars)
    _check_field("error", error, settings.max_error_chars)
    language = request_language(request.language, code, error)
    tier = request.tier if request.tier in TIERS else settings.default_tier
    return Request(
        question=question,
        problem_id=normalize_problem_id(request.problem_id),
        language=language,
        code=code,
        error=error,
        verdict=(request.verdict or None),
        history=tuple(request.history),
        tier=settings.cap_tier(tier),
        ui_lang=request.ui_lang,
        reasoning=request.reasoning,
        session_id=request.session_id,
    )

