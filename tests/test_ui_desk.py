"""HelpDesk: the chat logic as a plain generator, driven by a scripted FakeAssistant."""

from __future__ import annotations

import itertools
import logging
import threading
import time

from quest.events import Done, Notice, Replace, Sources, Thinking, Token
from quest.feedback import FeedbackStore
from quest.ratelimit import RateLimiter
from quest.request import Request
from quest.settings import Settings
from quest.ui.desk import HelpDesk, TurnControl, TurnView, apply_event
from quest.ui.startup import Startup
from tests.fakes.assistant import FakeAssistant, answer_script, make_source

SOURCES = (make_source(1), make_source(2, "error_pattern", title="list.pop(0) is O(k)", score=0.7))


def _desk(assistant, tmp_path, clock=None, **settings) -> HelpDesk:
    settings.setdefault("stream_interval", 0.0)  # every token its own view, unless a test says otherwise
    s = Settings(data_dir=tmp_path, **settings)
    extra = {"clock": clock} if clock is not None else {}
    return HelpDesk(s, Startup.ready(assistant), feedback=FeedbackStore.for_settings(s), **extra)


def test_a_request_streams_views_in_order(tmp_path):
    fake = FakeAssistant(answer_script(["Use ", "a deque [1]."], sources=SOURCES, cited=(1,),
                                       stats={"retrieval_ms": 12, "model": "m:1b"}))  # fmt: skip
    request = Request(question=" why TLE? ", problem_id="#239")
    views = list(_desk(fake, tmp_path).answer(request, session="s", lang="en"))
    assert [v.answer for v in views] == ["", "", "Use ", "Use a deque [1].", "Use a deque [1]."]
    assert views[0].request.question == "why TLE?" and views[0].request.problem_id == "239"
    assert views[0].sources is None and views[1].sources == SOURCES
    assert [v.done for v in views] == [False, False, False, False, True]
    assert views[-1].cited == (1,) and views[-1].stats == {"retrieval_ms": 12, "model": "m:1b"}
    assert views[-1].status_word == "done"
    (received,) = fake.requests
    assert received.question == "why TLE?" and received.tier == "explain"


def test_tier_is_capped_by_the_operator(tmp_path):
    fake = FakeAssistant(answer_script(["ok"]))
    list(_desk(fake, tmp_path, max_tier="hint").answer(Request(question="q", tier="solution"), session="s", lang="en"))
    assert fake.requests[0].tier == "hint"


def test_input_errors_never_reach_the_assistant(tmp_path):
    fake = FakeAssistant(answer_script(["ok"]))
    desk = _desk(fake, tmp_path, max_code_chars=10)
    (view,) = desk.answer(Request(question="q", code="x" * 11), session="s", lang="zh")
    assert view.error == "你的代码有 11 个字符，超过了上限 10。请删减后重新发送（系统不会替你截断）。"
    assert view.error_code == "input" and view.request is None and view.status_word == "error"
    (view,) = desk.answer(Request(question=""), session="s", lang="en")
    assert view.error.startswith("Please type a question")
    assert fake.requests == []


def test_rate_limit_gives_a_friendly_message(tmp_path):
    class Clock:
        now = 0.0

        def __call__(self):
            return self.now

    fake = FakeAssistant(answer_script(["ok"]))
    desk = _desk(fake, tmp_path)
    desk.limiter = RateLimiter(2, window=60, clock=Clock())
    for _ in range(2):
        assert list(desk.answer(Request(question="q"), session="s", lang="en"))[-1].answer == "ok"
    (view,) = desk.answer(Request(question="q"), session="s", lang="en")
    assert view.error == "You are asking faster than Quest can answer. Please wait 60 s and ask again."
    assert list(desk.answer(Request(question="q"), session="other", lang="en"))[-1].answer == "ok"
    assert len(fake.requests) == 3


def test_refusal_arrives_as_notice_and_done(tmp_path):
    refusal = [Notice("locked", "Problem 239 is locked during the contest.", "error"), Done(answer="")]
    views = list(_desk(FakeAssistant(refusal), tmp_path).answer(Request(question="q"), session="s", lang="en"))
    assert views[-1].notices[0].code == "locked" and views[-1].status_word == "refused"


