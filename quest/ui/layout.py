"""The page's pieces (choices, the chat messages of a turn, header HTML) and how it is launched.

The page itself is `QuestPage` (quest/ui/page.py); `build_ui` is its entry point.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import gradio as gr

from quest.code_language import AUTO, NAMES
from quest.i18n import t
from quest.judge import VERDICT_NAMES
from quest.kb.catalogue import picker_labels
from quest.kb.documents import Problem, normalize_problem_id
from quest.request import LANGUAGES, Request, request_language
from quest.settings import TIERS, Settings
from quest.ui.desk import HelpDesk, TurnView
from quest.ui.render import (
    answer_markdown,
    quote,
    safe_markdown,
    without_bidi_controls,
)

log = logging.getLogger(__name__)

ASSETS = Path(__file__).resolve().parents[2] / "assets"

LANGUAGE_NAMES = {**NAMES, "other": "Other / 其他"}
#: gr.Code highlights only some languages (python, c, cpp, javascript, typescript, ... in Gradio 6.17); C++'s
#: highlighting reads well enough for Java and C#. The others are shown as plain text (None).
CODE_MODES: dict[str, str | None] = {
    "python": "python", "cpp": "cpp", "c": "c", "java": "cpp", "csharp": "cpp", "javascript": "javascript",
    "typescript": "typescript",
}  # fmt: skip


def language_choices(lang: str) -> list[tuple[str, str]]:
    """The language dropdown: "detect from code" first, then every language by name, "other" last."""
    named = [(LANGUAGE_NAMES[x], x) for x in LANGUAGES if x != "other"]
    return [(t("language_auto", lang), AUTO), *named, (t("language_other", lang), "other")]


BROWSER_LANG_JS = "() => [navigator.language || (navigator.languages || ['en'])[0] || 'en']"


# --------------------------------------------------------------------------- rendering helpers


def tier_choices(settings: Settings, lang: str) -> list[tuple[str, str]]:
    allowed = TIERS[: TIERS.index(settings.max_tier) + 1]
    return [(t(f"tier_{tier}", lang), tier) for tier in allowed]


def verdict_choices(lang: str) -> list[tuple[str, str]]:
    names = VERDICT_NAMES.get(lang, VERDICT_NAMES["en"])
    return [(t("verdict_none", lang), ""), *((f"{code} · {name}", code) for code, name in names.items())]


def problem_choices(problems: Mapping[str, Problem]) -> list[tuple[str, str]]:
    def order(p: Problem) -> tuple[int, int | str]:
        return (0, int(p.id)) if p.id.isdigit() else (1, p.id)

    labels = picker_labels(problems)  # the judge's own number; the source only where two sets share it
    return [(labels[p.id], p.id) for p in sorted(problems.values(), key=order)]


def user_bubble(request: Request, lang: str, problems: Mapping[str, Problem]) -> str:
    """The student's message in the chat: the question and a one-line summary of the form."""
    facts = []
    pid = normalize_problem_id(request.problem_id)
    if pid:
        facts.append(problems[pid].label if pid in problems else f"#{pid}")
    if request.code.strip():
        # As the answer reads it (`request_language`, the rule `validate_request` applies): the field, else the code,
        # else the error's runtime (judge.parse reads at most its first 20,000 characters). Undecided is "Other" in
        # the interface's language.
        language = request_language(request.language, request.code, request.error)
        name = t("language_other", lang) if language == "other" else LANGUAGE_NAMES.get(language, language)
        lines = len(request.code.strip().splitlines())
        facts.append(f"{name} · " + (t("user_code_one", lang) if lines == 1 else t("user_code", lang, lines=lines)))
    if request.verdict:
        facts.append(request.verdict)
    elif request.error.strip():
        facts.append(t("user_error", lang))
    parts = []
    # Stripped after the bidi controls go, so that a control in front of indented text cannot
    # leave four spaces that Markdown would show as a code block.
    question = without_bidi_controls(request.question).strip()
    if question:
        parts.append(safe_markdown(question))
    if facts:
        parts.append("<sub>" + safe_markdown(without_bidi_controls(" · ".join(facts))) + "</sub>")
    return "\n\n".join(parts) or "…"


