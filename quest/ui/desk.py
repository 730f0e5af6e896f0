"""The chat logic, free of Gradio: one request in, a stream of `TurnView` snapshots out.

`HelpDesk.answer` checks that the assistant is ready, validates the request (a clear
message per field, never a silent cut), applies the per-session rate limit, then turns the
assistant's events into snapshots of what the page should show. Anything unexpected is
logged and becomes a friendly message; a stack trace never reaches the student.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from quest.context import Source
from quest.errors import InputError
from quest.events import Done, Notice, Replace, Sources, Thinking, Token
from quest.feedback import FeedbackRecord, FeedbackStore
from quest.i18n import input_error_text, t
from quest.ratelimit import RateLimiter
from quest.request import Request, validate_request
from quest.settings import Settings
from quest.ui.render import source_dicts
from quest.ui.startup import Startup

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TurnView:
    """What the page shows of one answer at one moment."""

    request: Request | None = None  # the validated request (None when it was rejected)
    answer: str = ""
    thinking: str = ""
    notices: tuple[Notice, ...] = ()
    sources: tuple[Source, ...] | None = None  # None until retrieval has answered
    cited: tuple[int, ...] = ()
    stats: Mapping[str, Any] = field(default_factory=dict)
    done: bool = False
    incomplete: bool = False
    fallback: bool = False
    error: str | None = None  # a friendly message when the turn could not run
    error_code: str = ""  # input | rate_limited | not_ready | internal | refused

    @property
    def status_word(self) -> str:
        if self.error:
            return "error"
        if not self.done:
            return "streaming"
        if self.stats.get("mode") == "refused" or any(n.level == "error" for n in self.notices):
            return "refused"
        if self.fallback:
            return "fallback"
        return "incomplete" if self.incomplete else "done"


def apply_event(view: TurnView, event: object) -> TurnView:
    """The view after one assistant event."""
    replace = dataclasses.replace
    if isinstance(event, Token):
        return replace(view, answer=view.answer + event.text)
    if isinstance(event, Thinking):
        return replace(view, thinking=view.thinking + event.text)
    if isinstance(event, Sources):
        return replace(view, sources=tuple(event.sources))
    if isinstance(event, Notice):
        return replace(view, notices=(*view.notices, event))
    if isinstance(event, Replace):
        return replace(view, answer=event.text)
    if isinstance(event, Done):
        return replace(
            view,
            answer=event.answer,
            stats=dict(event.stats),
            cited=tuple(event.cited),
            incomplete=event.incomplete,
            fallback=event.fallback,
            done=True,
        )
    log.warning("unknown event %s ignored", type(event).__name__)
    return view


class HelpDesk:
    def __init__(
        self,
        settings: Settings,
        startup: Startup,
        *,
        feedback: FeedbackStore | None = None,
        limiter: RateLimiter | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self.clock = clock
        self.startup = startup
        self.feedback = feedback
        self.limiter = limiter if limiter is not None else RateLimiter(settings.rate_limit_per_minute)
        self._status_lock = threading.Lock()
        self._status: tuple[float, dict[str, Any]] | None = None

    # ------------------------------------------------------------------ answering

    def answer(self, request: Request, *, session: str, lang: str) -> Iterator[TurnView]:
        assistant = self.startup.assistant
        if assistant is None:
            reason = self.startup.failed
            text = (
                t("status_start_failed", lang, reason=reason)
                if reason
                else t("not_ready", lang, progress=self.startup.last_message or t("status_starting", lang))
            )
            yield TurnView(error=text, error_code="not_ready", done=True)
            return
        try:
            checked = validate_request(request, self.settings)
        except InputError as exc:
            log.info("request rejected: %s %s (limit %s)", exc.field, exc.reason, exc.limit)
            yield TurnView(error=input_error_text(exc, lang), error_code="input", done=True)
            return
        wait = self.limiter.check(session or "anonymous")
        if wait > 0:
            log.info("session %s rate-limited for %.1f s", session[:8], wait)
            seconds = self.limiter.retry_seconds(wait)
            yield TurnView(error=t("rate_limited", lang, seconds=seconds), error_code="rate_limited", done=True)
            return
        log.info(
            "question: session %s, problem %s, %s, tier %s, %d/%d/%d chars (question/code/error)",
            session[:8], checked.problem_id, checked.language, checked.tier,
            len(checked.question), len(checked.code), len(checked.error),
        )  # fmt: skip
        log.debug("question text: %r; code: %r; error: %r", checked.question, checked.code, checked.error)
        view = TurnView(request=checked)
        yield view
        events = None
        shown_at: float | None = None
        try:
            events = assistant.ask(checked)
            for event in events:
                view = apply_event(view, event)
                if isinstance(event, (Token, Thinking)):
                    # Coalesce tokens: every view re-sends the whole answer to the browser.
                    now = self.clock()
                    if shown_at is not None and now - shown_at < self.settings.stream_interval:
                        continue
                    shown_at = now
                yield view
        except Exception:
            log.exception("answering failed")
            yield dataclasses.replace(view, error=t("internal_error", lang), error_code="internal", done=True)
            return
        finally:
            close = getattr(events, "close", None)
            if close is not None:
                close()  # on Stop, this closes the model's stream promptly
        if not view.done:  # the assistant ended without Done: show what there is, marked incomplete
            log.warning("the assistant's stream ended without a Done event")
            yield dataclasses.replace(view, done=True, incomplete=True)

    # ------------------------------------------------------------------ status

    def status(self, *, max_age: float = 5.0) -> dict[str, Any] | None:
        """The assistant's status (cached for `max_age` seconds); None while starting."""
        assistant = self.startup.assistant
        if assistant is None:
            return None
        now = time.monotonic()
        with self._status_lock:
            if self._status is not None and now - self._status[0] < max_age:
                return self._status[1]
        try:
            status = dict(assistant.status())
        except Exception:
            log.exception("status failed")
            status = {"model": self.settings.chat_model_names[0], "ollama_reachable": False, "notices": []}
        with self._status_lock:
            self._status = (now, status)
        return status

    # ------------------------------------------------------------------ feedback

    def rate(self, view: TurnView, *, session: str, turn: int, liked: bool | None, lang: str) -> bool:
        """Store a thumbs up/down (liked None withdraws it). False when there is nothing to rate."""
        if self.feedback is None or view.request is None:
            return False
        if liked is None:
            self.feedback.withdraw(session, turn)
            return True
        req = view.request
        model = str(view.stats.get("model") or (self.status() or {}).get("model") or "")
        self.feedback.record(
            FeedbackRecord(
                session=session,
                turn=turn,
                rating=1 if liked else -1,
                question=req.question,
                problem_id=req.problem_id,
                language=req.language,
                verdict=req.verdict,
                tier=req.tier,
                model=model,
                ui_lang=lang,
                answer=view.answer,
                sources=source_dicts(view.sources or (), view.cited),
                code=req.code,
                error=req.error,
            )
        )
        return True
