"""The Gradio page: the form, the chat, the sources panel, the status line, and the `/ask` API.

The handlers here only translate between Gradio and `HelpDesk` (quest/ui/desk.py), which
holds the chat logic as a plain generator.
"""

from __future__ import annotations

import html
import json
import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import gradio as gr

from quest.i18n import resolve_lang, t
from quest.judge import VERDICT_NAMES
from quest.kb.catalogue import picker_labels
from quest.kb.documents import Problem, normalize_problem_id
from quest.request import LANGUAGES, Request, Turn, detect_lang
from quest.settings import TIERS, Settings
from quest.ui.desk import HelpDesk, TurnView
from quest.ui.examples import EXAMPLES, example_label
from quest.ui.render import (
    answer_markdown,
    plain_answer,
    quote,
    safe_markdown,
    sources_html,
    sources_json,
    status_html,
)

log = logging.getLogger(__name__)

ASSETS = Path(__file__).resolve().parents[2] / "assets"

LANGUAGE_NAMES = {
    "python": "Python",
    "cpp": "C++",
    "c": "C",
    "java": "Java",
    "javascript": "JavaScript",
    "go": "Go",
    "other": "Other / 其他",
}
#: gr.Code has no Java or Go mode; C++'s highlighting reads well enough for Java.
CODE_MODES: dict[str, str | None] = {
    "python": "python", "cpp": "cpp", "c": "c", "java": "cpp", "javascript": "javascript",
}  # fmt: skip


BROWSER_LANG_JS = "() => [navigator.language || (navigator.languages || ['en'])[0] || 'en']"


# --------------------------------------------------------------------------- session state


@dataclass
class TurnRecord:
    view: TurnView
    first: int  # index of its first assistant message in the chat
    last: int
    stopped: bool = False


@dataclass
class Session:
    messages: list[dict[str, Any]] = field(default_factory=list)
    turns: list[TurnRecord] = field(default_factory=list)
    current: TurnRecord | None = None  # the answer being streamed
    user_message: dict[str, Any] | None = None
    last_stats: dict[str, Any] = field(default_factory=dict)

    def history(self, turns: int) -> tuple[Turn, ...]:
        done = [Turn(r.view.request.question, r.view.answer) for r in self.turns if r.view.request and r.view.answer]
        return tuple(done[-turns:]) if turns > 0 else ()

    def record_at(self, index: int) -> tuple[int, TurnRecord] | None:
        for number, record in enumerate(self.turns):
            if record.first <= index <= record.last:
                return number, record
        return None


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
        facts.append(f"{LANGUAGE_NAMES.get(request.language, request.language)} · "
                     + t("user_code", lang, lines=len(request.code.strip().splitlines())))
    if request.verdict:
        facts.append(request.verdict)
    elif request.error.strip():
        facts.append(t("user_error", lang))
    parts = []
    if request.question.strip():
        parts.append(safe_markdown(request.question.strip()))
    if facts:
        parts.append("<sub>" + safe_markdown(" · ".join(facts)) + "</sub>")
    return "\n\n".join(parts) or "…"


def assistant_messages(view: TurnView, lang: str, *, stopped: bool = False) -> list[dict[str, Any]]:
    if view.error and view.request is None:
        return [{"role": "assistant", "content": quote(view.error)}]
    messages: list[dict[str, Any]] = []
    streaming = not view.done and not stopped
    if view.thinking:
        thinking_status = "pending" if streaming and not view.answer else "done"
        messages.append({
            "role": "assistant",
            "content": safe_markdown(view.thinking),
            "metadata": {"title": t("thinking", lang), "status": thinking_status},
        })  # fmt: skip
    content = answer_markdown(
        view.answer, view.notices, lang=lang, incomplete=view.incomplete, stopped=stopped, streaming=streaming
    )
    if view.error:
        content = (content + "\n\n" if content else "") + quote(view.error)
    messages.append({"role": "assistant", "content": content})
    return messages


# --------------------------------------------------------------------------- the page


