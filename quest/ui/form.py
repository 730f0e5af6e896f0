"""The form's values and their conversion to a `Request`, shared by the page and the `/ask` API."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from quest.code_language import AUTO
from quest.kb.documents import Problem, normalize_problem_id
from quest.request import Request, Turn, normalize_language

#: How the page and the API turn what the student typed into a problem id (None: not known).
ProblemResolver = Callable[[str], "str | None"]

#: The version of the form the browser keeps (`FormValues.to_dict`). 2: the language field starts on "auto" (round
#: 14). A form saved without a version comes from a page whose dropdown started on "python": see `from_mapping`.
FORM_VERSION = 2


@dataclass(frozen=True)
class FormValues:
    """What the student filled in, as the browser sent it (any field may be empty or None)."""

    question: str = ""
    problem: str = ""  # an id, the picker's label ("239 · 滑动窗口最大值 · ..."), or a title
    language: str = AUTO  # "auto": detected from the code when the request is checked
    code: str = ""
    verdict: str = ""
    error: str = ""
    tier: str = ""
    reasoning: bool = False

    @classmethod
    def from_fields(cls, question: str | None, problem: str | None, language: str | None, code: str | None,
                    verdict: str | None, error: str | None, tier: str | None, reasoning: bool = False) -> FormValues:
        """From the components' values as Gradio passes them (an untouched field may be None)."""
        return cls(question or "", problem or "", language or AUTO, code or "", verdict or "", error or "",
                   tier or "", bool(reasoning))

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any] | None) -> FormValues:
        """From stored data (the browser's copy of the form): unknown keys and wrong types are dropped."""
        if not isinstance(data, Mapping):
            return cls()
        values: dict[str, Any] = {}
        for f in fields(cls):
            value = data.get(f.name)
            if f.name == "reasoning":
                values[f.name] = bool(value)
            elif isinstance(value, str):
                values[f.name] = value
        # Before version 2 the dropdown started on "python" and a saved "python" cannot tell a choice from an
        # untouched field: a returning student's C++ would be answered as Python. It reads as "auto": Python code is
        # still detected as Python, and a student who meant Python for other code sees "detected: …" and picks again.
        version = data.get("form_version")
        if values.get("language") == "python" and not (isinstance(version, int) and version >= 2):
            values["language"] = AUTO
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "form_version": FORM_VERSION}

    def to_request(
        self,
        *,
        default_tier: str,
        ui_lang: str,
        resolve_problem: ProblemResolver,
        history: tuple[Turn, ...] = (),
        session_id: str = "",
    ) -> Request:
        problem_text = (self.problem or "").strip()
        problem_id = resolve_problem(problem_text) if problem_text else None
        if problem_id is None and problem_text:  # not in the catalogue: an id is passed on, a phrase is not
            head = problem_text.split("·")[0].strip()
            problem_id = head if head and len(head) <= 24 and " " not in head else None
        language = normalize_language(self.language)  # a judge's label is its language; empty or unknown is "auto"
        return Request(
            question=self.question or "",
            problem_id=problem_id,
            language=language,
            code=self.code or "",
            error=self.error or "",
            verdict=self.verdict or None,
            history=history,
            tier=self.tier or default_tier,
            ui_lang=ui_lang,
            reasoning=bool(self.reasoning),
            session_id=session_id,
        )


def problem_resolver(problems: Mapping[str, Problem], exact_match: Callable[[str], Any] | None) -> ProblemResolver:
    """An id ("239", "#239"), the picker's label, or a title -> the problem's id.

    The catalogue answers ids and labels; the retriever's exact match (when the assistant is
    up) answers titles in either language. Anything else comes back as None.
    """

    def resolve(text: str) -> str | None:
        head = text.split("·")[0].strip()
        pid = normalize_problem_id(head)
        if pid and pid in problems:
            return pid
        for candidate in (text, head):
            found = exact_match(candidate) if exact_match is not None and candidate else None
            if found is not None:
                return str(getattr(found, "id", found))
        return None

    return resolve
