"""Stop ends an answer quietly whatever the model server's reply framing.

The real `ollama` and `openai` clients talk to the fake servers, which stream their reply
chunked (as Ollama does), with a Content-Length (as a proxy that buffers the reply sends it) or
with neither, the body ending when the server closes (as some proxies and servers do). A Stop cuts
the model's connection (quest/cancel.py); with a close-delimited reply that cut used to look like
the server ending the body, so the stop surfaced as a broken stream counted against the host.

The stop is pressed at a checkpoint the server holds (`pause_before_reply` / `pause_at`) and never
lets go of on its own, once the page shows the expected partial answer: nothing here is timed.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator

import pytest

from quest.assistant import Assistant
from quest.cancel import CancelScope, cancellable
from quest.errors import Stopped, StreamBroken
from quest.hosts import HostRouter, build_chat_model
from quest.settings import Settings
from quest.testing.http_fake import FakeServer
from quest.testing.ollama_server import FakeOllama
from quest.testing.openai_server import FakeOpenAI
from quest.ui.desk import HelpDesk, TurnControl, TurnView
from quest.ui.session import Session
from quest.ui.startup import Startup
from tests.fakes.retriever import FakeRetriever
from tests.test_assistant import tle_request

WAIT = 30.0  # generous: events are waited for, never timed
MODEL = "qwen2.5-coder:1.5b"
FULL_ANSWER = "Use a deque [1]."

# When the student presses Stop: the server's checkpoint, the answer shown by then, the pieces sent.
WHEN = {
    "before_headers": ({"pause_before_reply": True}, "", 0),  # Ollama loading a cold model
    "before_first_token": ({"pause_at": frozenset({0})}, "", 0),  # headers out, the prompt being read
    "mid_answer": ({"pause_at": frozenset({2})}, "Use a ", 2),  # two tokens shown
}


@pytest.fixture(params=[(backend, framing) for backend in ("ollama", "openai")
                        for framing in ("chunked", "length", "close")], ids=lambda p: "-".join(p))  # fmt: skip
def server(request) -> Iterator[FakeServer]:
    backend, framing = request.param
    fake = FakeOllama() if backend == "ollama" else FakeOpenAI()
    fake.framing = framing
    fake.pause_limit = 300.0  # a checkpoint never lets go on its own while a test waits
    fake.start()
    try:
        yield fake
    finally:
        fake.stop()


def _settings(fake: FakeServer, tmp_path) -> Settings:
    values = {"data_dir": tmp_path, "connect_timeout": 2.0, "first_token_timeout": 120.0, "total_timeout": 300.0,
              "stream_interval": 0.0}  # fmt: skip
    if isinstance(fake, FakeOpenAI):
        values.update(llm_backend="openai", openai_base_url=fake.url)
    else:
        values.update(ollama_host=fake.url)
    return Settings(**values)


def _desk(fake: FakeServer, tmp_path) -> tuple[HelpDesk, HostRouter]:
    settings = _settings(fake, tmp_path)
    model = build_chat_model(settings)  # the host router over the real client, as the app builds it
    return HelpDesk(settings, Startup.ready(Assistant(settings, FakeRetriever(), model))), model


def _answer_threads_done() -> None:
    """Wait for the desk's answering threads to end: the host's counters and the log are final then."""
    for thread in [t for t in threading.enumerate() if t.name == "quest-answer"]:
        thread.join(WAIT)
        assert not thread.is_alive(), "an answering thread did not end"


def _quest_records(caplog) -> list[tuple[str, int, str]]:
    return [(r.name, r.levelno, r.getMessage()) for r in caplog.records if r.name.startswith("quest")]


def _stopper(fake: FakeServer, shown: threading.Event, stop: Callable[[], None]) -> threading.Thread:
    """A thread that presses Stop (as the Stop button's handler does, from another thread) once the
    server holds the reply at its checkpoint and the student has seen what `shown` stands for."""

    def press_stop() -> None:
        if fake.holding.wait(WAIT) and shown.wait(WAIT):
            stop()

    thread = threading.Thread(target=press_stop, daemon=True)
    thread.start()
    return thread


def _ask_and_stop(desk: HelpDesk, fake: FakeServer, shown_before_stop: str) -> list[TurnView]:
    """Ask; once the server holds the reply at its checkpoint and the page shows `shown_before_stop`,
    press Stop. Returns every view."""
    session = Session()
    session.control = TurnControl()
    shown = threading.Event()
    if not shown_before_stop:
        shown.set()
    stopper = _stopper(fake, shown, lambda: session.stop_streaming("stop"))
    views = []
    for view in desk.answer(tle_request(tier="solution"), session="s", lang="en", control=session.control):
        views.append(view)
        if shown_before_stop and view.answer == shown_before_stop:
            shown.set()
    stopper.join(WAIT)
    _answer_threads_done()
    return views


@pytest.mark.parametrize("when", list(WHEN))
def test_stop_is_a_quiet_stop_whatever_the_framing(server, tmp_path, caplog, when):
    checkpoint, partial, pieces_sent = WHEN[when]
    for name, value in checkpoint.items():
        setattr(server, name, value)
    desk, model = _desk(server, tmp_path)

    with caplog.at_level(logging.DEBUG, logger="quest"):
        views = _ask_and_stop(desk, server, partial)

    last = views[-1]
    assert (last.done, last.stopped, last.answer, last.error, last.status_word) == (True, True, partial, None,
                                                                                     "stopped")  # fmt: skip
    assert [n.code for n in last.notices] == []  # no "the connection broke" line under the kept answer
    assert server.client_closed.wait(WAIT), "the model's connection was not closed by the stop"
    assert [sent for _when, sent in server.disconnects] == [pieces_sent]
    (host,) = model.hosts
    assert (host.failures, host.down_until, host.last_error, host.in_flight) == (0, 0.0, "", 0)
    records = _quest_records(caplog)
    assert ("quest.assistant", logging.DEBUG, "generation stopped by the student") in records
    assert [r for r in records if r[1] >= logging.WARNING] == []  # no "model host failed", no "ended without Done"
    assert not [r for r in records if "generation failed" in r[2]]


@pytest.mark.parametrize("when", ["before_first_token", "mid_answer"])
def test_the_chat_model_raises_stopped_not_stream_broken(server, tmp_path, when):
    """One layer down, without the page: the router's stream ends with `Stopped` after the pieces it had."""
    checkpoint, partial, pieces_sent = WHEN[when]
    for name, value in checkpoint.items():
        setattr(server, name, value)
    model = build_chat_model(_settings(server, tmp_path))
    scope = CancelScope()
    shown = threading.Event()
    if not partial:
        shown.set()
    stopper = _stopper(server, shown, scope.cancel)
    pieces: list[str] = []
    with cancellable(scope), pytest.raises(Stopped):
        for chunk in model.stream([{"role": "user", "content": "q"}], MODEL):
            pieces.append(chunk.content)
            if "".join(pieces) == partial:  # what the student has seen when Stop is pressed
                shown.set()
    stopper.join(WAIT)
    assert "".join(pieces) == partial
    assert server.client_closed.wait(WAIT), "the model's connection was not closed by the stop"
    assert [sent for _when, sent in server.disconnects] == [pieces_sent]
    (host,) = model.hosts
    assert (host.failures, host.last_error, host.in_flight) == (0, "", 0)


def test_stop_after_the_answer_finished_changes_nothing(server, tmp_path, caplog):
    desk, model = _desk(server, tmp_path)
    session = Session()
    session.control = TurnControl()

    with caplog.at_level(logging.DEBUG, logger="quest"):
        views = list(desk.answer(tle_request(tier="solution"), session="s", lang="en", control=session.control))
        _answer_threads_done()
        session.stop_streaming("stop")  # pressed after the last token, before the page took Stop away
        again = list(desk.answer(tle_request(tier="solution"), session="s", lang="en", control=TurnControl()))
        _answer_threads_done()

    last = views[-1]
    assert (last.done, last.stopped, last.answer, last.error, last.status_word) == (True, False, FULL_ANSWER, None,
                                                                                     "done")  # fmt: skip
    assert (again[-1].answer, again[-1].status_word) == (FULL_ANSWER, "done")
    assert server.disconnects == []  # no connection was cut, the pooled one included
    assert len(server.chat_bodies) == 2
    (host,) = model.hosts
    assert (host.served, host.failures, host.last_error, host.in_flight) == (2, 0, "", 0)
    records = _quest_records(caplog)
    assert not [r for r in records if r[1] >= logging.WARNING or "stopped" in r[2] or "failed" in r[2]]


def test_a_server_closing_mid_answer_is_still_a_broken_stream(server, tmp_path):
    """The stop's own cut must not hide a real one: without a stop, a reply that ends early is broken."""
    server.mode, server.drop_after = "drop", 2
    model = build_chat_model(_settings(server, tmp_path))
    pieces: list[str] = []
    with cancellable(CancelScope()), pytest.raises(StreamBroken):
        for chunk in model.stream([{"role": "user", "content": "q"}], MODEL):
            pieces.append(chunk.content)
    assert "".join(pieces) == "Use a "
    (host,) = model.hosts
    assert (host.failures, host.last_error) == (1, "stream_broken")