def assistant_messages(view: TurnView, lang: str, *, turn: int = 0) -> list[dict[str, Any]]:
    """The chat messages of one answer: its reasoning (collapsed), then the answer. `turn` links `[n]` to sources."""
    if view.error and view.request is None:
        return [{"role": "assistant", "content": quote(view.error)}]
    messages: list[dict[str, Any]] = []
    stopped = view.stopped
    streaming = not view.done
    if view.thinking:
        thinking_status = "pending" if streaming and not view.answer else "done"
        messages.append({
            "role": "assistant",
            "content": safe_markdown(view.thinking),
            "metadata": {"title": t("thinking", lang), "status": thinking_status},
        })  # fmt: skip
    content = answer_markdown(
        view.answer, view.notices, lang=lang, incomplete=view.incomplete, stopped=stopped, streaming=streaming,
        held=view.held, turn=turn,
    )  # fmt: skip
    if view.error:
        content = (content + "\n\n" if content else "") + quote(view.error)
    messages.append({"role": "assistant", "content": content})
    return messages


# --------------------------------------------------------------------------- the page


def build_ui(settings: Settings, desk: HelpDesk, problems: Mapping[str, Problem]) -> gr.Blocks:
    from quest.ui.page import QuestPage

    return QuestPage(settings, desk, problems).build()


def examples_label_html(lang: str) -> str:
    return f'<span class="q-examples-title">{html.escape(t("examples", lang))}</span>'


def feedback_prompt_html(lang: str) -> str:
    return f'<span class="q-feedback-prompt">{html.escape(t("feedback_prompt", lang))}</span>'


def header_html(lang: str) -> str:
    return (
        f'<div class="q-header"><div class="q-logo">Q</div><div><div class="q-title">{html.escape(t("title", lang))}'
        f'</div><div class="q-subtitle">{html.escape(t("subtitle", lang))}</div></div></div>'
    )


# --------------------------------------------------------------------------- launching


def parse_auth(value: str | None) -> tuple[str, str] | None:
    """'user:password' -> ('user', 'password'); None or '' -> no login."""
    if not value:
        return None
    user, sep, password = value.partition(":")
    if not sep or not user or not password:
        raise ValueError("QUEST_AUTH must look like user:password")
    return user, password


def launch_options(settings: Settings, env: Mapping[str, str]) -> dict[str, Any]:
    """Keyword arguments for `demo.launch()`: host, port, share, login, files, look."""
    host = settings.host
    if env.get("SPACE_ID"):  # a Hugging Face Space reaches the app from outside its container
        host = "0.0.0.0"
    return {
        "server_name": host,
        "server_port": settings.port,
        "share": settings.share,
        "auth": parse_auth(settings.auth),
        "auth_message": "Quest · OJ help desk" if settings.auth else None,
        "show_error": False,
        "allowed_paths": [str(ASSETS)],
        "blocked_paths": [str(Path(settings.data_dir).resolve()), str(Path(settings.kb_dir).resolve())],
        "theme": theme(),
        "css_paths": [ASSETS / "quest.css"],
        "footer_links": ["api"],
        "head": f"<script>{(ASSETS / 'quest.js').read_text(encoding='utf-8')}</script>",
        # A streaming answer holds a worker thread while it waits for the model's next token,
        # so the thread pool (gradio's default: 40) must outgrow the queue's concurrency.
        "max_threads": max(40, settings.concurrency_limit + 16),
    }


def theme() -> gr.themes.Base:
    return gr.themes.Soft(
        primary_hue="indigo",
        secondary_hue="slate",
        neutral_hue="slate",
        # System fonts only: the page must not fetch anything from the internet.
        font=["ui-sans-serif", "system-ui", "Segoe UI", "PingFang SC", "Microsoft YaHei", "sans-serif"],
        font_mono=["ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "DejaVu Sans Mono", "monospace"],
    )
