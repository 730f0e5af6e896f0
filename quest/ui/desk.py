"""The chat logic, free of Gradio: one request in, a stream of `TurnView` snapshots out.

`HelpDesk.answer` checks that the assistant is ready, validates the request (a clear
message per field, never a silent cut), applies the per-session rate limit, then turns the
assistant's events into snapshots of what the page should show. Anything unexpected is
logged and becomes a friendly message; a stack trace never reaches the student.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from quest.cancel import CancelScope, cancellable
from quest.context import Source
from quest.errors import InputError
from quest.events import Done, Held, Notice, Replace, Sources, Thinking, Token
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
    held: bool = False  # a code block is held back by the tier policy right now
    stopped: bool = False  # the student stopped it (or cleared the chat) while it streamed

    @property
    def status_word(self) -> str:
        if self.error:
            return "error"
        if not self.done:
            return "streaming"
        if self.stopped:
            return "stopped"
        if self.stats.get("mode") == "refused" or any(n.level == "error" for n in self.notices):
            return "refused"
        if self.fallback:
            return "fallback"
        return "incomplete" if self.incomplete else "done"


class TurnControl:
    """Lets the page stop one answer from another event (Stop, Clear) without cancelling the handler.

    Cancelling a Gradio event mid-stream races with its last update (an answer left with its
    cursor, "Error" badges); instead the streaming handler notices the request and ends itself.
    """

    def __init__(self) -> None:
        self._event = threading.Event()
        self.reason = ""
        self.scope = CancelScope()  # the model connections of this answer, cut at once on a cancel

    def cancel(self, reason: str = "stop") -> None:
        if not self._event.is_set():
            self.reason = reason
            self._event.set()
        self.scope.cancel()  # a model that has sent nothing yet is not waited for (quest/cancel.py)

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def wait(self, seconds: float) -> bool:
        """Sleep up to `seconds`, waking at once on a cancel; True when cancelled."""
        return self._event.wait(seconds)


class StreamPacer:
    """How often a streaming answer is re-sent, given how many stream at once on this replica.

    Every re-render costs the server the same work (Gradio's per-update pipeline, the answer and
    its sources serialised again), so the replica keeps a budget of `updates_per_second` for all
    answers together: one answer re-renders every `base` seconds, fifty at once every 50/budget
    seconds (0.33 s at 150/s). Fewer re-renders leave the CPU to the retrieval and first tokens
    of the students who are still waiting, which is what they notice.
    """

    def __init__(self, base: float, updates_per_second: float) -> None:
        self.base = max(base, 0.0)
        self.budget = updates_per_second
        self.active = 0
        self._lock = threading.Lock()

    def interval(self) -> float:
        if self.budget <= 0 or self.base == 0:  # no budget, or no coalescing at all (every token its view)
            return self.base
        return max(self.base, self.active / self.budget)

    @contextlib.contextmanager
    def streaming(self) -> Iterator[None]:
        with self._lock:
            self.active += 1
        try:
            yield
        finally:
            with self._lock:
                self.active -= 1


class _Failure:
    pass


#: Notices that say the model could not answer. Their text tells the operator how to fix it
#: (`ollama serve`, the server address); students get their own words, the fix goes to the log.
MODEL_FAILURES = frozenset({"llm_unavailable", "model_not_found", "llm_timeout", "stream_broken", "no_model", "llm"})


class StudentWording:
    """Rewrites the model-failure notices of one answer (and the answer's copy of them) for students."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.replaced: dict[str, str] = {}

    def apply(self, event: object, answer_so_far: str) -> object:
        if isinstance(event, Notice) and (event.code in MODEL_FAILURES or event.code.startswith("llm")):
            log.warning("no complete generated answer (%s): %s", event.code, event.text)
            key = "failure_partial" if answer_so_far.strip() else (
                "failure_timeout" if event.code == "llm_timeout" else "failure_fallback")
            student = t(key, self.lang)
            self.replaced[event.text] = student
            return dataclasses.replace(event, text=student)
        if self.replaced and isinstance(event, Token | Replace | Done):
            for operator, student in self.replaced.items():
                text = getattr(event, "answer" if isinstance(event, Done) else "text")
                changed = text.replace(operator, student)
                event = dataclasses.replace(event, **{"answer" if isinstance(event, Done) else "text": changed})
        return event


_END = object()
_POLL_SECONDS = 0.1  # how often a silent stream checks for Stop


def _pump(events: Iterator[object], inbox: queue.Queue[object], control: TurnControl) -> None:
    """Read the assistant's events into `inbox` (in a worker thread) until the end or a cancel."""
    try:
        with cancellable(control.scope):
            for event in events:
                if control.cancelled:
                    break
                inbox.put(event)
    except Exception:
        log.exception("answering failed")
        inbox.put(_Failure())
    finally:
        close = getattr(events, "close", None)
        if close is not None:
            close()  # on Stop, this closes the model's stream promptly
        inbox.put(_END)


def _take(inbox: queue.Queue[object], *, drain: bool) -> list[object]:
    """Everything in `inbox` now if `drain`, else the next item (waiting up to `_POLL_SECONDS`)."""
    items: list[object] = []
    try:
        if not drain:
            return [inbox.get(timeout=_POLL_SECONDS)]
        while True:
            items.append(inbox.get_nowait())
    except queue.Empty:
        return items


def _view_after_stop(view: TurnView, taken: list[object], inbox: queue.Queue[object],
                     wording: StudentWording) -> TurnView:
    """The last view of an answer the student stopped. The events already received (`taken` and the
    inbox) came from the model before the stop, since the worker puts nothing once it sees the stop, so
    they are shown too: an answer that had in fact finished ends as finished and a half answer keeps the
    pieces that arrived; anything else ends marked stopped. (An event the worker was handing over at the
    very moment of the stop, after its check and after this drain, is not shown: the stop won that race.)"""
    for item in [*taken, *_take(inbox, drain=True)]:
        if item is _END or isinstance(item, _Failure):
            break
        view = apply_event(view, wording.apply(item, view.answer))
    return view if view.done else dataclasses.replace(view, done=True, incomplete=True, stopped=True)


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
    if isinstance(event, Held):
        return replace(view, held=event.active)
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
            held=False,
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
        self.pacer = StreamPacer(settings.stream_interval, settings.stream_updates_per_second)

    # ------------------------------------------------------------------ answering

    def answer(
        self, request: Request, *, session: str, lang: str, control: TurnControl | None = None
    ) -> Iterator[TurnView]:
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
        with self.pacer.streaming():
            yield from self._stream(assistant.ask(checked), view, control or TurnControl(), lang)

    def _stream(self, events: Iterator[object], view: TurnView, control: TurnControl, lang: str) -> Iterator[TurnView]:
        """The assistant's events as views: coalesced, flushed at the end of each interval, stoppable.

        A worker thread reads the events into a queue. After showing text, this generator sleeps
        out the interval (a Stop wakes it) and then takes everything that came at once, so it
        wakes about once per interval rather than once per token; while the model is silent it
        polls, so a Stop is still noticed within `_POLL_SECONDS`. The interval widens with the
        number of answers streaming at once (see `StreamPacer`).
        """
        inbox: queue.Queue[object] = queue.Queue()
        worker = threading.Thread(target=_pump, args=(events, inbox, control), name="quest-answer", daemon=True)
        worker.start()
        wording = StudentWording(lang)
        shown_at: float | None = None
        dirty = settle = False  # text not shown yet; a view was just shown, let the next text gather
        try:
            while True:
                interval = self.pacer.interval()
                if settle:
                    control.wait(max(0.0, shown_at + interval - self.clock()) if shown_at else 0.0)
                items = _take(inbox, drain=settle)
                settle = False
                if not items:  # the interval is over, or a silent poll: a Stop, or show what there is
                    if control.cancelled and not view.done:
                        yield _view_after_stop(view, [], inbox, wording)
                        return
                    if dirty:
                        dirty, shown_at = False, self.clock()
                        yield view
                    continue
                for position, item in enumerate(items):
                    if isinstance(item, _Failure):
                        yield dataclasses.replace(view, error=t("internal_error", lang), error_code="internal",
                                                  done=True)  # fmt: skip
                        return
                    if control.cancelled and not view.done:  # also at _END: the worker may have ended for the Stop
                        yield _view_after_stop(view, items[position:], inbox, wording)
                        return
                    if item is _END:
                        break
                    item = wording.apply(item, view.answer)
                    view = apply_event(view, item)
                    dirty = isinstance(item, (Token, Thinking))  # text is coalesced; anything else shows at once
                    if not dirty:
                        yield view
                else:
                    if dirty and (shown_at is None or self.clock() - shown_at >= interval):
                        dirty, shown_at = False, self.clock()
                        yield view
                    settle = interval > 0 and shown_at is not None  # the next text waits for the interval
                    continue
                break  # _END
        finally:
            control.cancel("closed")  # the page went away or stopped: the worker closes the model's stream
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

    def rate(
        self, view: TurnView, *, session: str, turn: int, liked: bool | None, lang: str, comment: str = ""
    ) -> bool:
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
                comment=" ".join(comment.split())[:500],  # one line, bounded
            )
        )
        return True