def test_not_ready_and_failed_startup(tmp_path):
    gate = threading.Event()
    startup = Startup(lambda progress: (progress("building the index: 40%"), gate.wait(10), FakeAssistant())[-1])
    startup.start()
    desk = HelpDesk(Settings(data_dir=tmp_path), startup)
    (view,) = desk.answer(Request(question="q"), session="s", lang="en")
    assert view.error == "Quest is still starting (building the index: 40%). Please try again in a moment."
    assert desk.status() is None
    gate.set()
    assert startup.wait(10) and desk.status()["model"] == "fake-model:1b"

    def broken(progress):
        raise OSError("disk full")

    failed = Startup(broken)
    failed.run()
    (view,) = HelpDesk(Settings(data_dir=tmp_path), failed).answer(Request(question="q"), session="s", lang="en")
    assert view.error == (
        "Quest could not start: OSError: disk full. The operator can see the details in the console."
    )


def test_an_exception_becomes_a_friendly_message_and_is_logged(tmp_path, caplog):
    fake = FakeAssistant(answer_script(["a", "b"], sources=SOURCES), fail_with=RuntimeError("secret internals"))
    with caplog.at_level(logging.ERROR):
        views = list(_desk(fake, tmp_path).answer(Request(question="q"), session="s", lang="en"))
    last = views[-1]
    assert last.error.startswith("Something went wrong on our side") and "secret" not in last.error
    assert last.sources == SOURCES  # what was already there stays
    assert "secret internals" in caplog.text


def _eventually(predicate, what: str, limit: float = 10.0) -> None:
    """Wait for another thread's work (a deadlock breaker, not a speed assertion)."""
    deadline = time.monotonic() + limit
    while not predicate():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.01)


def test_closing_the_view_stream_closes_the_assistant_stream(tmp_path):
    # The assistant waits after "a" until the view stream is closed (a 50 ms per-token delay raced the close).
    fake = FakeAssistant(answer_script(["a", "b", "c", "d"]), pause_after=2)
    stream = _desk(fake, tmp_path).answer(Request(question="q"), session="s", lang="en")
    for view in stream:
        if view.answer == "a":
            break
    stream.close()
    fake.proceed.set()
    _eventually(lambda: fake.closed_early == [True], "the assistant's stream closed")
    assert fake.events_taken == [3]  # Sources, "a", then "b" found the answer closed: it never got to the end


def test_stop_ends_the_answer_marked_stopped_even_while_the_model_is_silent(tmp_path):
    release = threading.Event()

    def script(request):
        yield Sources(SOURCES)
        yield Token("half ")
        release.wait(30)  # the model goes quiet
        yield Token("never shown")
        yield Done(answer="half never shown")

    fake = FakeAssistant()
    fake.ask = script  # a generator that blocks, like a stalled model
    control = TurnControl()
    views = []
    for view in _desk(fake, tmp_path).answer(Request(question="q"), session="s", lang="en", control=control):
        views.append(view)
        if view.answer == "half ":
            control.cancel("stop")
    release.set()
    last = views[-1]
    assert (last.answer, last.done, last.stopped, last.incomplete, last.status_word) == (
        "half ", True, True, True, "stopped",
    )  # fmt: skip


def _stop_once_handed_over(script_tail, tmp_path) -> list[TurnView]:
    """Stream Sources, "Use " and then `script_tail`; once the page has shown "Use " and the worker has
    handed every event of the tail to the page (which waits out a long interval before showing more),
    press Stop. Returns the views."""
    handed_over, release = threading.Event(), threading.Event()

    def script(request):
        yield Sources(SOURCES)
        yield Token("Use ")
        yield from script_tail
        handed_over.set()  # the worker asks for more only after it queued the tail's last event for the page
        release.wait(30)  # then the model goes quiet (or has ended)

    fake = FakeAssistant()
    fake.ask = script
    control = TurnControl()
    views = []
    for view in _desk(fake, tmp_path, stream_interval=3600.0).answer(Request(question="q"), session="s", lang="en",
                                                                       control=control):  # fmt: skip
        views.append(view)
        if view.answer == "Use " and not view.done:
            assert handed_over.wait(30), "the worker never queued the rest"
            control.cancel("stop")
    release.set()
    assert [v.answer for v in views if v.answer and not v.done] == ["Use "]  # the tail was not shown before the Stop
    return views


def test_stop_keeps_the_pieces_that_arrived_before_it(tmp_path):
    last = _stop_once_handed_over([Token("a deque")], tmp_path)[-1]
    assert (last.answer, last.done, last.stopped, last.status_word) == ("Use a deque", True, True, "stopped")


def test_stop_after_the_whole_answer_arrived_shows_it_finished(tmp_path):
    last = _stop_once_handed_over([Token("a deque [1]."), Done(answer="Use a deque [1].", cited=(1,))], tmp_path)[-1]
    assert (last.answer, last.cited, last.done, last.stopped, last.incomplete, last.status_word) == (
        "Use a deque [1].", (1,), True, False, False, "done",
    )  # fmt: skip