def build_ui(settings: Settings, desk: HelpDesk, problems: Mapping[str, Problem]) -> gr.Blocks:
    lang0 = settings.ui_lang if settings.ui_lang in ("zh", "en") else "en"
    default_tier = settings.cap_tier(settings.default_tier)
    examples = [e for e in EXAMPLES if not problems or e.problem_id in problems]

    def status_for(lang: str, session: Session | None) -> str:
        stats = session.last_stats if session else None
        return status_html(
            desk.status(), lang=lang, last_stats=stats,
            starting=desk.startup.last_message, failed=desk.startup.failed,
        )  # fmt: skip

    with gr.Blocks(title="Quest", fill_width=True, elem_id="quest") as demo:
        session = gr.State(Session())
        lang = gr.State(lang0)
        browser_lang = gr.Textbox(visible=False)

        with gr.Row(elem_id="q-header", equal_height=True):
            header = gr.HTML(_header_html(lang0), elem_id="q-title")
            lang_switch = gr.Radio(
                [("中文", "zh"), ("English", "en")], value=lang0, show_label=False,
                container=False, elem_id="q-lang", scale=0, min_width=230,
            )  # fmt: skip
        status = gr.HTML(status_for(lang0, None), elem_id="q-status-line")

        with gr.Row(elem_id="q-main"):
            with gr.Column(scale=7, min_width=420):
                chatbot = gr.Chatbot(
                    label=t("chat", lang0),
                    placeholder=t("chat_placeholder", lang0),
                    height=520,
                    sanitize_html=True,
                    allow_tags=False,
                    render_markdown=True,
                    feedback_options=("Like", "Dislike"),
                    buttons=["copy"],
                    latex_delimiters=[],
                    elem_id="q-chat",
                )
                question = gr.Textbox(
                    label=t("question", lang0), placeholder=t("question_placeholder", lang0),
                    lines=2, max_lines=8, elem_id="q-question",
                )  # fmt: skip
                with gr.Row():
                    send = gr.Button(t("send", lang0), variant="primary", elem_id="q-send", scale=3)
                    stop = gr.Button(t("stop", lang0), variant="stop", elem_id="q-stop", scale=1)
                    clear = gr.Button(t("clear", lang0), variant="secondary", elem_id="q-clear", scale=1)
                with gr.Row(elem_id="q-examples", equal_height=True):
                    examples_label = gr.HTML(_examples_label(lang0), elem_classes=["q-examples-label"])
                    example_buttons = [
                        gr.Button(
                            example_label(e, lang0), size="sm", variant="secondary", elem_classes=["q-example"],
                            min_width=60,
                        )
                        for e in examples
                    ]
            with gr.Column(scale=5, min_width=320):
                sources = gr.HTML(sources_html(None, lang=lang0), elem_id="q-sources-panel")

        with gr.Accordion(t("submission", lang0), open=True, elem_id="q-form") as form:
            with gr.Row():
                problem = gr.Dropdown(
                    problem_choices(problems), value=None, label=t("problem", lang0), info=t("problem_info", lang0),
                    filterable=True, allow_custom_value=False, scale=3, elem_id="q-problem",
                )  # fmt: skip
                language = gr.Dropdown(
                    [(LANGUAGE_NAMES[x], x) for x in LANGUAGES], value="python", label=t("language", lang0),
                    scale=1, min_width=130, elem_id="q-language",
                )  # fmt: skip
                verdict = gr.Dropdown(
                    verdict_choices(lang0), value="", label=t("verdict", lang0), scale=2, min_width=240,
                    elem_id="q-verdict",
                )  # fmt: skip
                tier = gr.Radio(
                    tier_choices(settings, lang0), value=default_tier, label=t("tier", lang0), scale=3, min_width=280,
                    elem_id="q-tier",
                )  # fmt: skip
            with gr.Row():
                code = gr.Code(
                    language="python", label=t("code", lang0), lines=12, max_lines=24, scale=3, elem_id="q-code",
                )  # fmt: skip
                with gr.Column(scale=2):
                    error = gr.Textbox(
                        label=t("error", lang0), placeholder=t("error_placeholder", lang0), lines=9, max_lines=16,
                        elem_id="q-error",
                    )  # fmt: skip
                    reasoning = gr.Checkbox(label=t("reasoning", lang0), value=False, elem_id="q-reasoning")

        # ------------------------------------------------------------------ handlers

        def on_send(
            q: str, pid: str | None, lng: str, src: str, verd: str, err: str, tr: str, think: bool,
            ui: str, state: Session, request: gr.Request,
        ) -> Iterator[tuple[Any, ...]]:  # fmt: skip
            session_id = (request.session_hash if request else "") or ""
            req = Request(
                question=q or "", problem_id=pid or None, language=lng or "python", code=src or "",
                error=err or "", verdict=verd or None, history=state.history(settings.history_turns),
                tier=tr or default_tier, ui_lang=ui, reasoning=bool(think), session_id=session_id,
            )  # fmt: skip
            base = list(state.messages)
            user = {"role": "user", "content": user_bubble(req, ui, problems)}
            first = len(base) + 1
            accepted = False
            try:
                for view in desk.answer(req, session=session_id, lang=ui):
                    bot = assistant_messages(view, ui)
                    messages = [*base, user, *bot]
                    record = TurnRecord(view, first, first + len(bot) - 1)
                    ask_again = gr.update()
                    if view.request is not None and not accepted:
                        accepted = True
                        ask_again = ""  # the question was taken: empty the box for the next one
                    if view.done:
                        state.messages = messages
                        state.current = None
                        if view.request is not None:
                            state.turns.append(record)
                            state.last_stats = dict(view.stats)
                        shown = sources_html(view.sources, view.cited, lang=ui) if view.request else gr.update()
                        yield messages, shown, status_for(ui, state), ask_again, state
                    else:
                        state.current, state.user_message = record, user
                        yield messages, sources_html(view.sources, view.cited, lang=ui), gr.update(), ask_again, state
            except Exception:  # HelpDesk already turns failures into messages; this is the last net
                log.exception("send handler failed")
                messages = [*base, user, {"role": "assistant", "content": quote(t("internal_error", ui))}]
                state.messages, state.current = messages, None
                yield messages, gr.update(), gr.update(), gr.update(), state

        def on_stop(ui: str, state: Session) -> tuple[Any, Session]:
            record = state.current
            if record is None or state.user_message is None:
                return gr.update(), state
            record = replace(record, stopped=True, view=replace(record.view, incomplete=True))
            bot = assistant_messages(record.view, ui, stopped=True)
            state.messages = [*state.messages, state.user_message, *bot]
            record = replace(record, last=record.first + len(bot) - 1)
            if record.view.request is not None:
                state.turns.append(record)
            state.current = state.user_message = None
            return state.messages, state

        def on_clear(ui: str) -> tuple[Any, ...]:
            fresh = Session()
            return [], sources_html(None, lang=ui), "", fresh

        def on_like(ui: str, state: Session, data: gr.LikeData, request: gr.Request) -> None:
            index = data.index[0] if isinstance(data.index, list | tuple) else data.index
            found = state.record_at(int(index))
            if found is None:
                return
            number, record = found
            liked = data.liked if isinstance(data.liked, bool) else None
            session_id = (request.session_hash if request else "") or ""
            try:
                if desk.rate(record.view, session=session_id, turn=number, liked=liked, lang=ui):
                    gr.Info(t("feedback_thanks" if liked is not None else "feedback_removed", ui), duration=3)
            except Exception:
                log.exception("storing feedback failed")

        def on_language(ui: str, state: Session) -> tuple[Any, ...]:
            ui = resolve_lang(ui)
            last = state.turns[-1].view if state.turns else None
            return (
                ui,
                _header_html(ui),
                status_for(ui, state),
                gr.update(label=t("chat", ui), placeholder=t("chat_placeholder", ui)),
                gr.update(label=t("question", ui), placeholder=t("question_placeholder", ui)),
                gr.update(value=t("send", ui)),
                gr.update(value=t("stop", ui)),
                gr.update(value=t("clear", ui)),
                sources_html(last.sources if last else None, last.cited if last else (), lang=ui),
                gr.update(label=t("submission", ui)),
                gr.update(label=t("problem", ui), info=t("problem_info", ui)),
                gr.update(label=t("language", ui)),
                gr.update(label=t("verdict", ui), choices=verdict_choices(ui)),
                gr.update(label=t("tier", ui), choices=tier_choices(settings, ui)),
                gr.update(label=t("code", ui)),
                gr.update(label=t("error", ui), placeholder=t("error_placeholder", ui)),
                gr.update(label=t("reasoning", ui)),
                _examples_label(ui),
                *(gr.update(value=example_label(e, ui)) for e in examples),
            )

        def on_load(browser: str) -> str:
            if settings.ui_lang in ("zh", "en"):
                return settings.ui_lang
            return resolve_lang(browser, default=lang0)

        def on_tick(ui: str, state: Session) -> tuple[str, Any]:
            return status_for(ui, state), gr.Timer(active=not desk.startup.done.is_set())

        # ------------------------------------------------------------------ wiring

        private: dict[str, Any] = {"api_visibility": "private"}

        for example, button in zip(examples, example_buttons, strict=True):
            button.click(
                lambda e=example: (e.question, e.problem_id, e.language, e.code, e.verdict, e.error),
                None, [question, problem, language, code, verdict, error], queue=False, **private,
            )  # fmt: skip

        form_inputs = [question, problem, language, code, verdict, error, tier, reasoning, lang, session]
        send_outputs = [chatbot, sources, status, question, session]
        sent = send.click(on_send, form_inputs, send_outputs, show_progress="minimal", **private)
        submitted = question.submit(on_send, form_inputs, send_outputs, show_progress="minimal", **private)
        stop.click(on_stop, [lang, session], [chatbot, session], cancels=[sent, submitted], queue=False, **private)
        clear.click(on_clear, [lang], [chatbot, sources, question, session], cancels=[sent, submitted],
                    queue=False, **private)  # fmt: skip
        chatbot.like(on_like, [lang, session], None, **private)
        language.change(lambda x: gr.update(language=CODE_MODES.get(x)), language, code, queue=False, **private)
        lang_switch.change(
            on_language, [lang_switch, session],
            [lang, header, status, chatbot, question, send, stop, clear, sources, form, problem, language,
             verdict, tier, code, error, reasoning, examples_label, *example_buttons],
            queue=False, **private,
        )  # fmt: skip
        demo.load(on_load, [browser_lang], [lang_switch], js=BROWSER_LANG_JS, queue=False, **private)
        demo.load(lambda ui, state: status_for(ui, state), [lang, session], [status], queue=False, **private)
        timer = gr.Timer(2.0, active=not desk.startup.done.is_set())
        timer.tick(on_tick, [lang, session], [status, timer], queue=False, **private)

        def ask(
            question: str,
            problem: str = "",
            language: str = "python",
            code: str = "",
            verdict: str = "",
            error: str = "",
            tier: str = "",
            lang: str = "auto",
            request: gr.Request = None,
        ) -> Iterator[tuple[str, str, str]]:
            """Ask Quest. Streams (answer_markdown, sources_json, status); status is one of
            streaming, done, incomplete, fallback, refused or error. lang: zh, en or auto
            (the question's language)."""
            ui = detect_lang(question or "") if (lang or "auto") == "auto" else resolve_lang(lang)
            pid = (problem or "").split("·")[0].strip() or None
            req = Request(
                question=question or "", problem_id=pid, language=language or "python", code=code or "",
                error=error or "", verdict=verdict or None, tier=tier or default_tier, ui_lang=ui,
                session_id=(request.session_hash if request else "") or "",
            )  # fmt: skip
            try:
                for view in desk.answer(req, session=req.session_id or "api", lang=ui):
                    if view.error and view.request is None:
                        yield view.error, "[]", "error"
                        continue
                    answer = plain_answer(view.answer, view.notices, lang=ui, incomplete=view.incomplete and view.done)
                    if view.error:
                        answer = (answer + "\n\n" if answer else "") + view.error
                    yield answer, sources_json(view.sources or (), view.cited), view.status_word
            except Exception:
                log.exception("/ask failed")
                yield t("internal_error", ui), json.dumps([]), "error"

        gr.api(ask, api_name="ask")

    demo.queue(default_concurrency_limit=settings.concurrency_limit, max_size=settings.max_queue_size)
    return demo


def _examples_label(lang: str) -> str:
    return f'<span class="q-examples-title">{html.escape(t("examples", lang))}</span>'


def _header_html(lang: str) -> str:
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
