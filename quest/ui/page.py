"""The student's page: a form beside a chat, the sources of every answer, and the `/ask` API.

`QuestPage` builds the Gradio components and wires them to its methods; each method is one
handler with the components' values as named parameters. The chat logic lives in
`HelpDesk` (quest/ui/desk.py); what the page shows is built in quest/ui/render.py.

How an answer runs: Send (or Enter in the question box) -> `begin_turn` swaps Send for Stop at
once -> `stream_answer` streams the answer -> `finish_turn` puts Send back, offers feedback
and saves the conversation in the browser. Stop and Clear never cancel the streaming event
(that raced with its last update); they ask it to end through the turn's `TurnControl`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Mapping
from typing import Any

import gradio as gr

from quest.code_language import AUTO, NAMES, PREFIX_CHARS, detect
from quest.i18n import resolve_lang, t
from quest.kb.documents import Problem
from quest.settings import Settings
from quest.ui.api import add_ask_api
from quest.ui.desk import HelpDesk, TurnControl, TurnView
from quest.ui.examples import EXAMPLES, example_label
from quest.ui.form import FormValues, problem_resolver
from quest.ui.layout import (
    CODE_MODES,
    assistant_messages,
    examples_label_html,
    feedback_prompt_html,
    header_html,
    language_choices,
    problem_choices,
    tier_choices,
    user_bubble,
    verdict_choices,
)
from quest.ui.render import diagnostics_html, quote, source_records, sources_panel_html, student_status_html
from quest.ui.session import Session, TurnRecord, browser_secret

log = logging.getLogger(__name__)

#: `questRestoreGate` is a test hook: a test that defines it holds the page's restore until it resolves.
BROWSER_LANG_JS = """async (stored, browser) => {
  if (window.questRestoreGate) await window.questRestoreGate();
  return [stored, navigator.language || (navigator.languages || ['en'])[0] || 'en'];
}"""
LATEX = [
    {"left": "$$", "right": "$$", "display": True},
    {"left": "$", "right": "$", "display": False},
]
PRIVATE: dict[str, Any] = {"api_visibility": "private"}
#: A return visit's saved form lands after the page is up; the student may have begun typing by then.
#: In the browser, at the moment it lands: a field is filled only if the student has not edited it in
#: this visit (quest.js records edits in `questTouched`) and it still holds its first value.
RESTORE_FORM_JS = """(saved, ...current) => {
  const ids = %(ids)s, initial = %(initial)s, touched = window.questTouched || new Set();
  const same = (a, b) => (a ?? "") === (b ?? "") || (!a && !b);
  return ids.map((id, i) => !Array.isArray(saved) || touched.has(id) || !same(current[i], initial[i])
    ? undefined : saved[i]);
}"""
#: The code box's (language, code, interface language) as `code_view` needs them: the code cut to what the detector
#: reads (`quest.code_language.PREFIX_CHARS`).
CODE_VIEW_JS = f"(language, code, lang) => [language, (code || '').slice(0, {PREFIX_CHARS}), lang]"
#: Shown and hidden with a class: Gradio 6 loses a `visible=True` update that follows a `visible=False`
#: one on a component that started hidden (Stop after Clear, the feedback row after Send).
HIDDEN = ["q-hidden"]


def show(flag: bool) -> Any:
    return gr.update(elem_classes=["q-shown"] if flag else HIDDEN)


class QuestPage:
    """The Gradio page for one app. `build()` returns the Blocks."""

    def __init__(self, settings: Settings, desk: HelpDesk, problems: Mapping[str, Problem]) -> None:
        self.settings = settings
        self.desk = desk
        self.problems = problems
        self.lang0 = settings.ui_lang if settings.ui_lang in ("zh", "en") else "en"
        self.default_tier = settings.cap_tier(settings.default_tier)
        self.examples = [e for e in EXAMPLES if not problems or e.problem_id in problems]

    # ------------------------------------------------------------------ building

    def build(self) -> gr.Blocks:
        with gr.Blocks(title="Quest", fill_width=True, elem_id="quest") as demo:
            self._build_state()
            self._build_header()
            with gr.Row(elem_id="q-main", equal_height=False):
                with gr.Column(scale=5, min_width=340, elem_id="q-left"):
                    self._build_form()
                    self._build_composer()
                with gr.Column(scale=7, min_width=340, elem_id="q-right"):
                    self._build_chat()
                    self._build_sources()
            self.diagnostics_box = gr.Accordion(t("diagnostics", self.lang0), open=False, elem_id="q-diagnostics")
            with self.diagnostics_box:
                self.diagnostics = gr.HTML(self._diagnostics(self.lang0, None))
            self._wire(demo)
            add_ask_api(self.settings, self.desk, self._resolver)
        # Queue positions once a second: "auto" re-sends every waiting student's position each time a
        # job starts or ends, which is n² messages when a class asks at once (50: over a thousand).
        demo.queue(default_concurrency_limit=self.settings.concurrency_limit, max_size=self.settings.max_queue_size,
                   status_update_rate=1.0)
        return demo

    def _build_state(self) -> None:
        self.session = gr.State(Session())
        self.lang = gr.State(self.lang0)
        self.browser_lang = gr.Textbox(visible=False)
        self.stored = gr.BrowserState({}, storage_key="quest-history", secret=browser_secret(self.settings))
        self.saved_form = gr.JSON(None, visible=False)  # a return visit's form, until the browser fills it in

    def _build_header(self) -> None:
        lang = self.lang0
        with gr.Row(elem_id="q-header", equal_height=True):
            self.header = gr.HTML(header_html(lang), elem_id="q-title")
            with gr.Column(scale=0, min_width=230, elem_id="q-header-side"):
                self.lang_switch = gr.Radio(
                    [("中文", "zh"), ("English", "en")], value=lang, show_label=False, container=False,
                    elem_id="q-lang",
                )  # fmt: skip
                self.status = gr.HTML(student_status_html(None, lang=lang), elem_id="q-status-line")

    def _build_form(self) -> None:
        lang = self.lang0
        with gr.Row(elem_id="q-form-top"):
            self.problem = gr.Dropdown(
                problem_choices(self.problems), value=None, label=t("problem", lang), filterable=True,
                allow_custom_value=False, scale=3, min_width=180, elem_id="q-problem",
            )  # fmt: skip
            self.verdict = gr.Dropdown(
                verdict_choices(lang), value="", label=t("verdict", lang), scale=2, min_width=140, elem_id="q-verdict"
            )
        with gr.Row(elem_id="q-form-mid", equal_height=True):
            self.language = gr.Dropdown(
                language_choices(lang), value=AUTO, label=t("language", lang),
                scale=2, min_width=110, elem_id="q-language",
            )  # fmt: skip
            self.tier = gr.Radio(
                tier_choices(self.settings, lang), value=self.default_tier, label=t("tier", lang), scale=5,
                min_width=250, elem_id="q-tier",
            )  # fmt: skip
        self.code = gr.Code(language=None, label=t("code", lang), lines=8, max_lines=18, elem_id="q-code")
        self.error = gr.Textbox(
            label=t("error", lang), placeholder=t("error_placeholder", lang), lines=2, max_lines=8, elem_id="q-error"
        )

    def _build_composer(self) -> None:
        lang = self.lang0
        with gr.Group(elem_id="q-composer"):
            self.question = gr.Textbox(
                label=t("question", lang), placeholder=t("question_placeholder", lang), lines=2, max_lines=6,
                elem_id="q-question",
            )  # fmt: skip
            with gr.Row(elem_id="q-actions"):
                self.send = gr.Button(t("send", lang), variant="primary", elem_id="q-send", scale=3, min_width=80)
                self.stop = gr.Button(t("stop", lang), variant="stop", elem_id="q-stop", scale=3, min_width=80,
                                      elem_classes=HIDDEN)  # fmt: skip
                self.clear = gr.Button(t("clear", lang), variant="secondary", elem_id="q-clear", scale=1, min_width=70)
        with gr.Row(elem_id="q-examples", equal_height=True):
            self.examples_label = gr.HTML(examples_label_html(lang), elem_classes=["q-examples-label"])
            self.example_buttons = [
                gr.Button(example_label(e, lang), size="sm", variant="secondary", elem_classes=["q-example"],
                          min_width=60)
                for e in self.examples
            ]
        self.reasoning = gr.Checkbox(label=t("reasoning", lang), value=False, elem_id="q-reasoning", container=False)

    def _build_chat(self) -> None:
        lang = self.lang0
        self.chatbot = gr.Chatbot(
            label=t("chat", lang), placeholder=t("chat_placeholder", lang), height="58vh", min_height=320,
            sanitize_html=True, allow_tags=False, render_markdown=True, feedback_options=None, buttons=["copy"],
            latex_delimiters=LATEX, elem_id="q-chat", autoscroll=True,
        )  # fmt: skip
        with gr.Row(elem_id="q-chat-actions"):
            self.regenerate = gr.Button(t("regenerate", lang), size="sm", elem_id="q-regenerate", min_width=60)
            self.edit_last = gr.Button(t("edit_last", lang), size="sm", elem_id="q-edit", min_width=60)
            self.new_conversation = gr.Button(t("new_conversation", lang), size="sm", elem_id="q-new", min_width=60)
            self.recent = gr.Dropdown([], value=None, label=t("recent", lang), show_label=True, container=True,
                                      elem_id="q-recent", min_width=140, elem_classes=HIDDEN)  # fmt: skip
        with gr.Row(elem_id="q-feedback", elem_classes=HIDDEN, equal_height=True) as self.feedback_row:
            self.feedback_prompt = gr.HTML(feedback_prompt_html(lang))
            self.thumbs_up = gr.Button(t("feedback_up", lang), size="sm", elem_id="q-like", min_width=60, scale=0)
            self.thumbs_down = gr.Button(t("feedback_down", lang), size="sm", elem_id="q-dislike", min_width=60,
                                         scale=0)  # fmt: skip
        with gr.Row(elem_id="q-feedback-comment", elem_classes=HIDDEN, equal_height=True) as self.comment_row:
            self.comment = gr.Textbox(label=t("feedback_comment", lang), max_lines=1, max_length=300, scale=4,
                                      elem_id="q-comment")  # fmt: skip
            self.send_comment = gr.Button(t("feedback_send", lang), size="sm", scale=1, elem_id="q-comment-send")

    def _build_sources(self) -> None:
        self.sources = gr.HTML(sources_panel_html((), lang=self.lang0), elem_id="q-sources-panel")

    # ------------------------------------------------------------------ wiring

    @property
    def form_fields(self) -> list[Any]:
        return [self.question, self.problem, self.language, self.code, self.verdict, self.error, self.tier,
                self.reasoning]  # fmt: skip

    def _wire(self, demo: gr.Blocks) -> None:
        form = self.form_fields
        turn_outputs = [self.send, self.stop, self.feedback_row, self.comment_row]
        stream_inputs = [*form, self.lang, self.session]
        finish_outputs = [self.send, self.stop, self.status, self.diagnostics, self.feedback_row, self.stored,
                          self.recent]  # fmt: skip

        def run_turn(trigger: Any) -> None:
            trigger.then(
                self.stream_answer, stream_inputs, [self.chatbot, self.sources, self.question],
                show_progress="hidden", **PRIVATE,
            ).then(self.finish_turn, [*form, self.lang, self.session], finish_outputs, queue=False, **PRIVATE)

        scroll = "() => { window.questScrollToChat && questScrollToChat(); }"
        run_turn(self.send.click(self.begin_turn, [self.session], turn_outputs, js=scroll, queue=False, **PRIVATE))
        taken_back = self.regenerate.click(self.take_back_last, [self.lang, self.session],
                                           [self.chatbot, self.sources, *form], queue=False, **PRIVATE)  # fmt: skip
        run_turn(taken_back.then(self.begin_turn, [self.session], turn_outputs, queue=False, **PRIVATE))
        self.edit_last.click(self.take_back_last, [self.lang, self.session], [self.chatbot, self.sources, *form],
                             queue=False, **PRIVATE)  # fmt: skip
        self.stop.click(self.stop_answer, [self.session], None, queue=False, **PRIVATE)
        self.clear.click(self.clear_chat, [*form, self.lang, self.session],
                         [self.chatbot, self.sources, *turn_outputs, self.stored, self.recent], queue=False,
                         **PRIVATE)  # fmt: skip
        self.new_conversation.click(self.start_new_conversation, [*form, self.lang, self.session],
                                    [self.chatbot, self.sources, *turn_outputs, self.stored, self.recent],
                                    queue=False, **PRIVATE)  # fmt: skip
        self.recent.input(self.open_conversation, [self.recent, self.lang, self.session],
                          [self.chatbot, self.sources, *form, *turn_outputs, self.stored], queue=False,
                          **PRIVATE)  # fmt: skip
        self._wire_feedback()
        self._wire_form(demo)

    def _wire_feedback(self) -> None:
        rate_inputs = [self.comment, self.lang, self.session]
        self.thumbs_up.click(self.rate_up, rate_inputs, [self.feedback_row, self.comment_row], queue=False, **PRIVATE)
        self.thumbs_down.click(self.rate_down, rate_inputs, [self.feedback_row, self.comment_row], queue=False,
                               **PRIVATE)  # fmt: skip
        self.send_comment.click(self.rate_down_with_comment, rate_inputs, [self.comment_row, self.comment],
                                queue=False, **PRIVATE)  # fmt: skip

    def _wire_form(self, demo: gr.Blocks) -> None:
        for example, button in zip(self.examples, self.example_buttons, strict=True):
            button.click(
                lambda e=example: (e.question, e.problem_id, e.language, e.code, e.verdict, e.error),
                None, [self.question, self.problem, self.language, self.code, self.verdict, self.error],
                queue=False, **PRIVATE,
            )  # fmt: skip
        # The code box highlights the chosen language, or on "auto" the one read from the code, and says which.
        # The box changes on every keystroke: the browser sends only the part the detector reads (CODE_VIEW_JS), not a
        # pasted megabyte each time (the whole code still goes with Send and when the form is saved).
        code_view = [self.language, self.code, self.lang]
        self.language.change(self.code_view, code_view, self.code, js=CODE_VIEW_JS, queue=False,
                             show_progress="hidden", **PRIVATE)  # fmt: skip
        self.code.change(self.code_view, code_view, self.code, js=CODE_VIEW_JS, queue=False, show_progress="hidden",
                         **PRIVATE)  # fmt: skip
        save_inputs = [*self.form_fields, self.session]
        for text_field in (self.question, self.code, self.error):
            text_field.blur(self.save_form, save_inputs, self.stored, queue=False, **PRIVATE)
        for choice in (self.problem, self.verdict, self.language, self.tier):
            choice.input(self.save_form, save_inputs, self.stored, queue=False, **PRIVATE)
        switch_outputs = self._language_outputs()
        self.lang_switch.change(self.switch_language, [self.lang_switch, self.session], switch_outputs, queue=False,
                                **PRIVATE,
                                ).then(self.code_view, code_view, self.code, js=CODE_VIEW_JS, queue=False,
                                       show_progress="hidden", **PRIVATE)  # fmt: skip
        restore_outputs = [self.lang_switch, self.chatbot, self.sources, self.saved_form, self.recent]
        demo.load(self.restore_page, [self.stored, self.browser_lang, self.session], restore_outputs,
                  js=BROWSER_LANG_JS, queue=False, **PRIVATE,
                  ).then(None, [self.saved_form, *self.form_fields], self.form_fields, js=self._restore_form_js(),
                         queue=False, show_progress="hidden", **PRIVATE)  # fmt: skip
        demo.load(self.refresh_status, [self.lang, self.session], [self.status, self.diagnostics], queue=False,
                  **PRIVATE)  # fmt: skip
        timer = gr.Timer(2.0, active=not self.desk.startup.done.is_set())  # only while the index builds
        timer.tick(self.refresh_while_starting, [self.lang, self.session], [self.status, self.diagnostics, timer],
                   queue=False, **PRIVATE)  # fmt: skip

    # ------------------------------------------------------------------ one answer

    def begin_turn(self, session: Session) -> tuple[Any, ...]:
        """Send becomes Stop at once (and works at once); feedback on the previous answer is put away."""
        session.stop_streaming("stop")  # at most one answer streams per tab
        session.control = TurnControl()
        session.turns_pending += 1
        return show(False), show(True), show(False), show(False)

    def stream_answer(
        self, question: str, problem: str | None, language: str, code: str, verdict: str | None, error: str,
        tier: str, reasoning: bool, interface_language: str, session: Session, request: gr.Request,
    ) -> Iterator[tuple[Any, Any, Any]]:  # fmt: skip
        lang = resolve_lang(interface_language)
        values = FormValues.from_fields(question, problem, language, code, verdict, error, tier, reasoning)
        session_id = (request.session_hash if request else "") or ""
        control = session.control
        if control is None:  # Stop or Clear came while this answer waited in the queue: it never starts
            yield session.messages(), sources_panel_html(session.source_groups(), lang=lang), gr.update()
            return
        req = values.to_request(default_tier=self.default_tier, ui_lang=lang, resolve_problem=self._resolver(),
                                history=session.history(self.settings.history_turns), session_id=session_id)
        record = TurnRecord(question=req.question.strip(), answer="", form=values,
                            messages=[{"role": "user", "content": user_bubble(req, lang, self.problems)}])
        session.turns.append(record)
        session.writing = record
        number = len(session.turns)
        emptied = False
        try:
            for view in self.desk.answer(req, session=session_id, lang=lang, control=control):
                self._show(record, view, lang, number)
                ask_again = gr.update()
                if view.request is not None and not emptied:
                    emptied, ask_again = True, ""  # the question was taken: the box is free for the next one
                # Not after Clear: the answer is no longer in the chat, so its stats must not fill the panel.
                if view.done and view.request is not None and any(turn is record for turn in session.turns):
                    session.last_stats = dict(view.stats)
                yield session.messages(), sources_panel_html(session.source_groups(), lang=lang), ask_again
        except Exception:  # HelpDesk turns failures into messages already; this is the last net
            log.exception("the answer handler failed")
            record.messages = [*record.messages[:1], {"role": "assistant", "content": quote(t("internal_error", lang))}]
            yield session.messages(), gr.update(), gr.update()
        finally:
            if session.control is control:
                session.control = None
            if session.writing is record:
                session.writing = None

    def _show(self, record: TurnRecord, view: TurnView, lang: str, number: int) -> None:
        record.view = view
        record.messages = [record.messages[0], *assistant_messages(view, lang, turn=number)]
        record.sources = source_records(view.sources or (), view.cited)
        record.cited = tuple(view.cited)
        if view.done:
            record.answer = view.answer if view.request is not None and not view.error else ""

    def finish_turn(
        self, question: str, problem: str | None, language: str, code: str, verdict: str | None, error: str,
        tier: str, reasoning: bool, interface_language: str, session: Session,
    ) -> tuple[Any, ...]:  # fmt: skip
        """Stop becomes Send again; a finished answer gets feedback buttons; the browser keeps the conversation."""
        lang = resolve_lang(interface_language)
        values = FormValues.from_fields(question, problem, language, code, verdict, error, tier, reasoning)
        session.turns_pending = max(0, session.turns_pending - 1)
        if session.turns_pending:  # a stopped answer's chain ends while the one that replaced it runs: keep Stop
            return show(False), show(True), self._status(lang), self._diagnostics(lang, session), show(False), \
                gr.update(), gr.update()
        session.control = None  # the answer has ended (or never started: a full queue)
        rateable = bool(session.turns) and session.turns[-1].rateable
        stored = session.save(values)
        return (
            show(True), show(False), self._status(lang), self._diagnostics(lang, session), show(rateable), stored,
            self._recent_update(session, lang),
        )  # fmt: skip

    def stop_answer(self, session: Session) -> None:
        """Ask the streaming answer to end; it shows itself as stopped and puts Send back."""
        session.stop_streaming("stop")

    def clear_chat(
        self, question: str, problem: str | None, language: str, code: str, verdict: str | None, error: str,
        tier: str, reasoning: bool, interface_language: str, session: Session,
    ) -> tuple[Any, ...]:  # fmt: skip
        """Empty the chat and its sources at any moment (also while an answer streams); forget this conversation."""
        lang = resolve_lang(interface_language)
        session.start_new()
        values = FormValues.from_fields(question, problem, language, code, verdict, error, tier, reasoning)
        stored = session.save(values)
        return (
            [], sources_panel_html((), lang=lang), show(True), show(False), show(False), show(False), stored,
            self._recent_update(session, lang),
        )  # fmt: skip

    def start_new_conversation(
        self, question: str, problem: str | None, language: str, code: str, verdict: str | None, error: str,
        tier: str, reasoning: bool, interface_language: str, session: Session,
    ) -> tuple[Any, ...]:  # fmt: skip
        """Keep this conversation in the recent list and start an empty one."""
        lang = resolve_lang(interface_language)
        values = FormValues.from_fields(question, problem, language, code, verdict, error, tier, reasoning)
        session.save(values)
        return self.clear_chat(question, problem, language, code, verdict, error, tier, reasoning, lang, session) \
            if not session.turns else self._fresh(values, lang, session)

    def _fresh(self, values: FormValues, lang: str, session: Session) -> tuple[Any, ...]:
        session.stop_streaming("clear")
        session.conversation_id, session.turns = Session().conversation_id, []
        stored = session.save(values)
        return (
            [], sources_panel_html((), lang=lang), show(True), show(False), show(False), show(False), stored,
            self._recent_update(session, lang),
        )  # fmt: skip

    def open_conversation(self, conversation_id: str | None, interface_language: str, session: Session
                          ) -> tuple[Any, ...]:  # fmt: skip
        lang = resolve_lang(interface_language)
        session.restore(session.history_store, conversation_id)
        return (
            session.messages(), sources_panel_html(session.source_groups(), lang=lang),
            *[gr.update() for _ in self.form_fields],
            show(False), show(True), show(False), show(False),
            session.history_store,
        )  # fmt: skip

    def take_back_last(self, interface_language: str, session: Session) -> tuple[Any, ...]:
        """Remove the last turn and put its question and form back (for Regenerate and Edit)."""
        lang = resolve_lang(interface_language)
        in_flight = session.streaming_turn()
        if (session.control is not None and in_flight is None) or not session.turns:
            # An answer still waiting in the queue: its question is still in the box (Regenerate then asks it).
            return (gr.update(), gr.update(), *[gr.update() for _ in self.form_fields])
        last = session.turns.pop()
        if in_flight is not None:  # Regenerate or Edit mid-answer takes back the answer being written
            session.stop_streaming("stop")  # after the pop: the stream's last update shows the chat without it
        values = last.form
        return (
            session.messages(), sources_panel_html(session.source_groups(), lang=lang),
            values.question, values.problem or None, values.language, values.code, values.verdict, values.error,
            values.tier or self.default_tier, values.reasoning,
        )  # fmt: skip

    # ------------------------------------------------------------------ feedback

    def rate_up(self, comment: str, interface_language: str, session: Session, request: gr.Request) -> tuple[Any, Any]:
        self._rate(True, "", interface_language, session, request)
        return show(False), show(False)

    def rate_down(self, comment: str, interface_language: str, session: Session, request: gr.Request
                  ) -> tuple[Any, Any]:  # fmt: skip
        self._rate(False, "", interface_language, session, request)
        return show(False), show(True)

    def rate_down_with_comment(self, comment: str, interface_language: str, session: Session, request: gr.Request
                               ) -> tuple[Any, Any]:  # fmt: skip
        self._rate(False, comment or "", interface_language, session, request)
        return show(False), ""

    def _rate(self, liked: bool, comment: str, interface_language: str, session: Session, request: gr.Request) -> None:
        lang = resolve_lang(interface_language)
        if not session.turns or not session.turns[-1].rateable:
            return
        number = len(session.turns) - 1
        session_id = (request.session_hash if request else "") or ""
        try:
            if self.desk.rate(session.turns[-1].view, session=session_id, turn=number, liked=liked, lang=lang,
                              comment=comment):  # fmt: skip
                gr.Info(t("feedback_thanks", lang), duration=3)
        except Exception:
            log.exception("storing feedback failed")

    # ------------------------------------------------------------------ page load, language, status

    def restore_page(self, stored: Any, browser_language: str, session: Session) -> tuple[Any, ...]:
        """On load: the interface language, and the conversation and form the browser kept."""
        lang = self.settings.ui_lang if self.settings.ui_lang in ("zh", "en") else resolve_lang(browser_language)
        try:
            values = session.restore(stored)
        except Exception:  # the browser's copy is untrusted: a bad one is dropped, never shown as an error
            log.warning("the browser's stored conversation could not be read; starting empty")
            session.history_store, values = {}, FormValues()
        if not session.history_store:  # nothing kept (a first visit): what the student typed meanwhile stays
            return lang, gr.update(), gr.update(), None, self._recent_update(session, lang)
        form = [values.question, values.problem or None, values.language or AUTO, values.code, values.verdict,
                values.error, values.tier or self.default_tier, values.reasoning]  # the order of form_fields
        return (
            lang, session.messages(), sources_panel_html(session.source_groups(), lang=lang), form,
            self._recent_update(session, lang),
        )  # fmt: skip

    def _restore_form_js(self) -> str:
        """RESTORE_FORM_JS with the form's element ids and first values, in the order of form_fields."""
        ids = [field.elem_id for field in self.form_fields]
        initial = [field.value for field in self.form_fields]
        return RESTORE_FORM_JS % {"ids": json.dumps(ids), "initial": json.dumps(initial)}

    def save_form(
        self, question: str, problem: str | None, language: str, code: str, verdict: str | None, error: str,
        tier: str, reasoning: bool, session: Session,
    ) -> dict[str, Any]:  # fmt: skip
        return session.save(FormValues.from_fields(question, problem, language, code, verdict, error, tier, reasoning))

    def code_view(self, language: str | None, code: str | None, interface_language: str) -> Any:
        """The code box's highlighting and label: on "auto", the detected language's (named in the label)."""
        lang = resolve_lang(interface_language)
        found = detect(code) if language in (None, "", AUTO) else None
        label = t("code_detected", lang, name=NAMES[found]) if found else t("code", lang)
        return gr.update(language=CODE_MODES.get(found or language or ""), label=label)

    def _language_table(self) -> list[tuple[Any, str, str]]:
        """(component, property, text key): what the language switch relabels."""
        return [
            (self.chatbot, "label", "chat"), (self.chatbot, "placeholder", "chat_placeholder"),
            (self.question, "label", "question"), (self.question, "placeholder", "question_placeholder"),
            (self.send, "value", "send"), (self.stop, "value", "stop"), (self.clear, "value", "clear"),
            (self.problem, "label", "problem"), (self.language, "label", "language"),
            (self.verdict, "label", "verdict"), (self.tier, "label", "tier"), (self.code, "label", "code"),
            (self.error, "label", "error"), (self.error, "placeholder", "error_placeholder"),
            (self.reasoning, "label", "reasoning"), (self.regenerate, "value", "regenerate"),
            (self.edit_last, "value", "edit_last"), (self.new_conversation, "value", "new_conversation"),
            (self.recent, "label", "recent"), (self.comment, "label", "feedback_comment"),
            (self.send_comment, "value", "feedback_send"), (self.thumbs_up, "value", "feedback_up"),
            (self.thumbs_down, "value", "feedback_down"), (self.diagnostics_box, "label", "diagnostics"),
        ]  # fmt: skip

    def _computed_texts(self, lang: str, session: Session) -> list[tuple[Any, dict[str, Any]]]:
        """What the switch changes beyond plain labels: choices and HTML pieces."""
        return [
            (self.lang, {"value": lang}), (self.header, {"value": header_html(lang)}),
            (self.status, {"value": self._status(lang)}),
            (self.diagnostics, {"value": self._diagnostics(lang, session)}),
            (self.verdict, {"choices": verdict_choices(lang)}),
            (self.language, {"choices": language_choices(lang)}),
            (self.tier, {"choices": tier_choices(self.settings, lang)}),
            (self.sources, {"value": sources_panel_html(session.source_groups(), lang=lang)}),
            (self.examples_label, {"value": examples_label_html(lang)}),
            (self.feedback_prompt, {"value": feedback_prompt_html(lang)}),
            *((button, {"value": example_label(e, lang)}) for e, button in zip(self.examples, self.example_buttons,
                                                                                 strict=True)),
        ]  # fmt: skip

    def _language_outputs(self) -> list[Any]:
        seen: dict[int, Any] = {}
        for component, _, _ in self._language_table():
            seen.setdefault(id(component), component)
        for component, _ in self._computed_texts(self.lang0, Session()):
            seen.setdefault(id(component), component)
        return list(seen.values())

    def switch_language(self, interface_language: str, session: Session) -> list[Any]:
        lang = resolve_lang(interface_language)
        changes: dict[int, dict[str, Any]] = {}
        for component, prop, key in self._language_table():
            changes.setdefault(id(component), {})[prop] = t(key, lang)
        for component, values in self._computed_texts(lang, session):
            changes.setdefault(id(component), {}).update(values)
        updates = []
        for component in self._language_outputs():
            values = changes[id(component)]
            updates.append(values["value"] if component is self.lang else gr.update(**values))
        return updates

    def refresh_status(self, interface_language: str, session: Session) -> tuple[str, str]:
        lang = resolve_lang(interface_language)
        return self._status(lang), self._diagnostics(lang, session)

    def refresh_while_starting(self, interface_language: str, session: Session) -> tuple[str, str, Any]:
        status, diagnostics = self.refresh_status(interface_language, session)
        return status, diagnostics, gr.Timer(active=not self.desk.startup.done.is_set())

    def _status(self, lang: str) -> str:
        return student_status_html(self.desk.status(), lang=lang, failed=self.desk.startup.failed)

    def _diagnostics(self, lang: str, session: Session | None) -> str:
        return diagnostics_html(
            self.desk.status(), lang=lang, last_stats=session.last_stats if session else None,
            starting=self.desk.startup.last_message, failed=self.desk.startup.failed,
        )  # fmt: skip

    def _recent_update(self, session: Session, lang: str) -> Any:
        choices = session.recent(t("untitled", lang))
        return gr.update(choices=choices, value=None, elem_classes=["q-shown"] if choices else HIDDEN)

    def _resolver(self) -> Any:
        assistant = self.desk.startup.assistant
        retriever = getattr(assistant, "retriever", None)
        return problem_resolver(self.problems, getattr(retriever, "exact_match", None))