def test_text_before_a_silence_is_shown_at_the_end_of_the_interval(tmp_path):
    """Tokens skipped by the coalescer are flushed even when no further event comes for a while."""
    release = threading.Event()
    seen_while_silent: list[str] = []

    def script(request):
        yield Sources(())
        yield Token("Before the code: ")
        yield Token("here it comes.")  # within the interval of the first: coalesced
        release.wait(30)  # e.g. the code gate holds a block back
        yield Token(" after")
        yield Done(answer="Before the code: here it comes. after")

    fake = FakeAssistant()
    fake.ask = script
    deadlock_breaker = threading.Timer(20, release.set)
    deadlock_breaker.start()
    try:
        for view in _desk(fake, tmp_path, stream_interval=0.2).answer(Request(question="q"), session="s", lang="en"):
            if view.answer == "Before the code: here it comes." and not release.is_set():
                seen_while_silent.append(view.answer)
                release.set()
    finally:
        deadlock_breaker.cancel()
    assert seen_while_silent == ["Before the code: here it comes."]


def test_student_code_is_not_logged_above_debug(tmp_path, caplog):
    fake = FakeAssistant(answer_script(["ok"]))
    with caplog.at_level(logging.INFO):
        list(_desk(fake, tmp_path).answer(Request(question="q", code="SECRET_CODE = 1"), session="s", lang="en"))
    assert "SECRET_CODE" not in caplog.text
    assert "15" in caplog.text  # its size is


def test_missing_done_is_marked_incomplete(tmp_path):
    fake = FakeAssistant([Sources(()), Token("half")])
    last = list(_desk(fake, tmp_path).answer(Request(question="q"), session="s", lang="en"))[-1]
    assert last.done and last.incomplete and last.answer == "half"


def test_apply_event_thinking_and_replace():
    view = TurnView()
    for event in (Thinking("hmm "), Thinking("ok"), Token("code ```x```"), Replace("no code", reason="policy")):
        view = apply_event(view, event)
    assert view.thinking == "hmm ok" and view.answer == "no code"
    final = apply_event(view, Done(answer="final", incomplete=True, fallback=True))
    assert final.done and final.status_word == "fallback"


def test_rate_stores_the_context(tmp_path):
    fake = FakeAssistant(answer_script(["Use a deque [1]."], sources=SOURCES, cited=(1,)))
    desk = _desk(fake, tmp_path)
    last = list(desk.answer(Request(question="why?", problem_id="239", verdict="TLE", code="x=1"), session="s",
                            lang="en"))[-1]  # fmt: skip
    assert desk.rate(last, session="s", turn=0, liked=True, lang="en") is True
    (row,) = desk.feedback.rows()
    assert (row["rating"], row["question"], row["problem_id"], row["verdict"], row["model"], row["code"]) == (
        1, "why?", "239", "TLE", "fake-model:1b", None,
    )  # fmt: skip
    assert '"cited": true' in row["sources"] and '"number": 2' in row["sources"]
    assert desk.rate(last, session="s", turn=0, liked=None, lang="en") is True
    assert desk.feedback.rows() == []
    assert desk.rate(TurnView(error="x"), session="s", turn=1, liked=True, lang="en") is False


def test_tokens_are_coalesced_between_re_renders(tmp_path):
    class Clock:
        """Advances 30 ms per reading: tokens arrive every 30 ms."""

        now = 0.0

        def __call__(self):
            self.now += 0.03
            return self.now

    tokens = [f"t{i} " for i in range(10)]
    fake = FakeAssistant(answer_script(tokens, sources=SOURCES))
    views = list(_desk(fake, tmp_path, clock=Clock(), stream_interval=0.1).answer(Request(question="q"), session="s",
                                                                                  lang="en"))
    answers = [v.answer for v in views]
    # The first token at once, then fewer views than tokens, each a longer prefix, and the full answer at the end.
    assert answers[:3] == ["", "", "t0 "]
    assert len(answers) < 2 + len(tokens)
    assert all(b.startswith(a) for a, b in itertools.pairwise(answers))
    assert answers[-1] == "".join(tokens) and views[-1].done and not views[-2].done


