"""The `/ask` endpoint ("Use via API"): the page's form as named, typed, described parameters."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from typing import Any, Literal

import gradio as gr
from gradio.context import get_blocks_context
from gradio.utils import get_function_description

from quest.i18n import resolve_lang, t
from quest.request import LANGUAGES, detect_lang
from quest.settings import Settings
from quest.ui.desk import HelpDesk
from quest.ui.form import FormValues, ProblemResolver
from quest.ui.render import plain_answer, sources_json

log = logging.getLogger(__name__)

Status = Literal["streaming", "done", "stopped", "incomplete", "fallback", "refused", "error"]
ASK_DESCRIPTION = (
    "Ask Quest about an online-judge problem. Streams (answer, sources, status) tuples while the "
    "answer is written; the last one is final."
)


def add_ask_api(settings: Settings, desk: HelpDesk, resolver: Callable[[], ProblemResolver]) -> None:
    """Register `/ask` on the Blocks being built."""
    default_tier = settings.cap_tier(settings.default_tier)

    def ask(
        question: str,
        problem: str = "",
        language: str = "auto",
        code: str = "",
        verdict: str = "",
        error: str = "",
        tier: str = "",
        lang: str = "auto",
        request: gr.Request = None,
    ) -> Iterator[tuple[str, str, Status]]:
        """
        Ask Quest a question about a problem, your code and the judge's message.

        Args:
            question: The student's question, e.g. "Why does my solution get TLE?".
            problem: The problem: its id ("239"), the picker's label, or its title in Chinese or English. May be empty.
            language: The code's programming language: auto (read from the code; the default), {languages}.
            code: The student's code (plain text). May be empty.
            verdict: The judge's verdict code, e.g. TLE, WA, RE, CE, MLE. May be empty.
            error: The judge's full message: failing test, traceback or compiler output. May be empty.
            tier: How much help: hint, explain or solution (capped by the operator). Empty: the default.
            lang: Language of the answer and messages: zh, en, or auto (the question's language).

        Returns:
            answer: The answer as Markdown, growing while it streams (notices quoted on top).
            sources: JSON list of the sources used: number, kind, title, section, problem_id, score, cited, text.
            status: streaming, done, stopped, incomplete, fallback (no model: sources only), refused or error.
        """
        fields = {"question": question, "problem": problem, "code": code, "verdict": verdict, "error": error,
                  "tier": tier, "lang": lang}
        texts = {name: _as_text(value) for name, value in fields.items()}
        lang = texts["lang"] or "auto"
        ui = detect_lang(texts["question"] or "") if lang == "auto" else resolve_lang(lang)
        wrong = next((name for name, text in texts.items() if text is None), None)
        if wrong is not None:  # a JSON caller's list or object: said plainly, nothing guessed from it
            yield t("input_not_text", ui, field=wrong, kind=type(fields[wrong]).__name__), json.dumps([]), "refused"
            return
        sources = _SourcesJson()
        try:
            values = FormValues.from_fields(texts["question"], texts["problem"], language, texts["code"],
                                            texts["verdict"], texts["error"], texts["tier"])
            session_id = (request.session_hash if request else "") or ""
            req = values.to_request(default_tier=default_tier, ui_lang=ui, resolve_problem=resolver(),
                                    session_id=session_id)  # fmt: skip
            for view in desk.answer(req, session=session_id or "api", lang=ui):
                yield _api_output(view, ui, sources)
        except Exception:
            log.exception("/ask failed")
            yield t("internal_error", ui), json.dumps([]), "error"

    # The languages from the one list the request checks against (Gradio reads one line per parameter).
    # An unknown value is read from the code, as auto (`normalize_language`): said here, so callers know.
    languages = ", ".join(LANGUAGES[:-1]) + " or " + LANGUAGES[-1]
    languages += " (a judge's label such as C++17 or Python 3.10 is read without its version; anything else as auto)"
    ask.__doc__ = (ask.__doc__ or "").replace("{languages}", languages)
    # Gradio reads the outputs from the return annotation, and only from a tuple: each streamed item is one.
    ask.__annotations__["return"] = tuple[str, str, Status]
    gr.api(ask, api_name="ask", api_description=ASK_DESCRIPTION)
    _describe(get_blocks_context(), "ask", ask)


def _as_text(value: Any) -> str | None:
    """An API field as text: None is empty and a number is its digits (JSON callers send `"problem": 239`); a list,
    an object or anything else is None, refused with a message rather than guessed at."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return None


def _describe(blocks: Any, api_name: str, fn: Callable[..., Any]) -> None:
    """Name and describe each parameter and output in "Use via API" (gr.api labels them "1st", "2nd", ...)."""
    _, params, returns = get_function_description(fn)
    for dependency in blocks.fns.values():
        if dependency.api_name != api_name:
            continue
        for block, name in zip(dependency.inputs, [n for n in params if n != "request"], strict=False):
            _label(block, name, params[name])
        for block, text in zip(dependency.outputs, returns, strict=False):
            name, _, description = text.partition(":")
            _label(block, name.strip(), description.strip())


def _label(block: Any, name: str, description: str) -> None:
    block.label = f"{name}: {description}" if description else name
    info = dict(block.api_info())
    info.update(description=description, additional_description=description)
    block._api_info = info


class _SourcesJson:
    """The sources' JSON of one answer, made again only when they change (not on every token)."""

    def __init__(self) -> None:
        self._key: tuple[Any, Any] | None = None
        self._text = "[]"

    def __call__(self, sources: Any, cited: tuple[int, ...]) -> str:
        if self._key is None or self._key[0] is not sources or self._key[1] != cited:
            self._key, self._text = (sources, cited), sources_json(sources or (), cited)
        return self._text


def _api_output(view: Any, lang: str, sources: _SourcesJson) -> tuple[str, str, Any]:
    if view.error and view.request is None:
        return view.error, "[]", "error"
    answer = plain_answer(view.answer, view.notices, lang=lang, incomplete=view.incomplete and view.done)
    if view.error:
        answer = (answer + "\n\n" if answer else "") + view.error
    return answer, sources(view.sources, view.cited), view.status_word