def test_model_failures_are_told_in_the_students_words_and_the_fix_is_logged(tmp_path, caplog):
    line = "Ollama is not reachable at http://10.0.0.5:11434, so there is no generated answer. Fix: `ollama serve`."
    script = [Sources(SOURCES), Notice("llm_unavailable", line, "warning"), Token(line + "\n\nFrom the notes: deque."),
              Done(answer=line + "\n\nFrom the notes: deque.", fallback=True)]  # fmt: skip
    with caplog.at_level(logging.WARNING):
        last = list(_desk(FakeAssistant(script), tmp_path).answer(Request(question="q"), session="s", lang="zh"))[-1]
    student = "AI 助手暂时不可用，下面是课程资料中与你的问题相关的内容。"
    assert last.notices[0].text == student
    assert last.answer == student + "\n\nFrom the notes: deque."
    assert "ollama" not in last.answer.lower() and "10.0.0.5" not in last.answer
    assert "`ollama serve`" in caplog.text  # the operator's fix goes to the log


def test_a_broken_stream_after_some_text_says_the_answer_is_unfinished(tmp_path):
    script = [Sources(()), Token("Use a deque"), Notice("stream_broken", "The answer stopped: check `ollama serve`",
                                                        "warning"), Done(answer="Use a deque", incomplete=True)]
    last = list(_desk(FakeAssistant(script), tmp_path).answer(Request(question="q"), session="s", lang="en"))[-1]
    assert last.notices[0].text == "The AI helper stopped before finishing this answer. Ask again in a moment for a " \
        "complete one."
    assert last.answer == "Use a deque" and last.status_word == "incomplete"


def test_a_thumbs_down_keeps_its_one_line_comment_also_in_an_older_store(tmp_path):
    import sqlite3

    from quest.feedback import FILE_NAME

    with sqlite3.connect(tmp_path / FILE_NAME) as conn:  # a store made before comments existed
        conn.execute("CREATE TABLE feedback (id INTEGER PRIMARY KEY AUTOINCREMENT, created_at TEXT NOT NULL,"
                     " session TEXT NOT NULL, turn INTEGER NOT NULL, rating INTEGER NOT NULL, question TEXT NOT NULL,"
                     " problem_id TEXT, language TEXT, verdict TEXT, tier TEXT, model TEXT, ui_lang TEXT, answer TEXT,"
                     " sources TEXT NOT NULL, code TEXT, error TEXT, UNIQUE (session, turn))")  # fmt: skip
    desk = _desk(FakeAssistant(answer_script(["Use a deque."])), tmp_path)
    last = list(desk.answer(Request(question="why?"), session="s", lang="en"))[-1]
    assert desk.rate(last, session="s", turn=0, liked=False, lang="en", comment="  too\nvague  ") is True
    (row,) = desk.feedback.rows()
    assert (row["rating"], row["comment"]) == (-1, "too vague")


def test_the_re_render_interval_widens_with_the_answers_streaming_at_once():
    import contextlib

    from quest.ui.desk import StreamPacer

    pacer = StreamPacer(0.1, updates_per_second=100.0)
    assert pacer.interval() == 0.1
    with contextlib.ExitStack() as stack:
        for _ in range(50):
            stack.enter_context(pacer.streaming())
        assert pacer.active == 50 and pacer.interval() == 0.5  # 100 re-renders a second shared by 50
    assert pacer.active == 0 and pacer.interval() == 0.1
    assert StreamPacer(0.1, updates_per_second=0).interval() == 0.1  # no budget: the base interval
    assert StreamPacer(0.0, updates_per_second=100.0).interval() == 0.0  # no coalescing: every token its view


def test_a_streaming_answer_counts_as_active_until_it_ends(tmp_path):
    seen: list[int] = []
    desk: HelpDesk | None = None

    def script(request):
        yield Sources(())
        seen.append(desk.pacer.active)
        yield Token("ok")
        yield Done(answer="ok")

    fake = FakeAssistant()
    fake.ask = script
    desk = _desk(fake, tmp_path)
    assert [v.answer for v in desk.answer(Request(question="q"), session="s", lang="en")][-1] == "ok"
    assert seen == [1] and desk.pacer.active == 0


def test_tokens_that_came_during_the_interval_are_shown_together_once_it_ends(tmp_path):
    """After a re-render the generator sleeps out the interval and then shows all new text at once."""
    gate = threading.Event()

    def script(request):
        yield Sources(())
        yield Token("a ")
        gate.wait(10)  # the first view is out: the rest arrives within its interval
        yield from (Token(f"{w} ") for w in "bcdef")
        yield Done(answer="a b c d e f ")

    fake = FakeAssistant()
    fake.ask = script
    answers = []
    for view in _desk(fake, tmp_path, stream_interval=0.3).answer(Request(question="q"), session="s", lang="en"):
        answers.append(view.answer)
        if view.answer == "a ":
            gate.set()
    assert answers[:3] == ["", "", "a "] and answers[-1] == "a b c d e f "
    assert len(answers) < 3 + 5  # not a view per token
